//===- KernelSupport.cpp - shared helpers of the CPU kernel families ------===//

#include "KernelSupport.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

namespace cgc::cpu {

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

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

llvm::Error makeKernelError(mlir::Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 op->getName().getStringRef() + ": " + message);
}

llvm::Error unimplementedElementType(mlir::Operation *op, DType dtype) {
  return makeKernelError(op, llvm::Twine("element type ") + getDTypeName(dtype) +
                                 " is not implemented");
}

llvm::Error unsupportedType(mlir::Operation *op, mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << type;
  return makeKernelError(op, "type " + text + " is not implemented");
}

//===----------------------------------------------------------------------===//
// Tensor types
//===----------------------------------------------------------------------===//

int64_t getNumElements(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

int64_t TensorInfo::getNumElements() const { return cpu::getNumElements(shape); }

Shape getStrides(llvm::ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t index = static_cast<int64_t>(shape.size()) - 2; index >= 0; --index)
    strides[index] = strides[index + 1] * shape[index + 1];
  return strides;
}

llvm::Expected<TensorInfo> getTensorInfo(mlir::Operation *op, mlir::Value value) {
  auto type = llvm::dyn_cast<TensorType>(value.getType());
  if (!type)
    return unsupportedType(op, value.getType());
  std::optional<DType> dtype = toDType(type.getElementType());
  if (!dtype)
    return unsupportedType(op, type.getElementType());
  return TensorInfo{Shape(type.getShape()), *dtype};
}

//===----------------------------------------------------------------------===//
// Broadcast plan
//===----------------------------------------------------------------------===//

BroadcastPlan::BroadcastPlan(llvm::ArrayRef<int64_t> outputShape,
                             llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes) {
  numElements = cpu::getNumElements(outputShape);
  int64_t rank = static_cast<int64_t>(outputShape.size());
  size_t operandCount = operandShapes.size();
  // Strides of every operand in output coordinates; 0 where it broadcasts.
  llvm::SmallVector<Shape, 4> fullStrides;
  for (llvm::ArrayRef<int64_t> operandShape : operandShapes) {
    Shape operandStrides = getStrides(operandShape);
    Shape strideInOutput(rank, 0);
    int64_t leading = rank - static_cast<int64_t>(operandShape.size());
    for (int64_t dim = 0; dim < rank; ++dim) {
      int64_t operandDim = dim - leading;
      if (operandDim >= 0 && operandShape[operandDim] != 1)
        strideInOutput[dim] = operandStrides[operandDim];
    }
    fullStrides.push_back(std::move(strideInOutput));
  }
  strides.resize(operandCount);
  // Drop size-1 dimensions, then merge a dimension into the previous one when
  // every operand walks both as one.
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (outputShape[dim] == 1)
      continue;
    bool merge = !shape.empty();
    for (size_t operand = 0; merge && operand < operandCount; ++operand)
      merge = strides[operand].back() == fullStrides[operand][dim] * outputShape[dim];
    if (merge) {
      shape.back() *= outputShape[dim];
      for (size_t operand = 0; operand < operandCount; ++operand)
        strides[operand].back() = fullStrides[operand][dim];
      continue;
    }
    shape.push_back(outputShape[dim]);
    for (size_t operand = 0; operand < operandCount; ++operand)
      strides[operand].push_back(fullStrides[operand][dim]);
  }
}

void BroadcastPlan::getRowOffsets(int64_t row, int64_t *offsets) const {
  size_t operandCount = strides.size();
  for (size_t operand = 0; operand < operandCount; ++operand)
    offsets[operand] = 0;
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 2; dim >= 0 && row > 0; --dim) {
    int64_t index = row % shape[dim];
    row /= shape[dim];
    for (size_t operand = 0; operand < operandCount; ++operand)
      offsets[operand] += index * strides[operand][dim];
  }
}

//===----------------------------------------------------------------------===//
// Float conversions
//===----------------------------------------------------------------------===//

void convertToFloat(DType dtype, const void *data, int64_t count, float *out,
                    ThreadPool &pool) {
  visitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsFloat32Computed<T>) {
      const T *in = static_cast<const T *>(data);
      pool.parallelFor(count, 65536, [&](int64_t begin, int64_t end) {
        for (int64_t index = begin; index < end; ++index)
          out[index] = toFloat(in[index]);
      });
    }
  });
}

void convertFromFloat(DType dtype, const float *data, int64_t count, void *out,
                      ThreadPool &pool) {
  visitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsFloat32Computed<T>) {
      T *result = static_cast<T *>(out);
      pool.parallelFor(count, 65536, [&](int64_t begin, int64_t end) {
        for (int64_t index = begin; index < end; ++index)
          result[index] = store<T>(data[index]);
      });
    }
  });
}

const float *getFloatData(DType dtype, const void *data, int64_t count,
                          std::vector<float> &storage, ThreadPool &pool) {
  if (dtype == DType::F32)
    return static_cast<const float *>(data);
  storage.resize(count);
  convertToFloat(dtype, data, count, storage.data(), pool);
  return storage.data();
}

} // namespace cgc::cpu
