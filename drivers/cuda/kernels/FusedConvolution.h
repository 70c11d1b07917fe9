//===- FusedConvolution.h - convolution and its epilogue as one kernel -*- C++ -*-===//
//
// The fused convolution family (FusedConvolution.cpp): a convolution with
// optional bias followed by a chain of elementwise layers (bias, residual
// add, activations), as patterns/convolution.mlir declares it, in NCHW or
// in the compiler's channels-last form (transposes from NHWC input and OHWI
// weight, and of the result to NHWC, around a 2-D convolution: run on NHWC
// memory without transposing). It runs one of these ways, chosen when it
// is built:
//
// * CudnnGraph: one cuDNN operation graph — convolution, then a pointwise
//   node per bias and chain layer — executed as one plan (runtime fusion);
// * ConvolutionThenEpilogue: cuDNN's convolution (its fastest direct-sum
//   algorithm) followed by one generated kernel applying the bias and the
//   whole chain in a single pass over the output; the only way when cuDNN
//   finalizes no plan for the graph (or a chain layer has no cuDNN
//   pointwise mode);
// * DepthwiseKernel: in the channels-last form, when the convolution is
//   depthwise (groups = input channels = output channels), one generated
//   kernel for the convolution, the bias and the chain
//   (DepthwiseConvolution.h);
// * Gemm: in the channels-last form, when the convolution is one matrix
//   product (pointwise, or windows that do not overlap, unpadded, groups
//   1), cuBLASLt's GEMM with what its epilogue computes of the bias and the
//   chain, then the generated epilogue for the rest (GemmConvolution.h);
// * ImplicitGemm: in the channels-last form, float16 or bfloat16, at most 8
//   input channels (a model's first layer), the generated implicit-GEMM
//   kernel: windows gathered into shared memory, tensor-core products, the
//   epilogue before the one store (ImplicitGemmConvolution.h);
// * ConvolutionPool: a definition that ends in a max pool of the chain's
//   result (conv_nhwc_bias_activation_max_pool: ResNet's first layer and
//   its pool) runs only as the generated convolution + max pool kernel
//   (ConvolutionPool.h), whose refusals the family's check reports, so that
//   the compiler matches the convolution and the pool apart instead.
//
// The choice is reported on stderr at build time when CGC_CUDA_VERBOSE is
// set (to anything but 0).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_FUSEDCONVOLUTION_H
#define CGC_DRIVERS_CUDA_KERNELS_FUSEDCONVOLUTION_H

#include "FusedSupport.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// How a fused convolution runs.
enum class FusedConvolutionPath {
  /// One cuDNN operation graph.
  CudnnGraph,
  /// cuDNN's convolution, then one generated epilogue kernel.
  ConvolutionThenEpilogue,
  /// The generated channels-last depthwise kernel, epilogue included.
  DepthwiseKernel,
  /// cuBLASLt's GEMM on the channels-last input (or its gathered windows),
  /// then the generated epilogue for what cuBLASLt's epilogue did not apply.
  Gemm,
  /// The generated implicit-GEMM kernel of few-channel channels-last
  /// convolutions on tensor cores, epilogue included.
  ImplicitGemm,
  /// The generated kernel of a few-channel channels-last convolution, its
  /// epilogue and the max pool after it (ConvolutionPool.h): the only way a
  /// definition ending in a max pool runs.
  ConvolutionPool,
};

/// "cuDNN graph", "cuDNN convolution + generated epilogue", "generated
/// depthwise kernel", "cuBLASLt GEMM", "generated implicit-GEMM kernel" or
/// "generated convolution + max pool kernel".
const char *getFusedConvolutionPathName(FusedConvolutionPath path);

/// The path a value of CGC_CUDA_CONVOLUTION forces: "graph", "library",
/// "gemm", "implicit"; std::nullopt for anything else ("auto": the family
/// chooses).
std::optional<FusedConvolutionPath> parseFusedConvolutionPath(llvm::StringRef name);

/// A built fused convolution and how it runs.
struct FusedConvolutionKernel {
  Kernel kernel;
  FusedConvolutionPath path = FusedConvolutionPath::ConvolutionThenEpilogue;
  /// On the other paths: why the cuDNN graph does not run the definition
  /// (or was not kept).
  std::string graphRefusal;
  /// On the cuDNN graph path: the engine of its plan, and how many plans
  /// were timed to choose it (0 when cuDNN had one, tuning is off, or this
  /// process timed the same definition before and reused its choice).
  int64_t engine = -1;
  int timedPlans = 0;
};

/// Builds the fused convolution of `definition`, which the family must
/// recognize (an error otherwise). Without `path` (and without
/// CGC_CUDA_CONVOLUTION forcing one) both cuDNN paths are built when cuDNN
/// has a graph plan, each is timed once on this device, and the faster is
/// kept (channels-last: the graph, untimed); without a graph plan the
/// epilogue path runs it. A channels-last depthwise convolution then times
/// the depthwise kernel against that choice, a channels-last convolution
/// the GEMM path runs times the GEMM against it, and one the implicit-GEMM
/// kernel runs times that kernel against the result; each keeps the
/// faster. A given path is forced (tests check each), and a forced path
/// that does not run the definition (a graph without a plan, the depthwise
/// kernel or the GEMM on another convolution) is an error; except that
/// CGC_CUDA_CONVOLUTION=gemm forces the GEMM only where it runs the
/// definition (a model's other convolutions are chosen as usual). A
/// context without a device builds the depthwise kernel, or the
/// implicit-GEMM kernel, where it applies;
/// otherwise (the GEMM needs cuBLASLt, which needs a device, as cuDNN does)
/// it compiles the epilogue kernel, then stops where cuDNN needs a device;
/// the GEMM path forced compiles its generated kernels, then stops where
/// cuBLASLt needs a device. The cuDNN graph's plan is the first that
/// finalizes, or with CGC_CUDA_CUDNN_TUNING=1 the fastest of the first that
/// finalize (up to 4, one runtime-fusion engine beyond the first), timed
/// once per process for each distinct definition and device.
llvm::Expected<FusedConvolutionKernel>
buildFusedConvolution(FunctionalDefinitionOp definition, KernelContext::Impl &context,
                      std::optional<FusedConvolutionPath> path = std::nullopt);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_FUSEDCONVOLUTION_H
