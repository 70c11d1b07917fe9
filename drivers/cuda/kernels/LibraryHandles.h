//===- LibraryHandles.h - cuBLASLt and cuDNN handles ------------*- C++ -*-===//
//
// The library handles of a KernelContext, shared with the kernels that use
// them (a kernel holds its handle alive). Only the families that call the
// libraries include this header.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_LIBRARYHANDLES_H
#define CGC_DRIVERS_CUDA_KERNELS_LIBRARYHANDLES_H

#include <cublasLt.h>
#include <cudnn.h>

#include <mutex>

namespace cgc::cuda {

struct CublasLtHandle {
  cublasLtHandle_t handle = nullptr;
  ~CublasLtHandle() {
    if (handle)
      cublasLtDestroy(handle);
  }
};

struct CudnnHandle {
  cudnnHandle_t handle = nullptr;
  /// Held while the handle's stream is set and work is enqueued on it, and
  /// while build-time queries use it.
  std::mutex mutex;
  ~CudnnHandle() {
    if (handle)
      cudnnDestroy(handle);
  }
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_LIBRARYHANDLES_H
