//===- FusedSupport.cpp - choosing between two ways to run a definition ---===//
//
// The fused convolution (cuDNN graph or cuDNN's convolution + epilogue) and
// the attention kernels (flash kernel or cuBLASLt products around a softmax)
// can each run their work two ways whose speed depends on shapes, types and
// the device; neither wins everywhere. They time both once at program
// creation, on zeroed buffers of the real sizes, and keep the faster.
//
//===----------------------------------------------------------------------===//

#include "FusedSupport.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <vector>

namespace cgc::cuda {

bool isVerbose() {
  static const bool verbose = [] {
    const char *value = std::getenv("CGC_CUDA_VERBOSE");
    return value && *value && llvm::StringRef(value) != "0";
  }();
  return verbose;
}

std::vector<std::optional<float>> timeKernelLaunches(llvm::ArrayRef<const Kernel *> kernels,
                                                    llvm::ArrayRef<uint64_t> inputBytes,
                                                    llvm::ArrayRef<uint64_t> outputBytes) {
  std::vector<std::optional<float>> result(kernels.size());
  // Taken before the scratch, released after it: held until the buffers
  // are freed and the stream is idle.
  std::lock_guard<std::mutex> timing(getDeviceTimingMutex());
  TimingScratch scratch;
  if (!scratch.create(2))
    return result;
  std::vector<const void *> inputs;
  for (uint64_t bytes : inputBytes) {
    const void *pointer = scratch.allocate(bytes);
    if (!pointer)
      return result;
    inputs.push_back(pointer);
  }
  std::vector<void *> outputs;
  for (uint64_t bytes : outputBytes) {
    void *pointer = scratch.allocate(bytes);
    if (!pointer)
      return result;
    outputs.push_back(pointer);
  }
  uint64_t workspaceSize = 0;
  for (const Kernel *kernel : kernels)
    workspaceSize = std::max(workspaceSize, kernel->workspaceSize);
  void *workspace = workspaceSize ? scratch.allocate(workspaceSize) : nullptr;
  if (workspaceSize && !workspace)
    return result;
  cudaStream_t stream = scratch.getStream();
  cudaEvent_t start = scratch.getEvent(0), stop = scratch.getEvent(1);
  for (auto [index, kernel] : llvm::enumerate(kernels)) {
    LaunchArgs args{inputs, outputs, kernel->workspaceSize ? workspace : nullptr, stream};
    float times[3];
    bool timed = true;
    for (int run = -1; run < 3 && timed; ++run) {
      timed = cudaEventRecord(start, stream) == cudaSuccess && kernel->launch(args).empty() &&
              cudaEventRecord(stop, stream) == cudaSuccess &&
              cudaEventSynchronize(stop) == cudaSuccess &&
              (run < 0 || cudaEventElapsedTime(&times[run], start, stop) == cudaSuccess);
    }
    if (!timed) {
      // A failed launch may leave an error behind: the next kernel must not
      // read it as its own.
      cudaGetLastError();
      continue;
    }
    std::sort(std::begin(times), std::end(times));
    result[index] = times[1];
  }
  return result;
}

std::optional<float> timeKernelLaunch(const Kernel &kernel, llvm::ArrayRef<uint64_t> inputBytes,
                                      llvm::ArrayRef<uint64_t> outputBytes) {
  const Kernel *kernels[] = {&kernel};
  return timeKernelLaunches(kernels, inputBytes, outputBytes).front();
}

std::vector<std::optional<float>> timeLaunches(FunctionalDefinitionOp definition,
                                               llvm::ArrayRef<const Kernel *> kernels) {
  std::vector<uint64_t> inputBytes, outputBytes;
  for (mlir::BlockArgument argument : definition.getArguments())
    inputBytes.push_back(llvm::cast<TensorType>(argument.getType()).getByteSize());
  for (mlir::Type type : definition.getResultTypes())
    outputBytes.push_back(llvm::cast<TensorType>(type).getByteSize());
  return timeKernelLaunches(kernels, inputBytes, outputBytes);
}

std::string formatIndexList(llvm::ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [index, value] : llvm::enumerate(values))
    text += (index ? ", " : "") + std::to_string(value);
  return text + "]";
}

std::optional<float> timeLaunch(FunctionalDefinitionOp definition, const Kernel &kernel) {
  const Kernel *kernels[] = {&kernel};
  return timeLaunches(definition, kernels).front();
}

} // namespace cgc::cuda
