//===- FusedConvolutionTestSupport.h - fused convolution cases and paths -*- C++ -*-===//
//
// The fused convolution runs as one cuDNN graph, as cuDNN's convolution and
// a generated epilogue, (channels-last depthwise) as the generated
// depthwise kernel, or (channels-last, one matrix product) as cuBLASLt's
// GEMM. The channels-first, channels-last, depthwise and GEMM tests force
// each path on every case against the same reference; the channels-last
// ones write their definitions with the same builder (NhwcCase).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDCONVOLUTIONTESTSUPPORT_H
#define CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDCONVOLUTIONTESTSUPPORT_H

#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/FusedConvolution.h"

#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda::test {

class FusedConvolutionPathsTest : public FusedKernelTest {
public:
  /// Builds `definitionCase` down each cuDNN path forced and expects each,
  /// launched directly and through graph capture, to match the reference.
  /// The epilogue path must run every case; the cuDNN graph may have no
  /// plan for it (reported). Counts the case in `graphCases` when the graph
  /// ran it. Needs a device.
  void expectBothPathsMatchCpu(const DefinitionCase &definitionCase, unsigned &graphCases);
  /// Builds `definitionCase` down `path` (forced: the generated depthwise
  /// kernel, the cuBLASLt GEMM, the implicit-GEMM kernel) and expects it,
  /// launched directly and through graph capture, to match the reference;
  /// `misaligned`: launched once on buffers that each start one element
  /// past a 256-byte boundary (launchMisaligned), so that kernels with
  /// vector accesses must take their narrow ones. Needs a device.
  void expectForcedPathMatchesCpu(const DefinitionCase &definitionCase, FusedConvolutionPath path,
                                  bool misaligned = false);
};

/// Whether the implicit-GEMM kernel runs `definition` on compute
/// capability 9.0 (getImplicitGemmRefusal): without a device, the family's
/// own choice for it.
bool takesImplicitGemm(FunctionalDefinitionOp definition);

//===----------------------------------------------------------------------===//
// Channels-last definitions
//===----------------------------------------------------------------------===//

/// A 2-D convolution's window, as its attributes give it.
struct Window {
  Dims strides, startPadding, endPadding, dilations;
  int64_t groups = 1;

  std::string attributes() const;
};

/// One layer of the chain after the convolution.
struct ChainLayer {
  std::string op;
  std::string attributes;
  /// The NHWC shape of the layer's other operand (a new argument), if it
  /// has one.
  std::optional<Dims> other;
  /// Whether the chain's value is the second operand.
  bool valueSecond = false;
  double low = -1.0, high = 1.0;
};

/// A max pool of the chain's result (transposed to NCHW for it, its result
/// back to NHWC).
struct MaxPool {
  Dims kernel, strides, startPadding, endPadding;
  bool ceilMode = false;
  /// The permutation of the transpose the pool reads (a test changes it;
  /// the shapes stay right for square results).
  std::string inputPermutation = "[0, 3, 1, 2]";

  std::string attributes() const;
};

/// A channels-last convolution (optional bias) and its chain: `input` is
/// N×H×W×C, `weight` K×R×S×C/groups (OHWI), as the definition's arguments
/// lie in memory; the definition ends with `pool` where there is one.
struct NhwcCase {
  std::string name;
  Dims input, weight;
  Window window;
  bool bias = true;
  std::vector<ChainLayer> chain;
  std::optional<MaxPool> pool;
  /// Whether the definition reads a float32 NCHW image instead, cast to the
  /// element type and transposed to NHWC first (a float32 model's input;
  /// cast_conv_nhwc_bias_activation_max_pool).
  bool float32Image = false;
};

/// NHWC (OHWI) dimensions as NCHW (OIHW): the permutation [0, 3, 1, 2].
Dims toNchw(const Dims &nhwc);
/// NCHW dimensions as NHWC: the permutation [0, 2, 3, 1].
Dims toNhwc(const Dims &nchw);

/// The NCHW output shape of the convolution (ConvolutionOps.td).
Dims getOutputShape(const Dims &input, const Dims &weight, const Window &window);

/// The transposes of the channels-last form (a test changes them).
struct Permutations {
  std::string input = "[0, 3, 1, 2]", weight = "[0, 3, 1, 2]", output = "[0, 2, 3, 1]";
};

/// The channels-last definition of `fused` in `dtype`: input in [-1, 1],
/// weights scaled to the fan-in so that results stay near 1.
DefinitionCase makeNhwcDefinition(const NhwcCase &fused, DType dtype,
                                  const Permutations &permutations = {});

/// A chain layer without another operand.
ChainLayer layer(std::string op, std::string attributes = "");
/// A chain layer whose other operand is a new argument of shape `other`
/// (values in [low, high]).
ChainLayer withOther(std::string op, Dims other, bool valueSecond = false, double low = -1.0,
                     double high = 1.0);
inline const ChainLayer kRelu = layer("cgc_op.relu");
inline const ChainLayer kRelu6 = layer("cgc_op.clip", "{max = 6.000000e+00, min = 0.000000e+00}");

} // namespace cgc::cuda::test

#endif // CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDCONVOLUTIONTESTSUPPORT_H
