//===- Normalization.cpp - softmax and the normalization layers -----------===//
//
// Row kernels. layer_norm (with per-feature or single-element scale and
// bias), and softmax along the innermost axis, over rows of at most
// kMaxRegisterRowSize elements read each row once into registers and reduce
// it there (RowKernelCodegen.h, which says in what precision). Otherwise
// one block per normalized row (layer_norm, group_norm, instance_norm,
// softmax along a contiguous axis), or one thread per line when softmax's
// axis is not the innermost (neighbouring threads then read neighbouring
// elements); there, as on the CPU, normalization statistics accumulate in
// double over two passes (mean, then the centered sum of squares) and the
// normalized values are computed in the compute type. softmax computes in
// the compute type throughout. batch_norm folds each channel's statistics
// into a factor and a shift, once per thread.
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"
#include "KernelContextImpl.h"
#include "RowKernelCodegen.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/TypeSwitch.h"

namespace cgc::cuda {

using namespace cgc::op;

bool isNormalizationOp(mlir::Operation *op) {
  return llvm::isa<SoftmaxOp, LayerNormOp, BatchNormOp, GroupNormOp, InstanceNormOp>(op);
}

/// A launch of `function` with the pointers `inputs` (op operands by index),
/// outputs[0] and the parameter block `params`.
static Kernel makeRowKernel(mlir::Operation *op, DeviceFunction function, unsigned blocks,
                            unsigned threads, std::vector<int64_t> params,
                            std::vector<unsigned> inputs) {
  std::string opName = op->getName().getStringRef().str();
  return Kernel{[function = std::move(function), blocks, threads, params = std::move(params),
                 inputs = std::move(inputs), opName](const LaunchArgs &args) -> std::string {
                  llvm::SmallVector<const void *, 6> pointers;
                  for (unsigned input : inputs)
                    pointers.push_back(args.inputs[input]);
                  void *output = args.outputs[0];
                  llvm::SmallVector<void *, 8> arguments;
                  for (const void *&pointer : pointers)
                    arguments.push_back(&pointer);
                  arguments.push_back(&output);
                  arguments.push_back(const_cast<int64_t *>(params.data()));
                  cudaError_t error = function.launch(dim3(blocks), dim3(threads), arguments.data(),
                                                      0, args.stream);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaLaunchKernel", error);
                },
                0};
}

/// Requires every operand of `op` to have element type `dtype`, a float.
static llvm::Error checkFloatOperands(mlir::Operation *op, DType dtype) {
  if (!isFloatDType(dtype))
    return unimplementedElementType(op, dtype);
  for (mlir::Value operand : op->getOperands()) {
    auto info = getTensorInfo(op, operand);
    if (!info)
      return info.takeError();
    if (info->dtype != dtype)
      return unimplementedElementType(op, info->dtype);
  }
  return llvm::Error::success();
}

/// Blocks for one block per row, at most 2^30 (kernels loop past that).
static unsigned getRowBlocks(int64_t rows) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(rows, 1 << 30)));
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

static llvm::Expected<Kernel> buildSoftmax(SoftmaxOp op, KernelContext::Impl &context,
                                           const TensorInfo &input) {
  int64_t rank = input.getRank();
  int64_t axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
  int64_t outer = getNumElements(llvm::ArrayRef(input.shape).take_front(axis));
  int64_t length = input.shape[axis];
  int64_t inner = getNumElements(llvm::ArrayRef(input.shape).drop_front(axis + 1));
  if (outer * length * inner == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  DType dtype = input.dtype;
  if (inner == 1 && length <= kMaxRegisterRowSize) {
    RowKernelSpec spec;
    spec.normalization = RowKernelSpec::Normalization::Softmax;
    spec.dtype = dtype;
    spec.rows = outer;
    spec.size = length;
    spec.argumentTypes = {dtype};
    spec.resultTypes = {dtype};
    if (std::optional<RowRead> read = getRowRead(0, dtype, input.shape, input.shape, axis)) {
      spec.inputReads.push_back(*read);
      return buildRowKernel(op, context, spec, op->getName().getStringRef().str());
    }
  }
  std::string c = getComputeType(dtype), storage = getStorageType(dtype);
  std::string exp = mathFunction("exp", dtype);
  std::string negativeInfinity = floatLiteral(-INFINITY, c);
  auto load = [&](const std::string &index) { return loadValue(dtype, "x[" + index + "]"); };
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "struct cgc_softmax_params {\n  long long lines, length, inner;\n};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_softmax(const " << storage
     << " *in, " << storage << " *out, cgc_softmax_params p) {\n";
  bool blockPerLine = inner == 1;
  if (blockPerLine) {
    // One block per line; the line is contiguous.
    os << "  for (long long line = blockIdx.x; line < p.lines; line += gridDim.x) {\n"
       << "    const " << storage << " *x = in + line * p.length;\n"
       << "    " << storage << " *y = out + line * p.length;\n"
       << "    " << c << " maximum = " << negativeInfinity << ";\n"
       << "    for (long long a = threadIdx.x; a < p.length; a += blockDim.x)\n"
       << "      maximum = cgc_std_max(maximum, (" << c << ")" << load("a") << ");\n"
       << "    maximum = cgc_block_reduce(maximum, cgc_std_max_op(), " << negativeInfinity << ");\n"
       << "    " << c << " sum = (" << c << ")0;\n"
       << "    for (long long a = threadIdx.x; a < p.length; a += blockDim.x)\n"
       << "      sum += " << exp << "(" << load("a") << " - maximum);\n"
       << "    sum = cgc_block_reduce(sum, cgc_sum_op(), (" << c << ")0);\n"
       << "    for (long long a = threadIdx.x; a < p.length; a += blockDim.x)\n"
       << "      y[a] = " << storeValue(dtype, exp + "(" + load("a") + " - maximum) / sum")
       << ";\n  }\n}\n";
  } else {
    // One thread per line, summing in the CPU kernel's order.
    os << "  long long step = (long long)gridDim.x * blockDim.x;\n"
       << "  for (long long line = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
       << "       line < p.lines; line += step) {\n"
       << "    long long o = line / p.inner, j = line % p.inner;\n"
       << "    const " << storage << " *x = in + o * p.length * p.inner + j;\n"
       << "    " << storage << " *y = out + o * p.length * p.inner + j;\n"
       << "    " << c << " maximum = " << negativeInfinity << ";\n"
       << "    for (long long a = 0; a < p.length; ++a)\n"
       << "      maximum = cgc_std_max(maximum, (" << c << ")" << load("a * p.inner") << ");\n"
       << "    " << c << " sum = (" << c << ")0;\n"
       << "    for (long long a = 0; a < p.length; ++a)\n"
       << "      sum += " << exp << "(" << load("a * p.inner") << " - maximum);\n"
       << "    for (long long a = 0; a < p.length; ++a)\n"
       << "      y[a * p.inner] = "
       << storeValue(dtype, exp + "(" + load("a * p.inner") + " - maximum) / sum") << ";\n  }\n}\n";
  }
  auto function = context.getFunction(op, source, "cgc_softmax");
  if (!function)
    return function.takeError();
  int64_t lines = outer * inner;
  unsigned blocks = blockPerLine ? getRowBlocks(lines) : context.getGridSize(lines, 256);
  return makeRowKernel(op, *function, blocks, 256, {lines, length, inner}, {0});
}

//===----------------------------------------------------------------------===//
// layer_norm, group_norm, instance_norm
//===----------------------------------------------------------------------===//

/// Dimensions of `shape` (a parameter broadcasting one way to `target`)
/// merged for reading it at every row-major index of `target`.
static std::pair<Shape, Shape> mergeBroadcast(llvm::ArrayRef<int64_t> shape,
                                              llvm::ArrayRef<int64_t> target) {
  Shape strides = getBroadcastStrides(shape, target);
  Shape mergedSizes, mergedStrides;
  for (size_t dim = 0; dim < target.size(); ++dim) {
    if (target[dim] == 1)
      continue;
    if (!mergedSizes.empty() && mergedStrides.back() == strides[dim] * target[dim]) {
      mergedSizes.back() *= target[dim];
      mergedStrides.back() = strides[dim];
      continue;
    }
    mergedSizes.push_back(target[dim]);
    mergedStrides.push_back(strides[dim]);
  }
  return {mergedSizes, mergedStrides};
}

/// The statistics pass of a row kernel: `mean` and `variance` (double) of
/// the row `x` of `p.size` elements, over the block.
static std::string rowStatistics(DType dtype) {
  std::string x = loadValue(dtype, "x[j]");
  return "    double sum = 0.0;\n"
         "    for (long long j = threadIdx.x; j < p.size; j += blockDim.x)\n"
         "      sum += (double)" +
         x +
         ";\n"
         "    sum = cgc_block_reduce(sum, cgc_sum_op(), 0.0);\n"
         "    double mean = p.size ? sum / (double)p.size : 0.0;\n"
         "    double squares = 0.0;\n"
         "    for (long long j = threadIdx.x; j < p.size; j += blockDim.x) {\n"
         "      double centered = (double)" +
         x +
         " - mean;\n"
         "      squares += centered * centered;\n"
         "    }\n"
         "    squares = cgc_block_reduce(squares, cgc_sum_op(), 0.0);\n"
         "    double variance = p.size ? squares / (double)p.size : 0.0;\n";
}

/// The register row kernel of a layer_norm whose rows are short enough and
/// whose scale and bias hold one value per feature (or one in all), or
/// std::nullopt.
static std::optional<RowKernelSpec> getLayerNormRows(LayerNormOp op, const TensorInfo &input,
                                                     int64_t axis, int64_t rows, int64_t size) {
  if (size > kMaxRegisterRowSize)
    return std::nullopt;
  RowKernelSpec spec;
  spec.dtype = input.dtype;
  spec.rows = rows;
  spec.size = size;
  spec.epsilon = op.getEpsilon().convertToDouble();
  spec.resultTypes = {input.dtype};
  int64_t normalizedRank = input.getRank() - axis;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    llvm::ArrayRef<int64_t> shape = llvm::cast<TensorType>(operand.getType()).getShape();
    // Parameters broadcast to the normalized dimensions only.
    if (index > 0 && static_cast<int64_t>(shape.size()) > normalizedRank)
      return std::nullopt;
    std::optional<RowRead> read =
        getRowRead(static_cast<unsigned>(index), input.dtype, shape, input.shape, axis);
    if (!read)
      return std::nullopt;
    (index == 0 ? spec.inputReads : spec.outputReads).push_back(*read);
    spec.argumentTypes.push_back(input.dtype);
  }
  spec.scale = "x1";
  if (op.getBias())
    spec.bias = "x2";
  return spec;
}

static llvm::Expected<Kernel> buildLayerNorm(LayerNormOp op, KernelContext::Impl &context,
                                             const TensorInfo &input) {
  DType dtype = input.dtype;
  if (llvm::Error error = checkFloatOperands(op, dtype))
    return std::move(error);
  int64_t axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), input.getRank());
  Shape normalized(llvm::ArrayRef(input.shape).drop_front(axis));
  int64_t rows = getNumElements(llvm::ArrayRef(input.shape).take_front(axis));
  int64_t size = getNumElements(normalized);
  if (rows * size == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  if (std::optional<RowKernelSpec> spec = getLayerNormRows(op, input, axis, rows, size))
    return buildRowKernel(op, context, *spec, op->getName().getStringRef().str());
  bool hasBias = static_cast<bool>(op.getBias());
  auto [scaleSizes, scaleStrides] =
      mergeBroadcast(llvm::cast<TensorType>(op.getScale().getType()).getShape(), normalized);
  Shape biasSizes, biasStrides;
  if (hasBias)
    std::tie(biasSizes, biasStrides) =
        mergeBroadcast(llvm::cast<TensorType>(op.getBias().getType()).getShape(), normalized);
  std::string c = getComputeType(dtype), storage = getStorageType(dtype);
  size_t scaleRank = scaleSizes.size(), biasRank = biasSizes.size();
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "struct cgc_norm_params {\n  long long rows, size;\n  double epsilon;\n"
     << "  long long scaleSizes[" << std::max<size_t>(scaleRank, 1) << "], scaleStrides["
     << std::max<size_t>(scaleRank, 1) << "];\n"
     << "  long long biasSizes[" << std::max<size_t>(biasRank, 1) << "], biasStrides["
     << std::max<size_t>(biasRank, 1) << "];\n};\n";
  os << offsetFunction("cgc_scale_offset", "cgc_norm_params", "scaleSizes", "scaleStrides",
                       scaleRank);
  os << offsetFunction("cgc_bias_offset", "cgc_norm_params", "biasSizes", "biasStrides", biasRank);
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_layer_norm(const " << storage
     << " *in, const " << storage << " *scale, const " << storage << " *bias, " << storage
     << " *out, cgc_norm_params p) {\n"
     << "  for (long long row = blockIdx.x; row < p.rows; row += gridDim.x) {\n"
     << "    const " << storage << " *x = in + row * p.size;\n"
     << "    " << storage << " *y = out + row * p.size;\n"
     << rowStatistics(dtype) << "    " << c << " center = (" << c << ")mean;\n"
     << "    " << c << " factor = (" << c << ")(1.0 / sqrt(variance + p.epsilon));\n"
     << "    for (long long j = threadIdx.x; j < p.size; j += blockDim.x)\n"
     << "      y[j] = "
     << storeValue(dtype, "(" + loadValue(dtype, "x[j]") + " - center) * factor * " +
                              loadValue(dtype, "scale[cgc_scale_offset(j, p)]") +
                              (hasBias ? " + " + loadValue(dtype, "bias[cgc_bias_offset(j, p)]")
                                       : std::string()))
     << ";\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_layer_norm");
  if (!function)
    return function.takeError();
  double epsilon = op.getEpsilon().convertToDouble();
  std::vector<int64_t> params = {rows, size, 0};
  std::memcpy(&params[2], &epsilon, sizeof(epsilon));
  auto append = [&](const Shape &values, int64_t fallback) {
    if (values.empty())
      params.push_back(fallback);
    params.insert(params.end(), values.begin(), values.end());
  };
  append(scaleSizes, 1);
  append(scaleStrides, 0);
  append(biasSizes, 1);
  append(biasStrides, 0);
  // Without a bias the kernel never reads it; the scale stands in.
  return makeRowKernel(op, *function, getRowBlocks(rows), 256, std::move(params),
                       {0, 1, hasBias ? 2u : 1u});
}

/// group_norm and instance_norm: statistics over `groups` consecutive
/// blocks of channels per sample, then per-channel scale and bias.
static llvm::Expected<Kernel> buildGroupedNorm(mlir::Operation *op, KernelContext::Impl &context,
                                               const TensorInfo &input, int64_t groups,
                                               double epsilon) {
  DType dtype = input.dtype;
  if (llvm::Error error = checkFloatOperands(op, dtype))
    return std::move(error);
  int64_t batch = input.shape[0], channels = input.shape[1];
  int64_t positions = getNumElements(llvm::ArrayRef(input.shape).drop_front(2));
  int64_t groupChannels = channels / groups;
  int64_t rows = batch * groups, size = groupChannels * positions;
  if (rows * size == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  std::string c = getComputeType(dtype), storage = getStorageType(dtype);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "struct cgc_norm_params {\n  long long rows, size;\n  double epsilon;\n"
     << "  long long groups, groupChannels, positions;\n};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_grouped_norm(const " << storage
     << " *in, const " << storage << " *scale, const " << storage << " *bias, " << storage
     << " *out, cgc_norm_params p) {\n"
     << "  for (long long row = blockIdx.x; row < p.rows; row += gridDim.x) {\n"
     << "    const " << storage << " *x = in + row * p.size;\n"
     << "    " << storage << " *y = out + row * p.size;\n"
     << rowStatistics(dtype) << "    " << c << " inverse = (" << c
     << ")(1.0 / sqrt(variance + p.epsilon));\n"
     << "    " << c << " center = (" << c << ")mean;\n"
     << "    long long firstChannel = (row % p.groups) * p.groupChannels;\n"
     << "    for (long long j = threadIdx.x; j < p.size; j += blockDim.x) {\n"
     << "      long long channel = firstChannel + j / p.positions;\n"
     << "      " << c << " factor = inverse * " << loadValue(dtype, "scale[channel]") << ";\n"
     << "      " << c << " shift = " << loadValue(dtype, "bias[channel]") << ";\n"
     << "      y[j] = "
     << storeValue(dtype, "(" + loadValue(dtype, "x[j]") + " - center) * factor + shift")
     << ";\n    }\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_grouped_norm");
  if (!function)
    return function.takeError();
  std::vector<int64_t> params = {rows, size, 0, groups, groupChannels, positions};
  std::memcpy(&params[2], &epsilon, sizeof(epsilon));
  return makeRowKernel(op, *function, getRowBlocks(rows), 256, std::move(params), {0, 1, 2});
}

//===----------------------------------------------------------------------===//
// batch_norm
//===----------------------------------------------------------------------===//

static llvm::Expected<Kernel> buildBatchNorm(BatchNormOp op, KernelContext::Impl &context,
                                             const TensorInfo &input) {
  DType dtype = input.dtype;
  if (llvm::Error error = checkFloatOperands(op, dtype))
    return std::move(error);
  int64_t channels = input.shape[1];
  int64_t planes = input.shape[0] * channels;
  int64_t positions = getNumElements(llvm::ArrayRef(input.shape).drop_front(2));
  if (planes * positions == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  // Each block covers a chunk of one plane (N × C of them).
  int64_t chunk = std::max<int64_t>(256, std::min<int64_t>(positions, 256 * 8));
  int64_t chunks = (positions + chunk - 1) / chunk;
  std::string c = getComputeType(dtype), storage = getStorageType(dtype);
  auto load = [&](const char *name) { return loadValue(dtype, std::string(name) + "[channel]"); };
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "struct cgc_batch_norm_params {\n  long long channels, positions, chunk, chunks, "
        "blocks;\n  double epsilon;\n};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_batch_norm(const " << storage
     << " *in, const " << storage << " *scale, const " << storage << " *bias, const " << storage
     << " *mean, const " << storage << " *variance, " << storage
     << " *out, cgc_batch_norm_params p) {\n"
     << "  for (long long block = blockIdx.x; block < p.blocks; block += gridDim.x) {\n"
     << "    long long plane = block / p.chunks, first = (block % p.chunks) * p.chunk;\n"
     << "    long long channel = plane % p.channels;\n"
     << "    double f = (double)" << load("scale") << " / sqrt((double)" << load("variance")
     << " + p.epsilon);\n"
     << "    " << c << " factor = (" << c << ")f;\n"
     << "    " << c << " shift = (" << c << ")((double)" << load("bias") << " - (double)"
     << load("mean") << " * f);\n"
     << "    long long end = first + p.chunk < p.positions ? first + p.chunk : p.positions;\n"
     << "    for (long long j = first + threadIdx.x; j < end; j += blockDim.x) {\n"
     << "      long long at = plane * p.positions + j;\n"
     << "      out[at] = " << storeValue(dtype, loadValue(dtype, "in[at]") + " * factor + shift")
     << ";\n"
     << "    }\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_batch_norm");
  if (!function)
    return function.takeError();
  double epsilon = op.getEpsilon().convertToDouble();
  int64_t blocks = planes * chunks;
  std::vector<int64_t> params = {channels, positions, chunk, chunks, blocks, 0};
  std::memcpy(&params[5], &epsilon, sizeof(epsilon));
  return makeRowKernel(op, *function, getRowBlocks(blocks), 256, std::move(params),
                       {0, 1, 2, 3, 4});
}

llvm::Expected<Kernel> buildNormalizationKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto input = getTensorInfo(op, op->getOperand(0));
  if (!input)
    return input.takeError();
  using R = llvm::Expected<Kernel>;
  return llvm::TypeSwitch<mlir::Operation *, R>(op)
      .Case([&](SoftmaxOp softmax) -> R {
        if (!isFloatDType(input->dtype))
          return unimplementedElementType(op, input->dtype);
        return buildSoftmax(softmax, context, *input);
      })
      .Case([&](LayerNormOp layerNorm) { return buildLayerNorm(layerNorm, context, *input); })
      .Case([&](BatchNormOp batchNorm) { return buildBatchNorm(batchNorm, context, *input); })
      .Case([&](GroupNormOp groupNorm) {
        return buildGroupedNorm(op, context, *input, static_cast<int64_t>(groupNorm.getNumGroups()),
                                groupNorm.getEpsilon().convertToDouble());
      })
      .Case([&](InstanceNormOp instanceNorm) {
        return buildGroupedNorm(op, context, *input, input->shape[1],
                                instanceNorm.getEpsilon().convertToDouble());
      })
      .Default([&](mlir::Operation *) -> R { return unimplementedOp(op); });
}

} // namespace cgc::cuda
