//===- Report.cpp - conformance results as Markdown, JSON and expectations ===//
//
// The Markdown report (docs/conformance-cpu.md) has a summary per suite with the
// pass rate over in-scope tests, a table per op of the node tests, a row per
// model test, and the out-of-scope tests grouped by reason.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace cgc::conformance {
namespace {

/// The suites in report order.
const char *const kSuiteOrder[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

struct Counts {
  unsigned total = 0, passed = 0, failed = 0, unsupported = 0, outOfScope = 0;

  void add(Outcome outcome) {
    ++total;
    switch (outcome) {
    case Outcome::Passed: ++passed; break;
    case Outcome::Failed: ++failed; break;
    case Outcome::Unsupported: ++unsupported; break;
    case Outcome::OutOfScope: ++outOfScope; break;
    }
  }
  unsigned inScope() const { return total - outOfScope; }
  std::string passRate() const {
    if (!inScope())
      return "—";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f%%", 100.0 * passed / inScope());
    return buffer;
  }
};

/// Markdown table cells may not hold '|' or newlines.
std::string escapeCell(std::string text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|')
      escaped += "\\|";
    else if (c == '\n')
      escaped += ' ';
    else
      escaped += c;
  }
  return escaped;
}

/// The reason without what only names the instance ("node 3 'Foo_1'"), so
/// that tests failing the same way group together.
std::string getReasonKind(const TestResult &result) {
  if (result.outcome == Outcome::Failed)
    return "wrong numbers";
  std::string reason = result.reason;
  // "import: model.onnx: node 0 'y' (Floor): not supported: ..." -> "import: (Floor): ..."
  size_t node = reason.find("node ");
  size_t open = reason.find(" (", node);
  if (node != std::string::npos && open != std::string::npos && open - node < 80)
    reason = reason.substr(0, node) + reason.substr(open + 1);
  size_t modelName = reason.find("model.onnx: ");
  if (modelName != std::string::npos)
    reason.erase(modelName, 12);
  return reason;
}

std::string joinNames(const std::vector<std::string> &names, size_t limit) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < limit; ++i)
    text += (i ? ", " : "") + names[i];
  if (names.size() > limit)
    text += ", … (" + std::to_string(names.size() - limit) + " more)";
  return text;
}

/// The non-passing reasons of a group of results: distinct kinds with the
/// tests they apply to.
std::string describeFailures(const std::vector<const TestResult *> &results) {
  std::vector<std::pair<std::string, std::vector<std::string>>> kinds;
  for (const TestResult *result : results) {
    if (result->outcome == Outcome::Passed || result->outcome == Outcome::OutOfScope)
      continue;
    std::string kind = result->outcome == Outcome::Failed ? result->reason : getReasonKind(*result);
    auto it = std::find_if(kinds.begin(), kinds.end(),
                           [&](const auto &entry) { return entry.first == kind; });
    if (it == kinds.end())
      kinds.push_back({kind, {result->test.name}});
    else
      it->second.push_back(result->test.name);
  }
  std::string text;
  for (const auto &[kind, names] : kinds)
    text += (text.empty() ? "" : "<br>") + joinNames(names, 4) + ": " + kind;
  return escapeCell(text);
}

} // namespace

std::set<std::string> readExpectations(const std::filesystem::path &path, std::string &error) {
  std::set<std::string> ids;
  std::ifstream file(path);
  if (!file) {
    error = path.string() + ": cannot open";
    return ids;
  }
  for (std::string line; std::getline(file, line);) {
    line = line.substr(0, line.find('#'));
    size_t begin = line.find_first_not_of(" \t\r"), end = line.find_last_not_of(" \t\r");
    if (begin != std::string::npos)
      ids.insert(line.substr(begin, end - begin + 1));
  }
  return ids;
}

bool writeExpectations(const std::filesystem::path &path, const std::set<std::string> &passing,
                       std::string &error) {
  std::ofstream file(path);
  if (!file) {
    error = path.string() + ": cannot write";
    return false;
  }
  file << "# ONNX backend tests (libonnx-testdata) that pass on the CPU device.\n"
          "# The conformance.onnx test fails when one of them no longer passes; tests\n"
          "# not listed may fail without failing it. Regenerate with\n"
          "#   cgc-onnx-conformance --expectations <this file> --update-expectations\n";
  for (const std::string &id : passing)
    file << id << "\n";
  file.close();
  if (!file) {
    error = path.string() + ": cannot write";
    return false;
  }
  return true;
}

std::string renderMarkdown(const std::vector<TestResult> &results, const ReportInfo &info) {
  std::ostringstream out;
  std::map<std::string, Counts> bySuite;
  Counts total;
  for (const TestResult &result : results) {
    bySuite[result.test.suite].add(result.outcome);
    total.add(result.outcome);
  }

  std::string driver = info.device.substr(0, info.device.find(':'));
  std::string deviceName = driver == "cpu" ? "CPU" : driver == "cuda" ? "CUDA" : driver;
  out << "# ONNX conformance on the " << deviceName << " device\n\n"
      << "<!-- Generated by cgc-onnx-conformance; do not edit. -->\n\n"
      << "ONNX's backend test data (Debian's libonnx-testdata, `" << info.dataDirectory
      << "`) imported by the ONNX importer, compiled "
      << (info.compiler == "baseline" ? "by the baseline pipeline"
                                      : "with the " + deviceName + " driver's patterns")
      << " and run on the " << deviceName << " driver (`--device " << info.device
      << "`). Every `test_data_set_*` of a test is compared with its "
         "stored outputs the way ONNX's backend test runner does: same dtype, then "
         "`numpy.testing.assert_allclose(actual, expected, rtol=1e-3, atol=1e-7)`, ONNX's "
         "tolerances for every node and model test (only ONNX's `real` model suite, not run "
         "here, overrides them). Integer and bool outputs must be equal.\n\n";
  if (info.precision != runtime::CompilerOptions::Precision::Float32) {
    Tolerance tolerance = getTolerance(info.precision);
    out << "Float32 models computed in **" << getPrecisionName(info.precision)
        << "** (`--precision`; inputs and outputs stay float32), so float outputs were "
           "compared with `rtol="
        << tolerance.relative << ", atol=" << tolerance.absolute
        << "` instead of ONNX's tolerances.\n\n";
  }
  out << "* Date: " << info.date << "\n"
      << "* Command: `" << info.command << "`\n\n";

  out << "## Summary\n\n"
      << "Out-of-scope tests (training, string, sequence/optional, control-flow and random ops) "
         "are listed at the end and left out of the pass rate.\n\n"
      << "| suite | tests | in scope | passed | failed | unsupported | out of scope | pass rate "
         "(in scope) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  auto row = [&](const std::string &name, const Counts &counts) {
    out << "| " << name << " | " << counts.total << " | " << counts.inScope() << " | "
        << counts.passed << " | " << counts.failed << " | " << counts.unsupported << " | "
        << counts.outOfScope << " | " << counts.passRate() << " |\n";
  };
  for (const char *suite : kSuiteOrder)
    if (bySuite.count(suite))
      row(suite, bySuite[suite]);
  for (const auto &[suite, counts] : bySuite)
    if (std::find(std::begin(kSuiteOrder), std::end(kSuiteOrder), suite) == std::end(kSuiteOrder))
      row(suite, counts);
  row("**all**", total);
  out << "\n*Failed*: the outputs differ from ONNX's (max abs/rel error given); *unsupported*: "
         "the importer, compiler or driver rejects the model (its message, shortened).\n\n";

  // Node tests, per op.
  std::map<std::string, std::vector<const TestResult *>> byOp;
  for (const TestResult &result : results)
    if (result.test.suite == "node" && result.outcome != Outcome::OutOfScope)
      byOp[result.opUnderTest].push_back(&result);
  out << "## Node tests by op\n\n"
      << "In-scope node tests, by the op each one checks (`_expanded` tests check an op's "
         "function body).\n\n"
      << "| op type | tests | passed | failed | unsupported | why not passing |\n"
         "|---|---:|---:|---:|---:|---|\n";
  for (const auto &[op, group] : byOp) {
    Counts counts;
    for (const TestResult *result : group)
      counts.add(result->outcome);
    out << "| " << op << " | " << counts.total << " | " << counts.passed << " | "
        << counts.failed << " | " << counts.unsupported << " | " << describeFailures(group)
        << " |\n";
  }

  // Model tests, one row each.
  out << "\n## Model tests\n\n"
      << "In-scope tests of the pytorch-converted, pytorch-operator and simple suites.\n\n"
      << "| test | suite | ops | result | why not passing |\n|---|---|---|---|---|\n";
  for (const TestResult &result : results) {
    if (result.test.suite == "node" || result.outcome == Outcome::OutOfScope)
      continue;
    out << "| " << result.test.name << " | " << result.test.suite << " | "
        << escapeCell(joinNames(result.opTypes, 8)) << " | " << getOutcomeName(result.outcome)
        << " | " << escapeCell(result.reason) << " |\n";
  }

  // Out of scope, grouped by reason.
  std::map<std::string, std::vector<std::string>> outOfScope;
  for (const TestResult &result : results)
    if (result.outcome == Outcome::OutOfScope)
      outOfScope[result.reason].push_back(result.test.getId());
  out << "\n## Out of scope\n\n"
      << "| reason | tests |\n|---|---|\n";
  for (const auto &[reason, ids] : outOfScope)
    out << "| " << escapeCell(reason) << " | " << escapeCell(joinNames(ids, ids.size())) << " |\n";
  return out.str();
}

std::string renderJSON(const std::vector<TestResult> &results, const ReportInfo &info) {
  nlohmann::ordered_json root;
  root["date"] = info.date;
  root["command"] = info.command;
  root["data_directory"] = info.dataDirectory;
  root["compiler"] = info.compiler;
  root["precision"] = getPrecisionName(info.precision);
  Tolerance tolerance = getTolerance(info.precision);
  root["rtol"] = tolerance.relative;
  root["atol"] = tolerance.absolute;
  Counts total;
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  for (const TestResult &result : results) {
    total.add(result.outcome);
    nlohmann::ordered_json test;
    test["id"] = result.test.getId();
    test["suite"] = result.test.suite;
    test["name"] = result.test.name;
    test["op"] = result.opUnderTest;
    test["ops"] = result.opTypes;
    test["result"] = getOutcomeName(result.outcome);
    test["reason"] = result.reason;
    if (result.message != result.reason)
      test["message"] = result.message;
    test["data_sets"] = result.numDataSets;
    test["max_abs_error"] = result.maxAbsoluteError;
    test["max_rel_error"] = result.maxRelativeError;
    test["seconds"] = result.seconds;
    tests.push_back(std::move(test));
  }
  root["summary"] = {{"tests", total.total},        {"in_scope", total.inScope()},
                     {"passed", total.passed},      {"failed", total.failed},
                     {"unsupported", total.unsupported}, {"out_of_scope", total.outOfScope}};
  root["tests"] = std::move(tests);
  return root.dump(1) + "\n";
}

} // namespace cgc::conformance
