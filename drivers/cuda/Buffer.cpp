//===- Buffer.cpp - CUDA buffers: device and pinned host memory ------------===//

#include "Buffer.h"
#include "CudaSupport.h"
#include "Device.h"

#include "ScratchAllocator.h"

#include <cstring>
#include <limits>
#include <string>

namespace cgc::cuda {

Buffer::~Buffer() {
  ScopedCurrentDevice current(ordinal);
  // Errors cannot be reported from here; a lost device frees nothing more.
  if (heapType == CGC_HEAP_TYPE_DEFAULT)
    (void)cudaFree(devicePointer);
  else
    (void)cudaFreeHost(hostPointer);
  (void)cudaGetLastError();
}

CgcStatus Device::createBuffer(CgcHeapType heapType, uint64_t sizeInBytes, Buffer *&out) {
  if (heapType != CGC_HEAP_TYPE_DEFAULT && heapType != CGC_HEAP_TYPE_UPLOAD &&
      heapType != CGC_HEAP_TYPE_READBACK)
    return fail(CGC_ERROR_INVALID_ARGUMENT,
                "unknown heap type " + std::to_string(static_cast<int>(heapType)));
  // The API refuses empty buffers; a zero-byte one would still need a
  // distinct, valid address, so it takes one aligned block.
  uint64_t rounded = drivers::alignTo(sizeInBytes == 0 ? 1 : sizeInBytes, kAlignment);
  if (rounded < sizeInBytes || rounded > std::numeric_limits<size_t>::max())
    return fail(CGC_ERROR_OUT_OF_MEMORY,
                "a buffer of " + std::to_string(sizeInBytes) + " bytes is too large");
  std::string what = "cannot allocate " + std::to_string(sizeInBytes) + " bytes of " +
                     (heapType == CGC_HEAP_TYPE_DEFAULT ? "device" : "pinned host") + " memory";
  ScopedCurrentDevice current(ordinal);
  if (current.getError() != cudaSuccess)
    return failCuda(what, "cudaSetDevice", current.getError());

  void *devicePointer = nullptr;
  void *hostPointer = nullptr;
  if (heapType == CGC_HEAP_TYPE_DEFAULT) {
    if (cudaError_t error = cudaMalloc(&devicePointer, static_cast<size_t>(rounded)))
      return failCuda(what, "cudaMalloc", error);
    if (cudaError_t error = zeroAndWait(devicePointer, rounded)) {
      (void)cudaFree(devicePointer);
      return failCuda(what, "cudaMemsetAsync", error);
    }
  } else {
    // Portable: usable from every device's context; mapped: kernels and
    // graph copies reach it through a device pointer.
    if (cudaError_t error = cudaHostAlloc(&hostPointer, static_cast<size_t>(rounded),
                                          cudaHostAllocMapped | cudaHostAllocPortable))
      return failCuda(what, "cudaHostAlloc", error);
    if (cudaError_t error = cudaHostGetDevicePointer(&devicePointer, hostPointer, 0)) {
      (void)cudaFreeHost(hostPointer);
      return failCuda(what, "cudaHostGetDevicePointer", error);
    }
    std::memset(hostPointer, 0, static_cast<size_t>(rounded));
  }
  out = buffers.add(
      std::make_unique<Buffer>(ordinal, heapType, sizeInBytes, devicePointer, hostPointer));
  return CGC_OK;
}

} // namespace cgc::cuda
