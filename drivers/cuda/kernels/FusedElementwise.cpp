//===- FusedElementwise.cpp - the fused elementwise kernel ----------------===//
//
// A definition made only of elementwise layers (Elementwise.cpp's: unary,
// binary with broadcasting, clip, gelu, erf, cast, where, prelu, pow,
// comparisons, logic) runs as one generated strided kernel
// (ElementwiseCodegen.h): each thread reads every definition argument once
// at its output element through broadcast strides, evaluates the layers in
// registers (ChainCodegen.h) and writes every result densely. Results must
// all have the output shape, which every value broadcasts to; float16 and
// bfloat16 values stay float between layers.
//
//===----------------------------------------------------------------------===//

#include "ChainCodegen.h"
#include "FusedSupport.h"

namespace cgc::cuda {

namespace {

constexpr const char *kFamily = "elementwise";

/// Whether the definition is this family's shape: elementwise layers only.
bool isElementwiseDefinition(FunctionalDefinitionOp definition) {
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  return !layers.empty() && llvm::all_of(layers, isElementwiseOp);
}

/// The strided kernel that evaluates the whole definition, or the reason
/// there is none.
llvm::Expected<StridedKernelSpec> getKernelSpec(FunctionalDefinitionOp definition) {
  if (definition.getNumResults() == 0)
    return makeFusedError(definition, kFamily, "a definition without results");
  auto terminator = definition.getBody().front().getTerminator();
  auto outputType = llvm::cast<TensorType>(definition.getResultTypes()[0]);
  Shape outputShape(outputType.getShape());
  for (auto [index, type] : llvm::enumerate(definition.getResultTypes()))
    if (llvm::cast<TensorType>(type).getShape() != llvm::ArrayRef<int64_t>(outputShape))
      return makeFusedError(definition, kFamily,
                            "result " + llvm::Twine(index) + " of shape " +
                                formatShape(llvm::cast<TensorType>(type).getShape()) +
                                " differs from result 0's " + formatShape(outputShape) +
                                ": results of several shapes are not implemented on the CUDA "
                                "driver");
  llvm::SmallVector<mlir::Value, 16> values(definition.getArguments().begin(),
                                            definition.getArguments().end());
  for (mlir::Operation *layer : getDefinitionLayers(definition))
    values.append(layer->result_begin(), layer->result_end());
  if (llvm::Error error = checkBroadcastsTo(values, outputShape))
    return makeFusedError(definition, kFamily, llvm::toString(std::move(error)));

  StridedKernelSpec spec;
  spec.outputShape = outputShape;
  ChainStatements statements("v", "    ");
  for (mlir::BlockArgument argument : definition.getArguments()) {
    auto info = getTensorInfo(definition, argument);
    if (!info)
      return makeFusedError(definition, kFamily, llvm::toString(info.takeError()));
    spec.operands.push_back(broadcastOperand(info->dtype, info->shape, outputShape));
    statements.bind(argument, "x" + std::to_string(argument.getArgNumber()));
  }
  for (mlir::Operation *layer : getDefinitionLayers(definition))
    if (llvm::Error error = statements.append(layer))
      return makeFusedError(definition, kFamily, llvm::toString(std::move(error)));
  spec.statements = statements.getText();
  for (auto [index, returned] : llvm::enumerate(terminator->getOperands())) {
    auto info = getTensorInfo(definition, returned);
    if (!info)
      return makeFusedError(definition, kFamily, llvm::toString(info.takeError()));
    std::string local = statements.lookup(returned).str();
    if (index == 0) {
      spec.outputType = info->dtype;
      spec.expression = local;
    } else {
      spec.moreOutputs.push_back({info->dtype, local});
    }
  }
  return spec;
}

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  if (!isElementwiseDefinition(definition))
    return std::nullopt;
  llvm::Expected<StridedKernelSpec> spec = getKernelSpec(definition);
  if (!spec)
    return spec.takeError();
  return llvm::Error::success();
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  if (!isElementwiseDefinition(definition))
    return std::nullopt;
  llvm::Expected<StridedKernelSpec> spec = getKernelSpec(definition);
  if (!spec)
    return llvm::Expected<Kernel>(spec.takeError());
  llvm::Expected<Kernel> kernel = buildStridedKernel(definition, context, *spec);
  if (!kernel)
    return llvm::Expected<Kernel>(
        makeFusedError(definition, kFamily, llvm::toString(kernel.takeError())));
  return kernel;
}

} // namespace

const FusedFamily kFusedElementwise = {kFamily, check, build};

} // namespace cgc::cuda
