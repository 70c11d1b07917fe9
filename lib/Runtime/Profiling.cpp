//===- Profiling.cpp - device timestamps around a list's commands ---------===//

#include "Profiling.h"

#include "DeviceQuery.h"

#include <cstring>
#include <string>

namespace cgc::runtime {

Result<std::unique_ptr<CommandTimestamps>> CommandTimestamps::create(CgcDevice device,
                                                                     unsigned numCommands) {
  // A heap holds at least one query; a list of no commands resolves none.
  unsigned numQueries = std::max(2 * numCommands, 1u);
  CgcQueryHeapDesc desc{};
  desc.version = CGC_API_VERSION;
  desc.type = CGC_QUERY_HEAP_TYPE_TIMESTAMP;
  desc.count = numQueries;
  CgcQueryHeap heap = nullptr;
  if (CgcStatus status = cgcCreateQueryHeap(device, &desc, &heap); status != CGC_OK)
    return apiError("profiling: creating a heap of " + std::to_string(numQueries) +
                        " timestamp queries",
                    status);
  CgcBufferDesc bufferDesc{};
  bufferDesc.version = CGC_API_VERSION;
  bufferDesc.heapType = CGC_HEAP_TYPE_READBACK;
  bufferDesc.sizeInBytes = uint64_t(numQueries) * sizeof(uint64_t);
  CgcBuffer readback = nullptr;
  if (CgcStatus status = cgcCreateBuffer(device, &bufferDesc, &readback); status != CGC_OK) {
    Error error = apiError("profiling: creating the timestamp readback buffer", status);
    cgcReleaseQueryHeap(heap);
    return error;
  }
  return std::unique_ptr<CommandTimestamps>(new CommandTimestamps(heap, readback, numCommands));
}

CommandTimestamps::~CommandTimestamps() {
  cgcReleaseBuffer(readback);
  cgcReleaseQueryHeap(heap);
}

Status CommandTimestamps::begin(CgcCommandList list, ProfiledCommand command) {
  if (open || commands.size() == capacity)
    return Error{"profiling: " +
                 std::string(open ? "a timestamp before a command is not ended"
                                  : "more commands than timestamps") +
                 " (at " + command.name + ")"};
  uint32_t index = 2 * static_cast<uint32_t>(commands.size());
  if (CgcStatus status = cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, index);
      status != CGC_OK)
    return apiError("profiling: the timestamp before " + command.name, status);
  commands.push_back(std::move(command));
  open = true;
  return Status::success();
}

Status CommandTimestamps::end(CgcCommandList list) {
  if (!open)
    return Error{"profiling: a timestamp after a command that has none before it"};
  uint32_t index = 2 * static_cast<uint32_t>(commands.size()) - 1;
  if (CgcStatus status = cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, index);
      status != CGC_OK)
    return apiError("profiling: the timestamp after " + commands.back().name, status);
  open = false;
  return Status::success();
}

Status CommandTimestamps::resolve(CgcCommandList list) {
  if (open)
    return Error{"profiling: resolving while " + commands.back().name + " has no end timestamp"};
  auto numQueries = static_cast<uint32_t>(2 * commands.size());
  if (CgcStatus status = cgcCommandListResolveQueryData(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0,
                                                        numQueries, readback, 0);
      status != CGC_OK)
    return apiError("profiling: resolving " + std::to_string(numQueries) + " timestamps", status);
  return Status::success();
}

Result<std::vector<ProfiledCommand>> CommandTimestamps::read(uint64_t frequency) const {
  if (frequency == 0)
    return Error{"profiling: a timestamp frequency of 0"};
  std::vector<uint64_t> ticks(2 * commands.size());
  if (!ticks.empty()) {
    void *mapped = nullptr;
    if (CgcStatus status = cgcMapBuffer(readback, &mapped); status != CGC_OK)
      return apiError("profiling: mapping the timestamp readback buffer", status);
    std::memcpy(ticks.data(), mapped, ticks.size() * sizeof(uint64_t));
    if (CgcStatus status = cgcUnmapBuffer(readback); status != CGC_OK)
      return apiError("profiling: unmapping the timestamp readback buffer", status);
  }
  // Ticks -> nanoseconds from the first timestamp, exactly for a frequency
  // of 1 GHz; 128-bit so that a long run at a high frequency cannot overflow.
  auto toNanoseconds = [&](uint64_t tick) {
    __int128 delta = static_cast<__int128>(tick) - static_cast<__int128>(ticks.front());
    return static_cast<int64_t>(delta * 1'000'000'000 / static_cast<__int128>(frequency));
  };
  std::vector<ProfiledCommand> timed = commands;
  for (size_t index = 0; index < timed.size(); ++index) {
    timed[index].deviceBeginNs = toNanoseconds(ticks[2 * index]);
    timed[index].deviceEndNs = toNanoseconds(ticks[2 * index + 1]);
  }
  return timed;
}

} // namespace cgc::runtime
