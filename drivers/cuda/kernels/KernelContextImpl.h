//===- KernelContextImpl.h - per-device state of the CUDA kernels -*- C++ -*-===//
//
// KernelContext::Impl: what kernel builders share on one device — its
// architecture and size, the NVRTC module cache, and the cuBLASLt and cuDNN
// handles (created on first use: a program without matrix products never
// loads cuBLASLt). Kernels keep the handles they use alive themselves, so a
// kernel may outlive its context.
//
// cuDNN handles come from a small pool, one per building thread: a handle
// is used by one thread at a time, and finalizing a runtime-fusion plan
// compiles code for up to a second under the handle's lock, so with a
// single handle the threads that lower a partition's subgraphs would build
// their convolutions one after another (ResNet-50's ~20 distinct graphs,
// ~3 s). Each plan keeps the handle it was built with and runs under its
// lock.
//
// A compile-only Impl has no device: generated kernels are compiled for a
// given architecture but not loaded, and builders that need a library
// handle fail. Tests use it to compile every generated kernel on machines
// without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_KERNELCONTEXTIMPL_H
#define CGC_DRIVERS_CUDA_KERNELS_KERNELCONTEXTIMPL_H

#include "../Kernels.h"
#include "Nvrtc.h"

#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cgc::cuda {

/// A cuBLASLt handle (LibraryHandles.cpp); usable from any thread.
struct CublasLtHandle;
/// A cuDNN handle and the mutex that serializes its use: a cuDNN handle
/// carries its stream, so setting the stream and enqueueing happen under
/// the lock.
struct CudnnHandle;

struct KernelContext::Impl {
  /// The context of `device` (made current on the calling thread).
  static llvm::Expected<std::unique_ptr<Impl>> createForDevice(int device);
  /// A context without a device that compiles for compute capability
  /// `major`.`minor`.
  static std::unique_ptr<Impl> createCompileOnly(int computeMajor, int computeMinor,
                                                 int multiprocessorCount = 132);

  Impl(int device, int computeMajor, int computeMinor, int multiprocessorCount, bool hasDevice);
  ~Impl();

  int getDevice() const { return device; }
  bool hasDevice() const { return deviceAvailable; }
  int getComputeMajor() const { return computeMajor; }
  int getComputeMinor() const { return computeMinor; }
  int getMultiprocessorCount() const { return multiprocessorCount; }

  /// Kernel `name` of a generated source, compiled once per distinct source
  /// (`archSpecific`: for the architecture's own features, NvrtcCompiler);
  /// errors name `op`.
  llvm::Expected<DeviceFunction> getFunction(mlir::Operation *op, const std::string &source,
                                             llvm::StringRef name, bool archSpecific = false);
  NvrtcCompiler &getCompiler() { return compiler; }

  /// Blocks of `threads` threads for a grid-stride loop over `count` items:
  /// enough to fill the device, at least one.
  unsigned getGridSize(int64_t count, unsigned threads) const;

  /// The library handles, created on first use; errors name `op`. getCudnn
  /// gives the calling thread its own handle while the pool has room.
  llvm::Expected<std::shared_ptr<CublasLtHandle>> getCublasLt(mlir::Operation *op);
  llvm::Expected<std::shared_ptr<CudnnHandle>> getCudnn(mlir::Operation *op);

private:
  int device;
  int computeMajor, computeMinor, multiprocessorCount;
  bool deviceAvailable;
  NvrtcCompiler compiler;
  std::mutex handleMutex;
  std::shared_ptr<CublasLtHandle> cublasLt;
  /// The cuDNN pool (at most one handle per hardware thread) and the
  /// handle each thread that asked was given.
  std::vector<std::shared_ptr<CudnnHandle>> cudnnPool;
  std::map<std::thread::id, std::shared_ptr<CudnnHandle>> cudnnByThread;
};

/// buildKernel on an Impl (what buildKernel calls; tests call it with a
/// compile-only Impl).
llvm::Expected<Kernel> buildKernelForContext(mlir::Operation *op, KernelContext::Impl &context);

/// An error when the CUDA driver has no kernel family for `op` ("cgc_op.X is
/// not implemented on the CUDA driver"), success otherwise. Element types
/// and attributes are checked by the build itself.
llvm::Error checkOpImplemented(mlir::Operation *op);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_KERNELCONTEXTIMPL_H
