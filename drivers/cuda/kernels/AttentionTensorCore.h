//===- AttentionTensorCore.h - flash attention on tensor cores --*- C++ -*-===//
//
// The third way to run an AttentionPlan (AttentionKernel.h): the flash
// kernel's algorithm (key tiles in shared memory, online softmax, the
// scores never in device memory) with both products on tensor cores
// (mma.sync m16n8k16, float32 accumulation), for float16 and bfloat16 at
// head dimensions that are multiples of 16 up to 128
// (kMaxTensorCoreHeadDim). A block takes 16 queries per warp; how many
// warps is chosen from the plan's shape (getTensorCoreAttentionTiling), so
// that small batches still give every multiprocessor a block. Plans it
// does not take are refused with the reason
// (getTensorCoreAttentionRefusal) and run one of the other ways.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ATTENTIONTENSORCORE_H
#define CGC_DRIVERS_CUDA_KERNELS_ATTENTIONTENSORCORE_H

#include "AttentionKernel.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// Why the tensor-core kernel does not run `plan` on a device of compute
/// capability `computeMajor`.x ("value head dimension 40 (not a multiple of
/// 16)"), or std::nullopt. Needs no device.
std::optional<std::string> getTensorCoreAttentionRefusal(const AttentionPlan &plan,
                                                         int computeMajor);

/// How one build of the kernel tiles its plan.
struct TensorCoreAttentionTiling {
  /// Warps per block, each taking 16 queries: 1, 2 or 4.
  int64_t warps = 4;

  /// Queries per block.
  int64_t getQueryTile() const { return 16 * warps; }
  unsigned getThreads() const { return static_cast<unsigned>(32 * warps); }
};

/// The tiling of `plan` on a device of `multiprocessorCount`
/// multiprocessors: blocks of 4 warps (64 queries, so each staged key tile
/// serves 4 warps) when the grid then has a block for every
/// multiprocessor, else 2 warps when that does, else 1 (BERT-base at batch
/// 1, 12 heads × 128 queries, gets 96 blocks of 16 queries instead of 24
/// of 64).
TensorCoreAttentionTiling getTensorCoreAttentionTiling(const AttentionPlan &plan,
                                                       int multiprocessorCount);

/// The generated CUDA C++ of `plan`'s tensor-core kernel tiled as
/// `tiling` says, `cgc_attention_tensor_core` (the refusal must be empty).
std::string generateTensorCoreAttentionSource(const AttentionPlan &plan,
                                              const TensorCoreAttentionTiling &tiling);

/// Builds `plan`'s tensor-core kernel, tiled for the context's device
/// unless `warps` asks for blocks of that many warps (1, 2 or 4); a
/// refusal is an error. A compile-only context compiles the kernel and
/// returns one it cannot launch. Errors and launch failures start with
/// `name`.
llvm::Expected<Kernel> buildTensorCoreAttentionKernel(const AttentionPlan &plan,
                                                      KernelContext::Impl &context,
                                                      llvm::StringRef name,
                                                      std::optional<int64_t> warps = std::nullopt);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ATTENTIONTENSORCORE_H
