//===- DeviceQuery.h - finding an adapter, asking its driver ----*- C++ -*-===//
//
// What both the Session and `cgc-compile` need from the device API before
// anything is compiled: the adapter a device name ("cpu", "cuda:1") means,
// and the device's driver as a compile target (its patterns and its answers
// to specialization requests, exchanged through CGC_FEATURE_MLIR_EXCHANGE).
// Plain C++ over the C API; no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_RUNTIME_DEVICEQUERY_H
#define CGC_LIB_RUNTIME_DEVICEQUERY_H

#include "ProgramPlan.h"

#include "cgc/api.h"

#include <string>

namespace cgc::runtime {

/// An Error for a failed device API call: what the caller was doing, the
/// status and the API's own message (or `message`).
Error apiError(const std::string &what, CgcStatus status);
Error apiError(const std::string &what, CgcStatus status, const char *message);

/// The adapter a device name selects.
struct FoundAdapter {
  CgcAdapter adapter = nullptr;
  std::string driverName;
  std::string adapterName;
};

/// "cuda:1": the second adapter whose driver is "cuda"; "cpu": the first CPU
/// adapter. The error lists the adapters there are.
Result<FoundAdapter> findAdapter(const std::string &device);

/// The device's driver as the compiler's target: its patterns and its
/// answers to specialization requests, asked through the device API. The
/// callbacks use `device`, which must outlive them.
DeviceTarget makeDeviceTarget(CgcDevice device, const std::string &driverName);

} // namespace cgc::runtime

#endif // CGC_LIB_RUNTIME_DEVICEQUERY_H
