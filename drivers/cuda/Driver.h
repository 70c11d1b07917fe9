//===- Driver.h - the CUDA driver plugin and its adapters -------*- C++ -*-===//
//
// One Driver per cgcDriverOpen: the host services the API handed over, one
// adapter per CUDA device the runtime sees, and the devices created on them.
// A machine without an NVIDIA driver, or without devices, has no adapters;
// that is not a failure of the plugin. Every driver object reaches its Driver
// to report errors through CgcDdiHost::setErrorMessage before returning a
// failing status.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_DRIVER_H
#define CGC_DRIVERS_CUDA_DRIVER_H

#include "cgc/ddi.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace cgc::cuda {

class Device;

/// A CUDA device as an adapter.
struct Adapter {
  int ordinal = 0; // the CUDA runtime's device number
  CgcAdapterDesc desc{};
};

/// The plugin instance behind the `void *driver` handle.
class Driver {
public:
  explicit Driver(const CgcDdiHost &host);
  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  /// Reports `message` to the host and returns `status`.
  CgcStatus fail(CgcStatus status, const std::string &message) const;

  const std::vector<Adapter> &getAdapters() const { return adapters; }

  CgcStatus createDevice(uint32_t adapterIndex, Device *&out);
  void destroyDevice(Device *device);

private:
  CgcDdiHost host;
  std::vector<Adapter> adapters;
  std::mutex mutex;
  /// Devices not yet destroyed; `close` destroys what is left.
  std::unordered_map<Device *, std::unique_ptr<Device>> devices;
};

/// Describes every CUDA device the runtime can use; none when the runtime
/// cannot start (no driver, no device, a driver older than the runtime).
std::vector<Adapter> enumerateCudaAdapters();

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_DRIVER_H
