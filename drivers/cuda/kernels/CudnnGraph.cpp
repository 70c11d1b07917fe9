//===- CudnnGraph.cpp - operation graphs through cuDNN's backend API ------===//
//
// Engine configurations are tried in heuristic order: cuDNN's heuristics
// rank them but do not promise that each supports the graph (runtime-fusion
// engines, for one, often want other layouts), so a refusal only moves on
// to the next. The first that finalizes is the plan, or, for a caller that
// times them, the first few. Numerical notes filter
// out what the CPU reference would not match: TF32 tensor cores for
// float32, inputs converted down, reduced-precision accumulation, FFT and
// Winograd.
//
//===----------------------------------------------------------------------===//

#include "CudnnGraph.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

namespace cgc::cuda {

namespace {
/// How many engine configurations of one heuristic mode are tried: a
/// runtime-fusion engine compiles code when its plan finalizes, so a long
/// list of refusals costs build time.
constexpr int64_t kMaxConfigurationsPerMode = 16;
} // namespace

/// "<status> (<cuDNN's last message>)".
static std::string describeCudnnStatus(cudnnStatus_t status) {
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string text = cudnnGetErrorString(status);
  if (detail[0])
    text += std::string(" (") + detail + ")";
  return text;
}

//===----------------------------------------------------------------------===//
// BackendDescriptor
//===----------------------------------------------------------------------===//

BackendDescriptor::BackendDescriptor(BackendDescriptor &&other) noexcept
    : descriptor(other.descriptor) {
  other.descriptor = nullptr;
}

BackendDescriptor &BackendDescriptor::operator=(BackendDescriptor &&other) noexcept {
  if (this != &other) {
    if (descriptor)
      cudnnBackendDestroyDescriptor(descriptor);
    descriptor = other.descriptor;
    other.descriptor = nullptr;
  }
  return *this;
}

BackendDescriptor::~BackendDescriptor() {
  if (descriptor)
    cudnnBackendDestroyDescriptor(descriptor);
}

/// A new descriptor of `type` in `result`.
static cudnnStatus_t createDescriptor(cudnnBackendDescriptorType_t type,
                                      BackendDescriptor &result) {
  cudnnBackendDescriptor_t descriptor = nullptr;
  cudnnStatus_t status = cudnnBackendCreateDescriptor(type, &descriptor);
  if (status == CUDNN_STATUS_SUCCESS)
    result = BackendDescriptor(descriptor);
  return status;
}

//===----------------------------------------------------------------------===//
// CudnnGraphBuilder
//===----------------------------------------------------------------------===//

void CudnnGraphBuilder::fail(const std::string &message) {
  if (failed)
    return;
  failed = true;
  error = message;
}

bool CudnnGraphBuilder::check(cudnnStatus_t status, const char *call, const char *what) {
  if (status != CUDNN_STATUS_SUCCESS)
    fail(std::string(call) + " " + what + ": " + describeCudnnStatus(status));
  return !failed;
}

cudnnBackendDescriptor_t CudnnGraphBuilder::create(cudnnBackendDescriptorType_t type) {
  if (failed)
    return nullptr;
  BackendDescriptor descriptor;
  if (!check(createDescriptor(type, descriptor), "cudnnBackendCreateDescriptor", "(graph)"))
    return nullptr;
  descriptors.push_back(std::move(descriptor));
  return descriptors.back().get();
}

void CudnnGraphBuilder::set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, int64_t count, const void *values,
                            const char *what) {
  if (failed)
    return;
  check(cudnnBackendSetAttribute(descriptor, name, type, count, values), "cudnnBackendSetAttribute",
        what);
}

void CudnnGraphBuilder::setInt64(cudnnBackendDescriptor_t descriptor,
                                 cudnnBackendAttributeName_t name, int64_t value,
                                 const char *what) {
  set(descriptor, name, CUDNN_TYPE_INT64, 1, &value, what);
}

void CudnnGraphBuilder::setInt64s(cudnnBackendDescriptor_t descriptor,
                                  cudnnBackendAttributeName_t name, llvm::ArrayRef<int64_t> values,
                                  const char *what) {
  set(descriptor, name, CUDNN_TYPE_INT64, static_cast<int64_t>(values.size()), values.data(), what);
}

void CudnnGraphBuilder::setDataType(cudnnBackendDescriptor_t descriptor,
                                    cudnnBackendAttributeName_t name, cudnnDataType_t value,
                                    const char *what) {
  set(descriptor, name, CUDNN_TYPE_DATA_TYPE, 1, &value, what);
}

void CudnnGraphBuilder::setFloat(cudnnBackendDescriptor_t descriptor,
                                 cudnnBackendAttributeName_t name, float value, const char *what) {
  set(descriptor, name, CUDNN_TYPE_FLOAT, 1, &value, what);
}

void CudnnGraphBuilder::setDescriptor(cudnnBackendDescriptor_t descriptor,
                                      cudnnBackendAttributeName_t name,
                                      cudnnBackendDescriptor_t value, const char *what) {
  set(descriptor, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &value, what);
}

void CudnnGraphBuilder::finalize(cudnnBackendDescriptor_t descriptor, const char *what) {
  if (failed)
    return;
  check(cudnnBackendFinalize(descriptor), "cudnnBackendFinalize", what);
}

cudnnBackendDescriptor_t CudnnGraphBuilder::createTensor(int64_t uid, cudnnDataType_t dataType,
                                                         llvm::ArrayRef<int64_t> dims,
                                                         int64_t alignment, bool isVirtual) {
  llvm::SmallVector<int64_t, 5> strides(dims.size(), 1);
  for (int64_t dim = static_cast<int64_t>(dims.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * std::max<int64_t>(dims[dim + 1], 1);
  return createTensor(uid, dataType, dims, strides, alignment, isVirtual);
}

cudnnBackendDescriptor_t CudnnGraphBuilder::createTensor(int64_t uid, cudnnDataType_t dataType,
                                                         llvm::ArrayRef<int64_t> dims,
                                                         llvm::ArrayRef<int64_t> strides,
                                                         int64_t alignment, bool isVirtual) {
  if (strides.size() != dims.size()) {
    fail("tensor " + std::to_string(uid) + " has " + std::to_string(strides.size()) +
         " strides for " + std::to_string(dims.size()) + " dimensions");
    return nullptr;
  }
  cudnnBackendDescriptor_t tensor = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  setDataType(tensor, CUDNN_ATTR_TENSOR_DATA_TYPE, dataType, "tensor data type");
  setInt64s(tensor, CUDNN_ATTR_TENSOR_DIMENSIONS, dims, "tensor dimensions");
  setInt64s(tensor, CUDNN_ATTR_TENSOR_STRIDES, strides, "tensor strides");
  setInt64(tensor, CUDNN_ATTR_TENSOR_UNIQUE_ID, uid, "tensor unique id");
  setInt64(tensor, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, alignment, "tensor byte alignment");
  bool virtualTensor = isVirtual;
  set(tensor, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virtualTensor,
      "tensor is virtual");
  finalize(tensor, "tensor");
  return tensor;
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

cudnnStatus_t CudnnPlan::execute(llvm::ArrayRef<int64_t> uids, llvm::ArrayRef<void *> pointers,
                                 void *workspace, cudaStream_t stream) const {
  std::lock_guard<std::mutex> lock(handle->mutex);
  cudnnStatus_t status = cudnnSetStream(handle->handle, stream);
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  // A variant pack binds one launch's pointers: it is made per launch (host
  // memory only) because a finalized descriptor cannot be changed.
  BackendDescriptor variantPack;
  status = createDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, variantPack);
  cudnnBackendDescriptor_t pack = variantPack.get();
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
                                      static_cast<int64_t>(uids.size()), uids.data());
  if (status == CUDNN_STATUS_SUCCESS)
    status =
        cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                                 static_cast<int64_t>(pointers.size()), pointers.data());
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
                                      1, &workspace);
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendFinalize(pack);
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendExecute(handle->handle, plan.get(), pack);
  return status;
}

/// Why `configuration` may not run under `filter`, or empty; `engine` gets
/// its global index.
static std::string getRejection(cudnnBackendDescriptor_t configuration,
                                const CudnnEngineFilter &filter, int64_t &engine) {
  BackendDescriptor engineDescriptor;
  cudnnStatus_t status = createDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engineDescriptor);
  cudnnBackendDescriptor_t raw = engineDescriptor.get();
  int64_t count = 0;
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendGetAttribute(configuration, CUDNN_ATTR_ENGINECFG_ENGINE,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw);
  if (status != CUDNN_STATUS_SUCCESS)
    return "its engine cannot be read: " + describeCudnnStatus(status);
  cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count,
                           &engine);
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  int64_t noteCount = 0;
  status =
      cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                               CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &noteCount, notes);
  if (status != CUDNN_STATUS_SUCCESS)
    return "its numerical notes cannot be read: " + describeCudnnStatus(status);
  noteCount = std::min<int64_t>(noteCount, CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
  for (int64_t index = 0; index < noteCount; ++index) {
    switch (notes[index]) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE:
      if (filter.rejectTensorCores)
        return "it uses tensor cores (TF32 for float32)";
      break;
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS:
      return "it converts inputs to a narrower type";
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
      return "it accumulates in reduced precision";
    case CUDNN_NUMERICAL_NOTE_FFT:
    case CUDNN_NUMERICAL_NOTE_WINOGRAD:
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4:
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6:
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13:
      return "it transforms the convolution (FFT or Winograd)";
    default:
      break;
    }
  }
  return "";
}

/// Whether the engine of `configuration` compiles code when its plan
/// finalizes (cuDNN's runtime-fusion engines).
static bool compilesAtRuntime(cudnnBackendDescriptor_t configuration) {
  BackendDescriptor engineDescriptor;
  if (createDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engineDescriptor) != CUDNN_STATUS_SUCCESS)
    return false;
  cudnnBackendDescriptor_t raw = engineDescriptor.get();
  int64_t count = 0;
  if (cudnnBackendGetAttribute(configuration, CUDNN_ATTR_ENGINECFG_ENGINE,
                               CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count,
                               &raw) != CUDNN_STATUS_SUCCESS)
    return false;
  cudnnBackendBehaviorNote_t notes[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  int64_t noteCount = 0;
  if (cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                               CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &noteCount,
                               notes) != CUDNN_STATUS_SUCCESS)
    return false;
  noteCount = std::min<int64_t>(noteCount, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
  return std::find(notes, notes + noteCount, CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) !=
         notes + noteCount;
}

std::vector<std::unique_ptr<CudnnPlan>>
createCudnnPlans(std::shared_ptr<CudnnHandle> handle, CudnnGraphBuilder &builder,
                 llvm::ArrayRef<cudnnBackendDescriptor_t> operations,
                 const CudnnEngineFilter &filter, const CudnnPlanSearch &search,
                 std::string &reason) {
  std::vector<std::unique_ptr<CudnnPlan>> plans;
  std::lock_guard<std::mutex> lock(handle->mutex);
  cudnnHandle_t cudnn = handle->handle;
  cudnnBackendDescriptor_t graph = builder.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  builder.set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
              static_cast<int64_t>(operations.size()), operations.data(), "graph operations");
  builder.set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &cudnn,
              "graph handle");
  builder.finalize(graph, "operation graph");
  if (builder.hasFailed()) {
    reason = builder.getError();
    return plans;
  }
  // Every plan keeps the graph's descriptors, the heuristics and their
  // configurations alive.
  auto descriptors = std::make_shared<std::vector<BackendDescriptor>>(builder.takeDescriptors());
  int64_t maxPlans = search.position ? 1 : std::max<int64_t>(search.maxPlans, 1);
  int64_t runtimeCompiled = 0;

  std::string lastRefusal = "cuDNN's heuristics list no engine for the graph";
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    // The fallback list is read only when mode A gave nothing.
    if (!plans.empty() || (search.position && search.position->mode != mode))
      continue;
    BackendDescriptor heuristics;
    cudnnStatus_t status = createDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, heuristics);
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnBackendSetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnBackendSetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_MODE,
                                        CUDNN_TYPE_HEUR_MODE, 1, &mode);
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnBackendFinalize(heuristics.get());
    int64_t available = 0;
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &available, nullptr);
    if (status != CUDNN_STATUS_SUCCESS) {
      lastRefusal = "the engine heuristics failed: " + describeCudnnStatus(status);
      continue;
    }
    available = std::min(available, kMaxConfigurationsPerMode);
    std::vector<BackendDescriptor> configurations(available);
    llvm::SmallVector<cudnnBackendDescriptor_t, 16> raw;
    for (BackendDescriptor &configuration : configurations) {
      status = createDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, configuration);
      if (status != CUDNN_STATUS_SUCCESS)
        break;
      raw.push_back(configuration.get());
    }
    int64_t returned = 0;
    if (status == CUDNN_STATUS_SUCCESS && !raw.empty())
      status = cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                        static_cast<int64_t>(raw.size()), &returned, raw.data());
    if (status != CUDNN_STATUS_SUCCESS) {
      lastRefusal = "the engine configurations cannot be read: " + describeCudnnStatus(status);
      continue;
    }
    returned = std::min<int64_t>(returned, static_cast<int64_t>(raw.size()));
    for (int64_t index = 0; index < returned && static_cast<int64_t>(plans.size()) < maxPlans;
         ++index) {
      if (search.position && search.position->index != index)
        continue;
      int64_t engine = -1;
      std::string rejection = getRejection(raw[index], filter, engine);
      if (!rejection.empty()) {
        lastRefusal = "engine " + std::to_string(engine) + " is not used: " + rejection;
        continue;
      }
      // Runtime-fusion engines compile when they finalize: at most
      // search.maxRuntimeCompiled of them, beyond the first plan.
      bool compiles = compilesAtRuntime(raw[index]);
      if (compiles && !plans.empty() && runtimeCompiled >= search.maxRuntimeCompiled)
        continue;
      BackendDescriptor plan;
      status = createDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, plan);
      if (status == CUDNN_STATUS_SUCCESS)
        status = cudnnBackendSetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                          CUDNN_TYPE_HANDLE, 1, &cudnn);
      if (status == CUDNN_STATUS_SUCCESS)
        status = cudnnBackendSetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw[index]);
      if (status == CUDNN_STATUS_SUCCESS)
        status = cudnnBackendFinalize(plan.get());
      int64_t workspaceSize = 0, count = 0;
      if (status == CUDNN_STATUS_SUCCESS)
        status = cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                          CUDNN_TYPE_INT64, 1, &count, &workspaceSize);
      if (status != CUDNN_STATUS_SUCCESS) {
        lastRefusal = "engine " + std::to_string(engine) +
                      " does not finalize: " + describeCudnnStatus(status);
        continue;
      }
      if (workspaceSize < 0 || workspaceSize > filter.maxWorkspace) {
        lastRefusal = "engine " + std::to_string(engine) + " needs " +
                      std::to_string(workspaceSize) + " bytes of workspace";
        continue;
      }
      runtimeCompiled += compiles ? 1 : 0;
      auto result = std::make_unique<CudnnPlan>();
      result->handle = handle;
      result->graph = descriptors;
      result->plan = std::move(plan);
      result->workspaceSize = workspaceSize;
      result->engine = engine;
      result->position = CudnnPlanPosition{mode, index};
      result->compilesAtRuntime = compiles;
      plans.push_back(std::move(result));
    }
    if (!plans.empty()) {
      descriptors->push_back(std::move(heuristics));
      for (BackendDescriptor &configuration : configurations)
        descriptors->push_back(std::move(configuration));
    }
  }
  if (plans.empty())
    reason = lastRefusal;
  return plans;
}

std::unique_ptr<CudnnPlan> createCudnnPlan(std::shared_ptr<CudnnHandle> handle,
                                           CudnnGraphBuilder &builder,
                                           llvm::ArrayRef<cudnnBackendDescriptor_t> operations,
                                           const CudnnEngineFilter &filter, std::string &reason) {
  std::vector<std::unique_ptr<CudnnPlan>> plans = createCudnnPlans(
      std::move(handle), builder, operations, filter, CudnnPlanSearch(), reason);
  return plans.empty() ? nullptr : std::move(plans.front());
}

} // namespace cgc::cuda
