//===- SessionLayoutTest.cpp - channels-last convolutions end to end -------===//
//
// CompilerOptions::layout on the CPU device: a small CNN (a ResNet block with
// a shortcut convolution, a depthwise convolution, pooling, a classifier) is
// compiled channels-first and channels-last, by both compilers and in two
// precisions, and the outputs must agree. Channels-last binds the
// convolutions' weights permuted (OHWI) from the same OIHW weights file, so
// this checks the runtime's permuted constant upload too; the CPU driver
// runs the transposes and NCHW convolutions.
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

using Layout = CompilerOptions::Layout;
using Precision = CompilerOptions::Precision;

/// conv3x3/2 + bias -> relu -> conv3x3, a 1x1/2 shortcut convolution, add ->
/// relu (an output), a depthwise conv3x3 + bias -> clip -> mul by a scalar,
/// max pool (an output), global average pool, gemm. The shortcut's weight is
/// also read by a layer (so the program binds it as stored and permuted).
constexpr const char *kCNN = R"mlir(
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<1x3x9x8x!cgc.float32> {cgc.name = "image"}) -> (!cgc.tensor<1x10x!cgc.float32> {cgc.name = "logits"}, !cgc.tensor<1x6x5x4x!cgc.float32> {cgc.name = "block"}, !cgc.tensor<1x6x2x2x!cgc.float32> {cgc.name = "pooled"}, !cgc.tensor<6x3x1x1x!cgc.float32> {cgc.name = "shortcut_weight"}) {
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 6x3x3x3x!cgc.float32>
    %b1 = cgc.constant("b1") : !cgc.tensor<constant 6x!cgc.float32>
    %w2 = cgc.constant("w2") : !cgc.tensor<constant 6x6x3x3x!cgc.float32>
    %ws = cgc.constant("ws") : !cgc.tensor<constant 6x3x1x1x!cgc.float32>
    %wd = cgc.constant("wd") : !cgc.tensor<constant 6x1x3x3x!cgc.float32>
    %bd = cgc.constant("bd") : !cgc.tensor<constant 6x!cgc.float32>
    %half = cgc.constant("half") : !cgc.tensor<constant !cgc.float32>
    %wf = cgc.constant("wf") : !cgc.tensor<constant 10x6x!cgc.float32>
    %bf = cgc.constant("bf") : !cgc.tensor<constant 10x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w1, %b1) {start_padding = [1, 1], end_padding = [1, 1], strides = [2, 2]}
        : (!cgc.tensor<1x3x9x8x!cgc.float32>, !cgc.tensor<constant 6x3x3x3x!cgc.float32>, !cgc.tensor<constant 6x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<1x6x5x4x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %2 = cgc_op.convolution(%1, %w2) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!cgc.tensor<1x6x5x4x!cgc.float32>, !cgc.tensor<constant 6x6x3x3x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %3 = cgc_op.convolution(%x, %ws) {end_padding = [1, 0], strides = [2, 2]}
        : (!cgc.tensor<1x3x9x8x!cgc.float32>, !cgc.tensor<constant 6x3x1x1x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %4 = cgc_op.add(%2, %3) : (!cgc.tensor<1x6x5x4x!cgc.float32>, !cgc.tensor<1x6x5x4x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %5 = cgc_op.relu(%4) : (!cgc.tensor<1x6x5x4x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %6 = cgc_op.convolution(%5, %wd, %bd) {start_padding = [1, 1], end_padding = [1, 1], groups = 6 : i64}
        : (!cgc.tensor<1x6x5x4x!cgc.float32>, !cgc.tensor<constant 6x1x3x3x!cgc.float32>, !cgc.tensor<constant 6x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %7 = cgc_op.clip(%6) {min = 0.0, max = 6.0} : (!cgc.tensor<1x6x5x4x!cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %8 = cgc_op.mul(%7, %half) : (!cgc.tensor<1x6x5x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x6x5x4x!cgc.float32>
    %9 = cgc_op.max_pool(%8) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x6x5x4x!cgc.float32>) -> !cgc.tensor<1x6x2x2x!cgc.float32>
    %10 = cgc_op.global_average_pool(%8) : (!cgc.tensor<1x6x5x4x!cgc.float32>) -> !cgc.tensor<1x6x1x1x!cgc.float32>
    %11 = cgc_op.reshape(%10) {shape = [1, 6]} : (!cgc.tensor<1x6x1x1x!cgc.float32>) -> !cgc.tensor<1x6x!cgc.float32>
    %12 = cgc_op.gemm(%11, %wf, %bf) {trans_b = true} : (!cgc.tensor<1x6x!cgc.float32>, !cgc.tensor<constant 10x6x!cgc.float32>, !cgc.tensor<constant 10x!cgc.float32>) -> !cgc.tensor<1x10x!cgc.float32>
    %13 = cgc_op.neg(%ws) : (!cgc.tensor<constant 6x3x1x1x!cgc.float32>) -> !cgc.tensor<6x3x1x1x!cgc.float32>
    cgc.return %12, %5, %9, %13 : !cgc.tensor<1x10x!cgc.float32>, !cgc.tensor<1x6x5x4x!cgc.float32>, !cgc.tensor<1x6x2x2x!cgc.float32>, !cgc.tensor<6x3x1x1x!cgc.float32>
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

std::map<std::string, HostTensor> makeWeights() {
  float half = 0.5f;
  HostTensor scalar = HostTensor::fromValues<float>(DType::Float32, {}, std::span(&half, 1));
  return {{"w1", makeValues({6, 3, 3, 3}, 1, -0.5f, 0.5f)},
          {"b1", makeValues({6}, 2)},
          {"w2", makeValues({6, 6, 3, 3}, 3, -0.5f, 0.5f)},
          {"ws", makeValues({6, 3, 1, 1}, 4)},
          {"wd", makeValues({6, 1, 3, 3}, 5)},
          {"bd", makeValues({6}, 6)},
          {"half", scalar},
          {"wf", makeValues({10, 6}, 7)},
          {"bf", makeValues({10}, 8)}};
}

Result<std::unique_ptr<Session>> createSession(CompilerOptions compiler) {
  SessionOptions options;
  options.modelPath = "cnn.mlir";
  std::string_view text = kCNN;
  const auto *bytes = reinterpret_cast<const std::byte *>(text.data());
  options.modelData.assign(bytes, bytes + text.size());
  Result<std::vector<std::byte>> weights = serializeSafetensors(makeWeights());
  if (!weights)
    return weights.error();
  options.weightsData = std::move(*weights);
  options.device = "cpu";
  options.debugLayer = true;
  options.compiler = compiler;
  return Session::create(options);
}

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

struct LayoutCase {
  CompilerOptions::Compiler compiler;
  Precision precision;
};

std::string getCaseName(const ::testing::TestParamInfo<LayoutCase> &info) {
  return std::string(info.param.compiler == CompilerOptions::Compiler::Baseline ? "Baseline"
                                                                                 : "Default") +
         (info.param.precision == Precision::Float16 ? "_Float16" : "_Float32");
}

class SessionLayoutTest : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(SessionLayoutTest, ChannelsLastMatchesChannelsFirst) {
  const LayoutCase &param = GetParam();
  CompilerOptions firstOptions;
  firstOptions.compiler = param.compiler;
  firstOptions.precision = param.precision;
  firstOptions.layout = Layout::ChannelsFirst;
  Result<std::unique_ptr<Session>> first = createSession(firstOptions);
  ASSERT_TRUE(first.ok()) << first.error().message;
  CompilerOptions lastOptions = firstOptions;
  lastOptions.layout = Layout::ChannelsLast;
  Result<std::unique_ptr<Session>> last = createSession(lastOptions);
  ASSERT_TRUE(last.ok()) << last.error().message;

  const SessionStats &firstStats = (*first)->getStats(), &lastStats = (*last)->getStats();
  EXPECT_EQ(firstStats.compile.layout, "channels-first");
  EXPECT_EQ(lastStats.compile.layout, "channels-last");
  // Every weight is bound once, except the shortcut's, bound as stored (for
  // the neg) and as OHWI (for its convolution).
  EXPECT_EQ(lastStats.numConstants, firstStats.numConstants + 1);

  // The signature does not change.
  ASSERT_EQ((*last)->getInputs().size(), (*first)->getInputs().size());
  for (size_t i = 0; i < (*last)->getInputs().size(); ++i)
    EXPECT_EQ((*last)->getInputs()[i].shape, (*first)->getInputs()[i].shape);
  ASSERT_EQ((*last)->getOutputs().size(), (*first)->getOutputs().size());
  for (size_t i = 0; i < (*last)->getOutputs().size(); ++i) {
    EXPECT_EQ((*last)->getOutputs()[i].name, (*first)->getOutputs()[i].name);
    EXPECT_EQ((*last)->getOutputs()[i].shape, (*first)->getOutputs()[i].shape);
  }

  std::vector<HostTensor> inputs = {makeValues({1, 3, 9, 8}, 9)};
  Result<std::vector<HostTensor>> expected = (*first)->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  // Twice: the recorded command list is re-executed.
  for (int run = 0; run < 2; ++run) {
    Result<std::vector<HostTensor>> outputs = (*last)->run(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.error().message;
    ASSERT_EQ(outputs->size(), expected->size());
    // Transposes move values exactly; float32 sums in the same order, but
    // float16 rounds where a fused epilogue in one layout is two layers in
    // the other.
    double tolerance = param.precision == Precision::Float16 ? 1e-2 : 1e-6;
    for (size_t i = 0; i < outputs->size(); ++i)
      EXPECT_LE(maxScaledError((*outputs)[i], (*expected)[i]), tolerance)
          << "output " << (*last)->getOutputs()[i].name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    CPU, SessionLayoutTest,
    ::testing::Values(LayoutCase{CompilerOptions::Compiler::Default, Precision::Float32},
                      LayoutCase{CompilerOptions::Compiler::Default, Precision::Float16},
                      LayoutCase{CompilerOptions::Compiler::Baseline, Precision::Float32}),
    getCaseName);

/// The CPU driver declares no preferred layout: auto keeps the model's, and
/// so does the baseline compiler, which asks the driver nothing.
TEST(SessionLayoutAutoTest, CPUDriverKeepsChannelsFirst) {
  for (CompilerOptions::Compiler compiler :
       {CompilerOptions::Compiler::Default, CompilerOptions::Compiler::Baseline}) {
    CompilerOptions options;
    options.compiler = compiler;
    Result<std::unique_ptr<Session>> session = createSession(options);
    ASSERT_TRUE(session.ok()) << session.error().message;
    EXPECT_EQ((*session)->getStats().compile.layout, "channels-first");
  }
}

} // namespace
