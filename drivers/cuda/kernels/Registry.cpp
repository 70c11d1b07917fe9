//===- Registry.cpp - the kernel family of each cgc_op layer --------------===//

#include "KernelContextImpl.h"
#include "KernelSupport.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/TypeSwitch.h"

namespace cgc::cuda {

using namespace cgc::op;

namespace {
using Builder = llvm::Expected<Kernel> (*)(mlir::Operation *, KernelContext::Impl &);
} // namespace

/// The family builder of `op`, or null when the CUDA driver has none.
static Builder getBuilder(mlir::Operation *op) {
  if (isElementwiseOp(op))
    return buildElementwiseKernel;
  if (isDataMovementOp(op))
    return buildDataMovementKernel;
  if (isNormalizationOp(op))
    return buildNormalizationKernel;
  if (isReductionOp(op))
    return buildReductionKernel;
  if (isIndexingOp(op))
    return buildIndexingKernel;
  return llvm::TypeSwitch<mlir::Operation *, Builder>(op)
      .Case<MatmulOp>([](auto) { return buildMatmulKernel; })
      .Case<GemmOp>([](auto) { return buildGemmKernel; })
      .Case<ConvolutionOp>([](auto) { return buildConvolutionKernel; })
      .Case<ConvTransposeOp>([](auto) { return buildConvTransposeKernel; })
      .Case<MaxPoolOp, AveragePoolOp>([](auto) { return buildWindowPoolKernel; })
      .Case<UpsampleOp>([](auto) { return buildUpsampleKernel; })
      .Case<ScaledDotProductAttentionOp>([](auto) { return buildAttentionKernel; })
      .Default([](mlir::Operation *) { return nullptr; });
}

llvm::Error checkOpImplemented(mlir::Operation *op) {
  return getBuilder(op) ? llvm::Error::success() : unimplementedOp(op);
}

llvm::Expected<Kernel> buildKernelForContext(mlir::Operation *op, KernelContext::Impl &context) {
  Builder builder = getBuilder(op);
  if (!builder)
    return unimplementedOp(op);
  // Building allocates, loads modules and creates handles on the current
  // device, and any thread may build: make the context's device current.
  if (context.hasDevice())
    if (cudaError_t error = cudaSetDevice(context.getDevice()); error != cudaSuccess)
      return cudaCallError(op, "cudaSetDevice", error);
  return builder(op, context);
}

llvm::Expected<Kernel> buildKernel(mlir::Operation *op, KernelContext &context) {
  return buildKernelForContext(op, context.getImpl());
}

} // namespace cgc::cuda
