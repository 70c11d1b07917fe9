//===- StridedCopy.cpp - strided copies near memory bandwidth -------------===//
//
// The runs kernel is the per-element copy over "elements" as wide as a
// vector: dividing the innermost size, the start and every other stride
// by the elements per vector gives the same loop nest in vector units, its
// innermost stride still 1. One module holds that kernel for every vector
// width and for single elements, so a launch whose buffers turn out less
// aligned than the widest vector needs no other module.
//
// The tiled kernel copies a TILE x TILE block of (row, column): rows are
// the output dimension the input reads contiguously, columns the innermost
// output dimension. A warp reads 32 consecutive rows of one column from the
// input and writes 32 consecutive columns of one row to the output; the
// shared tile's rows are padded by one 4-byte word (8 bytes for 8-byte
// elements) so that reading it by column hits 32 distinct banks. Tiles are
// 64 wide for 1- and 2-byte elements (16 loads per thread rather than 4:
// narrow elements need more loads in flight for as many bytes) and 32 wide
// otherwise.
// The remaining dimensions are batches: grid z, looping past 65535 (and
// grid y likewise for the rows).
//
// The interleave kernel is the transpose whose columns are too few for a
// tile (NCHW -> NHWC of 3 channels): each thread reads its row's columns,
// each read coalesced across the warp, and writes them side by side; their
// count is a constant of the source, so the reads are all in flight at
// once. It may also convert between float32, float16 and bfloat16 (a
// float32 model input cast to float16 and transposed to NHWC, one pass).
//
// Indices are 32-bit when every offset fits (cheaper divisions), as in
// ElementwiseCodegen.cpp.
//
//===----------------------------------------------------------------------===//

#include "StridedCopy.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace cgc::cuda {

namespace {

/// One compiled kernel with its parameter block (`long long` fields) and
/// grid.
struct CopyLaunch {
  DeviceFunction function;
  std::vector<int64_t> params;
  dim3 grid, block;
  /// Input and output must be aligned to this many bytes.
  unsigned alignment = 1;
};

} // namespace

static constexpr unsigned kThreads = 256;
/// The tiled kernel only pays off when both tile sides are mostly used:
/// fewer rows than this stay per element (its reads stay within cached
/// lines), fewer columns interleave.
static constexpr int64_t kMinimumTileSide = 16;
/// Largest grid y and z, and the most blocks the interleave kernel puts
/// along x (its threads loop past them).
static constexpr int64_t kGridLimitYZ = 65535, kGridLimitX = int64_t(1) << 20;

/// Whether every index and offset of `plan`'s loops fits in 31 bits (with
/// room for the grid stride added past the end).
static bool fitsInt32(const StridedCopyPlan &plan, const StridedCopySpec &spec, int64_t count) {
  constexpr int64_t kLimit = int64_t(1) << 30;
  if (count >= kLimit)
    return false;
  int64_t reach = std::abs(spec.start);
  if (spec.index)
    reach += std::max<int64_t>(spec.index->axisSize - 1, 0) * std::abs(spec.index->stride);
  for (size_t dim = 0; dim < plan.sizes.size(); ++dim)
    reach += (plan.sizes[dim] - 1) * std::abs(plan.strides[dim]);
  return reach < kLimit;
}

/// The C++ type that moves `bytes` bytes in one access.
static const char *getMoveType(unsigned bytes) {
  switch (bytes) {
  case 16:
    return "uint4";
  case 8:
    return "unsigned long long";
  case 4:
    return "unsigned int";
  case 2:
    return "unsigned short";
  default:
    return "unsigned char";
  }
}

//===----------------------------------------------------------------------===//
// Contiguous runs
//===----------------------------------------------------------------------===//

/// The access widths of the runs kernels for `width`-byte elements, widest
/// first; the last moves single elements.
static llvm::SmallVector<unsigned, 4> getMoveWidths(unsigned width) {
  llvm::SmallVector<unsigned, 4> widths;
  for (unsigned bytes : {16u, 8u, 4u})
    if (bytes > width)
      widths.push_back(bytes);
  widths.push_back(width);
  return widths;
}

static std::string getRunsKernelName(unsigned bytes) {
  return "cgc_copy_runs" + std::to_string(bytes);
}

/// Whether vectors of `perVector` elements tile every run: every row (and
/// so every vector) starts at a multiple of `perVector` elements.
static bool dividesRuns(const StridedCopyPlan &plan, const StridedCopySpec &spec,
                        int64_t perVector) {
  if (plan.sizes.back() % perVector != 0 || spec.start % perVector != 0)
    return false;
  if (spec.index && spec.index->stride % perVector != 0)
    return false;
  for (size_t dim = 0; dim + 1 < plan.sizes.size(); ++dim)
    if (plan.strides[dim] % perVector != 0)
      return false;
  return true;
}

/// The source of the runs kernels `cgc_copy_runs<bytes>` (see the file
/// comment); with `indexType`, each kernel takes the index tensor after the
/// input.
static std::string generateRunsSource(unsigned width, size_t rank, bool narrow,
                                      std::optional<DType> indexType) {
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(narrow);
  os << "struct cgc_runs_params {\n  long long count, start, axisSize, indexStride;\n"
     << "  long long sizes[" << rank << "], strides[" << rank << "];\n};\n";
  os << "template <typename V>\n"
     << "CGC_DEVICE void cgc_copy_runs(const V *in, V *out, const cgc_runs_params &p,"
     << " cgc_index start) {\n"
     << "  cgc_index count = (cgc_index)p.count;\n"
     << "  cgc_index step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;\n"
     << "  for (cgc_index i = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + threadIdx.x;"
     << " i < count; i += step) {\n";
  if (rank == 1) {
    os << "    cgc_index o = start + i;\n";
  } else {
    // The innermost dimension adds its coordinate (stride 1).
    std::string innermost = "(cgc_index)p.sizes[" + std::to_string(rank - 1) + "]";
    os << "    cgc_index rest = i / " << innermost << ";\n"
       << "    cgc_index o = start + (i - rest * " << innermost << ");\n";
    for (size_t dim = rank - 1; dim-- > 1;)
      os << "    {\n      cgc_index next = rest / (cgc_index)p.sizes[" << dim << "];\n"
         << "      o += (rest - next * (cgc_index)p.sizes[" << dim << "]) * (cgc_index)p.strides["
         << dim << "];\n      rest = next;\n    }\n";
    os << "    o += rest * (cgc_index)p.strides[0];\n";
  }
  os << "    out[i] = in[o];\n  }\n}\n";
  // An out-of-range index writes zeros (the CPU kernel's gather).
  os << "template <typename V> CGC_DEVICE void cgc_fill_runs(V *out, const cgc_runs_params &p) {\n"
     << "  V zero = V();\n"
     << "  cgc_index count = (cgc_index)p.count;\n"
     << "  cgc_index step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;\n"
     << "  for (cgc_index i = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + threadIdx.x;"
     << " i < count; i += step)\n    out[i] = zero;\n}\n";
  for (unsigned bytes : getMoveWidths(width)) {
    std::string type = getMoveType(bytes);
    os << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ") "
       << getRunsKernelName(bytes) << "(const " << type << " *in, ";
    if (indexType)
      os << "const " << getStorageType(*indexType) << " *indices, ";
    os << type << " *out, cgc_runs_params p) {\n";
    if (indexType)
      os << "  long long index = (long long)indices[0];\n"
         << "  if (index < 0)\n    index += p.axisSize;\n"
         << "  if (index < 0 || index >= p.axisSize) {\n    cgc_fill_runs(out, p);\n"
         << "    return;\n  }\n"
         << "  cgc_copy_runs(in, out, p, (cgc_index)(p.start + index * p.indexStride));\n}\n";
    else
      os << "  cgc_copy_runs(in, out, p, (cgc_index)p.start);\n}\n";
  }
  return source;
}

/// The runs launches of `plan`, widest access first, the last moving single
/// elements.
static llvm::Expected<llvm::SmallVector<CopyLaunch, 4>>
buildRuns(mlir::Operation *op, KernelContext::Impl &context, const StridedCopySpec &spec,
          const StridedCopyPlan &plan, int64_t count) {
  unsigned width = static_cast<unsigned>(getByteWidth(spec.dtype));
  size_t rank = plan.sizes.size();
  std::optional<DType> indexType;
  if (spec.index)
    indexType = spec.index->indexType;
  std::string source = generateRunsSource(width, rank, plan.narrow, indexType);
  llvm::SmallVector<CopyLaunch, 4> launches;
  for (unsigned bytes : getMoveWidths(width)) {
    int64_t perVector = bytes / width;
    if (bytes > plan.vectorBytes)
      continue;
    auto function = context.getFunction(op, source, getRunsKernelName(bytes));
    if (!function)
      return function.takeError();
    int64_t vectors = count / perVector;
    CopyLaunch launch;
    launch.function = *function;
    // Laid out as cgc_runs_params.
    launch.params = {vectors, spec.start / perVector, spec.index ? spec.index->axisSize : 0,
                     spec.index ? spec.index->stride / perVector : 0};
    for (size_t dim = 0; dim < rank; ++dim)
      launch.params.push_back(dim + 1 == rank ? plan.sizes[dim] / perVector : plan.sizes[dim]);
    for (size_t dim = 0; dim < rank; ++dim)
      launch.params.push_back(dim + 1 == rank ? 1 : plan.strides[dim] / perVector);
    launch.grid = dim3(context.getGridSize(vectors, kThreads));
    launch.block = dim3(kThreads);
    launch.alignment = bytes;
    launches.push_back(std::move(launch));
  }
  return launches;
}

//===----------------------------------------------------------------------===//
// Tiled transpose
//===----------------------------------------------------------------------===//

/// The dimensions of a tiled or interleaved `plan` other than its rows and
/// columns: sizes, input and output strides; and the output stride of its
/// rows.
struct CopyBatches {
  Shape sizes, strides, outputStrides;
  int64_t rowOutputStride = 0;

  explicit CopyBatches(const StridedCopyPlan &plan) {
    Shape planOutputStrides = getStrides(plan.sizes);
    rowOutputStride = planOutputStrides[plan.rowDim];
    for (size_t dim = 0; dim + 1 < plan.sizes.size(); ++dim) {
      if (dim == plan.rowDim)
        continue;
      sizes.push_back(plan.sizes[dim]);
      strides.push_back(plan.strides[dim]);
      outputStrides.push_back(planOutputStrides[dim]);
    }
  }

  /// Appends the three arrays (of at least one element) to `params`.
  void append(std::vector<int64_t> &params) const {
    for (const Shape *array : {&sizes, &strides, &outputStrides}) {
      if (array->empty())
        params.push_back(array == &sizes ? 1 : 0);
      params.insert(params.end(), array->begin(), array->end());
    }
  }
};

/// The params struct's batch arrays (of at least one element), for
/// writeBatchBases.
static void writeBatchArrays(llvm::raw_ostream &os, size_t batchRank) {
  size_t arrayRank = std::max<size_t>(batchRank, 1);
  os << "  long long batchSizes[" << arrayRank << "], batchStrides[" << arrayRank
     << "], batchOutputStrides[" << arrayRank << "];\n";
}

/// The statements of a batch loop's body start: `inputBase` and
/// `outputBase` of batch `b` from the params' arrays.
static void writeBatchBases(llvm::raw_ostream &os, size_t batchRank) {
  os << "    cgc_index inputBase = (cgc_index)p.start, outputBase = 0, rest = b;\n";
  for (size_t dim = batchRank; dim-- > 0;)
    os << "    {\n      cgc_index next = rest / (cgc_index)p.batchSizes[" << dim << "];\n"
       << "      cgc_index c = rest - next * (cgc_index)p.batchSizes[" << dim << "];\n"
       << "      inputBase += c * (cgc_index)p.batchStrides[" << dim << "];\n"
       << "      outputBase += c * (cgc_index)p.batchOutputStrides[" << dim << "];\n"
       << "      rest = next;\n    }\n";
}

/// Tile side for `width`-byte elements (see the file comment).
static int64_t getTileSide(unsigned width) { return width <= 2 ? 64 : 32; }

/// The source of `cgc_copy_tiles` over `batchRank` batch dimensions.
static std::string generateTilesSource(unsigned width, size_t batchRank, bool narrow) {
  // One 4-byte word of padding per tile row (one element of 8 bytes).
  unsigned padding = width >= 4 ? 1 : 4 / width;
  std::string bits = getMoveType(width);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(narrow);
  os << "#define CGC_TILE " << getTileSide(width) << "\n";
  os << "struct cgc_tiles_params {\n"
     << "  long long rows, columns, columnStride, rowStride, start, batch;\n";
  writeBatchArrays(os, batchRank);
  os << "};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ") cgc_copy_tiles(const "
     << bits << " *in, " << bits << " *out, cgc_tiles_params p) {\n"
     << "  __shared__ " << bits << " tile[CGC_TILE][CGC_TILE + " << padding << "];\n";
  os << R"cuda(  cgc_index rows = (cgc_index)p.rows, columns = (cgc_index)p.columns;
  cgc_index columnStride = (cgc_index)p.columnStride, rowStride = (cgc_index)p.rowStride;
  cgc_index batch = (cgc_index)p.batch;
  int x = (int)threadIdx.x, y = (int)threadIdx.y;
  cgc_index j0 = (cgc_index)blockIdx.x * CGC_TILE;
  for (cgc_index b = (cgc_index)blockIdx.z; b < batch; b += (cgc_index)gridDim.z) {
)cuda";
  writeBatchBases(os, batchRank);
  // tile[column - j0][row - i0]: filled along rows (input-contiguous), read
  // back along columns (output-contiguous).
  os << R"cuda(    for (cgc_index i0 = (cgc_index)blockIdx.y * CGC_TILE; i0 < rows;
         i0 += (cgc_index)gridDim.y * CGC_TILE) {
#pragma unroll
      for (int a = 0; a < CGC_TILE / 8; ++a) {
        cgc_index j = j0 + y + 8 * a;
#pragma unroll
        for (int c = 0; c < CGC_TILE / 32; ++c) {
          cgc_index i = i0 + x + 32 * c;
          if (i < rows && j < columns)
            tile[y + 8 * a][x + 32 * c] = in[inputBase + i + j * columnStride];
        }
      }
      __syncthreads();
#pragma unroll
      for (int a = 0; a < CGC_TILE / 8; ++a) {
        cgc_index i = i0 + y + 8 * a;
#pragma unroll
        for (int c = 0; c < CGC_TILE / 32; ++c) {
          cgc_index j = j0 + x + 32 * c;
          if (i < rows && j < columns)
            out[outputBase + i * rowStride + j] = tile[x + 32 * c][y + 8 * a];
        }
      }
      __syncthreads();
    }
  }
}
)cuda";
  return source;
}

/// The tiled launch of `plan`.
static llvm::Expected<CopyLaunch> buildTiles(mlir::Operation *op, KernelContext::Impl &context,
                                             const StridedCopySpec &spec,
                                             const StridedCopyPlan &plan) {
  unsigned width = static_cast<unsigned>(getByteWidth(spec.dtype));
  CopyBatches batches(plan);
  const Shape &batchSizes = batches.sizes;
  std::string source = generateTilesSource(width, batchSizes.size(), plan.narrow);
  auto function = context.getFunction(op, source, "cgc_copy_tiles");
  if (!function)
    return function.takeError();
  int64_t rows = plan.sizes[plan.rowDim], columns = plan.sizes.back();
  int64_t batch = getNumElements(batchSizes);
  CopyLaunch launch;
  launch.function = *function;
  // Laid out as cgc_tiles_params (arrays of at least one element).
  launch.params = {rows, columns, plan.strides.back(), batches.rowOutputStride, spec.start,
                   batch};
  batches.append(launch.params);
  int64_t tile = getTileSide(width);
  launch.grid = dim3(static_cast<unsigned>((columns + tile - 1) / tile),
                     static_cast<unsigned>(std::min((rows + tile - 1) / tile, kGridLimitYZ)),
                     static_cast<unsigned>(std::min(batch, kGridLimitYZ)));
  launch.block = dim3(32, kThreads / 32);
  launch.alignment = width;
  return launch;
}

//===----------------------------------------------------------------------===//
// Interleave
//===----------------------------------------------------------------------===//

/// The source of `cgc_copy_interleave` for rows of `columns` elements over
/// `batchRank` batch dimensions.
static std::string generateInterleaveSource(const StridedCopySpec &spec, int64_t columns,
                                            size_t batchRank, bool narrow) {
  // Bits, or with a conversion the storage types and float between them.
  bool converts = spec.converts();
  std::string bits = getMoveType(static_cast<unsigned>(getByteWidth(spec.dtype)));
  std::string inType = converts ? getStorageType(spec.dtype) : bits;
  std::string outType = converts ? getStorageType(*spec.outputDType) : bits;
  std::string value = converts ? std::string("float") : bits;
  std::string load = "in[inputBase + i + c * columnStride]";
  std::string store = "row[c]";
  if (converts) {
    load = loadValue(spec.dtype, load);
    store = storeValue(*spec.outputDType, store);
  }
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(narrow);
  os << "#define CGC_COLUMNS " << columns << "\n";
  os << "struct cgc_interleave_params {\n"
     << "  long long rows, columnStride, rowStride, start, batch;\n";
  writeBatchArrays(os, batchRank);
  os << "};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(" << kThreads
     << ") cgc_copy_interleave(const " << inType << " *__restrict__ in, " << outType
     << " *__restrict__ out, cgc_interleave_params p) {\n"
     << R"cuda(  cgc_index rows = (cgc_index)p.rows, columnStride = (cgc_index)p.columnStride;
  cgc_index rowStride = (cgc_index)p.rowStride, batch = (cgc_index)p.batch;
  cgc_index step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;
  for (cgc_index b = (cgc_index)blockIdx.z; b < batch; b += (cgc_index)gridDim.z) {
)cuda";
  writeBatchBases(os, batchRank);
  os << "    for (cgc_index i = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + threadIdx.x; "
        "i < rows; i += step) {\n"
     << "      " << value << " row[CGC_COLUMNS];\n"
     << "#pragma unroll\n"
     << "      for (int c = 0; c < CGC_COLUMNS; ++c)\n"
     << "        row[c] = " << load << ";\n"
     << "#pragma unroll\n"
     << "      for (int c = 0; c < CGC_COLUMNS; ++c)\n"
     << "        out[outputBase + i * rowStride + c] = " << store << ";\n"
     << "    }\n  }\n}\n";
  return source;
}

/// The interleave launch of `plan`.
static llvm::Expected<CopyLaunch> buildInterleave(mlir::Operation *op,
                                                  KernelContext::Impl &context,
                                                  const StridedCopySpec &spec,
                                                  const StridedCopyPlan &plan) {
  unsigned width = static_cast<unsigned>(getByteWidth(spec.dtype));
  CopyBatches batches(plan);
  int64_t rows = plan.sizes[plan.rowDim], columns = plan.sizes.back();
  std::string source = generateInterleaveSource(spec, columns, batches.sizes.size(), plan.narrow);
  auto function = context.getFunction(op, source, "cgc_copy_interleave");
  if (!function)
    return function.takeError();
  int64_t batch = getNumElements(batches.sizes);
  CopyLaunch launch;
  launch.function = *function;
  // Laid out as cgc_interleave_params.
  launch.params = {rows, plan.strides.back(), batches.rowOutputStride, spec.start, batch};
  batches.append(launch.params);
  // Enough blocks along the rows to fill the device with the batches.
  int64_t rowBlocks = (rows + kThreads - 1) / kThreads;
  launch.grid = dim3(static_cast<unsigned>(std::min<int64_t>(rowBlocks, kGridLimitX)), 1,
                     static_cast<unsigned>(std::min(batch, kGridLimitYZ)));
  launch.block = dim3(kThreads);
  launch.alignment = width;
  return launch;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// A kernel enqueueing the first of `launches` whose alignment the buffers
/// meet (the last must accept any element-aligned buffers).
static Kernel makeCopyKernel(mlir::Operation *op, llvm::SmallVector<CopyLaunch, 4> launches,
                             bool indexed) {
  std::string opName = op->getName().getStringRef().str();
  return Kernel{[launches = std::move(launches), indexed,
                 opName](const LaunchArgs &args) -> std::string {
                  const void *in = args.inputs[0];
                  const void *indices = indexed ? args.inputs[1] : nullptr;
                  void *out = args.outputs[0];
                  uintptr_t addresses =
                      reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out);
                  const CopyLaunch *chosen = &launches.back();
                  for (const CopyLaunch &launch : launches)
                    if (addresses % launch.alignment == 0) {
                      chosen = &launch;
                      break;
                    }
                  void *arguments[4];
                  unsigned count = 0;
                  arguments[count++] = &in;
                  if (indexed)
                    arguments[count++] = &indices;
                  arguments[count++] = &out;
                  arguments[count++] = const_cast<int64_t *>(chosen->params.data());
                  cudaError_t error = chosen->function.launch(chosen->grid, chosen->block,
                                                              arguments, 0, args.stream);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaLaunchKernel", error);
                },
                0};
}

StridedCopyPlan planStridedCopy(const StridedCopySpec &spec) {
  StridedCopyPlan plan;
  int64_t count = getNumElements(spec.outputShape);
  if (count == 0)
    return plan;
  StridedOperand operand;
  operand.dtype = spec.dtype;
  operand.strides = spec.strides;
  operand.start = spec.start;
  operand.raw = true;
  MergedLoops merged = mergeStridedLoops(spec.outputShape, operand);
  plan.sizes = std::move(merged.sizes);
  plan.strides = std::move(merged.strides[0]);
  plan.narrow = fitsInt32(plan, spec, count);
  size_t rank = plan.sizes.size();
  if (rank == 0)
    return plan; // one element
  unsigned width = static_cast<unsigned>(getByteWidth(spec.dtype));

  if (plan.strides.back() == 1) {
    if (spec.converts())
      return plan;
    // Single elements are no better than the per-element kernel: runs
    // need a vector wider than an element.
    for (unsigned bytes : getMoveWidths(width))
      if (bytes > width && dividesRuns(plan, spec, bytes / width)) {
        plan.kind = StridedCopyKind::Runs;
        plan.vectorBytes = bytes;
        break;
      }
    return plan;
  }

  // A transpose of the fastest dimension: the innermost output loop reads
  // a non-unit stride (a zero one is a broadcast, whose reads already hit
  // one line) and an outer loop reads the input contiguously.
  if (spec.index || plan.strides.back() == 0)
    return plan;
  std::optional<size_t> rowDim;
  for (size_t dim = 0; dim + 1 < rank; ++dim)
    if (plan.strides[dim] == 1)
      rowDim = dim;
  if (!rowDim || plan.sizes[*rowDim] < kMinimumTileSide)
    return plan;
  plan.rowDim = *rowDim;
  plan.kind = plan.sizes.back() < kMinimumTileSide ? StridedCopyKind::Interleave
                                                   : StridedCopyKind::Tiles;
  if (plan.kind != StridedCopyKind::Interleave && spec.converts())
    plan.kind = StridedCopyKind::General;
  return plan;
}

std::optional<llvm::Expected<Kernel>>
buildSpecializedStridedCopy(mlir::Operation *op, KernelContext::Impl &context,
                            const StridedCopySpec &spec) {
  StridedCopyPlan plan = planStridedCopy(spec);
  int64_t count = getNumElements(spec.outputShape);
  bool indexed = spec.index.has_value();
  switch (plan.kind) {
  case StridedCopyKind::General:
    return std::nullopt;
  case StridedCopyKind::Runs: {
    auto launches = buildRuns(op, context, spec, plan, count);
    if (!launches)
      return llvm::Expected<Kernel>(launches.takeError());
    return llvm::Expected<Kernel>(makeCopyKernel(op, std::move(*launches), indexed));
  }
  case StridedCopyKind::Tiles:
  case StridedCopyKind::Interleave: {
    auto launch = plan.kind == StridedCopyKind::Tiles ? buildTiles(op, context, spec, plan)
                                                      : buildInterleave(op, context, spec, plan);
    if (!launch)
      return llvm::Expected<Kernel>(launch.takeError());
    llvm::SmallVector<CopyLaunch, 4> launches;
    launches.push_back(std::move(*launch));
    return llvm::Expected<Kernel>(makeCopyKernel(op, std::move(launches), indexed));
  }
  }
  return std::nullopt;
}

} // namespace cgc::cuda
