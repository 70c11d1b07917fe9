//===- Broadcast.h - numpy broadcasting of static shapes ---------*- C++ -*-===//
//
// Elementwise `cgc_op` layers broadcast their operands as numpy does: shapes
// are aligned at the back and a dimension of 1 stretches to its partner. The
// compiler's passes and pattern matcher and the drivers that fuse elementwise
// chains ask here whether an operand broadcasts to a shape unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DIALECT_CGCOP_IR_BROADCAST_H
#define CGC_DIALECT_CGCOP_IR_BROADCAST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <cstdint>

namespace cgc::op {

/// Whether a tensor of shape `from` broadcasts (numpy's rule) to `to`
/// without changing `to`.
inline bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (auto [fromSize, toSize] : llvm::zip(llvm::reverse(from), llvm::reverse(to)))
    if (fromSize != 1 && fromSize != toSize)
      return false;
  return true;
}

} // namespace cgc::op

#endif // CGC_DIALECT_CGCOP_IR_BROADCAST_H
