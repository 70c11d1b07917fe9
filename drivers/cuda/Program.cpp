//===- Program.cpp - compiling a partition into a plan ---------------------===//
//
// A subgraph is lowered once, independently of any invocation: operands are
// named by definition argument and result index; internal values (neither
// arguments nor returned) and kernel workspaces get offsets in the temporary
// resource. Layout is first fit with liveness reuse (ScratchAllocator.h): a
// layer's outputs and its workspace are placed before its dying inputs are
// released, because kernels assume that their inputs, outputs and workspace
// do not overlap; the workspace is released right after its layer.
//
// Each cgc.invoke then instantiates its subgraph with the definition's
// arguments and results bound to the invoke's operands (bind points, or views
// of them at an offset). When an invocation writes memory it also reads (an
// output overlapping an input of the same bind point), its outputs are staged
// in the temporary resource after the scratch and copied out at the end, so
// that no layer reads what an earlier layer of the same invocation wrote;
// a one-kernel invocation whose output is exactly an input's bytes (the
// compiler's in-place elementwise layers and merged reshapes) is not staged.
//
//===----------------------------------------------------------------------===//

#include "Program.h"
#include "CudaSupport.h"
#include "Device.h"
#include "FusedKernels.h"
#include "Kernels.h"

#include "PartitionReader.h"
#include "ScratchAllocator.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <system_error>

using namespace mlir;

namespace cgc::cuda {

namespace {

//===----------------------------------------------------------------------===//
// Lowering one subgraph
//===----------------------------------------------------------------------===//

/// Where a value of a functional definition lives while the subgraph runs.
struct DefinitionRef {
  enum class Kind : uint8_t {
    Argument, // the invocation's input `index`
    Result,   // the invocation's output `index`
    Scratch,  // `offset` bytes into the temporary resource
  };
  Kind kind = Kind::Scratch;
  unsigned index = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// A kernel over definition values, or a copy of `inputs[0]` to `outputs[0]`
/// (a result that is an argument, or a value returned twice).
struct LoweredStep {
  bool isCopy = false;
  std::shared_ptr<const Kernel> kernel;
  llvm::SmallVector<DefinitionRef, 4> inputs;
  llvm::SmallVector<DefinitionRef, 2> outputs;
  uint64_t workspaceOffset = 0;
  uint64_t workspaceSize = 0;
};

/// A subgraph ready to instantiate.
struct LoweredSubgraph {
  std::vector<LoweredStep> steps;
  /// Bytes of the temporary resource the steps use while the subgraph runs.
  uint64_t scratchSize = 0;
};

/// An error that keeps the kernel library's error code (what the failure
/// means) under a message with more context.
llvm::Error withContext(const std::string &context, llvm::Error error) {
  std::error_code code;
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &info) {
    if (!message.empty())
      message += "; ";
    message += info.message();
    if (!code)
      code = info.convertToErrorCode();
  });
  return llvm::createStringError(code ? code : llvm::inconvertibleErrorCode(),
                                 context + ": " + message);
}

llvm::Error makeError(const std::string &message) {
  return llvm::createStringError(std::make_error_code(std::errc::invalid_argument), message);
}

uint64_t getByteSize(Value value) { return cast<TensorType>(value.getType()).getByteSize(); }

llvm::Expected<LoweredSubgraph> lowerSubgraph(SubgraphOp subgraph, KernelContext &kernels) {
  std::string context = ("subgraph @" + subgraph.getSymName()).str();
  FunctionalDefinitionOp definition = subgraph.getDefinition();
  if (!definition || definition.getBody().empty())
    return makeError(context + ": has no functional definition");
  Block &body = definition.getBody().front();
  auto terminator = cast<ReturnOp>(body.getTerminator());

  // A subgraph of the fused target runs as one fused kernel; the fallback
  // target's one-layer subgraphs run the per-layer kernels.
  if (!subgraph.getOrigin().ends_with(".fallback") && definition.getNumResults() >= 1) {
    std::optional<llvm::Expected<Kernel>> fused = buildFusedKernel(definition, kernels);
    if (fused && !*fused) {
      // The driver accepted the match, but its fused kernel could not be
      // built here (a library refused every configuration, say): the layers
      // still have kernels of their own. Slower, never wrong; say so.
      llvm::errs() << "cgc-driver-cuda: " << context << ": the fused kernel is unavailable ("
                   << llvm::toString(fused->takeError()) << "); running it layer by layer\n";
      fused.reset();
    }
    if (fused) {
      LoweredStep step;
      step.workspaceSize = (*fused)->workspaceSize;
      step.kernel = std::make_shared<const Kernel>(std::move(**fused));
      for (BlockArgument argument : definition.getArguments())
        step.inputs.push_back({DefinitionRef::Kind::Argument, argument.getArgNumber(), 0,
                               getByteSize(argument)});
      for (auto [index, type] : llvm::enumerate(definition.getResultTypes()))
        step.outputs.push_back({DefinitionRef::Kind::Result, static_cast<unsigned>(index), 0,
                                cast<TensorType>(type).getByteSize()});
      LoweredSubgraph lowered;
      lowered.scratchSize = step.workspaceSize;
      lowered.steps.push_back(std::move(step));
      return lowered;
    }
  }

  // Where each value lives: arguments and returned values in the invocation's
  // memrefs, everything else in the temporary resource.
  llvm::DenseMap<Value, DefinitionRef> location;
  for (BlockArgument argument : definition.getArguments())
    location[argument] = {DefinitionRef::Kind::Argument, argument.getArgNumber(), 0,
                          getByteSize(argument)};
  for (auto [index, value] : llvm::enumerate(terminator.getOperands()))
    if (isa<OpResult>(value) && !location.count(value))
      location[value] = {DefinitionRef::Kind::Result, static_cast<unsigned>(index), 0,
                         getByteSize(value)};

  llvm::DenseMap<Value, Operation *> lastReader;
  for (Operation &op : body.without_terminator())
    for (Value operand : op.getOperands())
      lastReader[operand] = &op;

  LoweredSubgraph lowered;
  drivers::ScratchAllocator scratch(kAlignment);
  for (Operation &op : body.without_terminator()) {
    llvm::Expected<Kernel> kernel = buildKernel(&op, kernels);
    if (!kernel)
      return withContext(context, kernel.takeError());

    LoweredStep step;
    step.workspaceSize = kernel->workspaceSize;
    step.kernel = std::make_shared<const Kernel>(std::move(*kernel));
    for (Value operand : op.getOperands())
      step.inputs.push_back(location.lookup(operand));
    for (Value result : op.getResults()) {
      auto [it, placed] = location.try_emplace(result);
      if (placed) {
        uint64_t size = getByteSize(result);
        it->second = {DefinitionRef::Kind::Scratch, 0, scratch.allocate(size), size};
      }
      step.outputs.push_back(it->second);
    }
    // The workspace lives only while this layer runs.
    step.workspaceOffset = scratch.allocate(step.workspaceSize);
    scratch.release(step.workspaceOffset, step.workspaceSize);
    lowered.steps.push_back(std::move(step));

    // Release what nothing reads any more: inputs read here for the last
    // time, and results nobody reads.
    llvm::DenseSet<Value> released;
    auto releaseIfDead = [&](Value value, bool dead) {
      const DefinitionRef &ref = location[value];
      if (dead && ref.kind == DefinitionRef::Kind::Scratch && released.insert(value).second)
        scratch.release(ref.offset, ref.size);
    };
    for (Value operand : op.getOperands())
      releaseIfDead(operand, lastReader.lookup(operand) == &op);
    for (Value result : op.getResults())
      releaseIfDead(result, !lastReader.count(result));
  }

  // Results that are not where their producer wrote them: an argument
  // returned as is, or a value returned more than once.
  for (auto [index, value] : llvm::enumerate(terminator.getOperands())) {
    const DefinitionRef &source = location[value];
    if (source.kind == DefinitionRef::Kind::Result && source.index == index)
      continue;
    LoweredStep copy;
    copy.isCopy = true;
    copy.inputs.push_back(source);
    copy.outputs.push_back(
        {DefinitionRef::Kind::Result, static_cast<unsigned>(index), 0, getByteSize(value)});
    lowered.steps.push_back(std::move(copy));
  }
  lowered.scratchSize = scratch.getPeak();
  return lowered;
}

//===----------------------------------------------------------------------===//
// Instantiating invocations
//===----------------------------------------------------------------------===//

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
    temporaryEnd = drivers::alignTo(temporaryEnd, kAlignment);
    for (BufferRef &result : results) {
      result = BufferRef::temporaryRange(temporaryEnd, result.size);
      temporaryEnd += drivers::alignTo(result.size, kAlignment);
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
    step.workspace = BufferRef::temporaryRange(lowStep.workspaceOffset, lowStep.workspaceSize);
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

/// The status a kernel library error stands for: what the driver cannot do
/// is UNSUPPORTED unless the library said otherwise.
CgcStatus getCompileStatus(std::error_code code) {
  if (code == std::errc::invalid_argument)
    return CGC_ERROR_INVALID_ARGUMENT;
  if (code == std::errc::not_enough_memory)
    return CGC_ERROR_OUT_OF_MEMORY;
  return CGC_ERROR_UNSUPPORTED;
}

//===----------------------------------------------------------------------===//
// Partitions
//===----------------------------------------------------------------------===//

/// A subgraph lowered, or why it could not be.
struct LoweringResult {
  std::optional<LoweredSubgraph> lowered;
  std::error_code code;
  std::string message;
};

LoweringResult lowerForPlan(SubgraphOp subgraph, KernelContext &kernels) {
  LoweringResult result;
  llvm::Expected<LoweredSubgraph> lowering = lowerSubgraph(subgraph, kernels);
  if (lowering) {
    result.lowered = std::move(*lowering);
    return result;
  }
  llvm::handleAllErrors(lowering.takeError(), [&](const llvm::ErrorInfoBase &info) {
    result.message = info.message();
    result.code = info.convertToErrorCode();
  });
  return result;
}

/// Lowers every subgraph of the partition that holds `first` at once, on up
/// to hardware_concurrency threads: kernel builds compile code (NVRTC, cuDNN's
/// runtime fusion) and time candidates, and a partition may hold dozens.
llvm::StringMap<LoweringResult> lowerAllSubgraphs(SubgraphOp first, KernelContext &kernels) {
  std::vector<SubgraphOp> subgraphs;
  for (mlir::Operation &op : first->getParentOp()->getRegion(0).front())
    if (auto subgraph = llvm::dyn_cast<SubgraphOp>(op))
      subgraphs.push_back(subgraph);
  std::vector<LoweringResult> results(subgraphs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    // Kernels create code and library descriptors on the current device.
    ScopedCurrentDevice current(kernels.getDevice());
    for (size_t index = next++; index < subgraphs.size(); index = next++)
      results[index] = lowerForPlan(subgraphs[index], kernels);
  };
  size_t numThreads =
      std::min<size_t>(subgraphs.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (size_t thread = 1; thread < numThreads; ++thread)
    threads.emplace_back(work);
  work();
  for (std::thread &thread : threads)
    thread.join();
  llvm::StringMap<LoweringResult> lowered;
  for (auto [subgraph, result] : llvm::zip_equal(subgraphs, results))
    lowered.try_emplace(subgraph.getSymName(), std::move(result));
  return lowered;
}

} // namespace

CompileFailure compilePartition(std::span<const uint8_t> container, const std::string &programName,
                                KernelContext &kernels, Plan &plan) {
  llvm::StringMap<LoweringResult> lowered;
  return drivers::readPartition(
      container, programName, plan.bindPoints,
      [&](const std::string &where, SubgraphOp subgraph,
          std::span<const drivers::BindPointRange> ranges) -> CompileFailure {
        if (lowered.empty())
          lowered = lowerAllSubgraphs(subgraph, kernels);
        auto it = lowered.find(subgraph.getSymName());
        if (it == lowered.end())
          it = lowered.try_emplace(subgraph.getSymName(), lowerForPlan(subgraph, kernels)).first;
        const LoweringResult &lowering = it->second;
        if (!lowering.lowered)
          return {getCompileStatus(lowering.code), where + ", " + lowering.message};
        std::vector<BufferRef> operands;
        for (const drivers::BindPointRange &range : ranges)
          operands.push_back(BufferRef::bindPointRange(range.bindPoint, range.offset, range.size));
        size_t numInputs = subgraph.getNumInputs();
        std::span<const BufferRef> all(operands);
        uint64_t used =
            instantiate(*lowering.lowered, all.first(numInputs), all.subspan(numInputs), plan);
        plan.temporaryResourceSize = std::max(plan.temporaryResourceSize, used);
        return {};
      });
}

CgcStatus Device::createProgram(const char *name, const void *container, size_t containerSize,
                                Program *&out) {
  std::string programName = name ? name : "";
  llvm::Expected<KernelContext &> kernels = getKernelContext();
  if (!kernels)
    return fail(CGC_ERROR_UNSUPPORTED,
                "program '" + programName + "': " + llvm::toString(kernels.takeError()));
  // Building kernels may compile code and create library descriptors on the
  // current device.
  ScopedCurrentDevice current(getOrdinal());
  if (current.getError() != cudaSuccess)
    return failCuda("program '" + programName + "'", "cudaSetDevice", current.getError());
  Plan plan;
  CompileFailure failure =
      compilePartition(std::span(static_cast<const uint8_t *>(container), containerSize),
                       programName, *kernels, plan);
  if (failure.status != CGC_OK)
    return fail(failure.status, failure.message);
  out = programs.add(std::make_unique<Program>(*this, programName, std::move(plan)));
  return CGC_OK;
}

Program::~Program() {
  // A kernel may hold device memory, modules or library descriptors.
  ScopedCurrentDevice current(device.getOrdinal());
  plan.steps.clear();
}

CgcStatus Program::getBindingProperties(CgcProgramBindingProperties &properties) {
  auto count = static_cast<uint32_t>(plan.bindPoints.size());
  if (properties.bindPoints) {
    if (properties.numBindPoints < count) {
      uint32_t capacity = properties.numBindPoints;
      properties.numBindPoints = count;
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "program '" + name + "' has " + std::to_string(count) +
                             " bind points but bindPoints holds " + std::to_string(capacity));
    }
    std::copy(plan.bindPoints.begin(), plan.bindPoints.end(), properties.bindPoints);
  }
  properties.numBindPoints = count;
  properties.temporaryResourceSize = plan.temporaryResourceSize;
  properties.persistentResourceSize = 0;
  return CGC_OK;
}

} // namespace cgc::cuda
