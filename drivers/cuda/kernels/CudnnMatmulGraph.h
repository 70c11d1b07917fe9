//===- CudnnMatmulGraph.h - a product and its activation as one cuDNN graph -*- C++ -*-===//
//
// A row-major product [M, K] · [K, N] in float32 accumulation, plus a bias
// along N, then one activation, as one cuDNN operation graph (a matmul node
// and two pointwise nodes, fused by cuDNN's runtime fusion engines): the
// way the fused matmul family (FusedMatmul.cpp) runs an exact (erf) GELU
// after the product without a second pass over the result, which
// cuBLASLt's epilogues (the tanh approximation only) cannot.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CUDNNMATMULGRAPH_H
#define CGC_DRIVERS_CUDA_KERNELS_CUDNNMATMULGRAPH_H

#include "CudnnGraphKernel.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// The product, in the definition's arguments.
struct MatmulGraphSpec {
  /// float16 or bfloat16: the operands', the bias' and the result's type.
  DType dtype = DType::F16;
  int64_t m = 1, k = 1, n = 1;
  /// Definition arguments: the [M, K] and [K, N] operands, the N-element
  /// bias (none: no bias node).
  unsigned lhs = 0, rhs = 1;
  std::optional<unsigned> bias;
  cudnnPointwiseMode_t activation = CUDNN_POINTWISE_GELU_FWD;
};

/// The graph's plans as `search` says (none, with the reason, when cuDNN
/// finalizes none).
GraphKernelPlan createMatmulGraph(const MatmulGraphSpec &spec,
                                  std::shared_ptr<CudnnHandle> handle,
                                  const CudnnPlanSearch &search, std::string &reason);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CUDNNMATMULGRAPH_H
