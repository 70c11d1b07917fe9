//===- Device.h - a CUDA device: its objects, kernels and lost state -*- C++ -*-===//
//
// A device owns everything created on it (buffers, programs, command lists,
// queues, fences) so that destroying it, or closing the driver, frees what
// the client left behind and joins every thread. Its methods may be called
// from several threads at once: the object registries are guarded, each
// program compiles in its own MLIRContext, and the kernel library's context
// (library handles, compiled code) is created once, on first use.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_DEVICE_H
#define CGC_DRIVERS_CUDA_DEVICE_H

#include "Driver.h"

#include <cuda_runtime_api.h>

#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cgc::cuda {

class Buffer;
class CommandList;
class Fence;
class KernelContext;
class Program;
class QueryHeap;
class Queue;
class TimestampKernel;

/// The objects of one kind that a device owns, keyed by their handle.
template <typename T> class Registry {
public:
  T *add(std::unique_ptr<T> object) {
    T *handle = object.get();
    std::lock_guard<std::mutex> lock(mutex);
    objects.emplace(handle, std::move(object));
    return handle;
  }
  /// Destroys `handle` if this registry owns it (outside the lock: a
  /// destructor may wait for a queue thread that uses another registry).
  void destroy(T *handle) {
    std::unique_ptr<T> object;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = objects.find(handle);
      if (it == objects.end())
        return;
      object = std::move(it->second);
      objects.erase(it);
    }
  }
  /// Destroys every object left.
  void clear() {
    std::unordered_map<T *, std::unique_ptr<T>> taken;
    {
      std::lock_guard<std::mutex> lock(mutex);
      taken.swap(objects);
    }
  }
  /// Calls `fn` on each object while holding the registry's lock.
  template <typename Fn> void forEach(Fn fn) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &entry : objects)
      fn(*entry.second);
  }

private:
  std::mutex mutex;
  std::unordered_map<T *, std::unique_ptr<T>> objects;
};

/// The object behind the `void *device` handle.
class Device {
public:
  Device(Driver &driver, int ordinal);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  Driver &getDriver() { return driver; }
  /// The CUDA runtime's number for this device.
  int getOrdinal() const { return ordinal; }

  /// Reports `message` through the driver's host and returns `status`.
  CgcStatus fail(CgcStatus status, const std::string &message) {
    return driver.fail(status, message);
  }
  /// Reports a failed CUDA call, prefixed with `what` when not empty, and
  /// returns the status it maps to (CudaSupport.h).
  CgcStatus failCuda(const std::string &what, const char *call, cudaError_t error);

  /// The kernel library's per-device state, created on first use with this
  /// device current. An error says why the kernel library cannot start.
  llvm::Expected<KernelContext &> getKernelContext();

  /// Copies host data into device memory and waits for the copy to land, so
  /// that work on any stream sees it (the legacy stream would not order it
  /// before the queues' non-blocking streams). Needs this device current.
  cudaError_t uploadAndWait(void *destination, const void *source, uint64_t sizeInBytes);
  /// Fills device memory with zeros and waits, likewise.
  cudaError_t zeroAndWait(void *destination, uint64_t sizeInBytes);

  /// Feature data as in cgcCheckFeatureSupport (Caps.cpp).
  CgcStatus getCaps(CgcFeature feature, void *data, size_t dataSize);

  CgcStatus createBuffer(CgcHeapType heapType, uint64_t sizeInBytes, Buffer *&out);
  CgcStatus createProgram(const char *name, const void *container, size_t containerSize,
                          Program *&out);
  CgcStatus createCommandList(CommandList *&out);
  CgcStatus createQueue(Queue *&out);
  CgcStatus createFence(uint64_t initialValue, Fence *&out);
  CgcStatus createQueryHeap(uint32_t count, QueryHeap *&out);

  /// The kernel an EndQuery runs (QueryHeap.h), loaded on first use.
  CgcStatus getTimestampKernel(const TimestampKernel *&out);

  Registry<Buffer> buffers;
  Registry<Program> programs;
  Registry<CommandList> commandLists;
  Registry<Queue> queues;
  Registry<Fence> fences;
  Registry<QueryHeap> queryHeaps;

  /// Execution failed on a queue (a fault, a failed launch): later
  /// submissions and waits answer CGC_ERROR_DEVICE_LOST, and every fence
  /// completes (UINT64_MAX) so that no waiter blocks forever.
  void markLost(const std::string &reason);
  bool isLost() const { return lost.load(std::memory_order_acquire); }
  /// CGC_ERROR_DEVICE_LOST with the reason, for calls made after the loss.
  CgcStatus failLost();

private:
  Driver &driver;
  int ordinal;
  std::mutex kernelContextMutex;
  std::unique_ptr<KernelContext> kernelContext;
  std::mutex timestampKernelMutex;
  std::unique_ptr<TimestampKernel> timestampKernel;
  std::atomic<bool> lost{false};
  std::mutex lostMutex;
  std::string lostReason;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_DEVICE_H
