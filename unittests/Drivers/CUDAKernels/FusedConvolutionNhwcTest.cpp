//===- FusedConvolutionNhwcTest.cpp - channels-last fused convolutions ----===//
//
// The fused convolution in the compiler's channels-last form
// (conv_nhwc_bias_activation, patterns/convolution.mlir): an NHWC input and
// an OHWI weight transposed to NCHW and OIHW, the convolution, its result
// transposed to NHWC, and the elementwise chain on NHWC values. The fused
// kernel runs it on the NHWC memory as it is; the reference runs the
// definition layer by layer with the CPU driver's kernels, transposes
// included. ResNet's and MobileNetV2's shapes (the 7×7 stem with three
// channels, bottleneck tails with their residual, relu6, depthwise and
// grouped convolutions) and the rest of what the family implements, in
// float32, float16 and bfloat16. On a device each case runs as the driver
// builds it, then down each path forced; without one, the recognition is
// checked and the epilogue kernels are compiled. Then what the
// channels-last form refuses, and why.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/FusedConvolution.h"

#include <cstdlib>
#include <iostream>
#include <optional>

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedConvolutionNhwcTest : public FusedConvolutionPathsTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

/// The model shapes, channels-last: ResNet-50's stem and bottleneck,
/// MobileNetV2's inverted residual block; channel counts multiples of 8
/// (cuDNN's tensor-core engines) except the stem's three.
std::vector<NhwcCase> modelCases() {
  Window same3x3{{}, {1, 1}, {1, 1}, {}, 1};
  return {
      // The bare convolution: no bias, no chain.
      {"nhwc_plain", {1, 6, 5, 16}, {8, 1, 1, 16}, {}, false, {}},
      // 3×3 conv, bias, relu; a strided one (the downsampling block).
      {"nhwc_resnet_3x3", {1, 10, 10, 8}, {16, 3, 3, 8}, same3x3, true, {kRelu}},
      {"nhwc_resnet_3x3_strided",
       {2, 9, 9, 8},
       {16, 3, 3, 8},
       {{2, 2}, {1, 1}, {1, 1}, {}, 1},
       true,
       {kRelu}},
      // Bottleneck tail: 1×1 conv, bias, residual, relu; the residual as
      // the add's first operand.
      {"nhwc_resnet_tail",
       {2, 6, 6, 16},
       {32, 1, 1, 16},
       {},
       true,
       {withOther("cgc_op.add", {2, 6, 6, 32}), kRelu}},
      {"nhwc_resnet_tail_residual_first",
       {1, 5, 5, 16},
       {16, 1, 1, 16},
       {},
       true,
       {withOther("cgc_op.add", {1, 5, 5, 16}, /*valueSecond=*/true), kRelu}},
      // The stem: 7×7, stride 2, padding 3, three input channels.
      {"nhwc_resnet_stem",
       {1, 20, 20, 3},
       {16, 7, 7, 3},
       {{2, 2}, {3, 3}, {3, 3}, {}, 1},
       true,
       {kRelu}},
      // MobileNetV2: the first conv (stride 2, three channels) and the
      // expansion with relu6; depthwise 3×3 with relu6, plain and strided;
      // the linear projection with the block's residual.
      {"nhwc_mobilenet_first",
       {1, 16, 16, 3},
       {16, 3, 3, 3},
       {{2, 2}, {1, 1}, {1, 1}, {}, 1},
       true,
       {kRelu6}},
      {"nhwc_mobilenet_expand", {1, 8, 8, 8}, {48, 1, 1, 8}, {}, true, {kRelu6}},
      {"nhwc_mobilenet_depthwise",
       {2, 10, 10, 16},
       {16, 3, 3, 1},
       {{}, {1, 1}, {1, 1}, {}, 16},
       true,
       {kRelu6}},
      {"nhwc_mobilenet_depthwise_strided",
       {1, 9, 9, 24},
       {24, 3, 3, 1},
       {{2, 2}, {1, 1}, {1, 1}, {}, 24},
       true,
       {kRelu6}},
      {"nhwc_mobilenet_project_residual",
       {1, 8, 8, 48},
       {8, 1, 1, 48},
       {},
       true,
       {withOther("cgc_op.add", {1, 8, 8, 8})}},
  };
}

/// The rest: a chain layer cuDNN has no pointwise mode for, broadcast
/// operands on the NHWC result (per channel: the last dimension), clip
/// bounds other than relu6's, asymmetric padding (padded in NHWC), groups
/// and dilations, odd channel counts.
std::vector<NhwcCase> otherCases() {
  Window same3x3{{}, {1, 1}, {1, 1}, {}, 1};
  return {
      {"nhwc_hard_swish", {1, 7, 7, 8}, {8, 3, 3, 8}, same3x3, true, {layer("cgc_op.hard_swish")}},
      {"nhwc_clip_both",
       {2, 7, 7, 6},
       {8, 3, 3, 6},
       same3x3,
       true,
       {layer("cgc_op.clip", "{max = 5.000000e-01, min = -2.500000e-01}")}},
      {"nhwc_scale_shift",
       {2, 7, 7, 8},
       {8, 3, 3, 8},
       same3x3,
       false,
       {withOther("cgc_op.mul", {8}, false, 0.5, 1.5),
        withOther("cgc_op.add", {1, 1, 1, 8}, true), kRelu}},
      {"nhwc_scalar_and_row",
       {1, 6, 7, 8},
       {8, 3, 3, 8},
       same3x3,
       true,
       {withOther("cgc_op.mul", {1}, true, 0.5, 1.5), withOther("cgc_op.add", {7, 8}),
        layer("cgc_op.sigmoid")}},
      {"nhwc_asymmetric_padding",
       {1, 8, 9, 4},
       {6, 3, 3, 4},
       {{1, 2}, {0, 1}, {1, 2}, {}, 1},
       true,
       {kRelu}},
      {"nhwc_grouped_dilated",
       {2, 11, 9, 8},
       {6, 3, 2, 4},
       {{}, {2, 0}, {2, 0}, {2, 1}, 2},
       true,
       {withOther("cgc_op.add", {2, 11, 8, 6}), kRelu6}},
  };
}

std::vector<DefinitionCase> definitionsOf(const std::vector<NhwcCase> &nhwcCases) {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kFloatTypes)
    for (const NhwcCase &fused : nhwcCases)
      definitions.push_back(makeNhwcDefinition(fused, dtype));
  return definitions;
}
std::vector<DefinitionCase> modelDefinitions() { return definitionsOf(modelCases()); }
std::vector<DefinitionCase> otherDefinitions() { return definitionsOf(otherCases()); }
std::vector<DefinitionCase> allDefinitions() {
  std::vector<DefinitionCase> all = modelDefinitions();
  for (DefinitionCase &definition : otherDefinitions())
    all.push_back(std::move(definition));
  return all;
}

CGC_FUSED_KERNEL_CASES(FusedConvolutionNhwcTest, ModelShapes, modelDefinitions)
CGC_FUSED_KERNEL_CASES(FusedConvolutionNhwcTest, OtherShapes, otherDefinitions)

/// Each path forced, launched directly and through graph capture: the
/// epilogue path must run every case; the cuDNN graph those cuDNN has a plan
/// for (how many is reported: on tensor-core GPUs most of the float16 and
/// bfloat16 ones, which NCHW graphs rarely get).
TEST_F(FusedConvolutionNhwcTest, BothPathsMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  unsigned graphCases = 0, cases = 0;
  for (const DefinitionCase &definitionCase : allDefinitions()) {
    expectBothPathsMatchCpu(definitionCase, graphCases);
    ++cases;
  }
  std::cout << "the channels-last cuDNN graph ran " << graphCases << " of " << cases
            << " cases\n";
}

/// A model's identical convolutions build again from the cached algorithm
/// choice and still match.
TEST_F(FusedConvolutionNhwcTest, RepeatedConvolutionsBuildAgain) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  DefinitionCase definitionCase = makeNhwcDefinition(modelCases()[1], DType::F16);
  auto [definition, inputs, expected] = runReference(definitionCase);
  ASSERT_TRUE(definition);
  ASSERT_EQ(expected.size(), 1u);
  for (int build = 0; build < 2; ++build) {
    llvm::Expected<FusedConvolutionKernel> fused =
        buildFusedConvolution(definition, kernelContext->getImpl(),
                              FusedConvolutionPath::ConvolutionThenEpilogue);
    ASSERT_TRUE(static_cast<bool>(fused)) << llvm::toString(fused.takeError());
    std::vector<HostTensor> actual =
        launchOnCuda(fused->kernel, inputs, makeOutputs(definition.getResultTypes()));
    ASSERT_EQ(actual.size(), 1u);
    expectClose(actual[0], expected[0], definitionCase.tolerance,
                "build " + std::to_string(build));
  }
}

/// The cuDNN graph path times its first plans once for a definition, and a
/// second build of the same definition (another layer of a model) takes the
/// kept plan without timing; both match the CPU.
TEST_F(FusedConvolutionNhwcTest, GraphPlanIsTimedOnceAndReused) {
  CGC_REQUIRE_CUDA_DEVICE();
  if (const char *tuning = std::getenv("CGC_CUDA_CUDNN_TUNING");
      !tuning || llvm::StringRef(tuning) != "1")
    GTEST_SKIP() << "cuDNN graph plans are timed only with CGC_CUDA_CUDNN_TUNING=1";
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  // A shape no other test builds, so that this process has not timed it.
  NhwcCase fused = modelCases()[1];
  fused.input[0] = 3;
  DefinitionCase definitionCase = makeNhwcDefinition(fused, DType::F16);
  auto [definition, inputs, expected] = runReference(definitionCase);
  ASSERT_TRUE(definition);
  ASSERT_EQ(expected.size(), 1u);
  int64_t firstEngine = -1;
  for (int build = 0; build < 2; ++build) {
    llvm::Expected<FusedConvolutionKernel> fused =
        buildFusedConvolution(definition, kernelContext->getImpl(),
                              FusedConvolutionPath::CudnnGraph);
    if (!fused) {
      std::string message = llvm::toString(fused.takeError());
      if (build == 0 && message.find("does not run this definition") != std::string::npos)
        GTEST_SKIP() << "cuDNN has no graph plan here: " << message;
      FAIL() << message;
    }
    EXPECT_NE(fused->engine, -1);
    if (build == 0) {
      firstEngine = fused->engine;
      std::cout << "timed " << fused->timedPlans << " plans, kept engine " << fused->engine
                << "\n";
    } else {
      EXPECT_EQ(fused->timedPlans, 0) << "the second build timed again";
      EXPECT_EQ(fused->engine, firstEngine);
    }
    std::vector<HostTensor> actual =
        launchOnCuda(fused->kernel, inputs, makeOutputs(definition.getResultTypes()));
    ASSERT_EQ(actual.size(), 1u);
    expectClose(actual[0], expected[0], definitionCase.tolerance,
                "build " + std::to_string(build));
  }
}

/// Without a device every case compiles its epilogue kernel (and the
/// asymmetric padding's NHWC pad kernel), then stops where cuDNN needs a
/// device; left to choose, a depthwise convolution builds the generated
/// depthwise kernel instead (FusedDepthwiseNhwcTest checks it), and one of
/// at most 8 input channels in float16 or bfloat16 the implicit-GEMM
/// kernel (FusedImplicitGemmNhwcTest).
TEST_F(FusedConvolutionNhwcTest, EpilogueCompiles) {
  for (const DefinitionCase &definitionCase : allDefinitions()) {
    SCOPED_TRACE(definitionCase.describe());
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    bool depthwise = definitionCase.describe().find("depthwise") != std::string::npos;
    for (std::optional<FusedConvolutionPath> path :
         {std::optional<FusedConvolutionPath>(),
          std::optional<FusedConvolutionPath>(FusedConvolutionPath::ConvolutionThenEpilogue)}) {
      std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
      llvm::Expected<FusedConvolutionKernel> fused =
          buildFusedConvolution(definition, *context, path);
      if ((depthwise || takesImplicitGemm(definition)) && !path) {
        ASSERT_TRUE(static_cast<bool>(fused)) << llvm::toString(fused.takeError());
        EXPECT_EQ(fused->path, depthwise ? FusedConvolutionPath::DepthwiseKernel
                                         : FusedConvolutionPath::ImplicitGemm);
        continue;
      }
      ASSERT_FALSE(static_cast<bool>(fused)) << "built without a device";
      std::string message = llvm::toString(fused.takeError());
      EXPECT_NE(message.find("cuDNN needs a device"), std::string::npos) << message;
      bool hasEpilogue = definitionCase.definition.find("%b:") != std::string::npos ||
                         definitionCase.definition.find("%v0") != std::string::npos;
      bool hasPad = definitionCase.describe().find("asymmetric") != std::string::npos;
      EXPECT_EQ(context->getCompiler().getModuleCount() > 0, hasEpilogue || hasPad) << message;
    }
  }
}

TEST_F(FusedConvolutionNhwcTest, ModelShapesAreTheConvolutionFamilys) {
  for (const DefinitionCase &definitionCase : modelDefinitions())
    expectFusedFamily(definitionCase, "convolution");
}

//===----------------------------------------------------------------------===//
// What the channels-last form refuses
//===----------------------------------------------------------------------===//

TEST_F(FusedConvolutionNhwcTest, RejectsOtherPermutations) {
  NhwcCase base{"nhwc_permuted", {1, 6, 6, 8}, {8, 3, 3, 8}, {{}, {1, 1}, {1, 1}, {}, 1}, true,
                {kRelu}};
  // The input read as NWHC (square shapes keep the IR valid).
  Permutations input;
  input.input = "[0, 3, 2, 1]";
  expectFusedRejected(makeNhwcDefinition(base, DType::F16, input),
                      "@nhwc_permuted_float16: fused convolution: channels-last form: the "
                      "input's transpose with permutation [0, 3, 2, 1] is not implemented on "
                      "the CUDA driver (only [0, 3, 1, 2], NHWC to NCHW)");
  Permutations weight;
  weight.weight = "[0, 3, 2, 1]";
  expectFusedRejected(makeNhwcDefinition(base, DType::F32, weight),
                      "the weight's transpose with permutation [0, 3, 2, 1] is not implemented "
                      "on the CUDA driver (only [0, 3, 1, 2], OHWI to OIHW)");
  Permutations output;
  output.output = "[0, 3, 2, 1]";
  expectFusedRejected(makeNhwcDefinition(base, DType::BF16, output),
                      "the result's transpose with permutation [0, 3, 2, 1] is not implemented "
                      "on the CUDA driver (only [0, 2, 3, 1], NCHW to NHWC)");
}

TEST_F(FusedConvolutionNhwcTest, RejectsIncompleteOrOtherRankForms) {
  // The input transposed, the weight already OIHW, the result left NCHW.
  DefinitionCase inputOnly{R"mlir(
    cgc.functional_definition private @input_only(%x: !cgc.tensor<1x4x4x2x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32> {
      %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %c = cgc_op.convolution(%xt, %w) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %r = cgc_op.relu(%c) : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      cgc.return %r : !cgc.tensor<1x2x4x4x!cgc.float32>
    })mlir",
                           {tensor({1, 4, 4, 2}, DType::F32), tensor({2, 2, 1, 1}, DType::F32)},
                           {}};
  expectFusedRejected(inputOnly,
                      "@input_only: fused convolution: channels-last form: the weight is not "
                      "transposed (OHWI to OIHW)");
  // Both operands transposed, the result not.
  DefinitionCase noOutput{R"mlir(
    cgc.functional_definition private @no_output(%x: !cgc.tensor<1x4x4x2x!cgc.float32>, %w: !cgc.tensor<2x1x1x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32> {
      %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x1x1x2x!cgc.float32>) -> !cgc.tensor<2x2x1x1x!cgc.float32>
      %c = cgc_op.convolution(%xt, %wt) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      cgc.return %c : !cgc.tensor<1x2x4x4x!cgc.float32>
    })mlir",
                          {tensor({1, 4, 4, 2}, DType::F32), tensor({2, 1, 1, 2}, DType::F32)},
                          {}};
  expectFusedRejected(noOutput, "channels-last form: the result is not transposed (NCHW to NHWC)");
  // A 1-D convolution in the same form (NWC, [0, 2, 1]).
  DefinitionCase oneD{R"mlir(
    cgc.functional_definition private @one_d(%x: !cgc.tensor<1x9x4x!cgc.float32>, %w: !cgc.tensor<4x3x4x!cgc.float32>) -> !cgc.tensor<1x7x4x!cgc.float32> {
      %xt = cgc_op.transpose(%x) {permutation = [0, 2, 1]} : (!cgc.tensor<1x9x4x!cgc.float32>) -> !cgc.tensor<1x4x9x!cgc.float32>
      %wt = cgc_op.transpose(%w) {permutation = [0, 2, 1]} : (!cgc.tensor<4x3x4x!cgc.float32>) -> !cgc.tensor<4x4x3x!cgc.float32>
      %c = cgc_op.convolution(%xt, %wt) : (!cgc.tensor<1x4x9x!cgc.float32>, !cgc.tensor<4x4x3x!cgc.float32>) -> !cgc.tensor<1x4x7x!cgc.float32>
      %y = cgc_op.transpose(%c) {permutation = [0, 2, 1]} : (!cgc.tensor<1x4x7x!cgc.float32>) -> !cgc.tensor<1x7x4x!cgc.float32>
      cgc.return %y : !cgc.tensor<1x7x4x!cgc.float32>
    })mlir",
                      {tensor({1, 9, 4}, DType::F32), tensor({4, 3, 4}, DType::F32)},
                      {}};
  expectFusedRejected(oneD,
                      "channels-last form: a convolution of rank 3 is not implemented on the "
                      "CUDA driver (only 2-D convolutions, rank 4)");
}

TEST_F(FusedConvolutionNhwcTest, RejectsChainLayersItLacks) {
  NhwcCase withExp{"nhwc_exp", {1, 6, 6, 4}, {4, 3, 3, 4}, {{}, {1, 1}, {1, 1}, {}, 1}, true,
                   {kRelu, layer("cgc_op.exp")}};
  expectFusedRejected(makeNhwcDefinition(withExp, DType::F32),
                      "@nhwc_exp_float32: fused convolution: chain layer cgc_op.exp is not "
                      "implemented on the CUDA driver");
}

TEST_F(FusedConvolutionNhwcTest, LeavesSharedTransposesToOtherFamilies) {
  // The input's transpose also returned: not private to the convolution.
  DefinitionCase shared{R"mlir(
    cgc.functional_definition private @shared(%x: !cgc.tensor<1x4x4x2x!cgc.float32>, %w: !cgc.tensor<2x1x1x2x!cgc.float32>) -> (!cgc.tensor<1x4x4x2x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>) {
      %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x1x1x2x!cgc.float32>) -> !cgc.tensor<2x2x1x1x!cgc.float32>
      %c = cgc_op.convolution(%xt, %wt) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x2x!cgc.float32>
      cgc.return %y, %xt : !cgc.tensor<1x4x4x2x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>
    })mlir",
                        {tensor({1, 4, 4, 2}, DType::F32), tensor({2, 1, 1, 2}, DType::F32)},
                        {}};
  FunctionalDefinitionOp definition = buildDefinition(shared);
  ASSERT_TRUE(definition);
  EXPECT_NE(getFusedFamilyName(definition).str(), "convolution");
  expectFusedRejected(shared);
}

} // namespace
