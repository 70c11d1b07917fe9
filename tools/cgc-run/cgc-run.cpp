//===- cgc-run.cpp - run a model on a device from the command line --------===//
//
//   cgc-run model.mlir --input in.npy --output-dir out/
//   cgc-run model.cgc --device cuda:0 --random-inputs --seed 7 --benchmark 100
//   cgc-run model.onnx --input-shape input.1=1x3x224x224 --input input.1=x.npy
//
// Loads the model (Input IR is compiled for the device: its driver's
// patterns, partitions, a planned scratch buffer — or, with
// `--compiler baseline`, one subgraph per layer; with `--precision float16`
// or `bfloat16` a float32 model computes in that type; with `--layout
// channels-last` 2-D convolutions compute on NHWC; an .onnx model is
// imported in memory first), binds the weights from the
// safetensors file beside it, runs it once on the inputs and
// writes each output as <output-dir>/<name>.npy; prints what it loaded and
// how long things took. `--benchmark N` then times N more runs end to end
// (upload, run, readback) and N executions of the dispatches alone on the
// inputs left on the device (Session::timeRuns), each after
// `--benchmark-warmup` untimed ones, and reports both latencies;
// `--benchmark-json FILE` writes them, with the load and compile times,
// device memory and the model and device names, as JSON. `--profile FILE`
// runs once more with a device timestamp around every upload, dispatch and
// readback and writes a Chrome trace (Perfetto) of that run and of every
// phase of loading and compiling; `--summary` prints the partitions that
// took the most device time, with their subgraphs (Profile.h).
//
//===----------------------------------------------------------------------===//

#include "Profile.h"
#include "Runtime/Npy.h"
#include "cgc/Runtime/Session.h"

#if CGC_RUN_IMPORTS_ONNX
#include "Runtime/Weights.h"
#include "cgc/Import/ONNX.h"
#include "cgc/InitAllDialects.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "llvm/Support/raw_ostream.h"
#endif

#include <cctype>
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <unistd.h>

using namespace cgc::runtime;

namespace {

int fail(const std::string &message) {
  fmt::print(stderr, "cgc-run: error: {}\n", message);
  return 1;
}

std::string describe(const TensorInfo &info) {
  return fmt::format("{} {}", getName(info.dtype), formatShape(info.shape));
}

std::string formatBytes(uint64_t bytes) {
  if (bytes < 10 * 1024)
    return fmt::format("{} B", bytes);
  if (bytes < 10 * 1024 * 1024)
    return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

std::string formatSeconds(double seconds) {
  if (seconds < 1e-3)
    return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1)
    return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

/// Uniform values in [-1, 1) for floats, small integers otherwise.
HostTensor randomTensor(const TensorInfo &info, std::mt19937_64 &engine) {
  HostTensor tensor = HostTensor::zeros(info.dtype, info.shape);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> integer(-8, 8);
  uint64_t count = tensor.numElements();
  for (uint64_t i = 0; i < count; ++i) {
    switch (info.dtype) {
    case DType::Float32: tensor.as<float>()[i] = real(engine); break;
    case DType::Float16: tensor.as<uint16_t>()[i] = floatToHalf(real(engine)); break;
    case DType::BFloat16: tensor.as<uint16_t>()[i] = floatToBFloat16(real(engine)); break;
    case DType::Int8: tensor.as<int8_t>()[i] = integer(engine); break;
    case DType::UInt8: tensor.as<uint8_t>()[i] = integer(engine) + 8; break;
    case DType::Int16: tensor.as<int16_t>()[i] = integer(engine); break;
    case DType::Int32: tensor.as<int32_t>()[i] = integer(engine); break;
    case DType::Int64: tensor.as<int64_t>()[i] = integer(engine); break;
    case DType::Bool: tensor.as<uint8_t>()[i] = integer(engine) > 0; break;
    case DType::Float64: tensor.as<double>()[i] = real(engine); break;
    case DType::UInt16: tensor.as<uint16_t>()[i] = integer(engine) + 8; break;
    case DType::UInt32: tensor.as<uint32_t>()[i] = integer(engine) + 8; break;
    case DType::UInt64: tensor.as<uint64_t>()[i] = integer(engine) + 8; break;
    }
  }
  return tensor;
}

#if CGC_RUN_IMPORTS_ONNX
/// Imports an ONNX model into `options.modelData` (bytecode) and
/// `options.weightsData` (safetensors); `inputNames` receives the ONNX names
/// of the inputs, in order.
std::optional<std::string> importONNX(SessionOptions &options,
                                      const std::vector<std::string> &inputShapes,
                                      std::vector<std::string> &inputNames) {
  cgc::importer::ImportOptions importOptions;
  for (const std::string &spec : inputShapes)
    if (llvm::Error error = cgc::importer::parseInputShapeOption(spec, importOptions))
      return llvm::toString(std::move(error));
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::Expected<cgc::importer::ImportedModel> model =
      cgc::importer::importONNXFile(options.modelPath, context, importOptions);
  if (!model)
    return llvm::toString(model.takeError());
  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  if (mlir::failed(mlir::writeBytecodeToFile(model->module.get(), os)))
    return options.modelPath + ": cannot write the imported IR as bytecode";
  const auto *begin = reinterpret_cast<const std::byte *>(bytecode.data());
  options.modelData.assign(begin, begin + bytecode.size());
  if (!model->weights.empty()) {
    Result<std::vector<std::byte>> weights = serializeSafetensors(model->weights);
    if (!weights)
      return weights.error().message;
    options.weightsData = std::move(*weights);
  }
  inputNames = model->inputNames;
  return std::nullopt;
}
#endif

/// Assigns `--input` values (NAME=FILE, INDEX=FILE or FILE in order) to inputs;
/// `aliases` are other names of the inputs (an ONNX model's input names).
std::optional<std::vector<std::string>> assignInputFiles(const std::vector<std::string> &specs,
                                                         const std::vector<TensorInfo> &inputs,
                                                         const std::vector<std::string> &aliases,
                                                         std::string &error) {
  std::vector<std::string> files(inputs.size());
  size_t nextPositional = 0;
  for (const std::string &spec : specs) {
    size_t equals = spec.find('=');
    std::optional<size_t> index;
    std::string file = spec;
    if (equals != std::string::npos) {
      std::string name = spec.substr(0, equals);
      file = spec.substr(equals + 1);
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].name == name || std::to_string(i) == name ||
            (i < aliases.size() && aliases[i] == name))
          index = i;
      if (!index) {
        error = fmt::format("--input {}: the model has no input '{}' (inputs: ", spec, name);
        for (size_t i = 0; i < inputs.size(); ++i)
          error += fmt::format("{}{} {}", i ? ", " : "", inputs[i].name, describe(inputs[i]));
        error += inputs.empty() ? "none)" : ")";
        return std::nullopt;
      }
    } else {
      while (nextPositional < files.size() && !files[nextPositional].empty())
        ++nextPositional;
      if (nextPositional == files.size()) {
        error = fmt::format("--input {}: the model takes only {} input(s)", spec, inputs.size());
        return std::nullopt;
      }
      index = nextPositional;
    }
    if (!files[*index].empty()) {
      error = fmt::format("--input {}: {} is already given ({})", spec, inputs[*index].name,
                          files[*index]);
      return std::nullopt;
    }
    files[*index] = file;
  }
  return files;
}

/// Latency figures of one timed series, in seconds.
struct LatencySummary {
  std::vector<double> samples; // in run order
  double min = 0, median = 0, mean = 0, p90 = 0, p99 = 0, max = 0;
};

LatencySummary summarize(std::vector<double> samples) {
  LatencySummary summary;
  summary.samples = samples;
  if (samples.empty())
    return summary;
  std::sort(samples.begin(), samples.end());
  size_t count = samples.size();
  // Nearest rank.
  auto percentile = [&](double p) {
    size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * count));
    return samples[std::clamp<size_t>(rank, 1, count) - 1];
  };
  summary.min = samples.front();
  summary.max = samples.back();
  summary.median = (samples[(count - 1) / 2] + samples[count / 2]) / 2;
  summary.p90 = percentile(90);
  summary.p99 = percentile(99);
  double total = 0;
  for (double sample : samples)
    total += sample;
  summary.mean = total / count;
  return summary;
}

std::string formatSummary(const LatencySummary &summary) {
  return fmt::format("min {}, median {}, mean {}, p90 {}, p99 {}", formatSeconds(summary.min),
                     formatSeconds(summary.median), formatSeconds(summary.mean),
                     formatSeconds(summary.p90), formatSeconds(summary.p99));
}

nlohmann::json toJson(const LatencySummary &summary) {
  return {{"runs", summary.samples.size()}, {"min", summary.min},
          {"median", summary.median},       {"mean", summary.mean},
          {"p90", summary.p90},             {"p99", summary.p99},
          {"max", summary.max},             {"samples", summary.samples}};
}

nlohmann::json toJson(const std::vector<TensorInfo> &tensors) {
  nlohmann::json list = nlohmann::json::array();
  for (const TensorInfo &info : tensors)
    list.push_back({{"name", info.name},
                    {"dtype", std::string(getName(info.dtype))},
                    {"shape", info.shape},
                    {"bytes", info.sizeInBytes}});
  return list;
}

void printProgress(size_t done, size_t total) {
  constexpr int kWidth = 40;
  int filled = static_cast<int>(kWidth * done / std::max<size_t>(total, 1));
  fmt::print(stderr, "\r[{}{}] {}/{}", std::string(filled, '#'), std::string(kWidth - filled, ' '),
             done, total);
  if (done == total)
    fmt::print(stderr, "\n");
  std::fflush(stderr);
}

} // namespace

/// An output's name as a file name: characters other than letters, digits,
/// '.', '_' and '-' (ONNX names may hold '/' or ':') become '_'.
static std::string toFileName(std::string name) {
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      c = '_';
  return name.empty() || name == "." || name == ".." ? "output" : name;
}

int main(int argc, char **argv) {
  // Time 0 of a --profile trace.
  const std::chrono::steady_clock::time_point processStart = std::chrono::steady_clock::now();
  CLI::App app{"Runs a CGC model (Input IR, Output IR or a container) on a device."};
  SessionOptions options;
  std::vector<std::string> inputSpecs;
  bool randomInputs = false;
  uint64_t seed = 0;
  std::string outputDir;
  size_t benchmarkRuns = 0;
  size_t benchmarkWarmup = 3;
  std::string benchmarkJson;
  std::vector<std::string> inputShapes;
  app.add_option("model", options.modelPath,
                 "Model: MLIR text or bytecode (.mlir, .mlirbc), a container (.cgc) or an "
                 "ONNX model (.onnx, imported in memory)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--weights", options.weightsPath,
                 "Weights file (default: <model>.safetensors, else model.safetensors, beside the model)")
      ->check(CLI::ExistingFile);
  app.add_option("--device", options.device, "Device: cpu, cuda, cuda:N")->capture_default_str();
  app.add_option("--input", inputSpecs,
                 "An input as NAME=FILE.npy, INDEX=FILE.npy or FILE.npy (in order)");
  app.add_flag("--random-inputs", randomInputs, "Fill inputs not given with random values");
  app.add_option("--seed", seed, "Seed for --random-inputs")->capture_default_str();
  app.add_option("--output-dir", outputDir, "Write each output as DIR/<name>.npy");
  app.add_option("--benchmark", benchmarkRuns,
                 "Time N runs end to end (upload, run, readback) and N executions of the "
                 "dispatches alone on the inputs left on the device")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000'000}));
  app.add_option("--benchmark-warmup", benchmarkWarmup,
                 "Untimed runs before each --benchmark series")
      ->check(CLI::Range(size_t{0}, size_t{1'000'000'000}))
      ->capture_default_str();
  app.add_option("--benchmark-json", benchmarkJson,
                 "Write load and compile times, device memory and the --benchmark latencies "
                 "(seconds) as JSON to FILE");
  std::string profilePath;
  bool summary = false;
  unsigned summaryTop = 10;
  app.add_option("--profile", profilePath,
                 "Run once more with device timestamps around every command and write a Chrome "
                 "trace (chrome://tracing, Perfetto) of that run and of loading and compiling "
                 "to FILE");
  app.add_flag("--summary", summary,
               "Run once more with device timestamps and print the partitions that took the "
               "most device time, with their subgraphs");
  app.add_option("--summary-top", summaryTop, "Partitions, and kinds of partition, --summary lists")
      ->check(CLI::Range(1u, 1'000'000u))
      ->capture_default_str();
  app.add_flag("--debug-layer", options.debugLayer, "Validate every device API call");
  app.add_option("--input-shape", inputShapes,
                 "ONNX models: the static shape of a graph input, NAME=1x3x224x224");
  CompilerOptions &compiler = options.compiler;
  app.add_option("--compiler", compiler.compiler,
                 "How Input IR is compiled: default (the device's patterns) or baseline "
                 "(one subgraph per layer, the reference)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, CompilerOptions::Compiler>{
              {"default", CompilerOptions::Compiler::Default},
              {"baseline", CompilerOptions::Compiler::Baseline}},
          CLI::ignore_case));
  app.add_option("--precision", compiler.precision,
                 "What a float32 model computes in: float32, float16 or bfloat16 (inputs and "
                 "outputs stay float32; weights are converted once, at load; reductions that "
                 "grow with their length stay float32)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, CompilerOptions::Precision>{
              {"float32", CompilerOptions::Precision::Float32},
              {"float16", CompilerOptions::Precision::Float16},
              {"bfloat16", CompilerOptions::Precision::BFloat16}},
          CLI::ignore_case));
  app.add_option("--layout", compiler.layout,
                 "The layout 2-D convolutions compute in: auto (channels-last when the device's "
                 "driver asks for it), channels-first or channels-last (NHWC activations and "
                 "OHWI weights between transposes; inputs and outputs stay as they are)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, CompilerOptions::Layout>{
              {"auto", CompilerOptions::Layout::Auto},
              {"channels-first", CompilerOptions::Layout::ChannelsFirst},
              {"channels-last", CompilerOptions::Layout::ChannelsLast}},
          CLI::ignore_case));
  app.add_option("--partition-mode", compiler.partitionMode,
                 "per-target (runs of one target's subgraphs) or per-subgraph")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, CompilerOptions::PartitionMode>{
              {"per-target", CompilerOptions::PartitionMode::PerTarget},
              {"per-subgraph", CompilerOptions::PartitionMode::PerSubgraph}},
          CLI::ignore_case));
  app.add_option("--max-layers-per-partition", compiler.maxLayersPerPartition,
                 "Cap on layers per partition (0: none)")
      ->capture_default_str();
  bool noMemoryReuse = false, noInPlace = false;
  app.add_flag("--no-memory-reuse", noMemoryReuse, "One scratch slot per value");
  app.add_flag("--no-in-place", noInPlace, "No elementwise subgraph writes over its operand");
  app.add_flag("--inputs-in-scratch", compiler.inputsInScratch,
               "Place inputs in the scratch buffer");
  app.add_flag("--concurrency", compiler.concurrency,
               "Never let memory reuse order independent invocations");
  CLI11_PARSE(app, argc, argv);
  compiler.memoryReuse = !noMemoryReuse;
  compiler.inPlace = !noInPlace;
  // Opened first: a path that cannot be written fails before a long benchmark.
  std::ofstream jsonFile;
  if (!benchmarkJson.empty()) {
    jsonFile.open(benchmarkJson);
    if (!jsonFile)
      return fail(fmt::format("--benchmark-json {}: cannot open the file for writing",
                              benchmarkJson));
  }
  std::ofstream profileFile;
  if (!profilePath.empty()) {
    profileFile.open(profilePath);
    if (!profileFile)
      return fail(fmt::format("--profile {}: cannot open the file for writing", profilePath));
  }
  std::vector<cgc::run::HostSpan> spans;

  std::vector<std::string> inputAliases;
  double importSeconds = 0;
  if (options.modelPath.size() > 5 &&
      options.modelPath.compare(options.modelPath.size() - 5, 5, ".onnx") == 0) {
#if CGC_RUN_IMPORTS_ONNX
    auto importStart = std::chrono::steady_clock::now();
    if (std::optional<std::string> error = importONNX(options, inputShapes, inputAliases))
      return fail(*error);
    spans.push_back({"import ONNX", "load", importStart, std::chrono::steady_clock::now()});
    importSeconds = std::chrono::duration<double>(spans.back().end - importStart).count();
#else
    return fail(options.modelPath + ": this cgc-run was built without the ONNX importer");
#endif
  } else if (!inputShapes.empty()) {
    return fail("--input-shape applies to ONNX models only");
  }

  Result<std::unique_ptr<Session>> created = Session::create(options);
  if (!created)
    return fail(created.error().message);
  Session &session = **created;
  const SessionStats &stats = session.getStats();
  if (compiler.precision != CompilerOptions::Precision::Float32 && !stats.loweredFromInputIR)
    fmt::print(stderr, "cgc-run: warning: --precision applies to Input IR; {} is Output IR and "
                       "runs in the precision it was compiled with\n",
               options.modelPath);
  if (compiler.layout != CompilerOptions::Layout::Auto && !stats.loweredFromInputIR)
    fmt::print(stderr, "cgc-run: warning: --layout applies to Input IR; {} is Output IR and "
                       "runs in the layout it was compiled with\n",
               options.modelPath);

  // Inputs.
  std::string error;
  std::optional<std::vector<std::string>> files =
      assignInputFiles(inputSpecs, session.getInputs(), inputAliases, error);
  if (!files)
    return fail(error);
  std::mt19937_64 engine(seed);
  std::vector<HostTensor> inputs;
  std::vector<std::string> sources;
  for (size_t i = 0; i < session.getInputs().size(); ++i) {
    const TensorInfo &info = session.getInputs()[i];
    const std::string &file = (*files)[i];
    if (file.empty()) {
      if (!randomInputs)
        return fail(fmt::format("no value for {} ({}); pass --input {}=FILE.npy or "
                                "--random-inputs",
                                info.name, describe(info), info.name));
      inputs.push_back(randomTensor(info, engine));
      sources.push_back(fmt::format("random (seed {})", seed));
      continue;
    }
    Result<HostTensor> tensor = readNpy(file);
    if (!tensor)
      return fail(tensor.error().message);
    if (tensor->dtype != info.dtype || tensor->shape != info.shape)
      return fail(fmt::format("{}: holds {} {}, but {} is {}", file, getName(tensor->dtype),
                              formatShape(tensor->shape), info.name, describe(info)));
    inputs.push_back(std::move(*tensor));
    sources.push_back(file);
  }

  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  Result<std::vector<HostTensor>> outputs = session.run(inputs);
  spans.push_back({"first run", "run", start, Clock::now()});
  double firstRun = std::chrono::duration<double>(spans.back().end - start).count();
  if (!outputs)
    return fail(outputs.error().message);

  std::vector<std::string> destinations(outputs->size());
  if (!outputDir.empty()) {
    std::error_code code;
    std::filesystem::create_directories(outputDir, code);
    if (code)
      return fail(fmt::format("--output-dir {}: {}", outputDir, code.message()));
    for (size_t i = 0; i < outputs->size(); ++i) {
      destinations[i] =
          (std::filesystem::path(outputDir) / (toFileName(session.getOutputs()[i].name) + ".npy"))
              .string();
      if (Status status = writeNpy(destinations[i], (*outputs)[i]); !status)
        return fail(status.error().message);
    }
  }

  const CompileStats &compile = stats.compile;
  fmt::print("model       {} ({}{}{})\n", options.modelPath,
             !stats.loweredFromInputIR     ? "Output IR"
             : compile.compiler == "baseline" ? "Input IR, compiled by the baseline pipeline"
                                              : "Input IR, compiled with the device's patterns",
             stats.loweredFromInputIR && compile.precision != "float32"
                 ? ", computing in " + compile.precision
                 : std::string(),
             stats.loweredFromInputIR && compile.layout == "channels-last"
                 ? ", convolutions channels-last"
                 : std::string());
  fmt::print("device      {} ({})\n", options.device, stats.adapterName);
  for (size_t i = 0; i < inputs.size(); ++i)
    fmt::print("input       {:<10} {:<24} <- {}{}\n", session.getInputs()[i].name,
               describe(session.getInputs()[i]), sources[i],
               i < inputAliases.size() && inputAliases[i] != session.getInputs()[i].name
                   ? " (ONNX input '" + inputAliases[i] + "')"
                   : "");
  for (size_t i = 0; i < outputs->size(); ++i)
    fmt::print("output      {:<10} {:<24} -> {}\n", session.getOutputs()[i].name,
               describe(session.getOutputs()[i]),
               destinations[i].empty() ? std::string("(not written; pass --output-dir)")
                                       : destinations[i]);
  for (const PartitionInfo &partition : session.getPartitions())
    fmt::print("partition   @{}: {} bind points, {} dispatch(es), temporary {}, persistent {}\n",
               partition.name, partition.numBindPoints, partition.numInvocations,
               formatBytes(partition.temporaryResourceSize),
               formatBytes(partition.persistentResourceSize));
  if (stats.loweredFromInputIR && compile.compiler != "baseline")
    fmt::print("compiler    {} pattern(s) of '{}'; {} layer(s): {} pattern subgraph(s) ({} "
               "offered, {} rejected), {} on '{}'; {} partition(s); scratch {} (naive {}, "
               "lower bound {}), {} input(s) in scratch; {} dependencies; {}\n",
               compile.numPatterns, compile.target, compile.numLayers,
               compile.numPatternSubgraphs, compile.numOffered, compile.numRejected,
               compile.numFallbackSubgraphs, compile.fallbackTarget, compile.numPartitions,
               formatBytes(compile.scratchBytes), formatBytes(compile.naiveBytes),
               formatBytes(compile.lowerBoundBytes), compile.numInputsInScratch,
               compile.numDependencies, formatSeconds(compile.seconds));
  fmt::print("schedule    {} dispatch(es), {} barrier(s) between dependent ones ({} range "
             "barrier(s), {} global)\n",
             stats.numDispatches, stats.numBarriers, stats.numRangeBarriers,
             stats.numGlobalBarriers);
  fmt::print("memory      scratch {}, constants {} ({} tensors), device total {}\n",
             formatBytes(stats.scratchBytes), formatBytes(stats.constantBytes),
             stats.numConstants, formatBytes(stats.deviceBytes));
  fmt::print("time        {}load {}, compile {}, first run {}\n",
             importSeconds ? "ONNX import " + formatSeconds(importSeconds) + ", " : std::string(),
             formatSeconds(stats.loadSeconds), formatSeconds(stats.compileSeconds),
             formatSeconds(firstRun));

  if (!profilePath.empty() || summary) {
    Result<RunProfile> profile = session.runProfiled(inputs);
    if (!profile)
      return fail(fmt::format("{}: {}", summary && profilePath.empty() ? "--summary" : "--profile",
                              profile.error().message));
    if (summary)
      cgc::run::printSummary(stdout, session.getPartitions(), *profile, summaryTop);
    if (!profilePath.empty()) {
      cgc::run::TraceInput trace{processStart, options.modelPath, options.device, &stats,
                                 &session.getPartitions(), &*profile, spans};
      profileFile << cgc::run::makeTrace(trace).dump() << "\n";
      profileFile.close();
      if (!profileFile)
        return fail(fmt::format("--profile {}: cannot write the file", profilePath));
      fmt::print("profile     {} ({} device command(s), {} phase(s) of loading)\n", profilePath,
                 profile->commands.size(), stats.phases.size());
    }
  }

  std::optional<LatencySummary> endToEnd, deviceResident, deviceClock;
  unsigned numInputUploads = 0;
  if (benchmarkRuns) {
    bool tty = isatty(fileno(stderr));
    size_t total = benchmarkWarmup + benchmarkRuns;
    std::vector<double> latencies;
    for (size_t run = 0; run < total; ++run) {
      Clock::time_point begin = Clock::now();
      Result<std::vector<HostTensor>> result = session.run(inputs);
      double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
      if (!result)
        return fail(fmt::format("benchmark run {}: {}", run + 1, result.error().message));
      if (run >= benchmarkWarmup)
        latencies.push_back(seconds);
      if (tty)
        printProgress(run + 1, total);
    }
    endToEnd = summarize(std::move(latencies));
    fmt::print("benchmark   end to end (upload, run, readback), {} runs after {} warm-up: {}\n",
               benchmarkRuns, benchmarkWarmup, formatSummary(*endToEnd));

    // The inputs of the last run stay on the device.
    if (benchmarkWarmup)
      if (Result<RunTimings> warmup = session.timeRuns(static_cast<unsigned>(benchmarkWarmup));
          !warmup)
        return fail(fmt::format("benchmark (device-resident warm-up): {}",
                                warmup.error().message));
    Result<RunTimings> timings = session.timeRuns(static_cast<unsigned>(benchmarkRuns));
    if (!timings)
      return fail(fmt::format("benchmark (device-resident): {}", timings.error().message));
    deviceResident = summarize(std::move(timings->seconds));
    if (!timings->deviceSeconds.empty())
      deviceClock = summarize(std::move(timings->deviceSeconds));
    numInputUploads = timings->numInputUploads;
    fmt::print("benchmark   device-resident (dispatches only{}), {} runs after {} warm-up: {}\n",
               numInputUploads ? fmt::format(", after uploading again {} input(s) the program "
                                             "writes over",
                                             numInputUploads)
                               : std::string(", inputs on the device"),
               benchmarkRuns, benchmarkWarmup, formatSummary(*deviceResident));
    if (deviceClock)
      fmt::print("benchmark   device-resident on the device's clock (between two timestamps, as "
                 "CUDA events time it), {} runs: {}\n",
                 benchmarkRuns, formatSummary(*deviceClock));
  }

  if (!benchmarkJson.empty()) {
    nlohmann::json report = {
        {"model", options.modelPath},
        {"device", options.device},
        {"adapter", stats.adapterName},
        {"driver", stats.driverName},
        {"compiler", stats.loweredFromInputIR ? compile.compiler : std::string("output-ir")},
        {"precision", stats.loweredFromInputIR ? compile.precision : std::string("output-ir")},
        {"layout", stats.loweredFromInputIR ? compile.layout : std::string("output-ir")},
        {"inputs", toJson(session.getInputs())},
        {"outputs", toJson(session.getOutputs())},
        {"import_seconds", importSeconds},
        {"load_seconds", stats.loadSeconds},
        {"compile_seconds", stats.compileSeconds},
        {"graph_compile_seconds", compile.seconds},
        {"first_run_seconds", firstRun},
        {"device_bytes", stats.deviceBytes},
        {"scratch_bytes", stats.scratchBytes},
        {"constant_bytes", stats.constantBytes},
        {"partitions", session.getPartitions().size()},
        {"dispatches", stats.numDispatches},
        {"barriers", stats.numBarriers},
        {"timing", "host steady clock; end_to_end: Session::run (upload, execute, fence wait, "
                   "readback); device_resident: Session::timeRuns (execute of the dispatches "
                   "alone + fence wait); device_resident_device_clock: the same dispatches "
                   "between two device timestamps (no submission, no fence wait)"},
    };
    if (benchmarkRuns) {
      report["benchmark"] = {{"warmup", benchmarkWarmup},
                             {"end_to_end", toJson(*endToEnd)},
                             {"device_resident", toJson(*deviceResident)}};
      report["benchmark"]["device_resident"]["input_uploads"] = numInputUploads;
      // The same executions' dispatches again between two device timestamps.
      if (deviceClock) {
        report["benchmark"]["device_resident_device_clock"] = toJson(*deviceClock);
        report["benchmark"]["device_resident_device_clock"]["input_uploads"] = numInputUploads;
      }
    } else {
      report["benchmark"] = nullptr;
    }
    jsonFile << report.dump(2) << "\n";
    jsonFile.close();
    if (!jsonFile)
      return fail(fmt::format("--benchmark-json {}: cannot write the file", benchmarkJson));
  }
  return 0;
}
