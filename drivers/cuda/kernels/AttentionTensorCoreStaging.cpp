//===- AttentionTensorCoreStaging.cpp - tiles of the tensor-core attention ===//
//
// The generated staging statements (AttentionTensorCoreStaging.h).
//
//===----------------------------------------------------------------------===//

#include "AttentionTensorCoreStaging.h"

#include "DeviceCode.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace cgc::cuda {

/// The element offset of view `index` at (`row`, `column`) in the current
/// batch matrix (the view table's parameter layout).
std::string viewOffset(const AttentionViewTable &table, size_t index, const std::string &row,
                       const std::string &column) {
  std::string at = std::to_string(index);
  std::string rowStride = "p.views[" + at + "][" + std::to_string(table.getBatchRank()) + "]";
  std::string columnStride =
      "p.views[" + at + "][" + std::to_string(table.getBatchRank() + 1) + "]";
  return "base[" + at + "] + (" + row + ") * " + rowStride + " + (" + column + ") * " +
         columnStride;
}

/// Whether `view`, read along `innerIsColumn`'s dimension, can be copied 8
/// elements (16 bytes) at a time into a tile of `plan`'s element type.
bool isVectorReadable(const AttentionPlan &plan, const AttentionView &view, bool innerIsColumn,
                      bool hasFactor) {
  int64_t contiguous = innerIsColumn ? view.columnStride : view.rowStride;
  int64_t other = innerIsColumn ? view.rowStride : view.columnStride;
  // A gather's start moves by its stride: a multiple of 8 keeps it aligned.
  return !hasFactor && view.dtype == plan.dtype && contiguous == 1 && other % 8 == 0 &&
         llvm::all_of(view.batchStrides, [](int64_t stride) { return stride % 8 == 0; }) &&
         llvm::all_of(view.selections, [](const AttentionSelection &selection) {
           return selection.stride % 8 == 0;
         });
}

/// The statements staging `staging`, every one of the block's `threads`
/// threads taking part. Vectorized copies are asynchronous (cp.async): the
/// caller commits them and waits for them before the barrier that makes
/// the tile visible; element by element copies are done when the
/// statements are.
std::string generateStaging(const AttentionPlan &plan, const AttentionViewTable &table,
                            const TileStaging &staging, unsigned threads) {
  const TileAxis &outer = staging.outer, &inner = staging.inner;
  std::string outerAt = outer.origin + " + a", innerAt = inner.origin + " + b";
  std::string coordinates =
      "        const cgc_index row = " + (outer.isViewRow ? outerAt : innerAt) +
      ", column = " + (outer.isViewRow ? innerAt : outerAt) + ";\n";
  std::string outerValid = outer.bound.empty() ? "" : outerAt + " < " + outer.bound;
  std::string innerValid = inner.bound.empty() ? "" : innerAt + " < " + inner.bound;
  std::string valid = outerValid.empty()   ? innerValid
                      : innerValid.empty() ? outerValid
                                           : outerValid + " && " + innerValid;
  const AttentionView &view = *table.getViews()[staging.view];
  std::string pointer = "in" + std::to_string(view.input);
  std::string offset = viewOffset(table, staging.view, "row", "column");

  std::string code;
  llvm::raw_string_ostream os(code);
  if (staging.vectorized) {
    // 16 bytes at a time. The copy reads `bytes` of them and zero-fills the
    // rest: none past the outer bound, those below the inner bound of a
    // chunk crossing it (the chunk's start is aligned, its elements
    // contiguous). A copy of no bytes reads nothing but still takes a
    // valid address.
    // Each thread's copies are unrolled, so that their offsets fold.
    int64_t chunks = inner.size / 8, total = outer.size * chunks;
    int64_t rounds = (total + threads - 1) / threads;
    os << "      if (" << staging.alignedFlag << ") {\n"
       << "#pragma unroll\n"
       << "      for (int round = 0; round < " << rounds << "; ++round) {\n"
       << "        const int i = threadIdx.x + round * " << threads << ";\n"
       << (total % threads ? "        if (i >= " + std::to_string(total) + ")\n          break;\n"
                           : "")
       << "        const int a = i / " << chunks << ", b = (i - a * " << chunks << ") * 8;\n"
       << coordinates << "        unsigned int bytes = 0u;\n"
       << "        const unsigned short *from = " << pointer << ";\n"
       << (outerValid.empty() ? "        {\n" : "        if (" + outerValid + ") {\n");
    if (inner.bound.empty()) {
      os << "          bytes = 16u;\n"
         << "          from += " << offset << ";\n";
    } else {
      os << "          const cgc_index left = " << inner.bound << " - (" << innerAt << ");\n"
         << "          bytes = left >= 8 ? 16u : left > 0 ? (unsigned int)left * 2u : 0u;\n"
         << "          if (bytes != 0u)\n"
         << "            from += " << offset << ";\n";
    }
    os << "        }\n"
       << "        cgc_copy_async(&" << staging.tile << "[a * " << staging.stride
       << " + b], from, bytes);\n"
       << "      }\n"
       << "      } else {\n";
  }
  // Element by element: elements of the tile's type are copied as they
  // are; others (and products with a factor) are rounded to it.
  std::string value;
  if (!staging.factor && view.dtype == plan.dtype) {
    value = pointer + "[" + offset + "]";
  } else {
    std::string product = "(float)(" + table.read(staging.view, "row", "column") + ")";
    if (staging.factor)
      product += " * (float)(" + table.read(*staging.factor, "row", "column") + ")";
    value = storeValue(plan.dtype, product);
  }
  os << "      for (int i = threadIdx.x; i < " << outer.size * inner.size << "; i += " << threads
     << ") {\n"
     << "        const int a = i / " << inner.size << ", b = i - a * " << inner.size << ";\n"
     << coordinates << "        " << staging.tile << "[a * " << staging.stride << " + b] = "
     << (valid.empty() ? value : "(" + valid + ") ? " + value + " : (unsigned short)0") << ";\n"
     << "      }\n";
  if (staging.vectorized)
    os << "      }\n";
  return code;
}

} // namespace cgc::cuda
