//===- MoveRowTransposes.cpp - permute a row-wise product's input rows ----===//
//
// nn.MultiheadAttention works sequence-first: torchvision's ViT swaps batch
// and sequence on the way out of each attention, after the output
// projection (a gemm over rows):
//
//   %t = transpose(%attention) [2, 0, 1, 3]    B×H×S×D -> S×B×H×D
//   %r = reshape(%t) [S·B, E]
//   %g = gemm(%r, %w, %bias) {trans_b}
//   %s = reshape(%g) [S, B, E]
//   %o = transpose(%s) [1, 0, 2]               S×B×E -> B×S×E
//
// A gemm computes each row from the same row of its input, so permuting
// rows commutes with it: the last transpose moves to the first, where the
// two compose into one ([0, 2, 1, 3]: B×S×H×D, BERT's form, which the
// attention kernels write through their output view), and the product
// becomes a matmul over B×S×E with the weight bound transposed and the bias
// an add. The residual add that reads %o then follows the product directly,
// so a matmul pattern takes it (cuBLASLt's C) instead of a transpose and an
// add each running on their own (ViT-B/16 at batch 32: 12 of each, 16 µs a
// layer on an H100).
//
//===----------------------------------------------------------------------===//

#include "InputIREntryPoint.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"
#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/TransposePermutation.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

namespace cgc {
#define GEN_PASS_DEF_MOVEROWTRANSPOSES
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= dim;
  return result;
}

/// The rewrite of one `%o` (the file comment), or failure when `outer` is
/// not the last transpose of that chain.
LogicalResult moveRowTranspose(op::TransposeOp outer) {
  auto shapeOf = [](Value value) { return cast<TensorType>(value.getType()).getShape(); };
  // %o: a permutation of the rows that keeps the last dimension.
  SmallVector<int64_t> rowPermutation = op::getTransposePermutation(outer);
  int64_t rows = static_cast<int64_t>(rowPermutation.size()) - 1;
  if (rows < 1 || rowPermutation.back() != rows)
    return failure();
  auto split = outer.getInput().getDefiningOp<op::ReshapeOp>();
  if (!split || !split.getResult().hasOneUse())
    return failure();
  // %g: a gemm of the rows, its bias (if any) one row for all.
  auto gemm = split.getInput().getDefiningOp<op::GemmOp>();
  if (!gemm || !gemm.getResult().hasOneUse() || gemm.getTransA() ||
      gemm.getAlpha().convertToDouble() != 1.0)
    return failure();
  Value bias = gemm.getC();
  if (bias && (gemm.getBeta().convertToDouble() != 1.0 || shapeOf(bias).size() > 2 ||
               (shapeOf(bias).size() == 2 && shapeOf(bias)[0] != 1)))
    return failure();
  auto weight = gemm.getB().getDefiningOp<cgc::ConstantOp>();
  if (!weight)
    return failure();
  // %r and %t: the rows of the gemm's input are the leading dimensions of
  // a transpose, the same as %s splits the result's rows into.
  auto merge = gemm.getA().getDefiningOp<op::ReshapeOp>();
  if (!merge || !merge.getResult().hasOneUse())
    return failure();
  auto inner = merge.getInput().getDefiningOp<op::TransposeOp>();
  if (!inner || !inner.getResult().hasOneUse())
    return failure();
  ArrayRef<int64_t> transposed = shapeOf(inner.getResult());
  ArrayRef<int64_t> splitShape = shapeOf(split.getResult());
  if (static_cast<int64_t>(transposed.size()) <= rows ||
      transposed.take_front(rows) != splitShape.take_front(rows))
    return failure();

  // The transposes compose: row i of the result is row rowPermutation[i] of
  // %s, which is dimension innerPermutation[rowPermutation[i]] of the
  // attention.
  SmallVector<int64_t> innerPermutation = op::getTransposePermutation(inner);
  SmallVector<int64_t> composed = innerPermutation;
  for (int64_t row = 0; row < rows; ++row)
    composed[row] = innerPermutation[rowPermutation[row]];
  int64_t columns = product(transposed.drop_front(rows));

  OpBuilder builder(outer);
  Location loc = outer.getLoc();
  Value input = inner.getInput();
  if (!llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
    input = op::TransposeOp::create(builder, inner.getLoc(), input,
                                    builder.getI64ArrayAttr(composed))
                .getResult();
  SmallVector<int64_t> rowsShape(shapeOf(outer.getResult()).take_front(rows));
  rowsShape.push_back(columns);
  input = op::ReshapeOp::create(builder, merge.getLoc(), input, rowsShape).getResult();

  // The weight, K×N: bound transposed where the gemm read it so.
  Value matrix = weight.getResult();
  if (gemm.getTransB()) {
    SmallVector<int64_t> stored = weight.getPermutationList();
    if (stored.empty())
      stored = {0, 1};
    SmallVector<int64_t> permutation = {stored[1], stored[0]};
    if (permutation == SmallVector<int64_t>{0, 1})
      permutation.clear();
    auto type = cast<TensorType>(weight.getType());
    SmallVector<int64_t> shape = {type.getShape()[1], type.getShape()[0]};
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(weight);
    matrix = cgc::ConstantOp::create(builder, weight.getLoc(),
                                     type.cloneWith(shape, type.getElementType()),
                                     weight.getName(), permutation)
                 .getResult();
  }
  Value result = op::MatmulOp::create(builder, gemm.getLoc(), input, matrix).getResult();
  if (bias)
    result = op::AddOp::create(builder, gemm.getLoc(), result, bias).getResult();
  // Shapes the checks above imply; an element type promoted otherwise by
  // the add would not be.
  assert(result.getType() == outer.getResult().getType() && "the product changed its type");
  outer.getResult().replaceAllUsesWith(result);
  for (Operation *dead : {outer.getOperation(), split.getOperation(), gemm.getOperation(),
                          merge.getOperation(), inner.getOperation()})
    dead->erase();
  if (weight.getResult().use_empty())
    weight.erase();
  return success();
}

/// Whether `value` is a constant bias of a product with `columns` columns:
/// one value per column, the same for every row ([N] or [1, ..., 1, N]).
bool isColumnBias(Value value, int64_t columns) {
  if (!value.getDefiningOp<cgc::ConstantOp>())
    return false;
  ArrayRef<int64_t> shape = cast<TensorType>(value.getType()).getShape();
  return !shape.empty() && shape.back() == columns &&
         llvm::all_of(shape.drop_back(), [](int64_t size) { return size == 1; });
}

/// The rewrite of the head of nn.MultiheadAttention's chain: a transpose of
/// rows into a product with a constant weight (and a constant bias),
///
///   %t = transpose(%x) [1, 0, 2]         B×S×E -> S×B×E
///   %m = matmul(%t, %w)                  S×B×3E
///   %p = add(%m, %bias)
///
/// becomes the product of %x's rows, transposed after: matmul(%x, %w), the
/// add, then transpose [1, 0, 2]. It moves only where its new place is no
/// wider (the product has no more columns than it reads) or where every
/// reader of the product is a view (reshape, transpose, gather): the
/// attention patterns read such chains in place, so the transpose costs
/// nothing there (ViT-B/16 at batch 32: 12 transposes of 6304×768, 7 µs each
/// on an H100).
LogicalResult moveRowTransposeBelowProduct(op::TransposeOp transpose) {
  SmallVector<int64_t> permutation = op::getTransposePermutation(transpose);
  int64_t rank = static_cast<int64_t>(permutation.size());
  if (rank < 2 || permutation.back() != rank - 1 ||
      llvm::equal(permutation, llvm::seq<int64_t>(0, rank)) || !transpose.getResult().hasOneUse())
    return failure();
  auto matmul = dyn_cast<op::MatmulOp>(*transpose.getResult().getUsers().begin());
  if (!matmul || matmul.getLhs() != transpose.getResult() || matmul.getRhs() == matmul.getLhs())
    return failure();
  auto weightType = cast<TensorType>(matmul.getRhs().getType());
  if (!matmul.getRhs().getDefiningOp<cgc::ConstantOp>() || weightType.getShape().size() != 2)
    return failure();
  int64_t inner = weightType.getShape()[0], columns = weightType.getShape()[1];
  // The product, and its bias add when that is the product's one reader.
  Value product = matmul.getResult();
  op::AddOp bias;
  if (product.hasOneUse())
    if (auto add = dyn_cast<op::AddOp>(*product.getUsers().begin())) {
      Value other = add.getLhs() == product ? add.getRhs() : add.getLhs();
      if (other != product && isColumnBias(other, columns) &&
          add.getResult().getType() == product.getType())
        bias = add;
    }
  Value last = bias ? bias.getResult() : product;
  bool onlyViews = !last.use_empty() && llvm::all_of(last.getUsers(), [](Operation *user) {
    return isa<op::ReshapeOp, op::TransposeOp, op::GatherOp>(user);
  });
  if (columns > inner && !onlyViews)
    return failure();

  // At the add, which the bias (torch's exporter defines it after the
  // product) and the product's operands dominate.
  OpBuilder builder(bias ? bias.getOperation() : matmul.getOperation());
  Value moved = op::MatmulOp::create(builder, matmul.getLoc(), transpose.getInput(),
                                     matmul.getRhs())
                    .getResult();
  if (bias) {
    bool productFirst = bias.getLhs() == product;
    moved = op::AddOp::create(builder, bias.getLoc(), productFirst ? moved : bias.getLhs(),
                              productFirst ? bias.getRhs() : moved)
                .getResult();
  }
  Value result =
      op::TransposeOp::create(builder, transpose.getLoc(), moved, builder.getI64ArrayAttr(permutation))
          .getResult();
  assert(result.getType() == last.getType() && "the product changed its type");
  last.replaceAllUsesWith(result);
  if (bias)
    bias->erase();
  matmul->erase();
  transpose->erase();
  return success();
}

} // namespace

FailureOr<unsigned> moveRowTransposes(ModuleOp module) {
  FailureOr<EntryPointOp> entry = getConvertibleEntryPoint(module, "moving row transposes");
  if (failed(entry))
    return failure();
  SmallVector<op::TransposeOp> transposes;
  entry->walk([&](op::TransposeOp transpose) { transposes.push_back(transpose); });
  unsigned moved = 0;
  for (op::TransposeOp transpose : transposes)
    if (succeeded(moveRowTranspose(transpose)))
      ++moved;
  // Heads, walked again: the tails' rewrites erased transposes.
  transposes.clear();
  entry->walk([&](op::TransposeOp transpose) { transposes.push_back(transpose); });
  for (op::TransposeOp transpose : transposes)
    if (succeeded(moveRowTransposeBelowProduct(transpose)))
      ++moved;
  return moved;
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct MoveRowTransposesPass : impl::MoveRowTransposesBase<MoveRowTransposesPass> {
  void runOnOperation() override {
    if (failed(compiler::moveRowTransposes(getOperation())))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
