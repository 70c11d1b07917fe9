//===- ScheduleProgram.cpp - stage 4: range-aware execution scheduling ----===//
//
// Two partition invocations of the program conflict when one writes a byte
// range of a buffer that the other reads or writes. The conflicts, reduced
// transitively, are the dependencies the runtime records barriers for; the
// invocations are ordered by dependency level (ASAP, program order within a
// level), so that a runtime with only global barriers needs one per level.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"
#include "ProgramAccesses.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>

namespace cgc {
#define GEN_PASS_DEF_SCHEDULEPROGRAM
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {

namespace {

/// The earlier invocations each invocation conflicts with, ascending.
std::vector<SmallVector<unsigned>> findConflicts(ArrayRef<PartitionInvocation> invocations) {
  std::vector<SmallVector<unsigned>> conflicts(invocations.size());
  // Per buffer, the accesses of the invocations seen so far.
  llvm::DenseMap<unsigned, SmallVector<std::pair<unsigned, const Access *>>> byBuffer;
  std::vector<unsigned> markedBy(invocations.size(), ~0u);
  for (auto [index, invocation] : llvm::enumerate(invocations)) {
    unsigned later = index;
    for (const Access &access : invocation.accesses) {
      auto it = byBuffer.find(access.buffer);
      if (it == byBuffer.end())
        continue;
      for (auto [earlier, other] : it->second)
        if ((access.written || other->written) && markedBy[earlier] != later &&
            access.overlaps(*other)) {
          markedBy[earlier] = later;
          conflicts[later].push_back(earlier);
        }
    }
    llvm::sort(conflicts[later]);
    for (const Access &access : invocation.accesses)
      byBuffer[access.buffer].emplace_back(later, &access);
  }
  return conflicts;
}

/// Drops each dependency implied by the others (the graph is in topological
/// order: dependencies point to earlier invocations).
std::vector<SmallVector<unsigned>>
reduceTransitively(const std::vector<SmallVector<unsigned>> &dependencies) {
  unsigned count = dependencies.size();
  std::vector<llvm::BitVector> reach(count, llvm::BitVector(count));
  std::vector<SmallVector<unsigned>> reduced(count);
  for (unsigned later = 0; later < count; ++later) {
    // Latest first: an earlier dependency reachable through a later one is
    // implied by it.
    for (unsigned earlier : llvm::reverse(dependencies[later])) {
      if (reach[later].test(earlier))
        continue;
      reduced[later].push_back(earlier);
      reach[later] |= reach[earlier];
      reach[later].set(earlier);
    }
    std::reverse(reduced[later].begin(), reduced[later].end());
  }
  return reduced;
}

} // namespace

LogicalResult scheduleProgram(ModuleOp module, const ScheduleOptions &options,
                              ScheduleReport *report) {
  ProgramOp program = getOnlyProgram(module, "scheduling");
  if (!program)
    return failure();
  FailureOr<ProgramAccesses> accesses = collectProgramAccesses(module, program);
  if (failed(accesses))
    return failure();
  ArrayRef<PartitionInvocation> invocations = accesses->invocations;
  unsigned count = invocations.size();

  std::vector<SmallVector<unsigned>> dependencies = reduceTransitively(findConflicts(invocations));
  SmallVector<unsigned> levels(count, 0);
  unsigned numLevels = 0;
  for (unsigned index = 0; index < count; ++index) {
    for (unsigned dependency : dependencies[index])
      levels[index] = std::max(levels[index], levels[dependency] + 1);
    numLevels = std::max(numLevels, levels[index] + 1);
  }

  // The final order: by level (stable), or program order.
  SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, count));
  if (options.reorder)
    llvm::stable_sort(order, [&](unsigned a, unsigned b) { return levels[a] < levels[b]; });
  SmallVector<unsigned> position(count);
  for (auto [newPosition, index] : llvm::enumerate(order))
    position[index] = newPosition;
  if (!llvm::equal(order, llvm::seq<unsigned>(0, count))) {
    // Constants and views stay where they are: each precedes the return, so
    // invocations moved to just before it still see their operands.
    Block &body = program.getBody().front();
    Operation *terminator = &body.back();
    for (unsigned index : order) {
      Operation *invoke = invocations[index].invoke;
      if (isa<ReturnOp>(terminator))
        invoke->moveBefore(terminator);
      else
        invoke->moveBefore(&body, body.end());
    }
  }

  ScheduleReport local;
  ScheduleReport &out = report ? *report : local;
  out = ScheduleReport();
  out.numInvocations = count;
  out.numGlobalBarriers = numLevels == 0 ? 0 : numLevels - 1;
  for (unsigned index = 0; index < count; ++index) {
    SmallVector<int64_t> dependsOn = llvm::map_to_vector(
        dependencies[index], [&](unsigned dependency) -> int64_t { return position[dependency]; });
    llvm::sort(dependsOn);
    out.numDependencies += dependsOn.size();
    out.numBarriers += !dependsOn.empty();
    invocations[index].invoke->setAttr(kDependsOnAttr,
                                       DenseI64ArrayAttr::get(program.getContext(), dependsOn));
  }

  Builder builder(program.getContext());
  auto i64 = [&](uint64_t number) { return builder.getI64IntegerAttr(number); };
  program->setAttr(kScheduleAttr,
                   builder.getDictionaryAttr({
                       builder.getNamedAttr("invocations", i64(out.numInvocations)),
                       builder.getNamedAttr("dependencies", i64(out.numDependencies)),
                       builder.getNamedAttr("barriers", i64(out.numBarriers)),
                       builder.getNamedAttr("global_barriers", i64(out.numGlobalBarriers)),
                   }));
  return success();
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct ScheduleProgramPass : impl::ScheduleProgramBase<ScheduleProgramPass> {
  using ScheduleProgramBase::ScheduleProgramBase;
  void runOnOperation() override {
    compiler::ScheduleOptions options;
    options.reorder = reorder;
    if (failed(compiler::scheduleProgram(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
