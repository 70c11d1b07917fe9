//===- Device.h - a CPU device: its objects, threads and lost state -*- C++ -*-===//
//
// A device owns everything created on it (buffers, programs, command lists,
// queues, fences) so that destroying it, or closing the driver, frees what
// the client left behind and joins every thread. Its methods may be called
// from several threads at once: the object registries are guarded, and each
// program compiles in its own MLIRContext.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CPU_DEVICE_H
#define CGC_DRIVERS_CPU_DEVICE_H

#include "Driver.h"
#include "ThreadPool.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cgc::cpu {

class Buffer;
class CommandList;
class Fence;
class Program;
class QueryHeap;
class Queue;

/// The objects of one kind that a device owns, keyed by their handle.
template <typename T>
class Registry {
public:
  T *add(std::unique_ptr<T> object) {
    T *handle = object.get();
    std::lock_guard<std::mutex> lock(mutex);
    objects.emplace(handle, std::move(object));
    return handle;
  }
  /// Destroys `handle` if this registry owns it.
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
  template <typename Fn>
  void forEach(Fn fn) {
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
  explicit Device(Driver &driver);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  Driver &getDriver() { return driver; }
  /// The worker threads kernels run on; one pool per device.
  ThreadPool &getThreadPool() { return threadPool; }

  /// Reports `message` through the driver's host and returns `status`.
  CgcStatus fail(CgcStatus status, const std::string &message) {
    return driver.fail(status, message);
  }

  /// Feature data as in cgcCheckFeatureSupport (Caps.cpp).
  CgcStatus getCaps(CgcFeature feature, void *data, size_t dataSize);

  CgcStatus createBuffer(CgcHeapType heapType, uint64_t sizeInBytes, Buffer *&out);
  CgcStatus createProgram(const char *name, const void *container, size_t containerSize,
                          Program *&out);
  CgcStatus createCommandList(CommandList *&out);
  CgcStatus createQueue(Queue *&out);
  CgcStatus createFence(uint64_t initialValue, Fence *&out);
  CgcStatus createQueryHeap(uint32_t count, QueryHeap *&out);

  Registry<Buffer> buffers;
  Registry<Program> programs;
  Registry<CommandList> commandLists;
  Registry<Queue> queues;
  Registry<Fence> fences;
  Registry<QueryHeap> queryHeaps;

  /// Execution failed on a queue thread: later submissions and waits answer
  /// CGC_ERROR_DEVICE_LOST, and every fence completes (UINT64_MAX) so that no
  /// waiter blocks forever.
  void markLost(const std::string &reason);
  bool isLost() const { return lost.load(std::memory_order_acquire); }
  /// CGC_ERROR_DEVICE_LOST with the reason, for calls made after the loss.
  CgcStatus failLost();

private:
  Driver &driver;
  ThreadPool threadPool;
  std::atomic<bool> lost{false};
  std::mutex lostMutex;
  std::string lostReason;
};

} // namespace cgc::cpu

#endif // CGC_DRIVERS_CPU_DEVICE_H
