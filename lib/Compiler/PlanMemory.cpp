//===- PlanMemory.cpp - stage 3: liveness-based scratch planning ----------===//
//
// Values are the program's views of its scratch buffer (and, optionally, its
// inputs). Each lives over the steps (subgraph invocations in program order)
// that touch it; values whose lifetimes are disjoint may share bytes. The
// packer places values largest first at the best-fitting gap among the
// values they must not share with, as TFLite's arena planner and IREE's
// stream allocator do. Elementwise subgraphs may write their result over an
// operand that dies there (in-place), which merges the two values. A
// reshape's result is its operand's bytes under another shape: the two
// always merge (neither is written again), and the reshape costs nothing.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"
#include "ProgramAccesses.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <optional>

namespace cgc {
#define GEN_PASS_DEF_PLANMEMORY
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {

namespace {

/// A value to place in scratch: a view of the scratch argument or an input.
/// After in-place merging, the representative of a set of values also holds
/// the set's lifetime, size and alignment.
struct ScratchValue {
  /// The `cgc.view_memref` result, or the program argument (an input).
  Value value;
  uint64_t size = 0;
  uint64_t alignment = 1;
  /// Lifetime in steps; an input is live from -1 (copied in before step 0).
  int first = INT_MAX;
  int last = INT_MIN;
  /// The steps touching it, ascending.
  SmallVector<int> steps;
  /// The in-place representative (itself when unmerged).
  unsigned representative = 0;
  uint64_t offset = 0;

  bool isInput() const { return isa<BlockArgument>(value); }
  bool overlaps(const ScratchValue &other) const {
    return first <= other.last && other.first <= last;
  }
};

class MemoryPlanner {
public:
  MemoryPlanner(ProgramAccesses &accesses, const MemoryPlanOptions &options)
      : accesses(accesses), program(accesses.program), options(options) {}

  LogicalResult run(MemoryPlanReport &report);

private:
  LogicalResult collectValues();
  void computeDependencies();
  bool dependsOnAll(int step, ArrayRef<int> steps) const;
  bool canShare(const ScratchValue &a, const ScratchValue &b) const;
  /// How a subgraph may share its result's bytes with an operand: only
  /// elementwise layers (over an operand that dies there), or only reshapes
  /// of its one input (the same bytes, always).
  enum class InPlaceKind { None, Elementwise, Reshape };
  InPlaceKind getInPlaceKind(SubgraphOp subgraph);
  void mergeInPlace();
  unsigned find(unsigned index);
  SmallVector<unsigned> getGroups();
  uint64_t placeNaive();
  struct PackStrategy {
    /// The smallest fitting gap, else the lowest.
    bool bestFit;
    /// Values living at least this many steps go high in a gap that ends at
    /// the ceiling (else low), so that a chain of long-lived values (a
    /// transformer's residual stream) alternates between the bottom and the
    /// top and leaves the middle contiguous. INT_MAX: every value goes low.
    int extremesMinLifetime;
    /// The ceiling gaps end at: the lower bound.
    uint64_t capacity;
  };
  /// Places the values of `order` one by one; returns the footprint.
  uint64_t packInOrder(ArrayRef<unsigned> order, const PackStrategy &strategy);
  void pack();
  uint64_t computeLowerBound();
  void rewrite(uint64_t scratchBytes);

  ProgramAccesses &accesses;
  ProgramOp program;
  const MemoryPlanOptions &options;

  SmallVector<ScratchValue> values;
  llvm::DenseMap<Value, unsigned> valueIndex;
  /// Views of the scratch that no step touches: they get offset 0.
  SmallVector<ViewMemRefOp> untouchedViews;
  /// reach[s]: the steps that step s depends on through dataflow (with
  /// `concurrency` only).
  std::vector<llvm::BitVector> reach;
  llvm::DenseMap<Operation *, InPlaceKind> inPlaceKinds;
  unsigned numInPlace = 0;
};

LogicalResult MemoryPlanner::collectValues() {
  BlockArgument scratch = accesses.scratch;
  auto addValue = [&](Value value, MemRefType type) {
    ScratchValue scratchValue;
    scratchValue.value = value;
    scratchValue.size = type.getByteSize();
    scratchValue.alignment = std::max<uint64_t>(options.alignment, type.getAlignment());
    scratchValue.representative = values.size();
    valueIndex[value] = values.size();
    values.push_back(std::move(scratchValue));
  };
  if (scratch)
    for (auto view : program.getBody().getOps<ViewMemRefOp>())
      if (view.getSource() == scratch)
        addValue(view.getResult(), view.getResult().getType());

  if (options.inputsInScratch) {
    // Inputs: arguments that steps read and nothing writes or views.
    llvm::DenseSet<Value> read, written;
    for (const SubgraphStep &step : accesses.steps)
      for (const Access &access : step.operands)
        (access.written ? written : read).insert(access.value);
    for (BlockArgument argument : program.getArguments()) {
      if (argument == scratch || !read.contains(argument) || written.contains(argument) ||
          llvm::any_of(argument.getUsers(),
                       [](Operation *user) { return isa<ViewMemRefOp>(user); }))
        continue;
      if (!scratch)
        return program.emitOpError()
               << "has no scratch argument (a trailing !cgc.memref<Nx!cgc.int8>) to place "
                  "input #"
               << argument.getArgNumber() << " in";
      addValue(argument, cast<MemRefType>(argument.getType()));
      values.back().first = -1;
    }
  }

  for (const auto &[used, steps] : collectStepsPerValue(accesses)) {
    auto it = valueIndex.find(used);
    if (it == valueIndex.end())
      continue;
    ScratchValue &value = values[it->second];
    value.steps.assign(steps.begin(), steps.end());
    value.first = std::min<int>(value.first, steps.front());
    value.last = steps.back();
    for (unsigned step : steps)
      value.alignment =
          std::max(value.alignment,
                   options.targetAlignment.lookup(accesses.steps[step].subgraph.getOrigin()));
  }

  // Values that no step touches get no bytes.
  SmallVector<ScratchValue> touched;
  valueIndex.clear();
  for (ScratchValue &value : values) {
    if (value.steps.empty()) {
      if (auto view = value.value.getDefiningOp<ViewMemRefOp>())
        untouchedViews.push_back(view);
      continue;
    }
    value.representative = touched.size();
    valueIndex[value.value] = touched.size();
    touched.push_back(std::move(value));
  }
  values = std::move(touched);
  return success();
}

void MemoryPlanner::computeDependencies() {
  unsigned numSteps = accesses.steps.size();
  reach.assign(numSteps, llvm::BitVector(numSteps));
  std::vector<SmallVector<DataflowInput>> inputs = collectDataflowInputs(accesses);
  for (unsigned index = 0; index < numSteps; ++index)
    for (const DataflowInput &input : inputs[index]) {
      reach[index] |= reach[input.producer];
      reach[index].set(input.producer);
    }
}

bool MemoryPlanner::dependsOnAll(int step, ArrayRef<int> steps) const {
  return llvm::all_of(steps, [&](int other) { return other == step || reach[step].test(other); });
}

bool MemoryPlanner::canShare(const ScratchValue &a, const ScratchValue &b) const {
  if (a.overlaps(b))
    return false;
  if (!options.concurrency)
    return true;
  // Sharing orders every step touching the earlier value before the later
  // value's producer: allowed only where dataflow already does.
  const ScratchValue &earlier = a.last < b.first ? a : b;
  const ScratchValue &later = a.last < b.first ? b : a;
  return dependsOnAll(later.first, earlier.steps);
}

MemoryPlanner::InPlaceKind MemoryPlanner::getInPlaceKind(SubgraphOp subgraph) {
  auto [it, inserted] = inPlaceKinds.try_emplace(subgraph, InPlaceKind::None);
  if (!inserted)
    return it->second;
  FunctionalDefinitionOp definition = subgraph.getDefinition();
  if (!definition || definition.isExternal() || definition.getNumResults() != 1)
    return InPlaceKind::None;
  auto layers = definition.getBody().front().without_terminator();
  if (layers.empty())
    return InPlaceKind::None;
  if (llvm::all_of(layers, [](Operation &op) { return op.hasTrait<op::OpTrait::Elementwise>(); }))
    return it->second = InPlaceKind::Elementwise;
  if (definition.getNumArguments() == 1 &&
      llvm::all_of(layers, [](Operation &op) { return isa<op::ReshapeOp>(op); }))
    return it->second = InPlaceKind::Reshape;
  return InPlaceKind::None;
}

unsigned MemoryPlanner::find(unsigned index) {
  while (values[index].representative != index)
    index = values[index].representative = values[values[index].representative].representative;
  return index;
}

void MemoryPlanner::mergeInPlace() {
  for (auto [index, step] : llvm::enumerate(accesses.steps)) {
    int stepIndex = index;
    InPlaceKind kind = getInPlaceKind(step.subgraph);
    if (kind == InPlaceKind::None)
      continue;
    bool reshape = kind == InPlaceKind::Reshape;
    unsigned numInputs = step.subgraph.getNumInputs();
    if (step.operands.size() != numInputs + 1)
      continue;
    const Access &result = step.operands.back();
    auto resultIt = valueIndex.find(result.value);
    if (resultIt == valueIndex.end())
      continue;
    unsigned resultGroup = find(resultIt->second);
    ScratchValue &resultValue = values[resultGroup];
    // Positions of this step that touch the values of `group`.
    auto countPositions = [&](unsigned group) {
      return llvm::count_if(step.operands, [&](const Access &access) {
        auto it = valueIndex.find(access.value);
        return it != valueIndex.end() && find(it->second) == group;
      });
    };
    auto coversWhole = [&](const Access &access, const ScratchValue &value) {
      return access.offsetInValue == 0 && access.size == value.size;
    };
    if (resultValue.first != stepIndex || !coversWhole(result, resultValue) ||
        countPositions(resultGroup) != 1)
      continue;
    auto resultType = cast<MemRefType>(step.invoke.getOperands().back().getType());
    for (unsigned position = 0; position < numInputs; ++position) {
      const Access &operand = step.operands[position];
      auto operandIt = valueIndex.find(operand.value);
      if (operandIt == valueIndex.end())
        continue;
      unsigned group = find(operandIt->second);
      ScratchValue &operandValue = values[group];
      auto operandType = cast<MemRefType>(step.invoke.getOperand(position).getType());
      if (group == resultGroup || operandType.getElementType() != resultType.getElementType() ||
          !coversWhole(operand, values[operandIt->second]) || countPositions(group) != 1)
        continue;
      if (reshape) {
        // The same bytes under another shape: the operand may live on.
        if (operand.size != result.size)
          continue;
      } else if (operandValue.last != stepIndex ||
                 operandType.getShape() != resultType.getShape() ||
                 (options.concurrency && !dependsOnAll(stepIndex, operandValue.steps))) {
        continue;
      }
      // The result takes the operand's bytes.
      resultValue.representative = group;
      operandValue.last = std::max(operandValue.last, resultValue.last);
      operandValue.size = std::max(operandValue.size, resultValue.size);
      operandValue.alignment = std::max(operandValue.alignment, resultValue.alignment);
      SmallVector<int> steps;
      std::set_union(operandValue.steps.begin(), operandValue.steps.end(),
                     resultValue.steps.begin(), resultValue.steps.end(), std::back_inserter(steps));
      operandValue.steps = std::move(steps);
      ++numInPlace;
      break;
    }
  }
}

SmallVector<unsigned> MemoryPlanner::getGroups() {
  SmallVector<unsigned> groups;
  for (unsigned index = 0; index < values.size(); ++index)
    if (find(index) == index)
      groups.push_back(index);
  return groups;
}

uint64_t MemoryPlanner::placeNaive() {
  // One slot per value, in order of first use.
  SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, values.size()));
  llvm::stable_sort(order,
                    [&](unsigned a, unsigned b) { return values[a].first < values[b].first; });
  uint64_t end = 0;
  for (unsigned index : order) {
    ScratchValue &value = values[index];
    value.offset = llvm::alignTo(end, value.alignment);
    end = value.offset + value.size;
  }
  return llvm::alignTo(end, options.alignment);
}

uint64_t MemoryPlanner::packInOrder(ArrayRef<unsigned> order, const PackStrategy &strategy) {
  SmallVector<unsigned> placed;
  SmallVector<std::pair<uint64_t, uint64_t>> taken;
  uint64_t capacity = strategy.capacity;
  uint64_t footprint = 0;
  for (unsigned index : order) {
    ScratchValue &value = values[index];
    if (value.size == 0) {
      value.offset = 0;
      continue;
    }
    taken.clear();
    for (unsigned other : placed)
      if (!canShare(value, values[other]))
        taken.emplace_back(values[other].offset, values[other].offset + values[other].size);
    llvm::sort(taken);
    // The free gaps below `capacity` between taken ranges; the value goes in
    // the smallest one that holds it (best fit) or the lowest (first fit),
    // else after the last taken range.
    uint64_t cursor = 0;
    std::optional<std::pair<uint64_t, uint64_t>> chosen;
    auto consider = [&](uint64_t begin, uint64_t end) {
      if (end <= begin || llvm::alignTo(begin, value.alignment) + value.size > end)
        return;
      if (!chosen || (strategy.bestFit && end - begin < chosen->second - chosen->first))
        chosen = {begin, end};
    };
    for (auto [begin, end] : taken) {
      consider(cursor, begin);
      cursor = std::max(cursor, end);
    }
    consider(cursor, capacity);
    if (!chosen) {
      value.offset = llvm::alignTo(cursor, value.alignment);
    } else {
      auto [begin, end] = *chosen;
      uint64_t low = llvm::alignTo(begin, value.alignment);
      uint64_t high = llvm::alignDown(end - value.size, value.alignment);
      bool placeHigh = value.last - value.first >= strategy.extremesMinLifetime &&
                       begin != 0 && end == capacity;
      value.offset = placeHigh ? high : low;
    }
    footprint = std::max(footprint, value.offset + value.size);
    placed.push_back(index);
  }
  return footprint;
}

void MemoryPlanner::pack() {
  // Greedy packers each have graphs they do badly on; run a few and keep the
  // smallest footprint. Largest-first leaves transformer blocks one residual
  // tensor above the lower bound: their residual stream is a chain of
  // long-lived values, each overlapping the next, that best alternate
  // between the bottom and the top of the buffer.
  SmallVector<unsigned> groups = getGroups();
  auto lifetime = [&](unsigned index) { return values[index].last - values[index].first; };
  int maxLifetime = 0;
  for (unsigned index : groups)
    maxLifetime = std::max(maxLifetime, lifetime(index));
  uint64_t capacity = llvm::alignTo(computeLowerBound(), options.alignment);

  std::optional<uint64_t> best;
  SmallVector<uint64_t> bestOffsets;
  auto tryOrder = [&](function_ref<std::tuple<int, int64_t, int64_t>(unsigned)> key,
                      int extremesMinLifetime) {
    SmallVector<unsigned> order = groups;
    llvm::stable_sort(order, [&](unsigned a, unsigned b) { return key(a) < key(b); });
    for (bool bestFit : {true, false}) {
      uint64_t footprint = packInOrder(order, {bestFit, extremesMinLifetime, capacity});
      if (!best || footprint < *best) {
        best = footprint;
        bestOffsets = llvm::map_to_vector(values, [](const ScratchValue &v) { return v.offset; });
      }
    }
  };
  auto size = [&](unsigned index) { return static_cast<int64_t>(values[index].size); };
  auto first = [&](unsigned index) { return static_cast<int64_t>(values[index].first); };
  // Largest first (TFLite's greedy by size); largest area (bytes x steps)
  // first; in order of production.
  tryOrder([&](unsigned i) { return std::tuple(0, -size(i), first(i)); }, INT_MAX);
  tryOrder([&](unsigned i) { return std::tuple(0, -size(i) * (lifetime(i) + 1), first(i)); },
           INT_MAX);
  tryOrder([&](unsigned i) { return std::tuple(0, first(i), -size(i)); }, INT_MAX);
  // Long-lived values first, longest first, at the extremes; then the rest,
  // largest first.
  for (int percent : {75, 50, 25}) {
    int threshold = std::max(1, maxLifetime * percent / 100);
    tryOrder(
        [&](unsigned i) {
          return lifetime(i) >= threshold ? std::tuple(0, int64_t(-lifetime(i)), first(i))
                                          : std::tuple(1, -size(i), first(i));
        },
        threshold);
  }
  for (auto [value, offset] : llvm::zip(values, bestOffsets))
    value.offset = offset;
  // Merged values take their representative's offset.
  for (unsigned index = 0; index < values.size(); ++index)
    values[index].offset = values[find(index)].offset;
}

uint64_t MemoryPlanner::computeLowerBound() {
  unsigned numSteps = accesses.steps.size();
  std::vector<int64_t> delta(numSteps + 1, 0);
  for (unsigned group : getGroups()) {
    const ScratchValue &value = values[group];
    delta[std::max(value.first, 0)] += value.size;
    delta[value.last + 1] -= value.size;
  }
  int64_t live = 0, peak = 0;
  for (unsigned step = 0; step < numSteps; ++step) {
    live += delta[step];
    peak = std::max(peak, live);
  }
  return peak;
}

void MemoryPlanner::rewrite(uint64_t scratchBytes) {
  MLIRContext *context = program.getContext();
  Builder builder(context);
  for (const ScratchValue &value : values) {
    if (auto view = value.value.getDefiningOp<ViewMemRefOp>())
      view.setOffset(value.offset);
  }
  for (ViewMemRefOp view : untouchedViews)
    view.setOffset(0);
  for (BlockArgument argument : program.getArguments()) {
    auto it = valueIndex.find(argument);
    if (it != valueIndex.end())
      program.setArgAttr(argument.getArgNumber(), kScratchOffsetAttr,
                         builder.getI64IntegerAttr(values[it->second].offset));
    else
      program.removeArgAttr(argument.getArgNumber(), kScratchOffsetAttr);
  }
  // A schedule recorded for the old byte ranges no longer holds.
  program->removeAttr(kScheduleAttr);
  for (const PartitionInvocation &invocation : accesses.invocations)
    invocation.invoke->removeAttr(kDependsOnAttr);
  if (BlockArgument scratch = accesses.scratch) {
    auto type =
        MemRefType::get(context, {static_cast<int64_t>(scratchBytes)}, Int8Type::get(context));
    scratch.setType(type);
    SmallVector<Type> inputs(program.getArgumentTypes());
    inputs[scratch.getArgNumber()] = type;
    program.setFunctionType(builder.getFunctionType(inputs, program.getResultTypes()));
  }
}

LogicalResult MemoryPlanner::run(MemoryPlanReport &report) {
  if (failed(collectValues()))
    return failure();
  report = MemoryPlanReport();
  report.numValues = values.size();
  report.numInputsInScratch =
      llvm::count_if(values, [](const ScratchValue &value) { return value.isInput(); });
  report.naiveBytes = placeNaive();

  uint64_t end = 0;
  if (options.reuse) {
    if (options.concurrency)
      computeDependencies();
    if (options.inPlace)
      mergeInPlace();
    pack();
  } // else: the naive placement stands.
  for (const ScratchValue &value : values)
    end = std::max(end, value.offset + value.size);
  report.scratchBytes = llvm::alignTo(end, options.alignment);
  // A view no step touches still has to fit the buffer.
  for (ViewMemRefOp view : untouchedViews)
    report.scratchBytes =
        std::max(report.scratchBytes,
                 llvm::alignTo(view.getResult().getType().getByteSize(), options.alignment));
  report.numInPlace = numInPlace;
  report.lowerBoundBytes = computeLowerBound();
  rewrite(report.scratchBytes);

  Builder builder(program.getContext());
  auto i64 = [&](uint64_t number) { return builder.getI64IntegerAttr(number); };
  program->setAttr(kMemoryPlanAttr,
                   builder.getDictionaryAttr({
                       builder.getNamedAttr("scratch_bytes", i64(report.scratchBytes)),
                       builder.getNamedAttr("naive_bytes", i64(report.naiveBytes)),
                       builder.getNamedAttr("lower_bound_bytes", i64(report.lowerBoundBytes)),
                       builder.getNamedAttr("in_place", i64(report.numInPlace)),
                   }));
  return success();
}

} // namespace

LogicalResult planMemory(ModuleOp module, const MemoryPlanOptions &options,
                         MemoryPlanReport *report) {
  if (!llvm::isPowerOf2_64(options.alignment))
    return module.emitError() << "memory planning alignment " << options.alignment
                              << " must be a power of two";
  for (const auto &entry : options.targetAlignment)
    if (!llvm::isPowerOf2_64(entry.getValue()))
      return module.emitError() << "alignment " << entry.getValue() << " of target '"
                                << entry.getKey() << "' must be a power of two";
  ProgramOp program = getOnlyProgram(module, "memory planning");
  if (!program)
    return failure();
  FailureOr<ProgramAccesses> accesses = collectProgramAccesses(module, program);
  if (failed(accesses))
    return failure();
  MemoryPlanReport local;
  return MemoryPlanner(*accesses, options).run(report ? *report : local);
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct PlanMemoryPass : impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;
  void runOnOperation() override {
    compiler::MemoryPlanOptions options;
    options.reuse = reuse;
    options.inPlace = inPlace;
    options.inputsInScratch = inputsInScratch;
    options.concurrency = concurrency;
    options.alignment = alignment;
    for (const std::string &spec : targetAlignment) {
      FailureOr<std::pair<std::string, uint64_t>> parsed =
          compiler::parseTargetAlignment(spec, getOperation().getLoc());
      if (failed(parsed))
        return signalPassFailure();
      uint64_t &bytes = options.targetAlignment[parsed->first];
      bytes = std::max(bytes, parsed->second);
    }
    if (failed(compiler::planMemory(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
