//===- ElementwiseCodegen.cpp - generated strided elementwise kernels -----===//
//
// A grid-stride loop over output elements; each thread splits its linear
// index over the merged dimensions (innermost first) and accumulates every
// operand's offset. Indices are 32-bit when every offset fits, which keeps
// the divisions cheap.
//
// A spec that only copies one operand's bits (transpose, slice, expand,
// broadcast copies) goes to StridedCopy.h first: its contiguous-run and
// tiled kernels move vectors or tiles instead of single elements, and this
// kernel runs only for the loop nests they do not cover.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseCodegen.h"

#include "DeviceCode.h"
#include "StridedCopy.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>

namespace cgc::cuda {

StridedOperand broadcastOperand(DType dtype, llvm::ArrayRef<int64_t> operandShape,
                                llvm::ArrayRef<int64_t> outputShape, bool raw) {
  StridedOperand operand;
  operand.dtype = dtype;
  operand.strides = getBroadcastStrides(operandShape, outputShape);
  operand.raw = raw;
  return operand;
}

MergedLoops mergeStridedLoops(llvm::ArrayRef<int64_t> outputShape,
                              llvm::ArrayRef<StridedOperand> operands) {
  MergedLoops loops;
  size_t operandCount = operands.size();
  loops.strides.resize(operandCount);
  for (size_t dim = 0; dim < outputShape.size(); ++dim) {
    int64_t size = outputShape[dim];
    if (size == 1)
      continue;
    bool merge = !loops.sizes.empty();
    for (size_t operand = 0; merge && operand < operandCount; ++operand)
      merge = loops.strides[operand].back() == operands[operand].strides[dim] * size;
    if (merge) {
      loops.sizes.back() *= size;
      for (size_t operand = 0; operand < operandCount; ++operand)
        loops.strides[operand].back() = operands[operand].strides[dim];
      continue;
    }
    loops.sizes.push_back(size);
    for (size_t operand = 0; operand < operandCount; ++operand)
      loops.strides[operand].push_back(operands[operand].strides[dim]);
  }
  return loops;
}

/// The copy `spec` is when it only moves one operand's bits to one output
/// of the same width.
static std::optional<StridedCopySpec> getPlainCopy(const StridedKernelSpec &spec) {
  if (spec.operands.size() != 1 || !spec.operands[0].raw || !spec.rawOutput ||
      spec.expression != "x0" || !spec.statements.empty() || !spec.moreOutputs.empty() ||
      getByteWidth(spec.operands[0].dtype) != getByteWidth(spec.outputType))
    return std::nullopt;
  StridedCopySpec copy;
  copy.dtype = spec.outputType;
  copy.outputShape = spec.outputShape;
  copy.strides = spec.operands[0].strides;
  copy.start = spec.operands[0].start;
  return copy;
}

static MergedLoops mergeLoops(const StridedKernelSpec &spec) {
  return mergeStridedLoops(spec.outputShape, spec.operands);
}

/// Whether every index and offset of the loops fits in 31 bits (with room
/// for the grid stride added past the end).
static bool fitsInt32(const StridedKernelSpec &spec, const MergedLoops &loops, int64_t count) {
  constexpr int64_t kLimit = int64_t(1) << 30;
  if (count >= kLimit)
    return false;
  for (size_t operand = 0; operand < spec.operands.size(); ++operand) {
    int64_t reach = std::abs(spec.operands[operand].start);
    for (size_t dim = 0; dim < loops.sizes.size(); ++dim)
      reach += (loops.sizes[dim] - 1) * std::abs(loops.strides[operand][dim]);
    if (reach >= kLimit)
      return false;
  }
  return true;
}

/// The source of the kernel `cgc_strided`.
static std::string generateSource(const StridedKernelSpec &spec, size_t rank, bool narrowIndex) {
  size_t operandCount = spec.operands.size();
  size_t arrayRank = std::max<size_t>(rank, 1);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "typedef " << (narrowIndex ? "int" : "long long") << " cgc_index;\n";
  os << "struct cgc_params {\n  long long count;\n  long long sizes[" << arrayRank << "];\n"
     << "  long long strides[" << std::max<size_t>(operandCount * arrayRank, 1) << "];\n"
     << "  long long starts[" << std::max<size_t>(operandCount, 1) << "];\n};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_strided(";
  for (size_t operand = 0; operand < operandCount; ++operand) {
    const StridedOperand &spec_ = spec.operands[operand];
    os << "const " << (spec_.raw ? getBitsType(spec_.dtype) : getStorageType(spec_.dtype)) << " *in"
       << operand << ", ";
  }
  std::string outputType =
      spec.rawOutput ? getBitsType(spec.outputType) : getStorageType(spec.outputType);
  os << outputType << " *out, ";
  for (size_t output = 0; output < spec.moreOutputs.size(); ++output)
    os << getStorageType(spec.moreOutputs[output].dtype) << " *out" << output + 1 << ", ";
  os << "cgc_params p) {\n";
  os << "  cgc_index count = (cgc_index)p.count;\n";
  os << "  cgc_index step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;\n";
  os << "  for (cgc_index i = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + threadIdx.x; "
        "i < count; i += step) {\n";
  for (size_t operand = 0; operand < operandCount; ++operand)
    os << "    cgc_index o" << operand << " = (cgc_index)p.starts[" << operand << "];\n";
  if (rank > 0) {
    os << "    cgc_index rest = i, c;\n";
    for (size_t dim = rank; dim-- > 0;) {
      if (dim > 0)
        os << "    c = rest % (cgc_index)p.sizes[" << dim << "]; rest /= (cgc_index)p.sizes[" << dim
           << "];\n";
      else
        os << "    c = rest;\n";
      for (size_t operand = 0; operand < operandCount; ++operand)
        os << "    o" << operand << " += c * (cgc_index)p.strides[" << operand * arrayRank + dim
           << "];\n";
    }
  }
  for (size_t operand = 0; operand < operandCount; ++operand) {
    const StridedOperand &spec_ = spec.operands[operand];
    std::string element = llvm::formatv("in{0}[o{0}]", operand).str();
    if (spec_.raw)
      os << "    " << getBitsType(spec_.dtype) << " x" << operand << " = " << element << ";\n";
    else
      os << "    " << getComputeType(spec_.dtype) << " x" << operand << " = "
         << loadValue(spec_.dtype, element) << ";\n";
  }
  os << spec.statements;
  if (spec.rawOutput)
    os << "    out[i] = (" << outputType << ")(" << spec.expression << ");\n";
  else
    os << "    out[i] = " << storeValue(spec.outputType, spec.expression) << ";\n";
  for (size_t output = 0; output < spec.moreOutputs.size(); ++output)
    os << "    out" << output + 1 << "[i] = "
       << storeValue(spec.moreOutputs[output].dtype, spec.moreOutputs[output].expression) << ";\n";
  os << "  }\n}\n";
  return source;
}

llvm::Expected<Kernel> buildStridedKernel(mlir::Operation *op, KernelContext::Impl &context,
                                          const StridedKernelSpec &spec) {
  int64_t count = getNumElements(spec.outputShape);
  if (count == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  if (std::optional<StridedCopySpec> copy = getPlainCopy(spec))
    if (std::optional<llvm::Expected<Kernel>> kernel =
            buildSpecializedStridedCopy(op, context, *copy))
      return std::move(*kernel);
  MergedLoops loops = mergeLoops(spec);
  size_t rank = loops.sizes.size();
  size_t arrayRank = std::max<size_t>(rank, 1);
  size_t operandCount = spec.operands.size();
  bool narrow = fitsInt32(spec, loops, count);
  std::string source = generateSource(spec, rank, narrow);
  llvm::Expected<DeviceFunction> function = context.getFunction(op, source, "cgc_strided");
  if (!function)
    return function.takeError();

  // The parameter block, laid out as cgc_params (all 64-bit fields).
  std::vector<int64_t> params;
  params.push_back(count);
  for (size_t dim = 0; dim < arrayRank; ++dim)
    params.push_back(dim < rank ? loops.sizes[dim] : 1);
  for (size_t operand = 0; operand < std::max<size_t>(operandCount, 1); ++operand)
    for (size_t dim = 0; dim < arrayRank; ++dim)
      params.push_back(operand < operandCount && dim < rank ? loops.strides[operand][dim] : 0);
  for (size_t operand = 0; operand < std::max<size_t>(operandCount, 1); ++operand)
    params.push_back(operand < operandCount ? spec.operands[operand].start : 0);

  unsigned blocks = context.getGridSize(count, 256);
  std::string opName = op->getName().getStringRef().str();
  size_t outputCount = 1 + spec.moreOutputs.size();
  auto launch = [function = *function, params = std::move(params), blocks, operandCount,
                 outputCount, opName](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<const void *, 8> pointers(args.inputs.begin(),
                                                args.inputs.begin() + operandCount);
    llvm::SmallVector<void *, 4> outputs(args.outputs.begin(),
                                         args.outputs.begin() + outputCount);
    llvm::SmallVector<void *, 16> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    for (void *&output : outputs)
      arguments.push_back(&output);
    arguments.push_back(const_cast<int64_t *>(params.data()));
    cudaError_t error = function.launch(dim3(blocks), dim3(256), arguments.data(), 0, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(opName, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
