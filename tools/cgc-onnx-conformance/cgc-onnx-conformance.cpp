//===- cgc-onnx-conformance.cpp - ONNX's backend tests on the CPU device ---===//
//
//   cgc-onnx-conformance --jobs 2 --markdown docs/conformance-cpu.md
//   cgc-onnx-conformance --suite node --filter 'test_conv' --verbose
//   cgc-onnx-conformance --expectations test/Conformance/expected-passes.txt
//   cgc-onnx-conformance --suite simple --precision float16 --verbose
//
// Runs every test of ONNX's backend test data (node, pytorch-converted,
// pytorch-operator, simple) through the importer, the baseline pipeline and
// the CPU driver, one Session per test, `--jobs` tests at a time. Prints a
// summary; writes the Markdown report and JSON on request. Exits non-zero
// only when a test that the expectations file lists as passing does not pass,
// so that CI guards what works without failing on known gaps.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <execinfo.h>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>
#include <regex>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace cgc::conformance;

namespace {

const char *const kAllSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

/// The tests each worker is running, for the crash message: a crash is a
/// bug to fix, and the message says which test to look at.
constexpr unsigned kMaxJobs = 256;
std::atomic<const char *> runningTests[kMaxJobs];

void reportCrash(int signal) {
  const char header[] = "cgc-onnx-conformance: crashed while running:";
  ssize_t ignored = ::write(STDERR_FILENO, header, sizeof header - 1);
  for (std::atomic<const char *> &slot : runningTests)
    if (const char *name = slot.load()) {
      ignored = ::write(STDERR_FILENO, " ", 1);
      ignored = ::write(STDERR_FILENO, name, std::strlen(name));
    }
  ignored = ::write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  // The crashing thread's stack, each frame as module(+offset): symbolize
  // with `llvm-symbolizer --obj=MODULE OFFSET` against the same build.
  void *frames[64];
  int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

std::vector<TestCase> discoverTests(const fs::path &data, const std::vector<std::string> &suites,
                                    const std::string &filter, std::string &error) {
  std::regex pattern;
  try {
    pattern = std::regex(filter.empty() ? "." : filter);
  } catch (const std::regex_error &e) {
    error = "--filter '" + filter + "': " + e.what();
    return {};
  }
  std::vector<TestCase> tests;
  for (const std::string &suite : suites) {
    fs::path directory = data / suite;
    std::error_code code;
    std::vector<TestCase> found;
    for (const fs::directory_entry &entry : fs::directory_iterator(directory, code)) {
      if (!fs::exists(entry.path() / "model.onnx"))
        continue;
      TestCase test{suite, entry.path().filename().string(), entry.path()};
      if (std::regex_search(test.getId(), pattern))
        found.push_back(std::move(test));
    }
    if (code) {
      error = directory.string() + ": " + code.message();
      return {};
    }
    std::sort(found.begin(), found.end(),
              [](const TestCase &a, const TestCase &b) { return a.name < b.name; });
    tests.insert(tests.end(), found.begin(), found.end());
  }
  return tests;
}

std::string today() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &utc);
  return buffer;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream file(path);
  file << text;
  file.close();
  if (!file)
    std::cerr << "cgc-onnx-conformance: error: cannot write " << path << "\n";
  return static_cast<bool>(file);
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Runs ONNX's backend tests (libonnx-testdata) through the ONNX importer, the "
               "compiler and the CPU driver."};
  std::string data = CGC_ONNX_TEST_DATA;
  std::vector<std::string> suites;
  std::string filter, markdownPath, jsonPath, expectationsPath;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool updateExpectations = false, verbose = false;
  app.add_option("--data", data, "The test data directory (holding node/, simple/, ...)")
      ->capture_default_str();
  app.add_option("--suite", suites, "Suites to run (default: all)")
      ->check(CLI::IsMember({"node", "pytorch-converted", "pytorch-operator", "simple"}));
  app.add_option("--filter", filter, "Run only tests whose id (suite/test_name) matches REGEX");
  app.add_option("--jobs,-j", jobs, "Tests run at a time")->check(CLI::Range(1u, kMaxJobs));
  app.add_option("--markdown", markdownPath, "Write the Markdown report (docs/conformance-cpu.md)");
  app.add_option("--json", jsonPath, "Write every result as JSON");
  app.add_option("--expectations", expectationsPath,
                 "Tests expected to pass (one suite/test_name a line): exit non-zero if one "
                 "does not");
  app.add_flag("--update-expectations", updateExpectations,
               "Rewrite the expectations file with the tests that pass (tests not run keep "
               "their entries)");
  app.add_flag("--verbose,-v", verbose, "Print every test's result");
  cgc::runtime::CompilerOptions compiler;
  app.add_option("--compiler", compiler.compiler,
                 "default (the CPU driver's patterns) or baseline (one subgraph per layer)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, cgc::runtime::CompilerOptions::Compiler>{
              {"default", cgc::runtime::CompilerOptions::Compiler::Default},
              {"baseline", cgc::runtime::CompilerOptions::Compiler::Baseline}},
          CLI::ignore_case));
  app.add_option("--partition-mode", compiler.partitionMode,
                 "per-target (runs of one target's subgraphs) or per-subgraph")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, cgc::runtime::CompilerOptions::PartitionMode>{
              {"per-target", cgc::runtime::CompilerOptions::PartitionMode::PerTarget},
              {"per-subgraph", cgc::runtime::CompilerOptions::PartitionMode::PerSubgraph}},
          CLI::ignore_case));
  app.add_option("--precision", compiler.precision,
                 "What float32 models compute in: float32, float16 or bfloat16 (inputs and "
                 "outputs stay float32); float16 and bfloat16 widen the tolerances")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, cgc::runtime::CompilerOptions::Precision>{
              {"float32", cgc::runtime::CompilerOptions::Precision::Float32},
              {"float16", cgc::runtime::CompilerOptions::Precision::Float16},
              {"bfloat16", cgc::runtime::CompilerOptions::Precision::BFloat16}},
          CLI::ignore_case));
  std::string device = "cpu";
  app.add_option("--device", device, "The device the tests run on: cpu, cuda, cuda:N")
      ->capture_default_str();
  app.add_flag("--inputs-in-scratch", compiler.inputsInScratch,
               "Let the compiler place inputs in the scratch buffer");
  CLI11_PARSE(app, argc, argv);
  if (updateExpectations && expectationsPath.empty()) {
    std::cerr << "cgc-onnx-conformance: error: --update-expectations needs --expectations\n";
    return 2;
  }
  if (suites.empty())
    suites.assign(std::begin(kAllSuites), std::end(kAllSuites));

  std::string error;
  std::vector<TestCase> tests = discoverTests(data, suites, filter, error);
  if (!error.empty()) {
    std::cerr << "cgc-onnx-conformance: error: " << error << "\n";
    return 2;
  }
  if (tests.empty()) {
    std::cerr << "cgc-onnx-conformance: error: no test under " << data << " matches\n";
    return 2;
  }

  // backtrace() loads its unwinder on first use: not in the signal handler.
  void *frame[1];
  (void)backtrace(frame, 1);
  for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
    std::signal(signal, reportCrash);

  auto start = std::chrono::steady_clock::now();
  std::vector<TestResult> results(tests.size());
  std::atomic<size_t> next{0};
  std::mutex printMutex;
  auto work = [&](unsigned worker) {
    for (size_t i; (i = next.fetch_add(1)) < tests.size();) {
      std::string id = tests[i].getId();
      runningTests[worker] = id.c_str();
      results[i] = runTest(tests[i], compiler, device);
      runningTests[worker] = nullptr;
      if (verbose) {
        std::lock_guard<std::mutex> lock(printMutex);
        const TestResult &result = results[i];
        std::printf("%-12s %-60s %6.2fs %s\n", getOutcomeName(result.outcome), id.c_str(),
                    result.seconds, result.reason.c_str());
        std::fflush(stdout);
      }
    }
  };
  jobs = std::min<unsigned>(jobs, tests.size());
  std::vector<std::thread> workers;
  for (unsigned worker = 1; worker < jobs; ++worker)
    workers.emplace_back(work, worker);
  work(0);
  for (std::thread &worker : workers)
    worker.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  unsigned counts[4] = {};
  for (const TestResult &result : results)
    ++counts[static_cast<int>(result.outcome)];
  unsigned inScope = tests.size() - counts[static_cast<int>(Outcome::OutOfScope)];
  std::printf("%zu tests in %.1f s (%u jobs): %u passed, %u failed, %u unsupported, %u out of "
              "scope; %.1f%% of %u in-scope tests pass\n",
              tests.size(), seconds, jobs, counts[0], counts[1], counts[2], counts[3],
              inScope ? 100.0 * counts[0] / inScope : 0.0, inScope);

  // The report names the command without the directories it ran from.
  ReportInfo info{today(), "cgc-onnx-conformance", data,
                  compiler.compiler == cgc::runtime::CompilerOptions::Compiler::Baseline
                      ? "baseline"
                      : "default",
                  device, compiler.precision};
  for (int i = 1; i < argc; ++i)
    info.command += std::string(" ") + argv[i];
  bool written = true;
  if (!markdownPath.empty())
    written &= writeFile(markdownPath, renderMarkdown(results, info));
  if (!jsonPath.empty())
    written &= writeFile(jsonPath, renderJSON(results, info));

  if (expectationsPath.empty())
    return written ? 0 : 2;
  std::set<std::string> expected;
  if (fs::exists(expectationsPath) || !updateExpectations) {
    expected = readExpectations(expectationsPath, error);
    if (!error.empty()) {
      std::cerr << "cgc-onnx-conformance: error: " << error << "\n";
      return 2;
    }
  }
  std::set<std::string> run, passing;
  for (const TestResult &result : results) {
    run.insert(result.test.getId());
    if (result.outcome == Outcome::Passed)
      passing.insert(result.test.getId());
  }
  if (updateExpectations) {
    std::set<std::string> updated;
    for (const std::string &id : expected)
      if (!run.count(id))
        updated.insert(id);
    updated.insert(passing.begin(), passing.end());
    if (!writeExpectations(expectationsPath, updated, error)) {
      std::cerr << "cgc-onnx-conformance: error: " << error << "\n";
      return 2;
    }
    std::printf("%s: %zu tests expected to pass\n", expectationsPath.c_str(), updated.size());
    return written ? 0 : 2;
  }

  unsigned regressions = 0, newPasses = 0;
  for (const TestResult &result : results) {
    std::string id = result.test.getId();
    if (expected.count(id) && result.outcome != Outcome::Passed) {
      ++regressions;
      std::printf("REGRESSION %s: %s: %s\n", id.c_str(), getOutcomeName(result.outcome),
                  result.reason.c_str());
    } else if (!expected.count(id) && result.outcome == Outcome::Passed) {
      ++newPasses;
    }
  }
  for (const std::string &id : expected)
    if (!run.count(id) && (filter.empty() || std::regex_search(id, std::regex(filter))) &&
        std::find(suites.begin(), suites.end(), id.substr(0, id.find('/'))) != suites.end())
      std::printf("warning: %s is expected to pass but is not in the test data\n", id.c_str());
  if (newPasses)
    std::printf("%u tests pass that %s does not list (--update-expectations adds them)\n",
                newPasses, expectationsPath.c_str());
  if (regressions) {
    std::printf("%u tests expected to pass do not\n", regressions);
    return 1;
  }
  return written ? 0 : 2;
}
