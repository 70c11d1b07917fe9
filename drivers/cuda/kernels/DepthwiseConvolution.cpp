//===- DepthwiseConvolution.cpp - channels-last depthwise convolution -----===//
//
// The grid is two-dimensional: x over groups of `vector` channels, y over
// runs of `run` output pixels along a row (in N, P, Q order, so neighbouring
// threads of a block read neighbouring input columns, which L1 and L2 then
// serve once). The block first stages the window weights of its channels
// in shared memory as float32 (they are contiguous in the C×R×S×1 weight:
// one vector per tap and thread), then its threads loop over runs with a
// grid stride. For each window row a thread first loads every input column
// the run reads, as one vector of its channels each (all of a row's loads
// in flight at once), then adds each, times the tap's weights, into every
// output of the run that reads it; padding is the columns and rows it
// skips. Sums are float32; the epilogue (bias, chain) runs on them in
// registers and each output pixel is stored as one vector.
//
// The kernel is bound by memory latency: on an H100 (MobileNetV2, batch
// 32, float16) the earlier form, which kept each thread's weights in
// registers (118 of them: two blocks a multiprocessor) and loaded columns
// as it used them, moved 0.35 TB/s on a 192-channel layer. Weights in
// shared memory leave room for four blocks a multiprocessor and a row's
// loads at once: the model's depthwise layers went from about 415 to 333 us.
//
// The generated source is specialized on what fixes the loop structure:
// element type, vector width, run length, window, strides, dilations, the
// epilogue and how each of its operands is read. Sizes, paddings and
// operand strides are parameters, so the depthwise convolutions of a model
// that differ only in shape share a module (MobileNetV2's 17: one source
// per stride, and each one's one-channel build for misaligned buffers).
//
//===----------------------------------------------------------------------===//

#include "DepthwiseConvolution.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace cgc::cuda {

namespace {
/// Threads per block, and the launch bound's blocks per multiprocessor:
/// four blocks keep 32 warps of loads in flight per multiprocessor and
/// give each thread 64 registers (on an H100, MobileNetV2 batch 32: the
/// depthwise layers took 333 us in all with 4 blocks, 348 with 3, 372
/// with 2 and 401 with 5, where runs get short).
constexpr int64_t kBlockThreads = 256;
constexpr int64_t kMinBlocksPerMultiprocessor = 4;
/// Channel vectors across a block, at most.
constexpr int64_t kMaxBlockVectors = 32;
/// A window of at most this many weights per thread (vector × taps) is
/// staged in shared memory (at most kMaxBlockVectors × 72 floats, 9 KiB);
/// larger ones are read from global memory at each use.
constexpr int64_t kStagedWeights = 72;
/// Registers' worth of floats a thread may hold for one window row's
/// loads (columns × vector × element bytes / 4) and its sums (vector ×
/// run), leaving room for addresses and a tap's weights within 64.
constexpr int64_t kHeldFloats = 40;
constexpr int64_t kMaxRun = 4;
/// The widest access: 16 bytes (LDG.128).
constexpr int64_t kVectorBytes = 16;

/// One epilogue operand as the kernel reads it.
struct OperandRead {
  unsigned argument = 0;
  /// Element strides along N, P and Q of the output (0 where it
  /// broadcasts), and along C.
  int64_t strides[3] = {0, 0, 0};
  int64_t channelStride = 0;
  /// Read as one vector per pixel (its channels contiguous and every pixel
  /// vector-aligned); otherwise element by element.
  bool vectorized = false;
};

/// Everything a generated source depends on.
struct DepthwiseSpec {
  DType dtype = DType::F32;
  DepthwiseLayout layout;
  int64_t kernelHeight = 1, kernelWidth = 1;
  int64_t strideHeight = 1, strideWidth = 1;
  int64_t dilationHeight = 1, dilationWidth = 1;
  llvm::SmallVector<OperandRead, 4> operands;
  std::string statements;
  bool narrowIndex = true;
};

/// The geometry of one depthwise convolution (NHWC sizes; the weight
/// K×1×R×S).
using DepthwiseGeometry = ChannelsLastGeometry;

/// One compiled variant of the kernel and how to launch it.
struct DepthwiseVariant {
  DeviceFunction function;
  std::vector<int64_t> params;
  dim3 grid, block;
  /// Bytes every buffer read or written as vectors must be aligned to: the
  /// input, the output, the weight when it is read into registers, and the
  /// epilogue operands marked here.
  uint64_t alignment = 1;
  bool vectorizedWeight = false;
  llvm::SmallVector<bool, 4> vectorizedOperands;
};
} // namespace

DepthwiseLayout getDepthwiseLayout(DType dtype, int64_t channels, int64_t kernelHeight,
                                   int64_t kernelWidth, int64_t outputWidth, int64_t maxVector,
                                   int64_t strideWidth, int64_t dilationWidth) {
  DepthwiseLayout layout;
  int64_t taps = kernelHeight * kernelWidth;
  int64_t widest = std::min<int64_t>(maxVector, kVectorBytes / getByteWidth(dtype));
  for (int64_t vector = widest; vector >= 1; vector /= 2) {
    // Large windows take narrower vectors first, so that their weights
    // still fit in shared memory.
    if (channels % vector == 0 && (vector == 1 || vector * taps <= kStagedWeights)) {
      layout.vector = vector;
      break;
    }
  }
  layout.weightsStaged = layout.vector * taps <= kStagedWeights;
  if (!layout.weightsStaged) {
    // Weights read at each use: one output per thread keeps the loops
    // rolled, whatever the window.
    layout.run = 1;
    return layout;
  }
  // The longest run whose row of loads and sums fit kHeldFloats.
  int64_t loadFloats = std::max<int64_t>(1, layout.vector * getByteWidth(dtype) / 4);
  int64_t run = 1;
  for (int64_t candidate = kMaxRun; candidate > 1; --candidate) {
    int64_t columns = (candidate - 1) * strideWidth + (kernelWidth - 1) * dilationWidth + 1;
    if (columns * loadFloats + candidate * layout.vector <= kHeldFloats) {
      run = candidate;
      break;
    }
  }
  layout.run = std::clamp<int64_t>(std::min(run, outputWidth), 1, kMaxRun);
  return layout;
}

std::optional<std::string> getDepthwiseRefusal(const FusedConvolutionShape &shape) {
  if (!shape.channelsLast)
    return std::string("the convolution is channels-first");
  const Shape &input = shape.plan.input.shape, &output = shape.plan.output.shape;
  if (input.size() != 4 || output.size() != 4)
    return std::string("the convolution is not 2-D");
  op::ConvolutionOp conv = shape.conv;
  int64_t groups = conv.getGroups();
  if (groups != input[3] || output[3] != input[3])
    return "not depthwise: groups = " + std::to_string(groups) + " with " +
           std::to_string(input[3]) + " input and " + std::to_string(output[3]) +
           " output channels (the kernel needs all three equal)";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The source
//===----------------------------------------------------------------------===//

/// The source of the kernel `cgc_depthwise`.
static std::string generateSource(const DepthwiseSpec &spec) {
  const DepthwiseLayout &layout = spec.layout;
  std::string storage = getStorageType(spec.dtype);
  auto load = [&](const std::string &element) { return loadValue(spec.dtype, element); };
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(spec.narrowIndex) << "struct alignas(" << layout.vector * getByteWidth(spec.dtype) << ") cgc_vector {\n  "
     << storage << " e[" << layout.vector << "];\n};\n"
     << "constexpr int kVector = " << layout.vector << ", kRun = " << layout.run << ";\n"
     << "constexpr int kKernelHeight = " << spec.kernelHeight
     << ", kKernelWidth = " << spec.kernelWidth << ";\n"
     << "constexpr int kStrideHeight = " << spec.strideHeight
     << ", kStrideWidth = " << spec.strideWidth << ";\n"
     << "constexpr int kDilationHeight = " << spec.dilationHeight
     << ", kDilationWidth = " << spec.dilationWidth << ";\n"
     << "constexpr int kTaps = kKernelHeight * kKernelWidth;\n"
     << "// The input columns a run reads, from the first output's left edge.\n"
     << "constexpr int kColumns = (kRun - 1) * kStrideWidth + (kKernelWidth - 1) * "
        "kDilationWidth + 1;\n"
     << "// The window column output `i` of a run applies to input column `j`, or -1.\n"
     << "static __device__ __forceinline__ constexpr int cgc_tap(int i, int j) {\n"
     << "  return j - i * kStrideWidth >= 0 && (j - i * kStrideWidth) % kDilationWidth == 0 &&\n"
     << "                 (j - i * kStrideWidth) / kDilationWidth < kKernelWidth\n"
     << "             ? (j - i * kStrideWidth) / kDilationWidth\n"
     << "             : -1;\n}\n"
     << "static __device__ __forceinline__ constexpr bool cgc_column_read(int j) {\n"
     << "  for (int i = 0; i < kRun; ++i)\n"
     << "    if (cgc_tap(i, j) >= 0)\n"
     << "      return true;\n"
     << "  return false;\n}\n";
  size_t operandCount = spec.operands.size();
  os << "struct cgc_depthwise_params {\n"
     << "  long long height, width, channels, outHeight, outWidth, padTop, padLeft;\n"
     << "  long long channelVectors, runsPerRow, runs;\n";
  if (operandCount)
    os << "  long long operandStrides[" << 3 * operandCount << "];\n";
  os << "};\n";

  // Small windows unroll completely (the weights and sums then live in
  // registers); large ones keep their loops.
  std::string unroll = layout.weightsStaged ? "#pragma unroll\n" : "#pragma unroll 1\n";
  std::string weight = layout.weightsStaged
                           ? std::string("tap[l]")
                           : load("weight[(channel + l) * kTaps + r * kKernelWidth + s]");

  os << "extern \"C\" __global__ void __launch_bounds__(" << kBlockThreads << ", "
     << kMinBlocksPerMultiprocessor << ") cgc_depthwise(const " << storage
     << " *__restrict__ input, const " << storage << " *__restrict__ weight, ";
  for (size_t operand = 0; operand < operandCount; ++operand)
    os << "const " << storage << " *operand" << operand + 1 << ", ";
  os << storage << " *output, cgc_depthwise_params p) {\n"
     << "  const cgc_index vector = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + "
        "(cgc_index)threadIdx.x;\n"
     << "  const bool active = vector < (cgc_index)p.channelVectors;\n"
     << "  const cgc_index channel = vector * kVector;\n"
     << "  const cgc_index height = (cgc_index)p.height, width = (cgc_index)p.width;\n"
     << "  const cgc_index channels = (cgc_index)p.channels;\n"
     << "  const cgc_index outHeight = (cgc_index)p.outHeight, outWidth = "
        "(cgc_index)p.outWidth;\n"
     << "  const cgc_index runsPerRow = (cgc_index)p.runsPerRow, runs = (cgc_index)p.runs;\n";
  // A thread's weights are kVector × kTaps contiguous elements (the
  // weight is C×R×S×1), read as kTaps vectors by the first row of threads
  // and staged tap by tap: staged[tap][x * kVector + l].
  if (layout.weightsStaged)
    os << "  __shared__ __align__(16) float staged[kTaps][" << kMaxBlockVectors
       << " * kVector];\n"
       << "  if (threadIdx.y == 0 && active) {\n"
       << "    const cgc_vector *block = (const cgc_vector *)(weight + channel * kTaps);\n"
       << "#pragma unroll\n"
       << "    for (int chunk = 0; chunk < kTaps; ++chunk) {\n"
       << "      const cgc_vector part = block[chunk];\n"
       << "#pragma unroll\n"
       << "      for (int e = 0; e < kVector; ++e)\n"
       << "        staged[(chunk * kVector + e) % kTaps][threadIdx.x * kVector + (chunk * kVector + "
          "e) / kTaps] = "
       << load("part.e[e]") << ";\n"
       << "    }\n"
       << "  }\n"
       << "  __syncthreads();\n";
  os << "  if (!active)\n    return;\n";
  os << "  const cgc_index step = (cgc_index)gridDim.y * (cgc_index)blockDim.y;\n"
     << "  for (cgc_index run = (cgc_index)blockIdx.y * (cgc_index)blockDim.y + "
        "(cgc_index)threadIdx.y; run < runs; run += step) {\n"
     << "    const cgc_index column0 = run % runsPerRow * kRun;\n"
     << "    const cgc_index rest = run / runsPerRow;\n"
     << "    const cgc_index row = rest % outHeight, image = rest / outHeight;\n"
     << "    float sums[kRun][kVector];\n"
     << "#pragma unroll\n"
     << "    for (int i = 0; i < kRun; ++i)\n"
     << "#pragma unroll\n"
     << "      for (int l = 0; l < kVector; ++l)\n"
     << "        sums[i][l] = 0.0f;\n"
     << "    const cgc_index top = row * kStrideHeight - (cgc_index)p.padTop;\n"
     << "    const cgc_index left = column0 * kStrideWidth - (cgc_index)p.padLeft;\n"
     << unroll << "    for (int r = 0; r < kKernelHeight; ++r) {\n"
     << "      const cgc_index h = top + r * kDilationHeight;\n"
     << "      if (h < 0 || h >= height)\n        continue;\n"
     << "      const " << storage
     << " *line = input + (image * height + h) * width * channels + channel;\n"
     << "      // The row's columns, all loads first (zeros where the run does\n"
     << "      // not read or the input has no column).\n"
     << "      cgc_vector in[kColumns];\n"
     << unroll << "      for (int j = 0; j < kColumns; ++j) {\n"
     << "        const cgc_index column = left + j;\n"
     << "        if (cgc_column_read(j) && column >= 0 && column < width)\n"
     << "          in[j] = *(const cgc_vector *)(line + column * channels);\n"
     << "        else\n"
     << "          in[j] = cgc_vector{};\n"
     << "      }\n"
     << "      // The same test again rather than kept from the loads: kept as\n"
     << "      // flags it doubled the spills at 64 registers.\n"
     << unroll << "      for (int j = 0; j < kColumns; ++j) {\n"
     << "        const cgc_index column = left + j;\n"
     << "        if (!cgc_column_read(j) || column < 0 || column >= width)\n"
     << "          continue;\n"
     << "        float values[kVector];\n"
     << "#pragma unroll\n"
     << "        for (int l = 0; l < kVector; ++l)\n"
     << "          values[l] = " << load("in[j].e[l]") << ";\n"
     << "#pragma unroll\n"
     << "        for (int i = 0; i < kRun; ++i) {\n"
     << "          const int s = cgc_tap(i, j);\n"
     << "          if (s < 0)\n            continue;\n";
  if (layout.weightsStaged)
    os << "          float tap[kVector];\n"
       << "#pragma unroll\n"
       << "          for (int l = 0; l < kVector; ++l)\n"
       << "            tap[l] = staged[r * kKernelWidth + s][threadIdx.x * kVector + l];\n";
  os << "#pragma unroll\n"
     << "          for (int l = 0; l < kVector; ++l)\n"
     << "            sums[i][l] = fmaf(values[l], " << weight << ", sums[i][l]);\n"
     << "        }\n"
     << "      }\n"
     << "    }\n";

  // The epilogue, output pixel by output pixel of the run.
  os << "#pragma unroll\n"
     << "    for (int i = 0; i < kRun; ++i) {\n"
     << "      const cgc_index q = column0 + i;\n"
     << "      if (q >= outWidth)\n        break;\n";
  for (size_t index = 0; index < operandCount; ++index) {
    const OperandRead &operand = spec.operands[index];
    std::string k = std::to_string(index + 1);
    auto stride = [&](int dim) {
      return "(cgc_index)p.operandStrides[" + std::to_string(3 * index + dim) + "]";
    };
    os << "      const cgc_index at" << k << " = image * " << stride(0) << " + row * " << stride(1)
       << " + q * " << stride(2) << ";\n";
    if (operand.vectorized)
      os << "      const cgc_vector read" << k << " = *(const cgc_vector *)(operand" << k << " + at"
         << k << " + channel);\n";
  }
  os << "      cgc_vector out;\n"
     << "#pragma unroll\n"
     << "      for (int l = 0; l < kVector; ++l) {\n"
     << "        float v = sums[i][l];\n";
  for (size_t index = 0; index < operandCount; ++index) {
    const OperandRead &operand = spec.operands[index];
    std::string k = std::to_string(index + 1);
    std::string element = operand.vectorized
                              ? "read" + k + ".e[l]"
                              : "operand" + k + "[at" + k + " + (channel + l) * (cgc_index)" +
                                    std::to_string(operand.channelStride) + "]";
    os << "        const float x" << k << " = " << load(element) << ";\n";
  }
  os << "       " << spec.statements << "\n"
     << "        out.e[l] = " << storeValue(spec.dtype, "v") << ";\n"
     << "      }\n"
     << "      *(cgc_vector *)(output + ((image * outHeight + row) * outWidth + q) * channels + "
        "channel) = out;\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return source;
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

/// Builds the variant of at most `maxVector` channels per thread.
static llvm::Expected<DepthwiseVariant>
buildVariant(const FusedConvolutionShape &shape, const DepthwiseGeometry &geometry,
             const ConvolutionEpilogue &epilogue, KernelContext::Impl &context, int64_t maxVector) {
  DType dtype = shape.plan.output.dtype;
  const Shape &outputShape = shape.plan.output.shape;
  DepthwiseSpec spec;
  spec.dtype = dtype;
  spec.layout =
      getDepthwiseLayout(dtype, geometry.channels, geometry.kernelHeight, geometry.kernelWidth,
                         geometry.outWidth, maxVector, geometry.strideWidth,
                         geometry.dilationWidth);
  spec.kernelHeight = geometry.kernelHeight;
  spec.kernelWidth = geometry.kernelWidth;
  spec.strideHeight = geometry.strideHeight;
  spec.strideWidth = geometry.strideWidth;
  spec.dilationHeight = geometry.dilationHeight;
  spec.dilationWidth = geometry.dilationWidth;
  spec.statements = epilogue.statements;
  int64_t vector = spec.layout.vector;

  // Offsets are 32-bit when every tensor's elements fit in 30 bits (room
  // for the grid stride past the end).
  constexpr int64_t kNarrowLimit = int64_t(1) << 30;
  int64_t runsPerRow = (geometry.outWidth + spec.layout.run - 1) / spec.layout.run;
  int64_t runs = geometry.batch * geometry.outHeight * runsPerRow;
  int64_t largest =
      std::max({shape.plan.input.getNumElements(), shape.plan.output.getNumElements(),
                geometry.channels * geometry.kernelHeight * geometry.kernelWidth, runs});
  for (const EpilogueOperand &operand : epilogue.operands) {
    largest = std::max(largest, getNumElements(operand.shape));
    // Per N, P, Q and C of the output; C strides are 1 (the operand has
    // every channel) or 0 (it broadcasts them).
    StridedOperand strided = broadcastOperand(dtype, operand.shape, outputShape);
    OperandRead read;
    read.argument = operand.argument;
    for (int dim = 0; dim < 3; ++dim)
      read.strides[dim] = strided.strides[dim];
    read.channelStride = strided.strides[3];
    read.vectorized = read.channelStride == 1 && llvm::all_of(read.strides, [&](int64_t stride) {
                        return stride % vector == 0;
                      });
    spec.operands.push_back(read);
  }
  spec.narrowIndex = largest < kNarrowLimit;

  std::string source = generateSource(spec);
  llvm::Expected<DeviceFunction> function =
      context.getFunction(shape.conv, source, "cgc_depthwise");
  if (!function)
    return function.takeError();

  DepthwiseVariant variant;
  variant.function = *function;
  int64_t channelVectors = geometry.channels / vector;
  variant.params = {
      geometry.height, geometry.width,   geometry.channels, geometry.outHeight, geometry.outWidth,
      geometry.padTop, geometry.padLeft, channelVectors,    runsPerRow,         runs};
  for (const OperandRead &read : spec.operands) {
    variant.params.insert(variant.params.end(), std::begin(read.strides), std::end(read.strides));
    variant.vectorizedOperands.push_back(read.vectorized);
  }
  variant.alignment = static_cast<uint64_t>(vector * getByteWidth(dtype));
  variant.vectorizedWeight = spec.layout.weightsStaged;

  // Blocks: up to kMaxBlockVectors channel vectors across (split evenly),
  // runs down to 256 threads; enough blocks down to fill the device a few
  // times over, each thread then looping over several runs.
  int64_t columnsOfBlocks = (channelVectors + kMaxBlockVectors - 1) / kMaxBlockVectors;
  int64_t blockX = (channelVectors + columnsOfBlocks - 1) / columnsOfBlocks;
  int64_t blockY = std::max<int64_t>(1, kBlockThreads / blockX);
  int64_t gridX = (channelVectors + blockX - 1) / blockX;
  int64_t deviceBlocks = context.getGridSize(std::numeric_limits<int32_t>::max(), 1);
  int64_t gridY = std::clamp<int64_t>((runs + blockY - 1) / blockY, 1,
                                      std::clamp<int64_t>(deviceBlocks / 4 / gridX, 1, 65535));
  variant.block = dim3(static_cast<unsigned>(blockX), static_cast<unsigned>(blockY));
  variant.grid = dim3(static_cast<unsigned>(gridX), static_cast<unsigned>(gridY));
  return variant;
}

llvm::Expected<Kernel> buildDepthwiseConvolution(FunctionalDefinitionOp definition,
                                                 const FusedConvolutionShape &shape,
                                                 KernelContext::Impl &context) {
  if (std::optional<std::string> refusal = getDepthwiseRefusal(shape))
    return makeFusedError(definition, kConvolutionFamily,
                          "the generated depthwise kernel does not run this definition: " +
                              *refusal);
  auto geometry = getChannelsLastGeometry(shape);
  if (!geometry)
    return inFusedConvolution(definition, geometry.takeError());
  auto epilogue = getConvolutionEpilogue(definition, shape);
  if (!epilogue)
    return epilogue.takeError();
  if (shape.plan.output.getNumElements() == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};

  auto vectorized = buildVariant(shape, *geometry, *epilogue, context, /*maxVector=*/8);
  if (!vectorized)
    return inFusedConvolution(definition, vectorized.takeError());
  // Buffers misaligned for vectors (an input bound at an odd offset) run
  // one channel per thread.
  std::optional<DepthwiseVariant> scalar;
  if (vectorized->alignment > static_cast<uint64_t>(getByteWidth(shape.plan.output.dtype))) {
    auto built = buildVariant(shape, *geometry, *epilogue, context, /*maxVector=*/1);
    if (!built)
      return inFusedConvolution(definition, built.takeError());
    scalar = std::move(*built);
  }

  llvm::SmallVector<unsigned, 4> operandArguments;
  for (const EpilogueOperand &operand : epilogue->operands)
    operandArguments.push_back(operand.argument);
  unsigned input = shape.input, weight = shape.weight;
  std::string name = ("@" + definition.getSymName() + ": fused convolution (depthwise)").str();
  auto launch = [vectorized = std::move(*vectorized), scalar = std::move(scalar), operandArguments,
                 input, weight, name](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<const void *, 8> pointers =
        getConvolutionPointers(args, input, weight, operandArguments);
    void *output = args.outputs[0];
    auto aligned = [&](const DepthwiseVariant &variant) {
      auto misaligned = [&](const void *pointer) {
        return reinterpret_cast<uintptr_t>(pointer) % variant.alignment != 0;
      };
      if (misaligned(output) || misaligned(pointers[0]) ||
          (variant.vectorizedWeight && misaligned(pointers[1])))
        return false;
      for (auto [index, vectorizedOperand] : llvm::enumerate(variant.vectorizedOperands))
        if (vectorizedOperand && misaligned(pointers[2 + index]))
          return false;
      return true;
    };
    const DepthwiseVariant &variant = !scalar || aligned(vectorized) ? vectorized : *scalar;
    llvm::SmallVector<void *, 12> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    arguments.push_back(&output);
    arguments.push_back(const_cast<int64_t *>(variant.params.data()));
    cudaError_t error =
        variant.function.launch(variant.grid, variant.block, arguments.data(), 0, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(name, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
