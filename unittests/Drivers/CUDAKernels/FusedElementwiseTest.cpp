//===- FusedElementwiseTest.cpp - fused elementwise chains against the CPU ===//
//
// Chains of elementwise layers as the reference models have them (BERT's
// GELU written out with erf, its attention mask, MobileNet-style clipping,
// input normalization with broadcast statistics), DAGs that reuse values,
// several results, integer and bool chains: one generated kernel each,
// against the definition run layer by layer on the CPU. float32 within
// 1e-5 relative; float16 and bfloat16 within 1e-2 (the kernel keeps values
// in float between layers, the reference rounds after each).
//
//===----------------------------------------------------------------------===//

#include "DefinitionText.h"
#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/FusedSupport.h"

using cgc::FunctionalDefinitionOp;
using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class FusedElementwiseTest : public FusedKernelTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

Tolerance chainTolerance(DType dtype) {
  return dtype == DType::F32 ? elementwiseTolerance(dtype) : Tolerance{1e-2, 1e-2};
}

std::string type(const Dims &shape, DType dtype) { return tensorType(shape, dtype); }

/// BERT's GELU as torch.onnx writes it: x * 0.5 * (1 + erf(x / sqrt(2))),
/// the input used twice.
DefinitionCase geluCase(const Dims &shape, DType dtype) {
  std::string x = type(shape, dtype), s = type({}, dtype);
  DefinitionText text("gelu", {{"%x", x}, {"%root2", s}, {"%one", s}, {"%half", s}});
  auto scaled = text.layer("%0", "cgc_op.div", {{"%x", x}, {"%root2", s}}, x);
  auto erf = text.layer("%1", "cgc_op.erf", {scaled}, x);
  auto cdf = text.layer("%2", "cgc_op.add", {erf, {"%one", s}}, x);
  auto gated = text.layer("%3", "cgc_op.mul", {{"%x", x}, cdf}, x);
  auto out = text.layer("%4", "cgc_op.mul", {gated, {"%half", s}}, x);
  return {text.str({out}),
          {tensor(shape, dtype, -4, 4), values({}, dtype, {1.4142135381698608}),
           values({}, dtype, {1.0}), values({}, dtype, {0.5})},
          chainTolerance(dtype)};
}

/// BERT's extended attention mask: (1 - float(mask)) * -10000, an int64
/// mask cast first.
DefinitionCase maskCase(DType dtype) {
  Dims shape = {1, 1, 1, 128};
  std::string m = type(shape, DType::I64), f = type(shape, dtype), s = type({}, dtype);
  DefinitionText text("attention_mask", {{"%mask", m}, {"%one", s}, {"%low", s}});
  auto cast = text.layer("%0", "cgc_op.cast", {{"%mask", m}}, f,
                         "{to = !cgc." + dtypeName(dtype) + "}");
  auto inverted = text.layer("%1", "cgc_op.sub", {{"%one", s}, cast}, f);
  auto out = text.layer("%2", "cgc_op.mul", {inverted, {"%low", s}}, f);
  return {text.str({out}),
          {values(shape, DType::I64, {1, 1, 1, 0, 1, 0, 0}), values({}, dtype, {1.0}),
           values({}, dtype, {-10000.0})},
          chainTolerance(dtype)};
}

/// A residual add and MobileNet's ReLU6, written as clip, then a hard-swish
/// style gate: y = r + x; y * clip(y + 3, 0, 6) / 6.
DefinitionCase clipCase(const Dims &shape, DType dtype) {
  std::string x = type(shape, dtype), s = type({}, dtype);
  DefinitionText text("residual_clip", {{"%x", x}, {"%r", x}, {"%three", s}, {"%six", s}});
  auto sum = text.layer("%0", "cgc_op.add", {{"%r", x}, {"%x", x}}, x);
  auto shifted = text.layer("%1", "cgc_op.add", {sum, {"%three", s}}, x);
  auto clipped = text.layer("%2", "cgc_op.clip", {shifted}, x,
                            "{max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}");
  auto gated = text.layer("%3", "cgc_op.mul", {sum, clipped}, x);
  auto out = text.layer("%4", "cgc_op.div", {gated, {"%six", s}}, x);
  return {text.str({out}),
          {tensor(shape, dtype, -5, 5), tensor(shape, dtype, -2, 2), values({}, dtype, {3.0}),
           values({}, dtype, {6.0})},
          chainTolerance(dtype)};
}

/// Input normalization with per-channel statistics broadcast from the left
/// (Cx1x1) and the right (1xCx1x1), then ReLU: relu((x - mean) / std).
DefinitionCase broadcastCase(DType dtype) {
  Dims shape = {1, 32, 112, 112};
  std::string x = type(shape, dtype), mean = type({32, 1, 1}, dtype),
              deviation = type({1, 32, 1, 1}, dtype);
  DefinitionText text("normalize_input", {{"%x", x}, {"%mean", mean}, {"%std", deviation}});
  auto centered = text.layer("%0", "cgc_op.sub", {{"%x", x}, {"%mean", mean}}, x);
  auto scaled = text.layer("%1", "cgc_op.div", {centered, {"%std", deviation}}, x);
  auto out = text.layer("%2", "cgc_op.relu", {scaled}, x);
  return {text.str({out}),
          {tensor(shape, dtype, -3, 3), tensor({32, 1, 1}, dtype, -1, 1),
           tensor({1, 32, 1, 1}, dtype, 0.5, 2)},
          chainTolerance(dtype)};
}

/// A DAG: s = a + b (b a row vector) used three times, two results of the
/// full shape: (s * s + s, sigmoid(s)). The operands are non-negative: the
/// reference rounds s and s * s to 16 bits before the sum, and a difference
/// would magnify that rounding past the tolerance.
DefinitionCase reuseCase(DType dtype) {
  Dims shape = {32, 197, 768};
  std::string x = type(shape, dtype), row = type({768}, dtype);
  DefinitionText text("reuse", {{"%a", x}, {"%b", row}});
  auto sum = text.layer("%0", "cgc_op.add", {{"%a", x}, {"%b", row}}, x);
  auto square = text.layer("%1", "cgc_op.mul", {sum, sum}, x);
  auto total = text.layer("%2", "cgc_op.add", {square, sum}, x);
  auto gate = text.layer("%3", "cgc_op.sigmoid", {sum}, x);
  return {text.str({total, gate}), {tensor(shape, dtype, 0, 1), tensor({768}, dtype, 0, 1)},
          chainTolerance(dtype)};
}

std::vector<DefinitionCase> floatCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : kFloatTypes) {
    cases.push_back(geluCase({1, 128, 768}, dtype));
    cases.push_back(maskCase(dtype));
    cases.push_back(clipCase({1, 32, 112, 112}, dtype));
    cases.push_back(broadcastCase(dtype));
    cases.push_back(reuseCase(dtype));
  }
  return cases;
}

/// Comparisons, where, pow and a cast to float16 (float32 in, float16 out);
/// an integer chain; a bool chain (results compared exactly).
std::vector<DefinitionCase> mixedCases() {
  std::vector<DefinitionCase> cases;
  {
    Dims shape = {4, 33, 17};
    std::string f = type(shape, DType::F32), h = type(shape, DType::F16),
                b = type(shape, DType::Bool), s = type({}, DType::F32);
    DefinitionText text("select", {{"%x", f}, {"%y", f}, {"%t", s}, {"%two", s}});
    auto above = text.layer("%0", "cgc_op.greater", {{"%x", f}, {"%t", s}}, b);
    auto chosen = text.layer("%1", "cgc_op.where", {above, {"%x", f}, {"%y", f}}, f);
    auto squared = text.layer("%2", "cgc_op.pow", {chosen, {"%two", s}}, f);
    auto out = text.layer("%3", "cgc_op.cast", {squared}, h, "{to = !cgc.float16}");
    cases.push_back({text.str({out}),
                     {tensor(shape, DType::F32), tensor(shape, DType::F32),
                      values({}, DType::F32, {0.25}), values({}, DType::F32, {2.0})},
                     chainTolerance(DType::F16)});
  }
  {
    Dims shape = {8, 1000};
    std::string i = type(shape, DType::I32), column = type({8, 1}, DType::I32);
    DefinitionText text("integers", {{"%a", i}, {"%b", column}, {"%c", i}});
    auto sum = text.layer("%0", "cgc_op.add", {{"%a", i}, {"%b", column}}, i);
    auto product = text.layer("%1", "cgc_op.mul", {sum, {"%c", i}}, i);
    auto quotient = text.layer("%2", "cgc_op.div", {product, {"%b", column}}, i);
    auto out = text.layer("%3", "cgc_op.max", {quotient, {"%a", i}}, i);
    cases.push_back({text.str({out}),
                     {tensor(shape, DType::I32, -1000, 1000), tensor({8, 1}, DType::I32, -9, 9),
                      tensor(shape, DType::I32, -1000, 1000)},
                     Tolerance{}});
  }
  {
    Dims shape = {3, 5, 7};
    std::string f = type(shape, DType::F32), b = type(shape, DType::Bool);
    DefinitionText text("logic", {{"%x", f}, {"%y", f}});
    auto less = text.layer("%0", "cgc_op.less", {{"%x", f}, {"%y", f}}, b);
    auto different = text.layer("%1", "cgc_op.not_equal", {{"%x", f}, {"%y", f}}, b);
    auto both = text.layer("%2", "cgc_op.and", {less, different}, b);
    auto out = text.layer("%3", "cgc_op.not", {both}, b);
    cases.push_back({text.str({out}),
                     {tensor(shape, DType::F32, -1, 1), values(shape, DType::F32, {0.5, -0.25})},
                     Tolerance{}});
  }
  return cases;
}

CGC_FUSED_KERNEL_CASES(FusedElementwiseTest, FloatChains, floatCases)
CGC_FUSED_KERNEL_CASES(FusedElementwiseTest, MixedChains, mixedCases)

TEST_F(FusedElementwiseTest, FloatChainsCompile) {
  for (const DefinitionCase &definitionCase : floatCases())
    expectFamilyCompiles(kFusedElementwise, definitionCase);
}

TEST_F(FusedElementwiseTest, MixedChainsCompile) {
  for (const DefinitionCase &definitionCase : mixedCases())
    expectFamilyCompiles(kFusedElementwise, definitionCase);
}

TEST_F(FusedElementwiseTest, ChainsOfAnotherShapeShareTheirModule) {
  NvrtcCompiler &compiler = getCompileOnlyContext().getCompiler();
  expectFamilyCompiles(kFusedElementwise, geluCase({2, 64, 3072}, DType::F32));
  size_t modules = compiler.getModuleCount();
  // The same chain over other sizes of the same rank merges to the same loop
  // nest: the source, and so the module, is the same.
  expectFamilyCompiles(kFusedElementwise, geluCase({4, 16, 100}, DType::F32));
  EXPECT_EQ(compiler.getModuleCount(), modules);
  // Another element type is another source (float64: no other test
  // compiles this chain in it).
  expectFamilyCompiles(kFusedElementwise, geluCase({4, 16, 100}, DType::F64));
  EXPECT_EQ(compiler.getModuleCount(), modules + 1);
}

TEST_F(FusedElementwiseTest, OtherShapesAreNotElementwise) {
  // A reduction among the layers: no fused kernel has this shape.
  std::string x = type({4, 8}, DType::F32), r = type({4, 1}, DType::F32);
  DefinitionText text("reduce", {{"%x", x}});
  auto sum = text.layer("%0", "cgc_op.reduce_sum", {{"%x", x}}, r, "{axes = [1]}");
  auto out = text.layer("%1", "cgc_op.sub", {{"%x", x}, sum}, x);
  DefinitionCase reduce{text.str({out}), {tensor({4, 8}, DType::F32)}, {}};
  FunctionalDefinitionOp definition = buildDefinition(reduce);
  ASSERT_TRUE(definition);
  EXPECT_FALSE(kFusedElementwise.check(definition).has_value());
  expectFusedRejected(reduce);
}

TEST_F(FusedElementwiseTest, ResultsOfSeveralShapesAreRejected) {
  std::string x = type({4, 8}, DType::F32), row = type({8}, DType::F32);
  DefinitionText text("two_shapes", {{"%x", x}, {"%b", row}});
  auto negated = text.layer("%0", "cgc_op.neg", {{"%b", row}}, row);
  auto sum = text.layer("%1", "cgc_op.add", {{"%x", x}, negated}, x);
  expectFusedRejected({text.str({sum, negated}), {tensor({4, 8}, DType::F32),
                                                 tensor({8}, DType::F32)}, {}},
                      "@two_shapes: fused elementwise: result 1 of shape 8 differs from result "
                      "0's 4x8: results of several shapes are not implemented on the CUDA driver");
}

TEST_F(FusedElementwiseTest, ValuesBeyondTheOutputShapeAreRejected) {
  // A layer whose result is wider than the output is not read by any
  // result: the kernel evaluates every layer at the output's elements.
  std::string x = type({4, 8}, DType::F32), row = type({8}, DType::F32);
  DefinitionText text("wider", {{"%x", x}, {"%b", row}});
  text.layer("%0", "cgc_op.add", {{"%x", x}, {"%b", row}}, x);
  auto out = text.layer("%1", "cgc_op.neg", {{"%b", row}}, row);
  expectFusedRejected({text.str({out}), {tensor({4, 8}, DType::F32), tensor({8}, DType::F32)},
                       {}},
                      "@wider: fused elementwise: argument 0 of shape 4x8 does not broadcast to "
                      "the output shape 8");
}

} // namespace
