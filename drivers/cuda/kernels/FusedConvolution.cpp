//===- FusedConvolution.cpp - convolution and its epilogue as one kernel --===//
//
// Recognition follows the patterns (patterns/convolution.mlir). In
// conv_bias_activation's form the definition's first layer is a convolution
// of definition arguments; in conv_nhwc_bias_activation's (the compiler's
// channels-last form) transposes of two arguments, NHWC to NCHW and OHWI to
// OIHW, feed the convolution and one transpose, NCHW to NHWC, takes its
// result. Then each layer is elementwise, takes the previous value (whose
// only user it is) and at most one other definition argument that
// broadcasts to the chain's value; the definition returns the last value.
// Any other shape belongs to another family (std::nullopt); a chain layer
// the kernel lacks, transposes other than the channels-last form's, or a
// convolution the CUDA driver cannot run, is an error.
//
// The channels-last form runs without its transposes: they only say how
// the arguments and the result lie in memory, which is what cuDNN's
// tensor-core engines want: the input N×H×W×C, the weight K×R×S×C/groups,
// the result and the chain's operands N×P×Q×K (broadcasting as they do in
// the IR).
//
// The cuDNN graph describes every tensor as memory lays it out, with the
// logical N×C×spatial dimensions cuDNN expects: NCHW (NCDHW) with packed
// strides, or channels-last with NHWC (KRSC) strides; a 1-D convolution as
// a 2-D one of height 1, broadcast operands with size-1 dimensions.
// Intermediate values are virtual float32 tensors, so float16 and bfloat16
// round once, at the end; float32 refuses tensor-core engines (TF32) by
// their numerical notes. The epilogue path computes in float32 too: cuDNN's
// convolution (NCHW or NHWC descriptors, the fastest direct-sum algorithm
// timed once per geometry) stores its result in the output, and one
// generated kernel reads it back, applies the bias and the chain (each
// layer by its layer kernel's own expression) over the output as it lies in
// memory, and writes the output in place.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolution.h"

#include "CudnnConvolution.h"
#include "CudnnGraph.h"
#include "ElementwiseCodegen.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <vector>

namespace cgc::cuda {

namespace {
constexpr const char *kFamily = "convolution";
/// The byte alignment the cuDNN graph is promised for every tensor (memory
/// planning aligns buffers to 64 bytes unless told otherwise; launches
/// check it).
constexpr int64_t kGraphAlignment = 16;

/// What one chain layer computes.
enum class StepKind {
  Add,
  Mul,
  Relu,
  LeakyRelu,
  Clip,
  Sigmoid,
  Tanh,
  Gelu,
  GeluTanh,
  HardSigmoid,
  HardSwish,
};

/// One layer of the chain after the convolution.
struct ChainStep {
  mlir::Operation *op = nullptr;
  StepKind kind = StepKind::Relu;
  /// leaky_relu: alpha; clip: alpha = min, beta = max; hard_sigmoid: alpha,
  /// beta.
  double alpha = 0.0, beta = 0.0;
  /// add and mul: the definition argument of the other operand, or none
  /// when both operands are the chain's value.
  std::optional<unsigned> argument;
  /// add and mul: whether the chain's value is the first operand.
  bool valueFirst = true;
  bool isBinary() const { return kind == StepKind::Add || kind == StepKind::Mul; }
};

/// A definition the family implements.
struct FusedShape {
  op::ConvolutionOp conv;
  /// Definition arguments of the convolution's input and weight (before
  /// their transposes in the channels-last form) and bias.
  unsigned input = 0, weight = 0;
  std::optional<unsigned> bias;
  std::vector<ChainStep> steps;
  /// The convolution in cuDNN's terms; in the channels-last form its input
  /// and output shapes are the NHWC ones of the definition's input and
  /// result.
  CudnnConvolutionPlan plan;
  /// The channels-last form: input NHWC, weight KRSC, result and chain NHWC
  /// in memory.
  bool channelsLast = false;
};

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

/// Whether a tensor of shape `from` broadcasts (numpy rules) to `to`
/// without changing it.
static bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (auto [fromSize, toSize] : llvm::zip(llvm::reverse(from), llvm::reverse(to)))
    if (fromSize != 1 && fromSize != toSize)
      return false;
  return true;
}

/// `error` as an error of the fused kernel of `definition`.
static llvm::Error inDefinition(FunctionalDefinitionOp definition, llvm::Error error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "@" + definition.getSymName() + ": fused " + kFamily + ": " +
                                     llvm::toString(std::move(error)));
}

/// "[a, b, ...]" for messages.
static std::string formatList(llvm::ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [index, value] : llvm::enumerate(values))
    text += (index ? ", " : "") + std::to_string(value);
  return text + "]";
}

/// The permutation `transpose` applies (by default it reverses the
/// dimensions).
static llvm::SmallVector<int64_t, 4> getPermutation(op::TransposeOp transpose) {
  llvm::SmallVector<int64_t, 4> permutation(transpose.getPermutation());
  if (permutation.empty()) {
    int64_t rank = llvm::cast<TensorType>(transpose.getInput().getType()).getRank();
    for (int64_t dim = rank - 1; dim >= 0; --dim)
      permutation.push_back(dim);
  }
  return permutation;
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
  struct Expected {
    op::TransposeOp transpose;
    const char *what;
    llvm::ArrayRef<int64_t> permutation;
    const char *meaning;
  };
  const Expected expected[] = {
      {transposes.input, "the input", kNhwcToNchw, "NHWC to NCHW"},
      {transposes.weight, "the weight", kNhwcToNchw, "OHWI to OIHW"},
      {transposes.output, "the result", kNchwToNhwc, "NCHW to NHWC"},
  };
  for (const Expected &wanted : expected) {
    if (!wanted.transpose)
      return prefix + wanted.what + " is not transposed (" + wanted.meaning +
             "): the CUDA driver implements the form that transposes the input, the weight "
             "and the result";
    llvm::SmallVector<int64_t, 4> permutation = getPermutation(wanted.transpose);
    if (llvm::ArrayRef<int64_t>(permutation) != wanted.permutation)
      return prefix + wanted.what + "'s transpose with permutation " + formatList(permutation) +
             " is not implemented on the CUDA driver (only " + formatList(wanted.permutation) +
             ", " + wanted.meaning + ")";
  }
  return std::nullopt;
}

/// The family's reading of `definition`: std::nullopt when it is not a
/// convolution (in either form) followed by an elementwise chain, an error
/// when it is but the kernel lacks something.
static std::optional<llvm::Expected<FusedShape>> analyze(FunctionalDefinitionOp definition) {
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  // The convolution comes first, or after the transposes of its operands
  // (the channels-last form).
  size_t convIndex = 0;
  while (convIndex < layers.size() && convIndex < 2 &&
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
  for (mlir::Operation *layer : llvm::ArrayRef(layers).take_front(convIndex))
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

  FusedShape shape;
  shape.conv = conv;
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

  // The shape first (std::nullopt on any mismatch), then what is missing.
  std::string missing;
  for (mlir::Operation *op : llvm::ArrayRef(layers).drop_front(chainStart)) {
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
          !broadcastsTo(otherType.getShape(), resultType.getShape()))
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
  mlir::Operation *terminator = body.getTerminator();
  if (!terminator || terminator->getNumOperands() != 1 || terminator->getOperand(0) != previous ||
      !previous.hasOneUse())
    return std::nullopt;

  using R = llvm::Expected<FusedShape>;
  if (shape.channelsLast)
    if (std::optional<std::string> refusal = checkChannelsLast(conv, transposes))
      return R(makeFusedError(definition, kFamily, *refusal));
  auto output = getTensorInfo(conv, conv.getOutput());
  if (!output)
    return R(makeFusedError(definition, kFamily, llvm::toString(output.takeError())));
  if (!isFloat32ComputedDType(output->dtype))
    return R(makeFusedError(definition, kFamily,
                            llvm::toString(unimplementedElementType(conv, output->dtype))));
  auto plan = planCudnnConvolution(conv);
  if (!plan)
    return R(makeFusedError(definition, kFamily, llvm::toString(plan.takeError())));
  if (!missing.empty())
    return R(makeFusedError(definition, kFamily, missing));
  shape.plan = std::move(*plan);
  if (shape.channelsLast)
    makeChannelsLast(shape.plan);
  return R(std::move(shape));
}

//===----------------------------------------------------------------------===//
// The epilogue path
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

/// The shape of a channel-broadcast bias of `channels` for an output of
/// rank `rank`: C×1×...×1 (rank - 1 dimensions), or C (the last dimension)
/// for a channels-last output.
static Shape getBiasShape(int64_t channels, size_t rank, bool channelsLast) {
  if (channelsLast)
    return Shape{channels};
  Shape shape(rank - 1, 1);
  shape[0] = channels;
  return shape;
}

/// The epilogue kernel of `shape` (bias and chain in one pass over the
/// output, in place) and the definition arguments it reads after the
/// output, or std::nullopt when there is nothing to apply.
static llvm::Expected<std::optional<std::pair<Kernel, llvm::SmallVector<unsigned, 4>>>>
buildEpilogue(FunctionalDefinitionOp definition, const FusedShape &shape,
              KernelContext::Impl &context) {
  using R = std::optional<std::pair<Kernel, llvm::SmallVector<unsigned, 4>>>;
  if (!shape.bias && shape.steps.empty())
    return R();
  DType dtype = shape.plan.output.dtype;
  const Shape &outputShape = shape.plan.output.shape;
  StridedKernelSpec spec;
  spec.outputType = dtype;
  spec.outputShape = outputShape;
  spec.operands.push_back(broadcastOperand(dtype, outputShape, outputShape));
  llvm::SmallVector<unsigned, 4> arguments;
  std::string statements;
  auto addOperand = [&](unsigned argument, llvm::ArrayRef<int64_t> operandShape) {
    spec.operands.push_back(broadcastOperand(dtype, operandShape, outputShape));
    arguments.push_back(argument);
    return "x" + std::to_string(spec.operands.size() - 1);
  };
  if (shape.bias) {
    op::ConvolutionOp conv = shape.conv;
    auto bias = getTensorInfo(conv, conv.getBias());
    if (!bias)
      return inDefinition(definition, bias.takeError());
    statements +=
        " v = v + " +
        addOperand(*shape.bias, getBiasShape(bias->getNumElements(), outputShape.size(),
                                             shape.channelsLast)) +
        ";";
  }
  std::map<unsigned, std::string> extraOperands;
  for (const ChainStep &step : shape.steps) {
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
      return inDefinition(definition,
                          makeKernelError(step.op, "no generated expression for this layer"));
    statements += " " + *statement;
  }
  spec.expression = "([&]() -> float { float v = x0;" + statements + " return v; }())";
  auto kernel = buildStridedKernel(shape.conv, context, spec);
  if (!kernel)
    return inDefinition(definition, kernel.takeError());
  return R(std::make_pair(std::move(*kernel), std::move(arguments)));
}

/// The epilogue path: cuDNN's convolution into the output, then the
/// epilogue in place. The epilogue compiles before cuDNN is asked for
/// anything. cuDNN's algorithm is its heuristics' first: timing every
/// algorithm (cudnnFindConvolutionForwardAlgorithmEx) was measured on an
/// H100 to make MobileNetV2 slower (batch 32 float16: 2.9 against 2.4 ms)
/// and its program creation 2 s longer.
static llvm::Expected<Kernel> buildEpiloguePath(FunctionalDefinitionOp definition,
                                                const FusedShape &shape,
                                                KernelContext::Impl &context) {
  auto epilogue = buildEpilogue(definition, shape, context);
  if (!epilogue)
    return epilogue.takeError();
  auto convolution = buildCudnnConvolutionKernel(shape.conv, context, shape.plan,
                                                 CudnnAlgorithmSearch::Heuristic);
  if (!convolution)
    return inDefinition(definition, convolution.takeError());
  uint64_t workspaceSize = convolution->workspaceSize;
  unsigned input = shape.input, weight = shape.weight;
  auto launch = [convolution = std::move(*convolution), epilogue = std::move(*epilogue), input,
                 weight](const LaunchArgs &args) -> std::string {
    const void *convolutionInputs[] = {args.inputs[input], args.inputs[weight]};
    std::string message = convolution.launch(
        LaunchArgs{convolutionInputs, args.outputs, args.workspace, args.stream});
    if (!message.empty() || !epilogue)
      return message;
    llvm::SmallVector<const void *, 6> operands{args.outputs[0]};
    for (unsigned argument : epilogue->second)
      operands.push_back(args.inputs[argument]);
    return epilogue->first.launch(
        LaunchArgs{std::span<const void *const>(operands.data(), operands.size()), args.outputs,
                   nullptr, args.stream});
  };
  return Kernel{std::move(launch), workspaceSize};
}

//===----------------------------------------------------------------------===//
// The cuDNN graph path
//===----------------------------------------------------------------------===//

namespace {
/// One pointwise node of the graph.
struct PointwiseNode {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_ADD;
  std::optional<double> upperClip, lowerClipSlope;
  /// Binary nodes: the argument of the second operand (none: the value
  /// itself) and the shape it is described with.
  bool binary = false;
  std::optional<unsigned> argument;
  Shape argumentShape;
};

/// A plan and the definition argument bound to each of its tensors.
struct GraphKernelPlan {
  std::shared_ptr<CudnnPlan> plan;
  llvm::SmallVector<int64_t, 8> uids;
  /// Per uid: the definition argument, or -1 for the output.
  llvm::SmallVector<int, 8> arguments;
};
} // namespace

/// Packed (row-major) strides of `dims`, size-0 dimensions counted as 1.
static llvm::SmallVector<int64_t, 5> getPackedStrides(llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<int64_t, 5> strides(dims.size(), 1);
  for (int64_t dim = static_cast<int64_t>(dims.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * std::max<int64_t>(dims[dim + 1], 1);
  return strides;
}

/// The pointwise node of `step`, or std::nullopt when cuDNN has no mode for
/// it.
static std::optional<PointwiseNode> getPointwiseNode(const ChainStep &step, mlir::Block &body) {
  PointwiseNode node;
  switch (step.kind) {
  case StepKind::Add:
  case StepKind::Mul:
    node.mode = step.kind == StepKind::Add ? CUDNN_POINTWISE_ADD : CUDNN_POINTWISE_MUL;
    node.binary = true;
    node.argument = step.argument;
    if (step.argument)
      node.argumentShape =
          Shape(llvm::cast<TensorType>(body.getArgument(*step.argument).getType()).getShape());
    return node;
  case StepKind::Relu:
    node.mode = CUDNN_POINTWISE_RELU_FWD;
    return node;
  case StepKind::LeakyRelu:
    node.mode = CUDNN_POINTWISE_RELU_FWD;
    node.lowerClipSlope = step.alpha;
    return node;
  case StepKind::Clip:
    // clip(0, max) is ReLU with an upper clip (relu6); other bounds are not
    // ReLU's.
    if (step.alpha != 0.0 || std::isnan(step.beta) || step.beta < 0.0)
      return std::nullopt;
    node.mode = CUDNN_POINTWISE_RELU_FWD;
    if (std::isfinite(step.beta))
      node.upperClip = step.beta;
    return node;
  case StepKind::Sigmoid:
    node.mode = CUDNN_POINTWISE_SIGMOID_FWD;
    return node;
  case StepKind::Tanh:
    node.mode = CUDNN_POINTWISE_TANH_FWD;
    return node;
  case StepKind::Gelu:
    node.mode = CUDNN_POINTWISE_GELU_FWD;
    return node;
  case StepKind::GeluTanh:
    node.mode = CUDNN_POINTWISE_GELU_APPROX_TANH_FWD;
    return node;
  case StepKind::HardSigmoid:
  case StepKind::HardSwish:
    return std::nullopt;
  }
  return std::nullopt;
}

/// The plan of `shape` as one cuDNN graph, or a null plan with the reason.
static GraphKernelPlan createGraphPlan(FunctionalDefinitionOp definition, const FusedShape &shape,
                                       std::shared_ptr<CudnnHandle> handle, std::string &reason) {
  mlir::Block &body = definition.getBody().front();
  op::ConvolutionOp conv = shape.conv;
  const Shape &outputShape = shape.plan.output.shape;
  DType dtype = shape.plan.output.dtype;
  size_t rank = outputShape.size();
  int64_t spatialRank = static_cast<int64_t>(rank) - 2;
  bool heightOne = spatialRank == 1;

  // The nodes: bias, then each chain layer.
  std::vector<PointwiseNode> nodes;
  if (shape.bias) {
    PointwiseNode bias;
    bias.binary = true;
    bias.argument = shape.bias;
    bias.argumentShape =
        getBiasShape(llvm::cast<TensorType>(conv.getBias().getType()).getNumElements(), rank,
                     shape.channelsLast);
    nodes.push_back(std::move(bias));
  }
  for (const ChainStep &step : shape.steps) {
    std::optional<PointwiseNode> node = getPointwiseNode(step, body);
    if (!node) {
      reason = (step.op->getName().getStringRef() + " has no cuDNN pointwise mode").str();
      return {};
    }
    // Channels-last: cuDNN's runtime-fusion engines computed wrong results
    // (H100, cuDNN 9.14, float16) for an operand broadcast over rows of the
    // N×H×W×C memory (a W×C operand); the graph takes the shapes models have
    // (one element, one per channel, the whole result) and leaves the rest
    // to cuDNN's convolution and the generated epilogue.
    if (shape.channelsLast && node->binary && node->argument) {
      llvm::ArrayRef<int64_t> memory = node->argumentShape;
      int64_t elements = 1;
      for (int64_t dim : memory)
        elements *= dim;
      bool perChannel = !memory.empty() && memory.back() == outputShape.back() &&
                        elements == outputShape.back();
      bool whole = memory.size() == rank &&
                   llvm::equal(memory.drop_front(), llvm::ArrayRef(outputShape).drop_front());
      if (elements != 1 && !perChannel && !whole) {
        reason = (step.op->getName().getStringRef() +
                  "'s other operand broadcasts over rows of the channels-last result")
                     .str();
        return {};
      }
    }
    nodes.push_back(std::move(*node));
  }

  // Tensors as cuDNN sees them: rank padded to the output's, height 1
  // inserted for a 1-D convolution; channels-last tensors (N×H×W×C in
  // memory) as N×C×H×W with the strides of their memory.
  struct Described {
    llvm::SmallVector<int64_t, 5> dims, strides;
    bool operator==(const Described &other) const {
      return dims == other.dims && strides == other.strides;
    }
  };
  auto describe = [&](llvm::ArrayRef<int64_t> memoryShape) {
    llvm::SmallVector<int64_t, 5> dims(rank - memoryShape.size(), 1);
    dims.append(memoryShape.begin(), memoryShape.end());
    if (heightOne)
      dims.insert(dims.begin() + 2, 1);
    llvm::SmallVector<int64_t, 5> strides = getPackedStrides(dims);
    if (!shape.channelsLast)
      return Described{std::move(dims), std::move(strides)};
    return Described{{dims[0], dims[3], dims[1], dims[2]},
                     {strides[0], strides[3], strides[1], strides[2]}};
  };
  auto window = [&](llvm::ArrayRef<int64_t> values, int64_t fallback, int64_t inserted) {
    llvm::SmallVector<int64_t, 3> list(getWindowList(values, spatialRank, fallback));
    if (heightOne)
      list.insert(list.begin(), inserted);
    return list;
  };

  CudnnGraphBuilder builder;
  cudnnDataType_t dataType = getCudnnDataType(dtype);
  int64_t argumentCount = static_cast<int64_t>(body.getNumArguments());
  GraphKernelPlan result;
  std::map<unsigned, std::pair<Described, cudnnBackendDescriptor_t>> tensors;
  auto argumentTensor = [&](unsigned argument,
                            llvm::ArrayRef<int64_t> memoryShape) -> cudnnBackendDescriptor_t {
    Described described = describe(memoryShape);
    auto found = tensors.find(argument);
    if (found != tensors.end()) {
      if (!(found->second.first == described))
        builder.fail("argument " + std::to_string(argument) + " is read with two shapes");
      return found->second.second;
    }
    int64_t uid = argument + 1;
    cudnnBackendDescriptor_t tensor = builder.createTensor(
        uid, dataType, described.dims, described.strides, kGraphAlignment, /*isVirtual=*/false);
    tensors.emplace(argument, std::make_pair(described, tensor));
    result.uids.push_back(uid);
    result.arguments.push_back(static_cast<int>(argument));
    return tensor;
  };
  int64_t outputUid = argumentCount + 1;
  int64_t nextVirtualUid = argumentCount + 2;
  Described valueLayout = describe(outputShape);
  auto valueTensor = [&](bool isOutput) {
    if (isOutput) {
      result.uids.push_back(outputUid);
      result.arguments.push_back(-1);
      return builder.createTensor(outputUid, dataType, valueLayout.dims, valueLayout.strides,
                                  kGraphAlignment, /*isVirtual=*/false);
    }
    return builder.createTensor(nextVirtualUid++, CUDNN_DATA_FLOAT, valueLayout.dims,
                                valueLayout.strides, kGraphAlignment, /*isVirtual=*/true);
  };
  auto argumentShape = [&](unsigned argument) {
    return llvm::cast<TensorType>(body.getArgument(argument).getType()).getShape();
  };

  cudnnBackendDescriptor_t x = argumentTensor(shape.input, argumentShape(shape.input));
  cudnnBackendDescriptor_t w = argumentTensor(shape.weight, argumentShape(shape.weight));
  cudnnBackendDescriptor_t value = valueTensor(nodes.empty());

  cudnnBackendDescriptor_t convolution = builder.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  int64_t spatialDims = heightOne ? 2 : spatialRank;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  builder.setDataType(convolution, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT,
                      "convolution compute type");
  builder.set(convolution, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode,
              "convolution mode");
  builder.setInt64(convolution, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, spatialDims,
                   "convolution spatial dimensions");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
                    window(conv.getStrides(), 1, 1), "convolution strides");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_DILATIONS,
                    window(conv.getDilations(), 1, 1), "convolution dilations");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
                    window(conv.getStartPadding(), 0, 0), "convolution pre-paddings");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
                    window(conv.getEndPadding(), 0, 0), "convolution post-paddings");
  builder.finalize(convolution, "convolution");

  llvm::SmallVector<cudnnBackendDescriptor_t, 8> operations;
  cudnnBackendDescriptor_t forward =
      builder.create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x, "convolution x");
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w, "convolution w");
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, value,
                        "convolution y");
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, convolution,
                        "convolution descriptor");
  builder.setFloat(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 1.0f,
                   "convolution alpha");
  builder.setFloat(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, 0.0f,
                   "convolution beta");
  builder.finalize(forward, "convolution operation");
  operations.push_back(forward);

  for (auto [index, node] : llvm::enumerate(nodes)) {
    cudnnBackendDescriptor_t pointwise = builder.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    builder.set(pointwise, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &node.mode,
                "pointwise mode");
    builder.setDataType(pointwise, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_DATA_FLOAT,
                        "pointwise precision");
    if (node.upperClip)
      builder.set(pointwise, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1,
                  &*node.upperClip, "relu upper clip");
    if (node.lowerClipSlope)
      builder.set(pointwise, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, 1,
                  &*node.lowerClipSlope, "relu lower clip slope");
    builder.finalize(pointwise, "pointwise");

    cudnnBackendDescriptor_t next = valueTensor(index + 1 == nodes.size());
    cudnnBackendDescriptor_t operation =
        builder.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pointwise,
                          "pointwise descriptor");
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, value, "pointwise x");
    if (node.binary) {
      cudnnBackendDescriptor_t other =
          node.argument ? argumentTensor(*node.argument, node.argumentShape) : value;
      builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, other, "pointwise b");
    }
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, next, "pointwise y");
    builder.finalize(operation, "pointwise operation");
    operations.push_back(operation);
    value = next;
  }
  if (builder.hasFailed()) {
    reason = builder.getError();
    return {};
  }
  CudnnEngineFilter filter;
  filter.rejectTensorCores = dtype == DType::F32;
  std::unique_ptr<CudnnPlan> plan =
      createCudnnPlan(std::move(handle), builder, operations, filter, reason);
  if (!plan)
    return {};
  result.plan = std::move(plan);
  return result;
}

/// The graph path's kernel, std::nullopt (with the reason) when cuDNN has no
/// plan for the graph.
static llvm::Expected<std::optional<Kernel>> buildGraphPath(FunctionalDefinitionOp definition,
                                                            const FusedShape &shape,
                                                            KernelContext::Impl &context,
                                                            std::string &reason, int64_t &engine) {
  auto handle = context.getCudnn(shape.conv);
  if (!handle)
    return inDefinition(definition, handle.takeError());
  GraphKernelPlan graph = createGraphPlan(definition, shape, *handle, reason);
  if (!graph.plan)
    return std::optional<Kernel>();
  engine = graph.plan->engine;
  std::string name = ("@" + definition.getSymName() + ": fused convolution").str();
  uint64_t workspaceSize = static_cast<uint64_t>(graph.plan->workspaceSize);
  auto launch = [graph = std::move(graph), name](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<void *, 8> pointers;
    for (int argument : graph.arguments) {
      void *pointer = argument < 0 ? args.outputs[0] : const_cast<void *>(args.inputs[argument]);
      if (reinterpret_cast<uintptr_t>(pointer) % kGraphAlignment != 0)
        return name + ": the cuDNN graph needs " + std::to_string(kGraphAlignment) +
               "-byte aligned tensors; " +
               (argument < 0 ? std::string("the output") : "argument " + std::to_string(argument)) +
               " is not";
      pointers.push_back(pointer);
    }
    cudnnStatus_t status = graph.plan->execute(graph.uids, pointers, args.workspace, args.stream);
    if (status != CUDNN_STATUS_SUCCESS)
      return name + ": cudnnBackendExecute failed: " + cudnnGetErrorString(status);
    return "";
  };
  return std::optional<Kernel>(Kernel{std::move(launch), alignWorkspace(workspaceSize)});
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

const char *getFusedConvolutionPathName(FusedConvolutionPath path) {
  return path == FusedConvolutionPath::CudnnGraph ? "cuDNN graph"
                                                  : "cuDNN convolution + generated epilogue";
}

/// The path CGC_CUDA_CONVOLUTION forces ("graph" or "library"); none for
/// "auto" or unset: both are built and the faster kept.
static std::optional<FusedConvolutionPath> getForcedPath() {
  static const std::optional<FusedConvolutionPath> forced =
      []() -> std::optional<FusedConvolutionPath> {
    const char *value = std::getenv("CGC_CUDA_CONVOLUTION");
    llvm::StringRef name = value ? value : "";
    if (name == "graph")
      return FusedConvolutionPath::CudnnGraph;
    if (name == "library")
      return FusedConvolutionPath::ConvolutionThenEpilogue;
    return std::nullopt;
  }();
  return forced;
}

llvm::Expected<FusedConvolutionKernel>
buildFusedConvolution(FunctionalDefinitionOp definition, KernelContext::Impl &context,
                      std::optional<FusedConvolutionPath> path) {
  if (!path)
    path = getForcedPath();
  std::optional<llvm::Expected<FusedShape>> analyzed = analyze(definition);
  if (!analyzed)
    return makeFusedError(definition, kFamily,
                          "the definition is not a convolution followed by an elementwise chain");
  if (!*analyzed)
    return analyzed->takeError();
  const FusedShape &shape = **analyzed;
  FusedConvolutionKernel result;
  if (shape.plan.output.getNumElements() == 0) {
    result.kernel = Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
    result.graphRefusal = "the output is empty";
    return result;
  }

  int64_t engine = -1;
  bool tryGraph = path ? *path == FusedConvolutionPath::CudnnGraph : context.hasDevice();
  if (!tryGraph && !path)
    result.graphRefusal = "the kernel context has no device";
  if (tryGraph) {
    auto kernel = buildGraphPath(definition, shape, context, result.graphRefusal, engine);
    if (!kernel)
      return kernel.takeError();
    // Channels-last with a graph plan: the graph is kept without timing the
    // library path. Measured on an H100 (ResNet-50 batch 32 float16), cuDNN's
    // runtime-fusion graphs ran the model in 2.0 ms and its NHWC convolutions
    // + epilogues in 8.2 ms, and searching the latter's algorithms doubled
    // the program's creation time.
    if (*kernel && !path && !shape.channelsLast) {
      // Both paths run the definition: keep the faster on this device. A
      // library path that cannot be built leaves the graph.
      auto library = buildEpiloguePath(definition, shape, context);
      if (!library) {
        std::string refusal = llvm::toString(library.takeError());
        if (isVerbose())
          llvm::errs() << "cgc cuda: @" << definition.getSymName()
                       << ": cuDNN convolution + epilogue: " << refusal << "\n";
      } else {
        std::optional<float> graphTime = timeLaunch(definition, **kernel);
        std::optional<float> libraryTime = timeLaunch(definition, *library);
        if (isVerbose())
          llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": cuDNN graph "
                       << (graphTime ? std::to_string(*graphTime) : std::string("?"))
                       << " ms, cuDNN convolution + epilogue "
                       << (libraryTime ? std::to_string(*libraryTime) : std::string("?"))
                       << " ms\n";
        if (graphTime && libraryTime && *libraryTime < *graphTime) {
          result.kernel = std::move(*library);
          result.path = FusedConvolutionPath::ConvolutionThenEpilogue;
          result.graphRefusal = "cuDNN's convolution and the epilogue were faster";
          return result;
        }
      }
    }
    if (*kernel) {
      result.kernel = std::move(**kernel);
      result.path = FusedConvolutionPath::CudnnGraph;
      result.graphRefusal.clear();
    } else if (path) {
      return makeFusedError(definition, kFamily,
                            "the cuDNN graph does not run this definition: " + result.graphRefusal);
    }
  }
  if (result.path != FusedConvolutionPath::CudnnGraph) {
    auto kernel = buildEpiloguePath(definition, shape, context);
    if (!kernel)
      return kernel.takeError();
    result.kernel = std::move(*kernel);
    result.path = FusedConvolutionPath::ConvolutionThenEpilogue;
  }
  if (isVerbose()) {
    llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": fused "
                 << (shape.channelsLast ? "channels-last " : "") << "convolution runs as "
                 << getFusedConvolutionPathName(result.path);
    if (result.path == FusedConvolutionPath::CudnnGraph)
      llvm::errs() << " (engine " << engine << ")";
    else
      llvm::errs() << " (cuDNN graph: " << result.graphRefusal << ")";
    llvm::errs() << "\n";
  }
  return result;
}

namespace {

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<FusedShape>> analyzed = analyze(definition);
  if (!analyzed)
    return std::nullopt;
  if (!*analyzed)
    return analyzed->takeError();
  return llvm::Error::success();
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  std::optional<llvm::Error> recognized = check(definition);
  if (!recognized)
    return std::nullopt;
  if (*recognized)
    return llvm::Expected<Kernel>(std::move(*recognized));
  auto fused = buildFusedConvolution(definition, context);
  if (!fused)
    return llvm::Expected<Kernel>(fused.takeError());
  return llvm::Expected<Kernel>(std::move(fused->kernel));
}

} // namespace

const FusedFamily kFusedConvolution = {"convolution", check, build};

} // namespace cgc::cuda
