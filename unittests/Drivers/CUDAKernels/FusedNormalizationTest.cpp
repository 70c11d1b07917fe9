//===- FusedNormalizationTest.cpp - fused layer_norm and softmax against the CPU ===//
//
// layer_norm and softmax with the elementwise layers around them, as the
// reference transformers have them (BERT's residual add before layer_norm,
// its scaled and masked attention scores before softmax; ViT's layer_norm
// over a batch of 32), plus rows too long to keep on chip, softmax along an
// outer axis, broadcast parameters and several results: one generated kernel
// each, against the definition run layer by layer on the CPU (which
// accumulates layer_norm's statistics in double). float32 within 1e-4,
// float16 and bfloat16 within 1e-2. Row lengths cover each way of the
// register row kernels (RowKernelCodegen.h): one warp a row (768, 1024,
// 1000 with a partial last chunk, 77 whose rows start misaligned for
// chunks), one block a row (3000, 4098), and arguments read once per row
// (a row scale, a [B, 1, 1, S] mask) or in a narrower type (a cast before
// the layer_norm).
//
//===----------------------------------------------------------------------===//

#include "DefinitionText.h"
#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/FusedSupport.h"

#include <cstdio>

using cgc::FunctionalDefinitionOp;
using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class FusedNormalizationTest : public FusedKernelTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

Tolerance normTolerance(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return reductionTolerance(dtype);
  case DType::F64:
    return {1e-10, 1e-10};
  default:
    return {1e-2, 1e-2};
  }
}

std::string type(const Dims &shape, DType dtype) { return tensorType(shape, dtype); }

/// The attributes of a layer_norm.
std::string layerNormAttributes(int64_t axis, double epsilon) {
  char text[96];
  std::snprintf(text, sizeof(text), "{axis = %lld : i64, epsilon = %.17g : f64}",
                static_cast<long long>(axis), epsilon);
  return text;
}

/// BERT: layer_norm(x + residual) over 768 features, epsilon 1e-12.
DefinitionCase residualLayerNormCase(const Dims &shape, DType dtype) {
  std::string x = type(shape, dtype), p = type({shape.back()}, dtype);
  DefinitionText text("add_layer_norm", {{"%x", x}, {"%r", x}, {"%scale", p}, {"%bias", p}});
  auto sum = text.layer("%0", "cgc_op.add", {{"%x", x}, {"%r", x}}, x);
  auto out = text.layer("%1", "cgc_op.layer_norm", {sum, {"%scale", p}, {"%bias", p}}, x,
                        layerNormAttributes(-1, 1e-12));
  return {text.str({out}),
          {tensor(shape, dtype, -1, 1), tensor(shape, dtype, -1, 1),
           tensor({shape.back()}, dtype, -1, 1), tensor({shape.back()}, dtype, -1, 1)},
          normTolerance(dtype)};
}

/// ViT: a lone layer_norm (epsilon 1e-6).
DefinitionCase layerNormCase(const Dims &shape, DType dtype) {
  std::string x = type(shape, dtype), p = type({shape.back()}, dtype);
  DefinitionText text("layer_norm", {{"%x", x}, {"%scale", p}, {"%bias", p}});
  auto out = text.layer("%0", "cgc_op.layer_norm", {{"%x", x}, {"%scale", p}, {"%bias", p}}, x,
                        layerNormAttributes(-1, 1e-6));
  return {text.str({out}),
          {tensor(shape, dtype, -2, 2), tensor({shape.back()}, dtype, -1, 1),
           tensor({shape.back()}, dtype, -1, 1)},
          normTolerance(dtype)};
}

/// A prologue chain (bias, then residual), layer_norm without bias, an
/// epilogue with a broadcast operand: relu(layer_norm((x + b) + r) * g).
DefinitionCase chainsLayerNormCase(const Dims &shape, DType dtype) {
  std::string x = type(shape, dtype), p = type({shape.back()}, dtype);
  DefinitionText text("chains_layer_norm",
                      {{"%x", x}, {"%b", p}, {"%r", x}, {"%scale", p}, {"%g", p}});
  auto biased = text.layer("%0", "cgc_op.add", {{"%b", p}, {"%x", x}}, x);
  auto sum = text.layer("%1", "cgc_op.add", {biased, {"%r", x}}, x);
  auto normalized = text.layer("%2", "cgc_op.layer_norm", {sum, {"%scale", p}}, x,
                               layerNormAttributes(-1, 1e-5));
  auto scaled = text.layer("%3", "cgc_op.mul", {normalized, {"%g", p}}, x);
  auto out = text.layer("%4", "cgc_op.relu", {scaled}, x);
  Dims row = {shape.back()};
  return {text.str({out}),
          {tensor(shape, dtype, -1, 1), tensor(row, dtype, -0.5, 0.5), tensor(shape, dtype, -1, 1),
           tensor(row, dtype, -1, 1), tensor(row, dtype, 0.5, 1.5)},
          normTolerance(dtype)};
}

/// layer_norm over the last two dimensions, scale 5x1 and bias 6
/// broadcasting into the normalized 5x6, two results (the normalized
/// tensor and its tanh).
DefinitionCase outerAxisLayerNormCase(DType dtype) {
  Dims shape = {2, 5, 6};
  std::string x = type(shape, dtype), scale = type({5, 1}, dtype), bias = type({6}, dtype);
  DefinitionText text("two_axes_layer_norm", {{"%x", x}, {"%scale", scale}, {"%bias", bias}});
  auto normalized =
      text.layer("%0", "cgc_op.layer_norm", {{"%x", x}, {"%scale", scale}, {"%bias", bias}}, x,
                 layerNormAttributes(1, 1e-3));
  auto squashed = text.layer("%1", "cgc_op.tanh", {normalized}, x);
  return {text.str({normalized, squashed}),
          {tensor(shape, dtype), tensor({5, 1}, dtype), tensor({6}, dtype)},
          normTolerance(dtype)};
}

/// float32 layer_norm of a 16-bit input cast up, scaled per row afterwards
/// (`g` of shape [rows..., 1]), both the normalized and the scaled tensors
/// returned: reads of two widths, one of them once per row.
DefinitionCase castLayerNormCase(const Dims &shape, DType from) {
  Dims rowShape = shape;
  rowShape.back() = 1;
  std::string a = type(shape, from), x = type(shape, DType::F32),
              p = type({shape.back()}, DType::F32), g = type(rowShape, DType::F32);
  DefinitionText text("cast_layer_norm",
                      {{"%a", a}, {"%scale", p}, {"%bias", p}, {"%g", g}});
  auto wide = text.layer("%0", "cgc_op.cast", {{"%a", a}}, x, "{to = !cgc.float32}");
  auto normalized = text.layer("%1", "cgc_op.layer_norm", {wide, {"%scale", p}, {"%bias", p}},
                               x, layerNormAttributes(-1, 1e-5));
  auto scaled = text.layer("%2", "cgc_op.mul", {normalized, {"%g", g}}, x);
  return {text.str({normalized, scaled}),
          {tensor(shape, from, -3, 3), tensor({shape.back()}, DType::F32, -1, 1),
           tensor({shape.back()}, DType::F32, -1, 1), tensor(rowShape, DType::F32, 0.5, 2)},
          normTolerance(DType::F32)};
}

/// Rows longer than the on-chip row cache (9000 floats): the prologue is
/// computed again in each pass.
DefinitionCase longRowLayerNormCase(DType dtype) {
  Dims shape = {3, 9000};
  std::string x = type(shape, dtype), p = type({9000}, dtype);
  DefinitionText text("long_layer_norm", {{"%x", x}, {"%r", x}, {"%scale", p}, {"%bias", p}});
  auto difference = text.layer("%0", "cgc_op.sub", {{"%x", x}, {"%r", x}}, x);
  auto out = text.layer("%1", "cgc_op.layer_norm", {difference, {"%scale", p}, {"%bias", p}}, x,
                        layerNormAttributes(-1, 1e-5));
  return {text.str({out}),
          {tensor(shape, dtype, -1, 1), tensor(shape, dtype, -1, 1), tensor({9000}, dtype, -1, 1),
           tensor({9000}, dtype, -1, 1)},
          normTolerance(dtype)};
}

/// BERT's attention probabilities without the products around them:
/// softmax(scores * scale + mask), the mask 1x1x1xS broadcast over heads
/// and queries, the scale a scalar.
DefinitionCase maskedSoftmaxCase(const Dims &shape, DType dtype) {
  Dims maskShape = {shape[0], 1, 1, shape[3]};
  std::string x = type(shape, dtype), s = type({}, dtype), m = type(maskShape, dtype);
  DefinitionText text("masked_softmax", {{"%scores", x}, {"%scale", s}, {"%mask", m}});
  auto scaled = text.layer("%0", "cgc_op.mul", {{"%scores", x}, {"%scale", s}}, x);
  auto masked = text.layer("%1", "cgc_op.add", {scaled, {"%mask", m}}, x);
  auto out = text.layer("%2", "cgc_op.softmax", {masked}, x, "{axis = 3 : i64}");
  return {text.str({out}),
          {tensor(shape, dtype, -8, 8), values({}, dtype, {0.125}),
           values(maskShape, dtype, {0, 0, 0, -10000, 0, -10000, 0})},
          normTolerance(dtype)};
}

/// ViT's attention probabilities, scaled per head afterwards:
/// softmax(scores / 8) * head_scale (12x1x1).
DefinitionCase scaledSoftmaxCase(DType dtype) {
  Dims shape = {1, 12, 197, 197};
  std::string x = type(shape, dtype), s = type({}, dtype), h = type({12, 1, 1}, dtype);
  DefinitionText text("scaled_softmax", {{"%scores", x}, {"%d", s}, {"%heads", h}});
  auto scaled = text.layer("%0", "cgc_op.div", {{"%scores", x}, {"%d", s}}, x);
  auto probabilities = text.layer("%1", "cgc_op.softmax", {scaled}, x, "{axis = -1 : i64}");
  auto out = text.layer("%2", "cgc_op.mul", {probabilities, {"%heads", h}}, x);
  return {text.str({out}),
          {tensor(shape, dtype, -20, 20), values({}, dtype, {8.0}),
           tensor({12, 1, 1}, dtype, 0, 1)},
          normTolerance(dtype)};
}

/// softmax along an outer axis (one thread per line): softmax(x - m, axis
/// 1) + y.
DefinitionCase outerAxisSoftmaxCase(DType dtype) {
  Dims shape = {2, 64, 30};
  std::string x = type(shape, dtype), m = type({30}, dtype);
  DefinitionText text("outer_softmax", {{"%x", x}, {"%m", m}, {"%y", x}});
  auto shifted = text.layer("%0", "cgc_op.sub", {{"%x", x}, {"%m", m}}, x);
  auto probabilities = text.layer("%1", "cgc_op.softmax", {shifted}, x, "{axis = 1 : i64}");
  auto out = text.layer("%2", "cgc_op.add", {probabilities, {"%y", x}}, x);
  return {text.str({out}), {tensor(shape, dtype, -5, 5), tensor({30}, dtype), tensor(shape, dtype)},
          normTolerance(dtype)};
}

/// Rows longer than the row cache (10000 floats).
DefinitionCase longRowSoftmaxCase(DType dtype) {
  Dims shape = {2, 10000};
  std::string x = type(shape, dtype), s = type({}, dtype);
  DefinitionText text("long_softmax", {{"%x", x}, {"%t", s}});
  auto scaled = text.layer("%0", "cgc_op.mul", {{"%x", x}, {"%t", s}}, x);
  auto out = text.layer("%1", "cgc_op.softmax", {scaled}, x);
  return {text.str({out}), {tensor(shape, dtype, -5, 5), values({}, dtype, {1.5})},
          normTolerance(dtype)};
}

std::vector<DefinitionCase> layerNormCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : kFloatTypes) {
    cases.push_back(residualLayerNormCase({1, 128, 768}, dtype));
    cases.push_back(layerNormCase({32, 197, 768}, dtype));
    cases.push_back(chainsLayerNormCase({1, 128, 768}, dtype));
    cases.push_back(outerAxisLayerNormCase(dtype));
    cases.push_back(longRowLayerNormCase(dtype));
    for (int64_t size : {1024, 1000, 77, 3000, 4098})
      cases.push_back(residualLayerNormCase({3, 5, size}, dtype));
    cases.push_back(chainsLayerNormCase({2, 3, 1000}, dtype));
    cases.push_back(layerNormCase({2, 7, 3000}, dtype));
  }
  cases.push_back(castLayerNormCase({2, 9, 768}, DType::F16));
  cases.push_back(castLayerNormCase({2, 9, 1000}, DType::BF16));
  cases.push_back(castLayerNormCase({2, 3, 77}, DType::F16));
  cases.push_back(chainsLayerNormCase({2, 3, 40}, DType::F64));
  cases.push_back(residualLayerNormCase({3, 2000}, DType::F64));
  return cases;
}

std::vector<DefinitionCase> softmaxCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : kFloatTypes) {
    cases.push_back(maskedSoftmaxCase({1, 12, 128, 128}, dtype));
    cases.push_back(scaledSoftmaxCase(dtype));
    cases.push_back(outerAxisSoftmaxCase(dtype));
    cases.push_back(longRowSoftmaxCase(dtype));
    // A mask per batch of several: its row offset walks two dimensions.
    cases.push_back(maskedSoftmaxCase({3, 4, 5, 96}, dtype));
    cases.push_back(maskedSoftmaxCase({2, 2, 3, 2500}, dtype));
  }
  cases.push_back(maskedSoftmaxCase({2, 2, 5, 33}, DType::F64));
  cases.push_back(outerAxisSoftmaxCase(DType::F64));
  return cases;
}

CGC_FUSED_KERNEL_CASES(FusedNormalizationTest, LayerNorm, layerNormCases)
CGC_FUSED_KERNEL_CASES(FusedNormalizationTest, Softmax, softmaxCases)

TEST_F(FusedNormalizationTest, LayerNormCompiles) {
  for (const DefinitionCase &definitionCase : layerNormCases())
    expectFamilyCompiles(kFusedNormalization, definitionCase);
}

TEST_F(FusedNormalizationTest, SoftmaxCompiles) {
  for (const DefinitionCase &definitionCase : softmaxCases())
    expectFamilyCompiles(kFusedNormalization, definitionCase);
}

TEST_F(FusedNormalizationTest, SequenceLengthsShareTheirModule) {
  NvrtcCompiler &compiler = getCompileOnlyContext().getCompiler();
  expectFamilyCompiles(kFusedNormalization, residualLayerNormCase({1, 77, 512}, DType::F32));
  size_t modules = compiler.getModuleCount();
  // Another number of rows of the same length: only parameters differ.
  expectFamilyCompiles(kFusedNormalization, residualLayerNormCase({3, 50, 512}, DType::F32));
  EXPECT_EQ(compiler.getModuleCount(), modules);
}

TEST_F(FusedNormalizationTest, ScaleComputedInsideIsRejected) {
  std::string x = type({4, 8}, DType::F32), p = type({8}, DType::F32);
  DefinitionText text("computed_scale", {{"%x", x}, {"%scale", p}, {"%two", p}});
  auto doubled = text.layer("%0", "cgc_op.mul", {{"%scale", p}, {"%two", p}}, p);
  auto out = text.layer("%1", "cgc_op.layer_norm", {{"%x", x}, doubled}, x,
                        layerNormAttributes(-1, 1e-5));
  expectFusedRejected({text.str({out}),
                       {tensor({4, 8}, DType::F32), tensor({8}, DType::F32),
                        tensor({8}, DType::F32)},
                       {}},
                      "@computed_scale: fused normalization: a layer_norm scale or bias computed "
                      "inside the definition is not implemented on the CUDA driver");
}

TEST_F(FusedNormalizationTest, PrologueValueAfterTheNormalizationIsRejected) {
  std::string x = type({4, 8}, DType::F32), p = type({8}, DType::F32);
  DefinitionText text("reused_sum", {{"%x", x}, {"%r", x}, {"%scale", p}});
  auto sum = text.layer("%0", "cgc_op.add", {{"%x", x}, {"%r", x}}, x);
  auto normalized =
      text.layer("%1", "cgc_op.layer_norm", {sum, {"%scale", p}}, x, layerNormAttributes(-1, 1e-5));
  auto out = text.layer("%2", "cgc_op.add", {normalized, sum}, x);
  expectFusedRejected({text.str({out}),
                       {tensor({4, 8}, DType::F32), tensor({4, 8}, DType::F32),
                        tensor({8}, DType::F32)},
                       {}},
                      "@reused_sum: fused normalization: cgc_op.add after the normalization uses "
                      "a value computed before it, which is not implemented on the CUDA driver");
}

TEST_F(FusedNormalizationTest, PrologueResultIsRejected) {
  std::string x = type({4, 8}, DType::F32);
  DefinitionText text("returned_sum", {{"%x", x}, {"%r", x}});
  auto sum = text.layer("%0", "cgc_op.add", {{"%x", x}, {"%r", x}}, x);
  auto probabilities = text.layer("%1", "cgc_op.softmax", {sum}, x);
  expectFusedRejected({text.str({probabilities, sum}),
                       {tensor({4, 8}, DType::F32), tensor({4, 8}, DType::F32)},
                       {}},
                      "@returned_sum: fused normalization: result 1 is not computed from the "
                      "normalization's result, which is not implemented on the CUDA driver");
}

TEST_F(FusedNormalizationTest, EpilogueWiderThanTheNormalizedTensorIsRejected) {
  std::string x = type({4, 8}, DType::F32), wide = type({2, 4, 8}, DType::F32);
  DefinitionText text("wider", {{"%x", x}, {"%y", wide}});
  auto probabilities = text.layer("%0", "cgc_op.softmax", {{"%x", x}}, x);
  auto out = text.layer("%1", "cgc_op.add", {probabilities, {"%y", wide}}, wide);
  expectFusedRejected({text.str({out}),
                       {tensor({4, 8}, DType::F32), tensor({2, 4, 8}, DType::F32)},
                       {}},
                      "@wider: fused normalization: argument 1 of shape 2x4x8 does not broadcast "
                      "to the output shape 4x8");
}

TEST_F(FusedNormalizationTest, TwoNormalizationsAreNotThisShape) {
  std::string x = type({4, 8}, DType::F32), p = type({8}, DType::F32);
  DefinitionText text("two", {{"%x", x}, {"%scale", p}});
  auto probabilities = text.layer("%0", "cgc_op.softmax", {{"%x", x}}, x);
  auto out = text.layer("%1", "cgc_op.layer_norm", {probabilities, {"%scale", p}}, x,
                        layerNormAttributes(-1, 1e-5));
  DefinitionCase two{text.str({out}), {tensor({4, 8}, DType::F32), tensor({8}, DType::F32)}, {}};
  FunctionalDefinitionOp definition = buildDefinition(two);
  ASSERT_TRUE(definition);
  EXPECT_FALSE(kFusedNormalization.check(definition).has_value());
  expectFusedRejected(two);
}

} // namespace
