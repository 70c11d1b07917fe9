//===- PoolingCodegen.h - generated max and average pool kernels -*- C++ -*-===//
//
// The device code of the window pools in both layouts: the kernel-offset
// range that Pooling.cpp's NCHW kernel and the fused family's NHWC kernel
// (FusedPooling.cpp) share, so that both compute ONNX's windows the same
// way, and the NHWC kernel's source.
//
// The NHWC kernel bakes the geometry into its source (ResNet has one
// windowed pool: constant divisors and loop bounds are worth the extra
// module). Each thread computes one output pixel's channels c .. c+V-1:
// V = 16 bytes of channels (8 float16/bfloat16, 4 float32) loaded and
// stored as one vector when C is a multiple of V and the buffers are
// 16-byte aligned (`cgc_pool_nhwc_vector`), one channel per thread
// otherwise (`cgc_pool_nhwc`). Both match Pooling.cpp's kernel: maxima
// start at -inf and propagate NaN, sums accumulate in double and divide by
// the window's elements inside the input, or with count_include_pad inside
// the padded input (a ceil_mode window that runs past the end padding does
// not count its overhang).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_POOLINGCODEGEN_H
#define CGC_DRIVERS_CUDA_KERNELS_POOLINGCODEGEN_H

#include "KernelSupport.h"

#include <array>
#include <cstdint>
#include <string>

namespace cgc::cuda {

/// Device functions `cgc_floor_div(a, b)` and `cgc_kernel_range(origin,
/// dilation, kernel, low, high, first, end)`: the kernel offsets [first,
/// end) whose coordinate origin + k * dilation lies in [low, high). Follows
/// the device preamble.
const char *getKernelRangeSource();

/// A max or average pool over two spatial dimensions of N×H×W×C tensors.
struct NhwcPoolGeometry {
  DType dtype = DType::F32;
  bool isMax = true;
  bool countIncludePad = false;
  int64_t batch = 1, height = 1, width = 1, channels = 1;
  int64_t outputHeight = 1, outputWidth = 1;
  /// Per spatial dimension (H, W).
  std::array<int64_t, 2> kernel{1, 1}, strides{1, 1}, dilations{1, 1};
  std::array<int64_t, 2> startPadding{0, 0}, endPadding{0, 0};

  int64_t getInputElements() const { return batch * height * width * channels; }
  int64_t getOutputElements() const { return batch * outputHeight * outputWidth * channels; }
};

/// The kernels' names.
inline constexpr const char *kNhwcPoolKernel = "cgc_pool_nhwc";
inline constexpr const char *kNhwcPoolVectorKernel = "cgc_pool_nhwc_vector";

/// Channels a thread of the vector kernel computes: 16 bytes of `dtype`
/// (float32, float16 and bfloat16 only).
int64_t getNhwcPoolVectorWidth(DType dtype);

/// Whether the source has the vector kernel: C a multiple of the vector
/// width (every pixel's channels then start 16-byte aligned in an aligned
/// buffer).
bool hasNhwcPoolVectorKernel(const NhwcPoolGeometry &geometry);

/// The source of `cgc_pool_nhwc(const T *in, T *out)` (one output element
/// per thread, grid-stride) and, where hasNhwcPoolVectorKernel, of
/// `cgc_pool_nhwc_vector(const T *in, T *out)` (one pixel's V channels per
/// thread; both pointers must be 16-byte aligned). `geometry.dtype` must be
/// float32, float16 or bfloat16.
std::string generateNhwcPoolSource(const NhwcPoolGeometry &geometry);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_POOLINGCODEGEN_H
