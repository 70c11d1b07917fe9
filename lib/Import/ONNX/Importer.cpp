//===- Importer.cpp - ONNX ModelProto to CGC Input IR ----------------------===//
//
// The model-level work: parse and check the ModelProto, pick the opset,
// specialize the graph inputs' shapes, order the nodes topologically (and
// find cycles and undefined values), drop nodes no output depends on, then
// convert node by node and check the result against the declared outputs and
// ONNX's own shape inference.
//
//===----------------------------------------------------------------------===//

#include "cgc/Import/ONNX.h"

#include "GeluFusion.h"
#include "Literal.h"
#include "NodeContext.h"
#include "ProjectionFusion.h"
#include "ONNXShapeInference.h"
#include "SplitModel.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include <google/protobuf/io/coded_stream.h>

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>
#include <optional>
#include <queue>

namespace cgc::importer {

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 21;

/// The op converters, by op type.
const llvm::StringMap<Converter> &getConverters() {
  static const llvm::StringMap<Converter> converters = [] {
    llvm::StringMap<Converter> table;
    registerElementwiseConverters(table);
    registerNeuralNetworkConverters(table);
    registerShapeConverters(table);
    registerReductionConverters(table);
    registerIndexingConverters(table);
    registerMathConverters(table);
    registerEinsumConverters(table);
    registerRecurrentConverters(table);
    registerQuantizationConverters(table);
    registerSignalConverters(table);
    return table;
  }();
  return converters;
}

/// The raw_data cut out of initializers before parsing (SplitModel.h), by
/// initializer.
using CutRawData = llvm::DenseMap<const onnx::TensorProto *, RawData>;

class ModelImporter {
public:
  ModelImporter(onnx::ModelProto &model, CutRawData cutRawData, std::string sourceName,
                std::string directory, mlir::MLIRContext &context, const ImportOptions &options)
      : model(model), graph(*model.mutable_graph()), cutRawData(std::move(cutRawData)),
        sourceName(std::move(sourceName)), directory(std::move(directory)), context(context),
        options(options), builder(&context), state(context, builder) {}

  llvm::Expected<ImportedModel> run();

private:
  llvm::Error readOpset();
  llvm::Error resolveInputs();
  void runONNXShapeInference();
  llvm::Error orderNodes();
  void findLiveNodes();
  llvm::Error convertNodes();
  llvm::Error convertNode(unsigned index);
  llvm::Error checkAgainstONNX(const NodeContext &node);
  llvm::Expected<mlir::Value> getOutputValue(const onnx::ValueInfoProto &output);

  /// Puts the cut raw_data back into the initializers, for libonnx's
  /// rewrites, which read and replace the whole model.
  void restoreRawData();

  onnx::ModelProto &model;
  onnx::GraphProto &graph;
  CutRawData cutRawData;
  std::string sourceName;
  std::string directory;
  mlir::MLIRContext &context;
  const ImportOptions &options;
  mlir::OpBuilder builder;
  GraphState state;

  int64_t opset = 0;
  /// Graph inputs that are entry point arguments: name, ONNX type, shape.
  struct Argument {
    std::string name;
    int32_t type;
    std::vector<int64_t> shape;
  };
  std::vector<Argument> arguments;
  llvm::StringMap<onnx::TensorProto *> initializers;
  /// Graph inputs that ImportOptions::inputValues binds.
  llvm::StringMap<Literal> boundInputs;
  std::vector<unsigned> order;
  std::vector<bool> live;
  llvm::StringMap<InferredShape> inferred;
};

/// What ONNX's version converter gets wrong when it lifts a model to opset
/// 7, fixed on the model before it runs (`model` has ONNX's inferred shapes):
///  * legacy broadcasting (`broadcast=1`) of B along `axis` aligns B's
///    dimensions with A's from `axis` on; the converter appends
///    rank(A) - rank(B) ones to B instead of rank(A) - axis - rank(B).
///    Initializer Bs get the right trailing ones and lose `axis`.
///  * PRelu applies a 1-D slope of C values per channel (axis 1, what
///    Caffe2 and PyTorch's exporter meant), where opset 7 broadcasts it
///    numpy-style; the converter keeps the slope as is. Such slope
///    initializers become C x 1 x ... x 1.
/// An initializer that other nodes also read is copied first. Fails on a
/// legacy axis broadcast of a computed B, which the converter would get wrong.
llvm::Error applyLegacyBroadcasts(onnx::ModelProto &model, const std::string &sourceName) {
  onnx::GraphProto &graph = *model.mutable_graph();
  std::map<std::string, int64_t> ranks;
  std::map<std::string, int64_t> channels;
  for (const auto *values : {&graph.input(), &graph.value_info(), &graph.output()})
    for (const onnx::ValueInfoProto &value : *values)
      if (value.type().tensor_type().has_shape()) {
        const onnx::TensorShapeProto &shape = value.type().tensor_type().shape();
        ranks[value.name()] = shape.dim_size();
        if (shape.dim_size() >= 2 && shape.dim(1).has_dim_value())
          channels[value.name()] = shape.dim(1).dim_value();
      }
  for (const onnx::TensorProto &initializer : graph.initializer())
    ranks.emplace(initializer.name(), initializer.dims_size());
  std::map<std::string, int> uses;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &input : node.input())
      ++uses[input];
  // The initializer input `i` of `node`, copied when others read it too.
  auto ownInitializer = [&](onnx::NodeProto &node, int i) -> onnx::TensorProto * {
    for (int k = 0; k < graph.initializer_size(); ++k) {
      if (graph.initializer(k).name() != node.input(i))
        continue;
      if (uses[node.input(i)] == 1)
        return graph.mutable_initializer(k);
      onnx::TensorProto *copy = graph.add_initializer();
      copy->CopyFrom(graph.initializer(k));
      copy->set_name(node.input(i) + "." + node.name() + ".opset7");
      node.set_input(i, copy->name());
      return copy;
    }
    return nullptr;
  };
  for (int index = 0; index < graph.node_size(); ++index) {
    onnx::NodeProto &node = *graph.mutable_node(index);
    if (node.input_size() != 2)
      continue;
    if (node.op_type() == "PRelu") {
      auto channel = channels.find(node.input(0));
      if (channel == channels.end())
        continue;
      onnx::TensorProto *slope = ownInitializer(node, 1);
      if (slope && slope->dims_size() == 1 && slope->dims(0) != 1 &&
          slope->dims(0) == channel->second)
        for (int64_t i = 2; i < ranks[node.input(0)]; ++i)
          slope->add_dims(1);
      continue;
    }
    const onnx::AttributeProto *broadcast = nullptr, *axis = nullptr;
    int axisIndex = -1;
    for (int a = 0; a < node.attribute_size(); ++a) {
      if (node.attribute(a).name() == "broadcast")
        broadcast = &node.attribute(a);
      if (node.attribute(a).name() == "axis") {
        axis = &node.attribute(a);
        axisIndex = a;
      }
    }
    if (!broadcast || !broadcast->i() || !axis || !ranks.count(node.input(0)) ||
        !ranks.count(node.input(1)))
      continue;
    int64_t rankA = ranks[node.input(0)], rankB = ranks[node.input(1)];
    int64_t start = axis->i() < 0 ? axis->i() + rankA : axis->i();
    if (start + rankB == rankA)
      continue; // aligned at the end: what numpy broadcasting does
    onnx::TensorProto *b = ownInitializer(node, 1);
    if (!b || start < 0 || start + rankB > rankA || b->dims_size() != rankB)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          sourceName + ": node " + std::to_string(index) + " '" + node.name() + "' (" +
              node.op_type() + "): legacy broadcasting along axis " + std::to_string(axis->i()) +
              " of a rank-" + std::to_string(rankB) + " value that is not an initializer onto "
              "rank " + std::to_string(rankA) + " is not supported");
    for (int64_t i = start + rankB; i < rankA; ++i)
      b->add_dims(1);
    node.mutable_attribute()->DeleteSubrange(axisIndex, 1);
  }
  return llvm::Error::success();
}

llvm::Error ModelImporter::readOpset() {
  std::optional<int64_t> version;
  for (const onnx::OperatorSetIdProto &import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx")
      version = import.version();
  if (!version) {
    for (int index = 0; index < graph.node_size(); ++index)
      if (graph.node(index).domain() == "ai.onnx.preview.training")
        return NodeContext(state, graph.node(index), index, 0)
            .error("out of scope: a training op (the importer handles inference graphs)");
    return makeError(sourceName + ": the model imports no version of the default ONNX opset");
  }
  if (*version > kMaxOpset || *version < 1)
    return makeError(sourceName + ": opset " + llvm::Twine(*version) +
                     " is not supported (the importer handles opsets " + llvm::Twine(kMinOpset) +
                     " to " + llvm::Twine(kMaxOpset) + ")");
  opset = *version;
  if (opset >= kMinOpset)
    return llvm::Error::success();
  // An older model imports when none of its ops changed between its opset
  // and opset 7: it then means what the same graph means at opset 7.
  const onnx::OpSchemaRegistry *registry = onnx::OpSchemaRegistry::Instance();
  std::optional<int> changed;
  for (int index = 0; index < graph.node_size() && !changed; ++index) {
    const onnx::NodeProto &node = graph.node(index);
    const onnx::OpSchema *old = registry->GetSchema(node.op_type(), static_cast<int>(opset));
    const onnx::OpSchema *current = registry->GetSchema(node.op_type(), kMinOpset);
    if (!old || !current || old->since_version() != current->since_version())
      changed = index;
  }
  if (!changed) {
    opset = kMinOpset;
    return llvm::Error::success();
  }
  // Otherwise ONNX's version converter rewrites the graph as opset 7 (legacy
  // `broadcast`/`axis` attributes become numpy broadcasting, BatchNorm loses
  // `is_test`, ...), or says why it cannot.
  // libonnx trusts the models it rewrites, so both steps run sandboxed.
  restoreRawData();
  std::string reason;
  std::optional<onnx::ModelProto> inferred = transformWithONNX(
      model, [](onnx::ModelProto &copy) { onnx::shape_inference::InferShapes(copy); }, reason);
  if (inferred) {
    // The converter's adapters need the shapes of their inputs.
    if (llvm::Error error = applyLegacyBroadcasts(*inferred, sourceName))
      return error;
    std::optional<onnx::ModelProto> converted = transformWithONNX(
        *inferred,
        [](onnx::ModelProto &copy) {
          copy = onnx::version_conversion::ConvertVersion(copy, kMinOpset);
        },
        reason);
    if (converted) {
      // `graph` refers to the model's graph message: copy into it in place.
      graph.CopyFrom(converted->graph());
      model.mutable_opset_import()->CopyFrom(converted->opset_import());
      opset = kMinOpset;
      return llvm::Error::success();
    }
  }
  const onnx::NodeProto &node = graph.node(*changed);
  return makeError(sourceName + ": opset " + llvm::Twine(opset) +
                   " is not supported (the importer handles opsets " + llvm::Twine(kMinOpset) +
                   " to " + llvm::Twine(kMaxOpset) + "), node " + llvm::Twine(*changed) + " (" +
                   node.op_type() + ") changed meaning before opset " + llvm::Twine(kMinOpset) +
                   ", and ONNX's version converter failed: " + reason);
}

void ModelImporter::restoreRawData() {
  for (onnx::TensorProto &initializer : *graph.mutable_initializer())
    if (auto cut = cutRawData.find(&initializer); cut != cutRawData.end())
      initializer.set_raw_data(cut->second.bytes.data(), cut->second.bytes.size());
  cutRawData.clear();
}

llvm::Error ModelImporter::resolveInputs() {
  for (onnx::TensorProto &initializer : *graph.mutable_initializer()) {
    if (initializer.name().empty())
      return makeError(sourceName + ": an initializer has no name");
    if (!initializers.try_emplace(initializer.name(), &initializer).second)
      return makeError(sourceName + ": initializer '" + initializer.name() +
                       "' is defined twice");
  }
  if (graph.sparse_initializer_size())
    return makeError(sourceName + ": sparse initializers ('" +
                     graph.sparse_initializer(0).values().name() + "') are not supported");

  llvm::StringSet<> shapesUsed;
  for (onnx::ValueInfoProto &input : *graph.mutable_input()) {
    // Inputs with an initializer of the same name are weights (IR version < 4).
    if (initializers.contains(input.name()))
      continue;
    std::string what = "graph input '" + input.name() + "'";
    if (auto bound = options.inputValues.find(input.name()); bound != options.inputValues.end()) {
      shapesUsed.insert(input.name());
      const cgc::runtime::HostTensor &tensor = bound->second;
      std::optional<uint64_t> count = getElementCount(tensor.shape);
      if (!count || *count * cgc::runtime::getByteWidth(tensor.dtype) != tensor.data.size())
        return makeError(what + ": the bound value's data does not match its shape " +
                         formatShape(tensor.shape));
      boundInputs[input.name()] =
          Literal(getONNXTypeOf(tensor.dtype), tensor.shape, tensor.data);
      continue;
    }
    if (!input.type().has_tensor_type())
      return makeError(what + " is not a tensor (sequence, map and optional inputs are out of "
                              "scope)");
    const onnx::TypeProto_Tensor &tensorType = input.type().tensor_type();
    int32_t type = tensorType.elem_type();
    if (!getDTypeOf(type))
      return makeError(what + " has element type " + getONNXTypeName(type) +
                       ", which CGC IR does not have");
    auto given = options.inputShapes.find(input.name());
    std::vector<int64_t> shape;
    if (given != options.inputShapes.end()) {
      shapesUsed.insert(input.name());
      shape = given->second;
      if (tensorType.has_shape()) {
        const onnx::TensorShapeProto &declared = tensorType.shape();
        if (declared.dim_size() != static_cast<int>(shape.size()))
          return makeError(what + " has rank " + llvm::Twine(declared.dim_size()) +
                           ", but --input-shape gives " + formatShape(shape));
        for (int i = 0; i < declared.dim_size(); ++i)
          if (declared.dim(i).has_dim_value() && declared.dim(i).dim_value() != shape[i])
            return makeError(what + " has dimension " + llvm::Twine(i) + " = " +
                             llvm::Twine(declared.dim(i).dim_value()) +
                             ", but --input-shape gives " + formatShape(shape));
      }
      for (int64_t dim : shape)
        if (dim < 0)
          return makeError(what + ": --input-shape " + formatShape(shape) +
                           " has a negative dimension");
    } else {
      if (!tensorType.has_shape())
        return makeError(what + " has no declared shape; give one with --input-shape " +
                         input.name() + "=...");
      for (int i = 0; i < tensorType.shape().dim_size(); ++i) {
        const onnx::TensorShapeProto_Dimension &dim = tensorType.shape().dim(i);
        if (!dim.has_dim_value() || dim.dim_value() < 0)
          return makeError(what + " has dynamic dimension " + llvm::Twine(i) +
                           (dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : std::string()) +
                           "; give its shape with --input-shape " + input.name() + "=...");
        shape.push_back(dim.dim_value());
      }
    }
    if (!getElementCount(shape))
      return makeError(what + ": shape " + formatShape(shape) + " is too large");
    // ONNX's shape inference sees the specialized shape too.
    onnx::TensorShapeProto *protoShape =
        input.mutable_type()->mutable_tensor_type()->mutable_shape();
    protoShape->clear_dim();
    for (int64_t dim : shape)
      protoShape->add_dim()->set_dim_value(dim);
    arguments.push_back({input.name(), type, std::move(shape)});
  }
  for (const auto &[name, value] : options.inputValues)
    if (!shapesUsed.contains(name))
      return makeError("a value is bound to '" + name + "', which is not a graph input");
  for (const auto &[name, shape] : options.inputShapes)
    if (!shapesUsed.contains(name)) {
      std::string known;
      for (const Argument &argument : arguments)
        known += (known.empty() ? "" : ", ") + argument.name;
      return makeError("--input-shape names '" + name + "', which is not a graph input (inputs: " +
                       (known.empty() ? std::string("none") : known) + ")");
    }
  return llvm::Error::success();
}

void ModelImporter::runONNXShapeInference() {
  if (!options.checkShapesWithONNX || opset > getONNXShapeInferenceMaxOpset())
    return;
  // A model ONNX cannot infer is still imported; the cross-check is skipped.
  if (std::optional<llvm::StringMap<InferredShape>> shapes = inferShapesWithONNX(model))
    inferred = std::move(*shapes);
}

llvm::Error ModelImporter::orderNodes() {
  unsigned numNodes = graph.node_size();
  llvm::StringMap<unsigned> producers;
  llvm::StringSet<> defined;
  for (const Argument &argument : arguments)
    defined.insert(argument.name);
  for (const auto &entry : boundInputs)
    defined.insert(entry.getKey());
  for (const auto &entry : initializers)
    defined.insert(entry.getKey());
  auto describeNode = [&](unsigned index) {
    const onnx::NodeProto &node = graph.node(index);
    return "node " + std::to_string(index) + (node.name().empty() ? "" : " '" + node.name() + "'") +
           " (" + node.op_type() + ")";
  };
  for (unsigned index = 0; index < numNodes; ++index)
    for (const std::string &output : graph.node(index).output()) {
      if (output.empty())
        continue;
      if (defined.contains(output))
        return makeError(describeNode(index) + ": output '" + output +
                         "' is already a graph input or initializer");
      auto [it, inserted] = producers.try_emplace(output, index);
      if (!inserted)
        return makeError(describeNode(index) + ": output '" + output +
                         "' is already defined by " + describeNode(it->second));
    }
  std::vector<unsigned> pending(numNodes, 0);
  std::vector<std::vector<unsigned>> consumers(numNodes);
  for (unsigned index = 0; index < numNodes; ++index) {
    const onnx::NodeProto &node = graph.node(index);
    for (const onnx::AttributeProto &attribute : node.attribute())
      if (attribute.has_g() || attribute.graphs_size())
        return makeError(describeNode(index) +
                         ": subgraph attributes (control flow) are not supported");
    for (const std::string &input : node.input()) {
      if (input.empty() || defined.contains(input))
        continue;
      auto it = producers.find(input);
      if (it == producers.end())
        return makeError(describeNode(index) + ": input '" + input +
                         "' is not defined by any node, initializer or graph input");
      ++pending[index];
      consumers[it->second].push_back(index);
    }
  }
  // Kahn's algorithm, taking ready nodes in file order.
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>> ready;
  for (unsigned index = 0; index < numNodes; ++index)
    if (!pending[index])
      ready.push(index);
  while (!ready.empty()) {
    unsigned index = ready.top();
    ready.pop();
    order.push_back(index);
    for (unsigned consumer : consumers[index])
      if (--pending[consumer] == 0)
        ready.push(consumer);
  }
  if (order.size() != numNodes)
    for (unsigned index = 0; index < numNodes; ++index)
      if (pending[index])
        return makeError(sourceName + ": the graph has a cycle through " + describeNode(index));
  for (const onnx::ValueInfoProto &output : graph.output())
    if (!defined.contains(output.name()) && !producers.contains(output.name()))
      return makeError(sourceName + ": graph output '" + output.name() +
                       "' is not defined by any node, initializer or graph input");
  return llvm::Error::success();
}

void ModelImporter::findLiveNodes() {
  live.assign(graph.node_size(), false);
  for (const onnx::ValueInfoProto &output : graph.output())
    state.usedNames.insert(output.name());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const onnx::NodeProto &node = graph.node(*it);
    for (const std::string &output : node.output())
      if (!output.empty() && state.usedNames.contains(output))
        live[*it] = true;
    if (live[*it])
      for (const std::string &input : node.input())
        if (!input.empty())
          state.usedNames.insert(input);
  }
}

llvm::Error ModelImporter::checkAgainstONNX(const NodeContext &node) {
  for (unsigned i = 0; i < node.getNumOutputs(); ++i) {
    const std::string &name = node.node.output(i);
    auto inferredIt = inferred.find(name);
    auto valueIt = state.values.find(name);
    if (inferredIt == inferred.end() || valueIt == state.values.end())
      continue;
    const ImportValue &value = valueIt->second;
    std::vector<int64_t> shape = value.literal ? value.literal->getShape().vec()
                                               : getTensorType(value.value).getShape().vec();
    if (shape != inferredIt->second.shape)
      return node.error("output '" + name + "' has shape " + formatShape(shape) +
                        ", but ONNX shape inference gives " +
                        formatShape(inferredIt->second.shape));
  }
  return llvm::Error::success();
}

llvm::Error ModelImporter::convertNode(unsigned index) {
  const onnx::NodeProto &proto = graph.node(index);
  NodeContext node(state, proto, index, opset);
  if (!proto.domain().empty() && proto.domain() != "ai.onnx")
    return node.error("domain '" + proto.domain() + "' is not supported (only the default "
                                                    "ONNX domain is)");
  for (const std::string &input : proto.input())
    if (!input.empty() && !state.values.count(input))
      return node.error("input '" + input + "' is not defined");

  // Nodes whose inputs are all known are evaluated, even op types that have
  // no layer (Floor, Mod, NonZero in shape computations).
  llvm::Expected<bool> folded = tryFold(node);
  if (!folded)
    return folded.takeError();
  if (!*folded) {
    const llvm::StringMap<Converter> &converters = getConverters();
    auto converter = converters.find(proto.op_type());
    if (converter == converters.end()) {
      std::string reason = getOutOfScopeReason(proto.op_type());
      return node.error(reason.empty() ? "op type '" + proto.op_type() + "' is not supported"
                                       : reason);
    }
    if (llvm::Error error = converter->second(node))
      return error;
  }
  for (unsigned i = 0; i < node.getNumOutputs(); ++i)
    if (node.isOutputUsed(i) && !state.values.count(proto.output(i)))
      return node.error("output " + llvm::Twine(i) + " '" + proto.output(i) +
                        "' is not produced by the importer");
  return checkAgainstONNX(node);
}

llvm::Error ModelImporter::convertNodes() {
  for (unsigned index : order)
    if (live[index])
      if (llvm::Error error = convertNode(index))
        return error;
  return llvm::Error::success();
}

llvm::Expected<mlir::Value> ModelImporter::getOutputValue(const onnx::ValueInfoProto &output) {
  std::string what = "graph output '" + output.name() + "'";
  auto it = state.values.find(output.name());
  if (it == state.values.end())
    return makeError(what + " is not defined");
  ImportValue &value = it->second;
  if (!value.value) {
    llvm::Expected<mlir::Value> constant =
        state.materialize(*value.literal, state.getConstantNameFor(output.name()),
                          mlir::NameLoc::get(builder.getStringAttr(output.name())));
    if (!constant)
      return makeError(what + ": " + llvm::toString(constant.takeError()));
    value.value = *constant;
  }
  cgc::TensorType type = getTensorType(value.value);
  if (output.type().has_tensor_type()) {
    const onnx::TypeProto_Tensor &declared = output.type().tensor_type();
    int32_t actualType = getONNXTypeOf(*getDTypeOf(type.getElementType()));
    if (declared.elem_type() != kUndefined && declared.elem_type() != actualType)
      return makeError(what + " is declared as " + getONNXTypeName(declared.elem_type()) +
                       ", but the graph computes " + getONNXTypeName(actualType));
    if (declared.has_shape()) {
      bool matches = declared.shape().dim_size() == static_cast<int>(type.getRank());
      for (int i = 0; matches && i < declared.shape().dim_size(); ++i)
        if (declared.shape().dim(i).has_dim_value() &&
            declared.shape().dim(i).dim_value() != type.getShape()[i])
          matches = false;
      if (!matches) {
        std::string declaredText;
        for (int i = 0; i < declared.shape().dim_size(); ++i) {
          const onnx::TensorShapeProto_Dimension &dim = declared.shape().dim(i);
          declaredText += (i ? "x" : "") + (dim.has_dim_value() ? std::to_string(dim.dim_value())
                                                                : std::string("?"));
        }
        return makeError(what + " is declared with shape " +
                         (declaredText.empty() ? std::string("scalar") : declaredText) +
                         ", but the graph computes " + formatShape(type.getShape()));
      }
    }
  } else if (output.has_type()) {
    return makeError(what + " is not a tensor (sequence, map and optional outputs are out of "
                            "scope)");
  }
  return value.value;
}

llvm::Expected<ImportedModel> ModelImporter::run() {
  if (!model.has_graph())
    return makeError(sourceName + ": the model has no graph");
  if (llvm::Error error = readOpset())
    return std::move(error);
  if (model.functions_size())
    for (const onnx::NodeProto &node : graph.node())
      for (const onnx::FunctionProto &function : model.functions())
        if (node.op_type() == function.name() && node.domain() == function.domain())
          return makeError(sourceName + ": node '" + node.name() + "' calls the model-local "
                                                                   "function '" +
                           function.name() + "', which is not supported");
  if (llvm::Error error = resolveInputs())
    return std::move(error);
  if (llvm::Error error = orderNodes())
    return std::move(error);
  findLiveNodes();
  // Ops that are out of scope fail first, whatever feeds them.
  for (unsigned index : order) {
    const onnx::NodeProto &node = graph.node(index);
    std::string reason = getOutOfScopeReason(node.op_type());
    if (live[index] && llvm::StringRef(reason).starts_with("out of scope"))
      return NodeContext(state, node, index, opset).error(reason);
  }
  runONNXShapeInference();

  // Every ONNX name is taken, so generated constant names never collide.
  for (const auto &entry : initializers)
    state.takenNames.insert(entry.getKey());
  for (const Argument &argument : arguments)
    state.takenNames.insert(argument.name);
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &output : node.output())
      state.takenNames.insert(output);

  for (const auto &entry : boundInputs)
    state.values[entry.getKey()] = ImportValue{entry.getValue(), {}};
  for (auto &entry : initializers) {
    if (!state.usedNames.contains(entry.getKey()))
      continue;
    auto cut = cutRawData.find(entry.getValue());
    llvm::Expected<Literal> literal =
        decodeTensor(*entry.getValue(), directory, "initializer '" + entry.getKey().str() + "'",
                     cut == cutRawData.end() ? nullptr : &cut->second);
    if (!literal)
      return literal.takeError();
    state.values[entry.getKey()] = ImportValue{std::move(*literal), {}};
  }

  // Diagnostics of layers that reject their operands become import errors.
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diagnostic) {
    state.diagnostics += diagnostic.str() + "\n";
    return mlir::success();
  });

  mlir::Location location = mlir::FileLineColLoc::get(&context, sourceName, 0, 0);
  ImportedModel imported;
  imported.module = cgc::ModuleOp::create(builder, location);
  builder.setInsertionPointToStart(imported.module->getBodyBlock());
  llvm::SmallVector<mlir::Type> argumentTypes;
  for (const Argument &argument : arguments)
    argumentTypes.push_back(cgc::TensorType::get(
        &context, argument.shape, getElementType(context, *getDTypeOf(argument.type))));
  auto entryPoint = cgc::EntryPointOp::create(builder, location, options.entryPointName,
                                              builder.getFunctionType(argumentTypes, {}));
  mlir::Block &body = entryPoint.getBody().front();
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    state.values[argument.name] = ImportValue{std::nullopt, body.getArgument(index)};
    entryPoint.setArgAttr(index, kNameAttrName, builder.getStringAttr(argument.name));
    imported.inputNames.push_back(argument.name);
  }
  builder.setInsertionPointToEnd(&body);

  if (llvm::Error error = convertNodes())
    return std::move(error);

  llvm::SmallVector<mlir::Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    llvm::Expected<mlir::Value> value = getOutputValue(output);
    if (!value)
      return value.takeError();
    results.push_back(*value);
    imported.outputNames.push_back(output.name());
  }
  if (results.empty())
    return makeError(sourceName + ": the graph has no outputs");
  cgc::ReturnOp::create(builder, location, results);
  // After the return, which reads the group's values like any layer.
  fuseErfGelu(body, state.weights);
  llvm::Expected<unsigned> packed = fuseSharedInputProjections(body, state);
  if (!packed)
    return packed.takeError();
  state.dropUnreferencedWeights(body);
  entryPoint.setFunctionType(
      builder.getFunctionType(argumentTypes, mlir::ValueRange(results).getTypes()));
  for (auto [index, name] : llvm::enumerate(imported.outputNames))
    entryPoint.setResultAttr(index, kNameAttrName, builder.getStringAttr(name));

  state.diagnostics.clear();
  if (mlir::failed(mlir::verify(*imported.module)))
    return makeError(sourceName + ": the imported IR does not verify: " + state.diagnostics);
  imported.weights = std::move(state.weights);
  return imported;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

namespace {

/// Imports the serialized ModelProto `bytes`; `owner`, when given, keeps
/// them alive, and the weights then share them instead of copying.
llvm::Expected<ImportedModel> importModel(llvm::ArrayRef<uint8_t> bytes,
                                          std::shared_ptr<const void> owner,
                                          llvm::StringRef sourceName,
                                          llvm::StringRef externalDataDirectory,
                                          mlir::MLIRContext &context,
                                          const ImportOptions &options) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return makeError(sourceName + ": the model is larger than 2 GiB; store its weights as "
                                  "external data");
  auto parse = [](llvm::ArrayRef<uint8_t> serialized, onnx::ModelProto &model) {
    google::protobuf::io::CodedInputStream stream(serialized.data(),
                                                  static_cast<int>(serialized.size()));
    stream.SetTotalBytesLimit(INT_MAX);
    return model.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
  };
  // Large initializers' raw_data stays in `bytes`; protobuf parses the rest.
  onnx::ModelProto model;
  CutRawData cutRawData;
  std::optional<SplitModel> split = splitModel(bytes);
  if (split) {
    llvm::ArrayRef<uint8_t> remainder(reinterpret_cast<const uint8_t *>(split->remainder.data()),
                                      split->remainder.size());
    if (parse(remainder, model) &&
        static_cast<size_t>(model.graph().initializer_size()) == split->rawData.size()) {
      for (auto [index, data] : llvm::enumerate(split->rawData))
        if (data)
          cutRawData[&model.graph().initializer(index)] = RawData{*data, owner};
    } else {
      split.reset();
      model.Clear();
    }
  }
  if (!split && !parse(bytes, model))
    return makeError(sourceName + ": not a valid ONNX model (the protobuf is truncated or "
                                  "corrupt)");
  context.loadDialect<cgc::CGCDialect>();
  context.getOrLoadDialect("cgc_op");
  if (!context.getLoadedDialect("cgc_op"))
    return makeError("the MLIR context does not have the cgc_op dialect registered");
  return ModelImporter(model, std::move(cutRawData), sourceName.str(),
                       externalDataDirectory.str(), context, options)
      .run();
}

} // namespace

llvm::Expected<ImportedModel> importONNXBytes(llvm::ArrayRef<uint8_t> bytes,
                                              llvm::StringRef sourceName,
                                              llvm::StringRef externalDataDirectory,
                                              mlir::MLIRContext &context,
                                              const ImportOptions &options) {
  // The caller's bytes: weights cut out of them are copied.
  return importModel(bytes, nullptr, sourceName, externalDataDirectory, context, options);
}

llvm::Expected<ImportedModel> importONNXFile(llvm::StringRef path, mlir::MLIRContext &context,
                                             const ImportOptions &options) {
  // Mapped (for all but small files), and kept mapped by the weights that
  // point into it.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path + ": cannot read the model: " + buffer.getError().message());
  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  if (directory.empty())
    directory = ".";
  std::shared_ptr<const llvm::MemoryBuffer> file = std::move(*buffer);
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(file->getBufferStart()),
                                file->getBufferSize());
  return importModel(bytes, std::move(file), path, directory, context, options);
}

llvm::Error parseInputShapeOption(llvm::StringRef spec, ImportOptions &options) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || dims.empty() || spec.find('=') == llvm::StringRef::npos)
    return makeError("--input-shape '" + spec + "': expected NAME=DIMS, e.g. input=1x3x224x224");
  std::vector<int64_t> shape;
  if (dims != "scalar") {
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t dim = 0;
      if (part.getAsInteger(10, dim) || dim < 0)
        return makeError("--input-shape '" + spec + "': '" + part +
                         "' is not a non-negative dimension");
      shape.push_back(dim);
    }
  }
  if (!options.inputShapes.emplace(name.str(), std::move(shape)).second)
    return makeError("--input-shape '" + spec + "': '" + name + "' is given twice");
  return llvm::Error::success();
}

} // namespace cgc::importer
