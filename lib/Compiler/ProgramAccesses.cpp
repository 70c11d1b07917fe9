//===- ProgramAccesses.cpp - what each step of a program reads and writes -===//

#include "ProgramAccesses.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;

namespace cgc::compiler {

namespace {

/// Where a memref value lives; its size comes from its type.
struct Location {
  Value value;
  unsigned buffer = 0;
  uint64_t offset = 0;
  uint64_t offsetInValue = 0;
};

Access makeAccess(const Location &location, Type type, bool written) {
  return {location.value,         location.buffer,
          location.offset,        cast<MemRefType>(type).getByteSize(),
          location.offsetInValue, written};
}

/// Per bind point of a partition: whether a subgraph uses it and whether one
/// writes it. Computed once per partition (PartitionOp::isBindPointWritten
/// builds a symbol table per call).
struct BindPointUse {
  llvm::SmallVector<bool> used, written;
};

/// The bind point a partition value views, looking through views.
BlockArgument getViewedBindPoint(Value value) {
  while (auto view = value.getDefiningOp<ViewMemRefOp>())
    value = view.getSource();
  return dyn_cast<BlockArgument>(value);
}

bool isScratchType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getRank() == 1 && isa<Int8Type>(memref.getElementType()) &&
         !memref.getIsConstant();
}

} // namespace

ProgramOp getOnlyProgram(ModuleOp module, StringRef pass) {
  auto programs = module.getBody().getOps<ProgramOp>();
  if (!llvm::hasSingleElement(programs)) {
    module.emitError() << pass << " takes Output IR with exactly one cgc.program, found "
                       << std::distance(programs.begin(), programs.end());
    return nullptr;
  }
  return *programs.begin();
}

FailureOr<ProgramAccesses> collectProgramAccesses(ModuleOp module, ProgramOp program) {
  if (program.isExternal())
    return program.emitOpError() << "has no body";
  ProgramAccesses result;
  result.program = program;
  Block &body = program.getBody().front();
  unsigned numArguments = program.getNumArguments();

  // The scratch argument: trailing, `Nx!cgc.int8`, never bound directly.
  if (numArguments != 0) {
    BlockArgument last = program.getArgument(numArguments - 1);
    bool boundDirectly =
        llvm::any_of(last.getUsers(), [](Operation *user) { return isa<InvokeOp>(user); });
    if (isScratchType(last.getType()) && !boundDirectly)
      result.scratch = last;
  }

  llvm::DenseMap<Value, Location> locations;
  for (BlockArgument argument : program.getArguments()) {
    Location location{argument, argument.getArgNumber(), 0, 0};
    auto offset =
        program.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(), kScratchOffsetAttr);
    if (offset && argument != result.scratch) {
      if (!result.scratch)
        return program.emitOpError()
               << "argument #" << argument.getArgNumber() << " has '" << kScratchOffsetAttr
               << "' but the program has no scratch argument";
      uint64_t size = cast<MemRefType>(argument.getType()).getByteSize();
      uint64_t scratchSize = cast<MemRefType>(result.scratch.getType()).getByteSize();
      if (offset.getInt() < 0 || static_cast<uint64_t>(offset.getInt()) + size > scratchSize)
        return program.emitOpError()
               << "argument #" << argument.getArgNumber() << " is placed in scratch at "
               << offset.getInt() << " but its " << size << " bytes do not fit the " << scratchSize
               << "-byte scratch buffer";
      location.buffer = result.scratch.getArgNumber();
      location.offset = offset.getInt();
    }
    locations[argument] = location;
  }

  SymbolTable symbols(module);
  // One buffer per constant name and permutation.
  llvm::DenseMap<std::pair<Attribute, Attribute>, unsigned> constantBuffers;
  llvm::DenseMap<Operation *, BindPointUse> bindPointUses;
  auto getBindPointUse = [&](PartitionOp partition) -> FailureOr<const BindPointUse *> {
    auto [it, inserted] = bindPointUses.try_emplace(partition);
    BindPointUse &use = it->second;
    if (!inserted)
      return &use;
    use.used.assign(partition.getNumArguments(), false);
    use.written.assign(partition.getNumArguments(), false);
    for (InvokeOp invoke : partition.getBody().getOps<InvokeOp>()) {
      auto subgraph = symbols.lookup<SubgraphOp>(invoke.getCallee());
      if (!subgraph)
        return invoke.emitOpError()
               << "in partition @" << partition.getName() << " does not invoke a cgc.subgraph";
      unsigned numInputs = subgraph.getNumInputs();
      for (auto [position, operand] : llvm::enumerate(invoke.getOperands())) {
        BlockArgument bindPoint = getViewedBindPoint(operand);
        if (!bindPoint)
          return invoke.emitOpError()
                 << "operand #" << position << " is not a bind point of partition @"
                 << partition.getName() << " (or a view of one)";
        use.used[bindPoint.getArgNumber()] = true;
        if (position >= numInputs)
          use.written[bindPoint.getArgNumber()] = true;
      }
    }
    return &use;
  };

  for (Operation &op : body) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto [it, inserted] =
          constantBuffers.try_emplace({constant.getNameAttr(), constant.getPermutationAttr()},
                                      numArguments + constantBuffers.size());
      locations[constant.getResult()] = {constant.getResult(), it->second, 0, 0};
      continue;
    }
    if (auto view = dyn_cast<ViewMemRefOp>(op)) {
      auto it = locations.find(view.getSource());
      if (it == locations.end())
        return view.emitOpError() << "views a value the program does not define earlier";
      Location location = it->second;
      uint64_t offset = view.getOffset();
      if (isa<BlockArgument>(view.getSource())) {
        // A view of an argument is a value of its own.
        location.value = view.getResult();
        location.offsetInValue = 0;
      } else {
        location.offsetInValue += offset;
      }
      location.offset += offset;
      locations[view.getResult()] = location;
      continue;
    }
    auto invoke = dyn_cast<InvokeOp>(op);
    if (!invoke)
      continue;
    auto partition = symbols.lookup<PartitionOp>(invoke.getCallee());
    if (!partition || partition.isExternal())
      return invoke.emitOpError() << "in a cgc.program must invoke a cgc.partition with a body";
    if (partition.getNumArguments() != invoke.getNumOperands())
      return invoke.emitOpError() << "passes " << invoke.getNumOperands() << " operands but @"
                                  << partition.getName() << " takes "
                                  << partition.getNumArguments();
    FailureOr<const BindPointUse *> use = getBindPointUse(partition);
    if (failed(use))
      return failure();

    unsigned invocationIndex = result.invocations.size();
    PartitionInvocation &invocation = result.invocations.emplace_back();
    invocation.invoke = invoke;
    invocation.partition = partition;
    // Partition values resolved to program level.
    llvm::DenseMap<Value, Location> partitionLocations;
    for (auto [index, operand] : llvm::enumerate(invoke.getOperands())) {
      auto it = locations.find(operand);
      if (it == locations.end())
        return invoke.emitOpError()
               << "operand #" << index << " is not a program argument, constant or view";
      partitionLocations[partition.getArgument(index)] = it->second;
      if ((*use)->used[index])
        invocation.accesses.push_back(
            makeAccess(it->second, operand.getType(), (*use)->written[index]));
    }
    for (Operation &inner : partition.getBody().front()) {
      if (auto view = dyn_cast<ViewMemRefOp>(inner)) {
        Location location = partitionLocations.lookup(view.getSource());
        location.offset += view.getOffset();
        location.offsetInValue += view.getOffset();
        partitionLocations[view.getResult()] = location;
        continue;
      }
      auto subgraphInvoke = dyn_cast<InvokeOp>(inner);
      if (!subgraphInvoke)
        continue;
      SubgraphStep &step = result.steps.emplace_back();
      step.subgraph = symbols.lookup<SubgraphOp>(subgraphInvoke.getCallee());
      step.invoke = subgraphInvoke;
      step.invocation = invocationIndex;
      unsigned numInputs = step.subgraph.getNumInputs();
      for (auto [position, operand] : llvm::enumerate(subgraphInvoke.getOperands()))
        step.operands.push_back(makeAccess(partitionLocations.lookup(operand), operand.getType(),
                                           position >= numInputs));
    }
  }
  return result;
}

llvm::MapVector<Value, SmallVector<unsigned>>
collectStepsPerValue(const ProgramAccesses &accesses) {
  llvm::MapVector<Value, SmallVector<unsigned>> steps;
  for (auto [index, step] : llvm::enumerate(accesses.steps))
    for (const Access &access : step.operands) {
      SmallVector<unsigned> &touching = steps[access.value];
      if (touching.empty() || touching.back() != index)
        touching.push_back(index);
    }
  return steps;
}

std::vector<SmallVector<DataflowInput>> collectDataflowInputs(const ProgramAccesses &accesses) {
  std::vector<SmallVector<DataflowInput>> inputs(accesses.steps.size());
  llvm::DenseMap<Value, unsigned> lastWriter;
  for (auto [index, step] : llvm::enumerate(accesses.steps)) {
    SmallVector<DataflowInput> &reads = inputs[index];
    for (const Access &access : step.operands) {
      if (access.written)
        continue;
      auto it = lastWriter.find(access.value);
      auto isThisValue = [&](const DataflowInput &read) { return read.value == access.value; };
      if (it != lastWriter.end() && llvm::none_of(reads, isThisValue))
        reads.push_back({it->second, access.value});
    }
    llvm::stable_sort(reads, [](const DataflowInput &a, const DataflowInput &b) {
      return a.producer < b.producer;
    });
    for (const Access &access : step.operands)
      if (access.written)
        lastWriter[access.value] = index;
  }
  return inputs;
}

} // namespace cgc::compiler
