//===- FusedConvolutionTestSupport.cpp - both paths of a fused convolution ===//

#include "FusedConvolutionTestSupport.h"

#include "drivers/cuda/kernels/FusedConvolution.h"

#include <iostream>

namespace cgc::cuda::test {

void FusedConvolutionPathsTest::expectBothPathsMatchCpu(const DefinitionCase &definitionCase,
                                                        unsigned &graphCases) {
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  SCOPED_TRACE(definitionCase.describe());
  FunctionalDefinitionOp definition = buildDefinition(definitionCase);
  ASSERT_TRUE(definition);
  OpCase operands;
  operands.operands = definitionCase.operands;
  std::vector<HostTensor> inputs = makeInputs(operands);
  std::vector<HostTensor> expected = runDefinitionOnCpu(definition, inputs);
  ASSERT_EQ(expected.size(), 1u);
  for (FusedConvolutionPath path :
       {FusedConvolutionPath::CudnnGraph, FusedConvolutionPath::ConvolutionThenEpilogue}) {
    llvm::Expected<FusedConvolutionKernel> fused =
        buildFusedConvolution(definition, kernelContext->getImpl(), path);
    if (!fused) {
      std::string message = llvm::toString(fused.takeError());
      if (path == FusedConvolutionPath::CudnnGraph &&
          message.find("the cuDNN graph does not run this definition") != std::string::npos) {
        std::cout << definitionCase.describe() << ": " << message << "\n";
        continue;
      }
      ADD_FAILURE() << getFusedConvolutionPathName(path) << ": " << message;
      continue;
    }
    EXPECT_EQ(fused->path, path);
    graphCases += path == FusedConvolutionPath::CudnnGraph;
    for (bool capture : {false, true}) {
      std::vector<HostTensor> actual =
          launchOnCuda(fused->kernel, inputs, makeOutputs(definition.getResultTypes()), capture);
      ASSERT_EQ(actual.size(), 1u);
      expectClose(actual[0], expected[0], definitionCase.tolerance,
                  std::string(getFusedConvolutionPathName(path)) +
                      (capture ? " (captured)" : ""));
    }
  }
}

} // namespace cgc::cuda::test
