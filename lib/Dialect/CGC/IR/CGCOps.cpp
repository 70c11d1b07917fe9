//===- CGCOps.cpp - cgc structure ops: parsing, printing, verification ----===//

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;


#define GET_OP_CLASSES
#include "cgc/Dialect/CGC/IR/CGCOps.cpp.inc"

namespace cgc {

namespace {
constexpr StringLiteral kLayerDialect = "cgc_op";
// Target pattern declarations (CGC_SUBGRAPH_DECLARATION) are cgc.modules of
// cgc_pattern.pattern ops. Recognized by namespace: the cgc dialect does not
// depend on the pattern dialect, which depends on it.
constexpr StringLiteral kPatternDialect = "cgc_pattern";

bool isLayerOp(Operation *op) {
  Dialect *dialect = op->getDialect();
  return dialect && dialect->getNamespace() == kLayerDialect;
}

/// Checks that every op in `region` is one `allowed` accepts; `what` names
/// the accepted ops in the error.
template <typename Predicate>
LogicalResult verifyBodyOps(Operation *owner, Region &region, Predicate allowed,
                            StringRef what) {
  for (Operation &op : region.getOps())
    if (!allowed(&op))
      return op.emitOpError() << "is not allowed in '" << owner->getName()
                              << "': its body holds only " << what;
  return success();
}

/// Checks that every type in `types` is `T`; `role` is "argument"/"result".
template <typename T>
LogicalResult verifyAllOfType(Operation *op, TypeRange types, StringRef role,
                              StringRef kind) {
  for (auto [index, type] : llvm::enumerate(types))
    if (!isa<T>(type))
      return op->emitOpError() << role << " #" << index << " must be a " << kind
                               << ", got " << type;
  return success();
}

ParseResult parseFunctionLike(OpAsmParser &parser, OperationState &result,
                              StringAttr typeAttrName, StringAttr argAttrsName,
                              StringAttr resAttrsName) {
  auto buildType = [](Builder &builder, ArrayRef<Type> argTypes,
                      ArrayRef<Type> results, function_interface_impl::VariadicFlag,
                      std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, typeAttrName, buildType,
      argAttrsName, resAttrsName);
}

/// The entries of a `permutation` attribute; nullopt unless it is a list of
/// 64-bit integers.
std::optional<SmallVector<int64_t>> readPermutation(Attribute attribute) {
  auto list = dyn_cast<ArrayAttr>(attribute);
  if (!list)
    return std::nullopt;
  SmallVector<int64_t> entries;
  for (Attribute entry : list) {
    auto integer = dyn_cast<IntegerAttr>(entry);
    if (!integer || !integer.getType().isSignlessInteger(64))
      return std::nullopt;
    entries.push_back(integer.getInt());
  }
  return entries;
}

/// Whether `permutation` lists each of 0 .. rank-1 exactly once.
bool isPermutationOfRank(ArrayRef<int64_t> permutation, int64_t rank) {
  if (static_cast<int64_t>(permutation.size()) != rank)
    return false;
  SmallVector<bool> used(rank, false);
  for (int64_t dimension : permutation) {
    if (dimension < 0 || dimension >= rank || used[dimension])
      return false;
    used[dimension] = true;
  }
  return true;
}

LogicalResult verifyHasBody(FunctionOpInterface op) {
  if (op.isExternal())
    return op->emitOpError() << "must have a body";
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// ModuleOp
//===----------------------------------------------------------------------===//

void ModuleOp::build(OpBuilder &builder, OperationState &state) {
  Region *body = state.addRegion();
  body->push_back(new Block());
}

LogicalResult ModuleOp::verify() {
  for (Operation &op : getBodyBlock()->getOperations())
    if (!isa<EntryPointOp, SubgraphOp, PartitionOp, ProgramOp>(op) &&
        op.getName().getDialectNamespace() != kPatternDialect)
      return op.emitOpError()
             << "is not allowed directly in 'cgc.module': it holds only "
                "cgc.entry_point, cgc.subgraph, cgc.partition, cgc.program and "
                "cgc_pattern.pattern";

  // One name, one constant: every reference agrees on the stored shape and the
  // element type (a reference with a permutation binds the same data permuted).
  // Constants with invalid permutations are left to their own verifier.
  llvm::StringMap<std::pair<ConstantOp, ShapedType>> seen;
  WalkResult result = walk([&](ConstantOp constant) {
    if (Attribute attribute = constant->getAttr(ConstantOp::getPermutationAttrName())) {
      std::optional<SmallVector<int64_t>> permutation = readPermutation(attribute);
      if (!permutation ||
          !isPermutationOfRank(*permutation, cast<ShapedType>(constant.getType()).getRank()))
        return WalkResult::advance();
    }
    auto type = cast<ShapedType>(constant.getType());
    ShapedType stored = type.cloneWith(constant.getStoredShape(), type.getElementType());
    auto [it, inserted] = seen.try_emplace(constant.getName(), constant, stored);
    if (inserted || haveSameShapeAndElementType(it->second.second, stored))
      return WalkResult::advance();
    InFlightDiagnostic diag = constant.emitOpError()
                              << "constant \"" << constant.getName() << "\" has "
                              << (constant.getPermutation() ? "stored type " : "type ")
                              << stored << " but is also referenced as "
                              << it->second.second;
    diag.attachNote(it->second.first.getLoc()) << "first referenced here";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Function-like ops
//===----------------------------------------------------------------------===//

#define CGC_FUNCTION_LIKE_BOILERPLATE(OpClass)                                 \
  ParseResult OpClass::parse(OpAsmParser &parser, OperationState &result) {   \
    return parseFunctionLike(parser, result, getFunctionTypeAttrName(result.name), \
                             getArgAttrsAttrName(result.name),                 \
                             getResAttrsAttrName(result.name));                \
  }                                                                            \
  void OpClass::print(OpAsmPrinter &printer) {                                 \
    function_interface_impl::printFunctionOp(                                  \
        printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),       \
        getArgAttrsAttrName(), getResAttrsAttrName());                         \
  }                                                                            \
  void OpClass::build(OpBuilder &builder, OperationState &state,              \
                      StringRef name, FunctionType type) {                     \
    state.addAttribute(SymbolTable::getSymbolAttrName(),                      \
                       builder.getStringAttr(name));                           \
    state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type)); \
    Region *body = state.addRegion();                                          \
    Block *block = new Block();                                                \
    body->push_back(block);                                                    \
    for (Type input : type.getInputs())                                        \
      block->addArgument(input, state.location);                               \
  }

CGC_FUNCTION_LIKE_BOILERPLATE(EntryPointOp)
CGC_FUNCTION_LIKE_BOILERPLATE(FunctionalDefinitionOp)
CGC_FUNCTION_LIKE_BOILERPLATE(PartitionOp)
CGC_FUNCTION_LIKE_BOILERPLATE(ProgramOp)
#undef CGC_FUNCTION_LIKE_BOILERPLATE

LogicalResult EntryPointOp::verify() {
  if (failed(verifyAllOfType<TensorType>(*this, getArgumentTypes(), "argument", "!cgc.tensor")) ||
      failed(verifyAllOfType<TensorType>(*this, getResultTypes(), "result", "!cgc.tensor")))
    return failure();
  return verifyHasBody(*this);
}

LogicalResult EntryPointOp::verifyRegions() {
  return verifyBodyOps(
      *this, getBody(),
      [](Operation *op) { return isa<ConstantOp, CallOp, ReturnOp>(op) || isLayerOp(op); },
      "cgc.constant, cgc_op layers, cgc.call and cgc.return");
}

LogicalResult FunctionalDefinitionOp::verify() {
  if (failed(verifyAllOfType<TensorType>(*this, getArgumentTypes(), "argument", "!cgc.tensor")) ||
      failed(verifyAllOfType<TensorType>(*this, getResultTypes(), "result", "!cgc.tensor")))
    return failure();
  if (getResultTypes().empty())
    return emitOpError() << "must produce at least one result";
  for (auto [index, type] : llvm::enumerate(getResultTypes()))
    if (cast<TensorType>(type).getIsConstant())
      return emitOpError() << "result #" << index
                           << " must not be constant: results are written by the subgraph";
  return verifyHasBody(*this);
}

LogicalResult FunctionalDefinitionOp::verifyRegions() {
  return verifyBodyOps(
      *this, getBody(),
      [](Operation *op) { return isa<ReturnOp>(op) || isLayerOp(op); },
      "cgc_op layers and cgc.return");
}

LogicalResult PartitionOp::verify() {
  if (failed(verifyAllOfType<MemRefType>(
          *this, getArgumentTypes(), "argument",
          "!cgc.memref: partitions take only memrefs (their bind points)")))
    return failure();
  if (!getResultTypes().empty())
    return emitOpError() << "must not return values: outputs are bind points";
  return verifyHasBody(*this);
}

LogicalResult PartitionOp::verifyRegions() {
  return verifyBodyOps(
      *this, getBody(),
      [](Operation *op) { return isa<InvokeOp, ViewMemRefOp, ReturnOp>(op); },
      "cgc.invoke of subgraphs, cgc.view_memref and cgc.return");
}

namespace {
/// The partition argument a memref value views, looking through views.
BlockArgument getViewedArgument(Value value) {
  while (auto view = value.getDefiningOp<ViewMemRefOp>())
    value = view.getSource();
  return dyn_cast<BlockArgument>(value);
}
} // namespace

bool PartitionOp::isBindPointWritten(unsigned index) {
  if (isExternal() || index >= getNumArguments())
    return false;
  BlockArgument bindPoint = getArgument(index);
  SymbolTableCollection symbols;
  for (InvokeOp invoke : getBody().getOps<InvokeOp>()) {
    auto subgraph =
        symbols.lookupNearestSymbolFrom<SubgraphOp>(invoke, invoke.getCalleeAttr());
    if (!subgraph)
      continue;
    unsigned numInputs = subgraph.getNumInputs();
    for (auto [position, operand] : llvm::enumerate(invoke.getOperands()))
      if (position >= numInputs && getViewedArgument(operand) == bindPoint)
        return true;
  }
  return false;
}

LogicalResult ProgramOp::verify() {
  if (failed(verifyAllOfType<MemRefType>(*this, getArgumentTypes(), "argument",
                                         "!cgc.memref")))
    return failure();
  if (!getResultTypes().empty())
    return emitOpError() << "must not return values: outputs are arguments";
  return verifyHasBody(*this);
}

LogicalResult ProgramOp::verifyRegions() {
  return verifyBodyOps(
      *this, getBody(),
      [](Operation *op) {
        return isa<ConstantOp, ViewMemRefOp, InvokeOp, ReturnOp>(op);
      },
      "cgc.constant, cgc.view_memref, cgc.invoke of partitions and cgc.return");
}

//===----------------------------------------------------------------------===//
// SubgraphOp
//===----------------------------------------------------------------------===//

FunctionalDefinitionOp SubgraphOp::getDefinition() {
  auto range = getBody().getOps<FunctionalDefinitionOp>();
  return range.empty() ? FunctionalDefinitionOp() : *range.begin();
}

unsigned SubgraphOp::getNumInputs() {
  FunctionalDefinitionOp definition = getDefinition();
  return definition ? definition.getNumArguments() : 0;
}

SmallVector<MemRefType> SubgraphOp::getInvocationTypes() {
  SmallVector<MemRefType> types;
  FunctionalDefinitionOp definition = getDefinition();
  if (!definition)
    return types;
  auto toMemRef = [](Type type) {
    auto tensor = cast<TensorType>(type);
    return MemRefType::get(tensor.getContext(), tensor.getShape(),
                           tensor.getElementType(), tensor.getIsConstant());
  };
  for (Type type : definition.getArgumentTypes())
    types.push_back(toMemRef(type));
  for (Type type : definition.getResultTypes())
    types.push_back(toMemRef(type));
  return types;
}

LogicalResult SubgraphOp::verify() {
  if (getOrigin().empty())
    return emitOpError() << "needs a non-empty 'origin' naming the target that implements it";
  Block &block = getBody().front();
  unsigned definitions = 0;
  for (Operation &op : block) {
    if (!isa<FunctionalDefinitionOp>(op))
      return op.emitOpError() << "is not allowed in 'cgc.subgraph': it holds "
                                 "exactly one cgc.functional_definition";
    ++definitions;
  }
  if (definitions != 1)
    return emitOpError() << "must hold exactly one cgc.functional_definition, found "
                         << definitions;
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty constant name";
  Type type = getType();
  bool inEntryPoint = isa<EntryPointOp>((*this)->getParentOp());
  if (inEntryPoint && !isa<TensorType>(type))
    return emitOpError() << "in a cgc.entry_point must yield a !cgc.tensor, got " << type;
  if (!inEntryPoint && !isa<MemRefType>(type))
    return emitOpError() << "in a cgc.program must yield a !cgc.memref, got " << type;
  bool isConstant = TypeSwitch<Type, bool>(type)
                        .Case<TensorType, MemRefType>(
                            [](auto shaped) { return shaped.getIsConstant(); })
                        .Default([](Type) { return false; });
  if (!isConstant)
    return emitOpError() << "result type " << type
                         << " must carry the 'constant' qualifier: constants are read-only";
  Attribute attribute = (*this)->getAttr(getPermutationAttrName());
  if (!attribute)
    return success();
  std::optional<SmallVector<int64_t>> permutation = readPermutation(attribute);
  if (!permutation)
    return emitOpError() << "'permutation' must be a list of 64-bit integers, got " << attribute;
  int64_t rank = cast<ShapedType>(type).getRank();
  if (!isPermutationOfRank(*permutation, rank))
    return emitOpError() << "permutation [" << *permutation << "] is not a permutation of the "
                         << rank << " dimensions of " << type;
  return success();
}

ArrayAttr ConstantOp::getPermutationAttr() {
  return (*this)->getAttrOfType<ArrayAttr>(getPermutationAttrName());
}

std::optional<ArrayAttr> ConstantOp::getPermutation() {
  if (ArrayAttr permutation = getPermutationAttr())
    return permutation;
  return std::nullopt;
}

void ConstantOp::setPermutationAttr(ArrayAttr permutation) {
  if (permutation)
    (*this)->setAttr(getPermutationAttrName(), permutation);
  else
    (*this)->removeAttr(getPermutationAttrName());
}

SmallVector<int64_t> ConstantOp::getPermutationList() {
  Attribute attribute = (*this)->getAttr(getPermutationAttrName());
  if (!attribute)
    return {};
  return readPermutation(attribute).value_or(SmallVector<int64_t>());
}

SmallVector<int64_t> ConstantOp::getStoredShape() {
  auto shape = llvm::to_vector(cast<ShapedType>(getType()).getShape());
  SmallVector<int64_t> permutation = getPermutationList();
  // No permutation, or one the verifier refuses.
  if (!isPermutationOfRank(permutation, shape.size()))
    return shape;
  SmallVector<int64_t> stored(shape.size());
  for (auto [resultDimension, storedDimension] : llvm::enumerate(permutation))
    stored[storedDimension] = shape[resultDimension];
  return stored;
}

//===----------------------------------------------------------------------===//
// ViewMemRefOp
//===----------------------------------------------------------------------===//

LogicalResult ViewMemRefOp::verify() {
  MemRefType source = getSource().getType();
  MemRefType result = getResult().getType();
  int64_t offset = getOffset();
  if (offset < 0)
    return emitOpError() << "offset " << offset << " must be non-negative";
  uint64_t end = static_cast<uint64_t>(offset) + result.getByteSize();
  if (end > source.getByteSize())
    return emitOpError() << "view of " << result.getByteSize() << " bytes at offset "
                         << offset << " ends at byte " << end
                         << ", past the end of its " << source.getByteSize()
                         << "-byte source";
  if (offset % result.getAlignment() != 0)
    return emitOpError() << "offset " << offset << " is not a multiple of the view's "
                         << result.getAlignment() << "-byte element alignment";
  if (source.getIsConstant() != result.getIsConstant())
    return emitOpError() << "a view of a " << (source.getIsConstant() ? "constant" : "non-constant")
                         << " memref must be " << (source.getIsConstant() ? "constant" : "non-constant")
                         << " too";
  return success();
}

//===----------------------------------------------------------------------===//
// InvokeOp
//===----------------------------------------------------------------------===//

LogicalResult InvokeOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Operation *callee = symbols.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!callee)
    return emitOpError() << "callee " << getCalleeAttr() << " does not resolve to a symbol";

  bool inPartition = isa<PartitionOp>((*this)->getParentOp());
  SmallVector<MemRefType> expected;
  std::function<bool(unsigned)> isWritten;
  if (inPartition) {
    auto subgraph = dyn_cast<SubgraphOp>(callee);
    if (!subgraph)
      return emitOpError() << "in a cgc.partition must invoke a cgc.subgraph, but "
                           << getCalleeAttr() << " is a '" << callee->getName() << "'";
    expected = subgraph.getInvocationTypes();
    unsigned numInputs = subgraph.getNumInputs();
    isWritten = [numInputs](unsigned i) { return i >= numInputs; };
  } else {
    auto partition = dyn_cast<PartitionOp>(callee);
    if (!partition)
      return emitOpError() << "in a cgc.program must invoke a cgc.partition, but "
                           << getCalleeAttr() << " is a '" << callee->getName() << "'";
    for (Type type : partition.getArgumentTypes())
      expected.push_back(cast<MemRefType>(type));
    isWritten = [partition](unsigned i) mutable { return partition.isBindPointWritten(i); };
  }

  if (expected.size() != getOperands().size())
    return emitOpError() << "passes " << getOperands().size() << " operands but "
                         << getCalleeAttr() << " takes " << expected.size();
  for (auto [index, operand, want] : llvm::enumerate(getOperands(), expected)) {
    auto have = cast<MemRefType>(operand.getType());
    if (!haveSameShapeAndElementType(have, want))
      return emitOpError() << "operand #" << index << " has type " << have << " but "
                           << getCalleeAttr() << " expects " << want;
    if (want.getIsConstant() && !have.getIsConstant())
      return emitOpError() << "operand #" << index << " must be constant: parameter #"
                           << index << " of " << getCalleeAttr() << " is constant";
    if (have.getIsConstant() && isWritten(index))
      return emitOpError() << "operand #" << index << " is constant but "
                           << getCalleeAttr() << " writes it: constants are read-only";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto subgraph = symbols.lookupNearestSymbolFrom<SubgraphOp>(*this, getCalleeAttr());
  if (!subgraph)
    return emitOpError() << "callee " << getCalleeAttr() << " does not resolve to a cgc.subgraph";
  FunctionalDefinitionOp definition = subgraph.getDefinition();
  if (!definition)
    return emitOpError() << "callee " << getCalleeAttr() << " has no functional definition";
  ArrayRef<Type> parameters = definition.getArgumentTypes();
  ArrayRef<Type> results = definition.getResultTypes();
  if (parameters.size() != getOperands().size() || results.size() != getResults().size())
    return emitOpError() << "passes " << getOperands().size() << " operands and expects "
                         << getResults().size() << " results but " << getCalleeAttr()
                         << " takes " << parameters.size() << " and returns " << results.size();
  for (auto [index, operand, want] : llvm::enumerate(getOperands(), parameters)) {
    auto have = cast<TensorType>(operand.getType());
    auto wantTensor = cast<TensorType>(want);
    if (have.getShape() != wantTensor.getShape() ||
        have.getElementType() != wantTensor.getElementType())
      return emitOpError() << "operand #" << index << " has type " << have << " but "
                           << getCalleeAttr() << " expects " << want;
    if (wantTensor.getIsConstant() && !have.getIsConstant())
      return emitOpError() << "operand #" << index << " must be constant: parameter #" << index
                           << " of " << getCalleeAttr() << " is constant";
  }
  for (auto [index, result, want] : llvm::enumerate(getResults(), results))
    if (result.getType() != want)
      return emitOpError() << "result #" << index << " has type " << result.getType() << " but "
                           << getCalleeAttr() << " returns " << want;
  return success();
}

//===----------------------------------------------------------------------===//
// ReturnOp
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  auto function = cast<FunctionOpInterface>((*this)->getParentOp());
  ArrayRef<Type> results = function.getResultTypes();
  if (getOperands().size() != results.size())
    return emitOpError() << "returns " << getOperands().size() << " values but '"
                         << function->getName() << "' @" << function.getName()
                         << " declares " << results.size() << " results";
  for (auto [index, operand, want] : llvm::enumerate(getOperands(), results))
    if (operand.getType() != want)
      return emitOpError() << "operand #" << index << " has type " << operand.getType()
                           << " but the enclosing function returns " << want;
  return success();
}

} // namespace cgc
