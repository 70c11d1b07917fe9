//===- Device.cpp - Adapters and devices ----------------------------------===//

#include "DriverLoader.h"
#include "Objects.h"
#include "Status.h"

#include <cstdlib>
#include <cstring>
#include <string_view>

using namespace cgc::api;

CgcDevice_T::~CgcDevice_T() {
  callDriver(ddi->destroyDevice, handle);
  adapter->driver->liveDevices.fetch_sub(1);
}

namespace {

bool isDebugLayerRequestedByEnvironment() {
  const char *value = std::getenv("CGC_DEBUG_LAYER");
  return value && std::string_view(value) == "1";
}

std::string describeSearch(const DriverRegistry &registry) {
  std::string text = " adapters from drivers in [";
  for (size_t i = 0; i < registry.searchedDirectories.size(); ++i)
    text += (i ? ", " : "") + registry.searchedDirectories[i];
  text += "]";
  for (const std::string &rejection : registry.rejections)
    text += "; skipped " + rejection;
  return text;
}

} // namespace

extern "C" CgcStatus cgcEnumerateAdapters(uint32_t index, CgcAdapter *out_adapter) {
  constexpr std::string_view kCall = "cgcEnumerateAdapters";
  if (!out_adapter)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_adapter is null");
  const DriverRegistry &registry = getDriverRegistry();
  if (index >= registry.adapters.size())
    return fail(CGC_ERROR_NOT_FOUND, kCall, "no adapter ", index, " (",
                registry.adapters.size(), describeSearch(registry), ")");
  *out_adapter = registry.adapters[index];
  return CGC_OK;
}

extern "C" CgcStatus cgcGetAdapterDesc(CgcAdapter adapter, CgcAdapterDesc *out_desc) {
  constexpr std::string_view kCall = "cgcGetAdapterDesc";
  if (!adapter)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "adapter is null");
  if (!out_desc)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_desc is null");
  if (out_desc->version != CGC_API_VERSION)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_desc->version is ", out_desc->version,
                "; set it to CGC_API_VERSION (", CGC_API_VERSION, ")");
  const LoadedDriver &driver = *adapter->driver;
  CgcAdapterDesc desc = {};
  desc.version = CGC_API_VERSION;
  CgcStatus status = callDriver(driver.ddi->getAdapterDesc, driver.driver, adapter->index, &desc);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  // The table's name is the one the loader matched on; it is authoritative.
  desc.version = CGC_API_VERSION;
  std::memset(desc.driverName, 0, sizeof(desc.driverName));
  std::strncpy(desc.driverName, driver.ddi->driverName, sizeof(desc.driverName) - 1);
  desc.name[sizeof(desc.name) - 1] = '\0';
  desc.vendor[sizeof(desc.vendor) - 1] = '\0';
  *out_desc = desc;
  return CGC_OK;
}

extern "C" CgcStatus cgcCreateDevice(CgcAdapter adapter, const CgcDeviceDesc *desc,
                                     CgcDevice *out_device) {
  constexpr std::string_view kCall = "cgcCreateDevice";
  if (!adapter)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "adapter is null");
  if (!desc)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc is null");
  if (!out_device)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "out_device is null");
  if (desc->version != CGC_API_VERSION)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc->version is ", desc->version,
                "; set it to CGC_API_VERSION (", CGC_API_VERSION, ")");
  if (desc->flags & ~uint32_t(CGC_DEVICE_FLAG_DEBUG_LAYER))
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall, "desc->flags has unknown bits 0x", std::hex,
                desc->flags & ~uint32_t(CGC_DEVICE_FLAG_DEBUG_LAYER));
  if (desc->allocator && (!desc->allocator->allocate || !desc->allocator->free))
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall,
                "desc->allocator must set both allocate and free");

  LoadedDriver &driver = *adapter->driver;
  void *handle = nullptr;
  CgcStatus status = callDriver(driver.ddi->createDevice, driver.driver, adapter->index, &handle);
  if (status != CGC_OK)
    return failFromDriver(status, kCall);
  if (!handle)
    return fail(CGC_ERROR_INTERNAL, kCall, "the driver returned no device");

  auto *device = new (desc->allocator) CgcDevice_T;
  if (desc->allocator)
    device->allocatorCallbacks = *desc->allocator;
  device->adapter = adapter;
  device->ddi = driver.ddi;
  device->handle = handle;
  driver.liveDevices.fetch_add(1);
  device->debugLayer =
      (desc->flags & CGC_DEVICE_FLAG_DEBUG_LAYER) || isDebugLayerRequestedByEnvironment();
  CgcFeatureDataOptionsMlir options = {};
  if (callDriver(driver.ddi->getCaps, handle, CGC_FEATURE_OPTIONS_MLIR, &options,
                 sizeof(options)) == CGC_OK)
    device->tier = options.mlirProgramsTier;
  // An optional feature: asked only of a driver that has its entries.
  CgcFeatureDataTimestampQueries timestamps = {};
  device->timestampQueries =
      driver.ddi->createQueryHeap &&
      callDriver(driver.ddi->getCaps, handle, CGC_FEATURE_TIMESTAMP_QUERIES, &timestamps,
                 sizeof(timestamps)) == CGC_OK &&
      timestamps.timestampQueriesSupported;
  *out_device = device;
  return CGC_OK;
}

extern "C" void cgcReleaseDevice(CgcDevice device) {
  if (device)
    device->release();
}
