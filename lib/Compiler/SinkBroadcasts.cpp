//===- SinkBroadcasts.cpp - compute before broadcasting -------------------===//
//
// Exporters broadcast early: transformers builds BERT's attention mask as
// where(expand(mask, [B, 1, 128, 128]), 0, min) and adds it to the scores,
// so the where computes B·128·128 elements of which B·128 differ, and the
// attention reads a mask row per query. Elementwise layers broadcast their
// operands themselves (numpy's rule), so a cgc_op.expand read by one is
// either redundant (the layer's result keeps its shape without it: the
// layer reads the expand's input) or can move after the layer (every
// operand that made the result large was an expand: the layer computes on
// the small shape and one expand follows it). Expands of expands compose,
// and an expand to its input's own shape is its input. Repeated until
// nothing changes, the mask's expand ends up folded into the scores' add.
//
//===----------------------------------------------------------------------===//

#include "InputIREntryPoint.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"
#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCOp/IR/Broadcast.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/STLExtras.h"

namespace cgc {
#define GEN_PASS_DEF_SINKBROADCASTS
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {

namespace {

/// A static shape, or nothing.
std::optional<ArrayRef<int64_t>> getStaticShape(Type type) {
  auto shaped = llvm::dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  return shaped.getShape();
}

/// The result type `layer` infers for `operands`, or nothing.
std::optional<Type> inferResultType(Operation *layer, ValueRange operands) {
  auto inference = llvm::dyn_cast<InferTypeOpInterface>(layer);
  if (!inference || layer->getNumResults() != 1)
    return std::nullopt;
  SmallVector<Type, 1> types;
  if (failed(inference.inferReturnTypes(layer->getContext(), layer->getLoc(), operands,
                                        layer->getRawDictionaryAttrs(),
                                        layer->getPropertiesStorage(), layer->getRegions(),
                                        types)) ||
      types.size() != 1)
    return std::nullopt;
  return types.front();
}

/// expand(x) to x's own type is x; expand(expand(x)) is one expand of x.
bool simplifyExpand(op::ExpandOp expand) {
  if (expand.getInput().getType() == expand.getType()) {
    expand.getResult().replaceAllUsesWith(expand.getInput());
    expand->erase();
    return true;
  }
  auto inner = expand.getInput().getDefiningOp<op::ExpandOp>();
  if (!inner)
    return false;
  // The outer result's shape is a broadcast of the inner result's, which
  // is one of the inner input's: x expands to it directly.
  std::optional<ArrayRef<int64_t>> shape = getStaticShape(expand.getType());
  if (!shape)
    return false;
  OpBuilder builder(expand);
  Value direct = op::ExpandOp::create(builder, expand.getLoc(), inner.getInput(),
                                      builder.getI64ArrayAttr(*shape))
                     .getResult();
  if (direct.getType() != expand.getType()) {
    direct.getDefiningOp()->erase();
    return false;
  }
  expand.getResult().replaceAllUsesWith(direct);
  expand->erase();
  if (inner->use_empty())
    inner->erase();
  return true;
}

/// An elementwise `layer` reading expands: reads their inputs instead where
/// its result keeps its type; else, where its result gets smaller with the
/// same element type, computes on the smaller shape and expands after.
bool sinkIntoLayer(Operation *layer) {
  if (!layer->hasTrait<op::OpTrait::Elementwise>() || layer->getNumResults() != 1)
    return false;
  SmallVector<Value, 3> operands(layer->getOperands());
  SmallVector<op::ExpandOp, 3> expands;
  for (Value &operand : operands)
    if (auto expand = operand.getDefiningOp<op::ExpandOp>()) {
      expands.push_back(expand);
      operand = expand.getInput();
    }
  if (expands.empty())
    return false;
  Type oldType = layer->getResult(0).getType();
  std::optional<Type> newType = inferResultType(layer, operands);
  std::optional<ArrayRef<int64_t>> oldShape = getStaticShape(oldType);
  if (!newType || !oldShape)
    return false;
  auto eraseUnused = [&] {
    for (op::ExpandOp expand : expands)
      if (expand->use_empty())
        expand->erase();
  };
  if (*newType == oldType) {
    layer->setOperands(operands);
    eraseUnused();
    return true;
  }
  std::optional<ArrayRef<int64_t>> newShape = getStaticShape(*newType);
  if (!newShape || llvm::cast<ShapedType>(*newType).getElementType() !=
                       llvm::cast<ShapedType>(oldType).getElementType() ||
      !op::broadcastsTo(*newShape, *oldShape))
    return false;
  OpBuilder builder(layer);
  Operation *small = builder.clone(*layer);
  small->setOperands(operands);
  small->getResult(0).setType(*newType);
  Value expanded = op::ExpandOp::create(builder, layer->getLoc(), small->getResult(0),
                                        builder.getI64ArrayAttr(*oldShape))
                       .getResult();
  if (expanded.getType() != oldType) {
    expanded.getDefiningOp()->erase();
    small->erase();
    return false;
  }
  layer->getResult(0).replaceAllUsesWith(expanded);
  layer->erase();
  eraseUnused();
  return true;
}

} // namespace

FailureOr<unsigned> sinkBroadcasts(ModuleOp module) {
  FailureOr<EntryPointOp> entry = getConvertibleEntryPoint(module, "sinking broadcasts");
  if (failed(entry))
    return failure();
  Block &body = entry->getBody().front();
  unsigned rewrites = 0;
  for (bool changed = true; changed;) {
    changed = false;
    // A rewrite erases the layer it is at and expands before it, and
    // inserts before it: the walk's next operation stays.
    for (Operation &layer : llvm::make_early_inc_range(body)) {
      auto expand = llvm::dyn_cast<op::ExpandOp>(layer);
      if (expand ? simplifyExpand(expand) : sinkIntoLayer(&layer)) {
        ++rewrites;
        changed = true;
      }
    }
  }
  return rewrites;
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct SinkBroadcastsPass : impl::SinkBroadcastsBase<SinkBroadcastsPass> {
  void runOnOperation() override {
    if (failed(compiler::sinkBroadcasts(getOperation())))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
