//===- StridedCopy.h - strided copies near memory bandwidth -----*- C++ -*-===//
//
// A strided copy moves bits: out[i...] = in[start + sum(i_d * strides_d)],
// the output dense in row-major order. Transpose, slice, expand, a gather
// of a single index and the broadcast copies other layers make are all one.
// The per-element kernel of ElementwiseCodegen.h reads and writes one
// element per thread with the index math per element; two shapes of the
// merged loop nest (mergeStridedLoops) get kernels of their own:
//
// - contiguous runs (the innermost merged dimension reads input stride 1):
//   vectors of 16, 8 or 4 bytes, index math per vector. The widest vector
//   that the run length, the start and every stride divide is chosen when
//   the kernel is built; at launch a narrower one (or single elements) when
//   the buffers are not aligned to it.
// - transposes of the fastest dimension (the innermost output dimension
//   reads a non-unit stride, another one stride 1): a shared-memory tile
//   read along the input's contiguous dimension and written along the
//   output's.
//
// Each kind is one module per element width and rank (and index width),
// sizes and strides kernel parameters, so layers of other shapes share it.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_STRIDEDCOPY_H
#define CGC_DRIVERS_CUDA_KERNELS_STRIDEDCOPY_H

#include "KernelContextImpl.h"
#include "KernelSupport.h"

#include <optional>

namespace cgc::cuda {

/// A start that moves by an index read on the device (a gather of one
/// index): the index is the single element of input 1.
struct DeviceIndexedStart {
  DType indexType = DType::I64;
  /// Indices in [-axisSize, axisSize) are valid (negative ones count from
  /// the end); any other index writes zeros, as on the CPU.
  int64_t axisSize = 0;
  /// Elements the start moves per index.
  int64_t stride = 0;
};

/// out[i...] = in[start (+ index * index->stride) + sum(i_d * strides_d)].
struct StridedCopySpec {
  /// The input's element type (and the output's, unless outputDType).
  DType dtype = DType::F32;
  /// A conversion on the way (float32, float16 and bfloat16 to one another,
  /// through float as a cast layer converts): only the interleave kernel
  /// converts, so any other converting copy plans as General.
  std::optional<DType> outputDType;
  /// Whether the copy converts (outputDType differs from dtype).
  bool converts() const { return outputDType && *outputDType != dtype; }
  Shape outputShape;
  /// Per output dimension, in elements: 0 where the input broadcasts,
  /// negative for reversed slices.
  Shape strides;
  int64_t start = 0;
  std::optional<DeviceIndexedStart> index;
};

/// Which kernel a copy runs.
enum class StridedCopyKind {
  /// Neither shape applies: the per-element kernel (or the caller's own).
  General,
  /// Contiguous runs moved in vectors.
  Runs,
  /// A shared-memory tiled transpose.
  Tiles,
  /// A transpose whose innermost output dimension is too short for a tile
  /// (NCHW -> NHWC of 3 channels): each thread moves one row's few
  /// elements.
  Interleave,
};

/// The kernel a copy runs and the loop nest it walks.
struct StridedCopyPlan {
  StridedCopyKind kind = StridedCopyKind::General;
  /// The merged loop nest (mergeStridedLoops): sizes and input strides.
  Shape sizes, strides;
  /// Runs: the widest access (bytes) the sizes, start and strides allow;
  /// launches on less aligned buffers take narrower ones.
  unsigned vectorBytes = 0;
  /// Tiles and Interleave: the loop that reads the input with stride 1
  /// (the tile's rows).
  size_t rowDim = 0;
  /// Whether 32-bit indices reach every element.
  bool narrow = true;
};

/// The plan of a non-empty copy (General for an empty one).
StridedCopyPlan planStridedCopy(const StridedCopySpec &spec);

/// The specialized kernel of `spec` (inputs: the source, then the index
/// with `spec.index`; outputs[0]), or std::nullopt when neither shape
/// applies (or the output is empty) and the caller's general kernel should
/// run.
std::optional<llvm::Expected<Kernel>>
buildSpecializedStridedCopy(mlir::Operation *op, KernelContext::Impl &context,
                            const StridedCopySpec &spec);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_STRIDEDCOPY_H
