//===- FusedLayoutTest.cpp - a float conversion and a transpose as one copy ===//
//
// The fused layout family (cast_transpose and transpose_cast,
// patterns/layout.mlir): a cast between float32, float16 and bfloat16 and a
// transpose, in either order, run as one strided copy that converts on the
// way. The reference runs the layers one by one with the CPU driver's
// kernels; both convert through float, so the results must be identical.
// A float32 model input cast to float16 or bfloat16 and transposed NCHW ->
// NHWC (3 channels: the interleave kernel), the same after the transpose,
// float16 to float32, a tiled shape (the per-element kernel converts), rank
// 5, and values float16 cannot hold (overflow to inf, subnormals, NaN). On
// a device each case runs as the driver builds it, launched directly and
// through graph capture; without one, every case is recognized and
// compiled, and the refusals are checked.
//
//===----------------------------------------------------------------------===//

#include "DefinitionText.h"
#include "FusedTestSupport.h"

#include "drivers/cuda/FusedKernels.h"

#include <limits>

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedLayoutTest : public FusedKernelTest {};

/// One case: the input, the permutation, the types on both sides of the
/// cast and whether the cast comes first.
struct LayoutCase {
  std::string name;
  Dims input;
  Dims permutation;
  DType from, to;
  bool castFirst = true;
  std::vector<double> values = {};
};

DefinitionCase makeDefinition(const LayoutCase &layout) {
  Dims permuted;
  for (int64_t axis : layout.permutation)
    permuted.push_back(layout.input[axis]);
  DefinitionText text(layout.name, {{"%x", tensorType(layout.input, layout.from)}});
  std::string attributes = "{permutation = " + listText(layout.permutation) + "}";
  std::string to = "{to = !cgc." + dtypeName(layout.to) + "}";
  TypedValue result;
  if (layout.castFirst) {
    TypedValue cast = text.layer("%c", "cgc_op.cast", {{"%x", tensorType(layout.input, layout.from)}},
                                 tensorType(layout.input, layout.to), to);
    result = text.layer("%t", "cgc_op.transpose", {cast}, tensorType(permuted, layout.to),
                        attributes);
  } else {
    TypedValue transposed =
        text.layer("%t", "cgc_op.transpose", {{"%x", tensorType(layout.input, layout.from)}},
                   tensorType(permuted, layout.from), attributes);
    result = text.layer("%c", "cgc_op.cast", {transposed}, tensorType(permuted, layout.to), to);
  }
  OperandSpec input = layout.values.empty() ? tensor(layout.input, layout.from, -70.0, 70.0)
                                            : values(layout.input, layout.from, layout.values);
  // Both sides convert each element once through float: exact.
  return DefinitionCase{text.str({result}), {input}, Tolerance{0.0, 0.0}};
}

std::vector<LayoutCase> layoutCases() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Past float16's range (inf), its subnormals, ties of its rounding.
  std::vector<double> special = {70000.0, -1e-6,  3e-8,       nan,  -inf,
                                 65520.0, 1.5e-5, 1.00048828, -2.5, 1e38};
  return {
      {"input_f16", {2, 3, 17, 23}, {0, 2, 3, 1}, DType::F32, DType::F16},
      {"input_bf16", {2, 3, 17, 23}, {0, 2, 3, 1}, DType::F32, DType::BF16},
      {"input_f16_transposed_first", {2, 3, 17, 23}, {0, 2, 3, 1}, DType::F32, DType::F16,
       false},
      {"to_f32", {1, 3, 9, 40}, {0, 2, 3, 1}, DType::F16, DType::F32},
      {"bf16_to_f16", {2, 4, 5, 6}, {0, 2, 3, 1}, DType::BF16, DType::F16},
      // Tiles copy bits: the per-element kernel converts.
      {"tiled_f16", {4, 33, 40}, {0, 2, 1}, DType::F32, DType::F16},
      {"rank5_bf16", {2, 3, 4, 5, 6}, {4, 0, 3, 1, 2}, DType::F32, DType::BF16, false},
      {"special_f16", {1, 3, 8, 5}, {0, 2, 3, 1}, DType::F32, DType::F16, true, special},
      {"special_bf16", {1, 3, 8, 5}, {0, 2, 3, 1}, DType::F32, DType::BF16, true, special},
  };
}

std::vector<DefinitionCase> layoutDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (const LayoutCase &layout : layoutCases())
    definitions.push_back(makeDefinition(layout));
  return definitions;
}

CGC_FUSED_KERNEL_CASES(FusedLayoutTest, CastsAndTransposes, layoutDefinitions)

TEST_F(FusedLayoutTest, CasesAreTheLayoutFamilys) {
  for (const DefinitionCase &definitionCase : layoutDefinitions())
    expectFusedFamily(definitionCase, "layout");
}

TEST_F(FusedLayoutTest, RejectsOtherTypes) {
  expectFusedRejected(
      makeDefinition({"int_cast", {1, 3, 4, 4}, {0, 2, 3, 1}, DType::I32, DType::F32}),
      "@int_cast: fused layout: cgc_op.cast with a transpose: element type int32 is not "
      "implemented on the CUDA driver (float32, float16 and bfloat16 to one another)");
  expectFusedRejected(
      makeDefinition({"f64_cast", {1, 3, 4, 4}, {0, 2, 3, 1}, DType::F32, DType::F64}),
      "element type float64 is not implemented on the CUDA driver");
}

TEST_F(FusedLayoutTest, LeavesOtherFormsToOtherFamilies) {
  // The cast's result also returned: not private to the transpose.
  DefinitionCase shared{R"mlir(
    cgc.functional_definition private @shared(%x: !cgc.tensor<1x3x4x4x!cgc.float32>) -> (!cgc.tensor<1x4x4x3x!cgc.float16>, !cgc.tensor<1x3x4x4x!cgc.float16>) {
      %c = cgc_op.cast(%x) {to = !cgc.float16} : (!cgc.tensor<1x3x4x4x!cgc.float32>) -> !cgc.tensor<1x3x4x4x!cgc.float16>
      %t = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x3x4x4x!cgc.float16>) -> !cgc.tensor<1x4x4x3x!cgc.float16>
      cgc.return %t, %c : !cgc.tensor<1x4x4x3x!cgc.float16>, !cgc.tensor<1x3x4x4x!cgc.float16>
    })mlir",
                        {tensor({1, 3, 4, 4}, DType::F32)},
                        {}};
  FunctionalDefinitionOp definition = buildDefinition(shared);
  ASSERT_TRUE(definition);
  EXPECT_NE(getFusedFamilyName(definition).str(), "layout");
  // A transpose alone.
  DefinitionCase alone{R"mlir(
    cgc.functional_definition private @alone(%x: !cgc.tensor<1x3x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x3x!cgc.float32> {
      %t = cgc_op.transpose(%x) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x3x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x3x!cgc.float32>
      cgc.return %t : !cgc.tensor<1x4x4x3x!cgc.float32>
    })mlir",
                       {tensor({1, 3, 4, 4}, DType::F32)},
                       {}};
  definition = buildDefinition(alone);
  ASSERT_TRUE(definition);
  EXPECT_NE(getFusedFamilyName(definition).str(), "layout");
}

} // namespace
