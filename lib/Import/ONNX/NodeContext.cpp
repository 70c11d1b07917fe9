//===- NodeContext.cpp - inputs, outputs, attributes and layers of a node --===//

#include "NodeContext.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "onnx/onnx_pb.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>

namespace cgc::importer {

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The double of the shortest decimal that rounds to `value`.
double widenFloat(float value) {
  char text[32];
  std::to_chars_result result = std::to_chars(text, text + sizeof(text), value);
  return std::strtod(std::string(text, result.ptr).c_str(), nullptr);
}
} // namespace

//===----------------------------------------------------------------------===//
// GraphState
//===----------------------------------------------------------------------===//

std::string GraphState::makeUniqueName(llvm::StringRef base) {
  std::string name = base.str();
  for (unsigned suffix = 1;
       takenNames.contains(name) || constantNames.contains(name) || name == "__metadata__";
       ++suffix)
    name = (base + "_" + llvm::Twine(suffix)).str();
  takenNames.insert(name);
  return name;
}

std::string GraphState::getConstantNameFor(llvm::StringRef valueName) {
  if (constantNames.contains(valueName) || valueName == "__metadata__" || valueName.empty())
    return makeUniqueName(valueName.empty() ? "constant" : valueName);
  return valueName.str();
}

llvm::Expected<mlir::Value> GraphState::materialize(const Literal &literal, llvm::StringRef name,
                                                    mlir::Location loc) {
  std::optional<cgc::runtime::DType> dtype = getDTypeOf(literal.getType());
  if (!dtype)
    return makeError("constant '" + name + "' has element type " +
                     getONNXTypeName(literal.getType()) + ", which CGC IR does not have");
  auto type = cgc::TensorType::get(&context, literal.getShape(), getElementType(context, *dtype),
                                   /*isConstant=*/true);
  // A small literal equal to an earlier one (type, shape and bytes) takes
  // its name: exporters write a model's scalars (an attention mask's 0 and
  // -inf, GELU's 0.5) once per layer, and layers reading one constant are
  // equal, so the compiler computes them once (cgc-merge-common-layers).
  std::string sharedName = name.str();
  llvm::ArrayRef<std::byte> bytes = literal.getBytes();
  if (bytes.size() <= kSharedLiteralBytes) {
    std::string key = std::to_string(literal.getType()) + ":";
    for (int64_t dim : literal.getShape())
      key += std::to_string(dim) + "x";
    key.append(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    auto [found, inserted] = smallLiteralNames.try_emplace(key, sharedName);
    if (!inserted)
      sharedName = found->second;
  }
  auto constant = cgc::ConstantOp::create(builder, loc, type, builder.getStringAttr(sharedName));
  constantNames.insert(sharedName);
  if (!weights.count(sharedName))
    weights[sharedName] = literal.toSharedTensor();
  return constant.getResult();
}

void GraphState::dropUnreferencedWeights(mlir::Block &body) {
  llvm::StringSet<> named;
  body.walk([&](cgc::ConstantOp constant) { named.insert(constant.getName()); });
  for (auto it = weights.begin(); it != weights.end();)
    it = named.contains(it->first) ? std::next(it) : weights.erase(it);
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphState &state, const onnx::NodeProto &node, unsigned index,
                         int64_t opset)
    : node(node), index(index), opset(opset), state(state),
      loc(mlir::NameLoc::get(state.builder.getStringAttr(
          node.name().empty() ? (node.output_size() ? node.output(0) : node.op_type())
                              : node.name()))) {}

std::string NodeContext::describe() const {
  std::string text = "node " + std::to_string(index);
  if (!node.name().empty())
    text += " '" + node.name() + "'";
  return text + " (" + node.op_type() + ")";
}

llvm::Error NodeContext::error(const llvm::Twine &message) const {
  return makeError(describe() + ": " + message);
}

llvm::Error NodeContext::buildError(llvm::StringRef opName) const {
  std::string detail = state.diagnostics;
  while (!detail.empty() && detail.back() == '\n')
    detail.pop_back();
  return error("cannot build '" + opName + "': " +
               (detail.empty() ? std::string("its operands or attributes are invalid") : detail));
}

unsigned NodeContext::getNumInputs() const { return node.input_size(); }

bool NodeContext::hasInput(unsigned i) const {
  return i < static_cast<unsigned>(node.input_size()) && !node.input(i).empty();
}

const ImportValue *NodeContext::findInput(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  auto it = state.values.find(node.input(i));
  return it == state.values.end() ? nullptr : &it->second;
}

const Literal *NodeContext::getLiteral(unsigned i) const {
  const ImportValue *value = findInput(i);
  return value && value->literal ? &*value->literal : nullptr;
}

llvm::Expected<const Literal *> NodeContext::requireLiteral(unsigned i,
                                                            llvm::StringRef what) const {
  if (!hasInput(i))
    return error(what + " (input " + llvm::Twine(i) + ") is missing");
  if (const Literal *literal = getLiteral(i))
    return literal;
  return error(what + " (input " + llvm::Twine(i) + " '" + node.input(i) +
               "') must be a constant or computable at import time");
}

llvm::Expected<mlir::Value> NodeContext::getValue(unsigned i) {
  if (!hasInput(i))
    return error("input " + llvm::Twine(i) + " is missing");
  auto it = state.values.find(node.input(i));
  if (it == state.values.end())
    return error("input '" + node.input(i) + "' is not defined");
  ImportValue &value = it->second;
  if (!value.value) {
    llvm::Expected<mlir::Value> constant =
        state.materialize(*value.literal, state.getConstantNameFor(node.input(i)), loc);
    if (!constant)
      return error(llvm::toString(constant.takeError()));
    value.value = *constant;
  }
  return value.value;
}

int32_t NodeContext::getInputType(unsigned i) const {
  const ImportValue *value = findInput(i);
  if (!value)
    return kUndefined;
  if (value->literal)
    return value->literal->getType();
  return getONNXTypeOf(*getDTypeOf(getTensorType(value->value).getElementType()));
}

std::vector<int64_t> NodeContext::getInputShape(unsigned i) const {
  const ImportValue *value = findInput(i);
  if (!value)
    return {};
  if (value->literal)
    return value->literal->getShape().vec();
  return getTensorType(value->value).getShape().vec();
}

bool NodeContext::allInputsKnown() const {
  for (unsigned i = 0; i < getNumInputs(); ++i)
    if (hasInput(i) && !getLiteral(i))
      return false;
  return true;
}

unsigned NodeContext::getNumOutputs() const { return node.output_size(); }

bool NodeContext::isOutputUsed(unsigned i) const {
  return i < static_cast<unsigned>(node.output_size()) && !node.output(i).empty() &&
         state.usedNames.contains(node.output(i));
}

llvm::Error NodeContext::requireUnusedOutputsFrom(unsigned first, llvm::StringRef why) const {
  for (unsigned i = first; i < getNumOutputs(); ++i)
    if (isOutputUsed(i))
      return error("output " + llvm::Twine(i) + " '" + node.output(i) + "' (" + why +
                   ") is used, which is not implemented");
  return llvm::Error::success();
}

void NodeContext::setOutput(unsigned i, mlir::Value value) {
  if (i < static_cast<unsigned>(node.output_size()) && !node.output(i).empty())
    state.values[node.output(i)] = ImportValue{std::nullopt, value};
}

void NodeContext::setOutput(unsigned i, Literal literal) {
  if (i < static_cast<unsigned>(node.output_size()) && !node.output(i).empty())
    state.values[node.output(i)] = ImportValue{std::move(literal), {}};
}

void NodeContext::forwardInput(unsigned output, unsigned input) {
  if (const ImportValue *value = findInput(input); value && output < getNumOutputs() &&
                                                   !node.output(output).empty())
    state.values[node.output(output)] = *value;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *NodeContext::findAttribute(llvm::StringRef name) const {
  for (const onnx::AttributeProto &attribute : node.attribute())
    if (attribute.name() == name)
      return &attribute;
  return nullptr;
}

llvm::Expected<std::optional<int64_t>> NodeContext::getOptionalInt(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return std::nullopt;
  if (attribute->type() != onnx::AttributeProto_AttributeType_INT &&
      !(attribute->type() == onnx::AttributeProto_AttributeType_UNDEFINED && attribute->has_i()))
    return error("attribute '" + name + "' must be an int");
  return attribute->i();
}

llvm::Expected<int64_t> NodeContext::getInt(llvm::StringRef name, int64_t defaultValue) const {
  llvm::Expected<std::optional<int64_t>> value = getOptionalInt(name);
  if (!value)
    return value.takeError();
  return value->value_or(defaultValue);
}

llvm::Expected<std::optional<double>> NodeContext::getOptionalFloat(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return std::nullopt;
  if (attribute->type() != onnx::AttributeProto_AttributeType_FLOAT &&
      !(attribute->type() == onnx::AttributeProto_AttributeType_UNDEFINED && attribute->has_f()))
    return error("attribute '" + name + "' must be a float");
  return widenFloat(attribute->f());
}

llvm::Expected<double> NodeContext::getFloat(llvm::StringRef name, double defaultValue) const {
  llvm::Expected<std::optional<double>> value = getOptionalFloat(name);
  if (!value)
    return value.takeError();
  return value->value_or(defaultValue);
}

llvm::Expected<std::string> NodeContext::getString(llvm::StringRef name,
                                                   llvm::StringRef defaultValue) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return defaultValue.str();
  if (attribute->type() != onnx::AttributeProto_AttributeType_STRING &&
      !(attribute->type() == onnx::AttributeProto_AttributeType_UNDEFINED && attribute->has_s()))
    return error("attribute '" + name + "' must be a string");
  return attribute->s();
}

llvm::Expected<std::optional<std::vector<int64_t>>>
NodeContext::getInts(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return std::nullopt;
  if (attribute->type() != onnx::AttributeProto_AttributeType_INTS &&
      attribute->type() != onnx::AttributeProto_AttributeType_UNDEFINED)
    return error("attribute '" + name + "' must be a list of ints");
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

llvm::Expected<std::optional<std::vector<double>>>
NodeContext::getFloats(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return std::nullopt;
  if (attribute->type() != onnx::AttributeProto_AttributeType_FLOATS &&
      attribute->type() != onnx::AttributeProto_AttributeType_UNDEFINED)
    return error("attribute '" + name + "' must be a list of floats");
  std::vector<double> values;
  for (float value : attribute->floats())
    values.push_back(widenFloat(value));
  return values;
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

llvm::Expected<mlir::Value> NodeContext::getScalar(mlir::Type elementType, double value) {
  std::optional<cgc::runtime::DType> dtype = getDTypeOf(elementType);
  if (!dtype)
    return error("internal: scalar of a non-cgc element type");
  int32_t type = getONNXTypeOf(*dtype);
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", value);
  std::string name = "scalar." + std::string(cgc::runtime::getName(*dtype)) + "." + text;
  // One constant per type and value, shared by every node.
  auto it = state.values.find(name);
  if (it != state.values.end() && it->second.value)
    return it->second.value;
  if (state.takenNames.contains(name))
    name = state.makeUniqueName(name);
  else
    state.takenNames.insert(name);
  Literal literal = isONNXFloatType(type) ? Literal::fromDoubles(type, {}, {value})
                                          : Literal::fromInts(type, {}, {static_cast<int64_t>(value)});
  // Scalars live at the top of the entry block so that every node can share them.
  mlir::OpBuilder::InsertionGuard guard(state.builder);
  state.builder.setInsertionPointToStart(state.builder.getInsertionBlock());
  llvm::Expected<mlir::Value> constant = state.materialize(literal, name, loc);
  if (!constant)
    return error(llvm::toString(constant.takeError()));
  state.values[name] = ImportValue{literal, *constant};
  return *constant;
}

llvm::Expected<mlir::Value> NodeContext::getConstant(const Literal &literal,
                                                     llvm::StringRef purpose) {
  std::string base = (node.output_size() && !node.output(0).empty() ? node.output(0)
                                                                    : node.op_type()) +
                     "." + purpose.str();
  llvm::Expected<mlir::Value> constant =
      state.materialize(literal, state.makeUniqueName(base), loc);
  if (!constant)
    return error(llvm::toString(constant.takeError()));
  return *constant;
}

mlir::NamedAttribute NodeContext::namedI64(llvm::StringRef name, int64_t value) const {
  return state.builder.getNamedAttr(name, state.builder.getI64IntegerAttr(value));
}
mlir::NamedAttribute NodeContext::namedI64s(llvm::StringRef name,
                                            llvm::ArrayRef<int64_t> values) const {
  return state.builder.getNamedAttr(name, state.builder.getI64ArrayAttr(values));
}
mlir::NamedAttribute NodeContext::namedF64(llvm::StringRef name, double value) const {
  return state.builder.getNamedAttr(name, state.builder.getF64FloatAttr(value));
}
mlir::NamedAttribute NodeContext::namedF64s(llvm::StringRef name,
                                            llvm::ArrayRef<double> values) const {
  return state.builder.getNamedAttr(name, state.builder.getF64ArrayAttr(values));
}
mlir::NamedAttribute NodeContext::namedString(llvm::StringRef name, llvm::StringRef value) const {
  return state.builder.getNamedAttr(name, state.builder.getStringAttr(value));
}
mlir::NamedAttribute NodeContext::namedBool(llvm::StringRef name, bool value) const {
  return state.builder.getNamedAttr(name, state.builder.getBoolAttr(value));
}
mlir::NamedAttribute NodeContext::namedType(llvm::StringRef name, mlir::Type value) const {
  return state.builder.getNamedAttr(name, mlir::TypeAttr::get(value));
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

llvm::Expected<int64_t> normalizeAxis(const NodeContext &node, int64_t axis, int64_t rank,
                                      llvm::StringRef what) {
  if (axis < -rank || axis >= rank)
    return node.error(what + " " + llvm::Twine(axis) + " is out of range for rank " +
                      llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

std::optional<std::vector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                                    llvm::ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a != b && a != 1 && b != 1)
      return std::nullopt;
    result[i] = a == 1 ? b : a;
  }
  return result;
}

llvm::Expected<mlir::Value> reshapeTo(NodeContext &node, mlir::Value value,
                                      llvm::ArrayRef<int64_t> shape) {
  if (getTensorType(value).getShape() == shape)
    return value;
  return node.create<cgc::op::ReshapeOp>({value}, {node.namedI64s("shape", shape)});
}

llvm::Expected<std::optional<std::vector<int64_t>>>
getAxesOperand(const NodeContext &node, int64_t inputSinceOpset, unsigned inputIndex) {
  if (node.opset < inputSinceOpset)
    return node.getInts("axes");
  if (node.hasAttribute("axes"))
    return node.error("attribute 'axes' is not allowed from opset " +
                      llvm::Twine(inputSinceOpset) + " on; axes are an input");
  if (!node.hasInput(inputIndex))
    return std::nullopt;
  llvm::Expected<const Literal *> axes = node.requireLiteral(inputIndex, "axes");
  if (!axes)
    return axes.takeError();
  return (*axes)->getInts();
}

} // namespace cgc::importer

namespace cgc::importer {

//===----------------------------------------------------------------------===//
// LayerEmitter
//===----------------------------------------------------------------------===//

mlir::Type LayerEmitter::getElementTypeOf(mlir::Value value) {
  return getTensorType(value).getElementType();
}

mlir::Value LayerEmitter::take(llvm::Expected<mlir::Value> value) {
  if (value)
    return *value;
  fail(value.takeError());
  return {};
}

void LayerEmitter::fail(llvm::Error error) {
  if (failed) {
    llvm::consumeError(std::move(error));
    return;
  }
  failed = true;
  llvm::consumeError(std::move(firstError));
  firstError = std::move(error);
}

mlir::Value LayerEmitter::reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape) {
  if (failed || !value)
    return {};
  return take(reshapeTo(node, value, shape));
}

llvm::Error LayerEmitter::finish(unsigned index, mlir::Value value) {
  if (failed)
    return takeError();
  if (!value)
    return node.error("internal: no value for output " + llvm::Twine(index));
  node.setOutput(index, value);
  return llvm::Error::success();
}

llvm::Error LayerEmitter::takeError() {
  llvm::Error error = std::move(firstError);
  firstError = llvm::Error::success();
  return error;
}

} // namespace cgc::importer
