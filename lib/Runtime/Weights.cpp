//===- Weights.cpp - safetensors reader and writer -------------------------===//
//
// The header is JSON, parsed with nlohmann::json; its exceptions never leave
// this file, every failure becomes an Error naming the file and the field.
//
//===----------------------------------------------------------------------===//

#include "Weights.h"

#include "Files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace cgc::runtime {

namespace {
constexpr std::pair<DType, std::string_view> kSafetensorsDTypes[] = {
    {DType::Float32, "F32"}, {DType::Float16, "F16"}, {DType::BFloat16, "BF16"},
    {DType::Int8, "I8"},     {DType::UInt8, "U8"},    {DType::Int16, "I16"},
    {DType::Int32, "I32"},   {DType::Int64, "I64"},   {DType::Bool, "BOOL"},
    {DType::Float64, "F64"}, {DType::UInt16, "U16"},  {DType::UInt32, "U32"},
    {DType::UInt64, "U64"},
};

/// Safetensors caps its header at 100 MB; so do we, to refuse absurd lengths
/// before allocating.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

std::string describe(DType dtype, std::span<const int64_t> shape) {
  return std::string(getSafetensorsDType(dtype)) + " [" + formatShape(shape) + "]";
}

uint64_t readLittleEndian64(const std::byte *bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

/// Checks one header entry and turns it into a WeightInfo.
Result<WeightInfo> parseEntry(const std::string &sourceName, const std::string &name,
                              const nlohmann::json &entry, uint64_t dataStart,
                              uint64_t dataSize) {
  std::string where = sourceName + ": tensor \"" + name + "\": ";
  if (!entry.is_object())
    return Error{where + "header entry is not an object"};
  auto dtypeField = entry.find("dtype");
  if (dtypeField == entry.end() || !dtypeField->is_string())
    return Error{where + "field 'dtype' is missing or not a string"};
  std::optional<DType> dtype = parseSafetensorsDType(dtypeField->get<std::string>());
  if (!dtype)
    return Error{where + "field 'dtype': unsupported dtype '" + dtypeField->get<std::string>() +
                 "' (supported: F32 F16 BF16 I8 U8 I16 I32 I64 BOOL F64 U16 U32 U64)"};
  auto shapeField = entry.find("shape");
  if (shapeField == entry.end() || !shapeField->is_array())
    return Error{where + "field 'shape' is missing or not an array"};
  std::vector<int64_t> shape;
  for (const nlohmann::json &dim : *shapeField) {
    if (!dim.is_number_unsigned() && !(dim.is_number_integer() && dim.get<int64_t>() >= 0))
      return Error{where + "field 'shape': dimensions must be non-negative integers"};
    shape.push_back(dim.get<int64_t>());
  }
  auto offsetsField = entry.find("data_offsets");
  if (offsetsField == entry.end() || !offsetsField->is_array() || offsetsField->size() != 2 ||
      !(*offsetsField)[0].is_number_unsigned() || !(*offsetsField)[1].is_number_unsigned())
    return Error{where + "field 'data_offsets' must be [begin, end] with non-negative integers"};
  uint64_t begin = (*offsetsField)[0].get<uint64_t>();
  uint64_t end = (*offsetsField)[1].get<uint64_t>();
  if (begin > end || end > dataSize)
    return Error{where + "field 'data_offsets': [" + std::to_string(begin) + ", " +
                 std::to_string(end) + "] is outside the " + std::to_string(dataSize) +
                 "-byte data section"};
  std::optional<uint64_t> elements = getNumElements(shape);
  if (!elements || *elements > UINT64_MAX / getByteWidth(*dtype) ||
      *elements * getByteWidth(*dtype) != end - begin)
    return Error{where + "field 'data_offsets': " + std::to_string(end - begin) +
                 " bytes, but " + describe(*dtype, shape) + " needs " +
                 (elements ? std::to_string(*elements * getByteWidth(*dtype)) : "too many")};
  return WeightInfo{*dtype, std::move(shape), dataStart + begin, end - begin};
}
} // namespace

std::string_view getSafetensorsDType(DType dtype) {
  for (auto [candidate, name] : kSafetensorsDTypes)
    if (candidate == dtype)
      return name;
  return "?";
}

std::optional<DType> parseSafetensorsDType(std::string_view name) {
  for (auto [dtype, candidate] : kSafetensorsDTypes)
    if (candidate == name)
      return dtype;
  return std::nullopt;
}

Result<Weights> Weights::read(const std::string &path) {
  Result<std::vector<std::byte>> bytes = readFile(path);
  if (!bytes)
    return Error{"weights: " + bytes.error().message};
  return parse(std::move(*bytes), path);
}

Result<Weights> Weights::parse(std::vector<std::byte> bytes, std::string sourceName) {
  if (bytes.size() < 8)
    return Error{sourceName + ": not a safetensors file: " + std::to_string(bytes.size()) +
                 " bytes, too short for the 8-byte header length"};
  uint64_t headerSize = readLittleEndian64(bytes.data());
  if (headerSize > kMaxHeaderBytes || headerSize > bytes.size() - 8)
    return Error{sourceName + ": header length " + std::to_string(headerSize) +
                 " does not fit in the " + std::to_string(bytes.size()) + "-byte file"};
  uint64_t dataStart = 8 + headerSize;
  uint64_t dataSize = bytes.size() - dataStart;

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(reinterpret_cast<const char *>(bytes.data()) + 8,
                                   reinterpret_cast<const char *>(bytes.data()) + dataStart);
  } catch (const nlohmann::json::exception &error) {
    return Error{sourceName + ": header is not valid JSON: " + error.what()};
  }
  if (!header.is_object())
    return Error{sourceName + ": header must be a JSON object"};

  Weights weights;
  weights.sourceName = std::move(sourceName);
  for (auto &[name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object())
        return Error{weights.sourceName + ": field '__metadata__' must be an object"};
      for (auto &[key, value] : entry.items()) {
        if (!value.is_string())
          return Error{weights.sourceName + ": field '__metadata__." + key +
                       "' must be a string"};
        weights.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    Result<WeightInfo> info = parseEntry(weights.sourceName, name, entry, dataStart, dataSize);
    if (!info)
      return info.error();
    weights.tensors.emplace(name, std::move(*info));
  }
  weights.bytes = std::move(bytes);
  return weights;
}

const WeightInfo *Weights::find(std::string_view name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

std::span<const std::byte> Weights::getData(const WeightInfo &info) const {
  return std::span(bytes).subspan(info.offset, info.sizeInBytes);
}

Result<std::span<const std::byte>> Weights::getConstant(std::string_view name, DType dtype,
                                                        std::span<const int64_t> shape) const {
  const WeightInfo *info = find(name);
  if (!info)
    return Error{"constant \"" + std::string(name) + "\" (" + describe(dtype, shape) +
                 ") is missing from " + sourceName};
  if (info->dtype != dtype || !std::equal(info->shape.begin(), info->shape.end(), shape.begin(),
                                          shape.end()))
    return Error{"constant \"" + std::string(name) + "\": " + sourceName + " has " +
                 describe(info->dtype, info->shape) + " but the IR's cgc.constant is " +
                 describe(dtype, shape)};
  return getData(*info);
}

namespace {
/// Whether constant data of dtype `stored` is converted to `wanted` on load.
bool isConvertedOnLoad(DType stored, DType wanted) {
  return stored == DType::Float32 && (wanted == DType::Float16 || wanted == DType::BFloat16);
}
} // namespace

Status Weights::checkConstant(std::string_view name, DType dtype,
                              std::span<const int64_t> shape) const {
  const WeightInfo *info = find(name);
  if (info && isConvertedOnLoad(info->dtype, dtype) &&
      std::equal(info->shape.begin(), info->shape.end(), shape.begin(), shape.end()))
    return Status::success();
  if (Result<std::span<const std::byte>> data = getConstant(name, dtype, shape); !data)
    return data.error();
  return Status::success();
}

Status Weights::readConstant(std::string_view name, DType dtype, std::span<const int64_t> shape,
                             std::span<std::byte> destination) const {
  if (Status status = checkConstant(name, dtype, shape); !status)
    return status;
  const WeightInfo &info = *find(name);
  std::span<const std::byte> data = getData(info);
  std::string where = "constant \"" + std::string(name) + "\": ";
  if (isConvertedOnLoad(info.dtype, dtype)) {
    if (!convertFloat32Data(data, dtype, destination))
      return Error{where + "cannot convert " + std::to_string(data.size()) +
                   " bytes of F32 into " + std::to_string(destination.size()) + " bytes of " +
                   std::string(getSafetensorsDType(dtype))};
    return Status::success();
  }
  if (data.size() != destination.size())
    return Error{where + std::to_string(data.size()) + " bytes do not fit the " +
                 std::to_string(destination.size()) + " bytes given"};
  if (!data.empty())
    std::memcpy(destination.data(), data.data(), data.size());
  return Status::success();
}

bool convertFloat32Data(std::span<const std::byte> source, DType to,
                        std::span<std::byte> destination) {
  if ((to != DType::Float16 && to != DType::BFloat16) || source.size() % 4 != 0 ||
      destination.size() != source.size() / 2)
    return false;
  // The largest finite value of the target, exactly representable in float32.
  const float largest = to == DType::Float16 ? 65504.0f : std::bit_cast<float>(0x7f7f0000u);
  for (size_t i = 0; i < source.size() / 4; ++i) {
    float value;
    std::memcpy(&value, source.data() + 4 * i, 4);
    if (std::isfinite(value))
      value = std::clamp(value, -largest, largest);
    uint16_t bits = to == DType::Float16 ? floatToHalf(value) : floatToBFloat16(value);
    std::memcpy(destination.data() + 2 * i, &bits, 2);
  }
  return true;
}

Result<std::vector<std::byte>>
serializeSafetensors(const std::map<std::string, HostTensor> &tensors,
                     const std::map<std::string, std::string> &metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty())
    header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto &[name, tensor] : tensors) {
    if (name == "__metadata__")
      return Error{"safetensors: a tensor may not be called \"__metadata__\""};
    std::optional<uint64_t> elements = getNumElements(tensor.shape);
    if (!elements || *elements * getByteWidth(tensor.dtype) != tensor.data.size())
      return Error{"safetensors: tensor \"" + name + "\" holds " +
                   std::to_string(tensor.data.size()) + " bytes, but " +
                   describe(tensor.dtype, tensor.shape) + " needs " +
                   (elements ? std::to_string(*elements * getByteWidth(tensor.dtype))
                             : "too many")};
    header[name] = {{"dtype", getSafetensorsDType(tensor.dtype)},
                    {"shape", tensor.shape},
                    {"data_offsets", {offset, offset + tensor.data.size()}}};
    offset += tensor.data.size();
  }
  std::string text = header.dump();
  // Pad with spaces so that the data starts 8-byte aligned, as safetensors does.
  text.append((8 - text.size() % 8) % 8, ' ');

  std::vector<std::byte> bytes(8 + text.size() + offset);
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<std::byte>((static_cast<uint64_t>(text.size()) >> (8 * i)) & 0xff);
  std::memcpy(bytes.data() + 8, text.data(), text.size());
  std::byte *data = bytes.data() + 8 + text.size();
  for (const auto &[name, tensor] : tensors) {
    if (!tensor.data.empty())
      std::memcpy(data, tensor.data.data(), tensor.data.size());
    data += tensor.data.size();
  }
  return bytes;
}

Status writeSafetensors(const std::string &path, const std::map<std::string, HostTensor> &tensors,
                        const std::map<std::string, std::string> &metadata) {
  Result<std::vector<std::byte>> bytes = serializeSafetensors(tensors, metadata);
  if (!bytes)
    return bytes.error();
  return writeFile(path, *bytes);
}

} // namespace cgc::runtime
