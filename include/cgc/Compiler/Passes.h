//===- Passes.h - OpenCGC compiler passes and pipelines ---------*- C++ -*-===//
//
// Input IR -> Output IR. Pipelines are named functions taking an options
// struct, so that tools and the runtime compile exactly what `cgc-opt` does.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_COMPILER_PASSES_H
#define CGC_COMPILER_PASSES_H

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpDialect.h"
#include "cgc/Dialect/CGCPattern/IR/CGCPatternDialect.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace cgc {

#define GEN_PASS_DECL
#include "cgc/Compiler/Passes.h.inc"

/// Byte alignment of every slot the baseline memory plan gives an
/// intermediate in the scratch buffer.
inline constexpr uint64_t kScratchSlotAlignment = 64;

/// Lowers the Input IR in `module` (one `cgc.entry_point`) to Output IR in
/// place, as the `cgc-baseline-pipeline` pass describes. Emits an error at the
/// offending op and fails when the module is not Input IR.
mlir::LogicalResult lowerToBaselineOutputIR(ModuleOp module,
                                            const BaselinePipelineOptions &options);

/// Adds the baseline compile pipeline (Input IR -> verified Output IR) to `pm`,
/// which must be anchored on `cgc.module`.
void buildBaselinePipeline(mlir::OpPassManager &pm, const BaselinePipelineOptions &options);

#define GEN_PASS_REGISTRATION
#include "cgc/Compiler/Passes.h.inc"

} // namespace cgc

#endif // CGC_COMPILER_PASSES_H
