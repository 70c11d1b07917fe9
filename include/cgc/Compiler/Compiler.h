//===- Compiler.h - Input IR -> Output IR, stage by stage -------*- C++ -*-===//
//
// The spec's DXCGC as four stages over one cgc.module, each a function here
// and a pass in Passes.td (so that `cgc-opt` runs any one alone):
//
//   Input IR ──match──▶ matched ──partition──▶ partitioned ──plan──▶ planned
//            ──schedule──▶ Output IR
//
// * match (`matchSubgraphs`): every target's declared patterns are applied to
//   the entry point; each concrete match is offered to its target
//   (CGC_SUBGRAPH_SPECIALIZATION_REQUEST) and kept only if accepted; every
//   layer left becomes a one-layer subgraph of the fallback target. The entry
//   point then computes with `cgc.call`s of `cgc.subgraph`s. Structurally
//   identical subgraphs of one target are one symbol, called several times.
// * partition (`partitionSubgraphs`): the calls are grouped into
//   `cgc.partition`s (convex runs of one target's calls in dataflow order),
//   and the entry point becomes a `cgc.program` that binds constants, views a
//   scratch buffer and invokes the partitions. Every intermediate gets its own
//   aligned scratch slot (the naive plan).
// * plan (`planMemory`): liveness-based reuse of scratch with a best-fit
//   offset packer, in-place elementwise subgraphs, optional inputs placed in
//   scratch, per-target alignment; reports bytes against the naive sum and the
//   lower bound (peak live bytes).
// * schedule (`scheduleProgram`): orders the program's partition invocations
//   by dependency level and records, per invocation, the earlier invocations
//   whose byte ranges it conflicts with (a barrier only where ranges overlap).
//
// `compile` runs them in order and verifies the result as CGC_OUTPUT. Before
// them, `convertPrecision` (`cgc-convert-precision`) can make a float32 model
// compute in float16 or bfloat16 (CompileOptions::precision), and then
// `sinkBroadcasts` (`cgc-sink-broadcasts`) lets elementwise layers compute
// before their operands' expands, `mergeCommonLayers`
// (`cgc-merge-common-layers`) computes each value once,
// and `convertToChannelsLast` (`cgc-channels-last`) can put 2-D convolutions
// in the channels-last form a target asks for (CompileOptions::layout).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_COMPILER_COMPILER_H
#define CGC_COMPILER_COMPILER_H

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cgc::compiler {

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

/// A compile target: a name (the `origin` of the subgraphs it implements),
/// the patterns it declared and the way to ask it about concrete subgraphs.
/// A device contributes two: its driver target, which declares patterns, and
/// its fallback target, which declares none and takes every layer left.
struct Target {
  std::string name;
  /// Its CGC_SUBGRAPH_DECLARATION: a cgc.module of `cgc_pattern.pattern` ops
  /// in the context being compiled, already checked with
  /// `verifyInterface(SubgraphDeclaration)`. Null: the target declares none.
  mlir::OwningOpRef<ModuleOp> declaration;
  /// Answers a CGC_SUBGRAPH_SPECIALIZATION_REQUEST: `request` is a cgc.module
  /// holding candidate `cgc.subgraph`s (origin = `name`); the result names the
  /// ones the target implements. Null: it accepts every candidate. A failure
  /// (after emitting a diagnostic) fails compilation.
  std::function<mlir::FailureOr<llvm::StringSet<>>(ModuleOp request)> specialize;
  /// Byte alignment of every buffer its subgraphs access (a power of two).
  uint64_t alignment = 64;
};

/// The origin given to a device's fallback target: "<driver>.fallback".
std::string getFallbackTargetName(llvm::StringRef driverTarget);

/// Reads "name=path": a target named `name` whose declaration is the MLIR text
/// file at `path`, verified as CGC_SUBGRAPH_DECLARATION (known constraint
/// names included); it accepts every specialization. For tools and tests that
/// compile without a device. Errors are emitted at `loc`.
mlir::FailureOr<Target> loadDeclarationFile(mlir::MLIRContext *context, llvm::StringRef spec,
                                            mlir::Location loc);

/// Parses "name=bytes" (bytes a power of two): a target's alignment.
mlir::FailureOr<std::pair<std::string, uint64_t>> parseTargetAlignment(llvm::StringRef spec,
                                                                       mlir::Location loc);

//===----------------------------------------------------------------------===//
// Before the stages: precision conversion
//===----------------------------------------------------------------------===//

/// The floating-point type a float32 model computes in.
enum class Precision {
  Float32,  ///< as the model says: no conversion
  Float16,  ///< IEEE binary16
  BFloat16, ///< bfloat16
};

/// "float32", "float16", "bfloat16" -> Precision; nullopt for anything else.
std::optional<Precision> parsePrecision(llvm::StringRef name);
llvm::StringRef getPrecisionName(Precision precision);

struct PrecisionReport {
  Precision precision = Precision::Float32; ///< what the model was converted to
  unsigned numConvertedValues = 0;    ///< float32 values now of the target type
  unsigned numConvertedConstants = 0; ///< of those, cgc.constants
  unsigned numFloat32Layers = 0;      ///< layers kept in float32 (`isKeptInFloat32`)
  unsigned numCastsInserted = 0;
  unsigned numCastsRemoved = 0;       ///< identity casts removed (inserted ones included)
};

/// Whether precision conversion keeps `op` in float32: a layer whose result
/// grows with the length of the axes it runs along (reduce_sum, reduce_prod,
/// cumsum), which a float16 result could not hold.
bool isKeptInFloat32(mlir::Operation *op);

/// Makes the float32 values of the Input IR in `module` of type `precision`,
/// as the `cgc-convert-precision` pass describes: inputs and outputs stay
/// float32 (casts at the boundary), float32 constants take the target type
/// (the runtime converts their data at load), the layers `isKeptInFloat32`
/// stay float32. Idempotent; the result is verified. Float32 changes nothing.
/// Errors name the op at fault when `module` is not Input IR.
mlir::LogicalResult convertPrecision(ModuleOp module, Precision precision,
                                     PrecisionReport *report = nullptr);

//===----------------------------------------------------------------------===//
// Before the stages: the layout of 2-D convolutions
//===----------------------------------------------------------------------===//

/// The layout 2-D convolutions compute in.
enum class Layout {
  Auto,          ///< channels-last when a target's declaration prefers it
  ChannelsFirst, ///< as the model says (NCHW): no conversion
  ChannelsLast,  ///< NHWC activations and OHWI weights (`convertToChannelsLast`)
};

/// "auto", "channels-first", "channels-last" -> Layout; nullopt for anything
/// else.
std::optional<Layout> parseLayout(llvm::StringRef name);
llvm::StringRef getLayoutName(Layout layout);

/// The string attribute on a target's declaration (its top-level cgc.module)
/// naming the activation layout its patterns expect; `kChannelsLastLayout`
/// makes `Layout::Auto` resolve to channels-last.
inline constexpr llvm::StringLiteral kPreferredLayoutAttr = "cgc.preferred_layout";
inline constexpr llvm::StringLiteral kChannelsLastLayout = "channels_last";

/// `layout`, with Auto resolved for `module`: ChannelsLast when some
/// target's declaration carries `cgc.preferred_layout = "channels_last"` and
/// the module has no grouped 2-D convolution other than depthwise ones
/// (groups = input channels = output channels), else ChannelsFirst. (cuDNN's
/// channels-last grouped convolutions measured slower than its
/// channels-first ones on an H100; depthwise ones run on the CUDA driver's
/// NHWC kernel, and 1x1 ones as cuBLASLt GEMMs: MobileNetV2 float16 went
/// from 0.84 to 0.37 ms at batch 1 and from 2.75 to 1.76 ms at batch 32,
/// ResNet-50 batch 32 from 3.7 ms to 1.9 ms.)
Layout resolveLayout(Layout layout, llvm::ArrayRef<const Target *> targets, ModuleOp module);

struct LayoutReport {
  Layout layout = Layout::ChannelsFirst; ///< what the model was converted to
  unsigned numConvolutions = 0;      ///< 2-D convolutions put in channels-last form
  unsigned numPools = 0;             ///< 2-D max and average pools put in that form
  unsigned numElementwiseLayers = 0; ///< elementwise layers rewritten on NHWC shapes
  unsigned numPermutedConstants = 0; ///< weights bound permuted (OHWI)
  unsigned numTransposes = 0;        ///< transposes inserted
};

/// Puts every 2-D convolution of the Input IR in `module` in channels-last
/// form, as the `cgc-channels-last` pass describes: NHWC activations and OHWI
/// weights around an unchanged convolution, with transposes, NHWC values
/// propagated through elementwise layers and 2-D max and average pools. The
/// model's semantics and signature do not change. Idempotent; the result is
/// verified. Errors name the op at fault when `module` is not Input IR.
mlir::LogicalResult convertToChannelsLast(ModuleOp module, LayoutReport *report = nullptr);

/// Folds the expands that elementwise layers of the Input IR in `module`
/// read into those layers' own broadcasting, or moves them after the
/// layers, as the `cgc-sink-broadcasts` pass describes; returns how many
/// rewrites it made. Errors name the op at fault when `module` is not Input
/// IR.
mlir::FailureOr<unsigned> sinkBroadcasts(ModuleOp module);

/// Merges the layers of the Input IR in `module` that compute the same value
/// (the same op, attributes and operands; `cgc.constant`s of one name and
/// attributes), as the `cgc-merge-common-layers` pass describes, and returns
/// how many layers and constants were removed. Errors name the op at fault
/// when `module` is not Input IR.
mlir::FailureOr<unsigned> mergeCommonLayers(ModuleOp module);

/// Moves the transposes that permute only the rows of a gemm's result to
/// its input, where they compose with the transpose that made it, as the
/// `cgc-move-row-transposes` pass describes; returns how many moved. Errors
/// name the op at fault when `module` is not Input IR.
mlir::FailureOr<unsigned> moveRowTransposes(ModuleOp module);

//===----------------------------------------------------------------------===//
// Stage 1: matching
//===----------------------------------------------------------------------===//

struct MatchOptions {
  /// The target every layer no pattern takes is assigned to.
  std::string fallbackTarget = "fallback";
  /// Merge structurally identical subgraphs of one target into one symbol.
  bool deduplicate = true;
};

struct MatchReport {
  unsigned numLayers = 0;            ///< live layers of the entry point
  unsigned numCandidates = 0;        ///< matches found, before overlap resolution
  unsigned numOffered = 0;           ///< matches sent for specialization
  unsigned numRejected = 0;          ///< of those, rejected by their target
  unsigned numPatternSubgraphs = 0;  ///< calls of accepted pattern subgraphs
  unsigned numLayersInPatterns = 0;  ///< layers those calls cover
  unsigned numFallbackSubgraphs = 0; ///< calls of one-layer fallback subgraphs
  unsigned numSymbols = 0;           ///< distinct cgc.subgraph symbols after deduplication
};

/// Input IR (one cgc.entry_point) -> the matched stage: the module gains the
/// subgraphs, and the entry point's layers are replaced by `cgc.call`s (dead
/// layers are dropped). Overlapping matches resolve by benefit (higher first;
/// then more layers; then the earlier root). A rejected match frees its
/// layers for other matches. Errors name the op, pattern or target at fault.
mlir::LogicalResult matchSubgraphs(ModuleOp module, llvm::ArrayRef<const Target *> targets,
                                   const MatchOptions &options, MatchReport *report = nullptr);

//===----------------------------------------------------------------------===//
// Stage 2: partitioning
//===----------------------------------------------------------------------===//

struct PartitionOptions {
  enum class Mode {
    PerSubgraph, ///< one partition per subgraph call
    PerTarget,   ///< maximal convex runs of one target's calls (default)
  };
  Mode mode = Mode::PerTarget;
  /// In PerTarget mode, at most this many layers per partition; 0: no cap.
  unsigned maxLayers = 0;
  /// Alignment of each naive scratch slot.
  uint64_t alignment = 64;
};

struct PartitionReport {
  unsigned numPartitions = 0;
  unsigned numInvocations = 0; ///< subgraph invocations over all partitions
};

/// The matched stage -> Output IR with the naive memory plan: one partition
/// per group of calls (bind points: one per distinct value it touches), one
/// cgc.program named after the entry point (inputs, outputs, then one
/// `!cgc.memref<Nx!cgc.int8>` scratch argument; `cgc.name` kept), one
/// scratch slot per intermediate. An output that is an input, a constant or
/// returned twice is written by a copy subgraph of the fallback target.
mlir::LogicalResult partitionSubgraphs(ModuleOp module, const PartitionOptions &options,
                                       const MatchOptions &matchOptions,
                                       PartitionReport *report = nullptr);

//===----------------------------------------------------------------------===//
// Stage 3: memory planning
//===----------------------------------------------------------------------===//

struct MemoryPlanOptions {
  /// Reuse scratch bytes once a value is dead; false keeps the naive plan.
  bool reuse = true;
  /// Let an elementwise subgraph write its result over an operand of the same
  /// type that dies there.
  bool inPlace = true;
  /// Place program inputs that no later step needs in scratch too (the
  /// program argument gets `cgc.scratch_offset`; the caller's data is copied
  /// there and may be overwritten).
  bool inputsInScratch = false;
  /// Trade memory for concurrency: two values share bytes only when the
  /// second's producer already depends on every reader of the first, so reuse
  /// adds no dependency between otherwise independent invocations.
  bool concurrency = false;
  /// Alignment of every scratch offset unless a target asks for more.
  uint64_t alignment = 64;
  /// Per-target alignment (by subgraph origin): a value accessed by a target
  /// is aligned to the largest of these.
  llvm::StringMap<uint64_t> targetAlignment;
};

struct MemoryPlanReport {
  uint64_t scratchBytes = 0;    ///< the planned scratch buffer
  uint64_t naiveBytes = 0;      ///< one aligned slot per value
  uint64_t lowerBoundBytes = 0; ///< peak bytes live at any step (unaligned)
  unsigned numValues = 0;       ///< values placed in scratch
  unsigned numInPlace = 0;      ///< of those, written over a dying operand
  unsigned numInputsInScratch = 0;
};

/// The discardable subgraph attribute naming the pattern a subgraph was
/// matched by (`matchSubgraphs` sets it; fallback subgraphs have none).
inline constexpr llvm::StringLiteral kPatternAttr = "cgc.pattern";

/// The discardable attribute `planMemory` sets on the program: a dictionary
/// {scratch_bytes, naive_bytes, lower_bound_bytes, in_place} of i64.
inline constexpr llvm::StringLiteral kMemoryPlanAttr = "cgc.memory_plan";
/// The program argument attribute placing an input in scratch: a byte offset
/// into the program's scratch argument (its last, `!cgc.memref<Nx!cgc.int8>`).
/// A consumer that ignores it and gives the input its own buffer still runs
/// the program correctly; it only forgoes the reuse.
inline constexpr llvm::StringLiteral kScratchOffsetAttr = "cgc.scratch_offset";

/// Re-plans the scratch offsets of a partitioned (or planned) module's
/// program in place: rewrites each `cgc.view_memref` offset and the scratch
/// argument's size. Steps are the subgraph invocations in program order
/// (partitions expanded); a value lives from its producer to its last reader.
mlir::LogicalResult planMemory(ModuleOp module, const MemoryPlanOptions &options,
                               MemoryPlanReport *report = nullptr);

//===----------------------------------------------------------------------===//
// Stage 4: scheduling
//===----------------------------------------------------------------------===//

struct ScheduleOptions {
  /// Reorder invocations by dependency level so that independent ones are
  /// adjacent (fewer global barrier epochs); false keeps program order.
  bool reorder = true;
};

struct ScheduleReport {
  unsigned numInvocations = 0;
  /// Direct dependencies (transitively reduced) between program invocations.
  unsigned numDependencies = 0;
  /// Invocations that must wait for an earlier one: where a range barrier is
  /// recorded.
  unsigned numBarriers = 0;
  /// Barriers if each were global: the number of dependency levels minus one.
  unsigned numGlobalBarriers = 0;
};

/// The discardable attribute on each program `cgc.invoke`: the indices (in
/// the final program order) of earlier invocations it depends on, ascending,
/// as `array<i64: ...>` (a DenseI64ArrayAttr; `array<i64>` for none).
inline constexpr llvm::StringLiteral kDependsOnAttr = "cgc.depends_on";
/// The discardable attribute `scheduleProgram` sets on the program: a
/// dictionary {invocations, dependencies, barriers, global_barriers} of i64.
inline constexpr llvm::StringLiteral kScheduleAttr = "cgc.schedule";

/// Orders and annotates the program of a planned module. Two invocations
/// conflict when one writes a byte range (scratch, output or input placed in
/// scratch) the other reads or writes.
mlir::LogicalResult scheduleProgram(ModuleOp module, const ScheduleOptions &options,
                                    ScheduleReport *report = nullptr);

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

enum class Stage { Input, Matched, Partitioned, Planned, Output };

/// "input", "matched", ... -> Stage; nullopt for anything else.
std::optional<Stage> parseStage(llvm::StringRef name);
llvm::StringRef getStageName(Stage stage);

struct CompileOptions {
  /// Converts the Input IR first (`convertPrecision`) unless Float32.
  Precision precision = Precision::Float32;
  /// Then puts 2-D convolutions in channels-last form
  /// (`convertToChannelsLast`) when this resolves to ChannelsLast
  /// (`resolveLayout` with the targets).
  Layout layout = Layout::Auto;
  MatchOptions match;
  PartitionOptions partition;
  MemoryPlanOptions memory;
  ScheduleOptions schedule;
  /// Stop after this stage (Output: run everything).
  Stage stopAfter = Stage::Output;
};

/// When one stage of `compile` ran (host wall time), its verification
/// included.
struct StageTime {
  /// "verify-input", "convert-precision", "merge-common-layers",
  /// "channels-last", "match",
  /// "partition", "plan-memory" or "schedule".
  std::string stage;
  std::chrono::steady_clock::time_point begin, end;
};

struct CompileReport {
  PrecisionReport precision;
  LayoutReport layout;
  /// Rewrites `sinkBroadcasts` made.
  unsigned numSunkBroadcasts = 0;
  /// Layers and constants `mergeCommonLayers` removed.
  unsigned numMergedLayers = 0;
  /// Row transposes `moveRowTransposes` moved.
  unsigned numMovedRowTransposes = 0;
  MatchReport match;
  PartitionReport partition;
  MemoryPlanReport memory;
  ScheduleReport schedule;
  /// The stages that ran, in order (a failed one included).
  std::vector<StageTime> stageTimes;
  double seconds = 0;
};

/// Runs the stages up to `options.stopAfter` on Input IR in `module`,
/// verifying after each; the Output stage's result is valid CGC_OUTPUT. The
/// precision and layout conversions run first, even when stopping after
/// Input.
/// `targets` need not contain the fallback target (it declares nothing).
mlir::LogicalResult compile(ModuleOp module, llvm::ArrayRef<const Target *> targets,
                            const CompileOptions &options, CompileReport *report = nullptr);

/// Prints the report as "key: value" lines (what `cgc-compile` shows).
void printReport(const CompileReport &report, llvm::raw_ostream &os);

} // namespace cgc::compiler

#endif // CGC_COMPILER_COMPILER_H
