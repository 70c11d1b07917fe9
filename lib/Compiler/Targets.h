//===- Targets.h - targets for cgc-opt's compiler passes --------*- C++ -*-===//
//
// The passes run alone in `cgc-opt` take their targets from options; the
// parsers (`loadDeclarationFile`, `parseTargetAlignment`) are declared with
// the rest of the compiler's interface.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_COMPILER_TARGETS_H
#define CGC_LIB_COMPILER_TARGETS_H

#include "cgc/Compiler/Compiler.h"

#endif // CGC_LIB_COMPILER_TARGETS_H
