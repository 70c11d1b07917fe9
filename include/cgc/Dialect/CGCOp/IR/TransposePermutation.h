//===- TransposePermutation.h - what a cgc_op.transpose permutes -*- C++ -*-===//
//
// `cgc_op.transpose`'s `permutation` is optional: without it the op reverses
// the dimensions. The compiler and the drivers that read a transpose ask
// here for the permutation it applies, so that the default lives in one
// place.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DIALECT_CGCOP_IR_TRANSPOSEPERMUTATION_H
#define CGC_DIALECT_CGCOP_IR_TRANSPOSEPERMUTATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace cgc::op {

class TransposeOp;

/// The permutation a transpose of `rank` dimensions with the attribute
/// `permutation` applies: the attribute, or the reversal of the dimensions
/// when it is empty (absent).
llvm::SmallVector<int64_t> getTransposePermutation(llvm::ArrayRef<int64_t> permutation,
                                                   int64_t rank);

/// The permutation `transpose` applies.
llvm::SmallVector<int64_t> getTransposePermutation(TransposeOp transpose);

} // namespace cgc::op

#endif // CGC_DIALECT_CGCOP_IR_TRANSPOSEPERMUTATION_H
