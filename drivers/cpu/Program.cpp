//===- Program.cpp - compiling a partition into a plan ---------------------===//
//
// Each cgc.invoke becomes the steps of its subgraph, with definition
// arguments and results bound to the invoke's operands (bind points, or views
// of them at an offset) and the subgraph's scratch placed at the start of the
// temporary resource. When an invocation writes memory it also reads (an
// output overlapping an input of the same bind point), its outputs are staged
// in the temporary resource after the scratch and copied out at the end, so
// that no layer reads what an earlier layer of the same invocation wrote over.
//
//===----------------------------------------------------------------------===//

#include "Program.h"
#include "Buffer.h"
#include "Device.h"
#include "PartitionReader.h"
#include "SubgraphLowering.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;

namespace cgc::cpu {

namespace {

/// Appends the steps of one invocation of `lowered` to `plan`; returns the
/// temporary resource bytes they use.
uint64_t instantiate(const LoweredSubgraph &lowered, std::span<const BufferRef> inputs,
                     std::span<const BufferRef> outputs, Plan &plan) {
  // One kernel whose output is exactly one of its inputs' bytes is an
  // in-place elementwise layer or a reshape, which the compiler merges only
  // where that is safe; any other overlap is staged.
  auto isSameRange = [](const BufferRef &lhs, const BufferRef &rhs) {
    return lhs.base == rhs.base && lhs.bindPoint == rhs.bindPoint && lhs.offset == rhs.offset &&
           lhs.size == rhs.size;
  };
  bool singleKernel = lowered.steps.size() == 1 && !lowered.steps.front().isCopy;
  bool stageOutputs = std::any_of(outputs.begin(), outputs.end(), [&](const BufferRef &out) {
    return std::any_of(inputs.begin(), inputs.end(), [&](const BufferRef &in) {
      return out.overlaps(in) && !(singleKernel && isSameRange(out, in));
    });
  });
  uint64_t temporaryEnd = lowered.scratchSize;
  std::vector<BufferRef> results(outputs.begin(), outputs.end());
  if (stageOutputs) {
    temporaryEnd = alignTo(temporaryEnd, kScratchAlignment);
    for (BufferRef &result : results) {
      result = BufferRef::temporaryRange(temporaryEnd, result.size);
      temporaryEnd += alignTo(result.size, kScratchAlignment);
    }
  }

  auto toBufferRef = [&](const DefinitionRef &ref) {
    switch (ref.kind) {
    case DefinitionRef::Kind::Argument:
      return inputs[ref.index];
    case DefinitionRef::Kind::Result:
      return results[ref.index];
    case DefinitionRef::Kind::Scratch:
      break;
    }
    return BufferRef::temporaryRange(ref.offset, ref.size);
  };
  for (const LoweredStep &lowStep : lowered.steps) {
    PlanStep step;
    step.kind = lowStep.isCopy ? PlanStep::Kind::Copy : PlanStep::Kind::Kernel;
    step.kernel = lowStep.kernel;
    for (const DefinitionRef &ref : lowStep.inputs)
      step.inputs.push_back(toBufferRef(ref));
    for (const DefinitionRef &ref : lowStep.outputs)
      step.outputs.push_back(toBufferRef(ref));
    plan.steps.push_back(std::move(step));
  }
  if (stageOutputs) {
    for (auto [staged, output] : llvm::zip_equal(results, outputs)) {
      PlanStep copy;
      copy.kind = PlanStep::Kind::Copy;
      copy.inputs.push_back(staged);
      copy.outputs.push_back(output);
      plan.steps.push_back(std::move(copy));
    }
  }
  return temporaryEnd;
}

} // namespace

CompileFailure compilePartition(std::span<const uint8_t> container,
                                const std::string &programName, Plan &plan) {
  llvm::StringMap<LoweredSubgraph> lowered;
  return drivers::readPartition(
      container, programName, plan.bindPoints,
      [&](const std::string &where, SubgraphOp subgraph,
          std::span<const drivers::BindPointRange> ranges) -> CompileFailure {
        auto it = lowered.find(subgraph.getSymName());
        if (it == lowered.end()) {
          llvm::Expected<LoweredSubgraph> lowering = lowerSubgraph(subgraph);
          if (!lowering)
            return {CGC_ERROR_NOT_IMPLEMENTED,
                    where + ", " + llvm::toString(lowering.takeError())};
          it = lowered.try_emplace(subgraph.getSymName(), std::move(*lowering)).first;
        }
        std::vector<BufferRef> operands;
        for (const drivers::BindPointRange &range : ranges)
          operands.push_back(BufferRef::bindPointRange(range.bindPoint, range.offset, range.size));
        size_t numInputs = subgraph.getNumInputs();
        std::span<const BufferRef> all(operands);
        uint64_t used =
            instantiate(it->second, all.first(numInputs), all.subspan(numInputs), plan);
        plan.temporaryResourceSize = std::max(plan.temporaryResourceSize, used);
        return {};
      });
}

CgcStatus Device::createProgram(const char *name, const void *container, size_t containerSize,
                                Program *&out) {
  std::string programName = name ? name : "";
  Plan plan;
  CompileFailure failure = compilePartition(
      std::span(static_cast<const uint8_t *>(container), containerSize), programName, plan);
  if (failure.status != CGC_OK)
    return fail(failure.status, failure.message);
  out = programs.add(std::make_unique<Program>(*this, programName, std::move(plan)));
  return CGC_OK;
}

CgcStatus Program::getBindingProperties(CgcProgramBindingProperties &properties) {
  auto count = static_cast<uint32_t>(plan.bindPoints.size());
  if (properties.bindPoints) {
    if (properties.numBindPoints < count) {
      uint32_t capacity = properties.numBindPoints;
      properties.numBindPoints = count;
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "program '" + name + "' has " + std::to_string(count) +
                             " bind points but bindPoints holds " +
                             std::to_string(capacity));
    }
    std::copy(plan.bindPoints.begin(), plan.bindPoints.end(), properties.bindPoints);
  }
  properties.numBindPoints = count;
  properties.temporaryResourceSize = plan.temporaryResourceSize;
  properties.persistentResourceSize = 0;
  return CGC_OK;
}

} // namespace cgc::cpu
