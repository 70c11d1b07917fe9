//===- DebugLayer.h - Validation that needs the device's buffers -*- C++ -*-===//
//
// The checks of a device created with CGC_DEVICE_FLAG_DEBUG_LAYER (or with
// CGC_DEBUG_LAYER=1 in the environment): every address range a command names
// must lie inside one live buffer of the device, bind point addresses must be
// aligned, and written bind points must be writable; a timestamp resolve
// may read only queries some EndQuery has recorded. Without the debug layer
// these commands still get the cheap checks (sizes, indices, states).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_API_DEBUGLAYER_H
#define CGC_LIB_API_DEBUGLAYER_H

#include "Objects.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cgc::api {

/// A copy of a live buffer's placement.
struct BufferRange {
  CgcDeviceAddress address;
  uint64_t size;
  CgcHeapType heapType;
};

/// The live buffer of `device` that holds all of `range`, if any.
std::optional<BufferRange> findBufferContaining(CgcDevice_T &device, CgcDeviceAddressRange range);

/// Formats a range as "[0x1000, 0x1100)".
std::string formatRange(CgcDeviceAddressRange range);

/// Debug layer: the temporary and persistent ranges of a SetProgram.
CgcStatus validateSetProgramRanges(std::string_view call, CgcDevice_T &device,
                                   const Program &program, const CgcSetProgramDesc &desc);

/// Debug layer: the complete, sorted bindings of a DispatchGraph.
CgcStatus validateDispatchBindings(std::string_view call, CgcDevice_T &device,
                                   const Program &program,
                                   std::span<const CgcProgramBinding> bindings);

/// Debug layer: a buffer-range barrier.
CgcStatus validateBarrierRange(std::string_view call, CgcDevice_T &device,
                               CgcDeviceAddressRange range);

/// Debug layer: records that an EndQuery has named query `index` of `heap`.
void markQueriesEnded(CgcQueryHeap_T &heap, uint32_t index);

/// Debug layer: queries [start, start + count) of `heap` have each been
/// named by an EndQuery (of any list) before this resolve.
CgcStatus validateQueriesEnded(std::string_view call, CgcQueryHeap_T &heap, uint32_t start,
                               uint32_t count);

} // namespace cgc::api

#endif // CGC_LIB_API_DEBUGLAYER_H
