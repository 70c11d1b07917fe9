//===- SessionTest.cpp - Session on the CPU device: end to end and errors -===//

#include "Runtime/Weights.h"
#include "SpecNetwork.h"
#include "cgc/Runtime/Session.h"
#include "cgc/runtime.h"

#include "cgc/Compiler/Passes.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"
#include "cgc/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace cgc::runtime;
using namespace cgc::runtime::testing;
namespace fs = std::filesystem;

namespace {

/// A fresh directory holding the spec network's IR (and, unless told
/// otherwise, its weights as model.safetensors).
class SessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory = fs::temp_directory_path() /
                ("cgc-session-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(directory);
    fs::create_directories(directory);
    modelPath = (directory / "model.mlir").string();
    fs::copy_file(getSpecInputIRPath(), modelPath);
    network = makeSpecNetwork();
  }
  void TearDown() override { fs::remove_all(directory); }

  void writeWeights(const std::map<std::string, HostTensor> &weights) {
    ASSERT_TRUE(writeSafetensors((directory / "model.safetensors").string(), weights).ok());
  }

  Result<std::unique_ptr<Session>> create(std::string device = "cpu",
                                          CompilerOptions compiler = {}) {
    SessionOptions options;
    options.modelPath = modelPath;
    options.device = std::move(device);
    options.compiler = compiler;
    return Session::create(options);
  }

  std::string createError(std::string device = "cpu") {
    Result<std::unique_ptr<Session>> session = create(std::move(device));
    EXPECT_FALSE(session.ok());
    return session.ok() ? "" : session.error().message;
  }

  fs::path directory;
  std::string modelPath;
  SpecNetwork network;
};

TEST_F(SessionTest, RunsTheSpecNetworkOnTheCpu) {
  // The baseline compiler, whose plan is known by heart (the compiler's own
  // results are SessionCompileTest's).
  writeWeights(network.weights);
  CompilerOptions baseline;
  baseline.compiler = CompilerOptions::Compiler::Baseline;
  Result<std::unique_ptr<Session>> session = create("cpu", baseline);
  ASSERT_TRUE(session.ok()) << session.error().message;
  Session &s = **session;
  ASSERT_EQ(s.getInputs().size(), 1u);
  EXPECT_EQ(s.getInputs()[0].dtype, DType::Float32);
  EXPECT_EQ(s.getInputs()[0].shape, (std::vector<int64_t>{1, 1, 4, 4}));
  ASSERT_EQ(s.getOutputs().size(), 1u);
  EXPECT_EQ(s.getOutputs()[0].shape, (std::vector<int64_t>{1, 1, 8, 8}));
  EXPECT_TRUE(s.getStats().loweredFromInputIR);
  EXPECT_EQ(s.getStats().driverName, "cpu");
  EXPECT_EQ(s.getStats().numConstants, 4u);
  // Baseline plan: six intermediates (conv1, relu1, add1, conv2, relu2, add2)
  // of 64 bytes, each in its own 64-byte slot.
  EXPECT_EQ(s.getStats().scratchBytes, 6u * 64u);
  ASSERT_EQ(s.getPartitions().size(), 1u);
  EXPECT_EQ(s.getPartitions()[0].numBindPoints, 1u + 4u + 1u + 6u);
  // One dispatch, behind a range barrier over the uploaded input; the
  // output's readback behind another over the output.
  EXPECT_EQ(s.getStats().numDispatches, 1u);
  EXPECT_EQ(s.getStats().numBarriers, 0u);
  EXPECT_EQ(s.getStats().numRangeBarriers, 2u);
  EXPECT_EQ(s.getStats().numGlobalBarriers, 0u);
  // The input, the output, the scratch buffer and the constants (each
  // 256-byte aligned).
  EXPECT_GT(s.getStats().constantBytes, 3u * 256u);
  EXPECT_EQ(s.getStats().deviceBytes, 64u + 256u + 6u * 64u + s.getStats().constantBytes);

  Result<std::vector<HostTensor>> outputs = s.run({network.input});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_LE(maxToleranceExcess((*outputs)[0], network.expected), 0.0);

  // The session is reusable: another input gives its own reference result.
  HostTensor zeros = HostTensor::zeros(DType::Float32, {1, 1, 4, 4});
  Result<std::vector<HostTensor>> again = s.run({zeros});
  ASSERT_TRUE(again.ok()) << again.error().message;
  // With a zero input: add1 = relu(b1) = 0.25 everywhere; conv2 then sums w2
  // over the in-bounds taps of each pixel.
  EXPECT_GT(maxToleranceExcess((*again)[0], network.expected), 0.0);
  Result<std::vector<HostTensor>> third = s.run({network.input});
  ASSERT_TRUE(third.ok());
  EXPECT_LE(maxToleranceExcess((*third)[0], network.expected), 0.0);
}

TEST_F(SessionTest, RunsOutputIRFromASealedContainer) {
  // Lower ahead of time (what `cgc-opt --cgc-baseline-pipeline
  // --emit-container=output` does), then hand the runtime the container.
  writeWeights(network.weights);
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<cgc::ModuleOp> module =
      mlir::parseSourceFile<cgc::ModuleOp>(modelPath, mlir::ParserConfig(&context));
  ASSERT_TRUE(module);
  cgc::BaselinePipelineOptions options;
  options.target = "cpu";
  ASSERT_TRUE(mlir::succeeded(cgc::lowerToBaselineOutputIR(*module, options)));
  std::string containerPath = (directory / "model.cgc").string();
  {
    std::error_code error;
    llvm::raw_fd_ostream stream(containerPath, error);
    ASSERT_FALSE(error);
    ASSERT_TRUE(mlir::succeeded(cgc::interchange::writeContainer(
        *module, cgc::interchange::Interface::Output, stream)));
  }
  modelPath = containerPath;
  Result<std::unique_ptr<Session>> session = create();
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_FALSE((*session)->getStats().loweredFromInputIR);
  EXPECT_EQ((*session)->getStats().compile.compiler, "");
  Result<std::vector<HostTensor>> outputs = (*session)->run({network.input});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  EXPECT_LE(maxToleranceExcess((*outputs)[0], network.expected), 0.0);

  // A partition container is not a model.
  std::string partitionPath = (directory / "partition.cgc").string();
  {
    std::error_code error;
    llvm::raw_fd_ostream stream(partitionPath, error);
    mlir::FailureOr<mlir::OwningOpRef<cgc::ModuleOp>> partition =
        cgc::isolatePartition(*module, "partition_0");
    ASSERT_TRUE(mlir::succeeded(partition));
    ASSERT_TRUE(mlir::succeeded(cgc::interchange::writeContainer(
        **partition, cgc::interchange::Interface::SubgraphPartition, stream)));
  }
  modelPath = partitionPath;
  EXPECT_NE(createError().find("a CGC_SUBGRAPH_PARTITION container is not a model"),
            std::string::npos);
}

TEST_F(SessionTest, MissingWeightsFile) {
  std::string error = createError();
  EXPECT_NE(error.find((directory / "model.safetensors").string()), std::string::npos) << error;
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  EXPECT_NE(error.find("4 constant(s)"), std::string::npos) << error;
}

TEST_F(SessionTest, ConstantWithWrongDType) {
  std::map<std::string, HostTensor> weights = network.weights;
  weights["w2"] = HostTensor::zeros(DType::Float16, {1, 1, 3, 3});
  writeWeights(weights);
  std::string error = createError();
  EXPECT_NE(error.find("constant \"w2\""), std::string::npos) << error;
  EXPECT_NE(error.find("has F16 [1x1x3x3] but the IR's cgc.constant is F32 [1x1x3x3]"),
            std::string::npos)
      << error;
}

TEST_F(SessionTest, ConstantWithWrongShape) {
  std::map<std::string, HostTensor> weights = network.weights;
  weights["b1"] = HostTensor::zeros(DType::Float32, {2});
  writeWeights(weights);
  std::string error = createError();
  EXPECT_NE(error.find("constant \"b1\""), std::string::npos) << error;
  EXPECT_NE(error.find("F32 [2]"), std::string::npos) << error;
}

TEST_F(SessionTest, ConstantMissingFromWeights) {
  std::map<std::string, HostTensor> weights = network.weights;
  weights.erase("b2");
  writeWeights(weights);
  std::string error = createError();
  EXPECT_NE(error.find("constant \"b2\" (F32 [1]) is missing from"), std::string::npos) << error;
}

TEST_F(SessionTest, UnknownDevice) {
  writeWeights(network.weights);
  // This machine has no CUDA adapter (the test is meaningless on one that does).
  std::string error = createError("cuda:0");
  if (error.empty())
    GTEST_SKIP() << "a cuda adapter exists here";
  EXPECT_NE(error.find("device 'cuda:0': no such adapter; found "), std::string::npos) << error;
  EXPECT_NE(error.find("cpu:0"), std::string::npos) << error;
  EXPECT_NE(createError("cpu:7").find("device 'cpu:7': no such adapter"), std::string::npos);
  EXPECT_NE(createError("cpu:x").find("expected a driver name with an optional adapter index"),
            std::string::npos);
  EXPECT_NE(createError(":0").find("expected a driver name"), std::string::npos);
}

TEST_F(SessionTest, BadModels) {
  writeWeights(network.weights);
  {
    std::ofstream(modelPath) << "cgc.module { this is not IR }";
    std::string error = createError();
    EXPECT_NE(error.find("cannot parse the model"), std::string::npos) << error;
    EXPECT_NE(error.find("model.mlir:1:"), std::string::npos) << error;
  }
  {
    fs::remove(modelPath);
    std::string error = createError();
    EXPECT_NE(error.find("model: cannot open"), std::string::npos) << error;
  }
  {
    std::ofstream(modelPath) << "cgc.module {\n  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) "
                                "-> !cgc.tensor<4x!cgc.float32> {\n    cgc.return %x : "
                                "!cgc.tensor<4x!cgc.float32>\n  }\n}\n";
    // Identity model: the output is the input (a copy subgraph); no constants.
    Result<std::unique_ptr<Session>> session = create();
    ASSERT_TRUE(session.ok()) << session.error().message;
    HostTensor input = HostTensor::zeros(DType::Float32, {4});
    input.as<float>()[2] = 3.5f;
    Result<std::vector<HostTensor>> outputs = (*session)->run({input});
    ASSERT_TRUE(outputs.ok()) << outputs.error().message;
    EXPECT_EQ((*outputs)[0].as<float>()[2], 3.5f);
  }
}

TEST_F(SessionTest, RunChecksInputs) {
  writeWeights(network.weights);
  Result<std::unique_ptr<Session>> session = create();
  ASSERT_TRUE(session.ok()) << session.error().message;
  Result<std::vector<HostTensor>> none = (*session)->run({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "run: the model takes 1 input(s), got 0");
  Result<std::vector<HostTensor>> wrongShape =
      (*session)->run({HostTensor::zeros(DType::Float32, {1, 1, 8, 8})});
  ASSERT_FALSE(wrongShape.ok());
  EXPECT_EQ(wrongShape.error().message,
            "run: input #0 (input0) must be float32 1x1x4x4, got float32 1x1x8x8");
}

TEST_F(SessionTest, CApi) {
  writeWeights(network.weights);
  CgcSessionDesc desc{CGC_RUNTIME_VERSION, modelPath.c_str(), nullptr, "cpu", 0};
  CgcSession session = nullptr;
  ASSERT_EQ(cgcCreateSession(&desc, &session), CGC_OK) << cgcRuntimeGetLastErrorMessage();
  ASSERT_EQ(cgcSessionGetInputCount(session), 1u);
  ASSERT_EQ(cgcSessionGetOutputCount(session), 1u);
  CgcTensor outputDesc{};
  ASSERT_EQ(cgcSessionGetOutputDesc(session, 0, &outputDesc), CGC_OK);
  EXPECT_EQ(outputDesc.dataType, CGC_DATA_TYPE_FLOAT32);
  EXPECT_EQ(outputDesc.rank, 4u);
  EXPECT_EQ(outputDesc.sizeInBytes, 256u);
  EXPECT_EQ(cgcSessionGetOutputDesc(session, 1, &outputDesc), CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cgcRuntimeGetLastErrorMessage()).find("index 1 is past the last"),
            std::string::npos);

  CgcTensor inputDesc{};
  ASSERT_EQ(cgcSessionGetInputDesc(session, 0, &inputDesc), CGC_OK);
  HostTensor output = HostTensor::zeros(DType::Float32, {1, 1, 8, 8});
  CgcTensor input{CGC_DATA_TYPE_FLOAT32, inputDesc.rank, inputDesc.shape,
                  network.input.data.data(), network.input.data.size()};
  CgcTensor result{CGC_DATA_TYPE_FLOAT32, outputDesc.rank, outputDesc.shape, output.data.data(),
                   output.data.size()};
  ASSERT_EQ(cgcSessionRun(session, 1, &input, 1, &result), CGC_OK)
      << cgcRuntimeGetLastErrorMessage();
  EXPECT_LE(maxToleranceExcess(output, network.expected), 0.0);

  CgcTensor badResult = result;
  badResult.sizeInBytes = 4;
  EXPECT_EQ(cgcSessionRun(session, 1, &input, 1, &badResult), CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cgcRuntimeGetLastErrorMessage()).find("output #0 (output0) must be"),
            std::string::npos);
  cgcReleaseSession(session);

  CgcSessionDesc missing{CGC_RUNTIME_VERSION, "/nonexistent/model.mlir", nullptr, nullptr, 0};
  EXPECT_NE(cgcCreateSession(&missing, &session), CGC_OK);
  EXPECT_NE(std::string(cgcRuntimeGetLastErrorMessage()).find("/nonexistent/model.mlir"),
            std::string::npos);
  CgcSessionDesc wrongVersion{99, modelPath.c_str(), nullptr, nullptr, 0};
  EXPECT_EQ(cgcCreateSession(&wrongVersion, &session), CGC_ERROR_INCOMPATIBLE_VERSION);
}

} // namespace
