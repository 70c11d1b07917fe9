//===- FusedPoolingNhwcTest.cpp - channels-last fused pools ---------------===//
//
// The fused pooling family (max_pool_nhwc and average_pool_nhwc,
// patterns/pooling.mlir): an NHWC input transposed to NCHW, the pool, its
// result transposed to NHWC, run by one generated kernel on the NHWC memory
// (PoolingCodegen.h). The reference runs the definition layer by layer with
// the CPU driver's kernels, transposes included. ResNet's stem pool (3×3,
// stride 2, padding 1), 2×2 stride-2 pools, ceil_mode with and without a
// last window past the end padding (one ceil_mode drops, as ONNX says),
// count_include_pad both ways (the divisor of ceil_mode's overhanging
// windows), dilations, asymmetric padding, odd sizes, three channels (one
// channel per thread) and 64 (16-byte vectors), NaN and -inf inputs; in
// float32, float16 and bfloat16. On a device each case runs as the driver
// builds it, launched directly and through graph capture, and on buffers
// misaligned for vectors; without one, every case is recognized and its
// source compiled with NVRTC, and the refusals are checked.
//
// The global pools' form (global_average_pool_nhwc and global_max_pool_nhwc:
// the input's transpose, then the pool) likewise: ResNet's and MobileNetV2's
// 7×7 planes, channel counts that take several blocks of 32 groups, one
// channel per thread (3 and 12 channels), a single pixel, the largest plane
// taken (256 pixels), NaN and -inf; and the refusals of a larger plane and
// of another permutation.
//
//===----------------------------------------------------------------------===//

#include "DefinitionText.h"
#include "FusedTestSupport.h"

#include "drivers/cuda/FusedKernels.h"
#include "drivers/cuda/kernels/PoolingCodegen.h"

#include <array>
#include <cmath>
#include <limits>
#include <set>

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedPoolingNhwcTest : public FusedKernelTest {};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

/// One pool in the channels-last form: the N×H×W×C input and the pool's
/// attributes (empty lists are left out, as the importer leaves defaults).
struct PoolCase {
  std::string name;
  bool isMax = true;
  Dims input;
  Dims kernel;
  Dims strides = {}, startPadding = {}, endPadding = {}, dilations = {};
  bool ceilMode = false, countIncludePad = false;
  /// The input's values, repeated; uniform in [-2, 2] when empty.
  std::vector<double> values = {};
};

/// The pooled size of one spatial dimension, as the pool's verifier
/// infers it (ONNX's: a ceil_mode window starting in the end padding is
/// dropped).
int64_t pooledSize(const PoolCase &pool, size_t dim) {
  auto at = [&](const Dims &list, int64_t fallback) {
    return list.empty() ? fallback : list[dim];
  };
  int64_t size = pool.input[1 + dim], stride = at(pool.strides, 1);
  int64_t start = at(pool.startPadding, 0), end = at(pool.endPadding, 0);
  int64_t span = size + start + end - at(pool.dilations, 1) * (pool.kernel[dim] - 1) - 1;
  int64_t pooled = (pool.ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  if (pool.ceilMode && pooled > 1 && (pooled - 1) * stride >= size + start)
    --pooled;
  return pooled;
}

/// The pool's attribute dictionary.
std::string attributesOf(const PoolCase &pool) {
  std::string text = "{kernel_shape = " + listText(pool.kernel);
  auto list = [&](const char *name, const Dims &values) {
    if (!values.empty())
      text += std::string(", ") + name + " = " + listText(values);
  };
  list("strides", pool.strides);
  list("start_padding", pool.startPadding);
  list("end_padding", pool.endPadding);
  list("dilations", pool.dilations);
  if (pool.ceilMode)
    text += ", ceil_mode = true";
  if (pool.countIncludePad)
    text += ", count_include_pad = true";
  return text + "}";
}

/// The definition of `pool` in `dtype`, as the compiler's channels-last
/// form gives it to the driver.
DefinitionCase makePoolDefinition(const PoolCase &pool, DType dtype,
                                  const std::string &inputPermutation = "[0, 3, 1, 2]",
                                  const std::string &outputPermutation = "[0, 2, 3, 1]") {
  int64_t n = pool.input[0], h = pool.input[1], w = pool.input[2], c = pool.input[3];
  int64_t oh = pooledSize(pool, 0), ow = pooledSize(pool, 1);
  DefinitionText text(pool.name + "_" + dtypeName(dtype),
                      {{"%x", tensorType({n, h, w, c}, dtype)}});
  TypedValue xt = text.layer("%xt", "cgc_op.transpose", {{"%x", tensorType({n, h, w, c}, dtype)}},
                             tensorType({n, c, h, w}, dtype),
                             "{permutation = " + inputPermutation + "}");
  TypedValue pooled =
      text.layer("%p", pool.isMax ? "cgc_op.max_pool" : "cgc_op.average_pool", {xt},
                 tensorType({n, c, oh, ow}, dtype), attributesOf(pool));
  TypedValue y = text.layer("%y", "cgc_op.transpose", {pooled}, tensorType({n, oh, ow, c}, dtype),
                            "{permutation = " + outputPermutation + "}");
  OperandSpec input = pool.values.empty() ? tensor({n, h, w, c}, dtype)
                                          : values({n, h, w, c}, dtype, pool.values);
  // Maxima are exact; sums run in double in the kernels' order on both
  // sides, so the stated elementwise tolerances leave room only for the
  // last rounding. A window missed or miscounted is far outside them.
  return DefinitionCase{text.str({y}), {input}, elementwiseTolerance(dtype)};
}

/// ResNet's stem pool and the common 2×2 stride-2 one, on odd sizes, with
/// 64 channels (16-byte vectors) and 3 (one channel per thread).
std::vector<PoolCase> modelCases() {
  return {
      {"resnet_stem_max", true, {2, 15, 17, 64}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {"resnet_stem_max_c3", true, {1, 9, 11, 3}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {"resnet_stem_max_56", true, {2, 56, 56, 64}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {"max_2x2", true, {2, 8, 10, 64}, {2, 2}, {2, 2}},
      {"average_2x2", false, {2, 9, 7, 64}, {2, 2}, {2, 2}},
      {"average_3x3_padded", false, {2, 13, 11, 64}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {"average_3x3_padded_counted", false, {2, 13, 11, 64}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {},
       false, true},
  };
}

/// ceil_mode, count_include_pad, dilations, asymmetric padding, channel
/// counts between the vector widths (12: vectors of 4 float32, one channel
/// of 16-bit types per thread).
std::vector<PoolCase> windowCases() {
  return {
      // ceil_mode adds a last window on odd sizes, unpadded: the average's
      // divisor is what lies inside the input either way.
      {"max_2x2_ceil", true, {1, 7, 9, 16}, {2, 2}, {2, 2}, {}, {}, {}, true},
      {"average_2x2_ceil", false, {1, 7, 9, 16}, {2, 2}, {2, 2}, {}, {}, {}, true},
      {"average_2x2_ceil_counted", false, {1, 7, 9, 16}, {2, 2}, {2, 2}, {}, {}, {}, true, true},
      // 3×3 stride 2 padding 1 on 12: ceil_mode's 7th window starts at the
      // last input row and runs one past the end padding, which
      // count_include_pad does not count (divisor 2 per dimension, not 3).
      {"average_ceil_overhang", false, {2, 12, 12, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {},
       true},
      {"average_ceil_overhang_counted", false, {2, 12, 12, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1},
       {}, true, true},
      {"average_ceil_overhang_c3", false, {1, 12, 10, 3}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {},
       true, true},
      {"max_ceil_overhang", true, {2, 12, 12, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {}, true},
      // ceil_mode whose last window would start in the end padding: ONNX
      // drops it (6 rows, end padding 2: 3 windows, not 4).
      {"average_ceil_dropped_counted", false, {1, 6, 6, 8}, {3, 3}, {2, 2}, {0, 0}, {2, 2}, {},
       true, true},
      {"max_ceil_dropped", true, {1, 6, 7, 8}, {3, 3}, {2, 2}, {0, 0}, {2, 2}, {}, true},
      // Dilations, with padding and asymmetric strides.
      {"max_dilated", true, {1, 11, 10, 16}, {3, 3}, {}, {2, 2}, {2, 2}, {2, 2}},
      {"average_dilated_counted", false, {2, 13, 12, 8}, {3, 2}, {2, 1}, {2, 0}, {1, 2}, {2, 3},
       true, true},
      {"average_dilated", false, {2, 13, 12, 8}, {3, 2}, {2, 1}, {2, 0}, {1, 2}, {2, 3}, true},
      // Channel counts between the vector widths; one channel; a batch of 3.
      {"max_c12", true, {3, 9, 9, 12}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {"average_c12_counted", false, {1, 10, 9, 12}, {3, 3}, {1, 2}, {1, 1}, {1, 1}, {}, false,
       true},
      {"max_c1", true, {2, 7, 7, 1}, {2, 3}, {1, 2}, {0, 1}, {1, 0}},
      // A 1×1 window (a strided gather).
      {"max_1x1_strided", true, {1, 9, 9, 24}, {1, 1}, {2, 3}},
  };
}

/// NaN wins a maximum and poisons an average; -inf loses; padding never
/// takes part.
std::vector<PoolCase> specialValueCases() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {1.0, -3.0, nan, 0.5, -inf, 2.0, -1.5, 0.25, -inf, 3.0, -0.75};
  // All negative, so that padding read as zero would win a maximum.
  std::vector<double> negative = {-1.0, -3.0, -0.5, -2.25, -inf, -7.0, -0.125};
  return {
      {"max_nan", true, {1, 9, 11, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {}, false, false, values},
      {"average_nan", false, {1, 9, 11, 16}, {2, 2}, {2, 2}, {}, {}, {}, true, false, values},
      {"max_negative_padded", true, {1, 8, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {}, true, false,
       negative},
      {"max_negative_padded_c3", true, {1, 8, 9, 3}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {}, false,
       false, negative},
  };
}

/// A global pool in the channels-last form: the N×H×W×C input.
struct GlobalCase {
  std::string name;
  bool isMax = false;
  Dims input;
  std::vector<double> values = {};
};

/// The definition of `pool` in `dtype`: the input's transpose to NCHW and
/// the global pool, whose N×C×1×1 result the definition returns.
DefinitionCase makeGlobalDefinition(const GlobalCase &pool, DType dtype,
                                    const std::string &permutation = "[0, 3, 1, 2]") {
  int64_t n = pool.input[0], h = pool.input[1], w = pool.input[2], c = pool.input[3];
  DefinitionText text(pool.name + "_" + dtypeName(dtype),
                      {{"%x", tensorType({n, h, w, c}, dtype)}});
  TypedValue xt = text.layer("%xt", "cgc_op.transpose", {{"%x", tensorType({n, h, w, c}, dtype)}},
                             tensorType({n, c, h, w}, dtype),
                             "{permutation = " + permutation + "}");
  TypedValue pooled =
      text.layer("%p", pool.isMax ? "cgc_op.global_max_pool" : "cgc_op.global_average_pool",
                 {xt}, tensorType({n, c, 1, 1}, dtype), "");
  OperandSpec input = pool.values.empty() ? tensor({n, h, w, c}, dtype)
                                          : values({n, h, w, c}, dtype, pool.values);
  // Sums run in double on both sides (in different orders), so only the
  // last rounding differs.
  return DefinitionCase{text.str({pooled}), {input}, elementwiseTolerance(dtype)};
}

std::vector<GlobalCase> globalCases() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> special = {1.0, -3.0, nan, 0.5, -inf, 2.0, -1.5, 0.25, -inf, 3.0, -0.75};
  std::vector<double> negative = {-1.0, -3.0, -0.5, -2.25, -inf, -7.0, -0.125};
  return {
      {"resnet_tail_average", false, {2, 7, 7, 64}},
      {"resnet_tail_max", true, {2, 7, 7, 64}},
      // 34 groups of 8 (float16) or 68 of 4 (float32): two and three blocks
      // of 32 groups per image, the last one partly idle.
      {"average_c272", false, {3, 7, 7, 272}},
      {"max_c272", true, {2, 5, 3, 272}},
      // One channel per thread.
      {"average_c3", false, {2, 5, 6, 3}},
      {"max_c12", true, {2, 4, 9, 12}},
      {"average_c12", false, {1, 9, 4, 12}},
      {"average_one_pixel", false, {3, 1, 1, 16}},
      {"average_plane_256", false, {1, 16, 16, 40}},
      {"max_plane_256", true, {2, 8, 32, 8}},
      {"average_nan", false, {2, 3, 5, 16}, special},
      {"max_nan", true, {2, 3, 5, 16}, special},
      {"max_negative", true, {2, 3, 3, 24}, negative},
  };
}

std::vector<DefinitionCase> globalDefinitions() {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kFloatTypes)
    for (const GlobalCase &pool : globalCases())
      definitions.push_back(makeGlobalDefinition(pool, dtype));
  return definitions;
}

std::vector<DefinitionCase> definitionsOf(const std::vector<PoolCase> &cases) {
  std::vector<DefinitionCase> definitions;
  for (DType dtype : kFloatTypes)
    for (const PoolCase &pool : cases)
      definitions.push_back(makePoolDefinition(pool, dtype));
  return definitions;
}
std::vector<DefinitionCase> modelDefinitions() { return definitionsOf(modelCases()); }
std::vector<DefinitionCase> windowDefinitions() { return definitionsOf(windowCases()); }
std::vector<DefinitionCase> specialValueDefinitions() { return definitionsOf(specialValueCases()); }
std::vector<DefinitionCase> allDefinitions() {
  std::vector<DefinitionCase> all = modelDefinitions();
  for (auto more : {windowDefinitions(), specialValueDefinitions(), globalDefinitions()})
    all.insert(all.end(), more.begin(), more.end());
  return all;
}

CGC_FUSED_KERNEL_CASES(FusedPoolingNhwcTest, ModelShapes, modelDefinitions)
CGC_FUSED_KERNEL_CASES(FusedPoolingNhwcTest, Windows, windowDefinitions)
CGC_FUSED_KERNEL_CASES(FusedPoolingNhwcTest, SpecialValues, specialValueDefinitions)
CGC_FUSED_KERNEL_CASES(FusedPoolingNhwcTest, GlobalPools, globalDefinitions)

/// Buffers misaligned for vectors run the one-channel-per-thread kernel: a
/// vector access there would fault (misaligned address).
TEST_F(FusedPoolingNhwcTest, MisalignedBuffersMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  for (const DefinitionCase &definitionCase : allDefinitions()) {
    SCOPED_TRACE(definitionCase.describe());
    auto [definition, inputs, expected] = runReference(definitionCase);
    ASSERT_TRUE(definition);
    ASSERT_EQ(expected.size(), 1u);
    std::optional<llvm::Expected<Kernel>> kernel = buildFusedKernel(definition, *kernelContext);
    ASSERT_TRUE(kernel.has_value()) << "not recognized";
    ASSERT_TRUE(static_cast<bool>(*kernel)) << llvm::toString(kernel->takeError());
    std::vector<HostTensor> actual =
        launchMisaligned(**kernel, inputs, makeOutputs(definition.getResultTypes()));
    ASSERT_EQ(actual.size(), 1u);
    expectClose(actual[0], expected[0], definitionCase.tolerance, "misaligned buffers");
  }
}

TEST_F(FusedPoolingNhwcTest, CasesAreThePoolingFamilys) {
  for (const DefinitionCase &definitionCase : allDefinitions())
    expectFusedFamily(definitionCase, "pooling");
}

//===----------------------------------------------------------------------===//
// The generated source, compiled without a device
//===----------------------------------------------------------------------===//

/// The geometry of `pool` in `dtype`, as the family reads it.
NhwcPoolGeometry geometryOf(const PoolCase &pool, DType dtype) {
  NhwcPoolGeometry geometry;
  geometry.dtype = dtype;
  geometry.isMax = pool.isMax;
  geometry.countIncludePad = pool.countIncludePad;
  geometry.batch = pool.input[0];
  geometry.height = pool.input[1];
  geometry.width = pool.input[2];
  geometry.channels = pool.input[3];
  geometry.outputHeight = pooledSize(pool, 0);
  geometry.outputWidth = pooledSize(pool, 1);
  auto copy = [](const Dims &values, int64_t fallback, std::array<int64_t, 2> &into) {
    into = values.empty() ? std::array<int64_t, 2>{fallback, fallback}
                          : std::array<int64_t, 2>{values[0], values[1]};
  };
  copy(pool.kernel, 1, geometry.kernel);
  copy(pool.strides, 1, geometry.strides);
  copy(pool.dilations, 1, geometry.dilations);
  copy(pool.startPadding, 0, geometry.startPadding);
  copy(pool.endPadding, 0, geometry.endPadding);
  return geometry;
}

/// Every case's source compiles with NVRTC (for sm_90): the one-channel
/// kernel always, the vector kernel exactly when the channels are a
/// multiple of 16 bytes.
TEST_F(FusedPoolingNhwcTest, SourcesCompile) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  std::vector<PoolCase> cases = modelCases();
  for (auto more : {windowCases(), specialValueCases()})
    cases.insert(cases.end(), more.begin(), more.end());
  std::set<std::string> sources;
  for (DType dtype : kFloatTypes)
    for (const PoolCase &pool : cases) {
      SCOPED_TRACE(pool.name + " " + dtypeName(dtype));
      NhwcPoolGeometry geometry = geometryOf(pool, dtype);
      std::string source = generateNhwcPoolSource(geometry);
      bool vector = pool.input[3] % (dtype == DType::F32 ? 4 : 8) == 0;
      EXPECT_EQ(hasNhwcPoolVectorKernel(geometry), vector);
      auto defines = [&](const char *name) {
        return source.find(std::string("__launch_bounds__(256) ") + name + "(") !=
               std::string::npos;
      };
      EXPECT_TRUE(defines(kNhwcPoolKernel));
      EXPECT_EQ(defines(kNhwcPoolVectorKernel), vector);
      for (const char *name : {kNhwcPoolKernel, kNhwcPoolVectorKernel}) {
        if (!defines(name))
          continue;
        llvm::Expected<DeviceFunction> function = context->getCompiler().getFunction(source, name);
        ASSERT_TRUE(static_cast<bool>(function)) << llvm::toString(function.takeError());
      }
      sources.insert(source);
    }
  // One module per distinct source (the cache holds each once).
  EXPECT_EQ(context->getCompiler().getModuleCount(), sources.size());
}

/// Every global case's source compiles, with the vector kernel exactly
/// when the channels are a multiple of 16 bytes.
TEST_F(FusedPoolingNhwcTest, GlobalSourcesCompile) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  for (DType dtype : kFloatTypes)
    for (const GlobalCase &pool : globalCases()) {
      SCOPED_TRACE(pool.name + " " + dtypeName(dtype));
      NhwcGlobalPoolGeometry geometry;
      geometry.dtype = dtype;
      geometry.isMax = pool.isMax;
      geometry.batch = pool.input[0];
      geometry.pixels = pool.input[1] * pool.input[2];
      geometry.channels = pool.input[3];
      bool vector = pool.input[3] % (dtype == DType::F32 ? 4 : 8) == 0;
      EXPECT_EQ(hasNhwcGlobalPoolVectorKernel(geometry), vector);
      int64_t groups = vector ? pool.input[3] / (dtype == DType::F32 ? 4 : 8) : pool.input[3];
      EXPECT_EQ(getNhwcGlobalPoolBlocks(geometry, vector), pool.input[0] * ((groups + 31) / 32));
      std::string source = generateNhwcGlobalPoolSource(geometry);
      for (const char *name : {kNhwcGlobalPoolKernel, kNhwcGlobalPoolVectorKernel}) {
        bool defined = source.find(std::string("__launch_bounds__(256) ") + name + "(") !=
                       std::string::npos;
        EXPECT_EQ(defined, name == kNhwcGlobalPoolKernel || vector) << name;
        if (!defined)
          continue;
        llvm::Expected<DeviceFunction> function = context->getCompiler().getFunction(source, name);
        ASSERT_TRUE(static_cast<bool>(function)) << llvm::toString(function.takeError());
      }
    }
}

/// Indices beyond 32 bits switch the kernels to 64-bit indexing: the
/// source still compiles (nothing is launched).
TEST_F(FusedPoolingNhwcTest, WideIndicesCompile) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  PoolCase huge{"huge", false, {64, 1024, 1024, 64}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  for (DType dtype : kFloatTypes) {
    std::string source = generateNhwcPoolSource(geometryOf(huge, dtype));
    EXPECT_NE(source.find("typedef long long cgc_index;"), std::string::npos);
    for (const char *name : {kNhwcPoolKernel, kNhwcPoolVectorKernel}) {
      llvm::Expected<DeviceFunction> function = context->getCompiler().getFunction(source, name);
      ASSERT_TRUE(static_cast<bool>(function)) << llvm::toString(function.takeError());
    }
  }
  std::string small = generateNhwcPoolSource(geometryOf(modelCases()[0], DType::F16));
  EXPECT_NE(small.find("typedef int cgc_index;"), std::string::npos);
}

/// The pattern's element types are the kernel's: a float64 pool in the form
/// is refused, naming the types there are.
TEST_F(FusedPoolingNhwcTest, RejectsOtherElementTypes) {
  expectFusedRejected(makePoolDefinition(modelCases()[0], DType::F64),
                      "@resnet_stem_max_float64: fused pooling: cgc_op.max_pool: element type "
                      "float64 is not implemented on the CUDA driver (float32, float16 and "
                      "bfloat16)");
}

//===----------------------------------------------------------------------===//
// What the channels-last form refuses
//===----------------------------------------------------------------------===//

TEST_F(FusedPoolingNhwcTest, RejectsOtherPermutations) {
  // Square shapes keep the IR valid with the other permutations.
  PoolCase square{"pool_permuted", true, {1, 6, 6, 6}, {2, 2}, {2, 2}};
  expectFusedRejected(makePoolDefinition(square, DType::F16, "[0, 3, 2, 1]"),
                      "@pool_permuted_float16: fused pooling: channels-last form: the input's "
                      "transpose with permutation [0, 3, 2, 1] is not implemented on the CUDA "
                      "driver (only [0, 3, 1, 2], NHWC to NCHW)");
  expectFusedRejected(makePoolDefinition(square, DType::F32, "[0, 3, 1, 2]", "[0, 3, 2, 1]"),
                      "the result's transpose with permutation [0, 3, 2, 1] is not implemented "
                      "on the CUDA driver (only [0, 2, 3, 1], NCHW to NHWC)");
}

TEST_F(FusedPoolingNhwcTest, RejectsIncompleteOrOtherForms) {
  const std::string kForm =
      "fused pooling: channels-last form: the CUDA driver implements a max_pool or average_pool "
      "between its own transposes";
  // The pool alone, NCHW (the fallback target's per-layer kernel runs it).
  DefinitionCase bare{R"mlir(
    cgc.functional_definition private @bare(%x: !cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32> {
      %p = cgc_op.max_pool(%x) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      cgc.return %p : !cgc.tensor<1x2x2x2x!cgc.float32>
    })mlir",
                      {tensor({1, 2, 4, 4}, DType::F32)},
                      {}};
  expectFusedRejected(bare, "@bare: " + kForm);
  // The input transposed, the result left NCHW.
  DefinitionCase noOutput{R"mlir(
    cgc.functional_definition private @no_output(%x: !cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32> {
      %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %p = cgc_op.average_pool(%xt) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      cgc.return %p : !cgc.tensor<1x2x2x2x!cgc.float32>
    })mlir",
                          {tensor({1, 4, 4, 2}, DType::F32)},
                          {}};
  expectFusedRejected(noOutput, kForm);
  // The input's transpose also returned: not private to the pool.
  DefinitionCase shared{R"mlir(
    cgc.functional_definition private @shared(%x: !cgc.tensor<1x4x4x2x!cgc.float32>) -> (!cgc.tensor<1x2x2x2x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>) {
      %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %p = cgc_op.max_pool(%xt) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      %y = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x2x2x2x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      cgc.return %y, %xt : !cgc.tensor<1x2x2x2x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>
    })mlir",
                        {tensor({1, 4, 4, 2}, DType::F32)},
                        {}};
  expectFusedRejected(shared, kForm);
  // A layer after the form.
  DefinitionCase chained{R"mlir(
    cgc.functional_definition private @chained(%x: !cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32> {
      %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      %p = cgc_op.max_pool(%xt) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      %y = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x2x2x2x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      %r = cgc_op.relu(%y) : (!cgc.tensor<1x2x2x2x!cgc.float32>) -> !cgc.tensor<1x2x2x2x!cgc.float32>
      cgc.return %r : !cgc.tensor<1x2x2x2x!cgc.float32>
    })mlir",
                         {tensor({1, 4, 4, 2}, DType::F32)},
                         {}};
  expectFusedRejected(chained, kForm);
  // A 1-D pool in the same form (NWC, [0, 2, 1]).
  DefinitionCase oneD{R"mlir(
    cgc.functional_definition private @one_d(%x: !cgc.tensor<1x8x4x!cgc.float32>) -> !cgc.tensor<1x4x4x!cgc.float32> {
      %xt = cgc_op.transpose(%x) {permutation = [0, 2, 1]} : (!cgc.tensor<1x8x4x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
      %p = cgc_op.max_pool(%xt) {kernel_shape = [2], strides = [2]} : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x4x!cgc.float32>
      %y = cgc_op.transpose(%p) {permutation = [0, 2, 1]} : (!cgc.tensor<1x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x!cgc.float32>
      cgc.return %y : !cgc.tensor<1x4x4x!cgc.float32>
    })mlir",
                      {tensor({1, 8, 4}, DType::F32)},
                      {}};
  expectFusedRejected(oneD, "@one_d: fused pooling: channels-last form: a pool of rank 3 is not "
                            "implemented on the CUDA driver (only 2-D pools, rank 4)");
}

TEST_F(FusedPoolingNhwcTest, RejectsOtherGlobalForms) {
  // A plane of more than 256 pixels runs as the transpose and the NCHW
  // pool.
  expectFusedRejected(makeGlobalDefinition({"global_large", false, {1, 17, 16, 8}}, DType::F16),
                      "@global_large_float16: fused pooling: channels-last form: "
                      "cgc_op.global_average_pool over 17x16 pixels: the CUDA driver's "
                      "channels-last global pool takes planes of at most 256 pixels (larger ones "
                      "run as the transpose and the NCHW pool)");
  expectFusedRejected(
      makeGlobalDefinition({"global_permuted", true, {1, 4, 4, 4}}, DType::F32, "[0, 3, 2, 1]"),
      "@global_permuted_float32: fused pooling: channels-last form: the input's transpose with "
      "permutation [0, 3, 2, 1] is not implemented on the CUDA driver (only [0, 3, 1, 2], NHWC "
      "to NCHW)");
  expectFusedRejected(makeGlobalDefinition({"global_f64", false, {1, 2, 2, 4}}, DType::F64),
                      "@global_f64_float64: fused pooling: cgc_op.global_average_pool: element "
                      "type float64 is not implemented on the CUDA driver (float32, float16 and "
                      "bfloat16)");
  // The pool alone, NCHW.
  DefinitionCase bare{R"mlir(
    cgc.functional_definition private @global_bare(%x: !cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x1x1x!cgc.float32> {
      %p = cgc_op.global_average_pool(%x) : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x1x1x!cgc.float32>
      cgc.return %p : !cgc.tensor<1x2x1x1x!cgc.float32>
    })mlir",
                      {tensor({1, 2, 4, 4}, DType::F32)},
                      {}};
  expectFusedRejected(bare, "@global_bare: fused pooling: channels-last form: the CUDA driver "
                            "implements a global_average_pool or global_max_pool of its own "
                            "transpose of the definition's one argument (NHWC to NCHW), which "
                            "the definition returns");
}

TEST_F(FusedPoolingNhwcTest, LeavesOtherDefinitionsToOtherFamilies) {
  // A definition without a pool is not this family's.
  DefinitionCase transpose{R"mlir(
    cgc.functional_definition private @transpose_only(%x: !cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32> {
      %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x2x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
      cgc.return %xt : !cgc.tensor<1x2x4x4x!cgc.float32>
    })mlir",
                           {tensor({1, 4, 4, 2}, DType::F32)},
                           {}};
  FunctionalDefinitionOp definition = buildDefinition(transpose);
  ASSERT_TRUE(definition);
  EXPECT_NE(getFusedFamilyName(definition).str(), "pooling");
}

} // namespace
