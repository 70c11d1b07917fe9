//===- ChannelsLast.cpp - 2-D convolutions on NHWC activations and OHWI weights ===//
//
// Runs before the compiler's stages, on Input IR. A convolution keeps its
// channels-first semantics; the pass surrounds it with transposes from and
// to NHWC and binds its constant weight permuted to OHWI, so every target
// still runs the model, and a target whose kernels prefer NHWC claims the
// transpose -> convolution -> transpose group as one kernel (which is why the
// transposes next to a convolution belong to it alone and are never folded).
//
// Between convolutions, values stay NHWC through elementwise layers, which
// are rewritten in place on the permuted shapes, and through 2-D max and
// average pools, which take a convolution's form (their own transposes
// around the unchanged pool) when their input is already NHWC: ResNet's
// stem pool then sits between the stem's NHWC result and the first block's
// convolutions, and a target with an NHWC pool kernel runs it without
// copying its input (51 MB in float16 at batch 32) and its result to and
// from NCHW. Any other reader of an NHWC value gets it back in NCHW through
// one shared transpose. Values are visited in program order, so when a
// layer is reached every operand already has its final form.
//
//===----------------------------------------------------------------------===//

#include "InputIREntryPoint.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

namespace cgc {
#define GEN_PASS_DEF_CHANNELSLAST
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {

std::optional<Layout> parseLayout(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Layout>>(name)
      .Case("auto", Layout::Auto)
      .Case("channels-first", Layout::ChannelsFirst)
      .Case("channels-last", Layout::ChannelsLast)
      .Default(std::nullopt);
}

llvm::StringRef getLayoutName(Layout layout) {
  switch (layout) {
  case Layout::Auto:
    return "auto";
  case Layout::ChannelsFirst:
    return "channels-first";
  case Layout::ChannelsLast:
    return "channels-last";
  }
  return "unknown";
}

Layout resolveLayout(Layout layout, llvm::ArrayRef<const Target *> targets, ModuleOp module) {
  if (layout != Layout::Auto)
    return layout;
  // Depthwise convolutions (groups = input channels = output channels) have
  // the CUDA driver's NHWC kernel; other grouped ones only cuDNN's.
  bool grouped = false;
  module->walk([&](op::ConvolutionOp conv) {
    auto input = cast<TensorType>(conv.getInput().getType());
    auto output = cast<TensorType>(conv.getResult().getType());
    if (input.getRank() != 4 || conv.getGroups() <= 1)
      return;
    bool depthwise = conv.getGroups() == input.getShape()[1] &&
                     conv.getGroups() == output.getShape()[1];
    if (!depthwise)
      grouped = true;
  });
  if (grouped)
    return Layout::ChannelsFirst;
  for (const Target *target : targets) {
    if (!target->declaration)
      continue;
    auto preferred =
        (*target->declaration)->getAttrOfType<StringAttr>(kPreferredLayoutAttr);
    if (preferred && preferred.getValue() == kChannelsLastLayout)
      return Layout::ChannelsLast;
  }
  return Layout::ChannelsFirst;
}

namespace {

/// NCHW -> NHWC of an activation, OIHW -> OHWI of a weight.
constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
/// NHWC -> NCHW, OHWI -> OIHW.
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};

SmallVector<int64_t> permute(ArrayRef<int64_t> shape, ArrayRef<int64_t> permutation) {
  return llvm::map_to_vector(permutation, [&](int64_t dimension) { return shape[dimension]; });
}

/// `type` transposed by `permutation`, as a layer result (never `constant`).
TensorType getTransposedType(TensorType type, ArrayRef<int64_t> permutation) {
  return type.cloneWith(permute(type.getShape(), permutation), type.getElementType())
      .withConstant(false);
}

/// Broadcasts against a rank-4 value without changing its shape, in either
/// layout: rank at most 4, every dimension 1.
bool isScalarLike(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && tensor.getRank() <= 4 &&
         llvm::all_of(tensor.getShape(), [](int64_t size) { return size == 1; });
}

bool isRank4Tensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && tensor.getRank() == 4;
}

/// Whether `op` is a transpose by `permutation`.
bool isTranspose(Operation *op, ArrayRef<int64_t> permutation) {
  auto transpose = dyn_cast_or_null<op::TransposeOp>(op);
  return transpose && ArrayRef<int64_t>(transpose.getPermutation()) == permutation;
}

/// Whether `convolution` already has the channels-last activations: its
/// input is a transpose to NCHW that only it reads, and its only user
/// transposes its result to NHWC (what this pass made, or a model exported
/// from NHWC that says so itself).
bool hasChannelsLastActivations(op::ConvolutionOp convolution) {
  Value input = convolution.getInput();
  Value output = convolution.getResult();
  return isTranspose(input.getDefiningOp(), kToChannelsFirst) && input.hasOneUse() &&
         output.hasOneUse() && isTranspose(*output.getUsers().begin(), kToChannelsLast);
}

/// Whether `op` is a max or average pool over two spatial dimensions (an
/// N×C×H×W input): the pools that take the convolutions' form.
bool isWindowPool2D(Operation *op) {
  return isa<op::MaxPoolOp, op::AveragePoolOp>(op) && isRank4Tensor(op->getOperand(0).getType());
}

class ChannelsLastConversion {
public:
  ChannelsLastConversion(EntryPointOp entry, LayoutReport &report)
      : body(&entry.getBody().front()), builder(entry.getContext()), report(report) {}

  void run();

private:
  /// A transpose of `value` by `permutation` at the builder's insertion point.
  Value transpose(Value value, ArrayRef<int64_t> permutation);
  /// The NHWC value of `value` for a reader before `user`: the one the pass
  /// holds, else a transpose shared by all readers.
  Value getChannelsLast(Value value, Operation *user);
  /// The NCHW value of the NHWC `value`: one transpose after its definition,
  /// shared by every reader that needs NCHW.
  Value getChannelsFirst(Value nhwc);
  /// `weight` (a cgc.constant's result) bound as OHWI: a constant of the same
  /// name with the permutation composed in, one per weight.
  Value getPermutedWeight(ConstantOp weight);
  /// Binds the convolution's constant weight as OHWI, transposed back.
  void convertWeight(op::ConvolutionOp convolution);
  /// Puts `convolution` in channels-last form; one whose activations already
  /// are gets only its weight converted.
  void convertConvolution(op::ConvolutionOp convolution);
  /// Puts the 2-D pool `pool`, whose input the pass holds in NHWC, in the
  /// convolutions' form.
  void convertPool(Operation *pool);
  /// Surrounds the layer `op`, whose activation input is operand 0 and
  /// whose result is its only result, with its own transpose of `nhwc` (the
  /// input's NHWC value) to NCHW and a transpose of its result to NHWC,
  /// which becomes the result's NHWC value.
  void surroundWithTransposes(Operation *op, Value nhwc);
  /// Whether the elementwise `op` computes on NHWC shapes, and with which
  /// operands (nulls for the scalar-like ones, which stay).
  std::optional<SmallVector<Value>> getChannelsLastOperands(Operation *op);
  void convertElementwise(Operation *op, ArrayRef<Value> operands);
  /// Gives every operand of `op` that the pass holds in NHWC its NCHW value.
  void readChannelsFirst(Operation *op);

  Block *body;
  OpBuilder builder;
  LayoutReport &report;
  /// Values of the model that the pass holds in NHWC, and their NHWC value:
  /// a convolution's result and the transpose reading it, or the result of
  /// an elementwise layer rewritten in place (itself).
  llvm::DenseMap<Value, Value> channelsLast;
  /// NHWC transposes of values the model computes in NCHW (convolution
  /// inputs), and NCHW transposes of NHWC values.
  llvm::DenseMap<Value, Value> materialized, channelsFirst;
  llvm::DenseMap<Value, Value> permutedWeights;
  llvm::SetVector<Operation *> replacedWeights;
};

Value ChannelsLastConversion::transpose(Value value, ArrayRef<int64_t> permutation) {
  auto type = cast<TensorType>(value.getType());
  ++report.numTransposes;
  return op::TransposeOp::create(builder, value.getLoc(), getTransposedType(type, permutation),
                                 value, builder.getI64ArrayAttr(permutation))
      .getResult();
}

Value ChannelsLastConversion::getChannelsLast(Value value, Operation *user) {
  if (Value nhwc = channelsLast.lookup(value))
    return nhwc;
  Value &cached = materialized[value];
  if (!cached) {
    // Before its first reader; later readers come later in the block.
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(user);
    cached = transpose(value, kToChannelsLast);
  }
  return cached;
}

Value ChannelsLastConversion::getChannelsFirst(Value nhwc) {
  Value &cached = channelsFirst[nhwc];
  if (!cached) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(nhwc);
    cached = transpose(nhwc, kToChannelsFirst);
  }
  return cached;
}

Value ChannelsLastConversion::getPermutedWeight(ConstantOp weight) {
  Value &cached = permutedWeights[weight.getResult()];
  if (cached)
    return cached;
  // Result dimension i of the new constant is result dimension
  // kToChannelsLast[i] of the old one, which is stored dimension
  // old[kToChannelsLast[i]].
  SmallVector<int64_t> stored = weight.getPermutationList();
  if (stored.empty())
    stored = llvm::to_vector(llvm::seq<int64_t>(0, 4));
  SmallVector<int64_t> permutation = permute(stored, kToChannelsLast);
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, 4)))
    permutation.clear();
  auto type = cast<TensorType>(weight.getType());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfter(weight);
  cached = ConstantOp::create(builder, weight.getLoc(),
                              type.cloneWith(permute(type.getShape(), kToChannelsLast),
                                             type.getElementType()),
                              weight.getName(), permutation)
               .getResult();
  replacedWeights.insert(weight);
  ++report.numPermutedConstants;
  return cached;
}

void ChannelsLastConversion::convertWeight(op::ConvolutionOp convolution) {
  auto weight = convolution.getWeight().getDefiningOp<ConstantOp>();
  if (!weight)
    return;
  Value ohwi = getPermutedWeight(weight);
  builder.setInsertionPoint(convolution);
  convolution.getWeightMutable().assign(transpose(ohwi, kToChannelsFirst));
}

void ChannelsLastConversion::surroundWithTransposes(Operation *op, Value nhwc) {
  builder.setInsertionPoint(op);
  op->getOpOperand(0).set(transpose(nhwc, kToChannelsFirst));
  Value output = op->getResult(0);
  builder.setInsertionPointAfter(op);
  channelsLast[output] = transpose(output, kToChannelsLast);
}

void ChannelsLastConversion::convertConvolution(op::ConvolutionOp convolution) {
  if (hasChannelsLastActivations(convolution)) {
    convertWeight(convolution);
    readChannelsFirst(convolution);
    return;
  }
  Value nhwc = getChannelsLast(convolution.getInput(), convolution);
  surroundWithTransposes(convolution, nhwc);
  convertWeight(convolution);
  // A weight or bias the pass holds in NHWC is read in NCHW.
  readChannelsFirst(convolution);
  ++report.numConvolutions;
}

void ChannelsLastConversion::convertPool(Operation *pool) {
  surroundWithTransposes(pool, channelsLast.lookup(pool->getOperand(0)));
  ++report.numPools;
}

std::optional<SmallVector<Value>>
ChannelsLastConversion::getChannelsLastOperands(Operation *op) {
  if (!op->hasTrait<op::OpTrait::Elementwise>() || op->getNumResults() != 1 ||
      !isRank4Tensor(op->getResult(0).getType()))
    return std::nullopt;
  auto resultType = cast<TensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> nhwcShape = permute(shape, kToChannelsLast);
  auto hasShape = [](Value value, ArrayRef<int64_t> shape) {
    return cast<TensorType>(value.getType()).getShape() == shape;
  };
  SmallVector<Value> operands;
  bool readsChannelsLast = false;
  for (Value operand : op->getOperands()) {
    if (Value nhwc = channelsLast.lookup(operand)) {
      // Held in NHWC: of the result's shape, or scalar-like (all ones in
      // either layout; read through its NHWC value, as the contract leaves
      // a convolution result to its transpose alone).
      if (hasShape(nhwc, nhwcShape))
        readsChannelsLast = true;
      else if (!isScalarLike(nhwc.getType()))
        return std::nullopt;
      operands.push_back(nhwc);
    } else if (isScalarLike(operand.getType())) {
      operands.push_back(nullptr);
    } else if (Value nhwc = materialized.lookup(operand); nhwc && hasShape(nhwc, nhwcShape)) {
      // A convolution input the layer also reads (a residual shortcut):
      // its NHWC transpose exists already.
      operands.push_back(nhwc);
    } else {
      return std::nullopt;
    }
  }
  // Layers that only read materialized values stay NCHW: moving them would
  // add a transpose back for their readers.
  if (!readsChannelsLast)
    return std::nullopt;
  return operands;
}

void ChannelsLastConversion::convertElementwise(Operation *op, ArrayRef<Value> operands) {
  for (auto [operand, nhwc] : llvm::zip_equal(op->getOpOperands(), operands))
    if (nhwc)
      operand.set(nhwc);
  OpResult result = op->getResult(0);
  result.setType(getTransposedType(cast<TensorType>(result.getType()), kToChannelsLast));
  channelsLast[result] = result;
  ++report.numElementwiseLayers;
}

void ChannelsLastConversion::readChannelsFirst(Operation *op) {
  for (OpOperand &operand : op->getOpOperands())
    if (Value nhwc = channelsLast.lookup(operand.get()))
      operand.set(getChannelsFirst(nhwc));
}

void ChannelsLastConversion::run() {
  SmallVector<Operation *> operations =
      llvm::map_to_vector(*body, [](Operation &op) { return &op; });
  for (Operation *op : operations) {
    auto convolution = dyn_cast<op::ConvolutionOp>(op);
    if (convolution && isRank4Tensor(convolution.getInput().getType())) {
      convertConvolution(convolution);
    } else if (isWindowPool2D(op) && channelsLast.count(op->getOperand(0))) {
      // A pool of an NCHW value stays: the form would only move its
      // input's transpose, onto the larger tensor.
      convertPool(op);
    } else if (std::optional<SmallVector<Value>> operands = getChannelsLastOperands(op)) {
      convertElementwise(op, *operands);
    } else {
      readChannelsFirst(op);
    }
  }
  for (Operation *weight : replacedWeights)
    if (weight->use_empty())
      weight->erase();
}

} // namespace

LogicalResult convertToChannelsLast(ModuleOp module, LayoutReport *report) {
  LayoutReport local;
  LayoutReport &out = report ? *report : local;
  out = LayoutReport();
  out.layout = Layout::ChannelsLast;
  FailureOr<EntryPointOp> entry = getConvertibleEntryPoint(module, "the channels-last conversion");
  if (failed(entry))
    return failure();
  module.getContext()->getOrLoadDialect<op::CGCOpDialect>();
  ChannelsLastConversion(*entry, out).run();
  if (failed(verify(module)))
    return module.emitError() << "the model in channels-last form does not verify";
  return success();
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct ChannelsLastPass : impl::ChannelsLastBase<ChannelsLastPass> {
  using ChannelsLastBase::ChannelsLastBase;
  void runOnOperation() override {
    if (failed(compiler::convertToChannelsLast(getOperation())))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
