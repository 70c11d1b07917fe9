//===- ConvolutionTest.cpp - convolution, pooling and upsample against the CPU ===//

#include "CUDAKernelTestSupport.h"

#include <cmath>

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class ConvolutionTest : public CUDAKernelTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64};

std::vector<OpCase> convolutionCases() {
  struct Convolution {
    Dims input, weight;
    bool bias;
    std::string attributes;
  };
  std::vector<Convolution> convolutions = {
      {{1, 3, 8, 8}, {4, 3, 3, 3}, true, "{start_padding = [1, 1], end_padding = [1, 1]}"},
      {{2, 4, 9, 7}, {6, 4, 3, 3}, false, "{strides = [2, 2]}"},
      {{2, 4, 9, 7},
       {6, 2, 3, 2},
       true,
       "{groups = 2 : i64, dilations = [2, 1], start_padding = [2, 0], end_padding = [2, 0]}"},
      // Depthwise, asymmetric padding (padded in the workspace first).
      {{1, 8, 10, 10},
       {8, 1, 3, 3},
       true,
       "{groups = 8 : i64, strides = [2, 2], start_padding = [0, 1], end_padding = [1, 2]}"},
      // Pointwise.
      {{2, 16, 5, 5}, {32, 16, 1, 1}, true, ""},
      // 1-D and 3-D.
      {{2, 3, 17}, {5, 3, 4}, true, "{start_padding = [2], end_padding = [1], strides = [2]}"},
      {{1, 2, 5, 6, 7},
       {3, 2, 3, 3, 3},
       true,
       "{start_padding = [1, 1, 1], end_padding = [1, 1, 1]}"},
  };
  std::vector<OpCase> cases;
  for (DType dtype : kFloatTypes) {
    for (const Convolution &conv : convolutions) {
      std::vector<OperandSpec> operands = {tensor(conv.input, dtype, -1, 1),
                                           tensor(conv.weight, dtype, -1, 1)};
      if (conv.bias)
        operands.push_back(tensor({conv.weight[0]}, dtype, -1, 1));
      cases.push_back({"cgc_op.convolution", operands, conv.attributes, reductionTolerance(dtype)});
    }
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(ConvolutionTest, Convolution, convolutionCases)

/// A repeating pattern of values in [-2, 2) with one NaN and one -inf:
/// its period (101) leaves some windows and rows without them.
std::vector<double> poolingSpecialValues() {
  std::vector<double> pattern;
  for (int index = 0; index < 101; ++index)
    pattern.push_back(index == 50 ? NAN : index == 20 ? -INFINITY : (index * 37 % 101) / 25.0 - 2.0);
  return pattern;
}

std::vector<OpCase> poolingCases() {
  const std::vector<std::pair<Dims, std::string>> windows = {
      {{2, 3, 9, 9},
       "{kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], "
       "end_padding = [1, 1]}"},
      {{2, 3, 9, 8}, "{kernel_shape = [2, 3], strides = [2, 2], ceil_mode = true}"},
      {{1, 2, 10, 11},
       "{kernel_shape = [3, 2], dilations = [2, 2], start_padding = [2, 0], "
       "end_padding = [1, 1], ceil_mode = true}"},
      {{2, 3, 13}, "{kernel_shape = [4], strides = [3], start_padding = [2], end_padding = [2]}"},
      {{1, 2, 5, 6, 7}, "{kernel_shape = [2, 3, 2], strides = [1, 2, 2]}"},
      // A window larger than 64 elements (the bounded, not unrolled, walk).
      {{1, 2, 12, 12}, "{kernel_shape = [9, 9], strides = [3, 3], start_padding = [2, 2]}"},
  };
  // Averages sum in float for the 16/32-bit types (double before): the
  // reduction tolerance.
  std::vector<OpCase> cases;
  for (DType dtype : kFloatTypes) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    Tolerance averageTolerance = reductionTolerance(dtype);
    for (const auto &[shape, attributes] : windows) {
      cases.push_back({"cgc_op.max_pool", {tensor(shape, dtype)}, attributes, tolerance});
      cases.push_back({"cgc_op.average_pool", {tensor(shape, dtype)}, attributes, averageTolerance});
      std::string including = attributes;
      including.insert(including.size() - 1, ", count_include_pad = true");
      cases.push_back({"cgc_op.average_pool", {tensor(shape, dtype)}, including, averageTolerance});
    }
    for (const Dims &shape : std::vector<Dims>{{2, 5, 7, 9}, {2, 3, 11}, {1, 4, 1, 1}, {1, 3, 70, 80}}) {
      cases.push_back({"cgc_op.global_average_pool", {tensor(shape, dtype)}, "", averageTolerance});
      cases.push_back({"cgc_op.global_max_pool", {tensor(shape, dtype)}, "", tolerance});
    }
    // NaN propagates through maxima and sums; -inf through both.
    OperandSpec special = values({2, 3, 9, 9}, dtype, poolingSpecialValues());
    cases.push_back({"cgc_op.max_pool", {special}, windows[0].second, tolerance});
    cases.push_back({"cgc_op.average_pool", {special}, windows[0].second, averageTolerance});
    cases.push_back({"cgc_op.global_max_pool", {special}, "", tolerance});
    cases.push_back({"cgc_op.global_average_pool", {special}, "", averageTolerance});
    OperandSpec specialRows = values({2, 40, 3, 3}, dtype, poolingSpecialValues());
    cases.push_back({"cgc_op.global_max_pool", {specialRows}, "", tolerance});
    cases.push_back({"cgc_op.global_average_pool", {specialRows}, "", averageTolerance});
  }
  // The shapes the row and window kernels were tuned for (batch 2 instead
  // of 32): ResNet-50's stem max_pool and head, MobileNetV2's head.
  for (DType dtype : {DType::F16, DType::F32}) {
    cases.push_back({"cgc_op.max_pool",
                     {tensor({2, 64, 112, 112}, dtype)},
                     "{kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], "
                     "end_padding = [1, 1]}",
                     elementwiseTolerance(dtype)});
    for (const Dims &shape : std::vector<Dims>{{2, 2048, 7, 7}, {2, 1280, 7, 7}}) {
      cases.push_back({"cgc_op.global_average_pool",
                       {tensor(shape, dtype)},
                       "",
                       reductionTolerance(dtype)});
      cases.push_back(
          {"cgc_op.global_max_pool", {tensor(shape, dtype)}, "", elementwiseTolerance(dtype)});
    }
  }
  for (DType dtype : {DType::I8, DType::U8, DType::I32, DType::I64})
    cases.push_back({"cgc_op.max_pool", {tensor({2, 3, 9, 9}, dtype, 0, 100)}, windows[0].second});
  return cases;
}
CGC_CUDA_KERNEL_CASES(ConvolutionTest, Pooling, poolingCases)

std::vector<OpCase> upsampleCases() {
  const std::vector<std::string> attributes = {
      "{scales = [1.0, 1.0, 2.0, 2.0]}",
      "{scales = [1.0, 1.0, 1.5, 0.6], nearest_mode = \"round_prefer_ceil\", "
      "coordinate_transformation_mode = \"asymmetric\"}",
      "{sizes = [1, 2, 7, 3], nearest_mode = \"floor\", "
      "coordinate_transformation_mode = \"align_corners\"}",
      "{mode = \"linear\", scales = [1.0, 1.0, 2.0, 2.0]}",
      "{mode = \"linear\", sizes = [1, 2, 9, 3], coordinate_transformation_mode = "
      "\"align_corners\"}",
      "{mode = \"linear\", scales = [1.0, 1.0, 0.5, 1.7], coordinate_transformation_mode = "
      "\"pytorch_half_pixel\"}",
      "{mode = \"cubic\", scales = [1.0, 1.0, 2.0, 2.0]}",
      "{mode = \"cubic\", sizes = [1, 2, 6, 9], exclude_outside = true, cubic_coeff_a = -0.5}",
      "{mode = \"linear\", sizes = [1, 2, 5, 5], coordinate_transformation_mode = "
      "\"tf_crop_and_resize\", roi = [0.0, 0.0, -0.2, 0.3, 1.0, 1.0, 1.1, 0.9], "
      "extrapolation_value = 7.0}",
  };
  std::vector<OpCase> cases;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    for (const std::string &attribute : attributes)
      cases.push_back({"cgc_op.upsample",
                       {tensor({1, 2, 4, 5}, dtype)},
                       attribute,
                       elementwiseTolerance(dtype)});
  }
  for (DType dtype : {DType::I8, DType::I64, DType::F64})
    cases.push_back({"cgc_op.upsample", {tensor({1, 2, 4, 5}, dtype, -100, 100)}, attributes[0]});
  return cases;
}
CGC_CUDA_KERNEL_CASES(ConvolutionTest, Upsample, upsampleCases)

} // namespace
