//===- FusedImplicitGemmNhwcTest.cpp - few-channel convolutions on tensor cores ===//
//
// The fused convolution family's implicit-GEMM kernel
// (ImplicitGemmConvolution.h) against the CPU driver's kernels running the
// same definition layer by layer, transposes included: ResNet-50's 7×7/2
// first layer and MobileNetV2's 3×3/2 with their chains, and the edges of
// the kernel's tiling and gather: one input channel, eight (a 4×6 window of
// 192 elements, the most), dilated windows, a residual add,
// output channels that fill two column blocks and part of a third, pixel
// counts that end inside a block, no bias, rows whose bands are copied
// element by element (not whole 16-byte runs), more tiles than persistent
// blocks, one band buffer where two do not fit; in float16 and bfloat16. On a
// device each case runs down the kernel forced (directly and through graph
// capture) and as the driver chooses, and with buffers misaligned for
// vectors; without one, each case compiles and the refusals are checked.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/ConvolutionChain.h"
#include "drivers/cuda/kernels/FusedConvolution.h"
#include "drivers/cuda/kernels/ImplicitGemmConvolution.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedImplicitGemmNhwcTest : public FusedConvolutionPathsTest {};

const DType kTensorCoreTypes[] = {DType::F16, DType::BF16};

Window padded(Dims strides, Dims startPadding, Dims endPadding, Dims dilations = {}) {
  return Window{std::move(strides), std::move(startPadding), std::move(endPadding),
                std::move(dilations)};
}

std::vector<NhwcCase> implicitCases() {
  return {
      // ResNet-50's first layer (7×7/2, pad 3, 3 → 64 channels, bias, relu)
      // on a small image.
      {"implicit_resnet_stem", {2, 22, 20, 3}, {64, 7, 7, 3}, padded({2, 2}, {3, 3}, {3, 3}),
       true, {kRelu}},
      // MobileNetV2's (3×3/2, pad 1, 3 → 32 channels, relu6).
      {"implicit_mobilenet_stem", {1, 17, 16, 3}, {32, 3, 3, 3}, padded({2, 2}, {1, 1}, {1, 1}),
       true, {kRelu6}},
      // One input channel; eight with a 4×6 window (192 elements, the
      // most: 6 chunks of 32).
      {"implicit_one_channel", {2, 9, 10, 1}, {16, 3, 3, 1}, padded({1, 1}, {1, 1}, {1, 1}), true,
       {kRelu}},
      {"implicit_eight_channels", {1, 12, 11, 8}, {24, 4, 6, 8}, padded({1, 2}, {2, 2}, {1, 1}),
       true, {}},
      // Dilated windows, asymmetric padding, a residual add after the
      // bias.
      {"implicit_dilated_residual",
       {1, 13, 14, 4},
       {16, 3, 3, 4},
       padded({1, 1}, {2, 1}, {1, 2}, {2, 2}),
       true,
       {withOther("cgc_op.add", {1, 12, 13, 16}), kRelu}},
      // 136 output channels: two full column blocks and 8 of a third; no
      // bias, no chain.
      {"implicit_wide", {1, 6, 7, 3}, {136, 3, 3, 3}, padded({1, 1}, {1, 1}, {1, 1}), false, {}},
      // 8 output channels, an unpadded window reading the image's edge.
      {"implicit_narrow", {3, 7, 9, 2}, {8, 2, 3, 2}, padded({1, 2}, {0, 0}, {0, 0}), true,
       {kRelu6}},
      // ResNet-50's first layer at full size: 98 tiles an image, some
      // reaching into three output rows; 588 tiles, more than a device's
      // persistent blocks (264 on an H100), so blocks go on to further
      // tiles and bands.
      {"implicit_resnet_stem_full", {6, 224, 224, 3}, {64, 7, 7, 3},
       padded({2, 2}, {3, 3}, {3, 3}), true, {kRelu}},
      // Rows so long that only one band fits beside the weights and A
      // tiles (two would take 100 KiB): copied after each tile's barrier.
      {"implicit_one_band", {1, 40, 1600, 3}, {64, 3, 3, 3}, padded({1, 1}, {1, 1}, {1, 1}),
       true, {kRelu}},
  };
}

std::vector<DefinitionCase> implicitDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kTensorCoreTypes)
    for (const NhwcCase &fused : implicitCases())
      definitions.push_back(makeNhwcDefinition(fused, dtype));
  return definitions;
}

/// As the driver builds them: the fastest of the implicit-GEMM kernel, the
/// GEMM and cuDNN.
CGC_FUSED_KERNEL_CASES(FusedImplicitGemmNhwcTest, Implicit, implicitDefinitions)

TEST_F(FusedImplicitGemmNhwcTest, ImplicitKernelMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (const DefinitionCase &definitionCase : implicitDefinitions())
    expectForcedPathMatchesCpu(definitionCase, FusedConvolutionPath::ImplicitGemm);
}

/// Buffers one element past a 256-byte boundary: the output is stored
/// element by element (a 16-byte store would fault).
TEST_F(FusedImplicitGemmNhwcTest, MisalignedBuffersMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (const DefinitionCase &definitionCase : implicitDefinitions())
    expectForcedPathMatchesCpu(definitionCase, FusedConvolutionPath::ImplicitGemm,
                               /*misaligned=*/true);
}

/// Without a device every case compiles, one module per geometry, and the
/// driver's own choice is the kernel (the GEMM and cuDNN need a device).
TEST_F(FusedImplicitGemmNhwcTest, ImplicitKernelCompiles) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  size_t built = 0;
  for (const DefinitionCase &definitionCase : implicitDefinitions()) {
    SCOPED_TRACE(definitionCase.describe());
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    for (std::optional<FusedConvolutionPath> path :
         {std::optional<FusedConvolutionPath>(FusedConvolutionPath::ImplicitGemm),
          std::optional<FusedConvolutionPath>()}) {
      llvm::Expected<FusedConvolutionKernel> fused =
          buildFusedConvolution(definition, *context, path);
      ASSERT_TRUE(static_cast<bool>(fused)) << llvm::toString(fused.takeError());
      EXPECT_EQ(fused->path, FusedConvolutionPath::ImplicitGemm);
    }
    // The second build found the module compiled.
    EXPECT_EQ(context->getCompiler().getModuleCount(), ++built);
  }
}

/// What the kernel does not take, and why: the forced path is an error
/// naming the reason, and nothing is compiled.
TEST_F(FusedImplicitGemmNhwcTest, RefusesOtherConvolutions) {
  NhwcCase manyChannels{"many_channels", {1, 6, 6, 16}, {16, 3, 3, 16},
                        padded({1, 1}, {1, 1}, {1, 1}), true, {kRelu}};
  NhwcCase largeWindow{"large_window", {1, 12, 12, 8}, {16, 7, 7, 8},
                       padded({1, 1}, {3, 3}, {3, 3}), true, {}};
  NhwcCase oddOutputs{"odd_outputs", {1, 6, 6, 3}, {12, 3, 3, 3}, padded({1, 1}, {1, 1}, {1, 1}),
                      true, {}};
  NhwcCase grouped{"grouped", {1, 6, 6, 4}, {8, 3, 3, 2}, padded({1, 1}, {1, 1}, {1, 1}), true,
                   {}};
  grouped.window.groups = 2;
  NhwcCase longRows{"long_rows", {1, 8, 4000, 8}, {16, 3, 3, 8}, padded({1, 1}, {1, 1}, {1, 1}),
                    true, {}};
  NhwcCase stem = implicitCases()[0];
  struct Refused {
    DefinitionCase definition;
    int computeMajor;
    std::string reason;
  };
  const Refused refused[] = {
      {makeNhwcDefinition(manyChannels, DType::F16), 9, "16 input channels (it takes at most 8)"},
      {makeNhwcDefinition(largeWindow, DType::F16), 9,
       "a window of 392 elements (it takes 1 to 192)"},
      {makeNhwcDefinition(oddOutputs, DType::F16), 9,
       "12 output channels (it takes multiples of 8)"},
      {makeNhwcDefinition(grouped, DType::F16), 9, "it has 2 groups"},
      {makeNhwcDefinition(longRows, DType::F16), 9,
       "input rows of 32016 elements with their padding: a tile's band of 4 of them does not "
       "fit in 96 KiB of shared memory beside the weights"},
      {makeNhwcDefinition(stem, DType::F32), 9,
       "element type float32 (tensor cores take float16 and bfloat16)"},
      {makeNhwcDefinition(stem, DType::F16), 7,
       "compute capability 7.x (float16 and bfloat16 mma.sync need 8.0)"},
  };
  for (const Refused &case_ : refused) {
    SCOPED_TRACE(case_.definition.describe());
    FunctionalDefinitionOp definition = buildDefinition(case_.definition);
    ASSERT_TRUE(definition);
    std::unique_ptr<KernelContext::Impl> context =
        KernelContext::Impl::createCompileOnly(case_.computeMajor, 0);
    llvm::Expected<FusedConvolutionKernel> forced =
        buildFusedConvolution(definition, *context, FusedConvolutionPath::ImplicitGemm);
    ASSERT_FALSE(static_cast<bool>(forced)) << "the implicit-GEMM kernel ran it";
    std::string message = llvm::toString(forced.takeError());
    EXPECT_NE(message.find("fused convolution: the implicit-GEMM kernel does not run this "
                           "definition: " +
                           case_.reason),
              std::string::npos)
        << message;
    EXPECT_EQ(context->getCompiler().getModuleCount(), 0u);
  }
}

} // namespace
