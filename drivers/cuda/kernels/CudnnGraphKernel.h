//===- CudnnGraphKernel.h - a cuDNN graph as a fused kernel ----*- C++ -*-===//
//
// What the families that run a definition as one cuDNN operation graph
// (FusedConvolution.cpp, FusedMatmul.cpp) share once their graph is built:
// the kernel that binds the definition's buffers to the graph's tensors and
// executes a plan, and the choice of the plan: the first of cuDNN's
// heuristics that finalizes. With CGC_CUDA_CUDNN_TUNING=1 the first plans
// that finalize (up to kMaxTimedGraphPlans) are timed once per process for
// each distinct definition and device and the fastest kept; its position
// in cuDNN's heuristics is remembered, so a model's repeated layers build
// only that plan (opt-in: some of those plans changed ResNet-50's outputs
// beyond float16's error, CudnnGraphKernel.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CUDNNGRAPHKERNEL_H
#define CGC_DRIVERS_CUDA_KERNELS_CUDNNGRAPHKERNEL_H

#include "CudnnGraph.h"
#include "FusedSupport.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda {

/// The byte alignment the cuDNN graphs are promised for every tensor
/// (memory planning aligns buffers to 64 bytes unless told otherwise;
/// launches check it).
constexpr int64_t kGraphAlignment = 16;
/// The most cuDNN graph plans a definition times (the first that finalize,
/// in heuristic order; see CudnnPlanSearch for the runtime-fusion engines
/// among them).
constexpr int64_t kMaxTimedGraphPlans = 4;

/// The plans of one graph (one, or the first few for timing) and the
/// definition argument bound to each of its tensors.
struct GraphKernelPlan {
  std::vector<std::shared_ptr<CudnnPlan>> plans;
  llvm::SmallVector<int64_t, 8> uids;
  /// Per uid: the definition argument, or -1 for the output.
  llvm::SmallVector<int, 8> arguments;
};

/// The plan a graph kernel runs: its engine and how many plans were timed
/// to choose it (0 when cuDNN had one, tuning is off, or this process
/// timed the same definition before and reused its choice).
struct GraphPlanChoice {
  int64_t engine = -1;
  int timedPlans = 0;
};

/// A time for the reports, or "?" when it could not be taken.
std::string formatTime(std::optional<float> milliseconds);

/// The kernel of `definition` as the graph that `createPlans` builds for a
/// plan search (null plans, with the reason in `reason`, when cuDNN has
/// none): the plan chosen as the file comment says, bound by `graph`'s
/// uids; std::nullopt when there is no plan. Launches name `label`
/// ("@<definition>: <label>") in their errors; CGC_CUDA_VERBOSE reports the
/// timed plans.
std::optional<Kernel>
buildGraphKernel(FunctionalDefinitionOp definition, KernelContext::Impl &context,
                 llvm::function_ref<GraphKernelPlan(const CudnnPlanSearch &)> createPlans,
                 llvm::StringRef label, GraphPlanChoice &choice);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CUDNNGRAPHKERNEL_H
