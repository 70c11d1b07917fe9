//===- FusedTestSupport.h - harness of the fused kernel tests ---*- C++ -*-===//
//
// A fused kernel (drivers/cuda/FusedKernels.h) runs a whole functional
// definition. A case gives the definition as MLIR text and its operands; the
// reference runs the definition layer by layer with the CPU driver's
// kernels, and the fused kernel must match it within the case's tolerance.
// Without a CUDA device the comparison skips, but the recognition
// (checkFusedKernel, which needs no GPU) is still checked.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDTESTSUPPORT_H
#define CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDTESTSUPPORT_H

#include "CUDAKernelTestSupport.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

namespace cgc::cuda {
struct FusedFamily;
} // namespace cgc::cuda

namespace cgc::cuda::test {

/// One definition to check.
struct DefinitionCase {
  /// The text of one `cgc.functional_definition private @name(%a: T, ...)
  /// -> T { ... cgc.return ... }`, types written out.
  std::string definition;
  /// One per definition argument, in order (shapes and types must agree).
  std::vector<OperandSpec> operands;
  Tolerance tolerance;
  std::string describe() const;
};

class FusedKernelTest : public CUDAKernelTest {
public:
  /// The parsed and verified definition (inside a cgc.subgraph of origin
  /// "cuda"), owned by the fixture; null with a test failure if invalid.
  FunctionalDefinitionOp buildDefinition(const DefinitionCase &definitionCase);
  /// The reference: each layer with the CPU driver's kernel.
  std::vector<HostTensor> runDefinitionOnCpu(FunctionalDefinitionOp definition,
                                             const std::vector<HostTensor> &inputs);
  /// A case with its reference run: the definition (null, with a test
  /// failure, when it is invalid; then nothing else), the inputs made from
  /// its operands and the reference's outputs for them.
  struct ReferenceRun {
    FunctionalDefinitionOp definition;
    std::vector<HostTensor> inputs, expected;
  };
  ReferenceRun runReference(const DefinitionCase &definitionCase);
  /// The fused kernel on the device (buildFusedKernel must recognize it).
  std::vector<HostTensor> runFusedOnCuda(FunctionalDefinitionOp definition,
                                         const std::vector<HostTensor> &inputs,
                                         bool capture = false);
  /// Expects checkFusedKernel to accept the definition, and on a device the
  /// fused kernel (launched directly and through graph capture) to match
  /// the reference.
  void expectFusedMatchesCpu(const DefinitionCase &definitionCase);
  /// Expects checkFusedKernel to accept the definition (no GPU needed).
  void expectFusedAccepted(const DefinitionCase &definitionCase);
  /// The definition is the fused family `family`'s (getFusedFamilyName).
  void expectFusedFamily(const DefinitionCase &definitionCase, const std::string &family);
  /// Expects no fused kernel for the definition: checkFusedKernel answers
  /// std::nullopt, or an error containing `message` when it is not empty.
  void expectFusedRejected(const DefinitionCase &definitionCase, const std::string &message = "");
  /// Expects `family` to build the definition on the compile-only context:
  /// its generated source must compile (no GPU needed).
  void expectFamilyCompiles(const FusedFamily &family, const DefinitionCase &definitionCase);
};

/// Defines `<Name>MatchesCpu` (every case against the reference; skipped
/// without a device) and `<Name>Accepted` (every case recognized; runs
/// anywhere).
#define CGC_FUSED_KERNEL_CASES(Fixture, Name, cases)                                               \
  TEST_F(Fixture, Name##MatchesCpu) {                                                              \
    CGC_REQUIRE_CUDA_DEVICE();                                                                     \
    for (const ::cgc::cuda::test::DefinitionCase &definitionCase : cases())                        \
      expectFusedMatchesCpu(definitionCase);                                                       \
  }                                                                                                \
  TEST_F(Fixture, Name##Accepted) {                                                                \
    for (const ::cgc::cuda::test::DefinitionCase &definitionCase : cases())                        \
      expectFusedAccepted(definitionCase);                                                         \
  }

} // namespace cgc::cuda::test

#endif // CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDTESTSUPPORT_H
