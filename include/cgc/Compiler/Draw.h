//===- Draw.h - pictures of Output IR as SVG --------------------*- C++ -*-===//
//
// The spec draws Output IR two ways (spec 000, "CGC Output IR" and "Memory
// planning"), and so does the compiler, as self-contained SVG:
//
// * partitions: a box per partition invocation holding a box per subgraph
//   invocation (symbol, pattern or layers, origin target; colored by target,
//   fallback targets in warm colors), the program's arguments and constants,
//   the dataflow between invocations (through their values and bind points)
//   and the `cgc.depends_on` barriers (dashed). Invocations are layered by
//   dependency level; long programs wrap into columns.
// * memory: the scratch plan as offset (y) against execution step (x): a
//   rectangle per scratch value from its producer to its last reader at its
//   offset, the buffer size and the plan's lower bound as lines, inputs placed
//   in scratch and in-place values marked.
//
// Both take a module at the partitioned stage or later; the output depends on
// the IR alone (no clock, no addresses), so the same module draws the same
// bytes. Elements carry classes, ids and `data-*` attributes (symbols,
// offsets, sizes, steps) so that tests and scripts can read the pictures.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_COMPILER_DRAW_H
#define CGC_COMPILER_DRAW_H

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace cgc::compiler {

/// What to draw.
enum class Picture {
  Partitions, ///< partitions, subgraph invocations, arguments, constants, edges
  Memory,     ///< the scratch memory plan over the execution steps
};

/// "partitions", "memory" -> Picture; nullopt for anything else.
std::optional<Picture> parsePicture(llvm::StringRef name);
llvm::StringRef getPictureName(Picture picture);

/// Draws the program of `module` (one `cgc.program`, at the partitioned stage
/// or later) as an SVG document on `os`. Fails, after an error on `module`
/// naming what is missing, when the module has no program or the program is
/// not Output IR.
mlir::LogicalResult drawPartitions(ModuleOp module, llvm::raw_ostream &os);

/// Draws the scratch memory plan of `module`'s program as an SVG chart on
/// `os`. Before memory planning (no `cgc.memory_plan`) it draws the naive
/// plan the partitioner left, without a lower bound.
mlir::LogicalResult drawMemoryPlan(ModuleOp module, llvm::raw_ostream &os);

/// Dispatches to `drawPartitions` or `drawMemoryPlan`.
mlir::LogicalResult drawPicture(ModuleOp module, Picture picture, llvm::raw_ostream &os);

} // namespace cgc::compiler

#endif // CGC_COMPILER_DRAW_H
