//===- Matmul.cpp - matmul (numpy semantics) and gemm through cuBLASLt ----===//
//
// Row-major products run as cuBLASLt's column-major ones with the operands
// swapped: row-major D = A·B is column-major Dᵀ = Bᵀ·Aᵀ, and a row-major
// matrix is its column-major transpose in place. float32 computes with
// CUBLAS_COMPUTE_32F (never TF32), float16 and bfloat16 with float32
// accumulation, float64 in double.
//
// Batch dimensions broadcast as numpy does: after merging the dimensions
// all operands walk alike, the innermost one is cuBLASLt's strided batch
// (stride 0 for a broadcast operand) and any outer ones are a loop of
// calls at launch. A batched lhs against one shared rhs folds into one tall
// product. gemm's optional C is passed as cuBLASLt's C when it is a full
// M×N matrix; otherwise it is first broadcast into the output, which then
// serves as C.
//
// Descriptors and algorithms are chosen at build time; a second algorithm
// assuming only element alignment is kept for operands that turn out less
// aligned than the first one assumes.
//
// Signed integer matmuls (which cuBLASLt does not cover with the CPU
// kernels' wrapping semantics) run a generated kernel instead.
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"
#include "KernelContextImpl.h"
#include "LibraryHandles.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <numeric>

namespace cgc::cuda {

namespace {
/// The alignment (bytes) the primary algorithm may assume of operands.
constexpr uint32_t kPreferredAlignment = 16;
/// The most workspace a product may ask for.
constexpr uint64_t kMaxWorkspace = 32ull << 20;

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

/// The cuBLASLt objects of one product; destroyed with the kernel.
struct LtProduct {
  std::shared_ptr<CublasLtHandle> handle;
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t alignedAlgorithm{}, fallbackAlgorithm{};
  uint32_t alignment = 0;
  uint64_t workspaceSize = 0;
  ~LtProduct() {
    for (cublasLtMatrixLayout_t layout : {a, b, c})
      if (layout)
        cublasLtMatrixLayoutDestroy(layout);
    if (operation)
      cublasLtMatmulDescDestroy(operation);
  }
};
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

/// Creates the descriptors of `plan` and picks its algorithms.
static llvm::Expected<std::shared_ptr<LtProduct>>
createLtProduct(mlir::Operation *op, const ProductPlan &plan,
                std::shared_ptr<CublasLtHandle> handle) {
  auto product = std::make_shared<LtProduct>();
  product->handle = std::move(handle);
  cudaDataType dataType = getCudaDataType(plan.dtype);
  bool isDouble = plan.dtype == DType::F64;
  cublasStatus_t status = cublasLtMatmulDescCreate(
      &product->operation, isDouble ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F,
      isDouble ? CUDA_R_64F : CUDA_R_32F);
  if (status != CUBLAS_STATUS_SUCCESS)
    return cublasError(op, "cublasLtMatmulDescCreate", status);
  // cuBLASLt's A is our B (N×K after op), its B our A (K×M after op).
  int32_t transposeFirst = plan.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t transposeSecond = plan.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(product->operation, CUBLASLT_MATMUL_DESC_TRANSA, &transposeFirst,
                                 sizeof(transposeFirst));
  cublasLtMatmulDescSetAttribute(product->operation, CUBLASLT_MATMUL_DESC_TRANSB, &transposeSecond,
                                 sizeof(transposeSecond));
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

  auto pickAlgorithm = [&](uint32_t alignment, cublasLtMatmulAlgo_t &algorithm) -> llvm::Error {
    cublasLtMatmulPreference_t preference = nullptr;
    cublasStatus_t created = cublasLtMatmulPreferenceCreate(&preference);
    if (created != CUBLAS_STATUS_SUCCESS)
      return cublasError(op, "cublasLtMatmulPreferenceCreate", created);
    uint64_t workspace = kMaxWorkspace;
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                         &workspace, sizeof(workspace));
    for (auto attribute :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      cublasLtMatmulPreferenceSetAttribute(preference, attribute, &alignment, sizeof(alignment));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t queried = cublasLtMatmulAlgoGetHeuristic(
        product->handle->handle, product->operation, product->a, product->b, product->c, product->c,
        preference, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(preference);
    if (queried != CUBLAS_STATUS_SUCCESS)
      return cublasError(op, "cublasLtMatmulAlgoGetHeuristic", queried);
    if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)
      return makeKernelError(op, "cuBLASLt has no algorithm for this product (" +
                                     llvm::Twine(alignment) + "-byte operands)");
    algorithm = result.algo;
    product->workspaceSize = std::max<uint64_t>(product->workspaceSize, result.workspaceSize);
    return llvm::Error::success();
  };
  if (llvm::Error error = pickAlgorithm(product->alignment, product->alignedAlgorithm))
    return std::move(error);
  if (llvm::Error error = pickAlgorithm(width, product->fallbackAlgorithm))
    return std::move(error);
  return product;
}

/// The launch of a product: `broadcastC` (may be empty) first writes C into
/// the output; `directC` passes inputs[2] as cuBLASLt's C.
static Kernel makeProductKernel(mlir::Operation *op, const ProductPlan &plan,
                                std::shared_ptr<LtProduct> product, double alpha, double beta,
                                bool directC, std::optional<Kernel> broadcastC) {
  std::string opName = op->getName().getStringRef().str();
  unsigned width = getByteWidth(plan.dtype);
  bool isDouble = plan.dtype == DType::F64;
  uint64_t workspaceSize = product->workspaceSize;
  auto launch = [=](const LaunchArgs &args) -> std::string {
    if (broadcastC) {
      const void *cOnly[] = {args.inputs[2]};
      LaunchArgs copy{cOnly, args.outputs, nullptr, args.stream};
      std::string message = broadcastC->launch(copy);
      if (!message.empty())
        return message;
    }
    float alphaFloat = static_cast<float>(alpha), betaFloat = static_cast<float>(beta);
    const void *alphaPointer = isDouble ? static_cast<const void *>(&alpha) : &alphaFloat;
    const void *betaPointer = isDouble ? static_cast<const void *>(&beta) : &betaFloat;
    const char *lhs = static_cast<const char *>(args.inputs[0]);
    const char *rhs = static_cast<const char *>(args.inputs[1]);
    char *output = static_cast<char *>(args.outputs[0]);
    for (size_t call = 0; call < plan.lhsOffsets.size(); ++call) {
      const char *a = lhs + plan.lhsOffsets[call] * width;
      const char *b = rhs + plan.rhsOffsets[call] * width;
      char *d = output + plan.outputOffsets[call] * width;
      const void *c = directC ? args.inputs[2] : d;
      uintptr_t bits = reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
                       reinterpret_cast<uintptr_t>(c) | reinterpret_cast<uintptr_t>(d);
      const cublasLtMatmulAlgo_t *algorithm =
          bits % product->alignment == 0 ? &product->alignedAlgorithm : &product->fallbackAlgorithm;
      cublasStatus_t status =
          cublasLtMatmul(product->handle->handle, product->operation, alphaPointer, b, product->a,
                         a, product->b, betaPointer, c, product->c, d, product->c, algorithm,
                         args.workspace, workspaceSize, args.stream);
      if (status != CUBLAS_STATUS_SUCCESS)
        return opName + ": cublasLtMatmul failed: " + cublasLtGetStatusString(status);
    }
    return "";
  };
  return Kernel{std::move(launch), alignWorkspace(workspaceSize)};
}

/// Rejects what cuBLASLt does not do here: integer products, empty K.
static llvm::Error checkProduct(mlir::Operation *op, DType dtype, int64_t k) {
  if (!isFloatDType(dtype))
    return unimplementedElementType(op, dtype);
  if (k == 0)
    return unimplementedFeature(op, "an empty inner dimension (K = 0)");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// Plans lhs · rhs with numpy.matmul semantics.
static ProductPlan planMatmul(DType dtype, llvm::ArrayRef<int64_t> lhsShape,
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

/// An integer matmul (int8 to int64): one thread per output element of a
/// generated kernel, accumulating in unsigned 64-bit arithmetic and keeping
/// the low bits on store, as the CPU kernel does (two's complement products
/// and sums wrap alike at every width). Batch dimensions broadcast through
/// per-dimension strides.
static llvm::Expected<Kernel> buildIntegerMatmul(mlir::Operation *op, KernelContext::Impl &context,
                                                 const TensorInfo &lhsInfo,
                                                 const TensorInfo &rhsInfo) {
  Shape lhs(lhsInfo.shape), rhs(rhsInfo.shape);
  if (lhs.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (rhs.size() == 1)
    rhs.push_back(1);
  int64_t m = lhs[lhs.size() - 2], k = lhs.back(), n = rhs.back();
  Shape lhsBatch(llvm::ArrayRef(lhs).drop_back(2)), rhsBatch(llvm::ArrayRef(rhs).drop_back(2));
  size_t rank = std::max(lhsBatch.size(), rhsBatch.size());
  Shape batch(rank, 1);
  for (size_t fromBack = 1; fromBack <= rank; ++fromBack) {
    int64_t l = fromBack <= lhsBatch.size() ? lhsBatch[lhsBatch.size() - fromBack] : 1;
    int64_t r = fromBack <= rhsBatch.size() ? rhsBatch[rhsBatch.size() - fromBack] : 1;
    batch[rank - fromBack] = l == 1 ? r : l;
  }
  int64_t count = getNumElements(batch) * m * n;
  if (count == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  Shape lhsStrides = getBroadcastStrides(lhsBatch, batch);
  Shape rhsStrides = getBroadcastStrides(rhsBatch, batch);
  for (size_t dim = 0; dim < rank; ++dim) {
    lhsStrides[dim] *= m * k;
    rhsStrides[dim] *= k * n;
  }
  size_t arrayRank = std::max<size_t>(rank, 1);
  std::string storage = getStorageType(lhsInfo.dtype);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "struct cgc_matmul_params {\n  long long count, m, n, k;\n  long long batchSizes["
     << arrayRank << "], lhsStrides[" << arrayRank << "], rhsStrides[" << arrayRank << "];\n};\n"
     << "extern \"C\" __global__ void __launch_bounds__(256) cgc_integer_matmul(const " << storage
     << " *lhs, const " << storage << " *rhs, " << storage << R"cuda( *out,
    cgc_matmul_params p) {
  long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.count; i += step) {
    long long column = i % p.n, row = (i / p.n) % p.m, rest = i / (p.n * p.m);
    long long lhsOffset = row * p.k, rhsOffset = column;
)cuda";
  for (size_t dim = rank; dim-- > 0;)
    os << "    lhsOffset += (rest % p.batchSizes[" << dim << "]) * p.lhsStrides[" << dim
       << "];\n    rhsOffset += (rest % p.batchSizes[" << dim << "]) * p.rhsStrides[" << dim
       << "];\n    rest /= p.batchSizes[" << dim << "];\n";
  os << R"cuda(    unsigned long long sum = 0;
    for (long long j = 0; j < p.k; ++j)
      sum += (unsigned long long)(long long)lhs[lhsOffset + j] *
             (unsigned long long)(long long)rhs[rhsOffset + j * p.n];
    out[i] = ()cuda"
     << storage << ")sum;\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_integer_matmul");
  if (!function)
    return function.takeError();
  std::vector<int64_t> params = {count, m, n, k};
  for (const Shape *values : {&batch, &lhsStrides, &rhsStrides}) {
    if (values->empty())
      params.push_back(values == &batch ? 1 : 0);
    params.insert(params.end(), values->begin(), values->end());
  }
  unsigned blocks = context.getGridSize(count, 256);
  std::string opName = op->getName().getStringRef().str();
  return Kernel{[function = *function, params = std::move(params), blocks,
                 opName](const LaunchArgs &args) -> std::string {
                  const void *lhs = args.inputs[0], *rhs = args.inputs[1];
                  void *out = args.outputs[0];
                  void *arguments[] = {&lhs, &rhs, &out, const_cast<int64_t *>(params.data())};
                  cudaError_t error =
                      function.launch(dim3(blocks), dim3(256), arguments, 0, args.stream);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaLaunchKernel", error);
                },
                0};
}

llvm::Expected<Kernel> buildMatmulKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto matmul = llvm::cast<op::MatmulOp>(op);
  auto lhs = getTensorInfo(op, matmul.getLhs());
  if (!lhs)
    return lhs.takeError();
  auto rhs = getTensorInfo(op, matmul.getRhs());
  if (!rhs)
    return rhs.takeError();
  if (rhs->dtype != lhs->dtype)
    return unimplementedElementType(op, rhs->dtype);
  if (isSignedIntegerDType(lhs->dtype))
    return buildIntegerMatmul(op, context, *lhs, *rhs);
  ProductPlan plan = planMatmul(lhs->dtype, lhs->shape, rhs->shape);
  if (llvm::Error error = checkProduct(op, lhs->dtype, plan.k))
    return std::move(error);
  if (plan.m == 0 || plan.n == 0 || plan.batch == 0 || plan.lhsOffsets.empty())
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  auto handle = context.getCublasLt(op);
  if (!handle)
    return handle.takeError();
  auto product = createLtProduct(op, plan, *handle);
  if (!product)
    return product.takeError();
  return makeProductKernel(op, plan, *product, 1.0, 0.0, false, std::nullopt);
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

llvm::Expected<Kernel> buildGemmKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto gemm = llvm::cast<op::GemmOp>(op);
  auto a = getTensorInfo(op, gemm.getA());
  if (!a)
    return a.takeError();
  auto b = getTensorInfo(op, gemm.getB());
  if (!b)
    return b.takeError();
  auto output = getTensorInfo(op, gemm.getOutput());
  if (!output)
    return output.takeError();
  if (b->dtype != a->dtype)
    return unimplementedElementType(op, b->dtype);
  ProductPlan plan;
  plan.dtype = a->dtype;
  plan.transA = gemm.getTransA();
  plan.transB = gemm.getTransB();
  plan.m = output->shape[0];
  plan.n = output->shape[1];
  plan.k = plan.transA ? a->shape[0] : a->shape[1];
  if (llvm::Error error = checkProduct(op, a->dtype, plan.k))
    return std::move(error);
  double alpha = gemm.getAlpha().convertToDouble(), beta = gemm.getBeta().convertToDouble();
  bool directC = false;
  std::optional<Kernel> broadcastC;
  if (gemm.getC() && beta != 0.0) {
    auto c = getTensorInfo(op, gemm.getC());
    if (!c)
      return c.takeError();
    if (c->dtype != a->dtype)
      return unimplementedElementType(op, c->dtype);
    if (c->shape == output->shape) {
      directC = true;
    } else {
      StridedKernelSpec spec;
      spec.operands.push_back(broadcastOperand(c->dtype, c->shape, output->shape, true));
      spec.outputType = c->dtype;
      spec.rawOutput = true;
      spec.outputShape = output->shape;
      spec.expression = "x0";
      auto copy = buildStridedKernel(op, context, spec);
      if (!copy)
        return copy.takeError();
      broadcastC = std::move(*copy);
    }
  } else {
    beta = 0.0;
  }
  if (plan.m == 0 || plan.n == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  auto handle = context.getCublasLt(op);
  if (!handle)
    return handle.takeError();
  auto product = createLtProduct(op, plan, *handle);
  if (!product)
    return product.takeError();
  return makeProductKernel(op, plan, *product, alpha, beta, directC, std::move(broadcastC));
}

} // namespace cgc::cuda
