//===- Literal.h - ONNX tensors whose data the importer knows ---*- C++ -*-===//
//
// Initializers, Constant nodes and everything folded from them are Literals:
// an ONNX element type, a shape and the dense little-endian bytes. They feed
// constant folding (read element by element as int64 or double) and become
// named `cgc.constant`s when a layer consumes them.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_IMPORT_ONNX_LITERAL_H
#define CGC_LIB_IMPORT_ONNX_LITERAL_H

#include "Runtime/Weights.h"
#include "cgc/Runtime/Tensor.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
} // namespace onnx

namespace cgc::importer {

/// ONNX TensorProto.DataType values the importer names.
enum ONNXType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

/// "float32", "int64", "string", ... ("type 42" when unknown).
std::string getONNXTypeName(int32_t type);
/// Bytes per element of a numeric ONNX type; 0 for string, complex and
/// unknown types.
unsigned getONNXTypeByteWidth(int32_t type);
bool isONNXFloatType(int32_t type);
/// The CGC element type of an ONNX type, or nullopt (string, complex).
std::optional<cgc::runtime::DType> getDTypeOf(int32_t type);
/// The ONNX type of a CGC dtype.
int32_t getONNXTypeOf(cgc::runtime::DType dtype);
/// The `!cgc.<dtype>` element type.
mlir::Type getElementType(mlir::MLIRContext &context, cgc::runtime::DType dtype);
/// The dtype of a `!cgc.<dtype>` element type.
std::optional<cgc::runtime::DType> getDTypeOf(mlir::Type elementType);

/// Number of elements of `shape`, or nullopt on a negative dimension or
/// overflow past 2^62.
std::optional<uint64_t> getElementCount(llvm::ArrayRef<int64_t> shape);
/// "2x3x4" ("scalar" for rank 0).
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// The largest tensor folding creates; bigger results stay runtime layers.
inline constexpr uint64_t kMaxFoldedElements = uint64_t(1) << 24;

/// A tensor with known data. Copies share the bytes; an initializer's stay
/// where they were read (the mapped model file), which `owner` keeps alive.
class Literal {
public:
  Literal() = default;
  Literal(int32_t type, std::vector<int64_t> shape, std::vector<std::byte> bytes);
  /// A literal over `bytes` that it does not copy: `owner` keeps them alive.
  Literal(int32_t type, std::vector<int64_t> shape, std::span<const std::byte> bytes,
          std::shared_ptr<const void> owner);

  int32_t getType() const { return type; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  uint64_t getNumElements() const;
  llvm::ArrayRef<std::byte> getBytes() const;
  bool isFloat() const { return isONNXFloatType(type); }

  /// Element `index` as an integer (floats truncate toward zero).
  int64_t getInt(uint64_t index) const;
  /// Element `index` as a double.
  double getDouble(uint64_t index) const;
  /// All elements as integers.
  std::vector<int64_t> getInts() const;

  /// A literal of `type` holding `values` converted to it (floats round to
  /// the nearest representable value, integers wrap, bools are != 0).
  static Literal fromInts(int32_t type, std::vector<int64_t> shape, llvm::ArrayRef<int64_t> values);
  static Literal fromDoubles(int32_t type, std::vector<int64_t> shape,
                             llvm::ArrayRef<double> values);
  /// The same data with another shape of as many elements.
  Literal reshaped(std::vector<int64_t> newShape) const;

  /// The host tensor the weights file stores (a copy); the type must have a
  /// dtype.
  cgc::runtime::HostTensor toHostTensor() const;
  /// The same, sharing the bytes instead of copying them.
  cgc::runtime::SharedTensor toSharedTensor() const;

private:
  int32_t type = kUndefined;
  std::vector<int64_t> shape;
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> owner;
};

/// Where the raw_data of an initializer was left when the model was parsed
/// without it (SplitModel.h): its bytes, and what keeps them alive (null:
/// the caller's buffer, valid only while the import runs).
struct RawData {
  llvm::ArrayRef<uint8_t> bytes;
  std::shared_ptr<const void> owner;
};

/// Decodes `tensor` (raw_data — or `rawData`, standing in for raw_data that
/// was cut out of it —, the typed data fields or external data under
/// `externalDataDirectory`). `what` names it in errors ("initializer 'w'").
/// Large data is not copied: the literal shares raw_data's bytes (moved out
/// of `tensor`), `rawData`'s (when it has an owner) or the mapped external
/// data file's.
llvm::Expected<Literal> decodeTensor(onnx::TensorProto &tensor,
                                     llvm::StringRef externalDataDirectory,
                                     const std::string &what,
                                     const RawData *rawData = nullptr);

} // namespace cgc::importer

#endif // CGC_LIB_IMPORT_ONNX_LITERAL_H
