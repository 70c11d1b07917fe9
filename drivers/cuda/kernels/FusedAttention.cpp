//===- FusedAttention.cpp - attention written out as layers, as one kernel ===//
//
// Exporters write scaled-dot-product attention as layers (patterns/
// attention.mlir):
//
//   q' = q or mul(q, a)           kᵀ' = kᵀ or mul(kᵀ, b)
//   scores = matmul(q', kᵀ')
//   scores = add/sub/mul/div(scores, x) ...  (scaling, additive masks)
//   p = softmax(scores, last axis)
//   p = where(p != p, r, p)         (optional: torch's NaN guard, r one element)
//   out = matmul(p, v)
//
// (BERT divides the scores by √E and adds its mask; torch's exporter of
// scaled_dot_product_attention multiplies q and kᵀ by √scale each and adds
// the mask.) The definition is read backwards from its result into an
// AttentionPlan and runs as the attention kernel (AttentionKernel.h), kᵀ
// read in the layout the matmul gets: the flash kernel, or cuBLASLt
// products around a softmax kernel, whichever is faster. A definition
// whose result is not matmul(softmax(...), ...) is not this family's; one
// that is, but has a detail the kernel lacks, is an error naming it.
//
// Exporters split the heads out of [batch, sequence, heads · E] with a
// reshape and a transpose before attention and merge them back after it
// (BERT: transpose[0,2,1,3](reshape(x)); ViT: reshape(transpose(reshape(x))),
// the result through transpose[2,0,1,3] and a reshape). torch's
// nn.MultiheadAttention first splits q, k and v out of one projection
// [S, B, 3·H·E]: reshapes, a transpose bringing the 3 to the front, and a
// cgc_op.gather of index 0, 1 or 2 each. Those layers only move elements,
// so the kernel does them itself: chains of cgc_op.transpose,
// cgc_op.reshape and gathers of a one-element index argument from a
// definition argument to a matmul operand (or to a scaling mul's operand,
// or a score layer's) compose into the operand's view (StridedView.h; a
// gather's index becomes a selection the kernel reads on the device, as
// constants are bound only at dispatch), and a chain of transposes and
// reshapes from the last matmul to the result into the plan's output
// view, where each element of attention's result is written. The chains
// of q, k and v may share their first layers. A reshape that strides
// cannot express is an error naming it.
//
//===----------------------------------------------------------------------===//

#include "FusedAttention.h"
#include "FusedSupport.h"
#include "StridedView.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace cgc::cuda {

using namespace cgc::op;

namespace {

constexpr const char *kFamily = "attention";

/// A definition argument and the cgc_op.transpose, cgc_op.reshape and
/// cgc_op.gather (of a one-element index argument) layers that lead from it
/// to a value, in order (none: the argument).
struct ArgumentChain {
  mlir::BlockArgument argument;
  llvm::SmallVector<mlir::Operation *, 4> layers;
};

/// The shape of `value` (a cgc tensor).
llvm::ArrayRef<int64_t> getShape(mlir::Value value) {
  return llvm::cast<TensorType>(value.getType()).getShape();
}

/// `layers` (transposes, reshapes and gathers of a one-element index
/// argument, whose number names the selection's source) as StridedView.h's
/// layers.
llvm::SmallVector<ViewLayer, 4> toViewLayers(llvm::ArrayRef<mlir::Operation *> layers) {
  llvm::SmallVector<ViewLayer, 4> viewLayers;
  for (mlir::Operation *layer : layers) {
    if (auto transpose = llvm::dyn_cast<TransposeOp>(layer)) {
      viewLayers.push_back(ViewLayer::transpose(getTransposePermutation(transpose)));
    } else if (auto gather = llvm::dyn_cast<GatherOp>(layer)) {
      auto index = llvm::cast<mlir::BlockArgument>(gather.getIndices());
      int64_t axis = normalizeAxis(static_cast<int64_t>(gather.getAxis()),
                                   static_cast<int64_t>(getShape(gather.getData()).size()));
      viewLayers.push_back(
          ViewLayer::select(axis, index.getArgNumber(), getShape(gather.getIndices())));
    } else {
      viewLayers.push_back(ViewLayer::reshape(getShape(layer->getResult(0))));
    }
  }
  return viewLayers;
}

/// "2x3x5x8".
std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  for (auto [index, size] : llvm::enumerate(shape))
    text += (index ? "x" : "") + std::to_string(size);
  return text.empty() ? "a scalar" : text;
}

/// "cgc_op.reshape of 2x3x5x8 to 2x15x8".
std::string describeReshape(mlir::Operation *reshape) {
  return (reshape->getName().getStringRef() + " of " +
          formatShape(getShape(reshape->getOperand(0))) + " to " +
          formatShape(getShape(reshape->getResult(0))))
      .str();
}

/// Why reading through `layer`, the one composeViews names, is not a view.
std::string describeUnreadableLayer(mlir::Operation *layer) {
  if (auto gather = llvm::dyn_cast<GatherOp>(layer))
    return (gather->getName().getStringRef() + " of " + formatShape(getShape(gather.getData())) +
            " along axis " + llvm::Twine(static_cast<int64_t>(gather.getAxis())) +
            ", which selects from an empty dimension,")
        .str();
  return describeReshape(layer) + ", which merges dimensions that are not contiguous in memory,";
}

/// Whether `view` walks `view.shape` densely (strides of size-1
/// dimensions do not count).
bool isDense(const StridedView &view) {
  StridedView dense = StridedView::dense(view.shape);
  for (auto [size, stride, denseStride] : llvm::zip(view.shape, view.strides, dense.strides))
    if (size != 1 && stride != denseStride)
      return false;
  return true;
}

/// Reads one definition into an AttentionPlan.
class AttentionReader {
public:
  explicit AttentionReader(FunctionalDefinitionOp definition) : definition(definition) {}

  /// std::nullopt: not attention's shape; otherwise the plan or the error
  /// naming what the kernel lacks.
  std::optional<llvm::Expected<AttentionPlan>> read();
  /// After a successful read: the matmul computing Q·Kᵀ (library errors
  /// name it).
  MatmulOp getScoresLayer() const { return scores; }

private:
  llvm::Error fail(const llvm::Twine &message) {
    return makeFusedError(definition, kFamily, message);
  }
  llvm::Error unimplemented(const llvm::Twine &what) {
    return fail(what + " is not implemented on the CUDA driver");
  }
  /// The definition argument `value` is, or null.
  mlir::BlockArgument getArgument(mlir::Value value) {
    auto argument = llvm::dyn_cast<mlir::BlockArgument>(value);
    return argument && argument.getOwner() == &definition.getBody().front() ? argument : nullptr;
  }
  /// The definition argument `value` is, seen through transposes,
  /// reshapes and gathers of a one-element index argument, or
  /// std::nullopt.
  std::optional<ArgumentChain> traceArgument(mlir::Value value);
  /// The view over `targetShape` of `chain` (its argument seen through its
  /// layers, which become covered); `role` ("query") names it in errors.
  llvm::Expected<AttentionView> makeView(const ArgumentChain &chain,
                                         llvm::ArrayRef<int64_t> targetShape,
                                         llvm::StringRef role);
  /// A matmul operand: a definition argument or the product of two, each
  /// possibly through transposes and reshapes.
  llvm::Expected<AttentionOperand> readMatrixOperand(mlir::Value value, const char *role,
                                                     llvm::ArrayRef<int64_t> targetShape);
  /// The score layers between the product and the softmax; sets `scores`
  /// to the matmul computing the product.
  llvm::Error readScoreSteps(mlir::Value softmaxInput, llvm::ArrayRef<int64_t> targetShape);
  /// Sets plan.output to where `layers` (from the last matmul, of
  /// `attentionShape`, to the result) put each element of the attention.
  llvm::Error readOutputLayers(llvm::ArrayRef<mlir::Operation *> layers,
                               llvm::ArrayRef<int64_t> attentionShape);

  FunctionalDefinitionOp definition;
  AttentionPlan plan;
  MatmulOp scores;
  /// The layers read so far.
  llvm::SmallPtrSet<mlir::Operation *, 8> covered;
};

std::optional<ArgumentChain> AttentionReader::traceArgument(mlir::Value value) {
  ArgumentChain chain;
  // A gather of one index given as an argument selects a slice: a view.
  auto isSelection = [&](mlir::Operation *layer) {
    auto gather = llvm::dyn_cast<GatherOp>(layer);
    return gather && getArgument(gather.getIndices()) &&
           getNumElements(getShape(gather.getIndices())) == 1;
  };
  while (!(chain.argument = getArgument(value))) {
    mlir::Operation *layer = value.getDefiningOp();
    if (!layer || !(llvm::isa<TransposeOp, ReshapeOp>(layer) || isSelection(layer)))
      return std::nullopt;
    chain.layers.push_back(layer);
    value = layer->getOperand(0);
  }
  std::reverse(chain.layers.begin(), chain.layers.end());
  return chain;
}

llvm::Expected<AttentionView> AttentionReader::makeView(const ArgumentChain &chain,
                                                        llvm::ArrayRef<int64_t> targetShape,
                                                        llvm::StringRef role) {
  mlir::BlockArgument argument = chain.argument;
  auto type = llvm::cast<TensorType>(argument.getType());
  std::optional<DType> dtype = toDType(type.getElementType());
  if (!dtype || *dtype != plan.dtype) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type.getElementType();
    return fail("argument " + llvm::Twine(argument.getArgNumber()) + " of element type " + text +
                " next to " + getDTypeName(plan.dtype) + " tensors" +
                " is not implemented on the CUDA driver");
  }
  size_t failed = 0;
  std::optional<StridedView> view =
      composeViews(StridedView::dense(type.getShape()), toViewLayers(chain.layers), &failed);
  if (!view)
    return unimplemented("reading the " + role + " through " +
                         describeUnreadableLayer(chain.layers[failed]));
  if (view->shape.size() > targetShape.size())
    return fail("argument " + llvm::Twine(argument.getArgNumber()) +
                " has more dimensions than the attention");
  std::optional<llvm::SmallVector<int64_t, 6>> strides = broadcastView(*view, targetShape);
  if (!strides)
    return fail("the " + role + " does not broadcast to the attention");
  covered.insert(chain.layers.begin(), chain.layers.end());
  AttentionView result;
  result.input = argument.getArgNumber();
  result.dtype = *dtype;
  result.batchStrides.assign(strides->begin(), strides->end() - 2);
  result.rowStride = strides->end()[-2];
  result.columnStride = strides->back();
  for (const ViewSelection &selection : view->selections) {
    mlir::Type indexType =
        llvm::cast<TensorType>(definition.getBody().getArgument(selection.source).getType())
            .getElementType();
    std::optional<DType> indexDType = toDType(indexType);
    if (!indexDType || (*indexDType != DType::I32 && *indexDType != DType::I64)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << indexType;
      return unimplemented("a gather index of element type " + text);
    }
    result.selections.push_back({selection.source, *indexDType, selection.size, selection.stride});
  }
  return result;
}

llvm::Expected<AttentionOperand>
AttentionReader::readMatrixOperand(mlir::Value value, const char *role,
                                   llvm::ArrayRef<int64_t> targetShape) {
  AttentionOperand operand;
  if (std::optional<ArgumentChain> chain = traceArgument(value)) {
    auto view = makeView(*chain, targetShape, role);
    if (!view)
      return view.takeError();
    operand.view = *view;
    return operand;
  }
  auto mul = value.getDefiningOp<MulOp>();
  std::optional<ArgumentChain> lhs, rhs;
  if (mul) {
    lhs = traceArgument(mul.getLhs());
    rhs = traceArgument(mul.getRhs());
  }
  if (!lhs || !rhs)
    return unimplemented(llvm::Twine("a ") + role +
                         " that is neither an argument nor the product of two");
  covered.insert(mul);
  auto view = makeView(*lhs, targetShape, role);
  if (!view)
    return view.takeError();
  auto factor = makeView(*rhs, targetShape, role);
  if (!factor)
    return factor.takeError();
  operand.view = *view;
  operand.factor = *factor;
  return operand;
}

llvm::Error AttentionReader::readScoreSteps(mlir::Value softmaxInput,
                                            llvm::ArrayRef<int64_t> targetShape) {
  llvm::ArrayRef<int64_t> scoresShape = getShape(softmaxInput);
  llvm::SmallVector<AttentionScoreStep, 4> reversed;
  mlir::Value current = softmaxInput;
  while (true) {
    mlir::Operation *layer = current.getDefiningOp();
    if (!layer)
      return unimplemented("a softmax of an argument");
    if (auto matmul = llvm::dyn_cast<MatmulOp>(layer)) {
      scores = matmul;
      covered.insert(matmul);
      break;
    }
    AttentionScoreStep step;
    if (llvm::isa<AddOp>(layer))
      step.kind = AttentionScoreStep::Kind::Add;
    else if (llvm::isa<SubOp>(layer))
      step.kind = AttentionScoreStep::Kind::Subtract;
    else if (llvm::isa<MulOp>(layer))
      step.kind = AttentionScoreStep::Kind::Multiply;
    else if (llvm::isa<DivOp>(layer))
      step.kind = AttentionScoreStep::Kind::Divide;
    else
      return unimplemented(layer->getName().getStringRef() + " between the scores and the softmax");
    if (getShape(layer->getResult(0)) != scoresShape)
      return unimplemented(layer->getName().getStringRef() +
                           " broadcasting the scores to another shape");
    mlir::Value lhs = layer->getOperand(0), rhs = layer->getOperand(1);
    // The scores never trace back to an argument (they come from the matmul).
    std::optional<ArgumentChain> lhsChain = traceArgument(lhs), rhsChain = traceArgument(rhs);
    mlir::Value previous;
    std::string role = (layer->getName().getStringRef() + "'s operand").str();
    if (lhs == rhs) {
      previous = lhs;
    } else if (rhsChain && !lhsChain) {
      previous = lhs;
      auto view = makeView(*rhsChain, targetShape, role);
      if (!view)
        return view.takeError();
      step.operand = *view;
    } else if (lhsChain && !rhsChain) {
      previous = rhs;
      step.scoreIsLhs = false;
      auto view = makeView(*lhsChain, targetShape, role);
      if (!view)
        return view.takeError();
      step.operand = *view;
    } else {
      return unimplemented(layer->getName().getStringRef() +
                           " whose other operand is not a definition argument");
    }
    if (getShape(previous) != scoresShape)
      return unimplemented(layer->getName().getStringRef() + " of a broadcast score");
    covered.insert(layer);
    reversed.push_back(std::move(step));
    current = previous;
  }
  plan.steps.assign(reversed.rbegin(), reversed.rend());
  return llvm::Error::success();
}

llvm::Error AttentionReader::readOutputLayers(llvm::ArrayRef<mlir::Operation *> layers,
                                              llvm::ArrayRef<int64_t> attentionShape) {
  covered.insert(layers.begin(), layers.end());
  if (layers.empty())
    return llvm::Error::success();
  size_t failed = 0;
  std::optional<StridedView> placed =
      composeInverseViews(attentionShape, toViewLayers(layers), &failed);
  if (!placed)
    return unimplemented("writing the result through " + describeReshape(layers[failed]) +
                         ", whose dimensions later layers do not keep contiguous,");
  // Reshapes alone (merging [B, H] into B·H, say) leave the result dense:
  // the plan stays as it was without them.
  if (isDense(*placed))
    return llvm::Error::success();
  AttentionView output;
  output.dtype = plan.dtype;
  output.batchStrides.assign(placed->strides.begin(), placed->strides.end() - 2);
  output.rowStride = placed->strides.end()[-2];
  output.columnStride = placed->strides.back();
  plan.output = std::move(output);
  return llvm::Error::success();
}

std::optional<llvm::Expected<AttentionPlan>> AttentionReader::read() {
  using Result = std::optional<llvm::Expected<AttentionPlan>>;
  if (definition.getBody().empty())
    return std::nullopt;
  mlir::Block &body = definition.getBody().front();
  mlir::Operation *terminator = body.getTerminator();
  if (!terminator || terminator->getNumOperands() != 1)
    return std::nullopt;
  // Transposes and reshapes between the last matmul and the result (the
  // heads merged back), in order.
  llvm::SmallVector<mlir::Operation *, 4> outputLayers;
  mlir::Value attentionResult = terminator->getOperand(0);
  while (mlir::Operation *layer = attentionResult.getDefiningOp()) {
    if (!llvm::isa<TransposeOp, ReshapeOp>(layer))
      break;
    outputLayers.push_back(layer);
    attentionResult = layer->getOperand(0);
  }
  std::reverse(outputLayers.begin(), outputLayers.end());
  auto output = attentionResult.getDefiningOp<MatmulOp>();
  if (!output)
    return std::nullopt;
  // torch's exporter guards the probabilities: where(p != p, r, p).
  WhereOp guard = output.getLhs().getDefiningOp<WhereOp>();
  NotEqualOp isNan;
  mlir::Value probabilities = output.getLhs();
  if (guard) {
    isNan = guard.getCondition().getDefiningOp<NotEqualOp>();
    if (!isNan || isNan.getLhs() != isNan.getRhs() || isNan.getLhs() != guard.getY())
      return std::nullopt;
    probabilities = guard.getY();
  }
  auto softmax = probabilities.getDefiningOp<SoftmaxOp>();
  if (!softmax)
    return std::nullopt;
  // From here on the definition has attention's shape.
  covered.insert(output);
  covered.insert(softmax);
  if (guard) {
    covered.insert(guard);
    covered.insert(isNan);
    mlir::BlockArgument replacement = getArgument(guard.getX());
    if (!replacement ||
        getNumElements(llvm::cast<TensorType>(replacement.getType()).getShape()) != 1)
      return Result(unimplemented(
          "a NaN guard on the probabilities whose replacement is not a one-element argument"));
    plan.nanReplacementInput = replacement.getArgNumber();
  }
  auto outputType = llvm::cast<TensorType>(output.getType());
  std::optional<DType> dtype = toDType(outputType.getElementType());
  if (!dtype || !isFloat32ComputedDType(*dtype)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << outputType.getElementType();
    return Result(unimplemented("element type " + text));
  }
  plan.dtype = *dtype;
  for (mlir::BlockArgument argument : body.getArguments()) {
    std::optional<DType> argumentType =
        toDType(llvm::cast<TensorType>(argument.getType()).getElementType());
    plan.inputTypes.push_back(argumentType.value_or(plan.dtype));
  }

  llvm::ArrayRef<int64_t> scoresShape = getShape(softmax.getInput());
  llvm::ArrayRef<int64_t> valueShape = getShape(output.getRhs());
  llvm::ArrayRef<int64_t> outputShape = outputType.getShape();
  int64_t scoresRank = static_cast<int64_t>(scoresShape.size());
  if (scoresRank < 2 || valueShape.size() < 2 || outputShape.size() < 2)
    return Result(unimplemented("attention over vectors (1-D matmul operands)"));
  if (normalizeAxis(static_cast<int64_t>(softmax.getAxis()), scoresRank) != scoresRank - 1)
    return Result(unimplemented("a softmax over axis " +
                                llvm::Twine(static_cast<int64_t>(softmax.getAxis())) +
                                " (not the last of " + llvm::Twine(scoresRank) + ")"));
  plan.batch.assign(outputShape.begin(), outputShape.end() - 2);
  plan.queries = scoresShape.end()[-2];
  plan.keys = scoresShape.back();
  plan.valueEmbedding = valueShape.back();
  auto target = [&](int64_t rows, int64_t columns) {
    Shape shape(plan.batch);
    shape.append({rows, columns});
    return shape;
  };

  if (llvm::Error error = readOutputLayers(outputLayers, outputShape))
    return Result(std::move(error));

  std::optional<ArgumentChain> valueChain = traceArgument(output.getRhs());
  if (!valueChain)
    return Result(unimplemented("a value that is not a definition argument"));
  auto value = makeView(*valueChain, target(plan.keys, plan.valueEmbedding), "value");
  if (!value)
    return Result(value.takeError());
  plan.value = *value;

  if (llvm::Error error = readScoreSteps(softmax.getInput(), target(plan.queries, plan.keys)))
    return Result(std::move(error));
  llvm::ArrayRef<int64_t> queryShape = getShape(scores.getLhs());
  llvm::ArrayRef<int64_t> keyShape = getShape(scores.getRhs());
  if (queryShape.size() < 2 || keyShape.size() < 2)
    return Result(unimplemented("attention over vectors (1-D matmul operands)"));
  plan.embedding = queryShape.back();
  auto query = readMatrixOperand(scores.getLhs(), "query", target(plan.queries, plan.embedding));
  if (!query)
    return Result(query.takeError());
  plan.query = *query;
  // The matmul's right operand is Kᵀ [..., E, S], read as it is laid out.
  auto key =
      readMatrixOperand(scores.getRhs(), "transposed key", target(plan.embedding, plan.keys));
  if (!key)
    return Result(key.takeError());
  plan.key = *key;

  for (mlir::Operation &layer : body.without_terminator())
    if (!covered.contains(&layer))
      return Result(unimplemented(layer.getName().getStringRef() + " next to the attention"));
  if (std::optional<std::string> what = getUnimplementedAttentionFeature(plan))
    return Result(unimplemented(*what));
  return Result(std::move(plan));
}

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<AttentionPlan>> plan = readFusedAttention(definition);
  if (!plan)
    return std::nullopt;
  if (!*plan)
    return plan->takeError();
  return llvm::Error::success();
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  std::optional<llvm::Expected<AttentionPlanKernel>> built =
      buildFusedAttention(definition, context);
  if (!built)
    return std::nullopt;
  if (!*built)
    return llvm::Expected<Kernel>(built->takeError());
  return llvm::Expected<Kernel>(std::move((*built)->kernel));
}

} // namespace

std::optional<llvm::Expected<AttentionPlan>> readFusedAttention(FunctionalDefinitionOp definition) {
  return AttentionReader(definition).read();
}

std::optional<llvm::Expected<AttentionPlanKernel>>
buildFusedAttention(FunctionalDefinitionOp definition, KernelContext::Impl &context,
                    const AttentionBuildOptions &options) {
  using Result = std::optional<llvm::Expected<AttentionPlanKernel>>;
  AttentionReader reader(definition);
  std::optional<llvm::Expected<AttentionPlan>> plan = reader.read();
  if (!plan)
    return std::nullopt;
  if (!*plan)
    return Result(plan->takeError());
  std::string name = ("@" + definition.getSymName() + ": fused attention").str();
  return Result(buildAttentionPlanKernel(**plan, context, name, reader.getScoresLayer(), options));
}

const FusedFamily kFusedAttention = {"attention", check, build};

} // namespace cgc::cuda
