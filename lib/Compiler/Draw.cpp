//===- Draw.cpp - which picture to draw -----------------------------------===//

#include "cgc/Compiler/Draw.h"

#include "llvm/ADT/StringSwitch.h"

namespace cgc::compiler {

std::optional<Picture> parsePicture(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Picture>>(name)
      .Case("partitions", Picture::Partitions)
      .Case("memory", Picture::Memory)
      .Default(std::nullopt);
}

llvm::StringRef getPictureName(Picture picture) {
  switch (picture) {
  case Picture::Partitions:
    return "partitions";
  case Picture::Memory:
    return "memory";
  }
  return "unknown";
}

mlir::LogicalResult drawPicture(ModuleOp module, Picture picture, llvm::raw_ostream &os) {
  switch (picture) {
  case Picture::Partitions:
    return drawPartitions(module, os);
  case Picture::Memory:
    return drawMemoryPlan(module, os);
  }
  return mlir::failure();
}

} // namespace cgc::compiler
