//===- SessionProfileTest.cpp - profiles of a Session on the CPU device ---===//
//
// Session::runProfiled (a device timestamp around every upload, dispatch and
// readback), the phases SessionStats records while creating a session, the
// subgraphs PartitionInfo lists, and cgc-run's Chrome trace and summary
// built from them. Checked on the spec network, whose outputs the profiled
// run must still compute.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"
#include "Runtime/Weights.h"
#include "SpecNetwork.h"
#include "cgc/Runtime/Session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <unistd.h>

using namespace cgc::runtime;
using namespace cgc::runtime::testing;
namespace fs = std::filesystem;

namespace {

/// A fresh directory holding the spec network's Input IR and weights.
class SessionProfileTest : public ::testing::Test {
protected:
  void SetUp() override {
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory = fs::temp_directory_path() /
                ("cgc-session-profile-" + std::to_string(::getpid()) + "-" + info->name());
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

  /// The phase named `name`, or null.
  static const PhaseTiming *findPhase(const SessionStats &stats, const std::string &name) {
    auto found = std::find_if(stats.phases.begin(), stats.phases.end(),
                              [&](const PhaseTiming &phase) { return phase.name == name; });
    return found == stats.phases.end() ? nullptr : &*found;
  }

  fs::path directory;
  std::string modelPath;
  SpecNetwork network;
};

TEST_F(SessionProfileTest, TimesEveryCommandOfARun) {
  for (CompilerOptions::Compiler compiler :
       {CompilerOptions::Compiler::Default, CompilerOptions::Compiler::Baseline}) {
    SCOPED_TRACE(compiler == CompilerOptions::Compiler::Default ? "default" : "baseline");
    CompilerOptions options;
    options.compiler = compiler;
    std::unique_ptr<Session> session = create(options);
    ASSERT_TRUE(session);
    Result<RunProfile> profile = session->runProfiled({network.input});
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    ASSERT_EQ(profile->outputs.size(), 1u);
    EXPECT_LE(maxToleranceExcess(profile->outputs[0], network.expected), 0.0);
    EXPECT_EQ(profile->timestampFrequency, 1'000'000'000u) << "the CPU driver counts nanoseconds";

    // One upload, every dispatch of the run list in order, one readback.
    const SessionStats &stats = session->getStats();
    const std::vector<ProfiledCommand> &commands = profile->commands;
    ASSERT_EQ(commands.size(), stats.numDispatches + 2);
    EXPECT_EQ(commands.front().kind, ProfiledCommand::Kind::Upload);
    EXPECT_EQ(commands.front().name, "input0");
    EXPECT_EQ(commands.front().sizeInBytes, 64u);
    EXPECT_EQ(commands.back().kind, ProfiledCommand::Kind::Readback);
    EXPECT_EQ(commands.back().name, "output0");
    EXPECT_EQ(commands.back().sizeInBytes, 256u);
    std::vector<unsigned> dispatchesPerPartition(session->getPartitions().size());
    for (size_t index = 1; index + 1 < commands.size(); ++index) {
      const ProfiledCommand &command = commands[index];
      ASSERT_EQ(command.kind, ProfiledCommand::Kind::Dispatch) << "command " << index;
      EXPECT_EQ(command.invocation, index - 1);
      ASSERT_LT(command.partition, session->getPartitions().size());
      EXPECT_EQ(command.name, session->getPartitions()[command.partition].name);
      ++dispatchesPerPartition[command.partition];
    }
    for (size_t partition = 0; partition < dispatchesPerPartition.size(); ++partition)
      EXPECT_EQ(dispatchesPerPartition[partition],
                session->getPartitions()[partition].numInvocations);

    // Times: from the first timestamp, each command after the one before
    // (timestamps run them one at a time), within the host's wait.
    EXPECT_EQ(commands.front().deviceBeginNs, 0);
    int64_t previousEnd = 0;
    for (const ProfiledCommand &command : commands) {
      EXPECT_LE(previousEnd, command.deviceBeginNs) << command.name;
      EXPECT_LE(command.deviceBeginNs, command.deviceEndNs) << command.name;
      previousEnd = command.deviceEndNs;
    }
    EXPECT_LT(profile->submitted, profile->completed);
    EXPECT_LE(previousEnd, std::chrono::duration_cast<std::chrono::nanoseconds>(profile->completed -
                                                                                profile->submitted)
                               .count());

    // The profiled list is kept; plain runs are unaffected.
    Result<RunProfile> again = session->runProfiled({network.input});
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->outputs[0].data, profile->outputs[0].data);
    EXPECT_EQ(again->commands.size(), commands.size());
    EXPECT_EQ(session->getStats().numDispatches, stats.numDispatches);
    Result<std::vector<HostTensor>> run = session->run({network.input});
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ((*run)[0].data, profile->outputs[0].data);
    // It leaves its inputs on the device like a run.
    EXPECT_TRUE(session->timeRuns(1).ok());
  }
}

TEST_F(SessionProfileTest, WrongInputsFailBeforeRunning) {
  std::unique_ptr<Session> session = create();
  ASSERT_TRUE(session);
  Result<RunProfile> profile = session->runProfiled({HostTensor::zeros(DType::Float32, {1, 2})});
  ASSERT_FALSE(profile.ok());
  EXPECT_NE(profile.error().message.find("runProfiled: input #0 (input0) must be float32 "
                                         "1x1x4x4, got float32 1x2"),
            std::string::npos)
      << profile.error().message;
}

TEST_F(SessionProfileTest, PhasesCoverCreatingTheSession) {
  std::unique_ptr<Session> session = create();
  ASSERT_TRUE(session);
  const SessionStats &stats = session->getStats();
  for (const PhaseTiming &phase : stats.phases) {
    EXPECT_LE(phase.begin, phase.end) << phase.name;
    EXPECT_FALSE(phase.category.empty()) << phase.name;
  }
  EXPECT_TRUE(
      std::is_sorted(stats.phases.begin(), stats.phases.end(),
                     [](const PhaseTiming &a, const PhaseTiming &b) { return a.begin < b.begin; }));

  // Loading, the compiler's stages in order, then the device work.
  std::vector<std::string> sequence = {"open the device",
                                       "read model file",
                                       "parse model",
                                       "compile: the driver's patterns",
                                       "compile: verify-input",
                                       "compile: convert-precision",
                                       "compile: match",
                                       "compile: partition",
                                       "compile: plan-memory",
                                       "compile: schedule",
                                       "verify Output IR",
                                       "read the program",
                                       "seal partitions",
                                       "read weights",
                                       "compile state objects",
                                       "argument and staging buffers",
                                       "constants: create buffers, fill the upload buffer",
                                       "record the run list"};
  const PhaseTiming *previous = nullptr;
  for (const std::string &name : sequence) {
    const PhaseTiming *phase = findPhase(stats, name);
    ASSERT_NE(phase, nullptr) << "no phase '" << name << "'";
    if (previous)
      EXPECT_LE(previous->end, phase->begin) << previous->name << " overlaps " << name;
    previous = phase;
  }
  EXPECT_EQ(findPhase(stats, "compile: match")->category, "compile");
  // The constant upload names its bytes: 4 float32 tensors, 256-byte aligned.
  EXPECT_TRUE(std::any_of(stats.phases.begin(), stats.phases.end(), [](const PhaseTiming &phase) {
    return phase.name.starts_with("constants: upload ") && phase.category == "constants";
  }));
  // One state object per partition, inside the phase that compiles them all,
  // on threads numbered from 0 (this one).
  const PhaseTiming *all = findPhase(stats, "compile state objects");
  std::set<unsigned> threads;
  for (const PartitionInfo &partition : session->getPartitions()) {
    const PhaseTiming *phase = findPhase(stats, "state object @" + partition.name);
    ASSERT_NE(phase, nullptr) << partition.name;
    EXPECT_EQ(phase->category, "state-object");
    EXPECT_LE(all->begin, phase->begin);
    EXPECT_LE(phase->end, all->end);
    threads.insert(phase->thread);
  }
  EXPECT_LT(*threads.rbegin(), session->getPartitions().size());
  // The compiler's stages are also in its stats.
  // (sink-broadcasts, merge-common-layers and move-row-transposes among
  // them, after convert-precision).
  EXPECT_EQ(stats.compile.stages.size(), 10u);

  // The baseline compiler is one stage after the precision conversion.
  CompilerOptions baseline;
  baseline.compiler = CompilerOptions::Compiler::Baseline;
  std::unique_ptr<Session> reference = create(baseline);
  ASSERT_TRUE(reference);
  EXPECT_NE(findPhase(reference->getStats(), "compile: baseline pipeline"), nullptr);
  EXPECT_EQ(findPhase(reference->getStats(), "compile: match"), nullptr);
}

TEST_F(SessionProfileTest, PartitionsListTheirSubgraphs) {
  std::unique_ptr<Session> session = create();
  ASSERT_TRUE(session);
  // conv + bias + relu + add twice (one pattern subgraph, called twice) and
  // the upsample on the fallback target.
  unsigned patternCalls = 0, fallbackCalls = 0;
  for (const PartitionInfo &partition : session->getPartitions()) {
    ASSERT_FALSE(partition.subgraphs.empty()) << partition.name;
    for (const SubgraphInfo &subgraph : partition.subgraphs) {
      EXPECT_FALSE(subgraph.name.empty());
      ASSERT_FALSE(subgraph.layers.empty()) << subgraph.name;
      unsigned calls = subgraph.numInvocations * partition.numInvocations;
      if (subgraph.origin == "cpu.fallback") {
        EXPECT_TRUE(subgraph.pattern.empty()) << subgraph.name;
        EXPECT_EQ(subgraph.layers, std::vector<std::string>{"cgc_op.upsample"});
        fallbackCalls += calls;
      } else {
        EXPECT_EQ(subgraph.origin, "cpu");
        EXPECT_FALSE(subgraph.pattern.empty()) << subgraph.name;
        EXPECT_EQ(subgraph.layers.front(), "cgc_op.convolution");
        EXPECT_EQ(subgraph.layers.back(), "cgc_op.add");
        patternCalls += calls;
      }
    }
  }
  EXPECT_EQ(patternCalls, 2u);
  EXPECT_EQ(fallbackCalls, 1u);
}

TEST_F(SessionProfileTest, TraceAndSummary) {
  auto origin = std::chrono::steady_clock::now();
  std::unique_ptr<Session> session = create();
  ASSERT_TRUE(session);
  Result<RunProfile> profile = session->runProfiled({network.input});
  ASSERT_TRUE(profile.ok()) << profile.error().message;

  cgc::run::TraceInput input{origin,
                             modelPath,
                             "cpu",
                             &session->getStats(),
                             &session->getPartitions(),
                             &*profile,
                             {{"first run", "run", profile->submitted, profile->completed}}};
  // The trace survives printing and parsing as JSON.
  nlohmann::json trace = nlohmann::json::parse(cgc::run::makeTrace(input).dump());
  ASSERT_TRUE(trace.contains("traceEvents"));
  const nlohmann::json &events = trace["traceEvents"];
  unsigned dispatches = 0, copies = 0, phases = 0, metadata = 0;
  std::set<std::string> names;
  for (const nlohmann::json &event : events) {
    std::string phase = event.at("ph");
    if (phase == "M") {
      ++metadata;
      EXPECT_TRUE(event.at("args").contains("name") || event.at("args").contains("sort_index"));
      continue;
    }
    ASSERT_EQ(phase, "X") << event.dump();
    EXPECT_GE(event.at("ts").get<double>(), 0.0) << event.dump();
    EXPECT_GE(event.at("dur").get<double>(), 0.0) << event.dump();
    std::string category = event.at("cat");
    names.insert(event.at("name").get<std::string>());
    if (event.at("pid") == 2) {
      if (category == "dispatch") {
        ++dispatches;
        EXPECT_TRUE(event.at("args").contains("subgraphs")) << event.dump();
        EXPECT_EQ(event.at("name").get<std::string>(),
                  "@" + event.at("args").at("partition").get<std::string>());
      } else {
        ++copies;
        EXPECT_TRUE(category == "upload" || category == "readback") << category;
      }
    } else {
      EXPECT_EQ(event.at("pid"), 1);
      ++phases;
    }
  }
  EXPECT_EQ(dispatches, session->getStats().numDispatches);
  EXPECT_EQ(copies, 2u);
  // Every phase of creation, the first run, and the profiled run's host span.
  EXPECT_EQ(phases, session->getStats().phases.size() + 2);
  EXPECT_GE(metadata, 4u) << "names of both processes and their main threads";
  for (const char *name : {"upload input0", "readback output0", "compile: match", "first run",
                           "profiled run: submit to fence wait"})
    EXPECT_TRUE(names.count(name)) << name;
  EXPECT_EQ(trace.at("otherData").at("timestamp_frequency"), 1'000'000'000u);

  // The ranking: every dispatched partition once, longest first.
  std::vector<cgc::run::PartitionTime> ranked = cgc::run::rankPartitions(*profile);
  ASSERT_EQ(ranked.size(), session->getPartitions().size());
  unsigned ranked_dispatches = 0;
  for (size_t index = 0; index < ranked.size(); ++index) {
    ranked_dispatches += ranked[index].numDispatches;
    if (index)
      EXPECT_GE(ranked[index - 1].deviceNs, ranked[index].deviceNs);
  }
  EXPECT_EQ(ranked_dispatches, session->getStats().numDispatches);
  // The summary names the top partition and its subgraphs.
  std::FILE *file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  cgc::run::printSummary(file, session->getPartitions(), *profile, 1);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;)
    text.push_back(static_cast<char>(c));
  std::fclose(file);
  const PartitionInfo &top = session->getPartitions()[ranked.front().partition];
  EXPECT_NE(text.find("partitions by device time (top 1 of 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("@" + top.name), std::string::npos) << text;
  EXPECT_NE(text.find(top.subgraphs.front().name), std::string::npos) << text;
  EXPECT_NE(text.find("(1 more partition(s): "), std::string::npos) << text;

  // The kinds: every dispatch counted once, under its partition's kind.
  std::vector<cgc::run::KindTime> kinds =
      cgc::run::rankKinds(session->getPartitions(), ranked);
  ASSERT_FALSE(kinds.empty());
  unsigned kindDispatches = 0;
  int64_t kindNs = 0, rankedNs = 0;
  for (const cgc::run::KindTime &kind : kinds) {
    kindDispatches += kind.numDispatches;
    kindNs += kind.deviceNs;
  }
  for (const cgc::run::PartitionTime &time : ranked)
    rankedNs += time.deviceNs;
  EXPECT_EQ(kindDispatches, session->getStats().numDispatches);
  EXPECT_EQ(kindNs, rankedNs);
  EXPECT_NE(text.find("kinds by device time (top 1 of " + std::to_string(kinds.size()) + ")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(kinds.front().name), std::string::npos) << text;
}

TEST(SessionProfileKindTest, NamesPatternsAndFallbackLayers) {
  PartitionInfo partition;
  partition.name = "p0";
  SubgraphInfo fused;
  fused.name = "conv_relu_0";
  fused.pattern = "conv_relu";
  fused.layers = {"cgc_op.convolution", "cgc_op.relu"};
  SubgraphInfo fallback;
  fallback.name = "transpose_1";
  fallback.layers = {"cgc_op.transpose"};
  partition.subgraphs = {fused, fallback, fused};
  EXPECT_EQ(cgc::run::describeKind(partition), "(transpose) + conv_relu");
  PartitionInfo other = partition;
  other.subgraphs = {fallback};
  std::vector<cgc::run::PartitionTime> ranked = {{0, 2, 300}, {1, 1, 500}, {2, 1, 100}};
  std::vector<cgc::run::KindTime> kinds =
      cgc::run::rankKinds({partition, other, partition}, ranked);
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds[0].name, "(transpose)");
  EXPECT_EQ(kinds[0].deviceNs, 500);
  EXPECT_EQ(kinds[1].name, "(transpose) + conv_relu");
  EXPECT_EQ(kinds[1].numDispatches, 3u);
  EXPECT_EQ(kinds[1].deviceNs, 400);
}

} // namespace
