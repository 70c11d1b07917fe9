//===- GraphCaptureTest.cpp - launches recorded into CUDA graphs ----------===//
//
// A kernel's first launch is captured into a CUDA graph (global capture
// mode: any call that is not capturable fails the capture) and the graph
// replayed; the result must equal a direct launch of the same op, bit for
// bit. One case per kind of work a launch enqueues: a generated kernel, a
// memcpy, 2-D memcpys, cuBLASLt (with the broadcast-C kernel), cuDNN (with
// the padding and bias kernels) and a block-reduction kernel.
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class GraphCaptureTest : public CUDAKernelTest {};

std::vector<OpCase> captureCases() {
  return {
      {"cgc_op.add", {tensor({4, 1, 6}, DType::F32), tensor({5, 1}, DType::F32)}, ""},
      {"cgc_op.reshape", {tensor({4, 6}, DType::F16)}, "{shape = [6, 4]}"},
      {"cgc_op.concat",
       {tensor({2, 3, 4}, DType::F32), tensor({2, 5, 4}, DType::F32)},
       "{axis = 1 : i64}"},
      {"cgc_op.gemm",
       {tensor({9, 17}, DType::F32), tensor({11, 17}, DType::F32), tensor({11}, DType::F32)},
       "{trans_b = true, beta = 0.5}"},
      {"cgc_op.matmul", {tensor({2, 1, 7, 13}, DType::F16), tensor({3, 13, 5}, DType::F16)}, ""},
      {"cgc_op.convolution",
       {tensor({1, 8, 10, 10}, DType::F32), tensor({8, 1, 3, 3}, DType::F32),
        tensor({8}, DType::F32)},
       "{groups = 8 : i64, start_padding = [0, 1], end_padding = [1, 2]}"},
      {"cgc_op.softmax", {tensor({3, 300}, DType::BF16)}, ""},
  };
}

TEST_F(GraphCaptureTest, ReplayedGraphEqualsDirectLaunch) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (const OpCase &opCase : captureCases()) {
    SCOPED_TRACE(opCase.describe());
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    std::vector<HostTensor> inputs = makeInputs(opCase);
    std::vector<HostTensor> captured = runCuda(op, inputs, /*capture=*/true);
    std::vector<HostTensor> direct = runCuda(op, inputs, /*capture=*/false);
    ASSERT_EQ(captured.size(), direct.size());
    for (size_t index = 0; index < captured.size(); ++index)
      EXPECT_EQ(captured[index].bytes, direct[index].bytes) << "result " << index;
    // And both equal the CPU reference.
    std::vector<HostTensor> expected = runCpu(op, inputs);
    ASSERT_EQ(expected.size(), direct.size());
    for (size_t index = 0; index < expected.size(); ++index)
      expectClose(direct[index], expected[index], reductionTolerance(direct[index].dtype),
                  opCase.describe());
  }
}

CGC_CUDA_KERNEL_CASES(GraphCaptureTest, Capture, captureCases)

} // namespace
