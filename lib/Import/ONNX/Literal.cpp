//===- Literal.cpp - ONNX tensors with known data ---------------------------===//

#include "Literal.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"

#include "onnx/onnx_pb.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

using namespace cgc::runtime;

namespace cgc::importer {

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

template <typename T>
T load(const std::byte *data, uint64_t index) {
  T value;
  std::memcpy(&value, data + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void store(std::byte *data, uint64_t index, T value) {
  std::memcpy(data + index * sizeof(T), &value, sizeof(T));
}

/// Float to integer the way ONNX Cast does on x86 (truncation toward zero);
/// NaN and out-of-range values saturate instead of being undefined.
int64_t truncateToInt64(double value) {
  if (std::isnan(value))
    return 0;
  if (value >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (value <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

} // namespace

std::string getONNXTypeName(int32_t type) {
  switch (type) {
  case kFloat: return "float32";
  case kUInt8: return "uint8";
  case kInt8: return "int8";
  case kUInt16: return "uint16";
  case kInt16: return "int16";
  case kInt32: return "int32";
  case kInt64: return "int64";
  case kString: return "string";
  case kBool: return "bool";
  case kFloat16: return "float16";
  case kDouble: return "float64";
  case kUInt32: return "uint32";
  case kUInt64: return "uint64";
  case kComplex64: return "complex64";
  case kComplex128: return "complex128";
  case kBFloat16: return "bfloat16";
  default: return "type " + std::to_string(type);
  }
}

unsigned getONNXTypeByteWidth(int32_t type) {
  switch (type) {
  case kUInt8: case kInt8: case kBool: return 1;
  case kUInt16: case kInt16: case kFloat16: case kBFloat16: return 2;
  case kFloat: case kInt32: case kUInt32: return 4;
  case kInt64: case kDouble: case kUInt64: return 8;
  default: return 0;
  }
}

bool isONNXFloatType(int32_t type) {
  return type == kFloat || type == kFloat16 || type == kBFloat16 || type == kDouble;
}

std::optional<DType> getDTypeOf(int32_t type) {
  switch (type) {
  case kFloat: return DType::Float32;
  case kFloat16: return DType::Float16;
  case kBFloat16: return DType::BFloat16;
  case kInt8: return DType::Int8;
  case kUInt8: return DType::UInt8;
  case kInt16: return DType::Int16;
  case kInt32: return DType::Int32;
  case kInt64: return DType::Int64;
  case kBool: return DType::Bool;
  case kDouble: return DType::Float64;
  case kUInt16: return DType::UInt16;
  case kUInt32: return DType::UInt32;
  case kUInt64: return DType::UInt64;
  default: return std::nullopt;
  }
}

int32_t getONNXTypeOf(DType dtype) {
  switch (dtype) {
  case DType::Float32: return kFloat;
  case DType::Float16: return kFloat16;
  case DType::BFloat16: return kBFloat16;
  case DType::Int8: return kInt8;
  case DType::UInt8: return kUInt8;
  case DType::Int16: return kInt16;
  case DType::Int32: return kInt32;
  case DType::Int64: return kInt64;
  case DType::Bool: return kBool;
  case DType::Float64: return kDouble;
  case DType::UInt16: return kUInt16;
  case DType::UInt32: return kUInt32;
  case DType::UInt64: return kUInt64;
  }
  return kUndefined;
}

mlir::Type getElementType(mlir::MLIRContext &context, DType dtype) {
  switch (dtype) {
  case DType::Float32: return cgc::Float32Type::get(&context);
  case DType::Float16: return cgc::Float16Type::get(&context);
  case DType::BFloat16: return cgc::BFloat16Type::get(&context);
  case DType::Int8: return cgc::Int8Type::get(&context);
  case DType::UInt8: return cgc::UInt8Type::get(&context);
  case DType::Int16: return cgc::Int16Type::get(&context);
  case DType::Int32: return cgc::Int32Type::get(&context);
  case DType::Int64: return cgc::Int64Type::get(&context);
  case DType::Bool: return cgc::BoolType::get(&context);
  case DType::Float64: return cgc::Float64Type::get(&context);
  case DType::UInt16: return cgc::UInt16Type::get(&context);
  case DType::UInt32: return cgc::UInt32Type::get(&context);
  case DType::UInt64: return cgc::UInt64Type::get(&context);
  }
  return {};
}

std::optional<DType> getDTypeOf(mlir::Type elementType) {
  if (llvm::isa<cgc::Float32Type>(elementType)) return DType::Float32;
  if (llvm::isa<cgc::Float16Type>(elementType)) return DType::Float16;
  if (llvm::isa<cgc::BFloat16Type>(elementType)) return DType::BFloat16;
  if (llvm::isa<cgc::Int8Type>(elementType)) return DType::Int8;
  if (llvm::isa<cgc::UInt8Type>(elementType)) return DType::UInt8;
  if (llvm::isa<cgc::Int16Type>(elementType)) return DType::Int16;
  if (llvm::isa<cgc::Int32Type>(elementType)) return DType::Int32;
  if (llvm::isa<cgc::Int64Type>(elementType)) return DType::Int64;
  if (llvm::isa<cgc::BoolType>(elementType)) return DType::Bool;
  if (llvm::isa<cgc::Float64Type>(elementType)) return DType::Float64;
  if (llvm::isa<cgc::UInt16Type>(elementType)) return DType::UInt16;
  if (llvm::isa<cgc::UInt32Type>(elementType)) return DType::UInt32;
  if (llvm::isa<cgc::UInt64Type>(elementType)) return DType::UInt64;
  return std::nullopt;
}

std::optional<uint64_t> getElementCount(llvm::ArrayRef<int64_t> shape) {
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim != 0 && count > (uint64_t(1) << 62) / static_cast<uint64_t>(dim))
      return std::nullopt;
    count *= static_cast<uint64_t>(dim);
  }
  return count;
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  return cgc::runtime::formatShape(std::span<const int64_t>(shape.data(), shape.size()));
}

//===----------------------------------------------------------------------===//
// Literal
//===----------------------------------------------------------------------===//

Literal::Literal(int32_t type, std::vector<int64_t> shape, std::vector<std::byte> data)
    : type(type), shape(std::move(shape)) {
  auto owned = std::make_shared<const std::vector<std::byte>>(std::move(data));
  bytes = *owned;
  owner = std::move(owned);
}

Literal::Literal(int32_t type, std::vector<int64_t> shape, std::span<const std::byte> bytes,
                 std::shared_ptr<const void> owner)
    : type(type), shape(std::move(shape)), bytes(bytes), owner(std::move(owner)) {}

uint64_t Literal::getNumElements() const { return getElementCount(shape).value_or(0); }

llvm::ArrayRef<std::byte> Literal::getBytes() const { return {bytes.data(), bytes.size()}; }

int64_t Literal::getInt(uint64_t index) const {
  const std::byte *data = bytes.data();
  switch (type) {
  case kUInt8: case kBool: return load<uint8_t>(data, index);
  case kInt8: return load<int8_t>(data, index);
  case kUInt16: return load<uint16_t>(data, index);
  case kInt16: return load<int16_t>(data, index);
  case kInt32: return load<int32_t>(data, index);
  case kUInt32: return load<uint32_t>(data, index);
  case kInt64: return load<int64_t>(data, index);
  case kUInt64: return static_cast<int64_t>(load<uint64_t>(data, index));
  default: return truncateToInt64(getDouble(index));
  }
}

double Literal::getDouble(uint64_t index) const {
  const std::byte *data = bytes.data();
  switch (type) {
  case kFloat: return load<float>(data, index);
  case kDouble: return load<double>(data, index);
  case kFloat16: return halfToFloat(load<uint16_t>(data, index));
  case kBFloat16: return bfloat16ToFloat(load<uint16_t>(data, index));
  case kUInt64: return static_cast<double>(load<uint64_t>(data, index));
  default: return static_cast<double>(getInt(index));
  }
}

std::vector<int64_t> Literal::getInts() const {
  std::vector<int64_t> values(getNumElements());
  for (uint64_t i = 0; i < values.size(); ++i)
    values[i] = getInt(i);
  return values;
}

Literal Literal::fromInts(int32_t type, std::vector<int64_t> shape, llvm::ArrayRef<int64_t> values) {
  if (isONNXFloatType(type)) {
    std::vector<double> reals(values.begin(), values.end());
    return fromDoubles(type, std::move(shape), reals);
  }
  std::vector<std::byte> data(values.size() * getONNXTypeByteWidth(type));
  for (uint64_t i = 0; i < values.size(); ++i) {
    int64_t value = values[i];
    switch (type) {
    case kBool: store<uint8_t>(data.data(), i, value != 0); break;
    case kUInt8: store<uint8_t>(data.data(), i, static_cast<uint8_t>(value)); break;
    case kInt8: store<int8_t>(data.data(), i, static_cast<int8_t>(value)); break;
    case kUInt16: store<uint16_t>(data.data(), i, static_cast<uint16_t>(value)); break;
    case kInt16: store<int16_t>(data.data(), i, static_cast<int16_t>(value)); break;
    case kInt32: store<int32_t>(data.data(), i, static_cast<int32_t>(value)); break;
    case kUInt32: store<uint32_t>(data.data(), i, static_cast<uint32_t>(value)); break;
    case kInt64: store<int64_t>(data.data(), i, value); break;
    case kUInt64: store<uint64_t>(data.data(), i, static_cast<uint64_t>(value)); break;
    default: break;
    }
  }
  return Literal(type, std::move(shape), std::move(data));
}

Literal Literal::fromDoubles(int32_t type, std::vector<int64_t> shape,
                             llvm::ArrayRef<double> values) {
  if (!isONNXFloatType(type)) {
    std::vector<int64_t> ints(values.size());
    for (uint64_t i = 0; i < values.size(); ++i)
      ints[i] = type == kBool ? values[i] != 0 : truncateToInt64(values[i]);
    return fromInts(type, std::move(shape), ints);
  }
  std::vector<std::byte> data(values.size() * getONNXTypeByteWidth(type));
  for (uint64_t i = 0; i < values.size(); ++i) {
    double value = values[i];
    switch (type) {
    case kFloat: store<float>(data.data(), i, static_cast<float>(value)); break;
    case kDouble: store<double>(data.data(), i, value); break;
    case kFloat16: store<uint16_t>(data.data(), i, floatToHalf(static_cast<float>(value))); break;
    case kBFloat16:
      store<uint16_t>(data.data(), i, floatToBFloat16(static_cast<float>(value)));
      break;
    default: break;
    }
  }
  return Literal(type, std::move(shape), std::move(data));
}

Literal Literal::reshaped(std::vector<int64_t> newShape) const {
  Literal result = *this;
  result.shape = std::move(newShape);
  return result;
}

HostTensor Literal::toHostTensor() const {
  HostTensor tensor;
  tensor.dtype = *getDTypeOf(type);
  tensor.shape = shape;
  tensor.data.assign(getBytes().begin(), getBytes().end());
  return tensor;
}

SharedTensor Literal::toSharedTensor() const {
  return SharedTensor{*getDTypeOf(type), shape, bytes, owner};
}

//===----------------------------------------------------------------------===//
// TensorProto decoding
//===----------------------------------------------------------------------===//

namespace {

/// The bytes of an external-data tensor: `location` (relative to
/// `directory`, never escaping it), `offset` and `length`; mapped, and
/// kept alive by the returned owner.
llvm::Expected<RawData> readExternalData(const onnx::TensorProto &tensor, llvm::StringRef directory,
                                         const std::string &what, uint64_t expectedBytes) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    auto parseNumber = [&](const std::string &text) -> llvm::Expected<uint64_t> {
      uint64_t value = 0;
      if (llvm::StringRef(text).getAsInteger(10, value))
        return makeError(what + ": external data " + entry.key() + " '" + text +
                         "' is not a non-negative integer");
      return value;
    };
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset") {
      llvm::Expected<uint64_t> value = parseNumber(entry.value());
      if (!value)
        return value.takeError();
      offset = *value;
    } else if (entry.key() == "length") {
      llvm::Expected<uint64_t> value = parseNumber(entry.value());
      if (!value)
        return value.takeError();
      length = *value;
    }
  }
  if (location.empty())
    return makeError(what + ": external data without a 'location'");
  if (directory.empty())
    return makeError(what + ": its data is in the external file '" + location +
                     "', but the model was not read from a file");
  if (llvm::sys::path::is_absolute(location))
    return makeError(what + ": external data location '" + location +
                     "' must be relative to the model's directory");
  for (llvm::StringRef component : llvm::make_range(llvm::sys::path::begin(location),
                                                    llvm::sys::path::end(location)))
    if (component == "..")
      return makeError(what + ": external data location '" + location +
                       "' must not leave the model's directory");
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, location);
  uint64_t fileSize = 0;
  if (std::error_code code = llvm::sys::fs::file_size(path, fileSize))
    return makeError(what + ": cannot read external data file '" + path.str() +
                     "': " + code.message());
  uint64_t size = length.value_or(expectedBytes);
  if (size != expectedBytes)
    return makeError(what + ": external data length " + llvm::Twine(size) +
                     " does not match its shape and type (" + llvm::Twine(expectedBytes) +
                     " bytes)");
  if (offset > fileSize || size > fileSize - offset)
    return makeError(what + ": external data bytes [" + llvm::Twine(offset) + ", " +
                     llvm::Twine(offset + size) + ") lie outside '" + path.str() + "' (" +
                     llvm::Twine(fileSize) + " bytes)");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileSlice(path, size, offset, /*IsVolatile=*/false);
  if (!buffer)
    return makeError(what + ": cannot read external data file '" + path.str() +
                     "': " + buffer.getError().message());
  std::shared_ptr<const llvm::MemoryBuffer> mapped = std::move(*buffer);
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(mapped->getBufferStart()), size);
  return RawData{bytes, std::move(mapped)};
}

/// Decodes `field`'s `count` values into `data`, which it sizes to
/// `byteSize` only once the field is known to hold them: a shape that claims
/// far more elements than the message carries is an error, not an
/// allocation of its size.
template <typename Field, typename Store>
llvm::Error decodeTypedField(const Field &field, uint64_t count, const std::string &what,
                             const char *fieldName, std::vector<std::byte> &data,
                             uint64_t byteSize, Store store) {
  if (static_cast<uint64_t>(field.size()) != count)
    return makeError(what + ": " + fieldName + " holds " + llvm::Twine(field.size()) +
                     " values, but its shape has " + llvm::Twine(count) + " elements");
  data.resize(byteSize);
  std::byte *out = data.data();
  for (uint64_t i = 0; i < count; ++i)
    store(out, i, field.Get(static_cast<int>(i)));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Literal> decodeTensor(onnx::TensorProto &tensor,
                                     llvm::StringRef externalDataDirectory,
                                     const std::string &what, const RawData *rawData) {
  int32_t type = tensor.data_type();
  std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  std::optional<uint64_t> count = getElementCount(shape);
  if (!count)
    return makeError(what + ": invalid shape " + formatShape(shape));
  if (tensor.has_segment())
    return makeError(what + ": segmented tensors are not supported");
  unsigned width = getONNXTypeByteWidth(type);
  if (width == 0)
    return makeError(what + ": element type " + getONNXTypeName(type) +
                     " is not a numeric type the importer handles");
  if (*count > (uint64_t(1) << 40) / width)
    return makeError(what + ": " + formatShape(shape) + " is too large");
  uint64_t byteSize = *count * width;

  auto toBytes = [](llvm::ArrayRef<uint8_t> data) {
    return std::span(reinterpret_cast<const std::byte *>(data.data()), data.size());
  };
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    llvm::Expected<RawData> data = readExternalData(tensor, externalDataDirectory, what, byteSize);
    if (!data)
      return data.takeError();
    return Literal(type, std::move(shape), toBytes(data->bytes), std::move(data->owner));
  }
  if (rawData || tensor.has_raw_data()) {
    uint64_t size = rawData ? rawData->bytes.size() : tensor.raw_data().size();
    if (size != byteSize)
      return makeError(what + ": raw_data holds " + llvm::Twine(size) + " bytes, but " +
                       getONNXTypeName(type) + " " + formatShape(shape) + " needs " +
                       llvm::Twine(byteSize));
    if (rawData && rawData->owner)
      return Literal(type, std::move(shape), toBytes(rawData->bytes), rawData->owner);
    if (rawData) {
      // The caller's buffer: copied, since the weights outlive the import.
      std::span<const std::byte> data = toBytes(rawData->bytes);
      return Literal(type, std::move(shape), std::vector<std::byte>(data.begin(), data.end()));
    }
    // Moved out of the message, not copied: the literal owns the string.
    auto raw = std::make_shared<std::string>(std::move(*tensor.mutable_raw_data()));
    tensor.clear_raw_data();
    std::span<const std::byte> data(reinterpret_cast<const std::byte *>(raw->data()), raw->size());
    return Literal(type, std::move(shape), data, std::move(raw));
  }

  std::vector<std::byte> data;
  llvm::Error error = llvm::Error::success();
  switch (type) {
  case kFloat:
    error = decodeTypedField(
        tensor.float_data(), *count, what, "float_data", data, byteSize,
        [](std::byte *out, uint64_t i, float v) { store<float>(out, i, v); });
    break;
  case kDouble:
    error = decodeTypedField(
        tensor.double_data(), *count, what, "double_data", data, byteSize,
        [](std::byte *out, uint64_t i, double v) { store<double>(out, i, v); });
    break;
  case kInt64:
    error = decodeTypedField(
        tensor.int64_data(), *count, what, "int64_data", data, byteSize,
        [](std::byte *out, uint64_t i, int64_t v) { store<int64_t>(out, i, v); });
    break;
  case kUInt32:
    error = decodeTypedField(tensor.uint64_data(), *count, what, "uint64_data", data, byteSize,
                             [](std::byte *out, uint64_t i, uint64_t v) {
                               store<uint32_t>(out, i, static_cast<uint32_t>(v));
                             });
    break;
  case kUInt64:
    error = decodeTypedField(
        tensor.uint64_data(), *count, what, "uint64_data", data, byteSize,
        [](std::byte *out, uint64_t i, uint64_t v) { store<uint64_t>(out, i, v); });
    break;
  default:
    // int32_data carries every type of 32 bits or less (float16 and
    // bfloat16 as their bit patterns).
    error = decodeTypedField(tensor.int32_data(), *count, what, "int32_data", data, byteSize,
                             [&](std::byte *out, uint64_t i, int32_t v) {
      switch (width) {
      case 1: store<uint8_t>(out, i, static_cast<uint8_t>(type == kBool ? v != 0 : v)); break;
      case 2: store<uint16_t>(out, i, static_cast<uint16_t>(v)); break;
      default: store<int32_t>(out, i, v); break;
      }
    });
    break;
  }
  if (error)
    return std::move(error);
  return Literal(type, std::move(shape), std::move(data));
}

} // namespace cgc::importer
