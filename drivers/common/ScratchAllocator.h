//===- ScratchAllocator.h - first-fit placement in one scratch area -*- C++ -*-===//
//
// Shared by the driver plugins to lay out the values a subgraph keeps in its
// program's temporary resource: a block is taken when the value is produced
// and given back after its last reader, so values whose lifetimes do not
// overlap share memory. The area grows as needed; its peak is the size the
// program asks for.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_COMMON_SCRATCHALLOCATOR_H
#define CGC_DRIVERS_COMMON_SCRATCHALLOCATOR_H

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace cgc::drivers {

/// Rounds `value` up to a multiple of `alignment` (a power of two).
constexpr uint64_t alignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

/// First-fit placement of blocks in one growing scratch area; every offset
/// is a multiple of the alignment it was made with.
class ScratchAllocator {
public:
  explicit ScratchAllocator(uint64_t alignment) : alignment(alignment) {}

  /// The offset of a new block of `size` bytes (0, and no block, for 0 bytes:
  /// nothing is read or written there).
  uint64_t allocate(uint64_t size) {
    uint64_t rounded = alignTo(size, alignment);
    if (rounded == 0)
      return 0;
    uint64_t candidate = 0;
    auto position = live.begin();
    for (; position != live.end(); ++position) {
      if (candidate + rounded <= position->first)
        break;
      candidate = std::max(candidate, position->first + position->second);
    }
    live.insert(position, {candidate, rounded});
    peak = std::max(peak, candidate + rounded);
    return candidate;
  }

  /// Gives back the block at `offset` (a no-op for empty blocks).
  void release(uint64_t offset, uint64_t size) {
    if (alignTo(size, alignment) == 0)
      return;
    auto it = std::find_if(live.begin(), live.end(),
                           [&](const auto &block) { return block.first == offset; });
    if (it != live.end())
      live.erase(it);
  }

  /// The end of the highest block ever taken.
  uint64_t getPeak() const { return peak; }

private:
  uint64_t alignment;
  /// Live blocks (offset, size), sorted by offset.
  std::vector<std::pair<uint64_t, uint64_t>> live;
  uint64_t peak = 0;
};

} // namespace cgc::drivers

#endif // CGC_DRIVERS_COMMON_SCRATCHALLOCATOR_H
