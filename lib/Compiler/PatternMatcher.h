//===- PatternMatcher.h - a target's patterns against an entry point -*- C++ -*-===//
//
// Stage 1's matcher: finds the concrete matches of one `cgc_pattern.pattern`
// among the layers of an entry point, as `CGCPatternOps.td` defines them.
// Selection among overlapping matches, specialization and the rewrite are
// MatchSubgraphs.cpp's.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_COMPILER_PATTERNMATCHER_H
#define CGC_LIB_COMPILER_PATTERNMATCHER_H

#include "cgc/Compiler/Compiler.h"
#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace cgc::compiler {

/// One concrete match of a pattern: the layers it covers and how the subgraph
/// made of them connects to the rest of the entry point.
struct PatternMatch {
  pattern::PatternOp pattern;
  const Target *target = nullptr;
  int64_t benefit = 0;
  /// The matched layers in program order; the root's producer is last.
  llvm::SmallVector<mlir::Operation *> layers;
  /// The distinct values from outside the match that the layers read, in
  /// order of first use: the subgraph's arguments.
  llvm::SmallVector<mlir::Value> inputs;
  /// The value the subgraph produces first: the root.
  mlir::Value root;
  /// The pattern's further outputs (matched values that layers outside may
  /// read), in the pattern's order: the subgraph's other results.
  llvm::SmallVector<mlir::Value> outputs;
  /// The largest alignment the pattern's `cgc.alignment` constraints ask for
  /// (0: none): a memory-planning request recorded on the subgraph.
  uint64_t alignment = 0;
};

/// Matches patterns against the layers of one entry point, whose body must
/// not change while the matcher is used (it numbers the ops once).
class PatternMatcher {
public:
  explicit PatternMatcher(EntryPointOp entry);

  /// Every valid match of `pattern` (a pattern of `target`'s declaration), in
  /// program order of their roots; distinct matches cover distinct layer sets.
  /// A match is valid when the pattern's values bind consistently, its
  /// constraints hold, each chain is the greedy longest one from its anchor
  /// (a view chain of an input: the longest one into the match), only the
  /// root and the pattern's outputs are used outside the match (the outputs
  /// by layers after the root only) and the match is convex.
  ///
  /// With `taken` (layers already in accepted subgraphs), matches avoid those
  /// layers and a chain may end where a taken layer begins (or, running into
  /// the match, where one ends): the greedy rule reads the IR without them.
  llvm::SmallVector<PatternMatch>
  match(pattern::PatternOp pattern, const Target &target,
        const llvm::DenseSet<mlir::Operation *> *taken = nullptr) const;

  /// The position of `op` in the entry point's body.
  unsigned getPosition(mlir::Operation *op) const { return positions.lookup(op); }

private:
  EntryPointOp entry;
  llvm::DenseMap<mlir::Operation *, unsigned> positions;
};

} // namespace cgc::compiler

#endif // CGC_LIB_COMPILER_PATTERNMATCHER_H
