//===- Weights.h - model weights in safetensors files -----------*- C++ -*-===//
//
// The bytes behind the named `cgc.constant`s of a model live beside the IR in
// a safetensors file (`model.safetensors`): an 8-byte little-endian header
// length, a JSON header mapping each name to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
// end of the header), then the data. Supported dtypes: F32 F16 BF16 I8 U8 I16
// I32 I64 BOOL F64 U16 U32 U64, the cgc element types.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_RUNTIME_WEIGHTS_H
#define CGC_LIB_RUNTIME_WEIGHTS_H

#include "cgc/Runtime/Tensor.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cgc::runtime {

/// The safetensors spelling of `dtype` ("F32", "BF16", "BOOL").
std::string_view getSafetensorsDType(DType dtype);
/// The dtype a safetensors spelling names, or nullopt.
std::optional<DType> parseSafetensorsDType(std::string_view name);

/// One tensor of a weights file: its dtype, shape and where its bytes are.
struct WeightInfo {
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t offset; // from the start of the file
  uint64_t sizeInBytes;
};

/// A parsed safetensors file held in memory.
class Weights {
public:
  /// Reads and checks the file at `path`. Errors name the file and the tensor
  /// or header field at fault.
  static Result<Weights> read(const std::string &path);
  /// Checks `bytes`, a safetensors image; `sourceName` names it in errors.
  static Result<Weights> parse(std::vector<std::byte> bytes, std::string sourceName);

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
  std::vector<std::byte> bytes;
  std::map<std::string, WeightInfo, std::less<>> tensors;
  std::map<std::string, std::string> metadata;
};

/// Converts float32 values (`source`, little-endian as in memory) to
/// float16 or bfloat16 (`to`) in `destination`, which holds as many 2-byte
/// elements: rounding to nearest-even, and saturating finite values to the
/// target's finite range (±65504 for float16, ±3.3895e38 for bfloat16), so
/// that a large finite float32 (an attention mask's float32 lowest) stays
/// finite and `0 * value` stays 0; infinities and NaN are kept. Returns
/// false, converting nothing, for another `to` or mismatched sizes.
bool convertFloat32Data(std::span<const std::byte> source, DType to,
                        std::span<std::byte> destination);

/// The safetensors image of `tensors` (each must hold
/// numElements × byteWidth bytes); `metadata` becomes "__metadata__".
Result<std::vector<std::byte>>
serializeSafetensors(const std::map<std::string, HostTensor> &tensors,
                     const std::map<std::string, std::string> &metadata = {});

/// Writes `tensors` to `path` as safetensors.
Status writeSafetensors(const std::string &path, const std::map<std::string, HostTensor> &tensors,
                        const std::map<std::string, std::string> &metadata = {});

} // namespace cgc::runtime

#endif // CGC_LIB_RUNTIME_WEIGHTS_H
