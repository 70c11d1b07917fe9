//===- FusedNormalization.cpp - layer_norm and softmax with their neighbours ===//
//
// A definition of one layer_norm or softmax and elementwise layers runs as
// one generated kernel: the layers its input depends on (the prologue: a
// residual add, softmax's scaling and mask) are evaluated per element where
// the normalization reads its input, the others (the epilogue) per element
// where it writes, each in registers (ChainCodegen.h), with definition
// arguments read through broadcast strides of the normalized tensor's shape.
//
// Rows along the innermost dimensions (layer_norm's normalized dimensions,
// softmax over the last axis) of at most kMaxRegisterRowSize elements, whose
// arguments each vary along the row or hold one value per row, run as the
// layer kernels' register rows (RowKernelCodegen.h): the prologue is
// evaluated as the row is read into registers, the epilogue as the results
// are written. Other rows take one block each: a first pass computes the
// prologue, keeping the row in shared memory when it fits, and the
// statistics accumulate in float (double for float64) over the block, two
// passes for layer_norm's mean and centered variance. softmax over another
// axis takes one thread per line, as the layer kernel does, recomputing the
// prologue in each pass. Every result has the normalized tensor's shape and
// is written densely.
//
//===----------------------------------------------------------------------===//

#include "ChainCodegen.h"
#include "DeviceCode.h"
#include "FusedSupport.h"
#include "RowKernelCodegen.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cgc::cuda {

using namespace cgc::op;

namespace {

constexpr const char *kFamily = "normalization";

/// Rows at most this many bytes (in the compute type) stay in shared memory
/// between passes.
constexpr int64_t kRowCacheBytes = 32 * 1024;

/// A definition of this family's shape, read.
struct Parts {
  /// The softmax or layer_norm.
  mlir::Operation *normalization = nullptr;
  /// The elementwise layers its input depends on, and the others, in
  /// program order.
  llvm::SmallVector<mlir::Operation *, 8> prologue, epilogue;
};

/// The parts of `definition`, or std::nullopt when it is not this family's
/// shape: one softmax or layer_norm, every other layer elementwise.
std::optional<Parts> getParts(FunctionalDefinitionOp definition) {
  Parts parts;
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  for (mlir::Operation *layer : layers) {
    if (llvm::isa<SoftmaxOp, LayerNormOp>(layer)) {
      if (parts.normalization)
        return std::nullopt;
      parts.normalization = layer;
    } else if (!isElementwiseOp(layer)) {
      return std::nullopt;
    }
  }
  if (!parts.normalization)
    return std::nullopt;
  // Walk back from the normalized input: a layer belongs to the prologue
  // when something the input depends on uses its result.
  llvm::DenseSet<mlir::Value> needed = {parts.normalization->getOperand(0)};
  llvm::DenseSet<mlir::Operation *> prologue;
  for (mlir::Operation *layer : llvm::reverse(layers)) {
    if (layer == parts.normalization || !needed.contains(layer->getResult(0)))
      continue;
    prologue.insert(layer);
    needed.insert(layer->operand_begin(), layer->operand_end());
  }
  for (mlir::Operation *layer : layers)
    if (layer != parts.normalization)
      (prologue.contains(layer) ? parts.prologue : parts.epilogue).push_back(layer);
  return parts;
}

/// A kernel for one definition, ready to compile.
struct KernelPlan {
  std::string source;
  std::string name;
  /// Parameters, laid out as cgc_params (64-bit fields).
  std::vector<int64_t> params;
  /// One block per row (`rows` of them, `threads` threads each), or one
  /// thread per line (`rows` lines, blocks of 256).
  bool blockPerRow = true;
  int64_t rows = 0;
  unsigned threads = 256;
  size_t sharedBytes = 0;
  size_t inputCount = 0, outputCount = 0;
  /// Nothing to compute (an empty tensor).
  bool empty = false;
  /// The register row kernel to build instead of `source`, when the rows
  /// fit it.
  std::optional<RowKernelSpec> registerRows;
};

/// Shorthand for this family's errors.
llvm::Error fail(FunctionalDefinitionOp definition, const llvm::Twine &message) {
  return makeFusedError(definition, kFamily, message);
}

/// The plan of the definition's kernel, or the reason there is none.
llvm::Expected<KernelPlan> planKernel(FunctionalDefinitionOp definition, const Parts &parts) {
  mlir::Operation *normalization = parts.normalization;
  auto input = getTensorInfo(normalization, normalization->getOperand(0));
  if (!input)
    return fail(definition, llvm::toString(input.takeError()));
  DType dtype = input->dtype;
  if (!isFloatDType(dtype))
    return fail(definition, llvm::toString(unimplementedElementType(normalization, dtype)));
  const Shape &shape = input->shape;
  auto layerNorm = llvm::dyn_cast<LayerNormOp>(normalization);

  // Arguments are read through broadcast strides of the normalized shape;
  // every value computed must broadcast to it.
  llvm::SmallVector<mlir::Value, 16> values(definition.getArguments().begin(),
                                            definition.getArguments().end());
  for (mlir::Operation *layer : llvm::concat<mlir::Operation *const>(parts.prologue,
                                                                     parts.epilogue))
    values.push_back(layer->getResult(0));
  if (llvm::Error error = checkBroadcastsTo(values, shape))
    return fail(definition, llvm::toString(std::move(error)));
  llvm::DenseSet<mlir::Operation *> prologue(parts.prologue.begin(), parts.prologue.end());
  auto isPrologueValue = [&](mlir::Value value) {
    mlir::Operation *producer = value.getDefiningOp();
    return producer && prologue.contains(producer);
  };
  auto argumentNumber = [](mlir::Value value) -> std::optional<unsigned> {
    if (auto argument = llvm::dyn_cast<mlir::BlockArgument>(value))
      return argument.getArgNumber();
    return std::nullopt;
  };
  if (layerNorm) {
    for (mlir::Value parameter : llvm::drop_begin(normalization->getOperands())) {
      if (!argumentNumber(parameter))
        return fail(definition, "a layer_norm scale or bias computed inside the definition is "
                                "not implemented on the CUDA driver");
      auto info = getTensorInfo(normalization, parameter);
      if (!info)
        return fail(definition, llvm::toString(info.takeError()));
      if (info->dtype != dtype)
        return fail(definition,
                    llvm::toString(unimplementedElementType(normalization, info->dtype)));
    }
  }
  for (mlir::Operation *layer : parts.epilogue)
    for (mlir::Value operand : layer->getOperands())
      if (isPrologueValue(operand))
        return fail(definition, layer->getName().getStringRef() +
                                    " after the normalization uses a value computed before it, "
                                    "which is not implemented on the CUDA driver");
  mlir::Operation *terminator = definition.getBody().front().getTerminator();
  if (terminator->getNumOperands() == 0)
    return fail(definition, "a definition without results");
  for (auto [index, returned] : llvm::enumerate(terminator->getOperands())) {
    auto type = llvm::cast<TensorType>(returned.getType());
    if (argumentNumber(returned) || isPrologueValue(returned))
      return fail(definition, "result " + llvm::Twine(index) +
                                  " is not computed from the normalization's result, which is "
                                  "not implemented on the CUDA driver");
    if (type.getShape() != llvm::ArrayRef<int64_t>(shape))
      return fail(definition, "result " + llvm::Twine(index) + " of shape " +
                                  formatShape(type.getShape()) +
                                  " differs from the normalized shape " + formatShape(shape) +
                                  ", which is not implemented on the CUDA driver");
  }

  // The rows.
  int64_t rank = input->getRank();
  int64_t rows, size, inner = 1, axis;
  if (layerNorm) {
    axis = normalizeAxis(static_cast<int64_t>(layerNorm.getAxis()), rank);
    rows = getNumElements(llvm::ArrayRef(shape).take_front(axis));
    size = getNumElements(llvm::ArrayRef(shape).drop_front(axis));
  } else {
    axis =
        normalizeAxis(static_cast<int64_t>(llvm::cast<SoftmaxOp>(normalization).getAxis()), rank);
    size = shape[axis];
    inner = getNumElements(llvm::ArrayRef(shape).drop_front(axis + 1));
    rows = getNumElements(llvm::ArrayRef(shape).take_front(axis)) * inner;
  }
  KernelPlan plan;
  plan.inputCount = definition.getNumArguments();
  plan.outputCount = terminator->getNumOperands();
  plan.rows = rows;
  plan.empty = rows * size == 0;
  plan.blockPerRow = inner == 1;

  // What each phase reads.
  StridedReads inputReads("in", shape), outputReads("out", shape);
  auto read = [&](StridedReads &reads, mlir::Value value) -> llvm::Error {
    std::optional<unsigned> argument = argumentNumber(value);
    if (!argument)
      return llvm::Error::success();
    auto info = getTensorInfo(definition, value);
    if (!info)
      return info.takeError();
    reads.add(*argument, info->dtype, info->shape);
    return llvm::Error::success();
  };
  llvm::SmallVector<std::pair<StridedReads *, mlir::Value>, 16> wanted = {
      {&inputReads, normalization->getOperand(0)}};
  for (mlir::Operation *layer : parts.prologue)
    for (mlir::Value operand : layer->getOperands())
      wanted.push_back({&inputReads, operand});
  for (mlir::Value parameter : llvm::drop_begin(normalization->getOperands()))
    wanted.push_back({&outputReads, parameter});
  for (mlir::Operation *layer : parts.epilogue)
    for (mlir::Value operand : layer->getOperands())
      wanted.push_back({&outputReads, operand});
  for (auto [reads, value] : wanted)
    if (llvm::Error error = read(*reads, value))
      return fail(definition, llvm::toString(std::move(error)));

  // The statements of both phases.
  std::string c = getComputeType(dtype);
  bool blockPerRow = plan.blockPerRow;
  int64_t computeBytes = dtype == DType::F64 ? 8 : 4;
  bool cached = blockPerRow && size * computeBytes <= kRowCacheBytes;
  ChainStatements prologueCode("v", "  ");
  for (mlir::BlockArgument argument : definition.getArguments())
    prologueCode.bind(argument, "x" + std::to_string(argument.getArgNumber()));
  for (mlir::Operation *layer : parts.prologue)
    if (llvm::Error error = prologueCode.append(layer))
      return fail(definition, llvm::toString(std::move(error)));
  std::string indent = "      ";
  ChainStatements epilogueCode("w", indent);
  for (mlir::BlockArgument argument : definition.getArguments())
    epilogueCode.bind(argument, "x" + std::to_string(argument.getArgNumber()));
  epilogueCode.bind(normalization->getResult(0), "cgc_y");
  for (mlir::Operation *layer : parts.epilogue)
    if (llvm::Error error = epilogueCode.append(layer))
      return fail(definition, llvm::toString(std::move(error)));

  llvm::SmallVector<DType, 8> argumentTypes;
  for (mlir::BlockArgument argument : definition.getArguments()) {
    auto info = getTensorInfo(definition, argument);
    if (!info)
      return fail(definition, llvm::toString(info.takeError()));
    argumentTypes.push_back(info->dtype);
  }
  llvm::SmallVector<DType, 2> outputTypes;
  for (mlir::Value returned : terminator->getOperands()) {
    auto info = getTensorInfo(definition, returned);
    if (!info)
      return fail(definition, llvm::toString(info.takeError()));
    outputTypes.push_back(info->dtype);
  }

  // Short rows whose arguments each vary along the row or hold one value
  // per row stay in registers.
  if (blockPerRow && size <= kMaxRegisterRowSize) {
    RowKernelSpec spec;
    spec.normalization = layerNorm ? RowKernelSpec::Normalization::LayerNorm
                                   : RowKernelSpec::Normalization::Softmax;
    spec.dtype = dtype;
    spec.rows = rows;
    spec.size = size;
    spec.epsilon = layerNorm ? layerNorm.getEpsilon().convertToDouble() : 0.0;
    spec.argumentTypes = argumentTypes;
    spec.resultTypes.assign(outputTypes.begin(), outputTypes.end());
    bool fits = true;
    for (auto [reads, value] : wanted) {
      std::optional<unsigned> argument = argumentNumber(value);
      if (!argument)
        continue;
      auto &phase = reads == &inputReads ? spec.inputReads : spec.outputReads;
      if (llvm::any_of(phase, [&](const RowRead &read) { return read.argument == *argument; }))
        continue;
      auto info = getTensorInfo(definition, value);
      if (!info)
        return fail(definition, llvm::toString(info.takeError()));
      std::optional<RowRead> read = getRowRead(*argument, info->dtype, info->shape, shape, axis);
      if (!read) {
        fits = false;
        break;
      }
      phase.push_back(*read);
    }
    if (fits) {
      spec.inputStatements = prologueCode.getText();
      spec.input = prologueCode.lookup(normalization->getOperand(0)).str();
      if (layerNorm) {
        spec.scale = "x" + std::to_string(*argumentNumber(layerNorm.getScale()));
        if (layerNorm.getBias())
          spec.bias = "x" + std::to_string(*argumentNumber(layerNorm.getBias()));
      }
      spec.outputStatements = epilogueCode.getText();
      spec.results.clear();
      for (mlir::Value returned : terminator->getOperands())
        spec.results.push_back(epilogueCode.lookup(returned).str());
      plan.registerRows = std::move(spec);
      return plan;
    }
  }

  // The source.
  bool narrow = inputReads.fitsInt32() && outputReads.fitsInt32();
  // Every argument is a pointer parameter of the kernel and of the
  // prologue's function (`pointers` ends with ", ").
  std::string pointers, pointerNames;
  for (auto [index, argumentType] : llvm::enumerate(argumentTypes)) {
    std::string name = "in" + std::to_string(index);
    pointers += "const " + getStorageType(argumentType) + " *" + name + ", ";
    pointerNames += ", " + name;
  }
  plan.name = layerNorm ? "cgc_fused_layer_norm" : "cgc_fused_softmax";
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(narrow);
  os << "struct cgc_params {\n  long long rows, size, inner, epsilon;\n"
     << inputReads.getFields() << outputReads.getFields() << "};\n";
  std::string prologueParameters = pointers.substr(0, pointers.size() - 2);
  os << "CGC_DEVICE " << c << " cgc_prologue(cgc_index i, const cgc_params &p"
     << (prologueParameters.empty() ? "" : ", ") << prologueParameters << ") {\n"
     << inputReads.getLoads("i", "  ") << prologueCode.getText() << "  return (" << c << ")"
     << prologueCode.lookup(normalization->getOperand(0)) << ";\n}\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256) " << plan.name << "(" << pointers;
  for (auto [index, outputType] : llvm::enumerate(outputTypes))
    os << getStorageType(outputType) << " *out" << index << ", ";
  os << "cgc_params p) {\n";
  std::string prologueCall = "cgc_prologue(%s, p" + pointerNames + ")";
  auto callPrologue = [&](const std::string &index) {
    std::string call = prologueCall;
    call.replace(call.find("%s"), 2, index);
    return call;
  };
  std::string exp = mathFunction("exp", dtype);
  std::string negativeInfinity = floatLiteral(-INFINITY, c);
  std::string zero = "(" + c + ")0";
  // The final pass's body at element `i`, given `cgc_y`'s definition.
  auto writeOutputs = [&](const std::string &normalized) {
    os << outputReads.getLoads("i", indent);
    os << indent << "const " << c << " cgc_y = " << normalized << ";\n";
    os << epilogueCode.getText();
    for (auto [index, returned] : llvm::enumerate(terminator->getOperands()))
      os << indent << "out" << index << "[i] = "
         << storeValue(outputTypes[index], epilogueCode.lookup(returned).str()) << ";\n";
  };
  if (blockPerRow) {
    if (cached)
      os << "  extern __shared__ " << c << " cgc_row[];\n";
    os << "  for (cgc_index row = blockIdx.x; row < (cgc_index)p.rows; row += gridDim.x) {\n"
       << "    const cgc_index base = row * (cgc_index)p.size;\n";
    std::string loop = "    for (cgc_index j = threadIdx.x; j < (cgc_index)p.size; j += "
                       "blockDim.x) {\n";
    std::string rowValue = cached ? "cgc_row[j]" : callPrologue("base + j");
    if (layerNorm) {
      os << "    " << c << " sum = " << zero << ";\n"
         << loop << "      const " << c << " cgc_x = " << callPrologue("base + j") << ";\n"
         << (cached ? "      cgc_row[j] = cgc_x;\n" : "") << "      sum += cgc_x;\n    }\n"
         << "    sum = cgc_block_reduce(sum, cgc_sum_op(), " << zero << ");\n"
         << "    const " << c << " mean = sum / (" << c << ")p.size;\n"
         << "    " << c << " squares = " << zero << ";\n"
         << loop << "      const " << c << " centered = " << rowValue << " - mean;\n"
         << "      squares += centered * centered;\n    }\n"
         << "    squares = cgc_block_reduce(squares, cgc_sum_op(), " << zero << ");\n"
         << "    const " << c << " factor = (" << c << ")1 / " << mathFunction("sqrt", dtype)
         << "(squares / (" << c << ")p.size + (" << c << ")__longlong_as_double(p.epsilon));\n"
         << loop << "      const cgc_index i = base + j;\n"
         << "      const " << c << " cgc_x = " << rowValue << ";\n";
      std::string scale = "x" + std::to_string(*argumentNumber(layerNorm.getScale()));
      std::string normalized = "(cgc_x - mean) * factor * " + scale;
      if (layerNorm.getBias())
        normalized += " + x" + std::to_string(*argumentNumber(layerNorm.getBias()));
      writeOutputs(normalized);
      os << "    }\n";
    } else {
      os << "    " << c << " maximum = " << negativeInfinity << ";\n"
         << loop << "      const " << c << " cgc_x = " << callPrologue("base + j") << ";\n"
         << (cached ? "      cgc_row[j] = cgc_x;\n" : "")
         << "      maximum = cgc_std_max(maximum, cgc_x);\n    }\n"
         << "    maximum = cgc_block_reduce(maximum, cgc_std_max_op(), " << negativeInfinity
         << ");\n"
         << "    " << c << " sum = " << zero << ";\n"
         << loop << "      const " << c << " cgc_e = " << exp << "(" << rowValue
         << " - maximum);\n"
         << (cached ? "      cgc_row[j] = cgc_e;\n" : "") << "      sum += cgc_e;\n    }\n"
         << "    sum = cgc_block_reduce(sum, cgc_sum_op(), " << zero << ");\n"
         << loop << "      const cgc_index i = base + j;\n"
         << "      const " << c << " cgc_e = "
         << (cached ? std::string("cgc_row[j]")
                    : exp + "(" + callPrologue("i") + " - maximum)")
         << ";\n";
      writeOutputs("cgc_e / sum");
      os << "    }\n";
    }
    os << "  }\n}\n";
  } else {
    // softmax along an outer axis: line `line` is (outer index, inner
    // index); its elements are p.inner apart.
    os << "  const cgc_index step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;\n"
       << "  for (cgc_index line = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + threadIdx.x;\n"
       << "       line < (cgc_index)p.rows; line += step) {\n"
       << "    const cgc_index inner = (cgc_index)p.inner;\n"
       << "    const cgc_index base = line / inner * (cgc_index)p.size * inner + line % inner;\n"
       << "    " << c << " maximum = " << negativeInfinity << ";\n"
       << "    for (cgc_index a = 0; a < (cgc_index)p.size; ++a)\n"
       << "      maximum = cgc_std_max(maximum, " << callPrologue("base + a * inner") << ");\n"
       << "    " << c << " sum = " << zero << ";\n"
       << "    for (cgc_index a = 0; a < (cgc_index)p.size; ++a)\n"
       << "      sum += " << exp << "(" << callPrologue("base + a * inner") << " - maximum);\n"
       << "    for (cgc_index a = 0; a < (cgc_index)p.size; ++a) {\n"
       << "      const cgc_index i = base + a * inner;\n"
       << "      const " << c << " cgc_e = " << exp << "(" << callPrologue("i")
       << " - maximum);\n";
    writeOutputs("cgc_e / sum");
    os << "    }\n  }\n}\n";
  }
  plan.source = std::move(source);

  double epsilon = layerNorm ? layerNorm.getEpsilon().convertToDouble() : 0.0;
  plan.params = {rows, size, inner, 0};
  std::memcpy(&plan.params[3], &epsilon, sizeof(epsilon));
  inputReads.appendParams(plan.params);
  outputReads.appendParams(plan.params);
  if (blockPerRow) {
    // About four elements per thread, whole warps, at most 256 threads.
    int64_t wantedThreads = (size + 3) / 4;
    plan.threads =
        static_cast<unsigned>(std::clamp<int64_t>((wantedThreads + 31) / 32 * 32, 32, 256));
    plan.sharedBytes = cached ? static_cast<size_t>(size * computeBytes) : 0;
  }
  return plan;
}

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  std::optional<Parts> parts = getParts(definition);
  if (!parts)
    return std::nullopt;
  llvm::Expected<KernelPlan> plan = planKernel(definition, *parts);
  if (!plan)
    return plan.takeError();
  return llvm::Error::success();
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  std::optional<Parts> parts = getParts(definition);
  if (!parts)
    return std::nullopt;
  llvm::Expected<KernelPlan> plan = planKernel(definition, *parts);
  if (!plan)
    return llvm::Expected<Kernel>(plan.takeError());
  if (plan->empty)
    return llvm::Expected<Kernel>(Kernel{[](const LaunchArgs &) { return std::string(); }, 0});
  std::string name = ("@" + definition.getSymName() + " (fused " + kFamily + ")").str();
  if (plan->registerRows) {
    llvm::Expected<Kernel> kernel = buildRowKernel(definition, context, *plan->registerRows, name);
    if (!kernel)
      return llvm::Expected<Kernel>(fail(definition, llvm::toString(kernel.takeError())));
    return kernel;
  }
  llvm::Expected<DeviceFunction> function =
      context.getFunction(definition, plan->source, plan->name);
  if (!function)
    return llvm::Expected<Kernel>(fail(definition, llvm::toString(function.takeError())));
  unsigned blocks, threads;
  if (plan->blockPerRow) {
    blocks = static_cast<unsigned>(std::clamp<int64_t>(plan->rows, 1, int64_t(1) << 30));
    threads = plan->threads;
  } else {
    blocks = context.getGridSize(plan->rows, 256);
    threads = 256;
  }
  auto launch = [function = std::move(*function), params = std::move(plan->params), blocks,
                 threads, sharedBytes = plan->sharedBytes, inputCount = plan->inputCount,
                 outputCount = plan->outputCount, name](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<const void *, 8> inputs(args.inputs.begin(),
                                              args.inputs.begin() + inputCount);
    llvm::SmallVector<void *, 4> outputs(args.outputs.begin(), args.outputs.begin() + outputCount);
    llvm::SmallVector<void *, 16> arguments;
    for (const void *&pointer : inputs)
      arguments.push_back(&pointer);
    for (void *&pointer : outputs)
      arguments.push_back(&pointer);
    arguments.push_back(const_cast<int64_t *>(params.data()));
    cudaError_t error =
        function.launch(dim3(blocks), dim3(threads), arguments.data(), sharedBytes, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(name, "cudaLaunchKernel", error);
  };
  return llvm::Expected<Kernel>(Kernel{std::move(launch), 0});
}

} // namespace

const FusedFamily kFusedNormalization = {kFamily, check, build};

} // namespace cgc::cuda
