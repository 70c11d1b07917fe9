//===- CudnnConvolution.h - convolutions through cuDNN's legacy API -*- C++ -*-===//
//
// The cuDNN convolution that the convolution layer (Convolution.cpp), the
// fused convolution's fallback (FusedConvolution.cpp) and conv_transpose
// (ConvTranspose.cpp, as cuDNN's backward-data convolution) share: legacy
// tensor, filter and convolution descriptors, an algorithm picked at build
// time by cuDNN's heuristics, and the workspace it needs.
//
// float32 (and float64) run with CUDNN_FMA_MATH (no TF32) and an algorithm
// computing the direct sum (FFT and Winograd only when cuDNN offers nothing
// else), to stay close to the CPU reference; float16 and bfloat16 accumulate
// in float32 with CUDNN_TENSOR_OP_MATH (tensor cores).
//
// A 2-D convolution may be channels-last: the input and output NHWC and the
// weight KRSC in memory (CUDNN_TENSOR_NHWC descriptors), the layout of
// cuDNN's tensor-core kernels. Its dimensions stay logical (N×C×H×W), as
// cuDNN takes them.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CUDNNCONVOLUTION_H
#define CGC_DRIVERS_CUDA_KERNELS_CUDNNCONVOLUTION_H

#include "KernelContextImpl.h"
#include "KernelSupport.h"
#include "LibraryHandles.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <memory>
#include <optional>

namespace cgc::cuda {

/// The cuDNN data type of a floating-point DType (float32 for the others).
cudnnDataType_t getCudnnDataType(DType dtype);

/// "<op>: <call> failed: <cuDNN status>" (with cuDNN's last message when it
/// has one).
llvm::Error cudnnCallError(mlir::Operation *op, llvm::StringRef call, cudnnStatus_t status);

/// A convolution in cuDNN's terms, always of the forward direction: `input`
/// (N×C×spatial) convolved with `weight` (K×C/groups×kernel) gives `output`
/// (N×K×spatial). A 1-D convolution is a 2-D one of height 1; padding is
/// symmetric (cuDNN's legacy API pads both ends alike).
struct CudnnConvolutionGeometry {
  DType dtype = DType::F32;
  llvm::SmallVector<int, 5> input, weight, output;
  llvm::SmallVector<int, 3> padding, strides, dilations;
  int groups = 1;
  /// The input and output are NHWC and the weight KRSC in memory (2-D
  /// only); the dimensions above stay logical.
  bool channelsLast = false;
};

/// How a forward algorithm is chosen.
enum class CudnnAlgorithmSearch {
  /// The first usable one in the order of cuDNN's heuristics
  /// (cudnnGetConvolutionForwardAlgorithm_v7): no device memory, the same
  /// choice every time.
  Heuristic,
  /// The fastest usable one that computes the direct sum, timed by
  /// cudnnFindConvolutionForwardAlgorithmEx on scratch buffers (the
  /// heuristic choice when nothing can be timed). The choice is cached per
  /// device and geometry for the process: identical convolutions of a
  /// model are timed once.
  Fastest,
};

/// What a kernel runs: the forward convolution (output from input) or the
/// backward-data one (input from output: a transposed convolution).
enum class CudnnConvolutionDirection { Forward, BackwardData };

/// The cuDNN objects of one convolution, shared by the kernels that run it
/// and destroyed with the last of them.
struct CudnnConvolution {
  std::shared_ptr<CudnnHandle> handle;
  CudnnConvolutionDirection direction = CudnnConvolutionDirection::Forward;
  cudnnTensorDescriptor_t input = nullptr, output = nullptr;
  cudnnFilterDescriptor_t weight = nullptr;
  cudnnConvolutionDescriptor_t convolution = nullptr;
  cudnnConvolutionFwdAlgo_t forwardAlgorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnConvolutionBwdDataAlgo_t backwardDataAlgorithm = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  size_t workspaceSize = 0;
  bool isDouble = false;

  CudnnConvolution() = default;
  CudnnConvolution(const CudnnConvolution &) = delete;
  CudnnConvolution &operator=(const CudnnConvolution &) = delete;
  ~CudnnConvolution();

  /// Enqueues the convolution on `stream` under the handle's lock: forward
  /// writes `result` (output) from `source` (input), backward data writes
  /// `result` (input) from `source` (output). `workspace` holds
  /// `workspaceSize` bytes.
  cudnnStatus_t run(const void *source, const void *weightData, void *result, void *workspace,
                    cudaStream_t stream) const;
  /// The cuDNN call `run` makes, for messages.
  const char *getCallName() const;
};

/// Creates the descriptors of `geometry` and picks the algorithm of
/// `direction` (the context must have a device: cuDNN needs one); `search`
/// applies to the forward direction (backward data always takes the
/// heuristic choice). Errors name `op`.
llvm::Expected<std::shared_ptr<CudnnConvolution>>
createCudnnConvolution(mlir::Operation *op, KernelContext::Impl &context,
                       const CudnnConvolutionGeometry &geometry,
                       CudnnConvolutionDirection direction,
                       CudnnAlgorithmSearch search = CudnnAlgorithmSearch::Heuristic);

/// `values` as cuDNN's int dimensions, inserting `inserted` at `insertAt`
/// when `heightOne` (a 1-D convolution seen as 2-D); nullopt when a value is
/// beyond int.
std::optional<llvm::SmallVector<int, 5>> toCudnnDims(llvm::ArrayRef<int64_t> values, bool heightOne,
                                                     size_t insertAt, int inserted);

/// What a convolution layer needs from cuDNN, worked out without a device:
/// the geometry cuDNN convolves and, for asymmetric padding, the padding
/// applied to the input beforehand.
struct CudnnConvolutionPlan {
  CudnnConvolutionGeometry geometry;
  TensorInfo input, output;
  /// Set when the input is padded into the workspace first (asymmetric
  /// padding): the padding of every dimension, batch and channels 0.
  std::optional<Shape> startPadding, endPadding;
};

/// The plan of `conv`'s convolution (its bias aside), or an error naming
/// what the CUDA driver does not implement (element type, rank, negative
/// padding, dimensions beyond int).
llvm::Expected<CudnnConvolutionPlan> planCudnnConvolution(op::ConvolutionOp conv);

/// Makes `plan`, of a 2-D convolution, channels-last: its input and output
/// become their NHWC shapes (and the padding of the input, NHWC too), the
/// weight is read as KRSC; the geometry keeps the logical dimensions.
void makeChannelsLast(CudnnConvolutionPlan &plan);

/// The kernel of `plan` without bias: inputs (input, weight), output
/// outputs[0]. Its generated pad kernel (asymmetric padding) is compiled
/// before cuDNN is asked for anything, so that a compile-only context
/// compiles it and then stops at needing a device.
llvm::Expected<Kernel>
buildCudnnConvolutionKernel(op::ConvolutionOp conv, KernelContext::Impl &context,
                            const CudnnConvolutionPlan &plan,
                            CudnnAlgorithmSearch search = CudnnAlgorithmSearch::Heuristic);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CUDNNCONVOLUTION_H
