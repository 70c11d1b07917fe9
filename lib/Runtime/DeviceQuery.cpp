//===- DeviceQuery.cpp - finding an adapter, asking its driver -------------===//

#include "DeviceQuery.h"

#include <cstring>
#include <optional>
#include <span>

namespace cgc::runtime {

namespace {

/// "cuda:1" -> {"cuda", 1}; "cpu" -> {"cpu", 0}.
std::optional<std::pair<std::string, uint32_t>> parseDeviceName(const std::string &device) {
  size_t colon = device.find(':');
  std::string driver = device.substr(0, colon);
  if (driver.empty())
    return std::nullopt;
  if (colon == std::string::npos)
    return std::pair{driver, 0u};
  std::string number = device.substr(colon + 1);
  if (number.empty() || number.size() > 9 ||
      number.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::pair{driver, static_cast<uint32_t>(std::stoul(number))};
}


/// One MLIR exchange (CGC_FEATURE_MLIR_EXCHANGE) with the two-call size
/// protocol: the reply's size, then the reply. nullopt when the driver
/// answers CGC_ERROR_UNSUPPORTED (it lacks the interface).
Result<std::optional<std::vector<uint8_t>>> exchangeMlir(CgcDevice device, const CgcGuid &interface,
                                                         std::span<const uint8_t> input,
                                                         const std::string &what) {
  size_t size = 0;
  CgcFeatureDataMlirExchange exchange{};
  exchange.mlirInterface = interface;
  exchange.inputData = input.empty() ? nullptr : input.data();
  exchange.inputDataSizeInBytes = input.size();
  exchange.outputDataSizeInBytes = &size;
  CgcStatus status =
      cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange, sizeof(exchange));
  if (status == CGC_ERROR_UNSUPPORTED)
    return std::optional<std::vector<uint8_t>>();
  if (status != CGC_OK)
    return apiError(what + ": asking for the size of the reply", status);
  std::vector<uint8_t> reply(size);
  if (size == 0)
    return std::optional(std::move(reply));
  exchange.outputData = reply.data();
  if ((status = cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                       sizeof(exchange))) != CGC_OK)
    return apiError(what + ": reading the reply", status);
  reply.resize(std::min(size, reply.size()));
  return std::optional(std::move(reply));
}

} // namespace

/// An Error for a failed device API call: what the runtime was doing, the
/// status and the API's own message.
Error apiError(const std::string &what, CgcStatus status, const char *message) {
  std::string text = what + ": " + cgcStatusName(status);
  if (message && *message)
    text += ": " + std::string(message);
  return Error{text};
}
Error apiError(const std::string &what, CgcStatus status) {
  return apiError(what, status, cgcGetLastErrorMessage());
}


Result<FoundAdapter> findAdapter(const std::string &device) {
  std::optional<std::pair<std::string, uint32_t>> wanted = parseDeviceName(device);
  if (!wanted)
    return Error{"device '" + device +
                 "': expected a driver name with an optional adapter index, e.g. cpu, cuda:0"};
  std::string found;
  uint32_t matches = 0;
  for (uint32_t index = 0;; ++index) {
    CgcAdapter candidate = nullptr;
    CgcStatus status = cgcEnumerateAdapters(index, &candidate);
    if (status == CGC_ERROR_NOT_FOUND)
      break;
    if (status != CGC_OK)
      return apiError("device '" + device + "': enumerating adapters", status);
    CgcAdapterDesc desc{};
    desc.version = CGC_API_VERSION;
    if ((status = cgcGetAdapterDesc(candidate, &desc)) != CGC_OK)
      return apiError("device '" + device + "': adapter #" + std::to_string(index), status);
    std::string driverName(desc.driverName, strnlen(desc.driverName, sizeof(desc.driverName)));
    std::string name(desc.name, strnlen(desc.name, sizeof(desc.name)));
    if (driverName == wanted->first && matches++ == wanted->second)
      return FoundAdapter{candidate, driverName, name};
    found += (found.empty() ? "" : ", ") + driverName + ":" +
             std::to_string(matches - (driverName == wanted->first ? 1 : 0)) + " (" + name + ")";
  }
  return Error{"device '" + device + "': no such adapter; found " +
               (found.empty() ? std::string("none") : found)};
}

/// The device's driver as the compiler's target: its patterns and its
/// answers to specialization requests, asked through the device API.
DeviceTarget makeDeviceTarget(CgcDevice device, const std::string &driverName) {
  DeviceTarget target;
  target.driverName = driverName;
  target.declarePatterns = [device]() -> Result<std::vector<uint8_t>> {
    Result<std::optional<std::vector<uint8_t>>> reply =
        exchangeMlir(device, CGC_SUBGRAPH_DECLARATION_REQUEST, {},
                     "CGC_SUBGRAPH_DECLARATION_REQUEST");
    if (!reply)
      return reply.error();
    // A driver without the interface declares no patterns.
    return reply->value_or(std::vector<uint8_t>());
  };
  target.specializeSubgraphs =
      [device](std::span<const uint8_t> request) -> Result<std::vector<uint8_t>> {
    Result<std::optional<std::vector<uint8_t>>> reply =
        exchangeMlir(device, CGC_SUBGRAPH_SPECIALIZATION_REQUEST, request,
                     "CGC_SUBGRAPH_SPECIALIZATION_REQUEST");
    if (!reply)
      return reply.error();
    if (!*reply)
      return Error{"CGC_SUBGRAPH_SPECIALIZATION_REQUEST: the driver declared patterns but "
                   "answers specialization requests with CGC_ERROR_UNSUPPORTED"};
    return std::move(**reply);
  };
  return target;
}

} // namespace cgc::runtime
