//===- StridedView.h - transposes, reshapes and selections as strides -*- C++ -*-===//
//
// Exporters write transposes and reshapes around the layers a fused kernel
// implements (BERT's and ViT's attention splits and merges its heads so),
// and gathers of one index that pick one slice of a tensor (torch's
// nn.MultiheadAttention splits its fused q/k/v projection so). Each of
// those layers only renames where elements are, so a kernel can read its
// input, or write its output, in place through strides instead of running
// them as copies. This file composes such a chain of layers into one
// strided view; it knows nothing of MLIR, so that it is tested alone.
//
// A view of a dense tensor has a shape, one stride per dimension and a
// start: the element at index i is at start + Σ i_d · strides_d. A
// transpose permutes the dimensions and their strides. A reshape keeps the
// row-major order of the elements: it splits dimensions (always possible:
// the parts take strides within the whole) and merges them (a dimension
// then walks several strides, one per part). A merged dimension that ends
// the chain must walk one stride: its parts must be contiguous, each
// stride its inner neighbour's times that neighbour's size (size-1 parts
// do not count), unless a later reshape splits it back into its parts
// (ViT's heads at batch > 1: [S, B, H·E] of a fused projection is merged
// to [S, B·H, E], transposed, and split to [B, H, S, E]). Broadcast
// dimensions (stride 0) split into stride-0 parts and are contiguous only
// with other stride-0 parts. Strides of size-1 dimensions are never read.
//
// A selection (a gather of one index along a dimension) moves the start by
// the index times the dimension's stride and drops the dimension (or keeps
// it as size 1). The index is data that only the device holds when the
// kernel runs (a constant bound at dispatch), so the start is a sum of
// index · stride terms that the kernel evaluates.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_STRIDEDVIEW_H
#define CGC_DRIVERS_CUDA_KERNELS_STRIDEDVIEW_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace cgc::cuda {

/// One term of a view's start: an index read when the kernel runs selects
/// along a dimension of `size` elements, `stride` apart. Indices in
/// [-size, size) are valid, negative ones counting from the end (ONNX).
struct ViewSelection {
  /// Where the index is read, as the caller names it (the fused attention:
  /// the definition argument holding it).
  unsigned source = 0;
  int64_t size = 0;
  int64_t stride = 0;

  bool operator==(const ViewSelection &other) const = default;
};

/// A tensor of `shape` whose element at index i lies at start + Σ i_d ·
/// strides_d (in elements) of some storage, the start being Σ index ·
/// stride over `selections` (0 without any).
struct StridedView {
  llvm::SmallVector<int64_t, 6> shape;
  llvm::SmallVector<int64_t, 6> strides;
  llvm::SmallVector<ViewSelection, 2> selections;

  /// The row-major (dense) view of `shape`.
  static StridedView dense(llvm::ArrayRef<int64_t> shape);
  bool operator==(const StridedView &other) const = default;
};

/// One layer of a view chain, as it maps its input to its result.
struct ViewLayer {
  enum class Kind {
    /// Result dimension i is input dimension `operand[i]`.
    Transpose,
    /// The result has shape `operand` (as many elements as the input).
    Reshape,
    /// The slice at one index of dimension `axis` (ONNX Gather of a
    /// one-element index): the index's dimensions, `operand` (all of size
    /// 1; none for a scalar index), replace that dimension.
    Select,
  };
  Kind kind = Kind::Transpose;
  /// The permutation, the result shape, or the index's shape.
  llvm::SmallVector<int64_t, 6> operand;
  /// Select: the selected dimension (non-negative) and where its index is
  /// read (ViewSelection::source).
  int64_t axis = 0;
  unsigned indexSource = 0;

  static ViewLayer transpose(llvm::ArrayRef<int64_t> permutation) {
    return {Kind::Transpose, llvm::SmallVector<int64_t, 6>(permutation)};
  }
  static ViewLayer reshape(llvm::ArrayRef<int64_t> shape) {
    return {Kind::Reshape, llvm::SmallVector<int64_t, 6>(shape)};
  }
  static ViewLayer select(int64_t axis, unsigned indexSource,
                          llvm::ArrayRef<int64_t> indexShape = {}) {
    return {Kind::Select, llvm::SmallVector<int64_t, 6>(indexShape), axis, indexSource};
  }
};

/// `view` with its dimensions permuted: result dimension i is dimension
/// `permutation[i]` (a permutation of the view's dimensions).
StridedView permuteView(const StridedView &view, llvm::ArrayRef<int64_t> permutation);

/// `view` read as `shape` in row-major order (as many elements), or
/// std::nullopt when a merge of dimensions that are not contiguous makes
/// that inexpressible as strides. An empty view gets dense strides.
std::optional<StridedView> reshapeView(const StridedView &view, llvm::ArrayRef<int64_t> shape);

/// The shape `layer` gives an input of `shape`.
llvm::SmallVector<int64_t, 6> getViewLayerShape(const ViewLayer &layer,
                                                llvm::ArrayRef<int64_t> shape);

/// Reading: `source` seen through `layers` applied in order; the result's
/// element i lies where the view says in `source`'s storage. Dimensions
/// merged along the way need only be contiguous if no later reshape splits
/// them back. std::nullopt when the result cannot be expressed as strides,
/// with `failedLayer` (when given) set to the index in `layers` of the
/// reshape that merged the dimensions that stay apart (or that splits a
/// merged dimension across its parts), or of a selection from an empty
/// dimension.
std::optional<StridedView> composeViews(const StridedView &source,
                                        llvm::ArrayRef<ViewLayer> layers,
                                        size_t *failedLayer = nullptr);

/// Writing: where each element of a tensor of `sourceShape` lands in the
/// dense tensor that `layers` (applied in order) make of it, as a view of
/// `sourceShape` over that tensor's storage. Transposes and reshapes are
/// bijections, so this is the dense result seen through their inverses in
/// reverse order. std::nullopt when that cannot be expressed as strides,
/// with `failedLayer` (when given) set to the index in `layers` of the
/// reshape whose inverse fails (it splits dimensions that later layers
/// separate), or of a selection (which drops elements: no layer writes
/// through one).
std::optional<StridedView> composeInverseViews(llvm::ArrayRef<int64_t> sourceShape,
                                               llvm::ArrayRef<ViewLayer> layers,
                                               size_t *failedLayer = nullptr);

/// The strides reading `view` at every index of `targetShape` that it
/// broadcasts to (numpy rules: missing leading dimensions and size-1
/// dimensions that stretch get stride 0), or std::nullopt when it does not
/// broadcast.
std::optional<llvm::SmallVector<int64_t, 6>> broadcastView(const StridedView &view,
                                                           llvm::ArrayRef<int64_t> targetShape);

/// Whether two distinct indices of a view of `shape` with `strides` may
/// reach one element (a write through it would race). Conservative: false
/// only when, with the dimensions of more than one element ordered by
/// stride, each stride exceeds the farthest offset the smaller ones reach.
/// Strides must not be negative.
bool mayOverlap(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> strides);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_STRIDEDVIEW_H
