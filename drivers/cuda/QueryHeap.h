//===- QueryHeap.h - timestamp queries on the GPU's global timer -*- C++ -*-===//
//
// A query heap is `count` 64-bit slots of device memory, zeroed at creation.
// An EndQuery becomes a one-thread kernel node (Timestamp.ptx) that stores
// %globaltimer, the GPU's nanosecond clock, into its slot; a resolve becomes a
// memcpy node from the slots to the destination. Both are nodes of the
// list's CUDA graph, so a list with queries is captured and relaunched like
// any other. The timer advances in steps of the GPU's (32 ns on an H100,
// up to 1 us on older parts), and two timestamps in a row are a graph node
// apart (about 0.8 us on an H100): a command shorter than a step may time
// as 0.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_QUERYHEAP_H
#define CGC_DRIVERS_CUDA_QUERYHEAP_H

#include "cgc/api.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace cgc::cuda {

/// The object behind a `void *heap` handle.
class QueryHeap {
public:
  /// Ticks per second of %globaltimer: nanoseconds.
  static constexpr uint64_t kFrequency = 1'000'000'000;

  /// Takes ownership of `slots` (cudaMalloc'd on device `ordinal`).
  QueryHeap(int ordinal, uint64_t *slots, uint32_t count)
      : ordinal(ordinal), slots(slots), count(count) {}
  ~QueryHeap();
  QueryHeap(const QueryHeap &) = delete;
  QueryHeap &operator=(const QueryHeap &) = delete;

  uint32_t getCount() const { return count; }
  /// The device address of query `index`.
  uint64_t *getSlot(uint32_t index) const { return slots + index; }

private:
  int ordinal;
  uint64_t *slots;
  uint32_t count;
};

/// The kernel of Timestamp.ptx, loaded into one device's context.
class TimestampKernel {
public:
  /// Loads it into the current device's context; on failure, `error` names
  /// the CUDA call that failed.
  static cudaError_t load(std::unique_ptr<TimestampKernel> &out, std::string &error);
  ~TimestampKernel();
  TimestampKernel(const TimestampKernel &) = delete;
  TimestampKernel &operator=(const TimestampKernel &) = delete;

  /// Enqueues the store of the timer into `slot` on `stream` (capturable).
  cudaError_t launch(uint64_t *slot, cudaStream_t stream) const;

private:
  TimestampKernel(cudaLibrary_t library, cudaKernel_t kernel) : library(library), kernel(kernel) {}
  cudaLibrary_t library;
  cudaKernel_t kernel;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_QUERYHEAP_H
