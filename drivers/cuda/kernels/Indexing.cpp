//===- Indexing.cpp - arg_max/arg_min, top_k, gathers, scatters, cumsum ---===//
//
// Layers that compute or follow element indices, matching the CPU kernels
// (drivers/cpu/kernels/Indexing.cpp, Scan.cpp). Lines along an axis are
// addressed as (outer, position, inner). arg_max/arg_min and cumsum run one
// thread per line; top_k one thread per line element, which counts the
// elements ordered before it (a strict order on (value, index), so ranks
// are distinct) and writes itself at that rank when it is below k. Gathers
// run one thread per output element. An index outside [-D, D) reads zero
// and writes nothing.
//
// Scatters copy `data` to the output, then apply the updates. Updates that
// hit the same element must combine in row-major order of the indices, as
// on the CPU; each thread owns a set of targets that no other thread can
// hit and applies its updates in that order: scatter_elements one thread
// per index line along the axis (two updates collide only when all their
// other coordinates agree), scatter_nd one thread per position inside the
// slice (tuples address whole slices).
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"
#include "KernelContextImpl.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <optional>

namespace cgc::cuda {

using namespace cgc::op;

bool isIndexingOp(mlir::Operation *op) {
  return llvm::isa<ArgMaxOp, ArgMinOp, TopKOp, GatherElementsOp, GatherNDOp, ScatterElementsOp,
                   ScatterNDOp, CumSumOp>(op);
}

namespace {

/// Dimension `axis` of `shape` as (outer, size, inner) counts.
struct AxisSplit {
  int64_t outer = 1, size = 1, inner = 1;
  AxisSplit(llvm::ArrayRef<int64_t> shape, int64_t axis) {
    for (int64_t dim = 0; dim < static_cast<int64_t>(shape.size()); ++dim)
      (dim < axis ? outer : dim == axis ? size : inner) *= shape[dim];
  }
};

/// One generated kernel launch: its function takes the op's input pointers,
/// then its output pointers, then a struct of `long long` fields (`params`).
struct GeneratedLaunch {
  DeviceFunction function;
  std::vector<int64_t> params;
  unsigned blocks = 1, threads = 256;
};

} // namespace

/// A kernel that does nothing (empty tensors).
static Kernel makeEmptyKernel() {
  return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
}

/// Enqueues `launch` with every input and output pointer of `args`.
static cudaError_t enqueue(const GeneratedLaunch &launch, const LaunchArgs &args) {
  // Inline capacity covers every op of this file: no allocation at launch.
  llvm::SmallVector<void *, 8> pointers;
  for (const void *input : args.inputs)
    pointers.push_back(const_cast<void *>(input));
  for (void *output : args.outputs)
    pointers.push_back(output);
  llvm::SmallVector<void *, 9> arguments;
  for (void *&pointer : pointers)
    arguments.push_back(&pointer);
  arguments.push_back(const_cast<int64_t *>(launch.params.data()));
  return launch.function.launch(dim3(launch.blocks), dim3(launch.threads), arguments.data(), 0,
                                args.stream);
}

/// A kernel of one generated launch.
static Kernel makeKernel(mlir::Operation *op, GeneratedLaunch launch) {
  std::string opName = op->getName().getStringRef().str();
  return Kernel{[launch = std::move(launch), opName](const LaunchArgs &args) -> std::string {
                  cudaError_t error = enqueue(launch, args);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaLaunchKernel", error);
                },
                0};
}

/// A scatter kernel: copies input 0 to output 0 (unless they alias), then
/// runs `launch`.
static Kernel makeScatterKernel(mlir::Operation *op, GeneratedLaunch launch, uint64_t bytes,
                                bool hasUpdates) {
  std::string opName = op->getName().getStringRef().str();
  return Kernel{[launch = std::move(launch), opName, bytes,
                 hasUpdates](const LaunchArgs &args) -> std::string {
                  if (bytes != 0 && args.inputs[0] != args.outputs[0]) {
                    cudaError_t error =
                        cudaMemcpyAsync(args.outputs[0], args.inputs[0], bytes,
                                        cudaMemcpyDeviceToDevice, args.stream);
                    if (error != cudaSuccess)
                      return describeLaunchFailure(opName, "cudaMemcpyAsync", error);
                  }
                  if (!hasUpdates)
                    return "";
                  cudaError_t error = enqueue(launch, args);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaLaunchKernel", error);
                },
                0};
}

/// `values` appended to `params`, or one `fallback` when empty (the
/// generated structs have arrays of at least one element).
static void appendArray(std::vector<int64_t> &params, llvm::ArrayRef<int64_t> values,
                        int64_t fallback) {
  if (values.empty())
    params.push_back(fallback);
  params.insert(params.end(), values.begin(), values.end());
}

static const char kGridStrideLoop[] =
    "  long long step = (long long)gridDim.x * blockDim.x;\n"
    "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.count;"
    " i += step) {\n";

//===----------------------------------------------------------------------===//
// arg_max, arg_min
//===----------------------------------------------------------------------===//

static llvm::Expected<Kernel> buildArgReduction(mlir::Operation *op, KernelContext::Impl &context,
                                                int64_t axis, bool largest, bool selectLast) {
  auto input = getTensorInfo(op, op->getOperand(0));
  if (!input)
    return input.takeError();
  DType dtype = input->dtype;
  if (dtype == DType::Bool)
    return unimplementedElementType(op, dtype);
  AxisSplit split(input->shape, normalizeAxis(axis, input->getRank()));
  int64_t lines = split.outer * split.inner;
  if (lines == 0)
    return makeEmptyKernel();
  std::string storage = getStorageType(dtype), compute = getComputeType(dtype);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  // NaN wins over every number, as in numpy (x != x is false for integers).
  os << "template <typename C> CGC_DEVICE bool cgc_arg_better(C value, C best) {\n"
     << "  if (value != value)\n    return !(best != best);\n"
     << "  if (best != best)\n    return false;\n"
     << "  return value " << (largest ? ">" : "<") << " best;\n}\n"
     << "struct cgc_arg_params {\n  long long count, size, inner;\n};\n"
     << "extern \"C\" __global__ void __launch_bounds__(256) cgc_arg_reduce(const " << storage
     << " *in, long long *out, cgc_arg_params p) {\n"
     << kGridStrideLoop
     << "    const " << storage << " *base = in + (i / p.inner) * p.size * p.inner + i % p.inner;\n"
     << "    long long bestIndex = 0;\n"
     << "    if (p.size > 0) {\n"
     << "      " << compute << " best = " << loadValue(dtype, "base[0]") << ";\n"
     << "      for (long long position = 1; position < p.size; ++position) {\n"
     << "        " << compute << " value = " << loadValue(dtype, "base[position * p.inner]")
     << ";\n"
     << "        if (cgc_arg_better(value, best)"
     << (selectLast ? " || !cgc_arg_better(best, value)" : "") << ") {\n"
     << "          best = value;\n          bestIndex = position;\n        }\n      }\n    }\n"
     << "    out[i] = bestIndex;\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_arg_reduce");
  if (!function)
    return function.takeError();
  return makeKernel(op, {*function, {lines, split.size, split.inner},
                         context.getGridSize(lines, 256), 256});
}

//===----------------------------------------------------------------------===//
// top_k
//===----------------------------------------------------------------------===//

static llvm::Expected<Kernel> buildTopK(TopKOp topK, KernelContext::Impl &context) {
  mlir::Operation *op = topK;
  auto input = getTensorInfo(op, topK.getInput());
  if (!input)
    return input.takeError();
  DType dtype = input->dtype;
  if (dtype == DType::Bool)
    return unimplementedElementType(op, dtype);
  AxisSplit split(input->shape, normalizeAxis(topK.getAxis(), input->getRank()));
  int64_t k = topK.getK();
  int64_t count = split.outer * split.size * split.inner;
  if (k == 0 || count == 0)
    return makeEmptyKernel();
  bool largest = topK.getLargest();
  std::string storage = getStorageType(dtype), compute = getComputeType(dtype);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  // Whether a orders before b; NaN is larger than every number.
  os << "template <typename C> CGC_DEVICE bool cgc_more_extreme(C a, C b) {\n"
     << "  bool aNaN = a != a, bNaN = b != b;\n"
     << "  if (aNaN || bNaN)\n"
     << (largest ? "    return aNaN && !bNaN;\n" : "    return bNaN && !aNaN;\n")
     << "  return a " << (largest ? ">" : "<") << " b;\n}\n"
     << "struct cgc_top_k_params {\n  long long count, size, inner, k;\n};\n"
     << "extern \"C\" __global__ void __launch_bounds__(256) cgc_top_k(const " << storage
     << " *in, " << storage << " *values, long long *indices, cgc_top_k_params p) {\n"
     << kGridStrideLoop
     << "    long long line = i / p.size, a = i % p.size;\n"
     << "    long long outer = line / p.inner, inner = line % p.inner;\n"
     << "    const " << storage << " *base = in + outer * p.size * p.inner + inner;\n"
     << "    " << compute << " x = " << loadValue(dtype, "base[a * p.inner]") << ";\n"
     << "    long long rank = 0;\n"
     << "    for (long long b = 0; b < p.size && rank < p.k; ++b) {\n"
     << "      " << compute << " y = " << loadValue(dtype, "base[b * p.inner]") << ";\n"
     << "      // Ties keep the lower index first.\n"
     << "      if (cgc_more_extreme(y, x) || (!cgc_more_extreme(x, y) && b < a))\n"
     << "        ++rank;\n    }\n"
     << "    if (rank < p.k) {\n"
     << "      long long target = outer * p.k * p.inner + inner + rank * p.inner;\n"
     << "      values[target] = base[a * p.inner];\n      indices[target] = a;\n    }\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_top_k");
  if (!function)
    return function.takeError();
  return makeKernel(op, {*function, {count, split.size, split.inner, k},
                         context.getGridSize(count, 256), 256});
}

//===----------------------------------------------------------------------===//
// gather_elements, scatter_elements
//===----------------------------------------------------------------------===//

namespace {
enum class ScatterReduction { None, Add, Mul, Max, Min };
} // namespace

static std::optional<ScatterReduction> getScatterReduction(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ScatterReduction>>(name)
      .Case("none", ScatterReduction::None)
      .Case("add", ScatterReduction::Add)
      .Case("mul", ScatterReduction::Mul)
      .Case("max", ScatterReduction::Max)
      .Case("min", ScatterReduction::Min)
      .Default(std::nullopt);
}

/// The statement storing update `update` into `target` (storage lvalues)
/// with `reduction`, computed as the CPU kernels' combine does.
static std::string combineStatement(ScatterReduction reduction, DType dtype,
                                    const std::string &target, const std::string &update) {
  if (reduction == ScatterReduction::None || dtype == DType::Bool)
    return target + " = " + update + ";";
  std::string a = loadValue(dtype, target), b = loadValue(dtype, update);
  bool isInteger = isIntegerDType(dtype);
  std::string value;
  switch (reduction) {
  case ScatterReduction::Add:
    value = isInteger ? "cgc_wrap_add(" + a + ", " + b + ")" : a + " + " + b;
    break;
  case ScatterReduction::Mul:
    value = isInteger ? "cgc_wrap_mul(" + a + ", " + b + ")" : a + " * " + b;
    break;
  case ScatterReduction::Max:
    value = "cgc_max(" + a + ", " + b + ")";
    break;
  case ScatterReduction::Min:
    value = "cgc_min(" + a + ", " + b + ")";
    break;
  case ScatterReduction::None:
    break;
  }
  return target + " = " + storeValue(dtype, "(" + getComputeType(dtype) + ")(" + value + ")") +
         ";";
}

/// The source of gather_elements (`scatter` false) or scatter_elements: the
/// element offset in data of index element `element` is computed by
/// `cgc_target`, -1 for an out-of-range index.
static std::string generateElementsSource(DType dataType, DType indexType, size_t rank,
                                          bool scatter, ScatterReduction reduction) {
  std::string storage = scatter ? getStorageType(dataType) : getBitsType(dataType);
  std::string index = getStorageType(indexType);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  size_t arrayRank = std::max<size_t>(rank, 1);
  os << "struct cgc_elements_params {\n  long long count, axis, axisSize, lineSize, lineInner;\n"
     << "  long long indexSizes[" << arrayRank << "], dataStrides[" << arrayRank << "];\n};\n"
     << "CGC_DEVICE long long cgc_target(long long element, long long value,"
     << " const cgc_elements_params &p) {\n"
     << "  if (value < 0)\n    value += p.axisSize;\n"
     << "  if (value < 0 || value >= p.axisSize)\n    return -1;\n"
     << "  long long offset = 0;\n"
     << "  for (int d = " << rank << " - 1; d >= 0; --d) {\n"
     << "    long long coordinate = element % p.indexSizes[d];\n"
     << "    element /= p.indexSizes[d];\n"
     << "    offset += (d == p.axis ? value : coordinate) * p.dataStrides[d];\n  }\n"
     << "  return offset;\n}\n";
  if (!scatter) {
    os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_gather_elements(const "
       << storage << " *data, const " << index << " *indices, " << storage
       << " *out, cgc_elements_params p) {\n"
       << kGridStrideLoop
       << "    long long offset = cgc_target(i, (long long)indices[i], p);\n"
       << "    out[i] = offset < 0 ? (" << storage << ")0 : data[offset];\n  }\n}\n";
    return source;
  }
  // One thread per index line along the axis (count lines): its updates,
  // in order, are the only ones that can hit its targets.
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_scatter_elements(const "
     << storage << " *data, const " << index << " *indices, const " << storage << " *updates, "
     << storage << " *out, cgc_elements_params p) {\n"
     << kGridStrideLoop
     << "    long long first = (i / p.lineInner) * p.lineSize * p.lineInner + i % p.lineInner;\n"
     << "    for (long long position = 0; position < p.lineSize; ++position) {\n"
     << "      long long element = first + position * p.lineInner;\n"
     << "      long long offset = cgc_target(element, (long long)indices[element], p);\n"
     << "      if (offset >= 0)\n        "
     << combineStatement(reduction, dataType, "out[offset]", "updates[element]")
     << "\n    }\n  }\n}\n";
  return source;
}

static llvm::Expected<Kernel> buildElements(mlir::Operation *op, KernelContext::Impl &context,
                                            mlir::Value dataValue, mlir::Value indicesValue,
                                            int64_t axisAttribute, bool scatter,
                                            llvm::StringRef reductionName) {
  auto data = getTensorInfo(op, dataValue);
  if (!data)
    return data.takeError();
  auto indices = getTensorInfo(op, indicesValue);
  if (!indices)
    return indices.takeError();
  if (indices->dtype != DType::I32 && indices->dtype != DType::I64)
    return unimplementedElementType(op, indices->dtype);
  std::optional<ScatterReduction> reduction = getScatterReduction(reductionName);
  if (!reduction)
    return unimplementedFeature(op, "reduction \"" + reductionName + "\"");
  int64_t rank = data->getRank();
  int64_t axis = normalizeAxis(axisAttribute, rank);
  AxisSplit lines(indices->shape, axis);
  int64_t count = scatter ? lines.outer * lines.inner : indices->getNumElements();
  bool hasWork = count > 0 && indices->getNumElements() > 0;
  if (!scatter && !hasWork)
    return makeEmptyKernel();
  GeneratedLaunch launch;
  if (hasWork) {
    std::string source =
        generateElementsSource(data->dtype, indices->dtype, rank, scatter, *reduction);
    llvm::StringRef name = scatter ? "cgc_scatter_elements" : "cgc_gather_elements";
    auto function = context.getFunction(op, source, name);
    if (!function)
      return function.takeError();
    launch.function = *function;
    launch.params = {count, axis, data->shape[axis], lines.size, lines.inner};
    appendArray(launch.params, indices->shape, 1);
    appendArray(launch.params, getStrides(data->shape), 0);
    launch.blocks = context.getGridSize(count, 256);
  }
  if (!scatter)
    return makeKernel(op, std::move(launch));
  return makeScatterKernel(op, std::move(launch), data->getByteSize(), hasWork);
}

//===----------------------------------------------------------------------===//
// gather_nd, scatter_nd
//===----------------------------------------------------------------------===//

/// The source of gather_nd (`scatter` false) or scatter_nd. `cgc_tuple`
/// gives the element offset of a tuple's slice, -1 when an index is out of
/// range (the CPU kernels' resolveIndex).
static std::string generateNDSource(DType dataType, DType indexType, size_t tupleSize,
                                    bool scatter, ScatterReduction reduction) {
  std::string storage = scatter ? getStorageType(dataType) : getBitsType(dataType);
  std::string index = getStorageType(indexType);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  size_t arrayRank = std::max<size_t>(tupleSize, 1);
  os << "struct cgc_nd_params {\n  long long count, tuples, sliceSize, tuplesPerBatch, "
     << "batchStride;\n  long long tupleDims[" << arrayRank << "], tupleStrides[" << arrayRank
     << "];\n};\n"
     << "CGC_DEVICE long long cgc_tuple(const " << index
     << " *indices, long long tuple, const cgc_nd_params &p) {\n"
     << "  long long offset = (tuple / p.tuplesPerBatch) * p.batchStride;\n"
     << "  for (int j = 0; j < " << tupleSize << "; ++j) {\n"
     << "    long long value = (long long)indices[tuple * " << tupleSize << " + j];\n"
     << "    if (value < 0)\n      value += p.tupleDims[j];\n"
     << "    if (value < 0 || value >= p.tupleDims[j])\n      return -1;\n"
     << "    offset += value * p.tupleStrides[j];\n  }\n  return offset;\n}\n";
  if (!scatter) {
    os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_gather_nd(const " << storage
       << " *data, const " << index << " *indices, " << storage << " *out, cgc_nd_params p) {\n"
       << kGridStrideLoop
       << "    long long offset = cgc_tuple(indices, i / p.sliceSize, p);\n"
       << "    out[i] = offset < 0 ? (" << storage << ")0 : data[offset + i % p.sliceSize];\n"
       << "  }\n}\n";
    return source;
  }
  // One thread per position in the slice (count = sliceSize): slices start
  // at multiples of sliceSize, so only this thread touches its targets, and
  // it applies the tuples in order.
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_scatter_nd(const " << storage
     << " *data, const " << index << " *indices, const " << storage << " *updates, " << storage
     << " *out, cgc_nd_params p) {\n"
     << kGridStrideLoop
     << "    for (long long tuple = 0; tuple < p.tuples; ++tuple) {\n"
     << "      long long offset = cgc_tuple(indices, tuple, p);\n"
     << "      if (offset >= 0)\n        "
     << combineStatement(reduction, dataType, "out[offset + i]",
                         "updates[tuple * p.sliceSize + i]")
     << "\n    }\n  }\n}\n";
  return source;
}

static llvm::Expected<Kernel> buildND(mlir::Operation *op, KernelContext::Impl &context,
                                      mlir::Value dataValue, mlir::Value indicesValue,
                                      int64_t batchDims, bool scatter,
                                      llvm::StringRef reductionName) {
  auto data = getTensorInfo(op, dataValue);
  if (!data)
    return data.takeError();
  auto indices = getTensorInfo(op, indicesValue);
  if (!indices)
    return indices.takeError();
  if (indices->dtype != DType::I32 && indices->dtype != DType::I64)
    return unimplementedElementType(op, indices->dtype);
  if (indices->shape.empty())
    return unimplementedFeature(op, "a rank-0 index tensor");
  std::optional<ScatterReduction> reduction = getScatterReduction(reductionName);
  if (!reduction)
    return unimplementedFeature(op, "reduction \"" + reductionName + "\"");
  int64_t tupleSize = indices->shape.back();
  Shape dataStrides = getStrides(data->shape);
  llvm::ArrayRef<int64_t> dataShape = data->shape;
  Shape tupleDims(dataShape.slice(batchDims, tupleSize));
  Shape tupleStrides(llvm::ArrayRef<int64_t>(dataStrides).slice(batchDims, tupleSize));
  int64_t batches = getNumElements(dataShape.take_front(batchDims));
  int64_t batchStride = batchDims ? dataStrides[batchDims - 1] : 0;
  int64_t sliceSize = getNumElements(dataShape.drop_front(batchDims + tupleSize));
  int64_t tuples = indices->getNumElements() / std::max<int64_t>(tupleSize, 1);
  int64_t tuplesPerBatch = std::max<int64_t>(tuples / std::max<int64_t>(batches, 1), 1);
  int64_t count = scatter ? sliceSize : tuples * sliceSize;
  bool hasWork = count > 0 && tuples > 0;
  if (!scatter && !hasWork)
    return makeEmptyKernel();
  GeneratedLaunch launch;
  if (hasWork) {
    std::string source =
        generateNDSource(data->dtype, indices->dtype, tupleSize, scatter, *reduction);
    auto function = context.getFunction(op, source, scatter ? "cgc_scatter_nd" : "cgc_gather_nd");
    if (!function)
      return function.takeError();
    launch.function = *function;
    launch.params = {count, tuples, sliceSize, tuplesPerBatch, batchStride};
    appendArray(launch.params, tupleDims, 1);
    appendArray(launch.params, tupleStrides, 0);
    launch.blocks = context.getGridSize(count, 256);
  }
  if (!scatter)
    return makeKernel(op, std::move(launch));
  return makeScatterKernel(op, std::move(launch), data->getByteSize(), hasWork);
}

//===----------------------------------------------------------------------===//
// cumsum
//===----------------------------------------------------------------------===//

/// Floating-point sums accumulate in double and round once per element,
/// integer ones wrap in the element type (the CPU kernel's Scan.cpp).
static llvm::Expected<Kernel> buildCumSum(CumSumOp cumsum, KernelContext::Impl &context) {
  mlir::Operation *op = cumsum;
  auto input = getTensorInfo(op, cumsum.getInput());
  if (!input)
    return input.takeError();
  DType dtype = input->dtype;
  if (dtype == DType::Bool)
    return unimplementedElementType(op, dtype);
  AxisSplit split(input->shape, normalizeAxis(cumsum.getAxis(), input->getRank()));
  int64_t lines = split.outer * split.inner;
  if (lines == 0 || split.size == 0)
    return makeEmptyKernel();
  bool exclusive = cumsum.getExclusive(), reverse = cumsum.getReverse();
  std::string storage = getStorageType(dtype), compute = getComputeType(dtype);
  bool isFloat = isFloatDType(dtype);
  std::string sumType = isFloat ? "double" : compute;
  std::string add = isFloat ? "sum = sum + value;" : "sum = cgc_wrap_add(sum, value);";
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "struct cgc_cumsum_params {\n  long long count, size, inner;\n};\n"
     << "extern \"C\" __global__ void __launch_bounds__(256) cgc_cumsum(const " << storage
     << " *in, " << storage << " *out, cgc_cumsum_params p) {\n"
     << kGridStrideLoop
     << "    long long base = (i / p.inner) * p.size * p.inner + i % p.inner;\n"
     << "    " << sumType << " sum = (" << sumType << ")0;\n"
     << "    for (long long s = 0; s < p.size; ++s) {\n"
     << "      long long offset = base + (" << (reverse ? "p.size - 1 - s" : "s")
     << ") * p.inner;\n"
     << "      " << sumType << " value = (" << sumType << ")" << loadValue(dtype, "in[offset]")
     << ";\n"
     << (exclusive ? "" : "      " + add + "\n") << "      out[offset] = "
     << storeValue(dtype, "(" + compute + ")sum") << ";\n"
     << (exclusive ? "      " + add + "\n" : "") << "    }\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_cumsum");
  if (!function)
    return function.takeError();
  return makeKernel(op, {*function, {lines, split.size, split.inner},
                         context.getGridSize(lines, 256), 256});
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

llvm::Expected<Kernel> buildIndexingKernel(mlir::Operation *op, KernelContext::Impl &context) {
  if (auto argMax = llvm::dyn_cast<ArgMaxOp>(op))
    return buildArgReduction(op, context, argMax.getAxis(), true, argMax.getSelectLastIndex());
  if (auto argMin = llvm::dyn_cast<ArgMinOp>(op))
    return buildArgReduction(op, context, argMin.getAxis(), false, argMin.getSelectLastIndex());
  if (auto topK = llvm::dyn_cast<TopKOp>(op))
    return buildTopK(topK, context);
  if (auto gather = llvm::dyn_cast<GatherElementsOp>(op))
    return buildElements(op, context, gather.getData(), gather.getIndices(), gather.getAxis(),
                         /*scatter=*/false, "none");
  if (auto scatter = llvm::dyn_cast<ScatterElementsOp>(op))
    return buildElements(op, context, scatter.getData(), scatter.getIndices(), scatter.getAxis(),
                         /*scatter=*/true, scatter.getReduction());
  if (auto gather = llvm::dyn_cast<GatherNDOp>(op))
    return buildND(op, context, gather.getData(), gather.getIndices(), gather.getBatchDims(),
                   /*scatter=*/false, "none");
  if (auto scatter = llvm::dyn_cast<ScatterNDOp>(op))
    return buildND(op, context, scatter.getData(), scatter.getIndices(), 0, /*scatter=*/true,
                   scatter.getReduction());
  if (auto cumsum = llvm::dyn_cast<CumSumOp>(op))
    return buildCumSum(cumsum, context);
  return unimplementedOp(op);
}

} // namespace cgc::cuda
