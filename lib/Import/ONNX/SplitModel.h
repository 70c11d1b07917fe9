//===- SplitModel.h - a serialized model without its large weights -*- C++ -*-===//
//
// Protobuf copies every bytes field it parses: a model whose weights are
// inline (raw_data of its initializers) would be copied whole before the
// importer sees a node. The importer therefore walks the ModelProto's wire
// format first, down to the graph's initializers, and cuts the raw_data of
// large ones out: protobuf parses what remains (the graph, small tensors),
// and the weights stay where they are, in the mapped model file.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_IMPORT_ONNX_SPLITMODEL_H
#define CGC_LIB_IMPORT_ONNX_SPLITMODEL_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cgc::importer {

/// Initializers whose raw_data holds fewer bytes stay in the message: the
/// values ONNX's shape inference reads (a Reshape's shape, Slice's starts,
/// Resize's scales) are far smaller.
inline constexpr uint64_t kMinSplitBytes = 64 * 1024;

/// A ModelProto with the raw_data of its large initializers cut out.
struct SplitModel {
  /// The ModelProto without them.
  std::string remainder;
  /// For each initializer of the graph, in the order protobuf parses them,
  /// the raw_data cut out of it (nullopt: it kept its own).
  std::vector<std::optional<llvm::ArrayRef<uint8_t>>> rawData;
};

/// Cuts the raw_data fields of at least `minBytes` out of the initializers
/// of the serialized ModelProto `bytes` (pointing into `bytes`). Nullopt
/// when there is none, or when `bytes` is not well-formed wire format down
/// to the initializers (protobuf then parses the whole and reports it).
std::optional<SplitModel> splitModel(llvm::ArrayRef<uint8_t> bytes,
                                     uint64_t minBytes = kMinSplitBytes);

} // namespace cgc::importer

#endif // CGC_LIB_IMPORT_ONNX_SPLITMODEL_H
