//===- Caps.cpp - feature support and MLIR exchanges of a CUDA device ------===//
//
// Programs tier 2.0: device-address bindings, and CPU-data bindings copied
// into device memory at record time. Interfaces: the driver compiles
// CGC_SUBGRAPH_PARTITION. It declares no fused patterns yet, so it answers
// neither declaration nor specialization requests (CGC_ERROR_UNSUPPORTED,
// which the compiler reads as "no patterns"): every layer goes to its
// fallback target, whose one-layer subgraphs this driver compiles with the
// kernel library's per-layer kernels.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include "cgc/Interchange/Container.h"

#include <optional>
#include <string>

namespace cgc::cuda {

namespace {

using interchange::Interface;

bool isInterfaceSupported(Interface interface) {
  switch (interface) {
  case Interface::SubgraphPartition:
    return true;
  case Interface::SubgraphDeclarationRequest:
  case Interface::SubgraphDeclaration:
  case Interface::SubgraphSpecializationRequest:
  case Interface::SubgraphSpecialization:
  case Interface::Input:
  case Interface::Output:
    break;
  }
  return false;
}

CgcStatus exchangeMlir(Device &device, const CgcFeatureDataMlirExchange &exchange) {
  std::optional<Interface> interface = interchange::lookupInterface(exchange.mlirInterface);
  if (!interface)
    return device.fail(CGC_ERROR_UNSUPPORTED,
                       "unknown MLIR interface " + interchange::formatGuid(exchange.mlirInterface));
  switch (*interface) {
  case Interface::SubgraphDeclarationRequest:
  case Interface::SubgraphSpecializationRequest:
    return device.fail(CGC_ERROR_UNSUPPORTED,
                       std::string(interchange::getInterfaceName(*interface)) +
                           ": the CUDA driver declares no subgraph patterns yet; every layer "
                           "runs on its fallback target");
  default:
    return device.fail(CGC_ERROR_UNSUPPORTED,
                       std::string(interchange::getInterfaceName(*interface)) +
                           " is not an exchange request the CUDA driver answers");
  }
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
    return exchangeMlir(*this, *static_cast<const CgcFeatureDataMlirExchange *>(data));
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
