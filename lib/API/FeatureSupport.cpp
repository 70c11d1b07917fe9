//===- FeatureSupport.cpp - cgcCheckFeatureSupport ------------------------===//
//
// The API checks each feature's data size and pointers, and for an MLIR
// exchange that it knows the interface GUID, before the driver sees the query
// (spec 000: an unrecognised GUID fails before the DDI is called). Optional
// features are answered by the API for a driver without their entries.
//
//===----------------------------------------------------------------------===//

#include "Objects.h"
#include "Status.h"

#include "cgc/Interchange/Container.h"

using namespace cgc::api;

namespace {

constexpr std::string_view kCall = "cgcCheckFeatureSupport";

CgcStatus checkSize(const char *featureName, size_t given, size_t expected) {
  if (given != expected)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, featureName, ": featureDataSize is ", given,
                "; expected ", expected);
  return CGC_OK;
}

CgcStatus checkFeatureData(CgcFeature feature, void *featureData, size_t featureDataSize) {
  switch (feature) {
  case CGC_FEATURE_OPTIONS_MLIR:
    return checkSize("CGC_FEATURE_OPTIONS_MLIR", featureDataSize,
                     sizeof(CgcFeatureDataOptionsMlir));
  case CGC_FEATURE_MLIR_INTERFACE_SUPPORT: {
    if (CgcStatus status = checkSize("CGC_FEATURE_MLIR_INTERFACE_SUPPORT", featureDataSize,
                                     sizeof(CgcFeatureDataMlirInterfaceSupport)))
      return status;
    auto &support = *static_cast<CgcFeatureDataMlirInterfaceSupport *>(featureData);
    if (support.numMlirInterfaces &&
        (!support.mlirInterfacesRequested || !support.mlirInterfacesSupported))
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                  "CGC_FEATURE_MLIR_INTERFACE_SUPPORT: numMlirInterfaces is ",
                  support.numMlirInterfaces,
                  " but mlirInterfacesRequested or mlirInterfacesSupported is null");
    return CGC_OK;
  }
  case CGC_FEATURE_TIMESTAMP_QUERIES:
    return checkSize("CGC_FEATURE_TIMESTAMP_QUERIES", featureDataSize,
                     sizeof(CgcFeatureDataTimestampQueries));
  case CGC_FEATURE_MLIR_EXCHANGE: {
    if (CgcStatus status = checkSize("CGC_FEATURE_MLIR_EXCHANGE", featureDataSize,
                                     sizeof(CgcFeatureDataMlirExchange)))
      return status;
    auto &exchange = *static_cast<CgcFeatureDataMlirExchange *>(featureData);
    if (!cgc::interchange::lookupInterface(exchange.mlirInterface))
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "CGC_FEATURE_MLIR_EXCHANGE: interface ",
                  cgc::interchange::formatGuid(exchange.mlirInterface),
                  " is not a known MLIR interface");
    if (!exchange.outputDataSizeInBytes)
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                  "CGC_FEATURE_MLIR_EXCHANGE: outputDataSizeInBytes is null");
    if (!exchange.inputData && exchange.inputDataSizeInBytes)
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                  "CGC_FEATURE_MLIR_EXCHANGE: inputData is null but inputDataSizeInBytes is ",
                  exchange.inputDataSizeInBytes);
    return CGC_OK;
  }
  }
  return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "unknown feature ", static_cast<int>(feature));
}

} // namespace

extern "C" CgcStatus cgcCheckFeatureSupport(CgcDevice device, CgcFeature feature,
                                            void *featureData, size_t featureDataSize) {
  if (!device)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "device is null");
  if (!featureData)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "featureData is null");
  if (CgcStatus status = checkFeatureData(feature, featureData, featureDataSize))
    return status;
  // An optional feature whose DDI entries the driver lacks is unsupported;
  // such a driver may not know the feature, so it is not asked.
  if (feature == CGC_FEATURE_TIMESTAMP_QUERIES && !device->ddi->createQueryHeap) {
    static_cast<CgcFeatureDataTimestampQueries *>(featureData)->timestampQueriesSupported = 0;
    return CGC_OK;
  }
  CgcStatus status =
      callDriver(device->ddi->getCaps, device->handle, feature, featureData, featureDataSize);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  return CGC_OK;
}
