//===- CudnnGraph.h - operation graphs through cuDNN's backend API -*- C++ -*-===//
//
// cuDNN's graph (backend) API: tensors and operations are descriptors whose
// attributes are set one by one and then finalized; an operation graph of
// them gets engine configurations from cuDNN's heuristics, and the first
// configuration that finalizes into an execution plan runs the graph (or
// the fastest of the first few, for a caller that times them). A kernel
// builds the plan once; a launch binds the device pointers of the
// graph's tensors (a variant pack) and executes the plan on its stream.
//
// CudnnGraphBuilder keeps the first failure: later calls do nothing, so a
// graph is written as a straight sequence of calls and checked once.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CUDNNGRAPH_H
#define CGC_DRIVERS_CUDA_KERNELS_CUDNNGRAPH_H

#include "LibraryHandles.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda {

/// An owned backend descriptor.
class BackendDescriptor {
public:
  BackendDescriptor() = default;
  explicit BackendDescriptor(cudnnBackendDescriptor_t descriptor) : descriptor(descriptor) {}
  BackendDescriptor(BackendDescriptor &&other) noexcept;
  BackendDescriptor &operator=(BackendDescriptor &&other) noexcept;
  BackendDescriptor(const BackendDescriptor &) = delete;
  BackendDescriptor &operator=(const BackendDescriptor &) = delete;
  ~BackendDescriptor();
  cudnnBackendDescriptor_t get() const { return descriptor; }

private:
  cudnnBackendDescriptor_t descriptor = nullptr;
};

/// Builds the descriptors of one graph; owns them until taken.
class CudnnGraphBuilder {
public:
  /// A new descriptor of `type` (null once the builder has failed).
  cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t type);
  /// cudnnBackendSetAttribute; `what` names the attribute in messages.
  void set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, int64_t count, const void *values, const char *what);
  void setInt64(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                int64_t value, const char *what);
  void setInt64s(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                 llvm::ArrayRef<int64_t> values, const char *what);
  void setDataType(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                   cudnnDataType_t value, const char *what);
  void setFloat(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name, float value,
                const char *what);
  void setDescriptor(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                     cudnnBackendDescriptor_t value, const char *what);
  /// cudnnBackendFinalize.
  void finalize(cudnnBackendDescriptor_t descriptor, const char *what);

  /// A finalized tensor descriptor: packed row-major strides of `dims`,
  /// `alignment` bytes, virtual tensors (intermediates no pointer binds)
  /// when `isVirtual`.
  cudnnBackendDescriptor_t createTensor(int64_t uid, cudnnDataType_t dataType,
                                        llvm::ArrayRef<int64_t> dims, int64_t alignment,
                                        bool isVirtual);
  /// The same with the given `strides` (one per dimension, in elements):
  /// channels-last tensors keep cuDNN's logical N×C×H×W dimensions and
  /// describe their layout by strides.
  cudnnBackendDescriptor_t createTensor(int64_t uid, cudnnDataType_t dataType,
                                        llvm::ArrayRef<int64_t> dims,
                                        llvm::ArrayRef<int64_t> strides, int64_t alignment,
                                        bool isVirtual);

  bool hasFailed() const { return failed; }
  /// What failed first ("<call> <what>: <status> (<cuDNN's message>)").
  const std::string &getError() const { return error; }
  /// Records a failure of the caller's own.
  void fail(const std::string &message);
  /// The descriptors created so far (whoever runs the graph keeps them).
  std::vector<BackendDescriptor> takeDescriptors() { return std::move(descriptors); }

private:
  bool check(cudnnStatus_t status, const char *call, const char *what);

  std::vector<BackendDescriptor> descriptors;
  bool failed = false;
  std::string error;
};

/// Engines a plan must not use, by numerical note.
struct CudnnEngineFilter {
  /// No tensor-core engines (float32 must not round through TF32).
  bool rejectTensorCores = false;
  /// The largest workspace a plan may ask for.
  int64_t maxWorkspace = int64_t(1) << 30;
};

/// Where an engine configuration stands in cuDNN's heuristics: the list of
/// one heuristic mode and the index in it. The heuristics rank the same
/// graph the same way, so a position found once names the configuration
/// again.
struct CudnnPlanPosition {
  cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  int64_t index = 0;
};

/// A finalized execution plan and the graph it was made from (kept alive
/// with it, and shared by the plans made from one graph).
struct CudnnPlan {
  std::shared_ptr<CudnnHandle> handle;
  std::shared_ptr<std::vector<BackendDescriptor>> graph;
  BackendDescriptor plan;
  int64_t workspaceSize = 0;
  /// The engine's global index (for reports).
  int64_t engine = -1;
  /// Its engine configuration in the heuristics.
  CudnnPlanPosition position;
  /// The engine compiled code when the plan finalized (runtime fusion).
  bool compilesAtRuntime = false;

  /// Executes the plan on `stream` under the handle's lock, the tensors
  /// `uids` bound to `pointers` (one each).
  cudnnStatus_t execute(llvm::ArrayRef<int64_t> uids, llvm::ArrayRef<void *> pointers,
                        void *workspace, cudaStream_t stream) const;
};

/// Which plans createCudnnPlans makes.
struct CudnnPlanSearch {
  /// The most plans (the first configurations that `filter` allows and
  /// that finalize, in heuristic order).
  int64_t maxPlans = 1;
  /// Of those after the first, the most whose engine compiles at runtime:
  /// each costs a compilation, tens to hundreds of milliseconds.
  int64_t maxRuntimeCompiled = 1;
  /// Only the configuration at this position (one found before).
  std::optional<CudnnPlanPosition> position;
};

/// The plans of the graph of `operations` (finalized operation descriptors
/// of `builder`, which also made the tensors they use; the plans take all
/// of its descriptors): the operation graph is finalized, then engine
/// configurations of cuDNN's heuristics (mode A, or the fallback list when
/// mode A has none) that `filter` allows and that finalize become plans, as
/// `search` says. Everything runs under the handle's lock. When there is no
/// plan, says why in `reason`.
std::vector<std::unique_ptr<CudnnPlan>>
createCudnnPlans(std::shared_ptr<CudnnHandle> handle, CudnnGraphBuilder &builder,
                 llvm::ArrayRef<cudnnBackendDescriptor_t> operations,
                 const CudnnEngineFilter &filter, const CudnnPlanSearch &search,
                 std::string &reason);

/// The first plan of createCudnnPlans; null (with the reason) when there is
/// none.
std::unique_ptr<CudnnPlan> createCudnnPlan(std::shared_ptr<CudnnHandle> handle,
                                           CudnnGraphBuilder &builder,
                                           llvm::ArrayRef<cudnnBackendDescriptor_t> operations,
                                           const CudnnEngineFilter &filter, std::string &reason);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CUDNNGRAPH_H
