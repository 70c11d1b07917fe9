//===- StridedView.cpp - transposes, reshapes and selections as strides ---===//
//
// Between the layers of a chain a dimension may walk more than one stride:
// each dimension is kept as its parts, outermost first, a part being a run
// of elements one stride apart (its index splits into one digit per part,
// row-major). A reshape lists every part of the input from the innermost
// and deals them out to the result's dimensions, also from the innermost:
// a result dimension takes whole parts while its size is a multiple of
// theirs, and the inner piece of the next part when that part's size is a
// multiple of what is left (the outer piece stays for the next dimension).
// Anything else cuts a part where no stride can follow (a result dimension
// of 6 over parts of 4 and 3, say): that reshape is not a view. Neighbour
// parts that walk as one (each stride its inner neighbour's times that
// neighbour's size) are joined, so a dimension of one stride has one part
// (none when its size is 1); only a dimension left with several parts at
// the end of the chain is not a view. For a single reshape this is the
// rule torch's Tensor.view applies.
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

/// `size` elements, `stride` apart: one part of a dimension.
struct Part {
  int64_t size = 0;
  int64_t stride = 0;
};

/// A dimension as the parts it walks, outermost first: none of size 1, no
/// two neighbours that walk as one.
struct Dimension {
  int64_t size = 1;
  llvm::SmallVector<Part, 2> parts;
  /// With more than one part: the layer that merged them (an error names
  /// it when they stay apart).
  size_t mergedBy = 0;
};

/// A view between the layers of a chain.
struct PartedView {
  llvm::SmallVector<Dimension, 6> dims;
  llvm::SmallVector<ViewSelection, 2> selections;
};

/// Drops size-1 parts and joins neighbours that walk as one.
void joinParts(Dimension &dim) {
  llvm::SmallVector<Part, 2> joined;
  for (Part part : dim.parts) {
    if (part.size == 1)
      continue;
    if (!joined.empty() && joined.back().stride == part.stride * part.size) {
      joined.back() = {joined.back().size * part.size, part.stride};
      continue;
    }
    joined.push_back(part);
  }
  dim.parts = std::move(joined);
}

PartedView toParted(const StridedView &view) {
  PartedView parted;
  parted.selections = view.selections;
  for (auto [size, stride] : llvm::zip(view.shape, view.strides)) {
    Dimension dim;
    dim.size = size;
    if (size != 1)
      dim.parts.push_back({size, stride});
    parted.dims.push_back(std::move(dim));
  }
  return parted;
}

/// The strided view of `parted`; std::nullopt, with `failedLayer` (when
/// given) set to the layer that merged it, when a dimension still walks
/// more than one stride.
std::optional<StridedView> toStrided(const PartedView &parted, size_t *failedLayer) {
  StridedView view;
  view.selections = parted.selections;
  for (const Dimension &dim : parted.dims) {
    if (dim.parts.size() > 1) {
      if (failedLayer)
        *failedLayer = dim.mergedBy;
      return std::nullopt;
    }
    view.shape.push_back(dim.size);
    view.strides.push_back(dim.parts.empty() ? 0 : dim.parts.front().stride);
  }
  // A size-1 dimension's stride is never read, but libraries check leading
  // dimensions against it: it takes the one it would have next to its inner
  // neighbour.
  for (size_t dim = view.shape.size(); dim-- > 0;)
    if (view.shape[dim] == 1)
      view.strides[dim] = dim + 1 == view.shape.size()
                              ? 1
                              : view.strides[dim + 1] * std::max<int64_t>(view.shape[dim + 1], 1);
  return view;
}

void permuteParted(PartedView &view, llvm::ArrayRef<int64_t> permutation) {
  assert(permutation.size() == view.dims.size() && "a permutation of the view's dimensions");
  llvm::SmallVector<Dimension, 6> dims;
  for (int64_t dim : permutation)
    dims.push_back(view.dims[dim]);
  view.dims = std::move(dims);
}

/// `view` read as `shape` (as many elements) by layer `layer`; false when
/// a result dimension would cut a part where no stride follows.
bool reshapeParted(PartedView &view, llvm::ArrayRef<int64_t> shape, size_t layer) {
  int64_t count = 1;
  for (const Dimension &dim : view.dims)
    count *= dim.size;
  assert(count == countElements(shape) && "a reshape keeps the element count");
  if (count == 0) {
    PartedView dense = toParted(StridedView::dense(shape));
    view.dims = std::move(dense.dims);
    return true;
  }
  // Every part of the input, outermost first, with its dimension.
  llvm::SmallVector<std::pair<Part, size_t>, 8> parts;
  for (auto [index, dim] : llvm::enumerate(view.dims))
    for (Part part : dim.parts)
      parts.push_back({part, index});
  llvm::SmallVector<Dimension, 6> dims(shape.size());
  for (size_t index = shape.size(); index-- > 0;) {
    Dimension &dim = dims[index];
    dim.size = shape[index];
    int64_t left = dim.size;
    llvm::SmallVector<size_t, 2> sources;
    while (left > 1) {
      assert(!parts.empty() && "a reshape keeps the element count");
      auto &[part, source] = parts.back();
      sources.push_back(source);
      if (left % part.size == 0) {
        dim.parts.push_back(part);
        left /= part.size;
        parts.pop_back();
      } else if (part.size % left == 0) {
        dim.parts.push_back({left, part.stride});
        part = {part.size / left, part.stride * left};
        left = 1;
      } else {
        return false;
      }
    }
    std::reverse(dim.parts.begin(), dim.parts.end());
    joinParts(dim);
    // Parts of one input dimension that were apart already keep the layer
    // that merged them.
    if (dim.parts.size() > 1)
      dim.mergedBy = llvm::all_equal(sources) ? view.dims[sources.front()].mergedBy : layer;
  }
  assert(parts.empty() && "a reshape keeps the element count");
  view.dims = std::move(dims);
  return true;
}

/// `view` through `select` (layer `layer`); false, with `failedLayer` set,
/// when the selected dimension is empty or walks more than one stride.
bool selectParted(PartedView &view, const ViewLayer &select, size_t layer,
                  size_t *failedLayer) {
  assert(select.axis >= 0 && select.axis < static_cast<int64_t>(view.dims.size()) &&
         "a dimension of the view");
  assert(llvm::all_of(select.operand, [](int64_t size) { return size == 1; }) &&
         "a one-element index");
  const Dimension &dim = view.dims[select.axis];
  if (dim.size == 0 || dim.parts.size() > 1) {
    if (failedLayer)
      *failedLayer = dim.size == 0 ? layer : dim.mergedBy;
    return false;
  }
  // A dimension of one element has one valid index, 0 (or -1).
  if (dim.size > 1)
    view.selections.push_back({select.indexSource, dim.size, dim.parts.front().stride});
  auto at = view.dims.erase(view.dims.begin() + select.axis);
  view.dims.insert(at, select.operand.size(), Dimension());
  return true;
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
  result.selections = view.selections;
  for (int64_t dim : permutation) {
    result.shape.push_back(view.shape[dim]);
    result.strides.push_back(view.strides[dim]);
  }
  return result;
}

std::optional<StridedView> reshapeView(const StridedView &view, llvm::ArrayRef<int64_t> shape) {
  PartedView parted = toParted(view);
  if (!reshapeParted(parted, shape, 0))
    return std::nullopt;
  return toStrided(parted, nullptr);
}

llvm::SmallVector<int64_t, 6> getViewLayerShape(const ViewLayer &layer,
                                                llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 6> result;
  switch (layer.kind) {
  case ViewLayer::Kind::Reshape:
    return layer.operand;
  case ViewLayer::Kind::Transpose:
    for (int64_t dim : layer.operand)
      result.push_back(shape[dim]);
    return result;
  case ViewLayer::Kind::Select:
    result.append(shape.begin(), shape.begin() + layer.axis);
    result.append(layer.operand.begin(), layer.operand.end());
    result.append(shape.begin() + layer.axis + 1, shape.end());
    return result;
  }
  return result;
}

std::optional<StridedView> composeViews(const StridedView &source,
                                        llvm::ArrayRef<ViewLayer> layers, size_t *failedLayer) {
  PartedView view = toParted(source);
  for (size_t index = 0; index < layers.size(); ++index) {
    const ViewLayer &layer = layers[index];
    switch (layer.kind) {
    case ViewLayer::Kind::Transpose:
      permuteParted(view, layer.operand);
      break;
    case ViewLayer::Kind::Reshape:
      if (!reshapeParted(view, layer.operand, index)) {
        if (failedLayer)
          *failedLayer = index;
        return std::nullopt;
      }
      break;
    case ViewLayer::Kind::Select:
      if (!selectParted(view, layer, index, failedLayer))
        return std::nullopt;
      break;
    }
  }
  return toStrided(view, failedLayer);
}

std::optional<StridedView> composeInverseViews(llvm::ArrayRef<int64_t> sourceShape,
                                               llvm::ArrayRef<ViewLayer> layers,
                                               size_t *failedLayer) {
  // shapes[i] is layer i's input; shapes.back() the final result.
  llvm::SmallVector<llvm::SmallVector<int64_t, 6>, 4> shapes;
  shapes.emplace_back(sourceShape.begin(), sourceShape.end());
  for (const ViewLayer &layer : layers)
    shapes.push_back(getViewLayerShape(layer, shapes.back()));
  PartedView view = toParted(StridedView::dense(shapes.back()));
  for (size_t index = layers.size(); index-- > 0;) {
    const ViewLayer &layer = layers[index];
    bool inverted = true;
    switch (layer.kind) {
    case ViewLayer::Kind::Transpose:
      permuteParted(view, invertPermutation(layer.operand));
      break;
    case ViewLayer::Kind::Reshape:
      inverted = reshapeParted(view, shapes[index], index);
      break;
    case ViewLayer::Kind::Select:
      inverted = false;
      break;
    }
    if (!inverted) {
      if (failedLayer)
        *failedLayer = index;
      return std::nullopt;
    }
  }
  return toStrided(view, failedLayer);
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
