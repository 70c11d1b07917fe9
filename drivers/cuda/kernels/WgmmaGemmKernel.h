//===- WgmmaGemmKernel.h - the Hopper GEMM as a launchable kernel -*- C++ -*-===//
//
// Compiles the generated Hopper GEMM (WgmmaGemm.h) for sm_90a and wraps it
// as a Kernel over a definition's arguments: each launch encodes the tensor
// maps of the bound operands (cached for the last pair of addresses) and
// launches the persistent grid. Addresses TMA cannot read (not 16-byte
// aligned) run the fallback kernel given instead.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_WGMMAGEMMKERNEL_H
#define CGC_DRIVERS_CUDA_KERNELS_WGMMAGEMMKERNEL_H

#include "KernelContextImpl.h"
#include "WgmmaGemm.h"

#include <optional>

namespace cgc::cuda {

/// Why `context`'s device cannot run the kernel (wgmma, TMA and setmaxnreg
/// of sm_90a exist on compute capability 9.0 only), std::nullopt if it can.
std::optional<std::string> getWgmmaGemmRefusal(const KernelContext::Impl &context);

/// The kernel of `spec` (its `multiprocessors` taken from `context`) reading
/// definition arguments `lhs` [M, K], `rhs` [K, N] and, with spec.bias,
/// `bias` [N], writing the first result. `fallback` computes the same and
/// runs where an address is misaligned; its workspace is the kernel's.
/// Errors name `name`: a refused device, NVRTC, the shared-memory size.
llvm::Expected<Kernel> buildWgmmaGemmKernel(WgmmaGemmSpec spec, unsigned lhs, unsigned rhs,
                                            std::optional<unsigned> bias, Kernel fallback,
                                            KernelContext::Impl &context, llvm::StringRef name);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_WGMMAGEMMKERNEL_H
