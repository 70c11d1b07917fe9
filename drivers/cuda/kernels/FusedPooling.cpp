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
// A global_average_pool or global_max_pool of the transposed argument is
// the same form without the second transpose (its N×C×1×1 result is N×C
// either way): the last convolution's NHWC output of ResNet-50 and
// MobileNetV2 is pooled as it is instead of transposed first (float16,
// batch 256, H100: 46 µs for the transpose, 46 µs for the NCHW pool).
//
// A definition with a pool among its layers is this family's; one that is
// not exactly the form, or whose element type the kernel lacks, is an
// error naming what is missing.
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

bool isGlobalPool(mlir::Operation *op) {
  return llvm::isa<op::GlobalMaxPoolOp, op::GlobalAveragePoolOp>(op);
}

bool hasPool(FunctionalDefinitionOp definition) {
  return llvm::any_of(getDefinitionLayers(definition),
                      [](mlir::Operation *op) { return isWindowPool(op) || isGlobalPool(op); });
}

/// A pool of the form, read: a window pool's geometry, or a global pool's.
struct NhwcPool {
  mlir::Operation *pool = nullptr;
  std::optional<NhwcPoolGeometry> window;
  std::optional<NhwcGlobalPoolGeometry> global;
};

/// Why `input`, the pool's own transpose of the definition's argument, is
/// not rank 4 NHWC to NCHW (`what` names the pool in the message), or none.
std::optional<llvm::Error> checkInputTranspose(FunctionalDefinitionOp definition,
                                               op::TransposeOp input, const char *what) {
  auto inputType = llvm::cast<TensorType>(input.getInput().getType());
  if (inputType.getRank() != 4)
    return makeFusedError(definition, kFamily,
                          "channels-last form: " + llvm::Twine(what) + " of rank " +
                              llvm::Twine(inputType.getRank()) +
                              " is not implemented on the CUDA driver (only 2-D pools, rank 4)");
  llvm::SmallVector<int64_t, 6> permutation = getTransposePermutation(input);
  if (llvm::ArrayRef<int64_t>(permutation) != llvm::ArrayRef<int64_t>(kNhwcToNchw))
    return makeFusedError(definition, kFamily,
                          "channels-last form: the input's transpose with permutation " +
                              formatIndexList(permutation) +
                              " is not implemented on the CUDA driver (only " +
                              formatIndexList(kNhwcToNchw) + ", NHWC to NCHW)");
  return std::nullopt;
}

/// The pool's N×C×H×W input, or why the kernel does not take its type.
llvm::Expected<TensorInfo> readPoolInput(FunctionalDefinitionOp definition,
                                         mlir::Operation *pool) {
  llvm::Expected<TensorInfo> info = getTensorInfo(pool, pool->getOperand(0));
  if (!info)
    return makeFusedError(definition, kFamily, llvm::toString(info.takeError()));
  if (!isFloat32ComputedDType(info->dtype))
    return makeFusedError(definition, kFamily,
                          llvm::Twine(pool->getName().getStringRef()) + ": element type " +
                              getDTypeName(info->dtype) +
                              " is not implemented on the CUDA driver (float32, float16 and "
                              "bfloat16)");
  return info;
}

/// The global pool of `definition` in the channels-last form (its
/// argument's transpose to NCHW, then the pool, which it returns), or why
/// it is not.
llvm::Expected<NhwcPool> analyzeGlobal(FunctionalDefinitionOp definition) {
  auto refuse = [&](const llvm::Twine &message) {
    return makeFusedError(definition, kFamily, "channels-last form: " + message);
  };
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  op::TransposeOp input =
      layers.size() == 2 ? llvm::dyn_cast<op::TransposeOp>(layers[0]) : op::TransposeOp();
  mlir::Operation *pool = layers.size() == 2 ? layers[1] : nullptr;
  mlir::Block &body = definition.getBody().front();
  bool chained = input && pool && isGlobalPool(pool) && definition.getNumArguments() == 1 &&
                 input.getInput() == body.getArgument(0) &&
                 pool->getOperand(0) == input.getOutput() && input.getOutput().hasOneUse() &&
                 body.getTerminator()->getNumOperands() == 1 &&
                 body.getTerminator()->getOperand(0) == pool->getResult(0);
  if (!chained)
    return refuse("the CUDA driver implements a global_average_pool or global_max_pool of its "
                  "own transpose of the definition's one argument (NHWC to NCHW), which the "
                  "definition returns");
  if (std::optional<llvm::Error> error = checkInputTranspose(definition, input, "a global pool"))
    return std::move(*error);
  llvm::Expected<TensorInfo> inputInfo = readPoolInput(definition, pool);
  if (!inputInfo)
    return inputInfo.takeError();
  int64_t pixels = inputInfo->shape[2] * inputInfo->shape[3];
  if (pixels > kNhwcGlobalPoolMaxPixels)
    return refuse(llvm::Twine(pool->getName().getStringRef()) + " over " +
                  llvm::Twine(inputInfo->shape[2]) + "x" + llvm::Twine(inputInfo->shape[3]) +
                  " pixels: the CUDA driver's channels-last global pool takes planes of at most " +
                  llvm::Twine(kNhwcGlobalPoolMaxPixels) +
                  " pixels (larger ones run as the transpose and the NCHW pool)");
  NhwcPool result;
  result.pool = pool;
  NhwcGlobalPoolGeometry &geometry = result.global.emplace();
  geometry.dtype = inputInfo->dtype;
  geometry.isMax = llvm::isa<op::GlobalMaxPoolOp>(pool);
  geometry.batch = inputInfo->shape[0];
  geometry.channels = inputInfo->shape[1];
  geometry.pixels = pixels;
  return result;
}

/// The pool of `definition` in the channels-last form, or why it is not.
llvm::Expected<NhwcPool> analyze(FunctionalDefinitionOp definition) {
  if (llvm::any_of(getDefinitionLayers(definition), isGlobalPool))
    return analyzeGlobal(definition);
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
  if (std::optional<llvm::Error> error = checkInputTranspose(definition, input, "a pool"))
    return std::move(*error);
  llvm::SmallVector<int64_t, 6> permutation = getTransposePermutation(output);
  if (llvm::ArrayRef<int64_t>(permutation) != llvm::ArrayRef<int64_t>(kNchwToNhwc))
    return refuse("the result's transpose with permutation " + formatIndexList(permutation) +
                  " is not implemented on the CUDA driver (only " + formatIndexList(kNchwToNhwc) +
                  ", NCHW to NHWC)");
  llvm::Expected<TensorInfo> inputInfo = readPoolInput(definition, pool);
  if (!inputInfo)
    return inputInfo.takeError();
  llvm::Expected<TensorInfo> outputInfo = getTensorInfo(pool, pool->getResult(0));
  if (!outputInfo)
    return makeFusedError(definition, kFamily, llvm::toString(outputInfo.takeError()));

  NhwcPool result;
  result.pool = pool;
  NhwcPoolGeometry &geometry = result.window.emplace();
  geometry.dtype = inputInfo->dtype;
  geometry.isMax = llvm::isa<op::MaxPoolOp>(pool);
  // The pool's own N×C×H×W shapes.
  geometry.batch = inputInfo->shape[0];
  geometry.channels = inputInfo->shape[1];
  geometry.height = inputInfo->shape[2];
  geometry.width = inputInfo->shape[3];
  geometry.outputHeight = outputInfo->shape[2];
  geometry.outputWidth = outputInfo->shape[3];
  static_cast<PoolWindow &>(geometry) = readPoolWindow(pool);
  if (auto averagePool = llvm::dyn_cast<op::AveragePoolOp>(pool))
    geometry.countIncludePad = averagePool.getCountIncludePad();
  return result;
}

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  if (!hasPool(definition))
    return std::nullopt;
  llvm::Expected<NhwcPool> pool = analyze(definition);
  if (!pool)
    return pool.takeError();
  return llvm::Error::success();
}

/// The launch of a pool kernel: the vector build (`vectorBlocks`) where
/// there is one and both buffers are 16-byte aligned at launch, the
/// one-channel build otherwise.
Kernel makePoolLaunch(DeviceFunction scalar, std::optional<DeviceFunction> vector,
                      unsigned scalarBlocks, unsigned vectorBlocks, std::string opName) {
  return Kernel{[scalar, vector, scalarBlocks, vectorBlocks,
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

/// The generated kernels of `source`: `scalarName`, and `vectorName` where
/// `hasVector`.
llvm::Expected<std::pair<DeviceFunction, std::optional<DeviceFunction>>>
getPoolFunctions(const NhwcPool &pool, KernelContext::Impl &context, const std::string &source,
                 const char *scalarName, const char *vectorName, bool hasVector) {
  llvm::Expected<DeviceFunction> scalar = context.getFunction(pool.pool, source, scalarName);
  if (!scalar)
    return scalar.takeError();
  std::optional<DeviceFunction> vector;
  if (hasVector) {
    llvm::Expected<DeviceFunction> function = context.getFunction(pool.pool, source, vectorName);
    if (!function)
      return function.takeError();
    vector = *function;
  }
  return std::make_pair(*scalar, vector);
}

/// The generated kernel of `pool`.
llvm::Expected<Kernel> buildKernel(const NhwcPool &pool, KernelContext::Impl &context) {
  std::string opName = pool.pool->getName().getStringRef().str();
  if (pool.global) {
    const NhwcGlobalPoolGeometry &geometry = *pool.global;
    if (geometry.batch * geometry.channels == 0)
      return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
    bool hasVector = hasNhwcGlobalPoolVectorKernel(geometry);
    auto functions =
        getPoolFunctions(pool, context, generateNhwcGlobalPoolSource(geometry),
                         kNhwcGlobalPoolKernel, kNhwcGlobalPoolVectorKernel, hasVector);
    if (!functions)
      return functions.takeError();
    // One block per block of work (getGridSize takes threads).
    auto blocks = [&](bool vector) {
      return context.getGridSize(getNhwcGlobalPoolBlocks(geometry, vector) * 256, 256);
    };
    return makePoolLaunch(functions->first, functions->second, blocks(false), blocks(true),
                          opName);
  }
  const NhwcPoolGeometry &geometry = *pool.window;
  int64_t count = geometry.getOutputElements();
  if (count == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  auto functions =
      getPoolFunctions(pool, context, generateNhwcPoolSource(geometry), kNhwcPoolKernel,
                       kNhwcPoolVectorKernel, hasNhwcPoolVectorKernel(geometry));
  if (!functions)
    return functions.takeError();
  int64_t width = getNhwcPoolVectorWidth(geometry.dtype);
  return makePoolLaunch(functions->first, functions->second, context.getGridSize(count, 256),
                        context.getGridSize(count / width, 256), opName);
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  if (!hasPool(definition))
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

PoolWindow readPoolWindow(mlir::Operation *pool) {
  PoolWindow window;
  auto read = [&](auto windowPool) {
    auto copy = [](llvm::ArrayRef<int64_t> values, std::array<int64_t, 2> &into) {
      into = {values[0], values[1]};
    };
    copy(windowPool.getKernelShape(), window.kernel);
    copy(getWindowList(windowPool.getStrides(), 2, 1), window.strides);
    copy(getWindowList(windowPool.getDilations(), 2, 1), window.dilations);
    copy(getWindowList(windowPool.getStartPadding(), 2, 0), window.startPadding);
    copy(getWindowList(windowPool.getEndPadding(), 2, 0), window.endPadding);
  };
  if (auto maxPool = llvm::dyn_cast<op::MaxPoolOp>(pool))
    read(maxPool);
  else
    read(llvm::cast<op::AveragePoolOp>(pool));
  return window;
}

const FusedFamily kFusedPooling = {kFamily, check, build};

} // namespace cgc::cuda
