//===- Pipeline.cpp - the compiler's stages in order -----------------------===//

#include "cgc/Compiler/Compiler.h"

#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

namespace cgc::compiler {

std::optional<Stage> parseStage(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Stage>>(name)
      .Case("input", Stage::Input)
      .Case("matched", Stage::Matched)
      .Case("partitioned", Stage::Partitioned)
      .Case("planned", Stage::Planned)
      .Case("output", Stage::Output)
      .Default(std::nullopt);
}

llvm::StringRef getStageName(Stage stage) {
  switch (stage) {
  case Stage::Input:
    return "input";
  case Stage::Matched:
    return "matched";
  case Stage::Partitioned:
    return "partitioned";
  case Stage::Planned:
    return "planned";
  case Stage::Output:
    return "output";
  }
  return "unknown";
}

LogicalResult compile(ModuleOp module, llvm::ArrayRef<const Target *> targets,
                      const CompileOptions &options, CompileReport *report) {
  auto start = std::chrono::steady_clock::now();
  CompileReport local;
  CompileReport &out = report ? *report : local;
  auto finish = [&](LogicalResult result) {
    out.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  auto verifyStage = [&](Stage stage) -> LogicalResult {
    if (succeeded(verify(module)))
      return success();
    return module.emitError() << "the compiler's " << getStageName(stage)
                              << " stage produced invalid IR";
  };
  // Runs one stage and records when it ran.
  auto timed = [&](llvm::StringRef name, llvm::function_ref<LogicalResult()> stage) {
    auto begin = std::chrono::steady_clock::now();
    LogicalResult result = stage();
    out.stageTimes.push_back({name.str(), begin, std::chrono::steady_clock::now()});
    return result;
  };
  if (failed(timed("verify-input",
                   [&] {
                     return interchange::verifyInterface(module, interchange::Interface::Input);
                   })) ||
      failed(timed("convert-precision",
                   [&] { return convertPrecision(module, options.precision, &out.precision); })))
    return finish(failure());
  // Before the layout: the channels-last form gives each convolution
  // private transposes that its pattern takes, which merging would share.
  // Runs a rewrite that reports how many things it changed into `count`.
  auto counted = [&](llvm::StringRef name, FailureOr<unsigned> (*rewrite)(ModuleOp),
                     unsigned &count) {
    return timed(name, [&] {
      FailureOr<unsigned> changed = rewrite(module);
      if (failed(changed))
        return failure();
      count = *changed;
      return success();
    });
  };
  if (failed(counted("sink-broadcasts", sinkBroadcasts, out.numSunkBroadcasts)) ||
      failed(counted("merge-common-layers", mergeCommonLayers, out.numMergedLayers)) ||
      failed(counted("move-row-transposes", moveRowTransposes, out.numMovedRowTransposes)))
    return finish(failure());
  out.layout = LayoutReport();
  out.layout.layout = resolveLayout(options.layout, targets, module);
  if (out.layout.layout == Layout::ChannelsLast &&
      failed(timed("channels-last", [&] { return convertToChannelsLast(module, &out.layout); })))
    return finish(failure());
  if (options.stopAfter == Stage::Input)
    return finish(success());

  if (failed(timed("match", [&] {
        if (failed(matchSubgraphs(module, targets, options.match, &out.match)))
          return failure();
        return verifyStage(Stage::Matched);
      })))
    return finish(failure());
  if (options.stopAfter == Stage::Matched)
    return finish(success());

  if (failed(timed("partition", [&] {
        if (failed(partitionSubgraphs(module, options.partition, options.match, &out.partition)))
          return failure();
        return verifyStage(Stage::Partitioned);
      })))
    return finish(failure());
  if (options.stopAfter == Stage::Partitioned)
    return finish(success());

  // Each target's alignment applies to the values its subgraphs touch.
  MemoryPlanOptions memory = options.memory;
  for (const Target *target : targets)
    memory.targetAlignment.try_emplace(target->name, target->alignment);
  if (failed(timed("plan-memory", [&] {
        if (failed(planMemory(module, memory, &out.memory)))
          return failure();
        return verifyStage(Stage::Planned);
      })))
    return finish(failure());
  if (options.stopAfter == Stage::Planned)
    return finish(success());

  if (failed(timed("schedule", [&] {
        if (failed(scheduleProgram(module, options.schedule, &out.schedule)) ||
            failed(verifyStage(Stage::Output)))
          return failure();
        return interchange::verifyInterface(module, interchange::Interface::Output);
      })))
    return finish(failure());
  return finish(success());
}

void printReport(const CompileReport &report, llvm::raw_ostream &os) {
  const PrecisionReport &precision = report.precision;
  if (precision.precision != Precision::Float32)
    os << "precision: " << getPrecisionName(precision.precision) << " ("
       << precision.numConvertedValues << " values converted, "
       << precision.numConvertedConstants << " of them constants; "
       << precision.numFloat32Layers << " layers kept in float32; "
       << precision.numCastsInserted << " casts inserted, " << precision.numCastsRemoved
       << " identity casts removed)\n";
  const LayoutReport &layout = report.layout;
  if (layout.layout == Layout::ChannelsLast)
    os << "layout: channels-last (" << layout.numConvolutions << " convolutions, "
       << layout.numPools << " pools, " << layout.numElementwiseLayers << " elementwise layers on NHWC, "
       << layout.numPermutedConstants << " weights bound as OHWI; " << layout.numTransposes
       << " transposes inserted)\n";
  if (report.numSunkBroadcasts)
    os << "broadcasts: " << report.numSunkBroadcasts
       << " expands folded into or moved after elementwise layers\n";
  if (report.numMergedLayers)
    os << "merged: " << report.numMergedLayers
       << " layers and constants equal to earlier ones removed\n";
  if (report.numMovedRowTransposes)
    os << "row transposes: " << report.numMovedRowTransposes
       << " moved across their products\n";
  const MatchReport &match = report.match;
  os << "layers: " << match.numLayers << "\n";
  os << "pattern matches: " << match.numCandidates << " found, " << match.numOffered
     << " offered, " << match.numRejected << " rejected\n";
  os << "subgraphs: " << match.numPatternSubgraphs << " from patterns (covering "
     << match.numLayersInPatterns << " layers), " << match.numFallbackSubgraphs
     << " fallback, " << match.numSymbols << " distinct\n";
  os << "partitions: " << report.partition.numPartitions << " ("
     << report.partition.numInvocations << " subgraph invocations)\n";
  const MemoryPlanReport &memory = report.memory;
  auto ratio = [](uint64_t a, uint64_t b) { return b ? double(a) / double(b) : 1.0; };
  os << "scratch bytes: " << memory.scratchBytes << " (naive " << memory.naiveBytes
     << ", lower bound " << memory.lowerBoundBytes << ", "
     << llvm::format("%.3f", ratio(memory.scratchBytes, memory.lowerBoundBytes))
     << "x the lower bound)\n";
  os << "in-place subgraphs: " << memory.numInPlace << "; inputs in scratch: "
     << memory.numInputsInScratch << "\n";
  const ScheduleReport &schedule = report.schedule;
  os << "program invocations: " << schedule.numInvocations << "; dependencies: "
     << schedule.numDependencies << "; barriers: " << schedule.numBarriers
     << " (range-aware), " << schedule.numGlobalBarriers << " (if global)\n";
  os << "compile seconds: " << llvm::format("%.3f", report.seconds) << "\n";
}

} // namespace cgc::compiler
