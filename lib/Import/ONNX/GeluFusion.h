//===- GeluFusion.h - exact GELU written out as erf layers -------*- C++ -*-===//
//
// Exporters that predate ONNX's Gelu (opset 20) write the exact GELU of
// BERT and ViT as five layers: x · (1 + erf(x / √2)) · ½, in one of a few
// orders. The importer, which knows the constants' values, turns each such
// group into one `cgc_op.gelu` (approximate "none"), so that targets see
// the activation they implement (a library epilogue, a kernel's own code)
// instead of a division by a runtime value, an erf and three products.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_IMPORT_ONNX_GELUFUSION_H
#define CGC_LIB_IMPORT_ONNX_GELUFUSION_H

#include "Runtime/Weights.h"

#include "mlir/IR/Block.h"

#include <map>
#include <string>

namespace cgc::importer {

/// Replaces, in `body`, each group of layers computing GELU(x) through erf
/// from one-element constants (read from `weights`, by the constants'
/// names) whose values are √2 (or 1/√2 multiplied), 1 and ½, rounded to
/// the element type, by `cgc_op.gelu`; intermediate values used outside
/// the group keep the layers. The constants left unread are removed (their
/// weights stay until GraphState::dropUnreferencedWeights). Returns how
/// many groups were replaced.
unsigned fuseErfGelu(mlir::Block &body,
                     const std::map<std::string, cgc::runtime::SharedTensor> &weights);

} // namespace cgc::importer

#endif // CGC_LIB_IMPORT_ONNX_GELUFUSION_H
