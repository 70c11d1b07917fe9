//===- PartitionSubgraphs.cpp - matched stage -> Output IR, naive plan -----===//
//
// Stage 2 of the compiler. The entry point's `cgc.call`s are the units: they
// are grouped into partitions, each partition gets one memref bind point per
// distinct buffer it touches, and the entry point becomes a `cgc.program`
// that binds constants, views every intermediate at its own aligned slot of
// one scratch buffer and invokes the partitions in order.
//
// Per-target grouping is list scheduling over the call graph: among the calls
// whose producers are all placed, the open partition takes the earliest one of
// its own target (while the layer cap allows); only when there is none does
// it close, and the next partition starts with the earliest ready call. The
// placement order is a topological order and every partition is a contiguous
// run of it, so every partition is convex: a path that left a partition and
// came back would pass through a call placed between two of its calls.
//
// Bind points are ordered from the partition's side: what flows in (program
// inputs, then earlier partitions' values), constants, what flows out
// (program outputs, then values later partitions read), then values that live
// only inside it. That is the spec's order for both of its partitions and the
// baseline pipeline's when there is one partition.
//
// Copies (an output that is an input, a constant, or a value returned at an
// earlier position) run last: they join the last partition when it belongs to
// the fallback target and the cap allows, else they open fallback partitions
// of their own at the end.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <set>

namespace cgc {
#define GEN_PASS_DEF_PARTITIONSUBGRAPHS
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {
namespace {

/// The argument and result attribute holding the model's name for an input or
/// output; copied from the entry point onto the program.
constexpr llvm::StringLiteral kNameAttr = "cgc.name";

bool isLayerOp(Operation *op) {
  return op->getDialect() && isa<op::CGCOpDialect>(op->getDialect());
}

MemRefType toMemRef(Type type) {
  auto tensor = cast<TensorType>(type);
  return MemRefType::get(tensor.getContext(), tensor.getShape(), tensor.getElementType(),
                         tensor.getIsConstant());
}

/// A buffer of the program: what one partition bind point is bound to.
struct Buffer {
  enum class Kind { Input, Constant, Output, Intermediate };
  Kind kind;
  /// Program argument (Input), output position (Output), scratch slot in
  /// production order (Intermediate).
  unsigned index = 0;
  StringRef constant; // the constant's name (Constant)
  MemRefType type;
  /// Intermediate: the partition that writes it, and whether a later
  /// partition reads it.
  unsigned producer = 0;
  bool readLater = false;
  /// Constant: its `permutation` (null: bound as stored). One name bound
  /// with two permutations is two buffers.
  ArrayAttr permutation;
};

/// One subgraph invocation: a call of the entry point, or a copy into an
/// output.
struct Step {
  SubgraphOp subgraph;
  unsigned numLayers = 0;
  Location loc;
  /// Call: the call's operands and results. Copy: the copied value, and
  /// `outputPosition` the output it writes.
  SmallVector<Value> inputs;
  SmallVector<Value> results;
  std::optional<unsigned> outputPosition;
  /// The program buffer of each invocation operand (inputs, then results).
  SmallVector<unsigned> buffers;
};

class Partitioner {
public:
  Partitioner(ModuleOp module, EntryPointOp entry, const PartitionOptions &options,
              const MatchOptions &matchOptions)
      : module(module), entry(entry), options(options), matchOptions(matchOptions),
        builder(module.getContext()) {}

  LogicalResult run(PartitionReport &report);

private:
  LogicalResult collectCalls();
  void groupPerTarget();
  void groupPerSubgraph();
  LogicalResult addCopies();
  void assignBuffers();
  SmallVector<unsigned> orderBindPoints(unsigned partition) const;
  std::string uniqueName(const Twine &stem);
  SubgraphOp getCopySubgraph(TensorType source, Location loc);
  PartitionOp createPartition(unsigned partition, ArrayRef<unsigned> bindPoints);
  void createProgram(ArrayRef<PartitionOp> partitionOps,
                     ArrayRef<SmallVector<unsigned>> bindPoints);
  void eraseUnusedSubgraphs();

  StringRef getTarget(unsigned step) const {
    SubgraphOp subgraph = steps[step].subgraph;
    return subgraph.getOrigin();
  }

  ModuleOp module;
  EntryPointOp entry;
  const PartitionOptions &options;
  const MatchOptions &matchOptions;
  OpBuilder builder;
  llvm::StringSet<> usedNames;

  /// Calls in entry order, then copies.
  SmallVector<Step> steps;
  unsigned numCalls = 0;
  /// Each partition's steps, in invocation order.
  SmallVector<SmallVector<unsigned>> partitions;
  /// Return positions whose value an earlier position (or no call) holds.
  SmallVector<std::pair<Value, unsigned>> copies;
  /// The first position returning each call result that is an output.
  llvm::DenseMap<Value, unsigned> outputPosition;
  llvm::DenseMap<TensorType, SubgraphOp> copySubgraphs;

  SmallVector<Buffer> buffers;
  llvm::DenseMap<Value, unsigned> bufferOfValue;
};

LogicalResult Partitioner::collectCalls() {
  auto returnOp = cast<ReturnOp>(entry.getBody().front().getTerminator());
  SmallVector<CallOp> calls;
  for (Operation &op : entry.getBody().front()) {
    if (isLayerOp(&op))
      return op.emitOpError() << "is a layer left in the entry point: cgc-partition takes "
                                 "subgraph calls; run cgc-match-subgraphs first";
    if (auto call = dyn_cast<CallOp>(op))
      calls.push_back(call);
  }

  // Calls are in dataflow order, so one backward sweep finds the live ones.
  llvm::DenseSet<Value> liveValues(returnOp.getOperands().begin(), returnOp.getOperands().end());
  SmallVector<CallOp> liveCalls;
  for (CallOp call : llvm::reverse(calls)) {
    if (llvm::none_of(call.getResults(), [&](Value v) { return liveValues.contains(v); }))
      continue;
    liveCalls.push_back(call);
    liveValues.insert(call.getOperands().begin(), call.getOperands().end());
  }
  std::reverse(liveCalls.begin(), liveCalls.end());

  SymbolTable symbols(module);
  llvm::DenseMap<Operation *, unsigned> layersOfSubgraph;
  for (CallOp call : liveCalls) {
    auto subgraph = symbols.lookup<SubgraphOp>(call.getCallee());
    if (!subgraph || !subgraph.getDefinition())
      return call.emitOpError() << "callee " << call.getCalleeAttr()
                                << " is not a cgc.subgraph with a functional definition";
    auto [it, inserted] = layersOfSubgraph.try_emplace(subgraph, 0);
    if (inserted)
      it->second = llvm::count_if(subgraph.getDefinition().getBody().front(),
                                  [](Operation &op) { return isLayerOp(&op); });
    Step step{subgraph, it->second, call.getLoc(), {}, {}, std::nullopt, {}};
    step.inputs.assign(call.getOperands().begin(), call.getOperands().end());
    step.results.assign(call.getResults().begin(), call.getResults().end());
    steps.push_back(std::move(step));
  }
  numCalls = steps.size();

  for (auto [position, value] : llvm::enumerate(returnOp.getOperands())) {
    bool producedByCall = isa_and_nonnull<CallOp>(value.getDefiningOp());
    if (producedByCall && outputPosition.try_emplace(value, position).second)
      continue;
    copies.emplace_back(value, position);
  }
  return success();
}

void Partitioner::groupPerTarget() {
  // The call graph: each call's distinct consumers, and how many distinct
  // producers it still waits for.
  llvm::DenseMap<Value, unsigned> producer;
  for (unsigned i = 0; i < numCalls; ++i)
    for (Value result : steps[i].results)
      producer[result] = i;
  SmallVector<llvm::SmallSetVector<unsigned, 4>> consumers(numCalls);
  SmallVector<unsigned> waitingFor(numCalls, 0);
  for (unsigned i = 0; i < numCalls; ++i) {
    llvm::SmallSetVector<unsigned, 4> producers;
    for (Value input : steps[i].inputs)
      if (auto it = producer.find(input); it != producer.end())
        producers.insert(it->second);
    waitingFor[i] = producers.size();
    for (unsigned p : producers)
      consumers[p].insert(i);
  }

  std::set<unsigned> ready; // by entry order
  for (unsigned i = 0; i < numCalls; ++i)
    if (waitingFor[i] == 0)
      ready.insert(i);
  unsigned openLayers = 0;
  auto fits = [&](unsigned step) {
    return options.maxLayers == 0 || openLayers + steps[step].numLayers <= options.maxLayers;
  };
  while (!ready.empty()) {
    std::optional<unsigned> next;
    if (!partitions.empty()) {
      StringRef target = getTarget(partitions.back().front());
      for (unsigned step : ready)
        if (getTarget(step) == target && fits(step)) {
          next = step;
          break;
        }
    }
    if (!next) {
      next = *ready.begin();
      partitions.emplace_back();
      openLayers = 0;
    }
    partitions.back().push_back(*next);
    openLayers += steps[*next].numLayers;
    ready.erase(*next);
    for (unsigned consumer : consumers[*next])
      if (--waitingFor[consumer] == 0)
        ready.insert(consumer);
  }
  // Invocations follow the entry's order: a topological order within the
  // partition too.
  for (SmallVector<unsigned> &partition : partitions)
    llvm::sort(partition);
}

void Partitioner::groupPerSubgraph() {
  for (unsigned i = 0; i < numCalls; ++i)
    partitions.push_back({i});
}

std::string Partitioner::uniqueName(const Twine &stem) {
  std::string base = stem.str();
  std::string name = base;
  for (unsigned suffix = 1; !usedNames.insert(name).second; ++suffix)
    name = base + "_" + std::to_string(suffix);
  return name;
}

SubgraphOp Partitioner::getCopySubgraph(TensorType source, Location loc) {
  // One symbol per source type: copies of one type are one subgraph.
  if (SubgraphOp existing = copySubgraphs.lookup(source))
    return existing;
  TensorType resultType = source.withConstant(false);
  std::string name = uniqueName("copy_" + Twine(copySubgraphs.size()));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBodyBlock());
  auto subgraph = SubgraphOp::create(builder, loc, builder.getStringAttr(name),
                                     builder.getStringAttr(matchOptions.fallbackTarget));
  builder.setInsertionPointToStart(&subgraph.getBody().emplaceBlock());
  auto definition = FunctionalDefinitionOp::create(
      builder, loc, name + "_functional", builder.getFunctionType(source, resultType));
  definition.setPrivate();
  builder.setInsertionPointToStart(&definition.getBody().front());
  auto reshape = op::ReshapeOp::create(builder, loc, resultType, definition.getArgument(0),
                                       builder.getI64ArrayAttr(source.getShape()));
  ReturnOp::create(builder, loc, reshape.getResult());
  copySubgraphs[source] = subgraph;
  return subgraph;
}

LogicalResult Partitioner::addCopies() {
  if (copies.empty())
    return success();
  if (matchOptions.fallbackTarget.empty())
    return entry.emitOpError() << "needs copies into " << copies.size()
                               << " output(s) but no fallback target is set for them";
  bool perTarget = options.mode == PartitionOptions::Mode::PerTarget;
  unsigned openLayers = 0;
  bool open = false;
  if (perTarget && !partitions.empty() &&
      getTarget(partitions.back().front()) == matchOptions.fallbackTarget) {
    open = true;
    for (unsigned step : partitions.back())
      openLayers += steps[step].numLayers;
  }
  for (auto [value, position] : copies) {
    SubgraphOp subgraph = getCopySubgraph(cast<TensorType>(value.getType()), value.getLoc());
    steps.push_back({subgraph, 1, value.getLoc(), {value}, {}, position, {}});
    bool fits = options.maxLayers == 0 || openLayers + 1 <= options.maxLayers;
    if (!open || !fits) {
      partitions.emplace_back();
      openLayers = 0;
      open = perTarget;
    }
    partitions.back().push_back(steps.size() - 1);
    ++openLayers;
  }
  return success();
}

void Partitioner::assignBuffers() {
  auto add = [&](Buffer buffer) {
    buffers.push_back(buffer);
    return static_cast<unsigned>(buffers.size() - 1);
  };
  for (BlockArgument argument : entry.getArguments())
    bufferOfValue[argument] = add({Buffer::Kind::Input, argument.getArgNumber(), {},
                                   toMemRef(argument.getType()).withConstant(false)});
  SmallVector<unsigned> outputBuffers;
  for (auto [position, type] : llvm::enumerate(entry.getResultTypes()))
    outputBuffers.push_back(add({Buffer::Kind::Output, static_cast<unsigned>(position), {},
                                 toMemRef(type).withConstant(false)}));
  for (auto [value, position] : outputPosition)
    bufferOfValue[value] = outputBuffers[position];
  llvm::DenseMap<std::pair<Attribute, Attribute>, unsigned> bufferOfConstant;
  auto bufferOf = [&](Value value) {
    if (auto constant = value.getDefiningOp<ConstantOp>()) {
      ArrayAttr permutation = constant.getPermutationAttr();
      auto [it, inserted] = bufferOfConstant.try_emplace(
          {constant.getNameAttr(), permutation}, buffers.size());
      if (inserted) {
        Buffer buffer{Buffer::Kind::Constant, 0, constant.getName(),
                      toMemRef(constant.getType())};
        buffer.permutation = permutation;
        add(buffer);
      }
      return it->second;
    }
    return bufferOfValue.at(value);
  };

  // Intermediates in production order: partition by partition.
  unsigned slot = 0;
  for (auto [partitionIndex, partition] : llvm::enumerate(partitions)) {
    for (unsigned stepIndex : partition) {
      Step &step = steps[stepIndex];
      for (Value input : step.inputs) {
        unsigned buffer = bufferOf(input);
        step.buffers.push_back(buffer);
        if (buffers[buffer].kind == Buffer::Kind::Intermediate &&
            buffers[buffer].producer != partitionIndex)
          buffers[buffer].readLater = true;
      }
      for (Value result : step.results) {
        auto [it, inserted] = bufferOfValue.try_emplace(result, buffers.size());
        if (inserted) {
          Buffer buffer{Buffer::Kind::Intermediate, slot++, {},
                        toMemRef(result.getType()).withConstant(false)};
          buffer.producer = partitionIndex;
          add(buffer);
        }
        step.buffers.push_back(it->second);
      }
      if (step.outputPosition)
        step.buffers.push_back(outputBuffers[*step.outputPosition]);
    }
  }
}

SmallVector<unsigned> Partitioner::orderBindPoints(unsigned partition) const {
  // From the partition's side: what flows in (program inputs, then values of
  // earlier partitions), constants, what flows out (program outputs, then
  // values later partitions read), then what lives only inside it. This is
  // the spec's order for both of its partitions, and the baseline's order
  // when there is one partition.
  llvm::SetVector<unsigned> touched; // in order of first use
  for (unsigned step : partitions[partition])
    touched.insert(steps[step].buffers.begin(), steps[step].buffers.end());
  auto rank = [&](unsigned index) {
    const Buffer &buffer = buffers[index];
    switch (buffer.kind) {
    case Buffer::Kind::Input:
      return 0;
    case Buffer::Kind::Constant:
      return 2;
    case Buffer::Kind::Output:
      return 3;
    case Buffer::Kind::Intermediate:
      if (buffer.producer != partition)
        return 1;
      return buffer.readLater ? 4 : 5;
    }
    return 5;
  };
  // Constants keep their first-use order; the others sort by argument
  // number, output position or production order.
  auto key = [&](unsigned position) {
    const Buffer &buffer = buffers[touched[position]];
    unsigned index = buffer.kind == Buffer::Kind::Constant ? position : buffer.index;
    return std::pair(rank(touched[position]), index);
  };
  auto positions = llvm::to_vector(llvm::seq<unsigned>(0, touched.size()));
  llvm::sort(positions, [&](unsigned a, unsigned b) { return key(a) < key(b); });
  return llvm::map_to_vector(positions, [&](unsigned position) { return touched[position]; });
}

PartitionOp Partitioner::createPartition(unsigned partition, ArrayRef<unsigned> bindPoints) {
  SmallVector<Type> types =
      llvm::map_to_vector(bindPoints, [&](unsigned buffer) -> Type { return buffers[buffer].type; });
  llvm::DenseMap<unsigned, unsigned> bindPointOfBuffer;
  for (auto [index, buffer] : llvm::enumerate(bindPoints))
    bindPointOfBuffer[buffer] = index;

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBodyBlock());
  Location loc = steps[partitions[partition].front()].loc;
  std::string name = uniqueName("partition_" + Twine(partition));
  auto partitionOp = PartitionOp::create(builder, loc, name, builder.getFunctionType(types, {}));
  builder.setInsertionPointToStart(&partitionOp.getBody().front());
  for (unsigned stepIndex : partitions[partition]) {
    const Step &step = steps[stepIndex];
    SubgraphOp subgraph = step.subgraph;
    SmallVector<Value> operands = llvm::map_to_vector(step.buffers, [&](unsigned buffer) -> Value {
      return partitionOp.getArgument(bindPointOfBuffer.at(buffer));
    });
    InvokeOp::create(builder, step.loc, FlatSymbolRefAttr::get(subgraph.getSymNameAttr()),
                     operands);
  }
  ReturnOp::create(builder, loc);
  return partitionOp;
}

void Partitioner::createProgram(ArrayRef<PartitionOp> partitionOps,
                                ArrayRef<SmallVector<unsigned>> bindPoints) {
  MLIRContext *context = module.getContext();
  Location loc = entry.getLoc();
  // The naive plan: every intermediate in its own aligned slot, in production
  // order.
  SmallVector<uint64_t> slotOffsets;
  uint64_t scratchBytes = 0;
  for (const Buffer &buffer : buffers) {
    if (buffer.kind != Buffer::Kind::Intermediate)
      continue;
    uint64_t offset = llvm::alignTo(scratchBytes, std::max(options.alignment,
                                                           buffer.type.getAlignment()));
    slotOffsets.push_back(offset);
    scratchBytes = offset + buffer.type.getByteSize();
  }
  scratchBytes = llvm::alignTo(scratchBytes, options.alignment);
  auto scratchType = MemRefType::get(context, {static_cast<int64_t>(scratchBytes)},
                                     Int8Type::get(context));

  SmallVector<Type> argumentTypes;
  for (Type type : entry.getArgumentTypes())
    argumentTypes.push_back(toMemRef(type).withConstant(false));
  unsigned numInputs = argumentTypes.size();
  for (Type type : entry.getResultTypes())
    argumentTypes.push_back(toMemRef(type).withConstant(false));
  argumentTypes.push_back(scratchType);

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBodyBlock());
  auto program = ProgramOp::create(builder, loc, entry.getName(),
                                   builder.getFunctionType(argumentTypes, {}));
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (Attribute name = entry.getArgAttr(i, kNameAttr))
      program.setArgAttr(i, kNameAttr, name);
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    if (Attribute name = entry.getResultAttr(i, kNameAttr))
      program.setArgAttr(numInputs + i, kNameAttr, name);
  builder.setInsertionPointToStart(&program.getBody().front());

  // Constants in order of first binding, then the views of the intermediates.
  SmallVector<Value> valueOfBuffer(buffers.size());
  for (ArrayRef<unsigned> partition : bindPoints)
    for (unsigned index : partition)
      if (buffers[index].kind == Buffer::Kind::Constant && !valueOfBuffer[index])
        valueOfBuffer[index] =
            ConstantOp::create(builder, loc, buffers[index].type, buffers[index].constant,
                               buffers[index].permutation);
  Value scratch = program.getArguments().back();
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    switch (buffer.kind) {
    case Buffer::Kind::Input:
      valueOfBuffer[index] = program.getArgument(buffer.index);
      break;
    case Buffer::Kind::Output:
      valueOfBuffer[index] = program.getArgument(numInputs + buffer.index);
      break;
    case Buffer::Kind::Intermediate:
      valueOfBuffer[index] =
          ViewMemRefOp::create(builder, loc, buffer.type, scratch,
                               builder.getI64IntegerAttr(slotOffsets[buffer.index]));
      break;
    case Buffer::Kind::Constant:
      break;
    }
  }
  for (auto [index, partition] : llvm::enumerate(bindPoints)) {
    PartitionOp partitionOp = partitionOps[index];
    SmallVector<Value> operands =
        llvm::map_to_vector(partition, [&](unsigned index) { return valueOfBuffer[index]; });
    InvokeOp::create(builder, partitionOp.getLoc(),
                     FlatSymbolRefAttr::get(partitionOp.getSymNameAttr()), operands);
  }
  ReturnOp::create(builder, loc);
}

void Partitioner::eraseUnusedSubgraphs() {
  llvm::DenseSet<Operation *> invoked;
  for (const Step &step : steps)
    invoked.insert(step.subgraph);
  for (Operation &op : llvm::make_early_inc_range(module.getBodyBlock()->getOperations()))
    if (isa<SubgraphOp>(op) && !invoked.contains(&op))
      op.erase();
}

LogicalResult Partitioner::run(PartitionReport &report) {
  for (Operation &op : module.getBodyBlock()->getOperations())
    if (auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      usedNames.insert(name.getValue());
  if (failed(collectCalls()))
    return failure();
  if (options.mode == PartitionOptions::Mode::PerTarget)
    groupPerTarget();
  else
    groupPerSubgraph();
  if (failed(addCopies()))
    return failure();
  assignBuffers();

  SmallVector<SmallVector<unsigned>> bindPoints;
  SmallVector<PartitionOp> partitionOps;
  for (unsigned partition = 0; partition < partitions.size(); ++partition) {
    bindPoints.push_back(orderBindPoints(partition));
    partitionOps.push_back(createPartition(partition, bindPoints.back()));
  }
  createProgram(partitionOps, bindPoints);
  entry.erase();
  eraseUnusedSubgraphs();

  report.numPartitions = partitions.size();
  report.numInvocations = steps.size();
  return success();
}

} // namespace

LogicalResult partitionSubgraphs(ModuleOp module, const PartitionOptions &options,
                                 const MatchOptions &matchOptions, PartitionReport *report) {
  if (options.alignment == 0 || !llvm::isPowerOf2_64(options.alignment))
    return module.emitError() << "cgc-partition: the scratch slot alignment must be a power "
                                 "of two, got "
                              << options.alignment;
  SmallVector<EntryPointOp> entries;
  for (Operation &op : module.getBodyBlock()->getOperations()) {
    if (auto entry = dyn_cast<EntryPointOp>(op))
      entries.push_back(entry);
    else if (!isa<SubgraphOp>(op))
      return op.emitOpError() << "cannot be partitioned: cgc-partition takes the matched stage "
                                 "(cgc.subgraph ops and one cgc.entry_point)";
  }
  if (entries.size() != 1)
    return module.emitError() << "cgc-partition takes the matched stage with exactly one "
                                 "cgc.entry_point, found "
                              << entries.size();
  EntryPointOp entry = entries.front();
  if (entry.isExternal())
    return entry.emitOpError() << "has no body to partition";
  if (entry.getNumResults() == 0)
    return entry.emitOpError() << "returns nothing: a program without outputs computes nothing";
  module.getContext()->getOrLoadDialect<op::CGCOpDialect>();
  PartitionReport local;
  return Partitioner(module, entry, options, matchOptions).run(report ? *report : local);
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct PartitionSubgraphsPass : impl::PartitionSubgraphsBase<PartitionSubgraphsPass> {
  using PartitionSubgraphsBase::PartitionSubgraphsBase;

  void runOnOperation() override {
    using Mode = compiler::PartitionOptions::Mode;
    std::optional<Mode> parsed = llvm::StringSwitch<std::optional<Mode>>(mode)
                                     .Case("per-target", Mode::PerTarget)
                                     .Case("per-subgraph", Mode::PerSubgraph)
                                     .Default(std::nullopt);
    if (!parsed) {
      getOperation().emitError() << "cgc-partition: unknown mode '" << mode
                                 << "', expected per-target or per-subgraph";
      return signalPassFailure();
    }
    compiler::PartitionOptions options;
    options.mode = *parsed;
    options.maxLayers = maxLayers;
    options.alignment = alignment;
    compiler::MatchOptions matchOptions;
    matchOptions.fallbackTarget = fallbackTarget;
    if (failed(compiler::partitionSubgraphs(getOperation(), options, matchOptions)))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
