//===- RowKernelCodegen.h - layer_norm and softmax rows in registers -*- C++ -*-===//
//
// layer_norm, and softmax along the innermost axis, over rows of at most
// kMaxRegisterRowSize elements, for the layer kernels (Normalization.cpp) and
// the fused definitions (FusedNormalization.cpp). Each row is read from
// global memory once, in chunks of up to 16 bytes, into registers; the
// statistics are reduced from there (warp shuffles, and shared memory across
// the warps of a block for rows of more than 1024 elements) and the results
// are stored in chunks too. Rows longer than that keep the kernels of those
// files.
//
// The reads are the tensors a row kernel takes, each varying along the row
// (element j of the row at offset j) or holding one value per row, at an
// offset per row computed from its broadcast strides: a residual, a
// per-feature scale, a row mask. A tensor varying otherwise inside the row
// (a [5, 1] scale of a normalized [5, 6]) has no RowRead; its layer keeps
// the general kernel.
//
// Chunks need every pointer read or written along rows aligned to the
// chunk's size, which only the launch knows: a source has the chunked
// instantiation and the one-element one, and each launch picks.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ROWKERNELCODEGEN_H
#define CGC_DRIVERS_CUDA_KERNELS_ROWKERNELCODEGEN_H

#include "KernelContextImpl.h"
#include "KernelSupport.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// The longest rows (in elements) the register kernels take: 16 elements a
/// thread in blocks of 512.
constexpr int64_t kMaxRegisterRowSize = 8192;

/// How a row kernel reads one tensor: argument `argument` of the kernel
/// (pointer `in<argument>`), read into the local `x<argument>` of its
/// compute type.
struct RowRead {
  unsigned argument = 0;
  DType dtype = DType::F32;
  /// Element j of a row at offset j from the row's offset; otherwise one
  /// element per row, at the row's offset.
  bool alongRow = true;
  /// The row's offset, in elements: row-major over the merged outer
  /// dimensions `rowSizes` with strides `rowStrides`; empty when every row
  /// reads at offset 0.
  Shape rowSizes, rowStrides;
};

/// The read of argument `argument` (of `dtype` and `operandShape`,
/// broadcasting one way to `shape`) in rows of `shape` whose normalized
/// dimensions start at `axis`, or std::nullopt when it varies inside a row
/// other than along it.
std::optional<RowRead> getRowRead(unsigned argument, DType dtype,
                                  llvm::ArrayRef<int64_t> operandShape,
                                  llvm::ArrayRef<int64_t> shape, int64_t axis);

/// A row kernel to generate. Its parameters are the pointers `in<k>` of
/// `argumentTypes`, then `out<k>` of `resultTypes`.
struct RowKernelSpec {
  enum class Normalization { LayerNorm, Softmax };
  Normalization normalization = Normalization::LayerNorm;
  /// The normalization's element type; it computes in its compute type.
  DType dtype = DType::F32;
  int64_t rows = 0, size = 0;
  /// layer_norm's epsilon.
  double epsilon = 0.0;
  llvm::SmallVector<DType, 8> argumentTypes, resultTypes;
  /// What the pass reading the row and the pass writing the results read,
  /// each argument at most once per pass.
  llvm::SmallVector<RowRead, 8> inputReads, outputReads;
  /// Statements computing the normalization's input at one element from the
  /// first pass's locals `x<k>`; `input` is its expression.
  std::string inputStatements, input = "x0";
  /// layer_norm's scale and bias (empty when it has none): expressions of
  /// the last pass's locals.
  std::string scale, bias;
  /// Statements computing the results at one element from `cgc_y` (the
  /// normalized value, in the compute type) and the last pass's locals;
  /// `results` are their expressions, one per result type.
  std::string outputStatements;
  llvm::SmallVector<std::string, 2> results = {"cgc_y"};
};

/// Compiles the kernel of `spec` (errors name `op`) and returns its launch;
/// launch failures name `launchName`.
llvm::Expected<Kernel> buildRowKernel(mlir::Operation *op, KernelContext::Impl &context,
                                      const RowKernelSpec &spec, std::string launchName);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ROWKERNELCODEGEN_H
