//===- KernelSupport.cpp - shared helpers of the CUDA kernel families -----===//

#include "KernelSupport.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace cgc::cuda {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

const char *getDTypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float32";
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::I8:
    return "int8";
  case DType::U8:
    return "uint8";
  case DType::I16:
    return "int16";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::Bool:
    return "bool";
  case DType::F64:
    return "float64";
  case DType::U16:
    return "uint16";
  case DType::U32:
    return "uint32";
  case DType::U64:
    return "uint64";
  }
  return "unknown";
}

/// float -> binary16 bits, rounding to nearest-even (the CPU kernels'
/// conversion, which the device's cvt.rn.f16.f32 matches).
static uint16_t floatToHalfBits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
  if (magnitude >= 0x477ff000u)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {
    if (magnitude < 0x33000000u)
      return static_cast<uint16_t>(sign);
    uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exponent;
    uint32_t result = mantissa >> shift;
    uint32_t remainder = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (result & 1u)))
      ++result;
    return static_cast<uint16_t>(sign | result);
  }
  uint32_t result = magnitude - 0x38000000u;
  uint32_t remainder = result & 0x1fffu;
  result >>= 13;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u)))
    ++result;
  return static_cast<uint16_t>(sign | result);
}

static uint16_t floatToBFloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

/// ONNX Cast of a double to an integer: truncate, saturate to int64, wrap.
static uint64_t doubleToIntegerBits(double value) {
  if (std::isnan(value))
    return 0;
  double truncated = std::trunc(value);
  int64_t wide;
  if (truncated >= 9223372036854775807.0)
    wide = std::numeric_limits<int64_t>::max();
  else if (truncated <= -9223372036854775808.0)
    wide = std::numeric_limits<int64_t>::min();
  else
    wide = static_cast<int64_t>(truncated);
  return static_cast<uint64_t>(wide);
}

uint64_t encodeScalar(DType dtype, double value) {
  switch (dtype) {
  case DType::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(value));
  case DType::F16:
    return floatToHalfBits(static_cast<float>(value));
  case DType::BF16:
    return floatToBFloat16Bits(static_cast<float>(value));
  case DType::F64:
    return std::bit_cast<uint64_t>(value);
  case DType::Bool:
    return value != 0.0 ? 1 : 0;
  default: {
    uint64_t bits = doubleToIntegerBits(value);
    unsigned width = getByteWidth(dtype);
    return width == 8 ? bits : bits & ((uint64_t(1) << (8 * width)) - 1);
  }
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static constexpr const char *kOnThisDriver = " is not implemented on the CUDA driver";

llvm::Error makeKernelError(mlir::Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 op->getName().getStringRef() + ": " + message);
}

llvm::Error unimplementedOp(mlir::Operation *op) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 op->getName().getStringRef() + kOnThisDriver);
}

llvm::Error unimplementedElementType(mlir::Operation *op, DType dtype) {
  return makeKernelError(op, llvm::Twine("element type ") + getDTypeName(dtype) + kOnThisDriver);
}

llvm::Error unimplementedFeature(mlir::Operation *op, const llvm::Twine &what) {
  return makeKernelError(op, what + kOnThisDriver);
}

std::string describeCudaError(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

llvm::Error cudaCallError(mlir::Operation *op, llvm::StringRef call, cudaError_t error) {
  return makeKernelError(op, call + " failed: " + describeCudaError(error));
}

std::string describeLaunchFailure(llvm::StringRef opName, llvm::StringRef call, cudaError_t error) {
  return (opName + ": " + call + " failed: " + describeCudaError(error)).str();
}

//===----------------------------------------------------------------------===//
// Tensor types and shapes
//===----------------------------------------------------------------------===//

int64_t getNumElements(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

int64_t TensorInfo::getNumElements() const { return cuda::getNumElements(shape); }

uint64_t TensorInfo::getByteSize() const {
  return static_cast<uint64_t>(getNumElements()) * getByteWidth(dtype);
}

Shape getStrides(llvm::ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t index = static_cast<int64_t>(shape.size()) - 2; index >= 0; --index)
    strides[index] = strides[index + 1] * shape[index + 1];
  return strides;
}

Shape getBroadcastStrides(llvm::ArrayRef<int64_t> operandShape,
                          llvm::ArrayRef<int64_t> outputShape) {
  int64_t rank = static_cast<int64_t>(outputShape.size());
  int64_t leading = rank - static_cast<int64_t>(operandShape.size());
  Shape operandStrides = getStrides(operandShape);
  Shape strides(rank, 0);
  for (int64_t dim = std::max<int64_t>(leading, 0); dim < rank; ++dim)
    if (operandShape[dim - leading] != 1)
      strides[dim] = operandStrides[dim - leading];
  return strides;
}

Shape getWindowList(llvm::ArrayRef<int64_t> values, int64_t count, int64_t fallback) {
  return values.empty() ? Shape(count, fallback) : Shape(values);
}

uint64_t alignWorkspace(uint64_t bytes) { return (bytes + 255) / 256 * 256; }

llvm::Expected<TensorInfo> getTensorInfo(mlir::Operation *op, mlir::Value value) {
  auto type = llvm::dyn_cast<TensorType>(value.getType());
  std::string text;
  llvm::raw_string_ostream stream(text);
  if (!type) {
    stream << value.getType();
    return unimplementedFeature(op, "type " + text);
  }
  std::optional<DType> dtype = toDType(type.getElementType());
  if (!dtype) {
    stream << type.getElementType();
    return unimplementedFeature(op, "element type " + text);
  }
  return TensorInfo{Shape(type.getShape()), *dtype};
}

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

llvm::Expected<std::shared_ptr<DeviceBuffer>> DeviceBuffer::upload(mlir::Operation *op,
                                                                   const void *data, size_t bytes) {
  void *pointer = nullptr;
  cudaError_t error = cudaMalloc(&pointer, std::max<size_t>(bytes, 1));
  if (error != cudaSuccess)
    return cudaCallError(op, "cudaMalloc", error);
  std::shared_ptr<DeviceBuffer> buffer(new DeviceBuffer(pointer));
  if (bytes) {
    error = cudaMemcpy(pointer, data, bytes, cudaMemcpyHostToDevice);
    if (error != cudaSuccess)
      return cudaCallError(op, "cudaMemcpy", error);
  }
  return buffer;
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer)
    (void)cudaFree(pointer);
}

std::mutex &getDeviceTimingMutex() {
  static std::mutex mutex;
  return mutex;
}

TimingScratch::~TimingScratch() {
  if (stream)
    cudaStreamSynchronize(stream);
  for (void *pointer : allocations)
    cudaFree(pointer);
  for (cudaEvent_t event : events)
    cudaEventDestroy(event);
  if (stream)
    cudaStreamDestroy(stream);
  cudaGetLastError();
}

bool TimingScratch::create(size_t eventCount) {
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    stream = nullptr;
    return false;
  }
  for (size_t index = 0; index < eventCount; ++index) {
    cudaEvent_t event = nullptr;
    if (cudaEventCreate(&event) != cudaSuccess)
      return false;
    events.push_back(event);
  }
  return true;
}

void *TimingScratch::allocate(uint64_t bytes) {
  void *pointer = nullptr;
  if (cudaMalloc(&pointer, std::max<uint64_t>(bytes, 1)) != cudaSuccess)
    return nullptr;
  allocations.push_back(pointer);
  return cudaMemsetAsync(pointer, 0, bytes, stream) == cudaSuccess ? pointer : nullptr;
}

} // namespace cgc::cuda
