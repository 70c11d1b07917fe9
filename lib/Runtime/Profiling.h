//===- Profiling.h - device timestamps around a list's commands -*- C++ -*-===//
//
// What `Session::runProfiled` records: a timestamp query before and after
// each command it profiles (the device API's cgcCommandListEndQuery), one
// resolve of them all into a READBACK buffer at the end of the list, and,
// once the list has run, the commands with their device times. Internal to
// lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_RUNTIME_PROFILING_H
#define CGC_LIB_RUNTIME_PROFILING_H

#include "cgc/Runtime/Session.h"
#include "cgc/api.h"

#include <chrono>
#include <memory>
#include <vector>

namespace cgc::runtime {

/// Timestamps around the commands of one command list.
class CommandTimestamps {
public:
  /// A query heap for `numCommands` commands (two queries each) and the
  /// buffer they resolve into. Fails with the device API's message when the
  /// device has no timestamp queries.
  static Result<std::unique_ptr<CommandTimestamps>> create(CgcDevice device, unsigned numCommands);
  ~CommandTimestamps();
  CommandTimestamps(const CommandTimestamps &) = delete;
  CommandTimestamps &operator=(const CommandTimestamps &) = delete;

  /// Records the timestamp before the command `command` describes (its
  /// device times are filled in by `read`).
  Status begin(CgcCommandList list, ProfiledCommand command);
  /// Records the timestamp after the command of the last `begin`.
  Status end(CgcCommandList list);
  /// Records the resolve of every timestamp taken into the readback buffer;
  /// the last command of the list.
  Status resolve(CgcCommandList list);

  /// The commands with their device times, in nanoseconds from the first
  /// timestamp, once the list has run; `frequency` is the queue's.
  Result<std::vector<ProfiledCommand>> read(uint64_t frequency) const;

private:
  CommandTimestamps(CgcQueryHeap heap, CgcBuffer readback, unsigned capacity)
      : heap(heap), readback(readback), capacity(capacity) {}

  CgcQueryHeap heap;
  CgcBuffer readback;
  unsigned capacity; // commands
  std::vector<ProfiledCommand> commands;
  bool open = false; // a `begin` waits for its `end`
};

/// Records the phase `name` of `category` on `thread` into `phases` when it
/// goes out of scope (or at `stop`).
class PhaseTimer {
public:
  PhaseTimer(std::vector<PhaseTiming> &phases, std::string name, std::string category,
             unsigned thread = 0)
      : phases(phases), name(std::move(name)), category(std::move(category)), thread(thread),
        begin(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() { stop(); }
  PhaseTimer(const PhaseTimer &) = delete;
  PhaseTimer &operator=(const PhaseTimer &) = delete;

  void stop() {
    if (stopped)
      return;
    stopped = true;
    phases.push_back({name, category, begin, std::chrono::steady_clock::now(), thread});
  }

private:
  std::vector<PhaseTiming> &phases;
  std::string name, category;
  unsigned thread;
  std::chrono::steady_clock::time_point begin;
  bool stopped = false;
};

} // namespace cgc::runtime

#endif // CGC_LIB_RUNTIME_PROFILING_H
