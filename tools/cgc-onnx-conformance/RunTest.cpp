//===- RunTest.cpp - one ONNX backend test through import, compile, run ---===//
//
// The model is imported in memory with the shapes of the data set's inputs;
// an input the importer needs as a constant (a Reshape's shape, a Resize's
// scales: node tests pass those as graph inputs) is bound to the data set's
// value, which the test data always provides. When the importer needs a
// value computed from graph inputs (a Range limit computed from a window
// size), the graph inputs it is computed from are bound. Data sets whose bound values or
// shapes differ from the previous one's get their own import and Session.
//
// Outputs are compared as ONNX's backend test runner does: the dtype must be
// the same, then numpy.testing.assert_allclose(actual, expected, rtol, atol):
// |actual - expected| <= atol + rtol * |expected| elementwise, NaN equal to
// NaN, infinities equal only to the same infinity. Integer and bool outputs
// must be equal. With `--precision float16` or `bfloat16` the tolerances
// widen (getTolerance).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"

#include "Import/ONNX/Literal.h"
#include "Runtime/Weights.h"
#include "cgc/Import/ONNX.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Runtime/Session.h"

#include "onnx/onnx_pb.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>

namespace fs = std::filesystem;
using namespace cgc::runtime;

namespace cgc::conformance {
namespace {

/// Longest message kept in a report, in characters.
constexpr size_t kMaxReasonLength = 200;

/// Drops the directory of the model from `message`.
std::string stripDirectory(std::string message, const TestCase &test) {
  std::string prefix = (test.directory / "model.onnx").string();
  for (size_t at; (at = message.find(prefix)) != std::string::npos;)
    message.replace(at, prefix.size(), "model.onnx");
  return message;
}

/// `message` on one line of at most kMaxReasonLength characters.
std::string shorten(std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  if (message.size() > kMaxReasonLength)
    message = message.substr(0, kMaxReasonLength - 3) + "...";
  return message;
}

/// A TensorProto file of a data set, as a host tensor. `declaredType` is
/// the ONNX element type the graph declares for the value: ONNX's test data
/// store bfloat16 values as uint16 tensors of their bits (numpy has no
/// bfloat16), which read as bfloat16 where the graph says so.
Result<HostTensor> readTensorFile(const fs::path &path, int32_t declaredType) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Error{path.filename().string() + ": cannot open"};
  std::string bytes(std::istreambuf_iterator<char>(file), {});
  onnx::TensorProto tensor;
  if (!tensor.ParseFromString(bytes))
    return Error{path.filename().string() + ": not a TensorProto"};
  llvm::Expected<importer::Literal> literal =
      importer::decodeTensor(tensor, "", path.filename().string());
  if (!literal)
    return Error{llvm::toString(literal.takeError())};
  if (declaredType == importer::kBFloat16 && literal->getType() == importer::kUInt16) {
    HostTensor bits = importer::Literal(importer::kInt16, std::vector<int64_t>(literal->getShape()),
                                        std::vector<std::byte>(literal->getBytes().begin(),
                                                               literal->getBytes().end()))
                          .toHostTensor();
    bits.dtype = DType::BFloat16;
    return bits;
  }
  if (!importer::getDTypeOf(literal->getType()))
    return Error{path.filename().string() + " holds " +
                 importer::getONNXTypeName(literal->getType()) +
                 " elements, which CGC IR has no element type for"};
  return literal->toHostTensor();
}

/// The numbered files `<stem>_0.pb`, `<stem>_1.pb`, ... of a data set.
std::vector<fs::path> listNumberedFiles(const fs::path &dataSet, const std::string &stem) {
  std::vector<fs::path> files;
  for (unsigned i = 0;; ++i) {
    fs::path path = dataSet / (stem + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(path))
      return files;
    files.push_back(path);
  }
}

/// The test_data_set_N directories, by N.
std::vector<fs::path> listDataSets(const fs::path &directory) {
  std::vector<std::pair<unsigned, fs::path>> sets;
  std::error_code code;
  for (const fs::directory_entry &entry : fs::directory_iterator(directory, code)) {
    llvm::StringRef name = entry.path().filename().native();
    unsigned index;
    if (entry.is_directory() && name.consume_front("test_data_set_") &&
        !name.getAsInteger(10, index))
      sets.emplace_back(index, entry.path());
  }
  std::sort(sets.begin(), sets.end());
  std::vector<fs::path> paths;
  for (auto &set : sets)
    paths.push_back(std::move(set.second));
  return paths;
}

double elementAsDouble(const HostTensor &tensor, uint64_t i) {
  switch (tensor.dtype) {
  case DType::Float32: return tensor.as<float>()[i];
  case DType::Float16: return halfToFloat(tensor.as<uint16_t>()[i]);
  case DType::BFloat16: return bfloat16ToFloat(tensor.as<uint16_t>()[i]);
  case DType::Int8: return tensor.as<int8_t>()[i];
  case DType::UInt8: return tensor.as<uint8_t>()[i];
  case DType::Int16: return tensor.as<int16_t>()[i];
  case DType::Int32: return tensor.as<int32_t>()[i];
  case DType::Int64: return static_cast<double>(tensor.as<int64_t>()[i]);
  case DType::Bool: return tensor.as<uint8_t>()[i] != 0;
  case DType::Float64: return tensor.as<double>()[i];
  case DType::UInt16: return tensor.as<uint16_t>()[i];
  case DType::UInt32: return tensor.as<uint32_t>()[i];
  case DType::UInt64: return static_cast<double>(tensor.as<uint64_t>()[i]);
  }
  return 0;
}

int64_t elementAsInteger(const HostTensor &tensor, uint64_t i) {
  switch (tensor.dtype) {
  case DType::Int8: return tensor.as<int8_t>()[i];
  case DType::UInt8: return tensor.as<uint8_t>()[i];
  case DType::Int16: return tensor.as<int16_t>()[i];
  case DType::Int32: return tensor.as<int32_t>()[i];
  case DType::Int64: return tensor.as<int64_t>()[i];
  case DType::Bool: return tensor.as<uint8_t>()[i] != 0;
  case DType::UInt16: return tensor.as<uint16_t>()[i];
  case DType::UInt32: return tensor.as<uint32_t>()[i];
  // Compared for equality only: the bits of values above INT64_MAX survive.
  case DType::UInt64: return static_cast<int64_t>(tensor.as<uint64_t>()[i]);
  default: return static_cast<int64_t>(elementAsDouble(tensor, i));
  }
}

bool isFloat(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::BFloat16 ||
         dtype == DType::Float64;
}

std::string formatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

/// Compares one output; returns the mismatch, or nullopt. Accumulates the
/// error statistics of float outputs into `result`.
std::optional<std::string> compareOutput(const HostTensor &actual, const HostTensor &expected,
                                         const std::string &what, Tolerance tolerance,
                                         TestResult &result) {
  if (actual.dtype != expected.dtype)
    return what + ": dtype " + std::string(getName(actual.dtype)) + ", expected " +
           std::string(getName(expected.dtype));
  if (actual.shape != expected.shape)
    return what + ": shape " + formatShape(actual.shape) + ", expected " +
           formatShape(expected.shape);
  uint64_t count = expected.numElements(), mismatches = 0, firstMismatch = 0;
  double maxAbsolute = 0, maxRelative = 0;
  bool floating = isFloat(expected.dtype);
  for (uint64_t i = 0; i < count; ++i) {
    bool equal;
    if (floating) {
      double got = elementAsDouble(actual, i), want = elementAsDouble(expected, i);
      if (std::isnan(want) || std::isnan(got)) {
        equal = std::isnan(want) && std::isnan(got);
      } else if (std::isinf(want) || std::isinf(got)) {
        equal = got == want;
      } else {
        double difference = std::fabs(got - want);
        maxAbsolute = std::max(maxAbsolute, difference);
        if (want != 0)
          maxRelative = std::max(maxRelative, difference / std::fabs(want));
        equal = difference <= tolerance.absolute + tolerance.relative * std::fabs(want);
      }
    } else {
      equal = elementAsInteger(actual, i) == elementAsInteger(expected, i);
    }
    if (!equal && mismatches++ == 0)
      firstMismatch = i;
  }
  result.maxAbsoluteError = std::max(result.maxAbsoluteError, maxAbsolute);
  result.maxRelativeError = std::max(result.maxRelativeError, maxRelative);
  if (!mismatches)
    return std::nullopt;
  std::string message = what + ": " + std::to_string(mismatches) + " of " +
                        std::to_string(count) + " elements differ";
  if (floating)
    message += ", max abs error " + formatNumber(maxAbsolute) + ", max rel error " +
               formatNumber(maxRelative);
  message += " (element " + std::to_string(firstMismatch) + ": got " +
             formatNumber(elementAsDouble(actual, firstMismatch)) + ", expected " +
             formatNumber(elementAsDouble(expected, firstMismatch)) + ")";
  return message;
}

bool sameTensor(const HostTensor &a, const HostTensor &b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.data == b.data;
}

/// Finds the graph input the importer asks to bind to a value: its message
/// says "... 'NAME') must be a constant" or "... 'NAME' must be a constant".
std::optional<std::string> getInputToBind(const std::string &message) {
  size_t marker = message.find("must be a constant");
  if (marker == std::string::npos)
    return std::nullopt;
  size_t close = message.rfind('\'', marker);
  if (close == std::string::npos || close == 0)
    return std::nullopt;
  size_t open = message.rfind('\'', close - 1);
  if (open == std::string::npos)
    return std::nullopt;
  return message.substr(open + 1, close - open - 1);
}

/// One test's model, imported and compiled for one binding of inputs.
struct CompiledModel {
  std::map<std::string, HostTensor> boundValues;
  std::map<std::string, std::vector<int64_t>> shapes;
  std::vector<std::string> inputNames, outputNames;
  std::unique_ptr<Session> session;
};

class TestRunner {
public:
  TestRunner(const TestCase &test, const CompilerOptions &compiler, const std::string &device,
             TestResult &result)
      : test(test), compiler(compiler), device(device), result(result) {}

  void run();

private:
  /// Imports and compiles the model for `inputs` (by ONNX name), binding
  /// the inputs in `bound` and any the importer asks for; false on error
  /// (the result then says why).
  bool compile(const std::map<std::string, HostTensor> &inputs);
  bool runDataSet(const fs::path &dataSet);
  /// The element type the graph declares for its input or output `name`.
  int32_t getDeclaredType(const std::string &name) const {
    for (const auto *values : {&model.graph().input(), &model.graph().output()})
      for (const onnx::ValueInfoProto &value : *values)
        if (value.name() == name && value.type().has_tensor_type())
          return value.type().tensor_type().elem_type();
    return importer::kUndefined;
  }
  /// The graph inputs (not initializers) that value `name` is computed from.
  std::set<std::string> getGraphInputsOf(const std::string &name) const;
  void setUnsupported(const std::string &message) {
    result.outcome = Outcome::Unsupported;
    result.message = stripDirectory(message, test);
    result.reason = shorten(result.message);
  }

  const TestCase &test;
  const CompilerOptions &compiler;
  const std::string &device;
  TestResult &result;
  onnx::ModelProto model;
  std::vector<std::string> graphInputs; // graph inputs that are not initializers
  std::set<std::string> bound;          // graph inputs imported as constants
  std::optional<CompiledModel> compiled;
};

bool TestRunner::compile(const std::map<std::string, HostTensor> &inputs) {
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  // Tests run in parallel threads already.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  std::string path = (test.directory / "model.onnx").string();
  for (;;) {
    importer::ImportOptions options;
    for (const auto &[name, value] : inputs) {
      if (bound.count(name))
        options.inputValues[name] = value;
      else
        options.inputShapes[name] = value.shape;
    }
    llvm::Expected<importer::ImportedModel> imported =
        importer::importONNXFile(path, context, options);
    if (!imported) {
      std::string message = llvm::toString(imported.takeError());
      std::set<std::string> toBind;
      if (std::optional<std::string> name = getInputToBind(message))
        for (const std::string &input : getGraphInputsOf(*name))
          if (!bound.count(input) && inputs.count(input))
            toBind.insert(input);
      if (!toBind.empty()) {
        bound.insert(toBind.begin(), toBind.end());
        continue;
      }
      setUnsupported("import: " + message);
      return false;
    }

    CompiledModel model;
    for (const auto &[name, value] : inputs) {
      if (bound.count(name))
        model.boundValues[name] = value;
      else
        model.shapes[name] = value.shape;
    }
    model.inputNames = imported->inputNames;
    model.outputNames = imported->outputNames;

    SessionOptions sessionOptions;
    sessionOptions.modelPath = test.getId();
    sessionOptions.device = device;
    sessionOptions.compiler = compiler;
    std::string bytecode;
    llvm::raw_string_ostream os(bytecode);
    if (mlir::failed(mlir::writeBytecodeToFile(imported->module.get(), os))) {
      setUnsupported("import: cannot write the imported IR as bytecode");
      return false;
    }
    const auto *begin = reinterpret_cast<const std::byte *>(bytecode.data());
    sessionOptions.modelData.assign(begin, begin + bytecode.size());
    if (!imported->weights.empty()) {
      Result<std::vector<std::byte>> weights = serializeSafetensors(imported->weights);
      if (!weights) {
        setUnsupported("import: " + weights.error().message);
        return false;
      }
      sessionOptions.weightsData = std::move(*weights);
    }
    Result<std::unique_ptr<Session>> session = Session::create(sessionOptions);
    if (!session) {
      setUnsupported("compile: " + session.error().message);
      return false;
    }
    model.session = std::move(*session);
    compiled = std::move(model);
    return true;
  }
}

std::set<std::string> TestRunner::getGraphInputsOf(const std::string &name) const {
  std::map<std::string, const onnx::NodeProto *> producers;
  for (const onnx::NodeProto &node : model.graph().node())
    for (const std::string &output : node.output())
      producers[output] = &node;
  std::set<std::string> inputs, visited;
  std::vector<std::string> pending = {name};
  while (!pending.empty()) {
    std::string value = std::move(pending.back());
    pending.pop_back();
    if (value.empty() || !visited.insert(value).second)
      continue;
    if (std::find(graphInputs.begin(), graphInputs.end(), value) != graphInputs.end())
      inputs.insert(value);
    else if (auto it = producers.find(value); it != producers.end())
      pending.insert(pending.end(), it->second->input().begin(), it->second->input().end());
  }
  return inputs;
}

bool TestRunner::runDataSet(const fs::path &dataSet) {
  std::string setName = dataSet.filename().string();
  std::vector<fs::path> inputFiles = listNumberedFiles(dataSet, "input");
  std::vector<fs::path> outputFiles = listNumberedFiles(dataSet, "output");
  if (inputFiles.size() > graphInputs.size()) {
    setUnsupported(setName + ": " + std::to_string(inputFiles.size()) +
                   " input files for a graph of " + std::to_string(graphInputs.size()) +
                   " inputs");
    return false;
  }
  // input_<k>.pb is the k-th graph input that is not an initializer.
  std::map<std::string, HostTensor> inputs;
  for (size_t k = 0; k < inputFiles.size(); ++k) {
    Result<HostTensor> tensor = readTensorFile(inputFiles[k], getDeclaredType(graphInputs[k]));
    if (!tensor) {
      setUnsupported(setName + ": " + tensor.error().message);
      return false;
    }
    inputs[graphInputs[k]] = std::move(*tensor);
  }
  std::vector<HostTensor> expected;
  for (size_t k = 0; k < outputFiles.size(); ++k) {
    const fs::path &file = outputFiles[k];
    Result<HostTensor> tensor = readTensorFile(
        file, static_cast<int>(k) < model.graph().output_size()
                  ? getDeclaredType(model.graph().output(static_cast<int>(k)).name())
                  : importer::kUndefined);
    if (!tensor) {
      setUnsupported(setName + ": " + tensor.error().message);
      return false;
    }
    expected.push_back(std::move(*tensor));
  }

  // Reuse the session while the bindings and shapes stay the same.
  bool reusable = compiled.has_value();
  for (const auto &[name, value] : inputs) {
    if (!reusable)
      break;
    if (bound.count(name)) {
      auto it = compiled->boundValues.find(name);
      reusable = it != compiled->boundValues.end() && sameTensor(it->second, value);
    } else {
      auto it = compiled->shapes.find(name);
      reusable = it != compiled->shapes.end() && it->second == value.shape;
    }
  }
  if (!reusable && !compile(inputs))
    return false;

  Session &session = *compiled->session;
  std::vector<HostTensor> arguments;
  for (size_t i = 0; i < compiled->inputNames.size(); ++i) {
    const std::string &name = compiled->inputNames[i];
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      setUnsupported(setName + ": no data for graph input '" + name + "'");
      return false;
    }
    const TensorInfo &info = session.getInputs()[i];
    if (it->second.dtype != info.dtype || it->second.shape != info.shape) {
      setUnsupported(setName + ": input '" + name + "' holds " +
                     std::string(getName(it->second.dtype)) + " " +
                     formatShape(it->second.shape) + ", but the compiled model takes " +
                     std::string(getName(info.dtype)) + " " + formatShape(info.shape));
      return false;
    }
    arguments.push_back(it->second);
  }
  Result<std::vector<HostTensor>> outputs = session.run(arguments);
  if (!outputs) {
    setUnsupported("run: " + outputs.error().message);
    return false;
  }

  // output_<k>.pb is the k-th graph output.
  const onnx::GraphProto &graph = model.graph();
  if (expected.size() != static_cast<size_t>(graph.output_size())) {
    setUnsupported(setName + ": " + std::to_string(expected.size()) +
                   " output files for a graph of " + std::to_string(graph.output_size()) +
                   " outputs");
    return false;
  }
  std::string mismatches;
  for (int k = 0; k < graph.output_size(); ++k) {
    const std::string &name = graph.output(k).name();
    auto position = std::find(compiled->outputNames.begin(), compiled->outputNames.end(), name);
    if (position == compiled->outputNames.end()) {
      setUnsupported("the imported model has no output '" + name + "'");
      return false;
    }
    const HostTensor &actual = (*outputs)[position - compiled->outputNames.begin()];
    std::string what = (result.numDataSets ? setName + " " : std::string()) + "output " +
                       std::to_string(k) + " '" + name + "'";
    if (std::optional<std::string> mismatch = compareOutput(
            actual, expected[k], what, getTolerance(compiler.precision), result))
      mismatches += (mismatches.empty() ? "" : "; ") + *mismatch;
  }
  ++result.numDataSets;
  if (!mismatches.empty()) {
    result.outcome = Outcome::Failed;
    result.message = mismatches;
    result.reason = shorten(mismatches);
    return false;
  }
  return true;
}

void TestRunner::run() {
  fs::path modelPath = test.directory / "model.onnx";
  {
    std::ifstream file(modelPath, std::ios::binary);
    if (!file || !model.ParseFromIstream(&file)) {
      setUnsupported("model.onnx: cannot read or parse the ModelProto");
      return;
    }
  }
  for (const onnx::NodeProto &node : model.graph().node())
    if (std::find(result.opTypes.begin(), result.opTypes.end(), node.op_type()) ==
        result.opTypes.end())
      result.opTypes.push_back(node.op_type());
  result.opUnderTest = getOpUnderTest(model, test.name);
  if (std::string reason = getOutOfScopeReason(model); !reason.empty()) {
    result.outcome = Outcome::OutOfScope;
    result.reason = reason;
    return;
  }

  std::set<std::string> initializers;
  for (const onnx::TensorProto &initializer : model.graph().initializer())
    initializers.insert(initializer.name());
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (!initializers.count(input.name()))
      graphInputs.push_back(input.name());

  std::vector<fs::path> dataSets = listDataSets(test.directory);
  if (dataSets.empty()) {
    setUnsupported("no test_data_set_* directory");
    return;
  }
  for (const fs::path &dataSet : dataSets)
    if (!runDataSet(dataSet))
      return;
  result.outcome = Outcome::Passed;
  result.reason.clear();
}

} // namespace

const char *getOutcomeName(Outcome outcome) {
  switch (outcome) {
  case Outcome::Passed: return "passed";
  case Outcome::Failed: return "failed";
  case Outcome::Unsupported: return "unsupported";
  case Outcome::OutOfScope: return "out of scope";
  }
  return "?";
}

Tolerance getTolerance(CompilerOptions::Precision precision) {
  switch (precision) {
  case CompilerOptions::Precision::Float32:
    return {};
  case CompilerOptions::Precision::Float16:
    return {1e-2, 1e-3};
  case CompilerOptions::Precision::BFloat16:
    return {5e-2, 1e-2};
  }
  return {};
}

const char *getPrecisionName(CompilerOptions::Precision precision) {
  switch (precision) {
  case CompilerOptions::Precision::Float32: return "float32";
  case CompilerOptions::Precision::Float16: return "float16";
  case CompilerOptions::Precision::BFloat16: return "bfloat16";
  }
  return "?";
}

TestResult runTest(const TestCase &test, const CompilerOptions &compiler,
                   const std::string &device) {
  auto start = std::chrono::steady_clock::now();
  TestResult result;
  result.test = test;
  TestRunner(test, compiler, device, result).run();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace cgc::conformance
