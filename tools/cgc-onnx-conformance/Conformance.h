//===- Conformance.h - ONNX backend tests on a CGC device -------*- C++ -*-===//
//
// The pieces of cgc-onnx-conformance: a test is one directory of ONNX's
// backend test data (model.onnx and test_data_set_*/{input,output}_*.pb). It
// is classified out of scope from the model alone, else imported, compiled
// through a Session (the compiler, or the baseline pipeline), run on every
// data set and compared with the stored outputs the way ONNX's backend test
// runner does (numpy.testing.assert_allclose after an exact dtype check).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_TOOLS_ONNX_CONFORMANCE_CONFORMANCE_H
#define CGC_TOOLS_ONNX_CONFORMANCE_CONFORMANCE_H

#include "cgc/Runtime/Session.h"

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace cgc::conformance {

/// ONNX's backend test tolerances (onnx.backend.test.loader: rtol 1e-3,
/// atol 1e-7 for every node and model test; only the "real" model suite
/// overrides them, in its data.json).
inline constexpr double kDefaultRelativeTolerance = 1e-3;
inline constexpr double kDefaultAbsoluteTolerance = 1e-7;

/// How far a float output may be from the expected one:
/// |actual - expected| <= absolute + relative * |expected|.
struct Tolerance {
  double relative = kDefaultRelativeTolerance;
  double absolute = kDefaultAbsoluteTolerance;
};

/// ONNX's tolerances for float32 models; wider ones for a model converted
/// to float16 (relative 1e-2, absolute 1e-3: each value rounded to 11
/// significant bits, 4.9e-4 relative, on the way in, in each layer and on
/// the way out) or bfloat16 (relative 5e-2, absolute 1e-2: 8 bits, 3.9e-3
/// each).
Tolerance getTolerance(runtime::CompilerOptions::Precision precision);
/// "float32", "float16", "bfloat16".
const char *getPrecisionName(runtime::CompilerOptions::Precision precision);

/// One test directory.
struct TestCase {
  std::string suite; // "node", "pytorch-converted", ...
  std::string name;  // "test_abs"
  std::filesystem::path directory;

  /// "node/test_abs": how expectations and filters name the test.
  std::string getId() const { return suite + "/" + name; }
};

enum class Outcome { Passed, Failed, Unsupported, OutOfScope };

/// "passed", "failed", "unsupported", "out of scope".
const char *getOutcomeName(Outcome outcome);

/// What running one test found.
struct TestResult {
  TestCase test;
  /// Distinct op types of the graph's nodes, in order of first appearance.
  std::vector<std::string> opTypes;
  /// The op the test is about (see getOpUnderTest).
  std::string opUnderTest;
  Outcome outcome = Outcome::Unsupported;
  /// Failed: which output differs and by how much; unsupported: the
  /// importer's, compiler's or driver's message, shortened; out of scope:
  /// why.
  std::string reason;
  /// The reason in full (the JSON report has it).
  std::string message;
  /// Over every compared float output element (failed and passed tests).
  double maxAbsoluteError = 0, maxRelativeError = 0;
  unsigned numDataSets = 0;
  double seconds = 0;
};

/// Why a model is out of scope (training, string, sequence/optional,
/// control-flow and random ops or values), or empty.
std::string getOutOfScopeReason(const onnx::ModelProto &model);

/// The op a test checks: the op its name starts with
/// (`test_reduce_log_sum_exp_...`: ReduceLogSumExp, also for the `_expanded`
/// function bodies; a few hand-named tests by alias, `test_batchnorm_...`);
/// else the op of the first node that is not a Constant.
std::string getOpUnderTest(const onnx::ModelProto &model, const std::string &testName);

/// Imports, compiles (as `compiler` says) and runs `test` on `device` ("cpu", "cuda:0")
/// and compares every data set with its stored outputs.
TestResult runTest(const TestCase &test, const runtime::CompilerOptions &compiler,
                   const std::string &device = "cpu");

/// The set of test ids ("node/test_abs") listed in an expectations file
/// (one per line; '#' starts a comment).
std::set<std::string> readExpectations(const std::filesystem::path &path, std::string &error);
/// Writes `passing` as an expectations file.
bool writeExpectations(const std::filesystem::path &path, const std::set<std::string> &passing,
                       std::string &error);

/// What the report says about how it was made.
struct ReportInfo {
  std::string date;    // "2025-01-31"
  std::string command; // the command line that made it
  std::string dataDirectory;
  std::string compiler = "default"; // how Input IR was compiled: default, baseline
  std::string device = "cpu";       // where the tests ran: cpu, cuda, cuda:N
  /// What float32 models computed in (`--precision`), and the tolerances
  /// outputs were compared with.
  runtime::CompilerOptions::Precision precision = runtime::CompilerOptions::Precision::Float32;
};

/// docs/conformance.md: summary, a table per op, model tests, out of scope.
std::string renderMarkdown(const std::vector<TestResult> &results, const ReportInfo &info);
/// Every result as JSON.
std::string renderJSON(const std::vector<TestResult> &results, const ReportInfo &info);

} // namespace cgc::conformance

#endif // CGC_TOOLS_ONNX_CONFORMANCE_CONFORMANCE_H
