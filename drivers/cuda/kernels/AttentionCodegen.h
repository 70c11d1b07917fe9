//===- AttentionCodegen.h - what the generated attention kernels share -*- C++ -*-===//
//
// Both ways to run an AttentionPlan generate CUDA C++ that reads the plan's
// tensors through views and adjusts scores by the plan's steps: the flash
// kernel (AttentionKernel.cpp) and the GEMM path's softmax kernel
// (AttentionGemm.cpp). Sharing the reading and the steps keeps the two
// paths computing the same thing. The conventions: the plan's inputs are
// kernel parameters `in0`, `in1`, ...; the parameter block `p` has
// `long long batchSizes[R]` and `long long views[V][R + 2]` (each view's
// batch strides, then its row and column strides); the kernel keeps the
// offset of the current batch matrix of view i in `base[i]`, of the type
// `cgc_index` its source defines (getIndexTypedef, DeviceCode.h).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ATTENTIONCODEGEN_H
#define CGC_DRIVERS_CUDA_KERNELS_ATTENTIONCODEGEN_H

#include "AttentionKernel.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda {

/// The views a generated kernel reads, in parameter-block order, and the
/// code reading them.
class AttentionViewTable {
public:
  explicit AttentionViewTable(const AttentionPlan &plan)
      : batchRank(std::max<size_t>(plan.batch.size(), 1)) {}

  /// Adds `view`; returns its index.
  size_t add(const AttentionView &view) {
    views.push_back(&view);
    return views.size() - 1;
  }
  size_t size() const { return views.size(); }
  /// R: the plan's batch rank, at least 1 (plain matrices get one batch
  /// dimension of size 1).
  size_t getBatchRank() const { return batchRank; }
  llvm::ArrayRef<const AttentionView *> getViews() const { return views; }

  /// The compute value of view `index` at (`row`, `column`).
  std::string read(size_t index, const std::string &row, const std::string &column) const;

  /// Appends the table's part of the parameter block (`views[V][R + 2]`) to
  /// `params`.
  void appendViewParams(std::vector<int64_t> &params) const;

  /// Statements (indented for a loop body) declaring `long long base[V]`:
  /// each view's element offset of batch matrix `batch`, a variable the
  /// kernel defines, from the view's start (its selections' indices read
  /// from their inputs).
  std::string generateBatchBases() const;

private:
  size_t batchRank;
  llvm::SmallVector<const AttentionView *, 8> views;
};

/// Whether `view` reads one element everywhere (a one-element scale or
/// mask broadcast over every dimension), at its tensor's start (no
/// selection moves it).
bool isOneElement(const AttentionView &view);

/// Appends `batchSizes[R]` of `plan` to `params` (1 for plain matrices).
void appendBatchSizeParams(const AttentionPlan &plan, std::vector<int64_t> &params);

/// What is wrong with `args` for an attention kernel of `inputCount`
/// inputs and one output ("<name>: launched with ..."), or an empty string.
std::string checkAttentionLaunchArgs(const LaunchArgs &args, size_t inputCount,
                                     const std::string &kernelName);

/// The launch of a one-kernel attention (the flash and tensor-core
/// kernels): `function(inputs..., output, params)` on `grid` × `block`.
Kernel makeAttentionKernelLaunch(DeviceFunction function, dim3 grid, dim3 block,
                                 size_t inputCount, std::vector<int64_t> params,
                                 std::string kernelName);

/// Statements adjusting the float score `s` of (`query`, `key`): the plan's
/// scale (when `applyScale`), its steps in order (operand view of step i at
/// `stepViews[i]`) and the causal mask. Masked scores become
/// `negativeInfinity`, which the kernel defines. A non-empty
/// `stagedReads[i]` is the compute value of step i's operand at (`query`,
/// `key`) where the kernel keeps a copy of it (the tensor-core kernel's
/// shared tiles), read instead of the view.
std::string generateScoreStatements(const AttentionPlan &plan, const AttentionViewTable &table,
                                    llvm::ArrayRef<std::optional<size_t>> stepViews,
                                    bool applyScale,
                                    llvm::ArrayRef<std::string> stagedReads = {});

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ATTENTIONCODEGEN_H
