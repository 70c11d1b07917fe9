//===- DType.cpp - element types of the drivers' kernels ------------------===//

#include "DType.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace cgc::drivers {

std::optional<DType> toDType(mlir::Type elementType) {
  return llvm::TypeSwitch<mlir::Type, std::optional<DType>>(elementType)
      .Case([](Float32Type) { return DType::F32; })
      .Case([](Float16Type) { return DType::F16; })
      .Case([](BFloat16Type) { return DType::BF16; })
      .Case([](Int8Type) { return DType::I8; })
      .Case([](UInt8Type) { return DType::U8; })
      .Case([](Int16Type) { return DType::I16; })
      .Case([](Int32Type) { return DType::I32; })
      .Case([](Int64Type) { return DType::I64; })
      .Case([](BoolType) { return DType::Bool; })
      .Case([](Float64Type) { return DType::F64; })
      .Case([](UInt16Type) { return DType::U16; })
      .Case([](UInt32Type) { return DType::U32; })
      .Case([](UInt64Type) { return DType::U64; })
      .Default([](mlir::Type) { return std::nullopt; });
}

unsigned getByteWidth(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  case DType::I64:
  case DType::F64:
  case DType::U64:
    return 8;
  }
  return 0;
}

} // namespace cgc::drivers
