//===- FusedConvolutionPoolNhwcTest.cpp - a first layer and its max pool ===//
//
// The fused convolution family's convolution + max pool kernel
// (ConvolutionPool.h) against the CPU driver's kernels running the same
// definition layer by layer, transposes included: ResNet-50's first layer
// and pool on a small image and at full size (blocks of one and of several
// pool rows), whole images a block where the batch fills every block slot,
// windows of odd and even left padding (band rows stored shifted or not),
// rows copied element by element, 2×2 and stride-1 pools, ceil_mode, fewer
// output channels than a block's columns, per-channel chain operands; in
// float16 and bfloat16, each also reading a float32 NCHW image that the
// definition casts and transposes first (band rows copied as float32
// channel rows, 16 bytes at a time where the rows allow, a later band
// keeping the rows it shares with the one before). On a device each case runs as the driver builds it
// (directly and through graph capture) and on misaligned buffers; without
// one, each case compiles, and the refusals are checked.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/ConvolutionChain.h"
#include "drivers/cuda/kernels/ConvolutionPool.h"
#include "drivers/cuda/kernels/FusedConvolution.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedConvolutionPoolNhwcTest : public FusedConvolutionPathsTest {};

const DType kTensorCoreTypes[] = {DType::F16, DType::BF16};

Window padded(Dims strides, Dims startPadding, Dims endPadding) {
  return Window{std::move(strides), std::move(startPadding), std::move(endPadding), {}};
}

MaxPool pool3x3s2() { return MaxPool{{3, 3}, {2, 2}, {1, 1}, {1, 1}}; }

std::vector<NhwcCase> poolCases() {
  NhwcCase stem{"pool_resnet_stem", {2, 30, 28, 3}, {64, 7, 7, 3},
                padded({2, 2}, {3, 3}, {3, 3}), true, {kRelu}, pool3x3s2()};
  // At full size, 8 images: blocks of two pool rows (8 × 28 blocks fill
  // the 264 slots of an H100).
  NhwcCase full = stem;
  full.name = "pool_resnet_stem_full";
  full.input = {8, 224, 224, 3};
  // 140 images of 3 pool rows: a block takes a whole image.
  NhwcCase wholeImages{"pool_whole_images", {140, 12, 12, 3}, {16, 3, 3, 3},
                       padded({2, 2}, {1, 1}, {1, 1}), true, {kRelu}, pool3x3s2()};
  // Four channels, left padding 1: an even padding, rows stored unshifted;
  // 32 output channels, relu6.
  NhwcCase unshifted{"pool_unshifted_rows", {2, 17, 16, 4}, {32, 3, 3, 4},
                     padded({2, 2}, {1, 1}, {1, 1}), true, {kRelu6}, pool3x3s2()};
  // Rows of 30 elements, copied element by element; a 2×2 pool.
  NhwcCase elementRows{"pool_element_rows", {1, 15, 15, 2}, {16, 5, 5, 2},
                       padded({2, 2}, {2, 2}, {2, 2}), false, {kRelu},
                       MaxPool{{2, 2}, {2, 2}, {0, 0}, {0, 0}}};
  // A stride-1 convolution and a stride-1 pool: every convolution row in
  // three pool rows.
  NhwcCase strideOne{"pool_stride_one", {1, 10, 12, 2}, {8, 3, 3, 2},
                     padded({1, 1}, {1, 1}, {1, 1}), true, {},
                     MaxPool{{3, 3}, {1, 1}, {1, 1}, {1, 1}}};
  // ceil_mode on odd sizes (a last window partly past the rows), no
  // padding.
  NhwcCase ceil{"pool_ceil_mode", {1, 29, 31, 3}, {24, 3, 3, 3},
                padded({2, 2}, {1, 1}, {1, 1}), true, {kRelu},
                MaxPool{{3, 3}, {2, 2}, {0, 0}, {0, 0}, true}};
  // 24 output channels (a 16-column group and half of another), a
  // per-channel scale and shift in the chain.
  NhwcCase perChannel{"pool_per_channel_chain",
                      {2, 19, 18, 3},
                      {24, 5, 5, 3},
                      padded({2, 2}, {2, 2}, {2, 2}),
                      true,
                      {withOther("cgc_op.mul", {24}), withOther("cgc_op.add", {1, 1, 1, 24}),
                       kRelu},
                      pool3x3s2()};
  return {stem, full, wholeImages, unshifted, elementRows, strideOne, ceil, perChannel};
}

/// Every case, and every case reading a float32 NCHW image.
std::vector<NhwcCase> poolAndImageCases() {
  std::vector<NhwcCase> cases = poolCases();
  for (NhwcCase fused : poolCases()) {
    fused.name += "_float32_image";
    fused.float32Image = true;
    cases.push_back(fused);
  }
  return cases;
}

std::vector<DefinitionCase> poolDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kTensorCoreTypes)
    for (const NhwcCase &fused : poolAndImageCases())
      definitions.push_back(makeNhwcDefinition(fused, dtype));
  return definitions;
}

/// As the driver builds them (the fused target accepts each).
CGC_FUSED_KERNEL_CASES(FusedConvolutionPoolNhwcTest, ConvolutionPool, poolDefinitions)

TEST_F(FusedConvolutionPoolNhwcTest, CapturedKernelMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (const DefinitionCase &definitionCase : poolDefinitions())
    expectForcedPathMatchesCpu(definitionCase, FusedConvolutionPath::ConvolutionPool);
}

/// The mma.sync form where the device would take wgmma (compute
/// capability 9.0; the same form as the default elsewhere), every case.
TEST_F(FusedConvolutionPoolNhwcTest, MmaSyncFormMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  ScopedEnvironment form("CGC_CUDA_CONVOLUTION_WGMMA", "0");
  for (const DefinitionCase &definitionCase : poolDefinitions())
    expectForcedPathMatchesCpu(definitionCase, FusedConvolutionPath::ConvolutionPool);
}

/// Buffers one element past a 256-byte boundary: the band is copied element
/// by element and the pool stored element by element.
TEST_F(FusedConvolutionPoolNhwcTest, MisalignedBuffersMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  for (const DefinitionCase &definitionCase : poolDefinitions())
    expectForcedPathMatchesCpu(definitionCase, FusedConvolutionPath::ConvolutionPool,
                               /*misaligned=*/true);
}

/// Without a device every case compiles, one module per geometry, whatever
/// path is asked for.
TEST_F(FusedConvolutionPoolNhwcTest, KernelCompiles) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  size_t built = 0;
  for (const DefinitionCase &definitionCase : poolDefinitions()) {
    SCOPED_TRACE(definitionCase.describe());
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    for (std::optional<FusedConvolutionPath> path :
         {std::optional<FusedConvolutionPath>(FusedConvolutionPath::CudnnGraph),
          std::optional<FusedConvolutionPath>()}) {
      llvm::Expected<FusedConvolutionKernel> fused =
          buildFusedConvolution(definition, *context, path);
      ASSERT_TRUE(static_cast<bool>(fused)) << llvm::toString(fused.takeError());
      EXPECT_EQ(fused->path, FusedConvolutionPath::ConvolutionPool);
    }
    EXPECT_EQ(context->getCompiler().getModuleCount(), ++built);
  }
}

/// What the kernel does not take, and why: the fused target refuses the
/// definition (so that the compiler matches the convolution and the pool
/// apart), the build is an error naming the reason, and nothing is
/// compiled.
TEST_F(FusedConvolutionPoolNhwcTest, RefusesOtherDefinitions) {
  NhwcCase stem = poolCases()[0];
  NhwcCase manyChannels = stem;
  manyChannels.input = {1, 12, 12, 16};
  manyChannels.weight = {16, 3, 3, 16};
  NhwcCase wide = stem;
  wide.weight = {72, 7, 7, 3};
  NhwcCase oddDistance = stem;
  oddDistance.window = padded({1, 1}, {3, 3}, {3, 3});
  NhwcCase largePool = stem;
  largePool.pool = MaxPool{{5, 5}, {2, 2}, {2, 2}, {2, 2}};
  NhwcCase residual = stem;
  residual.chain = {withOther("cgc_op.add", {2, 15, 14, 64}), kRelu};
  NhwcCase longRows = stem;
  longRows.input = {1, 16, 3000, 3};
  NhwcCase longImageRows = longRows;
  longImageRows.float32Image = true;
  struct Refused {
    DefinitionCase definition;
    std::string reason;
  };
  const Refused refused[] = {
      {makeNhwcDefinition(manyChannels, DType::F16), "16 input channels (it takes at most 8)"},
      {makeNhwcDefinition(wide, DType::F16),
       "72 output channels (it takes multiples of 8 up to 64)"},
      {makeNhwcDefinition(oddDistance, DType::F16),
       "windows 3 elements apart (stride × channels; it takes even distances)"},
      {makeNhwcDefinition(largePool, DType::F16),
       "a max pool of window [5, 5], strides [2, 2], dilations [1, 1] and start padding [2, 2]"},
      {makeNhwcDefinition(residual, DType::F16),
       "chain layer cgc_op.add reads an operand that varies along more than the channels"},
      {makeNhwcDefinition(longRows, DType::F16),
       "shared memory of 960336 bytes (weights, a band of 11 input rows of 9024 elements, a "
       "ring of 3 convolution rows and a staging area of 9 input rows; it takes at most 96 "
       "KiB)"},
      // The float32 image's staging area holds the 4 new rows of a later
      // band, as float32.
      {makeNhwcDefinition(longImageRows, DType::F16),
       "shared memory of 942336 bytes (weights, a band of 11 input rows of 9024 elements, a "
       "ring of 3 convolution rows and a staging area of 4 float32 input rows; it takes at "
       "most 96 KiB)"},
      {makeNhwcDefinition(stem, DType::F32),
       "element type float32 (tensor cores take float16 and bfloat16)"},
  };
  for (const Refused &case_ : refused) {
    SCOPED_TRACE(case_.definition.describe());
    FunctionalDefinitionOp definition = buildDefinition(case_.definition);
    ASSERT_TRUE(definition);
    expectFusedRejected(case_.definition, case_.reason);
    std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
    llvm::Expected<FusedConvolutionKernel> built = buildFusedConvolution(definition, *context);
    ASSERT_FALSE(static_cast<bool>(built)) << "the convolution + max pool kernel ran it";
    std::string message = llvm::toString(built.takeError());
    EXPECT_NE(message.find("fused convolution: the convolution + max pool kernel does not run "
                           "this definition: " +
                           case_.reason),
              std::string::npos)
        << message;
    EXPECT_EQ(context->getCompiler().getModuleCount(), 0u);
  }
}

/// A pool that reads the chain's result through another transpose is not
/// the pattern's form: the family says which transpose.
TEST_F(FusedConvolutionPoolNhwcTest, RefusesOtherPoolTransposes) {
  NhwcCase square{"pool_transposed_other_way", {1, 16, 16, 3}, {8, 3, 3, 3},
                  padded({2, 2}, {1, 1}, {1, 1}), true, {kRelu},
                  MaxPool{{2, 2}, {2, 2}, {0, 0}, {0, 0}}};
  square.pool->inputPermutation = "[0, 3, 2, 1]";
  expectFusedRejected(makeNhwcDefinition(square, DType::F16),
                      "channels-last form: the max pool's input's transpose with permutation "
                      "[0, 3, 2, 1] is not implemented on the CUDA driver (only [0, 3, 1, 2], "
                      "NHWC to NCHW)");
}

/// A float32 image read through a cast is the convolution + max pool
/// kernel's alone: without the pool, and with its transpose other than NCHW
/// to NHWC, the family says why.
TEST_F(FusedConvolutionPoolNhwcTest, RefusesCastImageOtherwise) {
  NhwcCase noPool = poolCases()[0];
  noPool.name = "cast_image_without_pool";
  noPool.pool.reset();
  noPool.float32Image = true;
  expectFusedRejected(makeNhwcDefinition(noPool, DType::F16),
                      "a cast of the input before the convolution is implemented on the CUDA "
                      "driver only where a max pool ends the definition (the convolution + max "
                      "pool kernel)");
  // A square image, so that the other transpose keeps the shapes.
  NhwcCase square{"cast_image_other_transpose", {1, 16, 16, 3}, {8, 3, 3, 3},
                  padded({2, 2}, {1, 1}, {1, 1}), true, {kRelu}, pool3x3s2(), true};
  DefinitionCase definition = makeNhwcDefinition(square, DType::F16);
  size_t at = definition.definition.find("permutation = [0, 2, 3, 1]");
  ASSERT_NE(at, std::string::npos);
  definition.definition.replace(at, 26, "permutation = [0, 3, 2, 1]");
  expectFusedRejected(definition,
                      "channels-last form: the input's cast's transpose with permutation "
                      "[0, 3, 2, 1] is not implemented on the CUDA driver (only [0, 2, 3, 1], "
                      "NCHW to NHWC)");
}

/// Before compute capability 8.0 (no float16 mma.sync) the build says so.
TEST_F(FusedConvolutionPoolNhwcTest, NeedsComputeCapability8) {
  DefinitionCase stem = makeNhwcDefinition(poolCases()[0], DType::F16);
  FunctionalDefinitionOp definition = buildDefinition(stem);
  ASSERT_TRUE(definition);
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(7, 5);
  llvm::Expected<FusedConvolutionKernel> built = buildFusedConvolution(definition, *context);
  ASSERT_FALSE(static_cast<bool>(built));
  std::string message = llvm::toString(built.takeError());
  EXPECT_NE(message.find("a convolution followed by a max pool needs compute capability 8.0 "
                         "(float16 and bfloat16 mma.sync) on the CUDA driver; this device has 7.5"),
            std::string::npos)
      << message;
}

} // namespace
