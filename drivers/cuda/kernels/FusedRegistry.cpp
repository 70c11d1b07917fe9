//===- FusedRegistry.cpp - which fused kernel runs a definition -----------===//

#include "FusedSupport.h"

#include <system_error>

namespace cgc::cuda {

namespace {

const FusedFamily *const kFamilies[] = {
    &kFusedConvolutionPair, &kFusedConvolution, &kFusedMatmul, &kFusedAttention,
    &kFusedNormalization,   &kFusedElementwise, &kFusedPooling, &kFusedLayout};

} // namespace

llvm::SmallVector<mlir::Operation *, 8> getDefinitionLayers(FunctionalDefinitionOp definition) {
  llvm::SmallVector<mlir::Operation *, 8> layers;
  if (definition.getBody().empty())
    return layers;
  for (mlir::Operation &op : definition.getBody().front().without_terminator())
    layers.push_back(&op);
  return layers;
}

llvm::Error makeFusedError(FunctionalDefinitionOp definition, const char *family,
                           const llvm::Twine &message) {
  return llvm::createStringError(std::make_error_code(std::errc::not_supported),
                                 "@" + definition.getSymName() + ": fused " + family + ": " +
                                     message);
}

std::optional<llvm::Error> checkFusedKernel(FunctionalDefinitionOp definition) {
  for (const FusedFamily *family : kFamilies)
    if (std::optional<llvm::Error> result = family->check(definition))
      return result;
  return std::nullopt;
}

std::optional<llvm::Expected<Kernel>> buildFusedKernel(FunctionalDefinitionOp definition,
                                                       KernelContext &context) {
  KernelContext::Impl &impl = context.getImpl();
  for (const FusedFamily *family : kFamilies) {
    std::optional<llvm::Error> recognized = family->check(definition);
    if (!recognized)
      continue;
    if (*recognized)
      return llvm::Expected<Kernel>(std::move(*recognized));
    if (impl.hasDevice())
      if (cudaError_t error = cudaSetDevice(impl.getDevice()); error != cudaSuccess)
        return llvm::Expected<Kernel>(makeFusedError(
            definition, family->name, "cudaSetDevice failed: " + describeCudaError(error)));
    return family->build(definition, impl);
  }
  return std::nullopt;
}

llvm::StringRef getFusedFamilyName(FunctionalDefinitionOp definition) {
  for (const FusedFamily *family : kFamilies)
    if (std::optional<llvm::Error> result = family->check(definition)) {
      bool ok = !*result;
      llvm::consumeError(std::move(*result));
      if (ok)
        return family->name;
    }
  return {};
}

} // namespace cgc::cuda
