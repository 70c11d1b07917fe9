//===- Fence.cpp - timeline fences -----------------------------------------===//

#include "Fence.h"
#include "Device.h"

#include <string>

namespace cgc::cuda {

CgcStatus Device::createFence(uint64_t initialValue, Fence *&out) {
  out = fences.add(std::make_unique<Fence>(*this, initialValue));
  return CGC_OK;
}

void Fence::advance(uint64_t newValue) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (newValue <= value.load(std::memory_order_relaxed))
      return;
    value.store(newValue, std::memory_order_release);
  }
  changed.notify_all();
}

bool Fence::waitUntil(uint64_t target, const std::function<bool()> &stop) {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return getCompletedValue() >= target || stop(); });
  return getCompletedValue() >= target;
}

bool Fence::waitUntil(uint64_t target, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex);
  return changed.wait_until(lock, deadline, [&] { return getCompletedValue() >= target; });
}

void Fence::wake() {
  // Taking the lock orders this wake after a waiter's check of its stop
  // condition, so the wake cannot be lost.
  { std::lock_guard<std::mutex> lock(mutex); }
  changed.notify_all();
}

CgcStatus Fence::signalFromHost(uint64_t newValue) {
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

CgcStatus Fence::waitFromHost(uint64_t target, uint64_t timeoutNanoseconds) {
  // Beyond a century the deadline would only risk overflow: wait forever.
  constexpr uint64_t kForever = uint64_t(1) << 62;
  bool reached = timeoutNanoseconds >= kForever
                     ? waitUntil(target, [] { return false; })
                     : waitUntil(target, std::chrono::steady_clock::now() +
                                             std::chrono::nanoseconds(timeoutNanoseconds));
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

} // namespace cgc::cuda
