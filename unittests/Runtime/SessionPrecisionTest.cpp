//===- SessionPrecisionTest.cpp - float32 models run in float16 and bfloat16 ===//
//
// CompilerOptions::precision end to end on the CPU device: a small CNN and a
// small transformer block (with BERT's float32-lowest attention mask) are
// compiled in float16 and bfloat16 by both compilers, their float32 weights
// converted when the session uploads them, and their outputs compared with
// the float32 model's. The outputs must stay float32, finite, and within a
// tolerance that follows from the type's precision.
//
//===----------------------------------------------------------------------===//

#include "Runtime/Weights.h"
#include "cgc/Runtime/Session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

using namespace cgc::runtime;

namespace {

using Precision = CompilerOptions::Precision;

/// Convolution, batch normalization, relu, max and average pooling, global
/// average pooling, gemm and softmax.
constexpr const char *kCNN = R"mlir(
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<1x3x8x8x!cgc.float32> {cgc.name = "image"}) -> (!cgc.tensor<1x10x!cgc.float32> {cgc.name = "probabilities"}, !cgc.tensor<1x8x4x4x!cgc.float32> {cgc.name = "features"}) {
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 8x3x3x3x!cgc.float32>
    %b1 = cgc.constant("b1") : !cgc.tensor<constant 8x!cgc.float32>
    %scale = cgc.constant("scale") : !cgc.tensor<constant 8x!cgc.float32>
    %shift = cgc.constant("shift") : !cgc.tensor<constant 8x!cgc.float32>
    %mean = cgc.constant("mean") : !cgc.tensor<constant 8x!cgc.float32>
    %variance = cgc.constant("variance") : !cgc.tensor<constant 8x!cgc.float32>
    %w2 = cgc.constant("w2") : !cgc.tensor<constant 10x8x!cgc.float32>
    %b2 = cgc.constant("b2") : !cgc.tensor<constant 10x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w1, %b1) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!cgc.tensor<1x3x8x8x!cgc.float32>, !cgc.tensor<constant 8x3x3x3x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<1x8x8x8x!cgc.float32>
    %1 = cgc_op.batch_norm(%0, %scale, %shift, %mean, %variance)
        : (!cgc.tensor<1x8x8x8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<1x8x8x8x!cgc.float32>
    %2 = cgc_op.relu(%1) : (!cgc.tensor<1x8x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x8x!cgc.float32>
    %3 = cgc_op.max_pool(%2) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x8x8x8x!cgc.float32>) -> !cgc.tensor<1x8x4x4x!cgc.float32>
    %4 = cgc_op.average_pool(%3) {kernel_shape = [3, 3], start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x8x4x4x!cgc.float32>) -> !cgc.tensor<1x8x4x4x!cgc.float32>
    %5 = cgc_op.global_average_pool(%4) : (!cgc.tensor<1x8x4x4x!cgc.float32>) -> !cgc.tensor<1x8x1x1x!cgc.float32>
    %6 = cgc_op.reshape(%5) {shape = [1, 8]} : (!cgc.tensor<1x8x1x1x!cgc.float32>) -> !cgc.tensor<1x8x!cgc.float32>
    %7 = cgc_op.gemm(%6, %w2, %b2) {trans_b = true} : (!cgc.tensor<1x8x!cgc.float32>, !cgc.tensor<constant 10x8x!cgc.float32>, !cgc.tensor<constant 10x!cgc.float32>) -> !cgc.tensor<1x10x!cgc.float32>
    %8 = cgc_op.softmax(%7) : (!cgc.tensor<1x10x!cgc.float32>) -> !cgc.tensor<1x10x!cgc.float32>
    cgc.return %8, %4 : !cgc.tensor<1x10x!cgc.float32>, !cgc.tensor<1x8x4x4x!cgc.float32>
  }
}
)mlir";

/// An embedding lookup, layer normalization, self-attention twice (matmul +
/// softmax, and scaled_dot_product_attention) with BERT's additive mask
/// `(1 - mask) * float32 lowest`, a feed-forward block with exact gelu, erf,
/// and a reduce_sum (kept in float32).
constexpr const char *kTransformer = R"mlir(
cgc.module {
  cgc.entry_point @main(%ids: !cgc.tensor<1x4x!cgc.int64> {cgc.name = "ids"}, %mask: !cgc.tensor<1x4x!cgc.float32> {cgc.name = "mask"}) -> (!cgc.tensor<1x4x8x!cgc.float32> {cgc.name = "hidden"}, !cgc.tensor<1x4x!cgc.float32> {cgc.name = "pooled"}, !cgc.tensor<1x4x8x!cgc.float32> {cgc.name = "erf"}) {
    %table = cgc.constant("table") : !cgc.tensor<constant 16x8x!cgc.float32>
    %positions = cgc.constant("positions") : !cgc.tensor<constant 1x4x8x!cgc.float32>
    %gamma = cgc.constant("gamma") : !cgc.tensor<constant 8x!cgc.float32>
    %beta = cgc.constant("beta") : !cgc.tensor<constant 8x!cgc.float32>
    %wq = cgc.constant("wq") : !cgc.tensor<constant 8x8x!cgc.float32>
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 8x16x!cgc.float32>
    %w2 = cgc.constant("w2") : !cgc.tensor<constant 16x8x!cgc.float32>
    %one = cgc.constant("one") : !cgc.tensor<constant !cgc.float32>
    %lowest = cgc.constant("lowest") : !cgc.tensor<constant !cgc.float32>
    %e = cgc_op.gather(%table, %ids) : (!cgc.tensor<constant 16x8x!cgc.float32>, !cgc.tensor<1x4x!cgc.int64>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %h = cgc_op.add(%e, %positions) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<constant 1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %n = cgc_op.layer_norm(%h, %gamma, %beta) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %q = cgc_op.matmul(%n, %wq) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<constant 8x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %kt = cgc_op.transpose(%n) {permutation = [0, 2, 1]} : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x8x4x!cgc.float32>
    %s = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<1x8x4x!cgc.float32>) -> !cgc.tensor<1x4x4x!cgc.float32>
    %inverted = cgc_op.sub(%one, %mask) : (!cgc.tensor<constant !cgc.float32>, !cgc.tensor<1x4x!cgc.float32>) -> !cgc.tensor<1x4x!cgc.float32>
    %bias = cgc_op.mul(%inverted, %lowest) : (!cgc.tensor<1x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x4x!cgc.float32>
    %bias3 = cgc_op.reshape(%bias) {shape = [1, 1, 4]} : (!cgc.tensor<1x4x!cgc.float32>) -> !cgc.tensor<1x1x4x!cgc.float32>
    %masked = cgc_op.add(%s, %bias3) : (!cgc.tensor<1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x!cgc.float32>) -> !cgc.tensor<1x4x4x!cgc.float32>
    %p = cgc_op.softmax(%masked) : (!cgc.tensor<1x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x!cgc.float32>
    %context = cgc_op.matmul(%p, %n) : (!cgc.tensor<1x4x4x!cgc.float32>, !cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %n4 = cgc_op.reshape(%n) {shape = [1, 1, 4, 8]} : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x1x4x8x!cgc.float32>
    %bias4 = cgc_op.reshape(%bias) {shape = [1, 1, 1, 4]} : (!cgc.tensor<1x4x!cgc.float32>) -> !cgc.tensor<1x1x1x4x!cgc.float32>
    %attention = cgc_op.scaled_dot_product_attention(%n4, %n4, %n4, %bias4) : (!cgc.tensor<1x1x4x8x!cgc.float32>, !cgc.tensor<1x1x4x8x!cgc.float32>, !cgc.tensor<1x1x4x8x!cgc.float32>, !cgc.tensor<1x1x1x4x!cgc.float32>) -> !cgc.tensor<1x1x4x8x!cgc.float32>
    %attention3 = cgc_op.reshape(%attention) {shape = [1, 4, 8]} : (!cgc.tensor<1x1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %both = cgc_op.add(%context, %attention3) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %f1 = cgc_op.matmul(%both, %w1) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<constant 8x16x!cgc.float32>) -> !cgc.tensor<1x4x16x!cgc.float32>
    %g = cgc_op.gelu(%f1) : (!cgc.tensor<1x4x16x!cgc.float32>) -> !cgc.tensor<1x4x16x!cgc.float32>
    %f2 = cgc_op.matmul(%g, %w2) : (!cgc.tensor<1x4x16x!cgc.float32>, !cgc.tensor<constant 16x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %residual = cgc_op.add(%f2, %h) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %out = cgc_op.layer_norm(%residual, %gamma, %beta) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %pooled = cgc_op.reduce_sum(%g) {axes = [-1], keep_dims = false} : (!cgc.tensor<1x4x16x!cgc.float32>) -> !cgc.tensor<1x4x!cgc.float32>
    %z = cgc_op.erf(%out) : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    cgc.return %out, %pooled, %z : !cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<1x4x!cgc.float32>, !cgc.tensor<1x4x8x!cgc.float32>
  }
}
)mlir";

/// Deterministic float32 values in [low, high).
HostTensor makeValues(std::vector<int64_t> shape, uint32_t seed, float low = -1.0f,
                      float high = 1.0f) {
  HostTensor tensor = HostTensor::zeros(DType::Float32, std::move(shape));
  uint32_t state = seed * 2654435761u + 1;
  for (float &value : tensor.as<float>()) {
    state = state * 1664525u + 1013904223u;
    value = low + (high - low) * (static_cast<float>(state >> 8) / static_cast<float>(1u << 24));
  }
  return tensor;
}

HostTensor makeScalar(float value) {
  return HostTensor::fromValues<float>(DType::Float32, {}, std::span<const float>(&value, 1));
}

/// A model as Session::create takes it, held in memory.
struct Model {
  std::string name;
  std::string text;
  std::map<std::string, HostTensor> weights;
  std::vector<HostTensor> inputs;
};

Model makeCNN() {
  Model model{"cnn", kCNN, {}, {}};
  model.weights = {{"w1", makeValues({8, 3, 3, 3}, 1, -0.5f, 0.5f)},
                   {"b1", makeValues({8}, 2)},
                   {"scale", makeValues({8}, 3, 0.5f, 1.5f)},
                   {"shift", makeValues({8}, 4)},
                   {"mean", makeValues({8}, 5)},
                   {"variance", makeValues({8}, 6, 0.5f, 2.0f)},
                   {"w2", makeValues({10, 8}, 7)},
                   {"b2", makeValues({10}, 8)}};
  model.inputs = {makeValues({1, 3, 8, 8}, 9)};
  return model;
}

Model makeTransformer() {
  Model model{"transformer", kTransformer, {}, {}};
  model.weights = {{"table", makeValues({16, 8}, 11)},
                   {"positions", makeValues({1, 4, 8}, 12, -0.1f, 0.1f)},
                   {"gamma", makeValues({8}, 13, 0.5f, 1.5f)},
                   {"beta", makeValues({8}, 14, -0.1f, 0.1f)},
                   {"wq", makeValues({8, 8}, 15, -0.5f, 0.5f)},
                   {"w1", makeValues({8, 16}, 16, -0.5f, 0.5f)},
                   {"w2", makeValues({16, 8}, 17, -0.5f, 0.5f)},
                   {"one", makeScalar(1.0f)},
                   {"lowest", makeScalar(std::numeric_limits<float>::lowest())}};
  std::vector<int64_t> ids = {3, 15, 0, 7};
  std::vector<float> mask = {1, 1, 1, 0}; // the last position is padding
  model.inputs = {HostTensor::fromValues<int64_t>(DType::Int64, {1, 4}, ids),
                  HostTensor::fromValues<float>(DType::Float32, {1, 4}, mask)};
  return model;
}

Result<std::unique_ptr<Session>> createSession(const Model &model, CompilerOptions compiler) {
  SessionOptions options;
  options.modelPath = model.name + ".mlir";
  const auto *text = reinterpret_cast<const std::byte *>(model.text.data());
  options.modelData.assign(text, text + model.text.size());
  Result<std::vector<std::byte>> weights = serializeSafetensors(model.weights);
  if (!weights)
    return weights.error();
  options.weightsData = std::move(*weights);
  options.device = "cpu";
  options.debugLayer = true;
  options.compiler = compiler;
  return Session::create(options);
}

/// How far a converted model's output may be from the float32 model's:
/// |actual - expected| <= tolerance * max(|expected|, 1). Each value is
/// rounded to the type (float16: 11 significant bits, 4.9e-4 relative;
/// bfloat16: 8 bits, 3.9e-3) at every layer of chains about ten layers long,
/// with float32 accumulation inside the layers. Measured: at most 1.5e-3 in
/// float16 and 1.8e-2 in bfloat16 (the transformer's outputs).
double getTolerance(Precision precision) { return precision == Precision::Float16 ? 1e-2 : 3e-2; }

/// The largest |actual - expected| / max(|expected|, 1), or infinity when
/// dtypes or shapes differ or an output is not finite.
double maxScaledError(const HostTensor &actual, const HostTensor &expected) {
  if (actual.dtype != DType::Float32 || expected.dtype != DType::Float32 ||
      actual.shape != expected.shape)
    return std::numeric_limits<double>::infinity();
  double worst = 0;
  std::span<const float> a = actual.as<float>(), b = expected.as<float>();
  for (size_t i = 0; i < b.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
      return std::numeric_limits<double>::infinity();
    double difference = std::fabs(double(a[i]) - b[i]);
    worst = std::max(worst, difference / std::max(1.0, std::fabs(double(b[i]))));
  }
  return worst;
}

struct PrecisionCase {
  const char *model;
  Precision precision;
  CompilerOptions::Compiler compiler;
};

std::string describe(const PrecisionCase &param) {
  return std::string(param.model) +
         (param.precision == Precision::Float16 ? "_Float16" : "_BFloat16") +
         (param.compiler == CompilerOptions::Compiler::Baseline ? "_Baseline" : "_Default");
}

std::string getCaseName(const ::testing::TestParamInfo<PrecisionCase> &info) {
  return describe(info.param);
}

/// How GoogleTest (and ctest's test names) show a case.
void PrintTo(const PrecisionCase &param, std::ostream *os) { *os << describe(param); }

class SessionPrecisionTest : public ::testing::TestWithParam<PrecisionCase> {};

TEST_P(SessionPrecisionTest, MatchesTheFloat32ModelWithFloat32InputsAndOutputs) {
  const PrecisionCase &param = GetParam();
  Model model = std::string(param.model) == "CNN" ? makeCNN() : makeTransformer();

  CompilerOptions float32Options;
  float32Options.compiler = param.compiler;
  Result<std::unique_ptr<Session>> reference = createSession(model, float32Options);
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  Result<std::vector<HostTensor>> expected = (*reference)->run(model.inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message;

  CompilerOptions options = float32Options;
  options.precision = param.precision;
  Result<std::unique_ptr<Session>> session = createSession(model, options);
  ASSERT_TRUE(session.ok()) << session.error().message;
  const SessionStats &stats = (*session)->getStats();
  EXPECT_EQ(stats.compile.precision,
            param.precision == Precision::Float16 ? "float16" : "bfloat16");
  EXPECT_EQ((*reference)->getStats().compile.precision, "float32");
  // The weights are uploaded as 16-bit values: fewer bytes than float32.
  EXPECT_LT(stats.constantBytes, (*reference)->getStats().constantBytes);

  // The signature is the float32 model's.
  ASSERT_EQ((*session)->getInputs().size(), (*reference)->getInputs().size());
  for (size_t i = 0; i < (*session)->getInputs().size(); ++i) {
    EXPECT_EQ((*session)->getInputs()[i].dtype, (*reference)->getInputs()[i].dtype);
    EXPECT_EQ((*session)->getInputs()[i].shape, (*reference)->getInputs()[i].shape);
  }
  ASSERT_EQ((*session)->getOutputs().size(), expected->size());
  for (const TensorInfo &output : (*session)->getOutputs())
    EXPECT_EQ(output.dtype, DType::Float32) << output.name;

  Result<std::vector<HostTensor>> outputs = (*session)->run(model.inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  ASSERT_EQ(outputs->size(), expected->size());
  double tolerance = getTolerance(param.precision);
  bool anyDifference = false;
  for (size_t i = 0; i < outputs->size(); ++i) {
    double error = maxScaledError((*outputs)[i], (*expected)[i]);
    EXPECT_LE(error, tolerance) << "output " << (*session)->getOutputs()[i].name;
    anyDifference = anyDifference || error > 0;
  }
  // The model did compute in the narrower type.
  EXPECT_TRUE(anyDifference);
}

INSTANTIATE_TEST_SUITE_P(
    CPU, SessionPrecisionTest,
    ::testing::Values(
        PrecisionCase{"CNN", Precision::Float16, CompilerOptions::Compiler::Default},
        PrecisionCase{"CNN", Precision::BFloat16, CompilerOptions::Compiler::Default},
        PrecisionCase{"CNN", Precision::Float16, CompilerOptions::Compiler::Baseline},
        PrecisionCase{"Transformer", Precision::Float16, CompilerOptions::Compiler::Default},
        PrecisionCase{"Transformer", Precision::BFloat16, CompilerOptions::Compiler::Default},
        PrecisionCase{"Transformer", Precision::BFloat16, CompilerOptions::Compiler::Baseline}),
    getCaseName);

/// The float32 lowest in the attention mask becomes float16's -65504 when
/// the weights are uploaded, not -infinity: the padded position's mask term
/// stays finite, `0 * lowest` stays 0 for the kept positions, and every
/// output is finite (with -infinity, 0 * -inf would be NaN in every row).
TEST(SessionPrecisionWeightsTest, SaturatedLowestKeepsAttentionFinite) {
  Model model = makeTransformer();
  CompilerOptions options;
  options.precision = Precision::Float16;
  Result<std::unique_ptr<Session>> session = createSession(model, options);
  ASSERT_TRUE(session.ok()) << session.error().message;
  Result<std::vector<HostTensor>> outputs = (*session)->run(model.inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  for (const HostTensor &output : *outputs)
    for (float value : output.as<float>())
      ASSERT_TRUE(std::isfinite(value));
}

/// Only float32 data is converted for a float16 constant: float64 data is
/// refused, with the constant and both signatures named.
TEST(SessionPrecisionWeightsTest, OnlyFloat32WeightsAreConverted) {
  Model model = makeTransformer();
  // The table as float64: a dtype the runtime does not convert.
  HostTensor table = model.weights.at("table");
  HostTensor wide = HostTensor::zeros(DType::Float64, table.shape);
  for (size_t i = 0; i < table.numElements(); ++i)
    wide.as<double>()[i] = table.as<float>()[i];
  model.weights["table"] = wide;
  CompilerOptions options;
  options.precision = Precision::Float16;
  Result<std::unique_ptr<Session>> session = createSession(model, options);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("constant \"table\""), std::string::npos)
      << session.error().message;
  EXPECT_NE(session.error().message.find("has F64 [16x8] but the IR's cgc.constant is F16 [16x8]"),
            std::string::npos)
      << session.error().message;
}

/// Output IR written by hand that binds the stored 2x3x4 float32 weight "w"
/// three ways: permuted to 4x2x3 (twice: one buffer), as stored, and
/// permuted to 3x4x2 as float16 ("h", the same data under another name, as
/// the compiler leaves a float16 constant). Each output is its constant
/// negated (cast for float16), so the outputs are what the device bound.
constexpr const char *kPermutedConstants = R"mlir(
cgc.module {
  cgc.subgraph @negRotated attributes {origin = "cpu.fallback"} {
    cgc.functional_definition private @negRotatedFunctional(%x: !cgc.tensor<constant 4x2x3x!cgc.float32>) -> !cgc.tensor<4x2x3x!cgc.float32> {
      %0 = cgc_op.neg(%x) : (!cgc.tensor<constant 4x2x3x!cgc.float32>) -> !cgc.tensor<4x2x3x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x2x3x!cgc.float32>
    }
  }
  cgc.subgraph @negStored attributes {origin = "cpu.fallback"} {
    cgc.functional_definition private @negStoredFunctional(%x: !cgc.tensor<constant 2x3x4x!cgc.float32>) -> !cgc.tensor<2x3x4x!cgc.float32> {
      %0 = cgc_op.neg(%x) : (!cgc.tensor<constant 2x3x4x!cgc.float32>) -> !cgc.tensor<2x3x4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<2x3x4x!cgc.float32>
    }
  }
  cgc.subgraph @widen attributes {origin = "cpu.fallback"} {
    cgc.functional_definition private @widenFunctional(%x: !cgc.tensor<constant 3x4x2x!cgc.float16>) -> !cgc.tensor<3x4x2x!cgc.float32> {
      %0 = cgc_op.cast(%x) {to = !cgc.float32} : (!cgc.tensor<constant 3x4x2x!cgc.float16>) -> !cgc.tensor<3x4x2x!cgc.float32>
      cgc.return %0 : !cgc.tensor<3x4x2x!cgc.float32>
    }
  }
  cgc.partition @constants(%a: !cgc.memref<constant 4x2x3x!cgc.float32>, %b: !cgc.memref<constant 2x3x4x!cgc.float32>, %c: !cgc.memref<constant 4x2x3x!cgc.float32>, %h: !cgc.memref<constant 3x4x2x!cgc.float16>, %ra: !cgc.memref<4x2x3x!cgc.float32>, %rb: !cgc.memref<2x3x4x!cgc.float32>, %rc: !cgc.memref<4x2x3x!cgc.float32>, %rh: !cgc.memref<3x4x2x!cgc.float32>) {
    cgc.invoke @negRotated(%a, %ra) : (!cgc.memref<constant 4x2x3x!cgc.float32>, !cgc.memref<4x2x3x!cgc.float32>)
    cgc.invoke @negStored(%b, %rb) : (!cgc.memref<constant 2x3x4x!cgc.float32>, !cgc.memref<2x3x4x!cgc.float32>)
    cgc.invoke @negRotated(%c, %rc) : (!cgc.memref<constant 4x2x3x!cgc.float32>, !cgc.memref<4x2x3x!cgc.float32>)
    cgc.invoke @widen(%h, %rh) : (!cgc.memref<constant 3x4x2x!cgc.float16>, !cgc.memref<3x4x2x!cgc.float32>)
    cgc.return
  }
  cgc.program @main(%ra: !cgc.memref<4x2x3x!cgc.float32> {cgc.name = "rotated"}, %rb: !cgc.memref<2x3x4x!cgc.float32> {cgc.name = "stored"}, %rc: !cgc.memref<4x2x3x!cgc.float32> {cgc.name = "rotated_again"}, %rh: !cgc.memref<3x4x2x!cgc.float32> {cgc.name = "half"}) {
    %a = cgc.constant("w") {permutation = [2, 0, 1]} : !cgc.memref<constant 4x2x3x!cgc.float32>
    %b = cgc.constant("w") : !cgc.memref<constant 2x3x4x!cgc.float32>
    %c = cgc.constant("w") {permutation = [2, 0, 1]} : !cgc.memref<constant 4x2x3x!cgc.float32>
    %h = cgc.constant("h") {permutation = [1, 2, 0]} : !cgc.memref<constant 3x4x2x!cgc.float16>
    cgc.invoke @constants(%a, %b, %c, %h, %ra, %rb, %rc, %rh) : (!cgc.memref<constant 4x2x3x!cgc.float32>, !cgc.memref<constant 2x3x4x!cgc.float32>, !cgc.memref<constant 4x2x3x!cgc.float32>, !cgc.memref<constant 3x4x2x!cgc.float16>, !cgc.memref<4x2x3x!cgc.float32>, !cgc.memref<2x3x4x!cgc.float32>, !cgc.memref<4x2x3x!cgc.float32>, !cgc.memref<3x4x2x!cgc.float32>)
    cgc.return
  }
}
)mlir";

/// Element (i, j, k) of a 2x3x4 tensor: distinct, and exact in float16.
float storedValue(int64_t i, int64_t j, int64_t k) {
  return static_cast<float>(i * 12 + j * 4 + k) * 0.75f - 8.0f;
}

TEST(SessionPrecisionWeightsTest, PermutedConstantsAreUploadedPermuted) {
  HostTensor w = HostTensor::zeros(DType::Float32, {2, 3, 4});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k)
        w.as<float>()[(i * 3 + j) * 4 + k] = storedValue(i, j, k);
  Model model{"permuted", kPermutedConstants, {{"w", w}, {"h", w}}, {}};
  Result<std::unique_ptr<Session>> session = createSession(model, {});
  ASSERT_TRUE(session.ok()) << session.error().message;
  // Three device buffers: "w" permuted (bound twice), "w" as stored, "h".
  const SessionStats &stats = (*session)->getStats();
  EXPECT_EQ(stats.numConstants, 3u);
  Result<std::vector<HostTensor>> outputs = (*session)->run({});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  ASSERT_EQ(outputs->size(), 4u);
  const HostTensor &rotated = (*outputs)[0], &stored = (*outputs)[1], &again = (*outputs)[2],
                   &half = (*outputs)[3];
  // permutation [2, 0, 1]: result (a, b, c) is stored (b, c, a).
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 3; ++c) {
        EXPECT_EQ(rotated.as<float>()[(a * 2 + b) * 3 + c], -storedValue(b, c, a));
        EXPECT_EQ(again.as<float>()[(a * 2 + b) * 3 + c], -storedValue(b, c, a));
      }
  for (int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(stored.as<float>()[i], -w.as<float>()[i]);
  // permutation [1, 2, 0]: result (a, b, c) is stored (c, a, b).
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 2; ++c)
        EXPECT_EQ(half.as<float>()[(a * 4 + b) * 2 + c], storedValue(c, a, b));

  // The stored shape is what the weights must have.
  model.weights["h"] = HostTensor::zeros(DType::Float32, {3, 4, 2});
  session = createSession(model, {});
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find(
                "constant \"h\": permuted.mlir (weights in memory) has F32 [3x4x2] but the IR's "
                "cgc.constant is F16 [2x3x4] (stored; bound permuted by [1, 2, 0] as 3x4x2)"),
            std::string::npos)
      << session.error().message;
}

} // namespace
