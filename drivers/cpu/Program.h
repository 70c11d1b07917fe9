//===- Program.h - MLIR programs: compiled partitions -----------*- C++ -*-===//
//
// createProgram reads a CGC_SUBGRAPH_PARTITION container, lowers each subgraph
// the partition invokes (SubgraphLowering.h) and strings the invocations
// together into a Plan over the partition's bind points and one temporary
// resource. Invocations run one after another, so all of them share the
// temporary resource: its size is the largest any invocation needs.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CPU_PROGRAM_H
#define CGC_DRIVERS_CPU_PROGRAM_H

#include "PartitionReader.h"
#include "Plan.h"

#include "cgc/api.h"

#include <cstdint>
#include <span>
#include <string>

namespace cgc::cpu {

class Device;

/// The object behind a `void *program` handle.
class Program {
public:
  Program(Device &device, std::string name, Plan plan)
      : device(device), name(std::move(name)), plan(std::move(plan)) {}

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

/// Compiles the partition in `container` into `plan`. Failures name the
/// partition, subgraph and layer: "partition 'p0', subgraph @conv_3:
/// cgc_op.gelu: element type int32 is not implemented". Uses an MLIRContext
/// of its own, so that programs compile in parallel on separate threads.
CompileFailure compilePartition(std::span<const uint8_t> container,
                                const std::string &programName, Plan &plan);

} // namespace cgc::cpu

#endif // CGC_DRIVERS_CPU_PROGRAM_H
