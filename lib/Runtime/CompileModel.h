//===- CompileModel.h - Input IR -> Output IR for the session's device -*- C++ -*-===//
//
// The runtime's use of the compiler: the device's driver becomes a
// cgc::compiler::Target (its declared patterns, its answers to
// specialization requests) beside its fallback target, and Input IR is
// compiled with the session's CompilerOptions — or by the baseline pipeline,
// the reference. Internal to lib/Runtime and cgc-compile.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_RUNTIME_COMPILEMODEL_H
#define CGC_LIB_RUNTIME_COMPILEMODEL_H

#include "ProgramPlan.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Dialect/CGC/IR/CGCOps.h"

namespace cgc::runtime {

/// Compiles the Input IR in `module` to Output IR in place, as `request`
/// says, and fills `stats`. Errors are emitted on the module's context and
/// name the driver when it is at fault (an invalid declaration, a failed or
/// malformed specialization answer).
/// The device's driver as a compiler target: its declaration read (and
/// checked) from the driver's reply, its specialization answers wired through
/// `device`. `numPatterns`, when given, receives how many it declared.
mlir::FailureOr<compiler::Target> makeCompilerTarget(const DeviceTarget &device,
                                                     mlir::MLIRContext *context,
                                                     mlir::Location loc,
                                                     unsigned *numPatterns = nullptr);

/// The compiler's precision for the session's.
compiler::Precision getCompilerPrecision(CompilerOptions::Precision precision);
/// The compiler's layout for the session's.
compiler::Layout getCompilerLayout(CompilerOptions::Layout layout);

/// The compiler's options for `request`: its knobs, the fallback target
/// "<driver>.fallback", and the driver's alignment everywhere.
compiler::CompileOptions getCompileOptions(const CompileRequest &request);

mlir::LogicalResult compileModel(cgc::ModuleOp module, const CompileRequest &request,
                                 CompileStats &stats);

} // namespace cgc::runtime

#endif // CGC_LIB_RUNTIME_COMPILEMODEL_H
