//===- Dependencies.cpp - command ordering from D3D12 barriers -------------===//

#include "Dependencies.h"

#include <algorithm>

namespace cgc::cuda {

void DependencyBuilder::dropImplied(std::vector<uint32_t> &predecessors) const {
  // An edge from a node that another predecessor directly follows is implied
  // by that predecessor: a chain of commands on one range (dispatches sharing
  // a temporary resource, each after a barrier on it) stays a chain of single
  // edges instead of growing quadratically.
  std::vector<uint32_t> implied;
  for (uint32_t predecessor : predecessors)
    for (uint32_t earlier : nodes[predecessor].predecessors)
      implied.push_back(earlier);
  if (implied.empty())
    return;
  std::sort(implied.begin(), implied.end());
  std::erase_if(predecessors, [&](uint32_t predecessor) {
    return std::binary_search(implied.begin(), implied.end(), predecessor);
  });
}

uint32_t DependencyBuilder::addCommand(uint32_t command, std::span<const AddressRange> ranges) {
  DependencyNode node;
  node.command = command;
  if (join != DependencyNode::kJoin)
    node.predecessors.push_back(join);
  auto touches = [&](const AddressRange &range) {
    return std::any_of(ranges.begin(), ranges.end(),
                       [&](const AddressRange &mine) { return mine.overlaps(range); });
  };
  for (const RangeBarrier &barrier : barriers) {
    if (!touches(barrier.range))
      continue;
    for (uint32_t earlier : barrier.before) {
      node.predecessors.push_back(recent[earlier].node);
      recent[earlier].hasSuccessor = true;
    }
  }
  std::sort(node.predecessors.begin(), node.predecessors.end());
  node.predecessors.erase(std::unique(node.predecessors.begin(), node.predecessors.end()),
                          node.predecessors.end());
  dropImplied(node.predecessors);

  auto id = static_cast<uint32_t>(nodes.size());
  nodes.push_back(std::move(node));
  recent.push_back({id, std::vector<AddressRange>(ranges.begin(), ranges.end())});
  return id;
}

uint32_t DependencyBuilder::addOrderedCommand(uint32_t command) {
  addGlobalBarrier();
  uint32_t id = addCommand(command, {});
  // The command is the one recent command: it becomes the join.
  addGlobalBarrier();
  return id;
}

void DependencyBuilder::addRangeBarrier(AddressRange range) {
  RangeBarrier barrier{range, {}};
  for (uint32_t index = 0; index < recent.size(); ++index)
    if (std::any_of(recent[index].ranges.begin(), recent[index].ranges.end(),
                    [&](const AddressRange &touched) { return touched.overlaps(range); }))
      barrier.before.push_back(index);
  // Commands that another one of them already follows directly need no edge
  // of their own.
  std::vector<uint32_t> implied;
  for (uint32_t index : barrier.before)
    for (uint32_t predecessor : nodes[recent[index].node].predecessors)
      implied.push_back(predecessor);
  std::sort(implied.begin(), implied.end());
  std::erase_if(barrier.before, [&](uint32_t index) {
    return std::binary_search(implied.begin(), implied.end(), recent[index].node);
  });
  // Nothing before the barrier touches the range: it orders nothing.
  if (!barrier.before.empty())
    barriers.push_back(std::move(barrier));
}

void DependencyBuilder::addGlobalBarrier() {
  if (recent.empty())
    return; // The previous join (if any) still orders everything.
  // The commands nothing recent depends on: every other recent command
  // reaches the join through one of them.
  std::vector<uint32_t> leaves;
  for (const Recent &command : recent)
    if (!command.hasSuccessor)
      leaves.push_back(command.node);
  if (leaves.size() == 1) {
    join = leaves.front();
  } else {
    DependencyNode node;
    node.predecessors = std::move(leaves);
    join = static_cast<uint32_t>(nodes.size());
    nodes.push_back(std::move(node));
  }
  recent.clear();
  barriers.clear();
}

} // namespace cgc::cuda
