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
// The global pools' NHWC kernel (the maximum or mean over H×W of each
// (n, c), stored as N×C, the memory of N×C×1×1) gives each block one image
// and 32 channel groups (16-byte vectors, or single channels), its eight
// warps taking every eighth pixel: the warps' loads are 512 contiguous
// bytes, where the NCHW row kernel reads 49-element rows. The slices
// combine through shared memory in a fixed order.
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

/// The window of a pool over two spatial dimensions, per dimension (H, W),
/// as its attributes give it (lists left out: ones and zeros).
struct PoolWindow {
  std::array<int64_t, 2> kernel{1, 1}, strides{1, 1}, dilations{1, 1};
  std::array<int64_t, 2> startPadding{0, 0}, endPadding{0, 0};
};

/// The window of `pool`, a 2-D cgc_op.max_pool or cgc_op.average_pool
/// (FusedPooling.cpp; the convolution family's max pool reads it too).
PoolWindow readPoolWindow(mlir::Operation *pool);

/// A max or average pool over two spatial dimensions of N×H×W×C tensors.
struct NhwcPoolGeometry : PoolWindow {
  DType dtype = DType::F32;
  bool isMax = true;
  bool countIncludePad = false;
  int64_t batch = 1, height = 1, width = 1, channels = 1;
  int64_t outputHeight = 1, outputWidth = 1;

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

/// A global max or average pool of an N×H×W×C tensor: the maximum or
/// mean over the H×W pixels of each (n, c), stored N×C.
struct NhwcGlobalPoolGeometry {
  DType dtype = DType::F32;
  bool isMax = true;
  int64_t batch = 1, pixels = 1, channels = 1;
};

inline constexpr const char *kNhwcGlobalPoolKernel = "cgc_global_pool_nhwc";
inline constexpr const char *kNhwcGlobalPoolVectorKernel = "cgc_global_pool_nhwc_vector";

/// The largest plane the global kernel takes: each of a block's eight
/// warps walks its pixels one load after another, so a larger plane (an
/// early squeeze-and-excitation pool) is left to the transpose and the
/// NCHW row kernel, which spread a row over up to a warp.
inline constexpr int64_t kNhwcGlobalPoolMaxPixels = 256;

/// Whether the source has the vector kernel: C a multiple of 16 bytes.
bool hasNhwcGlobalPoolVectorKernel(const NhwcGlobalPoolGeometry &geometry);

/// The blocks (of 256 threads) that cover the pool once: one per image and
/// 32 channel groups (vectors, or channels without `vector`).
int64_t getNhwcGlobalPoolBlocks(const NhwcGlobalPoolGeometry &geometry, bool vector);

/// The source of `cgc_global_pool_nhwc(const T *in, T *out)` (one channel
/// per thread) and, where hasNhwcGlobalPoolVectorKernel, of
/// `cgc_global_pool_nhwc_vector` (16 bytes of channels per thread; both
/// pointers 16-byte aligned); blocks of 256 threads, block-stride over
/// getNhwcGlobalPoolBlocks. Maxima start at -inf and propagate NaN; sums
/// accumulate in double and divide by H×W. `geometry.dtype` must be
/// float32, float16 or bfloat16.
std::string generateNhwcGlobalPoolSource(const NhwcGlobalPoolGeometry &geometry);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_POOLINGCODEGEN_H
