//===- Plan.h - the executable form of a compiled partition -----*- C++ -*-===//
//
// What a program keeps after compilation: its bind points, the size of the
// temporary resource it needs, and a list of steps (kernel launches and
// copies) whose operands are byte ranges of bind points or of the temporary
// resource. No MLIR object survives compilation: kernels are self-contained
// closures from the kernel library (Kernels.h).
//
// Using a plan is two phases. `resolve` turns the operand references into
// device pointers once the bindings are known (when DispatchGraph is
// recorded); `launch` enqueues the steps, in order, on one stream — a
// capturing one when a command list is closed (CommandList.h).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_PLAN_H
#define CGC_DRIVERS_CUDA_PLAN_H

#include "Kernels.h"

#include "cgc/api.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace cgc::cuda {

/// A byte range a step reads or writes: part of a bind point or of the
/// temporary resource.
struct BufferRef {
  enum class Base : uint8_t { BindPoint, Temporary };
  Base base = Base::Temporary;
  uint32_t bindPoint = 0; // Base::BindPoint only
  uint64_t offset = 0;
  uint64_t size = 0;

  static BufferRef bindPointRange(uint32_t index, uint64_t offset, uint64_t size) {
    return {Base::BindPoint, index, offset, size};
  }
  static BufferRef temporaryRange(uint64_t offset, uint64_t size) {
    return {Base::Temporary, 0, offset, size};
  }
  /// Whether the two ranges share a byte (only ranges of one base can).
  bool overlaps(const BufferRef &other) const;
};

/// One unit of work: a kernel over its inputs and outputs with a workspace
/// in the temporary resource, or a copy of `inputs[0]` into `outputs[0]`.
struct PlanStep {
  enum class Kind : uint8_t { Kernel, Copy };
  Kind kind = Kind::Kernel;
  /// Kind::Kernel only; shared by every invocation of the subgraph.
  std::shared_ptr<const Kernel> kernel;
  llvm::SmallVector<BufferRef, 4> inputs;
  llvm::SmallVector<BufferRef, 2> outputs;
  /// The kernel's workspace (size 0: none).
  BufferRef workspace;
};

/// A compiled partition.
class Plan {
public:
  /// One per partition argument, in order.
  std::vector<CgcBindPointDesc> bindPoints;
  /// Bytes of the temporary resource the steps use; bound by SetProgram.
  uint64_t temporaryResourceSize = 0;
  /// Launched in order on one stream: a later step may read what an earlier
  /// one wrote, and steps may share temporary memory.
  std::vector<PlanStep> steps;

  /// The number of pointers `resolve` produces: per step, its inputs, its
  /// outputs and its workspace.
  size_t getNumOperands() const;

  /// Appends to `out` the device pointer of every step operand:
  /// `bindPointAddresses[i]` is where bind point i starts, `temporary` where
  /// the temporary resource starts.
  void resolve(std::span<const CgcDeviceAddress> bindPointAddresses, CgcDeviceAddress temporary,
               std::vector<void *> &out) const;

  /// Enqueues the steps on `stream` over pointers from `resolve`: kernels
  /// through their launch functions, copies as cudaMemcpyAsync. Allocates
  /// nothing and never synchronizes, so that it can be captured. Returns ""
  /// or a message naming the step and what failed.
  std::string launch(std::span<void *const> operands, cudaStream_t stream) const;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_PLAN_H
