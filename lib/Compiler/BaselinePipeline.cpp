//===- BaselinePipeline.cpp - Input IR -> Output IR, one layer per subgraph ===//
//
// The compiler with every optimization off: no fusion (one subgraph per
// layer), one partition, and a memory plan that gives every intermediate its
// own 64-byte-aligned slot of one scratch buffer. It is the reference the
// fusing pipelines are checked against, and it runs any model on a target
// that declares no patterns, since every cgc_op layer has a fallback.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Passes.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

namespace cgc {
#define GEN_PASS_DEF_BASELINEPIPELINE
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc {
namespace {
/// The argument and result attribute holding the model's name for an input or
/// output; copied from the entry point onto the program.
constexpr llvm::StringLiteral kNameAttr = "cgc.name";


bool isLayerOp(Operation *op) { return op->getDialect() && isa<op::CGCOpDialect>(op->getDialect()); }

MemRefType toMemRef(TensorType tensor) {
  return MemRefType::get(tensor.getContext(), tensor.getShape(), tensor.getElementType(),
                         tensor.getIsConstant());
}

/// A memref bind point of the partition: one per distinct value it touches.
struct BindPoint {
  enum class Kind { Input, Constant, Output, Intermediate };
  Kind kind;
  unsigned index;      // program argument (Input), output position (Output), slot
  StringRef constant;  // the constant's name (Constant)
  MemRefType type;
  /// Constant: its `permutation` (null: bound as stored). One name bound
  /// with two permutations is two bind points.
  ArrayAttr permutation = {};
};

/// One subgraph invocation of the partition: the subgraph and, per
/// invocation operand, the bind point it gets.
struct Invocation {
  SubgraphOp subgraph;
  SmallVector<unsigned> bindPoints;
};

/// Lowers one entry point. Holds the value -> bind point assignment while the
/// Output IR is built.
class BaselineLowering {
public:
  BaselineLowering(ModuleOp module, EntryPointOp entry, StringRef target)
      : module(module), entry(entry), target(target), builder(module.getContext()) {}

  LogicalResult run();

private:
  void findLiveLayers();
  void assignBindPoints();
  unsigned bindPointOf(Value value) const { return bindPointOfValue.lookup(value); }
  std::string uniqueName(StringRef stem);
  SubgraphOp createSubgraph(StringRef name, Location loc, TypeRange argumentTypes,
                            TypeRange resultTypes,
                            function_ref<SmallVector<Value>(OpBuilder &, ValueRange)> body);
  void lowerLayers();
  void lowerCopies();
  PartitionOp createPartition();
  void createProgram(PartitionOp partition);

  ModuleOp module;
  EntryPointOp entry;
  StringRef target;
  OpBuilder builder;

  SmallVector<Operation *> liveLayers;
  llvm::DenseSet<Value> liveValues;
  /// Return positions whose value some earlier position (or no layer) already
  /// holds: each needs a copy into its output.
  SmallVector<std::pair<Value, unsigned>> copies;
  /// For each layer result that is an output, the first position returning it.
  llvm::DenseMap<Value, unsigned> outputPosition;

  SmallVector<BindPoint> bindPoints;
  llvm::DenseMap<Value, unsigned> bindPointOfValue;
  llvm::DenseMap<std::pair<Attribute, Attribute>, unsigned> bindPointOfConstant;
  SmallVector<Invocation> invocations;
  llvm::StringSet<> usedNames;
};

void BaselineLowering::findLiveLayers() {
  auto returnOp = cast<ReturnOp>(entry.getBody().front().getTerminator());
  for (Value value : returnOp.getOperands())
    liveValues.insert(value);
  SmallVector<Operation *> layers;
  for (Operation &op : entry.getBody().front())
    if (isLayerOp(&op))
      layers.push_back(&op);
  // Layers are in dataflow order, so one backward sweep finds every live one.
  for (Operation *op : llvm::reverse(layers)) {
    if (llvm::none_of(op->getResults(), [&](Value result) { return liveValues.contains(result); }))
      continue;
    liveLayers.push_back(op);
    for (Value operand : op->getOperands())
      liveValues.insert(operand);
  }
  std::reverse(liveLayers.begin(), liveLayers.end());

  for (auto [position, value] : llvm::enumerate(returnOp.getOperands())) {
    bool producedByLayer = isa<OpResult>(value) && isLayerOp(value.getDefiningOp());
    if (producedByLayer && outputPosition.try_emplace(value, position).second)
      continue;
    copies.emplace_back(value, position);
  }
}

void BaselineLowering::assignBindPoints() {
  auto add = [&](BindPoint bindPoint) {
    bindPoints.push_back(bindPoint);
    return bindPoints.size() - 1;
  };
  // Inputs, in argument order.
  for (BlockArgument argument : entry.getArguments())
    if (liveValues.contains(argument))
      bindPointOfValue[argument] =
          add({BindPoint::Kind::Input, argument.getArgNumber(), {},
               toMemRef(cast<TensorType>(argument.getType()))});
  // Constants, one per name and permutation, in order of first use (by
  // layers, then outputs).
  auto addConstant = [&](Value value) {
    auto constant = value.getDefiningOp<ConstantOp>();
    if (!constant || bindPointOfValue.contains(value))
      return;
    auto [it, inserted] = bindPointOfConstant.try_emplace(
        {constant.getNameAttr(), constant.getPermutationAttr()}, bindPoints.size());
    if (inserted)
      add({BindPoint::Kind::Constant, 0, constant.getName(),
           toMemRef(cast<TensorType>(constant.getType())), constant.getPermutationAttr()});
    bindPointOfValue[value] = it->second;
  };
  for (Operation *op : liveLayers)
    for (Value operand : op->getOperands())
      addConstant(operand);
  for (auto [value, position] : copies)
    addConstant(value);
  // Outputs, in position order; a layer result returned first at a position
  // is written there directly.
  auto returnOp = cast<ReturnOp>(entry.getBody().front().getTerminator());
  SmallVector<unsigned> outputBindPoints;
  for (auto [position, type] : llvm::enumerate(returnOp.getOperandTypes()))
    outputBindPoints.push_back(
        add({BindPoint::Kind::Output, static_cast<unsigned>(position), {},
             toMemRef(cast<TensorType>(type).withConstant(false))}));
  for (auto [value, position] : outputPosition)
    bindPointOfValue[value] = outputBindPoints[position];
  // Intermediates, in production order, each in its own scratch slot.
  unsigned slot = 0;
  for (Operation *op : liveLayers)
    for (Value result : op->getResults())
      if (liveValues.contains(result) && !outputPosition.contains(result))
        bindPointOfValue[result] = add({BindPoint::Kind::Intermediate, slot++, {},
                                        toMemRef(cast<TensorType>(result.getType()))});
}

std::string BaselineLowering::uniqueName(StringRef stem) {
  std::string name = (stem + "_" + Twine(invocations.size())).str();
  for (unsigned suffix = 1; !usedNames.insert(name).second; ++suffix)
    name = (stem + "_" + Twine(invocations.size()) + "_" + Twine(suffix)).str();
  return name;
}

SubgraphOp BaselineLowering::createSubgraph(
    StringRef name, Location loc, TypeRange argumentTypes, TypeRange resultTypes,
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange)> body) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(entry);
  auto subgraph = SubgraphOp::create(builder, loc, builder.getStringAttr(name),
                                     builder.getStringAttr(target));
  builder.setInsertionPointToStart(&subgraph.getBody().emplaceBlock());
  auto definition = FunctionalDefinitionOp::create(
      builder, loc, (name + "_functional").str(),
      builder.getFunctionType(argumentTypes, resultTypes));
  definition.setPrivate();
  builder.setInsertionPointToStart(&definition.getBody().front());
  SmallVector<Value> results = body(builder, definition.getArguments());
  ReturnOp::create(builder, loc, results);
  return subgraph;
}

void BaselineLowering::lowerLayers() {
  for (Operation *op : liveLayers) {
    llvm::SetVector<Value> operands(op->operand_begin(), op->operand_end());
    SmallVector<Value> results;
    for (Value result : op->getResults())
      if (liveValues.contains(result))
        results.push_back(result);
    SmallVector<Type> argumentTypes = llvm::map_to_vector(operands, [](Value v) { return v.getType(); });
    SmallVector<Type> resultTypes = llvm::map_to_vector(results, [](Value v) { return v.getType(); });
    std::string name = uniqueName(op->getName().stripDialect());
    SubgraphOp subgraph = createSubgraph(
        name, op->getLoc(), argumentTypes, resultTypes,
        [&](OpBuilder &body, ValueRange arguments) -> SmallVector<Value> {
          IRMapping mapping;
          mapping.map(operands.getArrayRef(), arguments);
          Operation *clone = body.clone(*op, mapping);
          SmallVector<Value> cloned;
          for (Value result : results)
            cloned.push_back(clone->getResult(cast<OpResult>(result).getResultNumber()));
          return cloned;
        });
    Invocation invocation{subgraph, {}};
    for (Value operand : operands)
      invocation.bindPoints.push_back(bindPointOf(operand));
    for (Value result : results)
      invocation.bindPoints.push_back(bindPointOf(result));
    invocations.push_back(std::move(invocation));
  }
}

void BaselineLowering::lowerCopies() {
  for (auto [value, position] : copies) {
    auto source = cast<TensorType>(value.getType());
    TensorType resultType = source.withConstant(false);
    std::string name = uniqueName("copy");
    SubgraphOp subgraph = createSubgraph(
        name, value.getLoc(), source, resultType,
        [&](OpBuilder &body, ValueRange arguments) -> SmallVector<Value> {
          auto reshape = op::ReshapeOp::create(body, value.getLoc(), resultType, arguments[0],
                                               body.getI64ArrayAttr(source.getShape()));
          return {reshape.getResult()};
        });
    unsigned outputBindPoint = llvm::find_if(bindPoints, [&](const BindPoint &bindPoint) {
                                 return bindPoint.kind == BindPoint::Kind::Output &&
                                        bindPoint.index == position;
                               }) - bindPoints.begin();
    invocations.push_back({subgraph, {bindPointOf(value), outputBindPoint}});
  }
}

PartitionOp BaselineLowering::createPartition() {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(entry);
  SmallVector<Type> types = llvm::map_to_vector(bindPoints, [](const BindPoint &bindPoint) -> Type {
    return bindPoint.type;
  });
  std::string name = "partition_0";
  for (unsigned suffix = 1; !usedNames.insert(name).second; ++suffix)
    name = "partition_0_" + std::to_string(suffix);
  auto partition = PartitionOp::create(builder, entry.getLoc(), name,
                                       builder.getFunctionType(types, {}));
  builder.setInsertionPointToStart(&partition.getBody().front());
  for (Invocation &invocation : invocations) {
    SmallVector<Value> operands = llvm::map_to_vector(
        invocation.bindPoints, [&](unsigned index) -> Value { return partition.getArgument(index); });
    InvokeOp::create(builder, invocation.subgraph.getLoc(),
                     FlatSymbolRefAttr::get(invocation.subgraph.getSymNameAttr()), operands);
  }
  ReturnOp::create(builder, entry.getLoc());
  return partition;
}

void BaselineLowering::createProgram(PartitionOp partition) {
  MLIRContext *context = module.getContext();
  Location loc = entry.getLoc();
  // The memory plan: each intermediate in its own 64-byte-aligned slot.
  SmallVector<uint64_t> slotOffsets;
  uint64_t scratchBytes = 0;
  for (const BindPoint &bindPoint : bindPoints) {
    if (bindPoint.kind != BindPoint::Kind::Intermediate)
      continue;
    uint64_t offset = llvm::alignTo(scratchBytes, kScratchSlotAlignment);
    slotOffsets.push_back(offset);
    scratchBytes = offset + bindPoint.type.getByteSize();
  }
  scratchBytes = llvm::alignTo(scratchBytes, kScratchSlotAlignment);
  auto scratchType = MemRefType::get(context, {static_cast<int64_t>(scratchBytes)},
                                     Int8Type::get(context));

  SmallVector<Type> argumentTypes;
  for (Type type : entry.getArgumentTypes())
    argumentTypes.push_back(toMemRef(cast<TensorType>(type)).withConstant(false));
  unsigned numInputs = argumentTypes.size();
  for (Type type : entry.getResultTypes())
    argumentTypes.push_back(toMemRef(cast<TensorType>(type)).withConstant(false));
  argumentTypes.push_back(scratchType);

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(entry);
  auto program = ProgramOp::create(builder, loc, entry.getName(),
                                   builder.getFunctionType(argumentTypes, {}));
  // Keep the model's names for its inputs and outputs (`cgc.name`).
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (Attribute name = entry.getArgAttr(i, kNameAttr))
      program.setArgAttr(i, kNameAttr, name);
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    if (Attribute name = entry.getResultAttr(i, kNameAttr))
      program.setArgAttr(numInputs + i, kNameAttr, name);
  builder.setInsertionPointToStart(&program.getBody().front());
  Value scratch = program.getArguments().back();
  SmallVector<Value> operands;
  for (const BindPoint &bindPoint : bindPoints) {
    switch (bindPoint.kind) {
    case BindPoint::Kind::Input:
      operands.push_back(program.getArgument(bindPoint.index));
      break;
    case BindPoint::Kind::Output:
      operands.push_back(program.getArgument(numInputs + bindPoint.index));
      break;
    case BindPoint::Kind::Constant:
      operands.push_back(ConstantOp::create(builder, loc, bindPoint.type, bindPoint.constant,
                                            bindPoint.permutation));
      break;
    case BindPoint::Kind::Intermediate:
      operands.push_back(nullptr); // viewed below, after the constants
      break;
    }
  }
  for (auto [index, bindPoint] : llvm::enumerate(bindPoints))
    if (bindPoint.kind == BindPoint::Kind::Intermediate)
      operands[index] = ViewMemRefOp::create(builder, loc, bindPoint.type, scratch,
                                             builder.getI64IntegerAttr(slotOffsets[bindPoint.index]));
  InvokeOp::create(builder, loc, FlatSymbolRefAttr::get(partition.getSymNameAttr()), operands);
  ReturnOp::create(builder, loc);
}

LogicalResult BaselineLowering::run() {
  for (Operation &op : module.getBody().front())
    usedNames.insert(SymbolTable::getSymbolName(&op).getValue());
  findLiveLayers();
  assignBindPoints();
  lowerLayers();
  lowerCopies();
  PartitionOp partition = createPartition();
  createProgram(partition);
  entry.erase();
  return success();
}

} // namespace

LogicalResult lowerToBaselineOutputIR(ModuleOp module, const BaselinePipelineOptions &options) {
  if (options.target.empty())
    return module.emitError() << "cgc-baseline-pipeline needs a non-empty 'target' option";
  SmallVector<EntryPointOp> entries;
  for (Operation &op : module.getBody().front()) {
    if (auto entry = dyn_cast<EntryPointOp>(op))
      entries.push_back(entry);
    else
      return op.emitOpError() << "cannot be lowered: cgc-baseline-pipeline takes Input IR "
                                 "(one cgc.entry_point and nothing else)";
  }
  if (entries.size() != 1)
    return module.emitError() << "cgc-baseline-pipeline takes Input IR with exactly one "
                                 "cgc.entry_point, found "
                              << entries.size();
  EntryPointOp entry = entries.front();
  module.getContext()->getOrLoadDialect<op::CGCOpDialect>();
  if (entry.isExternal())
    return entry.emitOpError() << "has no body to lower";
  if (entry.getNumResults() == 0)
    return entry.emitOpError() << "returns nothing: a program without outputs computes nothing";
  return BaselineLowering(module, entry, options.target).run();
}

void buildBaselinePipeline(OpPassManager &pm, const BaselinePipelineOptions &options) {
  pm.addPass(createBaselinePipeline(options));
}

namespace {
struct BaselinePipelinePass : impl::BaselinePipelineBase<BaselinePipelinePass> {
  using BaselinePipelineBase::BaselinePipelineBase;
  void runOnOperation() override {
    BaselinePipelineOptions options;
    options.target = target;
    if (failed(lowerToBaselineOutputIR(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace

} // namespace cgc
