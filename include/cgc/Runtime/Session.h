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
// of times (not concurrently).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_RUNTIME_SESSION_H
#define CGC_RUNTIME_SESSION_H

#include "cgc/Runtime/Tensor.h"

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

/// One compiled partition.
struct PartitionInfo {
  std::string name;
  unsigned numBindPoints;
  unsigned numInvocations;
  uint64_t temporaryResourceSize;
  uint64_t persistentResourceSize;
};

/// What compiling Input IR produced (all zero for an Output IR model).
struct CompileStats {
  /// "default" or "baseline"; empty when the model was Output IR.
  std::string compiler;
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
