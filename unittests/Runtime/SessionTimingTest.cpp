//===- SessionTimingTest.cpp - Session::timeRuns on the CPU device --------===//
//
// Device-resident timing: the dispatches alone, re-executed on the inputs
// the last run left on the device, by the host's clock and the device's.
// Checked on the spec network: the number and sign of the timings, that the session's counts and later runs are
// untouched, that an input the program writes over (placed in scratch, its
// bytes reused) is uploaded again before each execution, and the error
// before any run.
//
//===----------------------------------------------------------------------===//

#include "Runtime/Weights.h"
#include "SpecNetwork.h"
#include "cgc/Runtime/Session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace cgc::runtime;
using namespace cgc::runtime::testing;
namespace fs = std::filesystem;

namespace {

/// A fresh directory holding the spec network's Input IR and weights.
class SessionTimingTest : public ::testing::Test {
protected:
  void SetUp() override {
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory = fs::temp_directory_path() /
                ("cgc-session-timing-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(directory);
    fs::create_directories(directory);
    modelPath = (directory / "model.mlir").string();
    fs::copy_file(getSpecInputIRPath(), modelPath);
    network = makeSpecNetwork();
    ASSERT_TRUE(writeSafetensors((directory / "model.safetensors").string(), network.weights).ok());
  }
  void TearDown() override { fs::remove_all(directory); }

  std::unique_ptr<Session> create(CompilerOptions compiler = {}) {
    SessionOptions options;
    options.modelPath = modelPath;
    options.device = "cpu";
    options.compiler = compiler;
    Result<std::unique_ptr<Session>> session = Session::create(options);
    EXPECT_TRUE(session.ok()) << session.error().message;
    return session.ok() ? std::move(*session) : nullptr;
  }

  fs::path directory;
  std::string modelPath;
  SpecNetwork network;
};

TEST_F(SessionTimingTest, TimesTheDispatchesAndLeavesRunsIntact) {
  for (CompilerOptions::Compiler compiler :
       {CompilerOptions::Compiler::Default, CompilerOptions::Compiler::Baseline}) {
    SCOPED_TRACE(compiler == CompilerOptions::Compiler::Default ? "default" : "baseline");
    CompilerOptions options;
    options.compiler = compiler;
    std::unique_ptr<Session> session = create(options);
    ASSERT_TRUE(session);
    Result<std::vector<HostTensor>> first = session->run({network.input});
    ASSERT_TRUE(first.ok()) << first.error().message;
    ASSERT_LE(maxToleranceExcess((*first)[0], network.expected), 0.0);
    SessionStats before = session->getStats();

    Result<RunTimings> timings = session->timeRuns(7);
    ASSERT_TRUE(timings.ok()) << timings.error().message;
    ASSERT_EQ(timings->seconds.size(), 7u);
    for (double seconds : timings->seconds) {
      EXPECT_GT(seconds, 0.0);
      EXPECT_LT(seconds, 60.0);
    }
    // The CPU device has timestamp queries: each execution is also timed on
    // its clock, between two timestamps around the same dispatches.
    ASSERT_EQ(timings->deviceSeconds.size(), 7u);
    for (double seconds : timings->deviceSeconds) {
      EXPECT_GT(seconds, 0.0);
      EXPECT_LT(seconds, 60.0);
    }
    // Inputs in their own buffers are only read: nothing is uploaded again.
    EXPECT_EQ(timings->numInputUploads, 0u);

    // The second list counts nowhere: the session's figures describe the run
    // list.
    const SessionStats &after = session->getStats();
    EXPECT_EQ(after.numDispatches, before.numDispatches);
    EXPECT_EQ(after.numBarriers, before.numBarriers);
    EXPECT_EQ(after.numRangeBarriers, before.numRangeBarriers);
    unsigned invocations = 0;
    for (const PartitionInfo &partition : session->getPartitions())
      invocations += partition.numInvocations;
    EXPECT_EQ(invocations, after.numDispatches);

    // Later runs: the same results, and a new input gives its own.
    Result<std::vector<HostTensor>> again = session->run({network.input});
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_LE(maxToleranceExcess((*again)[0], network.expected), 0.0);
    EXPECT_EQ((*again)[0].data, (*first)[0].data);
    Result<std::vector<HostTensor>> zeros =
        session->run({HostTensor::zeros(DType::Float32, {1, 1, 4, 4})});
    ASSERT_TRUE(zeros.ok()) << zeros.error().message;
    EXPECT_GT(maxToleranceExcess((*zeros)[0], network.expected), 0.0);

    // The recorded list is reused; zero executions time nothing.
    Result<RunTimings> more = session->timeRuns(2);
    ASSERT_TRUE(more.ok()) << more.error().message;
    EXPECT_EQ(more->seconds.size(), 2u);
    EXPECT_EQ(more->deviceSeconds.size(), 2u);
    Result<RunTimings> none = session->timeRuns(0);
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_TRUE(none->seconds.empty());
    EXPECT_TRUE(none->deviceSeconds.empty());
    Result<std::vector<HostTensor>> last = session->run({network.input});
    ASSERT_TRUE(last.ok()) << last.error().message;
    EXPECT_EQ((*last)[0].data, (*first)[0].data);
  }
}

TEST_F(SessionTimingTest, UploadsAgainAnInputTheProgramWritesOver) {
  // In scratch, the input dies in the first fused subgraph and the second's
  // output takes its bytes: each timed execution must start from the input
  // again.
  CompilerOptions options;
  options.inputsInScratch = true;
  std::unique_ptr<Session> session = create(options);
  ASSERT_TRUE(session);
  ASSERT_EQ(session->getStats().compile.numInputsInScratch, 1u);
  Result<std::vector<HostTensor>> first = session->run({network.input});
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_LE(maxToleranceExcess((*first)[0], network.expected), 0.0);

  Result<RunTimings> timings = session->timeRuns(3);
  ASSERT_TRUE(timings.ok()) << timings.error().message;
  EXPECT_EQ(timings->seconds.size(), 3u);
  EXPECT_EQ(timings->numInputUploads, 1u);

  Result<std::vector<HostTensor>> again = session->run({network.input});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ((*again)[0].data, (*first)[0].data);
}

TEST_F(SessionTimingTest, NeedsARunFirst) {
  std::unique_ptr<Session> session = create();
  ASSERT_TRUE(session);
  Result<RunTimings> timings = session->timeRuns(3);
  ASSERT_FALSE(timings.ok());
  EXPECT_NE(timings.error().message.find("call run() first"), std::string::npos)
      << timings.error().message;

  // A run that fails (a wrong input) leaves nothing on the device either.
  ASSERT_FALSE(session->run({HostTensor::zeros(DType::Float32, {1, 1, 2, 2})}).ok());
  EXPECT_FALSE(session->timeRuns(1).ok());
  ASSERT_TRUE(session->run({network.input}).ok());
  EXPECT_TRUE(session->timeRuns(1).ok());
}

} // namespace
