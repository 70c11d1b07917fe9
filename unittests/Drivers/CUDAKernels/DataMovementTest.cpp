//===- DataMovementTest.cpp - reshape, transpose, slice, ... against the CPU ===//

#include "CUDAKernelTestSupport.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class DataMovementTest : public CUDAKernelTest {};

/// One type of every width, and bool.
const DType kWidths[] = {DType::I8, DType::F16, DType::F32, DType::I64, DType::Bool};

std::vector<OpCase> dataMovementCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kWidths) {
    OperandSpec x = tensor({2, 3, 4, 5}, dtype, -100, 100);
    cases.push_back({"cgc_op.reshape", {x}, "{shape = [6, 20]}"});
    cases.push_back({"cgc_op.transpose", {x}, ""});
    cases.push_back({"cgc_op.transpose", {x}, "{permutation = [0, 2, 1, 3]}"});
    cases.push_back({"cgc_op.transpose", {x}, "{permutation = [3, 1, 2, 0]}"});
    cases.push_back({"cgc_op.slice", {x}, "{starts = [1], ends = [-1], axes = [3], steps = [2]}"});
    cases.push_back({"cgc_op.slice",
                     {x},
                     "{starts = [-1, 9223372036854775807], ends = [-100, 0], axes = [2, 1], "
                     "steps = [-2, -1]}"});
    cases.push_back({"cgc_op.slice", {x}, "{starts = [0, 1], ends = [1, 3]}"});
    cases.push_back({"cgc_op.slice", {x}, "{starts = [3], ends = [3], axes = [2]}"});
    cases.push_back({"cgc_op.expand", {tensor({3, 1}, dtype, -100, 100)}, "{shape = [2, 1, 6]}"});
    cases.push_back({"cgc_op.expand", {tensor({}, dtype, -100, 100)}, "{shape = [4, 3]}"});
    for (int64_t axis : {0, 1, 3, -1})
      cases.push_back({"cgc_op.concat",
                       {x, tensor({2, 3, 4, 5}, dtype, -100, 100)},
                       "{axis = " + std::to_string(axis) + " : i64}"});
    cases.push_back({"cgc_op.concat",
                     {tensor({2, 1, 3}, dtype, -9, 9), tensor({2, 4, 3}, dtype, -9, 9),
                      tensor({2, 0, 3}, dtype, -9, 9)},
                     "{axis = 1 : i64}"});
    OpCase split{"cgc_op.split", {x}, "{axis = 2 : i64, sizes = [1, 0, 3]}"};
    split.results = 3;
    cases.push_back(split);
    OpCase splitFirst{"cgc_op.split", {x}, "{axis = 0 : i64, sizes = [1, 1]}"};
    splitFirst.results = 2;
    cases.push_back(splitFirst);
    for (DType index : {DType::I32, DType::I64}) {
      OperandSpec indices = values({2, 3}, index, {0, -1, 2, 1, -3, 0});
      cases.push_back({"cgc_op.gather", {x, indices}, ""});
      cases.push_back({"cgc_op.gather", {x, indices}, "{axis = 1 : i64}"});
      cases.push_back(
          {"cgc_op.gather", {x, values({4}, index, {4, 0, -5, 2})}, "{axis = -1 : i64}"});
      cases.push_back({"cgc_op.gather", {x, values({}, index, {2})}, "{axis = 2 : i64}"});
    }
    cases.push_back({"cgc_op.pad",
                     {x},
                     "{start_padding = [0, 1, 2, 0], end_padding = [1, 0, 1, 3], value = 2.5}"});
    cases.push_back(
        {"cgc_op.pad",
         {x},
         "{start_padding = [0, 0, 1, 1], end_padding = [0, 2, 3, 4], mode = \"edge\"}"});
    cases.push_back({"cgc_op.pad",
                     {x},
                     "{start_padding = [1, 0, 3, 4], end_padding = [1, 2, 2, 1], "
                     "mode = \"reflect\"}"});
    cases.push_back(
        {"cgc_op.pad", {x}, "{start_padding = [0, -1, 1, -2], end_padding = [0, 0, -1, 1]}"});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(DataMovementTest, DataMovement, dataMovementCases)

} // namespace
