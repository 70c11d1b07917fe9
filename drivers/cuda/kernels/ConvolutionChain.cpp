//===- ConvolutionChain.cpp - a convolution and its chain, read -----------===//
//
// Recognition follows the patterns (patterns/convolution.mlir). In
// conv_bias_activation's form the definition's first layer is a convolution
// of definition arguments; in conv_nhwc_bias_activation's (the compiler's
// channels-last form) transposes of two arguments, NHWC to NCHW and OHWI to
// OIHW, feed the convolution and one transpose, NCHW to NHWC, takes its
// result. Then each layer is elementwise, takes the previous value (whose
// only user it is) and at most one other definition argument that
// broadcasts to the chain's value; the definition returns the last value.
// In conv_nhwc_bias_activation_max_pool's form the chain's value is then
// transposed to NCHW for a max_pool alone, whose result a transpose to NHWC
// takes, and the definition returns that.
// Any other shape belongs to another family (std::nullopt); a chain layer
// the kernels lack, transposes other than the channels-last form's, or a
// convolution the CUDA driver cannot run, is an error.
//
// The epilogue's statements compute in float32 whatever the storage type:
// every layer runs as a lambda of `x0` (and `x1`) around its layer kernel's
// expression, called on the running value `v`. The epilogue kernel runs
// them over the output in place, after cuDNN's convolution or cuBLASLt's
// product has stored its result there; a product whose cuBLASLt epilogue
// already applied the bias and the first chain layers starts after them
// (EpilogueStart).
//
//===----------------------------------------------------------------------===//

#include "ConvolutionChain.h"

#include "ElementwiseCodegen.h"

#include "cgc/Dialect/CGCOp/IR/Broadcast.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

namespace cgc::cuda {

namespace {
/// The permutations of the channels-last form.
constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};
constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};
} // namespace

//===----------------------------------------------------------------------===//
// Recognition
//===----------------------------------------------------------------------===//

/// The step of chain layer `op`, or std::nullopt when the kernel lacks it.
static std::optional<ChainStep> getStep(mlir::Operation *op) {
  ChainStep step;
  step.op = op;
  auto is = [&](StepKind kind, double alpha = 0.0, double beta = 0.0) {
    step.kind = kind;
    step.alpha = alpha;
    step.beta = beta;
    return std::optional<ChainStep>(step);
  };
  using R = std::optional<ChainStep>;
  return llvm::TypeSwitch<mlir::Operation *, R>(op)
      .Case([&](op::AddOp) { return is(StepKind::Add); })
      .Case([&](op::MulOp) { return is(StepKind::Mul); })
      .Case([&](op::ReluOp) { return is(StepKind::Relu); })
      .Case([&](op::LeakyReluOp leaky) {
        return is(StepKind::LeakyRelu, leaky.getAlpha().convertToDouble());
      })
      .Case([&](op::ClipOp clip) {
        return is(StepKind::Clip, clip.getMin() ? clip.getMin()->convertToDouble() : -INFINITY,
                  clip.getMax() ? clip.getMax()->convertToDouble() : INFINITY);
      })
      .Case([&](op::SigmoidOp) { return is(StepKind::Sigmoid); })
      .Case([&](op::TanhOp) { return is(StepKind::Tanh); })
      .Case([&](op::GeluOp gelu) -> R {
        if (gelu.getApproximate() == "none")
          return is(StepKind::Gelu);
        if (gelu.getApproximate() == "tanh")
          return is(StepKind::GeluTanh);
        return std::nullopt;
      })
      .Case([&](op::HardSigmoidOp hard) {
        return is(StepKind::HardSigmoid, hard.getAlpha().convertToDouble(),
                  hard.getBeta().convertToDouble());
      })
      .Case([&](op::HardSwishOp) { return is(StepKind::HardSwish); })
      .Default([](mlir::Operation *) -> R { return std::nullopt; });
}

llvm::Error inFusedConvolution(FunctionalDefinitionOp definition, llvm::Error error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "@" + definition.getSymName() + ": fused " + kConvolutionFamily +
                                     ": " + llvm::toString(std::move(error)));
}

ConvolutionWgmmaMode getConvolutionWgmmaMode() {
  const char *value = std::getenv("CGC_CUDA_CONVOLUTION_WGMMA");
  std::string_view mode = value ? value : "";
  if (mode == "0")
    return ConvolutionWgmmaMode::Off;
  if (mode == "1")
    return ConvolutionWgmmaMode::On;
  return ConvolutionWgmmaMode::Default;
}

std::optional<std::string> getTensorCoreConvolutionRefusal(const FusedConvolutionShape &shape) {
  if (!shape.channelsLast)
    return std::string("the convolution is channels-first");
  if (shape.plan.input.shape.size() != 4 || shape.plan.output.shape.size() != 4)
    return std::string("the convolution is not 2-D");
  if (shape.plan.geometry.groups != 1)
    return "it has " + std::to_string(shape.plan.geometry.groups) + " groups";
  DType dtype = shape.plan.output.dtype;
  if (dtype != DType::F16 && dtype != DType::BF16)
    return std::string("element type ") + getDTypeName(dtype) +
           " (tensor cores take float16 and bfloat16)";
  return std::nullopt;
}

std::optional<llvm::Error> allowSharedMemory(FunctionalDefinitionOp definition,
                                             KernelContext::Impl &context,
                                             const DeviceFunction &function, size_t bytes,
                                             llvm::StringRef kernel) {
  if (!context.hasDevice())
    return std::nullopt;
  cudaError_t status = cudaFuncSetAttribute(reinterpret_cast<const void *>(function.kernel),
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes));
  if (status == cudaSuccess)
    return std::nullopt;
  cudaGetLastError();
  return makeFusedError(definition, kConvolutionFamily,
                        (kernel + " cannot have " + llvm::Twine(bytes) +
                         " bytes of shared memory: cudaFuncSetAttribute: " +
                         cudaGetErrorString(status))
                            .str());
}

llvm::SmallVector<const void *, 8> getConvolutionPointers(const LaunchArgs &args, unsigned input,
                                                          unsigned weight,
                                                          llvm::ArrayRef<unsigned> operands) {
  llvm::SmallVector<const void *, 8> pointers{args.inputs[input], args.inputs[weight]};
  for (unsigned argument : operands)
    pointers.push_back(args.inputs[argument]);
  return pointers;
}

/// Whether `value` is used, and only by `user` (possibly at several
/// operands).
static bool isUsedOnlyBy(mlir::Value value, mlir::Operation *user) {
  return !value.use_empty() &&
         llvm::all_of(value.getUsers(), [&](mlir::Operation *op) { return op == user; });
}

/// The transposes of the channels-last form around a convolution, each
/// null when the definition lacks it.
struct ChannelsLastTransposes {
  op::TransposeOp input, weight, output;
};

/// A transpose of the channels-last form, the permutation it must have, and
/// what it means (for messages).
struct WantedTranspose {
  op::TransposeOp transpose;
  const char *what;
  llvm::ArrayRef<int64_t> permutation;
  const char *meaning;
};

/// What keeps a transpose of `wanted` (all present) from having its
/// permutation.
static std::optional<std::string> checkPermutations(llvm::ArrayRef<WantedTranspose> wanted) {
  for (const WantedTranspose &one : wanted) {
    llvm::SmallVector<int64_t, 6> permutation = getTransposePermutation(one.transpose);
    if (llvm::ArrayRef<int64_t>(permutation) != one.permutation)
      return std::string("channels-last form: ") + one.what + "'s transpose with permutation " +
             formatIndexList(permutation) + " is not implemented on the CUDA driver (only " +
             formatIndexList(one.permutation) + ", " + one.meaning + ")";
  }
  return std::nullopt;
}

/// What keeps `transposes` (around `conv`, at least one of them present)
/// from being the channels-last form the kernel implements: all three
/// transposes, with exactly the permutations NHWC → NCHW (input), OHWI →
/// OIHW (weight) and NCHW → NHWC (result), around a 2-D convolution.
static std::optional<std::string> checkChannelsLast(op::ConvolutionOp conv,
                                                    const ChannelsLastTransposes &transposes) {
  const std::string prefix = "channels-last form: ";
  int64_t rank = llvm::cast<TensorType>(conv.getInput().getType()).getRank();
  if (rank != 4)
    return prefix + "a convolution of rank " + std::to_string(rank) +
           " is not implemented on the CUDA driver (only 2-D convolutions, rank 4)";
  const WantedTranspose wanted[] = {
      {transposes.input, "the input", kNhwcToNchw, "NHWC to NCHW"},
      {transposes.weight, "the weight", kNhwcToNchw, "OHWI to OIHW"},
      {transposes.output, "the result", kNchwToNhwc, "NCHW to NHWC"},
  };
  for (const WantedTranspose &one : wanted)
    if (!one.transpose)
      return prefix + one.what + " is not transposed (" + one.meaning +
             "): the CUDA driver implements the form that transposes the input, the weight "
             "and the result";
  return checkPermutations(wanted);
}

/// Reads the max pool after the chain into `shape.pool`, or says what keeps
/// it from conv_nhwc_bias_activation_max_pool's form: its transposes'
/// permutations.
static std::optional<std::string> readMaxPool(op::MaxPoolOp pool, op::TransposeOp input,
                                              op::TransposeOp output,
                                              FusedConvolutionShape &shape) {
  const WantedTranspose wanted[] = {
      {input, "the max pool's input", kNhwcToNchw, "NHWC to NCHW"},
      {output, "the max pool's result", kNchwToNhwc, "NCHW to NHWC"},
  };
  if (std::optional<std::string> refusal = checkPermutations(wanted))
    return refusal;
  auto result = llvm::dyn_cast<TensorType>(pool.getOutput().getType());
  if (!result || result.getRank() != 4)
    return std::string("a max pool whose result is not rank 4");
  ConvolutionMaxPool &read = shape.pool.emplace();
  static_cast<PoolWindow &>(read) = readPoolWindow(pool);
  read.op = pool;
  read.outHeight = result.getShape()[2];
  read.outWidth = result.getShape()[3];
  return std::nullopt;
}

/// What keeps a cast and transpose before the channels-last form's input
/// transpose from being cast_conv_nhwc_bias_activation_max_pool's: a cast
/// from float32, the transpose NCHW → NHWC, and a max pool after the chain
/// (only the convolution + max pool kernel reads such an input).
static std::optional<std::string> checkInputCast(op::CastOp cast, op::TransposeOp layout,
                                                 op::MaxPoolOp pool) {
  llvm::Expected<TensorInfo> source = getTensorInfo(cast, cast.getInput());
  if (!source)
    return llvm::toString(source.takeError());
  if (source->dtype != DType::F32)
    return std::string("a cast of the input from ") + getDTypeName(source->dtype) +
           " is not implemented on the CUDA driver's convolutions (only from float32)";
  const WantedTranspose wanted[] = {
      {layout, "the input's cast", kNchwToNhwc, "NCHW to NHWC"},
  };
  if (std::optional<std::string> refusal = checkPermutations(wanted))
    return refusal;
  if (!pool)
    return std::string("a cast of the input before the convolution is implemented on the CUDA "
                       "driver only where a max pool ends the definition (the convolution + max "
                       "pool kernel)");
  return std::nullopt;
}

std::optional<llvm::Expected<FusedConvolutionShape>>
analyzeFusedConvolution(FunctionalDefinitionOp definition) {
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  // A cast of the input and its transpose may lead (a float32 model's NCHW
  // image converted and transposed to NHWC, which the channels-last form's
  // input transpose reads): each private to the next.
  op::CastOp inputCast;
  op::TransposeOp inputLayout;
  size_t prologue = 0;
  if (layers.size() > 2 && llvm::isa<op::CastOp>(layers[0])) {
    inputCast = llvm::cast<op::CastOp>(layers[0]);
    inputLayout = llvm::dyn_cast<op::TransposeOp>(layers[1]);
    if (!inputLayout || inputLayout.getInput() != inputCast.getOutput() ||
        !isUsedOnlyBy(inputCast.getOutput(), inputLayout))
      return std::nullopt;
    prologue = 2;
  }
  // The convolution comes first, or after the transposes of its operands
  // (the channels-last form).
  size_t convIndex = prologue;
  while (convIndex < layers.size() && convIndex < prologue + 2 &&
         llvm::isa<op::TransposeOp>(layers[convIndex]))
    ++convIndex;
  if (convIndex == layers.size())
    return std::nullopt;
  auto conv = llvm::dyn_cast<op::ConvolutionOp>(layers[convIndex]);
  if (!conv)
    return std::nullopt;
  mlir::Block &body = definition.getBody().front();
  auto argumentOf = [&](mlir::Value value) -> std::optional<unsigned> {
    auto argument = llvm::dyn_cast<mlir::BlockArgument>(value);
    if (!argument || argument.getOwner() != &body)
      return std::nullopt;
    return argument.getArgNumber();
  };

  // The transposes of the channels-last form: each private to the
  // convolution, the operands' transposing definition arguments.
  ChannelsLastTransposes transposes;
  transposes.input = conv.getInput().getDefiningOp<op::TransposeOp>();
  transposes.weight = conv.getWeight().getDefiningOp<op::TransposeOp>();
  if (convIndex + 1 < layers.size())
    transposes.output = llvm::dyn_cast<op::TransposeOp>(layers[convIndex + 1]);
  if (transposes.output && transposes.output.getInput() != conv.getOutput())
    return std::nullopt;
  for (mlir::Operation *layer : llvm::ArrayRef(layers).take_front(convIndex).drop_front(prologue))
    if (layer != transposes.input.getOperation() && layer != transposes.weight.getOperation())
      return std::nullopt;
  if (transposes.input && transposes.input == transposes.weight)
    return std::nullopt;
  // The value a transpose of the form reads, or `value` itself; null when
  // the transpose has other users.
  auto beforeTranspose = [&](op::TransposeOp transpose, mlir::Value value) -> mlir::Value {
    if (!transpose)
      return value;
    return isUsedOnlyBy(transpose.getOutput(), conv) ? transpose.getInput() : mlir::Value();
  };
  mlir::Value inputValue = beforeTranspose(transposes.input, conv.getInput());
  mlir::Value weightValue = beforeTranspose(transposes.weight, conv.getWeight());
  if (!inputValue || !weightValue)
    return std::nullopt;
  if (inputCast) {
    if (!transposes.input || inputValue != inputLayout.getOutput() ||
        !isUsedOnlyBy(inputValue, transposes.input))
      return std::nullopt;
    inputValue = inputCast.getInput();
  }

  FusedConvolutionShape shape;
  shape.conv = conv;
  shape.inputCast = inputCast;
  shape.channelsLast = transposes.input || transposes.weight || transposes.output;
  std::optional<unsigned> input = argumentOf(inputValue);
  std::optional<unsigned> weight = argumentOf(weightValue);
  if (!input || !weight)
    return std::nullopt;
  shape.input = *input;
  shape.weight = *weight;
  if (conv.getBias()) {
    shape.bias = argumentOf(conv.getBias());
    if (!shape.bias)
      return std::nullopt;
  }
  // The chain starts at the convolution's result, or at its transpose.
  mlir::Value previous = conv.getOutput();
  size_t chainStart = convIndex + 1;
  if (transposes.output) {
    if (!conv.getOutput().hasOneUse())
      return std::nullopt;
    previous = transposes.output.getOutput();
    ++chainStart;
  }
  auto resultType = llvm::dyn_cast<TensorType>(previous.getType());
  if (!resultType)
    return std::nullopt;

  // A max pool between transposes ends the definition (the channels-last
  // form only): the chain stops before its first transpose.
  size_t chainEnd = layers.size();
  op::TransposeOp poolInput, poolOutput;
  op::MaxPoolOp pool;
  if (shape.channelsLast && layers.size() >= chainStart + 3) {
    poolInput = llvm::dyn_cast<op::TransposeOp>(layers[layers.size() - 3]);
    pool = llvm::dyn_cast<op::MaxPoolOp>(layers[layers.size() - 2]);
    poolOutput = llvm::dyn_cast<op::TransposeOp>(layers.back());
    if (poolInput && pool && poolOutput && pool.getInput() == poolInput.getOutput() &&
        isUsedOnlyBy(poolInput.getOutput(), pool) && poolOutput.getInput() == pool.getOutput() &&
        isUsedOnlyBy(pool.getOutput(), poolOutput))
      chainEnd = layers.size() - 3;
    else
      pool = nullptr;
  }

  // The shape first (std::nullopt on any mismatch), then what is missing.
  std::string missing;
  for (mlir::Operation *op : llvm::ArrayRef(layers).take_front(chainEnd).drop_front(chainStart)) {
    // The previous value feeds this layer only (add(v, v) uses it twice).
    if (!isUsedOnlyBy(previous, op))
      return std::nullopt;
    if (!op->hasTrait<op::OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getResult(0).getType() != resultType)
      return std::nullopt;
    std::optional<mlir::Value> other;
    for (mlir::Value operand : op->getOperands()) {
      if (operand == previous)
        continue;
      if (other && *other != operand)
        return std::nullopt;
      other = operand;
    }
    std::optional<unsigned> argument;
    if (other) {
      argument = argumentOf(*other);
      auto otherType = llvm::dyn_cast<TensorType>(other->getType());
      if (!argument || !otherType || otherType.getElementType() != resultType.getElementType() ||
          !op::broadcastsTo(otherType.getShape(), resultType.getShape()))
        return std::nullopt;
    }
    std::optional<ChainStep> step = getStep(op);
    if (step && step->isBinary() != (op->getNumOperands() == 2))
      step.reset();
    if (!step) {
      if (missing.empty()) {
        missing = ("chain layer " + op->getName().getStringRef()).str();
        if (auto gelu = llvm::dyn_cast<op::GeluOp>(op))
          missing += (" with approximate \"" + gelu.getApproximate() + "\"").str();
        missing += " is not implemented on the CUDA driver";
      }
    } else {
      step->argument = argument;
      step->valueFirst = op->getOperand(0) == previous;
      shape.steps.push_back(*step);
    }
    previous = op->getResult(0);
  }
  if (pool) {
    if (poolInput.getInput() != previous || !isUsedOnlyBy(previous, poolInput))
      return std::nullopt;
    previous = poolOutput.getOutput();
  }
  mlir::Operation *terminator = body.getTerminator();
  if (!terminator || terminator->getNumOperands() != 1 || terminator->getOperand(0) != previous ||
      !previous.hasOneUse())
    return std::nullopt;

  using R = llvm::Expected<FusedConvolutionShape>;
  if (shape.channelsLast)
    if (std::optional<std::string> refusal = checkChannelsLast(conv, transposes))
      return R(makeFusedError(definition, kConvolutionFamily, *refusal));
  if (pool) {
    if (std::optional<std::string> refusal = readMaxPool(pool, poolInput, poolOutput, shape))
      return R(makeFusedError(definition, kConvolutionFamily, *refusal));
  }
  if (inputCast)
    if (std::optional<std::string> refusal = checkInputCast(inputCast, inputLayout, pool))
      return R(makeFusedError(definition, kConvolutionFamily, *refusal));
  auto output = getTensorInfo(conv, conv.getOutput());
  if (!output)
    return R(makeFusedError(definition, kConvolutionFamily, llvm::toString(output.takeError())));
  if (!isFloat32ComputedDType(output->dtype))
    return R(makeFusedError(definition, kConvolutionFamily,
                            llvm::toString(unimplementedElementType(conv, output->dtype))));
  auto plan = planCudnnConvolution(conv);
  if (!plan)
    return R(makeFusedError(definition, kConvolutionFamily, llvm::toString(plan.takeError())));
  if (!missing.empty())
    return R(makeFusedError(definition, kConvolutionFamily, missing));
  shape.plan = std::move(*plan);
  if (shape.channelsLast)
    makeChannelsLast(shape.plan);
  return R(std::move(shape));
}

//===----------------------------------------------------------------------===//
// The epilogue
//===----------------------------------------------------------------------===//

/// The statement applying `step` to the float `v`; `operand` is the other
/// operand's value. The layer's own expression (the one its layer kernel
/// evaluates, Elementwise.cpp) runs as a lambda of `x0` (and `x1`), so that
/// the chain rounds exactly as the layers do; std::nullopt when the layer
/// has none.
static std::optional<std::string> getStepStatement(const ChainStep &step, DType dtype,
                                                   const std::string &operand) {
  std::optional<std::string> expression = getElementwiseExpression(step.op, dtype);
  if (!expression)
    return std::nullopt;
  if (!step.isBinary())
    return "v = ([](float x0) -> float { return " + *expression + "; })(v);";
  return "v = ([](float x0, float x1) -> float { return " + *expression + "; })(" +
         (step.valueFirst ? "v, " + operand : operand + ", v") + ");";
}

Shape getBiasShape(int64_t channels, size_t rank, bool channelsLast) {
  if (channelsLast)
    return Shape{channels};
  Shape shape(rank - 1, 1);
  shape[0] = channels;
  return shape;
}

std::string getEpilogueFunction(llvm::StringRef name, llvm::StringRef statements,
                                size_t operands) {
  std::string text = ("CGC_DEVICE float " + name + "(float v").str();
  for (size_t index = 0; index < operands; ++index)
    text += ", float x" + std::to_string(index + 1);
  return text + ") {\n  " + statements.str() + "\n  return v;\n}\n";
}

llvm::Expected<ConvolutionEpilogue> getConvolutionEpilogue(FunctionalDefinitionOp definition,
                                                           const FusedConvolutionShape &shape,
                                                           const EpilogueStart &start) {
  ConvolutionEpilogue epilogue;
  DType dtype = shape.plan.output.dtype;
  const Shape &outputShape = shape.plan.output.shape;
  auto addOperand = [&](unsigned argument, llvm::ArrayRef<int64_t> operandShape) {
    epilogue.operands.push_back(EpilogueOperand{argument, Shape(operandShape)});
    return "x" + std::to_string(epilogue.operands.size());
  };
  if (shape.bias && !start.biasApplied) {
    op::ConvolutionOp conv = shape.conv;
    auto bias = getTensorInfo(conv, conv.getBias());
    if (!bias)
      return inFusedConvolution(definition, bias.takeError());
    epilogue.statements +=
        " v = v + " +
        addOperand(*shape.bias,
                   getBiasShape(bias->getNumElements(), outputShape.size(), shape.channelsLast)) +
        ";";
  }
  std::map<unsigned, std::string> extraOperands;
  for (const ChainStep &step :
       llvm::ArrayRef(shape.steps).drop_front(std::min(start.stepsApplied, shape.steps.size()))) {
    std::string operand = "v";
    if (step.argument) {
      auto found = extraOperands.find(*step.argument);
      if (found == extraOperands.end()) {
        mlir::Value value = definition.getBody().front().getArgument(*step.argument);
        auto type = llvm::cast<TensorType>(value.getType());
        found = extraOperands.emplace(*step.argument, addOperand(*step.argument, type.getShape()))
                    .first;
      }
      operand = found->second;
    }
    std::optional<std::string> statement = getStepStatement(step, dtype, operand);
    if (!statement)
      return inFusedConvolution(definition,
                                makeKernelError(step.op, "no generated expression for this layer"));
    epilogue.statements += " " + *statement;
  }
  return epilogue;
}

//===----------------------------------------------------------------------===//
// The epilogue kernel
//===----------------------------------------------------------------------===//

llvm::Expected<std::optional<EpilogueKernel>>
buildEpilogueKernel(FunctionalDefinitionOp definition, const FusedConvolutionShape &shape,
                    KernelContext::Impl &context, const EpilogueStart &start) {
  using R = std::optional<EpilogueKernel>;
  auto epilogue = getConvolutionEpilogue(definition, shape, start);
  if (!epilogue)
    return epilogue.takeError();
  if (epilogue->statements.empty())
    return R();
  DType dtype = shape.plan.output.dtype;
  const Shape &outputShape = shape.plan.output.shape;
  StridedKernelSpec spec;
  spec.outputType = dtype;
  spec.outputShape = outputShape;
  // x0 is the convolution's result, read back from the output.
  spec.operands.push_back(broadcastOperand(dtype, outputShape, outputShape));
  EpilogueKernel result;
  for (const EpilogueOperand &operand : epilogue->operands) {
    spec.operands.push_back(broadcastOperand(dtype, operand.shape, outputShape));
    result.arguments.push_back(operand.argument);
  }
  spec.expression = "([&]() -> float { float v = x0;" + epilogue->statements + " return v; }())";
  auto kernel = buildStridedKernel(shape.conv, context, spec);
  if (!kernel)
    return inFusedConvolution(definition, kernel.takeError());
  result.kernel = std::move(*kernel);
  return R(std::move(result));
}

std::string EpilogueKernel::launch(const LaunchArgs &args) const {
  llvm::SmallVector<const void *, 6> operands{args.outputs[0]};
  for (unsigned argument : arguments)
    operands.push_back(args.inputs[argument]);
  return kernel.launch(LaunchArgs{std::span<const void *const>(operands.data(), operands.size()),
                                  args.outputs, nullptr, args.stream});
}

llvm::Expected<ChannelsLastGeometry> getChannelsLastGeometry(const FusedConvolutionShape &shape) {
  op::ConvolutionOp conv = shape.conv;
  auto weight = getTensorInfo(conv, conv.getWeight());
  if (!weight)
    return weight.takeError();
  const Shape &input = shape.plan.input.shape, &output = shape.plan.output.shape;
  Shape strides = getWindowList(conv.getStrides(), 2, 1);
  Shape dilations = getWindowList(conv.getDilations(), 2, 1);
  Shape startPadding = getWindowList(conv.getStartPadding(), 2, 0);
  ChannelsLastGeometry geometry;
  geometry.batch = input[0];
  geometry.height = input[1];
  geometry.width = input[2];
  geometry.channels = input[3];
  geometry.outHeight = output[1];
  geometry.outWidth = output[2];
  geometry.outChannels = output[3];
  geometry.kernelHeight = weight->shape[2];
  geometry.kernelWidth = weight->shape[3];
  geometry.strideHeight = strides[0];
  geometry.strideWidth = strides[1];
  geometry.dilationHeight = dilations[0];
  geometry.dilationWidth = dilations[1];
  geometry.padTop = startPadding[0];
  geometry.padLeft = startPadding[1];
  return geometry;
}

} // namespace cgc::cuda
