//===- FusedConvolutionPair.cpp - the convolution pair family ------------===//
//
// Reads a two-result definition as two fused convolutions by splitting it
// into two definitions the convolution family's reading takes: the layers
// that compute the second result (Y), and the rest with Y as an extra
// argument. Each half keeps the definition's argument numbers, so the
// chains' operands need no renumbering. A projection (a convolution whose
// result the first chain adds) becomes a third definition, the first half
// reading its result as an extra argument. The kernel is
// ConvolutionPair.cpp's.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionPair.h"
#include "CudnnGraphKernel.h"
#include "FusedConvolution.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace cgc::cuda {

namespace {

/// `layers` of `definition` cloned into a new definition named like it,
/// in its own subgraph at the end of `module`: the definition's arguments,
/// then `extra` as one more, returning `result`.
FunctionalDefinitionOp cloneHalf(mlir::ModuleOp module, FunctionalDefinitionOp definition,
                                 llvm::ArrayRef<mlir::Operation *> layers, mlir::Value result,
                                 mlir::Value extra, llvm::StringRef subgraphName) {
  mlir::OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  mlir::Location loc = definition.getLoc();
  auto subgraph = SubgraphOp::create(builder, loc, builder.getStringAttr(subgraphName),
                                     builder.getStringAttr("cuda"));
  builder.setInsertionPointToStart(&subgraph.getBody().emplaceBlock());
  mlir::Block &body = definition.getBody().front();
  llvm::SmallVector<mlir::Type> argumentTypes(body.getArgumentTypes());
  if (extra)
    argumentTypes.push_back(extra.getType());
  auto half =
      FunctionalDefinitionOp::create(builder, loc, definition.getSymName(),
                                     builder.getFunctionType(argumentTypes, {result.getType()}));
  half.setPrivate();
  builder.setInsertionPointToStart(&half.getBody().front());
  mlir::IRMapping mapping;
  mapping.map(body.getArguments(), half.getArguments().take_front(body.getNumArguments()));
  if (extra)
    mapping.map(extra, half.getArguments().back());
  for (mlir::Operation *layer : layers)
    builder.clone(*layer, mapping);
  ReturnOp::create(builder, loc, mlir::ValueRange{mapping.lookup(result)});
  return half;
}

/// conv_nhwc_pair_projection's projection among the layers Y depends on:
/// the layers of the convolution whose channels-last result is an add's
/// second operand, the add's first the other convolution's (its operand
/// transposes that only it reads, the convolution, its result's
/// transpose), and that result.
struct Projection {
  llvm::SmallPtrSet<mlir::Operation *, 4> layers;
  mlir::Value result;
};

std::optional<Projection> findProjection(llvm::ArrayRef<mlir::Operation *> layers) {
  llvm::SmallPtrSet<mlir::Operation *, 4> inLayers(layers.begin(), layers.end());
  if (llvm::count_if(layers, [](mlir::Operation *op) {
        return llvm::isa<op::ConvolutionOp>(op);
      }) != 2)
    return std::nullopt;
  // The convolution a channels-last result comes from, through its
  // transpose.
  auto convolutionOf = [&](mlir::Value value) -> op::ConvolutionOp {
    auto transpose = value.getDefiningOp<op::TransposeOp>();
    if (!transpose || !inLayers.contains(transpose))
      return {};
    return transpose.getInput().getDefiningOp<op::ConvolutionOp>();
  };
  for (mlir::Operation *layer : layers) {
    auto add = llvm::dyn_cast<op::AddOp>(layer);
    if (!add)
      continue;
    op::ConvolutionOp main = convolutionOf(add.getLhs()), projected = convolutionOf(add.getRhs());
    if (!main || !projected || main == projected || !add.getRhs().hasOneUse())
      continue;
    Projection projection;
    projection.result = add.getRhs();
    projection.layers.insert(add.getRhs().getDefiningOp());
    projection.layers.insert(projected);
    // Its operands are arguments or transposes of arguments that only it
    // reads (a transpose the other convolution reads too is not the
    // pattern's form).
    for (mlir::Value operand : projected->getOperands()) {
      mlir::Operation *producer = operand.getDefiningOp();
      if (!producer || !inLayers.contains(producer))
        continue;
      auto transpose = llvm::dyn_cast<op::TransposeOp>(producer);
      mlir::Operation *before = transpose ? transpose.getInput().getDefiningOp() : nullptr;
      if (!transpose || !transpose.getOutput().hasOneUse() ||
          (before && inLayers.contains(before)))
        return std::nullopt;
      projection.layers.insert(transpose);
    }
    return projection;
  }
  return std::nullopt;
}

} // namespace

std::optional<llvm::Expected<ConvolutionPairShape>>
analyzeConvolutionPair(FunctionalDefinitionOp definition) {
  if (definition.getBody().empty())
    return std::nullopt;
  mlir::Block &body = definition.getBody().front();
  mlir::Operation *terminator = body.getTerminator();
  if (!terminator || terminator->getNumOperands() != 2)
    return std::nullopt;
  mlir::Value z = terminator->getOperand(0), y = terminator->getOperand(1);
  if (z == y || !y.getDefiningOp() || !z.getDefiningOp())
    return std::nullopt;
  // The layers Y depends on; the second half is every other layer and may
  // read nothing of the first but Y.
  llvm::SetVector<mlir::Operation *> firstLayers;
  llvm::SmallVector<mlir::Operation *> worklist{y.getDefiningOp()};
  while (!worklist.empty()) {
    mlir::Operation *op = worklist.pop_back_val();
    if (op->getBlock() != &body || !firstLayers.insert(op))
      continue;
    for (mlir::Value operand : op->getOperands())
      if (mlir::Operation *producer = operand.getDefiningOp())
        worklist.push_back(producer);
  }
  llvm::SmallVector<mlir::Operation *, 8> first, second;
  for (mlir::Operation &op : body.without_terminator()) {
    if (firstLayers.contains(&op)) {
      first.push_back(&op);
      continue;
    }
    for (mlir::Value operand : op.getOperands())
      if (operand != y && firstLayers.contains(operand.getDefiningOp()))
        return std::nullopt;
    second.push_back(&op);
  }
  if (second.empty())
    return std::nullopt;

  using R = llvm::Expected<ConvolutionPairShape>;
  ConvolutionPairShape shape;
  mlir::OpBuilder builder(definition.getContext());
  shape.halves = mlir::ModuleOp::create(builder, definition.getLoc());
  // With a projection, it is a third definition and the first half reads
  // its result as an extra argument.
  std::optional<Projection> projection = findProjection(first);
  mlir::Value firstExtra;
  if (projection) {
    llvm::SmallVector<mlir::Operation *, 4> projectionLayers;
    llvm::erase_if(first, [&](mlir::Operation *op) {
      if (!projection->layers.contains(op))
        return false;
      projectionLayers.push_back(op);
      return true;
    });
    shape.projectionDefinition = cloneHalf(*shape.halves, definition, projectionLayers,
                                           projection->result, {}, "projection");
    shape.projectionArgument = body.getNumArguments();
    firstExtra = projection->result;
  }
  shape.firstDefinition = cloneHalf(*shape.halves, definition, first, y, firstExtra, "first");
  shape.secondDefinition = cloneHalf(*shape.halves, definition, second, z, y, "second");
  // Each half's errors name the pair's definition (the halves share its
  // name) and the convolution family; say which half.
  auto readHalf = [&](FunctionalDefinitionOp half, const char *which,
                      FusedConvolutionShape &into) -> std::optional<llvm::Error> {
    std::optional<llvm::Expected<FusedConvolutionShape>> analyzed = analyzeFusedConvolution(half);
    if (!analyzed)
      return std::nullopt;
    if (!*analyzed)
      return makeFusedError(definition, kConvolutionPairFamily,
                            llvm::Twine(which) +
                                " convolution: " + llvm::toString(analyzed->takeError()));
    into = std::move(**analyzed);
    return llvm::Error::success();
  };
  if (projection) {
    FusedConvolutionShape projected;
    std::optional<llvm::Error> read =
        readHalf(shape.projectionDefinition, "the projection", projected);
    if (!read)
      return std::nullopt;
    if (*read)
      return R(std::move(*read));
    if (!projected.channelsLast || projected.pool)
      return std::nullopt;
    shape.projection = std::move(projected);
  }
  std::optional<llvm::Error> firstRead = readHalf(shape.firstDefinition, "the first", shape.first);
  if (!firstRead)
    return std::nullopt;
  if (*firstRead)
    return R(std::move(*firstRead));
  std::optional<llvm::Error> secondRead =
      readHalf(shape.secondDefinition, "the second", shape.second);
  if (!secondRead)
    return std::nullopt;
  if (*secondRead)
    return R(std::move(*secondRead));
  // Both in the channels-last form, the second reading Y itself.
  if (!shape.first.channelsLast || !shape.second.channelsLast || shape.first.pool ||
      shape.second.pool || shape.second.input != body.getNumArguments())
    return std::nullopt;
  return R(std::move(shape));
}

namespace {

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<ConvolutionPairShape>> analyzed = analyzeConvolutionPair(definition);
  if (!analyzed)
    return std::nullopt;
  if (!*analyzed)
    return analyzed->takeError();
  if (std::optional<std::string> refusal = getConvolutionPairRefusal(**analyzed))
    return makeFusedError(definition, kConvolutionPairFamily,
                          "the convolution pair kernel does not run this definition: " + *refusal);
  return llvm::Error::success();
}

} // namespace

ConvolutionPairMode getConvolutionPairMode() {
  const char *value = std::getenv("CGC_CUDA_CONVOLUTION_PAIR");
  std::string_view mode = value ? value : "";
  if (mode == "0")
    return ConvolutionPairMode::Off;
  if (mode == "kernel")
    return ConvolutionPairMode::Kernel;
  return ConvolutionPairMode::Timed;
}

namespace {

/// The two halves run apart, one after the other, as one kernel of the
/// pair's definition: the first writes Y (the definition's second result),
/// the second reads it after the definition's `arguments` arguments.
Kernel runApart(Kernel first, Kernel second, size_t arguments) {
  uint64_t workspaceSize = std::max(first.workspaceSize, second.workspaceSize);
  auto launch = [first = std::move(first), second = std::move(second),
                 arguments](const LaunchArgs &args) -> std::string {
    void *const firstOutputs[] = {args.outputs[1]};
    std::string message =
        first.launch(LaunchArgs{args.inputs, firstOutputs, args.workspace, args.stream});
    if (!message.empty())
      return message;
    llvm::SmallVector<const void *, 12> secondInputs(args.inputs.begin(),
                                                     args.inputs.begin() + arguments);
    secondInputs.push_back(args.outputs[1]);
    void *const secondOutputs[] = {args.outputs[0]};
    return second.launch(LaunchArgs{secondInputs, secondOutputs, args.workspace, args.stream});
  };
  return Kernel{std::move(launch), workspaceSize};
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  std::optional<llvm::Expected<ConvolutionPairShape>> analyzed = analyzeConvolutionPair(definition);
  if (!analyzed)
    return std::nullopt;
  if (!*analyzed)
    return llvm::Expected<Kernel>(analyzed->takeError());
  const ConvolutionPairShape &shape = **analyzed;
  llvm::Expected<Kernel> pair = buildConvolutionPair(definition, shape, context);
  // A projection's result has no buffer to run the convolutions apart in:
  // the kernel alone.
  if (!pair || !context.hasDevice() || getConvolutionPairMode() == ConvolutionPairMode::Kernel ||
      shape.projection)
    return pair;
  // The pair kernel saves reading Y back, but its two products are slower
  // than the libraries' where the channels are many: each half as the
  // convolution family runs it, one after the other, is timed against it
  // once on this device and the faster kept (as TensorRT picks tactics).
  // Halves that cannot be built leave the pair kernel.
  auto first = buildFusedConvolution(shape.firstDefinition, context);
  auto second = first ? buildFusedConvolution(shape.secondDefinition, context)
                      : llvm::Expected<FusedConvolutionKernel>(first.takeError());
  if (!second) {
    std::string refusal = llvm::toString(second.takeError());
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName()
                   << ": the convolutions apart: " << refusal << "\n";
    return pair;
  }
  Kernel apart = runApart(std::move(first->kernel), std::move(second->kernel),
                          definition.getBody().front().getNumArguments());
  const Kernel *kernels[] = {&*pair, &apart};
  std::vector<std::optional<float>> times = timeLaunches(definition, kernels);
  if (isVerbose())
    llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": convolution pair kernel "
                 << formatTime(times[0]) << " ms, the convolutions apart ("
                 << getFusedConvolutionPathName(first->path) << ", "
                 << getFusedConvolutionPathName(second->path) << ") " << formatTime(times[1])
                 << " ms\n";
  if (times[1] && (!times[0] || *times[1] < *times[0]))
    return llvm::Expected<Kernel>(std::move(apart));
  return pair;
}

} // namespace

const FusedFamily kFusedConvolutionPair = {kConvolutionPairFamily, check, build};

} // namespace cgc::cuda
