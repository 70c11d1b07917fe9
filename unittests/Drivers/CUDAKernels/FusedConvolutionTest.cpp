//===- FusedConvolutionTest.cpp - the fused convolution against the CPU ---===//
//
// ResNet- and MobileNet-shaped convolutions with their epilogues (bias,
// residual add, relu, clip(0, 6), depthwise and grouped convolutions, the
// 7×7 stem, 1×1 projections) and the other chain layers the family
// implements, in float32, float16 and bfloat16, against the CPU driver's
// kernels run layer by layer. On a device each case runs as the driver
// builds it, and then down each path forced (the cuDNN graph where cuDNN
// has a plan for it, cuDNN's convolution with the generated epilogue
// always). Without one, the recognition is checked and the epilogue
// kernels are compiled. Then what the family refuses, and why.
//
//===----------------------------------------------------------------------===//

#include "DefinitionText.h"
#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/FusedConvolution.h"

#include <cmath>
#include <iostream>

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedConvolutionTest : public FusedConvolutionPathsTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

/// A convolution's window, as its attributes give it.
struct Window {
  Dims strides, startPadding, endPadding, dilations;
  int64_t groups = 1;

  std::string attributes() const {
    std::string text;
    auto list = [&](const char *name, const Dims &values) {
      if (values.empty())
        return;
      text += std::string(text.empty() ? "" : ", ") + name + " = [";
      for (size_t index = 0; index < values.size(); ++index)
        text += (index ? ", " : "") + std::to_string(values[index]);
      text += "]";
    };
    list("strides", strides);
    list("start_padding", startPadding);
    list("end_padding", endPadding);
    list("dilations", dilations);
    if (groups != 1)
      text +=
          std::string(text.empty() ? "" : ", ") + "groups = " + std::to_string(groups) + " : i64";
    return text.empty() ? "" : "{" + text + "}";
  }
};

/// The convolution's output shape (ConvolutionOps.td).
Dims getOutputShape(const Dims &input, const Dims &weight, const Window &window) {
  Dims output = {input[0], weight[0]};
  for (size_t dim = 0; dim + 2 < input.size(); ++dim) {
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

/// One layer of the chain after the convolution.
struct ChainLayer {
  std::string op;
  std::string attributes;
  /// The shape of the layer's other operand (a new argument), if it has one.
  std::optional<Dims> other;
  /// Whether the chain's value is the second operand.
  bool valueSecond = false;
  /// The other operand is the chain's value too (add(v, v)).
  bool valueTwice = false;
  double low = -1.0, high = 1.0;
};

/// A convolution (optional bias) and its chain.
struct FusedCase {
  std::string name;
  Dims input, weight;
  Window window;
  bool bias = true;
  std::vector<ChainLayer> chain;
};

/// The definition of `fused` in `dtype`: input in [-1, 1], weights scaled to
/// the fan-in so that results stay near 1 (bfloat16 keeps 8 bits: larger
/// values would round further than the tolerance).
DefinitionCase makeDefinition(const FusedCase &fused, DType dtype) {
  Dims output = getOutputShape(fused.input, fused.weight, fused.window);
  std::string outputType = tensorType(output, dtype);
  int64_t fanIn = 1;
  for (size_t dim = 1; dim < fused.weight.size(); ++dim)
    fanIn *= fused.weight[dim];
  double weightBound = std::sqrt(3.0 / static_cast<double>(fanIn));

  std::vector<TypedValue> arguments = {{"%x", tensorType(fused.input, dtype)},
                                       {"%w", tensorType(fused.weight, dtype)}};
  std::vector<OperandSpec> operands = {tensor(fused.input, dtype, -1, 1),
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
  std::vector<TypedValue> convOperands(arguments.begin(), arguments.begin() + (fused.bias ? 3 : 2));
  TypedValue value = text.layer("%conv", "cgc_op.convolution", convOperands, outputType,
                                fused.window.attributes());
  size_t nextOther = 0;
  for (size_t index = 0; index < fused.chain.size(); ++index) {
    const ChainLayer &layer = fused.chain[index];
    std::vector<TypedValue> layerOperands = {value};
    if (layer.valueTwice)
      layerOperands.push_back(value);
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
  Tolerance tolerance = reductionTolerance(dtype);
  return {text.str({value}), std::move(operands), tolerance};
}

ChainLayer layer(std::string op, std::string attributes = "") {
  return ChainLayer{std::move(op), std::move(attributes)};
}
ChainLayer withOther(std::string op, Dims other, bool valueSecond = false, double low = -1.0,
                     double high = 1.0) {
  ChainLayer result{std::move(op), ""};
  result.other = std::move(other);
  result.valueSecond = valueSecond;
  result.low = low;
  result.high = high;
  return result;
}
const ChainLayer kRelu = layer("cgc_op.relu");
const ChainLayer kRelu6 = layer("cgc_op.clip", "{max = 6.000000e+00, min = 0.000000e+00}");

/// The model shapes: ResNet-50's bottleneck and stem, MobileNetV2's
/// inverted residual block.
std::vector<FusedCase> modelCases() {
  Window same3x3{{}, {1, 1}, {1, 1}, {}, 1};
  return {
      // Bottleneck tail: 1×1 conv, bias, residual, relu.
      {"resnet_tail",
       {2, 16, 6, 6},
       {32, 16, 1, 1},
       {},
       true,
       {withOther("cgc_op.add", {2, 32, 6, 6}), kRelu}},
      // The residual as the add's first operand.
      {"resnet_tail_residual_first",
       {1, 16, 5, 5},
       {16, 16, 1, 1},
       {},
       true,
       {withOther("cgc_op.add", {1, 16, 5, 5}, /*valueSecond=*/true), kRelu}},
      // 3×3 conv, bias, relu; a strided one (the downsampling block).
      {"resnet_3x3", {1, 8, 10, 10}, {8, 8, 3, 3}, same3x3, true, {kRelu}},
      {"resnet_3x3_strided",
       {2, 8, 9, 9},
       {16, 8, 3, 3},
       {{2, 2}, {1, 1}, {1, 1}, {}, 1},
       true,
       {kRelu}},
      // The stem: 7×7, stride 2, padding 3.
      {"resnet_stem", {1, 3, 20, 20}, {8, 3, 7, 7}, {{2, 2}, {3, 3}, {3, 3}, {}, 1}, true, {kRelu}},
      // A 1×1 projection with bias only (a chain of length 0), and one
      // without bias or chain.
      {"pointwise_bias", {2, 32, 7, 7}, {16, 32, 1, 1}, {}, true, {}},
      {"pointwise_plain", {1, 12, 4, 6}, {8, 12, 1, 1}, {}, false, {}},
      // Without bias, then relu.
      {"no_bias_relu", {1, 8, 9, 9}, {12, 8, 3, 3}, {}, false, {kRelu}},
      // MobileNetV2: the first conv (stride 2) and the expansion with
      // relu6; depthwise 3×3 with relu6, plain and strided; the linear
      // projection with the block's residual.
      {"mobilenet_first",
       {1, 3, 16, 16},
       {16, 3, 3, 3},
       {{2, 2}, {1, 1}, {1, 1}, {}, 1},
       true,
       {kRelu6}},
      {"mobilenet_expand", {1, 8, 8, 8}, {48, 8, 1, 1}, {}, true, {kRelu6}},
      {"mobilenet_depthwise",
       {2, 16, 10, 10},
       {16, 1, 3, 3},
       {{}, {1, 1}, {1, 1}, {}, 16},
       true,
       {kRelu6}},
      {"mobilenet_depthwise_strided",
       {1, 24, 9, 9},
       {24, 1, 3, 3},
       {{2, 2}, {1, 1}, {1, 1}, {}, 24},
       true,
       {kRelu6}},
      {"mobilenet_project_residual",
       {1, 48, 8, 8},
       {8, 48, 1, 1},
       {},
       true,
       {withOther("cgc_op.add", {1, 8, 8, 8})}},
  };
}

/// The rest of what the family implements: each chain layer (some without
/// a cuDNN pointwise mode), broadcast operands, asymmetric padding,
/// dilations and groups, 1-D and 3-D.
std::vector<FusedCase> chainCases() {
  Window same3x3{{}, {1, 1}, {1, 1}, {}, 1};
  Dims input = {2, 6, 7, 7}, weight = {8, 6, 3, 3};
  auto activation = [&](std::string name, ChainLayer layer) {
    return FusedCase{std::move(name), input, weight, same3x3, true, {std::move(layer)}};
  };
  return {
      activation("sigmoid", layer("cgc_op.sigmoid")),
      activation("tanh", layer("cgc_op.tanh")),
      activation("gelu", layer("cgc_op.gelu")),
      activation("gelu_tanh", layer("cgc_op.gelu", "{approximate = \"tanh\"}")),
      activation("leaky_relu", layer("cgc_op.leaky_relu", "{alpha = 1.000000e-01}")),
      activation("hard_sigmoid", layer("cgc_op.hard_sigmoid")),
      activation("hard_swish", layer("cgc_op.hard_swish")),
      activation("clip_both", layer("cgc_op.clip", "{max = 5.000000e-01, min = -2.500000e-01}")),
      activation("clip_min_zero", layer("cgc_op.clip", "{min = 0.000000e+00}")),
      // Per-channel scale and shift, a scalar, a row broadcast, the value
      // doubled.
      {"scale_shift",
       input,
       weight,
       same3x3,
       false,
       {withOther("cgc_op.mul", {1, 8, 1, 1}, false, 0.5, 1.5),
        withOther("cgc_op.add", {8, 1, 1}, true), kRelu}},
      {"scalar_and_row",
       input,
       weight,
       same3x3,
       true,
       {withOther("cgc_op.mul", {1}, true, 0.5, 1.5), withOther("cgc_op.add", {7}),
        layer("cgc_op.tanh")}},
      {"value_twice",
       input,
       weight,
       same3x3,
       true,
       {[] {
          ChainLayer twice = layer("cgc_op.add");
          twice.valueTwice = true;
          return twice;
        }(),
        kRelu}},
      // Asymmetric padding, dilations and groups.
      {"asymmetric_padding",
       {1, 4, 8, 9},
       {6, 4, 3, 3},
       {{1, 2}, {0, 1}, {1, 2}, {}, 1},
       true,
       {kRelu}},
      {"grouped_dilated",
       {2, 8, 11, 9},
       {6, 4, 3, 2},
       {{}, {2, 0}, {2, 0}, {2, 1}, 2},
       true,
       {withOther("cgc_op.add", {2, 6, 11, 8}), kRelu6}},
      // 1-D and 3-D.
      {"conv1d",
       {2, 4, 17},
       {6, 4, 3},
       {{2}, {1}, {1}, {}, 1},
       true,
       {withOther("cgc_op.add", {2, 6, 9}), kRelu}},
      {"conv3d",
       {1, 3, 5, 6, 7},
       {4, 3, 3, 3, 3},
       {{}, {1, 1, 1}, {1, 1, 1}, {}, 1},
       true,
       {kRelu}},
  };
}

std::vector<DefinitionCase> definitionsOf(const std::vector<FusedCase> &fusedCases) {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kFloatTypes)
    for (const FusedCase &fused : fusedCases)
      definitions.push_back(makeDefinition(fused, dtype));
  return definitions;
}
std::vector<DefinitionCase> modelDefinitions() { return definitionsOf(modelCases()); }
std::vector<DefinitionCase> chainDefinitions() { return definitionsOf(chainCases()); }
std::vector<DefinitionCase> allDefinitions() {
  std::vector<DefinitionCase> all = modelDefinitions();
  for (DefinitionCase &definition : chainDefinitions())
    all.push_back(std::move(definition));
  return all;
}

CGC_FUSED_KERNEL_CASES(FusedConvolutionTest, ModelShapes, modelDefinitions)
CGC_FUSED_KERNEL_CASES(FusedConvolutionTest, ChainLayers, chainDefinitions)

/// Each path forced: the epilogue path must run every case; the cuDNN
/// graph those cuDNN has a plan for (how many is reported).
TEST_F(FusedConvolutionTest, BothPathsMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  unsigned graphCases = 0, cases = 0;
  for (const DefinitionCase &definitionCase : allDefinitions()) {
    expectBothPathsMatchCpu(definitionCase, graphCases);
    ++cases;
  }
  std::cout << "the cuDNN graph ran " << graphCases << " of " << cases << " cases\n";
}

/// Without a device every case compiles its epilogue kernel (both when the
/// path is left to the builder and when it is forced), then stops where
/// cuDNN needs a device.
TEST_F(FusedConvolutionTest, EpilogueCompiles) {
  for (const DefinitionCase &definitionCase : allDefinitions()) {
    SCOPED_TRACE(definitionCase.describe());
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    for (std::optional<FusedConvolutionPath> path :
         {std::optional<FusedConvolutionPath>(),
          std::optional<FusedConvolutionPath>(FusedConvolutionPath::ConvolutionThenEpilogue)}) {
      std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
      llvm::Expected<FusedConvolutionKernel> fused =
          buildFusedConvolution(definition, *context, path);
      ASSERT_FALSE(static_cast<bool>(fused)) << "built without a device";
      std::string message = llvm::toString(fused.takeError());
      EXPECT_NE(message.find("cuDNN needs a device"), std::string::npos) << message;
      // The epilogue (and the asymmetric padding's pad kernel) compiled.
      bool hasEpilogue = definitionCase.definition.find("%b:") != std::string::npos ||
                         definitionCase.definition.find("%v0") != std::string::npos;
      EXPECT_EQ(context->getCompiler().getModuleCount() > 0, hasEpilogue) << message;
    }
  }
}

//===----------------------------------------------------------------------===//
// What the family refuses
//===----------------------------------------------------------------------===//

TEST_F(FusedConvolutionTest, RejectsChainLayersItLacks) {
  Window same3x3{{}, {1, 1}, {1, 1}, {}, 1};
  Dims input = {1, 4, 6, 6}, weight = {4, 4, 3, 3};
  expectFusedRejected(
      makeDefinition({"conv_exp", input, weight, same3x3, true, {kRelu, layer("cgc_op.exp")}},
                     DType::F32),
      "@conv_exp_float32: fused convolution: chain layer cgc_op.exp is not "
      "implemented on the CUDA driver");
  expectFusedRejected(
      makeDefinition(
          {"conv_sub", input, weight, same3x3, false, {withOther("cgc_op.sub", {1, 4, 6, 6})}},
          DType::F16),
      "chain layer cgc_op.sub is not implemented on the CUDA driver");
}

TEST_F(FusedConvolutionTest, RejectsWhatTheConvolutionLacks) {
  // float64: outside the pattern's element types and the kernel's.
  expectFusedRejected(
      makeDefinition({"conv_f64", {1, 2, 5, 5}, {2, 2, 3, 3}, {}, true, {kRelu}}, DType::F64),
      "cgc_op.convolution: element type float64 is not implemented on the CUDA "
      "driver");
  // A 4-D convolution: cuDNN's go up to 3-D.
  expectFusedRejected(
      makeDefinition({"conv_4d", {1, 1, 3, 3, 3, 3}, {1, 1, 2, 2, 2, 2}, {}, false, {kRelu}},
                     DType::F32),
      "4-D convolution is not implemented on the CUDA driver");
}

TEST_F(FusedConvolutionTest, LeavesOtherShapesToOtherFamilies) {
  // The convolution's value used twice (returned and chained) is no chain.
  DefinitionCase twoResults{R"mlir(
    cgc.functional_definition private @two_results(%x: !cgc.tensor<1x2x4x4x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>) -> (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>) {
      %0 = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %1 = cgc_op.relu(%0) : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      cgc.return %0, %1 : !cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>
    })mlir",
                            {tensor({1, 2, 4, 4}, DType::F32), tensor({2, 2, 1, 1}, DType::F32)},
                            {}};
  FunctionalDefinitionOp definition = buildDefinition(twoResults);
  ASSERT_TRUE(definition);
  EXPECT_EQ(getFusedFamilyName(definition).str(), "");
  expectFusedRejected(twoResults);
  // A layer that is not elementwise ends the family's shape.
  DefinitionCase pooled{R"mlir(
    cgc.functional_definition private @pooled(%x: !cgc.tensor<1x2x4x4x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32> {
      %0 = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %1 = cgc_op.max_pool(%0) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      cgc.return %1 : !cgc.tensor<1x2x2x2x!cgc.float32>
    })mlir",
                        {tensor({1, 2, 4, 4}, DType::F32), tensor({2, 2, 1, 1}, DType::F32)},
                        {}};
  FunctionalDefinitionOp pooledDefinition = buildDefinition(pooled);
  ASSERT_TRUE(pooledDefinition);
  EXPECT_NE(getFusedFamilyName(pooledDefinition).str(), "convolution");
  expectFusedRejected(pooled);
}

TEST_F(FusedConvolutionTest, ModelShapesAreTheConvolutionFamilys) {
  for (const DefinitionCase &definitionCase : modelDefinitions())
    expectFusedFamily(definitionCase, "convolution");
}

} // namespace
