//===- FusedTarget.cpp - the fused target the CUDA driver declares --------===//
//
// What the driver answers declaration and specialization requests with
// (../Caps.cpp): the patterns of every fused kernel family (patterns/*.mlir,
// embedded at build time, one file per family), the check that a fused
// kernel implements a matched subgraph whole, and the layout the kernels
// prefer. Kept beside the kernels, out of the plugin, so that tests ask
// the same target the driver declares without a GPU.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionPair.h"
#include "FusedSupport.h"

#include <cstdlib>
#include <span>
#include <string_view>

namespace cgc::cuda {

namespace {

/// The fused target's patterns, one cgc.module per kernel family: data kept
/// out of the code.
constexpr drivers::PatternSource kPatternFiles[] = {
    {"patterns/convolution.mlir",
#include "convolution.mlir.inc"
    },
    {"patterns/matmul.mlir",
#include "matmul.mlir.inc"
    },
    {"patterns/attention.mlir",
#include "attention.mlir.inc"
    },
    {"patterns/normalization.mlir",
#include "normalization.mlir.inc"
    },
    {"patterns/elementwise.mlir",
#include "elementwise.mlir.inc"
    },
    {"patterns/pooling.mlir",
#include "pooling.mlir.inc"
    },
    {"patterns/layout.mlir",
#include "layout.mlir.inc"
    },
    // Last, so that the array without it is a prefix.
    {"patterns/convolution-pair.mlir",
#include "convolution-pair.mlir.inc"
    },
};

/// Whether the convolution pair pattern is declared: unless
/// CGC_CUDA_CONVOLUTION_PAIR is 0.
bool isConvolutionPairDeclared() {
  return getConvolutionPairMode() != ConvolutionPairMode::Off;
}

/// Whether one fused kernel implements `subgraph` whole (checked without a
/// GPU).
bool isFused(SubgraphOp subgraph) {
  FunctionalDefinitionOp definition = subgraph.getDefinition();
  if (!definition || definition.getBody().empty())
    return false;
  std::optional<llvm::Error> fused = checkFusedKernel(definition);
  if (!fused)
    return false;
  if (*fused) {
    llvm::consumeError(std::move(*fused));
    return false;
  }
  return true;
}

} // namespace

const drivers::FusedTarget &getFusedTarget() {
  // Channels-last: cuDNN's float16 and bfloat16 tensor-core engines want
  // NHWC activations, and conv_nhwc_bias_activation (and the NHWC pools)
  // run the compiler's channels-last form of each convolution (and pool)
  // without a transpose.
  static const drivers::FusedTarget target{"CUDA", kPatternFiles, isFused, "channels_last"};
  static const drivers::FusedTarget withoutPair{
      "CUDA", std::span(kPatternFiles).first(std::size(kPatternFiles) - 1), isFused,
      "channels_last"};
  return isConvolutionPairDeclared() ? target : withoutPair;
}

} // namespace cgc::cuda
