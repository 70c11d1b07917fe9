//===- PoolingCodegen.cpp - generated max and average pool kernels --------===//
//
// The NHWC kernel walks a pixel's window as Pooling.cpp's kernel walks a
// plane's: cgc_kernel_range clips each spatial dimension's kernel offsets
// to the input (and, for count_include_pad, to the padded input), so
// padding is never read and never wins a maximum; a window of at most 49
// elements is walked over every offset, unrolled, the clipped ones skipped,
// so that its loads are in flight together (ResNet-50's 3 × 3 max pool
// waited on them one at a time). The vector kernel loads
// and stores whole 16-byte vectors: NVVM keeps a uint4 load whole, and the
// store goes through PTX's st.global.v4.b32 because NVVM splits a store of
// a vector assembled from 16-bit halves (RowKernelCodegen.cpp says the
// same).
//
//===----------------------------------------------------------------------===//

#include "PoolingCodegen.h"

#include "DeviceCode.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace cgc::cuda {

static const char kKernelRange[] =
    R"cuda(CGC_DEVICE long long cgc_floor_div(long long a, long long b) {
  long long quotient = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}
// Kernel offsets [first, end) whose coordinate origin + k * dilation lies
// in [low, high).
CGC_DEVICE void cgc_kernel_range(long long origin, long long dilation, long long kernel,
                                 long long low, long long high, long long &first,
                                 long long &end) {
  first = -cgc_floor_div(-(low - origin), dilation);
  if (first < 0)
    first = 0;
  end = cgc_floor_div(high - 1 - origin, dilation) + 1;
  if (end > kernel)
    end = kernel;
  if (end < first)
    end = first;
}
)cuda";

const char *getKernelRangeSource() { return kKernelRange; }

int64_t getNhwcPoolVectorWidth(DType dtype) {
  return 16 / static_cast<int64_t>(getByteWidth(dtype));
}

bool hasNhwcPoolVectorKernel(const NhwcPoolGeometry &geometry) {
  return geometry.channels % getNhwcPoolVectorWidth(geometry.dtype) == 0;
}

namespace {

/// The largest window whose loops are unrolled.
constexpr int64_t kUnrolledWindow = 49;

/// What the window and global kernels accumulate alike: maxima in the
/// compute type (NaN propagating), sums in double.
struct PoolAccumulator {
  PoolAccumulator(DType dtype, bool isMax)
      : dtype(dtype), isMax(isMax), compute(getComputeType(dtype)) {}

  /// The accumulator's type and start.
  std::string getType() const { return isMax ? compute : "double"; }
  std::string getIdentity() const {
    return isMax ? floatLiteral(-INFINITY, compute) : std::string("0.0");
  }
  /// The statement folding the compute-type `value` into `accumulator`.
  std::string combine(const std::string &accumulator, const std::string &value) const {
    if (isMax)
      return accumulator + " = cgc_max(" + accumulator + ", (" + compute + ")" + value + ");";
    return accumulator + " += (double)" + value + ";";
  }
  /// The stored result of `accumulator`; an average divides it by
  /// `divisor` (a double expression).
  std::string finish(const std::string &accumulator, const std::string &divisor) const {
    if (isMax)
      return storeValue(dtype, accumulator);
    return storeValue(dtype, "(" + compute + ")(" + accumulator + " / " + divisor + ")");
  }

  DType dtype;
  bool isMax;
  std::string compute;
};

/// Element j of a 16-byte vector held as four 32-bit words `words[4]`.
std::string getVectorElement(DType dtype) {
  if (dtype == DType::F32)
    return "__uint_as_float(words[j])";
  return loadValue(dtype, "(unsigned short)(words[j / 2] >> (16 * (j % 2)))");
}

/// The statements (each line starting with `indent`) that pack the stored
/// results of `acc[0..]` into a 16-byte vector and store it at `address`
/// through PTX's st.global.v4.b32 (cgc_store_16).
void writeVectorStore(llvm::raw_ostream &os, const PoolAccumulator &accumulator,
                      const std::string &divisor, const std::string &address,
                      const std::string &indent) {
  os << indent << "unsigned int packed[4];\n"
     << "#pragma unroll\n"
     << indent << "for (int k = 0; k < 4; ++k)\n";
  if (accumulator.dtype == DType::F32)
    os << indent << "  packed[k] = __float_as_uint(" << accumulator.finish("acc[k]", divisor)
       << ");\n";
  else
    os << indent << "  packed[k] = (unsigned int)" << accumulator.finish("acc[2 * k]", divisor)
       << " | ((unsigned int)" << accumulator.finish("acc[2 * k + 1]", divisor) << " << 16);\n";
  os << indent << "cgc_store_16(" << address
     << ", packed[0], packed[1], packed[2], packed[3]);\n";
}

/// Writes one kernel of the source; the geometry's sizes are literals.
class NhwcPoolWriter {
public:
  NhwcPoolWriter(const NhwcPoolGeometry &geometry, llvm::raw_ostream &os)
      : g(geometry), os(os), storage(getStorageType(geometry.dtype)),
        accumulator(geometry.dtype, geometry.isMax) {}

  /// `cgc_pool_nhwc`: one output element per thread.
  void writeScalarKernel();
  /// `cgc_pool_nhwc_vector`: one pixel's `vector` channels per thread.
  void writeVectorKernel(int64_t vector);

private:
  /// `value` as an index-typed literal.
  static std::string index(int64_t value) { return "((cgc_index)" + std::to_string(value) + "LL)"; }
  /// The loop header over the kernel offsets `name` of dimension `dim`
  /// that lie in [first<at>, end<at>). A window of at most
  /// kUnrolledWindow elements runs over every offset, unrolled, skipping
  /// the clipped ones: its loads are then all in flight together.
  std::string writeLoop(const char *name, const char *at, int dim) const {
    std::string n = name, a = at;
    if (g.kernel[0] * g.kernel[1] > kUnrolledWindow)
      return "for (long long " + n + " = first" + a + "; " + n + " < end" + a + "; ++" + n + ")";
    return "_Pragma(\"unroll\") for (long long " + n + " = 0; " + n + " < " +
           std::to_string(g.kernel[dim]) + "LL; ++" + n + ") if (" + n + " >= first" + a +
           " && " + n + " < end" + a + ")";
  }
  /// The kernel's head and the grid-stride loop over `count` items.
  void writeHead(const char *name, int64_t count);
  /// Splits `pixel` (n·OH·OW + oh·OW + ow) into the batch and the window
  /// origin, and clips the window to the input; an average also gets its
  /// divisor.
  void writeWindow(const std::string &pixel);
  const NhwcPoolGeometry &g;
  llvm::raw_ostream &os;
  std::string storage;
  PoolAccumulator accumulator;
};

void NhwcPoolWriter::writeHead(const char *name, int64_t count) {
  os << "extern \"C\" __global__ void __launch_bounds__(256) " << name << "(const " << storage
     << " *__restrict__ in, " << storage << " *__restrict__ out) {\n"
     << "  const cgc_index step = (cgc_index)gridDim.x * blockDim.x;\n"
     << "  for (cgc_index item = (cgc_index)blockIdx.x * blockDim.x + threadIdx.x; item < "
     << index(count) << "; item += step) {\n";
}

void NhwcPoolWriter::writeWindow(const std::string &pixel) {
  os << "    const cgc_index column = " << pixel << " % " << index(g.outputWidth) << ";\n"
     << "    const cgc_index row = (" << pixel << " / " << index(g.outputWidth) << ") % "
     << index(g.outputHeight) << ";\n"
     << "    const cgc_index batch = " << pixel << " / " << index(g.outputWidth * g.outputHeight)
     << ";\n";
  const char *names[] = {"Row", "Column"};
  const char *positions[] = {"row", "column"};
  int64_t sizes[] = {g.height, g.width};
  for (int dim = 0; dim < 2; ++dim) {
    std::string at = names[dim];
    os << "    const long long origin" << at << " = (long long)" << positions[dim] << " * "
       << g.strides[dim] << "LL - " << g.startPadding[dim] << "LL;\n"
       << "    long long first" << at << ", end" << at << ";\n"
       << "    cgc_kernel_range(origin" << at << ", " << g.dilations[dim] << "LL, " << g.kernel[dim]
       << "LL, 0LL, " << sizes[dim] << "LL, first" << at << ", end" << at << ");\n";
    if (!g.isMax && g.countIncludePad)
      os << "    long long paddedFirst" << at << ", paddedEnd" << at << ";\n"
         << "    cgc_kernel_range(origin" << at << ", " << g.dilations[dim] << "LL, "
         << g.kernel[dim] << "LL, " << -g.startPadding[dim] << "LL, "
         << sizes[dim] + g.endPadding[dim] << "LL, paddedFirst" << at << ", paddedEnd" << at
         << ");\n";
  }
  if (g.isMax)
    return;
  if (g.countIncludePad)
    os << "    const double divisor = (double)((paddedEndRow - paddedFirstRow) * "
          "(paddedEndColumn - paddedFirstColumn));\n";
  else
    os << "    const double divisor = (double)((endRow - firstRow) * (endColumn - firstColumn));\n";
}

void NhwcPoolWriter::writeScalarKernel() {
  writeHead(kNhwcPoolKernel, g.getOutputElements());
  os << "    const cgc_index channel = item % " << index(g.channels) << ";\n"
     << "    const cgc_index pixel = item / " << index(g.channels) << ";\n";
  writeWindow("pixel");
  os << "    const " << storage << " *source = in + batch * "
     << index(g.height * g.width * g.channels) << " + channel;\n"
     << "    " << accumulator.getType() << " acc = " << accumulator.getIdentity() << ";\n"
     << "    " << writeLoop("kh", "Row", 0) << " {\n"
     << "      const " << storage << " *line = source + (cgc_index)(originRow + kh * "
     << g.dilations[0] << "LL) * " << index(g.width * g.channels) << ";\n"
     << "      " << writeLoop("kw", "Column", 1) << " {\n"
     << "        "
     << accumulator.combine("acc", loadValue(g.dtype, "line[(cgc_index)(originColumn + kw * " +
                                              std::to_string(g.dilations[1]) + "LL) * " +
                                              index(g.channels) + "]"))
     << "\n      }\n    }\n"
     << "    out[item] = " << accumulator.finish("acc", "divisor") << ";\n  }\n}\n";
}

void NhwcPoolWriter::writeVectorKernel(int64_t vector) {
  int64_t groups = g.channels / vector;
  writeHead(kNhwcPoolVectorKernel, g.getOutputElements() / vector);
  os << "    const cgc_index group = item % " << index(groups) << ";\n"
     << "    const cgc_index pixel = item / " << index(groups) << ";\n";
  writeWindow("pixel");
  os << "    const " << storage << " *source = in + batch * "
     << index(g.height * g.width * g.channels) << " + group * " << index(vector) << ";\n"
     << "    " << accumulator.getType() << " acc[" << vector << "];\n"
     << "#pragma unroll\n"
     << "    for (int j = 0; j < " << vector << "; ++j)\n"
     << "      acc[j] = " << accumulator.getIdentity() << ";\n"
     << "    " << writeLoop("kh", "Row", 0) << " {\n"
     << "      const " << storage << " *line = source + (cgc_index)(originRow + kh * "
     << g.dilations[0] << "LL) * " << index(g.width * g.channels) << ";\n"
     << "      " << writeLoop("kw", "Column", 1) << " {\n"
     << "        const uint4 bits = *reinterpret_cast<const uint4 *>(line + "
     << "(cgc_index)(originColumn + kw * " << g.dilations[1] << "LL) * " << index(g.channels)
     << ");\n"
     << "        const unsigned int words[4] = {bits.x, bits.y, bits.z, bits.w};\n"
     << "#pragma unroll\n"
     << "        for (int j = 0; j < " << vector << "; ++j)\n"
     << "          " << accumulator.combine("acc[j]", getVectorElement(g.dtype)) << "\n"
     << "      }\n    }\n";
  // The item's channels start at item * vector in the N×OH×OW×C output.
  writeVectorStore(os, accumulator, "divisor", "out + item * " + index(vector), "    ");
  os << "  }\n}\n";
}

} // namespace

std::string generateNhwcPoolSource(const NhwcPoolGeometry &geometry) {
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << kKernelRange;
  // 32-bit indices where every element offset (and the grid stride past
  // the last one) fits.
  constexpr int64_t kNarrowLimit = int64_t(1) << 30;
  bool narrow =
      geometry.getInputElements() < kNarrowLimit && geometry.getOutputElements() < kNarrowLimit;
  os << getIndexTypedef(narrow);
  NhwcPoolWriter writer(geometry, os);
  writer.writeScalarKernel();
  if (hasNhwcPoolVectorKernel(geometry))
    writer.writeVectorKernel(getNhwcPoolVectorWidth(geometry.dtype));
  return source;
}

//===----------------------------------------------------------------------===//
// Global pools
//===----------------------------------------------------------------------===//

bool hasNhwcGlobalPoolVectorKernel(const NhwcGlobalPoolGeometry &geometry) {
  return geometry.channels % getNhwcPoolVectorWidth(geometry.dtype) == 0;
}

int64_t getNhwcGlobalPoolBlocks(const NhwcGlobalPoolGeometry &geometry, bool vector) {
  int64_t groups = vector ? geometry.channels / getNhwcPoolVectorWidth(geometry.dtype)
                          : geometry.channels;
  return geometry.batch * ((groups + 31) / 32);
}

/// Writes the global kernel `name` with `vector` channels per thread (1:
/// single elements).
static void writeGlobalPoolKernel(const NhwcGlobalPoolGeometry &g, llvm::raw_ostream &os,
                                  const char *name, int64_t vector) {
  std::string storage = getStorageType(g.dtype);
  PoolAccumulator accumulator(g.dtype, g.isMax);
  std::string divisor = std::to_string(g.pixels) + ".0";
  auto index = [](int64_t value) { return "((cgc_index)" + std::to_string(value) + "LL)"; };
  int64_t groups = vector > 1 ? g.channels / vector : g.channels;
  int64_t chunks = (groups + 31) / 32;
  os << "extern \"C\" __global__ void __launch_bounds__(256) " << name << "(const " << storage
     << " *__restrict__ in, " << storage << " *__restrict__ out) {\n"
     << "  __shared__ " << accumulator.getType() << " partial[8][32][" << vector << "];\n"
     << "  const int lane = threadIdx.x % 32, slice = threadIdx.x / 32;\n"
     << "  for (cgc_index item = blockIdx.x; item < " << index(g.batch * chunks)
     << "; item += gridDim.x) {\n"
     << "    const cgc_index batch = item / " << index(chunks) << ";\n"
     << "    const cgc_index group = (item % " << index(chunks) << ") * 32 + lane;\n"
     << "    " << accumulator.getType() << " acc[" << vector << "];\n"
     << "#pragma unroll\n"
     << "    for (int j = 0; j < " << vector << "; ++j)\n"
     << "      acc[j] = " << accumulator.getIdentity() << ";\n"
     << "    if (group < " << index(groups) << ") {\n"
     << "      const " << storage << " *source = in + batch * "
     << index(g.pixels * g.channels) << " + group * " << index(vector) << ";\n"
     << "#pragma unroll 4\n"
     << "      for (int pixel = slice; pixel < " << g.pixels << "; pixel += 8) {\n";
  if (vector > 1) {
    os << "        const uint4 bits = *reinterpret_cast<const uint4 *>(source + (cgc_index)pixel * "
       << index(g.channels) << ");\n"
       << "        const unsigned int words[4] = {bits.x, bits.y, bits.z, bits.w};\n"
       << "#pragma unroll\n"
       << "        for (int j = 0; j < " << vector << "; ++j)\n"
       << "          " << accumulator.combine("acc[j]", getVectorElement(g.dtype)) << "\n";
  } else {
    os << "        "
       << accumulator.combine("acc[0]", loadValue(g.dtype, "source[(cgc_index)pixel * " +
                                                   index(g.channels) + "]"))
       << "\n";
  }
  os << "      }\n    }\n"
     << "#pragma unroll\n"
     << "    for (int j = 0; j < " << vector << "; ++j)\n"
     << "      partial[slice][lane][j] = acc[j];\n"
     << "    __syncthreads();\n"
     << "    if (slice == 0 && group < " << index(groups) << ") {\n"
     << "      for (int s = 1; s < 8; ++s)\n"
     << "#pragma unroll\n"
     << "        for (int j = 0; j < " << vector << "; ++j)\n"
     << "          " << accumulator.combine("acc[j]", "partial[s][lane][j]") << "\n";
  std::string at = "batch * " + index(g.channels) + " + group * " + index(vector);
  if (vector == 1)
    os << "      out[" << at << "] = " << accumulator.finish("acc[0]", divisor) << ";\n";
  else
    writeVectorStore(os, accumulator, divisor, "out + " + at, "      ");
  // The next item reuses the partials.
  os << "    }\n    __syncthreads();\n  }\n}\n";
}

std::string generateNhwcGlobalPoolSource(const NhwcGlobalPoolGeometry &geometry) {
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  constexpr int64_t kNarrowLimit = int64_t(1) << 30;
  os << getIndexTypedef(geometry.batch * geometry.pixels * geometry.channels < kNarrowLimit);
  writeGlobalPoolKernel(geometry, os, kNhwcGlobalPoolKernel, 1);
  if (hasNhwcGlobalPoolVectorKernel(geometry))
    writeGlobalPoolKernel(geometry, os, kNhwcGlobalPoolVectorKernel,
                          getNhwcPoolVectorWidth(geometry.dtype));
  return source;
}

} // namespace cgc::cuda
