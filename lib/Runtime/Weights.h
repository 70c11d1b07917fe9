//===- Weights.h - model weights in safetensors files -----------*- C++ -*-===//
//
// The bytes behind the named `cgc.constant`s of a model live beside the IR in
// a safetensors file (`model.safetensors`): an 8-byte little-endian header
// length, a JSON header mapping each name to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
// end of the header), then the data. Supported dtypes: F32 F16 BF16 I8 U8 I16
// I32 I64 BOOL F64 U16 U32 U64, the cgc element types.
//
// The file is read in place (mapped), and each constant goes from it into
// the device's upload buffer in one pass: copied, or converted from float32
// to float16/bfloat16, and permuted where the program binds it in another
// layout, on as many threads as there are cores.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_RUNTIME_WEIGHTS_H
#define CGC_LIB_RUNTIME_WEIGHTS_H

#include "cgc/Runtime/Tensor.h"

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cgc::runtime {

/// The safetensors spelling of `dtype` ("F32", "BF16", "BOOL").
std::string_view getSafetensorsDType(DType dtype);
/// The dtype a safetensors spelling names, or nullopt.
std::optional<DType> parseSafetensorsDType(std::string_view name);

/// A tensor whose bytes something else holds (a mapped model file, a
/// parsed weights image, a HostTensor); `owner` keeps them alive. The
/// importer hands its weights over this way, so that large initializers are
/// never copied out of the model file.
struct SharedTensor {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::span<const std::byte> data;
  /// Null when whoever made the tensor keeps the bytes alive for as long as
  /// it is used.
  std::shared_ptr<const void> owner;

  uint64_t numElements() const { return getNumElements(shape).value_or(0); }
  /// The elements reinterpreted as `T` (which must have the dtype's width).
  template <typename T>
  std::span<const T> as() const {
    return {reinterpret_cast<const T *>(data.data()), data.size() / sizeof(T)};
  }
};

/// One tensor of a weights file: its dtype, shape and where its bytes are.
struct WeightInfo {
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t offset; // from the start of the file
  uint64_t sizeInBytes;
};

/// What filling one constant's bytes on the device takes: `source` holds
/// the data as stored (`from`, `storedShape`); `destination` receives it as
/// `to` (the same dtype, or float16/bfloat16 from float32, converted as
/// `convertFloat32Data` does), its dimensions permuted by `permutation`
/// (`cgc_op.transpose`'s convention: result dimension i is stored dimension
/// permutation[i]; empty: as stored).
struct ConstantFill {
  std::span<const std::byte> source;
  DType from = DType::Float32, to = DType::Float32;
  std::vector<int64_t> storedShape;
  std::vector<int64_t> permutation;
  std::span<std::byte> destination;
};

/// Checks `fill`: sizes that match the shape and dtypes, a supported
/// conversion, a permutation of the stored rank. Errors start with `where`.
Status checkConstantFill(const ConstantFill &fill, const std::string &where);

/// Performs `fills` (each checked with checkConstantFill first) in one pass
/// over their data, cut into pieces of about a megabyte that `maxThreads`
/// threads take in turn (0: one per hardware thread, fewer for small
/// fills).
Status fillConstants(std::span<const ConstantFill> fills, unsigned maxThreads = 0);

/// A parsed safetensors file, read in place: a mapped file, or bytes held
/// in memory.
class Weights {
public:
  /// Maps (or, where it cannot be mapped, reads) and checks the file at
  /// `path`. Errors name the file and the tensor or header field at fault.
  static Result<Weights> read(const std::string &path);
  /// Checks `bytes`, a safetensors image; `sourceName` names it in errors.
  static Result<Weights> parse(std::vector<std::byte> bytes, std::string sourceName);
  /// The same over bytes the Weights does not own: `owner` keeps them alive,
  /// or, when null, the caller does for as long as the Weights is used.
  static Result<Weights> parse(std::span<const std::byte> bytes, std::string sourceName,
                               std::shared_ptr<const void> owner);

  /// The tensor called `name`, or null.
  const WeightInfo *find(std::string_view name) const;
  /// The bytes of `info`, which must come from this file.
  std::span<const std::byte> getData(const WeightInfo &info) const;
  /// The bytes of constant `name` after checking that the file has it with
  /// exactly `dtype` and `shape`; the error names the constant and both
  /// signatures.
  Result<std::span<const std::byte>> getConstant(std::string_view name, DType dtype,
                                                 std::span<const int64_t> shape) const;
  /// Checks that the file has constant `name` with `shape` and either
  /// exactly `dtype`, or float32 data for a float16 or bfloat16 constant (a
  /// model whose precision the compiler converted); the error names the
  /// constant and both signatures.
  Status checkConstant(std::string_view name, DType dtype, std::span<const int64_t> shape) const;
  /// What filling `destination` with constant `name` as `dtype` takes: its
  /// stored data (`storedShape`, checked as `checkConstant` does), converted
  /// when the file holds float32 for a float16 or bfloat16 constant, and
  /// permuted by `permutation` (empty: as stored). For fillConstants.
  Result<ConstantFill> prepareConstant(std::string_view name, DType dtype,
                                       std::span<const int64_t> storedShape,
                                       std::span<const int64_t> permutation,
                                       std::span<std::byte> destination) const;
  /// Writes constant `name` as `dtype` into `destination` (exactly its byte
  /// size): its bytes, or its float32 data converted by
  /// `convertFloat32Data` when the file holds float32 for a float16 or
  /// bfloat16 constant. Checks as `checkConstant` does.
  Status readConstant(std::string_view name, DType dtype, std::span<const int64_t> shape,
                      std::span<std::byte> destination) const;
  /// Every tensor, by name.
  const std::map<std::string, WeightInfo, std::less<>> &getTensors() const { return tensors; }
  /// The file (or buffer) name errors use.
  const std::string &getSourceName() const { return sourceName; }
  /// The "__metadata__" string map of the header (empty if absent).
  const std::map<std::string, std::string> &getMetadata() const { return metadata; }

private:
  std::string sourceName;
  /// The whole image; `owner` holds it (or the caller, when null).
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> owner;
  std::map<std::string, WeightInfo, std::less<>> tensors;
  std::map<std::string, std::string> metadata;
};

/// Converts float32 values (`source`, little-endian as in memory) to
/// float16 or bfloat16 (`to`) in `destination`, which holds as many 2-byte
/// elements: rounding to nearest-even, and saturating finite values to the
/// target's finite range (±65504 for float16, ±3.3895e38 for bfloat16), so
/// that a large finite float32 (an attention mask's float32 lowest) stays
/// finite and `0 * value` stays 0; infinities and NaN are kept (NaN made
/// quiet, its payload truncated). Vectorized (F16C, AVX2) where the CPU has
/// it, with the same results bit for bit. Returns false, converting
/// nothing, for another `to` or mismatched sizes.
bool convertFloat32Data(std::span<const std::byte> source, DType to,
                        std::span<std::byte> destination);

/// The same, element by element with floatToHalf/floatToBFloat16: the
/// reference the vectorized conversion is tested against.
bool convertFloat32DataScalar(std::span<const std::byte> source, DType to,
                              std::span<std::byte> destination);

/// The safetensors image of `tensors` (each must hold
/// numElements × byteWidth bytes); `metadata` becomes "__metadata__".
Result<std::vector<std::byte>>
serializeSafetensors(const std::map<std::string, HostTensor> &tensors,
                     const std::map<std::string, std::string> &metadata = {});
Result<std::vector<std::byte>>
serializeSafetensors(const std::map<std::string, SharedTensor> &tensors,
                     const std::map<std::string, std::string> &metadata = {});

/// Writes `tensors` to `path` as safetensors.
Status writeSafetensors(const std::string &path, const std::map<std::string, HostTensor> &tensors,
                        const std::map<std::string, std::string> &metadata = {});
Status writeSafetensors(const std::string &path,
                        const std::map<std::string, SharedTensor> &tensors,
                        const std::map<std::string, std::string> &metadata = {});

} // namespace cgc::runtime

#endif // CGC_LIB_RUNTIME_WEIGHTS_H
