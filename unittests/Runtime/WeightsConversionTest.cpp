//===- WeightsConversionTest.cpp - float32 weights loaded as float16/bfloat16 ===//
//
// What the runtime does with the float32 data of a constant the compiler
// made float16 or bfloat16 (`--precision`): round to nearest-even, saturate
// finite values to the target's finite range, keep infinities and NaN.
// Hand-computed bit patterns, and a sweep checked against the definition of
// rounding to nearest-even with the decoders (halfToFloat, bfloat16ToFloat).
// The vectorized conversion must agree bit for bit with the scalar one
// (floatToHalf/floatToBFloat16 after saturation) on every edge value; and
// fillConstants must permute while it converts, on any number of threads.
//
//===----------------------------------------------------------------------===//

#include "Runtime/Weights.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace cgc::runtime;

namespace {

std::vector<uint16_t> convert(const std::vector<float> &values, DType to) {
  std::vector<uint16_t> bits(values.size());
  std::span<const std::byte> source = std::as_bytes(std::span(values));
  EXPECT_TRUE(convertFloat32Data(source, to, std::as_writable_bytes(std::span(bits))));
  return bits;
}

float fromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(WeightsConversion, Float16RoundsToNearestEven) {
  std::vector<float> values = {
      1.0f, -0.0f,
      1.0f + 0x1p-11f,     // halfway between 1 and the next half: to 1 (even)
      1.0f + 3 * 0x1p-11f, // halfway between 0x3c01 and 0x3c02: to 0x3c02 (even)
      1.0f + 0x1p-11f + 0x1p-20f, // just above halfway: up
      0x1p-24f,            // the smallest subnormal
      0x1p-25f,            // halfway between 0 and it: to 0 (even)
      0x1.8p-25f,          // above halfway: up to it
      0x1p-14f,            // the smallest normal
  };
  std::vector<uint16_t> expected = {0x3c00, 0x8000, 0x3c00, 0x3c02, 0x3c01,
                                    0x0001, 0x0000, 0x0001, 0x0400};
  EXPECT_EQ(convert(values, DType::Float16), expected);
}

TEST(WeightsConversion, Float16SaturatesFiniteValuesAndKeepsInfinitiesAndNaN) {
  float lowest = std::numeric_limits<float>::lowest();
  float infinity = std::numeric_limits<float>::infinity();
  std::vector<float> values = {lowest, -lowest, 65504.0f, 65519.0f,
                               65520.0f, // rounds to infinity without saturation
                               -1e6f,    infinity, -infinity};
  std::vector<uint16_t> expected = {0xfbff, 0x7bff, 0x7bff, 0x7bff,
                                    0x7bff, 0xfbff, 0x7c00, 0xfc00};
  EXPECT_EQ(convert(values, DType::Float16), expected);
  uint16_t nan = convert({std::numeric_limits<float>::quiet_NaN()}, DType::Float16)[0];
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // What the saturation is for: the mask term 0 * lowest stays 0.
  EXPECT_EQ(0.0f * halfToFloat(convert({lowest}, DType::Float16)[0]), 0.0f);
}

TEST(WeightsConversion, BFloat16RoundsToNearestEvenAndSaturates) {
  float lowest = std::numeric_limits<float>::lowest();
  float infinity = std::numeric_limits<float>::infinity();
  std::vector<float> values = {
      1.0f,
      fromBits(0x3f808000), // halfway between 0x3f80 and 0x3f81: to 0x3f80 (even)
      fromBits(0x3f818000), // halfway between 0x3f81 and 0x3f82: to 0x3f82 (even)
      fromBits(0x3f808001), // just above halfway: up
      lowest, -lowest,       // round to infinity without saturation
      fromBits(0x7f7f0000),  // bfloat16's largest
      infinity, -infinity};
  std::vector<uint16_t> expected = {0x3f80, 0x3f80, 0x3f82, 0x3f81, 0xff7f,
                                    0x7f7f, 0x7f7f, 0x7f80, 0xff80};
  EXPECT_EQ(convert(values, DType::BFloat16), expected);
  uint16_t nan = convert({std::numeric_limits<float>::quiet_NaN()}, DType::BFloat16)[0];
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x007f, 0);
}

/// Every result is the representable value nearest the input (ties to the
/// even significand), checked against its neighbours with the decoder.
void checkNearest(DType to, float (*decode)(uint16_t), float largest, float spread) {
  std::mt19937 engine(7);
  std::uniform_real_distribution<float> exponent(-spread, spread);
  std::uniform_real_distribution<float> significand(1.0f, 2.0f);
  std::vector<float> values;
  for (int i = 0; i < 20000; ++i) {
    float value = std::ldexp(significand(engine), static_cast<int>(exponent(engine)));
    values.push_back(i % 2 ? -value : value);
  }
  std::vector<uint16_t> bits = convert(values, to);
  for (size_t i = 0; i < values.size(); ++i) {
    double value = values[i];
    double got = decode(bits[i]);
    ASSERT_TRUE(std::isfinite(got)) << value;
    if (std::fabs(value) >= largest) {
      ASSERT_EQ(got, std::copysign(largest, value)) << value;
      continue;
    }
    for (int step : {-1, 1}) {
      uint16_t neighbourBits = static_cast<uint16_t>(bits[i] + step);
      double neighbour = decode(neighbourBits);
      if (!std::isfinite(neighbour) || std::signbit(neighbour) != std::signbit(got))
        continue;
      double mine = std::fabs(value - got), theirs = std::fabs(value - neighbour);
      ASSERT_LE(mine, theirs) << value << " became " << got << ", " << neighbour << " is nearer";
      if (mine == theirs)
        ASSERT_EQ(bits[i] & 1, 0) << value << ": a tie must round to the even significand";
    }
  }
}

TEST(WeightsConversion, Float16IsTheNearestValue) {
  checkNearest(DType::Float16, halfToFloat, 65504.0f, 20.0f);
}

TEST(WeightsConversion, BFloat16IsTheNearestValue) {
  checkNearest(DType::BFloat16, bfloat16ToFloat, fromBits(0x7f7f0000), 127.0f);
}

TEST(WeightsConversion, RefusesOtherTypesAndSizes) {
  std::vector<float> values = {1.0f, 2.0f};
  std::vector<uint16_t> bits(2);
  std::span<const std::byte> source = std::as_bytes(std::span(values));
  EXPECT_FALSE(convertFloat32Data(source, DType::Int16, std::as_writable_bytes(std::span(bits))));
  EXPECT_FALSE(convertFloat32Data(source, DType::Float16,
                                  std::as_writable_bytes(std::span(bits).first(1))));
}

/// A weights file with one float32 tensor "w" = {1, lowest} and one
/// float16 tensor "h" = {1, 2}.
Weights makeWeights() {
  std::vector<float> w = {1.0f, std::numeric_limits<float>::lowest()};
  std::vector<uint16_t> h = {0x3c00, 0x4000};
  std::map<std::string, HostTensor> tensors = {
      {"w", HostTensor::fromValues<float>(DType::Float32, {2}, w)},
      {"h", HostTensor::fromValues<uint16_t>(DType::Float16, {2}, h)}};
  Result<std::vector<std::byte>> bytes = serializeSafetensors(tensors);
  EXPECT_TRUE(bytes.ok());
  Result<Weights> weights = Weights::parse(*bytes, "w.safetensors");
  EXPECT_TRUE(weights.ok());
  return std::move(*weights);
}

TEST(WeightsConversion, ReadConstantConvertsFloat32ForSixteenBitConstants) {
  Weights weights = makeWeights();
  std::vector<int64_t> shape = {2};
  std::vector<uint16_t> half(2), brain(2);
  ASSERT_TRUE(weights.checkConstant("w", DType::Float16, shape).ok());
  Status status =
      weights.readConstant("w", DType::Float16, shape, std::as_writable_bytes(std::span(half)));
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(half, (std::vector<uint16_t>{0x3c00, 0xfbff}));
  status =
      weights.readConstant("w", DType::BFloat16, shape, std::as_writable_bytes(std::span(brain)));
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(brain, (std::vector<uint16_t>{0x3f80, 0xff7f}));
  // Same dtype: a copy, for float32 and float16 data alike.
  std::vector<float> copy(2);
  ASSERT_TRUE(
      weights.readConstant("w", DType::Float32, shape, std::as_writable_bytes(std::span(copy)))
          .ok());
  EXPECT_EQ(copy[1], std::numeric_limits<float>::lowest());
  ASSERT_TRUE(
      weights.readConstant("h", DType::Float16, shape, std::as_writable_bytes(std::span(half)))
          .ok());
  EXPECT_EQ(half, (std::vector<uint16_t>{0x3c00, 0x4000}));
}

TEST(WeightsConversion, OtherMismatchesAreStillErrors) {
  Weights weights = makeWeights();
  std::vector<int64_t> shape = {2}, wrongShape = {1, 2};
  // float16 data is never widened, float32 never narrowed to integers.
  Status status = weights.checkConstant("h", DType::Float32, shape);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "constant \"h\": w.safetensors has F16 [2] but the IR's cgc.constant is F32 [2]");
  status = weights.checkConstant("w", DType::Int16, shape);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "constant \"w\": w.safetensors has F32 [2] but the IR's cgc.constant is I16 [2]");
  status = weights.checkConstant("w", DType::Float16, wrongShape);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "constant \"w\": w.safetensors has F32 [2] but the IR's cgc.constant is F16 [1x2]");
  status = weights.checkConstant("missing", DType::Float16, shape);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "constant \"missing\" (F16 [2]) is missing from w.safetensors");
  std::vector<uint16_t> tooSmall(1);
  status = weights.readConstant("w", DType::Float16, shape,
                                std::as_writable_bytes(std::span(tooSmall)));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "constant \"w\": cannot convert 8 bytes of F32 into 2 bytes of F16");
}

/// Every special pattern of either conversion: zeros, float32 and float16
/// subnormals and their rounding boundaries, the saturation boundaries,
/// infinities, quiet and signalling NaN with payloads, both signs; then
/// every top half with the low halves that decide rounding (float16's tie
/// bit is bit 12 for normal values and higher for subnormal ones,
/// bfloat16's is bit 15), and random patterns.
std::vector<float> edgeValues() {
  std::vector<uint32_t> bits = {
      0x00000000, 0x00000001, 0x007fffff, 0x00800000, // zero, float32 subnormals, smallest normal
      0x33000000, 0x33000001, 0x33400000, 0x337fffff, // around float16's smallest subnormal / 2
      0x33800000, 0x387fc000, 0x387fe000, 0x38800000, // float16 subnormal .. normal
      0x3f800000, 0x3f801000, 0x3f803000, 0x3f808000, 0x3f818000,
      0x477fe000, 0x477fefff, 0x477ff000, 0x477fffff, // 65504 .. 65520 (float16's overflow)
      0x47800000, 0x4f000000, 0x7f7f0000, 0x7f7f7fff, 0x7f7f8000, 0x7f7fffff, // to float32 max
      0x7f800000, 0x7f800001, 0x7fa00000, 0x7fbfffff, // infinity, signalling NaN
      0x7fc00000, 0x7fc00001, 0x7fd55555, 0x7fffffff, // quiet NaN
  };
  for (size_t i = 0, n = bits.size(); i < n; ++i)
    bits.push_back(bits[i] | 0x80000000u);
  for (uint32_t top = 0; top < 0x10000; ++top)
    for (uint32_t low : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fffu,
                         0x8000u, 0x8001u, 0xffffu})
      bits.push_back(top << 16 | low);
  std::mt19937 engine(11);
  for (int i = 0; i < 1 << 20; ++i)
    bits.push_back(static_cast<uint32_t>(engine()));
  std::vector<float> values(bits.size());
  std::memcpy(values.data(), bits.data(), bits.size() * 4);
  return values;
}

TEST(WeightsConversion, VectorizedConversionIsTheScalarOneBitForBit) {
  std::vector<float> values = edgeValues();
  for (DType to : {DType::Float16, DType::BFloat16}) {
    std::vector<uint16_t> fast(values.size()), reference(values.size());
    std::span<const std::byte> source = std::as_bytes(std::span(values));
    ASSERT_TRUE(convertFloat32Data(source, to, std::as_writable_bytes(std::span(fast))));
    ASSERT_TRUE(
        convertFloat32DataScalar(source, to, std::as_writable_bytes(std::span(reference))));
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(fast[i], reference[i])
          << getName(to) << " of 0x" << std::hex << std::bit_cast<uint32_t>(values[i]);
    // Every length and misalignment, for the tails after the vector loop.
    for (size_t offset = 0; offset < 4; ++offset)
      for (size_t length = 0; length < 40; ++length) {
        std::vector<uint16_t> part(length);
        ASSERT_TRUE(convertFloat32Data(source.subspan(4 * (offset * 7919), 4 * length), to,
                                       std::as_writable_bytes(std::span(part))));
        std::vector<uint16_t> expected(reference.begin() + offset * 7919,
                                       reference.begin() + offset * 7919 + length);
        ASSERT_EQ(part, expected) << getName(to) << " offset " << offset << " length " << length;
      }
  }
}

/// `values` (float32, `storedShape`) permuted as cgc_op.transpose does:
/// result dimension i is stored dimension permutation[i].
std::vector<float> transpose(const std::vector<float> &values, std::vector<int64_t> storedShape,
                             const std::vector<int64_t> &permutation) {
  size_t rank = storedShape.size();
  std::vector<int64_t> strides(rank, 1), shape(rank), index(rank, 0);
  for (size_t i = rank; i-- > 1;)
    strides[i - 1] = strides[i] * storedShape[i];
  for (size_t i = 0; i < rank; ++i)
    shape[i] = storedShape[permutation[i]];
  std::vector<float> result;
  for (size_t n = 0; n < values.size(); ++n) {
    int64_t offset = 0;
    for (size_t i = 0; i < rank; ++i)
      offset += index[i] * strides[permutation[i]];
    result.push_back(values[offset]);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < shape[i])
        break;
      index[i] = 0;
    }
  }
  return result;
}

std::vector<float> iotaValues(size_t count) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = static_cast<float>(i) * 0.25f - 1000.0f;
  return values;
}

TEST(WeightsConversion, FillConstantsPermutesWhileItConverts) {
  struct Case {
    std::vector<int64_t> storedShape, permutation;
  };
  // OIHW as OHWI (the channels-last weights); a matrix transposed; a 3-D
  // rotation with a size-one dimension; outer dimensions swapped (whole
  // rows move); none; large ones, cut in pieces shared between threads.
  std::vector<Case> cases = {{{4, 3, 2, 5}, {0, 2, 3, 1}},
                             {{7, 9}, {1, 0}},
                             {{2, 1, 3, 4}, {3, 0, 1, 2}},
                             {{3, 4, 5}, {1, 0, 2}},
                             {{70, 1, 90, 50}, {2, 1, 0, 3}},
                             {{3, 5}, {}},
                             {{130, 64, 7, 7}, {0, 2, 3, 1}},
                             {{640, 700}, {1, 0}}};
  for (const Case &test : cases)
    for (DType to : {DType::Float32, DType::Float16, DType::BFloat16})
      for (unsigned threads : {1u, 3u}) {
        uint64_t count = *getNumElements(test.storedShape);
        std::vector<float> values = iotaValues(count);
        std::vector<float> expected = test.permutation.empty()
                                          ? values
                                          : transpose(values, test.storedShape, test.permutation);
        std::vector<std::byte> destination(count * getByteWidth(to));
        ConstantFill fill{std::as_bytes(std::span(values)), DType::Float32, to,
                          test.storedShape, test.permutation, destination};
        Status status = fillConstants(std::span(&fill, 1), threads);
        ASSERT_TRUE(status.ok()) << status.error().message;
        std::vector<std::byte> reference(destination.size());
        if (to == DType::Float32)
          std::memcpy(reference.data(), expected.data(), reference.size());
        else
          ASSERT_TRUE(convertFloat32DataScalar(std::as_bytes(std::span(expected)), to, reference));
        ASSERT_EQ(destination, reference)
            << formatShape(test.storedShape) << " to " << getName(to) << " on " << threads
            << " thread(s)";
      }
}

TEST(WeightsConversion, FillConstantsPermutesEveryWidth) {
  // A 3x2x4 tensor of each width bound as 4x3x2: element (i, j, k) of the
  // result is stored element (j, k, i).
  for (DType dtype : {DType::Int8, DType::Float16, DType::Int32, DType::Int64}) {
    size_t width = getByteWidth(dtype);
    std::vector<std::byte> stored(24 * width), result(24 * width);
    for (size_t i = 0; i < stored.size(); ++i)
      stored[i] = static_cast<std::byte>(i / width * 3 + i % width);
    ConstantFill fill{stored, dtype, dtype, {3, 2, 4}, {2, 0, 1}, result};
    ASSERT_TRUE(fillConstants(std::span(&fill, 1)).ok());
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t k = 0; k < 2; ++k)
          ASSERT_EQ(std::memcmp(&result[((i * 3 + j) * 2 + k) * width],
                                &stored[((j * 2 + k) * 4 + i) * width], width),
                    0)
              << getName(dtype) << " (" << i << ", " << j << ", " << k << ")";
  }
}

TEST(WeightsConversion, FillConstantsChecksWhatItIsGiven) {
  std::vector<float> values(6);
  std::vector<std::byte> destination(12);
  ConstantFill fill{std::as_bytes(std::span(values)), DType::Float32, DType::Float16, {2, 3},
                    {0, 0}, destination};
  Status status = fillConstants(std::span(&fill, 1));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "[0, 0] is not a permutation of the 2 dimensions of [2x3]");
  fill.permutation = {1, 0};
  fill.to = DType::Int16;
  status = fillConstants(std::span(&fill, 1));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "cannot convert F32 data into I16");
}

TEST(WeightsConversion, PrepareConstantBindsTheStoredShapePermuted) {
  Weights weights = makeWeights();
  std::vector<int64_t> shape = {2}, wrong = {1, 2}, identity = {0};
  std::vector<uint16_t> half(2);
  Result<ConstantFill> fill = weights.prepareConstant("w", DType::Float16, shape, identity,
                                                      std::as_writable_bytes(std::span(half)));
  ASSERT_TRUE(fill.ok()) << fill.error().message;
  EXPECT_EQ(fill->from, DType::Float32);
  ASSERT_TRUE(fillConstants(std::span(&*fill, 1)).ok());
  EXPECT_EQ(half, (std::vector<uint16_t>{0x3c00, 0xfbff}));
  fill = weights.prepareConstant("w", DType::Float16, wrong, {},
                                 std::as_writable_bytes(std::span(half)));
  ASSERT_FALSE(fill.ok());
  EXPECT_EQ(fill.error().message,
            "constant \"w\": w.safetensors has F32 [2] but the IR's cgc.constant is F16 [1x2]");
}

} // namespace
