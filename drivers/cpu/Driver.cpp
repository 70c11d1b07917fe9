//===- Driver.cpp - the CPU driver's entry point and DDI table -------------===//
//
// cgcDriverOpen is the one symbol the plugin exports. It hands the API a
// table of C functions, each a thin thunk onto the driver object behind the
// handle; the API has validated the arguments before it calls them.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Buffer.h"
#include "CommandList.h"
#include "Device.h"
#include "Fence.h"
#include "Program.h"
#include "QueryHeap.h"
#include "Queue.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace cgc::cpu {

//===----------------------------------------------------------------------===//
// Driver and adapter
//===----------------------------------------------------------------------===//

Driver::Driver(const CgcDdiHost &host) : host(host), adapterDesc(describeHostAdapter()) {}

Driver::~Driver() {
  std::unordered_map<Device *, std::unique_ptr<Device>> left;
  {
    std::lock_guard<std::mutex> lock(mutex);
    left.swap(devices);
  }
}

CgcStatus Driver::fail(CgcStatus status, const std::string &message) const {
  if (host.setErrorMessage)
    host.setErrorMessage(host.context, message.c_str());
  return status;
}

CgcStatus Driver::createDevice(Device *&out) {
  auto device = std::make_unique<Device>(*this);
  out = device.get();
  std::lock_guard<std::mutex> lock(mutex);
  devices.emplace(out, std::move(device));
  return CGC_OK;
}

void Driver::destroyDevice(Device *device) {
  std::unique_ptr<Device> owned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = devices.find(device);
    if (it == devices.end())
      return;
    owned = std::move(it->second);
    devices.erase(it);
  }
}

namespace {

/// The "model name" line of /proc/cpuinfo, or a generic name.
std::string readCpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0)
      continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    size_t begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? std::string() : line.substr(begin);
  }
  return "unknown CPU";
}

/// What identifies this host: its machine id when there is one, else its
/// host name; with the CPU model, so that the UUID names this adapter.
std::string readHostIdentity() {
  std::string identity;
  std::ifstream machineId("/etc/machine-id");
  std::getline(machineId, identity);
  if (identity.empty()) {
    char hostName[256] = {};
    if (gethostname(hostName, sizeof(hostName) - 1) == 0)
      identity = hostName;
  }
  return identity + "|" + readCpuModelName() + "|cgc-driver-cpu";
}

/// 64-bit FNV-1a of `text`, from `seed`.
uint64_t hashFnv1a(const std::string &text, uint64_t seed) {
  uint64_t hash = seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

template <size_t N>
void copyTruncated(char (&destination)[N], const std::string &source) {
  size_t length = std::min(source.size(), N - 1);
  std::memcpy(destination, source.data(), length);
  destination[length] = '\0';
}

} // namespace

CgcAdapterDesc describeHostAdapter() {
  CgcAdapterDesc desc{};
  desc.version = CGC_API_VERSION;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  copyTruncated(desc.name, "CPU (" + std::to_string(threads) + " threads)");
  copyTruncated(desc.vendor, readCpuModelName());

  // A name-based UUID (RFC 9562 version 8 layout) from the host identity:
  // the same on every run on this machine.
  std::string identity = readHostIdentity();
  uint64_t high = hashFnv1a(identity, 0xcbf29ce484222325ull);
  uint64_t low = hashFnv1a(identity, high ^ 0x9e3779b97f4a7c15ull);
  for (int i = 0; i < 8; ++i) {
    desc.uuid[i] = static_cast<uint8_t>(high >> (56 - 8 * i));
    desc.uuid[8 + i] = static_cast<uint8_t>(low >> (56 - 8 * i));
  }
  desc.uuid[6] = static_cast<uint8_t>((desc.uuid[6] & 0x0f) | 0x80);
  desc.uuid[8] = static_cast<uint8_t>((desc.uuid[8] & 0x3f) | 0x80);

  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  desc.dedicatedMemoryBytes =
      pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize)
                                : 0;
  copyTruncated(desc.driverName, "cpu");
  // major.minor.patch packed as 10.10.12 bits.
  desc.driverVersion = (CGC_DRIVER_VERSION_MAJOR << 22) | (CGC_DRIVER_VERSION_MINOR << 12) |
                       CGC_DRIVER_VERSION_PATCH;
  return desc;
}

//===----------------------------------------------------------------------===//
// The DDI table
//===----------------------------------------------------------------------===//

namespace {

Driver &asDriver(void *handle) { return *static_cast<Driver *>(handle); }
Device &asDevice(void *handle) { return *static_cast<Device *>(handle); }
CommandList &asList(void *handle) { return *static_cast<CommandList *>(handle); }
Queue &asQueue(void *handle) { return *static_cast<Queue *>(handle); }
Fence &asFence(void *handle) { return *static_cast<Fence *>(handle); }

/// Runs a DDI call so that no C++ exception crosses the C boundary: running
/// out of memory (or threads) inside the driver becomes a status.
template <typename Call>
CgcStatus guard(Driver &driver, Call &&call) {
  try {
    return call();
  } catch (const std::bad_alloc &) {
    return driver.fail(CGC_ERROR_OUT_OF_MEMORY, "the CPU driver ran out of host memory");
  } catch (const std::exception &error) {
    return driver.fail(CGC_ERROR_INTERNAL, std::string("the CPU driver failed: ") + error.what());
  }
}
Driver &driverOf(Device &device) { return device.getDriver(); }
Driver &driverOf(CommandList &list) { return list.getDevice().getDriver(); }
Driver &driverOf(Queue &queue) { return queue.getDevice().getDriver(); }
Driver &driverOf(Fence &fence) { return fence.getDevice().getDriver(); }

void closeDriver(void *driver) { delete &asDriver(driver); }

uint32_t getAdapterCount(void *) { return 1; }

CgcStatus getAdapterDesc(void *driver, uint32_t index, CgcAdapterDesc *out_desc) {
  if (index != 0)
    return asDriver(driver).fail(CGC_ERROR_NOT_FOUND,
                                 "the CPU driver has one adapter; there is no adapter " +
                                     std::to_string(index));
  *out_desc = asDriver(driver).getAdapterDesc();
  return CGC_OK;
}

CgcStatus createDevice(void *driver, uint32_t adapterIndex, void **out_device) {
  Driver &owner = asDriver(driver);
  if (adapterIndex != 0)
    return owner.fail(CGC_ERROR_NOT_FOUND,
                      "the CPU driver has one adapter; there is no adapter " +
                          std::to_string(adapterIndex));
  return guard(owner, [&] {
    Device *device = nullptr;
    CgcStatus status = owner.createDevice(device);
    if (status == CGC_OK)
      *out_device = device;
    return status;
  });
}

void destroyDevice(void *device) {
  Device &owned = asDevice(device);
  owned.getDriver().destroyDevice(&owned);
}

CgcStatus getCaps(void *device, CgcFeature feature, void *data, size_t dataSize) {
  Device &owner = asDevice(device);
  return guard(driverOf(owner), [&] { return owner.getCaps(feature, data, dataSize); });
}

CgcStatus createBuffer(void *device, CgcHeapType heapType, uint64_t sizeInBytes,
                       void **out_buffer, CgcDeviceAddress *out_address) {
  Device &owner = asDevice(device);
  return guard(driverOf(owner), [&] {
    Buffer *buffer = nullptr;
    CgcStatus status = owner.createBuffer(heapType, sizeInBytes, buffer);
    if (status == CGC_OK) {
      *out_buffer = buffer;
      *out_address = buffer->getDeviceAddress();
    }
    return status;
  });
}

void destroyBuffer(void *device, void *buffer) {
  asDevice(device).buffers.destroy(static_cast<Buffer *>(buffer));
}

CgcStatus mapBuffer(void *device, void *buffer, void **out_data) {
  auto &mapped = *static_cast<Buffer *>(buffer);
  if (mapped.getHeapType() == CGC_HEAP_TYPE_DEFAULT)
    return asDevice(device).fail(CGC_ERROR_INVALID_ARGUMENT,
                                 "only upload and readback buffers can be mapped");
  *out_data = mapped.data();
  return CGC_OK;
}

void unmapBuffer(void *, void *) {
  // Host memory stays mapped: nothing to do.
}

CgcStatus createProgram(void *device, const char *programName, const void *container,
                        size_t containerSize, void **out_program) {
  Device &owner = asDevice(device);
  return guard(driverOf(owner), [&] {
    Program *program = nullptr;
    CgcStatus status = owner.createProgram(programName, container, containerSize, program);
    if (status == CGC_OK)
      *out_program = program;
    return status;
  });
}

void destroyProgram(void *device, void *program) {
  asDevice(device).programs.destroy(static_cast<Program *>(program));
}

CgcStatus getProgramBindingProperties(void *program,
                                      CgcProgramBindingProperties *inout_properties) {
  return static_cast<Program *>(program)->getBindingProperties(*inout_properties);
}

CgcStatus createCommandList(void *device, void **out_list) {
  Device &owner = asDevice(device);
  return guard(driverOf(owner), [&] {
    CommandList *list = nullptr;
    CgcStatus status = owner.createCommandList(list);
    if (status == CGC_OK)
      *out_list = list;
    return status;
  });
}

void destroyCommandList(void *device, void *list) {
  asDevice(device).commandLists.destroy(static_cast<CommandList *>(list));
}

CgcStatus resetCommandList(void *list) { return asList(list).reset(); }
CgcStatus closeCommandList(void *list) { return asList(list).close(); }

CgcStatus recordSetProgram(void *list, void *program, const CgcSetProgramDesc *desc) {
  return asList(list).recordSetProgram(static_cast<Program *>(program), *desc);
}

CgcStatus recordDispatchGraph(void *list, uint32_t numBindings,
                              const CgcProgramBinding *bindings) {
  CommandList &recording = asList(list);
  return guard(driverOf(recording),
               [&] { return recording.recordDispatchGraph(numBindings, bindings); });
}

CgcStatus recordBarrier(void *list, const CgcBarrierDesc *desc) {
  return asList(list).recordBarrier(*desc);
}

CgcStatus recordCopy(void *list, CgcDeviceAddress destination, CgcDeviceAddress source,
                     uint64_t sizeInBytes) {
  CommandList &recording = asList(list);
  return guard(driverOf(recording),
               [&] { return recording.recordCopy(destination, source, sizeInBytes); });
}

CgcStatus createQueue(void *device, void **out_queue) {
  Device &owner = asDevice(device);
  return guard(driverOf(owner), [&] {
    Queue *queue = nullptr;
    CgcStatus status = owner.createQueue(queue);
    if (status == CGC_OK)
      *out_queue = queue;
    return status;
  });
}

void destroyQueue(void *device, void *queue) {
  asDevice(device).queues.destroy(static_cast<Queue *>(queue));
}

CgcStatus executeCommandLists(void *queue, uint32_t numLists, void *const *lists) {
  Queue &target = asQueue(queue);
  return guard(driverOf(target), [&] {
    return target.executeCommandLists(
        std::span(reinterpret_cast<CommandList *const *>(lists), numLists));
  });
}

CgcStatus queueSignal(void *queue, void *fence, uint64_t value) {
  Queue &target = asQueue(queue);
  return guard(driverOf(target), [&] { return target.signal(asFence(fence), value); });
}

CgcStatus queueWait(void *queue, void *fence, uint64_t value) {
  Queue &target = asQueue(queue);
  return guard(driverOf(target), [&] { return target.wait(asFence(fence), value); });
}

CgcStatus createFence(void *device, uint64_t initialValue, void **out_fence) {
  Device &owner = asDevice(device);
  return guard(driverOf(owner), [&] {
    Fence *fence = nullptr;
    CgcStatus status = owner.createFence(initialValue, fence);
    if (status == CGC_OK)
      *out_fence = fence;
    return status;
  });
}

void destroyFence(void *device, void *fence) {
  asDevice(device).fences.destroy(static_cast<Fence *>(fence));
}

uint64_t getFenceCompletedValue(void *fence) { return asFence(fence).getCompletedValue(); }

CgcStatus signalFence(void *fence, uint64_t value) {
  return asFence(fence).signalFromHost(value);
}

CgcStatus waitFence(void *fence, uint64_t value, uint64_t timeoutNanoseconds) {
  return asFence(fence).waitFromHost(value, timeoutNanoseconds);
}

CgcStatus createQueryHeap(void *device, CgcQueryHeapType type, uint32_t count,
                          void **out_heap) {
  Device &owner = asDevice(device);
  if (type != CGC_QUERY_HEAP_TYPE_TIMESTAMP)
    return owner.fail(CGC_ERROR_INVALID_ARGUMENT,
                      "unknown query heap type " + std::to_string(static_cast<int>(type)));
  return guard(driverOf(owner), [&] {
    QueryHeap *heap = nullptr;
    CgcStatus status = owner.createQueryHeap(count, heap);
    if (status == CGC_OK)
      *out_heap = heap;
    return status;
  });
}

void destroyQueryHeap(void *device, void *heap) {
  asDevice(device).queryHeaps.destroy(static_cast<QueryHeap *>(heap));
}

CgcStatus recordEndQuery(void *list, void *heap, CgcQueryType, uint32_t index) {
  CommandList &recording = asList(list);
  return guard(driverOf(recording), [&] {
    return recording.recordEndQuery(*static_cast<QueryHeap *>(heap), index);
  });
}

CgcStatus recordResolveQueryData(void *list, void *heap, CgcQueryType, uint32_t startIndex,
                                 uint32_t numQueries, CgcDeviceAddress destination) {
  CommandList &recording = asList(list);
  return guard(driverOf(recording), [&] {
    return recording.recordResolveQueryData(*static_cast<QueryHeap *>(heap), startIndex,
                                            numQueries, destination);
  });
}

CgcStatus getTimestampFrequency(void *, uint64_t *out_frequency) {
  *out_frequency = QueryHeap::kFrequency;
  return CGC_OK;
}

constexpr CgcDdiFunctions kFunctions = {
    .ddiVersion = CGC_DDI_VERSION,
    .structSize = sizeof(CgcDdiFunctions),
    .driverName = "cpu",
    .close = closeDriver,
    .getAdapterCount = getAdapterCount,
    .getAdapterDesc = getAdapterDesc,
    .createDevice = createDevice,
    .destroyDevice = destroyDevice,
    .getCaps = getCaps,
    .createBuffer = createBuffer,
    .destroyBuffer = destroyBuffer,
    .mapBuffer = mapBuffer,
    .unmapBuffer = unmapBuffer,
    .createProgram = createProgram,
    .destroyProgram = destroyProgram,
    .getProgramBindingProperties = getProgramBindingProperties,
    .createCommandList = createCommandList,
    .destroyCommandList = destroyCommandList,
    .resetCommandList = resetCommandList,
    .closeCommandList = closeCommandList,
    .recordSetProgram = recordSetProgram,
    .recordDispatchGraph = recordDispatchGraph,
    .recordBarrier = recordBarrier,
    .recordCopy = recordCopy,
    .createQueue = createQueue,
    .destroyQueue = destroyQueue,
    .executeCommandLists = executeCommandLists,
    .queueSignal = queueSignal,
    .queueWait = queueWait,
    .createFence = createFence,
    .destroyFence = destroyFence,
    .getFenceCompletedValue = getFenceCompletedValue,
    .signalFence = signalFence,
    .waitFence = waitFence,
    .createQueryHeap = createQueryHeap,
    .destroyQueryHeap = destroyQueryHeap,
    .recordEndQuery = recordEndQuery,
    .recordResolveQueryData = recordResolveQueryData,
    .getTimestampFrequency = getTimestampFrequency,
};

} // namespace
} // namespace cgc::cpu

extern "C" __attribute__((visibility("default"))) CgcStatus
cgcDriverOpen(uint32_t ddiVersion, const CgcDdiHost *host,
              const CgcDdiFunctions **out_functions, void **out_driver) {
  if (!host || !out_functions || !out_driver)
    return CGC_ERROR_INVALID_ARGUMENT;
  if (ddiVersion != CGC_DDI_VERSION || host->ddiVersion != CGC_DDI_VERSION) {
    if (host->setErrorMessage)
      host->setErrorMessage(host->context,
                            ("the CPU driver serves DDI version " +
                             std::to_string(CGC_DDI_VERSION) + ", not " +
                             std::to_string(ddiVersion))
                                .c_str());
    return CGC_ERROR_INCOMPATIBLE_VERSION;
  }
  try {
    *out_driver = new cgc::cpu::Driver(*host);
  } catch (const std::exception &) {
    return CGC_ERROR_OUT_OF_MEMORY;
  }
  *out_functions = &cgc::cpu::kFunctions;
  return CGC_OK;
}
