//===- run_model.cpp - a model through the OpenCGC runtime's C++ Session --===//
//
// Loads model.mlir (Input IR: y = relu(a · b)), which the Session compiles for
// the CPU device with its driver's patterns, runs it on two inputs, and checks
// the output against the same product computed here in double precision.
//
//   run_model model.mlir
//
// Exits with 0 when the output matches, 1 otherwise.
//
//===----------------------------------------------------------------------===//

#include "cgc/Runtime/Session.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace cgc::runtime;

namespace {

constexpr int64_t kRows = 2, kInner = 3, kColumns = 4;

/// Deterministic test values in [-1, 1].
std::vector<float> makeValues(size_t count, unsigned multiplier, unsigned modulus) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = static_cast<float>(static_cast<int>((i * multiplier + 1) % modulus) -
                                   static_cast<int>(modulus / 2)) /
                static_cast<float>(modulus / 2);
  return values;
}

void printTensors(const char *kind, const std::vector<TensorInfo> &tensors) {
  for (const TensorInfo &tensor : tensors)
    std::printf("%s %s %s %s\n", kind, tensor.name.c_str(), std::string(getName(tensor.dtype)).c_str(),
                formatShape(tensor.shape).c_str());
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL.mlir\n", argv[0]);
    return 1;
  }
  SessionOptions options;
  options.modelPath = argv[1];
  options.device = "cpu";
  Result<std::unique_ptr<Session>> created = Session::create(options);
  if (!created) {
    std::fprintf(stderr, "run_model: %s\n", created.error().message.c_str());
    return 1;
  }
  Session &session = **created;
  const SessionStats &stats = session.getStats();
  std::printf("device %s (driver '%s'): %u partition(s), %u dispatch(es)\n",
              stats.adapterName.c_str(), stats.driverName.c_str(), stats.compile.numPartitions,
              stats.numDispatches);
  printTensors("input ", session.getInputs());
  printTensors("output", session.getOutputs());

  std::vector<float> a = makeValues(kRows * kInner, 5, 7);
  std::vector<float> b = makeValues(kInner * kColumns, 3, 5);
  std::vector<HostTensor> inputs;
  inputs.push_back(HostTensor::fromValues(DType::Float32, {kRows, kInner}, std::span<const float>(a)));
  inputs.push_back(
      HostTensor::fromValues(DType::Float32, {kInner, kColumns}, std::span<const float>(b)));
  Result<std::vector<HostTensor>> outputs = session.run(inputs);
  if (!outputs) {
    std::fprintf(stderr, "run_model: %s\n", outputs.error().message.c_str());
    return 1;
  }
  if (outputs->size() != 1 || (*outputs)[0].dtype != DType::Float32 ||
      (*outputs)[0].shape != std::vector<int64_t>{kRows, kColumns}) {
    std::fprintf(stderr, "run_model: expected one float32 %lldx%lld output\n",
                 static_cast<long long>(kRows), static_cast<long long>(kColumns));
    return 1;
  }

  // The reference, and the comparison: 3-term float32 dot products are within
  // a few ulps of it.
  std::span<const float> y = (*outputs)[0].as<float>();
  const double tolerance = 1e-6;
  unsigned mismatches = 0, positive = 0;
  for (int64_t row = 0; row < kRows; ++row)
    for (int64_t column = 0; column < kColumns; ++column) {
      double sum = 0;
      for (int64_t k = 0; k < kInner; ++k)
        sum += static_cast<double>(a[row * kInner + k]) * b[k * kColumns + column];
      double expected = sum > 0 ? sum : 0;
      positive += expected > 0;
      float got = y[row * kColumns + column];
      if (!(std::fabs(got - expected) <= tolerance * (1 + std::fabs(expected)))) {
        std::fprintf(stderr, "run_model: y[%lld][%lld] is %.9g, expected %.9g\n",
                     static_cast<long long>(row), static_cast<long long>(column), got, expected);
        ++mismatches;
      }
    }
  if (mismatches || positive == 0) {
    std::fprintf(stderr, "run_model: %u mismatch(es), %u positive value(s) in the reference\n",
                 mismatches, positive);
    return 1;
  }
  std::printf("run_model: ok (%u of %lld values positive)\n", positive,
              static_cast<long long>(kRows * kColumns));
  return 0;
}
