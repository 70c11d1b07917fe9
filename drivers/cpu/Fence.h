//===- Fence.h - timeline fences --------------------------------*- C++ -*-===//
//
// The driver's fence: the plugins' shared timeline (TimelineFence.h) over
// this driver's Device.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CPU_FENCE_H
#define CGC_DRIVERS_CPU_FENCE_H

#include "TimelineFence.h"

namespace cgc::cpu {

class Device;

/// The object behind a `void *fence` handle.
class Fence : public drivers::TimelineFence<Device> {
public:
  using TimelineFence::TimelineFence;
};

} // namespace cgc::cpu

#endif // CGC_DRIVERS_CPU_FENCE_H
