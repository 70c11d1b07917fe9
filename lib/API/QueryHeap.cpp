//===- QueryHeap.cpp - Timestamp query heaps and their commands -----------===//
//
// An optional feature: the API takes the driver's word for it only when the
// driver's table has the timestamp-query entries (DriverLoader.cpp), and
// refuses every call here with CGC_ERROR_UNSUPPORTED otherwise. Indices,
// types and the resolve destination are checked before the driver sees a
// command; the debug layer also catches a resolve of a query no EndQuery has
// recorded.
//
//===----------------------------------------------------------------------===//

#include "DebugLayer.h"
#include "Objects.h"
#include "Status.h"

#include <algorithm>

using namespace cgc::api;

CgcQueryHeap_T::~CgcQueryHeap_T() {
  callDriver(device->ddi->destroyQueryHeap, device->handle, handle);
}

namespace {

CgcStatus failUnsupported(std::string_view call, const CgcDevice_T &device) {
  return fail(CGC_ERROR_UNSUPPORTED, call, "the '", device.ddi->driverName,
              "' driver's device has no timestamp queries (see CGC_FEATURE_TIMESTAMP_QUERIES)");
}

/// The checks EndQuery and ResolveQueryData share: the heap, its device and
/// the query type.
CgcStatus checkHeap(std::string_view call, CgcCommandList list, CgcQueryHeap heap,
                    CgcQueryType type) {
  if (!heap)
    return fail(CGC_ERROR_INVALID_ARGUMENT, call, "heap is null");
  if (heap->device.get() != list->device.get())
    return fail(CGC_ERROR_INVALID_ARGUMENT, call, "heap was created on another device");
  // TIMESTAMP heaps, the only kind, hold TIMESTAMP queries.
  if (type != CGC_QUERY_TYPE_TIMESTAMP)
    return fail(CGC_ERROR_INVALID_ARGUMENT, call, "unknown query type ", static_cast<int>(type));
  return CGC_OK;
}

/// Keeps `heap` alive for the driver until `list` is reset or released.
void holdHeap(CgcCommandList list, CgcQueryHeap heap) {
  if (std::none_of(list->queryHeaps.begin(), list->queryHeaps.end(),
                   [&](const Ref<CgcQueryHeap_T> &held) { return held.get() == heap; }))
    list->queryHeaps.emplace_back(heap);
}

} // namespace

extern "C" CgcStatus cgcCreateQueryHeap(CgcDevice device, const CgcQueryHeapDesc *desc,
                                        CgcQueryHeap *out_heap) {
  constexpr std::string_view kCall = "cgcCreateQueryHeap";
  if (!device)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "device is null");
  if (!desc)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc is null");
  if (!out_heap)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_heap is null");
  if (desc->version != CGC_API_VERSION)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc->version is ", desc->version,
                "; set it to CGC_API_VERSION (", CGC_API_VERSION, ")");
  if (desc->type != CGC_QUERY_HEAP_TYPE_TIMESTAMP)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "unknown query heap type ",
                static_cast<int>(desc->type));
  if (desc->count == 0)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "count is 0");
  if (!device->timestampQueries)
    return failUnsupported(kCall, *device);
  void *handle = nullptr;
  CgcStatus status =
      callDriver(device->ddi->createQueryHeap, device->handle, desc->type, desc->count, &handle);
  if (status != CGC_OK)
    return failFromDriver(status, kCall, concat("a heap of ", desc->count, " timestamp queries: "));
  auto *heap = new (device->getAllocator()) CgcQueryHeap_T;
  heap->device = Ref<CgcDevice_T>(device);
  heap->handle = handle;
  heap->type = desc->type;
  heap->count = desc->count;
  if (device->debugLayer)
    heap->ended.assign(desc->count, false);
  *out_heap = heap;
  return CGC_OK;
}

extern "C" void cgcReleaseQueryHeap(CgcQueryHeap heap) {
  if (heap)
    heap->release();
}

extern "C" CgcStatus cgcCommandListEndQuery(CgcCommandList list, CgcQueryHeap heap,
                                            CgcQueryType type, uint32_t index) {
  constexpr std::string_view kCall = "cgcCommandListEndQuery";
  if (CgcStatus status = checkRecording(kCall, list))
    return status;
  if (CgcStatus status = checkHeap(kCall, list, heap, type))
    return status;
  if (index >= heap->count)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "query ", index, " is outside the heap's ",
                heap->count, " queries");
  CgcDevice_T &device = *list->device;
  CgcStatus status =
      callDriver(device.ddi->recordEndQuery, list->handle, heap->handle, type, index);
  if (status != CGC_OK)
    return failFromDriver(status, kCall, concat("query ", index, ": "));
  if (device.debugLayer)
    markQueriesEnded(*heap, index);
  holdHeap(list, heap);
  return CGC_OK;
}

extern "C" CgcStatus cgcCommandListResolveQueryData(CgcCommandList list, CgcQueryHeap heap,
                                                    CgcQueryType type, uint32_t startIndex,
                                                    uint32_t numQueries, CgcBuffer destination,
                                                    uint64_t destinationOffset) {
  constexpr std::string_view kCall = "cgcCommandListResolveQueryData";
  if (CgcStatus status = checkRecording(kCall, list))
    return status;
  if (CgcStatus status = checkHeap(kCall, list, heap, type))
    return status;
  if (!destination)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "destination is null");
  if (destination->device.get() != list->device.get())
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "destination was created on another device");
  if (startIndex > heap->count || numQueries > heap->count - startIndex)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "queries [", startIndex, ", ",
                uint64_t(startIndex) + numQueries, ") are outside the heap's ", heap->count,
                " queries");
  if (destinationOffset % sizeof(uint64_t) != 0)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "destinationOffset ", destinationOffset,
                " is not a multiple of 8");
  uint64_t size = uint64_t(numQueries) * sizeof(uint64_t);
  if (destinationOffset > destination->size || size > destination->size - destinationOffset)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, numQueries, " queries (", size,
                " bytes) at offset ", destinationOffset, " run past the ", destination->size,
                "-byte destination");
  if (destination->heapType == CGC_HEAP_TYPE_UPLOAD)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                "destination is an UPLOAD-heap buffer, which only the host writes");
  CgcDevice_T &device = *list->device;
  if (device.debugLayer)
    if (CgcStatus status = validateQueriesEnded(kCall, *heap, startIndex, numQueries))
      return status;
  if (numQueries == 0)
    return CGC_OK;
  CgcStatus status =
      callDriver(device.ddi->recordResolveQueryData, list->handle, heap->handle, type, startIndex,
                 numQueries, destination->address + destinationOffset);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  holdHeap(list, heap);
  return CGC_OK;
}

extern "C" CgcStatus cgcGetTimestampFrequency(CgcCommandQueue queue, uint64_t *out_frequency) {
  constexpr std::string_view kCall = "cgcGetTimestampFrequency";
  if (!queue)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "queue is null");
  if (!out_frequency)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_frequency is null");
  CgcDevice_T &device = *queue->device;
  if (!device.timestampQueries)
    return failUnsupported(kCall, device);
  uint64_t frequency = 0;
  CgcStatus status = callDriver(device.ddi->getTimestampFrequency, queue->handle, &frequency);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  if (frequency == 0)
    return fail(CGC_ERROR_INTERNAL, kCall, "the '", device.ddi->driverName,
                "' driver reported a timestamp frequency of 0");
  *out_frequency = frequency;
  return CGC_OK;
}
