//===- AttentionKernel.h - one-kernel scaled-dot-product attention -*- C++ -*-===//
//
// softmax(Q·Kᵀ, adjusted) · V in one generated kernel (NVRTC), flash-attention
// style: a block takes a tile of queries of one batch matrix, walks the keys
// in tiles staged in shared memory, and keeps a running maximum and sum per
// query (online softmax), so that the scores never reach device memory. All
// arithmetic is float32, whatever the storage type.
//
// Two users describe their attention as an AttentionPlan: the per-layer
// cgc_op.scaled_dot_product_attention (AttentionKernel.cpp) and the fused
// family (FusedAttention.cpp), which recognizes the layers an exporter
// writes out (matmul, scaling and mask layers, softmax, matmul). Every
// tensor is read through a view of strides over the output's batch
// dimensions, so broadcast operands, Kᵀ given transposed or not, masks of
// any broadcast shape and slices that a gather of one index picks (the
// index read on the device) need no copies.
//
// A plan also runs two other ways. For float16 and bfloat16 at head
// dimensions that are multiples of 16 (up to 128), the tensor-core flash
// kernel (AttentionTensorCore.h) is the same algorithm with both products
// on tensor cores (mma.sync), the scores still on chip. And Q·Kᵀ and P·V
// run as strided-batched cuBLASLt products (AttentionGemm.h) around a
// generated softmax kernel, the scores passing through the workspace.
// None need win everywhere (the scalar flash kernel takes every plan, the
// products leave the scores in memory but take any head dimension on
// tensor cores), so where more than one runs a plan on a device, each is
// timed once when it is built and the fastest kept;
// CGC_CUDA_ATTENTION=flash|tensorcore|gemm forces one, and
// CGC_CUDA_VERBOSE=1 reports the choice and the times.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_ATTENTIONKERNEL_H
#define CGC_DRIVERS_CUDA_KERNELS_ATTENTIONKERNEL_H

#include "../FusedKernels.h"
#include "KernelContextImpl.h"
#include "KernelSupport.h"

#include <optional>
#include <string>
#include <vector>

namespace cgc::cuda {

/// The largest query/key and value head dimensions the kernel implements.
constexpr int64_t kMaxAttentionHeadDim = 128;
/// The most score adjustments (scaling and mask layers) one kernel applies.
constexpr size_t kMaxAttentionScoreSteps = 8;

/// A gather of one index on a view's way from its tensor (nn.MultiheadAttention's
/// q, k and v are slices of one projection): the view starts `stride`
/// elements further per unit of the index, which the kernel reads from the
/// one element of input `input` when it runs (a constant bound at dispatch,
/// unknown when the kernel is built). Indices in [-size, size) are valid,
/// negative ones counting from the end (ONNX); the kernel clamps others
/// into the tensor (ONNX makes them an error; the per-layer gather reads
/// zeros).
struct AttentionSelection {
  unsigned input = 0;
  /// I32 or I64.
  DType indexType = DType::I64;
  int64_t size = 0, stride = 0;
};

/// Where the kernel reads a tensor as a matrix per batch: the element of
/// (batch coordinates, row, column) is at start + Σ coordinate ×
/// batchStrides + row × rowStride + column × columnStride (0 strides where
/// it broadcasts), the start being Σ index × stride over `selections`.
struct AttentionView {
  /// Index of the tensor in LaunchArgs.inputs.
  unsigned input = 0;
  DType dtype = DType::F32;
  /// One per batch dimension of the attention's output.
  Shape batchStrides;
  int64_t rowStride = 0, columnStride = 0;
  llvm::SmallVector<AttentionSelection, 1> selections;
};

/// A view read over `targetShape` ([batch..., rows, columns]) of input
/// `input`, of `shape` that broadcasts (numpy) to it.
AttentionView makeAttentionView(unsigned input, DType dtype, llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<int64_t> targetShape);

/// A matrix operand: a view, or the product of two (a query or key
/// multiplied by a scale on its way in).
struct AttentionOperand {
  AttentionView view;
  std::optional<AttentionView> factor;
};

/// One adjustment of the scores between the product and the softmax, in
/// order.
struct AttentionScoreStep {
  enum class Kind {
    Add,
    Subtract,
    Multiply,
    Divide,
    /// Keeps the score where the (bool) operand is true, -inf elsewhere.
    KeepWhere,
  };
  Kind kind = Kind::Add;
  /// The other operand, a view over [batch..., queries, keys]; none when it
  /// is the score itself (mul(s, s)).
  std::optional<AttentionView> operand;
  /// score ∘ operand rather than operand ∘ score (sub and div).
  bool scoreIsLhs = true;
};

/// One attention: for every batch matrix,
///   out = softmax(steps(scale · Q·Kᵀ) with the causal mask) · V
/// with Q [queries, embedding], Kᵀ [embedding, keys] and V [keys,
/// valueEmbedding]. The output is dense [batch..., queries, valueEmbedding].
struct AttentionPlan {
  /// Element type of Q, K, V and the output.
  DType dtype = DType::F32;
  /// Types of LaunchArgs.inputs, in order (the kernel's parameters).
  std::vector<DType> inputTypes;
  /// The output's batch dimensions.
  Shape batch;
  int64_t queries = 0, keys = 0, embedding = 0, valueEmbedding = 0;
  /// Rows: queries, columns: embedding.
  AttentionOperand query;
  /// Kᵀ: rows: embedding, columns: keys.
  AttentionOperand key;
  /// Rows: keys, columns: value embedding.
  AttentionView value;
  /// Multiplies the products first (the per-layer op's `scale`).
  std::optional<double> scale;
  std::vector<AttentionScoreStep> steps;
  /// Masks keys after each query (top-left aligned), after the steps.
  bool causal = false;
  /// where(isnan(p), r, p) on the probabilities p, with r the one element
  /// of this input (torch's exporter guards softmax this way). A
  /// probability is NaN when every key of its query is masked out (-inf),
  /// so such a query gets r·Σ v instead of NaN.
  std::optional<unsigned> nanReplacementInput;
  /// Where the output's element (batch..., query, column) goes, as strides
  /// over [batch..., queries, valueEmbedding] (the view's `input` and
  /// `dtype` are unused): a definition that transposes attention's result
  /// (back to [batch, sequence, heads, embedding]) writes it there
  /// directly. None: dense.
  std::optional<AttentionView> output;
};

/// `plan.output`, or the dense view of [batch..., queries, valueEmbedding].
AttentionView getAttentionOutputView(const AttentionPlan &plan);

/// What of `plan` the kernel does not implement ("head dimension 256
/// (more than 128)"), or nothing.
std::optional<std::string> getUnimplementedAttentionFeature(const AttentionPlan &plan);

/// The generated CUDA C++ of `plan`'s kernel, `cgc_attention`.
std::string generateAttentionSource(const AttentionPlan &plan);

//===----------------------------------------------------------------------===//
// Three ways to run a plan
//===----------------------------------------------------------------------===//

/// How an AttentionPlan runs.
enum class AttentionPath {
  /// The generated flash-attention kernel, float32 arithmetic (this file).
  Flash,
  /// Two strided-batched cuBLASLt products around a generated softmax
  /// kernel (AttentionGemm.h).
  Gemm,
  /// The generated flash-attention kernel on tensor cores, float16 and
  /// bfloat16 (AttentionTensorCore.h).
  TensorCore,
};

/// "flash kernel", "cuBLASLt GEMMs + softmax" or "tensor-core flash
/// kernel".
const char *getAttentionPathName(AttentionPath path);

/// What a build of a plan may be told.
struct AttentionBuildOptions {
  /// The path to build. None: the one CGC_CUDA_ATTENTION
  /// (flash|tensorcore|gemm) forces, else every path that runs the plan on
  /// the device, each timed once and the fastest kept.
  std::optional<AttentionPath> path;
  /// GEMM path: keep the scores in float32 for float16 and bfloat16 too
  /// (by default a fused definition's are stored in the element type, as
  /// its own matmul stores them; the tests check both). The per-layer op
  /// always keeps them in float32, as its CPU kernel does.
  bool float32Scores = false;
  /// Tensor-core path: warps per block (1, 2 or 4) instead of the tiling
  /// chosen for the device's size (getTensorCoreAttentionTiling); the
  /// tests run every tiling.
  std::optional<int64_t> tensorCoreWarps;
};

/// A built plan and how it runs.
struct AttentionPlanKernel {
  Kernel kernel;
  AttentionPath path = AttentionPath::Flash;
  /// When the build chose another path: why the GEMM path does not run the
  /// plan, or that it was slower; empty when a path was asked for.
  std::string gemmRefusal;
  /// The same of the tensor-core flash kernel.
  std::string tensorCoreRefusal;
};

/// Builds `plan` (which must be implemented) as `options` ask. A forced
/// GEMM or tensor-core path that does not run the plan is an error;
/// without a device (compile-only context) the choice is the flash kernel
/// (the others cannot be timed). A choice timed on a device is kept for
/// the process: the same plan built again on that device runs the same
/// path untimed. Errors and launch failures start with
/// `name` ("cgc_op.scaled_dot_product_attention", "@attention_0: fused
/// attention"); `op` is the layer that library errors name (the op itself,
/// or the fused definition's Q·Kᵀ matmul).
llvm::Expected<AttentionPlanKernel>
buildAttentionPlanKernel(const AttentionPlan &plan, KernelContext::Impl &context,
                         llvm::StringRef name, mlir::Operation *op,
                         const AttentionBuildOptions &options = {});

/// How many plans this process has timed the paths of (tests check that a
/// plan built again reuses its choice).
uint64_t getTimedAttentionPlanCount();

/// The kernel of a cgc_op.scaled_dot_product_attention layer built as
/// `options` ask (buildAttentionKernel, KernelSupport.h, is this with
/// default options); tests force each path.
llvm::Expected<AttentionPlanKernel>
buildAttentionLayerKernel(mlir::Operation *op, KernelContext::Impl &context,
                          const AttentionBuildOptions &options = {});

/// The fused attention family's kernel of `definition` (FusedAttention.cpp)
/// built as `options` ask; std::nullopt when the definition is not
/// attention's shape. The family's `build` is this with default options;
/// tests force each path.
std::optional<llvm::Expected<AttentionPlanKernel>>
buildFusedAttention(FunctionalDefinitionOp definition, KernelContext::Impl &context,
                    const AttentionBuildOptions &options = {});

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_ATTENTIONKERNEL_H
