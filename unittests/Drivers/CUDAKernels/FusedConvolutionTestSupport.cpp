//===- FusedConvolutionTestSupport.cpp - fused convolution cases and paths ===//

#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/ConvolutionChain.h"
#include "drivers/cuda/kernels/ImplicitGemmConvolution.h"

#include "DefinitionText.h"

#include "drivers/cuda/kernels/FusedConvolution.h"

#include <cmath>
#include <iostream>

namespace cgc::cuda::test {

void FusedConvolutionPathsTest::expectBothPathsMatchCpu(const DefinitionCase &definitionCase,
                                                        unsigned &graphCases) {
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  SCOPED_TRACE(definitionCase.describe());
  auto [definition, inputs, expected] = runReference(definitionCase);
  ASSERT_TRUE(definition);
  ASSERT_EQ(expected.size(), 1u);
  for (FusedConvolutionPath path :
       {FusedConvolutionPath::CudnnGraph, FusedConvolutionPath::ConvolutionThenEpilogue}) {
    llvm::Expected<FusedConvolutionKernel> fused =
        buildFusedConvolution(definition, kernelContext->getImpl(), path);
    if (!fused) {
      std::string message = llvm::toString(fused.takeError());
      if (path == FusedConvolutionPath::CudnnGraph &&
          message.find("the cuDNN graph does not run this definition") != std::string::npos) {
        std::cout << definitionCase.describe() << ": " << message << "\n";
        continue;
      }
      ADD_FAILURE() << getFusedConvolutionPathName(path) << ": " << message;
      continue;
    }
    EXPECT_EQ(fused->path, path);
    graphCases += path == FusedConvolutionPath::CudnnGraph;
    for (bool capture : {false, true}) {
      std::vector<HostTensor> actual =
          launchOnCuda(fused->kernel, inputs, makeOutputs(definition.getResultTypes()), capture);
      ASSERT_EQ(actual.size(), 1u);
      expectClose(actual[0], expected[0], definitionCase.tolerance,
                  std::string(getFusedConvolutionPathName(path)) + (capture ? " (captured)" : ""));
    }
  }
}

void FusedConvolutionPathsTest::expectForcedPathMatchesCpu(const DefinitionCase &definitionCase,
                                                           FusedConvolutionPath path,
                                                           bool misaligned) {
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  SCOPED_TRACE(definitionCase.describe());
  auto [definition, inputs, expected] = runReference(definitionCase);
  ASSERT_TRUE(definition);
  ASSERT_EQ(expected.size(), 1u);
  llvm::Expected<FusedConvolutionKernel> fused =
      buildFusedConvolution(definition, kernelContext->getImpl(), path);
  ASSERT_TRUE(static_cast<bool>(fused)) << llvm::toString(fused.takeError());
  EXPECT_EQ(fused->path, path);
  std::string name = getFusedConvolutionPathName(path);
  if (misaligned) {
    std::vector<HostTensor> actual =
        launchMisaligned(fused->kernel, inputs, makeOutputs(definition.getResultTypes()));
    ASSERT_EQ(actual.size(), 1u);
    expectClose(actual[0], expected[0], definitionCase.tolerance, name + " (misaligned buffers)");
    return;
  }
  for (bool capture : {false, true}) {
    std::vector<HostTensor> actual =
        launchOnCuda(fused->kernel, inputs, makeOutputs(definition.getResultTypes()), capture);
    ASSERT_EQ(actual.size(), 1u);
    expectClose(actual[0], expected[0], definitionCase.tolerance,
                name + (capture ? " (captured)" : ""));
  }
}

bool takesImplicitGemm(FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<FusedConvolutionShape>> analyzed =
      analyzeFusedConvolution(definition);
  if (!analyzed)
    return false;
  if (!*analyzed) {
    llvm::consumeError(analyzed->takeError());
    return false;
  }
  return !getImplicitGemmRefusal(**analyzed, 9);
}

//===----------------------------------------------------------------------===//
// Channels-last definitions
//===----------------------------------------------------------------------===//

std::string Window::attributes() const {
  std::string text;
  auto list = [&](const char *name, const Dims &values) {
    if (values.empty())
      return;
    text += std::string(text.empty() ? "" : ", ") + name + " = [" + std::to_string(values[0]) +
            ", " + std::to_string(values[1]) + "]";
  };
  list("strides", strides);
  list("start_padding", startPadding);
  list("end_padding", endPadding);
  list("dilations", dilations);
  if (groups != 1)
    text += std::string(text.empty() ? "" : ", ") + "groups = " + std::to_string(groups) + " : i64";
  return text.empty() ? "" : "{" + text + "}";
}

Dims toNchw(const Dims &nhwc) { return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]}; }
Dims toNhwc(const Dims &nchw) { return {nchw[0], nchw[2], nchw[3], nchw[1]}; }

Dims getOutputShape(const Dims &input, const Dims &weight, const Window &window) {
  Dims output = {input[0], weight[0]};
  for (size_t dim = 0; dim < 2; ++dim) {
    auto at = [&](const Dims &values, int64_t fallback) {
      return values.empty() ? fallback : values[dim];
    };
    int64_t extent = at(window.dilations, 1) * (weight[dim + 2] - 1) + 1;
    output.push_back(
        (input[dim + 2] + at(window.startPadding, 0) + at(window.endPadding, 0) - extent) /
            at(window.strides, 1) +
        1);
  }
  return output;
}

DefinitionCase makeNhwcDefinition(const NhwcCase &fused, DType dtype,
                                  const Permutations &permutations) {
  Dims inputNchw = toNchw(fused.input), weightOihw = toNchw(fused.weight);
  Dims outputNchw = getOutputShape(inputNchw, weightOihw, fused.window);
  Dims outputNhwc = toNhwc(outputNchw);
  std::string outputType = tensorType(outputNhwc, dtype);
  int64_t fanIn = fused.weight[1] * fused.weight[2] * fused.weight[3];
  double weightBound = std::sqrt(3.0 / static_cast<double>(fanIn));

  DType imageType = fused.float32Image ? DType::F32 : dtype;
  Dims image = fused.float32Image ? inputNchw : fused.input;
  std::vector<TypedValue> arguments = {{"%x", tensorType(image, imageType)},
                                       {"%w", tensorType(fused.weight, dtype)}};
  std::vector<OperandSpec> operands = {tensor(image, imageType, -1, 1),
                                       tensor(fused.weight, dtype, -weightBound, weightBound)};
  if (fused.bias) {
    arguments.push_back({"%b", tensorType({fused.weight[0]}, dtype)});
    operands.push_back(tensor({fused.weight[0]}, dtype, -0.5, 0.5));
  }
  std::vector<TypedValue> others;
  for (const ChainLayer &layer : fused.chain) {
    if (!layer.other)
      continue;
    others.push_back({"%e" + std::to_string(others.size()), tensorType(*layer.other, dtype)});
    arguments.push_back(others.back());
    operands.push_back(tensor(*layer.other, dtype, layer.low, layer.high));
  }
  std::string name = fused.name + "_" + dtypeName(dtype);
  DefinitionText text(name, arguments);
  TypedValue x = arguments[0];
  if (fused.float32Image) {
    TypedValue converted = text.layer("%xc", "cgc_op.cast", {x}, tensorType(inputNchw, dtype),
                                      "{to = !cgc." + dtypeName(dtype) + "}");
    x = text.layer("%xn", "cgc_op.transpose", {converted}, tensorType(fused.input, dtype),
                   "{permutation = [0, 2, 3, 1]}");
  }
  TypedValue xt = text.layer("%xt", "cgc_op.transpose", {x}, tensorType(inputNchw, dtype),
                             "{permutation = " + permutations.input + "}");
  TypedValue wt =
      text.layer("%wt", "cgc_op.transpose", {arguments[1]}, tensorType(weightOihw, dtype),
                 "{permutation = " + permutations.weight + "}");
  std::vector<TypedValue> convOperands = {xt, wt};
  if (fused.bias)
    convOperands.push_back(arguments[2]);
  TypedValue conv = text.layer("%conv", "cgc_op.convolution", convOperands,
                               tensorType(outputNchw, dtype), fused.window.attributes());
  TypedValue value = text.layer("%y", "cgc_op.transpose", {conv}, outputType,
                                "{permutation = " + permutations.output + "}");
  size_t nextOther = 0;
  for (size_t index = 0; index < fused.chain.size(); ++index) {
    const ChainLayer &layer = fused.chain[index];
    std::vector<TypedValue> layerOperands = {value};
    if (layer.other) {
      const TypedValue &other = others[nextOther++];
      if (layer.valueSecond)
        layerOperands.insert(layerOperands.begin(), other);
      else
        layerOperands.push_back(other);
    }
    value = text.layer("%v" + std::to_string(index), layer.op, layerOperands, outputType,
                       layer.attributes);
  }
  if (fused.pool) {
    const MaxPool &pool = *fused.pool;
    Dims pooled = outputNchw;
    for (size_t d = 0; d < 2; ++d) {
      int64_t span = outputNchw[2 + d] + pool.startPadding[d] + pool.endPadding[d] - pool.kernel[d];
      int64_t size = (pool.ceilMode ? (span + pool.strides[d] - 1) / pool.strides[d]
                                    : span / pool.strides[d]) +
                     1;
      // ceil_mode drops a last window that would start in the end padding.
      if (pool.ceilMode && (size - 1) * pool.strides[d] >= outputNchw[2 + d] + pool.startPadding[d])
        --size;
      pooled[2 + d] = size;
    }
    TypedValue transposed = text.layer("%pt", "cgc_op.transpose", {value},
                                       tensorType(outputNchw, dtype),
                                       "{permutation = " + pool.inputPermutation + "}");
    TypedValue pooledValue = text.layer("%pool", "cgc_op.max_pool", {transposed},
                                        tensorType(pooled, dtype), pool.attributes());
    value = text.layer("%z", "cgc_op.transpose", {pooledValue}, tensorType(toNhwc(pooled), dtype),
                       "{permutation = [0, 2, 3, 1]}");
  }
  return {text.str({value}), std::move(operands), reductionTolerance(dtype)};
}

std::string MaxPool::attributes() const {
  auto list = [](const Dims &values) {
    std::string text = "[";
    for (size_t index = 0; index < values.size(); ++index)
      text += (index ? ", " : "") + std::to_string(values[index]);
    return text + "]";
  };
  return "{ceil_mode = " + std::string(ceilMode ? "true" : "false") +
         ", end_padding = " + list(endPadding) + ", kernel_shape = " + list(kernel) +
         ", start_padding = " + list(startPadding) + ", strides = " + list(strides) + "}";
}

ChainLayer layer(std::string op, std::string attributes) {
  return ChainLayer{std::move(op), std::move(attributes)};
}
ChainLayer withOther(std::string op, Dims other, bool valueSecond, double low, double high) {
  ChainLayer result{std::move(op), ""};
  result.other = std::move(other);
  result.valueSecond = valueSecond;
  result.low = low;
  result.high = high;
  return result;
}

} // namespace cgc::cuda::test
