//===- FusedConvolutionPairNhwcTest.cpp - two pointwise convolutions ----===//
//
// The convolution pair family (ConvolutionPair.h) against the CPU driver's
// kernels running the same two-result definition layer by layer,
// transposes included: ResNet-50's bottleneck joins at 56×56 (64 → 256 →
// 64, and 256 → 128 into the next stage) and 28×28 (128 → 512 → 128) on
// few images, a row count that leaves the last tile partly empty, a first
// chain without residual, per-channel operands in both chains and a clip,
// and joins whose residual is a projection (conv_nhwc_pair_projection,
// with and without its bias); in float16 and bfloat16. On a device each
// case runs as the driver builds it (the kernel or the two convolutions
// apart, whichever it timed faster) and as the kernel alone, directly and
// through graph capture; without one, each case compiles, and the
// refusals are checked.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolutionTestSupport.h"

#include "DefinitionText.h"

#include "drivers/cuda/FusedKernels.h"
#include "drivers/cuda/kernels/ConvolutionPair.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedConvolutionPairNhwcTest : public FusedKernelTest {
public:
  /// Builds every case's kernel (pairDefinitions) with a compile-only
  /// context for 9.0, each a module of its own.
  void expectEveryCaseCompiles();
};

const DType kTensorCoreTypes[] = {DType::F16, DType::BF16};

/// x [N, H, W, C] → 1×1 convolution to `middle` channels (bias, first
/// chain: Y) → 1×1 convolution to `out` channels (bias, second chain: Z);
/// the definition returns Z, then Y.
struct PairCase {
  std::string name;
  Dims input;
  int64_t middle = 0, out = 0;
  std::vector<ChainLayer> first, second;
  /// The weights' kernel size (a refusal test makes it 3).
  int64_t kernel = 1;
  /// With a projection: its input's channels (its input [N, H, W, this]
  /// → 1×1 convolution to `middle` channels, with `projectionBias`, added
  /// to the first convolution's result before the first chain).
  int64_t projection = 0;
  bool projectionBias = true;
  /// The projection reads X itself through the first convolution's input
  /// transpose (not the pattern's form; `projection` then equals X's
  /// channels).
  bool projectionSharesInput = false;
};

std::vector<TypedValue> appendChain(DefinitionText &text, const std::string &prefix,
                                    TypedValue value, const std::vector<ChainLayer> &chain,
                                    const std::vector<TypedValue> &others, size_t &nextOther) {
  for (size_t index = 0; index < chain.size(); ++index) {
    const ChainLayer &layer = chain[index];
    std::vector<TypedValue> operands = {value};
    if (layer.other)
      operands.push_back(others[nextOther++]);
    value = text.layer("%" + prefix + std::to_string(index), layer.op, operands, value.type,
                       layer.attributes);
  }
  return {value};
}

DefinitionCase makePairDefinition(const PairCase &pair, DType dtype) {
  const Dims &x = pair.input;
  int64_t pad = pair.kernel / 2;
  Dims yNhwc = {x[0], x[1], x[2], pair.middle}, zNhwc = {x[0], x[1], x[2], pair.out};
  Dims firstWeight = {pair.middle, pair.kernel, pair.kernel, x[3]};
  Dims secondWeight = {pair.out, pair.kernel, pair.kernel, pair.middle};
  auto bound = [](const Dims &weight) {
    return std::sqrt(3.0 / static_cast<double>(weight[1] * weight[2] * weight[3]));
  };
  std::vector<TypedValue> arguments = {{"%x", tensorType(x, dtype)},
                                       {"%w1", tensorType(firstWeight, dtype)},
                                       {"%b1", tensorType({pair.middle}, dtype)},
                                       {"%w2", tensorType(secondWeight, dtype)},
                                       {"%b2", tensorType({pair.out}, dtype)}};
  std::vector<OperandSpec> operands = {
      tensor(x, dtype, 0, 1), tensor(firstWeight, dtype, -bound(firstWeight), bound(firstWeight)),
      tensor({pair.middle}, dtype, -0.5, 0.5),
      tensor(secondWeight, dtype, -bound(secondWeight), bound(secondWeight)),
      tensor({pair.out}, dtype, -0.5, 0.5)};
  Dims p = {x[0], x[1], x[2], pair.projection}, projectionWeight = {pair.middle, 1, 1,
                                                                      pair.projection};
  if (pair.projection) {
    arguments.push_back({"%p", tensorType(p, dtype)});
    operands.push_back(tensor(p, dtype, 0, 1));
    arguments.push_back({"%wp", tensorType(projectionWeight, dtype)});
    operands.push_back(
        tensor(projectionWeight, dtype, -bound(projectionWeight), bound(projectionWeight)));
    if (pair.projectionBias) {
      arguments.push_back({"%bp", tensorType({pair.middle}, dtype)});
      operands.push_back(tensor({pair.middle}, dtype, -0.5, 0.5));
    }
  }
  std::vector<TypedValue> others;
  for (const std::vector<ChainLayer> *chain : {&pair.first, &pair.second})
    for (const ChainLayer &layer : *chain)
      if (layer.other) {
        others.push_back({"%e" + std::to_string(others.size()), tensorType(*layer.other, dtype)});
        arguments.push_back(others.back());
        operands.push_back(tensor(*layer.other, dtype, layer.low, layer.high));
      }
  DefinitionText text(pair.name + "_" + dtypeName(dtype), arguments);
  std::string window = "{end_padding = [" + std::to_string(pad) + ", " + std::to_string(pad) +
                       "], start_padding = [" + std::to_string(pad) + ", " + std::to_string(pad) +
                       "], strides = [1, 1]}";
  std::optional<TypedValue> firstInputTranspose;
  auto convolution = [&](const std::string &prefix, TypedValue input, const Dims &inputNhwc,
                         const TypedValue &weight, const Dims &weightShape,
                         std::optional<TypedValue> bias, const Dims &outNhwc) {
    bool shared = prefix == "p" && pair.projectionSharesInput;
    TypedValue it =
        shared ? *firstInputTranspose
               : text.layer("%" + prefix + "xt", "cgc_op.transpose", {input},
                            tensorType(toNchw(inputNhwc), dtype), "{permutation = [0, 3, 1, 2]}");
    if (prefix == "a")
      firstInputTranspose = it;
    TypedValue wt =
        text.layer("%" + prefix + "wt", "cgc_op.transpose", {weight},
                   tensorType(toNchw(weightShape), dtype), "{permutation = [0, 3, 1, 2]}");
    std::vector<TypedValue> convOperands = {it, wt};
    if (bias)
      convOperands.push_back(*bias);
    TypedValue conv = text.layer("%" + prefix + "conv", "cgc_op.convolution", convOperands,
                                 tensorType(toNchw(outNhwc), dtype), window);
    return text.layer("%" + prefix + "y", "cgc_op.transpose", {conv}, tensorType(outNhwc, dtype),
                      "{permutation = [0, 2, 3, 1]}");
  };
  size_t nextOther = 0;
  TypedValue y =
      convolution("a", arguments[0], x, arguments[1], firstWeight, arguments[2], yNhwc);
  if (pair.projection) {
    std::optional<TypedValue> bias;
    if (pair.projectionBias)
      bias = arguments[7];
    TypedValue projected =
        convolution("p", arguments[5], p, arguments[6], projectionWeight, bias, yNhwc);
    y = text.layer("%padd", "cgc_op.add", {y, projected}, y.type);
  }
  y = appendChain(text, "f", y, pair.first, others, nextOther)[0];
  TypedValue z = convolution("b", y, yNhwc, arguments[3], secondWeight, arguments[4], zNhwc);
  z = appendChain(text, "s", z, pair.second, others, nextOther)[0];
  return {text.str({z, y}), std::move(operands), reductionTolerance(dtype)};
}

std::vector<PairCase> pairCases() {
  auto residual = [](const Dims &x, int64_t middle) {
    return withOther("cgc_op.add", {x[0], x[1], x[2], middle}, false, -1.0, 1.0);
  };
  Dims join56 = {1, 56, 56, 64};
  PairCase stage1{"pair_join_56", join56, 256, 64, {residual(join56, 256), kRelu}, {kRelu}};
  PairCase transition{
      "pair_into_stage2", {1, 56, 56, 64}, 256, 128, {residual(join56, 256), kRelu}, {kRelu}};
  Dims join28 = {2, 28, 28, 128};
  PairCase stage2{"pair_join_28", join28, 512, 128, {residual(join28, 512), kRelu}, {kRelu}};
  // 3 × 7 × 9 = 189 rows: the second tile has 61.
  Dims ragged = {3, 7, 9, 16};
  PairCase partial{"pair_partial_tile", ragged, 64, 32, {residual(ragged, 64), kRelu}, {kRelu}};
  // No residual; per-channel scale and shift in both chains, relu6 last.
  Dims small = {2, 5, 13, 32};
  PairCase perChannel{"pair_per_channel",
                      small,
                      128,
                      96,
                      {withOther("cgc_op.mul", {128}), kRelu},
                      {withOther("cgc_op.add", {1, 1, 1, 96}), kRelu6}};
  // conv_nhwc_pair_projection: ResNet's first stage's first join, its
  // projection of the stage's input beside the last convolution's; and one
  // without the projection's bias, 24 + 24 channels, relu6 first.
  PairCase projection{"pair_projection_56", join56, 256, 64, {kRelu}, {kRelu}};
  projection.projection = 64;
  PairCase projectionUnbiased{"pair_projection_unbiased", {2, 5, 13, 24}, 64, 32, {kRelu6},
                              {kRelu}};
  projectionUnbiased.projection = 24;
  projectionUnbiased.projectionBias = false;
  return {stage1, transition, stage2, partial, perChannel, projection, projectionUnbiased};
}

std::vector<DefinitionCase> pairDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kTensorCoreTypes)
    for (const PairCase &pair : pairCases())
      definitions.push_back(makePairDefinition(pair, dtype));
  return definitions;
}

/// As the driver builds them (the fused target accepts each).
CGC_FUSED_KERNEL_CASES(FusedConvolutionPairNhwcTest, ConvolutionPair, pairDefinitions)

TEST_F(FusedConvolutionPairNhwcTest, FamilyIsThePair) {
  expectFusedFamily(pairDefinitions().front(), "convolution pair");
}

/// What the driver reads for the pattern and the kernel's choice.
constexpr const char *kPairMode = "CGC_CUDA_CONVOLUTION_PAIR";

/// The driver declares the pattern unless CGC_CUDA_CONVOLUTION_PAIR is 0.
TEST_F(FusedConvolutionPairNhwcTest, PatternDeclaredUnlessOff) {
  auto declaresPair = [] {
    for (const cgc::drivers::PatternSource &source : getFusedTarget().patterns)
      if (std::string_view(source.name) == "patterns/convolution-pair.mlir")
        return true;
    return false;
  };
  {
    ScopedEnvironment mode(kPairMode, std::nullopt);
    EXPECT_TRUE(declaresPair());
  }
  {
    ScopedEnvironment mode(kPairMode, "0");
    EXPECT_FALSE(declaresPair());
  }
  for (const char *value : {"1", "kernel"}) {
    ScopedEnvironment mode(kPairMode, value);
    EXPECT_TRUE(declaresPair()) << value;
  }
}

/// The generated kernel itself on every case (CGC_CUDA_CONVOLUTION_PAIR=
/// kernel: no timing against the convolutions apart, which the driver's
/// default, ConvolutionPairMatchesCpu, may keep instead).
TEST_F(FusedConvolutionPairNhwcTest, PairKernelMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  ScopedEnvironment mode(kPairMode, "kernel");
  for (const DefinitionCase &definitionCase : pairDefinitions())
    expectFusedMatchesCpu(definitionCase);
}

/// The kernel's two forms on every case: mma.sync everywhere, and wgmma
/// wherever it has the form (compute capability 9.0, resident weights;
/// by default only a first product at least 128 deep takes it).
TEST_F(FusedConvolutionPairNhwcTest, PairKernelFormsMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  ScopedEnvironment mode(kPairMode, "kernel");
  for (const char *value : {"0", "1"}) {
    SCOPED_TRACE(std::string("CGC_CUDA_CONVOLUTION_WGMMA=") + value);
    ScopedEnvironment form("CGC_CUDA_CONVOLUTION_WGMMA", value);
    for (const DefinitionCase &definitionCase : pairDefinitions())
      expectFusedMatchesCpu(definitionCase);
  }
}

void FusedConvolutionPairNhwcTest::expectEveryCaseCompiles() {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  size_t built = 0;
  for (const DefinitionCase &definitionCase : pairDefinitions()) {
    SCOPED_TRACE(definitionCase.describe());
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    auto shape = analyzeConvolutionPair(definition);
    ASSERT_TRUE(shape.has_value());
    ASSERT_TRUE(static_cast<bool>(*shape)) << llvm::toString(shape->takeError());
    llvm::Expected<Kernel> kernel = buildConvolutionPair(definition, **shape, *context);
    ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_EQ(context->getCompiler().getModuleCount(), ++built);
  }
}

/// Without a device, every case compiles for 9.0 with
/// CGC_CUDA_CONVOLUTION_WGMMA=1 (the wgmma form wherever the weights are
/// resident).
TEST_F(FusedConvolutionPairNhwcTest, WgmmaFormCompiles) {
  ScopedEnvironment form("CGC_CUDA_CONVOLUTION_WGMMA", "1");
  expectEveryCaseCompiles();
}

/// Without a device every case compiles, one module per case.
TEST_F(FusedConvolutionPairNhwcTest, KernelCompiles) { expectEveryCaseCompiles(); }

/// What the kernel does not take, and why: the fused target refuses the
/// definition (the compiler then matches the convolutions apart).
TEST_F(FusedConvolutionPairNhwcTest, RefusesOtherDefinitions) {
  PairCase base = pairCases()[3];
  PairCase window = base;
  window.kernel = 3;
  PairCase narrow = base;
  narrow.input = {3, 7, 9, 8};
  narrow.first = {withOther("cgc_op.add", {3, 7, 9, 64}), kRelu};
  PairCase middle = base;
  middle.middle = 96;
  middle.first = {withOther("cgc_op.add", {3, 7, 9, 96}), kRelu};
  PairCase wide = base;
  wide.out = 256;
  PairCase pixelSecond = base;
  pixelSecond.second = {withOther("cgc_op.add", {3, 7, 9, 32}), kRelu};
  PairCase deepProjection = pairCases()[5];
  deepProjection.projection = 128;
  struct Refused {
    DefinitionCase definition;
    std::string reason;
  };
  const Refused refused[] = {
      {makePairDefinition(window, DType::F16),
       "a convolution is not pointwise (1×1, stride 1, unpadded)"},
      {makePairDefinition(narrow, DType::F16),
       "the first convolution has 8 input channels; the kernel takes a multiple of 16 up to "
       "128"},
      {makePairDefinition(middle, DType::F16),
       "the first convolution has 96 output channels; the kernel takes a multiple of 64"},
      {makePairDefinition(wide, DType::F16),
       "the second convolution has 256 output channels; the kernel takes a multiple of 32 up "
       "to 128"},
      {makePairDefinition(pixelSecond, DType::F16),
       "a second-chain operand varies along pixels (only per-channel operands)"},
      {makePairDefinition(deepProjection, DType::F16),
       "the first convolution and the projection have 64 and 128 input channels; the kernel "
       "takes multiples of 8 that add up to a multiple of 16 up to 128"},
      {makePairDefinition(base, DType::F32),
       "element type float32 (tensor cores take float16 and bfloat16)"},
  };
  for (const Refused &case_ : refused) {
    SCOPED_TRACE(case_.definition.describe());
    expectFusedRejected(case_.definition,
                        "fused convolution pair: the convolution pair kernel does not run this "
                        "definition: " +
                            case_.reason);
  }
}

/// A projection that reads X through the first convolution's own input
/// transpose is not split off (its definition would read a layer of the
/// first half's): the family does not read the definition as a pair, and
/// no fused kernel takes it.
TEST_F(FusedConvolutionPairNhwcTest, ProjectionSharingATransposeIsNotAPair) {
  PairCase shared = pairCases()[5];
  shared.projectionSharesInput = true;
  DefinitionCase sharedCase = makePairDefinition(shared, DType::F16);
  FunctionalDefinitionOp definition = buildDefinition(sharedCase);
  ASSERT_TRUE(definition);
  auto shape = analyzeConvolutionPair(definition);
  if (shape.has_value()) {
    ASSERT_FALSE(static_cast<bool>(*shape)) << "read as a pair";
    llvm::consumeError(shape->takeError());
  }
  std::optional<llvm::Error> checked = checkFusedKernel(definition);
  if (checked) {
    bool refused = static_cast<bool>(*checked);
    llvm::consumeError(std::move(*checked));
    EXPECT_TRUE(refused) << "a fused kernel takes the definition";
  }
}

/// Before compute capability 8.0 (no float16 mma.sync) the build says so.
TEST_F(FusedConvolutionPairNhwcTest, NeedsComputeCapability8) {
  DefinitionCase join = makePairDefinition(pairCases()[0], DType::F16);
  FunctionalDefinitionOp definition = buildDefinition(join);
  ASSERT_TRUE(definition);
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(7, 5);
  auto shape = analyzeConvolutionPair(definition);
  ASSERT_TRUE(shape.has_value() && static_cast<bool>(*shape));
  llvm::Expected<Kernel> built = buildConvolutionPair(definition, **shape, *context);
  ASSERT_FALSE(static_cast<bool>(built));
  std::string message = llvm::toString(built.takeError());
  EXPECT_NE(message.find("two pointwise convolutions as one kernel need compute capability 8.0 "
                         "(float16 and bfloat16 mma.sync) on the CUDA driver; this device has 7.5"),
            std::string::npos)
      << message;
}

} // namespace
