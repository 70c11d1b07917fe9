//===- CudnnGraphKernel.cpp - a cuDNN graph as a fused kernel --------------===//

#include "CudnnGraphKernel.h"
#include "ChoiceCache.h"

#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/OperationSupport.h"

#include <cstdlib>

namespace cgc::cuda {

std::string formatTime(std::optional<float> milliseconds) {
  return milliseconds ? std::to_string(*milliseconds) : std::string("?");
}

namespace {

/// The positions of the plans this process chose by timing, by device and
/// definition (getPlanSearchKey): a model's repeated layers are timed once.
ChoiceCache<CudnnPlanPosition> &getPlanChoiceCache() {
  static ChoiceCache<CudnnPlanPosition> cache;
  return cache;
}

/// What determines the graph of `definition` on `device`: the definition
/// as printed (its types, attributes and body), without its name.
std::string getPlanSearchKey(int device, FunctionalDefinitionOp definition) {
  std::string text;
  llvm::raw_string_ostream os(text);
  definition->print(os, mlir::OpPrintingFlags().printGenericOpForm().useLocalScope());
  std::string name = ("\"" + definition.getSymName() + "\"").str();
  if (size_t at = text.find(name); at != std::string::npos)
    text.erase(at, name.size());
  return std::to_string(device) + ":" + text;
}

/// Whether cuDNN graph plans are timed: only where CGC_CUDA_CUDNN_TUNING is
/// "1". By default the heuristics' first plan runs: on an H100 (cuDNN 9.14)
/// the others that timing kept now and then made ResNet-50's batch-32
/// output differ by up to 2e-2 (relative; 7e-4 with the first plans), in 4
/// of 12 processes, though their numerical notes claim no reduced
/// precision.
bool isGraphTuningEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("CGC_CUDA_CUDNN_TUNING");
    return value && llvm::StringRef(value) == "1";
  }();
  return enabled;
}

/// The kernel executing `plan` with `graph`'s bindings.
Kernel makeGraphKernel(std::shared_ptr<CudnnPlan> plan, const GraphKernelPlan &graph,
                       std::string name) {
  uint64_t workspaceSize = static_cast<uint64_t>(plan->workspaceSize);
  auto launch = [plan = std::move(plan), uids = graph.uids, arguments = graph.arguments,
                 name = std::move(name)](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<void *, 8> pointers;
    for (int argument : arguments) {
      void *pointer = argument < 0 ? args.outputs[0] : const_cast<void *>(args.inputs[argument]);
      if (reinterpret_cast<uintptr_t>(pointer) % kGraphAlignment != 0)
        return name + ": the cuDNN graph needs " + std::to_string(kGraphAlignment) +
               "-byte aligned tensors; " +
               (argument < 0 ? std::string("the output")
                             : "argument " + std::to_string(argument)) +
               " is not";
      pointers.push_back(pointer);
    }
    cudnnStatus_t status = plan->execute(uids, pointers, args.workspace, args.stream);
    if (status != CUDNN_STATUS_SUCCESS)
      return name + ": cudnnBackendExecute failed: " + cudnnGetErrorString(status);
    return "";
  };
  return Kernel{std::move(launch), alignWorkspace(workspaceSize)};
}

} // namespace

std::optional<Kernel>
buildGraphKernel(FunctionalDefinitionOp definition, KernelContext::Impl &context,
                 llvm::function_ref<GraphKernelPlan(const CudnnPlanSearch &)> createPlans,
                 llvm::StringRef label, GraphPlanChoice &choice) {
  // A definition timed before takes the plan it chose; otherwise the first
  // plans are timed where tuning is on, and the fastest kept.
  bool tuning = isGraphTuningEnabled() && context.hasDevice();
  std::string key = tuning ? getPlanSearchKey(context.getDevice(), definition) : std::string();
  CudnnPlanSearch search;
  search.position = tuning ? getPlanChoiceCache().lookup(key) : std::nullopt;
  search.maxPlans = tuning ? kMaxTimedGraphPlans : 1;
  GraphKernelPlan graph = createPlans(search);
  if (graph.plans.empty() && search.position) {
    search.position.reset();
    graph = createPlans(search);
  }
  if (graph.plans.empty())
    return std::nullopt;

  std::string name = ("@" + definition.getSymName() + ": " + label).str();
  size_t chosen = 0;
  if (graph.plans.size() > 1) {
    std::vector<Kernel> kernels;
    llvm::SmallVector<const Kernel *, 4> timed;
    for (const std::shared_ptr<CudnnPlan> &plan : graph.plans)
      kernels.push_back(makeGraphKernel(plan, graph, name));
    for (const Kernel &kernel : kernels)
      timed.push_back(&kernel);
    std::vector<std::optional<float>> times = timeLaunches(definition, timed);
    for (size_t index = 0; index < times.size(); ++index)
      if (times[index] && (!times[chosen] || *times[index] < *times[chosen]))
        chosen = index;
    if (isVerbose()) {
      llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": cuDNN graph plans:";
      for (size_t index = 0; index < times.size(); ++index)
        llvm::errs() << " engine " << graph.plans[index]->engine
                     << (graph.plans[index]->compilesAtRuntime ? " (runtime fusion)" : "") << " "
                     << formatTime(times[index]) << " ms" << (index == chosen ? " (kept)" : "")
                     << ";";
      llvm::errs() << "\n";
    }
    if (times[chosen])
      getPlanChoiceCache().store(key, graph.plans[chosen]->position);
  }
  choice.engine = graph.plans[chosen]->engine;
  choice.timedPlans = graph.plans.size() > 1 ? static_cast<int>(graph.plans.size()) : 0;
  return makeGraphKernel(graph.plans[chosen], graph, std::move(name));
}

} // namespace cgc::cuda
