//===- cgc-compile.cpp - compile a model to CGC Output IR -----------------===//
//
//   cgc-compile model.onnx -o model.cgc [--device cpu] [--report]
//   cgc-compile model.mlir --declarations=gpu=patterns.mlir --emit=matched -o -
//   cgc-compile model.onnx --partition-mode=per-subgraph --concurrency -o model.cgc
//   cgc-compile model.onnx --precision=float16 -o model.cgc
//   cgc-compile model.onnx --layout=channels-last -o model.cgc
//   cgc-compile model.onnx --draw=partitions=parts.svg --draw=memory=memory.svg
//
// Imports the model (ONNX, or Input IR as MLIR text, bytecode or a CGC_INPUT
// container), asks the device's driver for its subgraph patterns (or reads
// declaration files), runs the compiler's stages and writes the result: a
// sealed CGC_OUTPUT container for the full pipeline, MLIR text when it stops
// at an earlier stage (`--emit`) or when asked (`--format=mlir`). Weights
// imported from ONNX are written beside the output (model.cgc ->
// model.safetensors), where `cgc-run model.cgc` looks for them; they stay
// float32 with `--precision`, and the runtime converts them when it loads
// them; they stay OIHW with `--layout=channels-last`, and the runtime binds
// them permuted where the program says so. `--draw` draws the compiled program as SVG (its partitions, or its
// scratch memory plan); given without `-o`, only the pictures are written.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Draw.h"
#include "cgc/Import/ONNX.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"
#include "Runtime/CompileModel.h"
#include "Runtime/DeviceQuery.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace {

enum class Format { Default, Container, MLIR, Bytecode };

cl::OptionCategory category("cgc-compile options");
cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.onnx | model.mlir | model.cgc>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> outputPath("o",
                                cl::desc("Output file ('-': stdout; the default, unless only "
                                         "pictures are asked for with --draw)"),
                                cl::value_desc("file"), cl::init("-"), cl::cat(category));
cl::opt<std::string> weightsPath("weights",
                                 cl::desc("Where to write an ONNX model's weights (default: "
                                          "the output with the extension .safetensors)"),
                                 cl::value_desc("file"), cl::cat(category));
cl::list<std::string> inputShapes("input-shape",
                                  cl::desc("Static shape of an ONNX graph input, NAME=1x3x224x224"),
                                  cl::value_desc("name=dims"), cl::cat(category));
cl::opt<std::string> device("device",
                            cl::desc("Ask this device's driver for its patterns (cpu, cuda, "
                                     "cuda:1); ignored with --declarations"),
                            cl::init("cpu"), cl::cat(category));
cl::list<std::string> declarations(
    "declarations",
    cl::desc("A target and its pattern declaration file, TARGET=PATH (MLIR text); "
             "replaces the device query"),
    cl::value_desc("target=path"), cl::cat(category));
cl::opt<std::string> fallbackTarget(
    "fallback-target",
    cl::desc("With --declarations: the target taking the layers no pattern takes"),
    cl::init("fallback"), cl::cat(category));
cl::opt<std::string> emitStage("emit",
                               cl::desc("Stop after a stage: input, matched, partitioned, "
                                        "planned or output"),
                               cl::init("output"), cl::cat(category));
cl::opt<Format> format("format", cl::desc("Output format"), cl::init(Format::Default),
                       cl::values(clEnumValN(Format::Container, "container",
                                             "a sealed CGC_INPUT/CGC_OUTPUT container"),
                                  clEnumValN(Format::MLIR, "mlir", "MLIR text"),
                                  clEnumValN(Format::Bytecode, "bytecode", "MLIR bytecode")),
                       cl::cat(category));
cl::opt<std::string> precision(
    "precision",
    cl::desc("What a float32 model computes in: float32, float16 or bfloat16 (inputs and "
             "outputs stay float32; the runtime converts float32 weights once, at load)"),
    cl::init("float32"), cl::cat(category));
cl::opt<std::string> layout(
    "layout",
    cl::desc("The layout 2-D convolutions compute in: auto (channels-last when the "
             "device's driver or a --declarations file asks for it with "
             "cgc.preferred_layout; --emit=input asks no device), channels-first or "
             "channels-last (NHWC activations and OHWI weights between transposes; inputs and "
             "outputs stay as they are)"),
    cl::init("auto"), cl::cat(category));
cl::opt<std::string> partitionMode("partition-mode",
                                   cl::desc("per-target (default) or per-subgraph"),
                                   cl::init("per-target"), cl::cat(category));
cl::opt<unsigned> maxLayers("max-layers-per-partition", cl::desc("At most this many layers per partition"),
                            cl::init(0), cl::cat(category));
cl::opt<bool> noReuse("no-memory-reuse", cl::desc("One scratch slot per value (no memory reuse)"),
                      cl::cat(category));
cl::opt<bool> noInPlace("no-in-place", cl::desc("No in-place elementwise subgraphs"),
                        cl::cat(category));
cl::opt<bool> inputsInScratch("inputs-in-scratch",
                              cl::desc("Place inputs no later step needs in scratch"),
                              cl::cat(category));
cl::opt<bool> concurrency("concurrency",
                          cl::desc("Never share scratch bytes between independent "
                                   "invocations (more memory, more concurrency)"),
                          cl::cat(category));
cl::opt<bool> noReorder("no-reorder", cl::desc("Keep the program's invocation order"),
                        cl::cat(category));
cl::opt<bool> noDeduplicate("no-deduplicate",
                            cl::desc("Keep identical subgraphs as separate symbols"),
                            cl::cat(category));
cl::opt<bool> report("report", cl::desc("Print what each stage did to stderr"),
                     cl::cat(category));
cl::list<std::string> drawings(
    "draw",
    cl::desc("Draw the compiled program as SVG, PICTURE=FILE ('-': stdout): 'partitions' (the "
             "partitions and their subgraph invocations, the program's arguments and "
             "constants, dataflow and cgc.depends_on barriers) or 'memory' (the scratch plan: "
             "offset against execution step, with the lower bound); may be repeated; needs the "
             "partitioned stage or later; without -o only the pictures are written"),
    cl::value_desc("picture=file"), cl::cat(category));

int fail(const Twine &message) {
  WithColor::error(errs(), "cgc-compile") << message << "\n";
  return 1;
}

bool endsWith(StringRef path, StringRef suffix) { return path.ends_with_insensitive(suffix); }

/// Reads Input IR from MLIR text, bytecode or a CGC_INPUT container.
mlir::OwningOpRef<cgc::ModuleOp> readInputIR(mlir::MLIRContext &context, SourceMgr &sourceMgr) {
  auto buffer = MemoryBuffer::getFileOrSTDIN(inputPath);
  if (!buffer) {
    fail("cannot read " + inputPath + ": " + buffer.getError().message());
    return nullptr;
  }
  mlir::OwningOpRef<mlir::Operation *> op;
  StringRef bytes = (*buffer)->getBuffer();
  if (cgc::interchange::looksLikeContainer(
          std::span(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()))) {
    cgc::interchange::Interface interface;
    op = cgc::interchange::readContainer((*buffer)->getMemBufferRef(), &context, &interface);
    if (op && interface != cgc::interchange::Interface::Input) {
      fail(inputPath + ": a " + std::string(cgc::interchange::getInterfaceName(interface)) +
           " container is not a model to compile; expected CGC_INPUT");
      return nullptr;
    }
  } else {
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), SMLoc());
    mlir::ParserConfig config(&context);
    op = mlir::parseSourceFile<mlir::Operation *>(sourceMgr, config);
  }
  if (!op)
    return nullptr;
  auto module = dyn_cast<cgc::ModuleOp>(*op);
  if (!module) {
    fail(inputPath + ": the top-level op is '" + op->getName().getStringRef() +
         "', expected cgc.module");
    return nullptr;
  }
  op.release();
  return mlir::OwningOpRef<cgc::ModuleOp>(module);
}

/// One `--draw` request.
struct Drawing {
  cgc::compiler::Picture picture;
  std::string path;
};

/// Parses the `--draw` options for a compilation that stops after `stage`.
Expected<std::vector<Drawing>> parseDrawings(cgc::compiler::Stage stage) {
  std::vector<Drawing> result;
  for (const std::string &spec : drawings) {
    auto [name, path] = StringRef(spec).split('=');
    std::optional<cgc::compiler::Picture> picture = cgc::compiler::parsePicture(name);
    if (!picture || path.empty())
      return createStringError("--draw=" + spec + ": expected partitions=FILE or memory=FILE");
    if (stage == cgc::compiler::Stage::Input || stage == cgc::compiler::Stage::Matched)
      return createStringError("--draw=" + spec + ": the " +
                               cgc::compiler::getStageName(stage).str() +
                               " stage has no program to draw; stop at partitioned or later");
    result.push_back({*picture, path.str()});
  }
  return result;
}

Error writeDrawing(cgc::ModuleOp module, const Drawing &drawing) {
  std::string error;
  auto file = mlir::openOutputFile(drawing.path, &error);
  if (!file)
    return createStringError(error);
  if (failed(cgc::compiler::drawPicture(module, drawing.picture, file->os())))
    return createStringError("cannot draw the " +
                             cgc::compiler::getPictureName(drawing.picture).str() + " picture to " +
                             drawing.path);
  file->keep();
  return Error::success();
}

Error writeOutput(cgc::ModuleOp module, cgc::compiler::Stage stage) {
  Format chosen = format;
  if (chosen == Format::Default)
    chosen = stage == cgc::compiler::Stage::Output || stage == cgc::compiler::Stage::Input
                 ? Format::Container
                 : Format::MLIR;
  if (chosen == Format::Container && stage != cgc::compiler::Stage::Output &&
      stage != cgc::compiler::Stage::Input)
    return createStringError("the " + cgc::compiler::getStageName(stage).str() +
                             " stage is not an interchange interface; use --format=mlir");
  std::string error;
  auto file = mlir::openOutputFile(outputPath, &error);
  if (!file)
    return createStringError(error);
  switch (chosen) {
  case Format::Container:
    if (failed(cgc::interchange::writeContainer(module,
                                                stage == cgc::compiler::Stage::Input
                                                    ? cgc::interchange::Interface::Input
                                                    : cgc::interchange::Interface::Output,
                                                file->os())))
      return createStringError("the result does not validate as a container");
    break;
  case Format::Bytecode:
    if (failed(mlir::writeBytecodeToFile(module, file->os())))
      return createStringError("cannot write bytecode");
    break;
  case Format::MLIR:
  case Format::Default:
    module.print(file->os());
    file->os() << "\n";
    break;
  }
  file->keep();
  return Error::success();
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "Compiles a model to CGC Output IR\n");

  std::optional<cgc::compiler::Stage> stage = cgc::compiler::parseStage(emitStage);
  if (!stage)
    return fail("--emit=" + emitStage +
                ": expected input, matched, partitioned, planned or output");
  cgc::compiler::CompileOptions options;
  options.stopAfter = *stage;
  std::optional<cgc::compiler::Precision> parsedPrecision =
      cgc::compiler::parsePrecision(precision);
  if (!parsedPrecision)
    return fail("--precision=" + precision + ": expected float32, float16 or bfloat16");
  options.precision = *parsedPrecision;
  std::optional<cgc::compiler::Layout> parsedLayout = cgc::compiler::parseLayout(layout);
  if (!parsedLayout)
    return fail("--layout=" + layout + ": expected auto, channels-first or channels-last");
  options.layout = *parsedLayout;
  if (partitionMode == "per-target")
    options.partition.mode = cgc::compiler::PartitionOptions::Mode::PerTarget;
  else if (partitionMode == "per-subgraph")
    options.partition.mode = cgc::compiler::PartitionOptions::Mode::PerSubgraph;
  else
    return fail("--partition-mode=" + partitionMode + ": expected per-target or per-subgraph");
  options.partition.maxLayers = maxLayers;
  options.match.deduplicate = !noDeduplicate;
  options.memory.reuse = !noReuse;
  options.memory.inPlace = !noInPlace;
  options.memory.inputsInScratch = inputsInScratch;
  options.memory.concurrency = concurrency;
  options.schedule.reorder = !noReorder;
  Expected<std::vector<Drawing>> requestedDrawings = parseDrawings(*stage);
  if (!requestedDrawings)
    return fail(toString(requestedDrawings.takeError()));
  // Asked only for pictures: write nothing else.
  bool writeModule = requestedDrawings->empty() || outputPath.getNumOccurrences() != 0;

  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // The model.
  mlir::OwningOpRef<cgc::ModuleOp> module;
  std::optional<cgc::importer::ImportedModel> imported;
  if (endsWith(inputPath, ".onnx")) {
    cgc::importer::ImportOptions importOptions;
    for (const std::string &spec : inputShapes)
      if (Error error = cgc::importer::parseInputShapeOption(spec, importOptions))
        return fail(toString(std::move(error)));
    Expected<cgc::importer::ImportedModel> model =
        cgc::importer::importONNXFile(inputPath, context, importOptions);
    if (!model)
      return fail(toString(model.takeError()));
    imported = std::move(*model);
    module = std::move(imported->module);
  } else {
    if (!inputShapes.empty())
      return fail("--input-shape applies to ONNX models only");
    module = readInputIR(context, sourceMgr);
    if (!module)
      return 1;
  }

  // The targets: declaration files, or the device's driver and its fallback.
  std::vector<cgc::compiler::Target> targets;
  std::unique_ptr<std::remove_pointer_t<CgcDevice>, decltype(&cgcReleaseDevice)> deviceHandle(
      nullptr, &cgcReleaseDevice);
  if (!declarations.empty()) {
    options.match.fallbackTarget = fallbackTarget;
    for (const std::string &spec : declarations) {
      mlir::FailureOr<cgc::compiler::Target> target = cgc::compiler::loadDeclarationFile(
          &context, spec, mlir::UnknownLoc::get(&context));
      if (failed(target))
        return 1;
      targets.push_back(std::move(*target));
    }
  } else if (*stage != cgc::compiler::Stage::Input) {
    cgc::runtime::Result<cgc::runtime::FoundAdapter> adapter = cgc::runtime::findAdapter(device);
    if (!adapter)
      return fail(adapter.error().message);
    CgcDeviceDesc deviceDesc{};
    deviceDesc.version = CGC_API_VERSION;
    CgcDevice rawDevice = nullptr;
    if (CgcStatus status = cgcCreateDevice(adapter->adapter, &deviceDesc, &rawDevice);
        status != CGC_OK)
      return fail(cgc::runtime::apiError("device '" + device + "': creating the device", status)
                      .message);
    deviceHandle.reset(rawDevice);
    cgc::runtime::CompileRequest request;
    request.target = cgc::runtime::makeDeviceTarget(rawDevice, adapter->driverName);
    // The device's fallback target and alignment, with this tool's knobs.
    cgc::compiler::CompileOptions deviceOptions = cgc::runtime::getCompileOptions(request);
    options.match.fallbackTarget = deviceOptions.match.fallbackTarget;
    options.partition.alignment = deviceOptions.partition.alignment;
    options.memory.alignment = deviceOptions.memory.alignment;
    options.memory.targetAlignment = deviceOptions.memory.targetAlignment;
    mlir::FailureOr<cgc::compiler::Target> target = cgc::runtime::makeCompilerTarget(
        request.target, &context, mlir::UnknownLoc::get(&context));
    if (failed(target))
      return 1;
    targets.push_back(std::move(*target));
  }
  SmallVector<const cgc::compiler::Target *> targetPointers;
  for (const cgc::compiler::Target &target : targets)
    targetPointers.push_back(&target);

  cgc::compiler::CompileReport compileReport;
  if (failed(cgc::compiler::compile(*module, targetPointers, options, &compileReport)))
    return fail(inputPath + ": compilation failed");
  if (report)
    cgc::compiler::printReport(compileReport, errs());

  for (const Drawing &drawing : *requestedDrawings)
    if (Error error = writeDrawing(*module, drawing))
      return fail(toString(std::move(error)));
  if (!writeModule)
    return 0;
  if (Error error = writeOutput(*module, *stage))
    return fail(toString(std::move(error)));
  if (imported && !imported->weights.empty()) {
    std::string weights = weightsPath;
    if (weights.empty()) {
      if (outputPath == "-")
        return fail("the model has weights: pass --weights FILE or write to a file with -o");
      weights = cgc::importer::getWeightsPathFor(outputPath);
    }
    if (Error error = imported->writeWeights(weights))
      return fail(toString(std::move(error)));
  }
  return 0;
}
