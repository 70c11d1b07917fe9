//===- FusedPooling.cpp - channels-last max and average pools -------------===//
//
// The compiler's channels-last form of a 2-D pool (patterns/pooling.mlir):
// the NHWC argument transposed to NCHW, max_pool or average_pool (any
// kernel, strides, dilations, padding, ceil_mode, count_include_pad), and
// the result transposed back to NHWC. The transposes only say how the pool
// reads and writes memory: the generated kernel (PoolingCodegen.h) pools
// the NHWC argument into the NHWC result directly, where running the
// layers would copy ResNet-50's stem activations twice (float16, batch 32,
// H100: 51 MB and 13 MB, 18 µs each) around the NCHW pool (44 µs).
//
// A definition with a max_pool or average_pool among its layers is this
// family's; one that is not exactly the form, or whose element type the
// kernel lacks, is an error naming what is missing.
//
//===----------------------------------------------------------------------===//

#include "FusedSupport.h"
#include "PoolingCodegen.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <array>
#include <cstdint>
#include <optional>

namespace cgc::cuda {

namespace {

constexpr const char *kFamily = "pooling";
/// The permutations of the channels-last form.
constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};
constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};

bool isWindowPool(mlir::Operation *op) { return llvm::isa<op::MaxPoolOp, op::AveragePoolOp>(op); }

bool hasWindowPool(FunctionalDefinitionOp definition) {
  return llvm::any_of(getDefinitionLayers(definition), isWindowPool);
}

/// A pool of the form, read.
struct NhwcPool {
  mlir::Operation *pool = nullptr;
  NhwcPoolGeometry geometry;
};

/// The pool of `definition` in the channels-last form, or why it is not.
llvm::Expected<NhwcPool> analyze(FunctionalDefinitionOp definition) {
  auto refuse = [&](const llvm::Twine &message) {
    return makeFusedError(definition, kFamily, "channels-last form: " + message);
  };
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  op::TransposeOp input, output;
  mlir::Operation *pool = nullptr;
  if (layers.size() == 3) {
    input = llvm::dyn_cast<op::TransposeOp>(layers[0]);
    pool = layers[1];
    output = llvm::dyn_cast<op::TransposeOp>(layers[2]);
  }
  mlir::Block &body = definition.getBody().front();
  // Each layer reads the one before it alone, the first reads the only
  // argument, and the definition returns the last.
  bool chained = input && output && pool && isWindowPool(pool) &&
                 definition.getNumArguments() == 1 && input.getInput() == body.getArgument(0) &&
                 pool->getOperand(0) == input.getOutput() && input.getOutput().hasOneUse() &&
                 output.getInput() == pool->getResult(0) && pool->getResult(0).hasOneUse() &&
                 body.getTerminator()->getNumOperands() == 1 &&
                 body.getTerminator()->getOperand(0) == output.getOutput();
  if (!chained)
    return refuse("the CUDA driver implements a max_pool or average_pool between its own "
                  "transposes of the definition's one argument (NHWC to NCHW) and of its "
                  "result (NCHW to NHWC), which the definition returns");
  auto inputType = llvm::cast<TensorType>(input.getInput().getType());
  if (inputType.getRank() != 4)
    return refuse("a pool of rank " + llvm::Twine(inputType.getRank()) +
                  " is not implemented on the CUDA driver (only 2-D pools, rank 4)");
  struct Expected {
    op::TransposeOp transpose;
    const char *what;
    llvm::ArrayRef<int64_t> permutation;
    const char *meaning;
  };
  const Expected expected[] = {
      {input, "the input", kNhwcToNchw, "NHWC to NCHW"},
      {output, "the result", kNchwToNhwc, "NCHW to NHWC"},
  };
  for (const Expected &wanted : expected) {
    llvm::SmallVector<int64_t, 6> permutation = getTransposePermutation(wanted.transpose);
    if (llvm::ArrayRef<int64_t>(permutation) != wanted.permutation)
      return refuse(llvm::Twine(wanted.what) + "'s transpose with permutation " +
                    formatIndexList(permutation) + " is not implemented on the CUDA driver (only " +
                    formatIndexList(wanted.permutation) + ", " + wanted.meaning + ")");
  }
  llvm::Expected<TensorInfo> inputInfo = getTensorInfo(pool, pool->getOperand(0));
  if (!inputInfo)
    return makeFusedError(definition, kFamily, llvm::toString(inputInfo.takeError()));
  llvm::Expected<TensorInfo> outputInfo = getTensorInfo(pool, pool->getResult(0));
  if (!outputInfo)
    return makeFusedError(definition, kFamily, llvm::toString(outputInfo.takeError()));
  DType dtype = inputInfo->dtype;
  if (!isFloat32ComputedDType(dtype))
    return makeFusedError(definition, kFamily,
                          llvm::Twine(pool->getName().getStringRef()) + ": element type " +
                              getDTypeName(dtype) +
                              " is not implemented on the CUDA driver (float32, float16 and "
                              "bfloat16)");

  NhwcPool result;
  result.pool = pool;
  NhwcPoolGeometry &geometry = result.geometry;
  geometry.dtype = dtype;
  geometry.isMax = llvm::isa<op::MaxPoolOp>(pool);
  // The pool's own N×C×H×W shapes.
  geometry.batch = inputInfo->shape[0];
  geometry.channels = inputInfo->shape[1];
  geometry.height = inputInfo->shape[2];
  geometry.width = inputInfo->shape[3];
  geometry.outputHeight = outputInfo->shape[2];
  geometry.outputWidth = outputInfo->shape[3];
  auto read = [&](auto windowPool) {
    auto copy = [](llvm::ArrayRef<int64_t> values, std::array<int64_t, 2> &into) {
      into = {values[0], values[1]};
    };
    copy(windowPool.getKernelShape(), geometry.kernel);
    copy(getWindowList(windowPool.getStrides(), 2, 1), geometry.strides);
    copy(getWindowList(windowPool.getDilations(), 2, 1), geometry.dilations);
    copy(getWindowList(windowPool.getStartPadding(), 2, 0), geometry.startPadding);
    copy(getWindowList(windowPool.getEndPadding(), 2, 0), geometry.endPadding);
  };
  if (auto maxPool = llvm::dyn_cast<op::MaxPoolOp>(pool)) {
    read(maxPool);
  } else {
    auto averagePool = llvm::cast<op::AveragePoolOp>(pool);
    read(averagePool);
    geometry.countIncludePad = averagePool.getCountIncludePad();
  }
  return result;
}

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  if (!hasWindowPool(definition))
    return std::nullopt;
  llvm::Expected<NhwcPool> pool = analyze(definition);
  if (!pool)
    return pool.takeError();
  return llvm::Error::success();
}

/// The generated kernel of `pool`: the vector build where the channels
/// allow it and both buffers are 16-byte aligned at launch, the
/// one-channel build otherwise.
llvm::Expected<Kernel> buildKernel(const NhwcPool &pool, KernelContext::Impl &context) {
  const NhwcPoolGeometry &geometry = pool.geometry;
  int64_t count = geometry.getOutputElements();
  if (count == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  std::string source = generateNhwcPoolSource(geometry);
  llvm::Expected<DeviceFunction> scalar = context.getFunction(pool.pool, source, kNhwcPoolKernel);
  if (!scalar)
    return scalar.takeError();
  std::optional<DeviceFunction> vector;
  int64_t width = getNhwcPoolVectorWidth(geometry.dtype);
  if (hasNhwcPoolVectorKernel(geometry)) {
    llvm::Expected<DeviceFunction> function =
        context.getFunction(pool.pool, source, kNhwcPoolVectorKernel);
    if (!function)
      return function.takeError();
    vector = *function;
  }
  unsigned scalarBlocks = context.getGridSize(count, 256);
  unsigned vectorBlocks = context.getGridSize(count / width, 256);
  std::string opName = pool.pool->getName().getStringRef().str();
  return Kernel{[scalar = *scalar, vector, scalarBlocks, vectorBlocks,
                 opName](const LaunchArgs &args) -> std::string {
                  const void *in = args.inputs[0];
                  void *out = args.outputs[0];
                  void *arguments[] = {&in, &out};
                  bool aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
                                 reinterpret_cast<uintptr_t>(out) % 16 == 0;
                  cudaError_t error =
                      vector && aligned
                          ? vector->launch(dim3(vectorBlocks), dim3(256), arguments, 0, args.stream)
                          : scalar.launch(dim3(scalarBlocks), dim3(256), arguments, 0, args.stream);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaLaunchKernel", error);
                },
                0};
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  if (!hasWindowPool(definition))
    return std::nullopt;
  llvm::Expected<NhwcPool> pool = analyze(definition);
  if (!pool)
    return llvm::Expected<Kernel>(pool.takeError());
  llvm::Expected<Kernel> kernel = buildKernel(*pool, context);
  if (!kernel)
    return llvm::Expected<Kernel>(
        makeFusedError(definition, kFamily, llvm::toString(kernel.takeError())));
  return kernel;
}

} // namespace

const FusedFamily kFusedPooling = {kFamily, check, build};

} // namespace cgc::cuda
