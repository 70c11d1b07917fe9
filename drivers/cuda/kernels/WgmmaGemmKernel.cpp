//===- WgmmaGemmKernel.cpp - the Hopper GEMM as a launchable kernel -------===//

#include "WgmmaGemmKernel.h"

#include "DeviceCode.h"

#include <cstring>
#include <mutex>

namespace cgc::cuda {

std::optional<std::string> getWgmmaGemmRefusal(const KernelContext::Impl &context) {
  if (context.getComputeMajor() != 9 || context.getComputeMinor() != 0)
    return "the Hopper GEMM needs compute capability 9.0 (sm_90a), not " +
           std::to_string(context.getComputeMajor()) + "." +
           std::to_string(context.getComputeMinor());
  return std::nullopt;
}

namespace {
/// The tensor maps of the last operands launched with (a command list
/// records each dispatch once; timing relaunches the same addresses).
struct TensorMapCache {
  std::mutex mutex;
  const void *a = nullptr, *b = nullptr;
  alignas(64) unsigned char mapA[128];
  alignas(64) unsigned char mapB[128];
};
} // namespace

llvm::Expected<Kernel> buildWgmmaGemmKernel(WgmmaGemmSpec spec, unsigned lhs, unsigned rhs,
                                            std::optional<unsigned> bias, Kernel fallback,
                                            KernelContext::Impl &context, llvm::StringRef name) {
  std::string kernelName = name.str();
  auto makeError = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), name + ": " + message);
  };
  if (std::optional<std::string> refusal = getWgmmaGemmRefusal(context))
    return makeError(*refusal);
  spec.multiprocessors = context.getMultiprocessorCount();
  spec.bias = bias.has_value();
  if (!isWgmmaGemmSupported(spec))
    return makeError("the Hopper GEMM does not run a " + std::to_string(spec.m) + "x" +
                     std::to_string(spec.k) + " by " + std::to_string(spec.k) + "x" +
                     std::to_string(spec.n) + " product with this tile (K and N must be "
                     "multiples of 8)");
  std::string source = std::string(getDevicePreamble()) + generateWgmmaGemmSource(spec);
  llvm::Expected<DeviceFunction> function =
      context.getCompiler().getFunction(source, kWgmmaGemmKernelName, /*archSpecific=*/true);
  if (!function)
    return makeError(llvm::toString(function.takeError()));
  size_t sharedBytes = getWgmmaGemmSharedBytes(spec);
  if (context.hasDevice()) {
    const void *entry = reinterpret_cast<const void *>(function->kernel);
    cudaError_t status = cudaFuncSetAttribute(
        entry, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sharedBytes));
    if (status == cudaSuccess)
      status = cudaFuncSetAttribute(entry, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
    if (status != cudaSuccess)
      return makeError(llvm::Twine("cudaFuncSetAttribute (") + std::to_string(sharedBytes) +
                       " bytes of shared memory) failed: " + cudaGetErrorString(status));
  }
  unsigned grid = getWgmmaGemmGrid(spec);
  uint64_t workspaceSize = fallback.workspaceSize;
  auto maps = std::make_shared<TensorMapCache>();
  auto launch = [=, function = std::move(*function),
                 fallback = std::move(fallback)](const LaunchArgs &args) -> std::string {
    const void *a = args.inputs[lhs], *b = args.inputs[rhs];
    const void *biasAddress = bias ? args.inputs[*bias] : nullptr;
    auto misaligned = [](const void *pointer, uintptr_t alignment) {
      return reinterpret_cast<uintptr_t>(pointer) % alignment != 0;
    };
    if (misaligned(a, 16) || misaligned(b, 16) ||
        misaligned(args.outputs[0], spec.staged ? 16 : 4) ||
        misaligned(biasAddress, 4))
      return fallback.launch(args);
    alignas(64) unsigned char mapA[128];
    alignas(64) unsigned char mapB[128];
    {
      std::lock_guard<std::mutex> lock(maps->mutex);
      if (maps->a != a || maps->b != b) {
        std::string message = encodeWgmmaGemmTensorMaps(spec, a, b, maps->mapA, maps->mapB);
        if (!message.empty())
          return kernelName + ": " + message;
        maps->a = a;
        maps->b = b;
      }
      std::memcpy(mapA, maps->mapA, sizeof(mapA));
      std::memcpy(mapB, maps->mapB, sizeof(mapB));
    }
    void *out = args.outputs[0];
    void *biasPointer = const_cast<void *>(biasAddress);
    void *arguments[] = {mapA, mapB, &out, &biasPointer};
    cudaError_t status = function.launch(dim3(grid), dim3(kWgmmaGemmThreads), arguments,
                                         sharedBytes, args.stream);
    if (status != cudaSuccess)
      return kernelName + ": launching the Hopper GEMM failed: " + cudaGetErrorString(status);
    return {};
  };
  return Kernel{std::move(launch), workspaceSize};
}

} // namespace cgc::cuda
