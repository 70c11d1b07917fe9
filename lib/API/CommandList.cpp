//===- CommandList.cpp - Command allocators and command lists -------------===//
//
// Command allocators exist only in the API (the DDI has none): an allocator
// remembers each execution of the lists recorded from it, and may be reset
// only once all of them have completed on their queues' timelines.
//
//===----------------------------------------------------------------------===//

#include "DebugLayer.h"
#include "Objects.h"
#include "Status.h"

#include <algorithm>
#include <limits>

using namespace cgc::api;

namespace cgc::api {
CgcStatus checkRecording(std::string_view call, CgcCommandList list) {
  if (!list)
    return fail(CGC_ERROR_INVALID_ARGUMENT, call, "list is null");
  if (!list->open)
    return fail(CGC_ERROR_INVALID_STATE, call,
                "the command list is closed; reset it before recording");
  return CGC_OK;
}
} // namespace cgc::api

//===----------------------------------------------------------------------===//
// Command allocators
//===----------------------------------------------------------------------===//

extern "C" CgcStatus cgcCreateCommandAllocator(CgcDevice device,
                                               CgcCommandAllocator *out_allocator) {
  constexpr std::string_view kCall = "cgcCreateCommandAllocator";
  if (!device)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "device is null");
  if (!out_allocator)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_allocator is null");
  auto *allocator = new (device->getAllocator()) CgcCommandAllocator_T;
  allocator->device = Ref<CgcDevice_T>(device);
  *out_allocator = allocator;
  return CGC_OK;
}

extern "C" CgcStatus cgcResetCommandAllocator(CgcCommandAllocator allocator) {
  constexpr std::string_view kCall = "cgcResetCommandAllocator";
  if (!allocator)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "allocator is null");
  std::lock_guard lock(allocator->mutex);
  auto &submissions = allocator->submissions;
  std::erase_if(submissions, [](const Submission &s) { return !s.isPending(); });
  if (!submissions.empty())
    return fail(CGC_ERROR_INVALID_STATE, kCall, submissions.size(),
                " execution(s) of command lists recorded from this allocator have not completed");
  return CGC_OK;
}

extern "C" void cgcReleaseCommandAllocator(CgcCommandAllocator allocator) {
  if (allocator)
    allocator->release();
}

//===----------------------------------------------------------------------===//
// Command lists
//===----------------------------------------------------------------------===//

extern "C" CgcStatus cgcCreateCommandList(CgcDevice device, CgcCommandAllocator allocator,
                                          CgcCommandList *out_list) {
  constexpr std::string_view kCall = "cgcCreateCommandList";
  if (!device)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "device is null");
  if (!allocator)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "allocator is null");
  if (!out_list)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_list is null");
  if (allocator->device.get() != device)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "allocator was created on another device");
  void *handle = nullptr;
  CgcStatus status = callDriver(device->ddi->createCommandList, device->handle, &handle);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  auto *list = new (device->getAllocator()) CgcCommandList_T;
  list->device = Ref<CgcDevice_T>(device);
  list->handle = handle;
  list->allocator = Ref<CgcCommandAllocator_T>(allocator);
  *out_list = list;
  return CGC_OK;
}

extern "C" CgcStatus cgcCloseCommandList(CgcCommandList list) {
  constexpr std::string_view kCall = "cgcCloseCommandList";
  if (CgcStatus status = checkRecording(kCall, list))
    return status;
  CgcStatus status = callDriver(list->device->ddi->closeCommandList, list->handle);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  list->open = false;
  return CGC_OK;
}

extern "C" CgcStatus cgcResetCommandList(CgcCommandList list, CgcCommandAllocator allocator) {
  constexpr std::string_view kCall = "cgcResetCommandList";
  if (!list)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "list is null");
  if (!allocator)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "allocator is null");
  if (allocator->device.get() != list->device.get())
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "allocator was created on another device");
  if (list->open)
    return fail(CGC_ERROR_INVALID_STATE, kCall, "the command list is still open; close it first");
  if (list->lastSubmission.isPending())
    return fail(CGC_ERROR_INVALID_STATE, kCall, "the command list is still executing");
  CgcStatus status = callDriver(list->device->ddi->resetCommandList, list->handle);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  list->open = true;
  list->allocator = Ref<CgcCommandAllocator_T>(allocator);
  list->program.reset();
  list->stateObjects.clear();
  list->queryHeaps.clear();
  return CGC_OK;
}

extern "C" void cgcReleaseCommandList(CgcCommandList list) {
  if (!list)
    return;
  // The DDI promises drivers that a list is never destroyed while it runs.
  list->lastSubmission.wait();
  callDriver(list->device->ddi->destroyCommandList, list->device->handle, list->handle);
  delete list;
}

//===----------------------------------------------------------------------===//
// Recording
//===----------------------------------------------------------------------===//

extern "C" CgcStatus cgcCommandListSetProgram(CgcCommandList list, CgcStateObject stateObject,
                                              const CgcSetProgramDesc *desc) {
  constexpr std::string_view kCall = "cgcCommandListSetProgram";
  if (CgcStatus status = checkRecording(kCall, list))
    return status;
  if (!stateObject)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "stateObject is null");
  if (!desc)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc is null");
  if (desc->version != CGC_API_VERSION)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc->version is ", desc->version,
                "; set it to CGC_API_VERSION (", CGC_API_VERSION, ")");
  if (stateObject->device.get() != list->device.get())
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "stateObject was created on another device");
  std::shared_ptr<Program> program = findProgramByIdentifier(*stateObject, desc->programIdentifier);
  if (!program)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                "programIdentifier does not name a program of this state object");
  if (desc->flags != 0)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "program '", program->name,
                "': flags must be 0 (reserved)");
  struct Resource {
    const char *name;
    const CgcDeviceAddressRange &range;
    uint64_t required;
  };
  for (const Resource &resource :
       {Resource{"temporary", desc->temporaryResource, program->temporaryResourceSize},
        Resource{"persistent", desc->persistentResource, program->persistentResourceSize}}) {
    if (resource.range.sizeInBytes < resource.required)
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "program '", program->name, "' ",
                  resource.name, " resource of ", resource.range.sizeInBytes,
                  " bytes is smaller than the program's ", resource.required, " bytes");
    if (resource.range.sizeInBytes && !resource.range.address)
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "program '", program->name, "' ",
                  resource.name, " resource has a size but address 0");
  }
  CgcDevice_T &device = *list->device;
  if (device.debugLayer)
    if (CgcStatus status = validateSetProgramRanges(kCall, device, *program, *desc))
      return status;
  CgcStatus status = callDriver(device.ddi->recordSetProgram, list->handle, program->handle, desc);
  if (status != CGC_OK)
    return failFromDriver(status, kCall, concat("program '", program->name, "': "));
  list->program = std::move(program);
  if (std::none_of(list->stateObjects.begin(), list->stateObjects.end(),
                   [&](const Ref<CgcStateObject_T> &held) { return held.get() == stateObject; }))
    list->stateObjects.emplace_back(stateObject);
  return CGC_OK;
}

extern "C" CgcStatus cgcCommandListBarrier(CgcCommandList list, const CgcBarrierDesc *desc) {
  constexpr std::string_view kCall = "cgcCommandListBarrier";
  if (CgcStatus status = checkRecording(kCall, list))
    return status;
  if (!desc)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc is null");
  if (desc->version != CGC_API_VERSION)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc->version is ", desc->version,
                "; set it to CGC_API_VERSION (", CGC_API_VERSION, ")");
  if (desc->type != CGC_BARRIER_TYPE_GLOBAL && desc->type != CGC_BARRIER_TYPE_BUFFER_RANGE)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "unknown barrier type ",
                static_cast<int>(desc->type));
  CgcDevice_T &device = *list->device;
  if (desc->type == CGC_BARRIER_TYPE_BUFFER_RANGE) {
    if (desc->range.sizeInBytes == 0)
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "a buffer-range barrier of 0 bytes");
    if (device.debugLayer)
      if (CgcStatus status = validateBarrierRange(kCall, device, desc->range))
        return status;
  }
  CgcStatus status = callDriver(device.ddi->recordBarrier, list->handle, desc);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  return CGC_OK;
}

extern "C" CgcStatus cgcCommandListCopyBufferRegion(CgcCommandList list, CgcBuffer destination,
                                                    uint64_t destinationOffset, CgcBuffer source,
                                                    uint64_t sourceOffset, uint64_t sizeInBytes) {
  constexpr std::string_view kCall = "cgcCommandListCopyBufferRegion";
  if (CgcStatus status = checkRecording(kCall, list))
    return status;
  if (!destination)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "destination is null");
  if (!source)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "source is null");
  if (destination->device.get() != list->device.get())
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "destination was created on another device");
  if (source->device.get() != list->device.get())
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "source was created on another device");
  auto outOfRange = [&](uint64_t offset, const CgcBuffer_T &buffer) {
    return offset > buffer.size || sizeInBytes > buffer.size - offset;
  };
  if (outOfRange(destinationOffset, *destination))
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "destination region of ", sizeInBytes,
                " bytes at offset ", destinationOffset, " is outside the ", destination->size,
                "-byte buffer");
  if (outOfRange(sourceOffset, *source))
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "source region of ", sizeInBytes,
                " bytes at offset ", sourceOffset, " is outside the ", source->size,
                "-byte buffer");
  if (destination == source && destinationOffset < sourceOffset + sizeInBytes &&
      sourceOffset < destinationOffset + sizeInBytes)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                "source and destination regions of one buffer overlap");
  if (destination->heapType == CGC_HEAP_TYPE_UPLOAD)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                "destination is an UPLOAD-heap buffer, which only the host writes");
  if (sizeInBytes == 0)
    return CGC_OK;
  CgcStatus status =
      callDriver(list->device->ddi->recordCopy, list->handle,
                 destination->address + destinationOffset, source->address + sourceOffset,
                 sizeInBytes);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  return CGC_OK;
}
