//===- ConvolutionPair.cpp - two pointwise convolutions as one kernel ----===//
//
// The generated kernel of ConvolutionPair.h. Shared memory holds two tiles
// of X (128 rows × C: the tile computing and the next, by the tile's
// parity); twice (the step computing and the step being copied) the
// residual's chunk (128 × 64), the first weight's chunk rows (64 × C) and
// the second weight's chunk columns (Z's channels × 64); and once Y's
// chunk (128 × 64). Rows are padded by 8 elements so that ldmatrix
// reads of eight rows fall in distinct banks. Warps form an 8 × 2 grid: in
// the first product a warp takes 16 rows × 32 of the chunk's columns, in
// the second 16 rows × half of Z's channels.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionPair.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"
#include "KernelContextImpl.h"

#include "llvm/Support/raw_ostream.h"

#include <array>

namespace cgc::cuda {

namespace {

constexpr int kThreads = 512;
/// A warp's rows in 16-row MMA tiles: 16 warps in an 8 × 2 grid.
constexpr int kRowTiles = 1;
constexpr int64_t kRows = 128;
constexpr int64_t kChunk = 64;
constexpr int64_t kPad = 8;
/// Shared memory a block may take (sm_90's opt-in limit is 227 KiB).
constexpr int64_t kMaxSharedBytes = 220 * 1024;

/// How the generated source reads one chain operand.
struct PairOperand {
  unsigned argument = 0;
  /// Varies along channels only: read at `channel * stride`; otherwise the
  /// residual, of Y's whole shape, staged in shared memory.
  bool perChannel = true;
  int64_t stride = 1;
};

struct ConvolutionPairSpec {
  DType dtype = DType::F16;
  int64_t rows = 0, channels = 0, middle = 0, outChannels = 0;
  std::string firstStatements, secondStatements;
  llvm::SmallVector<PairOperand, 4> firstOperands, secondOperands;
  bool hasResidual() const {
    return llvm::any_of(firstOperands, [](const PairOperand &o) { return !o.perChannel; });
  }
};

/// Shared-memory layout, in 16-bit elements.
struct PairLayout {
  int64_t xStride = 0, chunkStride = kChunk + kPad, firstWeightStride = 0;
  int64_t x = 0, residual = 0, firstWeight = 0, secondWeight = 0, stage = 0, y = 0;
  /// The ring of stages: the step computing and the next stages - 1 being
  /// copied.
  int stages = 2;
  /// Two X tiles (by the tile's parity), the stages, Y's chunk.
  int64_t getBytes() const { return (2 * x + stages * stage + y) * 2; }
};

PairLayout getLayout(int64_t channels, int64_t middle, int64_t outChannels, bool residual) {
  PairLayout layout;
  layout.xStride = channels + kPad;
  layout.firstWeightStride = channels + kPad;
  layout.x = kRows * layout.xStride;
  layout.residual = residual ? kRows * layout.chunkStride : 0;
  layout.firstWeight = kChunk * layout.firstWeightStride;
  layout.secondWeight = outChannels * layout.chunkStride;
  layout.stage = layout.residual + layout.firstWeight + layout.secondWeight;
  layout.y = kRows * layout.chunkStride;
  // As many stages as fit, up to 4: a tile's next X is copied stages - 1
  // steps ahead, into the X buffer the tile before last used, so a tile
  // has at least stages - 1 chunks.
  for (int stages = 4; stages >= 2; --stages) {
    layout.stages = stages;
    if (layout.getBytes() <= kMaxSharedBytes && stages - 1 <= middle / kChunk)
      break;
  }
  return layout;
}

/// The chain applied to one element, as `name(v, x1, ...)`.
void writeChain(llvm::raw_ostream &os, const char *name, const std::string &statements,
                size_t operands) {
  os << "CGC_DEVICE float " << name << "(float v";
  for (size_t index = 0; index < operands; ++index)
    os << ", float x" << index + 1;
  os << ") {\n  " << statements << "\n  return v;\n}\n";
}

/// The arguments of a chain call for element l of a thread's pair in
/// column tile n: per-channel operands from the registers `<prefix>Channel<k>`
/// (writeChannelLoads), the residual from the pair's bits `residualBits`.
std::string getChainArguments(const ConvolutionPairSpec &spec,
                              llvm::ArrayRef<PairOperand> operands, const char *prefix) {
  std::string text;
  for (auto [index, operand] : llvm::enumerate(operands)) {
    if (operand.perChannel)
      text += ", " + std::string(prefix) + "Channel" + std::to_string(index + 1) + "[n][l]";
    else
      text += ", " + loadValue(spec.dtype, "(unsigned short)(residualBits >> (16 * l))");
  }
  return text;
}

/// Reads each per-channel operand of `operands` into registers
/// `<prefix>Channel<k>[tiles][2]`, at `channelBase + n * 8 + l` for the
/// thread's column tiles n.
void writeChannelLoads(llvm::raw_ostream &os, const ConvolutionPairSpec &spec,
                       llvm::ArrayRef<PairOperand> operands, const char *prefix,
                       const std::string &tiles, const std::string &channelBase,
                       const std::string &indent) {
  for (auto [index, operand] : llvm::enumerate(operands)) {
    if (!operand.perChannel)
      continue;
    std::string k = std::to_string(index + 1);
    os << indent << "float " << prefix << "Channel" << k << "[" << tiles << "][2];\n"
       << indent << "#pragma unroll\n"
       << indent << "for (int n = 0; n < " << tiles << "; ++n)\n"
       << indent << "#pragma unroll\n"
       << indent << "  for (int l = 0; l < 2; ++l)\n"
       << indent << "    " << prefix << "Channel" << k << "[n][l] = "
       << loadValue(spec.dtype, std::string(prefix) + k + "[(" + channelBase +
                                    " + n * 8 + l) * (long long)" +
                                    std::to_string(operand.stride) + "]")
       << ";\n";
  }
}

std::string generateSource(const ConvolutionPairSpec &spec) {
  PairLayout layout = getLayout(spec.channels, spec.middle, spec.outChannels, spec.hasResidual());
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getTensorCoreHelpers(spec.dtype);
  os << "constexpr long long kM = " << spec.rows << ";\n"
     << "constexpr int kC = " << spec.channels << ", kE = " << spec.middle
     << ", kN = " << spec.outChannels << ";\n"
     << "constexpr int kRows = " << kRows << ", kChunk = " << kChunk
     << ", kChunks = kE / kChunk;\n"
     << "constexpr int kXStride = " << layout.xStride << ", kChunkStride = " << layout.chunkStride
     << ", kWStride = " << layout.firstWeightStride << ";\n"
     << "constexpr int kX = " << layout.x << ", kResidual = " << layout.residual
     << ", kFirstWeight = " << layout.firstWeight << ", kStage = " << layout.stage << ";\n"
     << "constexpr int kThreads = " << kThreads << ", kStages = " << layout.stages
     << ", kRowTiles = " << kRowTiles << ", kRowWarps = kRows / (16 * kRowTiles);\n"
     // Z's columns per warp in the second product, in 8-column tiles.
     << "constexpr int kSecondTiles = kN / 16;\n";
  writeChain(os, "cgc_first_chain", spec.firstStatements, spec.firstOperands.size());
  writeChain(os, "cgc_second_chain", spec.secondStatements, spec.secondOperands.size());
  std::string storage = getStorageType(spec.dtype);

  // One step's copies: the residual's and the weights' chunk, and with
  // `withX` the tile's X.
  os << "CGC_DEVICE void cgc_stage(unsigned short *stage, unsigned short *xs, "
        "const unsigned short *x, "
        "const unsigned short *residual, const unsigned short *firstWeight, "
        "const unsigned short *secondWeight, long long tile, int chunk, bool withX) {\n"
     << "  const int thread = threadIdx.x;\n"
     << "  const long long row0 = tile * kRows;\n"
     << "  if (withX) {\n"
     << "    for (int i = thread; i < kRows * (kC / 8); i += kThreads) {\n"
     << "      const int r = i / (kC / 8), c = (i - r * (kC / 8)) * 8;\n"
     << "      const bool valid = row0 + r < kM;\n"
     << "      cgc_copy_async(xs + r * kXStride + c, x + (valid ? (row0 + r) * kC + c : 0), "
        "valid ? 16 : 0);\n"
     << "    }\n"
     << "  }\n";
  if (spec.hasResidual())
    os << "  for (int i = thread; i < kRows * (kChunk / 8); i += kThreads) {\n"
       << "    const int r = i / (kChunk / 8), c = (i - r * (kChunk / 8)) * 8;\n"
       << "    const bool valid = row0 + r < kM;\n"
       << "    cgc_copy_async(stage + r * kChunkStride + c, residual + (valid ? (row0 + r) * "
          "kE + chunk * kChunk + c : 0), valid ? 16 : 0);\n"
       << "  }\n";
  os << "  for (int i = thread; i < kChunk * (kC / 8); i += kThreads) {\n"
     << "    const int n = i / (kC / 8), c = (i - n * (kC / 8)) * 8;\n"
     << "    cgc_copy_async(stage + kResidual + n * kWStride + c, "
        "firstWeight + (long long)(chunk * kChunk + n) * kC + c, 16);\n"
     << "  }\n"
     << "  for (int i = thread; i < kN * (kChunk / 8); i += kThreads) {\n"
     << "    const int n = i / (kChunk / 8), c = (i - n * (kChunk / 8)) * 8;\n"
     << "    cgc_copy_async(stage + kResidual + kFirstWeight + n * kChunkStride + c, "
        "secondWeight + (long long)n * kE + chunk * kChunk + c, 16);\n"
     << "  }\n"
     << "}\n";

  os << "extern \"C\" __global__ void __launch_bounds__(" << kThreads
     << ", 1) cgc_convolution_pair(const unsigned short *__restrict__ x, "
        "const unsigned short *__restrict__ firstWeight, "
        "const unsigned short *__restrict__ secondWeight, "
        "const unsigned short *__restrict__ residualIn, ";
  for (size_t index = 0; index < spec.firstOperands.size(); ++index)
    os << "const " << storage << " *__restrict__ first" << index + 1 << ", ";
  for (size_t index = 0; index < spec.secondOperands.size(); ++index)
    os << "const " << storage << " *__restrict__ second" << index + 1 << ", ";
  os << "unsigned short *__restrict__ y, unsigned short *__restrict__ z) {\n"
     << "  extern __shared__ __align__(16) unsigned short shared[];\n"
     << "  unsigned short *stages = shared + 2 * kX;\n"
     << "  unsigned short *ys = stages + kStages * kStage;\n"
     << "  const int thread = threadIdx.x, warp = thread >> 5, lane = thread & 31;\n"
     << "  const int warpRow = (warp % kRowWarps) * (16 * kRowTiles);\n"
     << "  const int firstColumn = (warp / kRowWarps) * 32, secondColumn = (warp / kRowWarps) * "
        "(kN / 2);\n"
     << "  const long long tiles = (kM + kRows - 1) / kRows;\n"
     << "  const long long myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 "
        ": 0;\n"
     << "  const long long steps = myTiles * kChunks;\n"
     << "  float second[kRowTiles][kSecondTiles][4];\n"
     << "#pragma unroll\n"
     << "  for (int m = 0; m < kRowTiles; ++m)\n"
     << "#pragma unroll\n"
     << "    for (int n = 0; n < kSecondTiles; ++n)\n"
     << "#pragma unroll\n"
     << "      for (int e = 0; e < 4; ++e)\n"
     << "        second[m][n][e] = 0.0f;\n"
     ;
  writeChannelLoads(os, spec, spec.secondOperands, "second", "kSecondTiles",
                    "secondColumn + (lane & 3) * 2", "  ");
  os
     // Step q's copies into stage q % kStages (X with a tile's first chunk).
     << "  auto copy = [&](long long q) {\n"
     << "    if (q < steps) {\n"
     << "      const long long local = q / kChunks;\n"
     << "      const int chunk = (int)(q - local * kChunks);\n"
     << "      cgc_stage(stages + (int)(q % kStages) * kStage, shared + (local & 1) * kX, x, "
        "residualIn, firstWeight, secondWeight, blockIdx.x + local * gridDim.x, chunk, "
        "chunk == 0);\n"
     << "    }\n"
     << "    cgc_copy_commit();\n"
     << "  };\n"
     << "#pragma unroll 1\n"
     << "  for (int q = 0; q < kStages - 1; ++q)\n"
     << "    copy(q);\n"
     << "#pragma unroll 1\n"
     << "  for (long long step = 0; step < steps; ++step) {\n"
     << "    const long long local = step / kChunks;\n"
     << "    const int chunk = (int)(step - local * kChunks);\n"
     << "    const long long tile = blockIdx.x + local * gridDim.x;\n"
     << "    unsigned short *stage = stages + (int)(step % kStages) * kStage;\n"
     << "    const unsigned short *xs = shared + (local & 1) * kX;\n"
     << "    asm volatile(\"cp.async.wait_group %0;\\n\" ::\"n\"(kStages - 2) : \"memory\");\n"
     << "    __syncthreads();\n"
     << "    copy(step + kStages - 1);\n"
     // 1. The first product: 32 rows × 32 columns of the chunk per warp.
     << "    float first[kRowTiles][4][4];\n"
     << "#pragma unroll\n"
     << "    for (int m = 0; m < kRowTiles; ++m)\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < 4; ++n)\n"
     << "#pragma unroll\n"
     << "        for (int e = 0; e < 4; ++e)\n"
     << "          first[m][n][e] = 0.0f;\n"
     << "    const unsigned short *ws = stage + kResidual;\n"
     << "#pragma unroll\n"
     << "    for (int k = 0; k < kC; k += 16) {\n"
     << "      unsigned int a[kRowTiles][4], b[2][4];\n"
     << "#pragma unroll\n"
     << "      for (int m = 0; m < kRowTiles; ++m)\n"
     << "        cgc_load_matrices(a[m], xs + (warpRow + m * 16 + (lane & 15)) * kXStride + k + "
        "(lane >> 4) * 8);\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < 2; ++n)\n"
     << "        cgc_load_matrices(b[n], ws + (firstColumn + n * 16 + (lane & 7) + ((lane >> 4) "
        "<< 3)) * kWStride + k + ((lane >> 3) & 1) * 8);\n"
     << "#pragma unroll\n"
     << "      for (int m = 0; m < kRowTiles; ++m)\n"
     << "#pragma unroll\n"
     << "        for (int n = 0; n < 4; ++n)\n"
     << "          cgc_mma(first[m][n], a[m], b[n >> 1][(n & 1) * 2], b[n >> 1][(n & 1) * 2 + "
        "1]);\n"
     << "    }\n"
     // 2. The first chain; Y's chunk to memory and to shared memory.
     << "    const unsigned short *residual = stage;\n";
  writeChannelLoads(os, spec, spec.firstOperands, "first", "4",
                    "chunk * kChunk + firstColumn + (lane & 3) * 2", "    ");
  os << "#pragma unroll\n"
     << "    for (int m = 0; m < kRowTiles; ++m)\n"
     << "#pragma unroll\n"
     << "      for (int half = 0; half < 2; ++half) {\n"
     << "        const int r = warpRow + m * 16 + half * 8 + (lane >> 2);\n"
     << "        const long long row = tile * kRows + r;\n"
     << "#pragma unroll\n"
     << "        for (int n = 0; n < 4; ++n) {\n"
     << "          const int column = firstColumn + n * 8 + (lane & 3) * 2;\n"
     << "          const int channel = chunk * kChunk + column;\n"
     << "          const int local = r * kChunkStride + column;\n"
     << "          const unsigned int residualBits = " << (spec.hasResidual() ? "*(const unsigned int *)(residual + local)" : "0u") << ";\n"
     << "          (void)residualBits;\n"
     << "          float pair[2];\n"
     << "#pragma unroll\n"
     << "          for (int l = 0; l < 2; ++l)\n"
     << "            pair[l] = cgc_first_chain(first[m][n][half * 2 + l]"
     << getChainArguments(spec, spec.firstOperands, "first") << ");\n"
     << "          const unsigned int bits = cgc_pack(pair[0], pair[1]);\n"
     << "          *(unsigned int *)(ys + local) = bits;\n"
     << "          if (row < kM)\n"
     << "            *(unsigned int *)(y + row * kE + channel) = bits;\n"
     << "        }\n"
     << "      }\n"
     << "    __syncthreads();\n"
     // 3. The second product accumulates the chunk's part.
     << "    const unsigned short *vs = stage + kResidual + kFirstWeight;\n"
     << "#pragma unroll\n"
     << "    for (int k = 0; k < kChunk; k += 16) {\n"
     << "      unsigned int a[kRowTiles][4];\n"
     << "#pragma unroll\n"
     << "      for (int m = 0; m < kRowTiles; ++m)\n"
     << "        cgc_load_matrices(a[m], ys + (warpRow + m * 16 + (lane & 15)) * kChunkStride + k "
        "+ (lane >> 4) * 8);\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < kSecondTiles / 2; ++n) {\n"
     << "        unsigned int b[4];\n"
     << "        cgc_load_matrices(b, vs + (secondColumn + n * 16 + (lane & 7) + ((lane >> 4) << "
        "3)) * kChunkStride + k + ((lane >> 3) & 1) * 8);\n"
     << "#pragma unroll\n"
     << "        for (int m = 0; m < kRowTiles; ++m) {\n"
     << "          cgc_mma(second[m][2 * n], a[m], b[0], b[1]);\n"
     << "          cgc_mma(second[m][2 * n + 1], a[m], b[2], b[3]);\n"
     << "        }\n"
     << "      }\n"
     << "    }\n"
     // 4. After the tile's last chunk: the second chain, Z stored.
     << "    if (chunk + 1 == kChunks) {\n"
     << "#pragma unroll\n"
     << "      for (int m = 0; m < kRowTiles; ++m)\n"
     << "#pragma unroll\n"
     << "        for (int half = 0; half < 2; ++half) {\n"
     << "          const long long row = tile * kRows + warpRow + m * 16 + half * 8 + (lane >> "
        "2);\n"
     << "#pragma unroll\n"
     << "          for (int n = 0; n < kSecondTiles; ++n) {\n"
     << "            const int channel = secondColumn + n * 8 + (lane & 3) * 2;\n"
     << "            float pair[2];\n"
     << "#pragma unroll\n"
     << "            for (int l = 0; l < 2; ++l) {\n"
     << "              pair[l] = cgc_second_chain(second[m][n][half * 2 + l]"
     << getChainArguments(spec, spec.secondOperands, "second") << ");\n"
     << "              second[m][n][half * 2 + l] = 0.0f;\n"
     << "            }\n"
     << "            if (row < kM)\n"
     << "              *(unsigned int *)(z + row * kN + channel) = cgc_pack(pair[0], pair[1]);\n"
     << "          }\n"
     << "        }\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return source;
}

/// Reads `epilogue`'s operands for an output of `outputShape` (NHWC);
/// a refusal when one is neither per channel nor (with `allowResidual`,
/// once) of the output's whole shape.
std::optional<std::string> readOperands(DType dtype, const ConvolutionEpilogue &epilogue,
                                        llvm::ArrayRef<int64_t> outputShape, bool allowResidual,
                                        llvm::SmallVectorImpl<PairOperand> &operands) {
  bool residual = false;
  for (const EpilogueOperand &operand : epilogue.operands) {
    StridedOperand strided = broadcastOperand(dtype, operand.shape, outputShape);
    PairOperand read;
    read.argument = operand.argument;
    if (strided.strides[0] == 0 && strided.strides[1] == 0 && strided.strides[2] == 0) {
      read.stride = strided.strides[3];
    } else if (allowResidual && !residual &&
               llvm::ArrayRef<int64_t>(operand.shape) == outputShape) {
      read.perChannel = false;
      residual = true;
    } else {
      return allowResidual
                 ? std::string("a first-chain operand varies along pixels and is not the one "
                               "residual of the result's whole shape")
                 : std::string("a second-chain operand varies along pixels (only per-channel "
                               "operands)");
    }
    operands.push_back(read);
  }
  return std::nullopt;
}

} // namespace

namespace {

/// The kernel's spec of `shape` in `spec`, or why the kernel does not run
/// it (what the family's check and the build both ask).
std::optional<std::string> readPairSpec(const ConvolutionPairShape &shape,
                                        ConvolutionPairSpec &spec) {
  std::array<ChannelsLastGeometry, 2> geometries;
  for (auto [half, geometry] : llvm::zip(std::array{&shape.first, &shape.second}, geometries)) {
    if (std::optional<std::string> refusal = getTensorCoreConvolutionRefusal(*half))
      return refusal;
    auto read = getChannelsLastGeometry(*half);
    if (!read)
      return llvm::toString(read.takeError());
    geometry = *read;
    if (geometry.kernelHeight != 1 || geometry.kernelWidth != 1 || geometry.strideHeight != 1 ||
        geometry.strideWidth != 1 || geometry.padTop != 0 || geometry.padLeft != 0 ||
        geometry.outHeight != geometry.height || geometry.outWidth != geometry.width)
      return std::string("a convolution is not pointwise (1×1, stride 1, unpadded)");
  }
  const auto &[first, second] = geometries;
  spec.dtype = shape.first.plan.output.dtype;
  if (shape.second.plan.output.dtype != spec.dtype)
    return std::string("the two convolutions compute in different element types");
  if (first.channels % 16 != 0 || first.channels > 128)
    return "the first convolution has " + std::to_string(first.channels) +
           " input channels; the kernel takes a multiple of 16 up to 128";
  if (first.outChannels % kChunk != 0)
    return "the first convolution has " + std::to_string(first.outChannels) +
           " output channels; the kernel takes a multiple of 64";
  if (second.outChannels % 32 != 0 || second.outChannels > 128)
    return "the second convolution has " + std::to_string(second.outChannels) +
           " output channels; the kernel takes a multiple of 32 up to 128";
  auto firstEpilogue = getConvolutionEpilogue(shape.firstDefinition, shape.first);
  if (!firstEpilogue)
    return llvm::toString(firstEpilogue.takeError());
  auto secondEpilogue = getConvolutionEpilogue(shape.secondDefinition, shape.second);
  if (!secondEpilogue)
    return llvm::toString(secondEpilogue.takeError());
  if (std::optional<std::string> refusal =
          readOperands(spec.dtype, *firstEpilogue, shape.first.plan.output.shape, true,
                       spec.firstOperands))
    return refusal;
  if (std::optional<std::string> refusal =
          readOperands(spec.dtype, *secondEpilogue, shape.second.plan.output.shape, false,
                       spec.secondOperands))
    return refusal;
  spec.rows = first.batch * first.height * first.width;
  spec.channels = first.channels;
  spec.middle = first.outChannels;
  spec.outChannels = second.outChannels;
  spec.firstStatements = firstEpilogue->statements;
  spec.secondStatements = secondEpilogue->statements;
  if (getLayout(spec.channels, spec.middle, spec.outChannels, spec.hasResidual()).getBytes() >
      kMaxSharedBytes)
    return std::string("its shared memory exceeds the kernel's limit");
  return std::nullopt;
}

} // namespace

std::optional<std::string> getConvolutionPairRefusal(const ConvolutionPairShape &shape) {
  ConvolutionPairSpec spec;
  return readPairSpec(shape, spec);
}

llvm::Expected<Kernel> buildConvolutionPair(FunctionalDefinitionOp definition,
                                            const ConvolutionPairShape &shape,
                                            KernelContext::Impl &context) {
  ConvolutionPairSpec spec;
  if (std::optional<std::string> refusal = readPairSpec(shape, spec))
    return makeFusedError(definition, kConvolutionPairFamily,
                          "the convolution pair kernel does not run this definition: " + *refusal);
  if (context.getComputeMajor() < 8)
    return makeFusedError(definition, kConvolutionPairFamily,
                          "two pointwise convolutions as one kernel need compute capability 8.0 "
                          "(float16 and bfloat16 mma.sync) on the CUDA driver; this device has " +
                              std::to_string(context.getComputeMajor()) + "." +
                              std::to_string(context.getComputeMinor()));
  if (spec.rows == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};

  llvm::Expected<DeviceFunction> function =
      context.getFunction(shape.first.conv, generateSource(spec), "cgc_convolution_pair");
  if (!function)
    return makeFusedError(definition, kConvolutionPairFamily, llvm::toString(function.takeError()));
  size_t sharedBytes =
      static_cast<size_t>(getLayout(spec.channels, spec.middle, spec.outChannels,
                                    spec.hasResidual())
                              .getBytes());
  if (std::optional<llvm::Error> refused = allowSharedMemory(
          definition, context, *function, sharedBytes, "the convolution pair kernel"))
    return std::move(*refused);

  int64_t tiles = (spec.rows + kRows - 1) / kRows;
  dim3 grid(static_cast<unsigned>(std::min<int64_t>(tiles, context.getMultiprocessorCount())));
  unsigned input = shape.first.input, firstWeight = shape.first.weight,
           secondWeight = shape.second.weight;
  llvm::SmallVector<PairOperand, 4> firstOperands = spec.firstOperands,
                                    secondOperands = spec.secondOperands;
  std::string name = ("@" + definition.getSymName() + ": fused convolution pair").str();
  auto launch = [function = *function, grid, input, firstWeight, secondWeight, firstOperands,
                 secondOperands, name, sharedBytes](const LaunchArgs &args) -> std::string {
    const void *residual = nullptr;
    llvm::SmallVector<const void *, 12> pointers{args.inputs[input], args.inputs[firstWeight],
                                                 args.inputs[secondWeight], nullptr};
    for (const PairOperand &operand : firstOperands) {
      pointers.push_back(args.inputs[operand.argument]);
      if (!operand.perChannel)
        residual = args.inputs[operand.argument];
    }
    pointers[3] = residual;
    for (const PairOperand &operand : secondOperands)
      pointers.push_back(args.inputs[operand.argument]);
    void *z = args.outputs[0], *y = args.outputs[1];
    // The copies move 16 bytes; the stores 4.
    for (const void *pointer : {pointers[0], pointers[1], pointers[2], pointers[3]})
      if (reinterpret_cast<uintptr_t>(pointer) % 16 != 0)
        return name + ": the input, the weights and the residual must be 16-byte aligned";
    if (reinterpret_cast<uintptr_t>(y) % 4 != 0 || reinterpret_cast<uintptr_t>(z) % 4 != 0)
      return name + ": the results must be 4-byte aligned";
    llvm::SmallVector<void *, 14> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    arguments.push_back(&y);
    arguments.push_back(&z);
    cudaError_t error =
        function.launch(grid, dim3(kThreads), arguments.data(), sharedBytes, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(name, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
