//===- FusedKernels.h - the CUDA driver's fused target ----------*- C++ -*-===//
//
// The fused target of the CUDA driver: kernels that each run a whole
// functional definition (a subgraph the compiler matched against one of the
// driver's patterns, patterns/*.mlir) with NVIDIA's libraries or generated
// code:
//
//   convolution + bias + residual add + activation  cuDNN graph API
//   matmul/gemm + bias + activation                 cuBLASLt epilogues
//   scaled-dot-product attention                    one generated kernel
//   layer_norm / softmax + elementwise chains       generated kernels (NVRTC)
//   elementwise chains                              generated kernels (NVRTC)
//   channels-last max_pool / average_pool           generated kernels (NVRTC)
//
// A fused kernel launches like a layer kernel (Kernels.h): LaunchArgs.inputs
// are the definition's arguments in order, LaunchArgs.outputs its results in
// order, plus a workspace of the size it asked for.
//
// Each pattern says exactly what its kernel implements: a pattern without a
// kernel, or a kernel that accepts more than its pattern, is a bug
// (unittests/Drivers/CUDAKernels/FusedPatternTest.cpp checks both ways).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_FUSEDKERNELS_H
#define CGC_DRIVERS_CUDA_FUSEDKERNELS_H

#include "Kernels.h"
#include "MlirExchange.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace cgc::cuda {

/// Whether a fused kernel implements `definition`, without touching a GPU
/// (the driver answers specialization requests with it):
/// * std::nullopt: no fused kernel has the definition's shape;
/// * success: one kernel implements the whole definition;
/// * an Error: a fused kernel has the shape but not some detail, named in
///   the message ("fused convolution: activation cgc_op.erf is not
///   implemented on the CUDA driver").
std::optional<llvm::Error> checkFusedKernel(FunctionalDefinitionOp definition);

/// Builds the fused kernel of `definition` (the context's device is made
/// current; this may compile code and create library plans). std::nullopt:
/// no fused kernel has the definition's shape (checkFusedKernel said so).
std::optional<llvm::Expected<Kernel>> buildFusedKernel(FunctionalDefinitionOp definition,
                                                       KernelContext &context);

/// The fused target as the driver declares it through the MLIR exchange:
/// the patterns of every family (patterns/*.mlir), checkFusedKernel as the
/// acceptance of a match, and the preferred layout "channels_last".
const drivers::FusedTarget &getFusedTarget();

/// The name of the fused kernel family that implements `definition`
/// ("convolution", "matmul", "attention", "normalization", "elementwise",
/// "pooling"), or empty: for reports and tests.
llvm::StringRef getFusedFamilyName(FunctionalDefinitionOp definition);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_FUSEDKERNELS_H
