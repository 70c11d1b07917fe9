//===- AttentionGemm.cpp - attention as two cuBLASLt products and a softmax ===//
//
// Mapping a plan onto the products. Every matrix the plan reads is a view
// (AttentionView): a row and a column stride inside the matrix, and one
// stride per batch dimension. Inside the matrix, cuBLASLt reads a view
// whose column stride is 1 (row-major, leading dimension = row stride) or
// whose row stride is 1 (column-major: op T); Kᵀ given as the matmul gets
// it ([..., E, S]) is row-major, the per-layer op's K ([..., S, E]) read as
// Kᵀ is column-major. Across the batch, the dimensions every operand of a
// product walks as one are merged (ElementwiseCodegen's mergeStridedLoops;
// broadcast operands have stride 0); the innermost merged dimension is
// cuBLASLt's strided batch and the others a loop of calls (at most
// kMaxProductCalls). For BERT's and ViT's [B, H, L, E] that is one call
// over B·H matrices; read through the transposes that split the heads out
// of [B, L, H·E], BERT's take B calls over H matrices (B and H do not
// merge), ViT's still one. A strided output (AttentionPlan::output) is a
// third operand of the same batch walk.
//
// Q or Kᵀ multiplied by a factor on its way in (torch's exporter scales
// each by √scale): a one-element factor folds into the first product's
// alpha, which a one-thread kernel computes in device memory at every
// launch (the factor is an input, not a constant known at build time), so
// the scores are scaled before they are stored, as the layers scale their
// operands before their matmul. A factor of more elements is applied by a
// pre-pass writing q·a (or kᵀ·b) into the workspace in the element type,
// exactly as the mul layer would.
//
// Q, Kᵀ or V read through a gather (nn.MultiheadAttention's slices of one
// projection) start where an index that only the device holds says
// (AttentionSelection), but cuBLASLt takes its matrices' addresses from
// the host: a generated pre-pass first copies such an operand (times its
// factor) densely into the workspace, reading it through its view, the
// transposes and reshapes around the gather included.
//
// The workspace, each region 256-byte aligned:
//
//   [alpha, beta]  2 floats           only with one-element factors
//   q·a, kᵀ·b      element type       only for factors of more elements
//   q, kᵀ, v       element type       only for operands read through gathers
//   S              batch × queries × stride, score type
//   P              batch × queries × stride, element type; S itself when
//                  the score type is the element type (in place)
//   cuBLASLt's workspace (the larger of the two products')
//
// with stride = keys rounded up to 8 elements, so that every row starts 16
// bytes aligned (tensor-core kernels, and the softmax's 16-byte accesses).
//
// S is stored in the element type by default: the definition's own matmul
// rounds its float32-accumulated result to the element type once, and so
// does cuBLASLt here (the CPU reference too), so storing S no narrower than
// the layers do loses nothing they keep, while halving S's traffic for
// float16 and bfloat16. AttentionBuildOptions::float32Scores keeps it
// float32 (the tests run both).
//
// The softmax kernel normalizes one row (one query of one batch matrix) per
// warp, the row's scores in registers, read and written in chunks of up to
// 16 bytes; rows longer than kMaxWarpRowKeys take a block each and shared
// memory. It applies the plan's steps and causal mask in float32 (the scale
// and one-element factors are already in S), subtracts the row maximum,
// and writes P = e / Σe in the element type. As on the CPU, a row whose
// every score is -inf becomes NaN (0/0), and the NaN guard then replaces
// each NaN probability by r, exactly as where(p != p, r, p) does (the flash
// kernel gets the same result for fully masked rows).
//
//===----------------------------------------------------------------------===//

#include "AttentionGemm.h"
#include "AttentionCodegen.h"
#include "CublasLtProduct.h"
#include "DeviceCode.h"
#include "ElementwiseCodegen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <climits>

namespace cgc::cuda {

namespace {

/// Rows of S and P start at multiples of this many elements (16 bytes of
/// float16).
constexpr int64_t kScoreRowAlignment = 8;
/// The most cuBLASLt calls one product may take (batch dimensions that do
/// not merge into one strided batch).
constexpr int64_t kMaxProductCalls = 64;
/// Rows of up to this many keys are normalized by one warp holding them in
/// registers (32 floats per lane)...
constexpr int64_t kMaxWarpRowKeys = 1024;
/// ... longer ones by a block holding them in shared memory (32 KiB).
constexpr int64_t kMaxBlockRowKeys = 8192;
constexpr unsigned kSoftmaxThreads = 256;

/// Q, Kᵀ or V as a product reads it.
struct ProductInput {
  /// The view read in place (the operand, or the side of operand · factor
  /// that is not one element).
  AttentionView view;
  /// A factor of more than one element: view · factor is first written
  /// densely into the workspace at `workspaceOffset`, and read from there.
  std::optional<AttentionView> prepassFactor;
  /// The view (or the factor) goes through a gather: the generated
  /// `cgc_attention_gathered_<role>` kernel writes view (· factor) densely
  /// into the workspace at `workspaceOffset` instead.
  bool gathered = false;
  uint64_t workspaceOffset = 0;

  bool isPrepassed() const { return prepassFactor || gathered; }
};

/// The GEMM path's reading of a plan.
struct GemmPlan {
  DType scoreType = DType::F32;
  /// Elements between rows of S and of P.
  int64_t scoreStride = 0;
  int64_t rows = 0;
  ProductInput query, key;
  /// One-element views multiplied (with the plan's scale) into the first
  /// product's alpha at launch.
  llvm::SmallVector<AttentionView, 2> alphaFactors;
  /// The first product's alpha when no factor is read at launch.
  double hostAlpha = 1.0;
  /// The second product's right operand.
  ProductInput value;
  StridedProductPlan scores, output;
  /// Workspace byte offsets; the cuBLASLt workspace starts at libraryOffset.
  uint64_t scalarsOffset = 0, scoresOffset = 0, probabilitiesOffset = 0, libraryOffset = 0;
};

/// The row-major dense batch strides of matrices of `matrixElements` over
/// `batch`.
Shape denseBatchStrides(llvm::ArrayRef<int64_t> batch, int64_t matrixElements) {
  Shape strides = getStrides(batch);
  for (int64_t &stride : strides)
    stride *= matrixElements;
  return strides;
}

/// Sets `product`'s strided batch and calls for operands walking `batch`
/// with `strides` (lhs, rhs, output); a refusal when that takes too many
/// calls.
std::optional<std::string> planBatches(llvm::ArrayRef<int64_t> batch,
                                       const std::array<Shape, 3> &strides,
                                       StridedProductPlan &product) {
  llvm::SmallVector<StridedOperand, 3> operands(3);
  for (size_t operand = 0; operand < 3; ++operand)
    operands[operand].strides = strides[operand];
  MergedLoops loops = mergeStridedLoops(batch, operands);
  StridedMatrix *matrices[3] = {&product.lhs, &product.rhs, &product.output};
  if (loops.sizes.empty()) {
    product.batch = 1;
    for (StridedMatrix *matrix : matrices)
      matrix->batchStride = 0;
    return std::nullopt;
  }
  product.batch = loops.sizes.back();
  if (product.batch > INT32_MAX)
    return "a strided batch of " + std::to_string(product.batch) + " matrices";
  for (size_t operand = 0; operand < 3; ++operand)
    matrices[operand]->batchStride = loops.strides[operand].back();
  llvm::ArrayRef<int64_t> outer = llvm::ArrayRef(loops.sizes).drop_back();
  int64_t calls = getNumElements(outer);
  if (calls > kMaxProductCalls)
    return "batch dimensions that take " + std::to_string(calls) +
           " cuBLASLt calls per product (more than " + std::to_string(kMaxProductCalls) + ")";
  std::vector<int64_t> *offsets[3] = {&product.lhsOffsets, &product.rhsOffsets,
                                      &product.outputOffsets};
  for (std::vector<int64_t> *list : offsets)
    list->clear();
  for (int64_t call = 0; call < calls; ++call) {
    int64_t rest = call, at[3] = {0, 0, 0};
    for (int64_t dim = static_cast<int64_t>(outer.size()) - 1; dim >= 0; --dim) {
      int64_t coordinate = rest % outer[dim];
      rest /= outer[dim];
      for (size_t operand = 0; operand < 3; ++operand)
        at[operand] += coordinate * loops.strides[operand][dim];
    }
    for (size_t operand = 0; operand < 3; ++operand)
      offsets[operand]->push_back(at[operand]);
  }
  return std::nullopt;
}

/// Reads `plan` for the GEMM path into `gemm`; the refusal, or
/// std::nullopt.
std::optional<std::string> planGemm(const AttentionPlan &plan, bool float32Scores, GemmPlan &gemm) {
  if (!isFloat32ComputedDType(plan.dtype))
    return std::string("element type ") + getDTypeName(plan.dtype);
  int64_t batches = getNumElements(plan.batch);
  if (batches == 0 || plan.queries == 0 || plan.valueEmbedding == 0)
    return std::string("an empty output");
  if (plan.keys == 0)
    return std::string("an attention over no keys");
  if (plan.embedding == 0)
    return std::string("an empty query/key head dimension");
  if (plan.keys > kMaxBlockRowKeys)
    return std::to_string(plan.keys) + " keys (the softmax holds a row of at most " +
           std::to_string(kMaxBlockRowKeys) + " in shared memory)";
  DType dtype = plan.dtype;
  unsigned width = getByteWidth(dtype);
  gemm.scoreType = float32Scores ? DType::F32 : dtype;
  gemm.scoreStride = (plan.keys + kScoreRowAlignment - 1) / kScoreRowAlignment * kScoreRowAlignment;
  gemm.rows = batches * plan.queries;
  uint64_t workspaceEnd = 0;
  auto reserve = [&](uint64_t bytes) {
    uint64_t offset = workspaceEnd;
    workspaceEnd += alignWorkspace(bytes);
    return offset;
  };

  // Q and Kᵀ: one-element factors go to alpha, others to a pre-pass.
  auto readInput = [&](const AttentionOperand &operand, int64_t rows, int64_t columns,
                       ProductInput &input) {
    input.view = operand.view;
    if (!operand.factor)
      return;
    if (isOneElement(*operand.factor)) {
      gemm.alphaFactors.push_back(*operand.factor);
    } else if (isOneElement(operand.view)) {
      // mul(a, q): multiplication commutes exactly.
      gemm.alphaFactors.push_back(operand.view);
      input.view = *operand.factor;
    } else {
      input.prepassFactor = *operand.factor;
      input.workspaceOffset = reserve(static_cast<uint64_t>(batches * rows * columns) * width);
    }
  };
  // Operands read through gathers are copied first (their factors with
  // them).
  auto gather = [&](ProductInput &input, int64_t rows, int64_t columns) {
    input.gathered = !input.view.selections.empty() ||
                     (input.prepassFactor && !input.prepassFactor->selections.empty());
    if (input.gathered && !input.prepassFactor)
      input.workspaceOffset = reserve(static_cast<uint64_t>(batches * rows * columns) * width);
  };
  readInput(plan.query, plan.queries, plan.embedding, gemm.query);
  gather(gemm.query, plan.queries, plan.embedding);
  readInput(plan.key, plan.embedding, plan.keys, gemm.key);
  gather(gemm.key, plan.embedding, plan.keys);
  gemm.value.view = plan.value;
  gather(gemm.value, plan.keys, plan.valueEmbedding);
  gemm.hostAlpha = plan.scale.value_or(1.0);
  gemm.scores.deviceScalars = !gemm.alphaFactors.empty();
  if (gemm.scores.deviceScalars)
    gemm.scalarsOffset = reserve(2 * sizeof(float));

  // A view as a matrix operand, with its batch strides; dense when
  // pre-passed.
  std::optional<std::string> refusal;
  auto matrixOf = [&](const ProductInput &input, int64_t rows, int64_t columns, const char *role,
                      StridedMatrix &matrix, Shape &batchStrides) {
    if (input.isPrepassed()) {
      matrix = *makeStridedMatrix(dtype, rows, columns, columns, 1);
      batchStrides = denseBatchStrides(plan.batch, rows * columns);
      return;
    }
    std::optional<StridedMatrix> strided = makeStridedMatrix(
        input.view.dtype, rows, columns, input.view.rowStride, input.view.columnStride);
    if (!strided) {
      if (!refusal)
        refusal = std::string("the ") + role + "'s layout (row stride " +
                  std::to_string(input.view.rowStride) + ", column stride " +
                  std::to_string(input.view.columnStride) + ") is not a matrix cuBLASLt reads";
      return;
    }
    matrix = *strided;
    batchStrides = input.view.batchStrides;
  };

  // S = alpha · Q·Kᵀ into the workspace.
  std::array<Shape, 3> strides;
  matrixOf(gemm.query, plan.queries, plan.embedding, "query", gemm.scores.lhs, strides[0]);
  matrixOf(gemm.key, plan.embedding, plan.keys, "transposed key", gemm.scores.rhs, strides[1]);
  gemm.scores.output =
      *makeStridedMatrix(gemm.scoreType, plan.queries, plan.keys, gemm.scoreStride, 1);
  strides[2] = denseBatchStrides(plan.batch, plan.queries * gemm.scoreStride);
  if (refusal)
    return refusal;
  if (std::optional<std::string> calls = planBatches(plan.batch, strides, gemm.scores))
    return calls;

  // O = P·V into the output, [batch..., queries, value embedding] through
  // the plan's output view (dense without one). cuBLASLt writes row-major
  // matrices only: a strided output needs contiguous columns, its row
  // stride the leading dimension.
  gemm.output.lhs = *makeStridedMatrix(dtype, plan.queries, plan.keys, gemm.scoreStride, 1);
  strides[0] = strides[2];
  matrixOf(gemm.value, plan.keys, plan.valueEmbedding, "value", gemm.output.rhs, strides[1]);
  if (refusal)
    return refusal;
  if (plan.output) {
    std::optional<StridedMatrix> written =
        makeStridedMatrix(dtype, plan.queries, plan.valueEmbedding, plan.output->rowStride,
                          plan.output->columnStride);
    if (!written || !written->rowMajor)
      return "the output's layout (row stride " + std::to_string(plan.output->rowStride) +
             ", column stride " + std::to_string(plan.output->columnStride) +
             ") is not a row-major matrix cuBLASLt writes";
    gemm.output.output = *written;
    strides[2] = plan.output->batchStrides;
  } else {
    gemm.output.output =
        *makeStridedMatrix(dtype, plan.queries, plan.valueEmbedding, plan.valueEmbedding, 1);
    strides[2] = denseBatchStrides(plan.batch, plan.queries * plan.valueEmbedding);
  }
  if (std::optional<std::string> calls = planBatches(plan.batch, strides, gemm.output))
    return calls;

  uint64_t scoreElements = static_cast<uint64_t>(gemm.rows * gemm.scoreStride);
  gemm.scoresOffset = reserve(scoreElements * getByteWidth(gemm.scoreType));
  gemm.probabilitiesOffset =
      gemm.scoreType == dtype ? gemm.scoresOffset : reserve(scoreElements * width);
  gemm.libraryOffset = workspaceEnd;
  return std::nullopt;
}

/// The generated source: `cgc_attention_softmax` (S to P, in place when
/// both have one type) and, with one-element factors,
/// `cgc_attention_alpha` (alpha and beta of the first product).
std::string generateSoftmaxSource(const AttentionPlan &plan, const GemmPlan &gemm) {
  AttentionViewTable table(plan);
  llvm::SmallVector<std::optional<size_t>, 4> stepViews;
  for (const AttentionScoreStep &step : plan.steps)
    stepViews.push_back(step.operand ? std::optional<size_t>(table.add(*step.operand))
                                     : std::nullopt);
  size_t rank = table.getBatchRank(), viewCount = table.size();
  std::string scoreStorage = getStorageType(gemm.scoreType);
  std::string probabilityStorage = getStorageType(plan.dtype);
  bool warpRows = plan.keys <= kMaxWarpRowKeys;
  // Chunks of up to 16 bytes, narrower where that keeps more lanes busy
  // (BERT's 128 float16 keys: 4 per lane rather than 8 on half the lanes).
  int64_t vector = 16 / getByteWidth(gemm.scoreType);
  while (vector > 1 && plan.keys <= 16 * vector)
    vector /= 2;
  int64_t chunks = (plan.keys + 32 * vector - 1) / (32 * vector);
  // The scale and the one-element factors are in S already.
  std::string steps = generateScoreStatements(plan, table, stepViews, /*applyScale=*/false);
  std::string parameters;
  for (auto [index, dtype] : llvm::enumerate(plan.inputTypes))
    parameters += "const " + getStorageType(dtype) + " *in" + std::to_string(index) + ", ";

  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(/*narrow=*/false);
  if (!gemm.alphaFactors.empty()) {
    os << "extern \"C\" __global__ void cgc_attention_alpha(" << parameters << "float *scalars) {\n"
       << "  float alpha = " << floatLiteral(gemm.hostAlpha, "float") << ";\n";
    for (const AttentionView &factor : gemm.alphaFactors)
      os << "  alpha = alpha * (float)("
         << loadValue(factor.dtype, "in" + std::to_string(factor.input) + "[0]") << ");\n";
    os << "  scalars[0] = alpha;\n"
       << "  scalars[1] = 0.0f;\n"
       << "}\n\n";
  }
  os << "struct cgc_attention_softmax_params {\n"
     << "  long long rows, queries, keys, stride;\n"
     << "  long long batchSizes[" << rank << "];\n";
  if (viewCount > 0)
    os << "  long long views[" << viewCount << "][" << rank + 2 << "];\n";
  os << "};\n";
  if (warpRows)
    os << "struct alignas(" << vector * getByteWidth(gemm.scoreType) << ") cgc_score_chunk {\n  "
       << scoreStorage << " e[" << vector << "];\n};\n"
       << "struct alignas(" << vector * getByteWidth(plan.dtype) << ") cgc_probability_chunk {\n  "
       << probabilityStorage << " e[" << vector << "];\n};\n";
  else
    os << "struct cgc_fmax_op {\n"
       << "  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }\n"
       << "};\n";
  os << "\nextern \"C\" __global__ void __launch_bounds__(" << kSoftmaxThreads
     << ") cgc_attention_softmax(" << parameters << "const " << scoreStorage << " *scores, "
     << probabilityStorage << " *probabilities, cgc_attention_softmax_params p) {\n"
     << "  const float negativeInfinity = __int_as_float((int)0xff800000u);\n";
  if (plan.nanReplacementInput) {
    unsigned input = *plan.nanReplacementInput;
    os << "  const float replacement = "
       << loadValue(plan.inputTypes[input], "in" + std::to_string(input) + "[0]") << ";\n";
  }
  if (warpRows)
    os << "  const int lane = threadIdx.x & 31;\n"
       << "  const long long rowStep = ((long long)gridDim.x * blockDim.x) >> 5;\n"
       << "  for (long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;\n"
       << "       row < p.rows; row += rowStep) {\n";
  else
    os << "  __shared__ float rowValues[" << plan.keys << "];\n"
       << "  for (long long row = blockIdx.x; row < p.rows; row += gridDim.x) {\n";
  // The steps' views and the causal mask read the batch matrix and query.
  if (viewCount > 0 || plan.causal)
    os << "    const long long batch = row / p.queries, query = row - batch * p.queries;\n";
  if (viewCount > 0)
    os << table.generateBatchBases();
  os << "    const " << scoreStorage << " *scoreRow = scores + row * p.stride;\n"
     << "    " << probabilityStorage << " *probabilityRow = probabilities + row * p.stride;\n";
  auto guard = [&](const char *indent) {
    return plan.nanReplacementInput
               ? std::string(indent) +
                     "if (probability != probability) probability = replacement;\n"
               : std::string();
  };
  if (warpRows) {
    // Lane l holds chunks l, l + 32, ... of the row; every chunk that starts
    // before the row's end lies inside its stride (a multiple of 8).
    os << "    float value[" << chunks * vector << "];\n"
       << "    float rowMax = negativeInfinity;\n"
       << "#pragma unroll\n"
       << "    for (int i = 0; i < " << chunks << "; ++i) {\n"
       << "      const long long first = ((long long)i * 32 + lane) * " << vector << ";\n"
       << "      if (first < p.keys) {\n"
       << "        const cgc_score_chunk chunk =\n"
       << "            *reinterpret_cast<const cgc_score_chunk *>(scoreRow + first);\n"
       << "#pragma unroll\n"
       << "        for (int j = 0; j < " << vector << "; ++j) {\n"
       << "          const long long key = first + j;\n"
       << "          float s = " << loadValue(gemm.scoreType, "chunk.e[j]") << ";\n"
       << "          if (key < p.keys) {\n"
       << steps
       << "            // Like the CPU's std::max, a NaN score does not become the maximum.\n"
       << "            rowMax = fmaxf(rowMax, s);\n"
       << "          }\n"
       << "          value[i * " << vector << " + j] = s;\n"
       << "        }\n"
       << "      }\n"
       << "    }\n"
       << "    for (int offset = 16; offset > 0; offset >>= 1)\n"
       << "      rowMax = fmaxf(rowMax, __shfl_xor_sync(0xffffffffu, rowMax, offset));\n"
       << "    float rowSum = 0.0f;\n"
       << "#pragma unroll\n"
       << "    for (int i = 0; i < " << chunks << "; ++i) {\n"
       << "      const long long first = ((long long)i * 32 + lane) * " << vector << ";\n"
       << "#pragma unroll\n"
       << "      for (int j = 0; j < " << vector << "; ++j)\n"
       << "        if (first + j < p.keys) {\n"
       << "          value[i * " << vector << " + j] = expf(value[i * " << vector
       << " + j] - rowMax);\n"
       << "          rowSum += value[i * " << vector << " + j];\n"
       << "        }\n"
       << "    }\n"
       << "    for (int offset = 16; offset > 0; offset >>= 1)\n"
       << "      rowSum += __shfl_xor_sync(0xffffffffu, rowSum, offset);\n"
       << "#pragma unroll\n"
       << "    for (int i = 0; i < " << chunks << "; ++i) {\n"
       << "      const long long first = ((long long)i * 32 + lane) * " << vector << ";\n"
       << "      if (first < p.keys) {\n"
       << "        // Columns past the row's end are padding nobody reads.\n"
       << "        cgc_probability_chunk chunk;\n"
       << "#pragma unroll\n"
       << "        for (int j = 0; j < " << vector << "; ++j) {\n"
       << "          float probability = value[i * " << vector << " + j] / rowSum;\n"
       << guard("          ") << "          chunk.e[j] = " << storeValue(plan.dtype, "probability")
       << ";\n"
       << "        }\n"
       << "        *reinterpret_cast<cgc_probability_chunk *>(probabilityRow + first) = chunk;\n"
       << "      }\n"
       << "    }\n";
  } else {
    // Every thread reads its keys of the row before the first reduction's
    // barrier, so writing P over S afterwards is safe.
    os << "    float localMax = negativeInfinity;\n"
       << "    for (long long key = threadIdx.x; key < p.keys; key += blockDim.x) {\n"
       << "      float s = " << loadValue(gemm.scoreType, "scoreRow[key]") << ";\n"
       << "      {\n"
       << steps << "      }\n"
       << "      rowValues[key] = s;\n"
       << "      localMax = fmaxf(localMax, s);\n"
       << "    }\n"
       << "    const float rowMax = cgc_block_reduce(localMax, cgc_fmax_op(), negativeInfinity);\n"
       << "    float localSum = 0.0f;\n"
       << "    for (long long key = threadIdx.x; key < p.keys; key += blockDim.x) {\n"
       << "      const float e = expf(rowValues[key] - rowMax);\n"
       << "      rowValues[key] = e;\n"
       << "      localSum += e;\n"
       << "    }\n"
       << "    const float rowSum = cgc_block_reduce(localSum, cgc_sum_op(), 0.0f);\n"
       << "    for (long long key = threadIdx.x; key < p.keys; key += blockDim.x) {\n"
       << "      float probability = rowValues[key] / rowSum;\n"
       << guard("      ") << "      probabilityRow[key] = " << storeValue(plan.dtype, "probability")
       << ";\n"
       << "    }\n";
  }
  os << "  }\n"
     << "}\n";
  return source;
}

/// "<name>: <message>", unless the message names it already (the per-layer
/// op's library errors start with the op's name, which is `name`).
std::string inAttention(llvm::StringRef name, const std::string &message) {
  if (llvm::StringRef(message).starts_with((name + ": ").str()))
    return message;
  return (name + ": " + message).str();
}

llvm::Error makeAttentionError(llvm::StringRef name, llvm::Error error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 inAttention(name, llvm::toString(std::move(error))));
}

/// The launch threads of a gathered copy.
constexpr unsigned kGatherThreads = 256;

/// The kernel `cgc_attention_gathered_<role>` (appended to the softmax's
/// source) and its parameters: it writes `input` (a view through gathers,
/// times its factor) of [batch..., rows, columns] densely, in the element
/// type (the product rounded to it, as the mul layer stores it). One
/// element per thread; the view's start and batch offset are computed per
/// element, as the copy's cost is its bytes.
struct GatheredCopy {
  std::string name;
  std::string source;
  std::vector<int64_t> params;
  int64_t count = 0;
};

GatheredCopy makeGatheredCopy(const AttentionPlan &plan, const ProductInput &input,
                              llvm::StringRef role, int64_t rows, int64_t columns) {
  GatheredCopy copy;
  copy.name = ("cgc_attention_gathered_" + role).str();
  copy.count = getNumElements(plan.batch) * rows * columns;
  AttentionViewTable table(plan);
  size_t view = table.add(input.view);
  std::optional<size_t> factor;
  if (input.prepassFactor)
    factor = table.add(*input.prepassFactor);
  size_t rank = table.getBatchRank();
  copy.params = {copy.count, rows, columns};
  appendBatchSizeParams(plan, copy.params);
  table.appendViewParams(copy.params);

  std::string product = "(float)(" + table.read(view, "row", "column") + ")";
  if (factor)
    product += " * (float)(" + table.read(*factor, "row", "column") + ")";
  std::string params = copy.name + "_params";
  llvm::raw_string_ostream os(copy.source);
  os << "\nstruct " << params << " {\n"
     << "  long long count, rows, columns;\n"
     << "  long long batchSizes[" << rank << "];\n"
     << "  long long views[" << table.size() << "][" << rank + 2 << "];\n"
     << "};\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kGatherThreads << ") " << copy.name
     << "(";
  for (auto [index, dtype] : llvm::enumerate(plan.inputTypes))
    os << "const " << getStorageType(dtype) << " *in" << index << ", ";
  os << getStorageType(plan.dtype) << " *out, " << params << " p) {\n"
     << "  const long long step = (long long)gridDim.x * blockDim.x;\n"
     << "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.count;\n"
     << "       i += step) {\n"
     << "    const long long matrixRow = i / p.columns, column = i - matrixRow * p.columns;\n"
     << "    const long long batch = matrixRow / p.rows, row = matrixRow - batch * p.rows;\n"
     << table.generateBatchBases() << "    out[i] = " << storeValue(plan.dtype, product) << ";\n"
     << "  }\n"
     << "}\n";
  return copy;
}

/// The gathered copies of `gemm`'s operands, in launch order (Q, Kᵀ, V),
/// each with the operand it writes.
llvm::SmallVector<std::pair<GatheredCopy, const ProductInput *>, 3>
makeGatheredCopies(const AttentionPlan &plan, const GemmPlan &gemm) {
  llvm::SmallVector<std::pair<GatheredCopy, const ProductInput *>, 3> copies;
  if (gemm.query.gathered)
    copies.push_back(
        {makeGatheredCopy(plan, gemm.query, "query", plan.queries, plan.embedding), &gemm.query});
  if (gemm.key.gathered)
    copies.push_back(
        {makeGatheredCopy(plan, gemm.key, "key", plan.embedding, plan.keys), &gemm.key});
  if (gemm.value.gathered)
    copies.push_back({makeGatheredCopy(plan, gemm.value, "value", plan.keys, plan.valueEmbedding),
                      &gemm.value});
  return copies;
}

/// A pre-pass writing view · factor densely (as the mul layer computes it).
llvm::Expected<Kernel> buildPrepass(const AttentionPlan &plan, const ProductInput &input,
                                    int64_t rows, int64_t columns, KernelContext::Impl &context,
                                    mlir::Operation *op) {
  StridedKernelSpec spec;
  spec.outputType = plan.dtype;
  spec.outputShape.assign(plan.batch.begin(), plan.batch.end());
  spec.outputShape.append({rows, columns});
  for (const AttentionView &view : {input.view, *input.prepassFactor}) {
    StridedOperand operand;
    operand.dtype = view.dtype;
    operand.strides.assign(view.batchStrides.begin(), view.batchStrides.end());
    operand.strides.append({view.rowStride, view.columnStride});
    spec.operands.push_back(std::move(operand));
  }
  spec.expression = "x0 * x1";
  return buildStridedKernel(op, context, spec);
}

} // namespace

std::optional<std::string> getGemmAttentionRefusal(const AttentionPlan &plan, bool float32Scores) {
  GemmPlan gemm;
  return planGemm(plan, float32Scores, gemm);
}

llvm::Expected<Kernel> buildGemmAttentionKernel(const AttentionPlan &plan,
                                                KernelContext::Impl &context, llvm::StringRef name,
                                                mlir::Operation *op, bool float32Scores) {
  std::string kernelName = name.str();
  GemmPlan gemm;
  if (std::optional<std::string> refusal = planGemm(plan, float32Scores, gemm))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   name +
                                       ": the GEMM path does not run this attention: " + *refusal);

  // The generated kernels first: a compile-only context checks them.
  std::string source = generateSoftmaxSource(plan, gemm);
  auto gatheredCopies = makeGatheredCopies(plan, gemm);
  for (const auto &[copy, input] : gatheredCopies)
    source += copy.source;
  llvm::Expected<DeviceFunction> softmax =
      context.getCompiler().getFunction(source, "cgc_attention_softmax");
  if (!softmax)
    return makeAttentionError(name, softmax.takeError());
  /// A gathered copy as the launch runs it.
  struct GatheredLaunch {
    DeviceFunction function;
    std::vector<int64_t> params;
    unsigned blocks = 0;
    uint64_t workspaceOffset = 0;
  };
  /// Per operand (Q, Kᵀ, V), when it is gathered.
  std::array<std::optional<GatheredLaunch>, 3> gathered;
  for (const auto &[copy, input] : gatheredCopies) {
    llvm::Expected<DeviceFunction> function = context.getCompiler().getFunction(source, copy.name);
    if (!function)
      return makeAttentionError(name, function.takeError());
    size_t at = input == &gemm.query ? 0 : input == &gemm.key ? 1 : 2;
    gathered[at] = GatheredLaunch{std::move(*function), copy.params,
                                  context.getGridSize(copy.count, kGatherThreads),
                                  input->workspaceOffset};
  }
  std::optional<DeviceFunction> alpha;
  if (!gemm.alphaFactors.empty()) {
    llvm::Expected<DeviceFunction> function =
        context.getCompiler().getFunction(source, "cgc_attention_alpha");
    if (!function)
      return makeAttentionError(name, function.takeError());
    alpha = std::move(*function);
  }
  std::optional<Kernel> queryPrepass, keyPrepass;
  if (gemm.query.prepassFactor && !gemm.query.gathered) {
    auto kernel = buildPrepass(plan, gemm.query, plan.queries, plan.embedding, context, op);
    if (!kernel)
      return makeAttentionError(name, kernel.takeError());
    queryPrepass = std::move(*kernel);
  }
  if (gemm.key.prepassFactor && !gemm.key.gathered) {
    auto kernel = buildPrepass(plan, gemm.key, plan.embedding, plan.keys, context, op);
    if (!kernel)
      return makeAttentionError(name, kernel.takeError());
    keyPrepass = std::move(*kernel);
  }

  auto handle = context.getCublasLt(op);
  if (!handle)
    return makeAttentionError(name, handle.takeError());
  auto scoresProduct = createLtStridedProduct(op, gemm.scores, *handle);
  if (!scoresProduct)
    return makeAttentionError(name, scoresProduct.takeError());
  auto outputProduct = createLtStridedProduct(op, gemm.output, *handle);
  if (!outputProduct)
    return makeAttentionError(name, outputProduct.takeError());
  uint64_t libraryWorkspace =
      std::max((*scoresProduct)->workspaceSize, (*outputProduct)->workspaceSize);
  uint64_t workspaceSize = alignWorkspace(gemm.libraryOffset + libraryWorkspace);

  std::vector<int64_t> params = {gemm.rows, plan.queries, plan.keys, gemm.scoreStride};
  appendBatchSizeParams(plan, params);
  {
    AttentionViewTable table(plan);
    for (const AttentionScoreStep &step : plan.steps)
      if (step.operand)
        table.add(*step.operand);
    table.appendViewParams(params);
  }
  bool warpRows = plan.keys <= kMaxWarpRowKeys;
  unsigned softmaxBlocks =
      context.getGridSize(gemm.rows * (warpRows ? 32 : kSoftmaxThreads), kSoftmaxThreads);
  size_t inputCount = plan.inputTypes.size();
  unsigned valueInput = plan.value.input;
  auto launch = [gemm, kernelName, inputCount, valueInput, softmax = std::move(*softmax),
                 softmaxBlocks, params = std::move(params), alpha = std::move(alpha),
                 queryPrepass = std::move(queryPrepass), keyPrepass = std::move(keyPrepass),
                 gathered = std::move(gathered), scoresProduct = std::move(*scoresProduct),
                 outputProduct = std::move(*outputProduct),
                 libraryWorkspace](const LaunchArgs &args) -> std::string {
    std::string wrong = checkAttentionLaunchArgs(args, inputCount, kernelName);
    if (!wrong.empty())
      return wrong;
    char *workspace = static_cast<char *>(args.workspace);
    llvm::SmallVector<const void *, 8> inputs(args.inputs.begin(),
                                              args.inputs.begin() + inputCount);
    llvm::SmallVector<void *, 12> arguments;
    for (const void *&pointer : inputs)
      arguments.push_back(&pointer);
    auto launchFailure = [&](cudaError_t error) {
      return describeLaunchFailure(kernelName, "cudaLaunchKernel", error);
    };

    void *scalars = workspace + gemm.scalarsOffset;
    if (alpha) {
      arguments.push_back(&scalars);
      cudaError_t error = alpha->launch(dim3(1), dim3(1), arguments.data(), 0, args.stream);
      arguments.pop_back();
      if (error != cudaSuccess)
        return launchFailure(error);
    }
    // An operand read through gathers: copied into the workspace first.
    auto copyGathered = [&](const GatheredLaunch &copy, const void *&pointer) -> std::string {
      void *written = workspace + copy.workspaceOffset;
      arguments.push_back(&written);
      arguments.push_back(const_cast<int64_t *>(copy.params.data()));
      cudaError_t error = copy.function.launch(dim3(copy.blocks), dim3(kGatherThreads),
                                               arguments.data(), 0, args.stream);
      arguments.pop_back();
      arguments.pop_back();
      pointer = written;
      return error == cudaSuccess ? std::string() : launchFailure(error);
    };
    // Q·Kᵀ's operands: in place, or pre-passed into the workspace.
    auto productInput = [&](const ProductInput &input, const std::optional<Kernel> &prepass,
                            const std::optional<GatheredLaunch> &copy,
                            const void *&pointer) -> std::string {
      pointer = inputs[input.view.input];
      if (copy)
        return copyGathered(*copy, pointer);
      if (!prepass)
        return "";
      void *written = workspace + input.workspaceOffset;
      const void *operands[] = {inputs[input.view.input], inputs[input.prepassFactor->input]};
      void *outputs[] = {written};
      pointer = written;
      return prepass->launch(LaunchArgs{operands, outputs, nullptr, args.stream});
    };
    StridedProductOperands scoresOperands;
    if (std::string message =
            productInput(gemm.query, queryPrepass, gathered[0], scoresOperands.lhs);
        !message.empty())
      return message;
    if (std::string message = productInput(gemm.key, keyPrepass, gathered[1], scoresOperands.rhs);
        !message.empty())
      return message;
    const void *value = inputs[valueInput];
    if (gathered[2])
      if (std::string message = copyGathered(*gathered[2], value); !message.empty())
        return message;
    void *scores = workspace + gemm.scoresOffset;
    void *probabilities = workspace + gemm.probabilitiesOffset;
    void *library = libraryWorkspace ? workspace + gemm.libraryOffset : nullptr;
    scoresOperands.output = scores;
    scoresOperands.deviceScalars = scalars;
    scoresOperands.alpha = gemm.hostAlpha;
    std::string message = enqueueLtStridedProduct(*scoresProduct, gemm.scores, scoresOperands,
                                                  library, args.stream, kernelName);
    if (!message.empty())
      return message;

    arguments.push_back(&scores);
    arguments.push_back(&probabilities);
    arguments.push_back(const_cast<int64_t *>(params.data()));
    cudaError_t error = softmax.launch(dim3(softmaxBlocks), dim3(kSoftmaxThreads), arguments.data(),
                                       0, args.stream);
    if (error != cudaSuccess)
      return launchFailure(error);

    StridedProductOperands outputOperands;
    outputOperands.lhs = probabilities;
    outputOperands.rhs = value;
    outputOperands.output = args.outputs[0];
    return enqueueLtStridedProduct(*outputProduct, gemm.output, outputOperands, library,
                                   args.stream, kernelName);
  };
  return Kernel{std::move(launch), workspaceSize};
}

} // namespace cgc::cuda
