//===- ElementwiseDenseTest.cpp - the dense and strided elementwise kernels ===//
//
// The two shapes of the generated elementwise kernel (ElementwiseCodegen.h):
// which one a spec gets, its chunk and the launches that write every
// element once (checked without a device), the 32-bit index divisions of
// the strided one, generated sources that must compile, and results that
// must match the CPU kernels on every path of the dense one: whole
// vectorized chunks, counts that leave a tail (or no whole chunk), buffers
// and starts less aligned than a chunk (every element one at a time),
// one-element operands read once, several element types in and out, grids
// that stride past one pass; broadcasts that are not one element
// take the strided kernel. Integer and bool results are compared exactly,
// floating-point ones within the elementwise tolerances.
//
//===----------------------------------------------------------------------===//

#include "DefinitionText.h"
#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/ElementwiseCodegen.h"
#include "drivers/cuda/kernels/FusedSupport.h"

#include <algorithm>
#include <cstring>

using cgc::FunctionalDefinitionOp;
using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class ElementwiseDenseTest : public CUDAKernelTest {};

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// out = expression over operands of `operandShapes` broadcast to `shape`.
StridedKernelSpec broadcastSpec(const Dims &shape, const std::vector<Dims> &operandShapes,
                                DType dtype, DType outputType) {
  StridedKernelSpec spec;
  spec.outputShape = Shape(shape.begin(), shape.end());
  spec.outputType = outputType;
  for (const Dims &operandShape : operandShapes)
    spec.operands.push_back(broadcastOperand(dtype, operandShape, shape));
  spec.expression = "x0";
  return spec;
}

/// `plan`'s kernel, chunk, one-element operands and index width as text.
std::string describePlan(const StridedKernelPlan &plan) {
  std::string text = plan.kind == StridedKernelKind::Dense
                         ? "dense " + std::to_string(plan.chunk)
                         : "strided rank " + std::to_string(plan.loops.sizes.size());
  text += " uniform [";
  for (size_t operand = 0; operand < plan.uniform.size(); ++operand)
    text += std::string(operand ? ", " : "") + (plan.uniform[operand] ? "1" : "0");
  return text + "]" + (plan.narrow ? "" : " wide");
}

TEST_F(ElementwiseDenseTest, PlansOfEpiloguesAndLayers) {
  // BERT-base's erf-GELU epilogue: the output read back, three constants.
  EXPECT_EQ(describePlan(planStridedKernel(broadcastSpec(
                {4096, 3072}, {{4096, 3072}, {}, {1}, {1, 1}}, DType::F16, DType::F16))),
            "dense 8 uniform [0, 1, 1, 1]");
  // A bias row is not one element: strided.
  EXPECT_EQ(describePlan(planStridedKernel(
                broadcastSpec({4096, 3072}, {{4096, 3072}, {3072}}, DType::F16, DType::F16))),
            "strided rank 2 uniform [0, 0]");
  // Same-shape layers of any rank merge to one contiguous loop.
  EXPECT_EQ(describePlan(planStridedKernel(
                broadcastSpec({2, 3, 5, 7}, {{2, 3, 5, 7}, {2, 3, 5, 7}}, DType::F32, DType::F32))),
            "dense 4 uniform [0, 0]");
  // Size-1 dimensions do not matter.
  EXPECT_EQ(describePlan(planStridedKernel(
                broadcastSpec({4, 1, 6}, {{4, 1, 6}, {1, 1, 1}}, DType::F32, DType::F32))),
            "dense 4 uniform [0, 1]");
  // One element out: every operand is one element.
  EXPECT_EQ(
      describePlan(planStridedKernel(broadcastSpec({1, 1}, {{1, 1}, {}}, DType::F32, DType::F32))),
      "dense 4 uniform [1, 1]");
  // The chunk is 16 bytes of the widest type read or written.
  EXPECT_EQ(describePlan(planStridedKernel(broadcastSpec({9}, {{9}}, DType::F16, DType::F32))),
            "dense 4 uniform [0]");
  EXPECT_EQ(describePlan(planStridedKernel(broadcastSpec({9}, {{9}}, DType::F32, DType::Bool))),
            "dense 4 uniform [0]");
  EXPECT_EQ(describePlan(planStridedKernel(broadcastSpec({9}, {{9}}, DType::Bool, DType::Bool))),
            "dense 16 uniform [0]");
  EXPECT_EQ(describePlan(planStridedKernel(broadcastSpec({9}, {{9}}, DType::I64, DType::F16))),
            "dense 2 uniform [0]");
  // A one-element int64 operand does not narrow the chunk.
  EXPECT_EQ(describePlan(planStridedKernel(broadcastSpec({9}, {{9}, {}}, DType::F16, DType::F16))),
            "dense 8 uniform [0, 1]");
}

TEST_F(ElementwiseDenseTest, PlansOfViewsAndWideCounts) {
  // A start (a slice of a larger buffer) keeps the dense kernel: alignment
  // is checked at launch.
  StridedKernelSpec slice = broadcastSpec({5, 7}, {{5, 7}}, DType::F16, DType::F16);
  slice.operands[0].start = 3;
  EXPECT_EQ(describePlan(planStridedKernel(slice)), "dense 8 uniform [0]");
  // Stepped and reversed reads are strided.
  StridedKernelSpec stepped = slice;
  stepped.operands[0].strides = {20, 2};
  EXPECT_EQ(describePlan(planStridedKernel(stepped)), "strided rank 2 uniform [0]");
  StridedKernelSpec reversed = broadcastSpec({35}, {{35}}, DType::F16, DType::F16);
  reversed.operands[0].strides = {-1};
  reversed.operands[0].start = 34;
  EXPECT_EQ(describePlan(planStridedKernel(reversed)), "strided rank 1 uniform [0]");
  // Column broadcasts, interleaved ones.
  EXPECT_EQ(describePlan(
                planStridedKernel(broadcastSpec({6, 7}, {{6, 7}, {6, 1}}, DType::F32, DType::F32))),
            "strided rank 2 uniform [0, 0]");
  EXPECT_EQ(describePlan(planStridedKernel(broadcastSpec(
                {3, 5, 4, 2}, {{3, 1, 4, 1}, {1, 5, 1, 2}, {}}, DType::I32, DType::I32))),
            "strided rank 4 uniform [0, 0, 1]");
  // Past 2^30 elements both kernels index in 64 bits.
  EXPECT_EQ(describePlan(planStridedKernel(
                broadcastSpec({1024, 1024, 1040}, {{1024, 1024, 1040}, {}}, DType::I8, DType::I8))),
            "dense 16 uniform [0, 1] wide");
}

/// How many times the dense kernel's loops (generateDenseSource) write each
/// output element under `launch`: whole chunks while vectorized, then one
/// element at a time from the first element no chunk covered, every thread
/// of the grid striding by the grid.
std::vector<int> countDenseWrites(const StridedKernelLaunch &launch, int64_t chunk) {
  int64_t count = launch.params.front();
  int64_t chunks = launch.params.back() != 0 ? count / chunk : 0;
  int64_t step = static_cast<int64_t>(launch.blocks) * 256;
  std::vector<int> writes(count, 0);
  for (int64_t first = 0; first < step; ++first) {
    for (int64_t index = first; index < chunks; index += step)
      for (int64_t element = 0; element < chunk; ++element)
        ++writes[index * chunk + element];
    for (int64_t index = chunks * chunk + first; index < count; index += step)
      ++writes[index];
  }
  return writes;
}

TEST_F(ElementwiseDenseTest, DenseLaunchesWriteEveryElementOnce) {
  struct Case {
    std::string what;
    StridedKernelSpec spec;
    int64_t chunk;
  };
  std::vector<Case> cases = {
      // The layers an H100 run found unwritten (launchOnCuda's fill of the
      // output, on the legacy stream, landed after the kernel): a tail of 3,
      // no whole chunk (a one-element operand read once), a chunk of the
      // input's width.
      {"sin float32 5x131", broadcastSpec({5, 131}, {{5, 131}}, DType::F32, DType::F32), 4},
      {"ceil bfloat16 scalar", broadcastSpec({}, {{}}, DType::BF16, DType::BF16), 8},
      {"cast uint64 3x37 to float32", broadcastSpec({3, 37}, {{3, 37}}, DType::U64, DType::F32), 2},
      // No operand; a start; more chunks than one grid pass with a tail.
      {"fill int32 5x9", broadcastSpec({5, 9}, {}, DType::F32, DType::I32), 4},
      {"slice float16 5x7 at 3", broadcastSpec({5, 7}, {{5, 7}}, DType::F16, DType::F16), 8},
      {"add float32 3x1469x1001",
       broadcastSpec({3, 1469, 1001}, {{3, 1469, 1001}, {3, 1469, 1001}}, DType::F32, DType::F32),
       4},
  };
  cases[4].spec.operands[0].start = 3;
  for (const Case &entry : cases) {
    SCOPED_TRACE(entry.what);
    const StridedKernelSpec &spec = entry.spec;
    StridedKernelPlan plan = planStridedKernel(spec);
    ASSERT_EQ(plan.kind, StridedKernelKind::Dense);
    ASSERT_EQ(plan.chunk, entry.chunk);
    DenseLaunches launches = getDenseLaunches(spec, plan, getCompileOnlyContext());
    // cgc_dense_params: count, starts[max(operands, 1)], vectorized.
    int64_t count = getNumElements(spec.outputShape);
    size_t starts = std::max<size_t>(spec.operands.size(), 1);
    for (const StridedKernelLaunch *launch : {&launches.vectorized, &launches.elements}) {
      ASSERT_EQ(launch->params.size(), 2 + starts);
      EXPECT_EQ(launch->params[0], count);
      for (size_t operand = 0; operand < spec.operands.size(); ++operand)
        EXPECT_EQ(launch->params[1 + operand], spec.operands[operand].start);
      EXPECT_GE(launch->blocks, 1u);
    }
    EXPECT_EQ(launches.vectorized.params.back(), 1);
    EXPECT_EQ(launches.elements.params.back(), 0);

    // Buffers as cudaMalloc places them (256-byte aligned) and shifted by
    // a few bytes, each operand, or the output alone.
    const uintptr_t kBase = uintptr_t(1) << 40;
    for (uintptr_t shift : {0, 1, 2, 4, 8, 16})
      for (int shifted = -1; shifted <= static_cast<int>(spec.operands.size()); ++shifted) {
        SCOPED_TRACE("shift " + std::to_string(shift) + " of buffer " + std::to_string(shifted));
        auto placeOf = [&](int buffer) {
          return kBase + 4096 * (buffer + 1) + (shifted < 0 || shifted == buffer ? shift : 0);
        };
        std::vector<const void *> inputs;
        bool aligned = true;
        for (size_t operand = 0; operand < spec.operands.size(); ++operand) {
          uintptr_t address = placeOf(static_cast<int>(operand));
          inputs.push_back(reinterpret_cast<const void *>(address));
          uint64_t width = getByteWidth(spec.operands[operand].dtype);
          aligned = aligned &&
                    (plan.uniform[operand] ||
                     (address + spec.operands[operand].start * width) % (width * plan.chunk) == 0);
        }
        uintptr_t output = placeOf(static_cast<int>(spec.operands.size()));
        aligned = aligned && output % (getByteWidth(spec.outputType) * plan.chunk) == 0;
        std::vector<void *> outputs{reinterpret_cast<void *>(output)};
        const StridedKernelLaunch &chosen = launches.choose(inputs, outputs);
        EXPECT_EQ(&chosen == &launches.vectorized, aligned);
        std::vector<int> writes = countDenseWrites(chosen, plan.chunk);
        auto wrong = std::find_if(writes.begin(), writes.end(), [](int n) { return n != 1; });
        EXPECT_EQ(wrong, writes.end()) << "element " << (wrong - writes.begin()) << " written "
                                       << (wrong == writes.end() ? 1 : *wrong) << " times";
      }
  }
}

/// n / divisor as the 32-bit strided kernel computes it (umulhi on the
/// host).
uint32_t divideLikeTheKernel(uint32_t n, const IndexDivisor &divisor) {
  uint32_t high = static_cast<uint32_t>((static_cast<uint64_t>(n) * divisor.magic) >> 32);
  return (high + n) >> divisor.shift;
}

TEST_F(ElementwiseDenseTest, IndexDivisorsDivideEveryIndexExactly) {
  std::vector<int64_t> divisors;
  for (int64_t divisor = 1; divisor <= 1100; ++divisor)
    divisors.push_back(divisor);
  for (int64_t power = 11; power <= 30; ++power)
    for (int64_t delta : {-1, 0, 1})
      divisors.push_back((int64_t(1) << power) + delta);
  for (int64_t divisor : {3072, 3 * 3072, 12 * 197, 50257, 1000003, 3 << 28, (1 << 30) + 12345})
    divisors.push_back(divisor);
  divisors.push_back((int64_t(1) << 31) - 1);
  const uint32_t kLast = (uint32_t(1) << 31) - 1;
  for (int64_t divisor : divisors) {
    IndexDivisor fast = getIndexDivisor(divisor);
    uint32_t d = static_cast<uint32_t>(divisor);
    // Around 0, the end of the index range and multiples of the divisor
    // (where the quotient steps).
    std::vector<uint32_t> indices = {0, 1, 2, kLast, kLast - 1, kLast - d + 1};
    for (uint32_t multiple :
         {uint32_t(1), uint32_t(2), uint32_t(7), kLast / d, kLast / d / 2, kLast / d / 3})
      if (multiple != 0 && uint64_t(multiple) * d <= kLast)
        for (int64_t delta : {-1, 0, 1}) {
          int64_t n = int64_t(multiple) * d + delta;
          if (n >= 0 && n <= int64_t(kLast))
            indices.push_back(static_cast<uint32_t>(n));
        }
    for (uint32_t n : indices)
      ASSERT_EQ(divideLikeTheKernel(n, fast), n / d) << n << " / " << d;
  }
}

//===----------------------------------------------------------------------===//
// Generated sources compile
//===----------------------------------------------------------------------===//

TEST_F(ElementwiseDenseTest, SpecsOfEveryShapeCompile) {
  mlir::Operation *op =
      buildOp({"cgc_op.add", {tensor({4}, DType::F32), tensor({4}, DType::F32)}, ""});
  ASSERT_NE(op, nullptr);
  KernelContext::Impl &compileOnly = getCompileOnlyContext();
  auto expectBuilds = [&](const StridedKernelSpec &spec, StridedKernelKind kind) {
    EXPECT_EQ(planStridedKernel(spec).kind, kind) << spec.expression;
    llvm::Expected<Kernel> kernel = buildStridedKernel(op, compileOnly, spec);
    EXPECT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  };
  // The GELU epilogue as FusedMatmul.cpp writes it: a lambda over the
  // output and three one-element operands, 32-bit and 64-bit indices.
  for (Dims shape : {Dims{4096, 3072}, Dims{512, 1024, 2100}}) {
    StridedKernelSpec gelu = broadcastSpec(shape, {shape, {}, {}, {}}, DType::F16, DType::F16);
    gelu.expression = "[&]() -> float {\n      const float e0 = x1;\n      const float e1 = x2;\n"
                      "      const float e2 = x3;\n      const float d = x0;\n"
                      "      const float v0 = d / e0;\n      const float v1 = erff(v0);\n"
                      "      const float v2 = v1 + e1;\n      const float v3 = d * v2;\n"
                      "      const float v4 = v3 * e2;\n      return v4;\n    }()";
    expectBuilds(gelu, StridedKernelKind::Dense);
  }
  // where: raw operands and output, a one-element raw operand.
  StridedKernelSpec where = broadcastSpec({3, 37}, {{3, 37}, {3, 37}, {}}, DType::F16, DType::F16);
  where.operands[0].dtype = DType::Bool;
  where.operands[1].raw = where.operands[2].raw = true;
  where.rawOutput = true;
  where.expression = "(x0 ? x1 : x2)";
  expectBuilds(where, StridedKernelKind::Dense);
  // Statements and several outputs of other types.
  StridedKernelSpec several = broadcastSpec({5, 9}, {{5, 9}, {5, 9}}, DType::F32, DType::F16);
  several.statements = "    const float v0 = x0 + x1;\n";
  several.expression = "v0";
  several.moreOutputs.push_back({DType::Bool, "(v0 > 0.0f)"});
  several.moreOutputs.push_back({DType::I64, "(long long)x1"});
  expectBuilds(several, StridedKernelKind::Dense);
  // No operand at all.
  StridedKernelSpec fill = broadcastSpec({5, 9}, {}, DType::F32, DType::I32);
  fill.expression = "7";
  expectBuilds(fill, StridedKernelKind::Dense);
  // Strided with a one-element operand, 32-bit and 64-bit indices.
  for (Dims shape : {Dims{4, 6, 8}, Dims{1024, 1024, 1040}}) {
    StridedKernelSpec bias =
        broadcastSpec(shape, {shape, {shape[2]}, {}}, DType::BF16, DType::BF16);
    bias.expression = "(x0 + x1) * x2";
    expectBuilds(bias, StridedKernelKind::Strided);
  }
}

//===----------------------------------------------------------------------===//
// Layers against the CPU
//===----------------------------------------------------------------------===//

/// Layers whose counts are a whole number of chunks, leave a tail or have
/// no whole chunk, with one-element operands; every output type the brief
/// names; grids that take more than one pass.
std::vector<OpCase> denseLayerCases() {
  std::vector<OpCase> cases;
  const DType floats[] = {DType::F16, DType::BF16, DType::F32, DType::F64};
  for (DType dtype : floats) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    for (Dims shape : {Dims{8, 16}, Dims{3, 37}, Dims{5}, Dims{1, 1}}) {
      cases.push_back({"cgc_op.add", {tensor(shape, dtype), tensor(shape, dtype)}, "", tolerance});
      cases.push_back({"cgc_op.mul", {tensor(shape, dtype), tensor({}, dtype)}, "", tolerance});
      cases.push_back({"cgc_op.sub", {tensor({1}, dtype), tensor(shape, dtype)}, "", tolerance});
      cases.push_back({"cgc_op.gelu", {tensor(shape, dtype, -4, 4)}, "", tolerance});
    }
    // Comparisons: bool out, chunks of the input's width.
    cases.push_back({"cgc_op.less",
                     {values({3, 37}, dtype, {-1, 0, 1, 2, 0.5, 1, -1}),
                      values({3, 37}, dtype, {0, 1, 2, -1, 1})},
                     "",
                     tolerance});
    cases.push_back(
        {"cgc_op.greater_equal", {tensor({3, 37}, dtype, -1, 1), values({}, dtype, {0.25})}, ""});
  }
  for (DType dtype : {DType::I32, DType::I64, DType::I8, DType::U16}) {
    double low = dtype == DType::I8 ? -128 : (dtype == DType::U16 ? 0 : -30000);
    double high = dtype == DType::I8 ? 127 : (dtype == DType::U16 ? 65535 : 30000);
    for (Dims shape : {Dims{8, 16}, Dims{7, 41}, Dims{3}}) {
      cases.push_back(
          {"cgc_op.add", {tensor(shape, dtype, low, high), tensor(shape, dtype, low, high)}, ""});
      cases.push_back(
          {"cgc_op.mul", {tensor(shape, dtype, low, high), tensor({}, dtype, low, high)}, ""});
      cases.push_back(
          {"cgc_op.div", {tensor(shape, dtype, low, high), values({}, dtype, {7})}, ""});
    }
  }
  for (Dims shape : {Dims{8, 16}, Dims{7, 41}, Dims{15}}) {
    cases.push_back({"cgc_op.and", {tensor(shape, DType::Bool), tensor(shape, DType::Bool)}, ""});
    cases.push_back({"cgc_op.xor", {tensor(shape, DType::Bool), tensor({}, DType::Bool)}, ""});
    cases.push_back({"cgc_op.not", {tensor(shape, DType::Bool)}, ""});
  }
  // Casts between widths: the chunk follows the wider side.
  const std::pair<DType, DType> casts[] = {
      {DType::F16, DType::F32},  {DType::F32, DType::F16},  {DType::F16, DType::I32},
      {DType::I32, DType::BF16}, {DType::F32, DType::Bool}, {DType::Bool, DType::F16},
      {DType::F64, DType::F16},  {DType::I64, DType::I8},   {DType::U8, DType::F64}};
  for (auto [from, to] : casts)
    for (Dims shape : {Dims{8, 16}, Dims{7, 41}})
      cases.push_back({"cgc_op.cast",
                       {tensor(shape, from, -100, 100)},
                       "{to = !cgc." + dtypeName(to) + "}",
                       elementwiseTolerance(to)});
  // where: a bool and two raw operands, one of them one element.
  for (DType dtype : {DType::F16, DType::F32, DType::I64, DType::Bool})
    cases.push_back({"cgc_op.where",
                     {tensor({7, 41}, DType::Bool), tensor({7, 41}, dtype, -50, 50),
                      tensor({}, dtype, -50, 50)},
                     ""});
  // Slices whose copy StridedCopy.h leaves to the dense kernel (no vector
  // divides their length or start): a start aligned to the chunk, and
  // starts that are not.
  for (DType dtype : {DType::F16, DType::I8, DType::F32}) {
    cases.push_back({"cgc_op.slice", {tensor({45}, dtype, -9, 9)}, "{starts = [8], ends = [37]}"});
    cases.push_back({"cgc_op.slice", {tensor({45}, dtype, -9, 9)}, "{starts = [1], ends = [40]}"});
    cases.push_back(
        {"cgc_op.slice", {tensor({5, 9}, dtype, -9, 9)}, "{starts = [1], ends = [5], axes = [0]}"});
  }
  // More chunks than one pass of the grid covers (132 SMs x 32 blocks x
  // 256 threads x 4 float32), with a tail of 3.
  cases.push_back({"cgc_op.add",
                   {tensor({3, 1469, 1001}, DType::F32), tensor({3, 1469, 1001}, DType::F32)},
                   "",
                   elementwiseTolerance(DType::F32)});
  cases.push_back({"cgc_op.gelu",
                   {tensor({3, 1469, 1001}, DType::F16, -4, 4)},
                   "",
                   elementwiseTolerance(DType::F16)});
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseDenseTest, DenseLayers, denseLayerCases)

/// Broadcasts that are not one element: the strided kernel, its 32-bit
/// divisions by every loop size, one-element operands read once there too.
std::vector<OpCase> stridedLayerCases() {
  std::vector<OpCase> cases;
  for (DType dtype : {DType::F16, DType::F32, DType::I32}) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    cases.push_back({"cgc_op.add", {tensor({5, 37}, dtype), tensor({37}, dtype)}, "", tolerance});
    cases.push_back({"cgc_op.add", {tensor({5, 37}, dtype), tensor({5, 1}, dtype)}, "", tolerance});
    cases.push_back(
        {"cgc_op.mul", {tensor({3, 1, 4, 1}, dtype), tensor({1, 5, 1, 2}, dtype)}, "", tolerance});
    cases.push_back({"cgc_op.where",
                     {tensor({3, 1, 5}, DType::Bool), tensor({4, 1}, dtype, -50, 50),
                      tensor({}, dtype, -50, 50)},
                     ""});
  }
  // Loop sizes that are not powers of two, past one grid pass.
  cases.push_back({"cgc_op.add",
                   {tensor({3, 1469, 1001}, DType::F32), tensor({1001}, DType::F32)},
                   "",
                   elementwiseTolerance(DType::F32)});
  cases.push_back({"cgc_op.sub",
                   {tensor({3, 1469, 1001}, DType::F16), tensor({3, 1, 1001}, DType::F16)},
                   "",
                   elementwiseTolerance(DType::F16)});
  return cases;
}
CGC_CUDA_KERNEL_CASES(ElementwiseDenseTest, StridedLayers, stridedLayerCases)

//===----------------------------------------------------------------------===//
// Misaligned buffers and starts
//===----------------------------------------------------------------------===//

/// Where one buffer of a launch lies: `shift` bytes past an aligned
/// allocation, its data after `lead` elements of junk (the operand's start).
struct Placement {
  size_t shift = 0;
  int64_t lead = 0;
};

/// Runs `kernel` on device copies of `inputs` placed as `inputPlacements`
/// says (aligned where it says nothing) into one output of `outputType`
/// shifted `outputShift` bytes; the output, empty after a failure.
HostTensor launchPlaced(const Kernel &kernel, const std::vector<HostTensor> &inputs,
                        const std::vector<Placement> &inputPlacements, HostTensor output,
                        size_t outputShift) {
  std::vector<void *> allocations;
  struct Cleanup {
    std::vector<void *> &allocations;
    ~Cleanup() {
      for (void *pointer : allocations)
        cudaFree(pointer);
    }
  } cleanup{allocations};
  auto allocate = [&](size_t bytes) -> char * {
    void *pointer = nullptr;
    if (cudaMalloc(&pointer, bytes + 64) != cudaSuccess)
      return nullptr;
    allocations.push_back(pointer);
    return static_cast<char *>(pointer);
  };
  std::vector<const void *> inputPointers;
  for (size_t index = 0; index < inputs.size(); ++index) {
    Placement placement = index < inputPlacements.size() ? inputPlacements[index] : Placement{};
    size_t width = getByteWidth(inputs[index].dtype);
    size_t leadBytes = static_cast<size_t>(placement.lead) * width;
    char *base = allocate(placement.shift + leadBytes + inputs[index].bytes.size());
    if (!base || cudaMemset(base, 0x7B, placement.shift + leadBytes) != cudaSuccess ||
        cudaMemcpy(base + placement.shift + leadBytes, inputs[index].bytes.data(),
                   inputs[index].bytes.size(), cudaMemcpyHostToDevice) != cudaSuccess) {
      ADD_FAILURE() << "cannot stage input " << index;
      return {};
    }
    inputPointers.push_back(base + placement.shift);
  }
  char *out = allocate(outputShift + output.bytes.size());
  if (!out || cudaMemset(out, 0xA5, outputShift + output.bytes.size() + 64) != cudaSuccess) {
    ADD_FAILURE() << "cannot stage the output";
    return {};
  }
  out += outputShift;
  std::vector<void *> outputPointers{out};
  std::string message = kernel.launch(LaunchArgs{inputPointers, outputPointers, nullptr, nullptr});
  EXPECT_EQ(message, "");
  cudaError_t error = cudaDeviceSynchronize();
  EXPECT_EQ(error, cudaSuccess) << cudaGetErrorString(error);
  if (cudaMemcpy(output.bytes.data(), out, output.bytes.size(), cudaMemcpyDeviceToHost) !=
      cudaSuccess) {
    ADD_FAILURE() << "cannot read the output back";
    return {};
  }
  // The bytes after the output stay untouched (no chunk runs past it).
  std::vector<uint8_t> after(16);
  if (cudaMemcpy(after.data(), out + output.bytes.size(), after.size(), cudaMemcpyDeviceToHost) ==
      cudaSuccess)
    for (uint8_t byte : after)
      EXPECT_EQ(byte, 0xA5) << "written past the output";
  return output;
}

TEST_F(ElementwiseDenseTest, ShiftedBuffersMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *deviceContext = getDeviceContext();
  ASSERT_NE(deviceContext, nullptr);
  const OpCase cases[] = {
      {"cgc_op.add",
       {tensor({7, 41}, DType::F16), tensor({7, 41}, DType::F16)},
       "",
       elementwiseTolerance(DType::F16)},
      {"cgc_op.mul",
       {tensor({7, 41}, DType::F32), tensor({}, DType::F32)},
       "",
       elementwiseTolerance(DType::F32)},
      {"cgc_op.cast",
       {tensor({7, 41}, DType::F16)},
       "{to = !cgc.float32}",
       elementwiseTolerance(DType::F32)},
      {"cgc_op.less", {tensor({7, 41}, DType::F32), tensor({7, 41}, DType::F32)}, ""},
      {"cgc_op.and", {tensor({7, 41}, DType::Bool), tensor({7, 41}, DType::Bool)}, ""},
      {"cgc_op.add", {tensor({7, 41}, DType::I64, -1e6, 1e6), tensor({}, DType::I64, -9, 9)}, ""},
  };
  for (const OpCase &opCase : cases) {
    SCOPED_TRACE(opCase.describe());
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    std::vector<HostTensor> inputs = makeInputs(opCase);
    std::vector<HostTensor> expected = runCpu(op, inputs);
    ASSERT_EQ(expected.size(), 1u);
    llvm::Expected<Kernel> kernel = buildKernel(op, *deviceContext);
    ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
    // In bytes: one element off for the first input, the second, the
    // output; everything 4 bytes off (aligned for no 16-byte chunk); 16.
    size_t inputWidth = getByteWidth(inputs[0].dtype);
    size_t outputWidth = getByteWidth(expected[0].dtype);
    struct Shifts {
      size_t first, second, output;
    };
    const Shifts shifts[] = {{inputWidth, 0, 0},
                             {0, inputWidth, 0},
                             {0, 0, outputWidth},
                             {4 * inputWidth, 4 * inputWidth, 4 * outputWidth},
                             {16, 16, 16}};
    for (Shifts shift : shifts) {
      SCOPED_TRACE("shifted " + std::to_string(shift.first) + ", " + std::to_string(shift.second) +
                   ", output " + std::to_string(shift.output));
      std::vector<Placement> placements = {{shift.first, 0}, {shift.second, 0}};
      placements.resize(inputs.size());
      HostTensor actual =
          launchPlaced(*kernel, inputs, placements,
                       HostTensor(expected[0].dtype, expected[0].shape), shift.output);
      if (actual.bytes.empty())
        return;
      expectClose(actual, expected[0], opCase.tolerance, opCase.describe());
    }
  }
}

TEST_F(ElementwiseDenseTest, OperandStartsMatchCpu) {
  // The spec of a layer whose first operand starts `lead` elements into its
  // buffer (a view): the chunks are aligned only when the start is.
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *deviceContext = getDeviceContext();
  ASSERT_NE(deviceContext, nullptr);
  for (DType dtype : {DType::F16, DType::F32, DType::I32}) {
    Tolerance tolerance = elementwiseTolerance(dtype);
    OpCase opCase{"cgc_op.mul",
                  {tensor({9, 13}, dtype, -9, 9), tensor({9, 13}, dtype, -9, 9)},
                  "",
                  tolerance};
    SCOPED_TRACE(opCase.describe());
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    std::optional<std::string> expression = getElementwiseExpression(op, dtype);
    ASSERT_TRUE(expression.has_value());
    std::vector<HostTensor> inputs = makeInputs(opCase);
    std::vector<HostTensor> expected = runCpu(op, inputs);
    ASSERT_EQ(expected.size(), 1u);
    for (int64_t lead : {1, 3, 4, 8, 16}) {
      SCOPED_TRACE("start " + std::to_string(lead));
      StridedKernelSpec spec = broadcastSpec({9, 13}, {{9, 13}, {9, 13}}, dtype, dtype);
      spec.expression = *expression;
      spec.operands[0].start = lead;
      ASSERT_EQ(planStridedKernel(spec).kind, StridedKernelKind::Dense);
      llvm::Expected<Kernel> kernel = buildStridedKernel(op, deviceContext->getImpl(), spec);
      ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
      HostTensor actual = launchPlaced(*kernel, inputs, {{0, lead}, {0, 0}},
                                       HostTensor(dtype, expected[0].shape), 0);
      if (actual.bytes.empty())
        return;
      expectClose(actual, expected[0], tolerance, opCase.describe());
    }
  }
}

//===----------------------------------------------------------------------===//
// Fused definitions against the CPU
//===----------------------------------------------------------------------===//

class ElementwiseDenseFusedTest : public FusedKernelTest {};

Tolerance chainTolerance(DType dtype) {
  return dtype == DType::F32 ? elementwiseTolerance(dtype) : Tolerance{1e-2, 1e-2};
}

/// BERT's erf GELU with its three constants as one-element arguments, over
/// a count that leaves a tail.
DefinitionCase geluCase(const Dims &shape, DType dtype) {
  std::string x = tensorType(shape, dtype), s = tensorType({}, dtype), one = tensorType({1}, dtype);
  DefinitionText text("gelu", {{"%x", x}, {"%root2", s}, {"%one", one}, {"%half", s}});
  auto scaled = text.layer("%0", "cgc_op.div", {{"%x", x}, {"%root2", s}}, x);
  auto erf = text.layer("%1", "cgc_op.erf", {scaled}, x);
  auto cdf = text.layer("%2", "cgc_op.add", {erf, {"%one", one}}, x);
  auto gated = text.layer("%3", "cgc_op.mul", {{"%x", x}, cdf}, x);
  auto out = text.layer("%4", "cgc_op.mul", {gated, {"%half", s}}, x);
  return {text.str({out}),
          {tensor(shape, dtype, -4, 4), values({}, dtype, {1.4142135381698608}),
           values({1}, dtype, {1.0}), values({}, dtype, {0.5})},
          chainTolerance(dtype)};
}

/// Two results of other types from float32 operands: a float16 sum and a
/// bool comparison against a one-element threshold.
DefinitionCase twoResultsCase(const Dims &shape) {
  std::string f = tensorType(shape, DType::F32), h = tensorType(shape, DType::F16),
              b = tensorType(shape, DType::Bool), s = tensorType({}, DType::F32);
  DefinitionText text("two_results", {{"%x", f}, {"%y", f}, {"%t", s}});
  auto sum = text.layer("%0", "cgc_op.add", {{"%x", f}, {"%y", f}}, f);
  auto half = text.layer("%1", "cgc_op.cast", {sum}, h, "{to = !cgc.float16}");
  auto above = text.layer("%2", "cgc_op.greater", {sum, {"%t", s}}, b);
  return {text.str({half, above}),
          {tensor(shape, DType::F32), tensor(shape, DType::F32), values({}, DType::F32, {0.125})},
          chainTolerance(DType::F16)};
}

std::vector<DefinitionCase> denseChainCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : {DType::F16, DType::BF16, DType::F32})
    for (Dims shape : {Dims{3, 7, 37}, Dims{2, 64}, Dims{6}})
      cases.push_back(geluCase(shape, dtype));
  cases.push_back(twoResultsCase({5, 43}));
  cases.push_back(twoResultsCase({4, 16}));
  return cases;
}
CGC_FUSED_KERNEL_CASES(ElementwiseDenseFusedTest, DenseChains, denseChainCases)

TEST_F(ElementwiseDenseFusedTest, DenseChainsCompile) {
  for (const DefinitionCase &definitionCase : denseChainCases())
    expectFamilyCompiles(kFusedElementwise, definitionCase);
}

} // namespace
