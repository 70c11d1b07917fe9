//===- FusedGemmNhwcTest.cpp - channels-last convolutions as cuBLASLt GEMMs ===//
//
// The fused convolution family's GEMM path (GemmConvolution.h) against the
// CPU driver's kernels running the same definition layer by layer,
// transposes included: pointwise convolutions with the chains MobileNetV2
// and ResNet give them (bias; bias and relu; bias and relu6; a residual
// add, with and without a relu after it), what cuBLASLt's epilogue takes
// of other chains and what it leaves to the generated epilogue, channel
// counts too odd for 16-byte alignment, convolutions whose windows do
// not overlap (ViT's patch embedding, strided 1×1, dilated windows, a
// window the size of the image), and im2col's first convolutions of three
// channels (MobileNetV2's 3×3/2 and ResNet's 7×7/2, padded, overlapping,
// dilated), in float32, float16 and bfloat16. On a device each case runs
// down the GEMM forced and as the driver chooses, launched directly and
// through graph capture; without one, the split of the epilogue is
// checked, the gather and epilogue kernels are compiled, and the refusals
// are checked.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/ConvolutionChain.h"
#include "drivers/cuda/kernels/FusedConvolution.h"
#include "drivers/cuda/kernels/GemmConvolution.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedGemmNhwcTest : public FusedConvolutionPathsTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

const ChainLayer kClipBoth = layer("cgc_op.clip", "{max = 5.000000e-01, min = -2.500000e-01}");

/// Strides and dilations of an unpadded convolution.
Window unpadded(Dims strides, Dims dilations = {}) {
  return Window{std::move(strides), {}, {}, std::move(dilations)};
}

/// A padded window.
Window padded(Dims strides, Dims startPadding, Dims endPadding, Dims dilations = {}) {
  return Window{std::move(strides), std::move(startPadding), std::move(endPadding),
                std::move(dilations)};
}

/// A case and how the GEMM path divides it.
struct GemmCase {
  NhwcCase convolution;
  /// The input is gathered into the workspace (windows other than 1×1 of
  /// stride 1).
  bool gathers = false;
  /// What cuBLASLt's epilogue applies: the bias, a residual add as its C,
  /// a relu; and how many chain layers that covers.
  bool libraryBias = false, residual = false, relu = false;
  size_t stepsApplied = 0;
  /// Whether anything is left to the generated epilogue.
  bool generated = false;
};

std::vector<GemmCase> gemmCases() {
  return {
      // MobileNetV2's and ResNet's pointwise convolutions: bias only; bias
      // and relu; the expansion with relu6 (clip: generated); the
      // projection with the block's residual; the bottleneck tail's
      // residual and relu.
      {{"gemm_bias", {2, 6, 5, 16}, {24, 1, 1, 16}, {}, true, {}}, false, true},
      {{"gemm_bias_relu", {1, 8, 8, 8}, {32, 1, 1, 8}, {}, true, {kRelu}},
       false,
       true,
       false,
       true,
       1},
      {{"gemm_bias_relu6", {1, 8, 8, 8}, {48, 1, 1, 8}, {}, true, {kRelu6}},
       false,
       true,
       false,
       false,
       0,
       true},
      {{"gemm_bias_residual",
        {1, 8, 8, 48},
        {8, 1, 1, 48},
        {},
        true,
        {withOther("cgc_op.add", {1, 8, 8, 8})}},
       false,
       true,
       true,
       false,
       1},
      {{"gemm_bias_residual_relu",
        {2, 6, 6, 16},
        {32, 1, 1, 16},
        {},
        true,
        {withOther("cgc_op.add", {2, 6, 6, 32}), kRelu}},
       false,
       true,
       true,
       true,
       2},
      // The residual as the add's first operand, broadcast from one rank
      // less (the same memory).
      {{"gemm_residual_first",
        {1, 5, 5, 16},
        {16, 1, 1, 16},
        {},
        true,
        {withOther("cgc_op.add", {5, 5, 16}, /*valueSecond=*/true), kRelu}},
       false,
       true,
       true,
       true,
       2},
      // Without the convolution's bias: a relu alone; a per-channel add is
      // cuBLASLt's bias.
      {{"gemm_relu", {1, 6, 6, 8}, {16, 1, 1, 8}, {}, false, {kRelu}},
       false,
       false,
       false,
       true,
       1},
      {{"gemm_channel_add",
        {2, 5, 6, 8},
        {16, 1, 1, 8},
        {},
        false,
        {withOther("cgc_op.add", {1, 1, 1, 16}, true), kRelu}},
       false,
       true,
       false,
       true,
       2},
      // What cuBLASLt leaves: the clip after its relu, hard_swish after its
      // residual, and a W×K operand with everything after it.
      {{"gemm_relu_then_clip", {1, 6, 5, 8}, {16, 1, 1, 8}, {}, true, {kRelu, kClipBoth}},
       false,
       true,
       false,
       true,
       1,
       true},
      {{"gemm_residual_hard_swish",
        {1, 6, 5, 8},
        {16, 1, 1, 8},
        {},
        true,
        {withOther("cgc_op.add", {1, 6, 5, 16}), layer("cgc_op.hard_swish")}},
       false,
       true,
       true,
       false,
       1,
       true},
      {{"gemm_row_add",
        {2, 4, 5, 16},
        {16, 1, 1, 16},
        {},
        true,
        {withOther("cgc_op.add", {5, 16}), kRelu}},
       false,
       true,
       false,
       false,
       0,
       true},
      // Three input and five output channels: rows not 16-byte aligned
      // (cuBLASLt's element-aligned algorithm).
      {{"gemm_odd_channels", {1, 5, 7, 3}, {5, 1, 1, 3}, {}, true, {kRelu6}},
       false,
       true,
       false,
       false,
       0,
       true},
      {{"gemm_plain", {1, 4, 6, 8}, {8, 1, 1, 8}, {}, false, {}}},
      // Windows that do not overlap, gathered into the workspace: ViT's
      // patch embedding (16×16/16 from three channels, here 4×4/4); 3×3/3
      // windows leaving a row and a column out; ResNet's strided 1×1
      // shortcut with a residual; dilated 2×2 windows of stride 4.
      {{"gemm_patchify", {2, 16, 16, 3}, {32, 4, 4, 3}, unpadded({4, 4}), true, {}}, true, true},
      {{"gemm_patchify_uneven", {2, 10, 11, 3}, {16, 3, 3, 3}, unpadded({3, 3}), true, {kRelu6}},
       true,
       true,
       false,
       false,
       0,
       true},
      {{"gemm_pointwise_strided",
        {2, 9, 9, 16},
        {32, 1, 1, 16},
        unpadded({2, 2}),
        true,
        {withOther("cgc_op.add", {2, 5, 5, 32}), kRelu}},
       true,
       true,
       true,
       true,
       2},
      {{"gemm_dilated_windows",
        {1, 12, 12, 4},
        {8, 2, 2, 4},
        unpadded({4, 4}, {2, 2}),
        true,
        {kRelu}},
       true,
       true,
       false,
       true,
       1},
      // One window covering the image: the input is the matrix already.
      {{"gemm_whole_image", {2, 4, 4, 8}, {16, 4, 4, 8}, {}, true, {kRelu}},
       false,
       true,
       false,
       true,
       1},
      // im2col, three input channels: MobileNetV2's first convolution
      // (3×3/2, pad 1, 3 → 32, relu6; 27 columns padded to 32) and
      // ResNet's (7×7/2, pad 3, 3 → 64, relu; 147 padded to 152), the
      // latter with a clip after the relu too.
      {{"gemm_im2col_mobilenet_stem",
        {1, 32, 32, 3},
        {32, 3, 3, 3},
        padded({2, 2}, {1, 1}, {1, 1}),
        true,
        {kRelu6}},
       true,
       true,
       false,
       false,
       0,
       true},
      {{"gemm_im2col_resnet_stem",
        {2, 20, 20, 3},
        {64, 7, 7, 3},
        padded({2, 2}, {3, 3}, {3, 3}),
        true,
        {kRelu}},
       true,
       true,
       false,
       true,
       1},
      {{"gemm_im2col_resnet_stem_clip",
        {2, 20, 20, 3},
        {64, 7, 7, 3},
        padded({2, 2}, {3, 3}, {3, 3}),
        false,
        {kRelu, kClipBoth}},
       true,
       false,
       false,
       true,
       1,
       true},
      // Uneven padding, dilation along H and a stride along W only, no
      // bias; and overlapping windows whose 8 columns need no padding
      // (the weight is read as it is).
      {{"gemm_im2col_dilated",
        {1, 9, 10, 4},
        {8, 3, 3, 4},
        padded({1, 2}, {2, 0}, {1, 1}, {2, 1}),
        false,
        {kRelu6}},
       true,
       false,
       false,
       false,
       0,
       true},
      {{"gemm_im2col_aligned_columns", {1, 7, 7, 2}, {16, 2, 2, 2}, {}, true, {}}, true, true},
  };
}

std::vector<DefinitionCase> gemmDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kFloatTypes)
    for (const GemmCase &gemm : gemmCases())
      definitions.push_back(makeNhwcDefinition(gemm.convolution, dtype));
  return definitions;
}

/// As the driver builds them: the faster of the GEMM and cuDNN.
CGC_FUSED_KERNEL_CASES(FusedGemmNhwcTest, Gemm, gemmDefinitions)

/// The GEMM forced (what CGC_CUDA_CONVOLUTION=gemm does), launched directly
/// and through graph capture.
TEST_F(FusedGemmNhwcTest, GemmPathMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (const DefinitionCase &definitionCase : gemmDefinitions())
    expectForcedPathMatchesCpu(definitionCase, FusedConvolutionPath::Gemm);
}

/// The family's reading of `definition` (which it must recognize).
std::optional<FusedConvolutionShape> analyze(FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<FusedConvolutionShape>> analyzed =
      analyzeFusedConvolution(definition);
  if (!analyzed) {
    ADD_FAILURE() << "not the convolution family's";
    return std::nullopt;
  }
  if (!*analyzed) {
    ADD_FAILURE() << llvm::toString(analyzed->takeError());
    return std::nullopt;
  }
  return std::move(**analyzed);
}

/// cuBLASLt's epilogue takes the bias, whole-result and per-channel adds
/// and a relu after them; the generated one starts after what it took.
TEST_F(FusedGemmNhwcTest, SplitsTheEpilogue) {
  for (const GemmCase &gemm : gemmCases()) {
    DefinitionCase definitionCase = makeNhwcDefinition(gemm.convolution, DType::F16);
    SCOPED_TRACE(definitionCase.describe());
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    std::optional<FusedConvolutionShape> shape = analyze(definition);
    ASSERT_TRUE(shape);
    EXPECT_EQ(getGemmRefusal(*shape), std::nullopt);
    GemmEpilogueSplit split = splitGemmEpilogue(definition, *shape);
    EXPECT_EQ(split.library.bias, gemm.libraryBias);
    EXPECT_EQ(split.bias.has_value(), gemm.libraryBias);
    EXPECT_EQ(split.residual.has_value(), gemm.residual);
    EXPECT_EQ(split.library.activation == ProductEpilogue::Activation::Relu, gemm.relu);
    EXPECT_EQ(split.start.stepsApplied, gemm.stepsApplied);
    EXPECT_EQ(split.start.biasApplied, gemm.convolution.bias);
    // Nothing for cuBLASLt's epilogue leaves the whole chain generated.
    GemmEpilogueSplit none = splitGemmEpilogue(definition, *shape, false, false);
    EXPECT_FALSE(none.library.bias || none.residual || none.bias);
    EXPECT_EQ(none.library.activation, ProductEpilogue::Activation::None);
    EXPECT_FALSE(none.start.biasApplied);
    EXPECT_EQ(none.start.stepsApplied, 0u);
    // Without the relu, a relu that the additions led to stays generated.
    GemmEpilogueSplit additions = splitGemmEpilogue(definition, *shape, true, false);
    EXPECT_EQ(additions.library.activation, ProductEpilogue::Activation::None);
    EXPECT_EQ(additions.start.stepsApplied, gemm.stepsApplied - (gemm.relu ? 1 : 0));
  }
}

/// Without a device the GEMM forced compiles the gather (windows other than
/// 1×1 of stride 1) and the generated epilogue (what cuBLASLt leaves), then
/// stops where cuBLASLt needs a device. Left to choose, the family keeps
/// cuDNN's order: its epilogue compiles, then cuDNN needs a device; except
/// that the implicit-GEMM kernel, which needs no library, runs the cases it
/// takes (at most 8 input channels, float16 or bfloat16).
TEST_F(FusedGemmNhwcTest, GemmPathCompiles) {
  for (DType dtype : kFloatTypes)
    for (const GemmCase &gemm : gemmCases()) {
      DefinitionCase definitionCase = makeNhwcDefinition(gemm.convolution, dtype);
      SCOPED_TRACE(definitionCase.describe());
      FunctionalDefinitionOp definition = buildDefinition(definitionCase);
      ASSERT_TRUE(definition);
      std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
      llvm::Expected<FusedConvolutionKernel> forced =
          buildFusedConvolution(definition, *context, FusedConvolutionPath::Gemm);
      ASSERT_FALSE(static_cast<bool>(forced)) << "built without a device";
      std::string message = llvm::toString(forced.takeError());
      EXPECT_NE(message.find("cuBLASLt needs a device"), std::string::npos) << message;
      EXPECT_EQ(context->getCompiler().getModuleCount(),
                static_cast<size_t>(gemm.gathers) + static_cast<size_t>(gemm.generated))
          << message;

      std::unique_ptr<KernelContext::Impl> choosing = KernelContext::Impl::createCompileOnly(9, 0);
      llvm::Expected<FusedConvolutionKernel> chosen = buildFusedConvolution(definition, *choosing);
      if (takesImplicitGemm(definition)) {
        ASSERT_TRUE(static_cast<bool>(chosen)) << llvm::toString(chosen.takeError());
        EXPECT_EQ(chosen->path, FusedConvolutionPath::ImplicitGemm);
        continue;
      }
      ASSERT_FALSE(static_cast<bool>(chosen)) << "built without a device";
      message = llvm::toString(chosen.takeError());
      EXPECT_NE(message.find("cuDNN needs a device"), std::string::npos) << message;
    }
}

/// Overlapping windows and padding with 8 channels or more (or past the
/// workspace cap), groups and the channels-first form are not the GEMM's;
/// forced, each is an error that compiles nothing.
TEST_F(FusedGemmNhwcTest, RefusesOtherConvolutions) {
  NhwcCase same3x3{"nhwc_same_3x3", {1, 6, 6, 8}, {8, 3, 3, 8}, {{}, {1, 1}, {1, 1}, {}, 1}, true,
                   {kRelu}};
  NhwcCase valid3x3{"nhwc_valid_3x3", {1, 6, 6, 8}, {8, 3, 3, 8}, {}, true, {kRelu}};
  NhwcCase overlapW{"nhwc_overlap_w", {1, 8, 8, 8}, {8, 2, 3, 8}, unpadded({2, 2}), true, {}};
  // ResNet's first convolution at stride 1 on 16 224×224 images: 465 MiB
  // of float32 windows.
  NhwcCase tooLarge{"nhwc_im2col_too_large",
                    {16, 224, 224, 3},
                    {64, 7, 7, 3},
                    padded({1, 1}, {3, 3}, {3, 3}),
                    true,
                    {kRelu}};
  NhwcCase grouped{"nhwc_grouped_1x1", {1, 6, 6, 8}, {8, 1, 1, 4}, {}, true, {kRelu}};
  grouped.window.groups = 2;
  struct Refused {
    DefinitionCase definition;
    std::string reason;
  };
  const Refused refused[] = {
      {makeNhwcDefinition(same3x3, DType::F16),
       "the convolution is padded with 8 input channels (im2col only for fewer than 8)"},
      {makeNhwcDefinition(valid3x3, DType::F16), "windows overlap along H (stride 1, window "
                                                 "extent 3) with 8 input channels"},
      {makeNhwcDefinition(overlapW, DType::F32), "windows overlap along W (stride 2, window "
                                                 "extent 3) with 8 input channels"},
      {makeNhwcDefinition(tooLarge, DType::F32),
       "the convolution is padded and im2col would take 465 MiB of workspace (at most 256)"},
      {makeNhwcDefinition(grouped, DType::F32), "groups = 2 (the GEMM needs 1)"},
      {DefinitionCase{R"mlir(
    cgc.functional_definition private @nchw_pointwise(%x: !cgc.tensor<1x8x6x6x!cgc.float16>, %w: !cgc.tensor<16x8x1x1x!cgc.float16>) -> !cgc.tensor<1x16x6x6x!cgc.float16> {
      %c = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x8x6x6x!cgc.float16>, !cgc.tensor<16x8x1x1x!cgc.float16>) -> !cgc.tensor<1x16x6x6x!cgc.float16>
      %r = cgc_op.relu(%c) : (!cgc.tensor<1x16x6x6x!cgc.float16>) -> !cgc.tensor<1x16x6x6x!cgc.float16>
      cgc.return %r : !cgc.tensor<1x16x6x6x!cgc.float16>
    })mlir",
                      {tensor({1, 8, 6, 6}, DType::F16), tensor({16, 8, 1, 1}, DType::F16)},
                      {}},
       "the convolution is channels-first"},
  };
  for (const Refused &case_ : refused) {
    SCOPED_TRACE(case_.definition.describe());
    FunctionalDefinitionOp definition = buildDefinition(case_.definition);
    ASSERT_TRUE(definition);
    std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
    llvm::Expected<FusedConvolutionKernel> forced =
        buildFusedConvolution(definition, *context, FusedConvolutionPath::Gemm);
    ASSERT_FALSE(static_cast<bool>(forced)) << "the GEMM ran it";
    std::string message = llvm::toString(forced.takeError());
    EXPECT_NE(message.find("fused convolution: the cuBLASLt GEMM does not run this definition: " +
                           case_.reason),
              std::string::npos)
        << message;
    EXPECT_EQ(context->getCompiler().getModuleCount(), 0u);
  }
}

/// The im2col gather compiles for every element width, with 32- and 64-bit
/// indices; its groups cover the padded matrix, then the padded weight
/// only where R·S·C is not a multiple of 8.
TEST_F(FusedGemmNhwcTest, WindowGatherCompiles) {
  // MobileNetV2's first convolution at batch 32: 112×112 outputs, 27
  // columns padded to 32 (4 groups a row), the 32×27 weight padded too.
  GemmGeometry mobilenet;
  mobilenet.batch = 32;
  mobilenet.height = mobilenet.width = 224;
  mobilenet.channels = 3;
  mobilenet.outHeight = mobilenet.outWidth = 112;
  mobilenet.outChannels = 32;
  mobilenet.kernelHeight = mobilenet.kernelWidth = 3;
  mobilenet.strideHeight = mobilenet.strideWidth = 2;
  mobilenet.padTop = mobilenet.padLeft = 1;
  EXPECT_EQ(mobilenet.getWindowElements(), 27);
  EXPECT_EQ(mobilenet.getPaddedWindowElements(), 32);
  EXPECT_EQ(getWindowGatherGroups(mobilenet), 32 * 112 * 112 * 4 + 32 * 4);
  // Two channels in 2×2 windows: 8 columns, the weight read as it is.
  GemmGeometry aligned = mobilenet;
  aligned.channels = 2;
  aligned.kernelHeight = aligned.kernelWidth = 2;
  EXPECT_EQ(aligned.getPaddedWindowElements(), 8);
  EXPECT_EQ(getWindowGatherGroups(aligned), 32 * 112 * 112);

  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  size_t sources = 0;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::F64})
    for (bool narrow : {true, false})
      for (const GemmGeometry *geometry : {&mobilenet, &aligned}) {
        std::string source = generateWindowGatherSource(*geometry, dtype, narrow);
        SCOPED_TRACE(source);
        EXPECT_NE(source.find(narrow ? "typedef int cgc_index;" : "typedef long long cgc_index;"),
                  std::string::npos);
        llvm::Expected<DeviceFunction> function =
            context->getCompiler().getFunction(source, kWindowGatherKernel);
        ASSERT_TRUE(static_cast<bool>(function)) << llvm::toString(function.takeError());
        ++sources;
      }
  // One module per element width (16-bit types share one), index width and
  // geometry.
  EXPECT_EQ(context->getCompiler().getModuleCount(), sources - 4);
}

/// CGC_CUDA_CONVOLUTION's values.
TEST_F(FusedGemmNhwcTest, NamesThePathsTheEnvironmentForces) {
  EXPECT_EQ(parseFusedConvolutionPath("gemm"), FusedConvolutionPath::Gemm);
  EXPECT_EQ(parseFusedConvolutionPath("graph"), FusedConvolutionPath::CudnnGraph);
  EXPECT_EQ(parseFusedConvolutionPath("library"), FusedConvolutionPath::ConvolutionThenEpilogue);
  EXPECT_EQ(parseFusedConvolutionPath("auto"), std::nullopt);
  EXPECT_EQ(parseFusedConvolutionPath(""), std::nullopt);
}

} // namespace
