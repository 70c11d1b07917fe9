//===- ElementwiseTest.cpp - generated elementwise kernels against the CPU ===//

#include "CUDAKernelTestSupport.h"

#include <cmath>
#include <limits>

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class ElementwiseTest : public CUDAKernelTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64};
const DType kSignedTypes[] = {DType::I8, DType::I16, DType::I32, DType::I64};
const DType kIntegerTypes[] = {DType::I8,  DType::U8,  DType::I16, DType::U16,
                               DType::I32, DType::U32, DType::I64, DType::U64};

/// A value range that fits every integer type's range.
std::pair<double, double> integerRange(DType dtype) {
  switch (dtype) {
  case DType::I8:
    return {-128, 127};
  case DType::U8:
    return {0, 255};
  case DType::I16:
    return {-32768, 32767};
  case DType::U16:
    return {0, 65535};
  case DType::I32:
    return {-2e9, 2e9};
  case DType::U32:
    return {0, 4e9};
  case DType::I64:
    return {-4e15, 4e15};
  default:
    return {0, 8e15};
  }
}

/// Shapes of the elementwise cases: a scalar, and more elements than one
/// block of threads covers.
const std::vector<Dims> kShapes = {{}, {5, 131}};

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

std::vector<OpCase> unaryFloatCases() {
  struct Unary {
    std::string op, attributes;
    double low = -3.0, high = 3.0;
  };
  std::vector<Unary> unaries = {
      {"cgc_op.relu", ""},
      {"cgc_op.leaky_relu", "{alpha = 0.2}"},
      {"cgc_op.leaky_relu", ""},
      {"cgc_op.sigmoid", ""},
      {"cgc_op.tanh", ""},
      {"cgc_op.gelu", ""},
      {"cgc_op.gelu", "{approximate = \"tanh\"}"},
      {"cgc_op.erf", ""},
      {"cgc_op.exp", ""},
      {"cgc_op.log", "", 0.05, 5.0},
      {"cgc_op.sqrt", "", 0.0, 5.0},
      {"cgc_op.reciprocal", "", 0.25, 4.0},
      {"cgc_op.neg", ""},
      {"cgc_op.abs", ""},
      {"cgc_op.clip", "{min = -1.0, max = 1.5}"},
      {"cgc_op.clip", "{max = 0.5}"},
      {"cgc_op.clip", "{min = 0.5}"},
      {"cgc_op.hard_sigmoid", "{alpha = 0.25, beta = 0.4}"},
      {"cgc_op.hard_sigmoid", ""},
      {"cgc_op.hard_swish", "", -5.0, 5.0},
      {"cgc_op.floor", "", -4.0, 4.0},
      {"cgc_op.ceil", "", -4.0, 4.0},
      {"cgc_op.round", "", -4.0, 4.0},
      {"cgc_op.sin", ""},
      {"cgc_op.cos", ""},
      {"cgc_op.tan", "", -1.5, 1.5},
      {"cgc_op.asin", "", -1.0, 1.0},
      {"cgc_op.acos", "", -1.0, 1.0},
      {"cgc_op.atan", ""},
      {"cgc_op.sinh", ""},
      {"cgc_op.cosh", ""},
      {"cgc_op.asinh", ""},
      {"cgc_op.acosh", "", 1.0, 5.0},
      {"cgc_op.atanh", "", -0.99, 0.99},
  };
  std::vector<OpCase> cases;
  for (DType dtype : kFloatTypes) {
    for (const Unary &unary : unaries)
      for (const Dims &shape : kShapes)
        cases.push_back({unary.op,
                         {tensor(shape, dtype, unary.low, unary.high)},
                         unary.attributes,
                         elementwiseTolerance(dtype)});
    // Halves round to even; NaN and infinities pass through.
    cases.push_back(
        {"cgc_op.round",
         {values({12}, dtype,
                 {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -0.4, NAN, INFINITY, -INFINITY, 1e30})},
         "",
         elementwiseTolerance(dtype)});
    cases.push_back({"cgc_op.clip",
                     {values({4}, dtype, {NAN, -INFINITY, INFINITY, 0.25})},
                     "{min = -1.0, max = 1.5}",
                     elementwiseTolerance(dtype)});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseTest, UnaryFloat, unaryFloatCases)

std::vector<OpCase> unaryIntegerCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kSignedTypes) {
    auto [low, high] = integerRange(dtype);
    for (const char *op : {"cgc_op.relu", "cgc_op.neg", "cgc_op.abs"}) {
      cases.push_back({op, {tensor({7, 41}, dtype, low, high)}, ""});
      // The most negative value wraps.
      cases.push_back({op, {values({3}, dtype, {low, -1, 0})}, ""});
    }
    cases.push_back(
        {"cgc_op.clip", {tensor({7, 41}, dtype, -100, 100)}, "{min = -5.0, max = 7.0}"});
    cases.push_back({"cgc_op.clip", {tensor({7, 41}, dtype, low, high)}, "{min = -1.0e30}"});
  }
  for (DType dtype : kIntegerTypes) {
    auto [low, high] = integerRange(dtype);
    cases.push_back({"cgc_op.clip", {tensor({7, 41}, dtype, 0, 100)}, "{min = 2.0, max = 70.0}"});
    cases.push_back({"cgc_op.bitwise_not", {tensor({7, 41}, dtype, low, high)}, ""});
  }
  cases.push_back({"cgc_op.not", {tensor({7, 41}, DType::Bool)}, ""});
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseTest, UnaryInteger, unaryIntegerCases)

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

/// Operand shape pairs: equal, trailing vector, both stretching, scalar,
/// interleaved ones.
const std::vector<std::pair<Dims, Dims>> kBroadcasts = {{{4, 5, 6}, {4, 5, 6}},
                                                        {{4, 5, 6}, {6}},
                                                        {{2, 1, 6}, {5, 1}},
                                                        {{}, {3, 4}},
                                                        {{3, 1, 4, 1}, {1, 5, 1, 2}}};

std::vector<OpCase> binaryFloatCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kFloatTypes) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    for (const auto &[lhs, rhs] : kBroadcasts) {
      for (const char *op :
           {"cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div", "cgc_op.max", "cgc_op.min"})
        cases.push_back({op, {tensor(lhs, dtype), tensor(rhs, dtype)}, "", tolerance});
      cases.push_back(
          {"cgc_op.pow", {tensor(lhs, dtype, 0.1, 3.0), tensor(rhs, dtype, -2, 2)}, "", tolerance});
      cases.push_back({"cgc_op.mod",
                       {tensor(lhs, dtype, -9, 9), tensor(rhs, dtype, 0.5, 3)},
                       "{fmod = true}",
                       tolerance});
      // Whole numbers, so that comparisons meet equal values.
      std::vector<double> small = {-1, 0, 1, 2, 0.5, 1, -1};
      for (const char *op : {"cgc_op.equal", "cgc_op.not_equal", "cgc_op.less", "cgc_op.less_equal",
                             "cgc_op.greater", "cgc_op.greater_equal"})
        cases.push_back(
            {op, {values(lhs, dtype, small), values(rhs, dtype, {0, 1, 2, -1, 1})}, "", tolerance});
    }
    // NaN propagates through max and min from either side.
    for (const char *op : {"cgc_op.max", "cgc_op.min"})
      cases.push_back(
          {op,
           {values({4}, dtype, {NAN, 1.0, NAN, -2.0}), values({4}, dtype, {1.0, NAN, NAN, 3.0})},
           "",
           tolerance});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseTest, BinaryFloat, binaryFloatCases)

std::vector<OpCase> binaryIntegerCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kIntegerTypes) {
    auto [low, high] = integerRange(dtype);
    bool isSigned =
        dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
    for (const auto &[lhs, rhs] : kBroadcasts) {
      // Full ranges: sums and products wrap.
      for (const char *op : {"cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.max", "cgc_op.min",
                             "cgc_op.bitwise_and", "cgc_op.bitwise_or", "cgc_op.bitwise_xor",
                             "cgc_op.equal", "cgc_op.less", "cgc_op.greater_equal"})
        cases.push_back({op, {tensor(lhs, dtype, low, high), tensor(rhs, dtype, low, high)}, ""});
      // Divisors around zero (x / 0 and x % 0 are 0; MIN / -1 wraps).
      double divisorLow = isSigned ? -5 : 0;
      for (const char *op : {"cgc_op.div", "cgc_op.mod"})
        cases.push_back(
            {op, {tensor(lhs, dtype, low, high), tensor(rhs, dtype, divisorLow, 5)}, ""});
      cases.push_back({"cgc_op.mod",
                       {tensor(lhs, dtype, low, high), tensor(rhs, dtype, divisorLow, 5)},
                       "{fmod = true}"});
      for (const char *direction : {"left", "right"})
        cases.push_back({"cgc_op.bit_shift",
                         {tensor(lhs, dtype, low, high), tensor(rhs, dtype, isSigned ? -2 : 0, 70)},
                         std::string("{direction = \"") + direction + "\"}"});
      if (isSigned)
        cases.push_back({"cgc_op.pow", {tensor(lhs, dtype, -4, 4), tensor(rhs, dtype, -2, 7)}, ""});
    }
    cases.push_back(
        {"cgc_op.div", {values({2}, dtype, {low, low}), values({2}, dtype, {-1, 0})}, ""});
  }
  for (const auto &[lhs, rhs] : kBroadcasts)
    for (const char *op :
         {"cgc_op.and", "cgc_op.or", "cgc_op.xor", "cgc_op.equal", "cgc_op.not_equal"})
      cases.push_back({op, {tensor(lhs, DType::Bool), tensor(rhs, DType::Bool)}, ""});
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseTest, BinaryInteger, binaryIntegerCases)

//===----------------------------------------------------------------------===//
// cast, where, prelu
//===----------------------------------------------------------------------===//

std::vector<OpCase> castCases() {
  const DType types[] = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I8,  DType::U8,
                         DType::I16, DType::I32, DType::I64,  DType::U64, DType::Bool};
  std::vector<OpCase> cases;
  for (DType from : types) {
    for (DType to : types) {
      bool isFloat =
          from == DType::F32 || from == DType::F16 || from == DType::BF16 || from == DType::F64;
      OperandSpec input = tensor({3, 37}, from);
      if (isFloat) {
        input.low = -300.5;
        input.high = 300.5;
      } else if (from != DType::Bool) {
        std::tie(input.low, input.high) = integerRange(from);
      }
      std::string attributes = "{to = !cgc." + dtypeName(to) + "}";
      cases.push_back({"cgc_op.cast", {input}, attributes, elementwiseTolerance(to)});
      if (isFloat)
        cases.push_back(
            {"cgc_op.cast",
             {values({8}, from, {NAN, INFINITY, -INFINITY, 1e20, -1e20, 2.5, -2.5, -0.0})},
             attributes,
             elementwiseTolerance(to)});
    }
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseTest, Cast, castCases)

std::vector<OpCase> whereAndPReluCases() {
  std::vector<OpCase> cases;
  for (DType dtype : {DType::F32, DType::F16, DType::F64, DType::I64, DType::I8, DType::Bool}) {
    cases.push_back({"cgc_op.where",
                     {tensor({3, 1, 5}, DType::Bool), tensor({4, 1}, dtype, -50, 50),
                      tensor({}, dtype, -50, 50)},
                     ""});
    cases.push_back({"cgc_op.where",
                     {tensor({6, 7}, DType::Bool), tensor({6, 7}, dtype, -50, 50),
                      tensor({6, 7}, dtype, -50, 50)},
                     ""});
  }
  for (DType dtype : kFloatTypes) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    cases.push_back(
        {"cgc_op.prelu", {tensor({2, 4, 3, 3}, dtype), tensor({4, 1, 1}, dtype)}, "", tolerance});
    cases.push_back(
        {"cgc_op.prelu", {tensor({2, 4, 3, 3}, dtype), tensor({3}, dtype)}, "", tolerance});
    cases.push_back(
        {"cgc_op.prelu", {tensor({5, 7}, dtype), tensor({5, 7}, dtype)}, "", tolerance});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseTest, WhereAndPRelu, whereAndPReluCases)

} // namespace
