//===- SpinWaitTest.cpp - host waits that poll before they sleep ----------===//
//
// The CUDA driver's queue threads and host fence waits poll for a bounded
// time before sleeping (drivers/common/SpinWait.h, TimelineFence.h). These
// tests check, without a GPU, that polling ends when its condition holds,
// that a signal during the polling or after it ends a fence wait, and that
// a timeout shorter than the polling is still honoured.
//
//===----------------------------------------------------------------------===//

#include "SpinWait.h"
#include "TimelineFence.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// The device a TimelineFence reports through.
struct FakeDevice {
  std::string lastError;
  bool isLost() const { return false; }
  CgcStatus failLost() { return CGC_ERROR_DEVICE_LOST; }
  CgcStatus fail(CgcStatus status, std::string message) {
    lastError = std::move(message);
    return status;
  }
};

using Fence = cgc::drivers::TimelineFence<FakeDevice>;

TEST(SpinWait, EndsWhenTheConditionHoldsOrTheLimitPasses) {
  int polls = 0;
  EXPECT_TRUE(cgc::drivers::spinUntil([&] { return ++polls == 3; }, 10s));
  EXPECT_EQ(polls, 3);
  auto start = Clock::now();
  EXPECT_FALSE(cgc::drivers::spinUntil([] { return false; }, 2ms));
  EXPECT_GE(Clock::now() - start, 2ms);
  polls = 0;
  EXPECT_FALSE(cgc::drivers::spinUntil([&] { return ++polls > 1; }, 0ns)) << "polls once";
  EXPECT_EQ(polls, 1);
}

TEST(SpinWait, FenceWaitEndsOnASignalWhilePollingOrSleeping) {
  FakeDevice device;
  for (auto delay : {1ms, 60ms}) {
    // Polling for 20 ms: the first signal comes while the wait polls, the
    // second once it sleeps.
    Fence fence(device, 0);
    fence.setSpinLimit(20ms);
    std::thread signaller([&] {
      std::this_thread::sleep_for(delay);
      fence.advance(5);
    });
    EXPECT_EQ(fence.waitFromHost(5, UINT64_MAX), CGC_OK);
    EXPECT_EQ(fence.getCompletedValue(), 5u);
    signaller.join();
  }
}

TEST(SpinWait, FenceTimeoutShorterThanThePollingIsHonoured) {
  FakeDevice device;
  Fence fence(device, 1);
  fence.setSpinLimit(10s);
  auto start = Clock::now();
  EXPECT_EQ(fence.waitFromHost(2, 5'000'000), CGC_ERROR_TIMEOUT);
  auto waited = Clock::now() - start;
  EXPECT_GE(waited, 5ms);
  EXPECT_LT(waited, 5s) << "the wait polled past its timeout";
  EXPECT_NE(device.lastError.find("the fence reached 1, not 2"), std::string::npos)
      << device.lastError;
  // A value already reached returns at once.
  EXPECT_EQ(fence.waitFromHost(1, 0), CGC_OK);
}

} // namespace
