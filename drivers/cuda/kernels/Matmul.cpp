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
// aligned than the first one assumes. That cuBLASLt setup is shared with the
// fused matmul kernels (CublasLtProduct.h).
//
// Signed integer matmuls (which cuBLASLt does not cover with the CPU
// kernels' wrapping semantics) run a generated kernel instead.
//
//===----------------------------------------------------------------------===//

#include "CublasLtProduct.h"
#include "DeviceCode.h"
#include "ElementwiseCodegen.h"
#include "KernelContextImpl.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <numeric>

namespace cgc::cuda {

/// The launch of a product: `broadcastC` (may be empty) first writes C into
/// the output; `directC` passes inputs[2] as cuBLASLt's C.
static Kernel makeProductKernel(mlir::Operation *op, const ProductPlan &plan,
                                std::shared_ptr<LtProduct> product, double alpha, double beta,
                                bool directC, std::optional<Kernel> broadcastC) {
  std::string opName = op->getName().getStringRef().str();
  uint64_t workspaceSize = product->workspaceSize;
  auto launch = [=](const LaunchArgs &args) -> std::string {
    if (broadcastC) {
      const void *cOnly[] = {args.inputs[2]};
      LaunchArgs copy{cOnly, args.outputs, nullptr, args.stream};
      std::string message = broadcastC->launch(copy);
      if (!message.empty())
        return message;
    }
    ProductOperands operands;
    operands.lhs = args.inputs[0];
    operands.rhs = args.inputs[1];
    operands.c = directC ? args.inputs[2] : nullptr;
    operands.output = args.outputs[0];
    return enqueueLtProduct(*product, plan, alpha, beta, operands, args.workspace, args.stream,
                            opName);
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
