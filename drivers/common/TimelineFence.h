//===- TimelineFence.h - timeline fences of the driver plugins --*- C++ -*-===//
//
// A fence is a 64-bit timeline value that only grows, signalled by the host
// or by a queue, and waited on by the host (with a timeout) or by a queue.
// Shared by the driver plugins: `DeviceT` is the driver's device, through
// which errors are reported (`fail`, `isLost`, `failLost`). A lost device
// completes every fence so that waiters wake. A host wait may poll the
// value for a while before it sleeps (setSpinLimit, SpinWait.h).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_COMMON_TIMELINEFENCE_H
#define CGC_DRIVERS_COMMON_TIMELINEFENCE_H

#include "SpinWait.h"

#include "cgc/api.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace cgc::drivers {

template <typename DeviceT>
class TimelineFence {
public:
  TimelineFence(DeviceT &device, uint64_t initialValue) : device(device), value(initialValue) {}

  DeviceT &getDevice() { return device; }

  /// Host waits poll the value for up to `limit` before they sleep (zero,
  /// the default: they sleep at once).
  void setSpinLimit(std::chrono::nanoseconds limit) { spinLimit = limit; }
  uint64_t getCompletedValue() const { return value.load(std::memory_order_acquire); }

  /// Raises the value to `newValue` (never lowers it) and wakes waiters.
  void advance(uint64_t newValue) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (newValue <= value.load(std::memory_order_relaxed))
        return;
      value.store(newValue, std::memory_order_release);
    }
    changed.notify_all();
  }

  /// Blocks until the value reaches `target` or `stop()` holds; returns
  /// whether the value was reached. `stop` is re-checked on wake().
  bool waitUntil(uint64_t target, const std::function<bool()> &stop) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return getCompletedValue() >= target || stop(); });
    return getCompletedValue() >= target;
  }

  /// Blocks until the value reaches `target` or the deadline passes.
  bool waitUntil(uint64_t target, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_until(lock, deadline, [&] { return getCompletedValue() >= target; });
  }

  /// Wakes waiters so that they re-check their stop condition.
  void wake() {
    // Taking the lock orders this wake after a waiter's check of its stop
    // condition, so the wake cannot be lost.
    { std::lock_guard<std::mutex> lock(mutex); }
    changed.notify_all();
  }

  /// The DDI's host signal, with its errors.
  CgcStatus signalFromHost(uint64_t newValue) {
    if (device.isLost())
      return device.failLost();
    uint64_t current = getCompletedValue();
    if (newValue < current)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "fence values may not go backwards: the fence is at " +
                             std::to_string(current) + ", the signal is " +
                             std::to_string(newValue));
    advance(newValue);
    return CGC_OK;
  }

  /// The DDI's host wait, with its errors.
  CgcStatus waitFromHost(uint64_t target, uint64_t timeoutNanoseconds) {
    // Beyond a century the deadline would only risk overflow: wait forever.
    constexpr uint64_t kForever = uint64_t(1) << 62;
    auto start = std::chrono::steady_clock::now();
    auto timeout =
        std::chrono::nanoseconds(static_cast<int64_t>(std::min(timeoutNanoseconds, kForever)));
    bool reached =
        spinLimit.count() > 0 &&
        spinUntil([&] { return getCompletedValue() >= target; }, std::min(spinLimit, timeout));
    if (!reached)
      reached = timeoutNanoseconds >= kForever ? waitUntil(target, [] { return false; })
                                               : waitUntil(target, start + timeout);
    // A lost device completes every fence so that waiters wake: say why.
    if (device.isLost())
      return device.failLost();
    if (!reached)
      return device.fail(CGC_ERROR_TIMEOUT,
                         "the fence reached " + std::to_string(getCompletedValue()) +
                             ", not " + std::to_string(target) + ", within " +
                             std::to_string(timeoutNanoseconds) + " ns");
    return CGC_OK;
  }

private:
  DeviceT &device;
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<uint64_t> value;
  std::chrono::nanoseconds spinLimit{0};
};

} // namespace cgc::drivers

#endif // CGC_DRIVERS_COMMON_TIMELINEFENCE_H
