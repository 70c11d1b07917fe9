//===- CGCPatternOps.cpp - cgc_pattern ops: verification -------------------===//

#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

#define GET_OP_CLASSES
#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.cpp.inc"

namespace cgc::pattern {

namespace {
constexpr StringLiteral kLayerPrefix = "cgc_op.";

/// The registered cgc_op op named `name`, or an error on `op` saying why
/// `name` (the `role` of op, e.g. "layer") is none.
FailureOr<RegisteredOperationName> lookupLayer(Operation *op, StringRef name, StringRef role) {
  if (!name.starts_with(kLayerPrefix))
    return op->emitOpError() << role << " '" << name
                             << "' is not a cgc_op layer: patterns match cgc_op layers only";
  std::optional<RegisteredOperationName> registered =
      RegisteredOperationName::lookup(name, op->getContext());
  if (!registered)
    return op->emitOpError() << role << " '" << name << "' is not a registered cgc_op layer";
  return *registered;
}

/// Checks an `element_types` list: non-empty, distinct cgc element types.
LogicalResult verifyElementTypes(Operation *op, std::optional<ArrayAttr> types) {
  if (!types)
    return success();
  if (types->empty())
    return op->emitOpError() << "element_types must not be empty: leave it out to allow any";
  llvm::SmallPtrSet<Type, 8> seen;
  for (Attribute attribute : *types) {
    Type type = cast<TypeAttr>(attribute).getValue();
    if (!isElementType(type))
      return op->emitOpError() << "element_types holds " << type
                               << ", which is not a cgc element type";
    if (!seen.insert(type).second)
      return op->emitOpError() << "element_types lists " << type << " twice";
  }
  return success();
}

bool isOptionalInput(Value value) {
  auto input = value.getDefiningOp<InputOp>();
  return input && input.getOptional();
}

/// Whether every match computes `value` with a matched layer: a layer
/// result, an elementwise chain (which continues such a value), or a view
/// chain that continues one or holds at least one layer. A view chain of an
/// input with `min_length = 0` may be the input's value itself.
bool isComputedInMatch(Value value) {
  Operation *definition = value.getDefiningOp();
  if (isa_and_present<LayerOp, ElementwiseChainOp>(definition))
    return true;
  if (auto view = dyn_cast_if_present<ViewChainOp>(definition))
    return static_cast<int64_t>(view.getMinLength()) >= 1 ||
           isComputedInMatch(view.getAnchor());
  return false;
}

/// Checks a chain's `min_length` and `max_length` (I64Attr accessors return
/// uint64_t: the values are read as signed).
LogicalResult verifyChainLengths(Operation *op, uint64_t min, uint64_t max) {
  auto minLength = static_cast<int64_t>(min);
  auto maxLength = static_cast<int64_t>(max);
  if (minLength < 0)
    return op->emitOpError() << "min_length must be non-negative, got " << minLength;
  if (maxLength == 0)
    return op->emitOpError() << "max_length 0 matches no layer: leave the chain out";
  if (maxLength != -1 && maxLength < minLength)
    return op->emitOpError() << "max_length (" << maxLength
                             << ") must be -1 (unbounded) or at least min_length (" << minLength
                             << ")";
  return success();
}

/// Checks a chain's list of layer names: non-empty, registered cgc_op
/// layers that `isAllowed` accepts (else the error `why` names), each once.
LogicalResult verifyChainLayerNames(Operation *op, ArrayAttr names, StringRef attributeName,
                                    function_ref<bool(RegisteredOperationName)> isAllowed,
                                    StringRef why) {
  if (names.empty())
    return op->emitOpError() << attributeName << " must not be empty: leave it out instead";
  llvm::StringSet<> seen;
  for (Attribute attribute : names) {
    StringRef name = cast<StringAttr>(attribute).getValue();
    FailureOr<RegisteredOperationName> layer = lookupLayer(op, name, "chain layer");
    if (failed(layer))
      return failure();
    if (!isAllowed(*layer))
      return op->emitOpError() << "chain layer '" << name << "' " << why;
    if (!seen.insert(name).second)
      return op->emitOpError() << attributeName << " lists '" << name << "' twice";
  }
  return success();
}

/// The view chain's layers when `layers` is left out.
constexpr StringLiteral kDefaultViewLayers[] = {"cgc_op.transpose", "cgc_op.reshape"};
} // namespace

//===----------------------------------------------------------------------===//
// PatternOp
//===----------------------------------------------------------------------===//

Value PatternOp::getRootValue() {
  auto root = dyn_cast<RootOp>(getBodyBlock()->getTerminator());
  return root ? root.getValue() : Value();
}

SmallVector<Value> PatternOp::getOutputValues() {
  auto root = dyn_cast<RootOp>(getBodyBlock()->getTerminator());
  return root ? SmallVector<Value>(root.getOutputs()) : SmallVector<Value>();
}

LogicalResult PatternOp::verifyRegions() {
  // A pattern matches at least one layer by construction: its root is a
  // value the match computes (RootOp's verifier). Constraints do not make a
  // value part of the subgraph: only layers, chains and the root do.
  auto isDataflowUse = [](OpOperand &use) { return !isa<ConstraintOp>(use.getOwner()); };
  for (Operation &op : *getBodyBlock()) {
    if (auto input = dyn_cast<InputOp>(op)) {
      if (!llvm::any_of(input->getUses(), [](OpOperand &use) {
            return isa<LayerOp, ViewChainOp>(use.getOwner());
          }))
        return input.emitOpError() << "is not an operand of any layer or view chain: every "
                                      "input must be consumed by the match";
    } else if (isa<LayerOp, ElementwiseChainOp, ViewChainOp>(op)) {
      if (!llvm::any_of(op.getResult(0).getUses(), isDataflowUse))
        return op.emitOpError() << "result is not used by a layer, a chain or the root: "
                                   "every value of a pattern must reach its root";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// InputOp
//===----------------------------------------------------------------------===//

LogicalResult InputOp::verify() {
  if (failed(verifyElementTypes(*this, getElementTypes())))
    return failure();
  std::optional<int64_t> rank;
  if (std::optional<uint64_t> written = getRank())
    rank = static_cast<int64_t>(*written);
  if (rank && *rank < 0)
    return emitOpError() << "rank must be non-negative, got " << *rank;
  if (std::optional<ArrayAttr> shape = getShape()) {
    for (Attribute size : *shape) {
      int64_t value = cast<IntegerAttr>(size).getInt();
      if (value < -1)
        return emitOpError() << "shape sizes must be -1 (any) or non-negative, got " << value;
    }
    if (rank && static_cast<int64_t>(shape->size()) != *rank)
      return emitOpError() << "shape has " << shape->size() << " sizes but rank is " << *rank;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LayerOp
//===----------------------------------------------------------------------===//

LogicalResult LayerOp::verify() {
  FailureOr<RegisteredOperationName> layer = lookupLayer(*this, getOpName(), "layer");
  if (failed(layer))
    return failure();
  if (std::optional<DictionaryAttr> attributes = getOpAttributes()) {
    ArrayRef<StringAttr> known = layer->getAttributeNames();
    for (NamedAttribute attribute : *attributes)
      if (!llvm::is_contained(known, attribute.getName()))
        return emitOpError() << "'" << getOpName() << "' has no attribute '"
                             << attribute.getName().getValue() << "'";
  }
  if (getOperands().empty())
    return emitOpError() << "must have at least one operand";
  // Optional operands are trailing: a missing one shifts nothing after it.
  bool seenOptional = false;
  for (auto [index, operand] : llvm::enumerate(getOperands())) {
    bool optional = isOptionalInput(operand);
    if (seenOptional && !optional)
      return emitOpError() << "operand #" << index
                           << " follows an optional input: only trailing operands may be "
                              "optional";
    seenOptional |= optional;
  }
  return verifyElementTypes(*this, getElementTypes());
}

//===----------------------------------------------------------------------===//
// ElementwiseChainOp
//===----------------------------------------------------------------------===//

LogicalResult ElementwiseChainOp::verify() {
  Value anchor = getAnchor();
  if (isa_and_present<ViewChainOp>(anchor.getDefiningOp()) && !isComputedInMatch(anchor))
    return emitOpError() << "anchor is a view chain of an input that may match no layer: a "
                            "chain continues a matched layer (give the view chain "
                            "min_length >= 1)";
  if (!isComputedInMatch(anchor))
    return emitOpError() << "anchor must be a layer or chain result, not an input: a chain "
                            "continues a matched layer";
  if (failed(verifyChainLengths(*this, getMinLength(), getMaxLength())))
    return failure();
  // I64Attr accessors return uint64_t: read the value as signed.
  auto maxExtraInputs = static_cast<int64_t>(getMaxExtraInputs());
  if (maxExtraInputs < 0)
    return emitOpError() << "max_extra_inputs must be non-negative, got " << maxExtraInputs;

  auto isElementwise = [](RegisteredOperationName layer) {
    return layer.hasTrait<op::OpTrait::Elementwise>();
  };
  constexpr StringLiteral notElementwise = "is not elementwise (it lacks the Elementwise trait)";
  std::optional<ArrayAttr> layers = getLayers();
  if (layers &&
      failed(verifyChainLayerNames(*this, *layers, "layers", isElementwise, notElementwise)))
    return failure();
  if (std::optional<ArrayAttr> valueFirst = getValueFirstLayers()) {
    if (failed(verifyChainLayerNames(*this, *valueFirst, "value_first_layers", isElementwise,
                                     notElementwise)))
      return failure();
    for (Attribute name : *valueFirst)
      if (layers && !llvm::is_contained(*layers, name))
        return emitOpError() << "value-first layer " << name
                             << " is not one of the chain's layers";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ViewChainOp
//===----------------------------------------------------------------------===//

bool ViewChainOp::allowsLayer(StringRef name) {
  if (std::optional<ArrayAttr> layers = getLayers())
    return llvm::any_of(*layers, [&](Attribute attribute) {
      return cast<StringAttr>(attribute).getValue() == name;
    });
  return llvm::is_contained(kDefaultViewLayers, name);
}

bool ViewChainOp::isAnchoredOnInput() { return getAnchor().getDefiningOp<InputOp>() != nullptr; }

LogicalResult ViewChainOp::verify() {
  Operation *anchor = getAnchor().getDefiningOp();
  // Two view chains in a row could split one run of layers anywhere between
  // them; a single chain allowing the layers of both is unambiguous.
  if (isa_and_present<ViewChainOp>(anchor))
    return emitOpError() << "anchor is another view chain: one chain allowing the layers of "
                            "both says the same";
  if (!isa_and_present<InputOp, LayerOp, ElementwiseChainOp>(anchor))
    return emitOpError() << "anchor must be an input, a layer or an elementwise chain result";
  if (isOptionalInput(getAnchor()))
    return emitOpError() << "anchor is an optional input, which may be absent: a view chain "
                            "needs a value to read";
  if (failed(verifyChainLengths(*this, getMinLength(), getMaxLength())))
    return failure();
  if (std::optional<ArrayAttr> layers = getLayers()) {
    // What the matcher relies on: each chain layer reads one value and
    // produces one, or is a selection (whose indices the matcher checks).
    // That the layers only re-index is the target's claim.
    auto readsOneValue = [](RegisteredOperationName layer) {
      return layer.getStringRef() == kSelectionLayer ||
             (layer.hasTrait<mlir::OpTrait::OneOperand>() &&
              layer.hasTrait<mlir::OpTrait::OneResult>());
    };
    return verifyChainLayerNames(*this, *layers, "layers", readsOneValue,
                                 "does not have exactly one operand and one result");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConstraintOp and RootOp
//===----------------------------------------------------------------------===//

LogicalResult ConstraintOp::verify() {
  if (getConstraintName().empty())
    return emitOpError() << "must name a constraint";
  if (getValues().empty())
    return emitOpError() << "must constrain at least one value";
  for (auto [index, value] : llvm::enumerate(getValues()))
    if (isOptionalInput(value))
      return emitOpError() << "value #" << index
                           << " is an optional input, which a constraint cannot name: it "
                              "may be absent";
  return success();
}

LogicalResult RootOp::verify() {
  llvm::SmallPtrSet<void *, 4> seen;
  SmallVector<Value> values{getValue()};
  llvm::append_range(values, getOutputs());
  for (auto [index, value] : llvm::enumerate(values)) {
    std::string what = index == 0 ? std::string("the root") : "output #" + std::to_string(index - 1);
    if (value.getDefiningOp<InputOp>())
      return emitOpError() << what << " must name a layer or chain result, not an input: a "
                              "pattern produces what it matches";
    if (!isComputedInMatch(value))
      return emitOpError() << what << " names a view chain of an input that may match no "
                              "layer: give it min_length >= 1, a pattern produces what it "
                              "matches";
    if (!seen.insert(value.getAsOpaquePointer()).second)
      return emitOpError() << what << " names a value the root already names";
  }
  return success();
}

} // namespace cgc::pattern
