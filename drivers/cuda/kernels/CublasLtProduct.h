//===- CublasLtProduct.h - row-major matrix products on cuBLASLt -*- C++ -*-===//
//
// What the matmul/gemm layer kernels (Matmul.cpp) and the fused matmul
// kernels (FusedMatmul.cpp) share: planning a row-major product with numpy's
// batch broadcasting, creating its cuBLASLt descriptors and algorithms
// (optionally with a bias/activation epilogue), and enqueueing it. The
// attention kernels' GEMM path (AttentionGemm.cpp) runs products of strided
// matrices (StridedProductPlan): any leading dimension, either storage
// order, per-operand element types and alpha from device memory.
//
// Row-major products run as cuBLASLt's column-major ones with the operands
// swapped: row-major D = A·B is column-major Dᵀ = Bᵀ·Aᵀ, and a row-major
// matrix is its column-major transpose in place. cuBLASLt's D therefore has
// N rows (the last dimension of the row-major result), so its bias epilogue
// (one value per row of D) adds a vector of N elements along the row-major
// result's last dimension.
//
// The algorithm for aligned operands is the fastest of cuBLASLt's candidates,
// timed on the device when the product is built (CublasLtTuning.h says why
// and what it costs); the element-alignment fallback is the heuristic's
// first.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CUBLASLTPRODUCT_H
#define CGC_DRIVERS_CUDA_KERNELS_CUBLASLTPRODUCT_H

#include "KernelSupport.h"
#include "LibraryHandles.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda {

/// One row-major product D[b] = alpha · op(A[b]) · op(B[b]) (+ beta · C),
/// op(A) M×K and op(B) K×N, repeated over `lhsOffsets.size()` calls of a
/// strided batch of `batch`.
struct ProductPlan {
  DType dtype = DType::F32;
  int64_t m = 1, n = 1, k = 1;
  bool transA = false, transB = false;
  int64_t batch = 1;
  int64_t lhsBatchStride = 0, rhsBatchStride = 0, outputBatchStride = 0; // elements
  std::vector<int64_t> lhsOffsets{0}, rhsOffsets{0}, outputOffsets{0};   // per call
};

/// Plans lhs · rhs with numpy.matmul semantics: a 1-D lhs is a row vector, a
/// 1-D rhs a column vector (N = 1); batch dimensions broadcast, the
/// innermost merged one becoming cuBLASLt's strided batch and outer ones a
/// loop of calls; a batched lhs against one shared rhs folds into one tall
/// product.
ProductPlan planMatmul(DType dtype, llvm::ArrayRef<int64_t> lhsShape,
                       llvm::ArrayRef<int64_t> rhsShape);

/// What cuBLASLt applies to alpha·op(A)·op(B) + beta·C before storing D.
struct ProductEpilogue {
  enum class Activation {
    None,
    Relu,     ///< max(x, 0)
    GeluTanh, ///< cuBLASLt's GELU: the tanh approximation
  };
  /// Adds a packed vector of N elements of the product's type (one per
  /// column of the row-major result), found at launch.
  bool bias = false;
  Activation activation = Activation::None;
  /// Each launch passes a C of its own, read with beta != 0 (a residual
  /// add): the candidates are timed reading one. With beta = 0 cuBLASLt
  /// skips C, and the fastest algorithm without that pass over M×N may be
  /// far from the fastest with it (ResNet-50's 200704×512×128 product with
  /// its residual on an H100: 0.35 ms with the algorithm timed without C).
  bool readsC = false;
};

/// How createLtProduct and createLtStridedProduct pick the algorithm for
/// aligned operands.
enum class ProductTuning {
  /// Timed unless CGC_CUDA_MATMUL_TUNING is "0" (what the kernels use).
  Default,
  /// Timed whatever the environment says (tests).
  On,
  /// cuBLASLt's first heuristic result, as without a device.
  Off,
};

/// The cuBLASLt objects of one product; destroyed with the kernel.
struct LtProduct {
  std::shared_ptr<CublasLtHandle> handle;
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t alignedAlgorithm{}, fallbackAlgorithm{};
  ProductEpilogue epilogue;
  /// Bytes every operand (and the bias) must be aligned to for
  /// alignedAlgorithm.
  uint32_t alignment = 0;
  uint64_t workspaceSize = 0;
  /// How many of cuBLASLt's candidates were timed to choose alignedAlgorithm
  /// (here or by an identical product before it); 0 when it is the
  /// heuristic's first, untimed.
  int timedCandidates = 0;
  /// The bias pointer is an attribute of `operation`: held from setting it
  /// to enqueueing, so that concurrent launches do not mix their biases.
  std::mutex biasMutex;
  ~LtProduct();
};

/// Creates the descriptors of `plan` with `epilogue` and picks its
/// algorithms (one assuming 16-byte-aligned operands, chosen as `tuning`
/// says on the calling thread's current device; one assuming only element
/// alignment). Errors name `op`; "cuBLASLt has no algorithm ..." when the
/// heuristics find none for this configuration.
llvm::Expected<std::shared_ptr<LtProduct>>
createLtProduct(mlir::Operation *op, const ProductPlan &plan,
                std::shared_ptr<CublasLtHandle> handle, const ProductEpilogue &epilogue = {},
                ProductTuning tuning = ProductTuning::Default);

/// How many products this process has timed cuBLASLt's candidates for
/// (CublasLtTuning.cpp): identical products after the first reuse its
/// choice without timing. Tests read it.
uint64_t getTimedProductCount();

/// The device pointers of one launch of a product.
struct ProductOperands {
  const void *lhs = nullptr, *rhs = nullptr;
  /// cuBLASLt's C, a full M×N matrix read with beta; null: C is D itself.
  const void *c = nullptr;
  void *output = nullptr;
  /// The epilogue's bias vector (when the product has one).
  const void *bias = nullptr;
};

/// Enqueues every call of `plan` on `stream`. Returns an empty string, or a
/// message naming `opName` and the failing call.
std::string enqueueLtProduct(LtProduct &product, const ProductPlan &plan, double alpha,
                             double beta, const ProductOperands &operands, void *workspace,
                             cudaStream_t stream, llvm::StringRef opName);

//===----------------------------------------------------------------------===//
// Products of strided matrices
//===----------------------------------------------------------------------===//

/// One matrix of a StridedProductPlan as it lies in memory: element (r, c)
/// of batch entry b is at b · batchStride + r · rowStride + c · columnStride
/// elements, where the strides are (leadingDimension, 1) for a row-major
/// matrix and (1, leadingDimension) for a column-major one.
struct StridedMatrix {
  DType dtype = DType::F32;
  int64_t rows = 1, columns = 1;
  /// Row-major (columns contiguous) or column-major (rows contiguous).
  bool rowMajor = true;
  /// Elements between consecutive rows (row-major) or columns (column-major).
  int64_t leadingDimension = 1;
  /// Elements between consecutive matrices of the strided batch (0: one
  /// matrix shared by the whole batch).
  int64_t batchStride = 0;
};

/// The StridedMatrix reading a rows×columns matrix whose element (r, c) is
/// at r · rowStride + c · columnStride, or std::nullopt when cuBLASLt
/// cannot express it (neither stride is 1 where it matters, or rows/columns
/// overlap). Strides of size-1 dimensions do not matter (broadcast views
/// give them 0).
std::optional<StridedMatrix> makeStridedMatrix(DType dtype, int64_t rows, int64_t columns,
                                               int64_t rowStride, int64_t columnStride);

/// D[b] = alpha · lhs[b] · rhs[b] with lhs M×K, rhs K×N and a row-major
/// output M×N, each operand of its own element type and layout, repeated
/// over `lhsOffsets.size()` calls of a strided batch of `batch`. Computes
/// in float32 (never TF32) with a float32 alpha (float64 for float64
/// operands); beta is 0.
struct StridedProductPlan {
  StridedMatrix lhs, rhs, output;
  int64_t batch = 1;
  /// Element offsets per call (outer batch dimensions the strided batch
  /// cannot express).
  std::vector<int64_t> lhsOffsets{0}, rhsOffsets{0}, outputOffsets{0};
  /// alpha and beta are read from device memory at launch (two values of
  /// the scale type, alpha then beta) rather than given by the host.
  bool deviceScalars = false;
};

/// Creates the descriptors of `plan` and picks its algorithms like
/// createLtProduct (one for 16-byte-aligned operands, chosen as `tuning`
/// says; one for element alignment). Errors name `op`.
llvm::Expected<std::shared_ptr<LtProduct>>
createLtStridedProduct(mlir::Operation *op, const StridedProductPlan &plan,
                       std::shared_ptr<CublasLtHandle> handle,
                       ProductTuning tuning = ProductTuning::Default);

/// The device pointers of one launch of a strided product.
struct StridedProductOperands {
  const void *lhs = nullptr, *rhs = nullptr;
  void *output = nullptr;
  /// With plan.deviceScalars: alpha and beta in device memory; otherwise
  /// `alpha` is used.
  const void *deviceScalars = nullptr;
  double alpha = 1.0;
};

/// Enqueues every call of `plan` on `stream`. Returns an empty string, or a
/// message naming `opName` and the failing call.
std::string enqueueLtStridedProduct(LtProduct &product, const StridedProductPlan &plan,
                                    const StridedProductOperands &operands, void *workspace,
                                    cudaStream_t stream, llvm::StringRef opName);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CUBLASLTPRODUCT_H
