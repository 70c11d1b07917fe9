//===- ElementwiseCodegen.h - generated strided elementwise kernels -*- C++ -*-===//
//
// One spec serves every layer that computes each output element from
// operand elements found through strides: elementwise layers (strides 0
// where an operand broadcasts), and transpose, slice and expand (a single
// operand read through permuted, stepped or zero strides). The output is
// written densely in row-major order. Two kernel shapes implement it
// (ElementwiseCodegen.cpp):
//
// - dense (`cgc_dense`): every operand is one element everywhere or is read
//   at the output's index plus its start (same-shape layers, the epilogues
//   after cuBLASLt and cuDNN). A thread takes chunks of 16 bytes of the
//   widest type, moved with vector accesses when every buffer is aligned.
// - strided (`cgc_strided`): everything else; each element's offsets come
//   from its index split over the merged loop nest.
//
// The generated source is specialized on the expression, the element types,
// which operands are one element, and (strided) the number of dimensions
// left after merging the ones every operand walks contiguously; sizes,
// strides and offsets are kernel parameters, so layers that differ only in
// shape share one compiled module. Fused elementwise kernels use the same
// shapes with statements between the reads and the writes, and several
// outputs.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ELEMENTWISECODEGEN_H
#define CGC_DRIVERS_CUDA_KERNELS_ELEMENTWISECODEGEN_H

#include "KernelContextImpl.h"
#include "KernelSupport.h"

#include <cstdint>
#include <vector>

namespace cgc::cuda {

/// One operand of a strided kernel.
struct StridedOperand {
  DType dtype = DType::F32;
  /// Per output dimension, in elements: 0 where the operand broadcasts,
  /// negative for reversed slices.
  Shape strides;
  /// Element offset of the operand element read at output index 0.
  int64_t start = 0;
  /// Read as the unsigned integer of its width (bits are moved, not
  /// converted); otherwise read into the compute type (loadValue).
  bool raw = false;
};

/// A further output of a strided kernel, written densely like the first.
struct StridedOutput {
  DType dtype = DType::F32;
  /// C++ expression giving the output's compute value.
  std::string expression;
};

/// out[i] = expression(x0, x1, ...) over the output's row-major indices.
struct StridedKernelSpec {
  llvm::SmallVector<StridedOperand, 3> operands;
  DType outputType = DType::F32;
  /// The expression gives the output's bits (raw operands copied through).
  bool rawOutput = false;
  Shape outputShape;
  /// C++ expression of the operand values `x0`, `x1`, ... (compute types or
  /// bits) giving the output's compute value, or its bits with rawOutput.
  std::string expression;
  /// Statements run for each element after the operands are read and before
  /// the expressions: locals a fused computation defines from `x0`, `x1`,
  /// ... (empty for one layer).
  std::string statements;
  /// Outputs after the first (outputs[1], ...).
  llvm::SmallVector<StridedOutput, 1> moreOutputs;
};

/// Builds the kernel; inputs of a launch are the operands in order, the
/// outputs outputs[0] (and outputs[1], ... for `moreOutputs`). An output may
/// alias an operand read at the same index (in-place bias addition). A spec
/// that only copies one raw operand may get a vectorized or tiled kernel
/// instead (StridedCopy.h).
llvm::Expected<Kernel> buildStridedKernel(mlir::Operation *op, KernelContext::Impl &context,
                                          const StridedKernelSpec &spec);

/// The loop nest a strided kernel walks: the output's dimensions without the
/// size-1 ones, each merged into its predecessor when every operand walks
/// both as one.
struct MergedLoops {
  Shape sizes;
  /// Per operand, per merged dimension.
  llvm::SmallVector<Shape, 3> strides;
};
MergedLoops mergeStridedLoops(llvm::ArrayRef<int64_t> outputShape,
                              llvm::ArrayRef<StridedOperand> operands);

/// Which kernel shape a spec runs (see the file comment).
enum class StridedKernelKind {
  Dense,
  Strided,
};

/// The kernel a spec runs and how it reads each operand.
struct StridedKernelPlan {
  StridedKernelKind kind = StridedKernelKind::Strided;
  /// The merged loop nest (mergeStridedLoops).
  MergedLoops loops;
  /// Per operand: the same element at every output index, read once per
  /// thread.
  llvm::SmallVector<bool, 3> uniform;
  /// Dense: elements per chunk, 16 bytes of the widest type read (uniform
  /// operands aside) or written.
  int64_t chunk = 1;
  /// Whether 32-bit indices reach every element.
  bool narrow = true;
};

/// The plan of a non-empty spec. A plain copy of one operand may still run
/// a kernel of StridedCopy.h instead.
StridedKernelPlan planStridedKernel(const StridedKernelSpec &spec);

/// One launch of a generated kernel: its grid (of 256-thread blocks) and
/// its parameter block, laid out as the generated struct (`cgc_dense_params`:
/// count, starts[max(operands, 1)], vectorized).
struct StridedKernelLaunch {
  unsigned blocks = 1;
  std::vector<int64_t> params;
};

/// The two launches of a dense plan and what picks one: the vectorized one
/// when every operand that is not one element (at its start) and every
/// output is aligned to the bytes of its chunk, the one-element-at-a-time
/// one otherwise. Built once per kernel; `choose` runs at every launch.
struct DenseLaunches {
  StridedKernelLaunch vectorized, elements;
  /// Per operand: the bytes its chunks span (0 for one-element operands)
  /// and the bytes its start lies past the pointer.
  llvm::SmallVector<uint64_t, 4> operandBytes, operandStarts;
  /// Per output: the bytes its chunks span.
  llvm::SmallVector<uint64_t, 2> outputBytes;

  const StridedKernelLaunch &choose(llvm::ArrayRef<const void *> inputs,
                                    llvm::ArrayRef<void *> outputs) const;
};
DenseLaunches getDenseLaunches(const StridedKernelSpec &spec, const StridedKernelPlan &plan,
                               const KernelContext::Impl &context);

/// Division of an index in [0, 2^31) by `divisor` in [1, 2^31) as a
/// multiply-high (Granlund and Montgomery): n / divisor ==
/// (umulhi(n, magic) + n) >> shift. The 32-bit strided kernel divides by
/// the loop sizes this way; the sum cannot overflow since n < 2^31.
struct IndexDivisor {
  uint32_t magic = 1;
  uint32_t shift = 0;
};
IndexDivisor getIndexDivisor(int64_t divisor);

/// The spec of an operand of `operandShape` broadcast (numpy) to
/// `outputShape`.
StridedOperand broadcastOperand(DType dtype, llvm::ArrayRef<int64_t> operandShape,
                                llvm::ArrayRef<int64_t> outputShape, bool raw = false);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ELEMENTWISECODEGEN_H
