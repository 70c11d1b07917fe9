//===- Dependencies.h - command ordering from D3D12 barriers ----*- C++ -*-===//
//
// The edges of a command list's CUDA graph, derived from its barriers with
// D3D12's semantics, as plain data (no CUDA here, so it is tested on any
// machine):
//
//  * without a barrier between them, two commands may run concurrently;
//  * a GLOBAL barrier orders every command before it before every command
//    after it: the commands since the previous global barrier meet in a join
//    node (or in their one command), on which everything later depends;
//  * a BUFFER_RANGE barrier orders the earlier commands that touch its range
//    before the later commands that touch it. Only commands since the last
//    global barrier need edges: earlier ones are ordered by the join.
//
// Edges implied by a predecessor's own direct predecessors are left out, so
// chains stay chains; this is a local reduction, not a transitive one.
//
// A command touches its ranges: for a dispatch, its bindings and the
// temporary and persistent resources; for a copy, its source and destination.
// A timestamp touches none: it is ordered after everything before it and
// before everything after it, like a global barrier on both sides.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_DEPENDENCIES_H
#define CGC_DRIVERS_CUDA_DEPENDENCIES_H

#include <cstdint>
#include <span>
#include <vector>

namespace cgc::cuda {

/// Bytes [begin, end) of the device address space.
struct AddressRange {
  uint64_t begin = 0;
  uint64_t end = 0;

  /// The range of `size` bytes at `address` (saturating at the top).
  static AddressRange ofSize(uint64_t address, uint64_t size) {
    uint64_t end = address + size;
    return {address, end < address ? UINT64_MAX : end};
  }
  bool overlaps(const AddressRange &other) const {
    return begin < end && other.begin < other.end && begin < other.end && other.begin < end;
  }
};

/// A node of the dependency graph: a recorded command, or a join where the
/// commands before a global barrier meet.
struct DependencyNode {
  static constexpr uint32_t kJoin = UINT32_MAX;
  /// The command's index among the list's commands, or kJoin.
  uint32_t command = kJoin;
  /// Nodes that must complete first; all earlier in the node list, sorted.
  std::vector<uint32_t> predecessors;
};

/// Builds the graph command by command, in recorded order.
class DependencyBuilder {
public:
  /// Adds command `command` touching `ranges`; returns its node.
  uint32_t addCommand(uint32_t command, std::span<const AddressRange> ranges);
  /// Adds command `command` after every earlier command and before every
  /// later one (a timestamp); returns its node.
  uint32_t addOrderedCommand(uint32_t command);
  void addGlobalBarrier();
  void addRangeBarrier(AddressRange range);

  /// Nodes in an order where predecessors come first.
  const std::vector<DependencyNode> &getNodes() const { return nodes; }

private:
  struct Recent {
    uint32_t node;
    std::vector<AddressRange> ranges;
    bool hasSuccessor = false; // among the recent commands
  };
  struct RangeBarrier {
    AddressRange range;
    std::vector<uint32_t> before; // indices into `recent`
  };

  /// Removes from sorted `predecessors` those another one directly follows.
  void dropImplied(std::vector<uint32_t> &predecessors) const;

  std::vector<DependencyNode> nodes;
  /// What everything recorded since the last global barrier depends on.
  uint32_t join = DependencyNode::kJoin;
  /// Commands since the last global barrier.
  std::vector<Recent> recent;
  /// Range barriers since the last global barrier.
  std::vector<RangeBarrier> barriers;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_DEPENDENCIES_H
