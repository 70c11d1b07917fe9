//===- DebugLayer.cpp - Validation that needs the device's buffers --------===//

#include "DebugLayer.h"

#include "Status.h"

#include <iomanip>
#include <limits>
#include <sstream>

namespace cgc::api {

std::optional<BufferRange> findBufferContaining(CgcDevice_T &device, CgcDeviceAddressRange range) {
  std::lock_guard lock(device.buffersMutex);
  auto it = device.buffersByAddress.upper_bound(range.address);
  if (it == device.buffersByAddress.begin())
    return std::nullopt;
  const CgcBuffer_T &buffer = *std::prev(it)->second;
  uint64_t offset = range.address - buffer.address;
  if (offset > buffer.size || range.sizeInBytes > buffer.size - offset)
    return std::nullopt;
  return BufferRange{buffer.address, buffer.size, buffer.heapType};
}

std::string formatRange(CgcDeviceAddressRange range) {
  std::ostringstream os;
  os << "[0x" << std::hex << range.address << ", 0x";
  if (range.sizeInBytes > std::numeric_limits<uint64_t>::max() - range.address)
    os << "(overflow)";
  else
    os << range.address + range.sizeInBytes;
  os << std::dec << ") of " << range.sizeInBytes << " bytes";
  return os.str();
}

namespace {

/// Checks that a non-empty `range` lies inside one live buffer of `device`.
CgcStatus checkInsideBuffer(std::string_view call, CgcDevice_T &device,
                            CgcDeviceAddressRange range, std::string_view what,
                            std::optional<BufferRange> *out_buffer = nullptr) {
  std::optional<BufferRange> buffer = findBufferContaining(device, range);
  if (!buffer)
    return fail(CGC_ERROR_INVALID_ARGUMENT, call, what, ": range ", formatRange(range),
                " is not inside any live buffer of this device");
  if (out_buffer)
    *out_buffer = buffer;
  return CGC_OK;
}

} // namespace

CgcStatus validateSetProgramRanges(std::string_view call, CgcDevice_T &device,
                                   const Program &program, const CgcSetProgramDesc &desc) {
  std::string prefix = concat("program '", program.name, "' ");
  if (desc.temporaryResource.sizeInBytes)
    if (CgcStatus status = checkInsideBuffer(call, device, desc.temporaryResource,
                                             prefix + "temporary resource"))
      return status;
  if (desc.persistentResource.sizeInBytes)
    if (CgcStatus status = checkInsideBuffer(call, device, desc.persistentResource,
                                             prefix + "persistent resource"))
      return status;
  return CGC_OK;
}

CgcStatus validateDispatchBindings(std::string_view call, CgcDevice_T &device,
                                   const Program &program,
                                   std::span<const CgcProgramBinding> bindings) {
  for (const CgcProgramBinding &binding : bindings) {
    const CgcBindPointDesc &bindPoint = program.bindPoints[binding.bindPointIndex];
    std::string where = concat("program '", program.name, "' bind point ", binding.bindPointIndex);
    bool written = bindPoint.flags & CGC_BIND_POINT_FLAG_WRITTEN;
    if (binding.type == CGC_BINDING_TYPE_CPU) {
      if (written)
        return fail(CGC_ERROR_INVALID_ARGUMENT, call, where,
                    ": the program writes this bind point, so it cannot take a CPU binding");
      continue;
    }
    if (bindPoint.alignment > 1 && binding.gpu.address % bindPoint.alignment != 0)
      return fail(CGC_ERROR_INVALID_ARGUMENT, call, where, ": address 0x", std::hex,
                  binding.gpu.address, std::dec, " is not aligned to the bind point's ",
                  bindPoint.alignment, " bytes");
    if (binding.gpu.sizeInBytes == 0)
      continue;
    std::optional<BufferRange> buffer;
    if (CgcStatus status = checkInsideBuffer(call, device, binding.gpu, where, &buffer))
      return status;
    if (written && buffer->heapType == CGC_HEAP_TYPE_UPLOAD)
      return fail(CGC_ERROR_INVALID_ARGUMENT, call, where,
                  ": the program writes this bind point but it is bound to an UPLOAD-heap buffer");
  }
  return CGC_OK;
}

CgcStatus validateBarrierRange(std::string_view call, CgcDevice_T &device,
                               CgcDeviceAddressRange range) {
  return checkInsideBuffer(call, device, range, "barrier");
}

void markQueriesEnded(CgcQueryHeap_T &heap, uint32_t index) {
  std::lock_guard lock(heap.endedMutex);
  if (index < heap.ended.size())
    heap.ended[index] = true;
}

CgcStatus validateQueriesEnded(std::string_view call, CgcQueryHeap_T &heap, uint32_t start,
                               uint32_t count) {
  std::lock_guard lock(heap.endedMutex);
  for (uint64_t index = start; index < uint64_t(start) + count && index < heap.ended.size();
       ++index)
    if (!heap.ended[index])
      return fail(CGC_ERROR_INVALID_ARGUMENT, call, "query ", index,
                  " of the heap has not been ended by any command list: its value would be "
                  "meaningless (record cgcCommandListEndQuery first)");
  return CGC_OK;
}

} // namespace cgc::api
