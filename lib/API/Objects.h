//===- Objects.h - What each API handle is ---------------------*- C++ -*-===//
//
// The API objects behind the C handles. Each wraps a driver object and keeps
// what validation needs without asking the driver: buffer ranges, programs'
// binding properties, list state, fence values.
//
// Lifetimes. Devices, state objects and command allocators are reference
// counted: the handle the application holds is one reference, and every
// object created from a device holds another on it, so a device's driver
// object is destroyed only after everything made from it (whatever order the
// application releases things in). A command list that set a program holds
// its state object until the list is reset or released, which is what lets
// the DDI promise drivers that a program outlives the lists referencing it;
// query heaps are counted and held by the lists that use them the same way.
// Command lists and queues wait for their in-flight work before the driver
// object goes.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_API_OBJECTS_H
#define CGC_LIB_API_OBJECTS_H

#include "cgc/ddi.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cgc::api {

//===----------------------------------------------------------------------===//
// Host memory
//===----------------------------------------------------------------------===//

/// The objects behind the handles of a device take their host memory from the
/// CgcAllocationCallbacks given at cgcCreateDevice, when there are some:
/// `new (callbacks) T` allocates through them (or the global heap when null),
/// and `delete` frees through the same callbacks, which the allocation keeps a
/// copy of (the device may be gone by the time an object is freed).
struct HostAllocated {
  static void *operator new(size_t size, const CgcAllocationCallbacks *callbacks);
  static void operator delete(void *memory) noexcept;
  /// Called only if a constructor throws.
  static void operator delete(void *memory, const CgcAllocationCallbacks *callbacks) noexcept;
};

//===----------------------------------------------------------------------===//
// Reference counting
//===----------------------------------------------------------------------===//

/// An intrusively counted object; created with one reference.
struct RefCounted : HostAllocated {
  RefCounted() = default;
  RefCounted(const RefCounted &) = delete;
  RefCounted &operator=(const RefCounted &) = delete;
  virtual ~RefCounted() = default;

  void retain() const { references.fetch_add(1, std::memory_order_relaxed); }
  void release() const {
    if (references.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }

private:
  mutable std::atomic<uint32_t> references{1};
};

/// A counted reference to a RefCounted object.
template <typename T>
class Ref {
public:
  Ref() = default;
  /// Takes a new reference on `object`.
  explicit Ref(T *object) : object(object) {
    if (object)
      object->retain();
  }
  Ref(const Ref &other) : Ref(other.object) {}
  Ref(Ref &&other) noexcept : object(std::exchange(other.object, nullptr)) {}
  Ref &operator=(Ref other) {
    std::swap(object, other.object);
    return *this;
  }
  ~Ref() {
    if (object)
      object->release();
  }

  T *get() const { return object; }
  T *operator->() const { return object; }
  T &operator*() const { return *object; }
  explicit operator bool() const { return object != nullptr; }

private:
  T *object = nullptr;
};

//===----------------------------------------------------------------------===//
// Drivers
//===----------------------------------------------------------------------===//

/// A driver plugin the loader accepted; owned by the driver registry.
struct LoadedDriver {
  std::string path;
  void *library = nullptr;
  /// The driver's table as this API's CgcDdiFunctions: copied from the
  /// driver, with the optional entries past its structSize null.
  CgcDdiFunctions table{};
  const CgcDdiFunctions *ddi = nullptr; // &table
  void *driver = nullptr;
  /// Devices of this driver not yet destroyed; the registry closes a driver
  /// at exit only when this is zero.
  std::atomic<uint32_t> liveDevices{0};
};

/// A driver's queue timeline: a driver fence the API signals after each
/// ExecuteCommandLists, to know when the lists it carried completed.
struct Timeline;

/// One ExecuteCommandLists as seen by a list or allocator: complete once
/// `timeline` reaches `value`.
struct Submission {
  std::shared_ptr<Timeline> timeline;
  uint64_t value = 0;

  /// True while the submission has not completed.
  bool isPending() const;
  /// Blocks until it completes (no-op for an empty submission).
  void wait() const;
};

/// A program of a state object: the driver's compiled partition and its
/// binding properties, shared by the state objects grown from one another.
struct Program;

} // namespace cgc::api

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

struct CgcAdapter_T {
  cgc::api::LoadedDriver *driver;
  uint32_t index; // within its driver
};

struct CgcBuffer_T;

struct CgcDevice_T : cgc::api::RefCounted {
  CgcAdapter_T *adapter = nullptr;
  /// The application's allocation callbacks (copied), or null.
  std::optional<CgcAllocationCallbacks> allocatorCallbacks;
  const CgcAllocationCallbacks *getAllocator() const {
    return allocatorCallbacks ? &*allocatorCallbacks : nullptr;
  }
  const CgcDdiFunctions *ddi = nullptr;
  void *handle = nullptr;
  bool debugLayer = false;
  CgcMlirProgramsTier tier = CGC_MLIR_PROGRAMS_TIER_NOT_SUPPORTED;
  /// CGC_FEATURE_TIMESTAMP_QUERIES: the driver has the entries and says so.
  bool timestampQueries = false;

  /// Live buffers by device address, for the range checks of the debug layer
  /// and of copies.
  std::mutex buffersMutex;
  std::map<CgcDeviceAddress, CgcBuffer_T *> buffersByAddress;

  ~CgcDevice_T() override;
};

struct CgcBuffer_T : cgc::api::HostAllocated {
  cgc::api::Ref<CgcDevice_T> device;
  void *handle = nullptr;
  CgcDeviceAddress address = 0;
  uint64_t size = 0;
  CgcHeapType heapType = CGC_HEAP_TYPE_DEFAULT;
  std::atomic<uint32_t> mapCount{0};
};

namespace cgc::api {

struct Program {
  Ref<CgcDevice_T> device;
  std::string name;
  void *handle = nullptr;
  /// What cgcGetProgramIdentifier hands out; unique within the process.
  uint64_t serial = 0;
  std::vector<CgcBindPointDesc> bindPoints;
  uint64_t temporaryResourceSize = 0;
  uint64_t persistentResourceSize = 0;

  ~Program();
};

struct Timeline {
  Ref<CgcDevice_T> device;
  void *fence = nullptr;

  ~Timeline();
  uint64_t completedValue() const;
};

} // namespace cgc::api

struct CgcStateObject_T : cgc::api::RefCounted {
  cgc::api::Ref<CgcDevice_T> device;
  uint32_t flags = 0;
  std::vector<std::shared_ptr<cgc::api::Program>> programs;

  /// The program named `name`, or null.
  const std::shared_ptr<cgc::api::Program> *findProgram(std::string_view name) const;
};

struct CgcQueryHeap_T : cgc::api::RefCounted {
  cgc::api::Ref<CgcDevice_T> device;
  void *handle = nullptr;
  CgcQueryHeapType type = CGC_QUERY_HEAP_TYPE_TIMESTAMP;
  uint32_t count = 0;
  /// Debug layer: the queries an EndQuery of any list has recorded, so that a
  /// resolve of one never ended is caught.
  std::mutex endedMutex;
  std::vector<bool> ended;

  ~CgcQueryHeap_T() override;
};

struct CgcCommandAllocator_T : cgc::api::RefCounted {
  cgc::api::Ref<CgcDevice_T> device;
  std::mutex mutex;
  /// Executions of lists recorded from this allocator since its last reset.
  std::vector<cgc::api::Submission> submissions;
};

struct CgcCommandList_T : cgc::api::HostAllocated {
  cgc::api::Ref<CgcDevice_T> device;
  void *handle = nullptr;
  cgc::api::Ref<CgcCommandAllocator_T> allocator;
  bool open = true;
  /// The program of the last SetProgram, and every state object a SetProgram
  /// named since the list was created or reset (kept alive for the driver).
  std::shared_ptr<cgc::api::Program> program;
  std::vector<cgc::api::Ref<CgcStateObject_T>> stateObjects;
  /// Every query heap an EndQuery or resolve named since then (likewise).
  std::vector<cgc::api::Ref<CgcQueryHeap_T>> queryHeaps;
  /// The list's latest execution.
  cgc::api::Submission lastSubmission;
};

struct CgcCommandQueue_T : cgc::api::HostAllocated {
  cgc::api::Ref<CgcDevice_T> device;
  void *handle = nullptr;
  std::mutex mutex; // orders ExecuteCommandLists with its timeline signal
  std::shared_ptr<cgc::api::Timeline> timeline;
  uint64_t lastTimelineValue = 0;
};

struct CgcFence_T : cgc::api::HostAllocated {
  cgc::api::Ref<CgcDevice_T> device;
  void *handle = nullptr;
  /// The largest value any host or queue signal has asked for.
  std::atomic<uint64_t> highestSignaledValue{0};
};

namespace cgc::api {
/// The program of `stateObject` that `identifier` names, or null.
std::shared_ptr<Program> findProgramByIdentifier(const CgcStateObject_T &stateObject,
                                                 const CgcProgramIdentifier &identifier);

/// INVALID_ARGUMENT for a null list, INVALID_STATE for a closed one.
CgcStatus checkRecording(std::string_view call, CgcCommandList list);
} // namespace cgc::api

#endif // CGC_LIB_API_OBJECTS_H
