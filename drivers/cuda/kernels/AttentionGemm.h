//===- AttentionGemm.h - attention as two cuBLASLt products and a softmax -*- C++ -*-===//
//
// The GEMM path of an AttentionPlan (AttentionKernel.h), for the batched
// shapes where tensor cores beat the flash kernel's SIMT arithmetic:
//
//   S = alpha · Q·Kᵀ      one strided-batched cuBLASLt product over the batch
//   P = softmax(steps(S)) one generated kernel, a warp (or block) per row
//   O = P·V               a second strided-batched cuBLASLt product
//
// S and P pass through the kernel's workspace; O is written through the
// plan's output view (its row stride the leading dimension). Anything the
// plan reads through a view that cuBLASLt cannot express, an output view
// whose columns are not contiguous (cuBLASLt writes row-major matrices
// only), or batch dimensions that would take too many calls, is refused
// (getGemmAttentionRefusal) and left to the flash kernel.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ATTENTIONGEMM_H
#define CGC_DRIVERS_CUDA_KERNELS_ATTENTIONGEMM_H

#include "AttentionKernel.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// Why the GEMM path does not run `plan` ("the value's layout (row stride
/// 0, column stride 3) is not a matrix cuBLASLt reads"), or std::nullopt.
/// Needs no device.
std::optional<std::string> getGemmAttentionRefusal(const AttentionPlan &plan,
                                                   bool float32Scores = false);

/// Builds `plan`'s GEMM path (which getGemmAttentionRefusal must accept):
/// with `float32Scores`, S stays float32 whatever the element type. The
/// generated kernels compile before cuBLASLt is asked for anything, so a
/// compile-only context checks them and then fails where cuBLASLt needs a
/// device. Errors and launch failures start with `name`; library errors
/// name `op` too.
llvm::Expected<Kernel> buildGemmAttentionKernel(const AttentionPlan &plan,
                                                KernelContext::Impl &context, llvm::StringRef name,
                                                mlir::Operation *op, bool float32Scores = false);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ATTENTIONGEMM_H
