//===- DType.h - element types of the drivers' kernels ----------*- C++ -*-===//
//
// Shared by the driver plugins' kernel libraries: the element types their
// kernels store, and how a cgc element type maps to one.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_COMMON_DTYPE_H
#define CGC_DRIVERS_COMMON_DTYPE_H

#include "mlir/IR/Types.h"

#include <cstdint>
#include <optional>

namespace cgc::drivers {

/// Element types the kernels store.
enum class DType : uint8_t { F32, F16, BF16, I8, U8, I16, I32, I64, Bool, F64, U16, U32, U64 };

/// The DType of a cgc element type (`!cgc.float32`, ...), if it is one.
std::optional<DType> toDType(mlir::Type elementType);
/// Bytes per element.
unsigned getByteWidth(DType dtype);

} // namespace cgc::drivers

#endif // CGC_DRIVERS_COMMON_DTYPE_H
