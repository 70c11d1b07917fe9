//===- CudaSupport.cpp - the current device, put back where it matters ----===//

#include "CudaSupport.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdlib>

namespace cgc::cuda {

namespace {

/// cuCtxGetCurrent from the driver the runtime loaded (the plugin does not
/// link libcuda); null when the runtime cannot find it.
using CtxGetCurrentFn = int (*)(void **context);

CtxGetCurrentFn getCtxGetCurrent() {
  static const CtxGetCurrentFn function = [] {
    void *entry = nullptr;
#if CUDART_VERSION >= 12050
    cudaError_t error = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &entry, 12000,
                                                         cudaEnableDefault, nullptr);
#else
    cudaError_t error =
        cudaGetDriverEntryPoint("cuCtxGetCurrent", &entry, cudaEnableDefault, nullptr);
#endif
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      entry = nullptr;
    }
    return reinterpret_cast<CtxGetCurrentFn>(entry);
  }();
  return function;
}

/// Whether the calling thread has a current CUDA context; true when that
/// cannot be known (restoring is then the safe choice).
bool hasCurrentContext() {
  CtxGetCurrentFn ctxGetCurrent = getCtxGetCurrent();
  if (!ctxGetCurrent)
    return true;
  void *context = nullptr;
  return ctxGetCurrent(&context) != 0 || context != nullptr;
}

} // namespace

ScopedCurrentDevice::ScopedCurrentDevice(int ordinal) {
  if (cudaGetDevice(&previous) != cudaSuccess) {
    (void)cudaGetLastError();
    previous = -1;
  }
  if (previous == ordinal)
    return;
  bool hadContext = previous >= 0 && hasCurrentContext();
  error = cudaSetDevice(ordinal);
  if (error != cudaSuccess)
    (void)cudaGetLastError();
  restore = error == cudaSuccess && hadContext;
}

ScopedCurrentDevice::~ScopedCurrentDevice() {
  if (restore)
    (void)cudaSetDevice(previous);
}

std::chrono::nanoseconds getSpinWaitLimit() {
  static const std::chrono::nanoseconds limit = [] {
    constexpr uint64_t kDefaultMicroseconds = 20000;
    const char *value = std::getenv("CGC_CUDA_SPIN_WAIT_US");
    uint64_t microseconds = kDefaultMicroseconds;
    // An unparsable value keeps the default.
    if (value && llvm::StringRef(value).getAsInteger(10, microseconds))
      microseconds = kDefaultMicroseconds;
    return std::chrono::nanoseconds(
        std::chrono::microseconds(std::min<uint64_t>(microseconds, uint64_t(1) << 40)));
  }();
  return limit;
}

} // namespace cgc::cuda
