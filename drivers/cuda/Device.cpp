//===- Device.cpp - a CUDA device: its objects, kernels and lost state -----===//

#include "Device.h"
#include "Buffer.h"
#include "CommandList.h"
#include "CudaSupport.h"
#include "Fence.h"
#include "Kernels.h"
#include "Program.h"
#include "QueryHeap.h"
#include "Queue.h"

#include <limits>

namespace cgc::cuda {

Device::Device(Driver &driver, int ordinal) : driver(driver), ordinal(ordinal) {}

Device::~Device() {
  // Queues first: their threads may be running lists or waiting on fences.
  // Programs hold kernels, which need the kernel context: it goes last.
  queues.clear();
  commandLists.clear();
  programs.clear();
  fences.clear();
  queryHeaps.clear();
  buffers.clear();
  ScopedCurrentDevice current(ordinal);
  kernelContext.reset();
  timestampKernel.reset();
}

CgcStatus Device::failCuda(const std::string &what, const char *call, cudaError_t error) {
  std::string message = describeCudaError(call, error);
  return fail(toStatus(error), what.empty() ? message : what + ": " + message);
}

llvm::Expected<KernelContext &> Device::getKernelContext() {
  std::lock_guard<std::mutex> lock(kernelContextMutex);
  if (kernelContext)
    return *kernelContext;
  ScopedCurrentDevice current(ordinal);
  if (current.getError() != cudaSuccess)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   describeCudaError("cudaSetDevice", current.getError()));
  llvm::Expected<std::unique_ptr<KernelContext>> created = KernelContext::create(ordinal);
  if (!created)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the CUDA kernel library cannot start on device " +
                                       std::to_string(ordinal) + ": " +
                                       llvm::toString(created.takeError()));
  kernelContext = std::move(*created);
  return *kernelContext;
}

cudaError_t Device::uploadAndWait(void *destination, const void *source, uint64_t sizeInBytes) {
  if (sizeInBytes == 0)
    return cudaSuccess;
  cudaError_t error = cudaMemcpyAsync(destination, source, static_cast<size_t>(sizeInBytes),
                                      cudaMemcpyDefault, cudaStreamPerThread);
  if (error != cudaSuccess)
    return error;
  return cudaStreamSynchronize(cudaStreamPerThread);
}

cudaError_t Device::zeroAndWait(void *destination, uint64_t sizeInBytes) {
  if (sizeInBytes == 0)
    return cudaSuccess;
  cudaError_t error =
      cudaMemsetAsync(destination, 0, static_cast<size_t>(sizeInBytes), cudaStreamPerThread);
  if (error != cudaSuccess)
    return error;
  return cudaStreamSynchronize(cudaStreamPerThread);
}

void Device::markLost(const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(lostMutex);
    if (lost.load(std::memory_order_relaxed))
      return;
    lostReason = reason;
    lost.store(true, std::memory_order_release);
  }
  fences.forEach([](Fence &fence) { fence.advance(std::numeric_limits<uint64_t>::max()); });
}

CgcStatus Device::failLost() {
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(lostMutex);
    reason = lostReason;
  }
  return fail(CGC_ERROR_DEVICE_LOST, "the device is lost: " + reason);
}

CgcStatus Device::createFence(uint64_t initialValue, Fence *&out) {
  out = fences.add(std::make_unique<Fence>(*this, initialValue));
  return CGC_OK;
}

} // namespace cgc::cuda
