//===- Kernels.h - CUDA kernels for cgc_op layers ---------------*- C++ -*-===//
//
// The CUDA driver's kernel library: cgc_op layers as CUDA work — generated
// kernels (NVRTC) for elementwise layers, cuBLASLt for matmul/gemm, cuDNN for
// convolution and pooling, hand-written kernels for reductions,
// normalizations and data movement. A kernel is built once, at program
// creation, from the op's types and attributes (it may compile code, create
// descriptors and pick algorithms then); launching it needs no MLIR, no
// allocation and no synchronization, so that launches can be captured into a
// CUDA graph.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_H
#define CGC_DRIVERS_CUDA_KERNELS_H

#include "DType.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/Error.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace cgc::cuda {

/// Element types the kernels store (shared by the drivers: DType.h).
using drivers::DType;
using drivers::getByteWidth;
using drivers::toDType;

/// What one launch gets: device pointers of the op's operands (op order) and
/// results, a workspace of the size the kernel asked for (suitably aligned,
/// 256 bytes), and the stream to enqueue on (possibly capturing).
struct LaunchArgs {
  std::span<const void *const> inputs;
  std::span<void *const> outputs;
  void *workspace = nullptr;
  cudaStream_t stream = nullptr;
};

/// A built kernel. `launch` enqueues the work and returns an empty string, or
/// a message naming the op and the failing call.
struct Kernel {
  std::function<std::string(const LaunchArgs &)> launch;
  uint64_t workspaceSize = 0;
};

/// Per-device state the kernels share: library handles and compiled code.
/// Created once per device (on a thread whose current device is `device`);
/// building and launching are thread-safe.
class KernelContext {
public:
  static llvm::Expected<std::unique_ptr<KernelContext>> create(int device);
  ~KernelContext();
  KernelContext(const KernelContext &) = delete;
  KernelContext &operator=(const KernelContext &) = delete;

  int getDevice() const { return device; }
  struct Impl;
  Impl &getImpl() { return *impl; }

private:
  KernelContext(int device, std::unique_ptr<Impl> impl);
  int device;
  std::unique_ptr<Impl> impl;
};

/// Builds the kernel of one cgc_op layer. An op, element type or attribute
/// value the CUDA driver does not implement is an llvm::Error naming the op
/// and what is missing ("cgc_op.gelu: element type int32 is not implemented
/// on the CUDA driver").
llvm::Expected<Kernel> buildKernel(mlir::Operation *op, KernelContext &context);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_H
