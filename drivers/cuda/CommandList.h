//===- CommandList.h - recorded work as one CUDA graph ----------*- C++ -*-===//
//
// A command list records dispatches, copies and barriers with every address
// resolved at record time: a dispatch keeps its program's plan and one
// device pointer per step operand. CPU bindings are copied into device
// memory the list owns, at record time.
//
// Close turns the recording into ONE CUDA graph and instantiates it:
//  * a dispatch becomes a child graph node, captured from the plan's launches
//    on a private stream (cudaStreamCaptureModeThreadLocal): its invocations
//    and layers run in order, which is correct however bind points alias;
//  * a copy becomes a memcpy node;
//  * an EndQuery becomes a child graph node holding the timestamp kernel
//    (QueryHeap.h), ordered after every earlier command and before every
//    later one; a resolve becomes a memcpy node from the heap's slots;
//  * edges come from the barriers, with D3D12's semantics (Dependencies.h):
//    commands with no barrier between them may run concurrently.
// A queue then launches the executable graph on its stream. Reset and
// destruction free the graph and the CPU-binding copies.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_COMMANDLIST_H
#define CGC_DRIVERS_CUDA_COMMANDLIST_H

#include "Dependencies.h"

#include "cgc/api.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace cgc::cuda {

class Device;
class Program;
class QueryHeap;
class TimestampKernel;

/// The object behind a `void *list` handle. Recording is single-threaded,
/// as in D3D12.
class CommandList {
public:
  explicit CommandList(Device &device) : device(device) {}
  ~CommandList();
  CommandList(const CommandList &) = delete;
  CommandList &operator=(const CommandList &) = delete;

  Device &getDevice() { return device; }
  bool isClosed() const { return closed; }
  /// The instantiated graph; null for a list that records nothing to run.
  cudaGraphExec_t getExecutable() const { return executable; }

  CgcStatus reset();
  CgcStatus close();
  CgcStatus recordSetProgram(Program *program, const CgcSetProgramDesc &desc);
  CgcStatus recordDispatchGraph(uint32_t numBindings, const CgcProgramBinding *bindings);
  CgcStatus recordBarrier(const CgcBarrierDesc &desc);
  CgcStatus recordCopy(CgcDeviceAddress destination, CgcDeviceAddress source, uint64_t sizeInBytes);
  CgcStatus recordEndQuery(QueryHeap &heap, uint32_t index);
  CgcStatus recordResolveQueryData(QueryHeap &heap, uint32_t startIndex, uint32_t numQueries,
                                   CgcDeviceAddress destination);

private:
  struct Dispatch {
    const Program *program;
    std::vector<void *> operands; // from Plan::resolve
    std::vector<AddressRange> touched;
  };
  struct Copy {
    CgcDeviceAddress destination;
    CgcDeviceAddress source;
    uint64_t sizeInBytes;
  };
  struct Barrier {
    CgcBarrierType type;
    AddressRange range; // BUFFER_RANGE only
  };
  struct Timestamp {
    const QueryHeap *heap;
    uint32_t index;
  };
  struct Resolve {
    const QueryHeap *heap;
    uint32_t startIndex;
    uint32_t numQueries;
    CgcDeviceAddress destination;
  };
  using Command = std::variant<Dispatch, Copy, Barrier, Timestamp, Resolve>;

  /// Fails with CGC_ERROR_INVALID_STATE when the list is closed.
  CgcStatus checkOpen(const char *command);
  /// Builds and instantiates the graph (Close); frees it on failure.
  CgcStatus buildGraph();
  /// Adds to `graph`, after `predecessors`, a child graph node of what
  /// `enqueue` launches on the capture stream (an empty node when it launches
  /// nothing). `enqueue` returns an error message, or "" on success; `what`
  /// names the command in errors.
  CgcStatus addCapturedNode(const std::string &what,
                            const std::function<std::string(cudaStream_t)> &enqueue,
                            cudaGraph_t graph, const std::vector<cudaGraphNode_t> &predecessors,
                            cudaGraphNode_t &node);
  /// Frees the executable graph and the CPU-binding copies.
  void releaseResources();

  Device &device;
  bool closed = false;
  std::vector<Command> commands;
  /// Device copies of CPU bindings (cudaMalloc), owned until reset.
  std::vector<void *> cpuBindingData;
  cudaGraphExec_t executable = nullptr;
  /// The private stream dispatches and timestamps are captured on; made at
  /// the first Close that needs it.
  cudaStream_t captureStream = nullptr;
  /// The device's timestamp kernel, set by the first EndQuery.
  const TimestampKernel *timestampKernel = nullptr;

  // State set by SetProgram for later dispatches.
  Program *program = nullptr;
  CgcDeviceAddressRange temporaryResource{};
  CgcDeviceAddressRange persistentResource{};
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_COMMANDLIST_H
