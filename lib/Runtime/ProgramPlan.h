//===- ProgramPlan.h - what a cgc.program asks of the runtime ---*- C++ -*-===//
//
// The bridge between Output IR and the device API: loads a model (compiling
// Input IR for the device's driver, which the session describes as a
// DeviceTarget of plain bytes and callbacks), reads its `cgc.program` into
// plain data — which arguments are inputs, outputs and scratch buffers, which
// constants it binds, and for each partition invocation where each bind
// point lives — and seals each partition in a CGC_SUBGRAPH_PARTITION
// container for the driver. Everything MLIR stays behind this header.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_RUNTIME_PROGRAMPLAN_H
#define CGC_LIB_RUNTIME_PROGRAMPLAN_H

#include "cgc/Runtime/Session.h"
#include "cgc/Runtime/Tensor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cgc::runtime {

/// A program argument and the role the program gives it.
struct PlanArgument {
  enum class Role { Input, Output, Scratch };
  Role role;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t sizeInBytes;
  /// The model's name for it (the program argument's `cgc.name`), or empty.
  std::string name;
  /// An input the compiler placed in scratch (`cgc.scratch_offset`): it has
  /// no buffer of its own, each run uploads it into ProgramPlan's scratch
  /// argument at this byte offset, and bindings of it already point there.
  std::optional<uint64_t> scratchOffset;
};

/// The argument attribute naming a program argument as the model does
/// ("input_ids"); importers set it on the entry point, the compiler keeps it.
inline constexpr const char *kArgumentNameAttr = "cgc.name";

/// A named constant the program binds: one per name and permutation (a
/// program may bind one name twice, as stored and permuted).
struct PlanConstant {
  std::string name;
  DType dtype;
  /// The shape the program binds (the `cgc.constant`'s result type).
  std::vector<int64_t> shape;
  uint64_t sizeInBytes;
  /// The `cgc.constant`'s `permutation`, empty when there is none: the
  /// weights hold the data in `storedShape` and the bound buffer holds it
  /// transposed, bound dimension i being stored dimension permutation[i]
  /// (`cgc_op.transpose`'s convention).
  std::vector<int64_t> permutation;
  /// The shape of the data in the weights file: `shape` without a
  /// permutation, else storedShape[permutation[i]] == shape[i].
  std::vector<int64_t> storedShape;
};

/// Where one bind point of one invocation lives: a byte range of a program
/// argument's buffer (directly or through views) or of a constant.
struct PlanBinding {
  enum class Source { Argument, Constant };
  Source source;
  unsigned index; // program argument or constant index
  uint64_t offset;
  uint64_t sizeInBytes;
  uint64_t alignment;
  bool written;
};

/// One `cgc.invoke` of a partition in the program.
struct PlanInvocation {
  unsigned partition; // index into ProgramPlan::partitions
  std::vector<PlanBinding> bindings;
};

/// One partition: its name and its sealed Partition IR container.
struct PlanPartition {
  std::string name;
  unsigned numBindPoints;
  std::vector<uint8_t> container;
  /// The subgraphs it invokes (for profiles and reports).
  std::vector<SubgraphInfo> subgraphs;
};

struct ProgramPlan {
  std::string programName;
  bool loweredFromInputIR = false;
  std::vector<PlanArgument> arguments;
  /// The scratch argument that inputs with a scratch offset live in.
  std::optional<unsigned> scratchArgument;
  std::vector<PlanConstant> constants;
  std::vector<PlanPartition> partitions;
  std::vector<PlanInvocation> invocations;
  /// What compiling Input IR produced (empty for Output IR).
  CompileStats compile;
  /// When loading ran each step: reading, parsing, the compiler's stages
  /// (also in `compile.stages`), verifying, planning, sealing partitions.
  std::vector<PhaseTiming> phases;
};

/// A container-in, container-out MLIR exchange with the driver (the device
/// API's CGC_FEATURE_MLIR_EXCHANGE).
using MlirExchange = std::function<Result<std::vector<uint8_t>>(std::span<const uint8_t>)>;

/// The device's driver as a compile target, in plain C++: the session asks
/// the driver through the device API, the compiler sees a
/// cgc::compiler::Target named `driverName` with its fallback target
/// "<driverName>.fallback".
struct DeviceTarget {
  std::string driverName;
  /// Answers CGC_SUBGRAPH_DECLARATION_REQUEST (no input data) with the
  /// driver's CGC_SUBGRAPH_DECLARATION container; an empty reply: the driver
  /// declares no patterns. Called only when the compiler runs.
  std::function<Result<std::vector<uint8_t>>()> declarePatterns;
  /// Answers a CGC_SUBGRAPH_SPECIALIZATION_REQUEST container with the
  /// driver's CGC_SUBGRAPH_SPECIALIZATION container.
  MlirExchange specializeSubgraphs;
  /// Byte alignment of every buffer the driver's subgraphs access. The
  /// device API reports none before a program is compiled; 64 is what the
  /// drivers need today.
  uint64_t alignment = 64;
};

/// How to turn a model into a plan.
struct CompileRequest {
  DeviceTarget target;
  CompilerOptions options;
};

/// Loads the model at `path` (MLIR text or bytecode, or a CGC_INPUT /
/// CGC_OUTPUT container), compiles Input IR as `request` says, and plans its
/// program. Errors carry the MLIR diagnostics.
Result<ProgramPlan> loadProgramPlan(const std::string &path, const CompileRequest &request);
/// The same for a model held in memory; `name` stands for it in messages.
Result<ProgramPlan> loadProgramPlan(std::span<const std::byte> bytes, const std::string &name,
                                    const CompileRequest &request);

} // namespace cgc::runtime

#endif // CGC_LIB_RUNTIME_PROGRAMPLAN_H
