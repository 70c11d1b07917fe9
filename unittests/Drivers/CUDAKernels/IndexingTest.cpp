//===- IndexingTest.cpp - arg_max/arg_min, top_k, gathers, scatters, cumsum ===//
//
// Index results, gathers and scatters must match the CPU kernels exactly
// (duplicate scatter indices included: both apply updates in row-major
// order); cumsum of floats within the reduction tolerance.
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

#include <cmath>

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class IndexingTest : public CUDAKernelTest {};

const DType kNumericTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I8,
                               DType::U8,  DType::I32, DType::I64,  DType::U64};

std::vector<OpCase> argReductionCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kNumericTypes) {
    // Few distinct values: ties decide select_last_index.
    OperandSpec x = tensor({3, 4, 5}, dtype, -3, 3);
    for (const char *op : {"cgc_op.arg_max", "cgc_op.arg_min"})
      for (int64_t axis : {0, 1, -1})
        for (bool keepDims : {true, false})
          for (bool selectLast : {false, true})
            cases.push_back({op, {x},
                             "{axis = " + std::to_string(axis) + " : i64, keep_dims = " +
                                 (keepDims ? "true" : "false") + ", select_last_index = " +
                                 (selectLast ? "true" : "false") + "}"});
  }
  OperandSpec withNaN = values({2, 3}, DType::F32, {1.0, NAN, 2.0, 5.0, -1.0, 5.0});
  cases.push_back({"cgc_op.arg_max", {withNaN}, "{axis = 1 : i64}"});
  cases.push_back({"cgc_op.arg_min", {withNaN}, "{axis = 1 : i64, select_last_index = true}"});
  return cases;
}
CGC_CUDA_KERNEL_CASES(IndexingTest, ArgReduction, argReductionCases)

std::vector<OpCase> topKCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kNumericTypes) {
    OperandSpec x = tensor({3, 6, 4}, dtype, -3, 3);
    for (int64_t k : {1, 3, 6})
      for (int64_t axis : {1, -1, 0})
        for (bool largest : {true, false}) {
          if (k > (axis == 1 ? 6 : axis == 0 ? 3 : 4))
            continue;
          OpCase opCase{"cgc_op.top_k", {x},
                        "{k = " + std::to_string(k) + " : i64, axis = " + std::to_string(axis) +
                            " : i64, largest = " + (largest ? "true" : "false") + "}"};
          opCase.results = 2;
          cases.push_back(opCase);
        }
  }
  OpCase withNaN{"cgc_op.top_k",
                 {values({1, 5}, DType::F32, {1.0, NAN, 2.0, 2.0, -1.0})},
                 "{k = 4 : i64}"};
  withNaN.results = 2;
  cases.push_back(withNaN);
  return cases;
}
CGC_CUDA_KERNEL_CASES(IndexingTest, TopK, topKCases)

std::vector<OpCase> gatherCases() {
  std::vector<OpCase> cases;
  for (DType dtype : {DType::I8, DType::F16, DType::F32, DType::I64, DType::Bool}) {
    OperandSpec data = tensor({3, 4, 5}, dtype, -100, 100);
    for (DType index : {DType::I32, DType::I64}) {
      // Indices in [-D, D) and out of range (read as zero).
      cases.push_back(
          {"cgc_op.gather_elements", {data, tensor({3, 2, 5}, index, -4, 3)}, "{axis = 1 : i64}"});
      cases.push_back(
          {"cgc_op.gather_elements", {data, tensor({2, 4, 3}, index, -3, 2)}, "{axis = 0 : i64}"});
      cases.push_back({"cgc_op.gather_elements",
                       {data, tensor({3, 4, 7}, index, -6, 5)},
                       "{axis = -1 : i64}"});
      cases.push_back({"cgc_op.gather_nd", {data, values({2, 2}, index, {0, 1, -1, 3})}, ""});
      cases.push_back(
          {"cgc_op.gather_nd", {data, values({2, 1, 3}, index, {2, 3, 4, 0, -4, 9})}, ""});
      cases.push_back({"cgc_op.gather_nd",
                       {data, values({3, 2, 1}, index, {0, 3, -1, 2, 1, 0})},
                       "{batch_dims = 1 : i64}"});
    }
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(IndexingTest, Gather, gatherCases)

std::vector<OpCase> scatterCases() {
  std::vector<OpCase> cases;
  for (DType dtype : {DType::F32, DType::F16, DType::F64, DType::I8, DType::I32, DType::I64}) {
    OperandSpec data = tensor({4, 5, 3}, dtype, -5, 5);
    for (const char *reduction : {"none", "add", "mul", "max", "min"}) {
      std::string mode = std::string("reduction = \"") + reduction + "\"";
      for (DType index : {DType::I32, DType::I64}) {
        // Duplicate indices (few distinct values) must combine in order.
        cases.push_back({"cgc_op.scatter_elements",
                         {data, tensor({4, 3, 3}, index, -5, 4), tensor({4, 3, 3}, dtype, -5, 5)},
                         "{axis = 1 : i64, " + mode + "}"});
        cases.push_back({"cgc_op.scatter_elements",
                         {data, tensor({6, 5, 2}, index, -4, 3), tensor({6, 5, 2}, dtype, -5, 5)},
                         "{axis = 0 : i64, " + mode + "}"});
        cases.push_back({"cgc_op.scatter_nd",
                         {data, values({5, 1}, index, {1, -1, 1, 7, 0}),
                          tensor({5, 5, 3}, dtype, -5, 5)},
                         "{" + mode + "}"});
        cases.push_back({"cgc_op.scatter_nd",
                         {data, values({4, 2}, index, {0, 1, 3, -5, 0, 1, 2, 2}),
                          tensor({4, 3}, dtype, -5, 5)},
                         "{" + mode + "}"});
      }
    }
  }
  cases.push_back({"cgc_op.scatter_elements",
                   {tensor({3, 3}, DType::Bool), tensor({2, 3}, DType::I64, -3, 2),
                    tensor({2, 3}, DType::Bool)},
                   ""});
  return cases;
}
CGC_CUDA_KERNEL_CASES(IndexingTest, Scatter, scatterCases)

std::vector<OpCase> cumSumCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kNumericTypes) {
    OperandSpec x = tensor({3, 5, 4}, dtype, -100, 100);
    for (int64_t axis : {0, 1, -1})
      for (bool exclusive : {false, true})
        for (bool reverse : {false, true})
          cases.push_back({"cgc_op.cumsum", {x},
                           "{axis = " + std::to_string(axis) + " : i64, exclusive = " +
                               (exclusive ? "true" : "false") + ", reverse = " +
                               (reverse ? "true" : "false") + "}",
                           reductionTolerance(dtype)});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(IndexingTest, CumSum, cumSumCases)

} // namespace
