//===- ProjectionFusion.h - products of one input as one product -*- C++ -*-===//
//
// BERT's attention computes its query, key and value as three products of
// the same hidden states with three weights (and three biases). The
// importer, which holds the weights, packs such products into one: the
// weights side by side ([K, G·N]), the biases likewise, one matmul and one
// add, and each original result a selection of the packed one (reshape to
// [..., G, N], gather of one constant index), the form nn.MultiheadAttention
// exports its own packed projection in and the attention patterns read as
// views. One product of three times the columns uses the GPU better than
// three, and is one kernel instead of three.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_IMPORT_ONNX_PROJECTIONFUSION_H
#define CGC_LIB_IMPORT_ONNX_PROJECTIONFUSION_H

#include "NodeContext.h"

#include "mlir/IR/Block.h"

namespace cgc::importer {

/// Packs, in `body`, each set of at least two matmuls that read the same
/// value times a 2-D constant weight of one type and shape (no other
/// reader of the weights or the products), each followed by an add of a
/// 1-D constant bias of its columns (every one of the set, or none), into
/// one product as the file comment says. The packed weights and biases are
/// new constants of `state` (GraphState::materialize); the replaced ones are
/// removed (their weights stay in `state` until dropUnreferencedWeights).
/// Returns how many sets were packed.
llvm::Expected<unsigned> fuseSharedInputProjections(mlir::Block &body, GraphState &state);

} // namespace cgc::importer

#endif // CGC_LIB_IMPORT_ONNX_PROJECTIONFUSION_H
