//===- FusedAttentionViewTest.cpp - attention read and written through views ===//
//
// Exporters split attention's heads out of [batch, sequence, heads · E]
// with reshapes and transposes and merge them back afterwards (and
// nn.MultiheadAttention first picks q, k and v out of one projection with
// gathers of one index); the fused attention kernel reads Q, Kᵀ and V and
// writes its result through strides instead (drivers/cuda/kernels/
// StridedView.h). Three layers of tests:
//
// * the view composition itself, pure C++: hand-computed cases (BERT's and
//   ViT's chains among them, the fused projection's selections at batch 1
//   and 2), broadcast strides, the reshapes strides cannot express, and
//   random chains (with selections) checked element by element against the
//   layers materialized as copies;
// * the reader, without a device: the views a definition's chains give,
//   the rejections naming the reshape that strides cannot express, and
//   NVRTC compiling the flash kernels that read and write through views
//   (the scalar one, and the tensor-core one where it takes the plan; the
//   GEMM path planned up to where cuBLASLt needs a device);
// * on a device, BERT's and ViT's attention as their exporters write it
//   (small sizes, float32, float16, bfloat16), through the flash kernel,
//   the GEMM path and the tensor-core flash kernel forced, against the CPU
//   driver running the definition layer by layer.
//
//===----------------------------------------------------------------------===//

#include "DefinitionText.h"
#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/AttentionKernel.h"
#include "drivers/cuda/kernels/AttentionTensorCore.h"
#include "drivers/cuda/kernels/FusedAttention.h"
#include "drivers/cuda/kernels/FusedSupport.h"
#include "drivers/cuda/kernels/StridedView.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace cgc::cuda {
/// gtest prints views as "2x3 strides [3, 1]" (then " + #0 of 3 by 20"
/// per selection).
void PrintTo(const StridedView &view, std::ostream *os) {
  for (size_t dim = 0; dim < view.shape.size(); ++dim)
    *os << (dim ? "x" : "") << view.shape[dim];
  *os << " strides [";
  for (size_t dim = 0; dim < view.strides.size(); ++dim)
    *os << (dim ? ", " : "") << view.strides[dim];
  *os << "]";
  for (const ViewSelection &selection : view.selections)
    *os << " + #" << selection.source << " of " << selection.size << " by " << selection.stride;
}
} // namespace cgc::cuda

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

using Strides = llvm::SmallVector<int64_t, 6>;

Strides strides(std::initializer_list<int64_t> values) { return Strides(values); }

//===----------------------------------------------------------------------===//
// The view composition
//===----------------------------------------------------------------------===//

StridedView viewOf(std::initializer_list<int64_t> shape, std::initializer_list<int64_t> strides,
                   std::initializer_list<ViewSelection> selections = {}) {
  StridedView view;
  view.shape.assign(shape);
  view.strides.assign(strides);
  view.selections.assign(selections);
  return view;
}

TEST(StridedViewTest, DenseAndPermuted) {
  EXPECT_EQ(StridedView::dense({2, 3, 4}), viewOf({2, 3, 4}, {12, 4, 1}));
  EXPECT_EQ(StridedView::dense({}), viewOf({}, {}));
  EXPECT_EQ(permuteView(StridedView::dense({2, 3, 4}), {2, 0, 1}), viewOf({4, 2, 3}, {1, 12, 4}));
}

TEST(StridedViewTest, ReshapeSplitsAndMerges) {
  // Splits always are views; merges of contiguous dimensions too.
  EXPECT_EQ(reshapeView(StridedView::dense({2, 24}), {2, 3, 8}), viewOf({2, 3, 8}, {24, 8, 1}));
  EXPECT_EQ(reshapeView(StridedView::dense({2, 3, 8}), {6, 8}), viewOf({6, 8}, {8, 1}));
  // A split of a strided dimension: its parts stride within it.
  EXPECT_EQ(reshapeView(viewOf({6, 5}, {1, 6}), {2, 3, 5}), viewOf({2, 3, 5}, {3, 1, 6}));
  // A merge of dimensions contiguous only together with a size-1 between.
  EXPECT_EQ(reshapeView(viewOf({2, 1, 3}, {3, 99, 1}), {6}), viewOf({6}, {1}));
  // Transposed dimensions do not merge.
  EXPECT_FALSE(reshapeView(viewOf({3, 5}, {1, 3}), {15}).has_value());
  EXPECT_FALSE(reshapeView(viewOf({2, 3, 5, 8}, {120, 8, 24, 1}), {2, 15, 8}).has_value());
  // Gaps between rows (a slice) keep rows apart but not mergeable.
  EXPECT_EQ(reshapeView(viewOf({4, 3}, {5, 1}), {2, 2, 3}), viewOf({2, 2, 3}, {10, 5, 1}));
  EXPECT_FALSE(reshapeView(viewOf({4, 3}, {5, 1}), {12}).has_value());
}

TEST(StridedViewTest, ReshapeSizeOneAndEmpty) {
  // Size-1 dimensions come and go (their strides are never read).
  std::optional<StridedView> added = reshapeView(StridedView::dense({2, 3}), {1, 2, 1, 3});
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(added->shape, strides({1, 2, 1, 3}));
  EXPECT_EQ(added->strides[1], 3);
  EXPECT_EQ(added->strides[3], 1);
  EXPECT_EQ(reshapeView(viewOf({1, 2, 1, 3}, {7, 3, 9, 1}), {2, 3}), viewOf({2, 3}, {3, 1}));
  std::optional<StridedView> scalar = reshapeView(StridedView::dense({}), {1, 1});
  ASSERT_TRUE(scalar.has_value());
  EXPECT_EQ(scalar->shape, strides({1, 1}));
  EXPECT_EQ(reshapeView(viewOf({0, 3}, {1, 5}), {3, 0}), StridedView::dense({3, 0}));
}

TEST(StridedViewTest, ReshapeKeepsBroadcastStrides) {
  // A broadcast dimension splits into broadcast parts...
  EXPECT_EQ(reshapeView(viewOf({6, 4}, {0, 1}), {2, 3, 4}), viewOf({2, 3, 4}, {0, 0, 1}));
  // ... merges with another broadcast one...
  EXPECT_EQ(reshapeView(viewOf({2, 3, 4}, {0, 0, 1}), {6, 4}), viewOf({6, 4}, {0, 1}));
  // ... but not with a dimension that moves.
  EXPECT_FALSE(reshapeView(viewOf({2, 3}, {0, 1}), {6}).has_value());
  EXPECT_FALSE(reshapeView(viewOf({2, 3}, {1, 0}), {6}).has_value());
}

TEST(StridedViewTest, BertChains) {
  // x [B=2, S=5, H·E=24] -> reshape [2, 5, 3, 8] -> transpose: Q, Kᵀ, V.
  StridedView x = StridedView::dense({2, 5, 24});
  ViewLayer split = ViewLayer::reshape({2, 5, 3, 8});
  EXPECT_EQ(composeViews(x, {split, ViewLayer::transpose({0, 2, 1, 3})}),
            viewOf({2, 3, 5, 8}, {120, 8, 24, 1}));
  EXPECT_EQ(composeViews(x, {split, ViewLayer::transpose({0, 2, 3, 1})}),
            viewOf({2, 3, 8, 5}, {120, 8, 1, 24}));
  // The result [2, 3, 5, 8] -> transpose -> reshape [2, 5, 24]: written
  // where Q was read.
  EXPECT_EQ(composeInverseViews(
                {2, 3, 5, 8}, {ViewLayer::transpose({0, 2, 1, 3}), ViewLayer::reshape({2, 5, 24})}),
            viewOf({2, 3, 5, 8}, {120, 8, 24, 1}));
}

TEST(StridedViewTest, VitChains) {
  // g [S=7, B=2, H·E=48] -> reshape [7, 6, 16] -> transpose [1, 0, 2] ->
  // reshape [2, 3, 7, 16] (-> transpose [0, 1, 3, 2] for Kᵀ).
  StridedView g = StridedView::dense({7, 2, 48});
  std::vector<ViewLayer> heads = {ViewLayer::reshape({7, 6, 16}), ViewLayer::transpose({1, 0, 2}),
                                  ViewLayer::reshape({2, 3, 7, 16})};
  EXPECT_EQ(composeViews(g, heads), viewOf({2, 3, 7, 16}, {48, 16, 96, 1}));
  heads.push_back(ViewLayer::transpose({0, 1, 3, 2}));
  EXPECT_EQ(composeViews(g, heads), viewOf({2, 3, 16, 7}, {48, 16, 1, 96}));
  // The result -> transpose [2, 0, 1, 3] -> reshape [14, 48].
  EXPECT_EQ(composeInverseViews(
                {2, 3, 7, 16}, {ViewLayer::transpose({2, 0, 1, 3}), ViewLayer::reshape({14, 48})}),
            viewOf({2, 3, 7, 16}, {48, 16, 96, 1}));
}

TEST(StridedViewTest, MergedDimensionsSplitBack) {
  // [2, 3, 4] with its first two dimensions swapped ([3, 2, 4], strides
  // [4, 12, 1]) merged to [6, 4]: the 6 walks two strides, which no view
  // has, but split back into [3, 2] it is a view again.
  StridedView swapped = permuteView(StridedView::dense({2, 3, 4}), {1, 0, 2});
  EXPECT_EQ(composeViews(swapped, {ViewLayer::reshape({6, 4}), ViewLayer::reshape({3, 2, 4})}),
            viewOf({3, 2, 4}, {4, 12, 1}));
  // Split otherwise ([2, 3]: the 2 would cut the part of 3 elements): that
  // reshape is named.
  size_t failed = 99;
  EXPECT_FALSE(composeViews(swapped, {ViewLayer::reshape({6, 4}), ViewLayer::reshape({2, 3, 4})},
                            &failed)
                   .has_value());
  EXPECT_EQ(failed, 1u);
  // Left merged, the reshape that merged it is named, not a later one that
  // passes it on.
  failed = 99;
  EXPECT_FALSE(composeViews(swapped, {ViewLayer::reshape({6, 4}), ViewLayer::reshape({6, 2, 2})},
                            &failed)
                   .has_value());
  EXPECT_EQ(failed, 0u);
}

TEST(StridedViewTest, SelectionsMoveTheStart) {
  // Index #7 of dimension 0 of [3, 4, 5]: 20 elements per step, the
  // dimension dropped (a scalar index) or kept as size 1 (an index [1]).
  EXPECT_EQ(composeViews(StridedView::dense({3, 4, 5}), {ViewLayer::select(0, 7)}),
            viewOf({4, 5}, {5, 1}, {{7, 3, 20}}));
  std::optional<StridedView> kept =
      composeViews(StridedView::dense({3, 4, 5}), {ViewLayer::select(1, 2, {1})});
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->shape, strides({3, 1, 5}));
  EXPECT_EQ(kept->strides[0], 20);
  EXPECT_EQ(kept->strides[2], 1);
  EXPECT_EQ(kept->selections, (llvm::SmallVector<ViewSelection, 2>{{2, 4, 5}}));
  // Selections add up, through transposes and reshapes.
  EXPECT_EQ(composeViews(StridedView::dense({3, 4, 5}),
                         {ViewLayer::transpose({2, 1, 0}), ViewLayer::select(0, 1),
                          ViewLayer::reshape({2, 2, 3}), ViewLayer::select(1, 4)}),
            viewOf({2, 3}, {10, 20}, {{1, 5, 1}, {4, 2, 5}}));
  // One element has one valid index: no selection.
  EXPECT_EQ(composeViews(StridedView::dense({1, 4}), {ViewLayer::select(0, 3)}),
            viewOf({4}, {1}));
  // An empty dimension has none: the selection is named.
  size_t failed = 99;
  EXPECT_FALSE(composeViews(StridedView::dense({2, 0, 4}),
                            {ViewLayer::transpose({1, 0, 2}), ViewLayer::select(0, 0)}, &failed)
                   .has_value());
  EXPECT_EQ(failed, 1u);
  // A selection along a dimension that walks two strides: the reshape that
  // merged it is named.
  failed = 99;
  EXPECT_FALSE(composeViews(StridedView::dense({2, 3, 4}),
                            {ViewLayer::transpose({1, 0, 2}), ViewLayer::reshape({6, 4}),
                             ViewLayer::select(0, 0)},
                            &failed)
                   .has_value());
  EXPECT_EQ(failed, 1u);
  // Writing through a selection: some elements of the result would have no
  // source.
  failed = 99;
  EXPECT_FALSE(composeInverseViews({3, 4}, {ViewLayer::select(0, 0)}, &failed).has_value());
  EXPECT_EQ(failed, 0u);
}

/// The layers torch's nn.MultiheadAttention exports between its fused
/// projection g [S, B, 3·H·E] and one of q, k, v [B, H, S, E] (ViT), the
/// index from source 5.
std::vector<ViewLayer> fusedProjectionChain(int64_t sequence, int64_t batch, int64_t heads,
                                            int64_t head) {
  int64_t hidden = heads * head;
  return {ViewLayer::reshape({sequence, batch, 3, hidden}),
          ViewLayer::reshape({1, sequence, batch, 3, hidden}),
          ViewLayer::transpose({3, 1, 2, 0, 4}),
          ViewLayer::reshape({3, sequence, batch, hidden}),
          ViewLayer::select(0, 5),
          ViewLayer::reshape({sequence, batch * heads, head}),
          ViewLayer::transpose({1, 0, 2}),
          ViewLayer::reshape({batch, heads, sequence, head})};
}

TEST(StridedViewTest, FusedProjectionChains) {
  // S = 7, H = 3, E = 16: g [7, B, 144]. The slice starts 48 elements per
  // index in; B strides 144 and H 16, so at B = 2 the [7, 6, 16] between
  // walks two strides in its 6 until the last reshape splits it back.
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    std::vector<ViewLayer> layers = fusedProjectionChain(7, batch, 3, 16);
    std::optional<StridedView> view =
        composeViews(StridedView::dense({7, batch, 144}), layers);
    ASSERT_TRUE(view.has_value());
    EXPECT_EQ(view->shape, strides({batch, 3, 7, 16}));
    if (batch > 1)
      EXPECT_EQ(view->strides[0], 144);
    EXPECT_EQ(Strides(view->strides.begin() + 1, view->strides.end()),
              strides({16, batch * 144, 1}));
    EXPECT_EQ(view->selections, (llvm::SmallVector<ViewSelection, 2>{{5, 3, 48}}));
  }
  // Stopped before the last reshape, the merged heads stay apart: the
  // reshape that merged them is named.
  std::vector<ViewLayer> layers = fusedProjectionChain(7, 2, 3, 16);
  layers.pop_back();
  size_t failed = 99;
  EXPECT_FALSE(composeViews(StridedView::dense({7, 2, 144}), layers, &failed).has_value());
  EXPECT_EQ(failed, 5u);
}

TEST(StridedViewTest, NamesTheReshapeStridesCannotExpress) {
  size_t failed = 99;
  EXPECT_FALSE(composeViews(StridedView::dense({2, 5, 3, 8}),
                            {ViewLayer::transpose({0, 2, 1, 3}), ViewLayer::reshape({2, 15, 8})},
                            &failed)
                   .has_value());
  EXPECT_EQ(failed, 1u);
  // Writing: the split dimensions end up apart in the result.
  failed = 99;
  EXPECT_FALSE(composeInverseViews({2, 5, 8},
                                   {ViewLayer::reshape({2, 5, 2, 4}),
                                    ViewLayer::transpose({0, 2, 1, 3})},
                                   &failed)
                   .has_value());
  EXPECT_EQ(failed, 0u);
}

TEST(StridedViewTest, Broadcast) {
  EXPECT_EQ(broadcastView(viewOf({3, 5, 8}, {8, 24, 1}), {2, 3, 5, 8}), strides({0, 8, 24, 1}));
  EXPECT_EQ(broadcastView(viewOf({2, 1, 1, 5}, {5, 5, 5, 1}), {2, 3, 5, 5}),
            strides({5, 0, 0, 1}));
  EXPECT_EQ(broadcastView(viewOf({}, {}), {2, 3}), strides({0, 0}));
  EXPECT_FALSE(broadcastView(viewOf({2, 3}, {3, 1}), {3}).has_value());
  EXPECT_FALSE(broadcastView(viewOf({4}, {1}), {2, 3}).has_value());
}

TEST(StridedViewTest, Overlap) {
  EXPECT_FALSE(mayOverlap({2, 3, 5, 8}, {120, 8, 24, 1}));
  EXPECT_FALSE(mayOverlap({2, 3, 7, 16}, {48, 16, 96, 1}));
  EXPECT_FALSE(mayOverlap({4, 1, 3}, {5, 0, 1})); // gaps and size-1 dimensions
  EXPECT_TRUE(mayOverlap({2, 3}, {0, 1}));
  EXPECT_TRUE(mayOverlap({2, 3}, {2, 1}));
  EXPECT_TRUE(mayOverlap({3, 3}, {1, 1}));
  EXPECT_FALSE(mayOverlap({0, 3}, {0, 0}));
}

/// Selection indices by source (ViewSelection::source).
using Indices = std::map<unsigned, int64_t>;

/// `index` of a dimension of `size` counted from the front (ONNX).
int64_t normalizeIndex(int64_t index, int64_t size) { return index < 0 ? index + size : index; }

/// The layers applied to `source` (row-major values) as copies: transposes
/// move the values, reshapes keep them, selections keep the slice at their
/// index in `indices`.
std::vector<int64_t> materialize(std::vector<int64_t> values, Dims shape,
                                 llvm::ArrayRef<ViewLayer> layers, const Indices &indices = {}) {
  for (const ViewLayer &layer : layers) {
    llvm::SmallVector<int64_t, 6> layerShape = getViewLayerShape(layer, shape);
    Dims next(layerShape.begin(), layerShape.end());
    if (layer.kind == ViewLayer::Kind::Select) {
      int64_t size = shape[layer.axis];
      int64_t index = normalizeIndex(indices.at(layer.indexSource), size);
      int64_t inner = getNumElements(llvm::ArrayRef<int64_t>(shape).drop_front(layer.axis + 1));
      std::vector<int64_t> slice;
      for (int64_t at = 0; at < static_cast<int64_t>(values.size()) / size; ++at)
        slice.push_back(values[((at / inner) * size + index) * inner + at % inner]);
      values = std::move(slice);
    }
    if (layer.kind == ViewLayer::Kind::Transpose) {
      StridedView moved = permuteView(StridedView::dense(shape), layer.operand);
      std::vector<int64_t> copied(values.size());
      for (int64_t index = 0; index < static_cast<int64_t>(values.size()); ++index) {
        int64_t rest = index, offset = 0;
        for (size_t dim = next.size(); dim-- > 0;) {
          offset += (rest % next[dim]) * moved.strides[dim];
          rest /= next[dim];
        }
        copied[index] = values[offset];
      }
      values = std::move(copied);
    }
    shape = next;
  }
  return values;
}

/// The offset of row-major element `index` of `view`, its selections at
/// `indices`.
int64_t offsetOf(const StridedView &view, int64_t index, const Indices &indices = {}) {
  int64_t offset = 0;
  for (const ViewSelection &selection : view.selections)
    offset += normalizeIndex(indices.at(selection.source), selection.size) * selection.stride;
  for (size_t dim = view.shape.size(); dim-- > 0;) {
    offset += (index % view.shape[dim]) * view.strides[dim];
    index /= view.shape[dim];
  }
  return offset;
}

/// A random chain of transposes and reshapes from `shape`: each reshape
/// splits one dimension into two or merges two neighbours.
std::vector<ViewLayer> randomChain(Dims shape, std::mt19937 &rng) {
  std::vector<ViewLayer> layers;
  for (int step = 0; step < 4; ++step) {
    if (rng() % 2 == 0 && shape.size() > 1) {
      Dims permutation(shape.size());
      std::iota(permutation.begin(), permutation.end(), 0);
      std::shuffle(permutation.begin(), permutation.end(), rng);
      layers.push_back(ViewLayer::transpose(permutation));
    } else {
      Dims next = shape;
      size_t dim = rng() % shape.size();
      int64_t size = shape[dim];
      if (rng() % 2 == 0 && size % 2 == 0) {
        next[dim] = size / 2;
        next.insert(next.begin() + dim + 1, 2);
      } else if (dim + 1 < shape.size()) {
        next[dim] *= shape[dim + 1];
        next.erase(next.begin() + dim + 1);
      } else {
        next.push_back(1);
      }
      layers.push_back(ViewLayer::reshape(next));
    }
    llvm::SmallVector<int64_t, 6> layerShape = getViewLayerShape(layers.back(), shape);
    shape.assign(layerShape.begin(), layerShape.end());
  }
  return layers;
}

/// Random chains, element by element against the copies the layers make:
/// reading (element i of the result is at the view's offset i in the
/// source) and writing (source element i lands at the view's offset i in
/// the result). A chain the composition refuses must have a reshape there.
TEST(StridedViewTest, RandomChainsMatchCopies) {
  std::mt19937 rng(20250611);
  const Dims sources[] = {{4, 6}, {2, 3, 4}, {6, 1, 4}, {2, 2, 3, 2}};
  int composed = 0, inverted = 0;
  for (int round = 0; round < 400; ++round) {
    Dims shape = sources[round % 4];
    int64_t count = getNumElements(llvm::ArrayRef<int64_t>(shape));
    std::vector<ViewLayer> layers = randomChain(shape, rng);
    std::vector<int64_t> identity(count);
    std::iota(identity.begin(), identity.end(), 0);
    std::vector<int64_t> moved = materialize(identity, shape, layers);
    SCOPED_TRACE("round " + std::to_string(round));

    size_t failed = layers.size();
    if (std::optional<StridedView> view =
            composeViews(StridedView::dense(shape), layers, &failed)) {
      ++composed;
      for (int64_t index = 0; index < count; ++index)
        ASSERT_EQ(offsetOf(*view, index), moved[index]) << "read element " << index;
    } else {
      ASSERT_LT(failed, layers.size());
      EXPECT_EQ(layers[failed].kind, ViewLayer::Kind::Reshape);
    }

    failed = layers.size();
    if (std::optional<StridedView> view = composeInverseViews(shape, layers, &failed)) {
      ++inverted;
      ASSERT_EQ(view->shape, StridedView::dense(shape).shape);
      for (int64_t index = 0; index < count; ++index)
        ASSERT_EQ(moved[offsetOf(*view, index)], index) << "written element " << index;
    } else {
      ASSERT_LT(failed, layers.size());
      EXPECT_EQ(layers[failed].kind, ViewLayer::Kind::Reshape);
    }
  }
  // Both outcomes occur (the chains are not all trivial, nor all refused).
  EXPECT_GT(composed, 100);
  EXPECT_GT(inverted, 100);
  EXPECT_LT(composed, 400);
  EXPECT_LT(inverted, 400);
}

/// Random chains with selections (a scalar or [1] index, negative ones
/// included) among the transposes and reshapes, read element by element
/// against the copies.
TEST(StridedViewTest, RandomChainsWithSelectionsMatchCopies) {
  std::mt19937 rng(314);
  const Dims sources[] = {{3, 4, 6}, {2, 3, 2, 4}, {4, 1, 6, 2}};
  int composed = 0;
  for (int round = 0; round < 300; ++round) {
    Dims shape = sources[round % 3];
    int64_t count = getNumElements(llvm::ArrayRef<int64_t>(shape));
    std::vector<ViewLayer> layers;
    Indices indices;
    Dims current = shape;
    for (int part = 0; part < 2; ++part) {
      for (const ViewLayer &layer : randomChain(current, rng)) {
        layers.push_back(layer);
        llvm::SmallVector<int64_t, 6> next = getViewLayerShape(layer, current);
        current.assign(next.begin(), next.end());
      }
      auto axis = static_cast<int64_t>(rng() % current.size());
      int64_t size = current[axis];
      auto source = static_cast<unsigned>(indices.size());
      indices[source] = static_cast<int64_t>(rng() % (2 * size)) - size;
      layers.push_back(ViewLayer::select(axis, source, rng() % 2 ? Dims{1} : Dims{}));
      llvm::SmallVector<int64_t, 6> next = getViewLayerShape(layers.back(), current);
      current.assign(next.begin(), next.end());
      if (current.empty())
        break;
    }
    std::vector<int64_t> identity(count);
    std::iota(identity.begin(), identity.end(), 0);
    std::vector<int64_t> moved = materialize(identity, shape, layers, indices);
    SCOPED_TRACE("round " + std::to_string(round));
    size_t failed = layers.size();
    if (std::optional<StridedView> view =
            composeViews(StridedView::dense(shape), layers, &failed)) {
      ++composed;
      ASSERT_EQ(getNumElements(llvm::ArrayRef<int64_t>(view->shape)),
                static_cast<int64_t>(moved.size()));
      for (int64_t index = 0; index < static_cast<int64_t>(moved.size()); ++index)
        ASSERT_EQ(offsetOf(*view, index, indices), moved[index]) << "read element " << index;
    } else {
      // No dimension is empty: only a merge that stays apart fails.
      ASSERT_LT(failed, layers.size());
      EXPECT_EQ(layers[failed].kind, ViewLayer::Kind::Reshape);
    }
  }
  EXPECT_GT(composed, 100);
  EXPECT_LT(composed, 300);
}

/// Broadcast sources: a stride-0 dimension read through a chain reads the
/// same elements as the broadcast materialized first.
TEST(StridedViewTest, RandomChainsOfBroadcastSources) {
  std::mt19937 rng(7);
  // [4, 6] where dimension 0 is broadcast from [1, 6].
  StridedView source = viewOf({4, 6}, {0, 1});
  std::vector<int64_t> expanded;
  for (int64_t index = 0; index < 24; ++index)
    expanded.push_back(offsetOf(source, index));
  int composed = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<ViewLayer> layers = randomChain({4, 6}, rng);
    std::vector<int64_t> moved = materialize(expanded, {4, 6}, layers);
    if (std::optional<StridedView> view = composeViews(source, layers)) {
      ++composed;
      for (int64_t index = 0; index < 24; ++index)
        ASSERT_EQ(offsetOf(*view, index), moved[index]) << "round " << round << ", " << index;
    }
  }
  EXPECT_GT(composed, 50);
}

//===----------------------------------------------------------------------===//
// Definitions with view chains
//===----------------------------------------------------------------------===//

/// A value of a definition being written.
struct Value {
  TypedValue typed;
  Dims shape;
  DType dtype = DType::F32;
};

std::string typeOf(const Dims &shape, DType dtype, bool constant = false) {
  std::string text = tensorType(shape, dtype);
  return constant ? "!cgc.tensor<constant " + text.substr(std::string("!cgc.tensor<").size())
                  : text;
}

/// The numpy broadcast of two shapes (valid ones).
Dims broadcastShapes(const Dims &a, const Dims &b) {
  Dims result(std::max(a.size(), b.size()), 1);
  for (size_t index = 0; index < result.size(); ++index) {
    int64_t x = index < a.size() ? a[a.size() - 1 - index] : 1;
    int64_t y = index < b.size() ? b[b.size() - 1 - index] : 1;
    result[result.size() - 1 - index] = x == 1 ? y : x;
  }
  return result;
}

/// Writes a definition a layer at a time, its arguments given up front.
class LayerWriter {
public:
  /// `arguments`: each operand and whether its type is constant-qualified.
  LayerWriter(const std::string &name, std::vector<std::pair<OperandSpec, bool>> arguments)
      : text(name, typedArguments(arguments)) {
    for (size_t index = 0; index < arguments.size(); ++index) {
      const OperandSpec &spec = arguments[index].first;
      values.push_back({{"%a" + std::to_string(index), typeOf(spec.shape, spec.dtype,
                                                              arguments[index].second)},
                        spec.shape,
                        spec.dtype});
      operands.push_back(spec);
    }
  }

  Value argument(size_t index) const { return values[index]; }

  Value transpose(const Value &input, const Dims &permutation) {
    Dims shape;
    for (int64_t dim : permutation)
      shape.push_back(input.shape[dim]);
    return layer("cgc_op.transpose", {input}, shape, input.dtype,
                 "{permutation = " + listText(permutation) + "}");
  }
  Value reshape(const Value &input, const Dims &shape) {
    return layer("cgc_op.reshape", {input}, shape, input.dtype,
                 "{shape = " + listText(shape) + "}");
  }
  /// The slices of `input` at `indices` along `axis`.
  Value gather(const Value &input, const Value &indices, int64_t axis) {
    Dims shape(input.shape.begin(), input.shape.begin() + axis);
    shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
    shape.insert(shape.end(), input.shape.begin() + axis + 1, input.shape.end());
    return layer("cgc_op.gather", {input, indices}, shape, input.dtype,
                 "{axis = " + std::to_string(axis) + " : i64}");
  }
  Value binary(const std::string &op, const Value &lhs, const Value &rhs) {
    return layer(op, {lhs, rhs}, broadcastShapes(lhs.shape, rhs.shape), lhs.dtype);
  }
  Value matmul(const Value &lhs, const Value &rhs) {
    Dims batch = broadcastShapes(Dims(lhs.shape.begin(), lhs.shape.end() - 2),
                                 Dims(rhs.shape.begin(), rhs.shape.end() - 2));
    batch.push_back(lhs.shape.end()[-2]);
    batch.push_back(rhs.shape.back());
    return layer("cgc_op.matmul", {lhs, rhs}, batch, lhs.dtype);
  }
  Value softmax(const Value &input) {
    return layer("cgc_op.softmax", {input}, input.shape, input.dtype,
                 "{axis = " + std::to_string(input.shape.size() - 1) + " : i64}");
  }

  DefinitionCase finish(const Value &result, Tolerance tolerance) const {
    return DefinitionCase{text.str({result.typed}), operands, tolerance};
  }

private:
  static std::vector<TypedValue>
  typedArguments(const std::vector<std::pair<OperandSpec, bool>> &arguments) {
    std::vector<TypedValue> typed;
    for (size_t index = 0; index < arguments.size(); ++index)
      typed.push_back({"%a" + std::to_string(index),
                       typeOf(arguments[index].first.shape, arguments[index].first.dtype,
                              arguments[index].second)});
    return typed;
  }
  Value layer(const std::string &op, const std::vector<Value> &inputs, const Dims &shape,
              DType dtype, const std::string &attributes = "") {
    std::vector<TypedValue> typed;
    for (const Value &input : inputs)
      typed.push_back(input.typed);
    std::string name = "%t" + std::to_string(counter++);
    return {text.layer(name, op, typed, typeOf(shape, dtype), attributes), shape, dtype};
  }

  DefinitionText text;
  std::vector<Value> values;
  std::vector<OperandSpec> operands;
  int counter = 0;
};

Tolerance attentionTolerance(DType dtype) {
  return dtype == DType::F32 ? Tolerance{1e-4, 1e-5} : Tolerance{1e-2, 1e-2};
}

/// What a case's plan must read and write (strides of the views).
struct ExpectedViews {
  AttentionView query, key, value;
  /// std::nullopt: dense.
  std::optional<AttentionView> output;
};

AttentionView stridesView(unsigned input, Strides batch, int64_t row, int64_t column,
                          std::initializer_list<AttentionSelection> selections = {}) {
  AttentionView view;
  view.input = input;
  view.batchStrides.assign(batch.begin(), batch.end());
  view.rowStride = row;
  view.columnStride = column;
  view.selections.assign(selections);
  return view;
}

/// One definition with view chains.
struct ViewCase {
  std::string name;
  DefinitionCase definition;
  ExpectedViews views;
  /// Why the GEMM path refuses it, or empty.
  std::string gemmRefusal;
};

/// The attention core between chains: q and kᵀ scaled by `scale` (torch's
/// export of scaled_dot_product_attention), an optional additive mask.
Value attentionCore(LayerWriter &writer, Value query, Value key, const Value &value,
                    const Value &scale, const std::optional<Value> &mask) {
  query = writer.binary("cgc_op.mul", query, scale);
  key = writer.binary("cgc_op.mul", key, scale);
  Value scores = writer.matmul(query, key);
  if (mask)
    scores = writer.binary("cgc_op.add", scores, *mask);
  return writer.matmul(writer.softmax(scores), value);
}

constexpr int64_t kBatch = 2, kHeads = 3;

/// BERT (HuggingFace export), sequence 5, head dimension 8: q, kᵀ and v
/// split out of [B, S, H·E] by reshape and transpose, scaled, the [B, 1, 1,
/// S] additive mask, and the result merged back to [B, S, H·E].
ViewCase bertCase(DType dtype) {
  constexpr int64_t sequence = 5, head = 8, hidden = kHeads * head;
  std::string name = "bert_views_" + dtypeName(dtype);
  LayerWriter writer(name, {{tensor({kBatch, sequence, hidden}, dtype, -1.0, 1.0), false},
                            {tensor({kBatch, sequence, hidden}, dtype, -1.0, 1.0), false},
                            {tensor({kBatch, sequence, hidden}, dtype), false},
                            {values({}, dtype, {std::sqrt(1.0 / std::sqrt(8.0))}), true},
                            {values({kBatch, 1, 1, sequence}, dtype,
                                    {0, 0, 0, -10000, 0, 0, 0, -10000, -10000, 0}),
                             false}});
  Dims split = {kBatch, sequence, kHeads, head};
  Value query = writer.transpose(writer.reshape(writer.argument(0), split), {0, 2, 1, 3});
  Value key = writer.transpose(writer.reshape(writer.argument(1), split), {0, 2, 3, 1});
  Value value = writer.transpose(writer.reshape(writer.argument(2), split), {0, 2, 1, 3});
  Value result = attentionCore(writer, query, key, value, writer.argument(3), writer.argument(4));
  result = writer.reshape(writer.transpose(result, {0, 2, 1, 3}), {kBatch, sequence, hidden});

  ViewCase viewCase{name, writer.finish(result, attentionTolerance(dtype)), {}, ""};
  int64_t batchStride = sequence * hidden;
  viewCase.views.query = stridesView(0, {batchStride, head}, hidden, 1);
  viewCase.views.key = stridesView(1, {batchStride, head}, 1, hidden);
  viewCase.views.value = stridesView(2, {batchStride, head}, hidden, 1);
  viewCase.views.output = stridesView(0, {batchStride, head}, hidden, 1);
  return viewCase;
}

/// torchvision's ViT (nn.MultiheadAttention), sequence 7, head dimension
/// 16: q = reshape(transpose(reshape(g))) from [S, B, H·E], kᵀ that
/// transposed once more, the result through transpose[2, 0, 1, 3] and a
/// reshape to [S·B, H·E].
ViewCase vitCase(DType dtype) {
  constexpr int64_t sequence = 7, head = 16, hidden = kHeads * head;
  std::string name = "vit_views_" + dtypeName(dtype);
  LayerWriter writer(name, {{tensor({sequence, kBatch, hidden}, dtype, -1.0, 1.0), false},
                            {tensor({sequence, kBatch, hidden}, dtype, -1.0, 1.0), false},
                            {tensor({sequence, kBatch, hidden}, dtype), false},
                            {values({}, dtype, {0.5}), true}});
  auto heads = [&](const Value &input) {
    Value packed = writer.reshape(input, {sequence, kBatch * kHeads, head});
    return writer.reshape(writer.transpose(packed, {1, 0, 2}), {kBatch, kHeads, sequence, head});
  };
  Value query = heads(writer.argument(0));
  Value key = writer.transpose(heads(writer.argument(1)), {0, 1, 3, 2});
  Value value = heads(writer.argument(2));
  Value result = attentionCore(writer, query, key, value, writer.argument(3), std::nullopt);
  result = writer.reshape(writer.transpose(result, {2, 0, 1, 3}), {sequence * kBatch, hidden});

  ViewCase viewCase{name, writer.finish(result, attentionTolerance(dtype)), {}, ""};
  int64_t rowStride = kBatch * hidden;
  viewCase.views.query = stridesView(0, {hidden, head}, rowStride, 1);
  viewCase.views.key = stridesView(1, {hidden, head}, 1, rowStride);
  viewCase.views.value = stridesView(2, {hidden, head}, rowStride, 1);
  viewCase.views.output = stridesView(0, {hidden, head}, rowStride, 1);
  return viewCase;
}

/// torchvision's ViT as nn.MultiheadAttention exports it, sequence 7,
/// head dimension 16, at `batch` 1 or 2: q, k and v picked out of one
/// projection g [S, B, 3·H·E] by reshape [S, B, 3, H·E], reshape
/// [1, S, B, 3, H·E], transpose [3, 1, 2, 0, 4] and reshape [3, S, B, H·E]
/// (shared by the three) and a gather of index 0 (a scalar), 1 (an index
/// [1], which keeps the dimension) and -1 (the last, 2) each, then split
/// into heads as `vitCase` does. At batch 2 the heads' [S, B·H, E] walks
/// two strides (B's is 3·H·E, not H·E) until the split [B, H, S, E].
ViewCase vitFusedCase(DType dtype, int64_t batch) {
  constexpr int64_t sequence = 7, head = 16, hidden = kHeads * head;
  std::string name = "vit_fused_views_" + dtypeName(dtype) + "_b" + std::to_string(batch);
  LayerWriter writer(name, {{tensor({sequence, batch, 3 * hidden}, dtype, -1.0, 1.0), false},
                            {values({}, DType::I64, {0}), true},
                            {values({1}, DType::I64, {1}), true},
                            {values({}, DType::I64, {-1}), true},
                            {values({}, dtype, {0.5}), true}});
  Value split = writer.reshape(writer.argument(0), {sequence, batch, 3, hidden});
  split = writer.reshape(split, {1, sequence, batch, 3, hidden});
  split = writer.transpose(split, {3, 1, 2, 0, 4});
  split = writer.reshape(split, {3, sequence, batch, hidden});
  auto heads = [&](size_t indexArgument) {
    Value picked = writer.gather(split, writer.argument(indexArgument), 0);
    Value packed = writer.reshape(picked, {sequence, batch * kHeads, head});
    return writer.reshape(writer.transpose(packed, {1, 0, 2}), {batch, kHeads, sequence, head});
  };
  Value query = heads(1);
  Value key = writer.transpose(heads(2), {0, 1, 3, 2});
  Value value = heads(3);
  Value result = attentionCore(writer, query, key, value, writer.argument(4), std::nullopt);
  result = writer.reshape(writer.transpose(result, {2, 0, 1, 3}), {sequence * batch, hidden});

  ViewCase viewCase{name, writer.finish(result, attentionTolerance(dtype)), {}, ""};
  // A batch of 1 broadcasts (stride 0); B's stride in g is 3·H·E, each
  // head E, each token B·3·H·E, and q, k, v start H·E apart.
  int64_t batchStride = batch == 1 ? 0 : 3 * hidden, rowStride = batch * 3 * hidden;
  auto selection = [&](unsigned input) { return AttentionSelection{input, DType::I64, 3, hidden}; };
  viewCase.views.query = stridesView(0, {batchStride, head}, rowStride, 1, {selection(1)});
  viewCase.views.key = stridesView(0, {batchStride, head}, 1, rowStride, {selection(2)});
  viewCase.views.value = stridesView(0, {batchStride, head}, rowStride, 1, {selection(3)});
  // The result [B, H, S, E] back to [S·B, H·E]: B strides H·E (at batch 1
  // too, the stride a size-1 dimension takes next to the heads').
  viewCase.views.output = stridesView(0, {hidden, head}, batch * hidden, 1);
  return viewCase;
}

/// BERT's inputs; the result transposed to [B, H, E, S] only: columns
/// 5 apart, which cuBLASLt cannot write, so the flash kernel runs it.
ViewCase transposedOutputCase() {
  constexpr int64_t sequence = 5, head = 8, hidden = kHeads * head;
  DType dtype = DType::F32;
  LayerWriter writer("transposed_output",
                     {{tensor({kBatch, sequence, hidden}, dtype, -1.0, 1.0), false},
                      {tensor({kBatch, sequence, hidden}, dtype, -1.0, 1.0), false},
                      {tensor({kBatch, sequence, hidden}, dtype), false},
                      {values({}, dtype, {0.6}), true}});
  Dims split = {kBatch, sequence, kHeads, head};
  Value query = writer.transpose(writer.reshape(writer.argument(0), split), {0, 2, 1, 3});
  Value key = writer.transpose(writer.reshape(writer.argument(1), split), {0, 2, 3, 1});
  Value value = writer.transpose(writer.reshape(writer.argument(2), split), {0, 2, 1, 3});
  Value result = attentionCore(writer, query, key, value, writer.argument(3), std::nullopt);
  result = writer.transpose(result, {0, 1, 3, 2});

  ViewCase viewCase{"transposed_output", writer.finish(result, attentionTolerance(dtype)), {},
                    "the output's layout (row stride 1, column stride 5) is not a row-major "
                    "matrix cuBLASLt writes"};
  int64_t batchStride = sequence * hidden;
  viewCase.views.query = stridesView(0, {batchStride, head}, hidden, 1);
  viewCase.views.key = stridesView(1, {batchStride, head}, 1, hidden);
  viewCase.views.value = stridesView(2, {batchStride, head}, hidden, 1);
  viewCase.views.output = stridesView(0, {kHeads * head * sequence, head * sequence}, 1, sequence);
  return viewCase;
}

/// A value of [S, H·E] split into heads and broadcast over the batch, a
/// mask [B, S] reshaped to [B, 1, 1, S] on its way to the scores, and the
/// heads merged back as BERT does.
ViewCase broadcastValueCase() {
  constexpr int64_t sequence = 5, head = 8, hidden = kHeads * head;
  DType dtype = DType::F32;
  LayerWriter writer("broadcast_value",
                     {{tensor({kBatch, sequence, hidden}, dtype, -1.0, 1.0), false},
                      {tensor({kBatch, sequence, hidden}, dtype, -1.0, 1.0), false},
                      {tensor({sequence, hidden}, dtype), false},
                      {values({}, dtype, {0.6}), true},
                      {values({kBatch, sequence}, dtype, {0, -10000, 0, 0, 0, 0, 0, 0, -10000, 0}),
                       false}});
  Dims split = {kBatch, sequence, kHeads, head};
  Value query = writer.transpose(writer.reshape(writer.argument(0), split), {0, 2, 1, 3});
  Value key = writer.transpose(writer.reshape(writer.argument(1), split), {0, 2, 3, 1});
  Value value =
      writer.transpose(writer.reshape(writer.argument(2), {sequence, kHeads, head}), {1, 0, 2});
  Value mask = writer.reshape(writer.argument(4), {kBatch, 1, 1, sequence});
  Value result = attentionCore(writer, query, key, value, writer.argument(3), mask);
  result = writer.reshape(writer.transpose(result, {0, 2, 1, 3}), {kBatch, sequence, hidden});

  ViewCase viewCase{"broadcast_value", writer.finish(result, attentionTolerance(dtype)), {}, ""};
  int64_t batchStride = sequence * hidden;
  viewCase.views.query = stridesView(0, {batchStride, head}, hidden, 1);
  viewCase.views.key = stridesView(1, {batchStride, head}, 1, hidden);
  viewCase.views.value = stridesView(2, {0, head}, hidden, 1);
  viewCase.views.output = stridesView(0, {batchStride, head}, hidden, 1);
  return viewCase;
}

/// Plain [B, H, S, E] operands, the heads merged into the batch by a
/// reshape alone: the result stays dense (no output view).
ViewCase mergedHeadsCase() {
  constexpr int64_t sequence = 6, head = 8;
  DType dtype = DType::F32;
  Dims operand = {kBatch, kHeads, sequence, head};
  LayerWriter writer("merged_heads", {{tensor(operand, dtype, -1.0, 1.0), false},
                                      {tensor({kBatch, kHeads, head, sequence}, dtype, -1.0, 1.0),
                                       false},
                                      {tensor(operand, dtype), false},
                                      {values({}, dtype, {0.6}), true}});
  Value result = attentionCore(writer, writer.argument(0), writer.argument(1), writer.argument(2),
                               writer.argument(3), std::nullopt);
  result = writer.reshape(result, {kBatch * kHeads, sequence, head});

  ViewCase viewCase{"merged_heads", writer.finish(result, attentionTolerance(dtype)), {}, ""};
  int64_t matrix = sequence * head;
  viewCase.views.query = stridesView(0, {kHeads * matrix, matrix}, head, 1);
  viewCase.views.key = stridesView(1, {kHeads * matrix, matrix}, sequence, 1);
  viewCase.views.value = stridesView(2, {kHeads * matrix, matrix}, head, 1);
  return viewCase;
}

std::vector<ViewCase> viewCases() {
  std::vector<ViewCase> cases;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    cases.push_back(bertCase(dtype));
    cases.push_back(vitCase(dtype));
    for (int64_t batch : {1, 2})
      cases.push_back(vitFusedCase(dtype, batch));
  }
  cases.push_back(transposedOutputCase());
  cases.push_back(broadcastValueCase());
  cases.push_back(mergedHeadsCase());
  return cases;
}

std::vector<DefinitionCase> viewDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (const ViewCase &viewCase : viewCases())
    definitions.push_back(viewCase.definition);
  return definitions;
}

class FusedAttentionViewTest : public FusedKernelTest {};

/// Every case recognized (and, on a device, as the build chooses, matching
/// the CPU reference).
CGC_FUSED_KERNEL_CASES(FusedAttentionViewTest, ViewChains, viewDefinitions)

void expectViewEquals(const AttentionView &actual, const AttentionView &expected,
                      const std::string &what) {
  EXPECT_EQ(actual.input, expected.input) << what;
  EXPECT_EQ(Strides(actual.batchStrides.begin(), actual.batchStrides.end()),
            Strides(expected.batchStrides.begin(), expected.batchStrides.end()))
      << what << " batch strides";
  EXPECT_EQ(actual.rowStride, expected.rowStride) << what << " row stride";
  EXPECT_EQ(actual.columnStride, expected.columnStride) << what << " column stride";
  ASSERT_EQ(actual.selections.size(), expected.selections.size()) << what << " selections";
  for (auto [got, wanted] : llvm::zip(actual.selections, expected.selections)) {
    EXPECT_EQ(got.input, wanted.input) << what << " selection's index input";
    EXPECT_EQ(got.indexType, wanted.indexType) << what << " selection's index type";
    EXPECT_EQ(got.size, wanted.size) << what << " selected dimension";
    EXPECT_EQ(got.stride, wanted.stride) << what << " selection's stride";
  }
}

/// The views each chain composes to (no device needed).
TEST_F(FusedAttentionViewTest, ChainsBecomeViews) {
  for (const ViewCase &viewCase : viewCases()) {
    SCOPED_TRACE(viewCase.name);
    cgc::FunctionalDefinitionOp definition = buildDefinition(viewCase.definition);
    ASSERT_TRUE(definition);
    std::optional<llvm::Expected<AttentionPlan>> plan = readFusedAttention(definition);
    ASSERT_TRUE(plan.has_value()) << "not read as attention";
    ASSERT_TRUE(static_cast<bool>(*plan)) << llvm::toString(plan->takeError());
    expectViewEquals((*plan)->query.view, viewCase.views.query, "query");
    expectViewEquals((*plan)->key.view, viewCase.views.key, "transposed key");
    expectViewEquals((*plan)->value, viewCase.views.value, "value");
    // The scale is a one-element factor on q and kᵀ.
    ASSERT_TRUE((*plan)->query.factor.has_value());
    EXPECT_EQ((*plan)->query.factor->rowStride, 0);
    EXPECT_EQ((*plan)->query.factor->columnStride, 0);
    ASSERT_EQ((*plan)->output.has_value(), viewCase.views.output.has_value());
    if (viewCase.views.output)
      expectViewEquals(*(*plan)->output, *viewCase.views.output, "output");
  }
}

/// The plan run on the host as the kernels run it: every operand read
/// through its view, each element of the result written through the
/// output view (dense without one) into a tensor of `resultShape`.
HostTensor runPlanOnHost(const AttentionPlan &plan, const std::vector<HostTensor> &inputs,
                         const Dims &resultShape) {
  HostTensor result(plan.dtype, resultShape);
  for (int64_t index = 0; index < result.size(); ++index)
    result.set(index, std::nan(""));
  AttentionView output = getAttentionOutputView(plan);
  int64_t batches = getNumElements(plan.batch);
  for (int64_t batch = 0; batch < batches; ++batch) {
    // The batch matrix's coordinates, and where each view starts.
    Dims coordinates(plan.batch.size());
    for (int64_t rest = batch, dim = static_cast<int64_t>(plan.batch.size()) - 1; dim >= 0;
         --dim) {
      coordinates[dim] = rest % plan.batch[dim];
      rest /= plan.batch[dim];
    }
    auto read = [&](const AttentionView &view, int64_t row, int64_t column) {
      int64_t offset = row * view.rowStride + column * view.columnStride;
      for (size_t dim = 0; dim < coordinates.size(); ++dim)
        offset += coordinates[dim] * view.batchStrides[dim];
      // The index is read as the kernels read it (valid ones: the CPU's
      // gather answers zeros for others, the kernels clamp).
      for (const AttentionSelection &selection : view.selections) {
        auto index = static_cast<int64_t>(inputs[selection.input].get(0));
        offset += (index < 0 ? index + selection.size : index) * selection.stride;
      }
      return inputs[view.input].get(offset);
    };
    auto readOperand = [&](const AttentionOperand &operand, int64_t row, int64_t column) {
      double value = read(operand.view, row, column);
      return operand.factor ? value * read(*operand.factor, row, column) : value;
    };
    for (int64_t query = 0; query < plan.queries; ++query) {
      std::vector<double> scores(plan.keys);
      for (int64_t key = 0; key < plan.keys; ++key) {
        double s = 0;
        for (int64_t e = 0; e < plan.embedding; ++e)
          s += readOperand(plan.query, query, e) * readOperand(plan.key, e, key);
        s *= plan.scale.value_or(1.0);
        for (const AttentionScoreStep &step : plan.steps) {
          double x = step.operand ? read(*step.operand, query, key) : s;
          double lhs = step.scoreIsLhs ? s : x, rhs = step.scoreIsLhs ? x : s;
          switch (step.kind) {
          case AttentionScoreStep::Kind::Add:
            s = lhs + rhs;
            break;
          case AttentionScoreStep::Kind::Subtract:
            s = lhs - rhs;
            break;
          case AttentionScoreStep::Kind::Multiply:
            s = lhs * rhs;
            break;
          case AttentionScoreStep::Kind::Divide:
            s = lhs / rhs;
            break;
          case AttentionScoreStep::Kind::KeepWhere:
            s = x != 0 ? s : -INFINITY;
            break;
          }
        }
        scores[key] = s;
      }
      double maximum = *std::max_element(scores.begin(), scores.end()), sum = 0;
      for (double &score : scores)
        sum += score = std::exp(score - maximum);
      for (int64_t d = 0; d < plan.valueEmbedding; ++d) {
        double value = 0;
        for (int64_t key = 0; key < plan.keys; ++key)
          value += scores[key] / sum * read(plan.value, key, d);
        int64_t offset = query * output.rowStride + d * output.columnStride;
        for (size_t dim = 0; dim < coordinates.size(); ++dim)
          offset += coordinates[dim] * output.batchStrides[dim];
        result.set(offset, value);
      }
    }
  }
  return result;
}

/// Each plan, run on the host, matches the CPU driver running the
/// definition layer by layer: the views read and write what the layers
/// do, whichever kernel then runs the plan (no device needed).
TEST_F(FusedAttentionViewTest, PlansMatchLayersOnHost) {
  for (const ViewCase &viewCase : viewCases()) {
    SCOPED_TRACE(viewCase.name);
    cgc::FunctionalDefinitionOp definition = buildDefinition(viewCase.definition);
    ASSERT_TRUE(definition);
    std::optional<llvm::Expected<AttentionPlan>> plan = readFusedAttention(definition);
    ASSERT_TRUE(plan.has_value());
    ASSERT_TRUE(static_cast<bool>(*plan)) << llvm::toString(plan->takeError());
    OpCase operands;
    operands.operands = viewCase.definition.operands;
    std::vector<HostTensor> inputs = makeInputs(operands);
    std::vector<HostTensor> expected = runDefinitionOnCpu(definition, inputs);
    ASSERT_EQ(expected.size(), 1u);
    HostTensor actual = runPlanOnHost(**plan, inputs, expected[0].shape);
    // The host computes in double from the inputs; the layers round each
    // intermediate to the element type.
    expectClose(actual, expected[0], viewCase.definition.tolerance, viewCase.name + " on host");
  }
}

/// The mask [B, S] reshaped to [B, 1, 1, S] is read in place.
TEST_F(FusedAttentionViewTest, ScoreOperandThroughReshape) {
  cgc::FunctionalDefinitionOp definition = buildDefinition(broadcastValueCase().definition);
  ASSERT_TRUE(definition);
  std::optional<llvm::Expected<AttentionPlan>> plan = readFusedAttention(definition);
  ASSERT_TRUE(plan.has_value());
  ASSERT_TRUE(static_cast<bool>(*plan)) << llvm::toString(plan->takeError());
  ASSERT_EQ((*plan)->steps.size(), 1u);
  ASSERT_TRUE((*plan)->steps[0].operand.has_value());
  expectViewEquals(*(*plan)->steps[0].operand, stridesView(4, {5, 0}, 0, 1), "mask");
}

/// Why the tensor-core kernel does not run `definition`'s plan (float32,
/// head dimensions that are not multiples of 16), or std::nullopt.
std::optional<std::string> getTensorCoreRefusal(cgc::FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<AttentionPlan>> plan = readFusedAttention(definition);
  if (!plan || !*plan) {
    if (plan)
      llvm::consumeError(plan->takeError());
    return "not read as attention";
  }
  return getTensorCoreAttentionRefusal(**plan, /*computeMajor=*/9);
}

/// Without a device: NVRTC compiles the flash kernels of every case
/// (reading and writing through the views; the tensor-core one where it
/// takes the plan), and the GEMM path plans each up to where cuBLASLt
/// needs a device, or refuses it with its reason.
TEST_F(FusedAttentionViewTest, BothPathsBuildWithoutDevice) {
  KernelContext::Impl &context = getCompileOnlyContext();
  AttentionBuildOptions flash, gemm, tensorCore;
  flash.path = AttentionPath::Flash;
  gemm.path = AttentionPath::Gemm;
  tensorCore.path = AttentionPath::TensorCore;
  for (const ViewCase &viewCase : viewCases()) {
    SCOPED_TRACE(viewCase.name);
    cgc::FunctionalDefinitionOp definition = buildDefinition(viewCase.definition);
    ASSERT_TRUE(definition);
    std::optional<llvm::Expected<AttentionPlanKernel>> built =
        buildFusedAttention(definition, context, flash);
    ASSERT_TRUE(built.has_value());
    EXPECT_TRUE(static_cast<bool>(*built)) << llvm::toString(built->takeError());

    built = buildFusedAttention(definition, context, tensorCore);
    ASSERT_TRUE(built.has_value());
    if (std::optional<std::string> refusal = getTensorCoreRefusal(definition)) {
      ASSERT_FALSE(static_cast<bool>(*built)) << "the tensor-core kernel was built";
      EXPECT_NE(llvm::toString(built->takeError()).find(*refusal), std::string::npos);
    } else {
      EXPECT_TRUE(static_cast<bool>(*built)) << llvm::toString(built->takeError());
    }

    built = buildFusedAttention(definition, context, gemm);
    ASSERT_TRUE(built.has_value());
    ASSERT_FALSE(static_cast<bool>(*built)) << "built without a device";
    std::string message = llvm::toString(built->takeError());
    if (viewCase.gemmRefusal.empty())
      EXPECT_NE(message.find("cuBLASLt needs a device"), std::string::npos) << message;
    else
      EXPECT_EQ(message, "@" + viewCase.name + ": fused attention: the GEMM path does not run " +
                             "this attention: " + viewCase.gemmRefusal);
  }
}

/// The output view of a plan written by hand must give every element its
/// own place.
TEST_F(FusedAttentionViewTest, OverlappingOutputIsUnimplemented) {
  cgc::FunctionalDefinitionOp definition = buildDefinition(bertCase(DType::F32).definition);
  ASSERT_TRUE(definition);
  std::optional<llvm::Expected<AttentionPlan>> read = readFusedAttention(definition);
  ASSERT_TRUE(read.has_value());
  ASSERT_TRUE(static_cast<bool>(*read)) << llvm::toString(read->takeError());
  AttentionPlan plan = std::move(**read);
  EXPECT_FALSE(getUnimplementedAttentionFeature(plan).has_value());
  plan.output->rowStride = 1;
  EXPECT_EQ(getUnimplementedAttentionFeature(plan), "an output view whose elements overlap");
  plan.output->rowStride = -24;
  EXPECT_EQ(getUnimplementedAttentionFeature(plan), "an output written with a negative stride");
}

/// Expects the attention family, and so the registry, to reject
/// `definitionCase` with exactly `message`.
void expectAttentionRejects(FusedKernelTest &test, const DefinitionCase &definitionCase,
                            const std::string &message) {
  SCOPED_TRACE(definitionCase.describe());
  cgc::FunctionalDefinitionOp definition = test.buildDefinition(definitionCase);
  ASSERT_TRUE(definition);
  std::optional<llvm::Error> rejected = kFusedAttention.check(definition);
  ASSERT_TRUE(rejected.has_value()) << "not read as attention";
  ASSERT_TRUE(static_cast<bool>(*rejected)) << "accepted";
  EXPECT_EQ(llvm::toString(std::move(*rejected)), message);
  test.expectFusedRejected(definitionCase, message);
}

/// A reshape that strides cannot express rejects the definition, naming
/// the layer (the compiler then tries other patterns).
TEST_F(FusedAttentionViewTest, RejectsReshapesStridesCannotExpress) {
  DType dtype = DType::F32;
  // q = reshape [2, 15, 8] of transpose [0, 2, 1, 3] of [2, 5, 3, 8]: the
  // merged heads and sequence are not contiguous.
  {
    LayerWriter writer("query_merge", {{tensor({2, 5, 3, 8}, dtype), false},
                                       {tensor({2, 8, 4}, dtype), false},
                                       {tensor({2, 4, 8}, dtype), false},
                                       {values({}, dtype, {0.5}), true}});
    Value query = writer.reshape(writer.transpose(writer.argument(0), {0, 2, 1, 3}), {2, 15, 8});
    Value result = attentionCore(writer, query, writer.argument(1), writer.argument(2),
                                 writer.argument(3), std::nullopt);
    expectAttentionRejects(*this, writer.finish(result, attentionTolerance(dtype)),
                        "@query_merge: fused attention: reading the query through "
                        "cgc_op.reshape of 2x3x5x8 to 2x15x8, which merges dimensions that are "
                        "not contiguous in memory, is not implemented on the CUDA driver");
  }
  // The result [2, 5, 8] split to [2, 5, 2, 4] and transposed: the split
  // halves of a row end up apart.
  {
    LayerWriter writer("result_split", {{tensor({2, 5, 8}, dtype), false},
                                        {tensor({2, 8, 4}, dtype), false},
                                        {tensor({2, 4, 8}, dtype), false},
                                        {values({}, dtype, {0.5}), true}});
    Value result = attentionCore(writer, writer.argument(0), writer.argument(1),
                                 writer.argument(2), writer.argument(3), std::nullopt);
    result = writer.transpose(writer.reshape(result, {2, 5, 2, 4}), {0, 2, 1, 3});
    expectAttentionRejects(*this, writer.finish(result, attentionTolerance(dtype)),
                        "@result_split: fused attention: writing the result through "
                        "cgc_op.reshape of 2x5x8 to 2x5x2x4, whose dimensions later layers do "
                        "not keep contiguous, is not implemented on the CUDA driver");
  }
}

/// Every case through each path forced, against the CPU reference, launched
/// directly and through graph capture.
TEST_F(FusedAttentionViewTest, ViewChainsBothPathsMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  AttentionBuildOptions flash, gemm, gemmFloat32, tensorCore;
  flash.path = AttentionPath::Flash;
  gemm.path = AttentionPath::Gemm;
  gemmFloat32.path = AttentionPath::Gemm;
  gemmFloat32.float32Scores = true;
  tensorCore.path = AttentionPath::TensorCore;
  const std::pair<const char *, AttentionBuildOptions> paths[] = {
      {"flash kernel", flash},
      {"GEMM path", gemm},
      {"GEMM path, float32 scores", gemmFloat32},
      {"tensor-core flash kernel", tensorCore}};
  for (const ViewCase &viewCase : viewCases()) {
    SCOPED_TRACE(viewCase.name);
    cgc::FunctionalDefinitionOp definition = buildDefinition(viewCase.definition);
    ASSERT_TRUE(definition);
    OpCase operands;
    operands.operands = viewCase.definition.operands;
    std::vector<HostTensor> inputs = makeInputs(operands);
    std::vector<HostTensor> expected = runDefinitionOnCpu(definition, inputs);
    ASSERT_EQ(expected.size(), 1u);
    for (const auto &[pathName, options] : paths) {
      std::string what = viewCase.name + " (" + pathName + ")";
      std::optional<llvm::Expected<AttentionPlanKernel>> built =
          buildFusedAttention(definition, kernelContext->getImpl(), options);
      ASSERT_TRUE(built.has_value());
      if (*options.path == AttentionPath::Gemm && !viewCase.gemmRefusal.empty()) {
        ASSERT_FALSE(static_cast<bool>(*built)) << what << ": the GEMM path was built";
        EXPECT_NE(llvm::toString(built->takeError()).find(viewCase.gemmRefusal),
                  std::string::npos)
            << what;
        continue;
      }
      std::optional<std::string> tensorCoreRefusal = getTensorCoreRefusal(definition);
      if (*options.path == AttentionPath::TensorCore && tensorCoreRefusal) {
        ASSERT_FALSE(static_cast<bool>(*built)) << what << ": the tensor-core kernel was built";
        EXPECT_NE(llvm::toString(built->takeError()).find(*tensorCoreRefusal), std::string::npos)
            << what;
        continue;
      }
      ASSERT_TRUE(static_cast<bool>(*built)) << what << ": " << llvm::toString(built->takeError());
      EXPECT_EQ((*built)->path, *options.path) << what;
      for (bool capture : {false, true}) {
        std::vector<HostTensor> actual = launchOnCuda(
            (*built)->kernel, inputs, makeOutputs(definition.getResultTypes()), capture);
        ASSERT_EQ(actual.size(), 1u) << what;
        expectClose(actual[0], expected[0], viewCase.definition.tolerance,
                    what + (capture ? " (captured)" : ""));
      }
    }
  }
}

} // namespace
