//===- ONNX.h - import ONNX models as CGC Input IR --------------*- C++ -*-===//
//
// Reads an ONNX ModelProto (opsets 7 to 21 of the default domain) and builds
// CGC Input IR: one `cgc.entry_point` whose arguments are the graph inputs that
// are not initializers and whose results are the graph outputs, each carrying
// its ONNX name as the `cgc.name` argument / result attribute. Initializers and
// the tensors of Constant nodes become named `cgc.constant`s; their bytes are
// returned beside the IR (and written to a safetensors file), never put into
// the IR text.
//
//   mlir::MLIRContext context;               // with the cgc dialects loaded
//   cgc::importer::ImportOptions options;
//   options.inputShapes["input.1"] = {1, 3, 224, 224};
//   llvm::Expected<cgc::importer::ImportedModel> model =
//       cgc::importer::importONNXFile("model.onnx", context, options);
//   if (!model) ... llvm::toString(model.takeError()) ...
//   llvm::Error written = model->write("model.mlir", cgc::importer::EmitFormat::Text);
//
// Shapes are static: dynamic input dimensions are specialized from
// `inputShapes`, every other shape follows from the layers' type inference
// (cross-checked against ONNX's own shape inference), and subgraphs that only
// compute on shapes and constants are folded at import. Errors name the node
// (index and name), its op type and what is missing.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_IMPORT_ONNX_H
#define CGC_IMPORT_ONNX_H

#include "Runtime/Weights.h"
#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Runtime/Tensor.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cgc::importer {

/// The attribute holding an entry point argument's or result's ONNX name.
inline constexpr llvm::StringLiteral kNameAttrName = "cgc.name";

/// How to import a model.
struct ImportOptions {
  /// Static shapes for graph inputs, by ONNX name (`--input-shape
  /// name=1x3x224x224`). A given shape replaces the declared one, whose
  /// static dimensions it must match; a graph input with a dynamic dimension
  /// and no entry here is an error.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Graph inputs bound to known values at import, by ONNX name: they become
  /// constants (and feed folding, e.g. a Reshape's shape given as an input)
  /// instead of entry point arguments.
  std::map<std::string, cgc::runtime::HostTensor> inputValues;
  /// The symbol of the entry point.
  std::string entryPointName = "main";
  /// Compare every statically known shape that ONNX's shape inference finds
  /// with the imported one, and fail on a difference (models of opsets that
  /// the linked libonnx knows only).
  bool checkShapesWithONNX = true;
};

/// How `ImportedModel::write` writes the IR.
enum class EmitFormat { Text, Bytecode, Container };

/// An imported model: Input IR and the bytes of its named constants.
struct ImportedModel {
  mlir::OwningOpRef<cgc::ModuleOp> module;
  /// Every constant the IR names, by name. Initializers are not copied: an
  /// imported file's stay in it, mapped for as long as a weight refers to
  /// them (the file must not change meanwhile).
  std::map<std::string, cgc::runtime::SharedTensor> weights;
  /// The ONNX names of the entry point's arguments and results, in order.
  std::vector<std::string> inputNames, outputNames;

  /// Writes the IR to `path` ("-": stdout) in `format`; a container is
  /// sealed as CGC_INPUT after verification.
  llvm::Error writeIR(llvm::StringRef path, EmitFormat format) const;
  /// Writes the weights to `path` as safetensors.
  llvm::Error writeWeights(llvm::StringRef path) const;
  /// Writes the IR to `path` and, when there are weights, the safetensors
  /// file beside it (`getWeightsPathFor(path)`).
  llvm::Error write(llvm::StringRef path, EmitFormat format) const;
};

/// Where `ImportedModel::write` puts the weights of IR written to `irPath`:
/// the same path with the extension replaced by `.safetensors`.
std::string getWeightsPathFor(llvm::StringRef irPath);

/// Imports the model file at `path`; external data files are resolved
/// relative to its directory.
llvm::Expected<ImportedModel> importONNXFile(llvm::StringRef path, mlir::MLIRContext &context,
                                             const ImportOptions &options);

/// Imports a serialized ModelProto held in memory. `sourceName` names it in
/// errors; `externalDataDirectory` is where external data files are looked
/// up (empty: a model with external data is an error).
llvm::Expected<ImportedModel> importONNXBytes(llvm::ArrayRef<uint8_t> bytes,
                                              llvm::StringRef sourceName,
                                              llvm::StringRef externalDataDirectory,
                                              mlir::MLIRContext &context,
                                              const ImportOptions &options);

/// Parses `name=1x3x224x224` (a scalar is `name=scalar`) into `options`.
llvm::Error parseInputShapeOption(llvm::StringRef spec, ImportOptions &options);

} // namespace cgc::importer

#endif // CGC_IMPORT_ONNX_H
