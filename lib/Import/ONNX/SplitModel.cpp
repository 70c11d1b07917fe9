//===- SplitModel.cpp - a serialized model without its large weights -------===//
//
// The wire format, as far as the importer walks it: a message is a sequence
// of fields, each a varint tag (field number << 3 | wire type) and a value:
// a varint (type 0), 8 bytes (1), a varint length and that many bytes (2:
// strings, bytes, sub-messages, packed repeated fields) or 4 bytes (5).
// Groups (3, 4) are long deprecated and not in onnx.proto; a message using
// them is left to protobuf whole. Fields that protobuf keeps (a singular
// message given twice is merged, a repeated one appended; of a singular
// bytes field given twice the last wins) keep their meaning because only
// ModelProto.graph (7), GraphProto.initializer (5) and TensorProto.raw_data
// (9) are rewritten, each in order.
//
//===----------------------------------------------------------------------===//

#include "SplitModel.h"

namespace cgc::importer {

namespace {

constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;
constexpr uint8_t kLengthDelimited = 2;

/// One field of a message: where its tag starts, where its value (for a
/// length-delimited field: its content) starts, and where it ends.
struct Field {
  uint32_t number;
  uint8_t wireType;
  const uint8_t *begin, *content, *end;
};

class FieldReader {
public:
  explicit FieldReader(llvm::ArrayRef<uint8_t> bytes)
      : position(bytes.begin()), end(bytes.end()) {}

  bool done() const { return position == end; }

  /// The next field; false on malformed or unsupported wire format.
  bool next(Field &field) {
    field.begin = position;
    uint64_t tag;
    if (!readVarint(tag) || tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
      return false;
    field.number = static_cast<uint32_t>(tag >> 3);
    field.wireType = static_cast<uint8_t>(tag & 7);
    uint64_t skip = 0;
    switch (field.wireType) {
    case 0: {
      uint64_t ignored;
      if (!readVarint(ignored))
        return false;
      break;
    }
    case 1: skip = 8; break;
    case kLengthDelimited:
      if (!readVarint(skip))
        return false;
      break;
    case 5: skip = 4; break;
    default: return false;
    }
    if (skip > static_cast<uint64_t>(end - position))
      return false;
    field.content = position;
    position += skip;
    field.end = position;
    return true;
  }

private:
  bool readVarint(uint64_t &value) {
    value = 0;
    for (unsigned shift = 0; shift < 64 && position != end; shift += 7) {
      uint8_t byte = *position++;
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }

  const uint8_t *position, *end;
};

void appendVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

/// Appends a length-delimited field `number` holding `content`.
void appendMessage(std::string &out, uint32_t number, const std::string &content) {
  appendVarint(out, uint64_t(number) << 3 | kLengthDelimited);
  appendVarint(out, content.size());
  out += content;
}

void append(std::string &out, const uint8_t *begin, const uint8_t *end) {
  out.append(reinterpret_cast<const char *>(begin), end - begin);
}

/// A TensorProto without its raw_data fields into `out`, when the one that
/// counts (the last) holds at least `minBytes`: then `rawData` is it.
/// False on malformed wire format.
bool splitTensor(llvm::ArrayRef<uint8_t> tensor, uint64_t minBytes, std::string &out,
                 std::optional<llvm::ArrayRef<uint8_t>> &rawData) {
  rawData.reset();
  std::optional<llvm::ArrayRef<uint8_t>> last;
  FieldReader reader(tensor);
  Field field;
  while (!reader.done()) {
    if (!reader.next(field))
      return false;
    if (field.number == kTensorRawData && field.wireType == kLengthDelimited)
      last = llvm::ArrayRef<uint8_t>(field.content, field.end);
  }
  if (!last || last->size() < minBytes)
    return true;
  rawData = last;
  FieldReader copier(tensor);
  while (!copier.done()) {
    copier.next(field);
    if (field.number != kTensorRawData || field.wireType != kLengthDelimited)
      append(out, field.begin, field.end);
  }
  return true;
}

/// A GraphProto with its initializers split into `out`; each initializer
/// adds its entry to `rawData`. `cut`: whether any raw_data was cut.
bool splitGraph(llvm::ArrayRef<uint8_t> graph, uint64_t minBytes, std::string &out,
                std::vector<std::optional<llvm::ArrayRef<uint8_t>>> &rawData, bool &cut) {
  cut = false;
  FieldReader reader(graph);
  Field field;
  const uint8_t *copied = graph.begin();
  while (!reader.done()) {
    if (!reader.next(field))
      return false;
    if (field.number != kGraphInitializer || field.wireType != kLengthDelimited)
      continue;
    std::string tensor;
    std::optional<llvm::ArrayRef<uint8_t>> data;
    if (!splitTensor({field.content, field.end}, minBytes, tensor, data))
      return false;
    rawData.push_back(data);
    if (!data)
      continue;
    append(out, copied, field.begin);
    appendMessage(out, kGraphInitializer, tensor);
    copied = field.end;
    cut = true;
  }
  if (cut)
    append(out, copied, graph.end());
  return true;
}

} // namespace

std::optional<SplitModel> splitModel(llvm::ArrayRef<uint8_t> bytes, uint64_t minBytes) {
  SplitModel split;
  bool cutAny = false;
  FieldReader reader(bytes);
  Field field;
  const uint8_t *copied = bytes.begin();
  while (!reader.done()) {
    if (!reader.next(field))
      return std::nullopt;
    if (field.number != kModelGraph || field.wireType != kLengthDelimited)
      continue;
    std::string graph;
    bool cut = false;
    if (!splitGraph({field.content, field.end}, minBytes, graph, split.rawData, cut))
      return std::nullopt;
    if (!cut)
      continue;
    append(split.remainder, copied, field.begin);
    appendMessage(split.remainder, kModelGraph, graph);
    copied = field.end;
    cutAny = true;
  }
  if (!cutAny)
    return std::nullopt;
  append(split.remainder, copied, bytes.end());
  return split;
}

} // namespace cgc::importer
