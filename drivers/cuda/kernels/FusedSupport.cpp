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

std::optional<float> timeKernelLaunch(const Kernel &kernel, llvm::ArrayRef<uint64_t> inputBytes,
                                      llvm::ArrayRef<uint64_t> outputBytes) {
  // Taken before the scratch, released after it: held until the buffers
  // are freed and the stream is idle.
  std::lock_guard<std::mutex> timing(getDeviceTimingMutex());
  TimingScratch scratch;
  if (!scratch.create(2))
    return std::nullopt;
  std::vector<const void *> inputs;
  for (uint64_t bytes : inputBytes) {
    const void *pointer = scratch.allocate(bytes);
    if (!pointer)
      return std::nullopt;
    inputs.push_back(pointer);
  }
  std::vector<void *> outputs;
  for (uint64_t bytes : outputBytes) {
    void *pointer = scratch.allocate(bytes);
    if (!pointer)
      return std::nullopt;
    outputs.push_back(pointer);
  }
  void *workspace = kernel.workspaceSize ? scratch.allocate(kernel.workspaceSize) : nullptr;
  if (kernel.workspaceSize && !workspace)
    return std::nullopt;
  cudaStream_t stream = scratch.getStream();
  cudaEvent_t start = scratch.getEvent(0), stop = scratch.getEvent(1);
  LaunchArgs args{inputs, outputs, workspace, stream};
  float times[3];
  for (int run = -1; run < 3; ++run) {
    if (cudaEventRecord(start, stream) != cudaSuccess || !kernel.launch(args).empty() ||
        cudaEventRecord(stop, stream) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess)
      return std::nullopt;
    if (run >= 0 && cudaEventElapsedTime(&times[run], start, stop) != cudaSuccess)
      return std::nullopt;
  }
  std::sort(std::begin(times), std::end(times));
  return times[1];
}

std::optional<float> timeLaunch(FunctionalDefinitionOp definition, const Kernel &kernel) {
  std::vector<uint64_t> inputBytes, outputBytes;
  for (mlir::BlockArgument argument : definition.getArguments())
    inputBytes.push_back(llvm::cast<TensorType>(argument.getType()).getByteSize());
  for (mlir::Type type : definition.getResultTypes())
    outputBytes.push_back(llvm::cast<TensorType>(type).getByteSize());
  return timeKernelLaunch(kernel, inputBytes, outputBytes);
}

} // namespace cgc::cuda
