//===- ConvolutionPool.cpp - a first layer and its max pool as one kernel ===//
//
// A block takes one image and a run of the pool's output rows; its warps
// (enough for the convolution rows a pool row adds, 4 to 8) compute the
// convolution as a matrix product of output pixels by output channels (all
// of them, at most 64), its depth the window:
//
//   1. once, the weights go to shared memory, the window reordered: each
//      window row's S·C elements padded to whole octets, so that octet G of
//      the depth is window row G / octets, elements 8·(G % octets) onward,
//      contiguous in the input row;
//   2. per pool row, the band of input rows its new convolution rows read
//      (the pool's window of rows for the first, its stride after) lies in
//      shared memory with its padding as zeros; the next band's rows are
//      copied as they are into a staging area (16-byte asynchronous copies)
//      while the products run, and into the band after them (registers
//      would spill beside the sums). A row's image
//      elements start where every window starts at an even element (stride
//      × channels is even), an element past a 16-byte boundary where the
//      left padding is odd (stored shifted, word by word), so that:
//   3. each lane reads its A fragments straight from the band, one 32-bit
//      word per two elements at a literal offset from its pixel's window
//      (mma.sync m16n8k16: lane 4g+t holds elements 2t, 2t+1 of octets),
//      the elements past a window row masked to zero (a bitwise mask: a
//      neighbour's infinity does not become NaN); B fragments come by
//      ldmatrix; no A tile, no barrier per step. On compute capability
//      9.0 the same registers are wgmma's A (a warpgroup's four warps'
//      tiles, two m64 products a step, the weights as core matrices);
//   4. each sum takes the bias and the chain in float32 and is rounded to
//      the element type, as the convolution's result would be stored, into
//      a ring of the pool's window of convolution rows (its 16-byte channel
//      groups swizzled by the pixel, so that a warp's stores miss no bank
//      twice);
//   5. after a barrier, the block pools the output row from the ring, 8
//      channels a thread, NaN propagating (max.NaN on pairs), the window's
//      rows and columns clamped into the result instead of tested, and
//      stores it.
//
// Shared-memory addresses a lane uses often (its ldmatrix row of the
// weights, its ring pixel, the pool's window rows) are computed once as
// 32-bit addresses, literal offsets and exclusive ors added to them: on an
// H100, ResNet-50's first layer at batch 256 went from 1,070 to 766
// instructions a tile of 32 pixels (384 -> 335 µs) with those and a relu
// of one instruction.
//
// A float32 NCHW image (the definition's cast and transpose folded in):
// the first band is converted element by element; a later band keeps the
// rows it shares with the band before (moved up through registers) and
// only its new rows are copied, as float32 channel rows, into the staging
// area, then converted into place two pixels a thread.
//
// Blocks per image: the fewest that still give every resident block slot
// (two a multiprocessor) work; at batch 256 a block takes a whole image.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionPool.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"
#include "KernelContextImpl.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <vector>

namespace cgc::cuda {

namespace {

/// Window elements a depth octet holds, and a k16 step's octets.
constexpr int64_t kOctet = 8;
/// wgmma's register sets of A fragments: a step's go into the set of the
/// step kWgmmaSets before, once its products are waited for. (Three sets,
/// loads two steps ahead, spilled at two blocks a multiprocessor and took
/// ResNet-50's first layer from 247 to 252 µs on an H100.)
constexpr int64_t kWgmmaSets = 2;

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// The sizes the generated source is built from.
struct ConvolutionPoolLayout {
  /// Depth octets per window row; steps of 16 over all rows' octets.
  int64_t octets = 0, steps = 0;
  /// Weight rows in shared memory (output channels rounded up to 16) and
  /// their stride (elements).
  int64_t weightRows = 0, weightStride = 0;
  /// Where a band row's image elements start, its stride, and how many
  /// rows a band has at most.
  int64_t rowStart = 0, rowStride = 0, bandRows = 0;
  /// Input rows a later band takes (the pool's stride of convolution
  /// rows), copied as they are into a staging area while the products run.
  int64_t stageRows = 0;
  int64_t warps = 0;
  /// A float32 NCHW image (FusedConvolutionShape::inputCast): a later band
  /// keeps the rows it shares with the one before (at most `keptRows`,
  /// moved up), and only its new rows (at most `newRows`, the pool's
  /// stride of convolution rows) are copied, as float32 channel rows, into
  /// the staging area.
  bool floatImage = false;
  int64_t keptRows = 0, newRows = 0;

  /// Where the ring starts (elements): past the weights and the band, on a
  /// 128-byte boundary, so that a pixel's swizzled channel groups are its
  /// address's bits (an exclusive or instead of an add).
  int64_t getRingStart() const {
    return roundUp(weightRows * weightStride + bandRows * rowStride, 64);
  }

  /// Whether the image's rows may go by 16-byte copies (float32 channel
  /// rows in a float image), where the input is 16-byte aligned at launch.
  bool hasVectorRows(const ChannelsLastGeometry &g) const {
    return floatImage ? g.width % 4 == 0 : g.width * g.channels % 8 == 0;
  }

  /// The input rows the staging area holds: a float image's new rows, or a
  /// later band's.
  int64_t getStagedRows() const { return floatImage ? newRows : stageRows; }

  /// The staging area's 16-bit elements.
  int64_t getStageElements(const ChannelsLastGeometry &g) const {
    return roundUp((floatImage ? 2 : 1) * getStagedRows() * g.width * g.channels, 8);
  }

  /// The elements of weights, band, ring and staging area; `operands`
  /// per-channel floats (two elements each) follow.
  int64_t getSharedElements(const ChannelsLastGeometry &g, const ConvolutionMaxPool &pool,
                            int64_t operands) const {
    return getRingStart() + pool.kernel[0] * g.outWidth * g.outChannels + getStageElements(g) +
           2 * operands * g.outChannels;
  }
};

ConvolutionPoolLayout getLayout(const ChannelsLastGeometry &g, const ConvolutionMaxPool &pool,
                                bool floatImage, bool wgmma = false) {
  ConvolutionPoolLayout layout;
  layout.floatImage = floatImage;
  // A band of convolution rows [y0, y1) and the next one's [n0, n1), n0 >=
  // y1 and n1 - y1 <= the pool's stride (cgc_slab), share (y1 - 1 - n0) ·
  // strideH + R <= R - strideH input rows; the next adds (n1 - y1) ·
  // strideH.
  layout.keptRows = std::max<int64_t>(0, g.kernelHeight - g.strideHeight);
  layout.newRows = pool.strides[0] * g.strideHeight;
  layout.octets = (g.kernelWidth * g.channels + kOctet - 1) / kOctet;
  layout.steps = (g.kernelHeight * layout.octets + 1) / 2;
  layout.weightRows = roundUp(g.outChannels, 16);
  layout.weightStride = layout.steps * 16 + 8;
  // Windows start at rowStart - padLeft·C + x·strideW·C: even when rowStart
  // has the parity of padLeft·C. It is a multiple of 8 (16-byte stores) or
  // one past (shifted stores).
  int64_t leftElements = g.padLeft * g.channels;
  layout.rowStart = leftElements % 2 == 0 ? roundUp(leftElements, 8)
                                          : roundUp(leftElements - 1, 8) + 1;
  int64_t right = std::max<int64_t>(
      0, (g.outWidth - 1) * g.strideWidth - g.padLeft + g.kernelWidth - g.width);
  // Past the row: the right padding, then an octet that masked reads touch.
  layout.rowStride = roundUp(layout.rowStart + (g.width + right) * g.channels + kOctet, 8);
  layout.bandRows = (pool.kernel[0] - 1) * g.strideHeight + g.kernelHeight;
  layout.stageRows = (pool.strides[0] - 1) * g.strideHeight + g.kernelHeight;
  layout.warps = std::clamp<int64_t>((pool.strides[0] * g.outWidth + 31) / 32, 4, 8);
  // wgmma's products are a warpgroup's: whole warpgroups.
  if (wgmma)
    layout.warps = roundUp(layout.warps, 4);
  return layout;
}

/// Whether the other operand of chain layer `step` varies along channels
/// only (a per-channel scale or shift).
bool isPerChannel(const ChainStep &step) {
  if (!step.argument)
    return true;
  mlir::Value other = step.op->getOperand(step.valueFirst ? 1 : 0);
  auto type = llvm::dyn_cast<TensorType>(other.getType());
  if (!type)
    return false;
  llvm::ArrayRef<int64_t> shape = type.getShape();
  return llvm::all_of(shape.drop_back(), [](int64_t size) { return size == 1; });
}

struct ConvolutionPoolSpec {
  DType dtype = DType::F16;
  ChannelsLastGeometry geometry;
  ConvolutionMaxPool pool;
  ConvolutionPoolLayout layout;
  /// The products as wgmma (compute capability 9.0: each warpgroup's four
  /// warps' 32 pixels a step as two m64 products, A from the lanes'
  /// registers, the weights in 8 × 8 core matrices) rather than mma.sync.
  bool wgmma = false;
  /// Per epilogue operand: its element stride along channels.
  llvm::SmallVector<int64_t, 4> channelStrides;
  std::string statements;
};

/// The loads of one step of 16 depth elements:
/// the lane's B fragments by ldmatrix, its A fragments from the band at
/// literal offsets from its pixels' windows.
void writeStepLoads(llvm::raw_ostream &os, const ConvolutionPoolSpec &spec, int64_t step) {
  const ChannelsLastGeometry &g = spec.geometry;
  const ConvolutionPoolLayout &layout = spec.layout;
  int64_t groups = layout.weightRows / 16;
  bool masksLast = layout.octets * kOctet > g.kernelWidth * g.channels;
  // wgmma's A registers: kWgmmaSets sets, taken in turn by the steps.
  std::string a = spec.wgmma ? "a[" + std::to_string(step % kWgmmaSets) + "]" : "a", w = "w";
  if (!spec.wgmma)
    for (int64_t group = 0; group < groups; ++group)
      os << "      cgc_load_matrices(" << w << "[" << group << "], bLane + "
         << 2 * (group * 16 * layout.weightStride + step * 16) << "u);\n";
  for (int64_t half = 0; half < 2; ++half) {
    int64_t octet = 2 * step + half;
    for (int64_t m = 0; m < 2; ++m)
      for (int64_t row = 0; row < 2; ++row) {
        os << "      " << a << "[" << m << "][" << 2 * half + row << "] = ";
        if (octet >= g.kernelHeight * layout.octets) {
          os << "0u;\n";
          continue;
        }
        int64_t offset =
            octet / layout.octets * layout.rowStride + octet % layout.octets * kOctet;
        os << "cgc_word(band + offsets[" << 2 * m + row << "] + " << offset << ")";
        if (masksLast && octet % layout.octets == layout.octets - 1)
          os << " & lastMask";
        os << ";\n";
      }
  }
}

/// The products of one step.
void writeStepProducts(llvm::raw_ostream &os, const ConvolutionPoolSpec &spec) {
  int64_t tiles = spec.geometry.outChannels / 8;
  std::string a = "a", w = "w";
  os << "#pragma unroll\n"
     << "      for (int m = 0; m < 2; ++m) {\n";
  for (int64_t tile = 0; tile < tiles; ++tile)
    os << "        cgc_mma(sums[m][" << tile << "], " << a << "[m], " << w << "[" << tile / 2
       << "][" << tile % 2 * 2 << "], " << w << "[" << tile / 2 << "][" << tile % 2 * 2 + 1
       << "]);\n";
  os << "      }\n";
}

/// Every step: its loads, then its products. A compiler barrier after each
/// step's products keeps later steps' loads from being hoisted above them
/// (all of them in flight would take more registers than two blocks a
/// multiprocessor leave; measured on an H100, pipelining two steps' loads
/// by hand ran no faster).
void writeSteps(llvm::raw_ostream &os, const ConvolutionPoolSpec &spec) {
  int64_t groups = spec.layout.weightRows / 16;
  if (spec.wgmma) {
    // A step's fragments go into the set its step kWgmmaSets before used,
    // once that step's products are waited for (one group a step, at most
    // kWgmmaSets - 1 pending), so that they load while the step before
    // multiplies; the first step's products replace the sums (no zeros to
    // wait for).
    os << "      unsigned int a[" << kWgmmaSets << "][2][4];\n";
    for (int64_t step = 0; step < spec.layout.steps; ++step) {
      writeStepLoads(os, spec, step);
      os << "      asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n";
      for (int64_t m = 0; m < 2; ++m)
        os << "      cgc_wgmma(sums[" << m << "], a[" << step % kWgmmaSets << "][" << m
           << "], weightDescriptor + " << step * 16 << "ull, " << (step > 0 ? 1 : 0) << ");\n";
      os << "      asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");\n"
         << "      asm volatile(\"wgmma.wait_group.sync.aligned " << kWgmmaSets - 1
         << ";\\n\" ::: \"memory\");\n";
    }
    os << "      asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");\n";
    return;
  }
  os << "      unsigned int a[2][4], w[" << groups << "][4];\n";
  for (int64_t step = 0; step < spec.layout.steps; ++step) {
    writeStepLoads(os, spec, step);
    writeStepProducts(os, spec);
    os << "      asm volatile(\"\" ::: \"memory\");\n";
  }
}

std::string generateSource(const ConvolutionPoolSpec &spec) {
  const ChannelsLastGeometry &g = spec.geometry;
  const ConvolutionMaxPool &pool = spec.pool;
  const ConvolutionPoolLayout &layout = spec.layout;
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getTensorCoreHelpers(spec.dtype);
  int64_t rowElements = g.width * g.channels;
  bool floatImage = layout.floatImage;
  bool vectorRows = layout.hasVectorRows(g);
  bool shifted = layout.rowStart % 8 == 1;
  int64_t threads = layout.warps * 32;
  int64_t vectors = g.outChannels / 8;
  int64_t swizzle = (vectors & (vectors - 1)) == 0 ? vectors - 1 : 0;
  int64_t chunksPerRow = vectorRows ? rowElements / 8 : 1;
  std::string ptxType = spec.dtype == DType::BF16 ? "bf16x2" : "f16x2";
  // -inf in the element type, twice.
  std::string negativeInfinity = spec.dtype == DType::BF16 ? "0xff80ff80u" : "0xfc00fc00u";
  os << "constexpr int kC = " << g.channels << ", kR = " << g.kernelHeight
     << ", kS = " << g.kernelWidth << ", kStrideH = " << g.strideHeight
     << ", kStrideW = " << g.strideWidth << ", kPadTop = " << g.padTop
     << ", kPadLeft = " << g.padLeft << ";\n"
     << "constexpr int kH = " << g.height << ", kW = " << g.width << ", kP = " << g.outHeight
     << ", kQ = " << g.outWidth << ", kK = " << g.outChannels << ";\n"
     << "constexpr int kRowElements = " << rowElements << ", kWindowRow = kS * kC"
     << ", kWindow = kR * kWindowRow;\n"
     << "constexpr int kPoolKH = " << pool.kernel[0] << ", kPoolKW = " << pool.kernel[1]
     << ", kPoolSH = " << pool.strides[0] << ", kPoolSW = " << pool.strides[1]
     << ", kPoolPadTop = " << pool.startPadding[0] << ", kPoolPadLeft = " << pool.startPadding[1]
     << ", kPH = " << pool.outHeight << ", kPW = " << pool.outWidth << ";\n"
     << "constexpr int kThreads = " << threads << ", kWarps = " << layout.warps << ";\n"
     << "constexpr int kOctets = " << layout.octets << ", kDepth = " << layout.steps * 16
     << ", kBRows = " << layout.weightRows << ", kBStride = " << layout.weightStride << ";\n"
     << "constexpr int kRowStart = " << layout.rowStart << ", kRowStride = " << layout.rowStride
     << ", kBandRows = " << layout.bandRows << ", kRingStart = " << layout.getRingStart() << ";\n"
     << "constexpr int kVectors = " << vectors << ", kSwizzle = " << swizzle << ";\n"
     << "constexpr int kChunksPerRow = " << chunksPerRow << ", kStageElements = "
     << layout.getStageElements(g) << ";\n"
     << "constexpr int kKeptRows = " << layout.keptRows << ", kPlaneChunks = " << g.width / 4
     << ";\n";

  // wgmma (`cgc_wgmma`): sums += a · B for one k16 step, a warpgroup's 64
  // pixels × all output channels, the weights' descriptor `b`.
  if (spec.wgmma)
    os << getWgmmaFunction("cgc_wgmma", spec.dtype, g.outChannels, /*registerA=*/true)
       << getWgmmaDescriptorFunction();
  os << "CGC_DEVICE unsigned int cgc_word(const unsigned short *at) {\n"
     << "  return *(const unsigned int *)at;\n"
     << "}\n"
     << "CGC_DEVICE void cgc_store_word(unsigned int address, unsigned int value) {\n"
     << "  asm volatile(\"st.shared.b32 [%0], %1;\\n\" :: \"r\"(address), \"r\"(value) : "
        "\"memory\");\n"
     << "}\n"
     << "CGC_DEVICE uint4 cgc_load_quad(unsigned int address) {\n"
     << "  uint4 q;\n"
     << "  asm volatile(\"ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\\n\" : \"=r\"(q.x), "
        "\"=r\"(q.y), \"=r\"(q.z), \"=r\"(q.w) : \"r\"(address) : \"memory\");\n"
     << "  return q;\n"
     << "}\n"
     << "CGC_DEVICE unsigned int cgc_max_pair(unsigned int a, unsigned int b) {\n"
     << "  unsigned int d;\n"
     << "  asm(\"max.NaN." << ptxType << " %0, %1, %2;\\n\" : \"=r\"(d) : \"r\"(a), \"r\"(b));\n"
     << "  return d;\n"
     << "}\n";

  // The convolution rows pool row r adds: all of its window's for the
  // block's first, those past the previous row's window after.
  os << "CGC_DEVICE void cgc_slab(int r, bool first, int &y0, int &y1) {\n"
     << "  const int top = r * kPoolSH - kPoolPadTop;\n"
     << "  y0 = max(0, first ? top : top + kPoolKH - kPoolSH);\n"
     << "  y1 = min(kP, top + kPoolKH);\n"
     << "}\n";
  // Band copies, element by element: any alignment.
  if (floatImage) {
    // From the float32 NCHW image, converted as the cast does.
    os << "CGC_DEVICE void cgc_stage_elements(unsigned short *band, const float *in, "
          "int bandTop, int rows) {\n"
       << "  for (int i = threadIdx.x; i < rows * kC * kW; i += kThreads) {\n"
       << "    const int row = i / (kC * kW), rest = i - row * (kC * kW);\n"
       << "    const int c = rest / kW, x = rest - c * kW, y = bandTop + row;\n"
       << "    band[row * kRowStride + kRowStart + x * kC + c] = (unsigned)y < (unsigned)kH ?\n"
       << "        " << storeValue(spec.dtype, "in[(c * kH + y) * kW + x]")
       << " : (unsigned short)0;\n"
       << "  }\n"
       << "}\n";
  } else {
    os << "CGC_DEVICE void cgc_stage_elements(unsigned short *band, const unsigned short *in, "
          "int bandTop, int rows) {\n"
       << "  for (int i = threadIdx.x; i < rows * kRowElements; i += kThreads) {\n"
       << "    const int row = i / kRowElements, column = i - row * kRowElements;\n"
       << "    const int y = bandTop + row;\n"
       << "    band[row * kRowStride + kRowStart + column] =\n"
       << "        (unsigned)y < (unsigned)kH ? in[y * kRowElements + column] : "
          "(unsigned short)0;\n"
       << "  }\n"
       << "}\n";
  }
  if (vectorRows && floatImage) {
    // A later band: its new rows' channel rows copied as float32 into the
    // staging area (16-byte asynchronous copies, zeros for rows outside the
    // image) while the products run; after them the rows it shares with
    // the band before move up (through registers, a barrier between the
    // reads and the writes) and the new rows are converted into place.
    os << "CGC_DEVICE void cgc_fetch_rows(float *stage, const float *in, int top, int rows) {\n"
       << "  for (int u = threadIdx.x; u < rows * kC * kPlaneChunks; u += kThreads) {\n"
       << "    const int line = u / kPlaneChunks, chunk = u - line * kPlaneChunks;\n"
       << "    const int row = line / kC, c = line - row * kC, y = top + row;\n"
       << "    const bool inside = (unsigned)y < (unsigned)kH;\n"
       << "    cgc_copy_async((unsigned short *)(stage + u * 4), (const unsigned short *)(inside ? "
          "in + (c * kH + y) * kW + chunk * 4 : in), inside ? 16u : 0u);\n"
       << "  }\n"
       << "}\n"
       // The kept rows' 16-byte chunks a thread moves: read before the
       // barrier that ends the products (reads beside the products' own),
       // written after it.
       << "constexpr int kHeldChunks = (kKeptRows * (kRowStride / 8) + kThreads - 1) / kThreads;\n"
       << "struct cgc_held { uint4 chunk[kHeldChunks > 0 ? kHeldChunks : 1]; };\n"
       << "CGC_DEVICE void cgc_hold_rows(cgc_held &held, const unsigned short *band, int shift, "
          "int kept) {\n"
       << "  const uint4 *from = (const uint4 *)(band + shift * kRowStride);\n"
       << "#pragma unroll\n"
       << "  for (int j = 0; j < kHeldChunks; ++j)\n"
       << "    if (threadIdx.x + j * kThreads < kept * (kRowStride / 8))\n"
       << "      held.chunk[j] = from[threadIdx.x + j * kThreads];\n"
       << "}\n"
       << "CGC_DEVICE void cgc_put_rows(const cgc_held &held, unsigned short *band, int kept) {\n"
       << "#pragma unroll\n"
       << "  for (int j = 0; j < kHeldChunks; ++j)\n"
       << "    if (threadIdx.x + j * kThreads < kept * (kRowStride / 8))\n"
       << "      ((uint4 *)band)[threadIdx.x + j * kThreads] = held.chunk[j];\n"
       << "}\n"
       // Two pixels a thread: their 2·C elements are contiguous in the
       // band row and start at kRowStart's parity (x even), so that all
       // but an element at either end go as converted pairs, one 32-bit
       // store each.
       << "CGC_DEVICE void cgc_store_rows(unsigned short *band, const float *stage, int first, "
          "int rows) {\n"
       << "  constexpr int kLead = kRowStart % 2, kPairs = kW / 2;\n"
       << "  for (int u = threadIdx.x; u < rows * kPairs; u += kThreads) {\n"
       << "    const int row = u / kPairs, x = 2 * (u - row * kPairs);\n"
       << "    const float *from = stage + row * kC * kW + x;\n"
       << "    float v[2 * kC];\n"
       << "#pragma unroll\n"
       << "    for (int c = 0; c < kC; ++c) {\n"
       << "      const float2 pair = *(const float2 *)(from + c * kW);\n"
       << "      v[c] = pair.x;\n"
       << "      v[kC + c] = pair.y;\n"
       << "    }\n"
       << "    unsigned short *to = band + (first + row) * kRowStride + kRowStart + x * kC;\n"
       << "    if (kLead)\n"
       << "      to[0] = " << storeValue(spec.dtype, "v[0]") << ";\n"
       << "#pragma unroll\n"
       << "    for (int e = kLead; e + 1 < 2 * kC; e += 2)\n"
       << "      *(unsigned int *)(to + e) = cgc_pack(v[e], v[e + 1]);\n"
       << "    if ((2 * kC - kLead) % 2)\n"
       << "      to[2 * kC - 1] = " << storeValue(spec.dtype, "v[2 * kC - 1]") << ";\n"
       << "  }\n"
       << "}\n";
  }
  if (vectorRows && !floatImage) {
    // 16-byte asynchronous copies of the rows as they are into the staging
    // area while the products run (zeros for rows outside the image), and
    // from there into the band after them, shifted by an element where
    // rows start one past a 16-byte boundary.
    os << "CGC_DEVICE void cgc_fetch_band(unsigned short *stage, const unsigned short *in, int "
          "bandTop, int rows) {\n"
       // The band's rows are consecutive in the image: chunk u lies at
       // bandTop's row + 8u, inside it for u in [first, end).
       << "  const int first = max(0, -bandTop) * kChunksPerRow;\n"
       << "  const int end = min(rows, kH - bandTop) * kChunksPerRow;\n"
       << "  const unsigned short *from = in + bandTop * kRowElements;\n"
       << "  for (int u = threadIdx.x; u < rows * kChunksPerRow; u += kThreads) {\n"
       << "    const bool inside = u >= first && u < end;\n"
       << "    cgc_copy_async(stage + u * 8, inside ? from + u * 8 : in, inside ? 16u : 0u);\n"
       << "  }\n"
       << "}\n"
       << "CGC_DEVICE void cgc_put_chunk(unsigned short *band, int row, int chunk, uint4 q, "
          "unsigned int before) {\n"
       << "  unsigned short *to = band + row * kRowStride + kRowStart + chunk * 8;\n";
    if (shifted)
      os << "  *(uint4 *)(to - 1) = make_uint4(before | q.x << 16, "
            "__byte_perm(q.x, q.y, 0x5432), __byte_perm(q.y, q.z, 0x5432), "
            "__byte_perm(q.z, q.w, 0x5432));\n"
         << "  if (chunk == kChunksPerRow - 1)\n"
         << "    *(unsigned int *)(to + 7) = q.w >> 16;\n";
    else
      os << "  *(uint4 *)to = q;\n";
    os << "}\n"
       << "CGC_DEVICE void cgc_store_band(unsigned short *band, const unsigned short *stage, "
          "int rows) {\n"
       << "  for (int u = threadIdx.x; u < rows * kChunksPerRow; u += kThreads) {\n"
       << "    const int row = u / kChunksPerRow, chunk = u - row * kChunksPerRow;\n"
       << "    cgc_put_chunk(band, row, chunk, *(const uint4 *)(stage + u * 8), "
       << (shifted ? "chunk > 0 ? stage[u * 8 - 1] : 0u" : "0u") << ");\n"
       << "  }\n"
       << "}\n"
       // A block's first band, straight from global memory (the staging
       // area holds a later band's rows, fewer).
       << "CGC_DEVICE void cgc_stage_vectors(unsigned short *band, const unsigned short *in, "
          "int bandTop, int rows) {\n"
       << "#pragma unroll 4\n"
       << "  for (int u = threadIdx.x; u < rows * kChunksPerRow; u += kThreads) {\n"
       << "    const int row = u / kChunksPerRow, chunk = u - row * kChunksPerRow;\n"
       << "    const int y = bandTop + row;\n"
       << "    uint4 q = make_uint4(0u, 0u, 0u, 0u);\n"
       << "    unsigned int before = 0u;\n"
       << "    if ((unsigned)y < (unsigned)kH) {\n"
       << "      const unsigned short *from = in + y * kRowElements + chunk * 8;\n"
       << "      q = *(const uint4 *)from;\n";
    if (shifted)
      os << "      if (chunk > 0)\n"
         << "        before = from[-1];\n";
    os << "    }\n"
       << "    cgc_put_chunk(band, row, chunk, q, before);\n"
       << "  }\n"
       << "}\n";
  }

  size_t operandCount = spec.channelStrides.size();
  std::string storage = getStorageType(spec.dtype);
  os << getEpilogueFunction("cgc_epilogue", spec.statements, operandCount);

  os << "extern \"C\" __global__ void __launch_bounds__(" << threads
     << ", 2) cgc_convolution_pool(const " << (floatImage ? "float" : "unsigned short")
     << " *__restrict__ input, const unsigned short *__restrict__ weight, ";
  for (size_t operand = 0; operand < operandCount; ++operand)
    os << "const " << storage << " *__restrict__ operand" << operand + 1 << ", ";
  os << "unsigned short *__restrict__ output, int rowsPerBlock, int blocksPerImage, int vector, "
        "int aligned) {\n"
     << "  extern __shared__ __align__(128) unsigned short shared[];\n"
     << "  unsigned short *b = shared;\n"
     << "  unsigned short *band = b + kBRows * kBStride;\n"
     << "  unsigned short *ring = shared + kRingStart;\n"
     << "  const unsigned int ringAddress = cgc_shared_address(ring);\n"
     << "  unsigned short *stage = ring + kPoolKH * kQ * kK;\n"
     << "  float *channels = (float *)(stage + kStageElements);\n"
     << "  (void)stage;\n"
     << "  (void)channels;\n"
     << "  const int thread = threadIdx.x, warp = thread >> 5, lane = thread & 31;\n"
     << "  const int g = lane >> 2, t = lane & 3;\n"
     // 1. The weights, the window's rows padded to octets: rows kBStride
     // apart for ldmatrix, or wgmma's core matrices (8 channels × one
     // octet, channel group by channel group).
     << "  for (int i = thread; i < kBRows * kDepth; i += kThreads) {\n"
     << "    const int n = i / kDepth, k = i - n * kDepth;\n"
     << "    const int octet = k / 8, r = octet / kOctets, e = (octet - r * kOctets) * 8 + k % 8;\n"
     << "    b[" << (spec.wgmma ? "((n >> 3) * (kDepth / 8) + octet) * 64 + (n & 7) * 8 + k % 8"
                              : "n * kBStride + k")
     << "] = n < kK && r < kR && e < kWindowRow ?\n"
     << "        weight[n * kWindow + r * kWindowRow + e] : (unsigned short)0;\n"
     << "  }\n";
  // wgmma reads the weights through the async proxy: the generic stores
  // above are made visible to it (the barrier before the tiles orders
  // every thread's).
  if (spec.wgmma)
    os << "  asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\");\n";
  os
     << "  for (int i = thread; i < kBandRows * kRowStride / 2; i += kThreads)\n"
     << "    ((unsigned int *)band)[i] = 0u;\n"
     // The lane's elements of a window row's last octet that lie in it.
     << "  const int lastElement = (kOctets - 1) * 8 + 2 * t;\n"
     << "  const unsigned int lastMask = (lastElement < kWindowRow ? 0xffffu : 0u) |\n"
     << "                                (lastElement + 1 < kWindowRow ? 0xffff0000u : 0u);\n"
     << "  (void)lastMask;\n"
     ;
  if (spec.wgmma)
    // The weights as core matrices: 8 channels' rows of kDepth / 8 of
    // them.
    os << "  const unsigned long long weightDescriptor = "
          "cgc_descriptor(cgc_shared_address(b), kDepth / 8 * 128);\n";
  else
    // The lane's ldmatrix row of the weights: a step's and a group's
    // matrices lie at literal offsets from it.
    os << "  const unsigned int bLane = cgc_shared_address(b + ((lane & 7) + ((lane >> 4) << 3)) * "
          "kBStride + ((lane >> 3) & 1) * 8);\n";
  // Per-channel operands, as floats in shared memory (registers would
  // spill beside the sums).
  for (size_t index = 0; index < operandCount; ++index) {
    std::string k = std::to_string(index + 1);
    os << "  float *channel" << k << " = channels + " << index << " * kK;\n"
       << "  for (int c = thread; c < kK; c += kThreads)\n"
       << "    channel" << k << "[c] = "
       << loadValue(spec.dtype,
                    "operand" + k + "[c * " + std::to_string(spec.channelStrides[index]) + "]")
       << ";\n";
  }
  os << "  const int image = blockIdx.x / blocksPerImage;\n"
     << "  const int firstRow = (blockIdx.x - image * blocksPerImage) * rowsPerBlock;\n"
     << "  const int endRow = min(firstRow + rowsPerBlock, kPH);\n"
     << "  const " << (floatImage ? "float" : "unsigned short")
     << " *in = input + (long long)image * kH * kRowElements;\n"
     << "  unsigned short *out = output + (long long)image * kPH * kPW * kK;\n"
     << "  __syncthreads();\n"
     << "  int y0, y1, bandRows = 0;\n"
     << "  if (firstRow < endRow) {\n"
     << "    cgc_slab(firstRow, true, y0, y1);\n"
     << "    bandRows = y1 > y0 ? (y1 - 1 - y0) * kStrideH + kR : 0;\n";
  if (vectorRows && !floatImage)
    os << "    if (vector)\n"
       << "      cgc_stage_vectors(band, in, y0 * kStrideH - kPadTop, bandRows);\n"
       << "    else\n";
  os << "      cgc_stage_elements(band, in, y0 * kStrideH - kPadTop, bandRows);\n"
     << "  }\n";
  os << "  for (int r = firstRow; r < endRow; ++r) {\n"
     << "    cgc_slab(r, r == firstRow, y0, y1);\n"
     << "    const int bandTop = y0 * kStrideH - kPadTop;\n"
     << "    int n0 = 0, n1 = 0;\n"
     << "    if (r + 1 < endRow)\n"
     << "      cgc_slab(r + 1, false, n0, n1);\n"
     << "    const int nextRows = n1 > n0 ? (n1 - 1 - n0) * kStrideH + kR : 0;\n";
  // 2-4. The band is staged and the previous row pooled (and the staging
  // area read).
  if (floatImage)
    os << "    const int shift = (n0 - y0) * kStrideH;\n"
       << "    const int kept = min(nextRows, max(0, bandRows - shift));\n";
  os << "    __syncthreads();\n";
  if (vectorRows && floatImage)
    os << "    if (vector)\n"
       << "      cgc_fetch_rows((float *)stage, in, n0 * kStrideH - kPadTop + kept, nextRows - "
          "kept);\n"
       << "    cgc_copy_commit();\n";
  else if (vectorRows)
    os << "    if (vector)\n"
       << "      cgc_fetch_band(stage, in, n0 * kStrideH - kPadTop, nextRows);\n"
       << "    cgc_copy_commit();\n";
  os
     << "    const int pixels = (y1 - y0) * kQ;\n";
  // wgmma: a warpgroup's warps take consecutive tiles and run the same
  // number of them (a tile past the pixels computes the last one's
  // window again and stores nothing).
  if (spec.wgmma)
    os << "    for (int tile = warp; (tile & ~3) * 32 < pixels; tile += kWarps) {\n";
  else
    os << "    for (int tile = warp; tile * 32 < pixels; tile += kWarps) {\n";
  os
     << "      int offsets[4];\n"
     << "#pragma unroll\n"
     << "      for (int k = 0; k < 4; ++k) {\n"
     << "        const int i = min(tile * 32 + g + 8 * k, pixels - 1);\n"
     << "        const int row = i / kQ, x = i - row * kQ;\n"
     << "        offsets[k] = ((y0 + row) * kStrideH - kPadTop - bandTop) * kRowStride + "
        "kRowStart + (x * kStrideW - kPadLeft) * kC + 2 * t;\n"
     << "      }\n"
     << "      float sums[2][kVectors][4];\n"
     << "#pragma unroll\n"
     << "      for (int m = 0; m < 2; ++m)\n"
     << "#pragma unroll\n"
     << "        for (int n = 0; n < kVectors; ++n)\n"
     << "#pragma unroll\n"
     << "          for (int e = 0; e < 4; ++e)\n"
     << "            sums[m][n][e] = 0.0f;\n";
  writeSteps(os, spec);
  // The per-channel operands of the lane's columns, read once a tile and
  // all at once (read beside each sum, every store's memory clobber kept
  // each read after the store before it, and the sums waited for them).
  for (size_t index = 0; index < operandCount; ++index)
    os << "      float2 c" << index + 1 << "[kVectors];\n"
       << "#pragma unroll\n"
       << "      for (int n = 0; n < kVectors; ++n)\n"
       << "        c" << index + 1 << "[n] = *(const float2 *)(channel" << index + 1
       << " + n * 8 + 2 * t);\n";
  os << "#pragma unroll\n"
     << "      for (int m = 0; m < 2; ++m)\n"
     << "#pragma unroll\n"
     << "        for (int half = 0; half < 2; ++half) {\n"
     << "          const int i = tile * 32 + m * 16 + half * 8 + g;\n"
     << "          if (i >= pixels)\n"
     << "            continue;\n"
     << "          const int row = i / kQ, x = i - row * kQ;\n"
     << "          const unsigned int to = cgc_shared_address(ring + (((y0 + row) % kPoolKH) * kQ "
        "+ x) * kK + 2 * t) ^ ((x & kSwizzle) << 4);\n"
     << "#pragma unroll\n"
     << "          for (int n = 0; n < kVectors; ++n) {\n";
  os << "            const float low = cgc_epilogue(sums[m][n][half * 2]";
  for (size_t index = 0; index < operandCount; ++index)
    os << ", c" << index + 1 << "[n].x";
  os << ");\n"
     << "            const float high = cgc_epilogue(sums[m][n][half * 2 + 1]";
  for (size_t index = 0; index < operandCount; ++index)
    os << ", c" << index + 1 << "[n].y";
  // One conversion of the pair, rounding to nearest even as the
  // element-type stores do (a NaN may come out with another payload).
  os << ");\n"
     << "            cgc_store_word(" << (swizzle ? "to ^ (n << 4)" : "to + (n << 4)")
     << ", cgc_pack(low, high));\n"
     << "          }\n"
     << "        }\n"
     << "    }\n"
     // 5. Every row of the window is in the ring, the band is free, the
     // staging area full.
     << "    cgc_copy_wait();\n";
  if (vectorRows && floatImage)
    os << "    cgc_held held;\n"
       << "    if (vector)\n"
       << "      cgc_hold_rows(held, band, shift, kept);\n";
  os << "    __syncthreads();\n";
  if (vectorRows && floatImage)
    os << "    if (vector) {\n"
       << "      cgc_put_rows(held, band, kept);\n"
       << "      cgc_store_rows(band, (const float *)stage, kept, nextRows - kept);\n"
       << "    } else {\n"
       << "      cgc_stage_elements(band, in, n0 * kStrideH - kPadTop, nextRows);\n"
       << "    }\n";
  else if (vectorRows)
    os << "    if (vector)\n"
       << "      cgc_store_band(band, stage, nextRows);\n"
       << "    else\n"
       << "      cgc_stage_elements(band, in, n0 * kStrideH - kPadTop, nextRows);\n";
  else
    os << "    cgc_stage_elements(band, in, n0 * kStrideH - kPadTop, nextRows);\n";
  os << "    bandRows = nextRows;\n";
  // The window's rows and columns clamped into the convolution's result:
  // a clamped index is one of the window's own (every window meets the
  // result, getConvolutionPoolRefusal), and a maximum taken twice is the
  // same, so no test per element. Addresses are the ring's shared-memory
  // ones, a row's part and a column's part added.
  os << "    const int top = r * kPoolSH - kPoolPadTop;\n"
     << "    unsigned int rowAddress[kPoolKH];\n"
     << "#pragma unroll\n"
     << "    for (int dy = 0; dy < kPoolKH; ++dy)\n"
     << "      rowAddress[dy] = ringAddress + (min(max(top + dy, 0), kP - 1) % kPoolKH) * (kQ * "
        "kK * 2);\n"
     << "    for (int u = thread; u < kPW * kVectors; u += kThreads) {\n"
     << "      const int px = u / kVectors, v = u - px * kVectors;\n"
     << "      const int left = px * kPoolSW - kPoolPadLeft;\n"
     << "      unsigned int columnOffset[kPoolKW];\n"
     << "#pragma unroll\n"
     << "      for (int dx = 0; dx < kPoolKW; ++dx) {\n"
     << "        const int x = min(max(left + dx, 0), kQ - 1);\n"
     << "        columnOffset[dx] = x * (kK * 2) + ((v ^ (x & kSwizzle)) << 4);\n"
     << "      }\n"
     << "      uint4 best = make_uint4(" << negativeInfinity << ", " << negativeInfinity << ", "
     << negativeInfinity << ", " << negativeInfinity << ");\n"
     << "#pragma unroll\n"
     << "      for (int dy = 0; dy < kPoolKH; ++dy)\n"
     << "#pragma unroll\n"
     << "        for (int dx = 0; dx < kPoolKW; ++dx) {\n"
     << "          const uint4 value = cgc_load_quad(rowAddress[dy] + columnOffset[dx]);\n"
     << "          best.x = cgc_max_pair(best.x, value.x);\n"
     << "          best.y = cgc_max_pair(best.y, value.y);\n"
     << "          best.z = cgc_max_pair(best.z, value.z);\n"
     << "          best.w = cgc_max_pair(best.w, value.w);\n"
     << "        }\n"
     << "      unsigned short *to = out + (r * kPW + px) * kK + v * 8;\n"
     << "      if (aligned) {\n"
     << "        cgc_store_16(to, best.x, best.y, best.z, best.w);\n"
     << "      } else {\n"
     << "        const unsigned int words[4] = {best.x, best.y, best.z, best.w};\n"
     << "#pragma unroll\n"
     << "        for (int e = 0; e < 8; ++e)\n"
     << "          to[e] = (unsigned short)(words[e / 2] >> (16 * (e % 2)));\n"
     << "      }\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return source;
}

/// Pool rows a block takes: the fewest that leave no resident block slot
/// (`slots`) idle, a whole image where even that does not.
int64_t getRowsPerBlock(int64_t batch, int64_t poolRows, int64_t slots) {
  for (int64_t rows = 1; rows < poolRows; ++rows)
    if (batch * ((poolRows + rows - 1) / rows) <= slots)
      return rows;
  return poolRows;
}

} // namespace

std::optional<std::string> getConvolutionPoolRefusal(const FusedConvolutionShape &shape) {
  if (!shape.pool)
    return std::string("no max pool follows the convolution");
  if (std::optional<std::string> refusal = getTensorCoreConvolutionRefusal(shape))
    return refusal;
  auto geometry = getChannelsLastGeometry(shape);
  if (!geometry)
    return llvm::toString(geometry.takeError());
  const ChannelsLastGeometry &g = *geometry;
  if (g.channels > kConvolutionPoolMaxChannels)
    return std::to_string(g.channels) + " input channels (it takes at most " +
           std::to_string(kConvolutionPoolMaxChannels) + ")";
  if (g.outChannels % 8 != 0 || g.outChannels > kConvolutionPoolMaxOutputChannels)
    return std::to_string(g.outChannels) + " output channels (it takes multiples of 8 up to " +
           std::to_string(kConvolutionPoolMaxOutputChannels) + ")";
  if (g.dilationHeight != 1 || g.dilationWidth != 1)
    return std::string("a dilated convolution");
  if (g.strideWidth * g.channels % 2 != 0)
    return "windows " + std::to_string(g.strideWidth * g.channels) +
           " elements apart (stride × channels; it takes even distances)";
  int64_t octets = (g.kernelWidth * g.channels + kOctet - 1) / kOctet;
  if (g.kernelHeight * octets > kConvolutionPoolMaxWindowOctets)
    return "a window of " + std::to_string(g.kernelHeight) + " rows of " +
           std::to_string(octets) + " octets (it takes at most " +
           std::to_string(kConvolutionPoolMaxWindowOctets) + " octets)";
  for (const ChainStep &step : shape.steps)
    if (!isPerChannel(step))
      return ("chain layer " + step.op->getName().getStringRef() +
              " reads an operand that varies along more than the channels")
          .str();
  const ConvolutionMaxPool &pool = *shape.pool;
  for (int dimension = 0; dimension < 2; ++dimension) {
    if (pool.kernel[dimension] > 3 || pool.dilations[dimension] != 1 ||
        pool.strides[dimension] > pool.kernel[dimension] ||
        pool.startPadding[dimension] >= pool.kernel[dimension])
      return "a max pool of window " + formatIndexList(pool.kernel) + ", strides " +
             formatIndexList(pool.strides) + ", dilations " + formatIndexList(pool.dilations) +
             " and start padding " + formatIndexList(pool.startPadding) +
             " (it takes windows of at most 3×3, undilated, strides at most the window, start "
             "padding less than it)";
  }
  // Ceil mode's sizes drop a last window that would start in the padding
  // (as PyTorch's do); a pool whose sizes keep one is refused, not pooled
  // from a clamped row.
  int64_t convolutionSizes[2] = {g.outHeight, g.outWidth};
  int64_t poolSizes[2] = {pool.outHeight, pool.outWidth};
  for (int dimension = 0; dimension < 2; ++dimension)
    if ((poolSizes[dimension] - 1) * pool.strides[dimension] - pool.startPadding[dimension] >=
        convolutionSizes[dimension])
      return "a max pool whose last window along dimension " + std::to_string(dimension + 2) +
             " lies in the padding (it takes windows that meet the convolution's result)";
  ConvolutionPoolLayout layout = getLayout(g, pool, bool(shape.inputCast));
  int64_t operands = 0;
  for (const ChainStep &step : shape.steps)
    operands += step.argument ? 1 : 0;
  if (shape.bias)
    ++operands;
  int64_t bytes = 2 * layout.getSharedElements(g, pool, operands);
  if (bytes > kConvolutionPoolMaxSharedBytes)
    return "shared memory of " + std::to_string(bytes) + " bytes (weights, a band of " +
           std::to_string(layout.bandRows) + " input rows of " + std::to_string(layout.rowStride) +
           " elements, a ring of " + std::to_string(pool.kernel[0]) +
           " convolution rows and a staging area of " + std::to_string(layout.getStagedRows()) +
           (layout.floatImage ? " float32" : "") + " input rows; it takes at most " +
           std::to_string(kConvolutionPoolMaxSharedBytes / 1024) + " KiB)";
  return std::nullopt;
}

std::optional<llvm::Error> checkConvolutionPool(FunctionalDefinitionOp definition,
                                                const FusedConvolutionShape &shape) {
  std::optional<std::string> refusal = getConvolutionPoolRefusal(shape);
  if (!refusal)
    return std::nullopt;
  return makeFusedError(definition, kConvolutionFamily,
                        "the convolution + max pool kernel does not run this definition: " +
                            *refusal);
}

llvm::Expected<Kernel> buildConvolutionPool(FunctionalDefinitionOp definition,
                                            const FusedConvolutionShape &shape,
                                            KernelContext::Impl &context) {
  if (std::optional<llvm::Error> refused = checkConvolutionPool(definition, shape))
    return std::move(*refused);
  if (context.getComputeMajor() < 8)
    return makeFusedError(definition, kConvolutionFamily,
                          "a convolution followed by a max pool needs compute capability 8.0 "
                          "(float16 and bfloat16 mma.sync) on the CUDA driver; this device has " +
                              std::to_string(context.getComputeMajor()) + "." +
                              std::to_string(context.getComputeMinor()));
  auto geometry = getChannelsLastGeometry(shape);
  if (!geometry)
    return inFusedConvolution(definition, geometry.takeError());
  auto epilogue = getConvolutionEpilogue(definition, shape);
  if (!epilogue)
    return epilogue.takeError();
  const ConvolutionMaxPool &pool = *shape.pool;
  if (geometry->batch * pool.outHeight * pool.outWidth * geometry->outChannels == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};

  ConvolutionPoolSpec spec;
  spec.dtype = shape.plan.output.dtype;
  spec.geometry = *geometry;
  spec.pool = pool;
  spec.wgmma =
      context.getComputeMajor() == 9 && getConvolutionWgmmaMode() != ConvolutionWgmmaMode::Off;
  spec.layout = getLayout(*geometry, pool, bool(shape.inputCast), spec.wgmma);
  spec.statements = epilogue->statements;
  const Shape &outputShape = shape.plan.output.shape;
  llvm::SmallVector<unsigned, 4> operandArguments;
  for (const EpilogueOperand &operand : epilogue->operands) {
    StridedOperand strided = broadcastOperand(spec.dtype, operand.shape, outputShape);
    spec.channelStrides.push_back(strided.strides[3]);
    operandArguments.push_back(operand.argument);
  }

  llvm::Expected<DeviceFunction> function =
      context.getFunction(shape.conv, generateSource(spec), "cgc_convolution_pool",
                          /*archSpecific=*/spec.wgmma);
  if (!function)
    return inFusedConvolution(definition, function.takeError());
  size_t sharedBytes = static_cast<size_t>(
      2 * spec.layout.getSharedElements(*geometry, pool, int64_t(spec.channelStrides.size())));
  if (std::optional<llvm::Error> refused =
          allowSharedMemory(definition, context, *function, sharedBytes,
                            "the convolution + max pool kernel"))
    return std::move(*refused);

  int rowsPerBlock = static_cast<int>(getRowsPerBlock(
      geometry->batch, pool.outHeight, 2 * int64_t(context.getMultiprocessorCount())));
  int blocksPerImage = static_cast<int>((pool.outHeight + rowsPerBlock - 1) / rowsPerBlock);
  dim3 grid(static_cast<unsigned>(geometry->batch * blocksPerImage));
  dim3 block(static_cast<unsigned>(spec.layout.warps * 32));
  bool vectorRows = spec.layout.hasVectorRows(*geometry);
  unsigned input = shape.input, weight = shape.weight;
  std::string name =
      ("@" + definition.getSymName() + ": fused convolution + max pool (generated)").str();
  auto launch = [function = *function, grid, block, operandArguments, input, weight, name,
                 sharedBytes, rowsPerBlock, blocksPerImage,
                 vectorRows](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<const void *, 8> pointers =
        getConvolutionPointers(args, input, weight, operandArguments);
    void *output = args.outputs[0];
    int rows = rowsPerBlock, blocks = blocksPerImage;
    // 16-byte band loads need a 16-byte aligned input, and the pool's
    // 16-byte stores an aligned output.
    int vector = vectorRows && reinterpret_cast<uintptr_t>(pointers[0]) % 16 == 0 ? 1 : 0;
    int aligned = reinterpret_cast<uintptr_t>(output) % 16 == 0 ? 1 : 0;
    llvm::SmallVector<void *, 12> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    arguments.push_back(&output);
    arguments.push_back(&rows);
    arguments.push_back(&blocks);
    arguments.push_back(&vector);
    arguments.push_back(&aligned);
    cudaError_t error = function.launch(grid, block, arguments.data(), sharedBytes, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(name, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
