//===- ConvertPrecision.cpp - a float32 model computed in float16 or bfloat16 ===//
//
// Runs before the compiler's stages, on Input IR: every float32 tensor value
// of the entry point takes the target type, so every layer computes in it
// (the kernels accumulate in float32), while the model's signature stays
// float32: casts convert the inputs after the entry point's arguments and the
// results before `cgc.return`. Float32 constants take the target type too;
// the runtime converts their data once, when it uploads the weights.
//
// A few layers stay float32 (`isKeptInFloat32`): their result grows with the
// length of the axis they run along, which the model does not bound. Casts
// lead into them and out of them, created once per value and only where a
// value crosses between float32 and the target. Casts that end up converting
// a value to its own type are removed, which also makes the conversion
// idempotent: converting a converted model changes nothing.
//
//===----------------------------------------------------------------------===//

#include "InputIREntryPoint.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace cgc {
#define GEN_PASS_DEF_CONVERTPRECISION
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {

std::optional<Precision> parsePrecision(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Precision>>(name)
      .Case("float32", Precision::Float32)
      .Case("float16", Precision::Float16)
      .Case("bfloat16", Precision::BFloat16)
      .Default(std::nullopt);
}

llvm::StringRef getPrecisionName(Precision precision) {
  switch (precision) {
  case Precision::Float32:
    return "float32";
  case Precision::Float16:
    return "float16";
  case Precision::BFloat16:
    return "bfloat16";
  }
  return "unknown";
}

bool isKeptInFloat32(Operation *op) {
  return isa<op::ReduceSumOp, op::ReduceProdOp, op::CumSumOp>(op);
}

namespace {

bool isFloat32Tensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && isa<Float32Type>(tensor.getElementType());
}

/// Converts one entry point. Values are visited in program order, so when a
/// layer is reached every operand already has its final type: a float32
/// operand of a converted layer is a value that stays float32 (an input, a
/// kept layer's result, a constant only kept layers read), and an operand in
/// `converted` read by a kept layer or returned needs its float32 again.
class PrecisionConversion {
public:
  PrecisionConversion(EntryPointOp entry, Precision precision, PrecisionReport &report)
      : body(&entry.getBody().front()), builder(entry.getContext()), report(report) {
    MLIRContext *context = entry.getContext();
    float32 = Float32Type::get(context);
    target = precision == Precision::Float16 ? Type(Float16Type::get(context))
                                             : Type(BFloat16Type::get(context));
    // Types carry float32 as a tensor's element type or alone (a cast's `to`).
    replacer.addReplacement([this](Float32Type) -> Type { return target; });
  }

  void run();

private:
  /// A cast of `value`, which stays float32, to the target type; one per
  /// value, after its definition.
  Value toTarget(Value value);
  /// A cast of the converted `value` back to float32, before `user` (the
  /// first user that needs it; later ones reuse it).
  Value toFloat32(Value value, Operation *user);
  void convertConstant(ConstantOp constant);
  void convertLayer(Operation *op);
  void keepLayer(Operation *op);
  void convertReturn(ReturnOp returnOp);
  /// Removes the casts between float32 or target-typed tensors whose
  /// operand already has the result's type (up to the `constant` qualifier).
  void removeIdentityCasts();

  Block *body;
  OpBuilder builder;
  PrecisionReport &report;
  Type float32, target;
  AttrTypeReplacer replacer;

  /// Values that were float32 and now have the target type.
  llvm::DenseSet<Value> converted;
  llvm::DenseMap<Value, Value> targetCasts, float32Casts;
  /// The last cast placed after each definition (null: the block's
  /// arguments), so that casts of one definition stay in creation order.
  llvm::DenseMap<Operation *, Operation *> lastCastAfter;
};

Value PrecisionConversion::toTarget(Value value) {
  Value &cached = targetCasts[value];
  if (cached)
    return cached;
  OpBuilder::InsertionGuard guard(builder);
  Operation *definition = value.getDefiningOp();
  Operation *&last = lastCastAfter[definition];
  if (last)
    builder.setInsertionPointAfter(last);
  else if (definition)
    builder.setInsertionPointAfter(definition);
  else
    builder.setInsertionPointToStart(body);
  auto type = llvm::cast<TensorType>(value.getType());
  // Layer results are never `constant`, a cast of a constant included.
  auto castOp = op::CastOp::create(builder, value.getLoc(),
                                   type.cloneWith(std::nullopt, target).withConstant(false), value,
                                   TypeAttr::get(target));
  last = castOp;
  ++report.numCastsInserted;
  cached = castOp.getResult();
  return cached;
}

Value PrecisionConversion::toFloat32(Value value, Operation *user) {
  Value &cached = float32Casts[value];
  if (cached)
    return cached;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(user);
  auto type = llvm::cast<TensorType>(value.getType());
  cached = op::CastOp::create(builder, value.getLoc(),
                              type.cloneWith(std::nullopt, float32).withConstant(false), value,
                              TypeAttr::get(float32))
               .getResult();
  ++report.numCastsInserted;
  return cached;
}

void PrecisionConversion::convertConstant(ConstantOp constant) {
  Value result = constant.getResult();
  if (!isFloat32Tensor(result.getType()))
    return;
  // Data only float32 readers use keeps its precision.
  bool readInTarget = llvm::any_of(result.getUsers(), [](Operation *user) {
    return !isa<ReturnOp>(user) && !isKeptInFloat32(user);
  });
  if (!readInTarget)
    return;
  result.setType(replacer.replace(result.getType()));
  converted.insert(result);
  ++report.numConvertedValues;
  ++report.numConvertedConstants;
}

void PrecisionConversion::convertLayer(Operation *op) {
  for (OpOperand &operand : op->getOpOperands())
    if (isFloat32Tensor(operand.get().getType()))
      operand.set(toTarget(operand.get()));
  for (OpResult result : op->getResults()) {
    if (!isFloat32Tensor(result.getType()))
      continue;
    result.setType(replacer.replace(result.getType()));
    converted.insert(result);
    ++report.numConvertedValues;
  }
  // Attributes that name float32 (a cast's `to`, or any other type
  // attribute) follow the values.
  for (NamedAttribute attribute : op->getAttrs()) {
    Attribute replaced = replacer.replace(attribute.getValue());
    if (replaced != attribute.getValue())
      op->setAttr(attribute.getName(), replaced);
  }
}

void PrecisionConversion::keepLayer(Operation *op) {
  bool computesFloat32 = llvm::any_of(op->getResultTypes(), isFloat32Tensor);
  for (OpOperand &operand : op->getOpOperands()) {
    if (converted.contains(operand.get())) {
      operand.set(toFloat32(operand.get(), op));
      computesFloat32 = true;
    } else if (isFloat32Tensor(operand.get().getType())) {
      computesFloat32 = true;
    }
  }
  if (computesFloat32)
    ++report.numFloat32Layers;
}

void PrecisionConversion::convertReturn(ReturnOp returnOp) {
  // A converted value was float32, as the entry point's result type says.
  for (OpOperand &operand : returnOp->getOpOperands())
    if (converted.contains(operand.get()))
      operand.set(toFloat32(operand.get(), returnOp));
}

void PrecisionConversion::removeIdentityCasts() {
  for (auto castOp : llvm::make_early_inc_range(body->getOps<op::CastOp>())) {
    TensorType input = castOp.getInput().getType(), result = castOp.getType();
    // Only casts between the types this pass deals in; a cast of a
    // constant differs from its result in the qualifier alone (cgc.return
    // needs the result's type, layers take either).
    Type element = result.getElementType();
    if ((element != target && element != float32) ||
        input.withConstant(false) != result.withConstant(false) ||
        (input != result && llvm::any_of(castOp->getUsers(), llvm::IsaPred<ReturnOp>)))
      continue;
    castOp.getResult().replaceAllUsesWith(castOp.getInput());
    castOp.erase();
    ++report.numCastsRemoved;
  }
}

void PrecisionConversion::run() {
  SmallVector<Operation *> operations =
      llvm::map_to_vector(*body, [](Operation &op) { return &op; });
  for (Operation *op : operations) {
    if (auto constant = dyn_cast<ConstantOp>(op))
      convertConstant(constant);
    else if (auto returnOp = dyn_cast<ReturnOp>(op))
      convertReturn(returnOp);
    else if (isKeptInFloat32(op))
      keepLayer(op);
    else
      convertLayer(op);
  }
  removeIdentityCasts();
}

} // namespace

LogicalResult convertPrecision(ModuleOp module, Precision precision, PrecisionReport *report) {
  PrecisionReport local;
  PrecisionReport &out = report ? *report : local;
  out = PrecisionReport();
  out.precision = precision;
  if (precision == Precision::Float32)
    return success();
  FailureOr<EntryPointOp> entry = getConvertibleEntryPoint(module, "precision conversion");
  if (failed(entry))
    return failure();
  module.getContext()->getOrLoadDialect<op::CGCOpDialect>();
  PrecisionConversion(*entry, precision, out).run();
  if (failed(verify(module)))
    return module.emitError() << "the model converted to " << getPrecisionName(precision)
                              << " does not verify";
  return success();
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct ConvertPrecisionPass : impl::ConvertPrecisionBase<ConvertPrecisionPass> {
  using ConvertPrecisionBase::ConvertPrecisionBase;
  void runOnOperation() override {
    std::optional<compiler::Precision> precision = compiler::parsePrecision(to);
    if (!precision || *precision == compiler::Precision::Float32) {
      getOperation().emitError() << "cgc-convert-precision: option 'to' must be float16 or "
                                    "bfloat16, got '"
                                 << to << "'";
      return signalPassFailure();
    }
    if (failed(compiler::convertPrecision(getOperation(), *precision)))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
