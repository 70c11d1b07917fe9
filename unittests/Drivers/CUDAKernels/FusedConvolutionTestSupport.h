//===- FusedConvolutionTestSupport.h - both paths of a fused convolution -*- C++ -*-===//
//
// The fused convolution runs as one cuDNN graph or as cuDNN's convolution
// and a generated epilogue. The channels-first and channels-last tests force
// each path on every case against the same reference.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDCONVOLUTIONTESTSUPPORT_H
#define CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDCONVOLUTIONTESTSUPPORT_H

#include "FusedTestSupport.h"

namespace cgc::cuda::test {

class FusedConvolutionPathsTest : public FusedKernelTest {
public:
  /// Builds `definitionCase` down each path forced and expects each,
  /// launched directly and through graph capture, to match the reference.
  /// The epilogue path must run every case; the cuDNN graph may have no
  /// plan for it (reported). Counts the case in `graphCases` when the graph
  /// ran it. Needs a device.
  void expectBothPathsMatchCpu(const DefinitionCase &definitionCase, unsigned &graphCases);
};

} // namespace cgc::cuda::test

#endif // CGC_UNITTESTS_DRIVERS_CUDAKERNELS_FUSEDCONVOLUTIONTESTSUPPORT_H
