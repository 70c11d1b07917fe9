//===- ImplicitGemmConvolution.cpp - few-channel convolutions on tensor cores ===//
//
// Blocks of 256 threads are persistent (two a multiprocessor); each takes
// 64 output channels and loops over tiles of 128 output pixels:
//
//   1. once, it copies its channels' weights (K×R×S×C: each channel's
//      window is one contiguous row) into shared memory, zero-padded to a
//      depth of a multiple of 32;
//   2. per tile and chunk of 32 window elements, each thread stores the 16
//      elements of one pixel's window it gathered from the input (zeros
//      for padding) into one of two shared A tiles, and after the barrier
//      gathers its part of the next chunk (the loads in flight) while each
//      of the 8 warps multiplies its 32 × 32 part with mma.sync m16n8k16
//      (ldmatrix fragments, float32 accumulators);
//   3. each accumulator pair (two neighbouring channels of a pixel) takes
//      the bias and the chain in float32 and is stored as one 4-byte pair
//      (element stores where the output is not 4-byte aligned).
//
// The source is compiled per geometry (every size, stride and padding a
// constant, and the window's offsets with them; the convolutions it takes
// are a model's first).
//
//===----------------------------------------------------------------------===//

#include "ImplicitGemmConvolution.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <vector>

namespace cgc::cuda {

namespace {
constexpr int64_t kThreads = 256;
/// Output pixels and channels of a block.
constexpr int64_t kTileRows = 128, kTileColumns = 64;
/// Window elements per gather step.
constexpr int64_t kChunk = 32;

/// Everything the generated source depends on.
struct ImplicitGemmSpec {
  DType dtype = DType::F16;
  ChannelsLastGeometry geometry;
  /// Window elements, and that padded to a multiple of kChunk.
  int64_t window = 0, depth = 0;
  /// Per epilogue operand: element strides along N, P, Q and C of the
  /// output (0 where it broadcasts).
  llvm::SmallVector<std::array<int64_t, 4>, 4> operandStrides;
  std::string statements;
  bool narrowIndex = true;
};
} // namespace

std::optional<std::string> getImplicitGemmRefusal(const FusedConvolutionShape &shape,
                                                  int computeMajor) {
  if (!shape.channelsLast)
    return std::string("the convolution is channels-first");
  const Shape &input = shape.plan.input.shape, &output = shape.plan.output.shape;
  if (input.size() != 4 || output.size() != 4)
    return std::string("the convolution is not 2-D");
  if (shape.plan.geometry.groups != 1)
    return "it has " + std::to_string(shape.plan.geometry.groups) + " groups";
  DType dtype = shape.plan.output.dtype;
  if (dtype != DType::F16 && dtype != DType::BF16)
    return std::string("element type ") + getDTypeName(dtype) +
           " (tensor cores take float16 and bfloat16)";
  if (computeMajor < 8)
    return "compute capability " + std::to_string(computeMajor) +
           ".x (float16 and bfloat16 mma.sync need 8.0)";
  int64_t channels = input[3];
  if (channels > kImplicitGemmMaxChannels)
    return std::to_string(channels) + " input channels (it takes at most " +
           std::to_string(kImplicitGemmMaxChannels) + ")";
  // The weight's logical dimensions: K, C, R, S.
  llvm::ArrayRef<int> weight = shape.plan.geometry.weight;
  int64_t window = weight.size() == 4 ? int64_t(weight[1]) * weight[2] * weight[3] : 0;
  if (window <= 0 || window > kImplicitGemmMaxWindow)
    return "a window of " + std::to_string(window) + " elements (it takes 1 to " +
           std::to_string(kImplicitGemmMaxWindow) + ")";
  if (output[3] % 8 != 0)
    return std::to_string(output[3]) + " output channels (it takes multiples of 8)";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The source
//===----------------------------------------------------------------------===//

/// The source of the kernel `cgc_implicit_gemm`.
static std::string generateSource(const ImplicitGemmSpec &spec) {
  const ChannelsLastGeometry &g = spec.geometry;
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getTensorCoreHelpers(spec.dtype) << getIndexTypedef(spec.narrowIndex);
  int64_t bStride = spec.depth + 8, aStride = kChunk + 8;
  os << "constexpr int kC = " << g.channels << ", kR = " << g.kernelHeight
     << ", kS = " << g.kernelWidth << ";\n"
     << "constexpr int kStrideH = " << g.strideHeight << ", kStrideW = " << g.strideWidth
     << ", kDilationH = " << g.dilationHeight << ", kDilationW = " << g.dilationWidth
     << ", kPadTop = " << g.padTop << ", kPadLeft = " << g.padLeft << ";\n"
     << "constexpr cgc_index kH = " << g.height << ", kW = " << g.width
     << ", kP = " << g.outHeight << ", kQ = " << g.outWidth << ", kK = " << g.outChannels
     << ", kPixels = " << g.batch * g.outHeight * g.outWidth << ";\n"
     << "constexpr int kWindow = " << spec.window << ", kDepth = " << spec.depth
     << ", kChunk = " << kChunk << ", kChunks = " << spec.depth / kChunk << ";\n"
     << "constexpr int kRows = " << kTileRows << ", kColumns = " << kTileColumns << ";\n"
     << "constexpr cgc_index kTiles = (kPixels + kRows - 1) / kRows;\n"
     << "constexpr int kAStride = " << aStride << ", kBStride = " << bStride << ";\n";

  // The gather of one thread: 16 window elements [first, first + 16) of
  // its pixel. Inlined into the unrolled chunk loop, `first` is a constant,
  // and so is each element's offset.
  os << "CGC_DEVICE void cgc_gather(unsigned short (&values)[16], const unsigned short "
        "*__restrict__ input, cgc_index base, const bool (&rowOk)[kR], const bool "
        "(&columnOk)[kS], int first) {\n"
     << "#pragma unroll\n"
     << "  for (int j = 0; j < 16; ++j) {\n"
     << "    const int k = first + j;\n"
     << "    const int r = k / (kS * kC), s = k / kC % kS, c = k % kC;\n"
     << "    values[j] = k < kWindow && rowOk[r < kR ? r : 0] && columnOk[s] ?\n"
     << "        input[base + ((cgc_index)r * kDilationH * kW + (cgc_index)s * kDilationW) * kC + "
        "c] : (unsigned short)0;\n"
     << "  }\n"
     << "}\n";

  // The epilogue of one element: its sum `v`, the operands read at their
  // offsets for the element's pixel and channel.
  size_t operandCount = spec.operandStrides.size();
  std::string storage = getStorageType(spec.dtype);
  os << "CGC_DEVICE float cgc_epilogue(float v";
  for (size_t index = 0; index < operandCount; ++index)
    os << ", const " << storage << " *__restrict__ operand" << index + 1 << ", cgc_index at"
       << index + 1;
  os << ") {\n";
  for (size_t index = 0; index < operandCount; ++index) {
    std::string k = std::to_string(index + 1);
    os << "  const float x" << k << " = " << loadValue(spec.dtype, "operand" + k + "[at" + k + "]")
       << ";\n";
  }
  os << "  " << spec.statements << "\n"
     << "  return v;\n"
     << "}\n";

  os << "extern \"C\" __global__ void __launch_bounds__(" << kThreads
     << ", 2) cgc_implicit_gemm(const unsigned short *__restrict__ input, "
        "const unsigned short *__restrict__ weight, ";
  for (size_t operand = 0; operand < operandCount; ++operand)
    os << "const " << storage << " *__restrict__ operand" << operand + 1 << ", ";
  os << "unsigned short *__restrict__ output, int aligned) {\n"
     << "  __shared__ __align__(16) unsigned short b[kColumns * kBStride];\n"
     << "  __shared__ __align__(16) unsigned short a[2][kRows * kAStride];\n"
     << "  const int thread = threadIdx.x, warp = thread >> 5, lane = thread & 31;\n"
     << "  const int channel0 = blockIdx.y * kColumns;\n"
     // 1. The block's weights, once: the block then loops over pixel tiles.
     << "  for (int i = thread; i < kColumns * kDepth; i += " << kThreads << ") {\n"
     << "    const int n = i / kDepth, k = i - n * kDepth;\n"
     << "    b[n * kBStride + k] = channel0 + n < kK && k < kWindow ?\n"
     << "        weight[(cgc_index)(channel0 + n) * kWindow + k] : (unsigned short)0;\n"
     << "  }\n"
     // Warps 0-3 gather the first half of each chunk, warps 4-7 the second
     // (a warp-uniform choice), each thread for one pixel.
     << "  const int gatherRow = (warp & 3) * 32 + lane;\n"
     << "  const bool secondHalf = warp >= 4;\n"
     << "  const int warpRow = (warp & 3) * 32, warpColumn = (warp >> 2) * 32;\n"
     << "  for (cgc_index tile = blockIdx.x; tile < kTiles; tile += gridDim.x) {\n"
     << "    const cgc_index pixel0 = tile * kRows;\n"
     << "    const cgc_index pixel = pixel0 + gatherRow;\n"
     << "    const bool live = pixel < kPixels;\n"
     << "    const cgc_index q = pixel % kQ, rest = pixel / kQ, p = rest % kP, image = rest / kP;\n"
     << "    const int top = (int)p * kStrideH - kPadTop, left = (int)q * kStrideW - kPadLeft;\n"
     << "    bool rowOk[kR], columnOk[kS];\n"
     << "#pragma unroll\n"
     << "    for (int r = 0; r < kR; ++r)\n"
     << "      rowOk[r] = live && (unsigned)(top + r * kDilationH) < (unsigned)kH;\n"
     << "#pragma unroll\n"
     << "    for (int s = 0; s < kS; ++s)\n"
     << "      columnOk[s] = (unsigned)(left + s * kDilationW) < (unsigned)kW;\n"
     << "    const cgc_index base = ((image * kH + top) * kW + left) * kC;\n"
     << "    float accumulators[2][4][4];\n"
     << "#pragma unroll\n"
     << "    for (int m = 0; m < 2; ++m)\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < 4; ++n)\n"
     << "#pragma unroll\n"
     << "        for (int e = 0; e < 4; ++e)\n"
     << "          accumulators[m][n][e] = 0.0f;\n"
     << "    unsigned short values[16];\n"
     << "    if (secondHalf)\n"
     << "      cgc_gather(values, input, base, rowOk, columnOk, 16);\n"
     << "    else\n"
     << "      cgc_gather(values, input, base, rowOk, columnOk, 0);\n"
     // The previous tile's last products read a[0] or a[1]: wait for them.
     << "    __syncthreads();\n"
     // 2. Chunk by chunk: store the gathered values, barrier, gather the
     // next chunk (its loads in flight during the products), products. The
     // A tile alternates between two buffers, so one barrier a chunk
     // suffices.
     << "#pragma unroll\n"
     << "    for (int chunk = 0; chunk < kChunks; ++chunk) {\n"
     << "      unsigned short *tileA = a[chunk & 1];\n"
     << "      uint4 *to = (uint4 *)(tileA + gatherRow * kAStride + (secondHalf ? 16 : 0));\n"
     << "      to[0] = make_uint4(values[0] | (unsigned)values[1] << 16, values[2] | "
        "(unsigned)values[3] << 16, values[4] | (unsigned)values[5] << 16, values[6] | "
        "(unsigned)values[7] << 16);\n"
     << "      to[1] = make_uint4(values[8] | (unsigned)values[9] << 16, values[10] | "
        "(unsigned)values[11] << 16, values[12] | (unsigned)values[13] << 16, values[14] | "
        "(unsigned)values[15] << 16);\n"
     << "      __syncthreads();\n"
     << "      if (chunk + 1 < kChunks) {\n"
     << "        if (secondHalf)\n"
     << "          cgc_gather(values, input, base, rowOk, columnOk, (chunk + 1) * kChunk + 16);\n"
     << "        else\n"
     << "          cgc_gather(values, input, base, rowOk, columnOk, (chunk + 1) * kChunk);\n"
     << "      }\n"
     << "#pragma unroll\n"
     << "      for (int step = 0; step < kChunk / 16; ++step) {\n"
     << "        unsigned int fragments[2][4], weights[2][4];\n"
     << "#pragma unroll\n"
     << "        for (int m = 0; m < 2; ++m)\n"
     << "          cgc_load_matrices(fragments[m], tileA + (warpRow + m * 16 + (lane & 15)) * "
        "kAStride + step * 16 + (lane >> 4) * 8);\n"
     << "#pragma unroll\n"
     << "        for (int n = 0; n < 2; ++n)\n"
     << "          cgc_load_matrices(weights[n], b + (warpColumn + n * 16 + (lane & 7) + ((lane "
        ">> 4) << 3)) * kBStride + chunk * kChunk + step * 16 + ((lane >> 3) & 1) * 8);\n"
     << "#pragma unroll\n"
     << "        for (int m = 0; m < 2; ++m)\n"
     << "#pragma unroll\n"
     << "          for (int n = 0; n < 4; ++n)\n"
     << "            cgc_mma(accumulators[m][n], fragments[m], weights[n >> 1][(n & 1) * 2], "
        "weights[n >> 1][(n & 1) * 2 + 1]);\n"
     << "      }\n"
     << "    }\n"
     // 3. The epilogue from the accumulators: each holds two neighbouring
     // channels of a pixel, stored as one 4-byte pair.
     << "#pragma unroll\n"
     << "    for (int m = 0; m < 2; ++m)\n"
     << "#pragma unroll\n"
     << "      for (int half = 0; half < 2; ++half) {\n"
     << "        const cgc_index pixel = pixel0 + warpRow + m * 16 + half * 8 + (lane >> 2);\n"
     << "        if (pixel >= kPixels)\n"
     << "          continue;\n";
  if (operandCount)
    os << "        const cgc_index q = pixel % kQ, rest = pixel / kQ, p = rest % kP, image = "
          "rest / kP;\n";
  os << "#pragma unroll\n"
     << "        for (int n = 0; n < 4; ++n) {\n"
     << "          const cgc_index channel = channel0 + warpColumn + n * 8 + (lane & 3) * 2;\n"
     << "          if (channel >= kK)\n"
     << "            continue;\n"
     << "          float pair[2];\n"
     << "#pragma unroll\n"
     << "          for (int l = 0; l < 2; ++l)\n"
     << "            pair[l] = cgc_epilogue(accumulators[m][n][half * 2 + l]";
  for (size_t index = 0; index < operandCount; ++index) {
    const std::array<int64_t, 4> &strides = spec.operandStrides[index];
    os << ", operand" << index + 1 << ", image * (cgc_index)" << strides[0]
       << " + p * (cgc_index)" << strides[1] << " + q * (cgc_index)" << strides[2]
       << " + (channel + l) * (cgc_index)" << strides[3];
  }
  os << ");\n"
     << "          const unsigned short low = " << storeValue(spec.dtype, "pair[0]")
     << ", high = " << storeValue(spec.dtype, "pair[1]") << ";\n"
     << "          unsigned short *to = output + pixel * kK + channel;\n"
     << "          if (aligned) {\n"
     << "            *(unsigned int *)to = low | (unsigned)high << 16;\n"
     << "          } else {\n"
     << "            to[0] = low;\n"
     << "            to[1] = high;\n"
     << "          }\n"
     << "        }\n"
     << "      }\n"
     << "  }\n"
     << "}\n";
  return source;
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

llvm::Expected<Kernel> buildImplicitGemmConvolution(FunctionalDefinitionOp definition,
                                                    const FusedConvolutionShape &shape,
                                                    KernelContext::Impl &context) {
  if (std::optional<std::string> refusal =
          getImplicitGemmRefusal(shape, context.getComputeMajor()))
    return makeFusedError(definition, kConvolutionFamily,
                          "the implicit-GEMM kernel does not run this definition: " + *refusal);
  auto geometry = getChannelsLastGeometry(shape);
  if (!geometry)
    return inFusedConvolution(definition, geometry.takeError());
  auto epilogue = getConvolutionEpilogue(definition, shape);
  if (!epilogue)
    return epilogue.takeError();
  if (shape.plan.output.getNumElements() == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};

  DType dtype = shape.plan.output.dtype;
  const Shape &outputShape = shape.plan.output.shape;
  ImplicitGemmSpec spec;
  spec.dtype = dtype;
  spec.geometry = *geometry;
  spec.window = geometry->kernelHeight * geometry->kernelWidth * geometry->channels;
  spec.depth = (spec.window + kChunk - 1) / kChunk * kChunk;
  spec.statements = epilogue->statements;
  // Offsets are 32-bit when every tensor's elements (and the input offsets
  // of padding windows, a row and a column beyond it) fit in 30 bits.
  constexpr int64_t kNarrowLimit = int64_t(1) << 30;
  int64_t largest = std::max(shape.plan.input.getNumElements() +
                                 (geometry->width + 1) * geometry->channels * geometry->kernelHeight,
                             shape.plan.output.getNumElements());
  llvm::SmallVector<unsigned, 4> operandArguments;
  for (const EpilogueOperand &operand : epilogue->operands) {
    largest = std::max(largest, getNumElements(operand.shape));
    StridedOperand strided = broadcastOperand(dtype, operand.shape, outputShape);
    spec.operandStrides.push_back(
        {strided.strides[0], strided.strides[1], strided.strides[2], strided.strides[3]});
    operandArguments.push_back(operand.argument);
  }
  spec.narrowIndex = largest < kNarrowLimit;

  llvm::Expected<DeviceFunction> function =
      context.getFunction(shape.conv, generateSource(spec), "cgc_implicit_gemm");
  if (!function)
    return inFusedConvolution(definition, function.takeError());

  int64_t pixels = geometry->batch * geometry->outHeight * geometry->outWidth;
  // Persistent blocks: two a multiprocessor (the launch bound), each
  // loading its weights once and looping over pixel tiles.
  int64_t tiles = (pixels + kTileRows - 1) / kTileRows;
  int64_t columnBlocks = (geometry->outChannels + kTileColumns - 1) / kTileColumns;
  int64_t resident = std::max<int64_t>(1, 2 * context.getMultiprocessorCount() / columnBlocks);
  dim3 grid(static_cast<unsigned>(std::min(tiles, resident)),
            static_cast<unsigned>(columnBlocks));
  unsigned input = shape.input, weight = shape.weight;
  std::string name = ("@" + definition.getSymName() + ": fused convolution (implicit GEMM)").str();
  auto launch = [function = *function, grid, operandArguments, input, weight,
                 name](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<const void *, 8> pointers{args.inputs[input], args.inputs[weight]};
    for (unsigned argument : operandArguments)
      pointers.push_back(args.inputs[argument]);
    void *output = args.outputs[0];
    int aligned = reinterpret_cast<uintptr_t>(output) % 4 == 0 ? 1 : 0;
    llvm::SmallVector<void *, 12> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    arguments.push_back(&output);
    arguments.push_back(&aligned);
    cudaError_t error =
        function.launch(grid, dim3(kThreads), arguments.data(), 0, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(name, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
