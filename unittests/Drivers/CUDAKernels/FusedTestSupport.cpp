//===- FusedTestSupport.cpp - harness of the fused kernel tests -----------===//

#include "FusedTestSupport.h"

#include "drivers/cpu/Kernels.h"
#include "drivers/cuda/FusedKernels.h"
#include "drivers/cuda/kernels/FusedSupport.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"

namespace cgc::cuda::test {

std::string DefinitionCase::describe() const {
  std::string head = definition.substr(0, definition.find('('));
  return head;
}

FunctionalDefinitionOp FusedKernelTest::buildDefinition(const DefinitionCase &definitionCase) {
  std::string text = "cgc.module {\n  cgc.subgraph @fused attributes {origin = \"cuda\"} {\n" +
                     definitionCase.definition + "\n  }\n}\n";
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::Operation *> module = mlir::parseSourceString(text, config);
  if (!module) {
    ADD_FAILURE() << "cannot parse:\n" << text;
    return nullptr;
  }
  FunctionalDefinitionOp found;
  module->walk([&](FunctionalDefinitionOp definition) { found = definition; });
  modules.push_back(std::move(module));
  if (!found)
    ADD_FAILURE() << "no cgc.functional_definition in:\n" << text;
  else if (found.getNumArguments() != definitionCase.operands.size())
    ADD_FAILURE() << definitionCase.describe() << ": " << found.getNumArguments()
                  << " arguments but " << definitionCase.operands.size() << " operands";
  return found;
}

FusedKernelTest::ReferenceRun
FusedKernelTest::runReference(const DefinitionCase &definitionCase) {
  ReferenceRun run;
  run.definition = buildDefinition(definitionCase);
  if (!run.definition)
    return run;
  OpCase operands;
  operands.operands = definitionCase.operands;
  run.inputs = makeInputs(operands);
  run.expected = runDefinitionOnCpu(run.definition, run.inputs);
  return run;
}

std::vector<HostTensor> FusedKernelTest::runDefinitionOnCpu(FunctionalDefinitionOp definition,
                                                            const std::vector<HostTensor> &inputs) {
  llvm::DenseMap<mlir::Value, HostTensor> values;
  for (auto [argument, input] : llvm::zip(definition.getArguments(), inputs))
    values[argument] = input;
  mlir::Block &body = definition.getBody().front();
  for (mlir::Operation &op : body.without_terminator()) {
    std::vector<HostTensor> operands;
    for (mlir::Value operand : op.getOperands())
      operands.push_back(values.lookup(operand));
    std::vector<HostTensor> results = runCpu(&op, operands);
    if (results.size() != op.getNumResults())
      return {};
    for (auto [result, tensor] : llvm::zip(op.getResults(), results))
      values[result] = std::move(tensor);
  }
  std::vector<HostTensor> outputs;
  for (mlir::Value returned : body.getTerminator()->getOperands())
    outputs.push_back(values.lookup(returned));
  return outputs;
}

std::vector<HostTensor> FusedKernelTest::runFusedOnCuda(FunctionalDefinitionOp definition,
                                                        const std::vector<HostTensor> &inputs,
                                                        bool capture) {
  KernelContext *kernelContext = getDeviceContext();
  if (!kernelContext)
    return {};
  std::optional<llvm::Expected<Kernel>> kernel = buildFusedKernel(definition, *kernelContext);
  if (!kernel) {
    ADD_FAILURE() << "buildFusedKernel does not recognize @" << definition.getSymName().str();
    return {};
  }
  if (!*kernel) {
    ADD_FAILURE() << "buildFusedKernel failed: " << llvm::toString(kernel->takeError());
    return {};
  }
  return launchOnCuda(**kernel, inputs, makeOutputs(definition.getResultTypes()), capture);
}

void FusedKernelTest::expectFusedFamily(const DefinitionCase &definitionCase,
                                        const std::string &family) {
  SCOPED_TRACE(definitionCase.describe());
  FunctionalDefinitionOp definition = buildDefinition(definitionCase);
  ASSERT_TRUE(definition);
  EXPECT_EQ(getFusedFamilyName(definition).str(), family);
}

void FusedKernelTest::expectFusedAccepted(const DefinitionCase &definitionCase) {
  SCOPED_TRACE(definitionCase.describe());
  FunctionalDefinitionOp definition = buildDefinition(definitionCase);
  if (!definition)
    return;
  std::optional<llvm::Error> recognized = checkFusedKernel(definition);
  ASSERT_TRUE(recognized.has_value()) << "no fused kernel recognizes the definition";
  EXPECT_FALSE(static_cast<bool>(*recognized)) << llvm::toString(std::move(*recognized));
}

void FusedKernelTest::expectFamilyCompiles(const FusedFamily &family,
                                           const DefinitionCase &definitionCase) {
  SCOPED_TRACE(definitionCase.describe());
  FunctionalDefinitionOp definition = buildDefinition(definitionCase);
  if (!definition)
    return;
  std::optional<llvm::Expected<Kernel>> kernel = family.build(definition, getCompileOnlyContext());
  ASSERT_TRUE(kernel.has_value()) << "not a fused " << family.name << " definition";
  EXPECT_TRUE(static_cast<bool>(*kernel)) << llvm::toString(kernel->takeError());
}

void FusedKernelTest::expectFusedRejected(const DefinitionCase &definitionCase,
                                          const std::string &message) {
  SCOPED_TRACE(definitionCase.describe());
  FunctionalDefinitionOp definition = buildDefinition(definitionCase);
  if (!definition)
    return;
  std::optional<llvm::Error> recognized = checkFusedKernel(definition);
  if (!recognized)
    return;
  ASSERT_TRUE(static_cast<bool>(*recognized)) << "a fused kernel accepts the definition";
  std::string text = llvm::toString(std::move(*recognized));
  EXPECT_NE(text.find(message), std::string::npos) << text;
}

void FusedKernelTest::expectFusedMatchesCpu(const DefinitionCase &definitionCase) {
  SCOPED_TRACE(definitionCase.describe());
  auto [definition, inputs, expected] = runReference(definitionCase);
  if (!definition)
    return;
  std::optional<llvm::Error> recognized = checkFusedKernel(definition);
  ASSERT_TRUE(recognized.has_value()) << "no fused kernel recognizes the definition";
  ASSERT_FALSE(static_cast<bool>(*recognized)) << llvm::toString(std::move(*recognized));
  for (bool capture : {false, true}) {
    std::vector<HostTensor> actual = runFusedOnCuda(definition, inputs, capture);
    if (expected.empty() || actual.empty())
      return;
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t index = 0; index < actual.size(); ++index)
      expectClose(actual[index], expected[index], definitionCase.tolerance,
                  definitionCase.describe() + (capture ? " (captured)" : "") + " result " +
                      std::to_string(index));
  }
}

} // namespace cgc::cuda::test
