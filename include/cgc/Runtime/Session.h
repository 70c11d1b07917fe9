//===- Session.h - run a compiled model through the device API --*- C++ -*-===//
//
// The face of the runtime (the spec's "DXCGC runtime"): a Session loads a
// model, compiles it for one device and runs it on host tensors.
//
//   SessionOptions options;
//   options.modelPath = "model.mlir";         // Input IR, Output IR or a container
//   options.device = "cpu";                   // or "cuda:0"
//   Result<std::unique_ptr<Session>> session = Session::create(options);
//   Result<std::vector<HostTensor>> outputs = (*session)->run({input});
//
// Creating a session: Input IR is compiled for the device (CompilerOptions):
// the compiler asks the device's driver, through the device API, for the
// subgraph patterns it declares and which matches it implements, and gives
// every other layer to the driver's fallback target; Output IR runs as
// given. Each `cgc.partition` of the Output IR is isolated, sealed in a
// CGC_SUBGRAPH_PARTITION container and compiled into its own state object
// (partitions compile in parallel threads); the weights file supplies every
// `cgc.constant`, uploaded once into one constants buffer; one scratch buffer
// backs every `cgc.view_memref` and every input the compiler placed in
// scratch. One command list runs the program: input uploads, a SetProgram +
// DispatchGraph per partition invocation, output readbacks, with a
// buffer-range barrier wherever a later command touches bytes an earlier one
// wrote (or writes bytes an earlier one read). `run` may be called any number
// of times (not concurrently). `timeRuns` re-executes the dispatches alone,
// on the inputs the last run left on the device (a benchmark's
// device-resident latency), timed by the host's clock and, where the device
// has timestamp queries, by the device's. `runProfiled` runs once with a device timestamp
// around every upload, dispatch and readback (the device API's timestamp
// queries), and SessionStats::phases says when each phase of creating the
// session ran, on which thread.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_RUNTIME_SESSION_H
#define CGC_RUNTIME_SESSION_H

#include "cgc/Runtime/Tensor.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace cgc::runtime {

/// How the session compiles Input IR (Output IR runs as it is). The knobs
/// are those of cgc::compiler::CompileOptions (cgc/Compiler/Compiler.h), as
/// plain values.
struct CompilerOptions {
  enum class Compiler {
    /// The compiler: the driver's patterns (each match confirmed by the
    /// driver), partitioning, memory planning, scheduling.
    Default,
    /// The baseline pipeline: one subgraph per layer, one partition, one
    /// scratch slot per intermediate. The reference the compiler is checked
    /// against.
    Baseline,
  };
  Compiler compiler = Compiler::Default;

  /// The floating-point type a float32 model computes in (TensorRT's
  /// `--fp16`). With Float16 or BFloat16 every float32 value inside the model
  /// takes that type, kernels accumulate in float32, and the inputs and
  /// outputs stay float32 (converted at the model's boundary); float32
  /// weights are converted once, when the session uploads them, rounding to
  /// nearest-even and saturating to the type's finite range. A few layers
  /// stay float32 (the `cgc-convert-precision` pass lists them). Both
  /// compilers honour it; Output IR runs in the precision it was compiled
  /// with.
  enum class Precision {
    Float32, ///< as the model says
    Float16,
    BFloat16,
  };
  Precision precision = Precision::Float32;

  /// The layout 2-D convolutions compute in. ChannelsLast puts each between
  /// transposes from and to NHWC and binds its constant weight permuted to
  /// OHWI (the `cgc-channels-last` pass), for drivers whose fused
  /// convolutions are NHWC; the model's inputs and outputs do not change.
  /// Auto is ChannelsLast when the device's driver declares
  /// `cgc.preferred_layout = "channels_last"` with its patterns, else
  /// ChannelsFirst; the baseline compiler, which asks the driver for
  /// nothing, takes Auto as ChannelsFirst. Output IR runs in the layout it
  /// was compiled with.
  enum class Layout {
    Auto,
    ChannelsFirst, ///< as the model says (NCHW)
    ChannelsLast,
  };
  Layout layout = Layout::Auto;

  enum class PartitionMode {
    PerTarget,   ///< maximal convex runs of one target's subgraphs
    PerSubgraph, ///< one partition per subgraph call
  };
  PartitionMode partitionMode = PartitionMode::PerTarget;
  /// In PerTarget mode, at most this many layers per partition; 0: no cap.
  unsigned maxLayersPerPartition = 0;
  /// Reuse scratch bytes of dead values.
  bool memoryReuse = true;
  /// Let elementwise subgraphs write over an operand that dies there.
  bool inPlace = true;
  /// Place inputs in the scratch buffer (the input has no buffer of its own;
  /// each run uploads it there).
  bool inputsInScratch = false;
  /// Never let reuse order otherwise independent invocations (more memory).
  bool concurrency = false;
};

/// How to build a session.
struct SessionOptions {
  /// The model: MLIR text or bytecode of Input IR or Output IR, or a sealed
  /// CGC_INPUT / CGC_OUTPUT container.
  std::string modelPath;
  /// The model's bytes when the caller already holds them (e.g. a model it
  /// imported from ONNX in memory); `modelPath` then only names the model in
  /// messages and locates the default weights file.
  std::vector<std::byte> modelData;
  /// The safetensors file with the constants; empty: `<model stem>.safetensors`
  /// beside the model if it exists, else `model.safetensors` in the model's
  /// directory. Not needed when the model has no constants.
  std::string weightsPath;
  /// The safetensors image of the constants when held in memory; takes
  /// precedence over `weightsPath`.
  std::vector<std::byte> weightsData;
  /// "cpu", "cuda", "cuda:N": the N-th adapter whose driver has that name.
  std::string device = "cpu";
  /// Validate every device API call (the debug layer).
  bool debugLayer = false;
  /// How Input IR is compiled.
  CompilerOptions compiler;
};

/// A model input or output: program argument position, dtype and shape.
struct TensorInfo {
  std::string name; // the model's name (cgc.name), else "input0", "output0", ...
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t sizeInBytes;
};

/// A subgraph a partition invokes.
struct SubgraphInfo {
  std::string name;    ///< its symbol ("convReluAdd")
  std::string origin;  ///< the target that implements it ("cpu", "cpu.fallback")
  std::string pattern; ///< the driver pattern it was matched by; empty if none
  /// Its layers, in order ("cgc_op.convolution", "cgc_op.relu", ...).
  std::vector<std::string> layers;
  unsigned numInvocations; ///< per dispatch of the partition
};

/// One compiled partition.
struct PartitionInfo {
  std::string name;
  unsigned numBindPoints;
  unsigned numInvocations;
  uint64_t temporaryResourceSize;
  uint64_t persistentResourceSize;
  /// The subgraphs it invokes, in order of first invocation.
  std::vector<SubgraphInfo> subgraphs;
};

/// When one phase of creating a session ran: host wall time on one thread.
struct PhaseTiming {
  /// "create device", "parse", "compile: match", "state object @p0", ...
  std::string name;
  /// What kind of phase: "load", "compile", "state-object", "resources",
  /// "constants" or "record".
  std::string category;
  std::chrono::steady_clock::time_point begin, end;
  /// The thread: 0 is the one that created the session; 1, 2, ... the
  /// further threads that compiled state objects beside it.
  unsigned thread = 0;
};

/// What compiling Input IR produced (all zero for an Output IR model).
struct CompileStats {
  /// "default" or "baseline"; empty when the model was Output IR.
  std::string compiler;
  /// What float32 values computed in: "float32", "float16" or "bfloat16";
  /// empty when the model was Output IR.
  std::string precision;
  /// The layout 2-D convolutions computed in: "channels-first" or
  /// "channels-last"; empty when the model was Output IR.
  std::string layout;
  /// The compile target names: the driver's ("cpu") and its fallback
  /// ("cpu.fallback").
  std::string target, fallbackTarget;
  unsigned numPatterns = 0;         ///< patterns the driver declared
  unsigned numLayers = 0;           ///< live layers of the entry point
  unsigned numOffered = 0;          ///< matches offered to the driver
  unsigned numRejected = 0;         ///< of those, rejected by it
  unsigned numPatternSubgraphs = 0; ///< subgraph calls from the driver's patterns
  unsigned numFallbackSubgraphs = 0; ///< one-layer subgraph calls (baseline: every one)
  unsigned numPartitions = 0;
  uint64_t scratchBytes = 0;    ///< the planned scratch buffer
  uint64_t naiveBytes = 0;      ///< one aligned slot per value
  uint64_t lowerBoundBytes = 0; ///< peak live bytes (0 when not computed: baseline)
  unsigned numInPlace = 0;
  unsigned numInputsInScratch = 0;
  unsigned numDependencies = 0; ///< the compiler's (transitively reduced) dependencies
  unsigned numBarriers = 0;     ///< invocations the compiler says must wait
  unsigned numGlobalBarriers = 0; ///< barriers if each were global
  double seconds = 0;
  /// When each compiler stage ran: asking the driver for its patterns
  /// ("compile: the driver's patterns"), then the stages of
  /// cgc::compiler::compile ("compile: match", ...); for the baseline
  /// compiler "compile: convert-precision", "compile: channels-last" (when
  /// asked for) and "compile: baseline pipeline".
  std::vector<PhaseTiming> stages;
};

/// What creating the session found and cost.
struct SessionStats {
  std::string adapterName;
  std::string driverName;
  bool loweredFromInputIR = false;
  CompileStats compile;
  uint64_t scratchBytes = 0;
  uint64_t constantBytes = 0;
  /// Every DEFAULT-heap byte the session holds: argument buffers (inputs
  /// placed in scratch have none), constants, temporary and persistent
  /// resources.
  uint64_t deviceBytes = 0;
  unsigned numConstants = 0;
  unsigned numDispatches = 0;
  /// Dispatches that wait behind a barrier for an earlier dispatch (the
  /// runtime's own count, from real addresses; compare
  /// CompileStats::numBarriers). Waiting only for input uploads is not
  /// counted.
  unsigned numBarriers = 0;
  /// Barrier commands recorded: buffer-range ones (one per merged
  /// conflicting range, also behind uploads and before readbacks) and
  /// global ones (none today).
  unsigned numRangeBarriers = 0;
  unsigned numGlobalBarriers = 0;
  double loadSeconds = 0;    // parse, compile Input IR (compile.seconds), verify
  double compileSeconds = 0; // state objects (parallel) and resources
  /// Every phase of `Session::create`, in order of their start: loading
  /// (the compiler's stages among them), one state-object compilation per
  /// partition on the thread that did it, resource creation, the constant
  /// upload, recording the run list.
  std::vector<PhaseTiming> phases;
};

/// What `Session::timeRuns` measured.
struct RunTimings {
  /// Seconds per execution, in order: host time from submitting the command
  /// list to the return of the fence wait.
  std::vector<double> seconds;
  /// Seconds per execution on the device's clock, where the device has
  /// timestamp queries (empty otherwise): after each host-timed execution,
  /// the same commands run again between two timestamps, and this is the
  /// time between them (what CUDA events recorded around the execution
  /// would measure: no submission, no fence wait).
  std::vector<double> deviceSeconds;
  /// Inputs the timed list uploads again (from the last run's upload
  /// buffers) before its dispatches, because the program writes over their
  /// bytes (inputs placed in scratch); 0 when every input stays intact and
  /// the list holds dispatches and barriers alone.
  unsigned numInputUploads = 0;
};

/// One command of a profiled run, timed on the device.
struct ProfiledCommand {
  enum class Kind { Upload, Dispatch, Readback };
  Kind kind;
  /// The partition dispatched, or the input uploaded / output read back.
  std::string name;
  unsigned partition = 0;  ///< Dispatch: index into Session::getPartitions()
  unsigned invocation = 0; ///< Dispatch: the invocation's index in the program
  uint64_t sizeInBytes = 0; ///< Upload, Readback: bytes copied
  /// Device time in nanoseconds since the run's first timestamp (the one
  /// before its first command); the device's clock, not the host's.
  int64_t deviceBeginNs = 0, deviceEndNs = 0;
};

/// What `Session::runProfiled` measured.
struct RunProfile {
  std::vector<HostTensor> outputs;
  /// Every upload, dispatch and readback, in the order the list runs them.
  std::vector<ProfiledCommand> commands;
  /// Host time: just before the list was submitted, and when the fence wait
  /// returned. The device's times start between the two: placing
  /// deviceBeginNs 0 at `submitted` puts them on the host's timeline to
  /// within the submission latency.
  std::chrono::steady_clock::time_point submitted, completed;
  /// The device's timestamp frequency (ticks per second).
  uint64_t timestampFrequency = 0;
};

class Session {
public:
  /// Loads, compiles and prepares the model. Errors name the file, constant,
  /// partition or bind point at fault, with the device API's message.
  static Result<std::unique_ptr<Session>> create(const SessionOptions &options);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Runs the program on `inputs` (one per input, in order, with exactly the
  /// input's dtype and shape) and returns the outputs in order.
  Result<std::vector<HostTensor>> run(const std::vector<HostTensor> &inputs);

  /// Executes the program's dispatches `count` times on the inputs the last
  /// successful `run` left on the device, timing each execution. A second
  /// command list, recorded on the first call, holds every partition
  /// invocation's SetProgram + DispatchGraph and the barriers between them,
  /// but no uploads or readbacks; later `run`s are unaffected. Fails when no
  /// `run` has succeeded yet.
  Result<RunTimings> timeRuns(unsigned count);

  /// Runs the program once, like `run`, from a third command list (recorded
  /// on the first call) with a timestamp before and after every upload,
  /// dispatch and readback. Timestamps order the commands one after another,
  /// so device times add up, but the list forgoes the concurrency of the
  /// run list. Fails with the device API's message when the device has no
  /// timestamp queries (CGC_FEATURE_TIMESTAMP_QUERIES).
  Result<RunProfile> runProfiled(const std::vector<HostTensor> &inputs);

  const std::vector<TensorInfo> &getInputs() const;
  const std::vector<TensorInfo> &getOutputs() const;
  const std::vector<PartitionInfo> &getPartitions() const;
  const SessionStats &getStats() const;

  struct Impl;

private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace cgc::runtime

#endif // CGC_RUNTIME_SESSION_H
