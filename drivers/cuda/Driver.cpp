//===- Driver.cpp - the CUDA driver's entry point and DDI table ------------===//
//
// cgcDriverOpen is the one symbol the plugin exports. It enumerates the CUDA
// devices (none, without an error, where no NVIDIA driver or device is) and
// hands the API a table of C functions, each a thin thunk onto the driver
// object behind the handle; the API has validated the arguments before it
// calls them.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Buffer.h"
#include "CommandList.h"
#include "CudaSupport.h"
#include "Device.h"
#include "Fence.h"
#include "Program.h"
#include "QueryHeap.h"
#include "Queue.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <string>

namespace cgc::cuda {

//===----------------------------------------------------------------------===//
// Driver and adapters
//===----------------------------------------------------------------------===//

Driver::Driver(const CgcDdiHost &host) : host(host), adapters(enumerateCudaAdapters()) {}

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

CgcStatus Driver::createDevice(uint32_t adapterIndex, Device *&out) {
  if (adapterIndex >= adapters.size())
    return fail(CGC_ERROR_NOT_FOUND, "the CUDA driver has " + std::to_string(adapters.size()) +
                                         " adapters; there is no adapter " +
                                         std::to_string(adapterIndex));
  int ordinal = adapters[adapterIndex].ordinal;
  // Start the device's primary context now, so that a device that cannot be
  // used fails here rather than at its first buffer.
  {
    ScopedCurrentDevice current(ordinal);
    cudaError_t error = current.getError();
    if (error == cudaSuccess)
      error = cudaFree(nullptr);
    if (error != cudaSuccess)
      return fail(toStatus(error) == CGC_ERROR_OUT_OF_MEMORY ? CGC_ERROR_OUT_OF_MEMORY
                                                             : CGC_ERROR_DEVICE_LOST,
                  "CUDA device " + std::to_string(ordinal) +
                      " cannot be used: " + describeCudaError("cudaFree(nullptr)", error));
  }
  auto device = std::make_unique<Device>(*this, ordinal);
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
template <size_t N> void copyTruncated(char (&destination)[N], const std::string &source) {
  size_t length = std::min(source.size(), N - 1);
  std::memcpy(destination, source.data(), length);
  destination[length] = '\0';
}
} // namespace

std::vector<Adapter> enumerateCudaAdapters() {
  std::vector<Adapter> adapters;
  int count = 0;
  // No driver (cudaErrorInsufficientDriver), no device (cudaErrorNoDevice):
  // no adapters.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return adapters;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, ordinal) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    Adapter adapter;
    adapter.ordinal = ordinal;
    CgcAdapterDesc &desc = adapter.desc;
    desc.version = CGC_API_VERSION;
    copyTruncated(desc.name,
                  std::string(properties.name, strnlen(properties.name, sizeof(properties.name))));
    copyTruncated(desc.vendor, "NVIDIA");
    static_assert(sizeof(desc.uuid) == sizeof(properties.uuid.bytes));
    std::memcpy(desc.uuid, properties.uuid.bytes, sizeof(desc.uuid));
    desc.dedicatedMemoryBytes = properties.totalGlobalMem;
    copyTruncated(desc.driverName, "cuda");
    // major.minor.patch packed as 10.10.12 bits, as on every driver.
    desc.driverVersion = (CGC_DRIVER_VERSION_MAJOR << 22) | (CGC_DRIVER_VERSION_MINOR << 12) |
                         CGC_DRIVER_VERSION_PATCH;
    adapters.push_back(adapter);
  }
  return adapters;
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
/// out of host memory (or threads) inside the driver becomes a status.
template <typename Call> CgcStatus guard(Driver &driver, Call &&call) {
  try {
    return call();
  } catch (const std::bad_alloc &) {
    return driver.fail(CGC_ERROR_OUT_OF_MEMORY, "the CUDA driver ran out of host memory");
  } catch (const std::exception &error) {
    return driver.fail(CGC_ERROR_INTERNAL, std::string("the CUDA driver failed: ") + error.what());
  }
}
Driver &driverOf(Device &device) { return device.getDriver(); }
Driver &driverOf(CommandList &list) { return list.getDevice().getDriver(); }
Driver &driverOf(Queue &queue) { return queue.getDevice().getDriver(); }
Driver &driverOf(Fence &fence) { return fence.getDevice().getDriver(); }

void closeDriver(void *driver) { delete &asDriver(driver); }

uint32_t getAdapterCount(void *driver) {
  return static_cast<uint32_t>(asDriver(driver).getAdapters().size());
}

CgcStatus getAdapterDesc(void *driver, uint32_t index, CgcAdapterDesc *out_desc) {
  const std::vector<Adapter> &adapters = asDriver(driver).getAdapters();
  if (index >= adapters.size())
    return asDriver(driver).fail(CGC_ERROR_NOT_FOUND,
                                 "the CUDA driver has " + std::to_string(adapters.size()) +
                                     " adapters; there is no adapter " + std::to_string(index));
  *out_desc = adapters[index].desc;
  return CGC_OK;
}

CgcStatus createDevice(void *driver, uint32_t adapterIndex, void **out_device) {
  Driver &owner = asDriver(driver);
  return guard(owner, [&] {
    Device *device = nullptr;
    CgcStatus status = owner.createDevice(adapterIndex, device);
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

CgcStatus createBuffer(void *device, CgcHeapType heapType, uint64_t sizeInBytes, void **out_buffer,
                       CgcDeviceAddress *out_address) {
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
  if (mapped.getHeapType() == CGC_HEAP_TYPE_DEFAULT || !mapped.getHostPointer())
    return asDevice(device).fail(CGC_ERROR_INVALID_ARGUMENT,
                                 "only upload and readback buffers can be mapped");
  *out_data = mapped.getHostPointer();
  return CGC_OK;
}

void unmapBuffer(void *, void *) {
  // Pinned host memory stays mapped: nothing to do.
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
  Program &compiled = *static_cast<Program *>(program);
  return guard(compiled.getDevice().getDriver(),
               [&] { return compiled.getBindingProperties(*inout_properties); });
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

CgcStatus closeCommandList(void *list) {
  CommandList &closing = asList(list);
  return guard(driverOf(closing), [&] { return closing.close(); });
}

CgcStatus recordSetProgram(void *list, void *program, const CgcSetProgramDesc *desc) {
  CommandList &recording = asList(list);
  return guard(driverOf(recording),
               [&] { return recording.recordSetProgram(static_cast<Program *>(program), *desc); });
}

CgcStatus recordDispatchGraph(void *list, uint32_t numBindings, const CgcProgramBinding *bindings) {
  CommandList &recording = asList(list);
  return guard(driverOf(recording),
               [&] { return recording.recordDispatchGraph(numBindings, bindings); });
}

CgcStatus recordBarrier(void *list, const CgcBarrierDesc *desc) {
  CommandList &recording = asList(list);
  return guard(driverOf(recording), [&] { return recording.recordBarrier(*desc); });
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
  Fence &target = asFence(fence);
  return guard(driverOf(target), [&] { return target.signalFromHost(value); });
}

CgcStatus waitFence(void *fence, uint64_t value, uint64_t timeoutNanoseconds) {
  Fence &target = asFence(fence);
  return guard(driverOf(target), [&] { return target.waitFromHost(value, timeoutNanoseconds); });
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
    .driverName = "cuda",
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
} // namespace cgc::cuda

extern "C" __attribute__((visibility("default"))) CgcStatus
cgcDriverOpen(uint32_t ddiVersion, const CgcDdiHost *host, const CgcDdiFunctions **out_functions,
              void **out_driver) {
  if (!host || !out_functions || !out_driver)
    return CGC_ERROR_INVALID_ARGUMENT;
  if (ddiVersion != CGC_DDI_VERSION || host->ddiVersion != CGC_DDI_VERSION) {
    if (host->setErrorMessage)
      host->setErrorMessage(host->context, ("the CUDA driver serves DDI version " +
                                            std::to_string(CGC_DDI_VERSION) + ", not " +
                                            std::to_string(ddiVersion))
                                               .c_str());
    return CGC_ERROR_INCOMPATIBLE_VERSION;
  }
  try {
    *out_driver = new cgc::cuda::Driver(*host);
  } catch (const std::exception &) {
    return CGC_ERROR_OUT_OF_MEMORY;
  }
  *out_functions = &cgc::cuda::kFunctions;
  return CGC_OK;
}
