//===- QueryHeap.h - timestamp queries on the host clock --------*- C++ -*-===//
//
// The CPU driver's timestamps are nanoseconds of the host's steady clock,
// taken on the queue thread as the list runs: every command before an
// EndQuery has completed by then (commands run one after another), so the
// ordering the API promises needs nothing more. The values are atomics: one
// closed list may run on several queues at once.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CPU_QUERYHEAP_H
#define CGC_DRIVERS_CPU_QUERYHEAP_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace cgc::cpu {

/// The object behind a `void *heap` handle: `count` zeroed timestamps.
class QueryHeap {
public:
  /// Ticks per second: nanoseconds.
  static constexpr uint64_t kFrequency = 1'000'000'000;

  explicit QueryHeap(uint32_t count)
      : values(std::make_unique<std::atomic<uint64_t>[]>(count)), count(count) {}

  uint32_t getCount() const { return count; }
  /// Sets query `index` to the clock's current tick.
  void end(uint32_t index) { values[index].store(now(), std::memory_order_relaxed); }
  uint64_t read(uint32_t index) const { return values[index].load(std::memory_order_relaxed); }

  /// The steady clock in nanoseconds.
  static uint64_t now() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }

private:
  std::unique_ptr<std::atomic<uint64_t>[]> values;
  uint32_t count;
};

} // namespace cgc::cpu

#endif // CGC_DRIVERS_CPU_QUERYHEAP_H
