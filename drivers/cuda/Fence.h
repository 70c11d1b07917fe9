//===- Fence.h - timeline fences --------------------------------*- C++ -*-===//
//
// A fence is a 64-bit timeline value that only grows, signalled by the host
// or by a queue, and waited on by the host (with a timeout) or by a queue.
// It lives on the host: a queue raises it once its stream has passed the
// signal (Queue.h), and a queue waits for it before launching later work.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_FENCE_H
#define CGC_DRIVERS_CUDA_FENCE_H

#include "cgc/api.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace cgc::cuda {

class Device;

/// The object behind a `void *fence` handle.
class Fence {
public:
  Fence(Device &device, uint64_t initialValue) : device(device), value(initialValue) {}

  Device &getDevice() { return device; }
  uint64_t getCompletedValue() const { return value.load(std::memory_order_acquire); }

  /// Raises the value to `newValue` (never lowers it) and wakes waiters.
  void advance(uint64_t newValue);

  /// Blocks until the value reaches `target` or `stop()` holds; returns
  /// whether the value was reached. `stop` is re-checked on wake().
  bool waitUntil(uint64_t target, const std::function<bool()> &stop);
  /// Blocks until the value reaches `target` or the deadline passes.
  bool waitUntil(uint64_t target, std::chrono::steady_clock::time_point deadline);
  /// Wakes waiters so that they re-check their stop condition.
  void wake();

  /// The DDI's host signal and host wait, with their errors.
  CgcStatus signalFromHost(uint64_t newValue);
  CgcStatus waitFromHost(uint64_t target, uint64_t timeoutNanoseconds);

private:
  Device &device;
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<uint64_t> value;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_FENCE_H
