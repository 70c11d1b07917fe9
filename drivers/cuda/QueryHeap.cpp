//===- QueryHeap.cpp - timestamp queries on the GPU's global timer --------===//

#include "QueryHeap.h"
#include "CudaSupport.h"
#include "Device.h"

namespace cgc::cuda {

namespace {

/// Timestamp.ptx, NUL-terminated as cudaLibraryLoadData wants PTX.
constexpr const char kTimestampPtx[] =
#include "Timestamp.ptx.inc"
    ;
constexpr const char kTimestampKernelName[] = "cgcWriteTimestamp";

} // namespace

QueryHeap::~QueryHeap() {
  ScopedCurrentDevice current(ordinal);
  // The API never destroys a heap a list that may still run references.
  (void)cudaFree(slots);
  (void)cudaGetLastError();
}

cudaError_t TimestampKernel::load(std::unique_ptr<TimestampKernel> &out, std::string &error) {
  cudaLibrary_t library = nullptr;
  cudaError_t status =
      cudaLibraryLoadData(&library, kTimestampPtx, nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (status != cudaSuccess) {
    error = describeCudaError("cudaLibraryLoadData (the timestamp kernel)", status);
    return status;
  }
  cudaKernel_t kernel = nullptr;
  status = cudaLibraryGetKernel(&kernel, library, kTimestampKernelName);
  // Load it into the current context now: with lazy loading the first launch
  // would, and that launch is the one a list's graph capture records.
  cudaFuncAttributes attributes;
  if (status == cudaSuccess)
    status = cudaFuncGetAttributes(&attributes, reinterpret_cast<const void *>(kernel));
  if (status != cudaSuccess) {
    error = describeCudaError("loading the timestamp kernel", status);
    (void)cudaLibraryUnload(library);
    (void)cudaGetLastError();
    return status;
  }
  out.reset(new TimestampKernel(library, kernel));
  return cudaSuccess;
}

TimestampKernel::~TimestampKernel() {
  (void)cudaLibraryUnload(library);
  (void)cudaGetLastError();
}

cudaError_t TimestampKernel::launch(uint64_t *slot, cudaStream_t stream) const {
  void *arguments[] = {&slot};
  return cudaLaunchKernel(reinterpret_cast<const void *>(kernel), dim3(1), dim3(1), arguments, 0,
                          stream);
}

CgcStatus Device::getTimestampKernel(const TimestampKernel *&out) {
  std::lock_guard<std::mutex> lock(timestampKernelMutex);
  if (!timestampKernel) {
    ScopedCurrentDevice current(ordinal);
    if (current.getError() != cudaSuccess)
      return failCuda("loading the timestamp kernel", "cudaSetDevice", current.getError());
    std::string error;
    if (cudaError_t status = TimestampKernel::load(timestampKernel, error))
      return fail(toStatus(status), error);
  }
  out = timestampKernel.get();
  return CGC_OK;
}

CgcStatus Device::createQueryHeap(uint32_t count, QueryHeap *&out) {
  if (isLost())
    return failLost();
  // Loaded now, so that recording a query cannot fail on it.
  const TimestampKernel *kernel = nullptr;
  if (CgcStatus status = getTimestampKernel(kernel))
    return status;
  ScopedCurrentDevice current(ordinal);
  if (current.getError() != cudaSuccess)
    return failCuda("creating a query heap", "cudaSetDevice", current.getError());
  void *slots = nullptr;
  uint64_t size = uint64_t(count) * sizeof(uint64_t);
  if (cudaError_t error = cudaMalloc(&slots, static_cast<size_t>(size)))
    return failCuda("creating a heap of " + std::to_string(count) + " queries", "cudaMalloc",
                    error);
  // Owned from here: a failure below frees the slots.
  auto heap = std::make_unique<QueryHeap>(ordinal, static_cast<uint64_t *>(slots), count);
  if (cudaError_t error = zeroAndWait(slots, size))
    return failCuda("creating a heap of " + std::to_string(count) + " queries", "cudaMemsetAsync",
                    error);
  out = queryHeaps.add(std::move(heap));
  return CGC_OK;
}

} // namespace cgc::cuda
