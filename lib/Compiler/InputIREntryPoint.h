//===- InputIREntryPoint.h - the entry point an Input IR rewrite takes -*- C++ -*-===//
//
// The whole-module rewrites of Input IR that run before matching (precision
// conversion, the channels-last layout) take the same input: one
// cgc.entry_point with a body of constants, layers and the return, and
// nothing else in the module. They check it the same way, each naming
// itself in the errors.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_COMPILER_INPUTIRENTRYPOINT_H
#define CGC_LIB_COMPILER_INPUTIRENTRYPOINT_H

#include "cgc/Compiler/Compiler.h"

namespace cgc::compiler {

/// The entry point of `module` when it is Input IR with a body: one
/// cgc.entry_point and nothing else, holding only cgc.constant, cgc_op
/// layers and cgc.return. Otherwise an error naming `conversion` ("precision
/// conversion") is emitted.
mlir::FailureOr<EntryPointOp> getConvertibleEntryPoint(ModuleOp module,
                                                       llvm::StringRef conversion);

} // namespace cgc::compiler

#endif // CGC_LIB_COMPILER_INPUTIRENTRYPOINT_H
