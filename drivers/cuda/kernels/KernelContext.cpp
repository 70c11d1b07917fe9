//===- KernelContext.cpp - per-device state of the CUDA kernels -----------===//

#include "KernelContextImpl.h"
#include "KernelSupport.h"
#include "LibraryHandles.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

namespace cgc::cuda {

//===----------------------------------------------------------------------===//
// KernelContext
//===----------------------------------------------------------------------===//

static llvm::Error makeDeviceError(int device, llvm::StringRef call, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "CUDA device " +
                                                                     llvm::Twine(device) + ": " +
                                                                     call + " failed: " + what);
}

KernelContext::KernelContext(int device, std::unique_ptr<Impl> impl)
    : device(device), impl(std::move(impl)) {}

KernelContext::~KernelContext() = default;

llvm::Expected<std::unique_ptr<KernelContext>> KernelContext::create(int device) {
  auto impl = Impl::createForDevice(device);
  if (!impl)
    return impl.takeError();
  return std::unique_ptr<KernelContext>(new KernelContext(device, std::move(*impl)));
}

//===----------------------------------------------------------------------===//
// KernelContext::Impl
//===----------------------------------------------------------------------===//

KernelContext::Impl::Impl(int device, int computeMajor, int computeMinor, int multiprocessorCount,
                          bool hasDevice)
    : device(device), computeMajor(computeMajor), computeMinor(computeMinor),
      multiprocessorCount(multiprocessorCount), deviceAvailable(hasDevice),
      compiler(computeMajor, computeMinor, /*load=*/hasDevice) {}

KernelContext::Impl::~Impl() = default;

llvm::Expected<std::unique_ptr<KernelContext::Impl>>
KernelContext::Impl::createForDevice(int device) {
  cudaError_t error = cudaSetDevice(device);
  if (error != cudaSuccess)
    return makeDeviceError(device, "cudaSetDevice", describeCudaError(error));
  int attributes[3] = {0, 0, 0};
  cudaDeviceAttr names[3] = {cudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMinor,
                             cudaDevAttrMultiProcessorCount};
  for (int index = 0; index < 3; ++index) {
    error = cudaDeviceGetAttribute(&attributes[index], names[index], device);
    if (error != cudaSuccess)
      return makeDeviceError(device, "cudaDeviceGetAttribute", describeCudaError(error));
  }
  return std::make_unique<Impl>(device, attributes[0], attributes[1], attributes[2],
                                /*hasDevice=*/true);
}

std::unique_ptr<KernelContext::Impl>
KernelContext::Impl::createCompileOnly(int computeMajor, int computeMinor,
                                       int multiprocessorCount) {
  return std::make_unique<Impl>(-1, computeMajor, computeMinor, multiprocessorCount,
                                /*hasDevice=*/false);
}

llvm::Expected<DeviceFunction> KernelContext::Impl::getFunction(mlir::Operation *op,
                                                                const std::string &source,
                                                                llvm::StringRef name,
                                                                bool archSpecific) {
  llvm::Expected<DeviceFunction> function = compiler.getFunction(source, name, archSpecific);
  if (!function)
    return makeKernelError(op, llvm::toString(function.takeError()));
  return function;
}

unsigned KernelContext::Impl::getGridSize(int64_t count, unsigned threads) const {
  int64_t blocks = (count + threads - 1) / threads;
  int64_t limit = static_cast<int64_t>(std::max(multiprocessorCount, 1)) * 32;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, limit));
}

/// The error of a library handle a compile-only context cannot create.
static llvm::Error noDeviceError(mlir::Operation *op, llvm::StringRef library) {
  return makeKernelError(op, library + " needs a device (this kernel context compiles only)");
}

llvm::Expected<std::shared_ptr<CublasLtHandle>>
KernelContext::Impl::getCublasLt(mlir::Operation *op) {
  std::lock_guard<std::mutex> lock(handleMutex);
  if (cublasLt)
    return cublasLt;
  if (!deviceAvailable)
    return noDeviceError(op, "cuBLASLt");
  auto handle = std::make_shared<CublasLtHandle>();
  cublasStatus_t status = cublasLtCreate(&handle->handle);
  if (status != CUBLAS_STATUS_SUCCESS)
    return makeKernelError(op, llvm::Twine("cublasLtCreate failed: ") +
                                   cublasLtGetStatusString(status));
  cublasLt = handle;
  return cublasLt;
}

llvm::Expected<std::shared_ptr<CudnnHandle>> KernelContext::Impl::getCudnn(mlir::Operation *op) {
  std::lock_guard<std::mutex> lock(handleMutex);
  std::thread::id thread = std::this_thread::get_id();
  if (auto it = cudnnByThread.find(thread); it != cudnnByThread.end())
    return it->second;
  if (!deviceAvailable)
    return noDeviceError(op, "cuDNN");
  size_t capacity = std::max(1u, std::thread::hardware_concurrency());
  std::shared_ptr<CudnnHandle> handle;
  if (cudnnPool.size() < capacity) {
    handle = std::make_shared<CudnnHandle>();
    cudnnStatus_t status = cudnnCreate(&handle->handle);
    if (status != CUDNN_STATUS_SUCCESS)
      return makeKernelError(op,
                             llvm::Twine("cudnnCreate failed: ") + cudnnGetErrorString(status));
    cudnnPool.push_back(handle);
  } else {
    // Threads of later partitions share the pool's handles in turn.
    handle = cudnnPool[cudnnByThread.size() % cudnnPool.size()];
  }
  cudnnByThread.emplace(thread, handle);
  return handle;
}

} // namespace cgc::cuda
