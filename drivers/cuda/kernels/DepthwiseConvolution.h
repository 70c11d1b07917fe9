//===- DepthwiseConvolution.h - channels-last depthwise convolution -*- C++ -*-===//
//
// A generated kernel for the fused convolution family's channels-last form
// when the convolution is depthwise (groups = input channels = output
// channels): each output channel sums a window of its own input channel,
// so the work is a few multiply-adds per element moved and the kernel is
// bound by memory bandwidth. cuDNN's NHWC kernels for it measured about
// twice as slow as its NCHW ones (MobileNetV2 on an H100); this one reads
// the N×H×W×C input and writes the N×P×Q×C output once each, in wide
// coalesced accesses along C, and applies the bias and the chain
// (ConvolutionChain.h) before the single store.
//
// FusedConvolution.cpp builds it for every depthwise definition and, on a
// device, times it against the cuDNN path the family would take otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_DEPTHWISECONVOLUTION_H
#define CGC_DRIVERS_CUDA_KERNELS_DEPTHWISECONVOLUTION_H

#include "ConvolutionChain.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// How the generated kernel divides the output among threads: each thread
/// computes `vector` adjacent channels at `run` adjacent output pixels of
/// a row.
struct DepthwiseLayout {
  /// Channels per thread (1, 2, 4 or 8): one load or store of up to 16
  /// bytes per pixel, a divisor of the channel count.
  int64_t vector = 1;
  /// Output pixels per thread along W (1 to 4): neighbouring outputs share
  /// most of their input columns, which the thread loads once. As long as
  /// a window row's loads and the sums fit the thread's registers.
  int64_t run = 1;
  /// Whether the block stages its threads' window weights (vector × kernel
  /// taps each) in shared memory; large windows read them from global
  /// memory where they are used instead.
  bool weightsStaged = true;
};

/// The layout for `channels` channels of `dtype`, a `kernelHeight` ×
/// `kernelWidth` window and `outputWidth` output columns, with at most
/// `maxVector` channels per thread (1: the kernel a launch on buffers
/// misaligned for vectors falls back to), and the convolution's stride and
/// dilation along W (a run's loads span its windows' columns).
DepthwiseLayout getDepthwiseLayout(DType dtype, int64_t channels, int64_t kernelHeight,
                                   int64_t kernelWidth, int64_t outputWidth, int64_t maxVector = 8,
                                   int64_t strideWidth = 1, int64_t dilationWidth = 1);

/// Why the generated kernel does not run `shape`, std::nullopt when it
/// does: the channels-last form of a 2-D convolution whose groups, input
/// channels and output channels are equal (a channel multiplier of 1).
std::optional<std::string> getDepthwiseRefusal(const FusedConvolutionShape &shape);

/// The kernel of `shape`, which getDepthwiseRefusal must accept: inputs are
/// the definition's arguments, outputs[0] its result. Compiles without a
/// device. A launch whose buffers are not aligned to the vector width runs
/// a one-channel-per-thread build of the same kernel.
llvm::Expected<Kernel> buildDepthwiseConvolution(FunctionalDefinitionOp definition,
                                                 const FusedConvolutionShape &shape,
                                                 KernelContext::Impl &context);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_DEPTHWISECONVOLUTION_H
