//===- RowKernelCodegen.cpp - layer_norm and softmax rows in registers ----===//
//
// A row of up to 1024 elements takes one warp (four rows to a block of 128
// threads), at most 32 elements a thread; a longer one takes a block of 64
// to 512 threads, at most 16 elements a thread. Thread t of a row holds the
// chunks t, t + threads, ... of it, so neighbouring threads access
// neighbouring chunks. Every read of a row precedes its reductions and
// every write follows them, so a result written over its input (in place)
// is still correct.
//
// Statistics come from the registers, layer_norm's in two passes over them
// (the mean, then the centered sum of squares, which does not cancel as
// E[x^2] - E[x]^2 would), in the compute type (float for the 16-bit floats
// and float32, double for float64), except float32's sum for the mean
// (getMeanSumType). That keeps float32 within the layer tests' 1e-6 of the
// CPU's double statistics, also on rows far from zero.
// The row size is a constant of the source, so the register array and its
// loops unroll; the number of rows and the row offsets of broadcast reads
// are parameters, so sequence lengths share one module.
//
//===----------------------------------------------------------------------===//

#include "RowKernelCodegen.h"

#include "DeviceCode.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace cgc::cuda {

std::optional<RowRead> getRowRead(unsigned argument, DType dtype,
                                  llvm::ArrayRef<int64_t> operandShape,
                                  llvm::ArrayRef<int64_t> shape, int64_t axis) {
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t leading = rank - static_cast<int64_t>(operandShape.size());
  if (leading < 0 || axis < 0 || axis > rank)
    return std::nullopt;
  auto operandSize = [&](int64_t dim) { return dim < leading ? 1 : operandShape[dim - leading]; };
  bool along = true, constant = true;
  for (int64_t dim = axis; dim < rank; ++dim) {
    if (shape[dim] == 1)
      continue;
    if (operandSize(dim) == 1)
      along = false;
    else if (operandSize(dim) == shape[dim])
      constant = false;
    else
      return std::nullopt;
  }
  if (!along && !constant)
    return std::nullopt;
  RowRead read;
  read.argument = argument;
  read.dtype = dtype;
  read.alongRow = along;
  // Outer dimensions merged as a row-major walk over the rows: dimensions
  // of size 1 drop out, neighbours whose strides continue each other merge.
  Shape strides = getBroadcastStrides(operandShape, shape);
  for (int64_t dim = 0; dim < axis; ++dim) {
    if (shape[dim] == 1)
      continue;
    if (!read.rowSizes.empty() && read.rowStrides.back() == strides[dim] * shape[dim]) {
      read.rowSizes.back() *= shape[dim];
      read.rowStrides.back() = strides[dim];
      continue;
    }
    read.rowSizes.push_back(shape[dim]);
    read.rowStrides.push_back(strides[dim]);
  }
  if (llvm::all_of(read.rowStrides, [](int64_t stride) { return stride == 0; })) {
    read.rowSizes.clear();
    read.rowStrides.clear();
  }
  return read;
}

namespace {

/// Chunks of N elements of T, read as one access of their size (up to 16
/// bytes) through their alignment. Stores go through PTX's vector stores on
/// words: NVVM splits a store of the struct (or of a uint4 assembled from
/// 16-bit halves) into one store per element or word.
const char kChunkCode[] = R"cuda(
template <typename T, int N> struct alignas(sizeof(T) * N) cgc_chunk {
  T e[N];
};
template <int Bytes> struct cgc_uint;
template <> struct cgc_uint<1> { typedef unsigned char type; };
template <> struct cgc_uint<2> { typedef unsigned short type; };
template <> struct cgc_uint<4> { typedef unsigned int type; };
template <> struct cgc_uint<8> { typedef unsigned long long type; };
template <typename T> CGC_DEVICE typename cgc_uint<sizeof(T)>::type cgc_as_uint(T value) {
  union {
    T value;
    typename cgc_uint<sizeof(T)>::type bits;
  } both;
  both.value = value;
  return both.bits;
}
// The 32-bit word `i` of a chunk (little-endian, as memory holds it).
template <typename T, int N> CGC_DEVICE unsigned int cgc_word(const cgc_chunk<T, N> &chunk, int i) {
  if constexpr (sizeof(T) == 8) {
    const unsigned long long bits = cgc_as_uint(chunk.e[i / 2]);
    return (unsigned int)(i % 2 ? bits >> 32 : bits);
  } else {
    constexpr int kPerWord = 4 / (int)sizeof(T);
    unsigned int word = 0;
#pragma unroll
    for (int j = 0; j < kPerWord; ++j)
      word |= (unsigned int)cgc_as_uint(chunk.e[i * kPerWord + j]) << (8 * (int)sizeof(T) * j);
    return word;
  }
}
template <typename T, int N> CGC_DEVICE void cgc_store(T *at, const cgc_chunk<T, N> &chunk) {
  constexpr int kBytes = (int)sizeof(T) * N;
  if constexpr (kBytes == 16)
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(at), "r"(cgc_word(chunk, 0)),
                 "r"(cgc_word(chunk, 1)), "r"(cgc_word(chunk, 2)), "r"(cgc_word(chunk, 3)));
  else if constexpr (kBytes == 8)
    asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(at), "r"(cgc_word(chunk, 0)),
                 "r"(cgc_word(chunk, 1)));
  else if constexpr (kBytes == 4)
    *reinterpret_cast<unsigned int *>(at) = cgc_word(chunk, 0);
  else
    *reinterpret_cast<cgc_chunk<T, N> *>(at) = chunk;
}
)cuda";

/// How rows map to threads.
struct RowLayout {
  /// Threads per row: 32 (a warp) or a whole block of 64 to 512.
  unsigned threadsPerRow = 32;
  unsigned rowsPerBlock = 4;
  /// Elements per chunk of the chunked instantiation; 1: there is none.
  unsigned vector = 1;
};

/// Every read, each argument once (the passes classify an argument alike).
llvm::SmallVector<RowRead, 8> getDistinctReads(const RowKernelSpec &spec) {
  llvm::SmallVector<RowRead, 8> reads;
  for (const RowRead &read : llvm::concat<const RowRead>(spec.inputReads, spec.outputReads))
    if (llvm::none_of(reads, [&](const RowRead &seen) { return seen.argument == read.argument; }))
      reads.push_back(read);
  return reads;
}

RowLayout getRowLayout(const RowKernelSpec &spec) {
  RowLayout layout;
  if (spec.size > 1024) {
    int64_t threads = 64;
    while (threads < 1024 && (spec.size + threads - 1) / threads > 16)
      threads *= 2;
    layout.rowsPerBlock = 1;
    layout.threadsPerRow = static_cast<unsigned>(threads);
  }
  // Chunks of at most 16 bytes of the widest tensor accessed along rows, a
  // power of two that divides the row so that every row starts aligned.
  size_t widest = 1;
  for (const RowRead &read : getDistinctReads(spec))
    if (read.alongRow)
      widest = std::max<size_t>(widest, getByteWidth(read.dtype));
  for (DType dtype : spec.resultTypes)
    widest = std::max<size_t>(widest, getByteWidth(dtype));
  unsigned vector = static_cast<unsigned>(std::clamp<size_t>(16 / widest, 1, 8));
  while (vector > 1 && spec.size % vector != 0)
    vector /= 2;
  layout.vector = vector;
  return layout;
}

/// The type layer_norm sums its row in for the mean. float32 rows sum in
/// double: the CPU centers each element on its double mean rounded to
/// float, and on rows far from zero (a mean of 52 has an ulp of 4e-6) a
/// float sum's error rounds that mean an ulp away on some rows, moving the
/// whole row further from the CPU's results than float32's 1e-6 absolute
/// tolerance. 16-bit rows round their results far coarser than that and
/// sum in float.
std::string getMeanSumType(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 ? "float" : "double";
}

/// Whether `read` is the dense tensor of the rows: the row's offset is
/// row * size.
bool isDense(const RowRead &read, int64_t size) {
  return read.alongRow && read.rowSizes.size() == 1 && read.rowStrides[0] == size;
}

/// Whether `read`'s row offset needs parameters.
bool hasOffsetParams(const RowRead &read, int64_t size) {
  return !read.rowSizes.empty() && !isDense(read, size);
}

/// The names of the kernel's two instantiations.
std::string getKernelName(const RowKernelSpec &spec) {
  return spec.normalization == RowKernelSpec::Normalization::LayerNorm ? "cgc_layer_norm_rows"
                                                                       : "cgc_softmax_rows";
}
std::string getChunkedName(const RowKernelSpec &spec, const RowLayout &layout) {
  return getKernelName(spec) + "_x" + std::to_string(layout.vector);
}

/// The source: a device function template over the chunk size and two
/// kernels instantiating it.
std::string generateSource(const RowKernelSpec &spec, const RowLayout &layout) {
  bool layerNorm = spec.normalization == RowKernelSpec::Normalization::LayerNorm;
  std::string c = getComputeType(spec.dtype);
  std::string zero = "(" + c + ")0";
  llvm::SmallVector<RowRead, 8> reads = getDistinctReads(spec);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << kChunkCode;
  if (layout.threadsPerRow == 32)
    os << "template <typename T, typename Combine>\n"
       << "CGC_DEVICE T cgc_row_reduce(T value, Combine combine, T) {\n"
       << "  for (int offset = 16; offset > 0; offset >>= 1)\n"
       << "    value = combine(value, (T)__shfl_xor_sync(0xffffffffu, value, offset));\n"
       << "  return value;\n}\n";
  else
    os << "template <typename T, typename Combine>\n"
       << "CGC_DEVICE T cgc_row_reduce(T value, Combine combine, T identity) {\n"
       << "  return cgc_block_reduce(value, combine, identity);\n}\n";
  os << "struct cgc_row_params {\n  long long rows;\n  double epsilon;\n";
  for (const RowRead &read : reads)
    if (hasOffsetParams(read, spec.size)) {
      std::string name = "r" + std::to_string(read.argument);
      std::string rank = std::to_string(read.rowSizes.size());
      os << "  long long " << name << "Sizes[" << rank << "], " << name << "Strides[" << rank
         << "];\n";
    }
  os << "};\n";

  std::string pointers, names;
  for (auto [index, dtype] : llvm::enumerate(spec.argumentTypes)) {
    pointers += "const " + getStorageType(dtype) + " *in" + std::to_string(index) + ", ";
    names += "in" + std::to_string(index) + ", ";
  }
  for (auto [index, dtype] : llvm::enumerate(spec.resultTypes)) {
    pointers += getStorageType(dtype) + " *out" + std::to_string(index) + ", ";
    names += "out" + std::to_string(index) + ", ";
  }

  os << "template <int V>\nCGC_DEVICE void cgc_rows(" << pointers
     << "const cgc_row_params &p) {\n"
     << "  constexpr int kSize = " << spec.size << ", kThreads = " << layout.threadsPerRow
     << ", kRowsPerBlock = " << layout.rowsPerBlock << ";\n"
     << "  constexpr int kItems = (kSize + V * kThreads - 1) / (V * kThreads);\n"
     << "  const int lane = (int)threadIdx.x % kThreads;\n"
     << "  const long long rowStep = (long long)gridDim.x * kRowsPerBlock;\n"
     << "  for (long long row = (long long)blockIdx.x * kRowsPerBlock + threadIdx.x / kThreads;\n"
     << "       row < p.rows; row += rowStep) {\n";
  // Row offsets, and the reads holding one value per row.
  for (const RowRead &read : reads) {
    std::string k = std::to_string(read.argument), offset = "cgc_o" + k;
    std::string field = "p.r" + k;
    if (read.rowSizes.empty()) {
      os << "    const long long " << offset << " = 0;\n";
    } else if (isDense(read, spec.size)) {
      os << "    const long long " << offset << " = row * kSize;\n";
    } else {
      size_t rank = read.rowSizes.size();
      os << "    long long " << offset << " = 0;\n    {\n      long long rest = row;\n";
      for (size_t dim = rank; dim-- > 1;)
        os << "      " << offset << " += (rest % " << field << "Sizes[" << dim << "]) * " << field
           << "Strides[" << dim << "];\n      rest /= " << field << "Sizes[" << dim << "];\n";
      os << "      " << offset << " += rest * " << field << "Strides[0];\n    }\n";
    }
    if (!read.alongRow)
      os << "    const " << getComputeType(read.dtype) << " x" << k << " = "
         << loadValue(read.dtype, "in" + k + "[" + offset + "]") << ";\n";
  }

  // A loop over the thread's chunks of the row; `body` sees `item` and
  // `first` (the chunk's first element).
  auto forEachChunk = [&](const std::string &body) {
    os << "#pragma unroll\n"
       << "    for (int item = 0; item < kItems; ++item) {\n"
       << "      const int first = (item * kThreads + lane) * V;\n"
       << "      if (first < kSize) {\n"
       << body << "      }\n    }\n";
  };
  // Chunk loads of the reads along rows, and their locals at element `e`.
  auto chunkLoads = [&](llvm::ArrayRef<RowRead> phase) {
    std::string text;
    for (const RowRead &read : phase)
      if (read.alongRow) {
        std::string k = std::to_string(read.argument);
        std::string chunk = "cgc_chunk<" + getStorageType(read.dtype) + ", V>";
        text += "        const " + chunk + " cgc_a" + k + " = *reinterpret_cast<const " + chunk +
                " *>(in" + k + " + cgc_o" + k + " + first);\n";
      }
    return text;
  };
  auto elementLocals = [&](llvm::ArrayRef<RowRead> phase) {
    std::string text;
    for (const RowRead &read : phase)
      if (read.alongRow) {
        std::string k = std::to_string(read.argument);
        text += "          const " + getComputeType(read.dtype) + " x" + k + " = " +
                loadValue(read.dtype, "cgc_a" + k + ".e[e]") + ";\n";
      }
    return text;
  };
  std::string element = "cgc_v[item * V + e]";
  auto forEachElement = [&](const std::string &body) {
    return "#pragma unroll\n        for (int e = 0; e < V; ++e) {\n" + body + "        }\n";
  };

  // The first pass: the row into registers, its sum (layer_norm) or
  // maximum (softmax).
  std::string negativeInfinity = floatLiteral(-INFINITY, c);
  std::string sumType = getMeanSumType(spec.dtype);
  os << "    " << c << " cgc_v[kItems * V];\n";
  if (layerNorm)
    os << "    " << sumType << " cgc_first = (" << sumType << ")0;\n";
  else
    os << "    " << c << " cgc_first = " << negativeInfinity << ";\n";
  forEachChunk(chunkLoads(spec.inputReads) +
               forEachElement(elementLocals(spec.inputReads) + spec.inputStatements +
                              "          const " + c + " cgc_x = (" + c + ")(" + spec.input +
                              ");\n          " + element + " = cgc_x;\n" +
                              (layerNorm ? "          cgc_first += (" + sumType + ")cgc_x;\n"
                                         : "          cgc_first = cgc_std_max(cgc_first, "
                                           "cgc_x);\n")));
  std::string normalized;
  if (layerNorm) {
    os << "    cgc_first = cgc_row_reduce(cgc_first, cgc_sum_op(), (" << sumType << ")0);\n"
       << "    const " << c << " cgc_mean = (" << c << ")(cgc_first / (" << sumType
       << ")kSize);\n"
       << "    " << c << " cgc_squares = " << zero << ";\n";
    forEachChunk(forEachElement("          const " + c + " cgc_d = " + element +
                                " - cgc_mean;\n          cgc_squares += cgc_d * cgc_d;\n"));
    os << "    cgc_squares = cgc_row_reduce(cgc_squares, cgc_sum_op(), " << zero << ");\n"
       << "    const " << c << " cgc_factor = (" << c << ")1 / " << mathFunction("sqrt", spec.dtype)
       << "(cgc_squares / (" << c << ")kSize + (" << c << ")p.epsilon);\n";
    normalized = "(" + element + " - cgc_mean) * cgc_factor";
    if (!spec.scale.empty())
      normalized += " * " + spec.scale;
    if (!spec.bias.empty())
      normalized += " + " + spec.bias;
  } else {
    os << "    const " << c << " cgc_max = cgc_row_reduce(cgc_first, cgc_std_max_op(), "
       << negativeInfinity << ");\n"
       << "    " << c << " cgc_sum = " << zero << ";\n";
    forEachChunk(forEachElement("          " + element + " = " + mathFunction("exp", spec.dtype) +
                                "(" + element + " - cgc_max);\n          cgc_sum += " + element +
                                ";\n"));
    os << "    cgc_sum = cgc_row_reduce(cgc_sum, cgc_sum_op(), " << zero << ");\n";
    normalized = element + " / cgc_sum";
  }

  // The last pass: the results, chunk by chunk.
  std::string results, stores, body;
  for (auto [index, dtype] : llvm::enumerate(spec.resultTypes)) {
    std::string k = std::to_string(index);
    std::string chunk = "cgc_chunk<" + getStorageType(dtype) + ", V>";
    results += "        " + chunk + " cgc_r" + k + ";\n";
    body += "          cgc_r" + k + ".e[e] = " + storeValue(dtype, spec.results[index]) + ";\n";
    stores += "        cgc_store(out" + k + " + row * kSize + first, cgc_r" + k + ");\n";
  }
  forEachChunk(chunkLoads(spec.outputReads) + results +
               forEachElement(elementLocals(spec.outputReads) + "          const " + c +
                              " cgc_y = " + normalized + ";\n" + spec.outputStatements + body) +
               stores);
  os << "  }\n}\n";

  std::string parameters = pointers + "cgc_row_params p";
  unsigned threads = layout.threadsPerRow * layout.rowsPerBlock;
  auto instantiate = [&](const std::string &name, unsigned vector) {
    os << "extern \"C\" __global__ void __launch_bounds__(" << threads << ") " << name << "("
       << parameters << ") {\n  cgc_rows<" << vector << ">(" << names << "p);\n}\n";
  };
  instantiate(getKernelName(spec), 1);
  if (layout.vector > 1)
    instantiate(getChunkedName(spec, layout), layout.vector);
  return source;
}

} // namespace

llvm::Expected<Kernel> buildRowKernel(mlir::Operation *op, KernelContext::Impl &context,
                                      const RowKernelSpec &spec, std::string launchName) {
  RowLayout layout = getRowLayout(spec);
  std::string source = generateSource(spec, layout);
  llvm::Expected<DeviceFunction> elementwise =
      context.getFunction(op, source, getKernelName(spec));
  if (!elementwise)
    return elementwise.takeError();
  std::optional<DeviceFunction> chunked;
  if (layout.vector > 1) {
    llvm::Expected<DeviceFunction> function =
        context.getFunction(op, source, getChunkedName(spec, layout));
    if (!function)
      return function.takeError();
    chunked = std::move(*function);
  }

  std::vector<int64_t> params = {spec.rows, 0};
  std::memcpy(&params[1], &spec.epsilon, sizeof(double));
  for (const RowRead &read : getDistinctReads(spec))
    if (hasOffsetParams(read, spec.size)) {
      params.insert(params.end(), read.rowSizes.begin(), read.rowSizes.end());
      params.insert(params.end(), read.rowStrides.begin(), read.rowStrides.end());
    }
  // The chunked instantiation needs every pointer it accesses in chunks
  // aligned to its chunk's bytes (1: any address).
  std::vector<uintptr_t> inputAlignments(spec.argumentTypes.size(), 1), outputAlignments;
  for (const RowRead &read : getDistinctReads(spec))
    if (read.alongRow)
      inputAlignments[read.argument] = layout.vector * getByteWidth(read.dtype);
  for (DType dtype : spec.resultTypes)
    outputAlignments.push_back(layout.vector * getByteWidth(dtype));

  int64_t groups = (spec.rows + layout.rowsPerBlock - 1) / layout.rowsPerBlock;
  unsigned blocks = static_cast<unsigned>(std::clamp<int64_t>(groups, 1, int64_t(1) << 30));
  unsigned threads = layout.threadsPerRow * layout.rowsPerBlock;
  auto launch = [elementwise = std::move(*elementwise), chunked = std::move(chunked),
                 params = std::move(params), inputAlignments = std::move(inputAlignments),
                 outputAlignments = std::move(outputAlignments), blocks, threads,
                 launchName = std::move(launchName)](const LaunchArgs &args) -> std::string {
    size_t inputCount = inputAlignments.size(), outputCount = outputAlignments.size();
    bool aligned = true;
    for (size_t index = 0; index < inputCount; ++index)
      aligned &= reinterpret_cast<uintptr_t>(args.inputs[index]) % inputAlignments[index] == 0;
    for (size_t index = 0; index < outputCount; ++index)
      aligned &= reinterpret_cast<uintptr_t>(args.outputs[index]) % outputAlignments[index] == 0;
    const DeviceFunction &function = chunked && aligned ? *chunked : elementwise;
    llvm::SmallVector<const void *, 8> inputs(args.inputs.begin(),
                                              args.inputs.begin() + inputCount);
    llvm::SmallVector<void *, 4> outputs(args.outputs.begin(), args.outputs.begin() + outputCount);
    llvm::SmallVector<void *, 16> arguments;
    for (const void *&pointer : inputs)
      arguments.push_back(&pointer);
    for (void *&pointer : outputs)
      arguments.push_back(&pointer);
    arguments.push_back(const_cast<int64_t *>(params.data()));
    cudaError_t error =
        function.launch(dim3(blocks), dim3(threads), arguments.data(), 0, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(launchName, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

} // namespace cgc::cuda
