//===- CommandList.h - recorded work for a CPU queue ------------*- C++ -*-===//
//
// A command list records dispatches and copies with every address resolved:
// a dispatch keeps its program's plan and one address per step operand, so
// executing it touches no MLIR and allocates nothing. CPU bindings are copied
// into the list at record time and their bind points point at the copy.
//
// Ordering: dispatches and copies between two barriers may run concurrently
// by the API's rules; the queue runs them one after another in recorded
// order, which is one valid schedule. A barrier therefore needs no work of
// its own: every command already completes before the next one starts; and a
// timestamp (QueryHeap.h) is simply the clock read between two commands.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CPU_COMMANDLIST_H
#define CGC_DRIVERS_CPU_COMMANDLIST_H

#include "Buffer.h"
#include "Plan.h"

#include "cgc/api.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace cgc::cpu {

class Device;
class Program;
class QueryHeap;

/// The object behind a `void *list` handle. Recording is single-threaded,
/// as in D3D12; a closed list may execute on several queues at once.
class CommandList {
public:
  explicit CommandList(Device &device) : device(device) {}

  Device &getDevice() { return device; }
  bool isClosed() const { return closed; }

  CgcStatus reset();
  CgcStatus close();
  CgcStatus recordSetProgram(Program *program, const CgcSetProgramDesc &desc);
  CgcStatus recordDispatchGraph(uint32_t numBindings, const CgcProgramBinding *bindings);
  CgcStatus recordBarrier(const CgcBarrierDesc &desc);
  CgcStatus recordCopy(CgcDeviceAddress destination, CgcDeviceAddress source,
                       uint64_t sizeInBytes);
  CgcStatus recordEndQuery(QueryHeap &heap, uint32_t index);
  CgcStatus recordResolveQueryData(QueryHeap &heap, uint32_t startIndex, uint32_t numQueries,
                                   CgcDeviceAddress destination);

  /// Runs the commands in order on the calling thread (a queue's).
  void execute(ThreadPool &pool) const;

private:
  struct Dispatch {
    const Plan *plan;
    std::vector<void *> operands; // from Plan::resolve
  };
  struct Copy {
    std::byte *destination;
    const std::byte *source;
    uint64_t sizeInBytes;
  };
  struct Timestamp {
    QueryHeap *heap;
    uint32_t index;
  };
  struct Resolve {
    const QueryHeap *heap;
    uint32_t startIndex;
    uint32_t numQueries;
    std::byte *destination;
  };

  /// Fails with CGC_ERROR_INVALID_STATE when the list is closed.
  CgcStatus checkOpen(const char *command);

  Device &device;
  bool closed = false;
  std::vector<std::variant<Dispatch, Copy, Timestamp, Resolve>> commands;
  /// CPU-binding data copied at record time.
  std::vector<HostAllocation> cpuBindingData;

  // State set by SetProgram for later dispatches.
  Program *program = nullptr;
  CgcDeviceAddressRange temporaryResource{};
};

} // namespace cgc::cpu

#endif // CGC_DRIVERS_CPU_COMMANDLIST_H
