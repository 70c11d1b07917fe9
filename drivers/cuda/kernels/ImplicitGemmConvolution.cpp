//===- ImplicitGemmConvolution.cpp - few-channel convolutions on tensor cores ===//
//
// Blocks of 256 threads are persistent (two a multiprocessor); each takes
// 64 output channels and loops over tiles of 128 output pixels of one
// image:
//
//   1. once, it copies its channels' weights (K×R×S×C: each channel's
//      window is one contiguous row) into shared memory, zero-padded to a
//      depth of a multiple of 32;
//   2. per tile, the band of input rows its windows cover, padding rows
//      and columns included as zeros, is copied into shared memory with
//      16-byte asynchronous copies, the next tile's band while this one's
//      products run (two band buffers where they fit in
//      kImplicitGemmMaxSharedBytes, one otherwise);
//   3. per chunk of 32 window elements, each thread of warps 0-3 gathers
//      the chunk of one pixel's window from the band (which holds the
//      padding as zeros, so no element is checked; every offset a literal,
//      pairs of elements read as one word where windows start at one
//      parity) into one of two shared A tiles, and after the barrier
//      gathers the next chunk while each of the 8 warps multiplies its
//      32 × 32 part with mma.sync m16n8k16 (ldmatrix fragments, float32
//      accumulators);
//   4. each accumulator pair (two neighbouring channels of a pixel) takes
//      the bias (read once, before the tiles) and the chain in float32 and
//      is stored as one 4-byte pair (element stores where the output is not
//      4-byte aligned).
//
// Gathering each window element from global memory instead (the kernel's
// first form) left ResNet-50's first layer waiting on its loads: 0.55 ms at
// batch 256 on an H100, four times what its output takes to write.
//
// The source is compiled per geometry (every size, stride and padding a
// constant, and the window's offsets with them; the convolutions it takes
// are a model's first).
//
//===----------------------------------------------------------------------===//

#include "ImplicitGemmConvolution.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
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

/// The shared memory of a block: weights, two A tiles, and one or two
/// bands of input rows (elements).
struct SharedLayout {
  int64_t weightElements = 0, tileElements = 0;
  /// Input rows a tile's windows cover at most (padding rows included);
  /// where a band row's image elements start (after the left padding,
  /// rounded up to 16 bytes), its elements, and a band's.
  int64_t bandRows = 0, rowStart = 0, rowStride = 0, bandElements = 0;
  int bands = 0;

  int64_t getBytes() const {
    return 2 * (weightElements + 2 * tileElements + bands * bandElements);
  }
};

/// The layout for `g` with a window of `window` elements: two bands where
/// they fit in kImplicitGemmMaxSharedBytes, otherwise one (bands = 0 where
/// even one does not).
SharedLayout getSharedLayout(const ChannelsLastGeometry &g, int64_t window) {
  SharedLayout layout;
  int64_t depth = (window + kChunk - 1) / kChunk * kChunk;
  layout.weightElements = kTileColumns * (depth + 8);
  layout.tileElements = kTileRows * (kChunk + 8);
  // The rows of each tile of one image (every image's tiles are alike).
  int64_t pixels = g.outHeight * g.outWidth;
  for (int64_t first = 0; first < pixels; first += kTileRows) {
    int64_t last = std::min(first + kTileRows, pixels) - 1;
    int64_t top = first / g.outWidth * g.strideHeight - g.padTop;
    int64_t bottom = last / g.outWidth * g.strideHeight - g.padTop +
                     (g.kernelHeight - 1) * g.dilationHeight + 1;
    layout.bandRows = std::max(layout.bandRows, bottom - top);
  }
  // The columns read reach from -padLeft to width + (at most) the right
  // padding, which the output width bounds.
  int64_t right = std::max<int64_t>(
      0, (g.outWidth - 1) * g.strideWidth - g.padLeft + (g.kernelWidth - 1) * g.dilationWidth + 1 -
             g.width);
  layout.rowStart = (g.padLeft * g.channels + 7) / 8 * 8;
  layout.rowStride = (layout.rowStart + (g.width + right) * g.channels + 7) / 8 * 8;
  layout.bandElements = layout.bandRows * layout.rowStride;
  for (int bands : {2, 1}) {
    layout.bands = bands;
    if (layout.getBytes() <= kImplicitGemmMaxSharedBytes)
      return layout;
  }
  layout.bands = 0;
  return layout;
}

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
  SharedLayout layout;
};
} // namespace

std::optional<std::string> getImplicitGemmRefusal(const FusedConvolutionShape &shape,
                                                  int computeMajor) {
  if (std::optional<std::string> refusal = getTensorCoreConvolutionRefusal(shape))
    return refusal;
  const Shape &input = shape.plan.input.shape, &output = shape.plan.output.shape;
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
  auto geometry = getChannelsLastGeometry(shape);
  if (!geometry)
    return llvm::toString(geometry.takeError());
  SharedLayout layout = getSharedLayout(*geometry, window);
  if (layout.bands == 0)
    return "input rows of " + std::to_string(layout.rowStride) +
           " elements with their padding: a tile's band of " + std::to_string(layout.bandRows) +
           " of them does not fit in " + std::to_string(kImplicitGemmMaxSharedBytes / 1024) +
           " KiB of shared memory beside the weights";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The source
//===----------------------------------------------------------------------===//

/// Writes `cgc_gather`: one thread's 32 window elements of chunk `chunk`
/// (a constant once the chunk loop is unrolled) for the pixel whose window
/// starts at `window` in the band, as 16 words of two elements, the lower
/// first; elements past the window are zeros. Every offset is a literal.
/// Where windows start an even number of elements apart (a stride times
/// the channels even), each window starts at an element of one parity,
/// known here, and two neighbouring elements are one 32-bit read (two
/// realigned by a byte permutation where they straddle a word); otherwise
/// each element is a read of its own.
static void writeGather(llvm::raw_ostream &os, const ImplicitGemmSpec &spec) {
  const ChannelsLastGeometry &g = spec.geometry;
  const SharedLayout &layout = spec.layout;
  // The band offset of window element k from the window's start; -1 past
  // the window.
  auto offset = [&](int64_t k) -> int64_t {
    if (k >= spec.window)
      return -1;
    int64_t r = k / (g.kernelWidth * g.channels), s = k / g.channels % g.kernelWidth,
            c = k % g.channels;
    return r * g.dilationHeight * layout.rowStride + s * g.dilationWidth * g.channels + c;
  };
  // Rows start at even offsets (the row stride is a multiple of 8), so a
  // window's parity is that of its column's start.
  bool wordReads = g.strideWidth * g.channels % 2 == 0;
  int64_t parity = (layout.rowStart - g.padLeft * g.channels) & 1;
  auto element = [](int64_t at) {
    return at < 0 ? std::string("0u") : "(unsigned int)window[" + std::to_string(at) + "]";
  };
  auto word = [](int64_t at) { return "cgc_word(window + " + std::to_string(at) + ")"; };
  os << "CGC_DEVICE unsigned int cgc_word(const unsigned short *at) {\n"
     << "  return *(const unsigned int *)at;\n"
     << "}\n"
     << "CGC_DEVICE void cgc_gather(unsigned int (&words)[16], const unsigned short *window, "
        "int chunk) {\n";
  for (int64_t chunk = 0; chunk < spec.depth / kChunk; ++chunk) {
    os << "  " << (chunk == 0 ? "" : "else ") << "if (chunk == " << chunk << ") {\n";
    for (int64_t pair = 0; pair < kChunk / 2; ++pair) {
      int64_t low = offset(chunk * kChunk + 2 * pair);
      int64_t high = offset(chunk * kChunk + 2 * pair + 1);
      os << "    words[" << pair << "] = ";
      if (low < 0)
        os << "0u";
      else if (wordReads && high == low + 1 && (parity + low) % 2 == 0)
        os << word(low);
      else if (wordReads && high == low + 1)
        os << "__byte_perm(" << word(low - 1) << ", " << word(low + 1) << ", 0x5432)";
      else
        os << element(low) << " | " << element(high) << " << 16";
      os << ";\n";
    }
    os << "  }\n";
  }
  os << "}\n";
}

/// The source of the kernel `cgc_implicit_gemm`.
static std::string generateSource(const ImplicitGemmSpec &spec) {
  const ChannelsLastGeometry &g = spec.geometry;
  const SharedLayout &layout = spec.layout;
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getTensorCoreHelpers(spec.dtype) << getIndexTypedef(spec.narrowIndex);
  int64_t bStride = spec.depth + 8, aStride = kChunk + 8;
  os << "constexpr int kC = " << g.channels << ", kR = " << g.kernelHeight
     << ", kS = " << g.kernelWidth << ";\n"
     << "constexpr int kStrideH = " << g.strideHeight << ", kStrideW = " << g.strideWidth
     << ", kDilationH = " << g.dilationHeight << ", kDilationW = " << g.dilationWidth
     << ", kPadTop = " << g.padTop << ", kPadLeft = " << g.padLeft << ";\n"
     << "constexpr int kH = " << g.height << ", kW = " << g.width << ", kP = " << g.outHeight
     << ", kQ = " << g.outWidth << ", kK = " << g.outChannels << ";\n"
     << "constexpr int kRowElements = kW * kC, kImagePixels = kP * kQ;\n"
     << "constexpr int kWindow = " << spec.window << ", kDepth = " << spec.depth
     << ", kChunk = " << kChunk << ", kChunks = " << spec.depth / kChunk << ";\n"
     << "constexpr int kRows = " << kTileRows << ", kColumns = " << kTileColumns << ";\n"
     << "constexpr int kTilesPerImage = (kImagePixels + kRows - 1) / kRows;\n"
     << "constexpr cgc_index kTiles = (cgc_index)" << g.batch << " * kTilesPerImage;\n"
     << "constexpr int kAStride = " << aStride << ", kBStride = " << bStride << ";\n"
     << "constexpr int kBandRows = " << layout.bandRows << ", kRowStart = " << layout.rowStart
     << ", kRowStride = " << layout.rowStride << ", kBandElements = " << layout.bandElements
     << ", kBands = " << layout.bands << ";\n";

  // The band of input rows tile `tile` reads: its image, its first pixel
  // in the image, its first row (negative in the top padding) and how
  // many.
  os << "CGC_DEVICE void cgc_band(cgc_index tile, cgc_index &image, int &first, int &top, int "
        "&rows) {\n"
     << "  image = tile / kTilesPerImage;\n"
     << "  first = (int)(tile - image * kTilesPerImage) * kRows;\n"
     << "  const int last = min(first + kRows, kImagePixels) - 1;\n"
     << "  top = first / kQ * kStrideH - kPadTop;\n"
     << "  rows = last / kQ * kStrideH - kPadTop + (kR - 1) * kDilationH + 1 - top;\n"
     << "}\n";
  // Zeroes every band row's padding columns, once: the copies write only
  // the image columns.
  os << "CGC_DEVICE void cgc_zero_padding(unsigned short *bands) {\n"
     << "  constexpr int kPadding = kRowStride - kRowElements;\n"
     << "  for (int i = threadIdx.x; i < kBands * kBandRows * kPadding; i += " << kThreads << ") {\n"
     << "    const int row = i / kPadding, column = i - row * kPadding;\n"
     << "    bands[row * kRowStride + (column < kRowStart ? column : column + kRowElements)] = 0;\n"
     << "  }\n"
     << "}\n";
  // Copies a band into shared memory, rows outside the image as zeros:
  // 16-byte asynchronous copies where rows are whole 16-byte runs and the
  // input is aligned to them (the caller commits and waits), element
  // copies otherwise.
  os << "CGC_DEVICE void cgc_stage(unsigned short *band, const unsigned short *__restrict__ "
        "input, cgc_index tile, int vector) {\n"
     << "  cgc_index image;\n"
     << "  int first, top, rows;\n"
     << "  cgc_band(tile, image, first, top, rows);\n"
     << "  const unsigned short *from = input + image * kH * (cgc_index)kRowElements;\n"
     << "  const int step = kRowElements % 8 == 0 && vector ? 8 : 1;\n"
     << "  for (int i = threadIdx.x * step; i < rows * kRowElements; i += " << kThreads
     << " * step) {\n"
     << "    const int row = i / kRowElements, column = i - row * kRowElements;\n"
     << "    const int y = top + row;\n"
     << "    unsigned short *to = band + row * kRowStride + kRowStart + column;\n"
     << "    if ((unsigned)y >= (unsigned)kH) {\n"
     << "      for (int e = 0; e < step; ++e)\n"
     << "        to[e] = 0;\n"
     << "    } else if (step == 8) {\n"
     << "      cgc_copy_async(to, from + y * kRowElements + column, 16);\n"
     << "    } else {\n"
     << "      *to = from[y * kRowElements + column];\n"
     << "    }\n"
     << "  }\n"
     << "}\n";

  writeGather(os, spec);

  // The epilogue of one element: its sum `v`, the operands read at their
  // offsets for the element's pixel and channel.
  size_t operandCount = spec.operandStrides.size();
  std::string storage = getStorageType(spec.dtype);
  // An operand that varies along channels only (a bias) is read once per
  // thread before the tiles, for the 8 channels the thread stores.
  auto isPerChannel = [&](size_t index) {
    const std::array<int64_t, 4> &strides = spec.operandStrides[index];
    return strides[0] == 0 && strides[1] == 0 && strides[2] == 0;
  };
  os << getEpilogueFunction("cgc_epilogue", spec.statements, operandCount);

  os << "extern \"C\" __global__ void __launch_bounds__(" << kThreads
     << ", 2) cgc_implicit_gemm(const unsigned short *__restrict__ input, "
        "const unsigned short *__restrict__ weight, ";
  for (size_t operand = 0; operand < operandCount; ++operand)
    os << "const " << storage << " *__restrict__ operand" << operand + 1 << ", ";
  os << "unsigned short *__restrict__ output, int aligned, int vector) {\n"
     << "  extern __shared__ __align__(16) unsigned short shared[];\n"
     << "  unsigned short *b = shared;\n"
     << "  unsigned short *tiles = b + kColumns * kBStride;\n"
     << "  unsigned short *bands = tiles + 2 * kRows * kAStride;\n"
     << "  const int thread = threadIdx.x, warp = thread >> 5, lane = thread & 31;\n"
     << "  const int channel0 = blockIdx.y * kColumns;\n"
     // 1. The block's weights, once: the block then loops over pixel tiles.
     << "  for (int i = thread; i < kColumns * kDepth; i += " << kThreads << ") {\n"
     << "    const int n = i / kDepth, k = i - n * kDepth;\n"
     << "    b[n * kBStride + k] = channel0 + n < kK && k < kWindow ?\n"
     << "        weight[(cgc_index)(channel0 + n) * kWindow + k] : (unsigned short)0;\n"
     << "  }\n"
     // Warps 0-3 gather each chunk, a thread a pixel's 32 elements; their
     // schedulers' other warp (4-7) only multiplies.
     << "  const int gatherRow = (warp & 3) * 32 + lane;\n"
     << "  const bool gathers = warp < 4;\n"
     << "  const int warpRow = (warp & 3) * 32, warpColumn = (warp >> 2) * 32;\n";
  for (size_t index = 0; index < operandCount; ++index) {
    if (!isPerChannel(index))
      continue;
    std::string k = std::to_string(index + 1);
    os << "  float channel" << k << "[4][2];\n"
       << "#pragma unroll\n"
       << "  for (int n = 0; n < 4; ++n)\n"
       << "#pragma unroll\n"
       << "    for (int l = 0; l < 2; ++l) {\n"
       << "      const int channel = channel0 + warpColumn + n * 8 + (lane & 3) * 2 + l;\n"
       << "      channel" << k << "[n][l] = channel < kK ? "
       << loadValue(spec.dtype, "operand" + k + "[channel * (cgc_index)" +
                                    std::to_string(spec.operandStrides[index][3]) + "]")
       << " : 0.0f;\n"
       << "    }\n";
  }
  os
     // 2. With two bands, the first tile's is copied before the loop and
     // each tile's next during its products.
     << "  cgc_zero_padding(bands);\n"
     << "  if (kBands == 2 && blockIdx.x < kTiles)\n"
     << "    cgc_stage(bands, input, blockIdx.x, vector);\n"
     << "  cgc_copy_commit();\n"
     << "  int iteration = 0;\n"
     << "  for (cgc_index tile = blockIdx.x; tile < kTiles; tile += gridDim.x, ++iteration) {\n"
     << "    unsigned short *band = bands + (kBands == 2 ? (iteration & 1) * kBandElements : 0);\n"
     << "    if (kBands == 1) {\n"
     // The previous tile's gathers read the one band.
     << "      __syncthreads();\n"
     << "      cgc_stage(band, input, tile, vector);\n"
     << "      cgc_copy_commit();\n"
     << "    }\n"
     << "    cgc_copy_wait();\n"
     // The band is complete, and every warp is past the previous tile (its
     // products read a[0] or a[1], its gathers the other band).
     << "    __syncthreads();\n"
     << "    if (kBands == 2 && tile + gridDim.x < kTiles)\n"
     << "      cgc_stage(bands + ((iteration + 1) & 1) * kBandElements, input, tile + gridDim.x, "
        "vector);\n"
     << "    cgc_copy_commit();\n"
     << "    cgc_index image;\n"
     << "    int first, bandTop, bandRows;\n"
     << "    cgc_band(tile, image, first, bandTop, bandRows);\n"
     // A pixel past the image's last reads the last one's window (its sums
     // are not stored).
     << "    const int pixel = min(first + gatherRow, kImagePixels - 1);\n"
     << "    const int q = pixel % kQ, p = pixel / kQ;\n"
     << "    const int top = p * kStrideH - kPadTop, left = q * kStrideW - kPadLeft;\n"
     << "    const unsigned short *window =\n"
     << "        band + (top - bandTop) * kRowStride + kRowStart + left * kC;\n"
     << "    float accumulators[2][4][4];\n"
     << "#pragma unroll\n"
     << "    for (int m = 0; m < 2; ++m)\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < 4; ++n)\n"
     << "#pragma unroll\n"
     << "        for (int e = 0; e < 4; ++e)\n"
     << "          accumulators[m][n][e] = 0.0f;\n"
     << "    unsigned int words[16];\n"
     << "    if (gathers)\n"
     << "      cgc_gather(words, window, 0);\n"
     // 3. Chunk by chunk: store the gathered words, barrier, gather the
     // next chunk, products. The A tile alternates between two buffers, so
     // one barrier a chunk suffices.
     << "#pragma unroll\n"
     << "    for (int chunk = 0; chunk < kChunks; ++chunk) {\n"
     << "      unsigned short *tileA = tiles + (chunk & 1) * kRows * kAStride;\n"
     << "      if (gathers) {\n"
     << "        uint4 *to = (uint4 *)(tileA + gatherRow * kAStride);\n"
     << "#pragma unroll\n"
     << "        for (int i = 0; i < 4; ++i)\n"
     << "          to[i] = make_uint4(words[4 * i], words[4 * i + 1], words[4 * i + 2], "
        "words[4 * i + 3]);\n"
     << "      }\n"
     << "      __syncthreads();\n"
     << "      if (gathers && chunk + 1 < kChunks)\n"
     << "        cgc_gather(words, window, chunk + 1);\n"
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
     // 4. The epilogue from the accumulators: each holds two neighbouring
     // channels of a pixel, stored as one 4-byte pair.
     << "#pragma unroll\n"
     << "    for (int m = 0; m < 2; ++m)\n"
     << "#pragma unroll\n"
     << "      for (int half = 0; half < 2; ++half) {\n"
     << "        const int local = first + warpRow + m * 16 + half * 8 + (lane >> 2);\n"
     << "        if (local >= kImagePixels)\n"
     << "          continue;\n"
     << "        const cgc_index pixel = image * kImagePixels + local;\n";
  if (!llvm::all_of(llvm::seq(operandCount), isPerChannel))
    os << "        const int q = local % kQ, p = local / kQ;\n";
  os << "#pragma unroll\n"
     << "        for (int n = 0; n < 4; ++n) {\n"
     << "          const int channel = channel0 + warpColumn + n * 8 + (lane & 3) * 2;\n"
     << "          if (channel >= kK)\n"
     << "            continue;\n"
     << "          float pair[2];\n"
     << "#pragma unroll\n"
     << "          for (int l = 0; l < 2; ++l)\n"
     << "            pair[l] = cgc_epilogue(accumulators[m][n][half * 2 + l]";
  for (size_t index = 0; index < operandCount; ++index) {
    std::string k = std::to_string(index + 1);
    if (isPerChannel(index)) {
      os << ", channel" << k << "[n][l]";
      continue;
    }
    const std::array<int64_t, 4> &strides = spec.operandStrides[index];
    os << ", "
       << loadValue(spec.dtype, "operand" + k + "[image * (cgc_index)" +
                                    std::to_string(strides[0]) + " + p * (cgc_index)" +
                                    std::to_string(strides[1]) + " + q * (cgc_index)" +
                                    std::to_string(strides[2]) + " + (channel + l) * (cgc_index)" +
                                    std::to_string(strides[3]) + "]");
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
  spec.layout = getSharedLayout(*geometry, spec.window);
  // Offsets are 32-bit when every tensor's elements fit in 30 bits.
  constexpr int64_t kNarrowLimit = int64_t(1) << 30;
  int64_t largest =
      std::max(shape.plan.input.getNumElements(), shape.plan.output.getNumElements());
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
  size_t sharedBytes = static_cast<size_t>(spec.layout.getBytes());
  if (std::optional<llvm::Error> refused =
          allowSharedMemory(definition, context, *function, sharedBytes, "the implicit-GEMM kernel"))
    return std::move(*refused);

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
  auto launch = [function = *function, grid, operandArguments, input, weight, name,
                 sharedBytes](const LaunchArgs &args) -> std::string {
    llvm::SmallVector<const void *, 8> pointers =
        getConvolutionPointers(args, input, weight, operandArguments);
    void *output = args.outputs[0];
    int aligned = reinterpret_cast<uintptr_t>(output) % 4 == 0 ? 1 : 0;
    // The bands' 16-byte copies need a 16-byte aligned input.
    int vector = reinterpret_cast<uintptr_t>(pointers[0]) % 16 == 0 ? 1 : 0;
    llvm::SmallVector<void *, 12> arguments;
    for (const void *&pointer : pointers)
      arguments.push_back(&pointer);
    arguments.push_back(&output);
    arguments.push_back(&aligned);
    arguments.push_back(&vector);
    cudaError_t error =
        function.launch(grid, dim3(kThreads), arguments.data(), sharedBytes, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(name, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
