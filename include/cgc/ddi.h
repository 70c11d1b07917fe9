/*===- ddi.h - the OpenCGC driver interface, in C -----------------*- C -*-===//
 *
 * What a driver plugin implements: a versioned table of C functions that the
 * device API (lib/API) calls after it has validated the arguments. A driver
 * is a shared library exporting one entry point, `cgcDriverOpen`; the API
 * finds drivers in $CGC_DRIVER_PATH and in the install directory
 * (`<lib>/cgc-drivers`), rejects a table whose ddiVersion differs from
 * CGC_DDI_VERSION, and calls `close` before unloading the library.
 *
 * Driver objects are opaque `void *` handles. Every function that can fail
 * returns a CgcStatus and, on failure, first reports a message through
 * CgcDdiHost::setErrorMessage; the API prefixes the call's name.
 *
 * Lifetimes: pointers passed into a call are valid during that call only
 * (container bytes, bindings, CPU-binding data: copy what you keep). The API
 * guarantees that a program or query heap outlives every command list that
 * references it and that a command list is not reset or destroyed while it
 * executes.
 *
 * Optional entries. The entries after `waitFence` form optional groups: a
 * driver sets every entry of a group or none (the loader rejects a table
 * with part of one), and a table whose structSize ends before a group (a
 * driver built against an older ddi.h) is read as having it null. The API
 * never calls a null entry: it reports the feature unsupported instead.
 *
 *===----------------------------------------------------------------------===*/

#ifndef CGC_DDI_H
#define CGC_DDI_H

#include "cgc/api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CGC_DDI_VERSION 1u
#define CGC_DRIVER_OPEN_SYMBOL "cgcDriverOpen"

/** Services the API offers a driver. */
typedef struct CgcDdiHost {
  uint32_t ddiVersion;
  void *context;
  /** Records the message of the failure the driver is about to return. */
  void (*setErrorMessage)(void *context, const char *message);
} CgcDdiHost;

typedef struct CgcDdiFunctions {
  uint32_t ddiVersion; /* CGC_DDI_VERSION */
  uint32_t structSize; /* sizeof(CgcDdiFunctions) */
  const char *driverName; /* "cpu", "cuda" */

  /* Driver */
  void (*close)(void *driver);
  uint32_t (*getAdapterCount)(void *driver);
  CgcStatus (*getAdapterDesc)(void *driver, uint32_t index, CgcAdapterDesc *out_desc);

  /* Device */
  CgcStatus (*createDevice)(void *driver, uint32_t adapterIndex, void **out_device);
  void (*destroyDevice)(void *device);
  /** Feature data as in cgcCheckFeatureSupport; the API has checked the size
   *  and, for exchanges, that the interface GUID is known. */
  CgcStatus (*getCaps)(void *device, CgcFeature feature, void *data, size_t dataSize);

  /* Buffers */
  CgcStatus (*createBuffer)(void *device, CgcHeapType heapType, uint64_t sizeInBytes,
                            void **out_buffer, CgcDeviceAddress *out_address);
  void (*destroyBuffer)(void *device, void *buffer);
  /** Host-visible heaps only; the pointer stays valid until unmap. */
  CgcStatus (*mapBuffer)(void *device, void *buffer, void **out_data);
  void (*unmapBuffer)(void *device, void *buffer);

  /* Programs (MLIR program subobjects) */
  /** Compiles one partition: `container` holds a CGC_SUBGRAPH_PARTITION
   *  container whose header and digest the API has checked. */
  CgcStatus (*createProgram)(void *device, const char *programName,
                             const void *container, size_t containerSize,
                             void **out_program);
  void (*destroyProgram)(void *device, void *program);
  CgcStatus (*getProgramBindingProperties)(void *program,
                                           CgcProgramBindingProperties *inout_properties);

  /* Command lists (created open) */
  CgcStatus (*createCommandList)(void *device, void **out_list);
  void (*destroyCommandList)(void *device, void *list);
  CgcStatus (*resetCommandList)(void *list);
  CgcStatus (*closeCommandList)(void *list);
  CgcStatus (*recordSetProgram)(void *list, void *program, const CgcSetProgramDesc *desc);
  /** Bindings are complete and sorted by bind point (one per bind point). */
  CgcStatus (*recordDispatchGraph)(void *list, uint32_t numBindings,
                                   const CgcProgramBinding *bindings);
  CgcStatus (*recordBarrier)(void *list, const CgcBarrierDesc *desc);
  CgcStatus (*recordCopy)(void *list, CgcDeviceAddress destination, CgcDeviceAddress source,
                          uint64_t sizeInBytes);

  /* Queues and fences */
  CgcStatus (*createQueue)(void *device, void **out_queue);
  void (*destroyQueue)(void *device, void *queue);
  CgcStatus (*executeCommandLists)(void *queue, uint32_t numLists, void *const *lists);
  CgcStatus (*queueSignal)(void *queue, void *fence, uint64_t value);
  CgcStatus (*queueWait)(void *queue, void *fence, uint64_t value);
  CgcStatus (*createFence)(void *device, uint64_t initialValue, void **out_fence);
  void (*destroyFence)(void *device, void *fence);
  uint64_t (*getFenceCompletedValue)(void *fence);
  CgcStatus (*signalFence)(void *fence, uint64_t value);
  CgcStatus (*waitFence)(void *fence, uint64_t value, uint64_t timeoutNanoseconds);

  /* Optional group: timestamp queries (CGC_FEATURE_TIMESTAMP_QUERIES). The
   * API has checked types, indices against the heap's count, and that the
   * resolve destination lies in a non-UPLOAD buffer, 8-byte aligned. */
  CgcStatus (*createQueryHeap)(void *device, CgcQueryHeapType type, uint32_t count,
                               void **out_heap);
  void (*destroyQueryHeap)(void *device, void *heap);
  CgcStatus (*recordEndQuery)(void *list, void *heap, CgcQueryType type, uint32_t index);
  CgcStatus (*recordResolveQueryData)(void *list, void *heap, CgcQueryType type,
                                      uint32_t startIndex, uint32_t numQueries,
                                      CgcDeviceAddress destination);
  CgcStatus (*getTimestampFrequency)(void *queue, uint64_t *out_frequency);
} CgcDdiFunctions;

/** The smallest structSize the API accepts: the table up to its first
 *  optional group. */
#define CGC_DDI_REQUIRED_STRUCT_SIZE offsetof(CgcDdiFunctions, createQueryHeap)

/** The one symbol a driver exports. Returns CGC_ERROR_INCOMPATIBLE_VERSION
 *  when it cannot serve `ddiVersion`. */
typedef CgcStatus (*PFN_cgcDriverOpen)(uint32_t ddiVersion, const CgcDdiHost *host,
                                       const CgcDdiFunctions **out_functions,
                                       void **out_driver);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CGC_DDI_H */
