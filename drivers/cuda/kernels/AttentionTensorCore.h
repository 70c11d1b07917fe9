//===- AttentionTensorCore.h - flash attention on tensor cores --*- C++ -*-===//
//
// The third way to run an AttentionPlan (AttentionKernel.h): the flash
// kernel's algorithm (key tiles in shared memory, online softmax, the
// scores never in device memory) with both products on tensor cores
// (mma.sync m16n8k16, float32 accumulation), for float16 and bfloat16 at
// head dimensions that are multiples of 16 up to 64 (128 is refused for now:
// see kMaxTensorCoreHeadDim). Plans it does not
// take are refused with the reason (getTensorCoreAttentionRefusal) and run
// one of the other ways.
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

/// The generated CUDA C++ of `plan`'s tensor-core kernel,
/// `cgc_attention_tensor_core` (the refusal must be empty).
std::string generateTensorCoreAttentionSource(const AttentionPlan &plan);

/// Builds `plan`'s tensor-core kernel; a refusal is an error. A
/// compile-only context compiles the kernel and returns one it cannot
/// launch. Errors and launch failures start with `name`.
llvm::Expected<Kernel> buildTensorCoreAttentionKernel(const AttentionPlan &plan,
                                                      KernelContext::Impl &context,
                                                      llvm::StringRef name);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ATTENTIONTENSORCORE_H
