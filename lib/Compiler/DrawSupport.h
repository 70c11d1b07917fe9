//===- DrawSupport.h - what both pictures of a program share ----*- C++ -*-===//
//
// The names the pictures give values (those of the printed IR), the roles of
// the program's arguments, the colors of targets and short descriptions of
// subgraphs and byte counts.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_COMPILER_DRAWSUPPORT_H
#define CGC_LIB_COMPILER_DRAWSUPPORT_H

#include "ProgramAccesses.h"

#include "mlir/IR/AsmState.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace cgc::compiler::draw {

/// What a program argument is to the model.
enum class ArgumentRole { Input, Output, Scratch };

/// One argument of the program.
struct ProgramArgument {
  mlir::BlockArgument argument;
  ArgumentRole role = ArgumentRole::Input;
  /// Its `cgc.name`, else "input0", "output0", ... (as the runtime names
  /// them), or "scratch".
  std::string label;
  uint64_t bytes = 0;
  /// Where an input placed in scratch lives (`cgc.scratch_offset`).
  std::optional<uint64_t> scratchOffset;
};

/// The program's arguments in order: outputs are those some step writes, the
/// scratch argument is `accesses.scratch`, the others are inputs.
llvm::SmallVector<ProgramArgument> classifyArguments(const ProgramAccesses &accesses);

/// Names values as the printed module does ("%4", "%arg0"), and program
/// arguments and constants by their labels.
class ValueNames {
public:
  ValueNames(ModuleOp module, llvm::ArrayRef<ProgramArgument> arguments);
  /// "input0", "w1", or the SSA name of a view ("%4").
  std::string getLabel(mlir::Value value);
  /// The SSA name as printed ("%4", "%arg0").
  std::string getSSAName(mlir::Value value);

private:
  mlir::AsmState state;
  llvm::DenseMap<mlir::Value, std::string> labels;
};

/// How a target's subgraphs are drawn.
struct TargetStyle {
  std::string fill;   ///< subgraph invocations
  std::string tint;   ///< the background of its partitions
  std::string stroke; ///< outlines
  /// No subgraph of the target came from a pattern (`cgc.pattern`): the
  /// target that takes the layers left (drawn in warm colors).
  bool fallback = false;
  unsigned numInvocations = 0;
};

/// One style per target (subgraph origin) of the program's steps, by name.
std::map<std::string, TargetStyle> assignTargetStyles(const ProgramAccesses &accesses);

/// The pattern a subgraph came from (`cgc.pattern`), or "".
llvm::StringRef getPatternName(SubgraphOp subgraph);

/// The layers of a subgraph's definition without their dialect, joined by
/// '+' ("convolution+relu+add").
std::string describeLayers(SubgraphOp subgraph);

/// "1 invocation", "2 invocations".
std::string formatCount(size_t number, llvm::StringRef singular, llvm::StringRef plural);

/// "64 B", "1.5 KiB", "6.89 MiB".
std::string formatBytes(uint64_t bytes);

/// `type` as the IR prints it.
std::string formatType(mlir::Type type);

/// The indices in `cgc.depends_on` of program invocation `index`, checked to
/// name earlier invocations; nullopt when the invocation has none (the
/// program was not scheduled). Fails after an error on the invoke.
mlir::FailureOr<std::optional<llvm::SmallVector<unsigned>>>
getDependsOn(const ProgramAccesses &accesses, unsigned index);

} // namespace cgc::compiler::draw

#endif // CGC_LIB_COMPILER_DRAWSUPPORT_H
