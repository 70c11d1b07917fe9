//===- ElementwiseCodegen.h - generated strided elementwise kernels -*- C++ -*-===//
//
// One kernel shape serves every layer that computes each output element
// from operand elements found through strides: elementwise layers (strides
// 0 where an operand broadcasts), and transpose, slice and expand (a single
// operand read through permuted, stepped or zero strides). The output is
// written densely in row-major order.
//
// The generated source is specialized on the expression, the element types
// and the number of dimensions left after merging the ones every operand
// walks contiguously; sizes, strides and offsets are kernel parameters, so
// layers that differ only in shape share one compiled module. Fused
// elementwise kernels use the same shape with statements between the reads
// and the writes, and several outputs.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ELEMENTWISECODEGEN_H
#define CGC_DRIVERS_CUDA_KERNELS_ELEMENTWISECODEGEN_H

#include "KernelContextImpl.h"
#include "KernelSupport.h"

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

/// The spec of an operand of `operandShape` broadcast (numpy) to
/// `outputShape`.
StridedOperand broadcastOperand(DType dtype, llvm::ArrayRef<int64_t> operandShape,
                                llvm::ArrayRef<int64_t> outputShape, bool raw = false);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ELEMENTWISECODEGEN_H
