//===- ConvolutionPool.h - a first layer and its max pool as one kernel -*- C++ -*-===//
//
// A generated kernel for a channels-last convolution of few input channels
// whose result (after the bias and the chain) only a max pool reads:
// ResNet's first layer, 7×7 stride 2 → relu → 3×3 stride 2 max pool. The
// convolution's rows never reach memory: a block computes them into a ring
// of rows in shared memory and pools each output row as soon as its rows
// are there, so that only the pool's result (a quarter of the
// convolution's) is written.
//
// On an H100 at batch 256, ResNet-50's first layer (the implicit-GEMM
// kernel) and the pool took 0.43 ms and 0.21 ms, writing and then reading
// back a 411 MB result.
//
// Where the definition reads a float32 NCHW image through a cast and a
// transpose to NHWC (FusedConvolutionShape::inputCast), the kernel reads
// the image itself and converts it as the cast does while it copies the
// band's rows, so that the converted image is not written either.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONPOOL_H
#define CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONPOOL_H

#include "ConvolutionChain.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// The most input channels, output channels and window rows the kernel
/// takes, and the most shared memory a block of it takes (what every
/// device of compute capability 8.0 and later grants a block).
constexpr int64_t kConvolutionPoolMaxChannels = 8;
constexpr int64_t kConvolutionPoolMaxOutputChannels = 64;
constexpr int64_t kConvolutionPoolMaxWindowOctets = 32;
constexpr int64_t kConvolutionPoolMaxSharedBytes = 96 * 1024;

/// Why the kernel does not run `shape` (whose `pool` is set), or
/// std::nullopt when it does, whatever the device: the channels-last form
/// of a 2-D convolution of one group, float16 or bfloat16, at most 8 input
/// channels, undilated, its windows' start an even number of elements
/// apart along a row (stride × channels even), a multiple of 8 output
/// channels up to 64, a chain whose other operands vary along channels
/// only; a max pool of at most 3×3, undilated, strides at most its window,
/// padding less than its window, every window meeting the convolution's
/// result (ceil mode's last window may not); and shared memory for the
/// weights, a band of input rows, a ring of the pool's window of
/// convolution rows, a staging area for the next band (a float32 image's:
/// its new rows, as float32) and the per-channel operands within
/// kConvolutionPoolMaxSharedBytes. The device needs compute
/// capability 8.0 (buildConvolutionPool says so).
std::optional<std::string> getConvolutionPoolRefusal(const FusedConvolutionShape &shape);

/// getConvolutionPoolRefusal's reason as the family's error on
/// `definition`, or std::nullopt where the kernel runs `shape`: what the
/// family's check reports (the compiler then matches the convolution and
/// the pool apart) and the build returns.
std::optional<llvm::Error> checkConvolutionPool(FunctionalDefinitionOp definition,
                                                const FusedConvolutionShape &shape);

/// The kernel of `definition`, a convolution, its chain and a max pool
/// (which getConvolutionPoolRefusal accepts; an error otherwise, and on a
/// device before compute capability 8.0), compiled for its geometry.
llvm::Expected<Kernel> buildConvolutionPool(FunctionalDefinitionOp definition,
                                            const FusedConvolutionShape &shape,
                                            KernelContext::Impl &context);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONPOOL_H
