//===- MlirExchange.cpp - a driver's answers in the MLIR exchange ---------===//

#include "MlirExchange.h"
#include "IRContext.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <optional>

using namespace mlir;

namespace cgc::drivers {

namespace {

using interchange::Interface;

CompileFailure invalid(std::string message) {
  return {CGC_ERROR_INVALID_ARGUMENT, std::move(message)};
}

std::span<const uint8_t> getInput(const CgcFeatureDataMlirExchange &exchange) {
  return std::span(static_cast<const uint8_t *>(exchange.inputData),
                   exchange.inputDataSizeInBytes);
}

/// The patterns of every file of `target`, merged into one cgc.module that
/// carries the target's preferred layout.
CompileFailure declarePatterns(const CgcFeatureDataMlirExchange &exchange,
                               const FusedTarget &target, std::string &reply) {
  IRContext context;
  if (exchange.inputData) {
    Interface interface;
    OwningOpRef<Operation *> request =
        context.readContainer(getInput(exchange), "declaration request", interface);
    if (!request)
      return invalid("cannot read the declaration request: " + context.takeDiagnostics());
    if (interface != Interface::SubgraphDeclarationRequest)
      return invalid("a declaration request carries no data or a "
                     "CGC_SUBGRAPH_DECLARATION_REQUEST container, got " +
                     std::string(interchange::getInterfaceName(interface)));
  }
  std::string driver = std::string("the ") + target.driverName + " driver's ";
  ParserConfig config(&context.get());
  OwningOpRef<Operation *> merged;
  for (const PatternSource &file : target.patterns) {
    Block block;
    if (failed(parseSourceString(file.text, &block, config, file.name)) ||
        !llvm::hasSingleElement(block))
      return {CGC_ERROR_INTERNAL,
              driver + file.name + " does not parse: " + context.takeDiagnostics()};
    Operation *module = &block.front();
    if (!merged) {
      module->remove();
      merged = OwningOpRef<Operation *>(module);
      continue;
    }
    Block &into = merged.get()->getRegion(0).front();
    into.getOperations().splice(into.end(), module->getRegion(0).front().getOperations());
  }
  if (!merged)
    return {CGC_ERROR_INTERNAL, driver + "patterns are missing"};
  if (target.preferredLayout)
    merged.get()->setAttr(kPreferredLayoutAttrName,
                          StringAttr::get(&context.get(), target.preferredLayout));
  llvm::raw_string_ostream os(reply);
  if (failed(interchange::writeContainer(*merged, Interface::SubgraphDeclaration, os)))
    return {CGC_ERROR_INTERNAL, "cannot write " + driver + "patterns: " + context.takeDiagnostics()};
  return {};
}

/// The requested subgraphs `target` accepts.
CompileFailure specializeSubgraphs(const CgcFeatureDataMlirExchange &exchange,
                                   const FusedTarget &target, std::string &reply) {
  IRContext context;
  Interface interface;
  OwningOpRef<Operation *> request =
      context.readContainer(getInput(exchange), "specialization request", interface);
  if (!request)
    return invalid("cannot read the specialization request: " + context.takeDiagnostics());
  if (interface != Interface::SubgraphSpecializationRequest)
    return invalid("a specialization request must be a "
                   "CGC_SUBGRAPH_SPECIALIZATION_REQUEST container, got " +
                   std::string(interchange::getInterfaceName(interface)));

  OpBuilder builder(&context.get());
  OwningOpRef<ModuleOp> answer = ModuleOp::create(builder, builder.getUnknownLoc());
  builder.setInsertionPointToEnd(answer->getBodyBlock());
  for (SubgraphOp subgraph : cast<ModuleOp>(*request).getBodyBlock()->getOps<SubgraphOp>())
    if (target.accepts(subgraph))
      builder.clone(*subgraph.getOperation());
  llvm::raw_string_ostream os(reply);
  if (failed(interchange::writeContainer(*answer, Interface::SubgraphSpecialization, os)))
    return {CGC_ERROR_INTERNAL, "cannot write the specialization: " + context.takeDiagnostics()};
  return {};
}

} // namespace

bool isExchangeInterfaceSupported(Interface interface) {
  switch (interface) {
  case Interface::SubgraphPartition:
  case Interface::SubgraphDeclarationRequest:
  case Interface::SubgraphDeclaration:
  case Interface::SubgraphSpecializationRequest:
  case Interface::SubgraphSpecialization:
    return true;
  case Interface::Input:
  case Interface::Output:
    break;
  }
  return false;
}

CompileFailure exchangeMlir(CgcFeatureDataMlirExchange &exchange, const FusedTarget &target) {
  std::optional<Interface> interface = interchange::lookupInterface(exchange.mlirInterface);
  if (!interface)
    return {CGC_ERROR_UNSUPPORTED,
            "unknown MLIR interface " + interchange::formatGuid(exchange.mlirInterface)};
  if (!exchange.outputDataSizeInBytes)
    return invalid("an MLIR exchange needs outputDataSizeInBytes");
  std::string reply;
  CompileFailure failure;
  switch (*interface) {
  case Interface::SubgraphSpecializationRequest:
    if (!exchange.inputData || exchange.inputDataSizeInBytes == 0)
      return invalid("a specialization request needs input data: a container of "
                     "cgc.subgraph ops");
    failure = specializeSubgraphs(exchange, target, reply);
    break;
  case Interface::SubgraphDeclarationRequest:
    failure = declarePatterns(exchange, target, reply);
    break;
  default:
    return {CGC_ERROR_UNSUPPORTED, std::string(interchange::getInterfaceName(*interface)) +
                                       " is not an exchange request the " + target.driverName +
                                       " driver answers"};
  }
  if (failure.status != CGC_OK)
    return failure;

  // Two-call size protocol: without a buffer, say how large the reply is;
  // with one, *outputDataSizeInBytes is its capacity.
  if (exchange.outputData) {
    if (*exchange.outputDataSizeInBytes < reply.size()) {
      size_t capacity = *exchange.outputDataSizeInBytes;
      *exchange.outputDataSizeInBytes = reply.size();
      return invalid("the reply takes " + std::to_string(reply.size()) +
                     " bytes but the output buffer holds " + std::to_string(capacity));
    }
    std::memcpy(exchange.outputData, reply.data(), reply.size());
  }
  *exchange.outputDataSizeInBytes = reply.size();
  return {};
}

} // namespace cgc::drivers
