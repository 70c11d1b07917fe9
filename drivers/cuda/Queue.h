//===- Queue.h - command queues: a CUDA stream and two threads --*- C++ -*-===//
//
// A queue is one CUDA stream fed by a submission thread, which takes the
// queue's work in order:
//  * ExecuteCommandLists launches each list's executable graph on the stream
//    (cudaGraphLaunch), without waiting for it;
//  * Signal records an event on the stream and hands (event, fence, value)
//    to the queue's completion thread, which waits for the event and then
//    raises the fence — so the value is set once everything submitted before
//    has completed, and a fault shows up there as a lost device (events
//    report it; cudaLaunchHostFunc callbacks would silently never run);
//  * Wait blocks the submission thread until the fence reaches the value, so
//    nothing submitted later is launched before (a wait may come before the
//    signal it waits for, as in D3D12).
//
// The submission and completion threads poll for a while before they sleep
// (getSpinWaitLimit): a thread woken from sleep costs tens of microseconds
// per run.
//
// Destroying a queue finishes what was submitted to it, except that a queue
// wait still unsatisfied at that point ends the queue: the work behind it is
// dropped rather than left to block the thread forever.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_QUEUE_H
#define CGC_DRIVERS_CUDA_QUEUE_H

#include "cgc/api.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <variant>
#include <vector>

namespace cgc::cuda {

class CommandList;
class Device;
class Fence;

/// The object behind a `void *queue` handle.
class Queue {
public:
  /// Takes ownership of `stream`, a stream of the device's.
  Queue(Device &device, cudaStream_t stream);
  ~Queue();
  Queue(const Queue &) = delete;
  Queue &operator=(const Queue &) = delete;

  Device &getDevice() { return device; }

  CgcStatus executeCommandLists(std::span<CommandList *const> lists);
  CgcStatus signal(Fence &fence, uint64_t value);
  CgcStatus wait(Fence &fence, uint64_t value);

private:
  struct Execute {
    std::vector<const CommandList *> lists;
  };
  struct Signal {
    Fence *fence;
    uint64_t value;
  };
  struct Wait {
    Fence *fence;
    uint64_t value;
  };
  using Work = std::variant<Execute, Signal, Wait>;

  /// A signal whose event the stream has yet to reach.
  struct Completion {
    cudaEvent_t event;
    Fence *fence;
    uint64_t value;
  };

  CgcStatus submit(Work work);
  /// The submission thread's loop.
  void runSubmissions();
  void launchCommandLists(const Execute &work);
  void recordSignal(const Signal &work);
  /// The completion thread's loop.
  void runCompletions();
  /// A recycled event or a new one; null when none can be made.
  cudaEvent_t takeEvent();

  Device &device;
  cudaStream_t stream;

  // Submissions, guarded by `mutex`.
  std::mutex mutex;
  std::condition_variable workArrived;
  std::deque<Work> pending;
  bool stopping = false;
  /// Whether `pending` holds work or `stopping` is set, for the submission
  /// thread's polling before it sleeps (getSpinWaitLimit).
  std::atomic<bool> workPosted{false};
  /// The fence the submission thread is blocked on, to wake it when stopping.
  Fence *blockedOn = nullptr;

  // Completions, guarded by `completionMutex`.
  std::mutex completionMutex;
  std::condition_variable completionArrived;
  std::deque<Completion> completions;
  /// Set when the submission thread has ended: no more completions come.
  bool submissionsEnded = false;
  std::vector<cudaEvent_t> freeEvents;

  // Started by the constructor, once the rest is constructed.
  std::thread completer;
  std::thread submitter;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_QUEUE_H
