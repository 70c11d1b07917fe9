//===- CompileModel.cpp - the device's driver as a compile target ----------===//
//
// The driver's replies are read with Trust::InProcess: the driver is a plugin
// mapped into this process that sealed them with the validator, so parsing
// them in a sandboxed child would guard against nothing the driver could not
// do directly, and would fork once per exchange. The reader still checks the
// digest, the op verifiers and the interface's rules (for a declaration:
// only known constraint names).
//
//===----------------------------------------------------------------------===//

#include "CompileModel.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"
#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

namespace cgc::runtime {

using interchange::Interface;

compiler::Precision getCompilerPrecision(CompilerOptions::Precision precision) {
  switch (precision) {
  case CompilerOptions::Precision::Float32:
    return compiler::Precision::Float32;
  case CompilerOptions::Precision::Float16:
    return compiler::Precision::Float16;
  case CompilerOptions::Precision::BFloat16:
    return compiler::Precision::BFloat16;
  }
  return compiler::Precision::Float32;
}

compiler::Layout getCompilerLayout(CompilerOptions::Layout layout) {
  switch (layout) {
  case CompilerOptions::Layout::Auto:
    return compiler::Layout::Auto;
  case CompilerOptions::Layout::ChannelsFirst:
    return compiler::Layout::ChannelsFirst;
  case CompilerOptions::Layout::ChannelsLast:
    return compiler::Layout::ChannelsLast;
  }
  return compiler::Layout::Auto;
}

compiler::CompileOptions getCompileOptions(const CompileRequest &request) {
  const CompilerOptions &knobs = request.options;
  compiler::CompileOptions options;
  options.precision = getCompilerPrecision(knobs.precision);
  options.layout = getCompilerLayout(knobs.layout);
  options.match.fallbackTarget = compiler::getFallbackTargetName(request.target.driverName);
  options.partition.mode = knobs.partitionMode == CompilerOptions::PartitionMode::PerSubgraph
                               ? compiler::PartitionOptions::Mode::PerSubgraph
                               : compiler::PartitionOptions::Mode::PerTarget;
  options.partition.maxLayers = knobs.maxLayersPerPartition;
  options.memory.reuse = knobs.memoryReuse;
  options.memory.inPlace = knobs.inPlace;
  options.memory.inputsInScratch = knobs.inputsInScratch;
  options.memory.concurrency = knobs.concurrency;
  // Both targets run on the one device: its alignment everywhere.
  uint64_t alignment = std::max<uint64_t>(request.target.alignment, 1);
  options.partition.alignment = std::max(options.partition.alignment, alignment);
  options.memory.alignment = std::max(options.memory.alignment, alignment);
  options.memory.targetAlignment[options.match.fallbackTarget] = options.memory.alignment;
  return options;
}

namespace {


/// Reads a container the driver returned as `expected`; null (after an
/// error naming the driver and `what`) when it is not one.
OwningOpRef<cgc::ModuleOp> readDriverReply(std::span<const uint8_t> bytes, Interface expected,
                                           const std::string &driver, llvm::StringRef what,
                                           MLIRContext *context, Location loc) {
  std::string name = "driver '" + driver + "' " + what.str();
  llvm::StringRef text(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  Interface interface;
  OwningOpRef<Operation *> op = interchange::readContainer(
      llvm::MemoryBufferRef(text, name), context, &interface, interchange::Trust::InProcess);
  if (!op) {
    emitError(loc) << "driver '" << driver << "': its " << what << " is not a valid "
                   << interchange::getInterfaceName(expected) << " container";
    return nullptr;
  }
  if (interface != expected) {
    emitError(loc) << "driver '" << driver << "': its " << what << " is a "
                   << interchange::getInterfaceName(interface) << " container, expected "
                   << interchange::getInterfaceName(expected);
    return nullptr;
  }
  // verifyInterface (run by the reader) puts a cgc.module at the top.
  return OwningOpRef<cgc::ModuleOp>(cast<cgc::ModuleOp>(op.release()));
}

LogicalResult compileWithCompiler(cgc::ModuleOp module, const CompileRequest &request,
                                  CompileStats &stats) {
  auto begin = std::chrono::steady_clock::now();
  FailureOr<compiler::Target> target =
      makeCompilerTarget(request.target, module.getContext(), module.getLoc(), &stats.numPatterns);
  stats.stages.push_back(
      {"compile: the driver's patterns", "compile", begin, std::chrono::steady_clock::now()});
  if (failed(target))
    return failure();
  compiler::CompileOptions options = getCompileOptions(request);
  compiler::CompileReport report;
  const compiler::Target *targets[] = {&*target};
  if (failed(compiler::compile(module, targets, options, &report)))
    return failure();

  stats.layout = compiler::getLayoutName(report.layout.layout).str();
  stats.fallbackTarget = options.match.fallbackTarget;
  stats.numLayers = report.match.numLayers;
  stats.numOffered = report.match.numOffered;
  stats.numRejected = report.match.numRejected;
  stats.numPatternSubgraphs = report.match.numPatternSubgraphs;
  stats.numFallbackSubgraphs = report.match.numFallbackSubgraphs;
  stats.numPartitions = report.partition.numPartitions;
  stats.scratchBytes = report.memory.scratchBytes;
  stats.naiveBytes = report.memory.naiveBytes;
  stats.lowerBoundBytes = report.memory.lowerBoundBytes;
  stats.numInPlace = report.memory.numInPlace;
  stats.numInputsInScratch = report.memory.numInputsInScratch;
  stats.numDependencies = report.schedule.numDependencies;
  stats.numBarriers = report.schedule.numBarriers;
  stats.numGlobalBarriers = report.schedule.numGlobalBarriers;
  for (const compiler::StageTime &stage : report.stageTimes)
    stats.stages.push_back({"compile: " + stage.stage, "compile", stage.begin, stage.end});
  return success();
}

LogicalResult compileWithBaseline(cgc::ModuleOp module, const CompileRequest &request,
                                  CompileStats &stats) {
  using Clock = std::chrono::steady_clock;
  // The reference compiles the same converted model as the compiler would.
  Clock::time_point begin = Clock::now();
  LogicalResult converted =
      compiler::convertPrecision(module, getCompilerPrecision(request.options.precision));
  stats.stages.push_back({"compile: convert-precision", "compile", begin, Clock::now()});
  if (failed(converted))
    return failure();
  // The baseline asks the driver for nothing: Auto keeps the model's layout.
  compiler::Layout layout = compiler::resolveLayout(getCompilerLayout(request.options.layout), {}, module);
  stats.layout = compiler::getLayoutName(layout).str();
  if (layout == compiler::Layout::ChannelsLast) {
    begin = Clock::now();
    LogicalResult channelsLast = compiler::convertToChannelsLast(module);
    stats.stages.push_back({"compile: channels-last", "compile", begin, Clock::now()});
    if (failed(channelsLast))
      return failure();
  }
  PassManager pm(module.getContext(), cgc::ModuleOp::getOperationName());
  BaselinePipelineOptions options;
  options.target = request.target.driverName;
  buildBaselinePipeline(pm, options);
  begin = Clock::now();
  LogicalResult lowered = pm.run(module);
  stats.stages.push_back({"compile: baseline pipeline", "compile", begin, Clock::now()});
  if (failed(lowered))
    return failure();
  // Every subgraph call is one layer (or an output copy) of the driver.
  for (PartitionOp partition : module.getBody().getOps<PartitionOp>()) {
    ++stats.numPartitions;
    partition.walk([&](InvokeOp) { ++stats.numFallbackSubgraphs; });
  }
  for (ProgramOp program : module.getBody().getOps<ProgramOp>())
    for (BlockArgument argument : program.getArguments())
      if (!program.getArgAttr(argument.getArgNumber(), compiler::kScratchOffsetAttr) &&
          argument.getArgNumber() + 1 == program.getNumArguments())
        stats.scratchBytes = stats.naiveBytes = cast<MemRefType>(argument.getType()).getByteSize();
  return success();
}

} // namespace

FailureOr<compiler::Target> makeCompilerTarget(const DeviceTarget &device, MLIRContext *context,
                                               Location loc, unsigned *numPatterns) {
  compiler::Target target;
  target.name = device.driverName;
  target.alignment = device.alignment;

  // The driver's patterns (CGC_SUBGRAPH_DECLARATION_REQUEST has no data).
  Result<std::vector<uint8_t>> declaration =
      device.declarePatterns ? device.declarePatterns()
                             : Result<std::vector<uint8_t>>(std::vector<uint8_t>{});
  if (!declaration)
    return emitError(loc) << "driver '" << device.driverName
                          << "': asking for its patterns: " << declaration.error().message;
  if (!declaration->empty()) {
    target.declaration = readDriverReply(*declaration, Interface::SubgraphDeclaration,
                                         device.driverName, "pattern declaration", context, loc);
    if (!target.declaration)
      return failure();
    if (numPatterns)
      *numPatterns =
          llvm::range_size(target.declaration->getBodyBlock()->getOps<pattern::PatternOp>());
  }

  // Each match the compiler selects is offered to the driver, which answers
  // with the subgraphs it implements.
  target.specialize = [device, context](cgc::ModuleOp request) -> FailureOr<llvm::StringSet<>> {
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    if (failed(interchange::writeContainer(request, Interface::SubgraphSpecializationRequest, os)))
      return request.emitError() << "driver '" << device.driverName
                                 << "': the specialization request does not validate as "
                                    "CGC_SUBGRAPH_SPECIALIZATION_REQUEST";
    if (!device.specializeSubgraphs)
      return request.emitError() << "driver '" << device.driverName
                                 << "' cannot be asked to specialize subgraphs";
    Result<std::vector<uint8_t>> reply = device.specializeSubgraphs(
        std::span(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
    if (!reply)
      return request.emitError() << "driver '" << device.driverName
                                 << "': specializing subgraphs: " << reply.error().message;
    OwningOpRef<cgc::ModuleOp> answer =
        readDriverReply(*reply, Interface::SubgraphSpecialization, device.driverName,
                        "specialization answer", context, request.getLoc());
    if (!answer)
      return failure();
    llvm::StringSet<> offered, accepted;
    for (SubgraphOp subgraph : request.getBodyBlock()->getOps<SubgraphOp>())
      offered.insert(subgraph.getSymName());
    for (SubgraphOp subgraph : answer->getBodyBlock()->getOps<SubgraphOp>()) {
      if (!offered.contains(subgraph.getSymName()))
        return request.emitError() << "driver '" << device.driverName << "' accepted subgraph @"
                                   << subgraph.getSymName() << ", which it was not offered";
      accepted.insert(subgraph.getSymName());
    }
    return accepted;
  };
  return target;
}

LogicalResult compileModel(cgc::ModuleOp module, const CompileRequest &request,
                           CompileStats &stats) {
  auto start = std::chrono::steady_clock::now();
  stats = CompileStats{};
  stats.target = request.target.driverName;
  bool baseline = request.options.compiler == CompilerOptions::Compiler::Baseline;
  stats.compiler = baseline ? "baseline" : "default";
  stats.precision = compiler::getPrecisionName(getCompilerPrecision(request.options.precision));
  LogicalResult result = baseline ? compileWithBaseline(module, request, stats)
                                  : compileWithCompiler(module, request, stats);
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace cgc::runtime
