//===- StridedView.cpp - transposes and reshapes as strides ---------------===//
//
// The reshape walks the input from its innermost dimension in chunks: a
// chunk is a run of dimensions that the strides walk as one (each stride
// its inner neighbour's times that neighbour's size, size-1 dimensions
// skipped), so its elements lie `base` apart in row-major order, with
// `base` the stride of its innermost dimension. The result's dimensions,
// also from the innermost, must cover each chunk exactly (their element
// counts multiply to the chunk's); they take strides within it. A result
// dimension that straddles two chunks would need two strides: that reshape
// is not a view. (This is the rule torch's Tensor.view applies.)
//
//===----------------------------------------------------------------------===//

#include "StridedView.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace cgc::cuda {

namespace {

int64_t countElements(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

/// The permutation undoing `permutation`.
llvm::SmallVector<int64_t, 6> invertPermutation(llvm::ArrayRef<int64_t> permutation) {
  llvm::SmallVector<int64_t, 6> inverse(permutation.size());
  for (size_t index = 0; index < permutation.size(); ++index)
    inverse[permutation[index]] = static_cast<int64_t>(index);
  return inverse;
}

} // namespace

StridedView StridedView::dense(llvm::ArrayRef<int64_t> shape) {
  StridedView view;
  view.shape.assign(shape.begin(), shape.end());
  view.strides.resize(shape.size());
  int64_t stride = 1;
  for (size_t dim = shape.size(); dim-- > 0;) {
    view.strides[dim] = stride;
    stride *= shape[dim];
  }
  return view;
}

StridedView permuteView(const StridedView &view, llvm::ArrayRef<int64_t> permutation) {
  assert(permutation.size() == view.shape.size() && "a permutation of the view's dimensions");
  StridedView result;
  for (int64_t dim : permutation) {
    result.shape.push_back(view.shape[dim]);
    result.strides.push_back(view.strides[dim]);
  }
  return result;
}

std::optional<StridedView> reshapeView(const StridedView &view, llvm::ArrayRef<int64_t> shape) {
  assert(countElements(view.shape) == countElements(shape) && "a reshape keeps the element count");
  if (countElements(view.shape) == 0)
    return StridedView::dense(shape);
  StridedView result;
  result.shape.assign(shape.begin(), shape.end());
  result.strides.assign(shape.size(), 0);
  int64_t next = static_cast<int64_t>(shape.size()) - 1; // the next result dimension to place
  int64_t base = view.strides.empty() ? 1 : view.strides.back();
  int64_t chunkElements = 1, placedElements = 1;
  for (int64_t dim = static_cast<int64_t>(view.shape.size()) - 1; dim >= 0; --dim) {
    chunkElements *= view.shape[dim];
    bool chunkEnds = dim == 0 || (view.shape[dim - 1] != 1 &&
                                  view.strides[dim - 1] != chunkElements * base);
    if (!chunkEnds)
      continue;
    // Size-1 result dimensions next to the chunk join it (any stride does).
    while (next >= 0 && (placedElements < chunkElements || shape[next] == 1)) {
      result.strides[next] = placedElements * base;
      placedElements *= shape[next];
      --next;
    }
    if (placedElements != chunkElements)
      return std::nullopt;
    if (dim > 0) {
      base = view.strides[dim - 1];
      chunkElements = placedElements = 1;
    }
  }
  // Only size-1 dimensions can be left (a scalar's reshape to [1, 1]).
  for (; next >= 0; --next)
    if (shape[next] != 1)
      return std::nullopt;
  return result;
}

llvm::SmallVector<int64_t, 6> getViewLayerShape(const ViewLayer &layer,
                                                llvm::ArrayRef<int64_t> shape) {
  if (layer.kind == ViewLayer::Kind::Reshape)
    return layer.operand;
  llvm::SmallVector<int64_t, 6> result;
  for (int64_t dim : layer.operand)
    result.push_back(shape[dim]);
  return result;
}

std::optional<StridedView> composeViews(const StridedView &source,
                                        llvm::ArrayRef<ViewLayer> layers, size_t *failedLayer) {
  StridedView view = source;
  for (size_t index = 0; index < layers.size(); ++index) {
    const ViewLayer &layer = layers[index];
    if (layer.kind == ViewLayer::Kind::Transpose) {
      view = permuteView(view, layer.operand);
      continue;
    }
    std::optional<StridedView> reshaped = reshapeView(view, layer.operand);
    if (!reshaped) {
      if (failedLayer)
        *failedLayer = index;
      return std::nullopt;
    }
    view = std::move(*reshaped);
  }
  return view;
}

std::optional<StridedView> composeInverseViews(llvm::ArrayRef<int64_t> sourceShape,
                                               llvm::ArrayRef<ViewLayer> layers,
                                               size_t *failedLayer) {
  // shapes[i] is layer i's input; shapes.back() the final result.
  llvm::SmallVector<llvm::SmallVector<int64_t, 6>, 4> shapes;
  shapes.emplace_back(sourceShape.begin(), sourceShape.end());
  for (const ViewLayer &layer : layers)
    shapes.push_back(getViewLayerShape(layer, shapes.back()));
  StridedView view = StridedView::dense(shapes.back());
  for (size_t index = layers.size(); index-- > 0;) {
    const ViewLayer &layer = layers[index];
    if (layer.kind == ViewLayer::Kind::Transpose) {
      view = permuteView(view, invertPermutation(layer.operand));
      continue;
    }
    std::optional<StridedView> reshaped = reshapeView(view, shapes[index]);
    if (!reshaped) {
      if (failedLayer)
        *failedLayer = index;
      return std::nullopt;
    }
    view = std::move(*reshaped);
  }
  return view;
}

std::optional<llvm::SmallVector<int64_t, 6>> broadcastView(const StridedView &view,
                                                           llvm::ArrayRef<int64_t> targetShape) {
  size_t rank = view.shape.size(), targetRank = targetShape.size();
  if (rank > targetRank)
    return std::nullopt;
  llvm::SmallVector<int64_t, 6> strides(targetRank, 0);
  for (size_t dim = 0; dim < rank; ++dim) {
    size_t target = targetRank - rank + dim;
    if (view.shape[dim] == targetShape[target])
      strides[target] = targetShape[target] == 1 ? 0 : view.strides[dim];
    else if (view.shape[dim] != 1)
      return std::nullopt;
  }
  return strides;
}

bool mayOverlap(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> strides) {
  llvm::SmallVector<std::pair<int64_t, int64_t>, 6> dims; // (stride, size)
  for (auto [size, stride] : llvm::zip(shape, strides)) {
    if (size == 0)
      return false; // no element at all
    if (size > 1)
      dims.push_back({stride, size});
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0; // the farthest offset the dimensions so far reach
  for (auto [stride, size] : dims) {
    if (stride <= reach)
      return true;
    reach += (size - 1) * stride;
  }
  return false;
}

} // namespace cgc::cuda
