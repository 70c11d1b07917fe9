//===- FusedAttention.h - attention written out as layers, read as a plan -*- C++ -*-===//
//
// The reading half of the fused attention family (FusedAttention.cpp): a
// definition into the AttentionPlan its kernel runs, with the transposes
// and reshapes around the attention folded into the plan's views. Public
// so that tests can check the views a definition gives without a device.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_FUSEDATTENTION_H
#define CGC_DRIVERS_CUDA_KERNELS_FUSEDATTENTION_H

#include "AttentionKernel.h"

#include <optional>

namespace cgc::cuda {

/// The plan of `definition`: std::nullopt when it is not attention's shape,
/// otherwise the plan or the error ("@name: fused attention: ...") naming
/// what the kernel lacks.
std::optional<llvm::Expected<AttentionPlan>> readFusedAttention(FunctionalDefinitionOp definition);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_FUSEDATTENTION_H
