//===- Nvrtc.h - compiling and loading generated CUDA C++ -------*- C++ -*-===//
//
// Generated kernels are CUDA C++ sources compiled by NVRTC for the device's
// architecture (a CUBIN for sm_XY when this NVRTC knows it, otherwise PTX of
// the newest virtual architecture it knows, which the driver JIT-compiles),
// then loaded with the runtime's library API (cudaLibraryLoadData,
// cudaLibraryGetKernel) and launched with cudaLaunchKernel, so nothing links
// libcuda directly. Modules are cached by source text: layers that generate
// the same source share one compiled module.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_NVRTC_H
#define CGC_DRIVERS_CUDA_KERNELS_NVRTC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cuda_runtime_api.h>

#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cgc::cuda {

/// One loaded module (a cudaLibrary_t), unloaded with its last user.
class DeviceModule {
public:
  explicit DeviceModule(cudaLibrary_t library) : library(library) {}
  ~DeviceModule();
  DeviceModule(const DeviceModule &) = delete;
  DeviceModule &operator=(const DeviceModule &) = delete;
  cudaLibrary_t get() const { return library; }

private:
  cudaLibrary_t library;
};

/// A kernel of a loaded module; holds the module loaded. A compile-only
/// context (no device) returns functions without a module or kernel.
struct DeviceFunction {
  std::shared_ptr<DeviceModule> module;
  cudaKernel_t kernel = nullptr;

  /// Enqueues the kernel; `arguments` points at each parameter's value.
  cudaError_t launch(dim3 grid, dim3 block, void **arguments, size_t sharedBytes,
                     cudaStream_t stream) const {
    return cudaLaunchKernel(reinterpret_cast<const void *>(kernel), grid, block, arguments,
                            sharedBytes, stream);
  }
};

/// Compiles generated sources for one device architecture and caches the
/// loaded modules. Thread-safe.
class NvrtcCompiler {
public:
  /// `load`: load compiled modules into the current device's context (false
  /// for a compile-only context).
  NvrtcCompiler(int computeMajor, int computeMinor, bool load);

  /// Kernel `name` (an `extern "C" __global__` function) of `source`. On a
  /// compilation failure the error holds NVRTC's log and the source.
  /// `archSpecific`: compile for the architecture's own features (sm_90a:
  /// wgmma, setmaxnreg), which run on that architecture only; an error when
  /// this NVRTC cannot emit its CUBIN. (A source is always compiled one
  /// way: the cache is keyed by its text.)
  llvm::Expected<DeviceFunction> getFunction(const std::string &source, llvm::StringRef name,
                                             bool archSpecific = false);

  /// How many distinct sources were compiled (tests check the cache).
  size_t getModuleCount();
  /// How many times NVRTC compiled a source, failures included (tests
  /// check that concurrent requests for one source compile it once).
  size_t getCompilationCount();

private:
  /// CUBIN (or NUL-terminated PTX) of `source`.
  llvm::Expected<std::string> compile(const std::string &source, bool archSpecific);

  /// A source one thread is compiling: the others that want it wait for
  /// its module (or its error) instead of compiling it too.
  struct Compilation {
    std::shared_future<void> done;
    std::shared_ptr<DeviceModule> module;
    std::string error;
  };
  /// `source` compiled and loaded, or only compiled (a null module) by a
  /// compile-only compiler.
  llvm::Expected<std::shared_ptr<DeviceModule>> compileAndLoad(const std::string &source,
                                                               llvm::StringRef name,
                                                               bool archSpecific);

  int computeMajor, computeMinor;
  bool load;
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<DeviceModule>> modules;
  std::unordered_map<std::string, bool> compiledOnly; // compile-only cache
  std::unordered_map<std::string, std::shared_ptr<Compilation>> compiling;
  size_t compilations = 0;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_NVRTC_H
