//===- FusedDepthwiseNhwcTest.cpp - the generated depthwise kernel --------===//
//
// The fused convolution family's generated kernel for channels-last
// depthwise convolutions (DepthwiseConvolution.h) against the CPU driver's
// kernels running the same definition layer by layer, transposes included:
// 3×3 windows of stride 1 and 2 (MobileNetV2's, with relu6), 5×5, 7×7 and a
// 9×9 whose weights do not stay in registers, dilation, asymmetric padding,
// channel counts that take every vector width (8, 4, 2 and 1 channels per
// thread), odd widths (a thread's last run of output pixels cut short),
// a residual add and broadcast operands, in float32, float16 and bfloat16.
// On a device each case runs down the depthwise kernel forced and as the
// driver chooses, launched directly and through graph capture, and once on
// buffers misaligned for vectors; without one, each kernel is compiled and
// the layouts and refusals are checked.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/ConvolutionChain.h"
#include "drivers/cuda/kernels/DepthwiseConvolution.h"
#include "drivers/cuda/kernels/FusedConvolution.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedDepthwiseNhwcTest : public FusedConvolutionPathsTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

/// A depthwise convolution of the N×H×W×C `input` with a `kernel`[0] ×
/// `kernel`[1] window per channel (weight C×R×S×1), groups = C.
NhwcCase depthwise(std::string name, Dims input, Dims kernel, Window convolutionWindow,
                   std::vector<ChainLayer> chain, bool bias = true) {
  int64_t channels = input[3];
  convolutionWindow.groups = channels;
  return NhwcCase{std::move(name),
                  std::move(input),
                  {channels, kernel[0], kernel[1], 1},
                  std::move(convolutionWindow),
                  bias,
                  std::move(chain)};
}

/// The case of `depthwiseCases()` named `name`.
NhwcCase findCase(const std::vector<NhwcCase> &cases, const std::string &name) {
  for (const NhwcCase &fused : cases)
    if (fused.name == name)
      return fused;
  ADD_FAILURE() << "no case " << name;
  return cases.front();
}

/// Strides, start and end padding, dilations.
Window window(Dims strides, Dims startPadding, Dims endPadding, Dims dilations = {}) {
  return Window{std::move(strides), std::move(startPadding), std::move(endPadding),
                std::move(dilations)};
}

std::vector<NhwcCase> depthwiseCases() {
  return {
      // MobileNetV2's: 3×3, padding 1, stride 1 and 2, bias and relu6; odd
      // widths leave a thread's last run short.
      depthwise("dw_3x3", {2, 10, 9, 16}, {3, 3}, window({}, {1, 1}, {1, 1}), {kRelu6}),
      depthwise("dw_3x3_strided", {2, 11, 11, 24}, {3, 3}, window({2, 2}, {1, 1}, {1, 1}),
                {kRelu6}),
      // Larger MobileNetV2-like shapes: several runs per thread, 144 and 960
      // channels (channel vectors split over several blocks).
      depthwise("dw_3x3_144_strided", {2, 28, 27, 144}, {3, 3}, window({2, 2}, {1, 1}, {1, 1}),
                {kRelu6}),
      depthwise("dw_3x3_960", {2, 7, 7, 960}, {3, 3}, window({}, {1, 1}, {1, 1}), {kRelu6}),
      // 5×5 (two channels per thread in float16), 7×7 (one), 9×9 (weights
      // read where they are used).
      depthwise("dw_5x5", {1, 9, 13, 16}, {5, 5}, window({}, {2, 2}, {2, 2}), {kRelu6}),
      depthwise("dw_7x7_strided", {1, 15, 13, 8}, {7, 7}, window({2, 2}, {3, 3}, {3, 3}), {kRelu}),
      depthwise("dw_9x9", {1, 12, 11, 8}, {9, 9}, window({}, {4, 4}, {4, 4}), {kRelu6}),
      // Dilation 2 (the skipped input columns) with stride 2 across W only.
      depthwise("dw_dilated", {1, 12, 11, 8}, {3, 3}, window({1, 2}, {2, 2}, {2, 2}, {2, 2}),
                {kRelu}),
      depthwise("dw_dilated_rect", {2, 9, 14, 16}, {3, 2}, window({}, {2, 1}, {2, 0}, {2, 3}), {}),
      // Asymmetric padding, none at the start of one side.
      depthwise("dw_asymmetric_padding", {1, 8, 9, 16}, {3, 3}, window({1, 2}, {0, 1}, {1, 2}),
                {kRelu6}),
      // Channel counts not a multiple of 8: 36 (4 per thread in float16), 6
      // (2), 5 (1), without bias.
      depthwise("dw_36_channels", {2, 7, 7, 36}, {3, 3}, window({}, {1, 1}, {1, 1}), {kRelu6}),
      depthwise("dw_6_channels", {1, 6, 7, 6}, {3, 3}, window({2, 2}, {1, 1}, {1, 1}), {kRelu6}),
      depthwise("dw_5_channels", {1, 6, 5, 5}, {3, 3}, window({}, {1, 1}, {1, 1}), {kRelu6},
                /*bias=*/false),
      // No padding, no chain; an output one pixel wide.
      depthwise("dw_plain", {1, 5, 6, 8}, {3, 3}, window({}, {}, {}), {}, /*bias=*/false),
      depthwise("dw_one_column", {1, 6, 3, 8}, {3, 3}, window({1, 2}, {1, 0}, {1, 0}), {kRelu}),
      // A residual add of the whole result, then relu6; the residual as the
      // add's first operand.
      depthwise("dw_residual", {2, 8, 7, 32}, {3, 3}, window({}, {1, 1}, {1, 1}),
                {withOther("cgc_op.add", {2, 8, 7, 32}), kRelu6}),
      depthwise("dw_residual_first", {1, 6, 5, 36}, {3, 3}, window({}, {1, 1}, {1, 1}),
                {withOther("cgc_op.add", {1, 6, 5, 36}, /*valueSecond=*/true), kRelu6}),
      // Broadcast operands: per channel, one element, a W×C row, per pixel
      // (N×H×W×1), and a layer cuDNN has no pointwise mode for.
      depthwise("dw_broadcasts", {2, 6, 7, 16}, {3, 3}, window({}, {1, 1}, {1, 1}),
                {withOther("cgc_op.mul", {16}, false, 0.5, 1.5), withOther("cgc_op.add", {1}, true),
                 withOther("cgc_op.add", {7, 16}),
                 withOther("cgc_op.mul", {2, 6, 7, 1}, true, 0.5, 1.5),
                 layer("cgc_op.hard_swish")}),
  };
}

std::vector<DefinitionCase> depthwiseDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kFloatTypes)
    for (const NhwcCase &fused : depthwiseCases())
      definitions.push_back(makeNhwcDefinition(fused, dtype));
  return definitions;
}

/// As the driver builds them: the faster of the depthwise kernel and cuDNN.
CGC_FUSED_KERNEL_CASES(FusedDepthwiseNhwcTest, Depthwise, depthwiseDefinitions)

TEST_F(FusedDepthwiseNhwcTest, DepthwiseKernelMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (const DefinitionCase &definitionCase : depthwiseDefinitions())
    expectForcedPathMatchesCpu(definitionCase, FusedConvolutionPath::DepthwiseKernel);
}

/// Buffers misaligned for vectors run the one-channel-per-thread build: a
/// vector access there would fault (misaligned address).
TEST_F(FusedDepthwiseNhwcTest, MisalignedBuffersMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  std::vector<NhwcCase> cases = depthwiseCases();
  for (DType dtype : kFloatTypes)
    for (const char *name : {"dw_3x3", "dw_3x3_strided", "dw_residual", "dw_broadcasts"})
      expectForcedPathMatchesCpu(makeNhwcDefinition(findCase(cases, name), dtype),
                                 FusedConvolutionPath::DepthwiseKernel, /*misaligned=*/true);
}

/// Without a device every case compiles (the vector build and, where it
/// has more than one channel per thread, the misaligned buffers' build),
/// and the driver's own choice is the depthwise kernel: cuDNN needs a
/// device.
TEST_F(FusedDepthwiseNhwcTest, DepthwiseKernelCompiles) {
  for (const DefinitionCase &definitionCase : depthwiseDefinitions()) {
    SCOPED_TRACE(definitionCase.describe());
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
    for (std::optional<FusedConvolutionPath> path :
         {std::optional<FusedConvolutionPath>(),
          std::optional<FusedConvolutionPath>(FusedConvolutionPath::DepthwiseKernel)}) {
      llvm::Expected<FusedConvolutionKernel> fused =
          buildFusedConvolution(definition, *context, path);
      ASSERT_TRUE(static_cast<bool>(fused)) << llvm::toString(fused.takeError());
      EXPECT_EQ(fused->path, FusedConvolutionPath::DepthwiseKernel);
    }
    // The vector build and, with more than one channel per thread, the
    // one-channel build; the second build found both compiled.
    EXPECT_GE(context->getCompiler().getModuleCount(), 1u);
    EXPECT_LE(context->getCompiler().getModuleCount(), 2u);
  }
}

/// One source per loop structure: the two float16 3×3 convolutions of a
/// stride differ only in shape and share their modules.
TEST_F(FusedDepthwiseNhwcTest, ShapesShareSources) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  auto build = [&](const NhwcCase &fused) {
    FunctionalDefinitionOp definition = buildDefinition(makeNhwcDefinition(fused, DType::F16));
    ASSERT_TRUE(definition);
    llvm::Expected<FusedConvolutionKernel> kernel =
        buildFusedConvolution(definition, *context, FusedConvolutionPath::DepthwiseKernel);
    ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  };
  build(depthwise("dw_a", {2, 10, 9, 16}, {3, 3}, window({}, {1, 1}, {1, 1}), {kRelu6}));
  // The vector build and the one-channel build.
  EXPECT_EQ(context->getCompiler().getModuleCount(), 2u);
  build(depthwise("dw_b", {1, 14, 14, 96}, {3, 3}, window({}, {1, 1}, {1, 1}), {kRelu6}));
  EXPECT_EQ(context->getCompiler().getModuleCount(), 2u);
  build(depthwise("dw_c", {1, 14, 14, 96}, {3, 3}, window({2, 2}, {1, 1}, {1, 1}), {kRelu6}));
  EXPECT_EQ(context->getCompiler().getModuleCount(), 4u);
}

/// Vectors of 16 bytes where the channel count allows, narrower for large
/// windows (their weights are staged in shared memory), one channel
/// otherwise; runs as long as a window row's loads and the sums fit.
TEST_F(FusedDepthwiseNhwcTest, ChoosesLayouts) {
  struct Expected {
    DType dtype;
    int64_t channels, kernel, outputWidth;
    int64_t vector, run;
    bool weightsStaged;
  };
  const Expected cases[] = {
      {DType::F16, 96, 3, 112, 8, 2, true}, {DType::BF16, 32, 3, 56, 8, 2, true},
      {DType::F32, 96, 3, 56, 4, 4, true},  {DType::F16, 36, 3, 7, 4, 4, true},
      {DType::F16, 6, 3, 7, 2, 4, true},    {DType::F32, 35, 3, 7, 1, 4, true},
      {DType::F16, 16, 5, 13, 2, 4, true},  {DType::F32, 16, 5, 13, 2, 4, true},
      {DType::F16, 16, 7, 7, 1, 4, true},   {DType::F16, 8, 9, 11, 1, 1, false},
      {DType::F16, 96, 3, 1, 8, 1, true},   {DType::F32, 960, 3, 2, 4, 2, true},
  };
  for (const Expected &expected : cases) {
    DepthwiseLayout layout = getDepthwiseLayout(expected.dtype, expected.channels, expected.kernel,
                                                expected.kernel, expected.outputWidth);
    std::string what = dtypeName(expected.dtype) + " C=" + std::to_string(expected.channels) + " " +
                       std::to_string(expected.kernel) + "x" + std::to_string(expected.kernel);
    EXPECT_EQ(layout.vector, expected.vector) << what;
    EXPECT_EQ(layout.run, expected.run) << what;
    EXPECT_EQ(layout.weightsStaged, expected.weightsStaged) << what;
  }
  // The misaligned buffers' build: one channel per thread.
  EXPECT_EQ(getDepthwiseLayout(DType::F16, 96, 3, 3, 112, /*maxVector=*/1).vector, 1);
  // Stride 2: a run of 4 float32 outputs would load 9 columns of 4 floats
  // besides its 16 sums (52 floats of registers); 3 loads 7 (40).
  EXPECT_EQ(getDepthwiseLayout(DType::F32, 96, 3, 3, 56, 8, /*strideWidth=*/2).run, 3);
  EXPECT_EQ(getDepthwiseLayout(DType::F32, 96, 3, 3, 56, 8, /*strideWidth=*/1).run, 4);
  EXPECT_EQ(getDepthwiseLayout(DType::F16, 96, 3, 3, 56, 8, /*strideWidth=*/2).run, 2);
}

/// Grouped convolutions that are not depthwise, a channel multiplier of 2,
/// and a channels-first depthwise convolution are not the kernel's.
TEST_F(FusedDepthwiseNhwcTest, RefusesOtherConvolutions) {
  NhwcCase grouped{"nhwc_grouped", {1, 6, 6, 8}, {8, 3, 3, 4}, window({}, {1, 1}, {1, 1}),
                   true,           {kRelu6}};
  grouped.window.groups = 2;
  NhwcCase multiplier{"nhwc_multiplier",          {1, 6, 6, 8}, {16, 3, 3, 1},
                      window({}, {1, 1}, {1, 1}), true,         {kRelu6}};
  multiplier.window.groups = 8;
  NhwcCase dense{"nhwc_dense", {1, 6, 6, 8}, {8, 3, 3, 8}, window({}, {1, 1}, {1, 1}),
                 true,         {kRelu6}};
  struct Refused {
    DefinitionCase definition;
    std::string reason;
  };
  const Refused refused[] = {
      {makeNhwcDefinition(grouped, DType::F16),
       "not depthwise: groups = 2 with 8 input and 8 output channels"},
      {makeNhwcDefinition(multiplier, DType::F16),
       "not depthwise: groups = 8 with 8 input and 16 output channels"},
      {makeNhwcDefinition(dense, DType::F32),
       "not depthwise: groups = 1 with 8 input and 8 output channels"},
      {DefinitionCase{R"mlir(
    cgc.functional_definition private @nchw_depthwise(%x: !cgc.tensor<1x8x6x6x!cgc.float16>, %w: !cgc.tensor<8x1x3x3x!cgc.float16>) -> !cgc.tensor<1x8x6x6x!cgc.float16> {
      %c = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1], groups = 8 : i64} : (!cgc.tensor<1x8x6x6x!cgc.float16>, !cgc.tensor<8x1x3x3x!cgc.float16>) -> !cgc.tensor<1x8x6x6x!cgc.float16>
      cgc.return %c : !cgc.tensor<1x8x6x6x!cgc.float16>
    })mlir",
                      {tensor({1, 8, 6, 6}, DType::F16), tensor({8, 1, 3, 3}, DType::F16)},
                      {}},
       "the convolution is channels-first"},
  };
  for (const Refused &case_ : refused) {
    SCOPED_TRACE(case_.definition.describe());
    FunctionalDefinitionOp definition = buildDefinition(case_.definition);
    ASSERT_TRUE(definition);
    std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
    llvm::Expected<FusedConvolutionKernel> forced =
        buildFusedConvolution(definition, *context, FusedConvolutionPath::DepthwiseKernel);
    ASSERT_FALSE(static_cast<bool>(forced)) << "the depthwise kernel ran it";
    std::string message = llvm::toString(forced.takeError());
    EXPECT_NE(message.find("fused convolution: the generated depthwise kernel does not run this "
                           "definition: " +
                           case_.reason),
              std::string::npos)
        << message;
    EXPECT_EQ(context->getCompiler().getModuleCount(), 0u);
    // Left to choose, these go to cuDNN, which needs a device.
    llvm::Expected<FusedConvolutionKernel> chosen = buildFusedConvolution(definition, *context);
    ASSERT_FALSE(static_cast<bool>(chosen));
    message = llvm::toString(chosen.takeError());
    EXPECT_NE(message.find("cuDNN needs a device"), std::string::npos) << message;
  }
}

} // namespace
