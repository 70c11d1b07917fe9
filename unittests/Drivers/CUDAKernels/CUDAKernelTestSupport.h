//===- CUDAKernelTestSupport.h - harness of the CUDA kernel tests -*- C++ -*-===//
//
// Every CUDA kernel is checked against the CPU driver's kernel of the same
// op: a case names the op, its operands (shape, element type, value range)
// and attributes; the harness parses the op (result types inferred by the
// op itself), builds both kernels, runs them on the same random data and
// compares the results (floating-point within a tolerance, everything else
// exactly). Without a CUDA device those comparisons skip; the same cases
// still build against a compile-only kernel context, which compiles every
// generated kernel with NVRTC.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_UNITTESTS_DRIVERS_CUDAKERNELS_CUDAKERNELTESTSUPPORT_H
#define CGC_UNITTESTS_DRIVERS_CUDAKERNELS_CUDAKERNELTESTSUPPORT_H

#include "drivers/cuda/Kernels.h"
#include "drivers/cuda/kernels/KernelContextImpl.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/IR/OwningOpRef.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cgc::cuda::test {

using Dims = std::vector<int64_t>;

/// Sets environment variable `name` to `value` (unsets it for
/// std::nullopt) for a scope, then restores what it was: the drivers read
/// their CGC_CUDA_* choices from the environment.
class ScopedEnvironment {
public:
  ScopedEnvironment(const char *name, std::optional<std::string> value);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
  const char *name;
  std::optional<std::string> saved;
};

/// The IR name of a DType ("float32", ...).
std::string dtypeName(DType dtype);
/// `!cgc.tensor<AxBx!cgc.T>`.
std::string tensorType(const Dims &shape, DType dtype);
/// `[a, b, ...]`: an IR integer list.
std::string listText(const Dims &values);

/// Dense host data of one tensor; elements read as double.
struct HostTensor {
  DType dtype = DType::F32;
  Dims shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(DType dtype, Dims shape);
  int64_t size() const;
  double get(int64_t index) const;
  void set(int64_t index, double value);
};

/// One operand of a case: uniform random values in [low, high] (integers:
/// whole numbers; bool: either), or `values` (repeated to fill the tensor).
struct OperandSpec {
  Dims shape;
  DType dtype = DType::F32;
  double low = -2.0, high = 2.0;
  std::vector<double> values;
};

inline OperandSpec tensor(Dims shape, DType dtype, double low = -2.0, double high = 2.0) {
  return OperandSpec{std::move(shape), dtype, low, high, {}};
}
inline OperandSpec values(Dims shape, DType dtype, std::vector<double> values) {
  return OperandSpec{std::move(shape), dtype, 0.0, 0.0, std::move(values)};
}

/// |cuda - cpu| <= atol + rtol * |cpu| for floating-point results.
struct Tolerance {
  double rtol = 1e-5, atol = 1e-6;
};

/// The stated tolerances: elementwise float32 1e-5 relative, reductions
/// (matmul, convolution) 1e-4, float16/bfloat16 1e-2; float64 tight.
Tolerance elementwiseTolerance(DType dtype);
Tolerance reductionTolerance(DType dtype);

/// One op to check.
struct OpCase {
  std::string op;
  std::vector<OperandSpec> operands;
  std::string attributes;
  Tolerance tolerance;
  unsigned results = 1;
  std::string describe() const;
};

/// Whether a CUDA device is present.
bool hasCudaDevice();

/// The fixture: an MLIR context with the CGC dialects, and helpers that
/// parse, build, run and compare.
class CUDAKernelTest : public ::testing::Test {
public:
  CUDAKernelTest();

  /// `case.op` parsed inside an entry point, result types inferred and the
  /// op verified; owned by the fixture. Null (with a test failure) if not.
  mlir::Operation *buildOp(const OpCase &opCase);
  /// Random inputs of `opCase`.
  std::vector<HostTensor> makeInputs(const OpCase &opCase);
  /// Runs the CPU reference kernel of `op`.
  std::vector<HostTensor> runCpu(mlir::Operation *op, const std::vector<HostTensor> &inputs);
  /// Builds (with the shared device context) and runs the CUDA kernel of
  /// `op`; with `capture`, the launch is captured into a CUDA graph first
  /// and the graph replayed.
  std::vector<HostTensor> runCuda(mlir::Operation *op, const std::vector<HostTensor> &inputs,
                                  bool capture = false);
  /// Builds and runs both kernels and expects equal results.
  void expectMatchesCpu(const OpCase &opCase);
  /// Builds `opCase` with the compile-only context: generated kernels must
  /// compile; the library-backed families may stop at needing a device.
  void expectCompiles(const OpCase &opCase);

  /// The shared context of device 0 (created once per process).
  static KernelContext *getDeviceContext();
  /// The shared compile-only context (sm_90).
  static KernelContext::Impl &getCompileOnlyContext();

  mlir::MLIRContext context;
  std::vector<mlir::OwningOpRef<mlir::Operation *>> modules;
  std::mt19937 rng{20250611};
};

/// Poisoned host tensors of `types` (cgc tensor types).
std::vector<HostTensor> makeOutputs(mlir::TypeRange types);
/// Runs a built CUDA kernel on device copies of `inputs`, writing `outputs`
/// (their shapes and types given); with `capture`, through a CUDA graph.
std::vector<HostTensor> launchOnCuda(const Kernel &kernel, const std::vector<HostTensor> &inputs,
                                     std::vector<HostTensor> outputs, bool capture = false);

/// launchOnCuda on device copies of `inputs` and `outputs` that each start
/// one element past a 256-byte boundary, so that no buffer is aligned for
/// vectors of two or more elements (kernels with a vector build must fall
/// back to their narrow one). No graph capture; no workspace.
std::vector<HostTensor> launchMisaligned(const Kernel &kernel,
                                         const std::vector<HostTensor> &inputs,
                                         std::vector<HostTensor> outputs);

/// Expects `actual` (CUDA) to match `expected` (CPU).
void expectClose(const HostTensor &actual, const HostTensor &expected, Tolerance tolerance,
                 const std::string &what);

/// Skips the test without a CUDA device.
#define CGC_REQUIRE_CUDA_DEVICE()                                                                  \
  do {                                                                                             \
    if (!::cgc::cuda::test::hasCudaDevice())                                                       \
      GTEST_SKIP() << "no CUDA device";                                                            \
  } while (false)

/// Defines two tests running every case of `cases()`: `<Name>MatchesCpu`
/// compares with the CPU kernels on a device (skipped without one),
/// `<Name>Compiles` builds with the compile-only context.
#define CGC_CUDA_KERNEL_CASES(Fixture, Name, cases)                                                \
  TEST_F(Fixture, Name##MatchesCpu) {                                                              \
    CGC_REQUIRE_CUDA_DEVICE();                                                                     \
    for (const ::cgc::cuda::test::OpCase &opCase : cases())                                        \
      expectMatchesCpu(opCase);                                                                    \
  }                                                                                                \
  TEST_F(Fixture, Name##Compiles) {                                                                \
    for (const ::cgc::cuda::test::OpCase &opCase : cases())                                        \
      expectCompiles(opCase);                                                                      \
  }

} // namespace cgc::cuda::test

#endif // CGC_UNITTESTS_DRIVERS_CUDAKERNELS_CUDAKERNELTESTSUPPORT_H
