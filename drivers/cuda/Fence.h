//===- Fence.h - timeline fences --------------------------------*- C++ -*-===//
//
// The driver's fence: the plugins' shared timeline (TimelineFence.h) over
// this driver's Device.
// It lives on the host: a queue raises it once its stream has passed the
// signal (Queue.h), and a queue waits for it before launching later work.
// Host waits poll it for getSpinWaitLimit() before they sleep.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_FENCE_H
#define CGC_DRIVERS_CUDA_FENCE_H

#include "CudaSupport.h"
#include "TimelineFence.h"

namespace cgc::cuda {

class Device;

/// The object behind a `void *fence` handle.
class Fence : public drivers::TimelineFence<Device> {
public:
  Fence(Device &device, uint64_t initialValue) : TimelineFence(device, initialValue) {
    setSpinLimit(getSpinWaitLimit());
  }
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_FENCE_H
