//===- Weights.cpp - safetensors files, and constants filled from them ---===//
//
// The header is JSON, parsed with nlohmann::json; its exceptions never leave
// this file, every failure becomes an Error naming the file and the field.
//
// Filling constants is memory-bound: each element is read once from the
// mapped file and written once into the upload buffer, converted (F16C and
// AVX2 where the CPU has them) and permuted on the way, with the work cut
// into pieces of about a megabyte that a few threads take in turn.
//
//===----------------------------------------------------------------------===//

#include "Weights.h"

#include "Files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

namespace {
/// The file at `path` mapped read-only, or null: `openError` is then the
/// errno of opening it (0 when it opened but cannot be mapped: a pipe, an
/// empty file).
std::shared_ptr<const void> mapFile(const std::string &path, size_t &size, int &openError) {
  openError = 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    openError = errno;
    return nullptr;
  }
  struct stat status;
  void *address = MAP_FAILED;
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_size > 0) {
    size = static_cast<size_t>(status.st_size);
    address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  }
  ::close(fd);
  if (address == MAP_FAILED)
    return nullptr;
  // Read front to back, every byte once, when the constants are filled.
  ::madvise(address, size, MADV_SEQUENTIAL);
  return std::shared_ptr<const void>(address, [size](const void *mapped) {
    ::munmap(const_cast<void *>(mapped), size);
  });
}
} // namespace

Result<Weights> Weights::read(const std::string &path) {
  size_t size = 0;
  int openError = 0;
  if (std::shared_ptr<const void> mapped = mapFile(path, size, openError)) {
    std::span<const std::byte> bytes(static_cast<const std::byte *>(mapped.get()), size);
    return parse(bytes, path, std::move(mapped));
  }
  if (openError)
    return Error{"weights: cannot open '" + path + "': " + std::strerror(openError)};
  Result<std::vector<std::byte>> bytes = readFile(path);
  if (!bytes)
    return Error{"weights: " + bytes.error().message};
  return parse(std::move(*bytes), path);
}

Result<Weights> Weights::parse(std::vector<std::byte> bytes, std::string sourceName) {
  auto owned = std::make_shared<const std::vector<std::byte>>(std::move(bytes));
  return parse(std::span<const std::byte>(*owned), std::move(sourceName), owned);
}

Result<Weights> Weights::parse(std::span<const std::byte> bytes, std::string sourceName,
                               std::shared_ptr<const void> owner) {
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
  weights.bytes = bytes;
  weights.owner = std::move(owner);
  return weights;
}

const WeightInfo *Weights::find(std::string_view name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

std::span<const std::byte> Weights::getData(const WeightInfo &info) const {
  return bytes.subspan(info.offset, info.sizeInBytes);
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

Result<ConstantFill> Weights::prepareConstant(std::string_view name, DType dtype,
                                              std::span<const int64_t> storedShape,
                                              std::span<const int64_t> permutation,
                                              std::span<std::byte> destination) const {
  if (Status status = checkConstant(name, dtype, storedShape); !status)
    return status.error();
  const WeightInfo &info = *find(name);
  ConstantFill fill{getData(info),
                    info.dtype,
                    dtype,
                    info.shape,
                    {permutation.begin(), permutation.end()},
                    destination};
  if (Status status = checkConstantFill(fill, "constant \"" + std::string(name) + "\": ");
      !status)
    return status.error();
  return fill;
}

Status Weights::readConstant(std::string_view name, DType dtype, std::span<const int64_t> shape,
                             std::span<std::byte> destination) const {
  Result<ConstantFill> fill = prepareConstant(name, dtype, shape, {}, destination);
  if (!fill)
    return fill.error();
  return fillConstants(std::span(&*fill, 1), 1);
}

//===----------------------------------------------------------------------===//
// float32 -> float16 / bfloat16
//===----------------------------------------------------------------------===//

namespace {

/// The largest finite bfloat16, exactly representable in float32.
constexpr uint32_t kLargestBFloat16Bits = 0x7f7f0000;

/// Converts `count` float32 values at `source` into 2-byte values at
/// `destination` (neither need be aligned).
using Conversion = void (*)(const std::byte *source, std::byte *destination, size_t count);

template <uint16_t (*Narrow)(float)>
void convertScalar(const std::byte *source, std::byte *destination, size_t count, float largest) {
  for (size_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, source + 4 * i, 4);
    if (std::isfinite(value))
      value = std::clamp(value, -largest, largest);
    uint16_t bits = Narrow(value);
    std::memcpy(destination + 2 * i, &bits, 2);
  }
}

void convertToHalfScalar(const std::byte *source, std::byte *destination, size_t count) {
  convertScalar<floatToHalf>(source, destination, count, 65504.0f);
}

void convertToBFloat16Scalar(const std::byte *source, std::byte *destination, size_t count) {
  convertScalar<floatToBFloat16>(source, destination, count,
                                 std::bit_cast<float>(kLargestBFloat16Bits));
}

#if defined(__x86_64__)
/// Eight float32 values with finite ones clamped to ±`largest`: maxps and
/// minps return their second operand when either is NaN, so NaN passes
/// unchanged; infinities are put back afterwards.
__attribute__((target("avx2"))) inline __m256 loadSaturated(const std::byte *source,
                                                             __m256 largest) {
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
  const __m256i infinity = _mm256_set1_epi32(0x7f800000);
  __m256 value = _mm256_loadu_ps(reinterpret_cast<const float *>(source));
  __m256 lowest = _mm256_xor_ps(largest, _mm256_set1_ps(-0.0f));
  __m256 clamped = _mm256_min_ps(largest, _mm256_max_ps(lowest, value));
  __m256i isInfinite =
      _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(value), magnitude), infinity);
  return _mm256_blendv_ps(clamped, value, _mm256_castsi256_ps(isInfinite));
}

/// vcvtps2ph rounds to nearest-even and quiets NaN keeping the payload's
/// top bits, exactly as floatToHalf does.
__attribute__((target("avx2,f16c"))) void convertToHalfAVX2(const std::byte *source,
                                                             std::byte *destination,
                                                             size_t count) {
  const __m256 largest = _mm256_set1_ps(65504.0f);
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m128i low =
        _mm256_cvtps_ph(loadSaturated(source + 4 * i, largest), _MM_FROUND_TO_NEAREST_INT);
    __m128i high =
        _mm256_cvtps_ph(loadSaturated(source + 4 * i + 32, largest), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(destination + 2 * i),
                        _mm256_set_m128i(high, low));
  }
  convertToHalfScalar(source + 4 * i, destination + 2 * i, count - i);
}

/// floatToBFloat16 on eight values, in 32-bit lanes: NaN keeps its top
/// half with the quiet bit set, everything else rounds to nearest-even by
/// adding 0x7fff plus the lowest kept bit.
__attribute__((target("avx2"))) inline __m256i narrowToBFloat16(__m256 values) {
  __m256i bits = _mm256_castps_si256(values);
  __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
  __m256i isNaN = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
  __m256i top = _mm256_srli_epi32(bits, 16);
  __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)),
                       _mm256_and_si256(top, _mm256_set1_epi32(1))),
      16);
  __m256i quietNaN = _mm256_or_si256(top, _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(rounded, quietNaN, isNaN);
}

__attribute__((target("avx2"))) void convertToBFloat16AVX2(const std::byte *source,
                                                            std::byte *destination,
                                                            size_t count) {
  const __m256 largest = _mm256_castsi256_ps(_mm256_set1_epi32(kLargestBFloat16Bits));
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m256i low = narrowToBFloat16(loadSaturated(source + 4 * i, largest));
    __m256i high = narrowToBFloat16(loadSaturated(source + 4 * i + 32, largest));
    // packus works within 128-bit lanes: low0-3 high0-3 low4-7 high4-7.
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(low, high), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(destination + 2 * i), packed);
  }
  convertToBFloat16Scalar(source + 4 * i, destination + 2 * i, count - i);
}
#endif

/// The fastest conversion to `to` (float16 or bfloat16) this CPU has.
Conversion getConversion(DType to) {
#if defined(__x86_64__)
  static const bool vectorized =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  if (vectorized)
    return to == DType::Float16 ? convertToHalfAVX2 : convertToBFloat16AVX2;
#endif
  return to == DType::Float16 ? convertToHalfScalar : convertToBFloat16Scalar;
}

bool fitsConversion(std::span<const std::byte> source, DType to,
                      std::span<std::byte> destination) {
  return (to == DType::Float16 || to == DType::BFloat16) && source.size() % 4 == 0 &&
         destination.size() == source.size() / 2;
}

} // namespace

bool convertFloat32Data(std::span<const std::byte> source, DType to,
                        std::span<std::byte> destination) {
  if (!fitsConversion(source, to, destination))
    return false;
  getConversion(to)(source.data(), destination.data(), source.size() / 4);
  return true;
}

bool convertFloat32DataScalar(std::span<const std::byte> source, DType to,
                              std::span<std::byte> destination) {
  if (!fitsConversion(source, to, destination))
    return false;
  (to == DType::Float16 ? convertToHalfScalar : convertToBFloat16Scalar)(
      source.data(), destination.data(), source.size() / 4);
  return true;
}

//===----------------------------------------------------------------------===//
// Filling constants
//===----------------------------------------------------------------------===//

Status checkConstantFill(const ConstantFill &fill, const std::string &where) {
  bool converted = isConvertedOnLoad(fill.from, fill.to);
  if (fill.from != fill.to && !converted)
    return Error{where + "cannot convert " + std::string(getSafetensorsDType(fill.from)) +
                 " data into " + std::string(getSafetensorsDType(fill.to))};
  std::optional<uint64_t> count = getNumElements(fill.storedShape);
  if (!count || *count > UINT64_MAX / 8)
    return Error{where + "invalid shape [" + formatShape(fill.storedShape) + "]"};
  uint64_t sourceBytes = *count * getByteWidth(fill.from);
  uint64_t destinationBytes = *count * getByteWidth(fill.to);
  if (fill.source.size() != sourceBytes || fill.destination.size() != destinationBytes) {
    if (converted)
      return Error{where + "cannot convert " + std::to_string(fill.source.size()) + " bytes of " +
                   std::string(getSafetensorsDType(fill.from)) + " into " +
                   std::to_string(fill.destination.size()) + " bytes of " +
                   std::string(getSafetensorsDType(fill.to))};
    return Error{where + std::to_string(fill.source.size()) + " bytes do not fit the " +
                 std::to_string(fill.destination.size()) + " bytes given"};
  }
  if (!fill.permutation.empty()) {
    std::vector<bool> seen(fill.storedShape.size());
    bool valid = fill.permutation.size() == fill.storedShape.size();
    for (int64_t dimension : fill.permutation) {
      valid = valid && dimension >= 0 && dimension < static_cast<int64_t>(seen.size()) &&
              !seen[dimension];
      if (valid)
        seen[dimension] = true;
    }
    if (!valid) {
      std::string text;
      for (int64_t dimension : fill.permutation)
        text += (text.empty() ? "" : ", ") + std::to_string(dimension);
      return Error{where + "[" + text + "] is not a permutation of the " +
                   std::to_string(fill.storedShape.size()) + " dimensions of [" +
                   formatShape(fill.storedShape) + "]"};
    }
  }
  return Status::success();
}

namespace {

/// A checked fill reduced to what its loops need. The result's dimensions,
/// each with the source stride (in elements) that walks it: size-one
/// dimensions dropped, and neighbours that are also neighbours in the
/// source merged (OIHW bound as OHWI is [O, H*W, I] with strides
/// [I*H*W, 1, H*W]).
struct FillPlan {
  const ConstantFill *fill;
  size_t fromWidth, toWidth;
  Conversion conversion; // null: same dtype, a copy
  std::vector<int64_t> sizes, strides;
  uint64_t numElements;
  /// The result is the source in the same order: one conversion or copy.
  bool contiguous;
  /// A transposition: the result dimension that the source walks with
  /// stride 1, other than the innermost. Blocks of it and of the innermost
  /// go through a small tile, so that both sides are read and written in
  /// runs (a row by row gather would touch a cache line, and a page, per
  /// element). `rowSize`: result elements per index of it.
  std::optional<size_t> tiledDimension;
  uint64_t rowSize = 0;
};

FillPlan planFill(const ConstantFill &fill) {
  FillPlan plan{&fill, getByteWidth(fill.from), getByteWidth(fill.to),
                fill.from == fill.to ? nullptr : getConversion(fill.to),
                {}, {}, *getNumElements(fill.storedShape), true};
  size_t rank = fill.storedShape.size();
  std::vector<int64_t> storedStrides(rank, 1);
  for (size_t i = rank; i-- > 1;)
    storedStrides[i - 1] = storedStrides[i] * fill.storedShape[i];
  for (size_t i = 0; i < rank; ++i) {
    size_t stored = fill.permutation.empty() ? i : static_cast<size_t>(fill.permutation[i]);
    int64_t size = fill.storedShape[stored], stride = storedStrides[stored];
    if (size == 1)
      continue;
    if (!plan.sizes.empty() && plan.strides.back() == stride * size) {
      plan.sizes.back() *= size;
      plan.strides.back() = stride;
      continue;
    }
    plan.sizes.push_back(size);
    plan.strides.push_back(stride);
  }
  plan.contiguous = plan.sizes.size() <= 1 && (plan.strides.empty() || plan.strides[0] == 1);
  if (!plan.contiguous)
    for (size_t i = 0; i + 1 < plan.sizes.size(); ++i)
      if (plan.strides[i] == 1) {
        plan.tiledDimension = i;
        plan.rowSize = 1;
        for (size_t j = i + 1; j < plan.sizes.size(); ++j)
          plan.rowSize *= plan.sizes[j];
      }
  return plan;
}

/// Rows and columns of the tiles a transposition goes through.
constexpr int64_t kTile = 32;

template <typename T>
void transposeElements(const std::byte *source, int64_t columnStride, int64_t rows,
                       int64_t columns, std::byte *destination, uint64_t rowStride) {
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t column = 0; column < columns; ++column)
      std::memcpy(destination + (row * rowStride + column) * sizeof(T),
                  source + (row + column * columnStride) * sizeof(T), sizeof(T));
}

/// destination[row * rowStride + column] = source[row + column *
/// columnStride] (in elements) for a tile of at most kTile x kTile,
/// converted as `plan` converts.
void transposeTile(const FillPlan &plan, const std::byte *source, int64_t columnStride,
                   int64_t rows, int64_t columns, std::byte *destination, uint64_t rowStride) {
  if (!plan.conversion) {
    auto transpose = plan.fromWidth == 1   ? transposeElements<uint8_t>
                     : plan.fromWidth == 2 ? transposeElements<uint16_t>
                     : plan.fromWidth == 4 ? transposeElements<uint32_t>
                                           : transposeElements<uint64_t>;
    return transpose(source, columnStride, rows, columns, destination, rowStride);
  }
  alignas(32) std::byte tile[kTile][kTile * 4];
  for (int64_t column = 0; column < columns; ++column)
    for (int64_t row = 0; row < rows; ++row)
      std::memcpy(&tile[row][column * 4], source + (row + column * columnStride) * 4, 4);
  for (int64_t row = 0; row < rows; ++row)
    plan.conversion(tile[row], destination + row * rowStride * plan.toWidth, columns);
}

/// Writes result elements [begin, end) of a transposition, both multiples
/// of its rowSize.
void fillTiled(const FillPlan &plan, uint64_t begin, uint64_t end) {
  const std::byte *source = plan.fill->source.data();
  std::byte *destination = plan.fill->destination.data();
  size_t tiled = *plan.tiledDimension, rank = plan.sizes.size();
  int64_t tiledSize = plan.sizes[tiled];
  int64_t innerSize = plan.sizes.back(), innerStride = plan.strides.back();
  uint64_t numMiddle = plan.rowSize / innerSize;
  for (uint64_t row = begin / plan.rowSize, endRow = end / plan.rowSize; row < endRow;) {
    int64_t index = static_cast<int64_t>(row % tiledSize);
    int64_t rows =
        std::min<int64_t>({kTile, tiledSize - index, static_cast<int64_t>(endRow - row)});
    // The source offset of the dimensions outside the tiled one.
    uint64_t outer = row / tiledSize, offset = index;
    for (size_t i = tiled; i-- > 0;) {
      offset += (outer % plan.sizes[i]) * plan.strides[i];
      outer /= plan.sizes[i];
    }
    for (uint64_t middle = 0; middle < numMiddle; ++middle) {
      uint64_t middleOffset = 0, rest = middle;
      for (size_t i = rank - 1; i-- > tiled + 1;) {
        middleOffset += (rest % plan.sizes[i]) * plan.strides[i];
        rest /= plan.sizes[i];
      }
      for (int64_t column = 0; column < innerSize; column += kTile) {
        uint64_t from = offset + middleOffset + column * innerStride;
        uint64_t to = row * plan.rowSize + middle * innerSize + column;
        transposeTile(plan, source + from * plan.fromWidth, innerStride, rows,
                      std::min(kTile, innerSize - column), destination + to * plan.toWidth,
                      plan.rowSize);
      }
    }
    row += rows;
  }
}

/// Writes result elements [begin, end) of `plan`'s fill.
void fillRange(const FillPlan &plan, uint64_t begin, uint64_t end) {
  if (plan.tiledDimension)
    return fillTiled(plan, begin, end);
  // Otherwise the source's stride-one dimension is the result's innermost
  // (every stored dimension after it has size one): runs of it are copied
  // or converted as they are.
  const std::byte *source = plan.fill->source.data();
  std::byte *destination = plan.fill->destination.data();
  auto transfer = [&](uint64_t from, uint64_t to, uint64_t count) {
    if (plan.conversion)
      plan.conversion(source + from * plan.fromWidth, destination + to * plan.toWidth, count);
    else
      std::memcpy(destination + to * plan.toWidth, source + from * plan.fromWidth,
                  count * plan.toWidth);
  };
  if (plan.contiguous)
    return transfer(begin, begin, end - begin);
  // Run by run along the innermost result dimension, from the multi-index
  // of `begin`.
  size_t rank = plan.sizes.size();
  std::vector<int64_t> index(rank);
  uint64_t rest = begin, offset = 0;
  for (size_t i = rank; i-- > 0;) {
    index[i] = static_cast<int64_t>(rest % plan.sizes[i]);
    rest /= plan.sizes[i];
    offset += index[i] * plan.strides[i];
  }
  for (uint64_t position = begin; position < end;) {
    uint64_t count = std::min<uint64_t>(plan.sizes.back() - index.back(), end - position);
    transfer(offset, position, count);
    position += count;
    index.back() += count;
    offset += count;
    for (size_t i = rank - 1; i > 0 && index[i] == plan.sizes[i]; --i) {
      offset -= plan.sizes[i] * plan.strides[i];
      index[i] = 0;
      ++index[i - 1];
      offset += plan.strides[i - 1];
    }
  }
}

/// Bytes one thread takes at a time: large enough that taking it costs
/// nothing, small enough that the threads finish together.
constexpr uint64_t kPieceBytes = uint64_t(1) << 20;

} // namespace

Status fillConstants(std::span<const ConstantFill> fills, unsigned maxThreads) {
  for (const ConstantFill &fill : fills)
    if (Status status = checkConstantFill(fill, ""); !status)
      return status;
  std::vector<FillPlan> plans;
  plans.reserve(fills.size());
  struct Piece {
    const FillPlan *plan;
    uint64_t begin, end;
  };
  std::vector<Piece> pieces;
  uint64_t totalBytes = 0;
  for (const ConstantFill &fill : fills)
    plans.push_back(planFill(fill));
  for (const FillPlan &plan : plans) {
    uint64_t step = std::max<uint64_t>(1, kPieceBytes / std::max(plan.fromWidth, plan.toWidth));
    // A transposition is cut between its rows.
    if (plan.tiledDimension)
      step = std::max<uint64_t>(1, step / plan.rowSize) * plan.rowSize;
    for (uint64_t begin = 0; begin < plan.numElements; begin += step)
      pieces.push_back({&plan, begin, std::min(plan.numElements, begin + step)});
    totalBytes += plan.numElements * plan.fromWidth;
  }
  // Unless told, a thread per core, each with a few pieces at least.
  uint64_t threads = maxThreads;
  if (!threads)
    threads = std::min<uint64_t>(std::max(1u, std::thread::hardware_concurrency()),
                                 std::max<uint64_t>(1, totalBytes / (4 * kPieceBytes)));
  threads = std::min<uint64_t>(threads, pieces.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t index = next++; index < pieces.size(); index = next++)
      fillRange(*pieces[index].plan, pieces[index].begin, pieces[index].end);
  };
  std::vector<std::thread> workers;
  try {
    for (uint64_t thread = 1; thread < threads; ++thread)
      workers.emplace_back(work);
  } catch (const std::system_error &) {
    // Fewer threads than asked for: the ones there are take every piece.
  }
  work();
  for (std::thread &worker : workers)
    worker.join();
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// One tensor to write, whoever holds its bytes.
struct TensorToWrite {
  const std::string &name;
  DType dtype;
  const std::vector<int64_t> &shape;
  std::span<const std::byte> data;
};

template <typename Tensor>
std::vector<TensorToWrite> listTensors(const std::map<std::string, Tensor> &tensors) {
  std::vector<TensorToWrite> list;
  list.reserve(tensors.size());
  for (const auto &[name, tensor] : tensors)
    list.push_back({name, tensor.dtype, tensor.shape, std::span<const std::byte>(tensor.data)});
  return list;
}

/// The 8-byte length and the JSON header of `tensors`, padded with spaces
/// so that the data starts 8-byte aligned, as safetensors does.
Result<std::string> makeHeader(const std::vector<TensorToWrite> &tensors,
                               const std::map<std::string, std::string> &metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty())
    header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const TensorToWrite &tensor : tensors) {
    if (tensor.name == "__metadata__")
      return Error{"safetensors: a tensor may not be called \"__metadata__\""};
    std::optional<uint64_t> elements = getNumElements(tensor.shape);
    if (!elements || *elements * getByteWidth(tensor.dtype) != tensor.data.size())
      return Error{"safetensors: tensor \"" + tensor.name + "\" holds " +
                   std::to_string(tensor.data.size()) + " bytes, but " +
                   describe(tensor.dtype, tensor.shape) + " needs " +
                   (elements ? std::to_string(*elements * getByteWidth(tensor.dtype))
                             : "too many")};
    header[tensor.name] = {{"dtype", getSafetensorsDType(tensor.dtype)},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + tensor.data.size()}}};
    offset += tensor.data.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string image(8, '\0');
  for (int i = 0; i < 8; ++i)
    image[i] = static_cast<char>((static_cast<uint64_t>(text.size()) >> (8 * i)) & 0xff);
  return image + text;
}

Result<std::vector<std::byte>> serialize(const std::vector<TensorToWrite> &tensors,
                                         const std::map<std::string, std::string> &metadata) {
  Result<std::string> header = makeHeader(tensors, metadata);
  if (!header)
    return header.error();
  uint64_t size = header->size();
  for (const TensorToWrite &tensor : tensors)
    size += tensor.data.size();
  // Appended into reserved memory: written once, never zero-filled first.
  std::vector<std::byte> bytes;
  bytes.reserve(size);
  const auto *text = reinterpret_cast<const std::byte *>(header->data());
  bytes.insert(bytes.end(), text, text + header->size());
  for (const TensorToWrite &tensor : tensors)
    bytes.insert(bytes.end(), tensor.data.begin(), tensor.data.end());
  return bytes;
}

/// Writes the header, then each tensor's bytes from where they are, into a
/// new file that then replaces `path`: the bytes may be mapped from the file
/// being replaced (weights imported from it), which must not be truncated
/// under them.
Status write(const std::string &path, const std::vector<TensorToWrite> &tensors,
             const std::map<std::string, std::string> &metadata) {
  Result<std::string> header = makeHeader(tensors, metadata);
  if (!header)
    return header.error();
  std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
  if (!stream)
    return Error{"cannot create '" + path + "': " + std::strerror(errno)};
  stream.write(header->data(), static_cast<std::streamsize>(header->size()));
  for (const TensorToWrite &tensor : tensors)
    stream.write(reinterpret_cast<const char *>(tensor.data.data()),
                 static_cast<std::streamsize>(tensor.data.size()));
  stream.close();
  if (!stream || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return Error{"cannot write '" + path + "'"};
  }
  return Status::success();
}

} // namespace

Result<std::vector<std::byte>>
serializeSafetensors(const std::map<std::string, HostTensor> &tensors,
                     const std::map<std::string, std::string> &metadata) {
  return serialize(listTensors(tensors), metadata);
}

Result<std::vector<std::byte>>
serializeSafetensors(const std::map<std::string, SharedTensor> &tensors,
                     const std::map<std::string, std::string> &metadata) {
  return serialize(listTensors(tensors), metadata);
}

Status writeSafetensors(const std::string &path, const std::map<std::string, HostTensor> &tensors,
                        const std::map<std::string, std::string> &metadata) {
  return write(path, listTensors(tensors), metadata);
}

Status writeSafetensors(const std::string &path,
                        const std::map<std::string, SharedTensor> &tensors,
                        const std::map<std::string, std::string> &metadata) {
  return write(path, listTensors(tensors), metadata);
}

} // namespace cgc::runtime
