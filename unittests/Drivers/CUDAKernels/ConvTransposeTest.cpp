//===- ConvTransposeTest.cpp - conv_transpose through cuDNN against the CPU ===//
//
// The shapes of ONNX's ConvTranspose tests and what the CUDA kernel does
// differently for them: symmetric padding written directly, asymmetric
// padding and output_padding cropped or zero-extended from the workspace,
// groups, dilations (output_padding past the stride but below the
// dilation), 1-D and 3-D, with and without bias.
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class ConvTransposeTest : public CUDAKernelTest {};

std::vector<OpCase> convTransposeCases() {
  struct ConvTranspose {
    Dims input, weight;
    bool bias;
    std::string attributes;
    /// The `groups` the attributes give (the bias has weight[1] × groups
    /// elements).
    int64_t groups = 1;
  };
  std::vector<ConvTranspose> convolutions = {
      // ONNX test_convtranspose: no padding, written directly.
      {{1, 1, 3, 3}, {1, 2, 3, 3}, true, ""},
      // Symmetric padding with strides: written directly.
      {{2, 4, 5, 5},
       {4, 3, 3, 3},
       false,
       "{strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1]}"},
      // test_convtranspose_pads-like: asymmetric strides and padding.
      {{1, 1, 3, 3},
       {1, 2, 3, 3},
       true,
       "{strides = [3, 2], start_padding = [1, 2], end_padding = [1, 2]}"},
      // output_padding as test_convtranspose_output_shape resolves it.
      {{1, 1, 3, 3}, {1, 2, 3, 3}, true, "{strides = [3, 2], output_padding = [1, 1]}"},
      // pytorch-operator/test_operator_convtranspose: output_padding 2.
      {{2, 3, 4, 5},
       {3, 3, 3, 3},
       false,
       "{strides = [3, 3], start_padding = [1, 1], end_padding = [1, 1], "
       "output_padding = [2, 2]}"},
      // SAME_UPPER-like: the end padded one more than the start.
      {{1, 3, 4, 4},
       {3, 2, 3, 3},
       true,
       "{strides = [2, 2], start_padding = [0, 0], end_padding = [1, 1], "
       "output_padding = [0, 1]}"},
      // Start padded more than the end: cropped from the workspace.
      {{1, 2, 4, 5},
       {2, 3, 4, 3},
       true,
       "{strides = [2, 1], start_padding = [2, 1], end_padding = [1, 0]}"},
      // Groups and dilations; output_padding beyond the stride, below the
      // dilation (rows nothing reaches).
      {{2, 4, 5, 4},
       {4, 3, 3, 2},
       true,
       "{groups = 2 : i64, dilations = [3, 2], output_padding = [2, 1]}",
       2},
      // Depthwise, strided.
      {{1, 6, 4, 4},
       {6, 1, 3, 3},
       true,
       "{groups = 6 : i64, strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1], "
       "output_padding = [1, 1]}",
       6},
      // 1-D and 3-D.
      {{2, 3, 7}, {3, 4, 3}, true, "{strides = [2], start_padding = [1], end_padding = [0]}"},
      {{1, 2, 3, 4, 3},
       {2, 3, 3, 3, 2},
       true,
       "{strides = [1, 2, 2], start_padding = [1, 0, 1], end_padding = [1, 1, 0]}"},
  };
  std::vector<OpCase> cases;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    for (const ConvTranspose &conv : convolutions) {
      std::vector<OperandSpec> operands = {tensor(conv.input, dtype, -1, 1),
                                           tensor(conv.weight, dtype, -1, 1)};
      if (conv.bias)
        operands.push_back(tensor({conv.weight[1] * conv.groups}, dtype, -1, 1));
      cases.push_back(
          {"cgc_op.conv_transpose", operands, conv.attributes, reductionTolerance(dtype)});
    }
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(ConvTransposeTest, ConvTranspose, convTransposeCases)

/// float64 has no CPU reference: the CUDA driver refuses it by name.
TEST_F(ConvTransposeTest, Float64IsNotImplemented) {
  OpCase opCase{"cgc_op.conv_transpose",
                {tensor({1, 1, 3, 3}, DType::F64), tensor({1, 2, 3, 3}, DType::F64)},
                ""};
  mlir::Operation *op = buildOp(opCase);
  ASSERT_TRUE(op);
  llvm::Expected<Kernel> kernel = buildKernelForContext(op, getCompileOnlyContext());
  ASSERT_FALSE(static_cast<bool>(kernel));
  EXPECT_EQ(llvm::toString(kernel.takeError()),
            "cgc_op.conv_transpose: element type float64 is not implemented on the CUDA driver");
}

} // namespace
