//===- Caps.cpp - feature support and MLIR exchanges of the CPU device -----===//
//
// Programs tier 2.0 (device-address and CPU-data bindings). Interfaces: the
// driver compiles CGC_SUBGRAPH_PARTITION; answers declaration requests with
// its patterns (Patterns.mlir, embedded at build time); and answers
// specialization requests with the subgraphs a fused kernel implements
// whole. A match it rejects goes, layer by layer, to the fallback target,
// whose one-layer subgraphs this same driver compiles with its per-layer
// kernels: partitions are compiled whatever their subgraphs' origin.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "MlirExchange.h"
#include "SubgraphLowering.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"


namespace cgc::cpu {

namespace {

using interchange::Interface;

/// The driver's subgraph patterns: cgc_pattern IR, data kept out of the code.
constexpr drivers::PatternSource kPatterns[] = {{"Patterns.mlir",
#include "Patterns.mlir.inc"
}};

/// Whether the fused convolution kernel implements `subgraph` whole.
bool isFused(SubgraphOp subgraph) {
  llvm::Expected<LoweredSubgraph> lowered = lowerSubgraph(subgraph);
  if (!lowered) {
    llvm::consumeError(lowered.takeError());
    return false;
  }
  return lowered->isFused;
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
      support.mlirInterfacesSupported[i] =
          interface && drivers::isExchangeInterfaceSupported(*interface);
    }
    return CGC_OK;
  }
  case CGC_FEATURE_MLIR_EXCHANGE: {
    if (dataSize < sizeof(CgcFeatureDataMlirExchange))
      break;
    drivers::CompileFailure failure = drivers::exchangeMlir(
        *static_cast<CgcFeatureDataMlirExchange *>(data), {"CPU", kPatterns, isFused});
    return failure.status == CGC_OK ? CGC_OK : fail(failure.status, failure.message);
  }
  case CGC_FEATURE_TIMESTAMP_QUERIES: {
    if (dataSize < sizeof(CgcFeatureDataTimestampQueries))
      break;
    static_cast<CgcFeatureDataTimestampQueries *>(data)->timestampQueriesSupported = 1;
    return CGC_OK;
  }
  default:
    return fail(CGC_ERROR_UNSUPPORTED,
                "unknown feature " + std::to_string(static_cast<int>(feature)));
  }
  return fail(CGC_ERROR_INVALID_ARGUMENT,
              "feature data of " + std::to_string(dataSize) + " bytes is too small for feature " +
                  std::to_string(static_cast<int>(feature)));
}

} // namespace cgc::cpu
