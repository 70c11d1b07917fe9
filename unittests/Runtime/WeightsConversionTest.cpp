//===- WeightsConversionTest.cpp - float32 weights loaded as float16/bfloat16 ===//
//
// What the runtime does with the float32 data of a constant the compiler
// made float16 or bfloat16 (`--precision`): round to nearest-even, saturate
// finite values to the target's finite range, keep infinities and NaN.
// Hand-computed bit patterns, and a sweep checked against the definition of
// rounding to nearest-even with the decoders (halfToFloat, bfloat16ToFloat).
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

} // namespace
