//===- Upsample.cpp - resizing by nearest, N-linear or N-cubic interpolation ===//
//
// ONNX Resize, computed as the CPU kernel computes it: each dimension gets
// a table, built here at build time and uploaded once (a device buffer the
// kernel owns) — for every output index the input elements it reads (1 tap
// for nearest, 2 for linear, 4 for cubic) and their weights, from the
// coordinate transformation in double. Dimensions whose every output index
// reads one element with weight 1 keep a single tap. The kernel expands the
// outer dimensions' taps into corners in the CPU kernel's order and sums
// corner × inner tap in float, so results round alike.
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"
#include "KernelContextImpl.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace cgc::cuda {

namespace {
/// One dimension's table: output index o reads, for t < taps, the input
/// element at offsets[o * taps + t] (already times the input stride) with
/// weight weights[o * taps + t]; `outside[o]` marks tf_crop_and_resize
/// indices that fall outside the input.
struct AxisTable {
  unsigned taps = 1;
  std::vector<int64_t> offsets;
  std::vector<float> weights;
  std::vector<uint8_t> outside;
};

struct Interpolation {
  llvm::StringRef mode, transformation, nearestMode;
  double cubicCoefficient = -0.75;
  bool excludeOutside = false;
};

/// The most corners (products of outer dimensions' taps) a kernel expands.
constexpr int64_t kMaxCorners = 64;
} // namespace

/// The input coordinate of output index `x` (ONNX Resize; the CPU kernel's
/// transformCoordinate).
static double transformCoordinate(llvm::StringRef mode, double x, double scale, int64_t inputLength,
                                  int64_t outputLength, double resizedLength, double roiStart,
                                  double roiEnd) {
  if (mode == "asymmetric")
    return x / scale;
  if (mode == "align_corners")
    return resizedLength == 1.0 ? 0.0
                                : x * static_cast<double>(inputLength - 1) / (resizedLength - 1.0);
  if (mode == "pytorch_half_pixel")
    return outputLength > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "half_pixel_symmetric") {
    double adjustment =
        static_cast<double>(outputLength) / (scale * static_cast<double>(inputLength));
    double center = static_cast<double>(inputLength) / 2.0;
    double offset = center * (1.0 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  if (mode == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  if (mode == "tf_crop_and_resize") {
    double span = static_cast<double>(inputLength - 1);
    return resizedLength > 1.0
               ? roiStart * span + x * (roiEnd - roiStart) * span / (resizedLength - 1.0)
               : 0.5 * (roiStart + roiEnd) * span;
  }
  return (x + 0.5) / scale - 0.5; // half_pixel
}

static std::array<double, 4> getCubicWeights(double ratio, double a) {
  auto far = [a](double t) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; };
  auto near = [a](double t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };
  return {far(ratio + 1), near(ratio), near(1 - ratio), far(2 - ratio)};
}

static int64_t roundNearest(llvm::StringRef nearestMode, double x) {
  double lower = std::floor(x);
  double fraction = x - lower;
  if (fraction == 0.0)
    return static_cast<int64_t>(lower);
  bool up;
  if (nearestMode == "floor")
    up = false;
  else if (nearestMode == "ceil")
    up = true;
  else if (nearestMode == "round_prefer_ceil")
    up = fraction >= 0.5;
  else
    up = fraction > 0.5;
  return static_cast<int64_t>(lower) + (up ? 1 : 0);
}

static void appendTaps(AxisTable &table, const Interpolation &how, double x, int64_t inputLength,
                       int64_t stride) {
  if (how.mode == "nearest") {
    int64_t nearest = std::clamp<int64_t>(roundNearest(how.nearestMode, x), 0, inputLength - 1);
    table.offsets.push_back(nearest * stride);
    table.weights.push_back(1.0f);
    return;
  }
  if (how.mode == "linear") {
    x = std::clamp(x, 0.0, static_cast<double>(inputLength - 1));
    int64_t lower = static_cast<int64_t>(std::floor(x));
    int64_t upper = std::min(lower + 1, inputLength - 1);
    double weight = x - static_cast<double>(lower);
    table.offsets.push_back(lower * stride);
    table.offsets.push_back(upper * stride);
    table.weights.push_back(static_cast<float>(1.0 - weight));
    table.weights.push_back(static_cast<float>(weight));
    return;
  }
  double lowerCoordinate = std::floor(x);
  double ratio = x - lowerCoordinate;
  if (ratio == 0.0) {
    lowerCoordinate -= 1.0;
    ratio = 1.0;
  }
  int64_t lower = static_cast<int64_t>(lowerCoordinate);
  std::array<double, 4> weights = getCubicWeights(ratio, how.cubicCoefficient);
  double sum = 0.0;
  for (int t = 0; t < 4; ++t) {
    int64_t index = lower - 1 + t;
    if (how.excludeOutside && (index < 0 || index >= inputLength))
      weights[t] = 0.0;
    sum += weights[t];
  }
  for (int t = 0; t < 4; ++t) {
    int64_t index = std::clamp<int64_t>(lower - 1 + t, 0, inputLength - 1);
    table.offsets.push_back(index * stride);
    table.weights.push_back(static_cast<float>(how.excludeOutside ? weights[t] / sum : weights[t]));
  }
}

static void compactTaps(AxisTable &table, int64_t outputLength) {
  if (table.taps == 1)
    return;
  std::vector<int64_t> offsets;
  for (int64_t o = 0; o < outputLength; ++o) {
    int chosen = -1;
    for (unsigned t = 0; t < table.taps; ++t) {
      float weight = table.weights[o * table.taps + t];
      if (weight == 0.0f)
        continue;
      if (weight != 1.0f || chosen >= 0)
        return;
      chosen = static_cast<int>(t);
    }
    if (chosen < 0)
      return;
    offsets.push_back(table.offsets[o * table.taps + chosen]);
  }
  table.taps = 1;
  table.offsets = std::move(offsets);
  table.weights.assign(outputLength, 1.0f);
}

/// The source of `cgc_upsample` over `rank` dimensions.
static std::string generateUpsampleSource(DType dtype, size_t rank, bool nearest, bool crops,
                                          int64_t corners) {
  std::string storage = nearest ? getBitsType(dtype) : getStorageType(dtype);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "#define CGC_RANK " << rank << "\n#define CGC_CORNERS " << corners << "\n";
  os << "struct cgc_upsample_params {\n  long long count;\n  long long outputSizes[CGC_RANK];\n"
     << "  long long taps[CGC_RANK];\n  long long tableStarts[CGC_RANK];\n"
     << "  long long outsideStarts[CGC_RANK];\n  unsigned long long extrapolated;\n};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_upsample(const " << storage
     << " *in, " << storage << " *out, const long long *offsets, const float *weights, "
     << "const unsigned char *outside, cgc_upsample_params p) {\n";
  os << R"cuda(  long long step = (long long)gridDim.x * blockDim.x;
  for (long long element = (long long)blockIdx.x * blockDim.x + threadIdx.x; element < p.count;
       element += step) {
    long long index[CGC_RANK];
    long long rest = element;
#pragma unroll
    for (int d = CGC_RANK - 1; d >= 0; --d) {
      index[d] = rest % p.outputSizes[d];
      rest /= p.outputSizes[d];
    }
    bool isOutside = false;
    long long cornerOffsets[CGC_CORNERS];
    float cornerWeights[CGC_CORNERS];
    int corners = 1;
    cornerOffsets[0] = 0;
    cornerWeights[0] = 1.0f;
    for (int d = 0; d + 1 < CGC_RANK; ++d) {
      int taps = (int)p.taps[d];
      long long first = p.tableStarts[d] + index[d] * taps;
)cuda";
  if (crops)
    os << "      isOutside = isOutside || outside[p.outsideStarts[d] + index[d]];\n";
  os << R"cuda(      if (taps == 1) {
        for (int c = 0; c < corners; ++c)
          cornerOffsets[c] += offsets[first];
        continue;
      }
      // As the CPU kernel: corner c takes tap 0, taps 1.. are appended.
      int existing = corners;
      for (int c = 0; c < existing; ++c) {
        long long base = cornerOffsets[c];
        float weight = cornerWeights[c];
        for (int t = 0; t < taps; ++t) {
          int at = t == 0 ? c : corners++;
          cornerOffsets[at] = base + offsets[first + t];
          cornerWeights[at] = weight * weights[first + t];
        }
      }
    }
    int innerTaps = (int)p.taps[CGC_RANK - 1];
    long long innerFirst = p.tableStarts[CGC_RANK - 1] + index[CGC_RANK - 1] * innerTaps;
)cuda";
  // The extrapolation value is written as its bits.
  std::string bits = getBitsType(dtype);
  if (crops)
    os << "    isOutside = isOutside || outside[p.outsideStarts[CGC_RANK - 1] + "
          "index[CGC_RANK - 1]];\n"
       << "    if (isOutside) {\n      ((" << bits << " *)out)[element] = (" << bits
       << ")p.extrapolated;\n      continue;\n    }\n";
  if (nearest) {
    os << "    out[element] = in[cornerOffsets[0] + offsets[innerFirst]];\n";
  } else {
    os << "    float sum = 0.0f;\n"
       << "    for (int c = 0; c < corners; ++c)\n"
       << "      for (int t = 0; t < innerTaps; ++t)\n"
       << "        sum += cornerWeights[c] * weights[innerFirst + t] * "
       << loadValue(dtype, "in[cornerOffsets[c] + offsets[innerFirst + t]]") << ";\n"
       << "    out[element] = " << storeValue(dtype, "sum") << ";\n";
  }
  os << "  }\n}\n";
  return source;
}

llvm::Expected<Kernel> buildUpsampleKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto upsample = llvm::cast<op::UpsampleOp>(op);
  auto input = getTensorInfo(op, upsample.getInput());
  if (!input)
    return input.takeError();
  auto output = getTensorInfo(op, upsample.getOutput());
  if (!output)
    return output.takeError();
  Interpolation how;
  how.mode = upsample.getMode();
  how.transformation = upsample.getCoordinateTransformationMode();
  how.nearestMode = upsample.getNearestMode();
  how.cubicCoefficient = upsample.getCubicCoeffA().convertToDouble();
  how.excludeOutside = upsample.getExcludeOutside();
  bool nearest = how.mode == "nearest";
  if (!nearest && how.mode != "linear" && how.mode != "cubic")
    return unimplementedFeature(op, "mode \"" + how.mode + "\"");
  if (!nearest && !isFloat32ComputedDType(input->dtype))
    return unimplementedElementType(op, input->dtype);
  int64_t rank = input->getRank();
  int64_t count = output->getNumElements();
  if (count == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  if (rank == 0) {
    uint64_t bytes = getByteWidth(input->dtype);
    std::string opName = op->getName().getStringRef().str();
    return Kernel{[bytes, opName](const LaunchArgs &args) -> std::string {
                    cudaError_t error = cudaMemcpyAsync(args.outputs[0], args.inputs[0], bytes,
                                                        cudaMemcpyDeviceToDevice, args.stream);
                    return error == cudaSuccess
                               ? std::string()
                               : describeLaunchFailure(opName, "cudaMemcpyAsync", error);
                  },
                  0};
  }

  llvm::SmallVector<double> scales = upsample.getScales();
  llvm::SmallVector<double> roi = upsample.getRoi();
  bool crops = how.transformation == "tf_crop_and_resize";
  Shape inputStrides = getStrides(input->shape);
  // Tables of all dimensions, concatenated.
  std::vector<int64_t> offsets;
  std::vector<float> weights;
  std::vector<uint8_t> outside;
  std::vector<int64_t> taps, tableStarts, outsideStarts;
  int64_t corners = 1;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t inputLength = input->shape[dim], outputLength = output->shape[dim];
    double scale = scales.empty() ? static_cast<double>(outputLength) / inputLength : scales[dim];
    double resizedLength = scales.empty() ? static_cast<double>(outputLength)
                                          : scale * static_cast<double>(inputLength);
    double roiStart = crops ? roi[dim] : 0.0, roiEnd = crops ? roi[rank + dim] : 1.0;
    AxisTable table;
    table.taps = nearest ? 1 : how.mode == "linear" ? 2 : 4;
    for (int64_t o = 0; o < outputLength; ++o) {
      double x = transformCoordinate(how.transformation, static_cast<double>(o), scale, inputLength,
                                     outputLength, resizedLength, roiStart, roiEnd);
      table.outside.push_back(crops && (x < 0.0 || x > static_cast<double>(inputLength - 1)));
      appendTaps(table, how, x, inputLength, inputStrides[dim]);
    }
    compactTaps(table, outputLength);
    if (dim + 1 < rank)
      corners *= table.taps;
    taps.push_back(table.taps);
    tableStarts.push_back(static_cast<int64_t>(offsets.size()));
    outsideStarts.push_back(static_cast<int64_t>(outside.size()));
    offsets.insert(offsets.end(), table.offsets.begin(), table.offsets.end());
    weights.insert(weights.end(), table.weights.begin(), table.weights.end());
    outside.insert(outside.end(), table.outside.begin(), table.outside.end());
  }
  if (corners > kMaxCorners)
    return unimplementedFeature(op, "interpolating " + llvm::Twine(corners) +
                                        " corners per element (at most " +
                                        llvm::Twine(kMaxCorners) + ")");

  std::string source = generateUpsampleSource(input->dtype, rank, nearest, crops, corners);
  auto function = context.getFunction(op, source, "cgc_upsample");
  if (!function)
    return function.takeError();
  // The tables, uploaded once: offsets, then weights, then the flags.
  size_t offsetBytes = offsets.size() * sizeof(int64_t);
  size_t weightBytes = (weights.size() * sizeof(float) + 7) / 8 * 8;
  std::vector<uint8_t> tables(offsetBytes + weightBytes + outside.size());
  std::memcpy(tables.data(), offsets.data(), offsetBytes);
  std::memcpy(tables.data() + offsetBytes, weights.data(), weights.size() * sizeof(float));
  std::memcpy(tables.data() + offsetBytes + weightBytes, outside.data(), outside.size());
  std::shared_ptr<DeviceBuffer> buffer;
  if (context.hasDevice()) {
    auto uploaded = DeviceBuffer::upload(op, tables.data(), tables.size());
    if (!uploaded)
      return uploaded.takeError();
    buffer = *uploaded;
  }

  // The element extrapolated positions get, as the CPU kernel converts it.
  float extrapolation = static_cast<float>(upsample.getExtrapolationValue().convertToDouble());
  uint64_t extrapolated = encodeScalar(input->dtype, extrapolation);
  std::vector<int64_t> params = {count};
  params.insert(params.end(), output->shape.begin(), output->shape.end());
  params.insert(params.end(), taps.begin(), taps.end());
  params.insert(params.end(), tableStarts.begin(), tableStarts.end());
  params.insert(params.end(), outsideStarts.begin(), outsideStarts.end());
  params.push_back(static_cast<int64_t>(extrapolated));
  unsigned blocks = context.getGridSize(count, 256);
  std::string opName = op->getName().getStringRef().str();
  return Kernel{
      [function = *function, params = std::move(params), blocks, buffer, offsetBytes, weightBytes,
       opName](const LaunchArgs &args) -> std::string {
        const void *in = args.inputs[0];
        void *out = args.outputs[0];
        char *base = static_cast<char *>(buffer ? buffer->get() : nullptr);
        const void *offsetTable = base;
        const void *weightTable = base + offsetBytes;
        const void *outsideTable = base + offsetBytes + weightBytes;
        void *arguments[] = {&in,          &out,          &offsetTable,
                             &weightTable, &outsideTable, const_cast<int64_t *>(params.data())};
        cudaError_t error = function.launch(dim3(blocks), dim3(256), arguments, 0, args.stream);
        return error == cudaSuccess ? std::string()
                                    : describeLaunchFailure(opName, "cudaLaunchKernel", error);
      },
      0};
}

} // namespace cgc::cuda
