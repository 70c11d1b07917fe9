//===- Session.cpp - the runtime: Output IR on a device --------------------===//
//
// Everything device-side of a Session: adapter choice, the driver's answers
// to the compiler (MLIR exchanges through the device API), one state object
// per partition (compiled on parallel threads), the constants, scratch and
// I/O buffers, one command list that runs the whole program, and (recorded
// when first asked) one of its dispatches alone, for benchmarks, and one with
// a timestamp around every command, for profiles (Profiling.h).
//
// Barriers come from the addresses the list actually binds, not from the
// compiler's `cgc.depends_on`: only the runtime knows where constants,
// inputs and outputs live, which invocations share a partition's temporary
// resource, and what the uploads and readbacks touch. The compiler's counts
// are kept in SessionStats::compile for comparison.
//
//===----------------------------------------------------------------------===//

#include "cgc/Runtime/Session.h"

#include "DeviceQuery.h"
#include "Profiling.h"
#include "ProgramPlan.h"
#include "Weights.h"

#include "cgc/api.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <thread>

namespace cgc::runtime {

namespace {

/// Byte alignment of each constant in the constants buffer.
constexpr uint64_t kConstantAlignment = 256;

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

template <typename T, void (*Release)(T)>
struct Releaser {
  void operator()(T handle) const { Release(handle); }
};
template <typename T, void (*Release)(T)>
using Handle = std::unique_ptr<std::remove_pointer_t<T>, Releaser<T, Release>>;

using DeviceHandle = Handle<CgcDevice, cgcReleaseDevice>;
using BufferHandle = Handle<CgcBuffer, cgcReleaseBuffer>;
using StateObjectHandle = Handle<CgcStateObject, cgcReleaseStateObject>;
using AllocatorHandle = Handle<CgcCommandAllocator, cgcReleaseCommandAllocator>;
using ListHandle = Handle<CgcCommandList, cgcReleaseCommandList>;
using QueueHandle = Handle<CgcCommandQueue, cgcReleaseCommandQueue>;
using FenceHandle = Handle<CgcFence, cgcReleaseFence>;

struct ProgramState {
  std::string name;
  StateObjectHandle stateObject;
  CgcProgramIdentifier identifier{};
  CgcProgramBindingProperties properties{};
  std::vector<CgcBindPointDesc> bindPoints;
  BufferHandle temporary;
  BufferHandle persistent;
  unsigned numInvocations = 0;
};

CgcDeviceAddressRange rangeOf(const BufferHandle &buffer) {
  if (!buffer)
    return {0, 0};
  return {cgcGetBufferDeviceAddress(buffer.get()), cgcGetBufferSize(buffer.get())};
}

/// A byte range of one buffer that a command reads or writes.
struct Access {
  CgcBuffer buffer; // barrier ranges never span two buffers
  CgcDeviceAddress begin, end;
  bool written;
  bool byDispatch = false; // else by a copy (upload or readback)
};

/// The barriers one command needs.
struct Conflicts {
  /// Merged per buffer (overlapping or adjacent ranges become one), in
  /// address order.
  std::vector<Access> ranges;
  /// Whether the command waits for a dispatch (not only for copies).
  bool afterDispatch = false;
};

/// Which buffer-range barriers a command list needs: the accesses recorded
/// since a barrier last covered their bytes. A later command conflicts with
/// a pending access when their ranges overlap and either writes; a barrier
/// over the overlap orders every earlier command touching it before every
/// later one, so those bytes stop being pending.
class BarrierTracker {
public:
  /// The bytes where `accesses` (one command's) conflict with pending ones.
  Conflicts getConflicts(const std::vector<Access> &accesses) const {
    Conflicts result;
    std::vector<Access> conflicts;
    for (const Access &later : accesses)
      for (const Access &earlier : pending)
        if ((later.written || earlier.written) && later.begin < earlier.end &&
            earlier.begin < later.end) {
          conflicts.push_back({later.buffer, std::max(later.begin, earlier.begin),
                               std::min(later.end, earlier.end), true});
          result.afterDispatch = result.afterDispatch || earlier.byDispatch;
        }
    std::sort(conflicts.begin(), conflicts.end(), [](const Access &a, const Access &b) {
      return a.begin < b.begin;
    });
    for (const Access &range : conflicts) {
      if (!result.ranges.empty() && result.ranges.back().buffer == range.buffer &&
          range.begin <= result.ranges.back().end)
        result.ranges.back().end = std::max(result.ranges.back().end, range.end);
      else
        result.ranges.push_back(range);
    }
    return result;
  }

  /// A barrier over `range` was recorded: pending bytes inside it are ordered.
  void cover(const Access &range) {
    std::vector<Access> kept;
    for (const Access &access : pending) {
      if (access.end <= range.begin || range.end <= access.begin) {
        kept.push_back(access);
        continue;
      }
      if (access.begin < range.begin)
        kept.push_back({access.buffer, access.begin, range.begin, access.written,
                        access.byDispatch});
      if (range.end < access.end)
        kept.push_back({access.buffer, range.end, access.end, access.written,
                        access.byDispatch});
    }
    pending = std::move(kept);
  }

  void add(const std::vector<Access> &accesses) {
    pending.insert(pending.end(), accesses.begin(), accesses.end());
  }

private:
  std::vector<Access> pending;
};

/// The bytes [offset, offset + size) of `buffer`, as one command touches them.
Access accessOf(CgcBuffer buffer, uint64_t offset, uint64_t size, bool written,
                bool byDispatch) {
  CgcDeviceAddress begin = cgcGetBufferDeviceAddress(buffer) + offset;
  return Access{buffer, begin, begin + size, written, byDispatch};
}

/// What recording one command list counted.
struct ListCounts {
  unsigned dispatches = 0;
  /// Dispatches behind a barrier for an earlier dispatch.
  unsigned dispatchesAfterDispatch = 0;
  /// Buffer-range barrier commands.
  unsigned rangeBarriers = 0;
};

/// One partition invocation bound to the session's buffers: its bindings
/// and the bytes they touch.
struct BoundInvocation {
  std::vector<CgcProgramBinding> bindings;
  std::vector<Access> accesses;
};

} // namespace

struct Session::Impl {
  // Declared in creation order; released in reverse.
  DeviceHandle device;
  QueueHandle queue;
  FenceHandle fence;
  uint64_t fenceValue = 0;
  std::vector<ProgramState> programs;
  std::vector<BufferHandle> argumentBuffers; // DEFAULT, one per program argument
  std::vector<BufferHandle> stagingBuffers;  // UPLOAD for inputs, READBACK for outputs
  BufferHandle constants;
  AllocatorHandle allocator;
  ListHandle runList;
  /// The dispatches alone, for timeRuns; recorded on its first call.
  ListHandle dispatchList;
  /// Inputs dispatchList uploads again because the program writes over them.
  unsigned numDispatchListUploads = 0;
  /// dispatchList's commands between two timestamps (and their resolve),
  /// for timeRuns' device times; null where the device has no timestamp
  /// queries.
  std::unique_ptr<CommandTimestamps> timedTimestamps;
  ListHandle timedList;
  /// The run list with a timestamp around every command, for runProfiled;
  /// recorded on its first call.
  std::unique_ptr<CommandTimestamps> profiledTimestamps;
  ListHandle profiledList;
  /// The queue's timestamp frequency, read by the first list recorded with
  /// timestamps (profiledList or timedList).
  uint64_t timestampFrequency = 0;
  /// Whether a run succeeded, leaving its inputs on the device.
  bool inputsResident = false;

  ProgramPlan plan;
  std::vector<unsigned> inputArguments, outputArguments;
  std::vector<uint64_t> constantOffsets;
  std::vector<TensorInfo> inputs, outputs;
  std::vector<PartitionInfo> partitions;
  SessionStats stats;

  ~Impl() {
    // Nothing may be released while the device still uses it.
    if (fence && fenceValue)
      (void)cgcWaitFence(fence.get(), fenceValue, UINT64_MAX);
  }

  Status selectDevice(const SessionOptions &options, CgcAdapter &adapter);
  Status compilePrograms();
  Status createBuffers(const Weights *weights);
  /// Records the run list: input uploads, the dispatches, output readbacks.
  Status recordRunList();
  /// Records dispatchList: the dispatches, behind uploads of the inputs
  /// whose bytes they write over (none unless inputs sit in scratch); and,
  /// where the device has timestamp queries, timedList: the same between
  /// two timestamps.
  Status recordDispatchList();
  /// Records the re-uploads of `reuploaded` and the dispatches into a new
  /// list (between two of `timestamps` and resolved, when given).
  Result<ListHandle> recordDispatchesOnly(const std::vector<unsigned> &reuploaded,
                                          CommandTimestamps *timestamps);
  /// Records profiledList: the run list with a timestamp before and after
  /// every upload, dispatch and readback, and their resolve.
  Status recordProfiledList();
  /// Records the uploads of the input `arguments` from their upload buffers
  /// (each between two of `timestamps`, when given).
  Status recordUploads(CgcCommandList list, BarrierTracker &tracker,
                       const std::vector<unsigned> &arguments,
                       CommandTimestamps *timestamps = nullptr);
  /// Records each invocation's SetProgram (when its program changes) and
  /// DispatchGraph, behind the barriers its bytes need.
  Status recordDispatches(CgcCommandList list, BarrierTracker &tracker, ListCounts &counts,
                          CommandTimestamps *timestamps = nullptr);
  /// Records the readback of every output, behind the barriers its bytes need.
  Status recordReadbacks(CgcCommandList list, BarrierTracker &tracker, ListCounts &counts,
                         CommandTimestamps *timestamps = nullptr);
  /// Checks `inputs` against the model's and writes them to their upload
  /// buffers; errors start with `call`.
  Status writeInputs(const std::vector<HostTensor> &inputs, const std::string &call);
  /// The outputs from their readback buffers.
  Result<std::vector<HostTensor>> readOutputs(const std::string &call);
  /// The name of program argument `argument`: its input's or output's.
  std::string getArgumentName(unsigned argument) const;
  /// Invocation `invocationIndex` of the plan bound to the session's
  /// buffers, checked against the driver's bind point sizes and alignments.
  Result<BoundInvocation> bindInvocation(size_t invocationIndex) const;
  /// Records the buffer-range barriers `accesses` need before their command;
  /// `afterDispatch` says whether one of them waits for a dispatch.
  Status recordBarriers(CgcCommandList list, BarrierTracker &tracker,
                        const std::vector<Access> &accesses, const std::string &where,
                        ListCounts &counts, bool &afterDispatch);
  /// The DEFAULT buffer an argument's bytes live in, and their offset there.
  std::pair<CgcBuffer, uint64_t> locateArgument(unsigned argument) const;
  Status submitAndWait(CgcCommandList list, const std::string &what);
  Result<BufferHandle> createBuffer(CgcHeapType heap, uint64_t size, const std::string &what);
};

Status Session::Impl::selectDevice(const SessionOptions &options, CgcAdapter &adapter) {
  Result<FoundAdapter> found = findAdapter(options.device);
  if (!found)
    return found.error();
  adapter = found->adapter;
  stats.adapterName = found->adapterName;
  stats.driverName = found->driverName;

  CgcDeviceDesc deviceDesc{};
  deviceDesc.version = CGC_API_VERSION;
  deviceDesc.flags = options.debugLayer ? CGC_DEVICE_FLAG_DEBUG_LAYER : CGC_DEVICE_FLAG_NONE;
  CgcDevice rawDevice = nullptr;
  if (CgcStatus status = cgcCreateDevice(adapter, &deviceDesc, &rawDevice); status != CGC_OK)
    return apiError("device '" + options.device + "': creating the device", status);
  device.reset(rawDevice);
  CgcCommandQueue rawQueue = nullptr;
  if (CgcStatus status = cgcCreateCommandQueue(device.get(), &rawQueue); status != CGC_OK)
    return apiError("creating the command queue", status);
  queue.reset(rawQueue);
  CgcFence rawFence = nullptr;
  if (CgcStatus status = cgcCreateFence(device.get(), 0, &rawFence); status != CGC_OK)
    return apiError("creating the fence", status);
  fence.reset(rawFence);
  CgcCommandAllocator rawAllocator = nullptr;
  if (CgcStatus status = cgcCreateCommandAllocator(device.get(), &rawAllocator); status != CGC_OK)
    return apiError("creating the command allocator", status);
  allocator.reset(rawAllocator);
  return Status::success();
}

Result<BufferHandle> Session::Impl::createBuffer(CgcHeapType heap, uint64_t size,
                                                 const std::string &what) {
  CgcBufferDesc desc{};
  desc.version = CGC_API_VERSION;
  desc.heapType = heap;
  // Zero-byte tensors still get an address to bind.
  desc.sizeInBytes = std::max<uint64_t>(size, 1);
  CgcBuffer buffer = nullptr;
  if (CgcStatus status = cgcCreateBuffer(device.get(), &desc, &buffer); status != CGC_OK)
    return apiError("creating the " + std::to_string(size) + "-byte " + what, status);
  return BufferHandle(buffer);
}

Status Session::Impl::compilePrograms() {
  // One state object per partition, compiled in parallel.
  programs.resize(plan.partitions.size());
  std::vector<std::optional<Error>> errors(plan.partitions.size());
  // When each state object compiled, and on which thread (0: this one).
  std::vector<PhaseTiming> compileTimes(plan.partitions.size());
  auto compile = [&](size_t index, unsigned thread) {
    const PlanPartition &partition = plan.partitions[index];
    compileTimes[index] = {"state object @" + partition.name, "state-object",
                           std::chrono::steady_clock::now(), {}, thread};
    ProgramState &program = programs[index];
    program.name = partition.name;
    CgcMlirProgramDesc programDesc{partition.name.c_str(), partition.container.data(),
                                   partition.container.size()};
    CgcStateObjectDesc desc{};
    desc.version = CGC_API_VERSION;
    desc.numPrograms = 1;
    desc.programs = &programDesc;
    CgcStateObject stateObject = nullptr;
    CgcStatus status = cgcCreateStateObject(device.get(), &desc, &stateObject);
    compileTimes[index].end = std::chrono::steady_clock::now();
    if (status != CGC_OK) {
      errors[index] = apiError("partition @" + partition.name + ": compiling", status);
      return;
    }
    program.stateObject.reset(stateObject);
  };
  // At most one thread per core: per-subgraph partitioning can give
  // thousands of partitions.
  std::atomic<size_t> next{0};
  auto worker = [&](unsigned thread) {
    for (size_t index = next++; index < plan.partitions.size(); index = next++)
      compile(index, thread);
  };
  size_t numThreads = std::min<size_t>(plan.partitions.size(),
                                       std::max(1u, std::thread::hardware_concurrency()));
  PhaseTimer allCompiled(stats.phases, "compile state objects", "state-object");
  std::vector<std::thread> threads;
  for (size_t thread = 1; thread < numThreads; ++thread)
    threads.emplace_back(worker, static_cast<unsigned>(thread));
  worker(0);
  for (std::thread &thread : threads)
    thread.join();
  allCompiled.stop();
  stats.phases.insert(stats.phases.end(), compileTimes.begin(), compileTimes.end());
  for (std::optional<Error> &error : errors)
    if (error)
      return *error;

  PhaseTimer resources(stats.phases, "binding properties, temporary and persistent resources",
                       "resources");
  for (ProgramState &program : programs) {
    std::string where = "partition @" + program.name;
    const PlanPartition &partition = plan.partitions[&program - programs.data()];
    if (CgcStatus status = cgcGetProgramIdentifier(program.stateObject.get(), program.name.c_str(),
                                                   &program.identifier);
        status != CGC_OK)
      return apiError(where + ": getting the program identifier", status);
    program.properties.version = CGC_API_VERSION;
    if (CgcStatus status = cgcGetProgramBindingProperties(
            program.stateObject.get(), program.name.c_str(), &program.properties);
        status != CGC_OK)
      return apiError(where + ": querying binding properties", status);
    if (program.properties.numBindPoints != partition.numBindPoints)
      return Error{where + ": the driver reports " +
                   std::to_string(program.properties.numBindPoints) + " bind points, the IR has " +
                   std::to_string(partition.numBindPoints)};
    program.bindPoints.resize(program.properties.numBindPoints);
    program.properties.bindPoints = program.bindPoints.data();
    if (CgcStatus status = cgcGetProgramBindingProperties(
            program.stateObject.get(), program.name.c_str(), &program.properties);
        status != CGC_OK)
      return apiError(where + ": querying binding properties", status);
    if (program.properties.temporaryResourceSize) {
      Result<BufferHandle> buffer = createBuffer(
          CGC_HEAP_TYPE_DEFAULT, program.properties.temporaryResourceSize,
          "temporary resource of partition @" + program.name);
      if (!buffer)
        return buffer.error();
      program.temporary = std::move(*buffer);
      stats.deviceBytes += program.properties.temporaryResourceSize;
    }
    if (program.properties.persistentResourceSize) {
      Result<BufferHandle> buffer = createBuffer(
          CGC_HEAP_TYPE_DEFAULT, program.properties.persistentResourceSize,
          "persistent resource of partition @" + program.name);
      if (!buffer)
        return buffer.error();
      program.persistent = std::move(*buffer);
      stats.deviceBytes += program.properties.persistentResourceSize;
    }
  }
  return Status::success();
}

Status Session::Impl::submitAndWait(CgcCommandList list, const std::string &what) {
  if (CgcStatus status = cgcExecuteCommandLists(queue.get(), 1, &list); status != CGC_OK)
    return apiError(what + ": executing the command list", status);
  if (CgcStatus status = cgcQueueSignal(queue.get(), fence.get(), ++fenceValue); status != CGC_OK)
    return apiError(what + ": signalling the fence", status);
  if (CgcStatus status = cgcWaitFence(fence.get(), fenceValue, UINT64_MAX); status != CGC_OK)
    return apiError(what + ": waiting for the device", status);
  return Status::success();
}

std::pair<CgcBuffer, uint64_t> Session::Impl::locateArgument(unsigned argument) const {
  if (std::optional<uint64_t> offset = plan.arguments[argument].scratchOffset)
    return {argumentBuffers[*plan.scratchArgument].get(), *offset};
  return {argumentBuffers[argument].get(), 0};
}

Status Session::Impl::createBuffers(const Weights *weights) {
  PhaseTimer argumentsTimer(stats.phases, "argument and staging buffers", "resources");
  for (const PlanArgument &argument : plan.arguments) {
    const char *what = argument.role == PlanArgument::Role::Input    ? "input buffer"
                       : argument.role == PlanArgument::Role::Output ? "output buffer"
                                                                     : "scratch buffer";
    // An input placed in scratch has no buffer of its own.
    BufferHandle own;
    if (!argument.scratchOffset) {
      Result<BufferHandle> buffer =
          createBuffer(CGC_HEAP_TYPE_DEFAULT, argument.sizeInBytes, what);
      if (!buffer)
        return buffer.error();
      own = std::move(*buffer);
      stats.deviceBytes += argument.sizeInBytes;
    }
    argumentBuffers.push_back(std::move(own));
    BufferHandle staging;
    if (argument.role != PlanArgument::Role::Scratch) {
      bool isInput = argument.role == PlanArgument::Role::Input;
      Result<BufferHandle> stagingBuffer =
          createBuffer(isInput ? CGC_HEAP_TYPE_UPLOAD : CGC_HEAP_TYPE_READBACK,
                       argument.sizeInBytes, isInput ? "input upload buffer" : "output readback buffer");
      if (!stagingBuffer)
        return stagingBuffer.error();
      staging = std::move(*stagingBuffer);
    } else {
      stats.scratchBytes += argument.sizeInBytes;
    }
    stagingBuffers.push_back(std::move(staging));
  }

  argumentsTimer.stop();

  // Constants: one DEFAULT buffer, filled once through an UPLOAD buffer.
  PhaseTimer fillTimer(stats.phases, "constants: create buffers, fill the upload buffer",
                       "constants");
  uint64_t total = 0;
  for (const PlanConstant &constant : plan.constants) {
    total = alignUp(total, kConstantAlignment);
    constantOffsets.push_back(total);
    total += constant.sizeInBytes;
  }
  stats.constantBytes = total;
  stats.deviceBytes += total;
  stats.numConstants = plan.constants.size();
  if (plan.constants.empty())
    return Status::success();
  // Inside the phase above: what the device takes to allocate, then the
  // runtime's own work.
  PhaseTimer createTimer(stats.phases, "constants: create the buffers", "constants");
  Result<BufferHandle> buffer = createBuffer(CGC_HEAP_TYPE_DEFAULT, total, "constants buffer");
  if (!buffer)
    return buffer.error();
  constants = std::move(*buffer);
  Result<BufferHandle> upload = createBuffer(CGC_HEAP_TYPE_UPLOAD, total, "constants upload buffer");
  if (!upload)
    return upload.error();
  createTimer.stop();
  PhaseTimer writeTimer(stats.phases, "constants: write the upload buffer", "constants");
  void *mapped = nullptr;
  if (CgcStatus status = cgcMapBuffer(upload->get(), &mapped); status != CGC_OK)
    return apiError("mapping the constants upload buffer", status);
  // Each constant straight from the weights into the upload buffer: a
  // copy, or float32 data converted for a float16/bfloat16 constant, and
  // permuted for one bound in another layout; in one pass on every core.
  std::vector<ConstantFill> fills;
  fills.reserve(plan.constants.size());
  Status filled = Status::success();
  for (size_t index = 0; index < plan.constants.size() && filled; ++index) {
    const PlanConstant &constant = plan.constants[index];
    std::span<std::byte> destination(static_cast<std::byte *>(mapped) + constantOffsets[index],
                                     constant.sizeInBytes);
    Result<ConstantFill> fill = weights->prepareConstant(
        constant.name, constant.dtype, constant.storedShape, constant.permutation, destination);
    if (fill)
      fills.push_back(std::move(*fill));
    else
      filled = fill.error();
  }
  if (filled)
    filled = fillConstants(fills);
  if (!filled) {
    (void)cgcUnmapBuffer(upload->get());
    return filled.error();
  }
  if (CgcStatus status = cgcUnmapBuffer(upload->get()); status != CGC_OK)
    return apiError("unmapping the constants upload buffer", status);
  writeTimer.stop();
  fillTimer.stop();

  PhaseTimer uploadTimer(stats.phases, "constants: upload " + std::to_string(total) + " bytes",
                         "constants");
  CgcCommandList rawList = nullptr;
  if (CgcStatus status = cgcCreateCommandList(device.get(), allocator.get(), &rawList);
      status != CGC_OK)
    return apiError("uploading constants: creating a command list", status);
  ListHandle list(rawList);
  if (CgcStatus status = cgcCommandListCopyBufferRegion(list.get(), constants.get(), 0,
                                                        upload->get(), 0, total);
      status != CGC_OK)
    return apiError("uploading constants: recording the copy", status);
  if (CgcStatus status = cgcCloseCommandList(list.get()); status != CGC_OK)
    return apiError("uploading constants: closing the command list", status);
  return submitAndWait(list.get(), "uploading constants");
}

Status Session::Impl::recordBarriers(CgcCommandList list, BarrierTracker &tracker,
                                     const std::vector<Access> &accesses,
                                     const std::string &where, ListCounts &counts,
                                     bool &afterDispatch) {
  Conflicts conflicts = tracker.getConflicts(accesses);
  afterDispatch = conflicts.afterDispatch;
  for (const Access &range : conflicts.ranges) {
    CgcBarrierDesc barrier{};
    barrier.version = CGC_API_VERSION;
    barrier.type = CGC_BARRIER_TYPE_BUFFER_RANGE;
    barrier.range = {range.begin, range.end - range.begin};
    if (CgcStatus status = cgcCommandListBarrier(list, &barrier); status != CGC_OK)
      return apiError(where + ": recording a barrier over [" + std::to_string(range.begin) + ", " +
                          std::to_string(range.end) + ")",
                      status);
    tracker.cover(range);
    ++counts.rangeBarriers;
  }
  tracker.add(accesses);
  return Status::success();
}

Result<BoundInvocation> Session::Impl::bindInvocation(size_t invocationIndex) const {
  const PlanInvocation &invocation = plan.invocations[invocationIndex];
  const ProgramState &program = programs[invocation.partition];
  std::string where =
      "invocation #" + std::to_string(invocationIndex) + " of partition @" + program.name;
  BoundInvocation bound;
  for (size_t bindPoint = 0; bindPoint < invocation.bindings.size(); ++bindPoint) {
    const PlanBinding &binding = invocation.bindings[bindPoint];
    std::string bindPointName = where + ", bind point #" + std::to_string(bindPoint);
    const CgcBindPointDesc &desc = program.bindPoints[bindPoint];
    bool isConstant = binding.source == PlanBinding::Source::Constant;
    CgcBuffer buffer = isConstant ? constants.get() : argumentBuffers[binding.index].get();
    uint64_t offset = binding.offset + (isConstant ? constantOffsets[binding.index] : 0);
    CgcDeviceAddress address = cgcGetBufferDeviceAddress(buffer) + offset;
    if (desc.sizeInBytes > binding.sizeInBytes)
      return Error{bindPointName + ": the driver needs " + std::to_string(desc.sizeInBytes) +
                   " bytes but the IR binds " + std::to_string(binding.sizeInBytes)};
    if (desc.alignment > 1 && address % desc.alignment != 0)
      return Error{bindPointName + ": address " + std::to_string(address) +
                   " is not aligned to the driver's " + std::to_string(desc.alignment) + " bytes"};
    CgcProgramBinding programBinding{};
    programBinding.bindPointIndex = static_cast<uint32_t>(bindPoint);
    programBinding.type = CGC_BINDING_TYPE_GPU;
    programBinding.gpu = {address, binding.sizeInBytes};
    bound.bindings.push_back(programBinding);
    // Constants are never written after their upload (an earlier
    // submission): reading them conflicts with nothing.
    bool written = binding.written || (desc.flags & CGC_BIND_POINT_FLAG_WRITTEN);
    if (!isConstant && binding.sizeInBytes)
      bound.accesses.push_back(accessOf(buffer, offset, binding.sizeInBytes, written, true));
  }
  // Invocations of one program share its temporary resource.
  if (program.temporary)
    bound.accesses.push_back(accessOf(program.temporary.get(), 0,
                                      program.properties.temporaryResourceSize, true, true));
  return bound;
}

Status Session::Impl::recordUploads(CgcCommandList list, BarrierTracker &tracker,
                                    const std::vector<unsigned> &arguments,
                                    CommandTimestamps *timestamps) {
  for (unsigned argument : arguments) {
    auto [buffer, offset] = locateArgument(argument);
    uint64_t size = plan.arguments[argument].sizeInBytes;
    if (timestamps)
      if (Status status = timestamps->begin(
              list, {ProfiledCommand::Kind::Upload, getArgumentName(argument), 0, 0, size});
          !status)
        return status;
    if (CgcStatus status = cgcCommandListCopyBufferRegion(
            list, buffer, offset, stagingBuffers[argument].get(), 0, size);
        status != CGC_OK)
      return apiError("recording the upload of input #" + std::to_string(argument), status);
    if (size)
      tracker.add({accessOf(buffer, offset, size, true, false)});
    if (timestamps)
      if (Status status = timestamps->end(list); !status)
        return status;
  }
  return Status::success();
}

std::string Session::Impl::getArgumentName(unsigned argument) const {
  for (size_t index = 0; index < inputArguments.size(); ++index)
    if (inputArguments[index] == argument)
      return inputs[index].name;
  for (size_t index = 0; index < outputArguments.size(); ++index)
    if (outputArguments[index] == argument)
      return outputs[index].name;
  return "argument #" + std::to_string(argument);
}

Status Session::Impl::recordDispatches(CgcCommandList list, BarrierTracker &tracker,
                                       ListCounts &counts, CommandTimestamps *timestamps) {
  const ProgramState *current = nullptr;
  for (size_t invocationIndex = 0; invocationIndex < plan.invocations.size(); ++invocationIndex) {
    const ProgramState &program = programs[plan.invocations[invocationIndex].partition];
    std::string where = "invocation #" + std::to_string(invocationIndex) + " of partition @" +
                        program.name;
    Result<BoundInvocation> bound = bindInvocation(invocationIndex);
    if (!bound)
      return bound.error();
    bool afterDispatch = false;
    if (Status status = recordBarriers(list, tracker, bound->accesses, where, counts,
                                       afterDispatch);
        !status)
      return status;
    counts.dispatchesAfterDispatch += afterDispatch;

    if (current != &program) {
      CgcSetProgramDesc setProgram{};
      setProgram.version = CGC_API_VERSION;
      setProgram.programIdentifier = program.identifier;
      setProgram.temporaryResource = rangeOf(program.temporary);
      setProgram.persistentResource = rangeOf(program.persistent);
      if (CgcStatus status =
              cgcCommandListSetProgram(list, program.stateObject.get(), &setProgram);
          status != CGC_OK)
        return apiError(where + ": SetProgram", status);
      current = &program;
    }
    if (timestamps)
      if (Status status = timestamps->begin(
              list, {ProfiledCommand::Kind::Dispatch, program.name,
                     plan.invocations[invocationIndex].partition,
                     static_cast<unsigned>(invocationIndex), 0});
          !status)
        return status;
    CgcDispatchGraphDesc dispatch{};
    dispatch.version = CGC_API_VERSION;
    dispatch.numBindings = static_cast<uint32_t>(bound->bindings.size());
    dispatch.bindings = bound->bindings.data();
    if (CgcStatus status = cgcCommandListDispatchGraph(list, &dispatch); status != CGC_OK)
      return apiError(where + ": DispatchGraph", status);
    ++counts.dispatches;
    if (timestamps)
      if (Status status = timestamps->end(list); !status)
        return status;
  }
  return Status::success();
}

Status Session::Impl::recordReadbacks(CgcCommandList list, BarrierTracker &tracker,
                                      ListCounts &counts, CommandTimestamps *timestamps) {
  for (unsigned argument : outputArguments) {
    std::string where = "the readback of output #" + std::to_string(argument);
    CgcBuffer buffer = argumentBuffers[argument].get();
    uint64_t size = plan.arguments[argument].sizeInBytes;
    bool afterDispatch = false;
    if (size)
      if (Status status = recordBarriers(list, tracker, {accessOf(buffer, 0, size, false, false)},
                                         where, counts, afterDispatch);
          !status)
        return status;
    if (timestamps)
      if (Status status = timestamps->begin(
              list, {ProfiledCommand::Kind::Readback, getArgumentName(argument), 0, 0, size});
          !status)
        return status;
    if (CgcStatus status = cgcCommandListCopyBufferRegion(list, stagingBuffers[argument].get(), 0,
                                                          buffer, 0, size);
        status != CGC_OK)
      return apiError("recording " + where, status);
    if (timestamps)
      if (Status status = timestamps->end(list); !status)
        return status;
  }
  return Status::success();
}

Status Session::Impl::recordRunList() {
  PhaseTimer timer(stats.phases, "record the run list", "record");
  CgcCommandList rawList = nullptr;
  if (CgcStatus status = cgcCreateCommandList(device.get(), allocator.get(), &rawList);
      status != CGC_OK)
    return apiError("recording the program: creating a command list", status);
  runList.reset(rawList);
  CgcCommandList list = runList.get();
  BarrierTracker tracker;
  ListCounts counts;

  // Inputs: upload -> device (into scratch for inputs placed there).
  if (Status status = recordUploads(list, tracker, inputArguments); !status)
    return status;
  if (Status status = recordDispatches(list, tracker, counts); !status)
    return status;

  // Outputs: device -> readback, each behind the barriers its bytes need.
  if (Status status = recordReadbacks(list, tracker, counts); !status)
    return status;
  if (CgcStatus status = cgcCloseCommandList(list); status != CGC_OK)
    return apiError("recording the program: closing the command list", status);
  stats.numDispatches = counts.dispatches;
  stats.numBarriers = counts.dispatchesAfterDispatch;
  stats.numRangeBarriers = counts.rangeBarriers;
  for (const PlanInvocation &invocation : plan.invocations)
    ++programs[invocation.partition].numInvocations;
  return Status::success();
}

Status Session::Impl::recordDispatchList() {
  // An input whose bytes a dispatch writes (an input placed in scratch whose
  // bytes are reused, or written in place) is uploaded again before every
  // execution, from the upload buffer the last run filled: else each
  // execution would compute on what the previous one left there.
  std::vector<Access> written;
  for (size_t invocationIndex = 0; invocationIndex < plan.invocations.size(); ++invocationIndex) {
    Result<BoundInvocation> bound = bindInvocation(invocationIndex);
    if (!bound)
      return bound.error();
    for (const Access &access : bound->accesses)
      if (access.written)
        written.push_back(access);
  }
  std::vector<unsigned> reuploaded;
  for (unsigned argument : inputArguments) {
    auto [buffer, offset] = locateArgument(argument);
    CgcDeviceAddress begin = cgcGetBufferDeviceAddress(buffer) + offset;
    CgcDeviceAddress end = begin + plan.arguments[argument].sizeInBytes;
    if (begin != end && std::any_of(written.begin(), written.end(), [&](const Access &access) {
          return access.begin < end && begin < access.end;
        }))
      reuploaded.push_back(argument);
  }

  Result<ListHandle> list = recordDispatchesOnly(reuploaded, nullptr);
  if (!list)
    return list.error();
  dispatchList = std::move(*list);
  numDispatchListUploads = reuploaded.size();

  // The device times: the same commands between two timestamps, where the
  // device has timestamp queries (as CUDA events around a graph's launch
  // time it; without them, or without a frequency, timeRuns gives host
  // times alone). Failures of a device that has them are errors.
  CgcFeatureDataTimestampQueries feature{};
  if (CgcStatus status = cgcCheckFeatureSupport(device.get(), CGC_FEATURE_TIMESTAMP_QUERIES,
                                                &feature, sizeof(feature));
      status != CGC_OK)
    return apiError("timing the dispatches: asking for timestamp queries", status);
  if (!feature.timestampQueriesSupported)
    return Status::success();
  uint64_t frequency = 0;
  if (CgcStatus status = cgcGetTimestampFrequency(queue.get(), &frequency); status != CGC_OK)
    return apiError("timing the dispatches: the queue's timestamp frequency", status);
  if (frequency == 0)
    return Status::success();
  Result<std::unique_ptr<CommandTimestamps>> timestamps =
      CommandTimestamps::create(device.get(), 1);
  if (!timestamps)
    return timestamps.error();
  Result<ListHandle> timed = recordDispatchesOnly(reuploaded, timestamps->get());
  if (!timed)
    return timed.error();
  timedTimestamps = std::move(*timestamps);
  timedList = std::move(*timed);
  timestampFrequency = frequency;
  return Status::success();
}

Result<ListHandle> Session::Impl::recordDispatchesOnly(const std::vector<unsigned> &reuploaded,
                                                       CommandTimestamps *timestamps) {
  CgcCommandList rawList = nullptr;
  if (CgcStatus status = cgcCreateCommandList(device.get(), allocator.get(), &rawList);
      status != CGC_OK)
    return apiError("recording the dispatches: creating a command list", status);
  ListHandle list(rawList);
  BarrierTracker tracker;
  ListCounts counts;
  ProfiledCommand whole{ProfiledCommand::Kind::Dispatch, "the dispatches"};
  if (timestamps)
    if (Status status = timestamps->begin(list.get(), whole); !status)
      return status.error();
  if (Status status = recordUploads(list.get(), tracker, reuploaded); !status)
    return status.error();
  if (Status status = recordDispatches(list.get(), tracker, counts); !status)
    return status.error();
  if (timestamps) {
    if (Status status = timestamps->end(list.get()); !status)
      return status.error();
    if (Status status = timestamps->resolve(list.get()); !status)
      return status.error();
  }
  if (CgcStatus status = cgcCloseCommandList(list.get()); status != CGC_OK)
    return apiError("recording the dispatches: closing the command list", status);
  return list;
}

Status Session::Impl::recordProfiledList() {
  auto numCommands =
      static_cast<unsigned>(inputArguments.size() + plan.invocations.size() + outputArguments.size());
  Result<std::unique_ptr<CommandTimestamps>> timestamps =
      CommandTimestamps::create(device.get(), numCommands);
  if (!timestamps)
    return timestamps.error();
  uint64_t frequency = 0;
  if (CgcStatus status = cgcGetTimestampFrequency(queue.get(), &frequency); status != CGC_OK)
    return apiError("profiling: the queue's timestamp frequency", status);

  CgcCommandList rawList = nullptr;
  if (CgcStatus status = cgcCreateCommandList(device.get(), allocator.get(), &rawList);
      status != CGC_OK)
    return apiError("recording the profiled program: creating a command list", status);
  ListHandle list(rawList);
  // The run list's commands and barriers, each command between two
  // timestamps; the last command resolves them.
  BarrierTracker tracker;
  ListCounts counts;
  if (Status status = recordUploads(list.get(), tracker, inputArguments, timestamps->get());
      !status)
    return status;
  if (Status status = recordDispatches(list.get(), tracker, counts, timestamps->get()); !status)
    return status;
  if (Status status = recordReadbacks(list.get(), tracker, counts, timestamps->get()); !status)
    return status;
  if (Status status = (*timestamps)->resolve(list.get()); !status)
    return status;
  if (CgcStatus status = cgcCloseCommandList(list.get()); status != CGC_OK)
    return apiError("recording the profiled program: closing the command list", status);
  profiledTimestamps = std::move(*timestamps);
  profiledList = std::move(list);
  timestampFrequency = frequency;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

Session::Session(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(const SessionOptions &options) {
  using Clock = std::chrono::steady_clock;
  auto impl = std::make_unique<Impl>();
  Clock::time_point start = Clock::now();

  CgcAdapter adapter = nullptr;
  PhaseTimer deviceTimer(impl->stats.phases, "open the device", "resources");
  if (Status status = impl->selectDevice(options, adapter); !status)
    return status.error();
  deviceTimer.stop();

  // Input IR is compiled for the device's driver, which the compiler asks
  // for patterns and specializations through the device API.
  CompileRequest request{makeDeviceTarget(impl->device.get(), impl->stats.driverName),
                         options.compiler};
  Result<ProgramPlan> plan = options.modelData.empty()
                                 ? loadProgramPlan(options.modelPath, request)
                                 : loadProgramPlan(options.modelData, options.modelPath, request);
  if (!plan)
    return plan.error();
  impl->plan = std::move(*plan);
  impl->stats.loweredFromInputIR = impl->plan.loweredFromInputIR;
  impl->stats.compile = impl->plan.compile;
  impl->stats.phases.insert(impl->stats.phases.end(), impl->plan.phases.begin(),
                            impl->plan.phases.end());

  std::optional<Weights> weights;
  PhaseTimer weightsTimer(impl->stats.phases, "read weights", "load");
  if (!impl->plan.constants.empty()) {
    std::string path = options.weightsPath;
    if (path.empty()) {
      std::filesystem::path model(options.modelPath);
      std::filesystem::path beside = std::filesystem::path(model).replace_extension(".safetensors");
      // <model>.safetensors, else model.safetensors in the same directory
      // (what exporters write); a missing file is reported by its first name.
      std::filesystem::path shared = model.parent_path() / "model.safetensors";
      std::error_code code;
      path = !std::filesystem::exists(beside, code) && std::filesystem::exists(shared, code)
                 ? shared.string()
                 : beside.string();
    }
    // Read in place: the file mapped, or the caller's bytes (which outlive
    // Session::create) borrowed.
    Result<Weights> loaded =
        options.weightsData.empty()
            ? Weights::read(path)
            : Weights::parse(std::span<const std::byte>(options.weightsData),
                             options.modelPath + " (weights in memory)", nullptr);
    if (!loaded)
      return Error{loaded.error().message + " (the model binds " +
                   std::to_string(impl->plan.constants.size()) + " constant(s), starting with \"" +
                   impl->plan.constants.front().name + "\")"};
    weights = std::move(*loaded);
    // Check every constant before touching the device: the weights hold the
    // stored shape, which a permuted constant binds in another order.
    for (const PlanConstant &constant : impl->plan.constants)
      if (Status status =
              weights->checkConstant(constant.name, constant.dtype, constant.storedShape);
          !status) {
        if (constant.permutation.empty())
          return status.error();
        std::string permutation;
        for (int64_t dimension : constant.permutation)
          permutation += (permutation.empty() ? "" : ", ") + std::to_string(dimension);
        return Error{status.error().message + " (stored; bound permuted by [" + permutation +
                     "] as " + formatShape(constant.shape) + ")"};
      }
  }
  weightsTimer.stop();
  Clock::time_point loaded = Clock::now();

  for (unsigned index = 0; index < impl->plan.arguments.size(); ++index) {
    const PlanArgument &argument = impl->plan.arguments[index];
    if (argument.role == PlanArgument::Role::Input) {
      impl->inputs.push_back({argument.name.empty() ? "input" + std::to_string(impl->inputs.size())
                                                    : argument.name,
                              argument.dtype, argument.shape, argument.sizeInBytes});
      impl->inputArguments.push_back(index);
    } else if (argument.role == PlanArgument::Role::Output) {
      impl->outputs.push_back({argument.name.empty()
                                   ? "output" + std::to_string(impl->outputs.size())
                                   : argument.name,
                               argument.dtype, argument.shape, argument.sizeInBytes});
      impl->outputArguments.push_back(index);
    }
  }
  if (Status status = impl->compilePrograms(); !status)
    return status.error();
  if (Status status = impl->createBuffers(weights ? &*weights : nullptr); !status)
    return status.error();
  if (Status status = impl->recordRunList(); !status)
    return status.error();
  for (const ProgramState &program : impl->programs)
    impl->partitions.push_back({program.name, program.properties.numBindPoints,
                                program.numInvocations, program.properties.temporaryResourceSize,
                                program.properties.persistentResourceSize,
                                impl->plan.partitions[&program - impl->programs.data()].subgraphs});
  Clock::time_point compiled = Clock::now();
  impl->stats.loadSeconds = std::chrono::duration<double>(loaded - start).count();
  impl->stats.compileSeconds = std::chrono::duration<double>(compiled - loaded).count();
  std::stable_sort(impl->stats.phases.begin(), impl->stats.phases.end(),
                   [](const PhaseTiming &a, const PhaseTiming &b) { return a.begin < b.begin; });
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Status Session::Impl::writeInputs(const std::vector<HostTensor> &values,
                                  const std::string &call) {
  if (values.size() != inputs.size())
    return Error{call + ": the model takes " + std::to_string(inputs.size()) + " input(s), got " +
                 std::to_string(values.size())};
  for (size_t index = 0; index < values.size(); ++index) {
    const HostTensor &input = values[index];
    const TensorInfo &info = inputs[index];
    if (input.dtype != info.dtype || input.shape != info.shape)
      return Error{call + ": input #" + std::to_string(index) + " (" + info.name + ") must be " +
                   std::string(getName(info.dtype)) + " " + formatShape(info.shape) + ", got " +
                   std::string(getName(input.dtype)) + " " + formatShape(input.shape)};
    if (input.data.size() != info.sizeInBytes)
      return Error{call + ": input #" + std::to_string(index) + " (" + info.name + ") holds " +
                   std::to_string(input.data.size()) + " bytes, expected " +
                   std::to_string(info.sizeInBytes)};
    CgcBuffer upload = stagingBuffers[inputArguments[index]].get();
    void *mapped = nullptr;
    if (CgcStatus status = cgcMapBuffer(upload, &mapped); status != CGC_OK)
      return apiError(call + ": mapping the upload buffer of " + info.name, status);
    if (!input.data.empty())
      std::memcpy(mapped, input.data.data(), input.data.size());
    if (CgcStatus status = cgcUnmapBuffer(upload); status != CGC_OK)
      return apiError(call + ": unmapping the upload buffer of " + info.name, status);
  }
  return Status::success();
}

Result<std::vector<HostTensor>> Session::Impl::readOutputs(const std::string &call) {
  std::vector<HostTensor> values;
  for (size_t index = 0; index < outputs.size(); ++index) {
    const TensorInfo &info = outputs[index];
    CgcBuffer readback = stagingBuffers[outputArguments[index]].get();
    void *mapped = nullptr;
    if (CgcStatus status = cgcMapBuffer(readback, &mapped); status != CGC_OK)
      return apiError(call + ": mapping the readback buffer of " + info.name, status);
    HostTensor output = HostTensor::zeros(info.dtype, info.shape);
    if (!output.data.empty())
      std::memcpy(output.data.data(), mapped, output.data.size());
    if (CgcStatus status = cgcUnmapBuffer(readback); status != CGC_OK)
      return apiError(call + ": unmapping the readback buffer of " + info.name, status);
    values.push_back(std::move(output));
  }
  return values;
}

Result<std::vector<HostTensor>> Session::run(const std::vector<HostTensor> &inputs) {
  if (Status status = impl->writeInputs(inputs, "run"); !status)
    return status.error();
  if (Status status = impl->submitAndWait(impl->runList.get(), "run"); !status)
    return status.error();
  impl->inputsResident = true;
  return impl->readOutputs("run");
}

Result<RunProfile> Session::runProfiled(const std::vector<HostTensor> &inputs) {
  using Clock = std::chrono::steady_clock;
  if (!impl->profiledList)
    if (Status status = impl->recordProfiledList(); !status)
      return Error{"runProfiled: " + status.error().message};
  if (Status status = impl->writeInputs(inputs, "runProfiled"); !status)
    return status.error();
  RunProfile profile;
  profile.submitted = Clock::now();
  if (Status status = impl->submitAndWait(impl->profiledList.get(), "runProfiled"); !status)
    return status.error();
  profile.completed = Clock::now();
  impl->inputsResident = true;
  Result<std::vector<HostTensor>> outputs = impl->readOutputs("runProfiled");
  if (!outputs)
    return outputs.error();
  profile.outputs = std::move(*outputs);
  Result<std::vector<ProfiledCommand>> commands =
      impl->profiledTimestamps->read(impl->timestampFrequency);
  if (!commands)
    return Error{"runProfiled: " + commands.error().message};
  profile.commands = std::move(*commands);
  profile.timestampFrequency = impl->timestampFrequency;
  return profile;
}

Result<RunTimings> Session::timeRuns(unsigned count) {
  using Clock = std::chrono::steady_clock;
  if (!impl->inputsResident)
    return Error{"timeRuns: no run has left inputs on the device; call run() first"};
  if (!impl->dispatchList)
    if (Status status = impl->recordDispatchList(); !status)
      return status.error();
  RunTimings timings;
  timings.numInputUploads = impl->numDispatchListUploads;
  timings.seconds.reserve(count);
  for (unsigned index = 0; index < count; ++index) {
    std::string what = "timeRuns: execution " + std::to_string(index + 1);
    Clock::time_point begin = Clock::now();
    if (Status status = impl->submitAndWait(impl->dispatchList.get(), what); !status)
      return status.error();
    timings.seconds.push_back(std::chrono::duration<double>(Clock::now() - begin).count());
    if (!impl->timedList)
      continue;
    if (Status status = impl->submitAndWait(impl->timedList.get(), what + " (device-timed)");
        !status)
      return status.error();
    Result<std::vector<ProfiledCommand>> timed =
        impl->timedTimestamps->read(impl->timestampFrequency);
    if (!timed)
      return Error{"timeRuns: " + timed.error().message};
    const ProfiledCommand &whole = timed->front();
    timings.deviceSeconds.push_back(double(whole.deviceEndNs - whole.deviceBeginNs) * 1e-9);
  }
  return timings;
}

const std::vector<TensorInfo> &Session::getInputs() const { return impl->inputs; }
const std::vector<TensorInfo> &Session::getOutputs() const { return impl->outputs; }
const std::vector<PartitionInfo> &Session::getPartitions() const { return impl->partitions; }
const SessionStats &Session::getStats() const { return impl->stats; }

} // namespace cgc::runtime
