//===- MergeCommonLayers.cpp - compute each value of Input IR once --------===//
//
// Exporters repeat work per layer of a model: torch.onnx writes BERT's
// attention mask (where(mask, 0, -inf) over batch x 128 x 128) once per
// encoder layer, from constants of the same value under per-layer names.
// The importer gives equal small constants one name, so those layers have
// equal operands; this rewrite keeps the first of each set of equal layers
// (MLIR's common subexpression elimination: cgc_op layers and cgc.constant
// are Pure) and removes the rest. Twelve mask kernels of BERT-base become
// one.
//
//===----------------------------------------------------------------------===//

#include "InputIREntryPoint.h"

#include "cgc/Compiler/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

namespace cgc {
#define GEN_PASS_DEF_MERGECOMMONLAYERS
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {

FailureOr<unsigned> mergeCommonLayers(ModuleOp module) {
  FailureOr<EntryPointOp> entry = getConvertibleEntryPoint(module, "merging common layers");
  if (failed(entry))
    return failure();
  Block &body = entry->getBody().front();
  size_t before = body.getOperations().size();
  IRRewriter rewriter(module.getContext());
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, *entry);
  return static_cast<unsigned>(before - body.getOperations().size());
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct MergeCommonLayersPass : impl::MergeCommonLayersBase<MergeCommonLayersPass> {
  void runOnOperation() override {
    if (failed(compiler::mergeCommonLayers(getOperation())))
      signalPassFailure();
  }
};
} // namespace
} // namespace cgc
