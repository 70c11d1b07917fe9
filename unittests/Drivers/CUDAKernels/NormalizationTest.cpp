//===- NormalizationTest.cpp - softmax, norms and reductions against the CPU ===//
//
// Besides the general cases, layer_norm and softmax rows of the lengths that
// pick each way of the register row kernels (RowKernelCodegen.h): one warp
// a row (768 and 1024 features; 1000, whose last chunk is partial; 77 and
// 90, whose rows start misaligned for 16-byte chunks), one block a row
// (3000; 4098, in chunks of two), and rows too long for them (10000),
// also on operands placed off 16-byte boundaries, where the launch must
// take the one-element instantiation.
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

#include <cuda_runtime_api.h>

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

const int64_t kRowSizes[] = {768, 1024, 1000, 77, 90, 3000, 4098, 10000};

std::vector<OpCase> rowCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kFloatTypes) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    // Five rows: the last block of four one-warp rows is partly empty.
    for (int64_t size : kRowSizes) {
      cases.push_back({"cgc_op.layer_norm",
                       {tensor({5, size}, dtype), tensor({size}, dtype), tensor({size}, dtype)},
                       "{epsilon = 1.0e-6}",
                       tolerance});
      cases.push_back({"cgc_op.softmax", {tensor({5, size}, dtype, -5, 5)}, "", tolerance});
    }
    // Rows far from zero (a mean of 52, an ulp of 4e-6): the mean must be
    // summed finely enough to round as the CPU's, the variance centered.
    // x - mean cancels: float64's mean, summed in another order than the
    // CPU's, is off by ~52 ulp-scaled 1e-14, so float64 gets that much
    // absolute slack here (float32's own tolerance already covers its part).
    Tolerance farFromZero = tolerance;
    if (dtype == DType::F64)
      farFromZero.atol = 1e-12;
    cases.push_back({"cgc_op.layer_norm",
                     {tensor({3, 4, 768}, dtype, 50, 54), tensor({768}, dtype)},
                     "",
                     farFromZero});
    // A single-element scale; two normalized dimensions.
    cases.push_back({"cgc_op.layer_norm",
                     {tensor({2, 3, 768}, dtype), tensor({1}, dtype), tensor({768}, dtype)},
                     "",
                     tolerance});
    cases.push_back({"cgc_op.layer_norm",
                     {tensor({3, 12, 64}, dtype), tensor({12, 64}, dtype), tensor({12, 64}, dtype)},
                     "{axis = 1 : i64}",
                     tolerance});
    // A per-feature scale of two normalized dimensions ([64] of 12x64)
    // varies inside the row other than along it: the general kernel.
    cases.push_back({"cgc_op.layer_norm",
                     {tensor({3, 12, 64}, dtype), tensor({64}, dtype)},
                     "{axis = 1 : i64}",
                     tolerance});
    // softmax over the last axis of a 4-D tensor.
    cases.push_back({"cgc_op.softmax", {tensor({2, 3, 5, 128}, dtype, -8, 8)}, "", tolerance});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(NormalizationTest, Rows, rowCases)

/// `kernel` launched on copies of its operands placed `shift` bytes past
/// 256-byte boundaries of its workspace, the results copied back.
Kernel shiftOperands(Kernel kernel, std::vector<size_t> inputBytes,
                     std::vector<size_t> outputBytes, size_t shift) {
  std::vector<size_t> offsets;
  size_t total = 0;
  for (size_t bytes : llvm::concat<size_t>(inputBytes, outputBytes)) {
    offsets.push_back(total + shift);
    total += (bytes + shift + 255) / 256 * 256;
  }
  uint64_t innerWorkspace = kernel.workspaceSize;
  auto launch = [kernel = std::move(kernel), inputBytes = std::move(inputBytes),
                 outputBytes = std::move(outputBytes), offsets,
                 total](const LaunchArgs &args) -> std::string {
    char *base = static_cast<char *>(args.workspace);
    std::vector<const void *> inputs;
    std::vector<void *> outputs;
    for (size_t index = 0; index < inputBytes.size(); ++index) {
      void *copy = base + offsets[index];
      if (cudaMemcpyAsync(copy, args.inputs[index], inputBytes[index], cudaMemcpyDeviceToDevice,
                          args.stream) != cudaSuccess)
        return "copying an input failed";
      inputs.push_back(copy);
    }
    for (size_t index = 0; index < outputBytes.size(); ++index)
      outputs.push_back(base + offsets[inputBytes.size() + index]);
    std::string message = kernel.launch(
        LaunchArgs{inputs, outputs, kernel.workspaceSize ? base + total : nullptr, args.stream});
    if (!message.empty())
      return message;
    for (size_t index = 0; index < outputBytes.size(); ++index)
      if (cudaMemcpyAsync(args.outputs[index], outputs[index], outputBytes[index],
                          cudaMemcpyDeviceToDevice, args.stream) != cudaSuccess)
        return "copying a result failed";
    return "";
  };
  return Kernel{std::move(launch), total + innerWorkspace};
}

TEST_F(NormalizationTest, RowsOffChunkBoundariesMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (DType dtype : kFloatTypes) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    std::vector<OpCase> cases = {
        {"cgc_op.layer_norm",
         {tensor({5, 768}, dtype), tensor({768}, dtype), tensor({768}, dtype)},
         "",
         tolerance},
        {"cgc_op.layer_norm", {tensor({3, 3000}, dtype), tensor({3000}, dtype)}, "", tolerance},
        {"cgc_op.softmax", {tensor({5, 1000}, dtype, -5, 5)}, "", tolerance}};
    for (const OpCase &opCase : cases) {
      SCOPED_TRACE(opCase.describe() + " one element off 16-byte boundaries");
      mlir::Operation *op = buildOp(opCase);
      ASSERT_TRUE(op);
      std::vector<HostTensor> inputs = makeInputs(opCase);
      std::vector<HostTensor> expected = runCpu(op, inputs);
      std::vector<HostTensor> outputs = makeOutputs(op->getResultTypes());
      llvm::Expected<Kernel> kernel = buildKernel(op, *getDeviceContext());
      ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
      std::vector<size_t> inputBytes, outputBytes;
      for (const HostTensor &input : inputs)
        inputBytes.push_back(input.bytes.size());
      for (const HostTensor &output : outputs)
        outputBytes.push_back(output.bytes.size());
      Kernel shifted = shiftOperands(std::move(*kernel), inputBytes, outputBytes,
                                     getByteWidth(dtype));
      std::vector<HostTensor> actual = launchOnCuda(shifted, inputs, std::move(outputs));
      ASSERT_EQ(actual.size(), expected.size());
      for (size_t index = 0; index < actual.size(); ++index)
        expectClose(actual[index], expected[index], tolerance, opCase.describe());
    }
  }
}

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
