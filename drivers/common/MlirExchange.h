//===- MlirExchange.h - a driver's answers in the MLIR exchange -*- C++ -*-===//
//
// What every driver with a fused target answers through
// cgcCheckFeatureSupport(CGC_FEATURE_MLIR_EXCHANGE): a declaration request
// with its patterns (cgc_pattern IR, data embedded in the driver, possibly
// several files merged into one cgc.module), and a specialization request
// with the requested subgraphs one of its fused kernels implements whole —
// with the two-call size protocol of the reply. Which interfaces a driver
// supports (CGC_FEATURE_MLIR_INTERFACE_SUPPORT) is the same for every such
// driver too.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_COMMON_MLIREXCHANGE_H
#define CGC_DRIVERS_COMMON_MLIREXCHANGE_H

#include "PartitionReader.h"

#include "cgc/Interchange/Container.h"
#include "cgc/api.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <span>

namespace cgc {
class SubgraphOp;
} // namespace cgc

namespace cgc::drivers {

/// One file of a driver's patterns: a cgc.module of cgc_pattern.pattern ops.
struct PatternSource {
  const char *name;
  llvm::StringRef text;
};

/// The string attribute on a declaration's cgc.module that names the
/// activation layout a target's fused kernels prefer ("channels_last"); the
/// compiler reads it to choose its layout passes.
inline constexpr llvm::StringLiteral kPreferredLayoutAttrName = "cgc.preferred_layout";

/// A driver's fused target, as the exchange sees it.
struct FusedTarget {
  /// Names the driver in messages: "CPU", "CUDA".
  const char *driverName;
  /// Its patterns, declared as one cgc.module in this order.
  std::span<const PatternSource> patterns;
  /// Whether one of its fused kernels implements `subgraph` whole (checked
  /// without running anything). Accepting a subgraph the driver would run
  /// layer by layer would gain nothing over the fallback target and would
  /// hide from the compiler that a pattern promised more than its kernel
  /// does.
  llvm::function_ref<bool(SubgraphOp subgraph)> accepts;
  /// The activation layout its fused kernels prefer, declared as
  /// `cgc.preferred_layout` on the declaration's cgc.module ("channels_last":
  /// its patterns expect the compiler's channels-last form of convolutions);
  /// null: no preference, no attribute.
  const char *preferredLayout = nullptr;
};

/// The interfaces a driver with a fused target supports: partitions,
/// declaration and specialization requests and answers.
bool isExchangeInterfaceSupported(interchange::Interface interface);

/// Answers `exchange` for `target`: a declaration request (no input data,
/// or an empty CGC_SUBGRAPH_DECLARATION_REQUEST container) with the
/// patterns sealed as a CGC_SUBGRAPH_DECLARATION container; a
/// CGC_SUBGRAPH_SPECIALIZATION_REQUEST with a CGC_SUBGRAPH_SPECIALIZATION
/// container holding the subgraphs `target.accepts` (possibly none; the
/// compiler sends the others to the fallback target). Without an output
/// buffer only *outputDataSizeInBytes is written; with one too small it is
/// set and the call fails. A failure carries the status and message the
/// driver reports.
CompileFailure exchangeMlir(CgcFeatureDataMlirExchange &exchange, const FusedTarget &target);

} // namespace cgc::drivers

#endif // CGC_DRIVERS_COMMON_MLIREXCHANGE_H
