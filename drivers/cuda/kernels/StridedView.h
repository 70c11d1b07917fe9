//===- StridedView.h - transposes and reshapes as strides -------*- C++ -*-===//
//
// Exporters write transposes and reshapes around the layers a fused kernel
// implements (BERT's and ViT's attention splits and merges its heads so).
// Each of those layers only renames where elements are, so a kernel can
// read its input, or write its output, in place through strides instead of
// running them as copies. This file composes such a chain of layers into
// one strided view; it knows nothing of MLIR, so that it is tested alone.
//
// A view of a dense tensor has a shape and one stride per dimension: the
// element at index i is at Σ i_d · strides_d. A transpose permutes the
// dimensions and their strides. A reshape keeps the row-major order of the
// elements: it splits dimensions (always possible: the parts take strides
// within the whole) and merges them (possible exactly when the merged
// dimensions are contiguous in the current strides, each stride its inner
// neighbour's times that neighbour's size; size-1 dimensions do not
// count). Broadcast dimensions (stride 0) split into stride-0 parts and
// merge only with other stride-0 dimensions. Strides of size-1 dimensions
// are never read, so their values are left arbitrary.
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

/// A tensor of `shape` whose element at index i lies at Σ i_d · strides_d
/// (in elements) of some storage.
struct StridedView {
  llvm::SmallVector<int64_t, 6> shape;
  llvm::SmallVector<int64_t, 6> strides;

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
  };
  Kind kind = Kind::Transpose;
  /// The permutation or the result shape.
  llvm::SmallVector<int64_t, 6> operand;

  static ViewLayer transpose(llvm::ArrayRef<int64_t> permutation) {
    return {Kind::Transpose, llvm::SmallVector<int64_t, 6>(permutation)};
  }
  static ViewLayer reshape(llvm::ArrayRef<int64_t> shape) {
    return {Kind::Reshape, llvm::SmallVector<int64_t, 6>(shape)};
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
/// element i lies where the view says in `source`'s storage. std::nullopt
/// when a reshape cannot be expressed as strides, with `failedLayer` (when
/// given) set to its index in `layers`.
std::optional<StridedView> composeViews(const StridedView &source,
                                        llvm::ArrayRef<ViewLayer> layers,
                                        size_t *failedLayer = nullptr);

/// Writing: where each element of a tensor of `sourceShape` lands in the
/// dense tensor that `layers` (applied in order) make of it, as a view of
/// `sourceShape` over that tensor's storage. Every layer is a bijection, so
/// this is the dense result seen through the layers' inverses in reverse
/// order. std::nullopt when that cannot be expressed as strides, with
/// `failedLayer` (when given) set to the index in `layers` of the reshape
/// whose inverse fails (it splits dimensions that later layers separate).
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
