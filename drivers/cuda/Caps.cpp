//===- Caps.cpp - feature support and MLIR exchanges of a CUDA device ------===//
//
// Programs tier 2.0: device-address bindings, and CPU-data bindings copied
// into device memory at record time. Interfaces: the driver compiles
// CGC_SUBGRAPH_PARTITION; answers declaration requests with the patterns of
// its fused target (getFusedTarget, FusedKernels.h: patterns/*.mlir and the
// preferred layout "channels_last"); and answers specialization requests
// with the subgraphs a fused kernel implements whole. A match it
// rejects goes, layer by layer, to the fallback target, whose one-layer
// subgraphs this driver compiles with the per-layer kernels.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "FusedKernels.h"
#include "MlirExchange.h"

#include "cgc/Interchange/Container.h"

#include <optional>

namespace cgc::cuda {

namespace {

using interchange::Interface;

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
        *static_cast<CgcFeatureDataMlirExchange *>(data), getFusedTarget());
    return failure.status == CGC_OK ? CGC_OK : fail(failure.status, failure.message);
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
