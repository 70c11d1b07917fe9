//===- ConvolutionPair.cpp - two pointwise convolutions as one kernel ----===//
//
// The generated kernel of ConvolutionPair.h. Shared memory holds two tiles
// of X (128 rows × C: the tile computing and the next, by the tile's
// parity); up to four stages (the step computing and the steps being
// copied) of the residual's chunk (128 × 64), the first weight's chunk rows
// (64 × C) and the second weight's chunk columns (Z's channels × 64); Y's
// chunk (128 × 64); and the first chain's per-channel operands as floats.
// Rows are padded by 8 elements so that ldmatrix reads of eight rows fall
// in distinct banks. Warps form a 4 × 2 grid: in the first product a warp
// takes 32 rows × 32 of the chunk's columns, in the second 32 rows × half
// of Z's channels. Y's chunk goes to memory from shared memory, 16 bytes a
// thread, each row group's two warps storing their rows after a barrier of
// their own (the second product reads only the group's rows), so that one
// block-wide barrier a step remains. (The wgmma form, ConvolutionPair.h:
// X and the resident weights as no-swizzle K-major core matrices, each
// warp 16 rows, Y's packed words the second product's A, each warp
// storing its own rows.) Offsets within a tile are 32-bit and
// the step's tile, chunk and stage are counters, so that integer
// arithmetic does not outweigh the products.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionPair.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"
#include "KernelContextImpl.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <limits>

namespace cgc::cuda {

namespace {

constexpr int64_t kRows = 128;
constexpr int64_t kChunk = 64;
constexpr int64_t kPad = 8;
/// Shared memory a block may take (sm_90's opt-in limit is 227 KiB).
constexpr int64_t kMaxSharedBytes = 220 * 1024;

/// How the generated source reads one chain operand.
struct PairOperand {
  unsigned argument = 0;
  /// Varies along channels only: read at `channel * stride`; otherwise the
  /// residual, of Y's whole shape, staged in shared memory, or (`zero`)
  /// a projection's absent bias, whose place the residual's add keeps.
  bool perChannel = true;
  bool zero = false;
  int64_t stride = 1;
};

/// Shared-memory layout, in 16-bit elements.
struct PairLayout {
  int64_t xStride = 0, chunkStride = kChunk + kPad, firstWeightStride = 0;
  int64_t x = 0, residual = 0, firstWeight = 0, secondWeight = 0, stage = 0, y = 0;
  /// The first chain's per-channel operands as floats (two elements each).
  int64_t channels = 0;
  /// Whether both weights stay in shared memory for the whole kernel
  /// (`weights` elements: the first E × (C + 8), the second N × (E + 8))
  /// rather than coming with each step's stage.
  bool resident = false;
  int64_t secondWeightStride = 0, weights = 0;
  /// The ring of stages: the step computing and the next stages - 1 being
  /// copied.
  int stages = 2;
  /// Two X tiles (by the tile's parity), the stages, Y's chunk, the
  /// resident weights, the per-channel operands.
  int64_t getBytes() const { return (2 * x + stages * stage + y + weights + channels) * 2; }
};

struct ConvolutionPairSpec {
  DType dtype = DType::F16;
  int64_t rows = 0, channels = 0, middle = 0, outChannels = 0;
  /// A projection's input channels (0 without one): its input follows X's
  /// channels in the first product's depth, its weight the first weight's.
  int64_t projectionChannels = 0;
  int64_t getDepth() const { return channels + projectionChannels; }
  std::string firstStatements, secondStatements;
  llvm::SmallVector<PairOperand, 4> firstOperands, secondOperands;
  /// A warp's rows in 16-row MMA tiles: 8 warps in a 4 × 2 grid take two
  /// each (16 warps taking one were 4–6% slower on an H100: each of them
  /// reads the weights' fragments for half as many rows).
  int rowTiles = 2;
  /// Its shared memory (getLayout, once the rest is read).
  PairLayout layout;
  /// The products as wgmma (compute capability 9.0, resident weights):
  /// each warpgroup's 64 rows, the first product's X and weights from
  /// shared memory as no-swizzle K-major core matrices, the second's A
  /// the first chain's packed results in the lanes' registers.
  bool wgmma = false;
  bool hasResidual() const {
    return llvm::any_of(firstOperands,
                        [](const PairOperand &o) { return !o.perChannel && !o.zero; });
  }
};

/// The block's threads: two columns of warps, each warp 16 · rowTiles of
/// a tile's rows.
unsigned getThreads(const ConvolutionPairSpec &spec) {
  return static_cast<unsigned>(kRows / (16 * spec.rowTiles) * 64);
}

PairLayout getLayout(const ConvolutionPairSpec &spec) {
  PairLayout layout;
  layout.xStride = spec.getDepth() + kPad;
  layout.firstWeightStride = spec.getDepth() + kPad;
  layout.x = kRows * layout.xStride;
  layout.residual = spec.hasResidual() ? kRows * layout.chunkStride : 0;
  layout.y = kRows * layout.chunkStride;
  layout.channels =
      2 * spec.middle * llvm::count_if(spec.firstOperands, [](const PairOperand &operand) {
        return operand.perChannel;
      });
  // Resident weights where they fit with at least three stages (a tile's
  // weights then come from memory once per block, not once per tile);
  // otherwise each stage brings its chunk of both. As many stages as fit,
  // up to 4: a tile's next X is copied stages - 1 steps ahead, into the X
  // buffer the tile before last used, so a tile has at least stages - 1
  // chunks.
  for (bool resident : {true, false}) {
    layout.resident = resident;
    layout.secondWeightStride = resident ? spec.middle + kPad : layout.chunkStride;
    layout.firstWeight = resident ? 0 : kChunk * layout.firstWeightStride;
    layout.secondWeight = resident ? 0 : spec.outChannels * layout.chunkStride;
    layout.weights = resident ? spec.middle * layout.firstWeightStride +
                                    spec.outChannels * layout.secondWeightStride
                              : 0;
    layout.stage = layout.residual + layout.firstWeight + layout.secondWeight;
    int least = resident ? 3 : 2;
    for (int stages = 4; stages >= least; --stages) {
      layout.stages = stages;
      if (layout.getBytes() <= kMaxSharedBytes && stages - 1 <= spec.middle / kChunk)
        return layout;
    }
  }
  return layout;
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
    else if (operand.zero)
      text += ", 0.0f";
    else
      text += ", " + loadValue(spec.dtype, "(unsigned short)(residualBits >> (16 * l))");
  }
  return text;
}

/// Reads each per-channel operand of the second chain into registers
/// `secondChannel<k>[kSecondTiles][2]`, at `secondColumn + (lane & 3) * 2 +
/// n * 8 + l` for the thread's column tiles n.
void writeSecondChannelLoads(llvm::raw_ostream &os, const ConvolutionPairSpec &spec) {
  for (auto [index, operand] : llvm::enumerate(spec.secondOperands)) {
    std::string k = std::to_string(index + 1);
    os << "  float secondChannel" << k << "[kSecondTiles][2];\n"
       << "#pragma unroll\n"
       << "  for (int n = 0; n < kSecondTiles; ++n)\n"
       << "#pragma unroll\n"
       << "    for (int l = 0; l < 2; ++l)\n"
       << "      secondChannel" << k << "[n][l] = "
       << loadValue(spec.dtype, "second" + k + "[(secondColumn + (lane & 3) * 2 + n * 8 + l) * " +
                                    std::to_string(operand.stride) + "LL]")
       << ";\n";
  }
}

/// The first chain's per-channel operands: copied once into shared memory
/// as floats (`writeFirstChannelCopies`, at the kernel's start), read per
/// chunk into registers `firstChannel<k>[4][2]` (`writeFirstChannelLoads`).
void writeFirstChannelCopies(llvm::raw_ostream &os, const ConvolutionPairSpec &spec) {
  int slot = 0;
  for (auto [index, operand] : llvm::enumerate(spec.firstOperands)) {
    if (!operand.perChannel)
      continue;
    os << "  for (int c = thread; c < kE; c += kThreads)\n"
       << "    channels[" << slot++ << " * kE + c] = "
       << loadValue(spec.dtype, "first" + std::to_string(index + 1) + "[c * " +
                                    std::to_string(operand.stride) + "LL]")
       << ";\n";
  }
}

void writeFirstChannelLoads(llvm::raw_ostream &os, const ConvolutionPairSpec &spec) {
  int slot = 0;
  for (auto [index, operand] : llvm::enumerate(spec.firstOperands)) {
    if (!operand.perChannel)
      continue;
    std::string k = std::to_string(index + 1);
    os << "    float firstChannel" << k << "[kFirstTiles][2];\n"
       << "#pragma unroll\n"
       << "    for (int n = 0; n < kFirstTiles; ++n) {\n"
       << "      const float2 pair = *(const float2 *)(channels + " << slot++
       << " * kE + chunk * kChunk + firstColumn + (lane & 3) * 2 + n * 8);\n"
       << "      firstChannel" << k << "[n][0] = pair.x;\n"
       << "      firstChannel" << k << "[n][1] = pair.y;\n"
       << "    }\n";
  }
}

/// `count` 16-byte pieces spread over the block's threads, piece `i` given
/// to `body` (unrolled; guarded where the count is not a multiple).
void writePieces(llvm::raw_ostream &os, const std::string &count, const std::string &body,
                 const std::string &indent) {
  os << indent << "#pragma unroll\n"
     << indent << "for (int j = 0; j < (" << count << " + kThreads - 1) / kThreads; ++j) {\n"
     << indent << "  const int i = thread + j * kThreads;\n"
     << indent << "  if ((" << count << ") % kThreads == 0 || i < (" << count << ")) {\n"
     << body << indent << "  }\n"
     << indent << "}\n";
}

/// 16-byte copies of `rows` rows of `pieces` 16-byte pieces from `from`
/// (rows `fromStride` elements apart), spread over the block's threads:
/// piece `i` is row `r`, elements `column` on, as `indices` (statements)
/// name them, and goes to `target`; with `guarded`, rows from `rowsLeft` on
/// are zero-filled instead of read.
void writeCopies(llvm::raw_ostream &os, const std::string &rows, const std::string &pieces,
                 const std::string &indices, const std::string &target,
                 const std::string &column, const std::string &from,
                 const std::string &fromStride, bool guarded) {
  std::string body = indices;
  if (guarded)
    body += "        const bool valid = r < rowsLeft;\n"
            "        cgc_copy_async(" +
            target + ", " + from + " + (valid ? r * " + fromStride + " + " + column +
            " : 0), valid ? 16u : 0u);\n";
  else
    body += "        cgc_copy_async(" + target + ", " + from + " + r * " + fromStride + " + " +
            column + ", 16u);\n";
  writePieces(os, rows + " * " + pieces, body, "    ");
}

/// The copies (writeCopies) of rows of `width` elements (a multiple of 8)
/// to `to`, rows `toStride` apart.
void writeRowCopies(llvm::raw_ostream &os, const std::string &rows, const std::string &width,
                    const std::string &to, const std::string &toStride, const std::string &from,
                    const std::string &fromStride, bool guarded) {
  std::string pieces = "(" + width + " / 8)";
  writeCopies(os, rows, pieces,
              "        const int r = i / " + pieces + ", c = (i - r * " + pieces + ") * 8;\n",
              to + " + r * " + toStride + " + c", "c", from, fromStride, guarded);
}

/// The copies (writeCopies) of rows of `width` elements (a multiple of 8)
/// into no-swizzle K-major core matrices at `to`
/// (8 rows × 16 bytes each, a row group's `depth` / 8 of them in order,
/// the rows' elements from depth `offset` on). A core matrix's eight rows
/// go to consecutive threads, so that each eight write 128 contiguous
/// bytes.
void writeCoreCopies(llvm::raw_ostream &os, const std::string &rows, const std::string &width,
                     const std::string &depth, const std::string &offset, const std::string &to,
                     const std::string &from, const std::string &fromStride, bool guarded) {
  std::string pieces = "(" + width + " / 8)";
  writeCopies(os, rows, pieces,
              "        const int rest = i >> 3, cp = rest % " + pieces + ", r = (rest / " +
                  pieces + ") * 8 + (i & 7);\n",
              to + " + ((r >> 3) * (" + depth + " / 8) + cp + (" + offset +
                  ") / 8) * 64 + (r & 7) * 8",
              "cp * 8", from, fromStride, guarded);
}

std::string generateSource(const ConvolutionPairSpec &spec) {
  const PairLayout &layout = spec.layout;
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getTensorCoreHelpers(spec.dtype);
  os << "constexpr int kM = " << spec.rows << ";\n"
     << "constexpr int kC = " << spec.channels << ", kP = " << spec.projectionChannels
     << ", kK = kC + kP, kE = " << spec.middle
     << ", kN = " << spec.outChannels << ";\n"
     << "constexpr int kRows = " << kRows << ", kChunk = " << kChunk
     << ", kChunks = kE / kChunk;\n"
     << "constexpr int kXStride = " << layout.xStride << ", kChunkStride = " << layout.chunkStride
     << ", kWStride = " << layout.firstWeightStride
     << ", kW2Stride = " << layout.secondWeightStride << ";\n"
     << "constexpr bool kResident = " << (layout.resident ? "true" : "false") << ";\n"
     << "constexpr int kX = " << layout.x << ", kResidual = " << layout.residual
     << ", kFirstWeight = " << layout.firstWeight << ", kStage = " << layout.stage << ";\n"
     << "constexpr int kStages = " << layout.stages << ";\n";
  // mma.sync: warps in a 4 × 2 grid, each 16 · kRowTiles rows × half the
  // columns; wgmma: each warp 16 rows (its warpgroup's 64) × all of them.
  // A warp's columns in 8-column tiles: of the chunk (first) and Z's
  // (second).
  if (spec.wgmma)
    os << "constexpr bool kWgmma = true;\n"
       << "constexpr int kRowTiles = 1, kThreads = " << getThreads(spec) << ";\n"
       << "constexpr int kFirstTiles = kChunk / 8, kSecondTiles = kN / 8;\n";
  else
    os << "constexpr bool kWgmma = false;\n"
       << "constexpr int kRowTiles = " << spec.rowTiles
       << ", kRowWarps = kRows / (16 * kRowTiles), kThreads = kRowWarps * 64;\n"
       << "constexpr int kFirstTiles = kChunk / 16, kSecondTiles = kN / 16;\n";
  // wgmma: the first product m64n64k16, X and the weights from shared
  // memory; the second m64 × Z's channels × 16, A from registers.
  if (spec.wgmma)
    os << getWgmmaDescriptorFunction()
       << getWgmmaFunction("cgc_wgmma_first", spec.dtype, kChunk, /*registerA=*/false)
       << getWgmmaFunction("cgc_wgmma_second", spec.dtype, spec.outChannels,
                           /*registerA=*/true);
  os << getEpilogueFunction("cgc_first_chain", spec.firstStatements, spec.firstOperands.size())
     << getEpilogueFunction("cgc_second_chain", spec.secondStatements,
                            spec.secondOperands.size());
  std::string storage = getStorageType(spec.dtype);

  // One step's copies: the residual's and the weights' chunk, and with
  // `withX` the tile's X. Offsets within a tile are 32-bit; a tile's base
  // is one 64-bit product.
  os << "CGC_DEVICE void cgc_stage(unsigned short *stage, unsigned short *xs, "
        "const unsigned short *x, const unsigned short *p, "
        "const unsigned short *residual, const unsigned short *firstWeight, "
        "const unsigned short *projectionWeight, "
        "const unsigned short *secondWeight, int tile, int chunk, bool withX) {\n"
     << "  const int thread = threadIdx.x;\n"
     << "  const int row0 = tile * kRows, rowsLeft = kM - row0;\n"
     << "  if (withX) {\n";
  // The projection's input beside X's, along the depth.
  if (spec.wgmma) {
    writeCoreCopies(os, "kRows", "kC", "kK", "0", "xs", "x + (long long)row0 * kC", "kC", true);
    if (spec.projectionChannels)
      writeCoreCopies(os, "kRows", "kP", "kK", "kC", "xs", "p + (long long)row0 * kP", "kP",
                      true);
  } else {
    writeRowCopies(os, "kRows", "kC", "xs", "kXStride", "x + (long long)row0 * kC", "kC", true);
    if (spec.projectionChannels)
      writeRowCopies(os, "kRows", "kP", "xs + kC", "kXStride", "p + (long long)row0 * kP", "kP",
                     true);
  }
  os << "  }\n";
  if (spec.hasResidual())
    writeRowCopies(os, "kRows", "kChunk", "stage", "kChunkStride",
                   "residual + (long long)row0 * kE + chunk * kChunk", "kE", true);
  if (!layout.resident) {
    writeRowCopies(os, "kChunk", "kC", "stage + kResidual", "kWStride",
                   "firstWeight + chunk * kChunk * kC", "kC", false);
    if (spec.projectionChannels)
      writeRowCopies(os, "kChunk", "kP", "stage + kResidual + kC", "kWStride",
                     "projectionWeight + chunk * kChunk * kP", "kP", false);
    writeRowCopies(os, "kN", "kChunk", "stage + kResidual + kFirstWeight", "kChunkStride",
                   "secondWeight + chunk * kChunk", "kE", false);
  }
  os << "}\n";

  os << "extern \"C\" __global__ void __launch_bounds__(" << getThreads(spec)
     << ", 1) cgc_convolution_pair(const unsigned short *__restrict__ x, "
        "const unsigned short *__restrict__ firstWeight, "
        "const unsigned short *__restrict__ secondWeight, "
        "const unsigned short *__restrict__ residualIn, "
        "const unsigned short *__restrict__ p, "
        "const unsigned short *__restrict__ projectionWeight, ";
  for (size_t index = 0; index < spec.firstOperands.size(); ++index)
    os << "const " << storage << " *__restrict__ first" << index + 1 << ", ";
  for (size_t index = 0; index < spec.secondOperands.size(); ++index)
    os << "const " << storage << " *__restrict__ second" << index + 1 << ", ";
  os << "unsigned short *__restrict__ y, unsigned short *__restrict__ z) {\n"
     << "  extern __shared__ __align__(16) unsigned short shared[];\n"
     << "  unsigned short *stages = shared + 2 * kX;\n"
     << "  unsigned short *ys = stages + kStages * kStage;\n"
     << "  unsigned short *weights = ys + kRows * kChunkStride;\n"
     << "  float *channels = (float *)(weights + " << layout.weights << ");\n"
     << "  (void)weights;\n"
     << "  (void)channels;\n"
     << "  const int thread = threadIdx.x, warp = thread >> 5, lane = thread & 31;\n";
  if (spec.wgmma)
    os << "  const int warpRow = warp * 16, firstColumn = 0, secondColumn = 0;\n"
       << "  const unsigned int xAddress = cgc_shared_address(shared) + (warp >> 2) * 64 * kK * "
          "2;\n"
       << "  const unsigned int firstWeightAddress = cgc_shared_address(weights);\n"
       << "  const unsigned int secondWeightAddress = "
          "cgc_shared_address(weights + kE * kWStride);\n";
  else
    os << "  const int warpRow = (warp % kRowWarps) * (16 * kRowTiles);\n"
       << "  const int firstColumn = (warp / kRowWarps) * 32, secondColumn = (warp / kRowWarps) * "
          "(kN / 2);\n";
  os << "  const int tiles = (kM + kRows - 1) / kRows;\n"
     << "  const int myTiles = (int)blockIdx.x < tiles ? (tiles - 1 - (int)blockIdx.x) / "
        "(int)gridDim.x + 1 : 0;\n"
     << "  const int steps = myTiles * kChunks;\n";
  writeFirstChannelCopies(os, spec);
  os << "  float second[kRowTiles][kSecondTiles][4];\n"
     << "#pragma unroll\n"
     << "  for (int m = 0; m < kRowTiles; ++m)\n"
     << "#pragma unroll\n"
     << "    for (int n = 0; n < kSecondTiles; ++n)\n"
     << "#pragma unroll\n"
     << "      for (int e = 0; e < 4; ++e)\n"
     << "        second[m][n][e] = 0.0f;\n";
  writeSecondChannelLoads(os, spec);
  os
     // The copies run kStages - 1 steps ahead; their step, tile, chunk and
     // stage advance as counters.
     << "  int copyStep = 0, copyLocal = 0, copyChunk = 0, copySlot = 0;\n"
     << "  auto copy = [&]() {\n"
     << "    if (copyStep < steps)\n"
     << "      cgc_stage(stages + copySlot * kStage, shared + (copyLocal & 1) * kX, x, p, "
        "residualIn, firstWeight, projectionWeight, secondWeight, (int)blockIdx.x + copyLocal * "
        "(int)gridDim.x, "
        "copyChunk, copyChunk == 0);\n"
     << "    cgc_copy_commit();\n"
     << "    ++copyStep;\n"
     << "    if (++copyChunk == kChunks) {\n"
     << "      copyChunk = 0;\n"
     << "      ++copyLocal;\n"
     << "    }\n"
     << "    if (++copySlot == kStages)\n"
     << "      copySlot = 0;\n"
     << "  };\n"
     ;
  if (layout.resident && spec.wgmma) {
    // Both weights, once, with the first stage's copies, as core matrices
    // (the first's rows Y's channels, the second's Z's).
    writeCoreCopies(os, "kE", "kC", "kK", "0", "weights", "firstWeight", "kC", false);
    if (spec.projectionChannels)
      writeCoreCopies(os, "kE", "kP", "kK", "kC", "weights", "projectionWeight", "kP", false);
    writeCoreCopies(os, "kN", "kE", "kE", "0", "weights + kE * kWStride", "secondWeight", "kE",
                    false);
  } else if (layout.resident) {
    // Both weights, once, with the first stage's copies.
    writeRowCopies(os, "kE", "kC", "weights", "kWStride", "firstWeight", "kC", false);
    if (spec.projectionChannels)
      writeRowCopies(os, "kE", "kP", "weights + kC", "kWStride", "projectionWeight", "kP", false);
    writeRowCopies(os, "kN", "kE", "weights + kE * kWStride", "kW2Stride", "secondWeight", "kE",
                   false);
  }
  os << "#pragma unroll 1\n"
     << "  for (int q = 0; q < kStages - 1; ++q)\n"
     << "    copy();\n"
     << "  int local = 0, chunk = 0, slot = 0;\n"
     << "#pragma unroll 1\n"
     << "  for (int step = 0; step < steps; ++step) {\n"
     << "    const int row0 = ((int)blockIdx.x + local * (int)gridDim.x) * kRows;\n"
     << "    const int rowsLeft = kM - row0;\n"
     << "    unsigned short *stage = stages + slot * kStage;\n"
     << "    const unsigned short *xs = shared + (local & 1) * kX;\n"
     << "    asm volatile(\"cp.async.wait_group %0;\\n\" ::\"n\"(kStages - 2) : \"memory\");\n";
  // wgmma reads X and the weights through the async proxy: each thread's
  // completed copies are made visible to it before the barrier.
  if (spec.wgmma)
    os << "    asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\");\n";
  os << "    __syncthreads();\n"
     << "    copy();\n"
     << "    float first[kRowTiles][kFirstTiles][4];\n";
  if (spec.wgmma) {
    // 1. The first product: the warpgroup's 64 rows × the chunk's 64
    // columns over the depth, X and the chunk's weight rows from shared
    // memory; the first step's products replace the sums.
    os << "    {\n"
       << "      const unsigned int a = xAddress + (local & 1) * kX * 2;\n"
       << "      const unsigned int b = firstWeightAddress + chunk * kChunk * kK * 2;\n"
       << "      asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n"
       << "#pragma unroll\n"
       << "      for (int k = 0; k < kK / 16; ++k)\n"
       << "        cgc_wgmma_first(first[0], cgc_descriptor(a + k * 256, kK / 8 * 128), "
          "cgc_descriptor(b + k * 256, kK / 8 * 128), k > 0);\n"
       << "      asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");\n"
       << "      asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");\n"
       << "    }\n";
  } else {
    // 1. The first product: 16 · kRowTiles rows × 32 columns of the chunk
    // per warp.
    os << "#pragma unroll\n"
     << "    for (int m = 0; m < kRowTiles; ++m)\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < 4; ++n)\n"
     << "#pragma unroll\n"
     << "        for (int e = 0; e < 4; ++e)\n"
     << "          first[m][n][e] = 0.0f;\n"
     << "    const unsigned short *ws = kResident ? weights + chunk * kChunk * kWStride : stage + "
        "kResidual;\n"
     << "#pragma unroll\n"
     << "    for (int k = 0; k < kK; k += 16) {\n"
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
     << "    }\n";
  }
  // 2. The first chain into Y's chunk in shared memory (and, for wgmma,
  // into the second product's A fragments: a sum's packed pair is the
  // fragment word of its row and columns).
  os << "    const unsigned short *residual = stage;\n"
     << "    (void)residual;\n"
     << "    unsigned int yWords[kFirstTiles][2 * kRowTiles];\n"
     << "    (void)yWords;\n";
  writeFirstChannelLoads(os, spec);
  os << "#pragma unroll\n"
     << "    for (int mh = 0; mh < 2 * kRowTiles; ++mh) {\n"
     << "      const int m = mh >> 1, half = mh & 1;\n"
     << "      const int r = warpRow + m * 16 + half * 8 + (lane >> 2);\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < kFirstTiles; ++n) {\n"
     << "        const int at = r * kChunkStride + firstColumn + n * 8 + (lane & 3) * 2;\n"
     << "        const unsigned int residualBits = "
     << (spec.hasResidual() ? "*(const unsigned int *)(residual + at)" : "0u") << ";\n"
     << "        (void)residualBits;\n"
     << "        float pair[2];\n"
     << "#pragma unroll\n"
     << "        for (int l = 0; l < 2; ++l)\n"
     << "          pair[l] = cgc_first_chain(first[m][n][half * 2 + l]"
     << getChainArguments(spec, spec.firstOperands, "first") << ");\n"
     << "        yWords[n][mh] = cgc_pack(pair[0], pair[1]);\n"
     << "        *(unsigned int *)(ys + at) = yWords[n][mh];\n"
     << "      }\n"
     << "    }\n";
  if (spec.wgmma) {
    // 4 before 3: the second product, A from the registers, the chunk's
    // columns of the second weight from shared memory; then each warp
    // stores its own 16 rows of Y while it runs.
    os << "    asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n"
       << "#pragma unroll\n"
       << "    for (int k = 0; k < kChunk / 16; ++k) {\n"
       << "      const unsigned int a[4] = {yWords[2 * k][0], yWords[2 * k][1], "
          "yWords[2 * k + 1][0], yWords[2 * k + 1][1]};\n"
       << "      cgc_wgmma_second(second[0], a, cgc_descriptor(secondWeightAddress + (chunk * "
          "(kChunk / 8) + 2 * k) * 128, kE / 8 * 128), chunk > 0 || k > 0);\n"
       << "    }\n"
       << "    asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");\n"
       << "    __syncwarp();\n"
       << "    {\n"
       << "      unsigned short *to = y + (long long)row0 * kE + chunk * kChunk;\n"
       << "#pragma unroll\n"
       << "      for (int j = 0; j < 16 * (kChunk / 8) / 32; ++j) {\n"
       << "        const int i = lane + j * 32;\n"
       << "        const int r = warpRow + i / (kChunk / 8), c = (i % (kChunk / 8)) * 8;\n"
       << "        if (r < rowsLeft)\n"
       << "          *(uint4 *)(to + r * kE + c) = *(const uint4 *)(ys + r * kChunkStride + c);\n"
       << "      }\n"
       << "    }\n"
       << "    asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");\n";
  } else {
    // Only the two warps of a row group read what they wrote (the second
    // product's A is their rows, all the chunk's columns): a barrier of
    // the two (named 1 + the group), not of the block.
    os << "    asm volatile(\"bar.sync %0, 64;\\n\" ::\"r\"(1 + warp % kRowWarps) : \"memory\");\n"
     // 3. Y's chunk to memory: each row group its rows, 16 bytes a thread.
     << "    {\n"
     << "      unsigned short *to = y + (long long)row0 * kE + chunk * kChunk;\n"
     << "      const int groupThread = (warp / kRowWarps) * 32 + lane;\n"
     << "#pragma unroll\n"
     << "      for (int j = 0; j < 16 * kRowTiles * (kChunk / 8) / 64; ++j) {\n"
     << "        const int i = groupThread + j * 64;\n"
     << "        const int r = warpRow + i / (kChunk / 8), c = (i % (kChunk / 8)) * 8;\n"
     << "        if (r < rowsLeft)\n"
     << "          *(uint4 *)(to + r * kE + c) = *(const uint4 *)(ys + r * kChunkStride + c);\n"
     << "      }\n"
     << "    }\n"
     // 4. The second product accumulates the chunk's part.
     << "    const unsigned short *vs = kResident ? weights + kE * kWStride + chunk * kChunk : "
        "stage + kResidual + kFirstWeight;\n"
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
        "3)) * kW2Stride + k + ((lane >> 3) & 1) * 8);\n"
     << "#pragma unroll\n"
     << "        for (int m = 0; m < kRowTiles; ++m) {\n"
     << "          cgc_mma(second[m][2 * n], a[m], b[0], b[1]);\n"
     << "          cgc_mma(second[m][2 * n + 1], a[m], b[2], b[3]);\n"
     << "        }\n"
     << "      }\n"
     << "    }\n";
  }
  // 5. After the tile's last chunk: the second chain, Z stored.
  os << "    if (chunk + 1 == kChunks) {\n"
     << "      unsigned short *to = z + (long long)row0 * kN;\n"
     << "#pragma unroll\n"
     << "      for (int mh = 0; mh < 2 * kRowTiles; ++mh) {\n"
     << "        const int m = mh >> 1, half = mh & 1;\n"
     << "        const int r = warpRow + m * 16 + half * 8 + (lane >> 2);\n"
     << "#pragma unroll\n"
     << "        for (int n = 0; n < kSecondTiles; ++n) {\n"
     << "          float pair[2];\n"
     << "#pragma unroll\n"
     << "          for (int l = 0; l < 2; ++l) {\n"
     << "            pair[l] = cgc_second_chain(second[m][n][half * 2 + l]"
     << getChainArguments(spec, spec.secondOperands, "second") << ");\n"
     << "            second[m][n][half * 2 + l] = 0.0f;\n"
     << "          }\n"
     << "          if (r < rowsLeft)\n"
     << "            *(unsigned int *)(to + r * kN + secondColumn + n * 8 + (lane & 3) * 2) = "
        "cgc_pack(pair[0], pair[1]);\n"
     << "        }\n"
     << "      }\n"
     << "    }\n"
     << "    if (++chunk == kChunks) {\n"
     << "      chunk = 0;\n"
     << "      ++local;\n"
     << "    }\n"
     << "    if (++slot == kStages)\n"
     << "      slot = 0;\n"
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

/// The channels-last geometry of a pointwise convolution of the kernel's
/// (tensor cores; 1×1, stride 1, unpadded) in `geometry`, or why it is not
/// one: `what` names the convolution in that refusal.
std::optional<std::string> readPointwiseGeometry(const FusedConvolutionShape &shape,
                                                 const char *what,
                                                 ChannelsLastGeometry &geometry) {
  if (std::optional<std::string> refusal = getTensorCoreConvolutionRefusal(shape))
    return refusal;
  auto read = getChannelsLastGeometry(shape);
  if (!read)
    return llvm::toString(read.takeError());
  geometry = *read;
  if (geometry.kernelHeight != 1 || geometry.kernelWidth != 1 || geometry.strideHeight != 1 ||
      geometry.strideWidth != 1 || geometry.padTop != 0 || geometry.padLeft != 0 ||
      geometry.outHeight != geometry.height || geometry.outWidth != geometry.width)
    return std::string(what) + " is not pointwise (1×1, stride 1, unpadded)";
  return std::nullopt;
}

/// The projection's channels in `spec`, or why the kernel does not take
/// it: a pointwise convolution of the first's pixels to Y's channels, of
/// its element type, without a chain, whose result the first chain adds
/// first.
std::optional<std::string> readProjection(const ConvolutionPairShape &shape,
                                          const ChannelsLastGeometry &first,
                                          ConvolutionPairSpec &spec) {
  const FusedConvolutionShape &projection = *shape.projection;
  ChannelsLastGeometry g;
  if (std::optional<std::string> refusal = readPointwiseGeometry(projection, "the projection", g))
    return refusal;
  if (g.batch != first.batch || g.height != first.height || g.width != first.width ||
      g.outChannels != first.outChannels)
    return std::string("the projection's result is not of the first convolution's shape");
  if (projection.plan.output.dtype != shape.first.plan.output.dtype)
    return std::string("the projection computes in another element type");
  if (!projection.steps.empty())
    return std::string("the projection has a chain of its own");
  const std::vector<ChainStep> &steps = shape.first.steps;
  if (steps.empty() || steps.front().kind != StepKind::Add ||
      steps.front().argument != shape.projectionArgument ||
      llvm::any_of(llvm::drop_begin(steps), [&](const ChainStep &step) {
        return step.argument == shape.projectionArgument;
      }))
    return std::string("the projection's result is not added right after the first "
                       "convolution's bias");
  spec.projectionChannels = g.channels;
  return std::nullopt;
}

/// The kernel's spec of `shape` in `spec`, or why the kernel does not run
/// it (what the family's check and the build both ask).
std::optional<std::string> readPairSpec(const ConvolutionPairShape &shape,
                                        ConvolutionPairSpec &spec) {
  std::array<ChannelsLastGeometry, 2> geometries;
  for (auto [half, geometry] : llvm::zip(std::array{&shape.first, &shape.second}, geometries))
    if (std::optional<std::string> refusal =
            readPointwiseGeometry(*half, "a convolution", geometry))
      return refusal;
  const auto &[first, second] = geometries;
  spec.dtype = shape.first.plan.output.dtype;
  if (shape.second.plan.output.dtype != spec.dtype)
    return std::string("the two convolutions compute in different element types");
  if (shape.projection) {
    if (std::optional<std::string> refusal = readProjection(shape, first, spec))
      return refusal;
    int64_t depth = first.channels + spec.projectionChannels;
    if (first.channels % 8 != 0 || spec.projectionChannels % 8 != 0 || depth % 16 != 0 ||
        depth > 128)
      return "the first convolution and the projection have " + std::to_string(first.channels) +
             " and " + std::to_string(spec.projectionChannels) +
             " input channels; the kernel takes multiples of 8 that add up to a multiple of 16 "
             "up to 128";
  } else if (first.channels % 16 != 0 || first.channels > 128) {
    return "the first convolution has " + std::to_string(first.channels) +
           " input channels; the kernel takes a multiple of 16 up to 128";
  }
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
  // The projection's product joins the first's; its result's place in the
  // chain takes its bias (or zero).
  if (shape.projection)
    for (PairOperand &operand : spec.firstOperands)
      if (operand.argument == shape.projectionArgument) {
        operand.perChannel = !!shape.projection->bias;
        operand.zero = !shape.projection->bias;
        operand.argument = shape.projection->bias.value_or(0);
        operand.stride = 1;
      }
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
  if (spec.rows * std::max({spec.getDepth(), spec.middle, spec.outChannels}) >
      std::numeric_limits<int32_t>::max())
    return std::string(
        "its tensors have more than 2^31 elements (the kernel's offsets are 32-bit)");
  spec.layout = getLayout(spec);
  if (spec.layout.getBytes() > kMaxSharedBytes)
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

  // wgmma by default where the first product's depth is at least 128
  // (ResNet-50's projection join on an H100 at batch 256: 328 against 344
  // µs); with a depth of 64 it lost (the 56×56 join 426 against 410-416
  // µs, the join into stage 2 501 against 483-491: there the products are
  // a small part, and wgmma's waits at each step cost more).
  ConvolutionWgmmaMode mode = getConvolutionWgmmaMode();
  spec.wgmma = context.getComputeMajor() == 9 && spec.layout.resident &&
               (mode == ConvolutionWgmmaMode::On ||
                (mode == ConvolutionWgmmaMode::Default && spec.getDepth() >= 128));
  llvm::Expected<DeviceFunction> function =
      context.getFunction(shape.first.conv, generateSource(spec), "cgc_convolution_pair",
                          /*archSpecific=*/spec.wgmma);
  if (!function)
    return makeFusedError(definition, kConvolutionPairFamily, llvm::toString(function.takeError()));
  size_t sharedBytes = static_cast<size_t>(spec.layout.getBytes());
  if (std::optional<llvm::Error> refused = allowSharedMemory(
          definition, context, *function, sharedBytes, "the convolution pair kernel"))
    return std::move(*refused);

  int64_t tiles = (spec.rows + kRows - 1) / kRows;
  dim3 grid(static_cast<unsigned>(std::min<int64_t>(tiles, context.getMultiprocessorCount())));
  unsigned input = shape.first.input, firstWeight = shape.first.weight,
           secondWeight = shape.second.weight;
  std::optional<std::pair<unsigned, unsigned>> projection;
  if (shape.projection)
    projection = {shape.projection->input, shape.projection->weight};
  llvm::SmallVector<PairOperand, 4> firstOperands = spec.firstOperands,
                                    secondOperands = spec.secondOperands;
  std::string name = ("@" + definition.getSymName() + ": fused convolution pair").str();
  unsigned threads = getThreads(spec);
  auto launch = [function = *function, grid, threads, input, firstWeight, secondWeight,
                 projection, firstOperands, secondOperands, name,
                 sharedBytes](const LaunchArgs &args) -> std::string {
    const void *residual = nullptr;
    llvm::SmallVector<const void *, 14> pointers{
        args.inputs[input], args.inputs[firstWeight], args.inputs[secondWeight], nullptr,
        projection ? args.inputs[projection->first] : nullptr,
        projection ? args.inputs[projection->second] : nullptr};
    for (const PairOperand &operand : firstOperands) {
      pointers.push_back(operand.zero ? nullptr : args.inputs[operand.argument]);
      if (!operand.perChannel && !operand.zero)
        residual = args.inputs[operand.argument];
    }
    pointers[3] = residual;
    for (const PairOperand &operand : secondOperands)
      pointers.push_back(args.inputs[operand.argument]);
    void *z = args.outputs[0], *y = args.outputs[1];
    // The copies and Y's stores move 16 bytes; Z's stores 4.
    for (const void *pointer : {pointers[0], pointers[1], pointers[2], pointers[3], pointers[4],
                                pointers[5], static_cast<const void *>(y)})
      if (reinterpret_cast<uintptr_t>(pointer) % 16 != 0)
        return name + ": the inputs, the weights, the residual and the first result must be "
                      "16-byte aligned";
    if (reinterpret_cast<uintptr_t>(z) % 4 != 0)
      return name + ": the second result must be 4-byte aligned";
    llvm::SmallVector<void *, 16> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    arguments.push_back(&y);
    arguments.push_back(&z);
    cudaError_t error =
        function.launch(grid, dim3(threads), arguments.data(), sharedBytes, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(name, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
