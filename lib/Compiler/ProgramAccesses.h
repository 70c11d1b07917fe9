//===- ProgramAccesses.h - what each program step touches -----*- C++ -*-===//
//
// Memory planning and scheduling both look at an Output IR program as a
// sequence of memory accesses: planning at the subgraph invocations (steps)
// with partitions expanded, scheduling at the program's partition
// invocations. Both resolve every memref to the program-level buffer it
// lives in (an argument or a named constant) and a byte range of it.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_COMPILER_PROGRAMACCESSES_H
#define CGC_LIB_COMPILER_PROGRAMACCESSES_H

#include "cgc/Compiler/Compiler.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace cgc::compiler {

/// One memref operand of a step or invocation, resolved to program level.
struct Access {
  /// The program value the memref belongs to: a program argument, a
  /// `cgc.constant`, or a `cgc.view_memref` of an argument (the outermost
  /// view: views of views and views inside partitions are parts of it).
  mlir::Value value;
  /// The buffer holding it: an argument number, or `numArguments` plus the
  /// index of the constant's name. An argument with `cgc.scratch_offset` (an
  /// input placed in scratch) lives in the scratch argument.
  unsigned buffer = 0;
  /// Byte range in the buffer.
  uint64_t offset = 0;
  uint64_t size = 0;
  /// Byte offset of the range inside `value`.
  uint64_t offsetInValue = 0;
  bool written = false;

  bool overlaps(const Access &other) const {
    return buffer == other.buffer && size != 0 && other.size != 0 &&
           offset < other.offset + other.size && other.offset < offset + size;
  }
};

/// One subgraph invocation of the program, partitions expanded.
struct SubgraphStep {
  SubgraphOp subgraph;
  /// The `cgc.invoke` in the partition.
  InvokeOp invoke;
  /// Index of the program invocation (in ProgramAccesses::invocations).
  unsigned invocation = 0;
  /// One per invoke operand: definition arguments (read), then results
  /// (written).
  llvm::SmallVector<Access> operands;
};

/// One `cgc.invoke` of a partition in the program.
struct PartitionInvocation {
  InvokeOp invoke;
  PartitionOp partition;
  /// The bind points that some subgraph of the partition uses, each written
  /// when the partition writes it (`PartitionOp::isBindPointWritten`).
  llvm::SmallVector<Access> accesses;
};

/// The program of an Output IR module as accesses.
struct ProgramAccesses {
  ProgramOp program;
  /// The scratch buffer: the trailing `!cgc.memref<Nx!cgc.int8>` argument
  /// that no invocation binds directly. Null when the program has none.
  mlir::BlockArgument scratch;
  /// Program invocations in block order.
  llvm::SmallVector<PartitionInvocation> invocations;
  /// Subgraph invocations in program order.
  llvm::SmallVector<SubgraphStep> steps;
};

/// The one `cgc.program` of `module`; emits an error and returns null when
/// there is not exactly one.
ProgramOp getOnlyProgram(ModuleOp module, llvm::StringRef pass);

/// Resolves the accesses of `program`. Fails (after an error naming the
/// invocation or argument) on IR that is not Output IR.
mlir::FailureOr<ProgramAccesses> collectProgramAccesses(ModuleOp module, ProgramOp program);

/// Liveness: for each program value some step touches (`Access::value`), the
/// steps touching it, ascending; values in order of first touch. A value lives
/// from its first step to its last.
llvm::MapVector<mlir::Value, llvm::SmallVector<unsigned>>
collectStepsPerValue(const ProgramAccesses &accesses);

/// A value a step reads and the earlier step that last wrote it.
struct DataflowInput {
  unsigned producer = 0;
  mlir::Value value;
};

/// Dataflow: for each step, the values it reads that an earlier step wrote,
/// each with the last step before it that wrote the value; ordered by
/// producer, then operand position; each value once. Byte ranges that merely
/// share memory are not dataflow.
std::vector<llvm::SmallVector<DataflowInput>>
collectDataflowInputs(const ProgramAccesses &accesses);

} // namespace cgc::compiler

#endif // CGC_LIB_COMPILER_PROGRAMACCESSES_H
