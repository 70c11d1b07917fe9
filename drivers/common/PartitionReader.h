//===- PartitionReader.h - a partition container as a driver sees it -*- C++ -*-===//
//
// Shared by the driver plugins: reading a CGC_SUBGRAPH_PARTITION container
// into the bind point descriptions the API reports and, per `cgc.invoke` in
// order, the subgraph and the bind point byte range of each operand. What a
// driver makes of a subgraph (kernels, scratch layout) stays its own.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_COMMON_PARTITIONREADER_H
#define CGC_DRIVERS_COMMON_PARTITIONREADER_H

#include "cgc/api.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cgc {
class SubgraphOp;
} // namespace cgc

namespace cgc::drivers {

/// Why a partition did not compile.
struct CompileFailure {
  CgcStatus status = CGC_OK;
  std::string message;
};

/// A byte range of one bind point: what a partition memref operand (a bind
/// point, or a view of one) stands for.
struct BindPointRange {
  uint32_t bindPoint = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// One subgraph invocation of the partition. `where` names the partition
/// ("partition 'p0'") for messages; `operands` are the invocation's ranges,
/// the subgraph's `getNumInputs()` inputs first. A failure returned stops the
/// reading and is returned by readPartition.
using InvocationVisitor = llvm::function_ref<CompileFailure(
    const std::string &where, SubgraphOp subgraph, std::span<const BindPointRange> operands)>;

/// Reads `container` (checked by the API: header, digest) into one bind
/// point description per partition argument (size, element alignment,
/// CONSTANT and WRITTEN flags) and calls `visit` for each invocation. Uses an
/// MLIRContext of its own, so that programs compile in parallel.
CompileFailure readPartition(std::span<const uint8_t> container, const std::string &programName,
                             std::vector<CgcBindPointDesc> &bindPoints, InvocationVisitor visit);

} // namespace cgc::drivers

#endif // CGC_DRIVERS_COMMON_PARTITIONREADER_H
