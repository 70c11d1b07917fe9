//===- CublasLtProduct.cpp - row-major matrix products on cuBLASLt --------===//
//
// float32 computes with CUBLAS_COMPUTE_32F (never TF32), float16 and
// bfloat16 with float32 accumulation and a float32 scale type, float64 in
// double. Descriptors and algorithms are chosen at build time; a second
// algorithm assuming only element alignment is kept for operands that turn
// out less aligned than the first one assumes.
//
// The first algorithm is what nearly every launch runs, so it is chosen as
// TensorRT chooses tactics: up to kMaxTunedCandidates of the heuristic's
// results are timed on the device and the fastest kept (CublasLtTuning.cpp),
// once per process for each distinct configuration; the cost is a slower
// cold compile. The fallback, rarely run, is the heuristic's first.
//
//===----------------------------------------------------------------------===//

#include "CublasLtProduct.h"

#include "CublasLtTuning.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <tuple>

namespace cgc::cuda {

namespace {
/// The alignment (bytes) the primary algorithm may assume of operands.
constexpr uint32_t kPreferredAlignment = 16;
} // namespace

static llvm::Error cublasError(mlir::Operation *op, llvm::StringRef call, cublasStatus_t status) {
  return makeKernelError(op, call + " failed: " + cublasLtGetStatusString(status));
}

static cudaDataType getCudaDataType(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::F64:
    return CUDA_R_64F;
  default:
    return CUDA_R_32F;
  }
}

/// The largest power of two (at most `limit`) dividing every value.
static uint32_t getCommonAlignment(llvm::ArrayRef<int64_t> byteOffsets, uint32_t limit) {
  uint32_t alignment = limit;
  for (int64_t offset : byteOffsets)
    while (alignment > 1 && offset % alignment != 0)
      alignment /= 2;
  return alignment;
}

static cublasLtEpilogue_t getLtEpilogue(const ProductEpilogue &epilogue) {
  using Activation = ProductEpilogue::Activation;
  switch (epilogue.activation) {
  case Activation::Relu:
    return epilogue.bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  case Activation::GeluTanh:
    return epilogue.bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  case Activation::None:
    break;
  }
  return epilogue.bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

ProductPlan planMatmul(DType dtype, llvm::ArrayRef<int64_t> lhsShape,
                       llvm::ArrayRef<int64_t> rhsShape) {
  Shape lhs(lhsShape), rhs(rhsShape);
  if (lhs.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (rhs.size() == 1)
    rhs.push_back(1);
  ProductPlan plan;
  plan.dtype = dtype;
  plan.m = lhs[lhs.size() - 2];
  plan.k = lhs.back();
  plan.n = rhs.back();
  Shape lhsBatch(llvm::ArrayRef(lhs).drop_back(2)), rhsBatch(llvm::ArrayRef(rhs).drop_back(2));
  size_t rank = std::max(lhsBatch.size(), rhsBatch.size());
  Shape batch(rank, 1);
  for (size_t fromBack = 1; fromBack <= rank; ++fromBack) {
    int64_t l = fromBack <= lhsBatch.size() ? lhsBatch[lhsBatch.size() - fromBack] : 1;
    int64_t r = fromBack <= rhsBatch.size() ? rhsBatch[rhsBatch.size() - fromBack] : 1;
    batch[rank - fromBack] = l == 1 ? r : l;
  }
  // Element strides of each matrix along the batch dimensions.
  Shape lhsStrides = getBroadcastStrides(lhsBatch, batch);
  Shape rhsStrides = getBroadcastStrides(rhsBatch, batch);
  Shape outputStrides = getStrides(batch);
  for (size_t dim = 0; dim < rank; ++dim) {
    lhsStrides[dim] *= plan.m * plan.k;
    rhsStrides[dim] *= plan.k * plan.n;
    outputStrides[dim] *= plan.m * plan.n;
  }
  // Merge batch dimensions every operand walks as one; drop size-1 ones.
  Shape sizes;
  llvm::SmallVector<Shape, 3> merged(3);
  for (size_t dim = 0; dim < rank; ++dim) {
    if (batch[dim] == 1)
      continue;
    int64_t strides[3] = {lhsStrides[dim], rhsStrides[dim], outputStrides[dim]};
    bool merge = !sizes.empty();
    for (int operand = 0; merge && operand < 3; ++operand)
      merge = merged[operand].back() == strides[operand] * batch[dim];
    if (merge) {
      sizes.back() *= batch[dim];
      for (int operand = 0; operand < 3; ++operand)
        merged[operand].back() = strides[operand];
      continue;
    }
    sizes.push_back(batch[dim]);
    for (int operand = 0; operand < 3; ++operand)
      merged[operand].push_back(strides[operand]);
  }
  if (sizes.empty())
    return plan;
  // The innermost batch dimension is cuBLASLt's strided batch.
  plan.batch = sizes.back();
  plan.lhsBatchStride = merged[0].back();
  plan.rhsBatchStride = merged[1].back();
  plan.outputBatchStride = merged[2].back();
  // One shared rhs and consecutive lhs matrices: a single (B·M)×K product.
  if (sizes.size() == 1 && plan.rhsBatchStride == 0 && plan.lhsBatchStride == plan.m * plan.k) {
    plan.m *= plan.batch;
    plan.batch = 1;
    plan.lhsBatchStride = plan.rhsBatchStride = plan.outputBatchStride = 0;
    return plan;
  }
  // The outer ones are a loop of calls.
  plan.lhsOffsets.clear();
  plan.rhsOffsets.clear();
  plan.outputOffsets.clear();
  int64_t calls = getNumElements(llvm::ArrayRef(sizes).drop_back());
  for (int64_t call = 0; call < calls; ++call) {
    int64_t rest = call, offsets[3] = {0, 0, 0};
    for (int64_t dim = static_cast<int64_t>(sizes.size()) - 2; dim >= 0; --dim) {
      int64_t coordinate = rest % sizes[dim];
      rest /= sizes[dim];
      for (int operand = 0; operand < 3; ++operand)
        offsets[operand] += coordinate * merged[operand][dim];
    }
    plan.lhsOffsets.push_back(offsets[0]);
    plan.rhsOffsets.push_back(offsets[1]);
    plan.outputOffsets.push_back(offsets[2]);
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// Descriptors and algorithms
//===----------------------------------------------------------------------===//

LtProduct::~LtProduct() {
  for (cublasLtMatrixLayout_t layout : {a, b, c})
    if (layout)
      cublasLtMatrixLayoutDestroy(layout);
  if (operation)
    cublasLtMatmulDescDestroy(operation);
}

/// Creates `product`'s operation descriptor: float32 accumulation (float64
/// for double products), never TF32.
static llvm::Error createOperation(mlir::Operation *op, LtProduct &product, bool isDouble) {
  cublasStatus_t status = cublasLtMatmulDescCreate(
      &product.operation, isDouble ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F,
      isDouble ? CUDA_R_64F : CUDA_R_32F);
  if (status != CUBLAS_STATUS_SUCCESS)
    return cublasError(op, "cublasLtMatmulDescCreate", status);
  return llvm::Error::success();
}

static llvm::Error setOperationAttribute(mlir::Operation *op, LtProduct &product,
                                         cublasLtMatmulDescAttributes_t attribute,
                                         const void *value, size_t size) {
  cublasStatus_t set = cublasLtMatmulDescSetAttribute(product.operation, attribute, value, size);
  if (set != CUBLAS_STATUS_SUCCESS)
    return cublasError(op, "cublasLtMatmulDescSetAttribute", set);
  return llvm::Error::success();
}

/// cuBLASLt's heuristic results (up to `count`, best first) for `product`
/// (descriptors made) when its A, B, C and D have at least `alignments`
/// bytes of alignment, within kMaxProductWorkspace; an error when the first
/// fails.
static llvm::Expected<llvm::SmallVector<cublasLtMatmulHeuristicResult_t, kMaxTunedCandidates>>
queryCandidates(mlir::Operation *op, LtProduct &product, const uint32_t (&alignments)[4],
                int count) {
  cublasLtMatmulPreference_t preference = nullptr;
  cublasStatus_t created = cublasLtMatmulPreferenceCreate(&preference);
  if (created != CUBLAS_STATUS_SUCCESS)
    return cublasError(op, "cublasLtMatmulPreferenceCreate", created);
  uint64_t workspace = kMaxProductWorkspace;
  cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                       &workspace, sizeof(workspace));
  const cublasLtMatmulPreferenceAttributes_t attributes[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int index = 0; index < 4; ++index)
    cublasLtMatmulPreferenceSetAttribute(preference, attributes[index], &alignments[index],
                                         sizeof(uint32_t));
  llvm::SmallVector<cublasLtMatmulHeuristicResult_t, kMaxTunedCandidates> results(
      std::clamp(count, 1, kMaxRequestedCandidates));
  int found = 0;
  cublasStatus_t queried = cublasLtMatmulAlgoGetHeuristic(
      product.handle->handle, product.operation, product.a, product.b, product.c, product.c,
      preference, static_cast<int>(results.size()), results.data(), &found);
  cublasLtMatmulPreferenceDestroy(preference);
  if (queried != CUBLAS_STATUS_SUCCESS)
    return cublasError(op, "cublasLtMatmulAlgoGetHeuristic", queried);
  if (found <= 0 || results.front().state != CUBLAS_STATUS_SUCCESS)
    return makeKernelError(op, "cuBLASLt has no algorithm for this product (" +
                                   llvm::Twine(alignments[0]) + "-byte operands)");
  results.resize(std::min<size_t>(static_cast<size_t>(found), results.size()));
  return results;
}

/// Sets `algorithm` to `result`'s and grows the product's workspace to what
/// it needs.
static void useAlgorithm(LtProduct &product, const cublasLtMatmulAlgo_t &result,
                         uint64_t workspaceSize, cublasLtMatmulAlgo_t &algorithm) {
  algorithm = result;
  product.workspaceSize = std::max(product.workspaceSize, workspaceSize);
}

/// cuBLASLt's first heuristic algorithm for `product` with operands of
/// `alignments` bytes (queryCandidates).
static llvm::Error pickAlgorithm(mlir::Operation *op, LtProduct &product,
                                 const uint32_t (&alignments)[4],
                                 cublasLtMatmulAlgo_t &algorithm) {
  auto candidates = queryCandidates(op, product, alignments, 1);
  if (!candidates)
    return candidates.takeError();
  useAlgorithm(product, candidates->front().algo, candidates->front().workspaceSize, algorithm);
  return llvm::Error::success();
}

/// `product`'s alignedAlgorithm for operands of `alignments` bytes: with
/// `tuning`, the fastest of the heuristic's candidates on the current
/// device (cached by `setup.key`); otherwise, or when none can be timed,
/// the first. The caller sets the bias pointer attribute again afterwards
/// (tuneAlgorithm points it at a stand-in).
static llvm::Error pickAlignedAlgorithm(mlir::Operation *op, LtProduct &product,
                                        const uint32_t (&alignments)[4], ProductTuning tuning,
                                        const ProductTimingSetup &setup) {
  // Matrix-vector products and operands without 16-byte alignment keep the
  // heuristic's first: on an H100 a timed candidate for a 7x13 · 13 product
  // (one-column matrices, 2-byte alignment) computed wrong results, and
  // such products are too small for timing to matter.
  if (!isProductTuningEnabled(tuning) || setup.degenerate)
    return pickAlgorithm(op, product, alignments, product.alignedAlgorithm);
  std::optional<TunedAlgorithm> choice = findTunedAlgorithm(setup);
  if (choice) {
    // Chosen for another product's descriptors: cuBLASLt checks that they
    // are equivalent (the key should have ensured it).
    cublasLtMatmulHeuristicResult_t checked{};
    if (cublasLtMatmulAlgoCheck(product.handle->handle, product.operation, product.a, product.b,
                                product.c, product.c, &choice->algorithm,
                                &checked) != CUBLAS_STATUS_SUCCESS ||
        checked.state != CUBLAS_STATUS_SUCCESS || checked.workspaceSize > kMaxProductWorkspace)
      return pickAlgorithm(op, product, alignments, product.alignedAlgorithm);
    choice->workspaceSize = std::max<uint64_t>(choice->workspaceSize, checked.workspaceSize);
  } else {
    auto candidates = queryCandidates(op, product, alignments, getCandidateQueryCount());
    if (!candidates)
      return candidates.takeError();
    choice = tuneAlgorithm(product, *candidates, setup);
    if (!choice)
      choice = TunedAlgorithm{candidates->front().algo, candidates->front().workspaceSize, 0};
  }
  useAlgorithm(product, choice->algorithm, choice->workspaceSize, product.alignedAlgorithm);
  product.timedCandidates = choice->timedCandidates;
  return llvm::Error::success();
}

/// The cache key of a product with `epilogue` (ProductTimingSetup::key).
static std::string getEpilogueKey(const ProductEpilogue &epilogue) {
  return "e" + std::to_string(static_cast<int>(epilogue.activation)) + (epilogue.bias ? "b" : "") +
         (epilogue.readsC ? "c" : "");
}

/// The timing setup of `plan`'s aligned algorithm, its operands aligned to
/// `alignment` bytes.
static ProductTimingSetup getTimingSetup(const ProductPlan &plan, const ProductEpilogue &epilogue,
                                         uint32_t alignment) {
  ProductTimingSetup setup;
  setup.degenerate = plan.m <= 1 || plan.n <= 1 || alignment < kPreferredAlignment;
  llvm::raw_string_ostream key(setup.key);
  key << "plan:" << getDTypeName(plan.dtype) << ":" << plan.m << "x" << plan.n << "x" << plan.k
      << ":t" << plan.transA << plan.transB << ":b" << plan.batch << "," << plan.lhsBatchStride
      << "," << plan.rhsBatchStride << "," << plan.outputBatchStride << ":"
      << getEpilogueKey(epilogue) << ":a" << alignment;
  llvm::raw_string_ostream description(setup.description);
  description << plan.m << "x" << plan.n << "x" << plan.k << " " << getDTypeName(plan.dtype)
              << " product" << (plan.transA ? ", lhs transposed" : "")
              << (plan.transB ? ", rhs transposed" : "");
  if (plan.batch > 1)
    description << ", batch of " << plan.batch;
  if (epilogue.readsC)
    description << ", C added";
  if (epilogue.bias)
    description << ", bias";
  if (epilogue.activation == ProductEpilogue::Activation::Relu)
    description << ", relu";
  else if (epilogue.activation == ProductEpilogue::Activation::GeluTanh)
    description << ", gelu";
  // The span of one call's matrices: the last one's offset plus its size.
  uint64_t width = getByteWidth(plan.dtype);
  auto span = [&](int64_t batchStride, int64_t matrixElements) {
    return static_cast<uint64_t>((plan.batch - 1) * batchStride + matrixElements) * width;
  };
  setup.aBytes = span(plan.rhsBatchStride, plan.k * plan.n); // cuBLASLt's A is our rhs
  setup.bBytes = span(plan.lhsBatchStride, plan.m * plan.k);
  setup.dBytes = span(plan.outputBatchStride, plan.m * plan.n);
  setup.biasBytes = epilogue.bias ? static_cast<uint64_t>(plan.n) * width : 0;
  setup.readsC = epilogue.readsC;
  setup.doubleScalars = plan.dtype == DType::F64;
  setup.multiplyAdds = static_cast<uint64_t>(plan.m) * static_cast<uint64_t>(plan.n) *
                       static_cast<uint64_t>(plan.k) * static_cast<uint64_t>(plan.batch);
  return setup;
}

llvm::Expected<std::shared_ptr<LtProduct>>
createLtProduct(mlir::Operation *op, const ProductPlan &plan,
                std::shared_ptr<CublasLtHandle> handle, const ProductEpilogue &epilogue,
                ProductTuning tuning) {
  auto product = std::make_shared<LtProduct>();
  product->handle = std::move(handle);
  product->epilogue = epilogue;
  cudaDataType dataType = getCudaDataType(plan.dtype);
  if (llvm::Error error = createOperation(op, *product, plan.dtype == DType::F64))
    return std::move(error);
  auto setAttribute = [&](cublasLtMatmulDescAttributes_t attribute, const void *value,
                          size_t size) {
    return setOperationAttribute(op, *product, attribute, value, size);
  };
  // cuBLASLt's A is our B (N×K after op), its B our A (K×M after op).
  int32_t transposeFirst = plan.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t transposeSecond = plan.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (llvm::Error error = setAttribute(CUBLASLT_MATMUL_DESC_TRANSA, &transposeFirst,
                                       sizeof(transposeFirst)))
    return std::move(error);
  if (llvm::Error error = setAttribute(CUBLASLT_MATMUL_DESC_TRANSB, &transposeSecond,
                                       sizeof(transposeSecond)))
    return std::move(error);
  if (epilogue.bias || epilogue.activation != ProductEpilogue::Activation::None) {
    uint32_t mode = getLtEpilogue(epilogue);
    if (llvm::Error error = setAttribute(CUBLASLT_MATMUL_DESC_EPILOGUE, &mode, sizeof(mode)))
      return std::move(error);
  }
  if (epilogue.bias) {
    // The bias has D's type (cuBLASLt's default, stated).
    int32_t biasType = dataType;
    if (llvm::Error error =
            setAttribute(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType, sizeof(biasType)))
      return std::move(error);
  }
  auto makeLayout = [&](cublasLtMatrixLayout_t &layout, uint64_t rows, uint64_t columns,
                        int64_t leading, int64_t batchStride) -> llvm::Error {
    cublasStatus_t created = cublasLtMatrixLayoutCreate(&layout, dataType, rows, columns, leading);
    if (created != CUBLAS_STATUS_SUCCESS)
      return cublasError(op, "cublasLtMatrixLayoutCreate", created);
    if (plan.batch > 1) {
      int32_t count = static_cast<int32_t>(plan.batch);
      cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                       sizeof(count));
      cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                       &batchStride, sizeof(batchStride));
    }
    return llvm::Error::success();
  };
  if (plan.transB) {
    if (llvm::Error error = makeLayout(product->a, plan.k, plan.n, plan.k, plan.rhsBatchStride))
      return std::move(error);
  } else if (llvm::Error error =
                 makeLayout(product->a, plan.n, plan.k, plan.n, plan.rhsBatchStride)) {
    return std::move(error);
  }
  if (plan.transA) {
    if (llvm::Error error = makeLayout(product->b, plan.m, plan.k, plan.m, plan.lhsBatchStride))
      return std::move(error);
  } else if (llvm::Error error =
                 makeLayout(product->b, plan.k, plan.m, plan.k, plan.lhsBatchStride)) {
    return std::move(error);
  }
  if (llvm::Error error = makeLayout(product->c, plan.n, plan.m, plan.n, plan.outputBatchStride))
    return std::move(error);

  // Byte offsets the launch adds to the operands' base pointers.
  unsigned width = getByteWidth(plan.dtype);
  std::vector<int64_t> offsets;
  for (size_t call = 0; call < plan.lhsOffsets.size(); ++call)
    for (int64_t offset : {plan.lhsOffsets[call], plan.rhsOffsets[call], plan.outputOffsets[call]})
      offsets.push_back(offset * width);
  for (int64_t stride : {plan.lhsBatchStride, plan.rhsBatchStride, plan.outputBatchStride})
    offsets.push_back(stride * width);
  product->alignment = getCommonAlignment(offsets, kPreferredAlignment);

  // The heuristics read the bias pointer's alignment (never the data): a
  // stand-in address with exactly the operands' alignment; the launch sets
  // the real one.
  auto setBiasStandIn = [&](uint32_t alignment) -> llvm::Error {
    if (!epilogue.bias)
      return llvm::Error::success();
    const void *standIn = reinterpret_cast<const void *>(static_cast<uintptr_t>(alignment));
    return setAttribute(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &standIn, sizeof(standIn));
  };
  uint32_t aligned = product->alignment;
  if (llvm::Error error = setBiasStandIn(aligned))
    return std::move(error);
  if (llvm::Error error =
          pickAlignedAlgorithm(op, *product, {aligned, aligned, aligned, aligned}, tuning,
                               getTimingSetup(plan, epilogue, aligned)))
    return std::move(error);
  if (llvm::Error error = setBiasStandIn(width))
    return std::move(error);
  if (llvm::Error error =
          pickAlgorithm(op, *product, {width, width, width, width}, product->fallbackAlgorithm))
    return std::move(error);
  if (epilogue.bias) {
    const void *none = nullptr;
    if (llvm::Error error = setAttribute(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &none, sizeof(none)))
      return std::move(error);
  }
  return product;
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

std::string enqueueLtProduct(LtProduct &product, const ProductPlan &plan, double alpha,
                             double beta, const ProductOperands &operands, void *workspace,
                             cudaStream_t stream, llvm::StringRef opName) {
  unsigned width = getByteWidth(plan.dtype);
  bool isDouble = plan.dtype == DType::F64;
  float alphaFloat = static_cast<float>(alpha), betaFloat = static_cast<float>(beta);
  const void *alphaPointer = isDouble ? static_cast<const void *>(&alpha) : &alphaFloat;
  const void *betaPointer = isDouble ? static_cast<const void *>(&beta) : &betaFloat;
  const char *lhs = static_cast<const char *>(operands.lhs);
  const char *rhs = static_cast<const char *>(operands.rhs);
  char *output = static_cast<char *>(operands.output);
  std::unique_lock<std::mutex> biasLock;
  uintptr_t biasBits = 0;
  if (product.epilogue.bias) {
    biasLock = std::unique_lock<std::mutex>(product.biasMutex);
    cublasStatus_t set = cublasLtMatmulDescSetAttribute(
        product.operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &operands.bias, sizeof(void *));
    if (set != CUBLAS_STATUS_SUCCESS)
      return (opName + ": cublasLtMatmulDescSetAttribute failed: " +
              cublasLtGetStatusString(set))
          .str();
    biasBits = reinterpret_cast<uintptr_t>(operands.bias);
  }
  for (size_t call = 0; call < plan.lhsOffsets.size(); ++call) {
    const char *a = lhs + plan.lhsOffsets[call] * width;
    const char *b = rhs + plan.rhsOffsets[call] * width;
    char *d = output + plan.outputOffsets[call] * width;
    // C has D's layout, so each call reads it at D's offset.
    const void *c =
        operands.c ? static_cast<const char *>(operands.c) + plan.outputOffsets[call] * width : d;
    uintptr_t bits = reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
                     reinterpret_cast<uintptr_t>(c) | reinterpret_cast<uintptr_t>(d) | biasBits;
    const cublasLtMatmulAlgo_t *algorithm =
        bits % product.alignment == 0 ? &product.alignedAlgorithm : &product.fallbackAlgorithm;
    cublasStatus_t status =
        cublasLtMatmul(product.handle->handle, product.operation, alphaPointer, b, product.a, a,
                       product.b, betaPointer, c, product.c, d, product.c, algorithm, workspace,
                       product.workspaceSize, stream);
    if (status != CUBLAS_STATUS_SUCCESS)
      return (opName + ": cublasLtMatmul failed: " + cublasLtGetStatusString(status)).str();
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Products of strided matrices
//===----------------------------------------------------------------------===//

std::optional<StridedMatrix> makeStridedMatrix(DType dtype, int64_t rows, int64_t columns,
                                               int64_t rowStride, int64_t columnStride) {
  StridedMatrix matrix;
  matrix.dtype = dtype;
  matrix.rows = rows;
  matrix.columns = columns;
  // Row-major: columns contiguous, consecutive rows at least a row apart.
  if ((columns == 1 || columnStride == 1) && (rows == 1 || rowStride >= columns)) {
    matrix.rowMajor = true;
    matrix.leadingDimension = rows == 1 ? std::max<int64_t>(columns, 1) : rowStride;
    return matrix;
  }
  if ((rows == 1 || rowStride == 1) && (columns == 1 || columnStride >= rows)) {
    matrix.rowMajor = false;
    matrix.leadingDimension = columns == 1 ? std::max<int64_t>(rows, 1) : columnStride;
    return matrix;
  }
  return std::nullopt;
}

/// `matrix` in a cache key: type, size, order, leading dimension, batch
/// stride.
static void appendMatrixKey(llvm::raw_ostream &key, const StridedMatrix &matrix) {
  key << ":" << getDTypeName(matrix.dtype) << "," << matrix.rows << "x" << matrix.columns
      << (matrix.rowMajor ? ",r" : ",c") << matrix.leadingDimension << ","
      << matrix.batchStride;
}

/// Elements `matrix` spans over a batch of `batch`: cuBLASLt stores it
/// column-major, its last stored column a leading dimension after the one
/// before.
static uint64_t getSpan(const StridedMatrix &matrix, int64_t batch) {
  int64_t storedRows = matrix.rowMajor ? matrix.columns : matrix.rows;
  int64_t storedColumns = matrix.rowMajor ? matrix.rows : matrix.columns;
  if (storedRows <= 0 || storedColumns <= 0 || batch <= 0)
    return 0;
  int64_t elements = (storedColumns - 1) * matrix.leadingDimension + storedRows;
  return static_cast<uint64_t>((batch - 1) * matrix.batchStride + elements);
}

/// The timing setup of `plan`'s aligned algorithm, its operands aligned to
/// `alignment` bytes.
static ProductTimingSetup getTimingSetup(const StridedProductPlan &plan, uint32_t alignment) {
  ProductTimingSetup setup;
  setup.degenerate = plan.lhs.rows <= 1 || plan.output.columns <= 1 ||
                     alignment < kPreferredAlignment;
  llvm::raw_string_ostream key(setup.key);
  key << "strided";
  for (const StridedMatrix *matrix : {&plan.lhs, &plan.rhs, &plan.output})
    appendMatrixKey(key, *matrix);
  key << ":b" << plan.batch << (plan.deviceScalars ? ":device" : ":host") << ":a" << alignment;
  llvm::raw_string_ostream description(setup.description);
  description << plan.lhs.rows << "x" << plan.output.columns << "x" << plan.lhs.columns << " "
              << getDTypeName(plan.lhs.dtype) << " x " << getDTypeName(plan.rhs.dtype) << " -> "
              << getDTypeName(plan.output.dtype) << " strided product";
  if (plan.batch > 1)
    description << ", batch of " << plan.batch;
  // cuBLASLt's A is the rhs, its B the lhs.
  setup.aBytes = getSpan(plan.rhs, plan.batch) * getByteWidth(plan.rhs.dtype);
  setup.bBytes = getSpan(plan.lhs, plan.batch) * getByteWidth(plan.lhs.dtype);
  setup.dBytes = getSpan(plan.output, plan.batch) * getByteWidth(plan.output.dtype);
  setup.deviceScalars = plan.deviceScalars;
  setup.doubleScalars = plan.output.dtype == DType::F64;
  setup.multiplyAdds = static_cast<uint64_t>(plan.lhs.rows) *
                       static_cast<uint64_t>(plan.output.columns) *
                       static_cast<uint64_t>(plan.lhs.columns) * static_cast<uint64_t>(plan.batch);
  return setup;
}

llvm::Expected<std::shared_ptr<LtProduct>>
createLtStridedProduct(mlir::Operation *op, const StridedProductPlan &plan,
                       std::shared_ptr<CublasLtHandle> handle, ProductTuning tuning) {
  const StridedMatrix &lhs = plan.lhs, &rhs = plan.rhs, &output = plan.output;
  if (!output.rowMajor)
    return makeKernelError(op, "a column-major product output is not implemented");
  auto product = std::make_shared<LtProduct>();
  product->handle = std::move(handle);
  if (llvm::Error error = createOperation(op, *product, output.dtype == DType::F64))
    return std::move(error);
  auto setAttribute = [&](cublasLtMatmulDescAttributes_t attribute, const void *value,
                          size_t size) {
    return setOperationAttribute(op, *product, attribute, value, size);
  };
  // Row-major D = lhs·rhs runs as column-major Dᵀ = rhsᵀ·lhsᵀ: cuBLASLt's A
  // is our rhs, its B our lhs. A row-major matrix is its column-major
  // transpose in place (op N); a column-major one needs op T.
  int32_t transposeFirst = rhs.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  int32_t transposeSecond = lhs.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  if (llvm::Error error = setAttribute(CUBLASLT_MATMUL_DESC_TRANSA, &transposeFirst,
                                       sizeof(transposeFirst)))
    return std::move(error);
  if (llvm::Error error = setAttribute(CUBLASLT_MATMUL_DESC_TRANSB, &transposeSecond,
                                       sizeof(transposeSecond)))
    return std::move(error);
  if (plan.deviceScalars) {
    int32_t mode = CUBLASLT_POINTER_MODE_DEVICE;
    if (llvm::Error error = setAttribute(CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof(mode)))
      return std::move(error);
  }
  // `matrix` as cuBLASLt stores it: column-major, `rows` × `columns`.
  auto makeLayout = [&](cublasLtMatrixLayout_t &layout, const StridedMatrix &matrix,
                        uint64_t rows, uint64_t columns) -> llvm::Error {
    cublasStatus_t created = cublasLtMatrixLayoutCreate(
        &layout, getCudaDataType(matrix.dtype), rows, columns, matrix.leadingDimension);
    if (created != CUBLAS_STATUS_SUCCESS)
      return cublasError(op, "cublasLtMatrixLayoutCreate", created);
    if (plan.batch > 1) {
      int32_t count = static_cast<int32_t>(plan.batch);
      int64_t stride = matrix.batchStride;
      for (auto [attribute, value, size] :
           {std::tuple<cublasLtMatrixLayoutAttribute_t, const void *, size_t>{
                CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)},
            {CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)}}) {
        cublasStatus_t set = cublasLtMatrixLayoutSetAttribute(layout, attribute, value, size);
        if (set != CUBLAS_STATUS_SUCCESS)
          return cublasError(op, "cublasLtMatrixLayoutSetAttribute", set);
      }
    }
    return llvm::Error::success();
  };
  auto storedRows = [](const StridedMatrix &matrix) {
    return static_cast<uint64_t>(matrix.rowMajor ? matrix.columns : matrix.rows);
  };
  auto storedColumns = [](const StridedMatrix &matrix) {
    return static_cast<uint64_t>(matrix.rowMajor ? matrix.rows : matrix.columns);
  };
  if (llvm::Error error = makeLayout(product->a, rhs, storedRows(rhs), storedColumns(rhs)))
    return std::move(error);
  if (llvm::Error error = makeLayout(product->b, lhs, storedRows(lhs), storedColumns(lhs)))
    return std::move(error);
  if (llvm::Error error =
          makeLayout(product->c, output, storedRows(output), storedColumns(output)))
    return std::move(error);

  // Byte offsets the launch adds to the operands' base pointers.
  unsigned lhsWidth = getByteWidth(lhs.dtype), rhsWidth = getByteWidth(rhs.dtype),
           outputWidth = getByteWidth(output.dtype);
  std::vector<int64_t> offsets;
  for (size_t call = 0; call < plan.lhsOffsets.size(); ++call) {
    offsets.push_back(plan.lhsOffsets[call] * lhsWidth);
    offsets.push_back(plan.rhsOffsets[call] * rhsWidth);
    offsets.push_back(plan.outputOffsets[call] * outputWidth);
  }
  offsets.push_back(lhs.batchStride * lhsWidth);
  offsets.push_back(rhs.batchStride * rhsWidth);
  offsets.push_back(output.batchStride * outputWidth);
  product->alignment = getCommonAlignment(offsets, kPreferredAlignment);

  uint32_t aligned = product->alignment;
  // cuBLASLt's A is the rhs, its B the lhs.
  if (llvm::Error error = pickAlignedAlgorithm(op, *product, {aligned, aligned, aligned, aligned},
                                               tuning, getTimingSetup(plan, aligned)))
    return std::move(error);
  if (llvm::Error error = pickAlgorithm(op, *product, {rhsWidth, lhsWidth, outputWidth, outputWidth},
                                        product->fallbackAlgorithm))
    return std::move(error);
  return product;
}

std::string enqueueLtStridedProduct(LtProduct &product, const StridedProductPlan &plan,
                                    const StridedProductOperands &operands, void *workspace,
                                    cudaStream_t stream, llvm::StringRef opName) {
  bool isDouble = plan.output.dtype == DType::F64;
  double alpha = operands.alpha, beta = 0.0;
  float alphaFloat = static_cast<float>(alpha), betaFloat = 0.0f;
  const void *alphaPointer = isDouble ? static_cast<const void *>(&alpha) : &alphaFloat;
  const void *betaPointer = isDouble ? static_cast<const void *>(&beta) : &betaFloat;
  if (plan.deviceScalars) {
    alphaPointer = operands.deviceScalars;
    betaPointer = static_cast<const char *>(operands.deviceScalars) + (isDouble ? 8 : 4);
  }
  unsigned lhsWidth = getByteWidth(plan.lhs.dtype), rhsWidth = getByteWidth(plan.rhs.dtype),
           outputWidth = getByteWidth(plan.output.dtype);
  const char *lhs = static_cast<const char *>(operands.lhs);
  const char *rhs = static_cast<const char *>(operands.rhs);
  char *output = static_cast<char *>(operands.output);
  for (size_t call = 0; call < plan.lhsOffsets.size(); ++call) {
    const char *callLhs = lhs + plan.lhsOffsets[call] * lhsWidth;
    const char *callRhs = rhs + plan.rhsOffsets[call] * rhsWidth;
    char *callOutput = output + plan.outputOffsets[call] * outputWidth;
    uintptr_t bits = reinterpret_cast<uintptr_t>(callLhs) | reinterpret_cast<uintptr_t>(callRhs) |
                     reinterpret_cast<uintptr_t>(callOutput);
    const cublasLtMatmulAlgo_t *algorithm =
        bits % product.alignment == 0 ? &product.alignedAlgorithm : &product.fallbackAlgorithm;
    // cuBLASLt's A is the rhs, its B the lhs (createLtStridedProduct).
    cublasStatus_t status =
        cublasLtMatmul(product.handle->handle, product.operation, alphaPointer, callRhs, product.a,
                       callLhs, product.b, betaPointer, callOutput, product.c, callOutput,
                       product.c, algorithm, workspace, product.workspaceSize, stream);
    if (status != CUBLAS_STATUS_SUCCESS)
      return (opName + ": cublasLtMatmul failed: " + cublasLtGetStatusString(status)).str();
  }
  return "";
}

} // namespace cgc::cuda
