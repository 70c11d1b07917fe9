//===- TestDriver.cpp - A driver plugin for the API's own tests -----------===//
//
// Built several times with different compile definitions:
//  * CGC_TEST_DRIVER_MODE 0, "mock": a working driver over host memory. It
//    compiles nothing and its dispatches do no arithmetic, but it reads each
//    partition's bind points from the container (MLIR), runs queues on worker
//    threads with real fences, copies, and refuses bindings that are not
//    complete and sorted — so the API's validation and ordering are tested
//    without a real driver. It exchanges no MLIR, except that with
//    CGC_MOCK_DECLARATION=<file> it answers CGC_SUBGRAPH_DECLARATION_REQUEST
//    with that file's bytes (the runtime's tests hand it declarations), and
//    with CGC_MOCK_SPECIALIZATION=<file> it answers every
//    CGC_SUBGRAPH_SPECIALIZATION_REQUEST with that file's bytes.
//  * 1: its table reports another ddiVersion (the loader must reject it).
//  * 2: cgcDriverOpen fails with a message.
//  * 3: its table's structSize is too small.
//  * 4: a driver built before the optional timestamp-query entries: its
//    structSize ends before them (the loader accepts it; the API reports no
//    timestamp queries).
//  * 5: it sets part of the timestamp-query group (the loader rejects it).
// Modes 0-3 have timestamp queries: nanoseconds of the host's steady clock,
// taken on the queue thread.
// The adapter name (CGC_TEST_DRIVER_ADAPTER) lets tests see which of two
// same-named drivers the loader picked. At close, a driver prints
// "cgc-test-driver close <adapter>" to stderr so tests can see unloading.
//
//===----------------------------------------------------------------------===//

#include "cgc/ddi.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGC/IR/CGCTypes.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/MLIRContext.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#ifndef CGC_TEST_DRIVER_MODE
#define CGC_TEST_DRIVER_MODE 0
#endif

namespace {

const CgcDdiHost *gHost = nullptr;

CgcStatus report(CgcStatus status, const std::string &message) {
  gHost->setErrorMessage(gHost->context, message.c_str());
  return status;
}

struct Driver {};

struct Device {
  CgcMlirProgramsTier tier;
};

struct Buffer {
  void *memory;
  uint64_t size;
};

struct Program {
  std::vector<CgcBindPointDesc> bindPoints;
};

struct Fence {
  std::mutex mutex;
  std::condition_variable changed;
  uint64_t value;

  void signal(uint64_t newValue) {
    {
      std::lock_guard lock(mutex);
      value = newValue;
    }
    changed.notify_all();
  }
  bool wait(uint64_t target, uint64_t timeoutNanoseconds) {
    std::unique_lock lock(mutex);
    auto reached = [&] { return value >= target; };
    if (timeoutNanoseconds == UINT64_MAX) {
      changed.wait(lock, reached);
      return true;
    }
    return changed.wait_for(lock, std::chrono::nanoseconds(timeoutNanoseconds), reached);
  }
};

struct QueryHeap {
  explicit QueryHeap(uint32_t count) : values(count) {}
  std::vector<std::atomic<uint64_t>> values;
};

struct CommandList {
  bool open = true;
  std::vector<std::function<void()>> commands;
  const Program *program = nullptr;
};

/// A queue runs its work in order on one worker thread.
struct Queue {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::function<void()>> work;
  bool stopping = false;
  std::thread worker{[this] { run(); }};

  void push(std::function<void()> item) {
    {
      std::lock_guard lock(mutex);
      work.push_back(std::move(item));
    }
    ready.notify_one();
  }
  void run() {
    for (;;) {
      std::function<void()> item;
      {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return stopping || !work.empty(); });
        if (work.empty())
          return;
        item = std::move(work.front());
        work.pop_front();
      }
      item();
    }
  }
  ~Queue() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    ready.notify_one();
    worker.join();
  }
};

void closeDriver(void *driver) {
  std::fprintf(stderr, "cgc-test-driver close %s\n", CGC_TEST_DRIVER_ADAPTER);
  delete static_cast<Driver *>(driver);
}

uint32_t getAdapterCount(void *) { return 1; }

CgcStatus getAdapterDesc(void *, uint32_t index, CgcAdapterDesc *desc) {
  if (index != 0)
    return report(CGC_ERROR_NOT_FOUND, "no such adapter");
  std::snprintf(desc->name, sizeof(desc->name), "%s", CGC_TEST_DRIVER_ADAPTER);
  std::snprintf(desc->vendor, sizeof(desc->vendor), "OpenCGC tests");
  desc->uuid[0] = 0x42;
  desc->dedicatedMemoryBytes = 0;
  std::snprintf(desc->driverName, sizeof(desc->driverName), "%s", CGC_TEST_DRIVER_NAME);
  desc->driverVersion = 1;
  return CGC_OK;
}

CgcStatus createDevice(void *, uint32_t, void **out) {
  const char *tier = std::getenv("CGC_MOCK_TIER");
  *out = new Device{tier ? static_cast<CgcMlirProgramsTier>(std::atoi(tier))
                         : CGC_MLIR_PROGRAMS_TIER_2_0};
  return CGC_OK;
}

void destroyDevice(void *device) { delete static_cast<Device *>(device); }

bool sameGuid(const CgcGuid &a, const CgcGuid &b) { return std::memcmp(&a, &b, sizeof a) == 0; }

CgcStatus getCaps(void *device, CgcFeature feature, void *data, size_t) {
  switch (feature) {
  case CGC_FEATURE_OPTIONS_MLIR:
    static_cast<CgcFeatureDataOptionsMlir *>(data)->mlirProgramsTier =
        static_cast<Device *>(device)->tier;
    return CGC_OK;
  case CGC_FEATURE_MLIR_INTERFACE_SUPPORT: {
    auto *support = static_cast<CgcFeatureDataMlirInterfaceSupport *>(data);
    bool declares = std::getenv("CGC_MOCK_DECLARATION") != nullptr;
    for (uint32_t i = 0; i < support->numMlirInterfaces; ++i) {
      const CgcGuid &guid = support->mlirInterfacesRequested[i];
      support->mlirInterfacesSupported[i] =
          sameGuid(guid, CGC_SUBGRAPH_PARTITION) ||
          (declares && (sameGuid(guid, CGC_SUBGRAPH_DECLARATION_REQUEST) ||
                        sameGuid(guid, CGC_SUBGRAPH_DECLARATION))) ||
          (std::getenv("CGC_MOCK_SPECIALIZATION") &&
           (sameGuid(guid, CGC_SUBGRAPH_SPECIALIZATION_REQUEST) ||
            sameGuid(guid, CGC_SUBGRAPH_SPECIALIZATION)));
    }
    return CGC_OK;
  }
  case CGC_FEATURE_TIMESTAMP_QUERIES:
    // A driver of mode 4 predates the feature: the API never asks it.
    if (CGC_TEST_DRIVER_MODE == 4)
      return report(CGC_ERROR_INTERNAL, "mock: asked about a feature it does not know");
    static_cast<CgcFeatureDataTimestampQueries *>(data)->timestampQueriesSupported = 1;
    return CGC_OK;
  case CGC_FEATURE_MLIR_EXCHANGE: {
    auto *exchange = static_cast<CgcFeatureDataMlirExchange *>(data);
    // A fixed reply per request: the declaration file, and the
    // specialization file (whatever subgraphs were offered).
    const char *path = nullptr;
    if (sameGuid(exchange->mlirInterface, CGC_SUBGRAPH_DECLARATION_REQUEST))
      path = std::getenv("CGC_MOCK_DECLARATION");
    else if (sameGuid(exchange->mlirInterface, CGC_SUBGRAPH_SPECIALIZATION_REQUEST))
      path = std::getenv("CGC_MOCK_SPECIALIZATION");
    if (!path)
      return report(CGC_ERROR_UNSUPPORTED, "the mock driver exchanges no MLIR");
    std::vector<char> reply;
    if (std::FILE *file = std::fopen(path, "rb")) {
      char chunk[4096];
      for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;)
        reply.insert(reply.end(), chunk, chunk + n);
      std::fclose(file);
    } else {
      return report(CGC_ERROR_INTERNAL, std::string("cannot read ") + path);
    }
    // The two-call size protocol.
    if (exchange->outputData) {
      if (*exchange->outputDataSizeInBytes < reply.size())
        return report(CGC_ERROR_INVALID_ARGUMENT, "the output buffer is too small");
      std::memcpy(exchange->outputData, reply.data(), reply.size());
    }
    *exchange->outputDataSizeInBytes = reply.size();
    return CGC_OK;
  }
  }
  return report(CGC_ERROR_INVALID_ARGUMENT, "unknown feature");
}

CgcStatus createBuffer(void *, CgcHeapType, uint64_t size, void **out, CgcDeviceAddress *address) {
  void *memory = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (!memory)
    return report(CGC_ERROR_OUT_OF_MEMORY, "out of host memory");
  std::memset(memory, 0, size);
  *out = new Buffer{memory, size};
  *address = reinterpret_cast<CgcDeviceAddress>(memory);
  return CGC_OK;
}

void destroyBuffer(void *, void *buffer) {
  std::free(static_cast<Buffer *>(buffer)->memory);
  delete static_cast<Buffer *>(buffer);
}

CgcStatus mapBuffer(void *, void *buffer, void **out) {
  *out = static_cast<Buffer *>(buffer)->memory;
  return CGC_OK;
}

void unmapBuffer(void *, void *) {}

CgcStatus createProgram(void *, const char *name, const void *container, size_t size,
                        void **out) {
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "; ";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::Operation *> module = cgc::interchange::readContainer(
      llvm::MemoryBufferRef(llvm::StringRef(static_cast<const char *>(container), size), name),
      &context, /*interfaceOut=*/nullptr, cgc::interchange::Trust::InProcess);
  if (!module)
    return report(CGC_ERROR_INVALID_ARGUMENT, "mock: unreadable partition: " + diagnostics);
  cgc::PartitionOp partition;
  module->walk([&](cgc::PartitionOp op) { partition = op; });
  if (!partition)
    return report(CGC_ERROR_INVALID_ARGUMENT, "mock: no cgc.partition");
  auto *program = new Program;
  for (auto [index, type] : llvm::enumerate(partition.getArgumentTypes())) {
    auto memref = mlir::cast<cgc::MemRefType>(type);
    uint32_t flags = 0;
    if (memref.getIsConstant())
      flags |= CGC_BIND_POINT_FLAG_CONSTANT;
    if (partition.isBindPointWritten(index))
      flags |= CGC_BIND_POINT_FLAG_WRITTEN;
    program->bindPoints.push_back({memref.getByteSize(), memref.getAlignment(), flags});
  }
  *out = program;
  return CGC_OK;
}

void destroyProgram(void *, void *program) { delete static_cast<Program *>(program); }

// Fixed sizes so that SetProgram's temporary and persistent checks are exercised.
constexpr uint64_t kTemporarySize = 256;
constexpr uint64_t kPersistentSize = 128;

CgcStatus getProgramBindingProperties(void *handle, CgcProgramBindingProperties *properties) {
  auto &program = *static_cast<Program *>(handle);
  if (properties->bindPoints) {
    if (properties->numBindPoints < program.bindPoints.size())
      return report(CGC_ERROR_INVALID_ARGUMENT, "mock: bindPoints too small");
    std::copy(program.bindPoints.begin(), program.bindPoints.end(), properties->bindPoints);
  }
  properties->numBindPoints = static_cast<uint32_t>(program.bindPoints.size());
  properties->temporaryResourceSize = kTemporarySize;
  properties->persistentResourceSize = kPersistentSize;
  return CGC_OK;
}

CgcStatus createCommandList(void *, void **out) {
  *out = new CommandList;
  return CGC_OK;
}
void destroyCommandList(void *, void *list) { delete static_cast<CommandList *>(list); }
CgcStatus resetCommandList(void *handle) {
  auto &list = *static_cast<CommandList *>(handle);
  if (list.open)
    return report(CGC_ERROR_INVALID_STATE, "mock: reset of an open list");
  list = CommandList();
  return CGC_OK;
}
CgcStatus closeCommandList(void *handle) {
  static_cast<CommandList *>(handle)->open = false;
  return CGC_OK;
}
CgcStatus recordSetProgram(void *handle, void *program, const CgcSetProgramDesc *) {
  static_cast<CommandList *>(handle)->program = static_cast<Program *>(program);
  return CGC_OK;
}
CgcStatus recordDispatchGraph(void *handle, uint32_t numBindings,
                              const CgcProgramBinding *bindings) {
  auto &list = *static_cast<CommandList *>(handle);
  if (!list.program)
    return report(CGC_ERROR_INVALID_STATE, "mock: dispatch without a program");
  if (numBindings != list.program->bindPoints.size())
    return report(CGC_ERROR_INVALID_ARGUMENT, "mock: bindings are not complete");
  for (uint32_t i = 0; i < numBindings; ++i) {
    if (bindings[i].bindPointIndex != i)
      return report(CGC_ERROR_INVALID_ARGUMENT, "mock: bindings are not sorted by bind point");
    if (bindings[i].type == CGC_BINDING_TYPE_GPU &&
        bindings[i].gpu.sizeInBytes < list.program->bindPoints[i].sizeInBytes)
      return report(CGC_ERROR_INVALID_ARGUMENT, "mock: binding too small");
  }
  list.commands.push_back([] {});
  return CGC_OK;
}
CgcStatus recordBarrier(void *, const CgcBarrierDesc *) { return CGC_OK; }
CgcStatus recordCopy(void *handle, CgcDeviceAddress destination, CgcDeviceAddress source,
                     uint64_t size) {
  static_cast<CommandList *>(handle)->commands.push_back([=] {
    std::memmove(reinterpret_cast<void *>(destination), reinterpret_cast<const void *>(source),
                 size);
  });
  return CGC_OK;
}

CgcStatus createQueryHeap(void *, CgcQueryHeapType, uint32_t count, void **out) {
  *out = new QueryHeap(count);
  return CGC_OK;
}
void destroyQueryHeap(void *, void *heap) { delete static_cast<QueryHeap *>(heap); }
CgcStatus recordEndQuery(void *handle, void *heap, CgcQueryType, uint32_t index) {
  auto &values = static_cast<QueryHeap *>(heap)->values;
  if (index >= values.size())
    return report(CGC_ERROR_INVALID_ARGUMENT, "mock: query index out of range");
  static_cast<CommandList *>(handle)->commands.push_back([&values, index] {
    values[index] = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count());
  });
  return CGC_OK;
}
CgcStatus recordResolveQueryData(void *handle, void *heap, CgcQueryType, uint32_t start,
                                 uint32_t count, CgcDeviceAddress destination) {
  auto &values = static_cast<QueryHeap *>(heap)->values;
  if (start > values.size() || count > values.size() - start)
    return report(CGC_ERROR_INVALID_ARGUMENT, "mock: query range out of range");
  static_cast<CommandList *>(handle)->commands.push_back([&values, start, count, destination] {
    for (uint32_t i = 0; i < count; ++i) {
      uint64_t ticks = values[start + i];
      std::memcpy(reinterpret_cast<void *>(destination + i * sizeof(uint64_t)), &ticks,
                  sizeof(ticks));
    }
  });
  return CGC_OK;
}
CgcStatus getTimestampFrequency(void *, uint64_t *frequency) {
  *frequency = 1'000'000'000;
  return CGC_OK;
}

CgcStatus createQueue(void *, void **out) {
  *out = new Queue;
  return CGC_OK;
}
void destroyQueue(void *, void *queue) { delete static_cast<Queue *>(queue); }
CgcStatus executeCommandLists(void *handle, uint32_t numLists, void *const *lists) {
  for (uint32_t i = 0; i < numLists; ++i) {
    auto *list = static_cast<CommandList *>(lists[i]);
    static_cast<Queue *>(handle)->push([list] {
      for (auto &command : list->commands)
        command();
    });
  }
  return CGC_OK;
}
CgcStatus queueSignal(void *handle, void *fence, uint64_t value) {
  static_cast<Queue *>(handle)->push([fence, value] { static_cast<Fence *>(fence)->signal(value); });
  return CGC_OK;
}
CgcStatus queueWait(void *handle, void *fence, uint64_t value) {
  static_cast<Queue *>(handle)->push(
      [fence, value] { static_cast<Fence *>(fence)->wait(value, UINT64_MAX); });
  return CGC_OK;
}
CgcStatus createFence(void *, uint64_t initialValue, void **out) {
  auto *fence = new Fence;
  fence->value = initialValue;
  *out = fence;
  return CGC_OK;
}
void destroyFence(void *, void *fence) { delete static_cast<Fence *>(fence); }
uint64_t getFenceCompletedValue(void *handle) {
  auto &fence = *static_cast<Fence *>(handle);
  std::lock_guard lock(fence.mutex);
  return fence.value;
}
CgcStatus signalFence(void *fence, uint64_t value) {
  static_cast<Fence *>(fence)->signal(value);
  return CGC_OK;
}
CgcStatus waitFence(void *fence, uint64_t value, uint64_t timeoutNanoseconds) {
  if (!static_cast<Fence *>(fence)->wait(value, timeoutNanoseconds))
    return report(CGC_ERROR_TIMEOUT, "mock: fence wait timed out");
  return CGC_OK;
}

CgcDdiFunctions makeTable() {
  CgcDdiFunctions table = {};
  table.ddiVersion = CGC_TEST_DRIVER_MODE == 1 ? CGC_DDI_VERSION + 1 : CGC_DDI_VERSION;
  table.structSize = CGC_TEST_DRIVER_MODE == 3   ? 64
                     : CGC_TEST_DRIVER_MODE == 4 ? CGC_DDI_REQUIRED_STRUCT_SIZE
                                                 : sizeof(CgcDdiFunctions);
  table.driverName = CGC_TEST_DRIVER_NAME;
  table.close = closeDriver;
  table.getAdapterCount = getAdapterCount;
  table.getAdapterDesc = getAdapterDesc;
  table.createDevice = createDevice;
  table.destroyDevice = destroyDevice;
  table.getCaps = getCaps;
  table.createBuffer = createBuffer;
  table.destroyBuffer = destroyBuffer;
  table.mapBuffer = mapBuffer;
  table.unmapBuffer = unmapBuffer;
  table.createProgram = createProgram;
  table.destroyProgram = destroyProgram;
  table.getProgramBindingProperties = getProgramBindingProperties;
  table.createCommandList = createCommandList;
  table.destroyCommandList = destroyCommandList;
  table.resetCommandList = resetCommandList;
  table.closeCommandList = closeCommandList;
  table.recordSetProgram = recordSetProgram;
  table.recordDispatchGraph = recordDispatchGraph;
  table.recordBarrier = recordBarrier;
  table.recordCopy = recordCopy;
  table.createQueue = createQueue;
  table.destroyQueue = destroyQueue;
  table.executeCommandLists = executeCommandLists;
  table.queueSignal = queueSignal;
  table.queueWait = queueWait;
  table.createFence = createFence;
  table.destroyFence = destroyFence;
  table.getFenceCompletedValue = getFenceCompletedValue;
  table.signalFence = signalFence;
  table.waitFence = waitFence;
  if (CGC_TEST_DRIVER_MODE == 5) {
    table.createQueryHeap = createQueryHeap;
  } else if (CGC_TEST_DRIVER_MODE != 4) {
    table.createQueryHeap = createQueryHeap;
    table.destroyQueryHeap = destroyQueryHeap;
    table.recordEndQuery = recordEndQuery;
    table.recordResolveQueryData = recordResolveQueryData;
    table.getTimestampFrequency = getTimestampFrequency;
  }
  return table;
}

const CgcDdiFunctions kTable = makeTable();

} // namespace

extern "C" __attribute__((visibility("default"))) CgcStatus
cgcDriverOpen(uint32_t ddiVersion, const CgcDdiHost *host, const CgcDdiFunctions **out_functions,
              void **out_driver) {
  gHost = host;
  if (ddiVersion != CGC_DDI_VERSION)
    return report(CGC_ERROR_INCOMPATIBLE_VERSION, "the test driver serves DDI version 1 only");
  if (CGC_TEST_DRIVER_MODE == 2)
    return report(CGC_ERROR_DEVICE_LOST, "the test driver found no device to open");
  *out_functions = &kTable;
  *out_driver = new Driver;
  return CGC_OK;
}
