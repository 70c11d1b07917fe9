//===- ImplicitGemmConvolution.h - few-channel convolutions on tensor cores -*- C++ -*-===//
//
// A generated kernel for channels-last convolutions of few input channels
// (a vision model's first layer: ResNet-50's 7×7 stride-2 convolution of 3
// channels), float16 or bfloat16: the convolution as a matrix product whose
// rows are output pixels, whose columns are output channels and whose depth
// is the window (R·S·C), with the windows gathered from the input into
// shared memory as the product goes (implicit GEMM) instead of into a
// workspace (the GEMM path's im2col), then the bias and the chain on the
// float32 sums before the only store.
//
// cuDNN's engines want many channels; with three, ResNet-50's first layer
// ran in 1.49 ms at batch 256 (cuDNN graph) on an H100, 18% of the model,
// where its 411 MB output takes 0.14 ms to write.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_IMPLICITGEMMCONVOLUTION_H
#define CGC_DRIVERS_CUDA_KERNELS_IMPLICITGEMMCONVOLUTION_H

#include "ConvolutionChain.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// The most input channels the kernel takes, and the most window elements
/// (R·S·C): the block's weights stay in shared memory, beside two A tiles
/// and the band of input rows a tile reads.
constexpr int64_t kImplicitGemmMaxChannels = 8;
constexpr int64_t kImplicitGemmMaxWindow = 192;
/// The most shared memory a block takes (opted in): what every device of
/// compute capability 8.0 and later grants a block.
constexpr int64_t kImplicitGemmMaxSharedBytes = 96 * 1024;

/// Why the implicit-GEMM kernel does not run `shape` on a device of compute
/// capability `computeMajor`.x, or std::nullopt when it does: it takes the
/// channels-last form of a 2-D convolution of one group, float16 or
/// bfloat16 (tensor cores, compute capability 8.0 and later), at most
/// kImplicitGemmMaxChannels input channels, windows of at most
/// kImplicitGemmMaxWindow elements, a multiple of 8 output channels, and
/// input rows few and short enough that the band a tile of output pixels
/// reads fits in shared memory (kImplicitGemmMaxSharedBytes).
std::optional<std::string> getImplicitGemmRefusal(const FusedConvolutionShape &shape,
                                                  int computeMajor);

/// The kernel of `definition` (which getImplicitGemmRefusal accepts; an
/// error otherwise), compiled for its geometry.
llvm::Expected<Kernel> buildImplicitGemmConvolution(FunctionalDefinitionOp definition,
                                                    const FusedConvolutionShape &shape,
                                                    KernelContext::Impl &context);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_IMPLICITGEMMCONVOLUTION_H
