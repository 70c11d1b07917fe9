//===- CommandList.cpp - recording and running CPU command lists -----------===//

#include "CommandList.h"
#include "Device.h"
#include "Program.h"
#include "QueryHeap.h"

#include <cstring>
#include <string>

namespace cgc::cpu {

namespace {
std::string describeBindPoint(const Program &program, uint32_t index) {
  return "program '" + program.getName() + "', bind point " + std::to_string(index);
}
} // namespace

CgcStatus Device::createCommandList(CommandList *&out) {
  out = commandLists.add(std::make_unique<CommandList>(*this));
  return CGC_OK;
}

CgcStatus CommandList::checkOpen(const char *command) {
  if (!closed)
    return CGC_OK;
  return device.fail(CGC_ERROR_INVALID_STATE,
                     std::string("cannot record ") + command +
                         ": the command list is closed (reset it first)");
}

CgcStatus CommandList::reset() {
  commands.clear();
  cpuBindingData.clear();
  program = nullptr;
  temporaryResource = {};
  closed = false;
  return CGC_OK;
}

CgcStatus CommandList::close() {
  if (closed)
    return device.fail(CGC_ERROR_INVALID_STATE, "the command list is already closed");
  closed = true;
  return CGC_OK;
}

CgcStatus CommandList::recordSetProgram(Program *newProgram, const CgcSetProgramDesc &desc) {
  if (CgcStatus status = checkOpen("SetProgram"))
    return status;
  if (!newProgram)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT, "SetProgram needs a program");
  uint64_t needed = newProgram->getPlan().temporaryResourceSize;
  if (needed > 0 && (desc.temporaryResource.address == 0 ||
                     desc.temporaryResource.sizeInBytes < needed))
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "program '" + newProgram->getName() + "' needs a temporary resource of " +
                           std::to_string(needed) + " bytes, but SetProgram binds " +
                           (desc.temporaryResource.address == 0
                                ? std::string("none")
                                : std::to_string(desc.temporaryResource.sizeInBytes) +
                                      " bytes"));
  program = newProgram;
  temporaryResource = desc.temporaryResource;
  return CGC_OK;
}

CgcStatus CommandList::recordDispatchGraph(uint32_t numBindings,
                                           const CgcProgramBinding *bindings) {
  if (CgcStatus status = checkOpen("DispatchGraph"))
    return status;
  if (!program)
    return device.fail(CGC_ERROR_INVALID_STATE,
                       "DispatchGraph without a program: record SetProgram first");
  const Plan &plan = program->getPlan();
  if (numBindings != plan.bindPoints.size())
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "program '" + program->getName() + "' has " +
                           std::to_string(plan.bindPoints.size()) + " bind points but " +
                           std::to_string(numBindings) + " bindings were given");

  std::vector<std::byte *> addresses(numBindings);
  std::vector<HostAllocation> copies;
  for (uint32_t index = 0; index < numBindings; ++index) {
    const CgcProgramBinding &binding = bindings[index];
    const CgcBindPointDesc &bindPoint = plan.bindPoints[index];
    if (binding.bindPointIndex != index)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "binding " + std::to_string(index) + " is for bind point " +
                             std::to_string(binding.bindPointIndex) +
                             ": bindings must be sorted, one per bind point");
    if (binding.type == CGC_BINDING_TYPE_GPU) {
      std::byte *address = toPointer(binding.gpu.address);
      if (bindPoint.sizeInBytes > 0 && !address)
        return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                           describeBindPoint(*program, index) + ": null device address");
      if (binding.gpu.sizeInBytes < bindPoint.sizeInBytes)
        return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                           describeBindPoint(*program, index) + " needs " +
                               std::to_string(bindPoint.sizeInBytes) + " bytes but " +
                               std::to_string(binding.gpu.sizeInBytes) + " are bound");
      if (bindPoint.alignment > 1 && binding.gpu.address % bindPoint.alignment != 0)
        return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                           describeBindPoint(*program, index) + " needs " +
                               std::to_string(bindPoint.alignment) +
                               "-byte alignment; the bound address is not aligned");
      addresses[index] = address;
      continue;
    }
    if (binding.type != CGC_BINDING_TYPE_CPU)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         describeBindPoint(*program, index) + ": unknown binding type " +
                             std::to_string(static_cast<int>(binding.type)));
    // The copy is read by every execution of the list; output written into
    // it would reach nobody and change what later executions read.
    if (bindPoint.flags & CGC_BIND_POINT_FLAG_WRITTEN)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         describeBindPoint(*program, index) +
                             " is written by the program: a CPU binding cannot receive "
                             "output; bind a device address range");
    if (binding.cpu.sizeInBytes < bindPoint.sizeInBytes ||
        (bindPoint.sizeInBytes > 0 && !binding.cpu.data))
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         describeBindPoint(*program, index) + " needs " +
                             std::to_string(bindPoint.sizeInBytes) +
                             " bytes but the CPU binding holds " +
                             std::to_string(binding.cpu.sizeInBytes));
    HostAllocation copy = HostAllocation::allocate(bindPoint.sizeInBytes);
    if (!copy)
      return device.fail(CGC_ERROR_OUT_OF_MEMORY,
                         describeBindPoint(*program, index) + ": cannot copy " +
                             std::to_string(bindPoint.sizeInBytes) + " bytes of CPU data");
    if (bindPoint.sizeInBytes > 0)
      std::memcpy(copy.data(), binding.cpu.data, static_cast<size_t>(bindPoint.sizeInBytes));
    addresses[index] = copy.data();
    copies.push_back(std::move(copy));
  }

  Dispatch dispatch{&plan, {}};
  plan.resolve(addresses, toPointer(temporaryResource.address), dispatch.operands);
  commands.emplace_back(std::move(dispatch));
  for (HostAllocation &copy : copies)
    cpuBindingData.push_back(std::move(copy));
  return CGC_OK;
}

CgcStatus CommandList::recordBarrier(const CgcBarrierDesc &desc) {
  if (CgcStatus status = checkOpen("a barrier"))
    return status;
  if (desc.type != CGC_BARRIER_TYPE_GLOBAL && desc.type != CGC_BARRIER_TYPE_BUFFER_RANGE)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "unknown barrier type " + std::to_string(static_cast<int>(desc.type)));
  // Commands run in recorded order, each finishing before the next begins:
  // every barrier is already honoured (CommandList.h).
  return CGC_OK;
}

CgcStatus CommandList::recordCopy(CgcDeviceAddress destination, CgcDeviceAddress source,
                                  uint64_t sizeInBytes) {
  if (CgcStatus status = checkOpen("a copy"))
    return status;
  if (sizeInBytes > 0 && (destination == 0 || source == 0))
    return device.fail(CGC_ERROR_INVALID_ARGUMENT, "copy with a null device address");
  commands.emplace_back(Copy{toPointer(destination), toPointer(source), sizeInBytes});
  return CGC_OK;
}

CgcStatus CommandList::recordEndQuery(QueryHeap &heap, uint32_t index) {
  if (CgcStatus status = checkOpen("EndQuery"))
    return status;
  if (index >= heap.getCount())
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "query " + std::to_string(index) + " is outside the heap's " +
                           std::to_string(heap.getCount()) + " queries");
  commands.emplace_back(Timestamp{&heap, index});
  return CGC_OK;
}

CgcStatus CommandList::recordResolveQueryData(QueryHeap &heap, uint32_t startIndex,
                                              uint32_t numQueries,
                                              CgcDeviceAddress destination) {
  if (CgcStatus status = checkOpen("ResolveQueryData"))
    return status;
  if (startIndex > heap.getCount() || numQueries > heap.getCount() - startIndex)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "queries [" + std::to_string(startIndex) + ", " +
                           std::to_string(uint64_t(startIndex) + numQueries) +
                           ") are outside the heap's " + std::to_string(heap.getCount()) +
                           " queries");
  if (numQueries > 0 && destination == 0)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT, "resolve to a null device address");
  commands.emplace_back(Resolve{&heap, startIndex, numQueries, toPointer(destination)});
  return CGC_OK;
}

void CommandList::execute(ThreadPool &pool) const {
  for (const auto &command : commands) {
    if (const auto *dispatch = std::get_if<Dispatch>(&command)) {
      dispatch->plan->execute(dispatch->operands, pool);
    } else if (const auto *copy = std::get_if<Copy>(&command)) {
      if (copy->sizeInBytes > 0)
        std::memmove(copy->destination, copy->source, static_cast<size_t>(copy->sizeInBytes));
    } else if (const auto *timestamp = std::get_if<Timestamp>(&command)) {
      timestamp->heap->end(timestamp->index);
    } else {
      const Resolve &resolve = std::get<Resolve>(command);
      for (uint32_t offset = 0; offset < resolve.numQueries; ++offset) {
        uint64_t ticks = resolve.heap->read(resolve.startIndex + offset);
        std::memcpy(resolve.destination + offset * sizeof(uint64_t), &ticks, sizeof(ticks));
      }
    }
  }
}

} // namespace cgc::cpu
