/*===- api.h - the OpenCGC device API (MLIR programs), in C ------*- C -*-===//
 *
 * The D3D12 "MLIR programs" API of spec 000 on Linux: adapters and devices,
 * feature queries (programs tier, MLIR interface support, MLIR exchange),
 * buffers with device addresses, executable state objects holding MLIR
 * program subobjects, command lists (SetProgram, DispatchGraph with GPU-range
 * and CPU-data bindings, barriers, copies, timestamp queries), queues and
 * timeline fences.
 *
 * Conventions: every call returns a CgcStatus; on failure
 * cgcGetLastErrorMessage() says which call failed and why, naming the
 * program and bind point where there is one. Descriptions are versioned
 * structs whose first field is `version`: set it to CGC_API_VERSION, also in
 * structs the call fills in (CgcAdapterDesc, CgcProgramBindingProperties).
 * Outputs are `out_` parameters. Objects are released explicitly; releasing
 * a command list or queue waits for its submitted work to finish.
 *
 *===----------------------------------------------------------------------===*/

#ifndef CGC_API_H
#define CGC_API_H

#include "cgc/interfaces.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CGC_API_VERSION 1u

/*===----------------------------------------------------------------------===
 * Status
 *===----------------------------------------------------------------------===*/

typedef enum CgcStatus {
  CGC_OK = 0,
  CGC_ERROR_INVALID_ARGUMENT = 1, /* a bad parameter; the message names it */
  CGC_ERROR_UNSUPPORTED = 2,      /* the driver does not support this */
  CGC_ERROR_OUT_OF_MEMORY = 3,
  CGC_ERROR_NOT_FOUND = 4,        /* no such adapter, program, ... */
  CGC_ERROR_TIMEOUT = 5,          /* a wait ran out of time */
  CGC_ERROR_INVALID_STATE = 6,    /* e.g. recording into a closed list */
  CGC_ERROR_INCOMPATIBLE_VERSION = 7,
  CGC_ERROR_NOT_IMPLEMENTED = 8,  /* the message names what is missing */
  CGC_ERROR_DEVICE_LOST = 9,      /* execution failed on the device */
  CGC_ERROR_INTERNAL = 10,
} CgcStatus;

/** The message of the last failed call on this thread ("" if none). */
const char *cgcGetLastErrorMessage(void);
/** A constant name for a status ("CGC_ERROR_INVALID_ARGUMENT"). */
const char *cgcStatusName(CgcStatus status);

/*===----------------------------------------------------------------------===
 * Handles
 *===----------------------------------------------------------------------===*/

typedef struct CgcAdapter_T *CgcAdapter;
typedef struct CgcDevice_T *CgcDevice;
typedef struct CgcBuffer_T *CgcBuffer;
typedef struct CgcStateObject_T *CgcStateObject;
typedef struct CgcCommandAllocator_T *CgcCommandAllocator;
typedef struct CgcCommandList_T *CgcCommandList;
typedef struct CgcCommandQueue_T *CgcCommandQueue;
typedef struct CgcFence_T *CgcFence;
typedef struct CgcQueryHeap_T *CgcQueryHeap;

/** A device address: what DispatchGraph binds (a device pointer on CUDA, a
 *  host pointer on the CPU driver). */
typedef uint64_t CgcDeviceAddress;

typedef struct CgcDeviceAddressRange {
  CgcDeviceAddress address;
  uint64_t sizeInBytes;
} CgcDeviceAddressRange;

/** Host allocation hooks for the API's own objects (optional). */
typedef struct CgcAllocationCallbacks {
  void *userData;
  void *(*allocate)(void *userData, size_t size, size_t alignment);
  void (*free)(void *userData, void *memory);
} CgcAllocationCallbacks;

/*===----------------------------------------------------------------------===
 * Adapters and devices
 *===----------------------------------------------------------------------===*/

typedef struct CgcAdapterDesc {
  uint32_t version;
  char name[256];        /* "NVIDIA H100 80GB HBM3", "CPU (16 threads)" */
  char vendor[64];
  uint8_t uuid[16];
  uint64_t dedicatedMemoryBytes;
  char driverName[64];   /* the driver plugin: "cpu", "cuda" */
  uint32_t driverVersion;
} CgcAdapterDesc;

/** Enumerates adapters of every loaded driver; CGC_ERROR_NOT_FOUND past the
 *  last one (its message lists the drivers loaded and those skipped, and why). Drivers are shared libraries found in $CGC_DRIVER_PATH (a
 *  colon-separated list of directories) and in the install directory; the
 *  CPU driver is always present. Adapters live until process exit. */
CgcStatus cgcEnumerateAdapters(uint32_t index, CgcAdapter *out_adapter);
CgcStatus cgcGetAdapterDesc(CgcAdapter adapter, CgcAdapterDesc *out_desc);

typedef enum CgcDeviceFlags {
  CGC_DEVICE_FLAG_NONE = 0,
  /** Validate every call (also enabled by CGC_DEBUG_LAYER=1). */
  CGC_DEVICE_FLAG_DEBUG_LAYER = 1u << 0,
} CgcDeviceFlags;

typedef struct CgcDeviceDesc {
  uint32_t version;
  uint32_t flags; /* CgcDeviceFlags */
  const CgcAllocationCallbacks *allocator; /* optional */
} CgcDeviceDesc;

CgcStatus cgcCreateDevice(CgcAdapter adapter, const CgcDeviceDesc *desc,
                          CgcDevice *out_device);
void cgcReleaseDevice(CgcDevice device);

/*===----------------------------------------------------------------------===
 * Feature support
 *===----------------------------------------------------------------------===*/

typedef enum CgcFeature {
  CGC_FEATURE_OPTIONS_MLIR = 68,
  CGC_FEATURE_MLIR_EXCHANGE = 69,
  CGC_FEATURE_MLIR_INTERFACE_SUPPORT = 70,
  CGC_FEATURE_TIMESTAMP_QUERIES = 71,
} CgcFeature;

typedef enum CgcMlirProgramsTier {
  CGC_MLIR_PROGRAMS_TIER_NOT_SUPPORTED = 0,
  CGC_MLIR_PROGRAMS_TIER_1_0 = 10, /* GPU (device address) bindings */
  CGC_MLIR_PROGRAMS_TIER_2_0 = 20, /* GPU and CPU-data bindings */
} CgcMlirProgramsTier;

typedef struct CgcFeatureDataOptionsMlir {
  CgcMlirProgramsTier mlirProgramsTier; /* out */
} CgcFeatureDataOptionsMlir;

typedef struct CgcFeatureDataMlirInterfaceSupport {
  uint32_t numMlirInterfaces;               /* in */
  const CgcGuid *mlirInterfacesRequested;   /* in, numMlirInterfaces */
  uint8_t *mlirInterfacesSupported;         /* out, numMlirInterfaces (0/1) */
} CgcFeatureDataMlirInterfaceSupport;

/** An MLIR exchange: container bytes in, container bytes out. Two-call size
 *  protocol: call with outputData = NULL to learn *outputDataSizeInBytes,
 *  then again with a buffer of that size. An unknown interface GUID is
 *  CGC_ERROR_INVALID_ARGUMENT (checked before the driver is called); a driver
 *  that lacks the interface answers CGC_ERROR_UNSUPPORTED. */
typedef struct CgcFeatureDataMlirExchange {
  CgcGuid mlirInterface;
  const void *inputData;        /* may be NULL for some interfaces */
  size_t inputDataSizeInBytes;
  void *outputData;             /* NULL to query the size */
  size_t *outputDataSizeInBytes;
} CgcFeatureDataMlirExchange;

/** Whether the device's command lists can record timestamp queries (an
 *  optional feature: a driver without it answers 0, and the query calls of
 *  the "Timestamp queries" section then fail with CGC_ERROR_UNSUPPORTED). */
typedef struct CgcFeatureDataTimestampQueries {
  uint32_t timestampQueriesSupported; /* out: 0 or 1 */
} CgcFeatureDataTimestampQueries;

CgcStatus cgcCheckFeatureSupport(CgcDevice device, CgcFeature feature,
                                 void *featureData, size_t featureDataSize);

/*===----------------------------------------------------------------------===
 * Buffers
 *===----------------------------------------------------------------------===*/

typedef enum CgcHeapType {
  CGC_HEAP_TYPE_DEFAULT = 1,  /* device memory */
  CGC_HEAP_TYPE_UPLOAD = 2,   /* host-visible, written by the host */
  CGC_HEAP_TYPE_READBACK = 3, /* host-visible, read by the host */
} CgcHeapType;

typedef struct CgcBufferDesc {
  uint32_t version;
  CgcHeapType heapType;
  uint64_t sizeInBytes;
} CgcBufferDesc;

CgcStatus cgcCreateBuffer(CgcDevice device, const CgcBufferDesc *desc,
                          CgcBuffer *out_buffer);
void cgcReleaseBuffer(CgcBuffer buffer);
/** The buffer's device address, for bindings; its size. */
CgcDeviceAddress cgcGetBufferDeviceAddress(CgcBuffer buffer);
uint64_t cgcGetBufferSize(CgcBuffer buffer);
/** Host-visible heaps only (upload, readback). */
CgcStatus cgcMapBuffer(CgcBuffer buffer, void **out_data);
CgcStatus cgcUnmapBuffer(CgcBuffer buffer);

/*===----------------------------------------------------------------------===
 * State objects with MLIR program subobjects
 *===----------------------------------------------------------------------===*/

/** One MLIR program: a partition (CGC_SUBGRAPH_PARTITION container). The
 *  bytes are read during the call only. */
typedef struct CgcMlirProgramDesc {
  const char *programName;
  const void *bytecode;
  size_t bytecodeSizeInBytes;
} CgcMlirProgramDesc;

typedef enum CgcStateObjectFlags {
  CGC_STATE_OBJECT_FLAG_NONE = 0,
  CGC_STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS = 1u << 0,
} CgcStateObjectFlags;

typedef struct CgcStateObjectDesc {
  uint32_t version;
  uint32_t flags; /* CgcStateObjectFlags */
  uint32_t numPrograms;
  const CgcMlirProgramDesc *programs;
} CgcStateObjectDesc;

/** Compiles each program on the calling thread (create state objects on
 *  several threads to compile in parallel). */
CgcStatus cgcCreateStateObject(CgcDevice device, const CgcStateObjectDesc *desc,
                               CgcStateObject *out_stateObject);
/** A new state object holding `grownFrom`'s programs plus `addition`'s; only
 *  when `grownFrom` was created with ALLOW_STATE_OBJECT_ADDITIONS. */
CgcStatus cgcAddToStateObject(CgcDevice device, const CgcStateObjectDesc *addition,
                              CgcStateObject grownFrom,
                              CgcStateObject *out_stateObject);
void cgcReleaseStateObject(CgcStateObject stateObject);

typedef struct CgcProgramIdentifier {
  uint64_t opaque[2];
} CgcProgramIdentifier;

CgcStatus cgcGetProgramIdentifier(CgcStateObject stateObject, const char *programName,
                                  CgcProgramIdentifier *out_identifier);

typedef enum CgcBindPointFlags {
  CGC_BIND_POINT_FLAG_NONE = 0,
  CGC_BIND_POINT_FLAG_CONSTANT = 1u << 0, /* constant data (weights) */
  CGC_BIND_POINT_FLAG_WRITTEN = 1u << 1,  /* the program writes it */
} CgcBindPointFlags;

typedef struct CgcBindPointDesc {
  uint64_t sizeInBytes;
  uint64_t alignment;
  uint32_t flags; /* CgcBindPointFlags */
} CgcBindPointDesc;

/** What a program needs bound (DirectML's binding properties): one entry per
 *  bind point, in order; the temporary (scratch, per dispatch) and persistent
 *  (kept across dispatches, e.g. preprocessed constants) resource sizes.
 *  Two-call protocol: bindPoints = NULL to learn numBindPoints. */
typedef struct CgcProgramBindingProperties {
  uint32_t version;
  uint32_t numBindPoints;           /* in: capacity of bindPoints; out: count */
  CgcBindPointDesc *bindPoints;     /* out, may be NULL */
  uint64_t temporaryResourceSize;   /* out */
  uint64_t persistentResourceSize;  /* out */
} CgcProgramBindingProperties;

CgcStatus cgcGetProgramBindingProperties(CgcStateObject stateObject,
                                         const char *programName,
                                         CgcProgramBindingProperties *inout_properties);

/*===----------------------------------------------------------------------===
 * Command allocators and lists
 *===----------------------------------------------------------------------===*/

CgcStatus cgcCreateCommandAllocator(CgcDevice device, CgcCommandAllocator *out_allocator);
/** Only when no list recorded from it is executing. */
CgcStatus cgcResetCommandAllocator(CgcCommandAllocator allocator);
void cgcReleaseCommandAllocator(CgcCommandAllocator allocator);

/** A new list is open for recording. */
CgcStatus cgcCreateCommandList(CgcDevice device, CgcCommandAllocator allocator,
                               CgcCommandList *out_list);
CgcStatus cgcCloseCommandList(CgcCommandList list);
CgcStatus cgcResetCommandList(CgcCommandList list, CgcCommandAllocator allocator);
void cgcReleaseCommandList(CgcCommandList list);

typedef struct CgcSetProgramDesc {
  uint32_t version;
  CgcProgramIdentifier programIdentifier;
  uint32_t flags; /* reserved, 0 */
  /** Bound for every later DispatchGraph; required when the program's
   *  binding properties say the size is non-zero, else may be {0, 0}. */
  CgcDeviceAddressRange temporaryResource;
  CgcDeviceAddressRange persistentResource;
} CgcSetProgramDesc;

/** `stateObject` must stay alive until the list has executed. */
CgcStatus cgcCommandListSetProgram(CgcCommandList list, CgcStateObject stateObject,
                                   const CgcSetProgramDesc *desc);

typedef enum CgcBindingType {
  CGC_BINDING_TYPE_GPU = 0, /* a device address range */
  CGC_BINDING_TYPE_CPU = 1, /* host data, copied at record time (tier 2.0) */
} CgcBindingType;

typedef struct CgcCpuBinding {
  const void *data;
  uint64_t sizeInBytes;
} CgcCpuBinding;

typedef struct CgcProgramBinding {
  uint32_t bindPointIndex;
  uint32_t flags; /* reserved, 0 */
  CgcBindingType type;
  union {
    CgcDeviceAddressRange gpu;
    CgcCpuBinding cpu;
  };
} CgcProgramBinding;

typedef struct CgcDispatchGraphDesc {
  uint32_t version;
  uint32_t numBindings;
  const CgcProgramBinding *bindings; /* read during the call only */
} CgcDispatchGraphDesc;

/** Dispatches the current program. Dispatches are asynchronous with respect to
 *  each other: order them with barriers. */
CgcStatus cgcCommandListDispatchGraph(CgcCommandList list, const CgcDispatchGraphDesc *desc);

typedef enum CgcBarrierType {
  CGC_BARRIER_TYPE_GLOBAL = 0,       /* all earlier work before all later work */
  CGC_BARRIER_TYPE_BUFFER_RANGE = 1, /* only work touching this range */
} CgcBarrierType;

typedef struct CgcBarrierDesc {
  uint32_t version;
  CgcBarrierType type;
  CgcDeviceAddressRange range; /* BUFFER_RANGE only */
} CgcBarrierDesc;

CgcStatus cgcCommandListBarrier(CgcCommandList list, const CgcBarrierDesc *desc);

/** Copies are ordered like dispatches: put barriers around them. */
CgcStatus cgcCommandListCopyBufferRegion(CgcCommandList list, CgcBuffer destination,
                                         uint64_t destinationOffset, CgcBuffer source,
                                         uint64_t sourceOffset, uint64_t sizeInBytes);

/*===----------------------------------------------------------------------===
 * Timestamp queries (D3D12's timestamp query heaps)
 *
 * A query heap holds `count` 64-bit timestamps. EndQuery records the
 * device's clock into one of them when the list runs; ResolveQueryData
 * copies a run of them, as uint64_t ticks, into a buffer the host can map.
 * Ticks count at cgcGetTimestampFrequency's rate, do not go backwards on a
 * device, and have an arbitrary origin: only differences mean something.
 *
 * Ordering: a timestamp is taken once every command recorded before it in
 * the list has completed, and every command recorded after it starts after
 * it (it orders like a global barrier on both sides, so timing each command
 * of a list runs them one at a time). A resolve reads the queries after every
 * EndQuery recorded before it; a later command that reads the destination
 * needs a barrier, as after a copy. A query keeps its value until ended
 * again, also across lists executed in order; one never ended reads 0 (the
 * debug layer refuses to resolve it).
 * Supported when CGC_FEATURE_TIMESTAMP_QUERIES says so.
 *===----------------------------------------------------------------------===*/

typedef enum CgcQueryHeapType {
  CGC_QUERY_HEAP_TYPE_TIMESTAMP = 1,
} CgcQueryHeapType;

typedef enum CgcQueryType {
  CGC_QUERY_TYPE_TIMESTAMP = 1, /* only in a TIMESTAMP heap */
} CgcQueryType;

typedef struct CgcQueryHeapDesc {
  uint32_t version;
  CgcQueryHeapType type;
  uint32_t count; /* queries in the heap, at least 1 */
} CgcQueryHeapDesc;

/** CGC_ERROR_UNSUPPORTED when the device has no timestamp queries. */
CgcStatus cgcCreateQueryHeap(CgcDevice device, const CgcQueryHeapDesc *desc,
                             CgcQueryHeap *out_heap);
/** Lists that recorded queries of the heap keep it alive until they are
 *  reset or released. */
void cgcReleaseQueryHeap(CgcQueryHeap heap);

/** Records the device's clock into query `index` of `heap` when the list runs. */
CgcStatus cgcCommandListEndQuery(CgcCommandList list, CgcQueryHeap heap, CgcQueryType type,
                                 uint32_t index);
/** Writes queries [startIndex, startIndex + numQueries) of `heap` as uint64_t
 *  ticks to `destination` at `destinationOffset` (a multiple of 8). The
 *  destination may not be an UPLOAD-heap buffer. */
CgcStatus cgcCommandListResolveQueryData(CgcCommandList list, CgcQueryHeap heap,
                                         CgcQueryType type, uint32_t startIndex,
                                         uint32_t numQueries, CgcBuffer destination,
                                         uint64_t destinationOffset);

/*===----------------------------------------------------------------------===
 * Queues and fences
 *===----------------------------------------------------------------------===*/

CgcStatus cgcCreateCommandQueue(CgcDevice device, CgcCommandQueue *out_queue);
void cgcReleaseCommandQueue(CgcCommandQueue queue);
/** Lists must be closed; they run in order after earlier submissions. */
CgcStatus cgcExecuteCommandLists(CgcCommandQueue queue, uint32_t numLists,
                                 const CgcCommandList *lists);
/** Ticks per second of the timestamps that lists executed on `queue` take
 *  (1000000000: nanoseconds on the CPU and CUDA drivers). */
CgcStatus cgcGetTimestampFrequency(CgcCommandQueue queue, uint64_t *out_frequency);
/** The queue sets `fence` to `value` when earlier work completes. */
CgcStatus cgcQueueSignal(CgcCommandQueue queue, CgcFence fence, uint64_t value);
/** Later work on the queue waits until `fence` reaches `value`. */
CgcStatus cgcQueueWait(CgcCommandQueue queue, CgcFence fence, uint64_t value);

CgcStatus cgcCreateFence(CgcDevice device, uint64_t initialValue, CgcFence *out_fence);
void cgcReleaseFence(CgcFence fence);
uint64_t cgcGetFenceCompletedValue(CgcFence fence);
/** Host signal; values may not go backwards. */
CgcStatus cgcSignalFence(CgcFence fence, uint64_t value);
/** Blocks until the fence reaches `value` or `timeoutNanoseconds` passes
 *  (CGC_ERROR_TIMEOUT). UINT64_MAX waits forever. */
CgcStatus cgcWaitFence(CgcFence fence, uint64_t value, uint64_t timeoutNanoseconds);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CGC_API_H */
