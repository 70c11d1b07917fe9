//===- ConvolutionChain.h - a convolution and its chain, read -*- C++ -*-===//
//
// What the fused convolution family (FusedConvolution.cpp) and the kernels
// it chooses between share: the reading of a definition as a convolution,
// in NCHW or in the compiler's channels-last form, followed by a chain of
// elementwise layers (patterns/convolution.mlir), and the code that applies
// the bias and the chain to one element. The generated epilogue after
// cuDNN's convolution or cuBLASLt's product (GemmConvolution.cpp) and
// the generated depthwise kernel (DepthwiseConvolution.cpp) all evaluate
// that code, so a chain layer computes alike on every path.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONCHAIN_H
#define CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONCHAIN_H

#include "CudnnConvolution.h"
#include "FusedSupport.h"
#include "PoolingCodegen.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda {

/// The family's name in messages ("fused convolution: ...").
inline constexpr const char *kConvolutionFamily = "convolution";

/// What one chain layer computes.
enum class StepKind {
  Add,
  Mul,
  Relu,
  LeakyRelu,
  Clip,
  Sigmoid,
  Tanh,
  Gelu,
  GeluTanh,
  HardSigmoid,
  HardSwish,
};

/// One layer of the chain after the convolution.
struct ChainStep {
  mlir::Operation *op = nullptr;
  StepKind kind = StepKind::Relu;
  /// leaky_relu: alpha; clip: alpha = min, beta = max; hard_sigmoid: alpha,
  /// beta.
  double alpha = 0.0, beta = 0.0;
  /// add and mul: the definition argument of the other operand, or none
  /// when both operands are the chain's value.
  std::optional<unsigned> argument;
  /// add and mul: whether the chain's value is the first operand.
  bool valueFirst = true;
  bool isBinary() const { return kind == StepKind::Add || kind == StepKind::Mul; }
};

/// A max pool after the chain, in the channels-last form: the chain's NHWC
/// result transposed to NCHW for the pool alone, the pool, its result
/// transposed back to NHWC (patterns/convolution.mlir's
/// conv_nhwc_bias_activation_max_pool).
struct ConvolutionMaxPool : PoolWindow {
  op::MaxPoolOp op;
  /// The pool's output rows and columns.
  int64_t outHeight = 0, outWidth = 0;
};

/// A definition the family implements.
struct FusedConvolutionShape {
  op::ConvolutionOp conv;
  /// Definition arguments of the convolution's input and weight (before
  /// their transposes in the channels-last form) and bias.
  unsigned input = 0, weight = 0;
  std::optional<unsigned> bias;
  std::vector<ChainStep> steps;
  /// The convolution in cuDNN's terms; in the channels-last form its input
  /// and output shapes are the NHWC ones of the definition's input and
  /// result.
  CudnnConvolutionPlan plan;
  /// The channels-last form: input NHWC, weight KRSC, result and chain NHWC
  /// in memory.
  bool channelsLast = false;
  /// The max pool the definition ends with, if any: the definition's result
  /// is then the pool's (ConvolutionPool.h runs it); the chain's stays on
  /// chip.
  std::optional<ConvolutionMaxPool> pool;
  /// Where the definition starts with a cast of a float32 NCHW argument and
  /// its transpose to NHWC, which the channels-last form's input transpose
  /// reads (cast_conv_nhwc_bias_activation_max_pool: a float32 model's
  /// image): the cast; `input` is then that float32 NCHW argument, which
  /// the kernel converts as the cast does while it reads it. Null
  /// otherwise. Only with a max pool (the convolution + max pool kernel).
  op::CastOp inputCast;
};

/// The family's reading of `definition`: std::nullopt when it is not a
/// convolution (in either form) followed by an elementwise chain, an error
/// when it is but the CUDA driver lacks something.
std::optional<llvm::Expected<FusedConvolutionShape>>
analyzeFusedConvolution(FunctionalDefinitionOp definition);

/// The sizes and window of a convolution in the channels-last form: the
/// NHWC input and output, the weight read as OIHW, the start padding (the
/// end padding only shows in the output size). What the generated
/// depthwise kernel and the GEMM path compute from.
struct ChannelsLastGeometry {
  int64_t batch = 0, height = 0, width = 0, channels = 0;
  int64_t outHeight = 0, outWidth = 0, outChannels = 0;
  int64_t kernelHeight = 1, kernelWidth = 1;
  int64_t strideHeight = 1, strideWidth = 1;
  int64_t dilationHeight = 1, dilationWidth = 1;
  int64_t padTop = 0, padLeft = 0;
};

/// The geometry of `shape`, which must be the channels-last form of a 2-D
/// convolution.
llvm::Expected<ChannelsLastGeometry> getChannelsLastGeometry(const FusedConvolutionShape &shape);

/// `error` as an error of the fused convolution of `definition`
/// ("@name: fused convolution: ...").
llvm::Error inFusedConvolution(FunctionalDefinitionOp definition, llvm::Error error);

/// Why a generated tensor-core kernel does not take `shape`, or
/// std::nullopt: it takes the channels-last form of a 2-D convolution of
/// one group, float16 or bfloat16 (the implicit-GEMM and the convolution +
/// max pool kernels' common terms).
std::optional<std::string> getTensorCoreConvolutionRefusal(const FusedConvolutionShape &shape);

/// Which form the generated convolution kernels that have a wgmma form
/// (the first layer + max pool, the convolution pair with resident
/// weights) take on compute capability 9.0, from
/// CGC_CUDA_CONVOLUTION_WGMMA (read at each build); every other device
/// takes mma.sync.
enum class ConvolutionWgmmaMode {
  /// Unset or anything else: each kernel's measured choice (the first
  /// layer: wgmma; the pair: wgmma where its first product's depth is at
  /// least 128).
  Default,
  /// "0": mma.sync.
  Off,
  /// "1": wgmma wherever the kernel has the form.
  On,
};
ConvolutionWgmmaMode getConvolutionWgmmaMode();

/// Lets `function`, the generated `kernel` (a name for messages: "the
/// implicit-GEMM kernel") of `definition`, take `bytes` of dynamic shared
/// memory where the context has a device; the family's error otherwise.
std::optional<llvm::Error> allowSharedMemory(FunctionalDefinitionOp definition,
                                             KernelContext::Impl &context,
                                             const DeviceFunction &function, size_t bytes,
                                             llvm::StringRef kernel);

/// The device pointers a generated convolution kernel takes first: the
/// input, the weight, then the epilogue's operands (definition arguments)
/// in order.
llvm::SmallVector<const void *, 8> getConvolutionPointers(const LaunchArgs &args, unsigned input,
                                                          unsigned weight,
                                                          llvm::ArrayRef<unsigned> operands);

/// The shape of a channel-broadcast bias of `channels` for an output of
/// rank `rank`: C×1×...×1 (rank - 1 dimensions), or C (the last dimension)
/// for a channels-last output.
Shape getBiasShape(int64_t channels, size_t rank, bool channelsLast);

/// A definition argument the epilogue reads, and the shape it is read with
/// (broadcasting, numpy rules, to the output as it lies in memory).
struct EpilogueOperand {
  unsigned argument = 0;
  Shape shape;
};

/// The bias and the chain applied to one element of the output.
struct ConvolutionEpilogue {
  /// Statements that take the float `v` (the convolution's sum at the
  /// element) to the chain's result; operand k is read before them into the
  /// float `x<k + 1>` (`x0` is left to the caller). Empty when there is
  /// nothing to apply.
  std::string statements;
  /// The operands, each definition argument once, in the order of their
  /// names.
  llvm::SmallVector<EpilogueOperand, 4> operands;
};

/// Where an epilogue starts: after what a library has already applied to
/// the convolution's result (the GEMM path's cuBLASLt epilogue takes the
/// bias and a prefix of the chain, GemmConvolution.h).
struct EpilogueStart {
  /// The bias was added.
  bool biasApplied = false;
  /// The first `stepsApplied` chain layers were applied.
  size_t stepsApplied = 0;
};

/// The epilogue of `shape` from `start`: each chain layer by its layer
/// kernel's own expression (Elementwise.cpp), so that the chain rounds as
/// the layers do.
llvm::Expected<ConvolutionEpilogue> getConvolutionEpilogue(FunctionalDefinitionOp definition,
                                                           const FusedConvolutionShape &shape,
                                                           const EpilogueStart &start = {});

/// Epilogue statements as a device function of generated source,
/// `CGC_DEVICE float name(float v, float x1, ..., float x<operands>)`,
/// returning `v` after them.
std::string getEpilogueFunction(llvm::StringRef name, llvm::StringRef statements,
                                size_t operands);

/// The epilogue as one generated kernel over the output, in place: it
/// reads the convolution's result back from the output (x0), applies the
/// epilogue and stores the chain's result where it read.
struct EpilogueKernel {
  Kernel kernel;
  /// The definition arguments it reads after the output, in order.
  llvm::SmallVector<unsigned, 4> arguments;

  /// Enqueues it over `args.outputs[0]`, reading its arguments from
  /// `args.inputs`, on `args.stream`.
  std::string launch(const LaunchArgs &args) const;
};

/// The epilogue kernel of `shape` from `start` (compiled without a device),
/// or std::nullopt when nothing is left to apply.
llvm::Expected<std::optional<EpilogueKernel>>
buildEpilogueKernel(FunctionalDefinitionOp definition, const FusedConvolutionShape &shape,
                    KernelContext::Impl &context, const EpilogueStart &start = {});

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONCHAIN_H
