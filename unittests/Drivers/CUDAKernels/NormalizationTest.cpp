//===- NormalizationTest.cpp - softmax, norms and reductions against the CPU ===//

#include "CUDAKernelTestSupport.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class NormalizationTest : public CUDAKernelTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64};

std::vector<OpCase> normalizationCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kFloatTypes) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    for (const char *axis : {"", "{axis = 1 : i64}", "{axis = 0 : i64}"})
      cases.push_back({"cgc_op.softmax", {tensor({3, 7, 300}, dtype, -5, 5)}, axis, tolerance});
    cases.push_back({"cgc_op.softmax", {tensor({2, 1000}, dtype, -5, 5)}, "", tolerance});
    cases.push_back({"cgc_op.layer_norm",
                     {tensor({2, 5, 96}, dtype), tensor({96}, dtype), tensor({96}, dtype)},
                     "",
                     tolerance});
    cases.push_back({"cgc_op.layer_norm",
                     {tensor({2, 5, 96}, dtype), tensor({5, 96}, dtype)},
                     "{axis = -2 : i64, epsilon = 1.0e-3}",
                     tolerance});
    cases.push_back({"cgc_op.layer_norm",
                     {tensor({2, 5, 6}, dtype), tensor({5, 1}, dtype), tensor({6}, dtype)},
                     "{axis = 1 : i64}",
                     tolerance});
    std::vector<OperandSpec> batchNorm = {tensor({2, 6, 5, 7}, dtype), tensor({6}, dtype),
                                          tensor({6}, dtype), tensor({6}, dtype),
                                          tensor({6}, dtype, 0.1, 2.0)};
    cases.push_back({"cgc_op.batch_norm", batchNorm, "", tolerance});
    cases.push_back({"cgc_op.batch_norm",
                     {tensor({3, 4}, dtype), tensor({4}, dtype), tensor({4}, dtype),
                      tensor({4}, dtype), tensor({4}, dtype, 0.1, 2.0)},
                     "{epsilon = 1.0e-3}",
                     tolerance});
    cases.push_back({"cgc_op.group_norm",
                     {tensor({2, 6, 5, 7}, dtype), tensor({6}, dtype), tensor({6}, dtype)},
                     "{num_groups = 3 : i64}",
                     tolerance});
    cases.push_back({"cgc_op.instance_norm",
                     {tensor({2, 6, 5, 7}, dtype), tensor({6}, dtype), tensor({6}, dtype)},
                     "",
                     tolerance});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(NormalizationTest, Normalization, normalizationCases)

std::vector<OpCase> reductionCases() {
  const std::vector<std::string> axes = {"",
                                         "{axes = [-1]}",
                                         "{axes = [0], keep_dims = false}",
                                         "{axes = [1, 3]}",
                                         "{axes = [0, 2], keep_dims = false}",
                                         "{axes = [1]}"};
  std::vector<OpCase> cases;
  for (DType dtype :
       {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32, DType::U8, DType::I64}) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    for (const std::string &axis : axes) {
      for (const char *op :
           {"cgc_op.reduce_sum", "cgc_op.reduce_mean", "cgc_op.reduce_max", "cgc_op.reduce_min"})
        cases.push_back({op, {tensor({3, 4, 5, 6}, dtype, -100, 100)}, axis, tolerance});
      cases.push_back(
          {"cgc_op.reduce_prod", {tensor({3, 4, 5, 6}, dtype, 0.5, 1.5)}, axis, tolerance});
    }
    // Many outputs reduced one thread each (innermost dimension kept).
    cases.push_back(
        {"cgc_op.reduce_sum", {tensor({20, 8, 640}, dtype, -100, 100)}, "{axes = [1]}", tolerance});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(NormalizationTest, Reduction, reductionCases)

} // namespace
