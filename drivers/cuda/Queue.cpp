//===- Queue.cpp - command queues: a CUDA stream and two threads -----------===//

#include "Queue.h"
#include "CommandList.h"
#include "CudaSupport.h"
#include "Device.h"
#include "Fence.h"
#include "SpinWait.h"

#include <exception>
#include <string>

namespace cgc::cuda {

CgcStatus Device::createQueue(Queue *&out) {
  if (isLost())
    return failLost();
  ScopedCurrentDevice current(ordinal);
  if (current.getError() != cudaSuccess)
    return failCuda("creating a queue", "cudaSetDevice", current.getError());
  // Non-blocking: the queue's work never waits for the legacy default stream.
  cudaStream_t stream = nullptr;
  if (cudaError_t error = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking))
    return failCuda("creating a queue", "cudaStreamCreateWithFlags", error);
  try {
    out = queues.add(std::make_unique<Queue>(*this, stream));
  } catch (...) {
    (void)cudaStreamDestroy(stream);
    throw;
  }
  return CGC_OK;
}

Queue::Queue(Device &device, cudaStream_t stream) : device(device), stream(stream) {
  completer = std::thread([this] { runCompletions(); });
  try {
    submitter = std::thread([this] { runSubmissions(); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(completionMutex);
      submissionsEnded = true;
    }
    completionArrived.notify_one();
    completer.join();
    throw;
  }
}

Queue::~Queue() {
  Fence *blocked;
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
    workPosted.store(true, std::memory_order_release);
    blocked = blockedOn;
  }
  workArrived.notify_all();
  if (blocked)
    blocked->wake();
  submitter.join();
  // The submission thread has said that no more completions come: the
  // completion thread drains what is left and ends.
  completer.join();

  ScopedCurrentDevice current(device.getOrdinal());
  (void)cudaStreamSynchronize(stream);
  for (cudaEvent_t event : freeEvents)
    (void)cudaEventDestroy(event);
  (void)cudaStreamDestroy(stream);
  (void)cudaGetLastError();
}

//===----------------------------------------------------------------------===//
// Submissions
//===----------------------------------------------------------------------===//

CgcStatus Queue::submit(Work work) {
  if (device.isLost())
    return device.failLost();
  {
    std::lock_guard<std::mutex> lock(mutex);
    pending.push_back(std::move(work));
    workPosted.store(true, std::memory_order_release);
  }
  workArrived.notify_one();
  return CGC_OK;
}

CgcStatus Queue::executeCommandLists(std::span<CommandList *const> lists) {
  Execute work;
  for (CommandList *list : lists) {
    if (!list->isClosed())
      return device.fail(CGC_ERROR_INVALID_STATE,
                         "command list " + std::to_string(work.lists.size()) +
                             " is still open: close it before executing it");
    work.lists.push_back(list);
  }
  return submit(std::move(work));
}

CgcStatus Queue::signal(Fence &fence, uint64_t value) { return submit(Signal{&fence, value}); }

CgcStatus Queue::wait(Fence &fence, uint64_t value) { return submit(Wait{&fence, value}); }

void Queue::launchCommandLists(const Execute &work) {
  // A lost device runs nothing more; its fences are already complete.
  if (device.isLost())
    return;
  // Lists run in order: each graph launch is ordered after earlier work on
  // the stream.
  for (const CommandList *list : work.lists) {
    cudaGraphExec_t executable = list->getExecutable();
    if (!executable)
      continue;
    if (cudaError_t error = cudaGraphLaunch(executable, stream)) {
      device.markLost("a command list failed to launch on a queue: " +
                      describeCudaError("cudaGraphLaunch", error));
      return;
    }
  }
}

void Queue::recordSignal(const Signal &work) {
  if (device.isLost())
    return;
  cudaEvent_t event = takeEvent();
  if (!event)
    return; // takeEvent marked the device lost.
  if (cudaError_t error = cudaEventRecord(event, stream)) {
    device.markLost("a queue cannot signal a fence: " +
                    describeCudaError("cudaEventRecord", error));
    (void)cudaEventDestroy(event);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(completionMutex);
    completions.push_back({event, work.fence, work.value});
  }
  completionArrived.notify_one();
}

void Queue::runSubmissions() {
  // Every CUDA call of this thread is for this device.
  if (cudaError_t error = cudaSetDevice(device.getOrdinal()))
    device.markLost("a queue thread cannot use its device: " +
                    describeCudaError("cudaSetDevice", error));
  for (;;) {
    Work work;
    drivers::spinUntil([&] { return workPosted.load(std::memory_order_acquire); },
                       getSpinWaitLimit());
    {
      std::unique_lock<std::mutex> lock(mutex);
      workArrived.wait(lock, [&] { return !pending.empty() || stopping; });
      if (pending.empty())
        break; // Stopping, and everything submitted has been launched.
      work = std::move(pending.front());
      pending.pop_front();
      workPosted.store(!pending.empty() || stopping, std::memory_order_relaxed);
      if (auto *waitWork = std::get_if<Wait>(&work))
        blockedOn = waitWork->fence;
    }

    if (auto *execute = std::get_if<Execute>(&work)) {
      launchCommandLists(*execute);
    } else if (auto *signalWork = std::get_if<Signal>(&work)) {
      recordSignal(*signalWork);
    } else {
      auto &waitWork = std::get<Wait>(work);
      bool reached = waitWork.fence->waitUntil(waitWork.value, [this] {
        std::lock_guard<std::mutex> lock(mutex);
        return stopping;
      });
      std::lock_guard<std::mutex> lock(mutex);
      blockedOn = nullptr;
      if (!reached) {
        pending.clear(); // Stopping while blocked: see Queue.h.
        break;
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(completionMutex);
    submissionsEnded = true;
  }
  completionArrived.notify_one();
}

//===----------------------------------------------------------------------===//
// Completions
//===----------------------------------------------------------------------===//

cudaEvent_t Queue::takeEvent() {
  {
    std::lock_guard<std::mutex> lock(completionMutex);
    if (!freeEvents.empty()) {
      cudaEvent_t event = freeEvents.back();
      freeEvents.pop_back();
      return event;
    }
  }
  // Blocking sync: past its polling (getSpinWaitLimit) the completion
  // thread sleeps instead of spinning while the GPU works.
  cudaEvent_t event = nullptr;
  if (cudaError_t error =
          cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventBlockingSync)) {
    device.markLost("a queue cannot signal a fence: " +
                    describeCudaError("cudaEventCreateWithFlags", error));
    return nullptr;
  }
  return event;
}

void Queue::runCompletions() {
  (void)cudaSetDevice(device.getOrdinal());
  for (;;) {
    Completion completion;
    {
      std::unique_lock<std::mutex> lock(completionMutex);
      completionArrived.wait(lock, [&] { return !completions.empty() || submissionsEnded; });
      if (completions.empty())
        return;
      completion = completions.front();
      completions.pop_front();
    }
    // Events complete in the order they were recorded on the one stream, so
    // fences rise in submission order. Polled first, then slept on.
    cudaError_t error = cudaErrorNotReady;
    drivers::spinUntil(
        [&] { return (error = cudaEventQuery(completion.event)) != cudaErrorNotReady; },
        getSpinWaitLimit());
    if (error == cudaErrorNotReady)
      error = cudaEventSynchronize(completion.event);
    if (error == cudaSuccess)
      completion.fence->advance(completion.value);
    else
      device.markLost("a command list failed on a queue: " +
                      describeCudaError("cudaEventSynchronize", error));
    std::lock_guard<std::mutex> lock(completionMutex);
    freeEvents.push_back(completion.event);
  }
}

} // namespace cgc::cuda
