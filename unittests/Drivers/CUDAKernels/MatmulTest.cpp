//===- MatmulTest.cpp - matmul and gemm through cuBLASLt against the CPU --===//

#include "CUDAKernelTestSupport.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class MatmulTest : public CUDAKernelTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64};

std::vector<OpCase> matmulCases() {
  // lhs and rhs shapes: plain, odd sizes, vectors, a shared rhs (folded
  // into one product), batches that broadcast on either side and a loop
  // over an outer batch dimension.
  const std::vector<std::pair<Dims, Dims>> shapes = {{{16, 32}, {32, 8}},
                                                     {{7, 13}, {13, 5}},
                                                     {{13}, {13, 5}},
                                                     {{7, 13}, {13}},
                                                     {{13}, {13}},
                                                     {{3, 7, 13}, {13, 5}},
                                                     {{7, 13}, {4, 13, 5}},
                                                     {{2, 3, 7, 13}, {2, 3, 13, 5}},
                                                     {{2, 1, 7, 13}, {3, 13, 5}},
                                                     {{2, 1, 4, 7, 9}, {1, 3, 1, 9, 6}},
                                                     {{1, 64, 96}, {96, 80}}};
  std::vector<OpCase> cases;
  for (DType dtype : kFloatTypes)
    for (const auto &[lhs, rhs] : shapes)
      cases.push_back({"cgc_op.matmul",
                       {tensor(lhs, dtype, -1, 1), tensor(rhs, dtype, -1, 1)},
                       "",
                       reductionTolerance(dtype)});
  return cases;
}
CGC_CUDA_KERNEL_CASES(MatmulTest, Matmul, matmulCases)

/// Signed integer products run a generated kernel: exact, wrapping.
std::vector<OpCase> integerMatmulCases() {
  const std::vector<std::pair<Dims, Dims>> shapes = {{{7, 13}, {13, 5}},
                                                     {{13}, {13, 5}},
                                                     {{7, 13}, {13}},
                                                     {{13}, {13}},
                                                     {{3, 7, 13}, {13, 5}},
                                                     {{2, 1, 4, 7, 9}, {1, 3, 1, 9, 6}},
                                                     {{4, 0}, {0, 3}}};
  std::vector<OpCase> cases;
  for (DType dtype : {DType::I8, DType::I16, DType::I32, DType::I64})
    for (const auto &[lhs, rhs] : shapes)
      cases.push_back(
          {"cgc_op.matmul", {tensor(lhs, dtype, -100, 100), tensor(rhs, dtype, -100, 100)}, ""});
  return cases;
}
CGC_CUDA_KERNEL_CASES(MatmulTest, IntegerMatmul, integerMatmulCases)

std::vector<OpCase> gemmCases() {
  std::vector<OpCase> cases;
  const int64_t m = 9, n = 11, k = 17;
  for (DType dtype : kFloatTypes) {
    Tolerance tolerance = reductionTolerance(dtype);
    for (bool transA : {false, true}) {
      for (bool transB : {false, true}) {
        OperandSpec a = tensor(transA ? Dims{k, m} : Dims{m, k}, dtype, -1, 1);
        OperandSpec b = tensor(transB ? Dims{n, k} : Dims{k, n}, dtype, -1, 1);
        std::string attributes = std::string("{trans_a = ") + (transA ? "true" : "false") +
                                 ", trans_b = " + (transB ? "true" : "false");
        cases.push_back({"cgc_op.gemm", {a, b}, attributes + "}", tolerance});
        // C of every broadcasting shape, alpha and beta.
        for (const Dims &c : std::vector<Dims>{{n}, {m, n}, {m, 1}, {1, n}, {}})
          cases.push_back({"cgc_op.gemm",
                           {a, b, tensor(c, dtype, -1, 1)},
                           attributes + ", alpha = 0.5, beta = 2.0}",
                           tolerance});
        cases.push_back(
            {"cgc_op.gemm", {a, b, tensor({n}, dtype, -1, 1)}, attributes + "}", tolerance});
        cases.push_back({"cgc_op.gemm",
                         {a, b, tensor({m, n}, dtype, -1, 1)},
                         attributes + ", beta = 0.0}",
                         tolerance});
      }
    }
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(MatmulTest, Gemm, gemmCases)

} // namespace
