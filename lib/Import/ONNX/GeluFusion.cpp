//===- GeluFusion.cpp - exact GELU written out as erf layers ----------------===//
//
// The groups recognized, with c = √2 (or x · 1/√2 for x / √2), h = ½ and
// any operand order of the commutative layers:
//
//   ((x · (erf(x / c) + 1)) · h)       torch.onnx's F.gelu, BERT's gelu
//   ((x · h) · (erf(x / c) + 1))       x · 0.5 · (1 + erf(...))
//   (x · ((erf(x / c) + 1) · h))
//
// Every layer of the group but the last has its one user in the group, and
// the result has x's type (the constants broadcast into nothing larger).
//
//===----------------------------------------------------------------------===//

#include "GeluFusion.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <optional>

namespace cgc::importer {

using namespace cgc::op;
using cgc::runtime::DType;
using cgc::runtime::SharedTensor;

namespace {

class GeluMatcher {
public:
  explicit GeluMatcher(const std::map<std::string, SharedTensor> &weights) : weights(weights) {}

  /// The group ending at `last` (a mul), as its input x and its layers.
  std::optional<std::pair<mlir::Value, llvm::SmallVector<mlir::Operation *, 5>>>
  match(MulOp last) const;

private:
  /// The value of a one-element float constant.
  std::optional<double> getScalar(mlir::Value value) const;
  /// Whether `value` is a one-element constant equal to `expected` rounded
  /// to its element type.
  bool isConstant(mlir::Value value, double expected) const;
  /// (erf(x / c) + 1) with x, or std::nullopt; `layers` gets its layers.
  std::optional<mlir::Value> matchCdf(mlir::Value value,
                                      llvm::SmallVectorImpl<mlir::Operation *> &layers) const;

  const std::map<std::string, SharedTensor> &weights;
};

std::optional<double> GeluMatcher::getScalar(mlir::Value value) const {
  auto constant = value.getDefiningOp<cgc::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto found = weights.find(constant.getName().str());
  if (found == weights.end() || found->second.numElements() != 1)
    return std::nullopt;
  const SharedTensor &tensor = found->second;
  switch (tensor.dtype) {
  case DType::Float32:
    return tensor.as<float>()[0];
  case DType::Float64:
    return tensor.as<double>()[0];
  case DType::Float16:
    return cgc::runtime::halfToFloat(tensor.as<uint16_t>()[0]);
  case DType::BFloat16:
    return cgc::runtime::bfloat16ToFloat(tensor.as<uint16_t>()[0]);
  default:
    return std::nullopt;
  }
}

bool GeluMatcher::isConstant(mlir::Value value, double expected) const {
  std::optional<double> scalar = getScalar(value);
  if (!scalar)
    return false;
  // Half of a unit in the last place of the element type at `expected`
  // (in [0.5, 2)): what rounding √2 to the type may leave.
  auto constant = value.getDefiningOp<cgc::ConstantOp>();
  DType dtype = weights.find(constant.getName().str())->second.dtype;
  int mantissaBits = dtype == DType::Float64   ? 52
                     : dtype == DType::Float32 ? 23
                     : dtype == DType::Float16 ? 10
                                               : 7;
  double tolerance = std::ldexp(std::abs(expected), -mantissaBits);
  return std::abs(*scalar - expected) <= tolerance;
}

/// The operand of binary `op` that is not `value` (either operand when
/// both are), or null when `value` is neither.
static mlir::Value getOtherOperand(mlir::Operation *op, mlir::Value value) {
  if (op->getOperand(0) == value)
    return op->getOperand(1);
  if (op->getOperand(1) == value)
    return op->getOperand(0);
  return {};
}

std::optional<mlir::Value>
GeluMatcher::matchCdf(mlir::Value value, llvm::SmallVectorImpl<mlir::Operation *> &layers) const {
  auto add = value.getDefiningOp<AddOp>();
  if (!add || !add.getResult().hasOneUse())
    return std::nullopt;
  ErfOp erf;
  for (mlir::Value operand : add->getOperands())
    if (auto candidate = operand.getDefiningOp<ErfOp>();
        candidate && isConstant(getOtherOperand(add, operand), 1.0))
      erf = candidate;
  if (!erf || !erf.getResult().hasOneUse())
    return std::nullopt;
  mlir::Operation *scale = erf.getInput().getDefiningOp();
  if (!scale || !scale->getResult(0).hasOneUse())
    return std::nullopt;
  mlir::Value x;
  if (auto div = llvm::dyn_cast<DivOp>(scale)) {
    if (isConstant(div.getRhs(), M_SQRT2))
      x = div.getLhs();
  } else if (auto mul = llvm::dyn_cast<MulOp>(scale)) {
    for (mlir::Value operand : mul->getOperands())
      if (isConstant(getOtherOperand(mul, operand), M_SQRT1_2))
        x = operand;
  }
  if (!x)
    return std::nullopt;
  layers.append({scale, erf, add});
  return x;
}

std::optional<std::pair<mlir::Value, llvm::SmallVector<mlir::Operation *, 5>>>
GeluMatcher::match(MulOp last) const {
  llvm::SmallVector<mlir::Operation *, 5> layers;
  auto finish = [&](mlir::Value x)
      -> std::optional<std::pair<mlir::Value, llvm::SmallVector<mlir::Operation *, 5>>> {
    if (x.getType() != last.getType())
      return std::nullopt;
    layers.push_back(last);
    return std::make_pair(x, layers);
  };
  for (mlir::Value operand : last->getOperands()) {
    mlir::Value other = getOtherOperand(last, operand);
    auto inner = operand.getDefiningOp<MulOp>();
    if (!inner || !inner.getResult().hasOneUse())
      continue;
    // ((x · cdf) · h): the inner product is x and the cdf of x.
    if (isConstant(other, 0.5))
      for (mlir::Value factor : inner->getOperands()) {
        layers.clear();
        std::optional<mlir::Value> x = matchCdf(factor, layers);
        if (x && getOtherOperand(inner, factor) == *x) {
          layers.push_back(inner);
          return finish(*x);
        }
      }
    // ((x · h) · cdf) and (x · (cdf · h)).
    for (mlir::Value factor : inner->getOperands()) {
      if (!isConstant(getOtherOperand(inner, factor), 0.5))
        continue;
      layers.clear();
      std::optional<mlir::Value> x = matchCdf(other, layers);
      if (x && factor == *x) {
        layers.push_back(inner);
        return finish(*x);
      }
      layers.clear();
      x = matchCdf(factor, layers);
      if (x && other == *x) {
        layers.push_back(inner);
        return finish(*x);
      }
    }
  }
  return std::nullopt;
}

} // namespace

unsigned fuseErfGelu(mlir::Block &body, const std::map<std::string, SharedTensor> &weights) {
  GeluMatcher matcher(weights);
  llvm::SetVector<cgc::ConstantOp> constants;
  llvm::SmallVector<MulOp> candidates;
  body.walk([&](MulOp mul) { candidates.push_back(mul); });
  unsigned replaced = 0;
  for (MulOp last : candidates) {
    auto group = matcher.match(last);
    if (!group)
      continue;
    auto [x, layers] = *group;
    mlir::OpBuilder builder(last);
    auto gelu = GeluOp::create(builder, last.getLoc(), last.getType(), x,
                               builder.getStringAttr("none"));
    last.getResult().replaceAllUsesWith(gelu.getResult());
    // Users first: the last layer, then the rest from the end of the chain.
    llvm::sort(layers, [](mlir::Operation *a, mlir::Operation *b) {
      return b->isBeforeInBlock(a);
    });
    for (mlir::Operation *layer : layers) {
      for (mlir::Value operand : layer->getOperands())
        if (auto constant = operand.getDefiningOp<cgc::ConstantOp>())
          constants.insert(constant);
      layer->erase();
    }
    ++replaced;
  }
  // The group's constants that nothing else reads go.
  for (cgc::ConstantOp constant : constants)
    if (constant.getResult().use_empty())
      constant.erase();
  return replaced;
}

} // namespace cgc::importer
