//===- Program.h - MLIR programs: compiled partitions -----------*- C++ -*-===//
//
// createProgram reads a CGC_SUBGRAPH_PARTITION container and builds every
// layer of every subgraph it invokes with the kernel library (Kernels.h):
// one kernel per layer, the definition's internal values and each kernel's
// workspace laid out in the temporary resource with liveness reuse. The
// invocations become one Plan over the partition's bind points; they run one
// after another on one stream, so they share the temporary resource, whose
// size is the largest any invocation needs.
//
// The driver declares no fused patterns yet, so every subgraph it sees comes
// from its fallback target and is compiled layer by layer.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_PROGRAM_H
#define CGC_DRIVERS_CUDA_PROGRAM_H

#include "PartitionReader.h"
#include "Plan.h"

#include "cgc/api.h"

#include <cstdint>
#include <span>
#include <string>

namespace cgc::cuda {

class Device;
class KernelContext;

/// The object behind a `void *program` handle.
class Program {
public:
  Program(Device &device, std::string name, Plan plan)
      : device(device), name(std::move(name)), plan(std::move(plan)) {}
  /// Frees the kernels with the program's device current.
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  Device &getDevice() { return device; }
  const std::string &getName() const { return name; }
  const Plan &getPlan() const { return plan; }

  /// Two-call protocol: with `bindPoints` null, only the count and the
  /// resource sizes are written.
  CgcStatus getBindingProperties(CgcProgramBindingProperties &properties);

private:
  Device &device;
  std::string name;
  Plan plan;
};

/// Why a partition did not compile.
using drivers::CompileFailure;

/// Compiles the partition in `container` into `plan`, building kernels in
/// `kernels` (the calling thread's current device must be the context's).
/// Failures name the partition, subgraph and layer: "partition 'p0',
/// subgraph @conv_3: cgc_op.gelu: element type int32 is not implemented on
/// the CUDA driver" (CGC_ERROR_UNSUPPORTED; a kernel library error that says
/// invalid_argument or not_enough_memory keeps that meaning). Uses an
/// MLIRContext of its own, so that programs compile in parallel.
CompileFailure compilePartition(std::span<const uint8_t> container, const std::string &programName,
                                KernelContext &kernels, Plan &plan);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_PROGRAM_H
