//===- Caps.cpp - feature support and MLIR exchanges of a CUDA device ------===//
//
// Programs tier 2.0: device-address bindings, and CPU-data bindings copied
// into device memory at record time. Interfaces: the driver compiles
// CGC_SUBGRAPH_PARTITION; answers declaration requests with the patterns of
// its fused target (patterns/*.mlir, embedded at build time, one file per
// fused kernel family); and answers specialization requests with the
// subgraphs a fused kernel implements whole (FusedKernels.h). A match it
// rejects goes, layer by layer, to the fallback target, whose one-layer
// subgraphs this driver compiles with the per-layer kernels.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "FusedKernels.h"
#include "IRContext.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Interchange/Container.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <optional>
#include <string>

using namespace mlir;

namespace cgc::cuda {

namespace {

using interchange::Interface;

/// The fused target's patterns, one cgc.module per kernel family: data kept
/// out of the code.
struct PatternFile {
  const char *name;
  llvm::StringLiteral text;
};
constexpr PatternFile kPatternFiles[] = {
    {"patterns/convolution.mlir",
#include "convolution.mlir.inc"
    },
    {"patterns/matmul.mlir",
#include "matmul.mlir.inc"
    },
    {"patterns/attention.mlir",
#include "attention.mlir.inc"
    },
    {"patterns/normalization.mlir",
#include "normalization.mlir.inc"
    },
    {"patterns/elementwise.mlir",
#include "elementwise.mlir.inc"
    },
};

bool isInterfaceSupported(Interface interface) {
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

/// Answers a CGC_SUBGRAPH_DECLARATION_REQUEST: every family's patterns in
/// one cgc.module, sealed as a CGC_SUBGRAPH_DECLARATION container. The
/// spec's request has no input data; a request container, when given, must
/// be one (an empty module).
CgcStatus declarePatterns(Device &device, const CgcFeatureDataMlirExchange &exchange,
                          std::string &reply) {
  drivers::IRContext context;
  if (exchange.inputData) {
    Interface interface;
    OwningOpRef<Operation *> request = context.readContainer(
        std::span(static_cast<const uint8_t *>(exchange.inputData),
                  exchange.inputDataSizeInBytes),
        "declaration request", interface);
    if (!request)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "cannot read the declaration request: " + context.takeDiagnostics());
    if (interface != Interface::SubgraphDeclarationRequest)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "a declaration request carries no data or a "
                         "CGC_SUBGRAPH_DECLARATION_REQUEST container, got " +
                             std::string(interchange::getInterfaceName(interface)));
  }
  ParserConfig config(&context.get());
  OwningOpRef<Operation *> merged;
  for (const PatternFile &file : kPatternFiles) {
    Block block;
    if (failed(parseSourceString(file.text, &block, config, file.name)) ||
        !llvm::hasSingleElement(block))
      return device.fail(CGC_ERROR_INTERNAL, std::string("the CUDA driver's ") + file.name +
                                                 " does not parse: " +
                                                 context.takeDiagnostics());
    Operation *module = &block.front();
    if (!merged) {
      module->remove();
      merged = OwningOpRef<Operation *>(module);
      continue;
    }
    Block &into = merged.get()->getRegion(0).front();
    Block &from = module->getRegion(0).front();
    into.getOperations().splice(into.end(), from.getOperations());
  }
  llvm::raw_string_ostream os(reply);
  if (failed(interchange::writeContainer(*merged, Interface::SubgraphDeclaration, os)))
    return device.fail(CGC_ERROR_INTERNAL, "cannot write the CUDA driver's patterns: " +
                                               context.takeDiagnostics());
  return CGC_OK;
}

/// Answers a CGC_SUBGRAPH_SPECIALIZATION_REQUEST: a CGC_SUBGRAPH_SPECIALIZATION
/// container holding the requested subgraphs one fused kernel implements
/// whole (checked without a GPU). Accepting a subgraph the driver would run
/// layer by layer would gain nothing over the fallback target and would hide
/// from the compiler that a pattern promised more than its kernel does.
CgcStatus specializeSubgraphs(Device &device, const CgcFeatureDataMlirExchange &exchange,
                              std::string &reply) {
  drivers::IRContext context;
  Interface interface;
  OwningOpRef<Operation *> request = context.readContainer(
      std::span(static_cast<const uint8_t *>(exchange.inputData), exchange.inputDataSizeInBytes),
      "specialization request", interface);
  if (!request)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "cannot read the specialization request: " + context.takeDiagnostics());
  if (interface != Interface::SubgraphSpecializationRequest)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "a specialization request must be a "
                       "CGC_SUBGRAPH_SPECIALIZATION_REQUEST container, got " +
                           std::string(interchange::getInterfaceName(interface)));

  OpBuilder builder(&context.get());
  OwningOpRef<ModuleOp> answer = ModuleOp::create(builder, builder.getUnknownLoc());
  builder.setInsertionPointToEnd(answer->getBodyBlock());
  for (SubgraphOp subgraph : cast<ModuleOp>(*request).getBodyBlock()->getOps<SubgraphOp>()) {
    FunctionalDefinitionOp definition = subgraph.getDefinition();
    if (!definition || definition.getBody().empty())
      continue;
    std::optional<llvm::Error> fused = checkFusedKernel(definition);
    if (!fused)
      continue;
    if (*fused) {
      llvm::consumeError(std::move(*fused));
      continue;
    }
    builder.clone(*subgraph.getOperation());
  }
  llvm::raw_string_ostream os(reply);
  if (failed(interchange::writeContainer(*answer, Interface::SubgraphSpecialization, os)))
    return device.fail(CGC_ERROR_INTERNAL,
                       "cannot write the specialization: " + context.takeDiagnostics());
  return CGC_OK;
}

CgcStatus exchangeMlir(Device &device, CgcFeatureDataMlirExchange &exchange) {
  std::optional<Interface> interface = interchange::lookupInterface(exchange.mlirInterface);
  if (!interface)
    return device.fail(CGC_ERROR_UNSUPPORTED,
                       "unknown MLIR interface " + interchange::formatGuid(exchange.mlirInterface));
  if (!exchange.outputDataSizeInBytes)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "an MLIR exchange needs outputDataSizeInBytes");
  std::string reply;
  switch (*interface) {
  case Interface::SubgraphSpecializationRequest:
    if (!exchange.inputData || exchange.inputDataSizeInBytes == 0)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "a specialization request needs input data");
    if (CgcStatus status = specializeSubgraphs(device, exchange, reply))
      return status;
    break;
  case Interface::SubgraphDeclarationRequest:
    if (CgcStatus status = declarePatterns(device, exchange, reply))
      return status;
    break;
  default:
    return device.fail(CGC_ERROR_UNSUPPORTED,
                       std::string(interchange::getInterfaceName(*interface)) +
                           " is not an exchange request the CUDA driver answers");
  }

  // Two-call size protocol: without a buffer, say how large the reply is;
  // with one, *outputDataSizeInBytes is its capacity.
  if (exchange.outputData) {
    if (*exchange.outputDataSizeInBytes < reply.size()) {
      size_t capacity = *exchange.outputDataSizeInBytes;
      *exchange.outputDataSizeInBytes = reply.size();
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "the reply takes " + std::to_string(reply.size()) +
                             " bytes but the output buffer holds " + std::to_string(capacity));
    }
    std::memcpy(exchange.outputData, reply.data(), reply.size());
  }
  *exchange.outputDataSizeInBytes = reply.size();
  return CGC_OK;
}

} // namespace

CgcStatus Device::getCaps(CgcFeature feature, void *data, size_t dataSize) {
  switch (feature) {
  case CGC_FEATURE_OPTIONS_MLIR: {
    if (dataSize < sizeof(CgcFeatureDataOptionsMlir))
      break;
    static_cast<CgcFeatureDataOptionsMlir *>(data)->mlirProgramsTier = CGC_MLIR_PROGRAMS_TIER_2_0;
    return CGC_OK;
  }
  case CGC_FEATURE_MLIR_INTERFACE_SUPPORT: {
    if (dataSize < sizeof(CgcFeatureDataMlirInterfaceSupport))
      break;
    auto &support = *static_cast<CgcFeatureDataMlirInterfaceSupport *>(data);
    for (uint32_t i = 0; i < support.numMlirInterfaces; ++i) {
      std::optional<Interface> interface =
          interchange::lookupInterface(support.mlirInterfacesRequested[i]);
      support.mlirInterfacesSupported[i] = interface && isInterfaceSupported(*interface);
    }
    return CGC_OK;
  }
  case CGC_FEATURE_MLIR_EXCHANGE: {
    if (dataSize < sizeof(CgcFeatureDataMlirExchange))
      break;
    return exchangeMlir(*this, *static_cast<CgcFeatureDataMlirExchange *>(data));
  }
  case CGC_FEATURE_TIMESTAMP_QUERIES: {
    // %globaltimer: every GPU the CUDA 12+ runtime supports has it.
    if (dataSize < sizeof(CgcFeatureDataTimestampQueries))
      break;
    static_cast<CgcFeatureDataTimestampQueries *>(data)->timestampQueriesSupported = 1;
    return CGC_OK;
  }
  default:
    return fail(CGC_ERROR_UNSUPPORTED,
                "unknown feature " + std::to_string(static_cast<int>(feature)));
  }
  return fail(CGC_ERROR_INVALID_ARGUMENT, "feature data of " + std::to_string(dataSize) +
                                              " bytes is too small for feature " +
                                              std::to_string(static_cast<int>(feature)));
}

} // namespace cgc::cuda
