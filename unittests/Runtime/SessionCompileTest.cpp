//===- SessionCompileTest.cpp - Sessions that compile with the device's patterns ===//
//
// The compiler as the runtime drives it: the CPU driver's patterns and
// specialization answers come through the device API, and every result is
// checked against the baseline compiler (one subgraph per layer), the
// reference. Also: partition modes, inputs placed in scratch, range
// barriers, and a driver (the API tests' mock) that declares nothing or
// declares nonsense.
//
//===----------------------------------------------------------------------===//

#include "Runtime/Weights.h"
#include "SpecNetwork.h"
#include "cgc/Runtime/Session.h"
#include "cgc/runtime.h"

#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/Container.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace cgc::runtime;
using namespace cgc::runtime::testing;
namespace fs = std::filesystem;

namespace {

#ifdef CGC_MOCK_DRIVER_DIR
// The mock driver joins the CPU driver; the loader reads CGC_DRIVER_PATH once,
// at the process's first device API call, so this runs before main.
[[maybe_unused]] const bool kMockDriverPathSet = [] {
  const char *current = std::getenv("CGC_DRIVER_PATH");
  std::string path = CGC_MOCK_DRIVER_DIR;
  if (current && *current)
    path += std::string(":") + current;
  setenv("CGC_DRIVER_PATH", path.c_str(), 1);
  return true;
}();
#endif

/// Three branches from one input: relu(conv3x3(in) + b1) (an output),
/// tanh(conv3x3/2(sigmoid(conv1x1(in) + b2))) (an output, through a scratch
/// value), and in * in (a layer no pattern takes). The first two branches and
/// the product are independent of each other.
constexpr const char *kBranches = R"mlir(
cgc.module {
  cgc.entry_point @main(%in: !cgc.tensor<1x2x6x6x!cgc.float32>) -> (!cgc.tensor<1x4x6x6x!cgc.float32>, !cgc.tensor<1x4x3x3x!cgc.float32>, !cgc.tensor<1x2x6x6x!cgc.float32>) {
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 4x2x3x3x!cgc.float32>
    %b1 = cgc.constant("b1") : !cgc.tensor<constant 4x!cgc.float32>
    %w2 = cgc.constant("w2") : !cgc.tensor<constant 4x2x1x1x!cgc.float32>
    %b2 = cgc.constant("b2") : !cgc.tensor<constant 4x!cgc.float32>
    %w3 = cgc.constant("w3") : !cgc.tensor<constant 4x4x3x3x!cgc.float32>
    %a = cgc_op.convolution(%in, %w1, %b1) {start_padding = [1, 1], end_padding = [1, 1], strides = [1, 1], dilations = [1, 1], groups = 1 : i64}
        : (!cgc.tensor<1x2x6x6x!cgc.float32>, !cgc.tensor<constant 4x2x3x3x!cgc.float32>, !cgc.tensor<constant 4x!cgc.float32>) -> !cgc.tensor<1x4x6x6x!cgc.float32>
    %ar = cgc_op.relu(%a) : (!cgc.tensor<1x4x6x6x!cgc.float32>) -> !cgc.tensor<1x4x6x6x!cgc.float32>
    %b = cgc_op.convolution(%in, %w2, %b2) {start_padding = [0, 0], end_padding = [0, 0], strides = [1, 1], dilations = [1, 1], groups = 1 : i64}
        : (!cgc.tensor<1x2x6x6x!cgc.float32>, !cgc.tensor<constant 4x2x1x1x!cgc.float32>, !cgc.tensor<constant 4x!cgc.float32>) -> !cgc.tensor<1x4x6x6x!cgc.float32>
    %bs = cgc_op.sigmoid(%b) : (!cgc.tensor<1x4x6x6x!cgc.float32>) -> !cgc.tensor<1x4x6x6x!cgc.float32>
    %c = cgc_op.convolution(%bs, %w3) {start_padding = [1, 1], end_padding = [1, 1], strides = [2, 2], dilations = [1, 1], groups = 1 : i64}
        : (!cgc.tensor<1x4x6x6x!cgc.float32>, !cgc.tensor<constant 4x4x3x3x!cgc.float32>) -> !cgc.tensor<1x4x3x3x!cgc.float32>
    %ct = cgc_op.tanh(%c) : (!cgc.tensor<1x4x3x3x!cgc.float32>) -> !cgc.tensor<1x4x3x3x!cgc.float32>
    %d = cgc_op.mul(%in, %in) : (!cgc.tensor<1x2x6x6x!cgc.float32>, !cgc.tensor<1x2x6x6x!cgc.float32>) -> !cgc.tensor<1x2x6x6x!cgc.float32>
    cgc.return %ar, %ct, %d : !cgc.tensor<1x4x6x6x!cgc.float32>, !cgc.tensor<1x4x3x3x!cgc.float32>, !cgc.tensor<1x2x6x6x!cgc.float32>
  }
}
)mlir";

/// Deterministic values in [-1, 1).
HostTensor makeValues(std::vector<int64_t> shape, uint32_t seed) {
  HostTensor tensor = HostTensor::zeros(DType::Float32, std::move(shape));
  uint32_t state = seed * 2654435761u + 1;
  for (float &value : tensor.as<float>()) {
    state = state * 1664525u + 1013904223u;
    value = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return tensor;
}

/// Whether `actual` equals `expected` within 1e-6 (absolute, and relative
/// to the larger values); the message names the first difference.
::testing::AssertionResult nearlyEqual(const HostTensor &actual, const HostTensor &expected) {
  if (actual.dtype != expected.dtype || actual.shape != expected.shape)
    return ::testing::AssertionFailure() << "dtype or shape differ";
  std::span<const float> a(reinterpret_cast<const float *>(actual.data.data()),
                           actual.data.size() / 4);
  std::span<const float> b(reinterpret_cast<const float *>(expected.data.data()),
                           expected.data.size() / 4);
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= 1e-6 * std::max(1.0f, std::fabs(b[i]))))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << a[i] << " vs the baseline's " << b[i];
  return ::testing::AssertionSuccess();
}

class SessionCompileTest : public ::testing::Test {
protected:
  void SetUp() override {
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory = fs::temp_directory_path() /
                ("cgc-session-compile-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(directory);
    fs::create_directories(directory);
  }
  void TearDown() override {
    unsetenv("CGC_MOCK_DECLARATION");
    fs::remove_all(directory);
  }

  /// The spec network (conv + bias + relu + add, twice, then an upsample).
  void useSpecNetwork() {
    modelPath = (directory / "model.mlir").string();
    fs::copy_file(getSpecInputIRPath(), modelPath);
    SpecNetwork network = makeSpecNetwork();
    ASSERT_TRUE(writeSafetensors((directory / "model.safetensors").string(), network.weights).ok());
    inputs = {network.input};
    reference = {network.expected};
  }

  void useBranches() {
    modelPath = (directory / "model.mlir").string();
    std::ofstream(modelPath) << kBranches;
    std::map<std::string, HostTensor> weights = {
        {"w1", makeValues({4, 2, 3, 3}, 1)}, {"b1", makeValues({4}, 2)},
        {"w2", makeValues({4, 2, 1, 1}, 3)}, {"b2", makeValues({4}, 4)},
        {"w3", makeValues({4, 4, 3, 3}, 5)}};
    ASSERT_TRUE(writeSafetensors((directory / "model.safetensors").string(), weights).ok());
    inputs = {makeValues({1, 2, 6, 6}, 6)};
  }

  Result<std::unique_ptr<Session>> create(CompilerOptions compiler, std::string device = "cpu") {
    SessionOptions options;
    options.modelPath = modelPath;
    options.device = std::move(device);
    options.debugLayer = true; // every binding and barrier range is checked
    options.compiler = compiler;
    return Session::create(options);
  }

  /// Runs the model compiled with `compiler` and with the baseline compiler;
  /// expects equal outputs. Returns the session compiled with `compiler`.
  std::unique_ptr<Session> runAgainstBaseline(CompilerOptions compiler) {
    CompilerOptions baselineOptions;
    baselineOptions.compiler = CompilerOptions::Compiler::Baseline;
    Result<std::unique_ptr<Session>> baseline = create(baselineOptions);
    EXPECT_TRUE(baseline.ok()) << baseline.error().message;
    Result<std::unique_ptr<Session>> session = create(compiler);
    EXPECT_TRUE(session.ok()) << session.error().message;
    if (!baseline.ok() || !session.ok())
      return nullptr;
    Result<std::vector<HostTensor>> expected = (*baseline)->run(inputs);
    EXPECT_TRUE(expected.ok()) << expected.error().message;
    // Twice: the recorded list is re-executed, scratch reuse included.
    for (int run = 0; run < 2 && expected.ok(); ++run) {
      Result<std::vector<HostTensor>> outputs = (*session)->run(inputs);
      EXPECT_TRUE(outputs.ok()) << outputs.error().message;
      if (!outputs.ok())
        break;
      EXPECT_EQ(outputs->size(), expected->size());
      for (size_t i = 0; i < std::min(outputs->size(), expected->size()); ++i)
        EXPECT_TRUE(nearlyEqual((*outputs)[i], (*expected)[i])) << "output #" << i;
      for (size_t i = 0; i < std::min(outputs->size(), reference.size()); ++i)
        EXPECT_LE(maxToleranceExcess((*outputs)[i], reference[i]), 0.0) << "output #" << i;
    }
    return std::move(*session);
  }

  fs::path directory;
  std::string modelPath;
  std::vector<HostTensor> inputs, reference;
};

TEST_F(SessionCompileTest, SpecNetworkUsesTheDriversPatterns) {
  useSpecNetwork();
  std::unique_ptr<Session> session = runAgainstBaseline({});
  ASSERT_TRUE(session);
  const SessionStats &stats = session->getStats();
  EXPECT_TRUE(stats.loweredFromInputIR);
  const CompileStats &compile = stats.compile;
  EXPECT_EQ(compile.compiler, "default");
  EXPECT_EQ(compile.target, "cpu");
  EXPECT_EQ(compile.fallbackTarget, "cpu.fallback");
  EXPECT_GE(compile.numPatterns, 1u);
  EXPECT_EQ(compile.numLayers, 7u);
  // conv + bias + relu + add twice (the fused kernel takes both: nothing
  // rejected); the upsample goes to the fallback target.
  EXPECT_EQ(compile.numOffered, 2u);
  EXPECT_EQ(compile.numRejected, 0u);
  EXPECT_EQ(compile.numPatternSubgraphs, 2u);
  EXPECT_EQ(compile.numFallbackSubgraphs, 1u);
  // One run of the driver's subgraphs, one of the fallback target's.
  EXPECT_EQ(compile.numPartitions, 2u);
  EXPECT_EQ(session->getPartitions().size(), 2u);
  EXPECT_EQ(stats.numDispatches, 2u);
  EXPECT_LE(compile.scratchBytes, compile.naiveBytes);
  EXPECT_GE(compile.scratchBytes, compile.lowerBoundBytes);
  EXPECT_EQ(stats.scratchBytes, compile.scratchBytes);
  EXPECT_GT(compile.seconds, 0.0);
  EXPECT_LE(compile.seconds, stats.loadSeconds);
  // The upsample waits for the second fused subgraph: one dispatch behind a
  // range barrier, as the compiler predicts; none global.
  EXPECT_EQ(stats.numBarriers, 1u);
  EXPECT_EQ(stats.numBarriers, compile.numBarriers);
  // That one, the uploaded input's and the output's readback.
  EXPECT_EQ(stats.numRangeBarriers, 3u);
  EXPECT_EQ(stats.numGlobalBarriers, 0u);
}

TEST_F(SessionCompileTest, BaselineCompilerIsTheOldPipeline) {
  useSpecNetwork();
  CompilerOptions options;
  options.compiler = CompilerOptions::Compiler::Baseline;
  Result<std::unique_ptr<Session>> session = create(options);
  ASSERT_TRUE(session.ok()) << session.error().message;
  const CompileStats &compile = (*session)->getStats().compile;
  EXPECT_EQ(compile.compiler, "baseline");
  EXPECT_EQ(compile.numPatternSubgraphs, 0u);
  EXPECT_EQ(compile.numFallbackSubgraphs, 7u);
  EXPECT_EQ(compile.numPartitions, 1u);
  EXPECT_EQ(compile.scratchBytes, 6u * 64u);
  EXPECT_EQ((*session)->getStats().numBarriers, 0u);
}

TEST_F(SessionCompileTest, PartitionModes) {
  useBranches();
  CompilerOptions perSubgraph;
  perSubgraph.partitionMode = CompilerOptions::PartitionMode::PerSubgraph;
  std::unique_ptr<Session> each = runAgainstBaseline(perSubgraph);
  std::unique_ptr<Session> grouped = runAgainstBaseline({});
  ASSERT_TRUE(each && grouped);
  const CompileStats &compile = each->getStats().compile;
  // Three convolutions with their epilogues; the product is the fallback's.
  EXPECT_EQ(compile.numPatternSubgraphs, 3u);
  EXPECT_EQ(compile.numFallbackSubgraphs, 1u);
  unsigned calls = compile.numPatternSubgraphs + compile.numFallbackSubgraphs;
  EXPECT_EQ(compile.numPartitions, calls);
  EXPECT_EQ(each->getStats().numDispatches, calls);
  // Per target: the driver's three subgraphs and the fallback's product
  // make fewer, larger partitions.
  EXPECT_LT(grouped->getStats().compile.numPartitions, compile.numPartitions);
  EXPECT_GE(grouped->getStats().compile.numPartitions, 2u);
  EXPECT_EQ(grouped->getPartitions().size(), grouped->getStats().compile.numPartitions);

  CompilerOptions capped;
  capped.maxLayersPerPartition = 2;
  EXPECT_TRUE(runAgainstBaseline(capped));
}

TEST_F(SessionCompileTest, RangeBarriersOnlyWhereRangesConflict) {
  useBranches();
  CompilerOptions perSubgraph;
  perSubgraph.partitionMode = CompilerOptions::PartitionMode::PerSubgraph;
  std::unique_ptr<Session> session = runAgainstBaseline(perSubgraph);
  ASSERT_TRUE(session);
  const SessionStats &stats = session->getStats();
  ASSERT_EQ(stats.numDispatches, 4u);
  // Of four dispatches only the strided convolution reads what another
  // wrote: one barrier between dispatches, over the sigmoid's bytes. The
  // first reader of the input waits for its upload (one barrier, which
  // orders the upload before the other readers too), and each output's
  // readback waits behind a barrier over that output.
  EXPECT_EQ(stats.numBarriers, 1u);
  EXPECT_EQ(stats.compile.numBarriers, 1u);
  EXPECT_EQ(stats.numRangeBarriers, 1u + 1u + 3u);
  EXPECT_EQ(stats.numGlobalBarriers, 0u);
  // Were barriers global, the independent dispatches would be separated too.
  EXPECT_LT(stats.numBarriers, stats.numDispatches - 1);
}

TEST_F(SessionCompileTest, MemoryPlanningKnobs) {
  useSpecNetwork();
  CompilerOptions naive;
  naive.memoryReuse = false;
  naive.inPlace = false;
  std::unique_ptr<Session> unplanned = runAgainstBaseline(naive);
  std::unique_ptr<Session> planned = runAgainstBaseline({});
  CompilerOptions concurrent;
  concurrent.concurrency = true;
  std::unique_ptr<Session> independent = runAgainstBaseline(concurrent);
  ASSERT_TRUE(unplanned && planned && independent);
  EXPECT_EQ(unplanned->getStats().compile.scratchBytes,
            unplanned->getStats().compile.naiveBytes);
  EXPECT_LE(planned->getStats().compile.scratchBytes, unplanned->getStats().compile.scratchBytes);
  EXPECT_GE(independent->getStats().compile.scratchBytes,
            planned->getStats().compile.scratchBytes);
}

TEST_F(SessionCompileTest, InputsInScratch) {
  for (bool spec : {true, false}) {
    fs::remove_all(directory);
    fs::create_directories(directory);
    reference.clear();
    if (spec)
      useSpecNetwork();
    else
      useBranches();
    CompilerOptions inScratch;
    inScratch.inputsInScratch = true;
    // runAgainstBaseline runs twice: the bytes that held the input may be
    // reused by later values, so each run must upload it again.
    std::unique_ptr<Session> placed = runAgainstBaseline(inScratch);
    std::unique_ptr<Session> own = runAgainstBaseline({});
    ASSERT_TRUE(placed && own);
    const SessionStats &stats = placed->getStats();
    EXPECT_EQ(stats.compile.numInputsInScratch, 1u) << modelPath;
    EXPECT_EQ(placed->getInputs().size(), 1u);
    EXPECT_EQ(placed->getInputs()[0].shape, own->getInputs()[0].shape);
    // The input has no buffer of its own; the scratch buffer grows by at
    // most its aligned size.
    EXPECT_LE(stats.deviceBytes, own->getStats().deviceBytes + 63) << modelPath;
    // In the spec network the input dies in the first fused subgraph, and
    // the second's output takes its bytes.
    if (spec)
      EXPECT_LT(stats.deviceBytes, own->getStats().deviceBytes);
  }
}

/// Output IR written by hand: the input lives in scratch at byte 64; the
/// program negates it into scratch[0..64), then that into the output.
constexpr const char *kInputInScratch = R"mlir(
cgc.module {
  cgc.subgraph @neg attributes {origin = "cpu.fallback"} {
    cgc.functional_definition private @negFunctional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.neg(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.partition @negPartition(%x: !cgc.memref<16x!cgc.float32>, %y: !cgc.memref<16x!cgc.float32>) {
    cgc.invoke @neg(%x, %y) : (!cgc.memref<16x!cgc.float32>, !cgc.memref<16x!cgc.float32>)
    cgc.return
  }
  cgc.program @main(%in: !cgc.memref<16x!cgc.float32> {cgc.scratch_offset = OFFSET : i64}, %out: !cgc.memref<16x!cgc.float32>, %scratch: !cgc.memref<128x!cgc.int8>) {
    %0 = cgc.view_memref %scratch[0] : !cgc.memref<128x!cgc.int8> to !cgc.memref<16x!cgc.float32>
    cgc.invoke @negPartition(%in, %0) : (!cgc.memref<16x!cgc.float32>, !cgc.memref<16x!cgc.float32>)
    cgc.invoke @negPartition(%0, %out) : (!cgc.memref<16x!cgc.float32>, !cgc.memref<16x!cgc.float32>)
    cgc.return
  }
}
)mlir";

TEST_F(SessionCompileTest, OutputIRWithAnInputInScratch) {
  auto writeModel = [&](const std::string &offset) {
    std::string text = kInputInScratch;
    text.replace(text.find("OFFSET"), 6, offset);
    modelPath = (directory / "model.mlir").string();
    std::ofstream(modelPath, std::ios::trunc) << text;
  };
  writeModel("64");
  Result<std::unique_ptr<Session>> session = create({});
  ASSERT_TRUE(session.ok()) << session.error().message;
  // Still an input (not scratch, not an output), with no buffer of its own:
  // the output and the scratch buffer are all the argument bytes.
  ASSERT_EQ((*session)->getInputs().size(), 1u);
  EXPECT_EQ((*session)->getInputs()[0].shape, (std::vector<int64_t>{16}));
  ASSERT_EQ((*session)->getOutputs().size(), 1u);
  EXPECT_EQ((*session)->getStats().scratchBytes, 128u);
  EXPECT_EQ((*session)->getStats().deviceBytes, 64u + 128u);
  // The second dispatch waits for the first; the first for the upload.
  EXPECT_EQ((*session)->getStats().numBarriers, 1u);
  HostTensor input = makeValues({16}, 7);
  for (int run = 0; run < 2; ++run) {
    Result<std::vector<HostTensor>> outputs = (*session)->run({input});
    ASSERT_TRUE(outputs.ok()) << outputs.error().message;
    EXPECT_EQ((*outputs)[0].data, input.data); // -(-x), read from scratch[64..128)
  }

  writeModel("72");
  session = create({});
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find(
                "argument #0 (cgc.scratch_offset): bytes [72, 136) lie outside the 128-byte "
                "scratch buffer"),
            std::string::npos)
      << session.error().message;
}

TEST_F(SessionCompileTest, DriverWithoutPatternsGetsEveryLayerAsFallback) {
  useSpecNetwork();
  // The mock driver answers CGC_SUBGRAPH_DECLARATION_REQUEST with
  // CGC_ERROR_UNSUPPORTED: it declares nothing. (It computes nothing either;
  // this is about what the compiler made.)
  Result<std::unique_ptr<Session>> session = create({}, "mock");
  if (!session.ok() && session.error().message.find("no such adapter") != std::string::npos)
    GTEST_SKIP() << "the mock driver is not built here";
  ASSERT_TRUE(session.ok()) << session.error().message;
  const CompileStats &compile = (*session)->getStats().compile;
  EXPECT_EQ(compile.target, "mock");
  EXPECT_EQ(compile.fallbackTarget, "mock.fallback");
  EXPECT_EQ(compile.numPatterns, 0u);
  EXPECT_EQ(compile.numOffered, 0u);
  EXPECT_EQ(compile.numPatternSubgraphs, 0u);
  EXPECT_EQ(compile.numFallbackSubgraphs, 7u);
}

namespace {
/// Seals `text` (MLIR of a cgc.module) as `interface` into a file in
/// `directory`; returns its path.
std::string writeContainerFile(const fs::path &directory, const char *name, const char *text,
                               cgc::interchange::Interface interface) {
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::Operation *> module =
      mlir::parseSourceString(text, mlir::ParserConfig(&context));
  if (!module)
    return "";
  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  if (mlir::failed(mlir::writeBytecodeToFile(*module, os)))
    return "";
  auto sealed = cgc::interchange::sealContainer(
      interface, std::span(reinterpret_cast<const uint8_t *>(bytecode.data()), bytecode.size()));
  if (!sealed.ok())
    return "";
  std::string path = (directory / name).string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(sealed->data()), sealed->size());
  return path;
}
} // namespace

TEST_F(SessionCompileTest, RejectedSpecializationFallsBack) {
  useSpecNetwork();
  // The driver declares the spec's conv -> relu -> add but implements none
  // of the matches it is offered (its answer holds no subgraph): both go to
  // its fallback target, one subgraph per layer.
  std::string declaration = writeContainerFile(directory, "declaration.cgc", R"mlir(
cgc.module {
  cgc_pattern.pattern @conv_relu_add benefit(10) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input {constant}
    %b = cgc_pattern.input {constant}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b)
    %relu = cgc_pattern.layer "cgc_op.relu"(%conv)
    %add = cgc_pattern.layer "cgc_op.add"(%relu, %x)
    cgc_pattern.root %add
  }
}
)mlir",
                                               cgc::interchange::Interface::SubgraphDeclaration);
  std::string rejectAll = writeContainerFile(directory, "specialization.cgc", "cgc.module {}",
                                             cgc::interchange::Interface::SubgraphSpecialization);
  ASSERT_FALSE(declaration.empty());
  ASSERT_FALSE(rejectAll.empty());
  setenv("CGC_MOCK_DECLARATION", declaration.c_str(), 1);
  setenv("CGC_MOCK_SPECIALIZATION", rejectAll.c_str(), 1);
  Result<std::unique_ptr<Session>> session = create({}, "mock");
  unsetenv("CGC_MOCK_DECLARATION");
  unsetenv("CGC_MOCK_SPECIALIZATION");
  if (!session.ok() && session.error().message.find("no such adapter") != std::string::npos)
    GTEST_SKIP() << "the mock driver is not built here";
  ASSERT_TRUE(session.ok()) << session.error().message;
  const CompileStats &compile = (*session)->getStats().compile;
  EXPECT_EQ(compile.numPatterns, 1u);
  EXPECT_EQ(compile.numOffered, 2u);
  EXPECT_EQ(compile.numRejected, 2u);
  EXPECT_EQ(compile.numPatternSubgraphs, 0u);
  EXPECT_EQ(compile.numFallbackSubgraphs, 7u);
}

TEST_F(SessionCompileTest, PreferredLayoutMakesAutoChannelsLast) {
  useSpecNetwork();
  // A driver whose declaration asks for channels-last (and whose one pattern
  // matches nothing here): the default layout, auto, follows it; an explicit
  // channels-first does not.
  std::string declaration = writeContainerFile(directory, "declaration.cgc", R"mlir(
cgc.module attributes {cgc.preferred_layout = "channels_last"} {
  cgc_pattern.pattern @gelu_pair benefit(1) {
    %x = cgc_pattern.input
    %a = cgc_pattern.layer "cgc_op.gelu"(%x)
    %b = cgc_pattern.layer "cgc_op.gelu"(%a)
    cgc_pattern.root %b
  }
}
)mlir",
                                               cgc::interchange::Interface::SubgraphDeclaration);
  ASSERT_FALSE(declaration.empty());
  setenv("CGC_MOCK_DECLARATION", declaration.c_str(), 1);
  Result<std::unique_ptr<Session>> automatic = create({}, "mock");
  CompilerOptions channelsFirst;
  channelsFirst.layout = CompilerOptions::Layout::ChannelsFirst;
  Result<std::unique_ptr<Session>> first = create(channelsFirst, "mock");
  unsetenv("CGC_MOCK_DECLARATION");
  if (!automatic.ok() && automatic.error().message.find("no such adapter") != std::string::npos)
    GTEST_SKIP() << "the mock driver is not built here";
  ASSERT_TRUE(automatic.ok()) << automatic.error().message;
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ((*automatic)->getStats().compile.layout, "channels-last");
  EXPECT_EQ((*first)->getStats().compile.layout, "channels-first");
  // The spec network's two convolutions with their transposes, and the
  // transposes their results are read back through.
  EXPECT_GT((*automatic)->getStats().compile.numLayers, (*first)->getStats().compile.numLayers);
}

TEST_F(SessionCompileTest, InvalidDeclarationNamesTheDriver) {
  useSpecNetwork();
  // Patterns that verify as ops but name a constraint the compiler does not
  // know: the reader of CGC_SUBGRAPH_DECLARATION refuses them.
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  constexpr const char *kBogusPatterns = R"mlir(
cgc.module {
  cgc_pattern.pattern @bogus benefit(1) {
    %x = cgc_pattern.input
    %y = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.constraint "mock.no_such_constraint"(%x, %y)
    cgc_pattern.root %y
  }
}
)mlir";
  mlir::OwningOpRef<mlir::Operation *> patterns =
      mlir::parseSourceString(kBogusPatterns, mlir::ParserConfig(&context));
  ASSERT_TRUE(patterns);
  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  ASSERT_TRUE(mlir::succeeded(mlir::writeBytecodeToFile(*patterns, os)));
  auto sealed = cgc::interchange::sealContainer(
      cgc::interchange::Interface::SubgraphDeclaration,
      std::span(reinterpret_cast<const uint8_t *>(bytecode.data()), bytecode.size()));
  ASSERT_TRUE(sealed.ok());
  std::string declarationPath = (directory / "declaration.cgc").string();
  std::ofstream(declarationPath, std::ios::binary)
      .write(reinterpret_cast<const char *>(sealed->data()), sealed->size());
  setenv("CGC_MOCK_DECLARATION", declarationPath.c_str(), 1);

  Result<std::unique_ptr<Session>> session = create({}, "mock");
  if (!session.ok() && session.error().message.find("no such adapter") != std::string::npos)
    GTEST_SKIP() << "the mock driver is not built here";
  ASSERT_FALSE(session.ok());
  const std::string &message = session.error().message;
  EXPECT_NE(message.find("compiling Input IR for the 'mock' device failed"), std::string::npos)
      << message;
  EXPECT_NE(message.find("driver 'mock': its pattern declaration is not a valid "
                         "CGC_SUBGRAPH_DECLARATION container"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("mock.no_such_constraint"), std::string::npos) << message;

  // Bytes that are no container at all.
  std::ofstream(declarationPath, std::ios::binary | std::ios::trunc) << "not a container";
  session = create({}, "mock");
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("driver 'mock': its pattern declaration is not a valid"),
            std::string::npos)
      << session.error().message;

  // Valid patterns, but the mock cannot be asked about a match (it answers
  // CGC_SUBGRAPH_SPECIALIZATION_REQUEST with UNSUPPORTED).
  std::string valid = kBogusPatterns;
  valid.erase(valid.find("    cgc_pattern.constraint"),
              valid.find("    cgc_pattern.root") - valid.find("    cgc_pattern.constraint"));
  patterns = mlir::parseSourceString(valid, mlir::ParserConfig(&context));
  ASSERT_TRUE(patterns);
  bytecode.clear();
  ASSERT_TRUE(mlir::succeeded(mlir::writeBytecodeToFile(*patterns, os)));
  sealed = cgc::interchange::sealContainer(
      cgc::interchange::Interface::SubgraphDeclaration,
      std::span(reinterpret_cast<const uint8_t *>(bytecode.data()), bytecode.size()));
  ASSERT_TRUE(sealed.ok());
  std::ofstream(declarationPath, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char *>(sealed->data()), sealed->size());
  session = create({}, "mock");
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find(
                "driver 'mock': specializing subgraphs: CGC_SUBGRAPH_SPECIALIZATION_REQUEST: "
                "the driver declared patterns but answers specialization requests with "
                "CGC_ERROR_UNSUPPORTED"),
            std::string::npos)
      << session.error().message;

  // The baseline compiler does not ask the driver.
  CompilerOptions baseline;
  baseline.compiler = CompilerOptions::Compiler::Baseline;
  EXPECT_TRUE(create(baseline, "mock").ok());
}

TEST_F(SessionCompileTest, CApiFlags) {
  useSpecNetwork();
  CgcSessionDesc desc{CGC_RUNTIME_VERSION, modelPath.c_str(), nullptr, "cpu",
                      CGC_SESSION_FLAG_BASELINE_COMPILER};
  CgcSession session = nullptr;
  ASSERT_EQ(cgcCreateSession(&desc, &session), CGC_OK) << cgcRuntimeGetLastErrorMessage();
  cgcReleaseSession(session);
  desc.flags = CGC_SESSION_FLAG_INPUTS_IN_SCRATCH | CGC_SESSION_FLAG_PARTITION_PER_SUBGRAPH |
               CGC_SESSION_FLAG_DEBUG_LAYER;
  ASSERT_EQ(cgcCreateSession(&desc, &session), CGC_OK) << cgcRuntimeGetLastErrorMessage();
  HostTensor output = HostTensor::zeros(DType::Float32, {1, 1, 8, 8});
  CgcTensor input{CGC_DATA_TYPE_FLOAT32, 4, inputs[0].shape.data(), inputs[0].data.data(),
                  inputs[0].data.size()};
  CgcTensor result{CGC_DATA_TYPE_FLOAT32, 4, output.shape.data(), output.data.data(),
                   output.data.size()};
  ASSERT_EQ(cgcSessionRun(session, 1, &input, 1, &result), CGC_OK)
      << cgcRuntimeGetLastErrorMessage();
  EXPECT_LE(maxToleranceExcess(output, reference[0]), 0.0);
  cgcReleaseSession(session);
  desc.flags = 1u << 20;
  EXPECT_EQ(cgcCreateSession(&desc, &session), CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cgcRuntimeGetLastErrorMessage()).find("unknown bits"), std::string::npos);
}

} // namespace
