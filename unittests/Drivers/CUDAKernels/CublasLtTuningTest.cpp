//===- CublasLtTuningTest.cpp - cuBLASLt products with timed algorithms ---===//
//
// Products whose aligned algorithm was timed among cuBLASLt's candidates
// (drivers/cuda/kernels/CublasLtTuning.h), tuning forced on whatever
// CGC_CUDA_MATMUL_TUNING says: BERT-base's 128x768x768 float16 product with
// its bias against the CPU gemm, an attention-shaped strided product against
// a reference computed here, and the process-wide cache: an identical
// product reuses the timed choice without timing, a different one times
// (one adding a C of its own among them).
// Everything needs a device (skipped without one).
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

#include "drivers/cuda/kernels/CublasLtProduct.h"
#include "drivers/cuda/kernels/CublasLtTuning.h"

#include <cstring>

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

ProductPlan makePlan(DType dtype, int64_t m, int64_t n, int64_t k) {
  ProductPlan plan;
  plan.dtype = dtype;
  plan.m = m;
  plan.n = n;
  plan.k = k;
  return plan;
}

class CublasLtTuningTest : public CUDAKernelTest {
public:
  /// The device context's cuBLASLt handle; null (with a failure) if none.
  std::shared_ptr<CublasLtHandle> getHandle(mlir::Operation *op) {
    KernelContext *kernelContext = getDeviceContext();
    if (!kernelContext)
      return nullptr;
    auto handle = kernelContext->getImpl().getCublasLt(op);
    if (!handle) {
      ADD_FAILURE() << llvm::toString(handle.takeError());
      return nullptr;
    }
    return *handle;
  }

  /// createLtProduct, or null with a failure.
  std::shared_ptr<LtProduct> create(mlir::Operation *op, const ProductPlan &plan,
                                    const ProductEpilogue &epilogue, ProductTuning tuning) {
    std::shared_ptr<CublasLtHandle> handle = getHandle(op);
    if (!handle)
      return nullptr;
    auto product = createLtProduct(op, plan, handle, epilogue, tuning);
    if (!product) {
      ADD_FAILURE() << llvm::toString(product.takeError());
      return nullptr;
    }
    return *product;
  }

  /// A float16 gemm m×k · k×n + bias, the op case CPU results come from.
  static OpCase gemmWithBias(int64_t m, int64_t n, int64_t k) {
    return {"cgc_op.gemm",
            {tensor({m, k}, DType::F16, -1, 1), tensor({k, n}, DType::F16, -1, 1),
             tensor({n}, DType::F16, -1, 1)},
            "",
            reductionTolerance(DType::F16)};
  }

  /// What the gemm's third input is to cuBLASLt.
  enum class Third { Bias, C };

  /// `product` (of `plan`) launched on `op`'s inputs against the CPU kernel
  /// of `opCase`: the third input is the epilogue's bias, or cuBLASLt's C
  /// read with beta 1.
  void expectMatchesCpu(const std::shared_ptr<LtProduct> &product, const ProductPlan &plan,
                        mlir::Operation *op, const OpCase &opCase, const char *what,
                        Third third = Third::Bias) {
    Kernel kernel{[product, plan, what, third](const LaunchArgs &args) {
                    ProductOperands operands;
                    operands.lhs = args.inputs[0];
                    operands.rhs = args.inputs[1];
                    (third == Third::Bias ? operands.bias : operands.c) = args.inputs[2];
                    operands.output = args.outputs[0];
                    return enqueueLtProduct(*product, plan, 1.0, third == Third::C ? 1.0 : 0.0,
                                            operands, args.workspace, args.stream, what);
                  },
                  alignWorkspace(product->workspaceSize)};
    std::vector<HostTensor> inputs = makeInputs(opCase);
    std::vector<HostTensor> expected = runCpu(op, inputs);
    std::vector<HostTensor> actual =
        launchOnCuda(kernel, inputs, makeOutputs(op->getResultTypes()));
    ASSERT_EQ(expected.size(), 1u);
    ASSERT_EQ(actual.size(), 1u);
    expectClose(actual[0], expected[0], opCase.tolerance, opCase.describe());
  }

  /// A float16 m×n×k gemm with its bias in cuBLASLt's epilogue, tuned.
  struct BiasProduct {
    OpCase opCase;
    mlir::Operation *op = nullptr;
    ProductPlan plan;
    std::shared_ptr<LtProduct> product;
  };
  void createTunedBiasProduct(int64_t m, int64_t n, int64_t k, BiasProduct &result) {
    result.opCase = gemmWithBias(m, n, k);
    result.op = buildOp(result.opCase);
    ASSERT_NE(result.op, nullptr);
    result.plan = makePlan(DType::F16, m, n, k);
    ProductEpilogue epilogue;
    epilogue.bias = true;
    result.product = create(result.op, result.plan, epilogue, ProductTuning::On);
    ASSERT_NE(result.product, nullptr);
  }

  /// An op to name errors (any op does).
  mlir::Operation *namingOp() {
    return buildOp({"cgc_op.matmul", {tensor({2, 2}, DType::F16), tensor({2, 2}, DType::F16)}});
  }
};

bool sameAlgorithm(const cublasLtMatmulAlgo_t &first, const cublasLtMatmulAlgo_t &second) {
  return std::memcmp(&first, &second, sizeof(cublasLtMatmulAlgo_t)) == 0;
}

/// BERT-base's projection at batch 1 (cuBLASLt offers several algorithms),
/// with its bias in cuBLASLt's epilogue, against the CPU gemm A·B + c.
TEST_F(CublasLtTuningTest, TunedProductWithBiasMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  BiasProduct tuned;
  ASSERT_NO_FATAL_FAILURE(createTunedBiasProduct(128, 768, 768, tuned));
  // Timed here or by an identical product earlier in this process.
  EXPECT_GE(tuned.product->timedCandidates, 2);

  expectMatchesCpu(tuned.product, tuned.plan, tuned.op, tuned.opCase, "tuned product");
}

/// A product of a few microseconds times only its first few candidates
/// (each costs a kernel load at a cold compile), and still computes right.
TEST_F(CublasLtTuningTest, SmallProductTimesFewCandidates) {
  CGC_REQUIRE_CUDA_DEVICE();
  static_assert(49 * 96 * 64 < kSmallProductMultiplyAdds);
  BiasProduct small;
  ASSERT_NO_FATAL_FAILURE(createTunedBiasProduct(49, 96, 64, small));
  EXPECT_GE(small.product->timedCandidates, 1);
  EXPECT_LE(small.product->timedCandidates, kMaxSmallProductCandidates);

  expectMatchesCpu(small.product, small.plan, small.op, small.opCase, "small product");
}

/// A product that adds a C of its own (a residual, beta 1) is timed reading
/// one, under a key of its own: after the same product without C was timed,
/// it times again; launched with its C it matches the CPU gemm A·B + C.
TEST_F(CublasLtTuningTest, ProductReadingCTimesWithIt) {
  CGC_REQUIRE_CUDA_DEVICE();
  const int64_t m = 320, n = 264, k = 136;
  OpCase opCase{"cgc_op.gemm",
                {tensor({m, k}, DType::F16, -1, 1), tensor({k, n}, DType::F16, -1, 1),
                 tensor({m, n}, DType::F16, -1, 1)},
                "",
                reductionTolerance(DType::F16)};
  mlir::Operation *op = buildOp(opCase);
  ASSERT_NE(op, nullptr);
  ProductPlan plan = makePlan(DType::F16, m, n, k);

  uint64_t before = getTimedProductCount();
  std::shared_ptr<LtProduct> withoutC = create(op, plan, ProductEpilogue{}, ProductTuning::On);
  ASSERT_NE(withoutC, nullptr);
  EXPECT_EQ(getTimedProductCount(), before + 1);
  ProductEpilogue readsC;
  readsC.readsC = true;
  std::shared_ptr<LtProduct> product = create(op, plan, readsC, ProductTuning::On);
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(getTimedProductCount(), before + 2);
  EXPECT_GE(product->timedCandidates, 1);

  expectMatchesCpu(product, plan, op, opCase, "product reading C", Third::C);
}

/// Attention's scores: Q (row-major) times Kᵀ read in place (column-major),
/// float16 in, float32 out, a strided batch of 12 heads.
TEST_F(CublasLtTuningTest, TunedStridedProductMatchesReference) {
  CGC_REQUIRE_CUDA_DEVICE();
  const int64_t batch = 12, m = 128, n = 128, k = 64;
  mlir::Operation *op = namingOp();
  ASSERT_NE(op, nullptr);
  StridedProductPlan plan;
  plan.lhs = *makeStridedMatrix(DType::F16, m, k, k, 1);
  plan.rhs = *makeStridedMatrix(DType::F16, k, n, 1, k);
  plan.output = *makeStridedMatrix(DType::F32, m, n, n, 1);
  ASSERT_FALSE(plan.rhs.rowMajor);
  plan.lhs.batchStride = m * k;
  plan.rhs.batchStride = n * k;
  plan.output.batchStride = m * n;
  plan.batch = batch;
  std::shared_ptr<CublasLtHandle> handle = getHandle(op);
  ASSERT_NE(handle, nullptr);
  auto created = createLtStridedProduct(op, plan, handle, ProductTuning::On);
  ASSERT_TRUE(static_cast<bool>(created)) << llvm::toString(created.takeError());
  std::shared_ptr<LtProduct> product = *created;
  EXPECT_GE(product->timedCandidates, 1);

  // lhs[b][i][l] at (b·m + i)·k + l; rhs (k×n) element (l, j) at (b·n + j)·k + l.
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<HostTensor> inputs = {HostTensor(DType::F16, {batch, m, k}),
                                    HostTensor(DType::F16, {batch, n, k})};
  for (HostTensor &input : inputs)
    for (int64_t index = 0; index < input.size(); ++index)
      input.set(index, uniform(rng));
  HostTensor expected(DType::F32, {batch, m, n});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t l = 0; l < k; ++l)
          sum += inputs[0].get((b * m + i) * k + l) * inputs[1].get((b * n + j) * k + l);
        expected.set((b * m + i) * n + j, 0.5 * sum);
      }
  Kernel kernel{[product, plan](const LaunchArgs &args) {
                  StridedProductOperands operands;
                  operands.lhs = args.inputs[0];
                  operands.rhs = args.inputs[1];
                  operands.output = args.outputs[0];
                  operands.alpha = 0.5;
                  return enqueueLtStridedProduct(*product, plan, operands, args.workspace,
                                                 args.stream, "tuned strided product");
                },
                alignWorkspace(product->workspaceSize)};
  std::vector<HostTensor> actual =
      launchOnCuda(kernel, inputs, {HostTensor(DType::F32, {batch, m, n})});
  ASSERT_EQ(actual.size(), 1u);
  expectClose(actual[0], expected, reductionTolerance(DType::F32), "strided scores product");
}

/// The second identical product takes the first one's timed algorithm
/// without timing; a product that differs (a transposed rhs) times again;
/// tuning off times nothing. The sizes appear nowhere else in the tests, so
/// the first product is this process's first of its kind.
TEST_F(CublasLtTuningTest, IdenticalProductsTimeOnce) {
  CGC_REQUIRE_CUDA_DEVICE();
  mlir::Operation *op = namingOp();
  ASSERT_NE(op, nullptr);
  ProductPlan plan = makePlan(DType::F16, 200, 392, 328);
  ProductEpilogue epilogue;
  epilogue.activation = ProductEpilogue::Activation::Relu;

  uint64_t before = getTimedProductCount();
  std::shared_ptr<LtProduct> first = create(op, plan, epilogue, ProductTuning::On);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(getTimedProductCount(), before + 1);
  EXPECT_GE(first->timedCandidates, 1);

  std::shared_ptr<LtProduct> second = create(op, plan, epilogue, ProductTuning::On);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(getTimedProductCount(), before + 1);
  EXPECT_TRUE(sameAlgorithm(second->alignedAlgorithm, first->alignedAlgorithm));
  EXPECT_EQ(second->timedCandidates, first->timedCandidates);
  EXPECT_EQ(second->workspaceSize, first->workspaceSize);

  ProductPlan transposed = plan;
  transposed.transB = true;
  std::shared_ptr<LtProduct> other = create(op, transposed, epilogue, ProductTuning::On);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(getTimedProductCount(), before + 2);

  std::shared_ptr<LtProduct> untuned = create(op, plan, epilogue, ProductTuning::Off);
  ASSERT_NE(untuned, nullptr);
  EXPECT_EQ(getTimedProductCount(), before + 2);
  EXPECT_EQ(untuned->timedCandidates, 0);
}

} // namespace
