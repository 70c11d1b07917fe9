//===- Buffer.h - CUDA buffers: device and pinned host memory ---*- C++ -*-===//
//
// DEFAULT buffers are device memory (cudaMalloc); UPLOAD and READBACK buffers
// are pinned, mapped host memory (cudaHostAlloc), which the host maps and
// kernels and copies reach through its device pointer (the same value as the
// host pointer under unified addressing). Every buffer starts zero-filled,
// like a committed resource in D3D12, and is at least 256-byte aligned.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_BUFFER_H
#define CGC_DRIVERS_CUDA_BUFFER_H

#include "cgc/api.h"

#include <cstdint>

namespace cgc::cuda {

/// The object behind a `void *buffer` handle.
class Buffer {
public:
  /// `devicePointer` is what kernels use; `hostPointer` is set for the
  /// host-visible heaps only. The buffer frees them (on `ordinal`).
  Buffer(int ordinal, CgcHeapType heapType, uint64_t sizeInBytes, void *devicePointer,
         void *hostPointer)
      : ordinal(ordinal), heapType(heapType), sizeInBytes(sizeInBytes),
        devicePointer(devicePointer), hostPointer(hostPointer) {}
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  CgcHeapType getHeapType() const { return heapType; }
  uint64_t getSize() const { return sizeInBytes; }
  /// Null for DEFAULT buffers.
  void *getHostPointer() const { return hostPointer; }
  CgcDeviceAddress getDeviceAddress() const {
    return static_cast<CgcDeviceAddress>(reinterpret_cast<uintptr_t>(devicePointer));
  }

private:
  int ordinal;
  CgcHeapType heapType;
  uint64_t sizeInBytes;
  void *devicePointer;
  void *hostPointer;
};

/// The device pointer a device address stands for.
inline void *toPointer(CgcDeviceAddress address) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_BUFFER_H
