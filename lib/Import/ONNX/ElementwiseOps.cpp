//===- ElementwiseOps.cpp - activations, arithmetic, comparisons, logic ----===//
//
// ONNX elementwise ops: one `cgc_op` layer where one exists, otherwise the
// decomposition ONNX's own function body or reference implementation states
// (Elu, Selu, Softplus, Mish, ...), built from layers and named scalar
// constants.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <limits>

namespace cgc::importer {

namespace {

using namespace cgc::op;

/// Sum, Max, Min: a left fold of the binary layer over every input.
template <typename OpTy>
Converter variadic() {
  return [](NodeContext &node) -> llvm::Error {
    if (node.getNumInputs() == 0)
      return node.error("needs at least one input");
    LayerEmitter emitter(node);
    mlir::Value result = emitter.input(0);
    for (unsigned i = 1; i < node.getNumInputs(); ++i)
      result = emitter.emit<OpTy>({result, emitter.input(i)});
    if (node.getNumInputs() == 1)
      result = emitter.reshape(result, emitter.input(0) ? getTensorType(result).getShape()
                                                        : llvm::ArrayRef<int64_t>());
    return emitter.finish(0, result);
  };
}

/// An identity layer: outputs of the graph must be produced by a layer, and
/// a plain forward keeps the input's value.
llvm::Error convertIdentity(NodeContext &node) {
  node.forwardInput(0, 0);
  return llvm::Error::success();
}

llvm::Error convertDropout(NodeContext &node) {
  // Inference: Dropout is the identity. Training mode must be off.
  if (node.opset >= 12 && node.hasInput(2)) {
    llvm::Expected<const Literal *> training = node.requireLiteral(2, "training_mode");
    if (!training)
      return training.takeError();
    if ((*training)->getNumElements() != 1 || (*training)->getInt(0) != 0)
      return node.error("training_mode=true is out of scope (inference only)");
  }
  if (node.opset < 7)
    if (llvm::Expected<int64_t> isTest = node.getInt("is_test", 0); !isTest || !*isTest)
      return isTest ? node.error("is_test=0 (training) is out of scope") : isTest.takeError();
  node.forwardInput(0, 0);
  // Inference keeps every element: the mask is all true (all ones before
  // opset 10, where it has the input's type).
  if (node.isOutputUsed(1)) {
    std::vector<int64_t> shape = node.getInputShape(0);
    std::optional<uint64_t> count = getElementCount(shape);
    if (!count || *count > kMaxFoldedElements)
      return node.error("the dropout mask of " + formatShape(shape) + " is too large to fold");
    node.setOutput(1, Literal::fromInts(node.opset >= 10 ? kBool : node.getInputType(0), shape,
                                        std::vector<int64_t>(*count, 1)));
  }
  return llvm::Error::success();
}

llvm::Error convertCast(NodeContext &node, int32_t to) {
  std::optional<cgc::runtime::DType> dtype = getDTypeOf(to);
  if (!dtype)
    return node.error("cast to " + getONNXTypeName(to) + ", which CGC IR does not have");
  LayerEmitter emitter(node);
  mlir::Value input = emitter.input(0);
  if (input && getDTypeOf(getTensorType(input).getElementType()) == dtype)
    return emitter.finish(0, emitter.reshape(input, getTensorType(input).getShape()));
  return emitter.finish(0, emitter.emit<CastOp>({input}, {node.namedType(
                                                             "to", getElementType(
                                                                       node.getContext(), *dtype))}));
}

llvm::Error convertClip(NodeContext &node) {
  std::optional<double> min, max;
  if (node.opset < 11) {
    llvm::Expected<std::optional<double>> minAttribute = node.getOptionalFloat("min");
    if (!minAttribute)
      return minAttribute.takeError();
    llvm::Expected<std::optional<double>> maxAttribute = node.getOptionalFloat("max");
    if (!maxAttribute)
      return maxAttribute.takeError();
    if (*minAttribute)
      min = **minAttribute;
    if (*maxAttribute)
      max = **maxAttribute;
  } else {
    for (unsigned i : {1u, 2u}) {
      if (!node.hasInput(i))
        continue;
      llvm::Expected<const Literal *> bound = node.requireLiteral(i, i == 1 ? "min" : "max");
      if (!bound)
        return bound.takeError();
      if ((*bound)->getNumElements() != 1)
        return node.error(llvm::Twine(i == 1 ? "min" : "max") + " must be a scalar");
      (i == 1 ? min : max) = (*bound)->getDouble(0);
    }
  }
  llvm::SmallVector<mlir::NamedAttribute> attributes;
  if (min)
    attributes.push_back(node.namedF64("min", *min));
  if (max)
    attributes.push_back(node.namedF64("max", *max));
  LayerEmitter emitter(node);
  mlir::Value input = emitter.input(0);
  // ONNX allows min > max (every element becomes max); cgc_op.clip does not.
  if (min && max && *min > *max)
    return emitter.finish(0, emitter.emit<ClipOp>({input}, {node.namedF64("min", *max),
                                                            node.namedF64("max", *max)}));
  return emitter.finish(0, emitter.emit<ClipOp>({input}, attributes));
}

llvm::Error convertLeakyRelu(NodeContext &node) {
  llvm::Expected<double> alpha = node.getFloat("alpha", 0.01f);
  if (!alpha)
    return alpha.takeError();
  LayerEmitter emitter(node);
  return emitter.finish(0, emitter.emit<LeakyReluOp>({emitter.input(0)},
                                                     {node.namedF64("alpha", *alpha)}));
}

llvm::Error convertHardSigmoid(NodeContext &node) {
  llvm::Expected<double> alpha = node.getFloat("alpha", 0.2f);
  if (!alpha)
    return alpha.takeError();
  llvm::Expected<double> beta = node.getFloat("beta", 0.5f);
  if (!beta)
    return beta.takeError();
  LayerEmitter emitter(node);
  return emitter.finish(0, emitter.emit<HardSigmoidOp>(
                               {emitter.input(0)},
                               {node.namedF64("alpha", *alpha), node.namedF64("beta", *beta)}));
}

llvm::Error convertGelu(NodeContext &node) {
  llvm::Expected<std::string> approximate = node.getString("approximate", "none");
  if (!approximate)
    return approximate.takeError();
  if (*approximate != "none" && *approximate != "tanh")
    return node.error("approximate='" + *approximate + "' is not a Gelu mode");
  LayerEmitter emitter(node);
  return emitter.finish(0, emitter.emit<GeluOp>({emitter.input(0)},
                                                {node.namedString("approximate", *approximate)}));
}

/// Elu: x if x > 0 else alpha * (exp(x) - 1).
llvm::Error convertElu(NodeContext &node) {
  llvm::Expected<double> alpha = node.getFloat("alpha", 1.0f);
  if (!alpha)
    return alpha.takeError();
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  mlir::Value zero = e.scalarLike(x, 0.0);
  mlir::Value negative = e.emit<MulOp>(
      {e.scalarLike(x, *alpha), e.emit<SubOp>({e.emit<ExpOp>({x}), e.scalarLike(x, 1.0)})});
  return e.finish(0, e.emit<WhereOp>({e.emit<GreaterOp>({x, zero}), x, negative}));
}

/// Selu: gamma * (x if x > 0 else alpha * exp(x) - alpha).
llvm::Error convertSelu(NodeContext &node) {
  llvm::Expected<double> alpha = node.getFloat("alpha", 1.67326319217681884765625f);
  if (!alpha)
    return alpha.takeError();
  llvm::Expected<double> gamma = node.getFloat("gamma", 1.05070102214813232421875f);
  if (!gamma)
    return gamma.takeError();
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  mlir::Value alphaValue = e.scalarLike(x, *alpha);
  mlir::Value negative =
      e.emit<SubOp>({e.emit<MulOp>({alphaValue, e.emit<ExpOp>({x})}), alphaValue});
  mlir::Value selected =
      e.emit<WhereOp>({e.emit<GreaterOp>({x, e.scalarLike(x, 0.0)}), x, negative});
  return e.finish(0, e.emit<MulOp>({e.scalarLike(x, *gamma), selected}));
}

/// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
llvm::Error convertCelu(NodeContext &node) {
  llvm::Expected<double> alpha = node.getFloat("alpha", 1.0f);
  if (!alpha)
    return alpha.takeError();
  if (*alpha == 0)
    return node.error("alpha=0 divides by zero");
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  mlir::Value alphaValue = e.scalarLike(x, *alpha);
  mlir::Value zero = e.scalarLike(x, 0.0);
  mlir::Value expm1 =
      e.emit<SubOp>({e.emit<ExpOp>({e.emit<DivOp>({x, alphaValue})}), e.scalarLike(x, 1.0)});
  return e.finish(0, e.emit<AddOp>({e.emit<MaxOp>({zero, x}),
                                    e.emit<MinOp>({zero, e.emit<MulOp>({alphaValue, expm1})})}));
}

/// ThresholdedRelu: x if x > alpha else 0.
llvm::Error convertThresholdedRelu(NodeContext &node) {
  llvm::Expected<double> alpha = node.getFloat("alpha", 1.0f);
  if (!alpha)
    return alpha.takeError();
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  return e.finish(0, e.emit<WhereOp>({e.emit<GreaterOp>({x, e.scalarLike(x, *alpha)}), x,
                                      e.scalarLike(x, 0.0)}));
}

/// Softplus: log(exp(x) + 1), as ONNX's reference computes it.
mlir::Value emitSoftplus(LayerEmitter &e, mlir::Value x) {
  return e.emit<LogOp>({e.emit<AddOp>({e.emit<ExpOp>({x}), e.scalarLike(x, 1.0)})});
}

llvm::Error convertSoftplus(NodeContext &node) {
  LayerEmitter e(node);
  return e.finish(0, emitSoftplus(e, e.input(0)));
}

/// Softsign: x / (1 + |x|).
llvm::Error convertSoftsign(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  return e.finish(0, e.emit<DivOp>({x, e.emit<AddOp>({e.scalarLike(x, 1.0), e.emit<AbsOp>({x})})}));
}

/// Mish: x * tanh(softplus(x)).
llvm::Error convertMish(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  return e.finish(0, e.emit<MulOp>({x, e.emit<TanhOp>({emitSoftplus(e, x)})}));
}

/// Shrink: x + bias where x < -lambd, x - bias where x > lambd, else 0.
llvm::Error convertShrink(NodeContext &node) {
  llvm::Expected<double> bias = node.getFloat("bias", 0.0f);
  if (!bias)
    return bias.takeError();
  llvm::Expected<double> lambd = node.getFloat("lambd", 0.5f);
  if (!lambd)
    return lambd.takeError();
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  mlir::Value above = e.emit<WhereOp>({e.emit<GreaterOp>({x, e.scalarLike(x, *lambd)}),
                                       e.emit<SubOp>({x, e.scalarLike(x, *bias)}),
                                       e.scalarLike(x, 0.0)});
  return e.finish(0, e.emit<WhereOp>({e.emit<LessOp>({x, e.scalarLike(x, -*lambd)}),
                                      e.emit<AddOp>({x, e.scalarLike(x, *bias)}), above}));
}

/// Sign: 1, 0 or -1 (of the input's type).
llvm::Error convertSign(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  mlir::Value zero = e.scalarLike(x, 0.0);
  mlir::Value negative = e.emit<WhereOp>({e.emit<LessOp>({x, zero}), e.scalarLike(x, -1.0), zero});
  return e.finish(0, e.emit<WhereOp>({e.emit<GreaterOp>({x, zero}), e.scalarLike(x, 1.0), negative}));
}

/// IsNaN: x != x.
llvm::Error convertIsNaN(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  return e.finish(0, e.emit<NotEqualOp>({x, x}));
}

/// IsInf: x == +inf and/or x == -inf.
llvm::Error convertIsInf(NodeContext &node) {
  llvm::Expected<int64_t> positive = node.getInt("detect_positive", 1);
  if (!positive)
    return positive.takeError();
  llvm::Expected<int64_t> negative = node.getInt("detect_negative", 1);
  if (!negative)
    return negative.takeError();
  LayerEmitter e(node);
  mlir::Value x = e.input(0);
  double inf = std::numeric_limits<double>::infinity();
  mlir::Value isPositive = e.emit<EqualOp>({x, e.scalarLike(x, inf)});
  mlir::Value isNegative = e.emit<EqualOp>({x, e.scalarLike(x, -inf)});
  if (*positive && *negative)
    return e.finish(0, e.emit<OrOp>({isPositive, isNegative}));
  if (*positive)
    return e.finish(0, isPositive);
  if (*negative)
    return e.finish(0, isNegative);
  // Neither: all false (no element is both).
  return e.finish(0, e.emit<AndOp>({isPositive, isNegative}));
}

/// Pow: the exponent takes the base's element type (ONNX allows both to differ).
llvm::Error convertPow(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value base = e.input(0), exponent = e.input(1);
  if (base && exponent &&
      LayerEmitter::getElementTypeOf(base) != LayerEmitter::getElementTypeOf(exponent))
    exponent = e.emit<CastOp>({exponent}, {node.namedType("to", LayerEmitter::getElementTypeOf(base))});
  return e.finish(0, e.emit<PowOp>({base, exponent}));
}

/// Mean: the sum divided by the number of inputs.
llvm::Error convertMean(NodeContext &node) {
  if (node.getNumInputs() == 0)
    return node.error("needs at least one input");
  LayerEmitter e(node);
  mlir::Value sum = e.input(0);
  for (unsigned i = 1; i < node.getNumInputs(); ++i)
    sum = e.emit<AddOp>({sum, e.input(i)});
  return e.finish(0, e.emit<DivOp>({sum, e.scalarLike(sum, node.getNumInputs())}));
}

/// And / Or with one operand a known constant of the op's identity (every
/// element true for And, false for Or) is the other operand, expanded to the
/// result's shape where the constant made it larger: transformers' masks AND
/// a folded all-true query mask [1, 1, L, 1] with the padding mask [B, 1,
/// 1, L], and as an expand the broadcast can move past the layers after it
/// (cgc-sink-broadcasts) instead of materializing B·L·L elements.
template <typename OpTy, bool identity>
Converter logicalWithIdentity() {
  return [](NodeContext &node) -> llvm::Error {
    if (node.getNumInputs() != 2)
      return node.error("expects 2 inputs, got " + llvm::Twine(node.getNumInputs()));
    for (unsigned known = 0; known < 2; ++known) {
      const Literal *literal = node.getLiteral(known);
      unsigned other = 1 - known;
      if (!literal || node.getLiteral(other))
        continue;
      bool allIdentity = true;
      for (uint64_t i = 0, count = literal->getNumElements(); i < count && allIdentity; ++i)
        allIdentity = (literal->getInt(i) != 0) == identity;
      std::optional<std::vector<int64_t>> shape =
          broadcastShapes(node.getInputShape(0), node.getInputShape(1));
      if (!allIdentity || !shape)
        continue;
      LayerEmitter e(node);
      mlir::Value value = e.input(other);
      if (*shape != node.getInputShape(other))
        value = e.emit<ExpandOp>({value}, {node.namedI64s("shape", *shape)});
      return e.finish(0, value);
    }
    return binary<OpTy>()(node);
  };
}

llvm::Error convertWhere(NodeContext &node) {
  LayerEmitter e(node);
  return e.finish(0, e.emit<WhereOp>({e.input(0), e.input(1), e.input(2)}));
}

llvm::Error convertPRelu(NodeContext &node) {
  LayerEmitter e(node);
  return e.finish(0, e.emit<PReluOp>({e.input(0), e.input(1)}));
}

/// GreaterOrEqual / LessOrEqual are layers; before opset 12 they did not
/// exist in ONNX, but the layers serve both.
template <typename OpTy>
Converter comparison() {
  return binary<OpTy>();
}

/// DequantizeLinear: (x - zero_point) * scale, computed in float32 as ONNX's
/// reference does; per-tensor or per-axis.
llvm::Error convertDequantizeLinear(NodeContext &node) {
  llvm::Expected<int64_t> axisAttribute = node.getInt("axis", 1);
  if (!axisAttribute)
    return axisAttribute.takeError();
  if (node.hasAttribute("block_size"))
    if (llvm::Expected<int64_t> block = node.getInt("block_size", 0); !block || *block != 0)
      return block ? node.error("blocked dequantization (block_size) is not implemented")
                   : block.takeError();
  LayerEmitter e(node);
  mlir::Value x = e.input(0), scale = e.input(1);
  mlir::Value zeroPoint = node.hasInput(2) ? e.input(2) : mlir::Value();
  if (!x || !scale)
    return e.takeError();
  int64_t rank = getTensorType(x).getRank();
  std::vector<int64_t> scaleShape = getTensorType(scale).getShape().vec();
  mlir::Type floatType = LayerEmitter::getElementTypeOf(scale);
  auto toBroadcast = [&](mlir::Value value) -> mlir::Value {
    // A 1-D per-axis parameter lines up with `axis` of x.
    if (!value || getTensorType(value).getRank() != 1 || rank <= 1)
      return value;
    llvm::Expected<int64_t> axis = normalizeAxis(node, *axisAttribute, rank);
    if (!axis) {
      e.fail(axis.takeError());
      return {};
    }
    std::vector<int64_t> shape(rank, 1);
    shape[*axis] = getTensorType(value).getShape()[0];
    return e.reshape(value, shape);
  };
  mlir::Value real = e.emit<CastOp>({x}, {node.namedType("to", floatType)});
  if (zeroPoint)
    real = e.emit<SubOp>(
        {real, toBroadcast(e.emit<CastOp>({zeroPoint}, {node.namedType("to", floatType)}))});
  return e.finish(0, e.emit<MulOp>({real, toBroadcast(scale)}));
}

} // namespace

void registerElementwiseConverters(llvm::StringMap<Converter> &converters) {
  converters["Relu"] = unary<ReluOp>();
  converters["Sigmoid"] = unary<SigmoidOp>();
  converters["Tanh"] = unary<TanhOp>();
  converters["Erf"] = unary<ErfOp>();
  converters["Exp"] = unary<ExpOp>();
  converters["Log"] = unary<LogOp>();
  converters["Sqrt"] = unary<SqrtOp>();
  converters["Reciprocal"] = unary<ReciprocalOp>();
  converters["Neg"] = unary<NegOp>();
  converters["Abs"] = unary<AbsOp>();
  converters["Not"] = unary<NotOp>();
  converters["HardSwish"] = unary<HardSwishOp>();
  converters["LeakyRelu"] = convertLeakyRelu;
  converters["HardSigmoid"] = convertHardSigmoid;
  converters["Gelu"] = convertGelu;
  converters["Elu"] = convertElu;
  converters["Selu"] = convertSelu;
  converters["Celu"] = convertCelu;
  converters["ThresholdedRelu"] = convertThresholdedRelu;
  converters["Softplus"] = convertSoftplus;
  converters["Softsign"] = convertSoftsign;
  converters["Mish"] = convertMish;
  converters["Sign"] = convertSign;
  converters["Shrink"] = convertShrink;
  converters["IsNaN"] = convertIsNaN;
  converters["IsInf"] = convertIsInf;
  converters["Clip"] = convertClip;
  converters["Identity"] = convertIdentity;
  converters["Dropout"] = convertDropout;
  converters["Cast"] = [](NodeContext &node) -> llvm::Error {
    llvm::Expected<std::optional<int64_t>> to = node.getOptionalInt("to");
    if (!to)
      return to.takeError();
    if (!*to)
      return node.error("attribute 'to' is missing");
    return convertCast(node, static_cast<int32_t>(**to));
  };
  converters["CastLike"] = [](NodeContext &node) -> llvm::Error {
    if (!node.hasInput(1))
      return node.error("target_type (input 1) is missing");
    return convertCast(node, node.getInputType(1));
  };

  converters["Add"] = binary<AddOp>();
  converters["Sub"] = binary<SubOp>();
  converters["Mul"] = binary<MulOp>();
  converters["Div"] = binary<DivOp>();
  converters["Pow"] = convertPow;
  converters["Equal"] = comparison<EqualOp>();
  converters["Less"] = comparison<LessOp>();
  converters["LessOrEqual"] = comparison<LessEqualOp>();
  converters["Greater"] = comparison<GreaterOp>();
  converters["GreaterOrEqual"] = comparison<GreaterEqualOp>();
  converters["And"] = logicalWithIdentity<AndOp, true>();
  converters["Or"] = logicalWithIdentity<OrOp, false>();
  converters["Xor"] = binary<XorOp>();
  converters["Max"] = variadic<MaxOp>();
  converters["Min"] = variadic<MinOp>();
  converters["Sum"] = variadic<AddOp>();
  converters["Mean"] = convertMean;
  converters["Where"] = convertWhere;
  converters["PRelu"] = convertPRelu;
  converters["DequantizeLinear"] = convertDequantizeLinear;
}

} // namespace cgc::importer
