//===- ElementwiseCodegen.cpp - generated strided elementwise kernels -----===//
//
// Both kernel shapes are grid-stride loops of 256-thread blocks that write
// the output densely; an operand that is one element everywhere (strides
// all 0: a scalar constant, a one-element tensor) is read once per thread
// before the loop rather than at every element.
//
// Dense (`cgc_dense`), when every other operand is read at the output's
// index plus its start:
//
//   for each chunk c (chunk = 16 bytes / widest element, e.g. 8 float16):
//     v_k = 16-, 8-, 4- or 2-byte vector load of in_k + start_k + c * chunk
//     #pragma unroll: x_k = v_k[j] (or the one-element value); out[j] = expr
//     vector store of the chunk of each output
//   then the last count % chunk elements one at a time.
//
// The vectors are aligned structs of the storage type (cgc_vector), so
// every element type moves the same way and is converted as in the
// per-element code. Whether every pointer plus start is aligned to its
// chunk's bytes is known only at launch: the launch checks it and passes
// `vectorized`; a kernel told otherwise runs every element through the
// one-at-a-time loop (no chunks), which reads exactly like the tail.
//
// Strided (`cgc_strided`): each thread splits its linear index over the
// merged dimensions (innermost first) and accumulates every operand's
// offset. Indices are 32-bit when every offset fits; the divisions by the
// loop sizes are then multiply-highs with magic numbers (getIndexDivisor)
// passed as parameters. Sizes are parameters rather than compile-time
// constants so that layers of other shapes share the module (each NVRTC
// compilation costs tens of milliseconds; a CNN has dozens of shapes).
//
// Every path evaluates the spec's expression unchanged per element (NVRTC
// compiles without fast math or contraction), so the dense, vectorized and
// strided kernels give bit-identical results.
//
// A spec that only copies one operand's bits (transpose, slice, expand,
// broadcast copies) goes to StridedCopy.h first: its contiguous-run and
// tiled kernels move vectors or tiles instead of single elements, and these
// kernels run only for the loop nests they do not cover.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseCodegen.h"

#include "DeviceCode.h"
#include "StridedCopy.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdlib>

namespace cgc::cuda {

static constexpr unsigned kThreads = 256;
/// Bytes one dense chunk moves per operand of the widest type.
static constexpr int64_t kChunkBytes = 16;

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

IndexDivisor getIndexDivisor(int64_t divisor) {
  IndexDivisor result;
  if (divisor < 1 || divisor >= (int64_t(1) << 31))
    return result; // not used: such sizes need 64-bit indices
  while ((int64_t(1) << result.shift) < divisor)
    ++result.shift;
  // m = floor(2^32 * (2^shift - d) / d) + 1 < 2^32 since 2^shift < 2d.
  uint64_t one = 1;
  result.magic = static_cast<uint32_t>(
      ((one << 32) * ((one << result.shift) - static_cast<uint64_t>(divisor))) /
          static_cast<uint64_t>(divisor) +
      1);
  return result;
}

/// The copy `spec` is when it only moves one operand's bits to one output
/// of the same width, or converts one float operand to another float type.
static std::optional<StridedCopySpec> getPlainCopy(const StridedKernelSpec &spec) {
  if (spec.operands.size() != 1 || !spec.statements.empty() || !spec.moreOutputs.empty())
    return std::nullopt;
  const StridedOperand &operand = spec.operands[0];
  bool movesBits = operand.raw && spec.rawOutput && spec.expression == "x0" &&
                   getByteWidth(operand.dtype) == getByteWidth(spec.outputType);
  // A float conversion (a cast's expression between float32, float16 and
  // bfloat16), which StridedCopy converts in its interleave kernel.
  bool converts = !operand.raw && !spec.rawOutput && spec.expression == "(float)x0" &&
                  isFloat32ComputedDType(operand.dtype) && isFloat32ComputedDType(spec.outputType);
  if (!movesBits && !converts)
    return std::nullopt;
  StridedCopySpec copy;
  copy.dtype = movesBits ? spec.outputType : operand.dtype;
  if (converts)
    copy.outputDType = spec.outputType;
  copy.outputShape = spec.outputShape;
  copy.strides = operand.strides;
  copy.start = operand.start;
  return copy;
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

static size_t getOutputCount(const StridedKernelSpec &spec) { return 1 + spec.moreOutputs.size(); }

static DType getOutputDType(const StridedKernelSpec &spec, size_t output) {
  return output == 0 ? spec.outputType : spec.moreOutputs[output - 1].dtype;
}

StridedKernelPlan planStridedKernel(const StridedKernelSpec &spec) {
  StridedKernelPlan plan;
  plan.loops = mergeStridedLoops(spec.outputShape, spec.operands);
  plan.narrow = fitsInt32(spec, plan.loops, getNumElements(spec.outputShape));
  size_t rank = plan.loops.sizes.size();
  // Rank 0 or 1 after merging: every operand walks the output's order with
  // one stride; 0 (one element) and 1 (contiguous) are dense.
  bool dense = rank <= 1;
  int64_t widest = 1;
  for (size_t output = 0; output < getOutputCount(spec); ++output)
    widest = std::max<int64_t>(widest, getByteWidth(getOutputDType(spec, output)));
  for (size_t operand = 0; operand < spec.operands.size(); ++operand) {
    const Shape &strides = plan.loops.strides[operand];
    bool uniform = llvm::all_of(strides, [](int64_t stride) { return stride == 0; });
    plan.uniform.push_back(uniform);
    if (uniform)
      continue;
    dense = dense && strides[0] == 1;
    widest = std::max<int64_t>(widest, getByteWidth(spec.operands[operand].dtype));
  }
  if (dense) {
    plan.kind = StridedKernelKind::Dense;
    plan.chunk = kChunkBytes / widest;
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// Source pieces both shapes share
//===----------------------------------------------------------------------===//

/// The C++ type operand `operand` is stored as: bits for raw operands.
static std::string getOperandMemoryType(const StridedOperand &operand) {
  return operand.raw ? getBitsType(operand.dtype) : getStorageType(operand.dtype);
}

/// The type of the local `x<k>` of `operand`.
static std::string getOperandValueType(const StridedOperand &operand) {
  return operand.raw ? getBitsType(operand.dtype) : getComputeType(operand.dtype);
}

/// `element` (of the memory type) read as the local's value.
static std::string readOperand(const StridedOperand &operand, const std::string &element) {
  return operand.raw ? element : loadValue(operand.dtype, element);
}

static std::string getOutputMemoryType(const StridedKernelSpec &spec, size_t output) {
  if (output == 0 && spec.rawOutput)
    return getBitsType(spec.outputType);
  return getStorageType(getOutputDType(spec, output));
}

/// The pointer parameter of output `output`.
static std::string getOutputName(size_t output) {
  return output == 0 ? "out" : "out" + std::to_string(output);
}

/// What output `output` stores, in its memory type.
static std::string getOutputValue(const StridedKernelSpec &spec, size_t output) {
  if (output > 0)
    return storeValue(spec.moreOutputs[output - 1].dtype, spec.moreOutputs[output - 1].expression);
  if (spec.rawOutput)
    return "(" + getOutputMemoryType(spec, 0) + ")(" + spec.expression + ")";
  return storeValue(spec.outputType, spec.expression);
}

/// `extern "C" __global__ ... <name>(in0, ..., out, out1, ..., <params> p) {`.
static void emitSignature(llvm::raw_ostream &os, const StridedKernelSpec &spec,
                          llvm::StringRef name, llvm::StringRef params) {
  os << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ") " << name << "(";
  for (size_t operand = 0; operand < spec.operands.size(); ++operand)
    os << "const " << getOperandMemoryType(spec.operands[operand]) << " *in" << operand << ", ";
  for (size_t output = 0; output < getOutputCount(spec); ++output)
    os << getOutputMemoryType(spec, output) << " *" << getOutputName(output) << ", ";
  os << params << " p) {\n";
}

/// The one-element operands, read once: `cgc_u<k>`.
static void emitUniformReads(llvm::raw_ostream &os, const StridedKernelSpec &spec,
                             const StridedKernelPlan &plan) {
  for (size_t operand = 0; operand < spec.operands.size(); ++operand)
    if (plan.uniform[operand])
      os << "  const " << getOperandValueType(spec.operands[operand]) << " cgc_u" << operand
         << " = "
         << readOperand(spec.operands[operand],
                        llvm::formatv("in{0}[p.starts[{0}]]", operand).str())
         << ";\n";
}

/// One element: the locals `x<k>` from `values`, the statements, then each
/// output's value stored to `targets`.
static void emitElement(llvm::raw_ostream &os, const StridedKernelSpec &spec,
                        llvm::ArrayRef<std::string> values, llvm::ArrayRef<std::string> targets,
                        llvm::StringRef indent) {
  for (size_t operand = 0; operand < spec.operands.size(); ++operand)
    os << indent << getOperandValueType(spec.operands[operand]) << " x" << operand << " = "
       << values[operand] << ";\n";
  os << spec.statements;
  for (size_t output = 0; output < getOutputCount(spec); ++output)
    os << indent << targets[output] << " = " << getOutputValue(spec, output) << ";\n";
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

/// The source of the kernel `cgc_dense` (see the file comment).
static std::string generateDenseSource(const StridedKernelSpec &spec,
                                       const StridedKernelPlan &plan) {
  size_t operandCount = spec.operands.size();
  size_t outputCount = getOutputCount(spec);
  std::string chunk = std::to_string(plan.chunk);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(plan.narrow);
  os << "template <typename T, int N> struct alignas(sizeof(T) * N) cgc_vector {\n  T v[N];\n};\n";
  os << "struct cgc_dense_params {\n  long long count;\n  long long starts["
     << std::max<size_t>(operandCount, 1) << "];\n  long long vectorized;\n};\n";
  emitSignature(os, spec, "cgc_dense", "cgc_dense_params");
  os << "  cgc_index count = (cgc_index)p.count;\n"
     << "  cgc_index cgc_step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;\n"
     << "  cgc_index cgc_first = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + threadIdx.x;\n";
  emitUniformReads(os, spec, plan);
  for (size_t operand = 0; operand < operandCount; ++operand)
    if (!plan.uniform[operand])
      os << "  const " << getOperandMemoryType(spec.operands[operand]) << " *cgc_in" << operand
         << " = in" << operand << " + p.starts[" << operand << "];\n";

  // Whole chunks, vectorized.
  auto vectorType = [&](const std::string &element) {
    return "cgc_vector<" + element + ", " + chunk + ">";
  };
  os << "  cgc_index cgc_chunks = p.vectorized ? count / " << chunk << " : 0;\n"
     << "  for (cgc_index cgc_c = cgc_first; cgc_c < cgc_chunks; cgc_c += cgc_step) {\n"
     << "    cgc_index cgc_base = cgc_c * " << chunk << ";\n";
  llvm::SmallVector<std::string, 4> values, targets;
  for (size_t operand = 0; operand < operandCount; ++operand) {
    const StridedOperand &read = spec.operands[operand];
    if (plan.uniform[operand]) {
      values.push_back("cgc_u" + std::to_string(operand));
      continue;
    }
    std::string type = vectorType(getOperandMemoryType(read));
    os << "    " << type << " cgc_v" << operand << " = *reinterpret_cast<const " << type
       << " *>(cgc_in" << operand << " + cgc_base);\n";
    values.push_back(readOperand(read, llvm::formatv("cgc_v{0}.v[cgc_k]", operand).str()));
  }
  for (size_t output = 0; output < outputCount; ++output) {
    os << "    " << vectorType(getOutputMemoryType(spec, output)) << " cgc_r" << output << ";\n";
    targets.push_back(llvm::formatv("cgc_r{0}.v[cgc_k]", output).str());
  }
  os << "#pragma unroll\n    for (int cgc_k = 0; cgc_k < " << chunk << "; ++cgc_k) {\n";
  emitElement(os, spec, values, targets, "      ");
  os << "    }\n";
  for (size_t output = 0; output < outputCount; ++output) {
    std::string type = vectorType(getOutputMemoryType(spec, output));
    os << "    *reinterpret_cast<" << type << " *>(" << getOutputName(output)
       << " + cgc_base) = cgc_r" << output << ";\n";
  }
  os << "  }\n";

  // The elements after the last chunk (all of them when not vectorized).
  values.clear();
  targets.clear();
  for (size_t operand = 0; operand < operandCount; ++operand)
    values.push_back(
        plan.uniform[operand]
            ? "cgc_u" + std::to_string(operand)
            : readOperand(spec.operands[operand], llvm::formatv("cgc_in{0}[i]", operand).str()));
  for (size_t output = 0; output < outputCount; ++output)
    targets.push_back(getOutputName(output) + "[i]");
  os << "  for (cgc_index i = cgc_chunks * " << chunk
     << " + cgc_first; i < count; i += cgc_step) {\n";
  emitElement(os, spec, values, targets, "    ");
  os << "  }\n}\n";
  return source;
}

//===----------------------------------------------------------------------===//
// Strided
//===----------------------------------------------------------------------===//

/// The source of the kernel `cgc_strided` (see the file comment).
static std::string generateStridedSource(const StridedKernelSpec &spec,
                                         const StridedKernelPlan &plan) {
  size_t operandCount = spec.operands.size();
  size_t rank = plan.loops.sizes.size();
  size_t arrayRank = std::max<size_t>(rank, 1);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(plan.narrow);
  os << "struct cgc_params {\n  long long count;\n  long long sizes[" << arrayRank << "];\n"
     << "  long long strides[" << std::max<size_t>(operandCount, 1) * arrayRank << "];\n"
     << "  long long starts[" << std::max<size_t>(operandCount, 1) << "];\n";
  if (plan.narrow)
    os << "  long long magics[" << arrayRank << "];\n  long long shifts[" << arrayRank << "];\n";
  os << "};\n";
  emitSignature(os, spec, "cgc_strided", "cgc_params");
  os << "  cgc_index count = (cgc_index)p.count;\n";
  os << "  cgc_index step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;\n";
  emitUniformReads(os, spec, plan);
  os << "  for (cgc_index i = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + threadIdx.x; "
        "i < count; i += step) {\n";
  for (size_t operand = 0; operand < operandCount; ++operand)
    if (!plan.uniform[operand])
      os << "    cgc_index o" << operand << " = (cgc_index)p.starts[" << operand << "];\n";
  if (rank > 0) {
    os << "    cgc_index rest = i, c, next;\n";
    for (size_t dim = rank; dim-- > 0;) {
      std::string size = "(cgc_index)p.sizes[" + std::to_string(dim) + "]";
      if (dim > 0) {
        if (plan.narrow)
          os << "    next = (cgc_index)((__umulhi((unsigned)rest, (unsigned)p.magics[" << dim
             << "]) + (unsigned)rest) >> (unsigned)p.shifts[" << dim << "]);\n";
        else
          os << "    next = rest / " << size << ";\n";
        os << "    c = rest - next * " << size << "; rest = next;\n";
      } else {
        os << "    c = rest;\n";
      }
      for (size_t operand = 0; operand < operandCount; ++operand)
        if (!plan.uniform[operand])
          os << "    o" << operand << " += c * (cgc_index)p.strides[" << operand * arrayRank + dim
             << "];\n";
    }
  }
  llvm::SmallVector<std::string, 4> values, targets;
  for (size_t operand = 0; operand < operandCount; ++operand)
    values.push_back(
        plan.uniform[operand]
            ? "cgc_u" + std::to_string(operand)
            : readOperand(spec.operands[operand], llvm::formatv("in{0}[o{0}]", operand).str()));
  for (size_t output = 0; output < getOutputCount(spec); ++output)
    targets.push_back(getOutputName(output) + "[i]");
  emitElement(os, spec, values, targets, "    ");
  os << "  }\n}\n";
  return source;
}

/// The parameter block of `cgc_strided`, laid out as cgc_params (all 64-bit
/// fields).
static std::vector<int64_t> getStridedParams(const StridedKernelSpec &spec,
                                             const StridedKernelPlan &plan, int64_t count) {
  const MergedLoops &loops = plan.loops;
  size_t rank = loops.sizes.size();
  size_t arrayRank = std::max<size_t>(rank, 1);
  size_t operandCount = spec.operands.size();
  std::vector<int64_t> params;
  params.push_back(count);
  for (size_t dim = 0; dim < arrayRank; ++dim)
    params.push_back(dim < rank ? loops.sizes[dim] : 1);
  for (size_t operand = 0; operand < std::max<size_t>(operandCount, 1); ++operand)
    for (size_t dim = 0; dim < arrayRank; ++dim)
      params.push_back(operand < operandCount && dim < rank ? loops.strides[operand][dim] : 0);
  for (size_t operand = 0; operand < std::max<size_t>(operandCount, 1); ++operand)
    params.push_back(operand < operandCount ? spec.operands[operand].start : 0);
  if (plan.narrow) {
    llvm::SmallVector<IndexDivisor, 6> divisors;
    for (size_t dim = 0; dim < arrayRank; ++dim)
      divisors.push_back(getIndexDivisor(dim < rank ? loops.sizes[dim] : 1));
    for (const IndexDivisor &divisor : divisors)
      params.push_back(divisor.magic);
    for (const IndexDivisor &divisor : divisors)
      params.push_back(divisor.shift);
  }
  return params;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

DenseLaunches getDenseLaunches(const StridedKernelSpec &spec, const StridedKernelPlan &plan,
                               const KernelContext::Impl &context) {
  int64_t count = getNumElements(spec.outputShape);
  size_t operandCount = spec.operands.size();
  DenseLaunches launches;
  // Laid out as cgc_dense_params: count, starts, vectorized.
  std::vector<int64_t> params{count};
  for (size_t operand = 0; operand < std::max<size_t>(operandCount, 1); ++operand)
    params.push_back(operand < operandCount ? spec.operands[operand].start : 0);
  launches.elements = {context.getGridSize(count, kThreads), params};
  launches.elements.params.push_back(0);
  // Threads past the last chunk go on to the tail; a grid of one block
  // covers a tail (fewer than 16 elements) and counts with no whole chunk.
  launches.vectorized = {context.getGridSize(count / plan.chunk, kThreads), std::move(params)};
  launches.vectorized.params.push_back(1);
  for (size_t operand = 0; operand < operandCount; ++operand) {
    uint64_t width = getByteWidth(spec.operands[operand].dtype);
    launches.operandBytes.push_back(plan.uniform[operand] ? 0 : width * plan.chunk);
    launches.operandStarts.push_back(static_cast<uint64_t>(spec.operands[operand].start) * width);
  }
  for (size_t output = 0; output < getOutputCount(spec); ++output)
    launches.outputBytes.push_back(getByteWidth(getOutputDType(spec, output)) * plan.chunk);
  return launches;
}

const StridedKernelLaunch &DenseLaunches::choose(llvm::ArrayRef<const void *> inputs,
                                                 llvm::ArrayRef<void *> outputs) const {
  for (size_t operand = 0; operand < operandBytes.size(); ++operand)
    if (operandBytes[operand] != 0 &&
        (reinterpret_cast<uintptr_t>(inputs[operand]) + operandStarts[operand]) %
                operandBytes[operand] !=
            0)
      return elements;
  for (size_t output = 0; output < outputBytes.size(); ++output)
    if (reinterpret_cast<uintptr_t>(outputs[output]) % outputBytes[output] != 0)
      return elements;
  return vectorized;
}

/// A kernel that launches `function` with the launch `choose` gives for
/// the buffers of each launch.
template <typename Choose>
static Kernel makeLaunchingKernel(mlir::Operation *op, DeviceFunction function, size_t operandCount,
                                  size_t outputCount, Choose choose) {
  std::string opName = op->getName().getStringRef().str();
  auto launch = [function, choose = std::move(choose), operandCount, outputCount,
                 opName](const LaunchArgs &args) -> std::string {
    if (args.inputs.size() < operandCount || args.outputs.size() < outputCount)
      return opName + ": the kernel takes " + std::to_string(operandCount) + " inputs and " +
             std::to_string(outputCount) + " outputs, the launch gave " +
             std::to_string(args.inputs.size()) + " and " + std::to_string(args.outputs.size());
    llvm::SmallVector<const void *, 8> pointers(args.inputs.begin(),
                                                args.inputs.begin() + operandCount);
    llvm::SmallVector<void *, 4> outputs(args.outputs.begin(), args.outputs.begin() + outputCount);
    const StridedKernelLaunch &chosen = choose(pointers, outputs);
    llvm::SmallVector<void *, 16> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    for (void *&output : outputs)
      arguments.push_back(&output);
    arguments.push_back(const_cast<int64_t *>(chosen.params.data()));
    cudaError_t error =
        function.launch(dim3(chosen.blocks), dim3(kThreads), arguments.data(), 0, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(opName, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
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
  StridedKernelPlan plan = planStridedKernel(spec);
  size_t operandCount = spec.operands.size();
  size_t outputCount = getOutputCount(spec);

  if (plan.kind == StridedKernelKind::Strided) {
    llvm::Expected<DeviceFunction> function =
        context.getFunction(op, generateStridedSource(spec, plan), "cgc_strided");
    if (!function)
      return function.takeError();
    StridedKernelLaunch launch{context.getGridSize(count, kThreads),
                               getStridedParams(spec, plan, count)};
    return makeLaunchingKernel(
        op, *function, operandCount, outputCount,
        [launch = std::move(launch)](llvm::ArrayRef<const void *>, llvm::ArrayRef<void *>)
            -> const StridedKernelLaunch & { return launch; });
  }

  llvm::Expected<DeviceFunction> function =
      context.getFunction(op, generateDenseSource(spec, plan), "cgc_dense");
  if (!function)
    return function.takeError();
  return makeLaunchingKernel(op, *function, operandCount, outputCount,
                             [launches = getDenseLaunches(spec, plan, context)](
                                 llvm::ArrayRef<const void *> inputs,
                                 llvm::ArrayRef<void *> outputs) -> const StridedKernelLaunch & {
                               return launches.choose(inputs, outputs);
                             });
}

} // namespace cgc::cuda
