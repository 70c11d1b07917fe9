//===- CudaSupport.h - CUDA runtime errors and the current device -*- C++ -*-===//
//
// Every CUDA runtime call the driver makes goes through these: a failing
// call becomes a message with the call's name and cudaGetErrorString, and a
// CgcStatus; calls that depend on the calling thread's current device run
// inside a ScopedCurrentDevice, which puts back what the application had.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_CUDASUPPORT_H
#define CGC_DRIVERS_CUDA_CUDASUPPORT_H

#include "cgc/api.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace cgc::cuda {

/// Alignment of internal values, staged outputs, kernel workspaces, CPU-binding
/// copies and the temporary resource: what cudaMalloc guarantees, and what
/// the kernels' workspaces are promised (Kernels.h).
inline constexpr uint64_t kAlignment = 256;

/// How long a wait for the GPU polls before it sleeps (SpinWait.h): the
/// queues' submission and completion threads, and host fence waits.
/// CGC_CUDA_SPIN_WAIT_US, microseconds (0: sleep at once); 20 ms unset, so
/// that a run of up to that long costs no thread wake-up (PyTorch's
/// synchronizations poll too).
std::chrono::nanoseconds getSpinWaitLimit();

/// "cudaMalloc: out of memory (cudaErrorMemoryAllocation)". Also clears the
/// thread's last error, so that a later cudaGetLastError (in a kernel
/// library, say) does not report this failure again.
inline std::string describeCudaError(const char *call, cudaError_t error) {
  (void)cudaGetLastError();
  return std::string(call) + ": " + cudaGetErrorString(error) + " (" + cudaGetErrorName(error) +
         ")";
}

/// The status a failed call maps to: running out of memory is
/// CGC_ERROR_OUT_OF_MEMORY; a fault while executing is CGC_ERROR_DEVICE_LOST;
/// anything else is CGC_ERROR_INTERNAL.
inline CgcStatus toStatus(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return CGC_OK;
  case cudaErrorMemoryAllocation:
    return CGC_ERROR_OUT_OF_MEMORY;
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchFailure:
  case cudaErrorLaunchTimeout:
  case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorAssert:
  case cudaErrorECCUncorrectable:
  case cudaErrorDevicesUnavailable:
    return CGC_ERROR_DEVICE_LOST;
  default:
    return CGC_ERROR_INTERNAL;
  }
}

/// Makes `ordinal` the calling thread's current device for the scope and
/// restores the previous one after, when the thread had a CUDA context of its
/// own (the application uses CUDA itself). A thread without one keeps the
/// driver's device current: restoring would create a context on a device the
/// application never touched.
class ScopedCurrentDevice {
public:
  explicit ScopedCurrentDevice(int ordinal);
  ~ScopedCurrentDevice();
  ScopedCurrentDevice(const ScopedCurrentDevice &) = delete;
  ScopedCurrentDevice &operator=(const ScopedCurrentDevice &) = delete;

  /// What cudaSetDevice answered (cudaSuccess when nothing had to change).
  cudaError_t getError() const { return error; }

private:
  int previous = -1;
  bool restore = false;
  cudaError_t error = cudaSuccess;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_CUDASUPPORT_H
