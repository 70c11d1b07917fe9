//===- KernelSupport.h - shared helpers of the CUDA kernel families -*- C++ -*-===//
//
// What every family of the CUDA kernel library uses: reading an op's tensor
// types, the error messages of unimplemented cases (all end in "on the CUDA
// driver"), shape arithmetic, host-side encoding of scalars in a storage
// type, device memory a kernel owns, the launch-failure messages, and the
// per-family builders that Registry.cpp dispatches to.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_KERNELSUPPORT_H
#define CGC_DRIVERS_CUDA_KERNELS_KERNELSUPPORT_H

#include "../Kernels.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"

#include <mutex>
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda {

using Shape = llvm::SmallVector<int64_t, 6>;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// The IR name of `dtype` (`float32`, `int64`, ...).
const char *getDTypeName(DType dtype);

inline bool isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F64;
}
/// float32, float16 and bfloat16: the types computed in float.
inline bool isFloat32ComputedDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}
inline bool isSignedIntegerDType(DType dtype) {
  return dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
}
inline bool isUnsignedIntegerDType(DType dtype) {
  return dtype == DType::U8 || dtype == DType::U16 || dtype == DType::U32 || dtype == DType::U64;
}
inline bool isIntegerDType(DType dtype) {
  return isSignedIntegerDType(dtype) || isUnsignedIntegerDType(dtype);
}

/// The bits of `value` converted to `dtype` as ONNX Cast (and the CPU
/// kernels' castElement) converts a double: floats round to nearest through
/// float32 (float64 keeps the double), integers truncate toward zero and
/// saturate to int64 before wrapping, bool compares with zero. The result is
/// the element's bytes in the low bits.
uint64_t encodeScalar(DType dtype, double value);

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// "cgc_op.X: <message>".
llvm::Error makeKernelError(mlir::Operation *op, const llvm::Twine &message);
/// "cgc_op.X is not implemented on the CUDA driver".
llvm::Error unimplementedOp(mlir::Operation *op);
/// "cgc_op.X: element type Y is not implemented on the CUDA driver".
llvm::Error unimplementedElementType(mlir::Operation *op, DType dtype);
/// "cgc_op.X: <what> is not implemented on the CUDA driver".
llvm::Error unimplementedFeature(mlir::Operation *op, const llvm::Twine &what);
/// "cgc_op.X: <call> failed: <CUDA error>".
llvm::Error cudaCallError(mlir::Operation *op, llvm::StringRef call, cudaError_t error);

/// The message a launch returns when `call` failed with `error`:
/// "<opName>: <call> failed: <CUDA error name>: <description>".
std::string describeLaunchFailure(llvm::StringRef opName, llvm::StringRef call, cudaError_t error);
/// "<name>: <description>" of a CUDA runtime error.
std::string describeCudaError(cudaError_t error);

//===----------------------------------------------------------------------===//
// Tensor types and shapes
//===----------------------------------------------------------------------===//

/// The shape and DType of one operand or result.
struct TensorInfo {
  Shape shape;
  DType dtype = DType::F32;
  int64_t getNumElements() const;
  int64_t getRank() const { return static_cast<int64_t>(shape.size()); }
  uint64_t getByteSize() const;
};

/// The TensorInfo of `value`, or an error naming `op`.
llvm::Expected<TensorInfo> getTensorInfo(mlir::Operation *op, mlir::Value value);

int64_t getNumElements(llvm::ArrayRef<int64_t> shape);
/// Row-major strides of `shape`, in elements.
Shape getStrides(llvm::ArrayRef<int64_t> shape);
/// `axis` in [-rank, rank) made non-negative (verified IR has it in range).
inline int64_t normalizeAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }
/// Strides (in elements) that read an operand of `operandShape` at every
/// index of `outputShape` it broadcasts to (numpy rules): 0 along the
/// dimensions it stretches or lacks.
Shape getBroadcastStrides(llvm::ArrayRef<int64_t> operandShape,
                          llvm::ArrayRef<int64_t> outputShape);
/// A per-spatial-dimension attribute list, `fallback` everywhere when empty.
Shape getWindowList(llvm::ArrayRef<int64_t> values, int64_t count, int64_t fallback);
/// Rounds `bytes` up to the workspace alignment (256).
uint64_t alignWorkspace(uint64_t bytes);

//===----------------------------------------------------------------------===//
// Device memory owned by a kernel
//===----------------------------------------------------------------------===//

/// A device allocation made at build time (tables and parameter blocks a
/// kernel reads), freed when the last kernel holding it goes.
class DeviceBuffer {
public:
  /// Allocates `bytes` on the current device and copies `data` into it.
  static llvm::Expected<std::shared_ptr<DeviceBuffer>> upload(mlir::Operation *op, const void *data,
                                                              size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  void *get() const { return pointer; }

private:
  explicit DeviceBuffer(void *pointer) : pointer(pointer) {}
  void *pointer = nullptr;
};

//===----------------------------------------------------------------------===//
// Family builders (one per source file)
//===----------------------------------------------------------------------===//

/// Unary, binary, rounding/trigonometric, integer-bit, cast, where and
/// prelu layers (Elementwise.cpp).
bool isElementwiseOp(mlir::Operation *op);
llvm::Expected<Kernel> buildElementwiseKernel(mlir::Operation *op, KernelContext::Impl &context);
/// The C++ expression of a unary or binary elementwise layer on its
/// operands' compute values `x0` (and `x1`) of `dtype`, exactly as its layer
/// kernel computes it, for fused kernels that evaluate layers inline;
/// std::nullopt for cast, where, prelu, comparisons and logic, for an
/// attribute value the layer kernel rejects, and for `dtype` outside the
/// layer's domain.
std::optional<std::string> getElementwiseExpression(mlir::Operation *op, DType dtype);
/// The C++ expression of any elementwise layer (cast, where and prelu,
/// comparisons and logic included) on its operands' compute values `x0`,
/// `x1`, ... giving its result's compute value; or the error its layer
/// kernel gives for an element type or attribute value it does not
/// implement. For fused kernels that evaluate layers inline.
llvm::Expected<std::string> getCheckedElementwiseExpression(mlir::Operation *op);
/// reshape, transpose, slice, expand, concat, split, gather, pad
/// (DataMovement.cpp).
bool isDataMovementOp(mlir::Operation *op);
llvm::Expected<Kernel> buildDataMovementKernel(mlir::Operation *op, KernelContext::Impl &context);
/// matmul and gemm through cuBLASLt (Matmul.cpp).
llvm::Expected<Kernel> buildMatmulKernel(mlir::Operation *op, KernelContext::Impl &context);
llvm::Expected<Kernel> buildGemmKernel(mlir::Operation *op, KernelContext::Impl &context);
/// convolution through cuDNN (Convolution.cpp).
llvm::Expected<Kernel> buildConvolutionKernel(mlir::Operation *op, KernelContext::Impl &context);
/// conv_transpose through cuDNN's backward-data convolution (ConvTranspose.cpp).
llvm::Expected<Kernel> buildConvTransposeKernel(mlir::Operation *op, KernelContext::Impl &context);
/// max_pool and average_pool (Pooling.cpp).
llvm::Expected<Kernel> buildWindowPoolKernel(mlir::Operation *op, KernelContext::Impl &context);
/// upsample (Upsample.cpp).
llvm::Expected<Kernel> buildUpsampleKernel(mlir::Operation *op, KernelContext::Impl &context);
/// softmax, layer_norm, batch_norm, group_norm, instance_norm
/// (Normalization.cpp).
bool isNormalizationOp(mlir::Operation *op);
llvm::Expected<Kernel> buildNormalizationKernel(mlir::Operation *op, KernelContext::Impl &context);
/// scaled_dot_product_attention as one generated kernel (AttentionKernel.cpp).
llvm::Expected<Kernel> buildAttentionKernel(mlir::Operation *op, KernelContext::Impl &context);
/// reduce_sum/mean/max/min/prod and the global pools (Reduction.cpp).
bool isReductionOp(mlir::Operation *op);
llvm::Expected<Kernel> buildReductionKernel(mlir::Operation *op, KernelContext::Impl &context);
/// arg_max/arg_min, top_k, gather_elements/gather_nd,
/// scatter_elements/scatter_nd and cumsum (Indexing.cpp).
bool isIndexingOp(mlir::Operation *op);
llvm::Expected<Kernel> buildIndexingKernel(mlir::Operation *op, KernelContext::Impl &context);

/// A constant-mode pad of a dense tensor (DataMovement.cpp), for the
/// families that pad before calling a library (asymmetric convolution
/// padding): inputs[0] padded by `startPadding`/`endPadding` with the
/// element whose bits are `fillBits`, into outputs[0].
llvm::Expected<Kernel> buildConstantPadKernel(mlir::Operation *op, KernelContext::Impl &context,
                                              DType dtype, llvm::ArrayRef<int64_t> inputShape,
                                              llvm::ArrayRef<int64_t> startPadding,
                                              llvm::ArrayRef<int64_t> endPadding,
                                              uint64_t fillBits);

/// Held while kernels are timed on the device (to pick between two ways
/// of running a definition, or among cuDNN's algorithms). Programs are
/// created on several threads at once; timings taken side by side would
/// measure each other, and the faster way would be picked at random. Take it
/// before any library handle's lock.
std::mutex &getDeviceTimingMutex();

/// What timing kernels on the device needs besides the kernels: a private
/// non-blocking stream, events on it and zeroed stand-in buffers. The
/// destructor waits for the stream, then frees the buffers and destroys
/// the events and the stream; a CUDA error there is cleared, so that it
/// does not surface in a later, unrelated call.
class TimingScratch {
public:
  TimingScratch() = default;
  TimingScratch(const TimingScratch &) = delete;
  TimingScratch &operator=(const TimingScratch &) = delete;
  ~TimingScratch();

  /// Creates the stream and `eventCount` events; false on failure.
  bool create(size_t eventCount);
  cudaStream_t getStream() const { return stream; }
  cudaEvent_t getEvent(size_t index) const { return events[index]; }
  /// `bytes` of device memory zeroed in the stream's order; null on
  /// failure.
  void *allocate(uint64_t bytes);

private:
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> events;
  std::vector<void *> allocations;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_KERNELSUPPORT_H
