//===- SpinWait.h - bounded polling before a blocking wait ------*- C++ -*-===//
//
// Waking a thread that sleeps on a condition variable or on a blocking CUDA
// event takes the operating system tens of microseconds, and more on a
// busy host: a fence wait of a 0.4 ms inference paid it on every run. A
// driver may first poll, yielding the processor between polls, for a
// bounded time, and sleep only after it.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_COMMON_SPINWAIT_H
#define CGC_DRIVERS_COMMON_SPINWAIT_H

#include <chrono>
#include <thread>

namespace cgc::drivers {

/// Polls `ready` until it holds or `limit` has passed, yielding between
/// polls; returns whether it held. A zero limit polls once.
template <typename Ready> bool spinUntil(Ready &&ready, std::chrono::nanoseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (ready())
      return true;
    if (std::chrono::steady_clock::now() >= end)
      return false;
    std::this_thread::yield();
  }
}

} // namespace cgc::drivers

#endif // CGC_DRIVERS_COMMON_SPINWAIT_H
