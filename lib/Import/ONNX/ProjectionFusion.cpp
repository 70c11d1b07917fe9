//===- ProjectionFusion.cpp - products of one input as one product ---------===//

#include "ProjectionFusion.h"

#include "Literal.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>
#include <memory>
#include <vector>

namespace cgc::importer {

using namespace cgc::op;
using cgc::runtime::SharedTensor;

namespace {

/// One product of a set: the matmul, its weight and its bias add.
struct Projection {
  MatmulOp product;
  cgc::ConstantOp weight;
  AddOp add;
  cgc::ConstantOp bias;
};

/// The constant `value` is, without a permutation, whose weights `state`
/// holds.
cgc::ConstantOp getPlainConstant(mlir::Value value, const GraphState &state) {
  auto constant = value.getDefiningOp<cgc::ConstantOp>();
  if (!constant || !constant.getPermutationList().empty() ||
      !state.weights.count(constant.getName().str()))
    return {};
  return constant;
}

/// `product` as a projection: a 2-D constant weight that nothing else
/// reads, and the bias add that is the product's one reader (when there is
/// one of a 1-D constant of its columns).
std::optional<Projection> readProjection(MatmulOp product, const GraphState &state) {
  Projection projection{product, getPlainConstant(product.getRhs(), state), {}, {}};
  auto lhsType = llvm::cast<TensorType>(product.getLhs().getType());
  auto resultType = llvm::cast<TensorType>(product.getType());
  if (!projection.weight || !projection.weight.getResult().hasOneUse() ||
      llvm::cast<TensorType>(projection.weight.getType()).getRank() != 2 ||
      lhsType.getRank() < 2 || !product.getResult().hasOneUse())
    return std::nullopt;
  auto add = llvm::dyn_cast<AddOp>(*product.getResult().getUsers().begin());
  if (add) {
    mlir::Value other = add.getLhs() == product.getResult() ? add.getRhs() : add.getLhs();
    cgc::ConstantOp bias = getPlainConstant(other, state);
    auto biasType = bias ? llvm::cast<TensorType>(bias.getType()) : TensorType();
    if (bias && bias.getResult().hasOneUse() && biasType.getRank() == 1 &&
        biasType.getShape()[0] == resultType.getShape().back() &&
        add.getType() == resultType) {
      projection.add = add;
      projection.bias = bias;
    }
  }
  return projection;
}

/// The weights of `constants` side by side along their last dimension:
/// rows of `rows` elements of `columns` each (1 row for a bias).
Literal packSideBySide(llvm::ArrayRef<cgc::ConstantOp> constants, int64_t rows,
                       const GraphState &state) {
  cgc::ConstantOp front = constants.front();
  const SharedTensor &first = state.weights.at(front.getName().str());
  size_t rowBytes = first.data.size() / rows;
  auto bytes = std::make_shared<std::vector<std::byte>>(first.data.size() * constants.size());
  for (int64_t row = 0; row < rows; ++row)
    for (size_t index = 0; index < constants.size(); ++index) {
      cgc::ConstantOp constant = constants[index];
      const SharedTensor &tensor = state.weights.at(constant.getName().str());
      std::memcpy(bytes->data() + (row * constants.size() + index) * rowBytes,
                  tensor.data.data() + row * rowBytes, rowBytes);
    }
  std::vector<int64_t> shape = first.shape;
  shape.back() *= static_cast<int64_t>(constants.size());
  std::span<const std::byte> data(bytes->data(), bytes->size());
  return Literal(getONNXTypeOf(first.dtype), std::move(shape), data, std::move(bytes));
}

/// Replaces `set` (two or more projections of one input, in block order).
/// Its constants are materialized as the importer's others are (small equal
/// ones, the selections' indices, share one name).
llvm::Error pack(llvm::SmallVector<Projection, 3> set, GraphState &state) {
  mlir::OpBuilder &builder = state.builder;
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(set.front().product);
  mlir::Location loc = set.front().product.getLoc();
  auto weightType = llvm::cast<TensorType>(set.front().weight.getType());
  int64_t k = weightType.getShape()[0], n = weightType.getShape()[1];
  int64_t count = static_cast<int64_t>(set.size());
  bool biased = static_cast<bool>(set.front().bias);

  llvm::SmallVector<cgc::ConstantOp, 3> weights, biases;
  for (Projection &projection : set) {
    weights.push_back(projection.weight);
    if (biased)
      biases.push_back(projection.bias);
  }
  auto packConstants = [&](llvm::ArrayRef<cgc::ConstantOp> parts, int64_t rows) {
    cgc::ConstantOp front = parts.front();
    return state.materialize(packSideBySide(parts, rows, state),
                             state.makeUniqueName(front.getName().str() + ".packed"), loc);
  };
  llvm::Expected<mlir::Value> weight = packConstants(weights, k);
  if (!weight)
    return weight.takeError();
  mlir::Value packed =
      MatmulOp::create(builder, loc, set.front().product.getLhs(), *weight).getResult();
  if (biased) {
    llvm::Expected<mlir::Value> bias = packConstants(biases, 1);
    if (!bias)
      return bias.takeError();
    packed = AddOp::create(builder, loc, packed, *bias).getResult();
  }
  // [..., G·N] as [..., G, N], then one selection each.
  auto packedType = llvm::cast<TensorType>(packed.getType());
  llvm::SmallVector<int64_t> split(packedType.getShape().drop_back());
  split.append({count, n});
  mlir::Value grouped = ReshapeOp::create(builder, loc, packed, split).getResult();
  for (auto [index, projection] : llvm::enumerate(set)) {
    llvm::Expected<mlir::Value> selection =
        state.materialize(Literal::fromInts(kInt64, {}, {static_cast<int64_t>(index)}),
                          state.getConstantNameFor("projection_index"), loc);
    if (!selection)
      return selection.takeError();
    mlir::Operation *last =
        biased ? projection.add.getOperation() : projection.product.getOperation();
    mlir::Value selected =
        GatherOp::create(builder, last->getLoc(), grouped, *selection,
                         builder.getI64IntegerAttr(static_cast<int64_t>(split.size()) - 2))
            .getResult();
    last->getResult(0).replaceAllUsesWith(selected);
  }
  for (Projection &projection : set) {
    if (biased) {
      projection.add.erase();
      projection.bias.erase();
    }
    projection.product.erase();
    projection.weight.erase();
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<unsigned> fuseSharedInputProjections(mlir::Block &body, GraphState &state) {
  // Sets by input, in block order.
  llvm::MapVector<mlir::Value, llvm::SmallVector<Projection, 3>> byInput;
  body.walk([&](MatmulOp product) {
    if (std::optional<Projection> projection = readProjection(product, state))
      byInput[product.getLhs()].push_back(*projection);
  });
  unsigned packed = 0;
  for (auto &[input, candidates] : byInput) {
    // One set per weight type and bias presence: the largest group.
    llvm::MapVector<std::pair<mlir::Type, unsigned>, llvm::SmallVector<Projection, 3>> sets;
    for (Projection projection : candidates)
      sets[{projection.weight.getType(), projection.bias ? 1u : 0u}].push_back(projection);
    for (auto &[key, set] : sets) {
      if (set.size() < 2)
        continue;
      if (llvm::Error error = pack(set, state))
        return std::move(error);
      ++packed;
    }
  }
  return packed;
}

} // namespace cgc::importer
