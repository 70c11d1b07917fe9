//===- Device.cpp - a CPU device: its objects, threads and lost state ------===//

#include "Device.h"
#include "Buffer.h"
#include "CommandList.h"
#include "Fence.h"
#include "Program.h"
#include "QueryHeap.h"
#include "Queue.h"

#include <limits>

namespace cgc::cpu {

Device::Device(Driver &driver) : driver(driver) {}

Device::~Device() {
  // Queues first: their threads may be running lists or waiting on fences.
  queues.clear();
  commandLists.clear();
  programs.clear();
  fences.clear();
  queryHeaps.clear();
  buffers.clear();
}

void Device::markLost(const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(lostMutex);
    if (lost.load(std::memory_order_relaxed))
      return;
    lostReason = reason;
    lost.store(true, std::memory_order_release);
  }
  fences.forEach([](Fence &fence) { fence.advance(std::numeric_limits<uint64_t>::max()); });
}

CgcStatus Device::failLost() {
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(lostMutex);
    reason = lostReason;
  }
  return fail(CGC_ERROR_DEVICE_LOST, "the device is lost: " + reason);
}

CgcStatus Device::createFence(uint64_t initialValue, Fence *&out) {
  out = fences.add(std::make_unique<Fence>(*this, initialValue));
  return CGC_OK;
}

CgcStatus Device::createQueryHeap(uint32_t count, QueryHeap *&out) {
  out = queryHeaps.add(std::make_unique<QueryHeap>(count));
  return CGC_OK;
}

} // namespace cgc::cpu
