//===- DependenciesTest.cpp - CUDA graph edges from D3D12 barriers ---------===//
//
// The CUDA driver turns a command list into one CUDA graph whose edges come
// from the list's barriers (drivers/cuda/Dependencies.h). These tests check
// those edges on the command shapes the conformance suite and the runtime
// record, without a GPU.
//
//===----------------------------------------------------------------------===//

#include "Dependencies.h"

#include <gtest/gtest.h>

#include <vector>

using cgc::cuda::AddressRange;
using cgc::cuda::DependencyBuilder;
using cgc::cuda::DependencyNode;

namespace {

using Ranges = std::vector<AddressRange>;

AddressRange range(uint64_t begin, uint64_t end) { return {begin, end}; }

/// The predecessors of `node`.
std::vector<uint32_t> predecessorsOf(const DependencyBuilder &builder, uint32_t node) {
  return builder.getNodes().at(node).predecessors;
}

TEST(CUDADependencies, RangesOverlapOnSharedBytesOnly) {
  EXPECT_TRUE(range(0, 16).overlaps(range(15, 32)));
  EXPECT_FALSE(range(0, 16).overlaps(range(16, 32))) << "adjacent ranges share no byte";
  EXPECT_FALSE(range(8, 8).overlaps(range(0, 16))) << "an empty range touches nothing";
  EXPECT_EQ(AddressRange::ofSize(UINT64_MAX - 1, 8).end, UINT64_MAX) << "saturates";
}

TEST(CUDADependencies, CommandsWithoutBarriersAreConcurrent) {
  DependencyBuilder builder;
  Ranges same = {range(0, 64)};
  uint32_t first = builder.addCommand(0, same);
  uint32_t second = builder.addCommand(1, same);
  EXPECT_TRUE(predecessorsOf(builder, first).empty());
  EXPECT_TRUE(predecessorsOf(builder, second).empty()) << "no barrier: no edge, even on "
                                                          "the same bytes";
}

TEST(CUDADependencies, GlobalBarrierJoinsEverythingBefore) {
  // The spec partition's list: five uploads, a barrier, the dispatch, a
  // barrier, the readback.
  DependencyBuilder builder;
  std::vector<uint32_t> uploads;
  for (uint32_t i = 0; i < 5; ++i) {
    Ranges touched = {range(1000 * i, 1000 * i + 64), range(9000 + 100 * i, 9064 + 100 * i)};
    uploads.push_back(builder.addCommand(i, touched));
  }
  builder.addGlobalBarrier();
  Ranges dispatchRanges = {range(0, 64), range(20000, 20064)};
  uint32_t dispatch = builder.addCommand(5, dispatchRanges);
  builder.addGlobalBarrier();
  Ranges readbackRanges = {range(30000, 30064), range(20000, 20064)};
  uint32_t readback = builder.addCommand(6, readbackRanges);

  const std::vector<DependencyNode> &nodes = builder.getNodes();
  ASSERT_EQ(nodes.size(), 8u) << "five uploads, one join, the dispatch, the readback";
  uint32_t join = predecessorsOf(builder, dispatch).at(0);
  EXPECT_EQ(predecessorsOf(builder, dispatch).size(), 1u);
  EXPECT_EQ(nodes[join].command, DependencyNode::kJoin);
  EXPECT_EQ(nodes[join].predecessors, uploads);
  // One command before the second barrier: it is the join itself.
  EXPECT_EQ(predecessorsOf(builder, readback), std::vector<uint32_t>{dispatch});
}

TEST(CUDADependencies, BarriersWithNothingBeforeAddNothing) {
  DependencyBuilder builder;
  builder.addGlobalBarrier();
  builder.addRangeBarrier(range(0, 64));
  Ranges touched = {range(0, 64)};
  uint32_t first = builder.addCommand(0, touched);
  builder.addGlobalBarrier();
  builder.addGlobalBarrier();
  uint32_t second = builder.addCommand(1, touched);
  EXPECT_TRUE(predecessorsOf(builder, first).empty());
  EXPECT_EQ(predecessorsOf(builder, second), std::vector<uint32_t>{first});
  EXPECT_EQ(builder.getNodes().size(), 2u) << "no join node for a single command";
}

TEST(CUDADependencies, RangeBarrierOrdersOnlyCommandsTouchingTheRange) {
  DependencyBuilder builder;
  Ranges writesA = {range(0, 64)}, writesB = {range(64, 128)};
  uint32_t a = builder.addCommand(0, writesA);
  uint32_t b = builder.addCommand(1, writesB);
  builder.addRangeBarrier(range(0, 64));
  Ranges readsA = {range(32, 48), range(512, 576)};
  uint32_t readerOfA = builder.addCommand(2, readsA);
  Ranges readsB = {range(64, 80)};
  uint32_t readerOfB = builder.addCommand(3, readsB);
  EXPECT_EQ(predecessorsOf(builder, readerOfA), std::vector<uint32_t>{a});
  EXPECT_TRUE(predecessorsOf(builder, readerOfB).empty()) << "B's range had no barrier";
  (void)b;
}

TEST(CUDADependencies, RangeBarriersChain) {
  // A writes X; barrier X; B reads X, writes Y; barrier Y; C reads Y.
  DependencyBuilder builder;
  AddressRange x = range(0, 256), y = range(256, 512);
  Ranges a = {x}, b = {x, y}, c = {y};
  uint32_t nodeA = builder.addCommand(0, a);
  builder.addRangeBarrier(x);
  uint32_t nodeB = builder.addCommand(1, b);
  builder.addRangeBarrier(y);
  uint32_t nodeC = builder.addCommand(2, c);
  EXPECT_EQ(predecessorsOf(builder, nodeB), std::vector<uint32_t>{nodeA});
  EXPECT_EQ(predecessorsOf(builder, nodeC), std::vector<uint32_t>{nodeB})
      << "A does not touch Y: C needs no edge from it";

  // A later command touching X is ordered after A only: B, like it, came
  // after the barrier on X, and the barrier on Y does not cover X.
  Ranges touchesX = {range(8, 16)};
  uint32_t nodeD = builder.addCommand(3, touchesX);
  EXPECT_EQ(predecessorsOf(builder, nodeD), std::vector<uint32_t>{nodeA});
}

TEST(CUDADependencies, GlobalBarrierJoinsOnlyTheLeaves) {
  DependencyBuilder builder;
  Ranges x = {range(0, 64)}, other = {range(1024, 2048)};
  uint32_t writer = builder.addCommand(0, x);
  builder.addRangeBarrier(range(0, 64));
  uint32_t reader = builder.addCommand(1, x);
  uint32_t unrelated = builder.addCommand(2, other);
  builder.addGlobalBarrier();
  uint32_t after = builder.addCommand(3, other);
  uint32_t join = predecessorsOf(builder, after).at(0);
  EXPECT_EQ(builder.getNodes()[join].command, DependencyNode::kJoin);
  EXPECT_EQ(builder.getNodes()[join].predecessors, (std::vector<uint32_t>{reader, unrelated}))
      << "the writer reaches the join through its reader";
  (void)writer;

  // After the join, a range barrier orders the next command after `after`,
  // through which it also follows the join: one edge.
  builder.addRangeBarrier(range(1024, 2048));
  uint32_t last = builder.addCommand(4, other);
  EXPECT_EQ(predecessorsOf(builder, last), std::vector<uint32_t>{after});
}

TEST(CUDADependencies, ChainOnOneRangeKeepsSingleEdges) {
  // Dispatches sharing a temporary resource, a barrier on it before each
  // (what the runtime records): each waits for the previous one only.
  DependencyBuilder builder;
  Ranges temporary = {range(4096, 8192)};
  std::vector<uint32_t> dispatches;
  for (uint32_t i = 0; i < 6; ++i) {
    builder.addRangeBarrier(range(4096, 8192));
    dispatches.push_back(builder.addCommand(i, temporary));
  }
  EXPECT_TRUE(predecessorsOf(builder, dispatches[0]).empty());
  for (size_t i = 1; i < dispatches.size(); ++i)
    EXPECT_EQ(predecessorsOf(builder, dispatches[i]), std::vector<uint32_t>{dispatches[i - 1]})
        << "dispatch " << i;
}

TEST(CUDADependencies, TimestampsOrderLikeGlobalBarriersOnBothSides) {
  DependencyBuilder builder;
  uint32_t first = builder.addOrderedCommand(0);
  EXPECT_TRUE(predecessorsOf(builder, first).empty()) << "nothing before the list's first";
  uint32_t a = builder.addCommand(1, Ranges{range(0, 64)});
  uint32_t b = builder.addCommand(2, Ranges{range(64, 128)});
  uint32_t timestamp = builder.addOrderedCommand(3);
  uint32_t c = builder.addCommand(4, Ranges{range(128, 192)});
  uint32_t second = builder.addOrderedCommand(5);
  uint32_t third = builder.addOrderedCommand(6);
  uint32_t resolve = builder.addCommand(7, Ranges{range(4096, 4112)});

  // a and b may still run together, after the first timestamp; the next one
  // waits for both through a join, and c waits for it.
  EXPECT_EQ(predecessorsOf(builder, a), std::vector<uint32_t>{first});
  EXPECT_EQ(predecessorsOf(builder, b), std::vector<uint32_t>{first});
  std::vector<uint32_t> beforeTimestamp = predecessorsOf(builder, timestamp);
  ASSERT_EQ(beforeTimestamp.size(), 1u);
  const DependencyNode &join = builder.getNodes().at(beforeTimestamp.front());
  EXPECT_EQ(join.command, DependencyNode::kJoin);
  EXPECT_EQ(join.predecessors, (std::vector<uint32_t>{a, b}));
  EXPECT_EQ(predecessorsOf(builder, c), std::vector<uint32_t>{timestamp});
  // Back to back: a chain, with no join for a single command.
  EXPECT_EQ(predecessorsOf(builder, second), std::vector<uint32_t>{c});
  EXPECT_EQ(predecessorsOf(builder, third), std::vector<uint32_t>{second});
  // A resolve after them reads every query they wrote.
  EXPECT_EQ(predecessorsOf(builder, resolve), std::vector<uint32_t>{third});
  EXPECT_EQ(builder.getNodes().at(timestamp).command, 3u);
}

TEST(CUDADependencies, PredecessorsComeFirst) {
  DependencyBuilder builder;
  for (uint32_t i = 0; i < 32; ++i) {
    Ranges touched = {range(64 * (i % 4), 64 * (i % 4) + 64)};
    builder.addCommand(i, touched);
    if (i % 3 == 0)
      builder.addRangeBarrier(range(0, 128));
    if (i % 7 == 6)
      builder.addGlobalBarrier();
  }
  const std::vector<DependencyNode> &nodes = builder.getNodes();
  for (uint32_t id = 0; id < nodes.size(); ++id)
    for (uint32_t predecessor : nodes[id].predecessors)
      EXPECT_LT(predecessor, id) << "node " << id;
}

} // namespace
