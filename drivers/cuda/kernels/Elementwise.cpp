//===- Elementwise.cpp - unary, binary, cast, where and prelu layers ------===//
//
// Each layer becomes a C++ expression of its operands' compute values (the
// CPU kernels' ElementwiseFunctions.h and ElementwiseMath.cpp, operation for
// operation, so that float results round the same way) and one generated
// strided kernel (ElementwiseCodegen.h) over the broadcast output. Element
// types outside a layer's domain are rejected exactly where the CPU driver
// rejects them. The fused kernels evaluate the same expressions inline
// (getCheckedElementwiseExpression).
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>
#include <optional>

namespace cgc::cuda {

using namespace cgc::op;

namespace {
/// The element types a layer takes.
enum class Domain {
  Float,   // floating-point
  Signed,  // floating-point or signed integer
  Numeric, // floating-point or integer
  Integer, // integer
  Bool,    // bool
  Any,     // every type
  FMod,    // mod with fmod: integer or floating-point
};

/// A layer's expression on operand values x0 (and x1), and its domain.
struct ElementwiseCode {
  Domain domain;
  std::string expression;
  bool boolResult = false;
};
} // namespace

static bool inDomain(Domain domain, DType dtype) {
  switch (domain) {
  case Domain::Float:
    return isFloatDType(dtype);
  case Domain::Signed:
    return isFloatDType(dtype) || isSignedIntegerDType(dtype);
  case Domain::Numeric:
  case Domain::FMod:
    return dtype != DType::Bool;
  case Domain::Integer:
    return isIntegerDType(dtype);
  case Domain::Bool:
    return dtype == DType::Bool;
  case Domain::Any:
    return true;
  }
  return false;
}

/// A clip bound for integer type `dtype`, as the CPU kernel takes it: bounds
/// beyond the type's range do not clamp.
static std::string integerClipBound(DType dtype, double bound, bool isLow) {
  std::string type = getComputeType(dtype);
  unsigned bits = 8 * getByteWidth(dtype);
  if (isUnsignedIntegerDType(dtype)) {
    uint64_t highest =
        bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t(1) << bits) - 1;
    if (isLow && bound <= 0.0)
      return unsignedLiteral(0, type);
    if (!isLow && bound >= static_cast<double>(highest))
      return unsignedLiteral(highest, type);
    return unsignedLiteral(static_cast<uint64_t>(bound), type);
  }
  int64_t highest =
      bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
  int64_t lowest = -highest - 1;
  if (isLow && bound <= static_cast<double>(lowest))
    return signedLiteral(lowest, type);
  if (!isLow && bound >= static_cast<double>(highest))
    return signedLiteral(highest, type);
  return signedLiteral(static_cast<int64_t>(bound), type);
}

//===----------------------------------------------------------------------===//
// Unary layers
//===----------------------------------------------------------------------===//

/// The code of a unary layer on x0 of `dtype`, or nullopt when `op` is not
/// one.
static std::optional<ElementwiseCode> getUnaryCode(mlir::Operation *op, DType dtype) {
  std::string c = getComputeType(dtype);
  bool isFloat = isFloatDType(dtype);
  auto fn = [&](llvm::StringRef name) { return mathFunction(name, dtype); };
  auto lit = [&](double value) { return floatLiteral(value, c); };
  auto one = "(" + c + ")1", zero = "(" + c + ")0";
  using R = std::optional<ElementwiseCode>;
  auto floatCall = [&](llvm::StringRef name) -> R {
    return ElementwiseCode{Domain::Float, fn(name) + "(x0)"};
  };
  return llvm::TypeSwitch<mlir::Operation *, R>(op)
      .Case([&](ReluOp) -> R {
        return ElementwiseCode{Domain::Signed, "cgc_relu(x0)"};
      })
      .Case([&](LeakyReluOp leaky) -> R {
        double alpha = leaky.getAlpha().convertToDouble();
        return ElementwiseCode{Domain::Float,
                               "(x0 >= " + zero + " ? x0 : " + lit(alpha) + " * x0)"};
      })
      .Case([&](SigmoidOp) -> R {
        return ElementwiseCode{Domain::Float,
                               "(" + one + " / (" + one + " + " + fn("exp") + "(-x0)))"};
      })
      .Case([&](TanhOp) { return floatCall("tanh"); })
      .Case([&](GeluOp gelu) -> R {
        std::string half = "(" + c + ")0.5";
        if (gelu.getApproximate() == "tanh")
          return ElementwiseCode{Domain::Float, "(" + half + " * x0 * (" + one + " + " +
                                                    fn("tanh") + "(" + lit(0.79788456080286536) +
                                                    " * (x0 + " + lit(0.044715) +
                                                    " * x0 * x0 * x0))))"};
        // 16-bit storage: a cheaper erf within its rounding (DeviceCode.cpp).
        if (dtype == DType::F16 || dtype == DType::BF16)
          return ElementwiseCode{Domain::Float, "cgc_gelu16(x0)"};
        return ElementwiseCode{Domain::Float, "(" + half + " * x0 * (" + one + " + " + fn("erf") +
                                                  "(x0 * " + lit(0.70710678118654752) + ")))"};
      })
      .Case([&](ErfOp) { return floatCall("erf"); })
      .Case([&](ExpOp) { return floatCall("exp"); })
      .Case([&](LogOp) { return floatCall("log"); })
      .Case([&](SqrtOp) { return floatCall("sqrt"); })
      .Case([&](ReciprocalOp) -> R {
        return ElementwiseCode{Domain::Float, "(" + one + " / x0)"};
      })
      .Case([&](NegOp) -> R {
        return ElementwiseCode{Domain::Signed, isFloat ? "(-x0)" : "cgc_wrap_neg(x0)"};
      })
      .Case([&](AbsOp) -> R {
        return ElementwiseCode{Domain::Signed, isFloat
                                                   ? fn("fabs") + "(x0)"
                                                   : "(x0 < " + zero + " ? cgc_wrap_neg(x0) : x0)"};
      })
      .Case([&](ClipOp clip) -> R {
        double min = clip.getMin() ? clip.getMin()->convertToDouble() : -INFINITY;
        double max = clip.getMax() ? clip.getMax()->convertToDouble() : INFINITY;
        if (isFloat)
          return ElementwiseCode{Domain::Numeric,
                                 "cgc_clip(x0, " + lit(min) + ", " + lit(max) + ")"};
        if (!isIntegerDType(dtype))
          return ElementwiseCode{Domain::Numeric, "x0"};
        return ElementwiseCode{Domain::Numeric, "cgc_clip(x0, " +
                                                    integerClipBound(dtype, min, true) + ", " +
                                                    integerClipBound(dtype, max, false) + ")"};
      })
      .Case([&](HardSigmoidOp hard) -> R {
        return ElementwiseCode{Domain::Float, "cgc_std_min(" + one + ", cgc_std_max(" + zero +
                                                  ", " + lit(hard.getAlpha().convertToDouble()) +
                                                  " * x0 + " +
                                                  lit(hard.getBeta().convertToDouble()) + "))"};
      })
      .Case([&](HardSwishOp) -> R {
        return ElementwiseCode{Domain::Float, "(x0 * cgc_std_min(" + one + ", cgc_std_max(" + zero +
                                                  ", x0 * (" + one + " / (" + c + ")6) + (" + c +
                                                  ")0.5)))"};
      })
      .Case([&](NotOp) -> R {
        return ElementwiseCode{Domain::Bool, "(!x0)"};
      })
      .Case([&](FloorOp) { return floatCall("floor"); })
      .Case([&](CeilOp) { return floatCall("ceil"); })
      .Case([&](RoundOp) -> R {
        return ElementwiseCode{Domain::Float, "cgc_round_even(x0)"};
      })
      .Case([&](SinOp) { return floatCall("sin"); })
      .Case([&](CosOp) { return floatCall("cos"); })
      .Case([&](TanOp) { return floatCall("tan"); })
      .Case([&](AsinOp) { return floatCall("asin"); })
      .Case([&](AcosOp) { return floatCall("acos"); })
      .Case([&](AtanOp) { return floatCall("atan"); })
      .Case([&](SinhOp) { return floatCall("sinh"); })
      .Case([&](CoshOp) { return floatCall("cosh"); })
      .Case([&](AsinhOp) { return floatCall("asinh"); })
      .Case([&](AcoshOp) { return floatCall("acosh"); })
      .Case([&](AtanhOp) { return floatCall("atanh"); })
      .Case([&](BitwiseNotOp) -> R {
        return ElementwiseCode{Domain::Integer, "(" + c + ")(~x0)"};
      })
      .Default([](mlir::Operation *) -> R { return std::nullopt; });
}

//===----------------------------------------------------------------------===//
// Binary layers
//===----------------------------------------------------------------------===//

static std::optional<ElementwiseCode> getBinaryCode(mlir::Operation *op, DType dtype) {
  std::string c = getComputeType(dtype);
  bool isFloat = isFloatDType(dtype);
  auto arithmetic = [&](const char *symbol, const char *wrapping) {
    return ElementwiseCode{Domain::Numeric, isFloat ? std::string("(x0 ") + symbol + " x1)"
                                                    : std::string(wrapping) + "(x0, x1)"};
  };
  auto compare = [&](const char *symbol, Domain domain) {
    return ElementwiseCode{domain, std::string("(x0 ") + symbol + " x1)", true};
  };
  auto bitwise = [&](const char *symbol) {
    return ElementwiseCode{Domain::Integer, "(" + c + ")((unsigned long long)x0 " + symbol +
                                                " (unsigned long long)x1)"};
  };
  using R = std::optional<ElementwiseCode>;
  return llvm::TypeSwitch<mlir::Operation *, R>(op)
      .Case([&](AddOp) -> R { return arithmetic("+", "cgc_wrap_add"); })
      .Case([&](SubOp) -> R { return arithmetic("-", "cgc_wrap_sub"); })
      .Case([&](MulOp) -> R { return arithmetic("*", "cgc_wrap_mul"); })
      .Case([&](DivOp) -> R { return arithmetic("/", "cgc_int_div"); })
      .Case([&](PowOp) -> R {
        return ElementwiseCode{Domain::Signed, isFloat ? mathFunction("pow", dtype) + "(x0, x1)"
                                                       : "cgc_int_pow(x0, x1)"};
      })
      .Case([&](MaxOp) -> R {
        return ElementwiseCode{Domain::Numeric, "cgc_max(x0, x1)"};
      })
      .Case([&](MinOp) -> R {
        return ElementwiseCode{Domain::Numeric, "cgc_min(x0, x1)"};
      })
      .Case([&](EqualOp) -> R { return compare("==", Domain::Any); })
      .Case([&](NotEqualOp) -> R { return compare("!=", Domain::Any); })
      .Case([&](LessOp) -> R { return compare("<", Domain::Numeric); })
      .Case([&](LessEqualOp) -> R { return compare("<=", Domain::Numeric); })
      .Case([&](GreaterOp) -> R { return compare(">", Domain::Numeric); })
      .Case([&](GreaterEqualOp) -> R { return compare(">=", Domain::Numeric); })
      .Case([&](AndOp) -> R {
        return ElementwiseCode{Domain::Bool, "(x0 && x1)"};
      })
      .Case([&](OrOp) -> R {
        return ElementwiseCode{Domain::Bool, "(x0 || x1)"};
      })
      .Case([&](XorOp) -> R {
        return ElementwiseCode{Domain::Bool, "(x0 != x1)"};
      })
      .Case([&](BitwiseAndOp) -> R { return bitwise("&"); })
      .Case([&](BitwiseOrOp) -> R { return bitwise("|"); })
      .Case([&](BitwiseXorOp) -> R { return bitwise("^"); })
      .Case([&](BitShiftOp shift) -> R {
        std::string direction = shift.getDirection().str();
        if (direction != "left" && direction != "right")
          return ElementwiseCode{Domain::Integer, ""};
        return ElementwiseCode{Domain::Integer, "cgc_shift_" + direction + "<" + c + ", " +
                                                    getBitsType(dtype) + ">(x0, x1)"};
      })
      .Case([&](ModOp mod) -> R {
        if (!mod.getFmod())
          return ElementwiseCode{Domain::Integer, "cgc_int_mod(x0, x1)"};
        return ElementwiseCode{Domain::FMod, isFloat ? mathFunction("fmod", dtype) + "(x0, x1)"
                                                     : "cgc_int_fmod(x0, x1)"};
      })
      .Default([](mlir::Operation *) -> R { return std::nullopt; });
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

/// ONNX Cast of x0 (compute value of `from`) to the compute value of `to`.
static std::string getCastExpression(DType from, DType to) {
  if (to == DType::Bool)
    return "(x0 != 0)";
  if (to == DType::F64)
    return "(double)x0";
  if (isFloat32ComputedDType(to))
    return "(float)x0";
  if (isFloatDType(from))
    return "cgc_float_to_int<" + getStorageType(to) + ">((double)x0)";
  return "(" + getStorageType(to) + ")x0";
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

bool isElementwiseOp(mlir::Operation *op) {
  return getUnaryCode(op, DType::F32) || getBinaryCode(op, DType::F32) ||
         llvm::isa<CastOp, WhereOp, PReluOp>(op);
}

static llvm::Expected<Kernel> buildCast(CastOp cast, KernelContext::Impl &context) {
  auto input = getTensorInfo(cast, cast.getInput());
  if (!input)
    return input.takeError();
  auto output = getTensorInfo(cast, cast.getOutput());
  if (!output)
    return output.takeError();
  StridedKernelSpec spec;
  spec.operands.push_back(broadcastOperand(input->dtype, input->shape, output->shape));
  spec.outputType = output->dtype;
  spec.outputShape = output->shape;
  spec.expression = getCastExpression(input->dtype, output->dtype);
  return buildStridedKernel(cast, context, spec);
}

static llvm::Expected<Kernel> buildWhere(WhereOp where, KernelContext::Impl &context) {
  auto condition = getTensorInfo(where, where.getCondition());
  if (!condition)
    return condition.takeError();
  auto x = getTensorInfo(where, where.getX());
  if (!x)
    return x.takeError();
  auto y = getTensorInfo(where, where.getY());
  if (!y)
    return y.takeError();
  auto output = getTensorInfo(where, where.getOutput());
  if (!output)
    return output.takeError();
  if (condition->dtype != DType::Bool)
    return unimplementedElementType(where, condition->dtype);
  if (y->dtype != x->dtype)
    return unimplementedElementType(where, y->dtype);
  // Selection moves bits: the values are read and written as their width.
  StridedKernelSpec spec;
  spec.operands.push_back(broadcastOperand(DType::Bool, condition->shape, output->shape));
  spec.operands.push_back(broadcastOperand(x->dtype, x->shape, output->shape, /*raw=*/true));
  spec.operands.push_back(broadcastOperand(y->dtype, y->shape, output->shape, /*raw=*/true));
  spec.outputType = output->dtype;
  spec.rawOutput = true;
  spec.outputShape = output->shape;
  spec.expression = "(x0 ? x1 : x2)";
  return buildStridedKernel(where, context, spec);
}

static llvm::Expected<Kernel> buildPRelu(PReluOp prelu, KernelContext::Impl &context) {
  auto input = getTensorInfo(prelu, prelu.getInput());
  if (!input)
    return input.takeError();
  auto slope = getTensorInfo(prelu, prelu.getSlope());
  if (!slope)
    return slope.takeError();
  if (!isFloatDType(input->dtype) || slope->dtype != input->dtype)
    return unimplementedElementType(prelu,
                                    isFloatDType(input->dtype) ? slope->dtype : input->dtype);
  StridedKernelSpec spec;
  spec.operands.push_back(broadcastOperand(input->dtype, input->shape, input->shape));
  spec.operands.push_back(broadcastOperand(slope->dtype, slope->shape, input->shape));
  spec.outputType = input->dtype;
  spec.outputShape = input->shape;
  spec.expression = "(x0 >= (" + getComputeType(input->dtype) + ")0 ? x0 : x1 * x0)";
  return buildStridedKernel(prelu, context, spec);
}

/// The attribute value of a unary or binary layer its kernel does not
/// implement ("approximate \"erf\""), or none.
static std::optional<std::string> getUnimplementedAttribute(mlir::Operation *op) {
  if (auto gelu = llvm::dyn_cast<GeluOp>(op))
    if (gelu.getApproximate() != "none" && gelu.getApproximate() != "tanh")
      return ("approximate \"" + gelu.getApproximate() + "\"").str();
  if (auto shift = llvm::dyn_cast<BitShiftOp>(op))
    if (shift.getDirection() != "left" && shift.getDirection() != "right")
      return ("direction \"" + shift.getDirection() + "\"").str();
  return std::nullopt;
}

/// Whether `code`, the code of `op`, computes element type `dtype`.
static bool implementsType(mlir::Operation *op, const ElementwiseCode &code, DType dtype) {
  return inDomain(code.domain, dtype) &&
         !(llvm::isa<ModOp>(op) && code.domain == Domain::Integer && !isIntegerDType(dtype));
}

std::optional<std::string> getElementwiseExpression(mlir::Operation *op, DType dtype) {
  if (getUnimplementedAttribute(op))
    return std::nullopt;
  std::optional<ElementwiseCode> code =
      op->getNumOperands() == 1 ? getUnaryCode(op, dtype) : getBinaryCode(op, dtype);
  if (!code || code->boolResult || code->expression.empty() || !implementsType(op, *code, dtype))
    return std::nullopt;
  return code->expression;
}

/// The code of a unary or binary layer, checked as its kernels need it:
/// attribute values implemented, operands of one element type, that type in
/// the layer's domain.
static llvm::Expected<ElementwiseCode> getCheckedCode(mlir::Operation *op) {
  if (std::optional<std::string> attribute = getUnimplementedAttribute(op))
    return unimplementedFeature(op, *attribute);
  auto input = getTensorInfo(op, op->getOperand(0));
  if (!input)
    return input.takeError();
  DType dtype = input->dtype;
  std::optional<ElementwiseCode> code;
  if (op->getNumOperands() == 1) {
    code = getUnaryCode(op, dtype);
  } else {
    code = getBinaryCode(op, dtype);
    auto rhs = getTensorInfo(op, op->getOperand(1));
    if (!rhs)
      return rhs.takeError();
    if (code && rhs->dtype != dtype)
      return unimplementedElementType(op, rhs->dtype);
  }
  if (!code)
    return unimplementedOp(op);
  if (!implementsType(op, *code, dtype))
    return unimplementedElementType(op, dtype);
  return std::move(*code);
}

llvm::Expected<Kernel> buildElementwiseKernel(mlir::Operation *op, KernelContext::Impl &context) {
  if (auto cast = llvm::dyn_cast<CastOp>(op))
    return buildCast(cast, context);
  if (auto where = llvm::dyn_cast<WhereOp>(op))
    return buildWhere(where, context);
  if (auto prelu = llvm::dyn_cast<PReluOp>(op))
    return buildPRelu(prelu, context);
  llvm::Expected<ElementwiseCode> code = getCheckedCode(op);
  if (!code)
    return code.takeError();
  auto input = getTensorInfo(op, op->getOperand(0));
  if (!input)
    return input.takeError();
  auto output = getTensorInfo(op, op->getResult(0));
  if (!output)
    return output.takeError();
  StridedKernelSpec spec;
  spec.outputShape = output->shape;
  spec.outputType = output->dtype;
  spec.operands.push_back(broadcastOperand(input->dtype, input->shape, output->shape));
  if (op->getNumOperands() == 2) {
    Shape rhsShape(llvm::cast<TensorType>(op->getOperand(1).getType()).getShape());
    spec.operands.push_back(broadcastOperand(input->dtype, rhsShape, output->shape));
  }
  spec.expression = code->expression;
  return buildStridedKernel(op, context, spec);
}

llvm::Expected<std::string> getCheckedElementwiseExpression(mlir::Operation *op) {
  llvm::SmallVector<TensorInfo, 3> operands;
  for (mlir::Value operand : op->getOperands()) {
    auto info = getTensorInfo(op, operand);
    if (!info)
      return info.takeError();
    operands.push_back(std::move(*info));
  }
  if (auto cast = llvm::dyn_cast<CastOp>(op)) {
    auto output = getTensorInfo(op, cast.getOutput());
    if (!output)
      return output.takeError();
    return getCastExpression(operands[0].dtype, output->dtype);
  }
  if (llvm::isa<WhereOp>(op)) {
    if (operands[0].dtype != DType::Bool)
      return unimplementedElementType(op, operands[0].dtype);
    if (operands[2].dtype != operands[1].dtype)
      return unimplementedElementType(op, operands[2].dtype);
    return std::string("(x0 ? x1 : x2)");
  }
  if (llvm::isa<PReluOp>(op)) {
    DType dtype = operands[0].dtype;
    if (!isFloatDType(dtype) || operands[1].dtype != dtype)
      return unimplementedElementType(op, isFloatDType(dtype) ? operands[1].dtype : dtype);
    return "(x0 >= (" + getComputeType(dtype) + ")0 ? x0 : x1 * x0)";
  }
  llvm::Expected<ElementwiseCode> code = getCheckedCode(op);
  if (!code)
    return code.takeError();
  return std::move(code->expression);
}

} // namespace cgc::cuda
