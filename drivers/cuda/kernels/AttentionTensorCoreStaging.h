//===- AttentionTensorCoreStaging.h - tiles of the tensor-core attention -*- C++ -*-===//
//
// How the tensor-core attention kernel (AttentionTensorCore.h) reads its
// views and copies tiles of them into shared memory: the table of views in
// parameter-block order, and the generated statements that stage one tile,
// 16 bytes at a time (cp.async) where the view and the pointer allow it,
// else element by element with the factor applied and out-of-bounds
// positions zero-filled.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ATTENTIONTENSORCORESTAGING_H
#define CGC_DRIVERS_CUDA_KERNELS_ATTENTIONTENSORCORESTAGING_H

#include "AttentionCodegen.h"

#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace cgc::cuda {

/// The views the kernel reads and writes, in parameter-block order.
class TensorCoreViews {
public:
  explicit TensorCoreViews(const AttentionPlan &plan)
      : table(plan), outputView(getAttentionOutputView(plan)) {
    query = table.add(plan.query.view);
    if (plan.query.factor)
      queryFactor = table.add(*plan.query.factor);
    key = table.add(plan.key.view);
    if (plan.key.factor)
      keyFactor = table.add(*plan.key.factor);
    value = table.add(plan.value);
    for (const AttentionScoreStep &step : plan.steps)
      steps.push_back(step.operand ? std::optional<size_t>(table.add(*step.operand))
                                   : std::nullopt);
    output = table.add(outputView);
  }
  TensorCoreViews(const TensorCoreViews &) = delete;
  TensorCoreViews &operator=(const TensorCoreViews &) = delete;

  AttentionViewTable table;
  size_t query = 0, key = 0, value = 0, output = 0;
  std::optional<size_t> queryFactor, keyFactor;
  llvm::SmallVector<std::optional<size_t>, 4> steps;

private:
  /// The table points at it.
  AttentionView outputView;
};

/// One dimension of a staged tile: `size` positions from `origin` along the
/// view's rows (or columns), those at or past `bound` (when given) read as
/// zeros.
struct TileAxis {
  int64_t size = 0;
  std::string origin, bound;
  bool isViewRow = true;
};

/// A tile staged in shared memory as [outer][inner] (inner contiguous,
/// rows `stride` elements apart) from view `view` (times `factor`).
struct TileStaging {
  std::string tile;
  int64_t stride = 0;
  TileAxis outer, inner;
  size_t view = 0;
  std::optional<size_t> factor;
  /// The view's contiguous dimension is `inner` and every other stride
  /// keeps 16 bytes aligned: 8 elements are copied at a time (cp.async)
  /// when the pointer (`alignedFlag`) is aligned too.
  bool vectorized = false;
  std::string alignedFlag;
};

/// The element offset of view `index` at (`row`, `column`) in the current
/// batch matrix (the view table's parameter layout).
std::string viewOffset(const AttentionViewTable &table, size_t index, const std::string &row,
                       const std::string &column);

/// Whether `view`, read along `innerIsColumn`'s dimension, can be copied 8
/// elements (16 bytes) at a time into a tile of `plan`'s element type.
bool isVectorReadable(const AttentionPlan &plan, const AttentionView &view, bool innerIsColumn,
                      bool hasFactor);

/// The statements staging `staging`, every one of the block's `threads`
/// threads taking part. Vectorized copies are asynchronous (cp.async): the
/// caller commits them and waits for them before the barrier that makes
/// the tile visible; element by element copies are done when the
/// statements are.
std::string generateStaging(const AttentionPlan &plan, const AttentionViewTable &table,
                            const TileStaging &staging, unsigned threads);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ATTENTIONTENSORCORESTAGING_H
