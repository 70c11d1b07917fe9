//===- DataMovementTest.cpp - reshape, transpose, slice, ... against the CPU ===//
//
// Besides the op families, the strided copies' kernels (StridedCopy.h):
// which kernel each layout gets (checked without a device), and results
// that must equal the CPU's exactly on every path: vectors of each width,
// starts and strides that allow only narrower ones or none, buffers less
// aligned than the layout (the launch picks a narrower vector), tiled
// transposes whose sizes are not multiples of the tile, gathers of one
// index read on the device.
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

#include "drivers/cuda/kernels/StridedCopy.h"

#include <cstring>

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class DataMovementTest : public CUDAKernelTest {};

/// One type of every width, and bool.
const DType kWidths[] = {DType::I8, DType::F16, DType::F32, DType::I64, DType::Bool};

std::vector<OpCase> dataMovementCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kWidths) {
    OperandSpec x = tensor({2, 3, 4, 5}, dtype, -100, 100);
    cases.push_back({"cgc_op.reshape", {x}, "{shape = [6, 20]}"});
    cases.push_back({"cgc_op.transpose", {x}, ""});
    cases.push_back({"cgc_op.transpose", {x}, "{permutation = [0, 2, 1, 3]}"});
    cases.push_back({"cgc_op.transpose", {x}, "{permutation = [3, 1, 2, 0]}"});
    cases.push_back({"cgc_op.slice", {x}, "{starts = [1], ends = [-1], axes = [3], steps = [2]}"});
    cases.push_back({"cgc_op.slice",
                     {x},
                     "{starts = [-1, 9223372036854775807], ends = [-100, 0], axes = [2, 1], "
                     "steps = [-2, -1]}"});
    cases.push_back({"cgc_op.slice", {x}, "{starts = [0, 1], ends = [1, 3]}"});
    cases.push_back({"cgc_op.slice", {x}, "{starts = [3], ends = [3], axes = [2]}"});
    cases.push_back({"cgc_op.expand", {tensor({3, 1}, dtype, -100, 100)}, "{shape = [2, 1, 6]}"});
    cases.push_back({"cgc_op.expand", {tensor({}, dtype, -100, 100)}, "{shape = [4, 3]}"});
    for (int64_t axis : {0, 1, 3, -1})
      cases.push_back({"cgc_op.concat",
                       {x, tensor({2, 3, 4, 5}, dtype, -100, 100)},
                       "{axis = " + std::to_string(axis) + " : i64}"});
    cases.push_back({"cgc_op.concat",
                     {tensor({2, 1, 3}, dtype, -9, 9), tensor({2, 4, 3}, dtype, -9, 9),
                      tensor({2, 0, 3}, dtype, -9, 9)},
                     "{axis = 1 : i64}"});
    OpCase split{"cgc_op.split", {x}, "{axis = 2 : i64, sizes = [1, 0, 3]}"};
    split.results = 3;
    cases.push_back(split);
    OpCase splitFirst{"cgc_op.split", {x}, "{axis = 0 : i64, sizes = [1, 1]}"};
    splitFirst.results = 2;
    cases.push_back(splitFirst);
    for (DType index : {DType::I32, DType::I64}) {
      OperandSpec indices = values({2, 3}, index, {0, -1, 2, 1, -3, 0});
      cases.push_back({"cgc_op.gather", {x, indices}, ""});
      cases.push_back({"cgc_op.gather", {x, indices}, "{axis = 1 : i64}"});
      cases.push_back(
          {"cgc_op.gather", {x, values({4}, index, {4, 0, -5, 2})}, "{axis = -1 : i64}"});
      cases.push_back({"cgc_op.gather", {x, values({}, index, {2})}, "{axis = 2 : i64}"});
      // Rows of 16 elements: 16-byte vectors at every width (embeddings).
      cases.push_back({"cgc_op.gather",
                       {tensor({6, 16}, dtype, -100, 100), values({2, 3}, index, {0, 5, -1, 3, 2, -6})},
                       ""});
    }
    cases.push_back({"cgc_op.pad",
                     {x},
                     "{start_padding = [0, 1, 2, 0], end_padding = [1, 0, 1, 3], value = 2.5}"});
    cases.push_back(
        {"cgc_op.pad",
         {x},
         "{start_padding = [0, 0, 1, 1], end_padding = [0, 2, 3, 4], mode = \"edge\"}"});
    cases.push_back({"cgc_op.pad",
                     {x},
                     "{start_padding = [1, 0, 3, 4], end_padding = [1, 2, 2, 1], "
                     "mode = \"reflect\"}"});
    cases.push_back(
        {"cgc_op.pad", {x}, "{start_padding = [0, -1, 1, -2], end_padding = [0, 0, -1, 1]}"});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(DataMovementTest, DataMovement, dataMovementCases)

//===----------------------------------------------------------------------===//
// Strided copies
//===----------------------------------------------------------------------===//

/// Copies move bits: floats must come out exactly as the CPU's too.
const Tolerance kExact{0.0, 0.0};

/// Every element type of each width.
const DType kCopyTypes[] = {DType::Bool, DType::I8,  DType::F16, DType::BF16,
                            DType::F32,  DType::F64, DType::I64};

OpCase transposeCase(const Dims &shape, DType dtype, const Dims &permutation) {
  return {"cgc_op.transpose", {tensor(shape, dtype, -100, 100)},
          "{permutation = " + listText(permutation) + "}", kExact};
}

OpCase sliceCase(const Dims &shape, DType dtype, const std::string &attributes) {
  return {"cgc_op.slice", {tensor(shape, dtype, -100, 100)}, attributes, kExact};
}

/// A gather of one index (`indexShape` has one element) along `axis`.
OpCase gatherOneCase(const Dims &shape, DType dtype, int64_t axis, DType indexType,
                     const Dims &indexShape, double index) {
  return {"cgc_op.gather",
          {tensor(shape, dtype, -100, 100), values(indexShape, indexType, {index})},
          "{axis = " + std::to_string(axis) + " : i64}",
          kExact};
}

std::vector<OpCase> stridedCopyCases() {
  std::vector<OpCase> cases;
  for (DType dtype : kCopyTypes) {
    int64_t width = static_cast<int64_t>(getByteWidth(dtype));
    // Runs of 32, 8, 24, 12 and 4 bytes: 16-, 8- and 4-byte vectors where
    // the run and the strides allow them, single elements where not.
    for (int64_t runBytes : {32, 8, 24, 12, 4})
      if (runBytes % width == 0)
        cases.push_back(transposeCase({2, 5, 3, runBytes / width}, dtype, {0, 2, 1, 3}));
    // ViT's 5-D permutation (its loops merge to [3, 36, 24]) and BERT's
    // head split and merge.
    cases.push_back(transposeCase({1, 9, 4, 3, 24}, dtype, {3, 1, 2, 0, 4}));
    cases.push_back(transposeCase({2, 16, 3, 8}, dtype, {0, 2, 1, 3}));
    cases.push_back(transposeCase({13, 6, 16}, dtype, {1, 0, 2}));
    // Tiled transposes, sizes not multiples of the tile: the fastest two
    // dimensions swapped, NCHW <-> NHWC, BERT's [0, 2, 3, 1].
    cases.push_back(transposeCase({2, 3, 37, 45}, dtype, {0, 1, 3, 2}));
    cases.push_back(transposeCase({70, 33}, dtype, {1, 0}));
    cases.push_back(transposeCase({2, 20, 7, 9}, dtype, {0, 2, 3, 1}));
    cases.push_back(transposeCase({2, 7, 9, 20}, dtype, {0, 3, 1, 2}));
    cases.push_back(transposeCase({2, 16, 3, 8}, dtype, {0, 2, 3, 1}));
    cases.push_back(transposeCase({3, 65, 17, 2}, dtype, {2, 1, 0, 3}));
    cases.push_back(transposeCase({0, 4, 8}, dtype, {0, 2, 1}));
    // Slices starting 1, 2, 4 and 8 elements into rows of 72: the start
    // allows no vector, or 2-, 4- or 8-element ones.
    for (int64_t first : {1, 2, 4, 8})
      cases.push_back(sliceCase({4, 72}, dtype,
                                "{starts = [" + std::to_string(first) + "], ends = [" +
                                    std::to_string(first + 64) + "], axes = [1]}"));
    cases.push_back(sliceCase({100}, dtype, "{starts = [8], ends = [72]}"));
    // Reversed slices: along an outer axis (runs with a negative stride),
    // with a step, and along the innermost axis (per element).
    cases.push_back(
        sliceCase({4, 6, 16}, dtype, "{starts = [-1], ends = [-100], axes = [1], steps = [-1]}"));
    cases.push_back(sliceCase({5, 3, 32}, dtype,
                              "{starts = [4, 1], ends = [-100, 3], axes = [0, 1], "
                              "steps = [-2, 1]}"));
    cases.push_back(
        sliceCase({4, 40}, dtype, "{starts = [-1], ends = [-100], axes = [1], steps = [-1]}"));
    // Expands: zero strides around a run, and a zero innermost stride.
    cases.push_back(
        {"cgc_op.expand", {tensor({3, 1, 16}, dtype, -100, 100)}, "{shape = [2, 3, 5, 16]}",
         kExact});
    cases.push_back(
        {"cgc_op.expand", {tensor({5, 1}, dtype, -100, 100)}, "{shape = [5, 40]}", kExact});
    // Gathers of one index: ViT's class token (axis 0 of [3, ...]), other
    // axes, negative and out-of-range indices (zeros), every index shape
    // of one element, and the innermost axis (the gather kernel).
    for (DType index : {DType::I32, DType::I64}) {
      for (double value : {0.0, 2.0, -1.0, -3.0, 3.0, -4.0})
        cases.push_back(gatherOneCase({3, 9, 4, 24}, dtype, 0, index, {}, value));
      cases.push_back(gatherOneCase({3, 9, 4, 24}, dtype, 1, index, {1}, 5.0));
      cases.push_back(gatherOneCase({3, 9, 4, 24}, dtype, 2, index, {1, 1}, -2.0));
      cases.push_back(gatherOneCase({3, 9, 4, 24}, dtype, -1, index, {}, 7.0));
      cases.push_back(gatherOneCase({5, 3}, dtype, 0, index, {}, 4.0));
    }
  }
  // NCHW -> NHWC of few channels: interleaved rows, with batches and
  // without, and a row count that is not a multiple of the block.
  for (DType dtype : {DType::F16, DType::F32, DType::I8})
    cases.push_back(transposeCase({2, 3, 17, 23}, dtype, {0, 2, 3, 1}));
  cases.push_back(transposeCase({5, 300}, DType::F16, {1, 0}));
  cases.push_back(transposeCase({4, 3, 20}, DType::F32, {2, 1, 0}));
  // More batches of tiles than grid z holds (it loops).
  cases.push_back(transposeCase({66000, 16, 16}, DType::I8, {0, 2, 1}));
  return cases;
}
CGC_CUDA_KERNEL_CASES(DataMovementTest, StridedCopy, stridedCopyCases)

/// The copy a transpose of `shape` by `permutation` makes.
StridedCopySpec transposeSpec(DType dtype, const Dims &shape, const Dims &permutation) {
  Shape inputStrides = getStrides(Shape(shape.begin(), shape.end()));
  StridedCopySpec spec;
  spec.dtype = dtype;
  for (int64_t dim : permutation) {
    spec.outputShape.push_back(shape[dim]);
    spec.strides.push_back(inputStrides[dim]);
  }
  return spec;
}

/// `plan`'s kernel, vector width and loop sizes as text.
std::string describePlan(const StridedCopyPlan &plan) {
  const char *kinds[] = {"general", "runs", "tiles", "interleave"};
  std::string text = kinds[static_cast<int>(plan.kind)];
  if (plan.kind == StridedCopyKind::Runs)
    text += " " + std::to_string(plan.vectorBytes);
  if (plan.kind == StridedCopyKind::Tiles || plan.kind == StridedCopyKind::Interleave)
    text += " rows " + std::to_string(plan.rowDim);
  return text + " " + listText(Dims(plan.sizes.begin(), plan.sizes.end()));
}

TEST_F(DataMovementTest, StridedCopyPlansOfTransformerLayouts) {
  // BERT-base, float16, batch 32: the head split and merge move runs of 64
  // elements; the key's [0, 2, 3, 1] transposes 768 x 128 tiles.
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F16, {32, 128, 12, 64},
                                                       {0, 2, 1, 3}))),
            "runs 16 [32, 12, 128, 64]");
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F16, {32, 128, 12, 64},
                                                       {0, 2, 3, 1}))),
            "tiles rows 1 [32, 768, 128]");
  // ViT-B/16: the qkv split, the class token, the attention transposes.
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F16, {1, 197, 32, 3, 768},
                                                       {3, 1, 2, 0, 4}))),
            "runs 16 [3, 6304, 768]");
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F16, {197, 384, 64}, {1, 0, 2}))),
            "runs 16 [384, 197, 64]");
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F16, {32, 197, 768}, {1, 0, 2}))),
            "runs 16 [197, 32, 768]");
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F16, {32, 12, 197, 64},
                                                       {0, 1, 3, 2}))),
            "tiles rows 1 [384, 64, 197]");
  StridedCopySpec classToken;
  classToken.dtype = DType::F16;
  classToken.outputShape = {197, 32, 768};
  classToken.strides = {32 * 768, 768, 1};
  classToken.index = DeviceIndexedStart{DType::I64, 3, 197 * 32 * 768};
  // Its loops merge into one contiguous run of 197 * 32 * 768 elements.
  EXPECT_EQ(describePlan(planStridedCopy(classToken)), "runs 16 [4841472]");
}

TEST_F(DataMovementTest, StridedCopyPlansTakeNarrowerVectorsOrNone) {
  // Rows of 72 float16 from element 8, 4, 2, 1: 8, 4, 2 elements divide
  // the start and the stride, then nothing does.
  for (auto [first, expected] :
       {std::pair<int64_t, const char *>{8, "runs 16 [4, 64]"}, {4, "runs 8 [4, 64]"},
        {2, "runs 4 [4, 64]"}, {1, "general [4, 64]"}}) {
    StridedCopySpec slice;
    slice.dtype = DType::F16;
    slice.outputShape = {4, 64};
    slice.strides = {72, 1};
    slice.start = first;
    EXPECT_EQ(describePlan(planStridedCopy(slice)), expected) << first;
  }
  // int64 runs of 3: no 16-byte vector fits.
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::I64, {2, 3, 4, 3}, {0, 2, 1, 3}))),
            "general [2, 4, 3, 3]");
  // int8 runs of 12 bytes: 4-byte vectors.
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::I8, {2, 3, 4, 12}, {0, 2, 1, 3}))),
            "runs 4 [2, 4, 3, 12]");
  // A gather whose index moves the start by a stride no vector divides.
  StridedCopySpec gather;
  gather.dtype = DType::F16;
  gather.outputShape = {8};
  gather.strides = {1};
  gather.index = DeviceIndexedStart{DType::I32, 5, 9};
  EXPECT_EQ(describePlan(planStridedCopy(gather)), "general [8]");
}

TEST_F(DataMovementTest, StridedCopyPlansOfBroadcastsReversalsAndSmallTiles) {
  StridedCopySpec expand;
  expand.dtype = DType::F32;
  expand.outputShape = {2, 3, 5, 16};
  expand.strides = {0, 16, 0, 1};
  EXPECT_EQ(describePlan(planStridedCopy(expand)), "runs 16 [2, 3, 5, 16]");
  // A zero innermost stride reads one element per row: per element.
  expand.outputShape = {5, 40};
  expand.strides = {1, 0};
  EXPECT_EQ(describePlan(planStridedCopy(expand)), "general [5, 40]");
  // Reversed along an outer axis: runs; along the innermost: per element.
  StridedCopySpec reversed;
  reversed.dtype = DType::F16;
  reversed.outputShape = {4, 6, 16};
  reversed.strides = {96, -16, 1};
  reversed.start = 80;
  EXPECT_EQ(describePlan(planStridedCopy(reversed)), "runs 16 [4, 6, 16]");
  reversed.outputShape = {4, 40};
  reversed.strides = {40, -1};
  reversed.start = 39;
  EXPECT_EQ(describePlan(planStridedCopy(reversed)), "general [4, 40]");
  // NHWC -> NCHW of 3 channels: a 3-row tile would be mostly idle.
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F32, {2, 7, 9, 3}, {0, 3, 1, 2}))),
            "general [2, 3, 63]");
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F32, {2, 7, 9, 20}, {0, 3, 1, 2}))),
            "tiles rows 1 [2, 20, 63]");
  // NCHW -> NHWC of 3 channels (a model's input): rows of 3 interleaved.
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F16, {256, 3, 224, 224},
                                                       {0, 2, 3, 1}))),
            "interleave rows 1 [256, 50176, 3]");
  // Empty: nothing to plan.
  EXPECT_EQ(describePlan(planStridedCopy(transposeSpec(DType::F32, {0, 4, 8}, {0, 2, 1}))),
            "general []");
}

TEST_F(DataMovementTest, ConvertingCopiesInterleaveOnly) {
  // A float32 input cast to float16 and transposed NCHW -> NHWC (the fused
  // layout family): the interleave kernel converts on the way.
  StridedCopySpec input = transposeSpec(DType::F32, {256, 3, 224, 224}, {0, 2, 3, 1});
  input.outputDType = DType::F16;
  EXPECT_EQ(describePlan(planStridedCopy(input)), "interleave rows 1 [256, 50176, 3]");
  input.outputDType = DType::BF16;
  EXPECT_EQ(describePlan(planStridedCopy(input)), "interleave rows 1 [256, 50176, 3]");
  // Runs and tiles copy bits, so a conversion there is the per-element
  // kernel's; the same type is no conversion.
  StridedCopySpec runs = transposeSpec(DType::F32, {32, 128, 12, 64}, {0, 2, 1, 3});
  runs.outputDType = DType::F16;
  EXPECT_EQ(describePlan(planStridedCopy(runs)), "general [32, 12, 128, 64]");
  StridedCopySpec tiles = transposeSpec(DType::F16, {2, 7, 9, 20}, {0, 3, 1, 2});
  tiles.outputDType = DType::F32;
  EXPECT_EQ(describePlan(planStridedCopy(tiles)), "general [2, 20, 63]");
  tiles.outputDType = DType::F16;
  EXPECT_EQ(describePlan(planStridedCopy(tiles)), "tiles rows 1 [2, 20, 63]");
}

TEST_F(DataMovementTest, StridedCopyPlansIndexWideOnlyWhenNeeded) {
  EXPECT_TRUE(planStridedCopy(transposeSpec(DType::F16, {32, 128, 12, 64}, {0, 2, 1, 3})).narrow);
  EXPECT_FALSE(
      planStridedCopy(transposeSpec(DType::I8, {1024, 1024, 1024}, {1, 0, 2})).narrow);
}

TEST_F(DataMovementTest, WideCopiesCompile) {
  // Past 2^30 elements the kernels index in 64 bits (built, not run).
  expectCompiles(transposeCase({1024, 1024, 1040}, DType::I8, {1, 0, 2}));
  expectCompiles(transposeCase({1024, 1024, 1040}, DType::F16, {0, 2, 1}));
  expectCompiles(gatherOneCase({3, 1024, 1024, 400}, DType::F32, 0, DType::I64, {}, 1.0));
}

TEST_F(DataMovementTest, CopiesOfOtherShapesShareTheirModule) {
  // A context of its own: the shared one may have compiled these already.
  std::unique_ptr<KernelContext::Impl> fresh = KernelContext::Impl::createCompileOnly(9, 0);
  auto build = [&](const OpCase &opCase) {
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    llvm::Expected<Kernel> kernel = buildKernelForContext(op, *fresh);
    ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  };
  NvrtcCompiler &compiler = fresh->getCompiler();
  // Runs: one module per element width and rank, whatever the sizes and
  // the widest vector they allow.
  build(transposeCase({32, 128, 12, 64}, DType::F16, {0, 2, 1, 3}));
  EXPECT_EQ(compiler.getModuleCount(), 1u);
  build(transposeCase({2, 5, 3, 4}, DType::BF16, {0, 2, 1, 3}));
  EXPECT_EQ(compiler.getModuleCount(), 1u);
  // Tiles: likewise.
  build(transposeCase({32, 12, 197, 64}, DType::F16, {0, 1, 3, 2}));
  EXPECT_EQ(compiler.getModuleCount(), 2u);
  build(transposeCase({2, 3, 37, 45}, DType::F16, {0, 1, 3, 2}));
  EXPECT_EQ(compiler.getModuleCount(), 2u);
  // Another element width is another module.
  build(transposeCase({2, 3, 37, 45}, DType::F32, {0, 1, 3, 2}));
  EXPECT_EQ(compiler.getModuleCount(), 3u);
}

/// Runs `kernel` with input 0 and output 0 placed `inputShift` and
/// `outputShift` bytes past aligned allocations (other inputs aligned);
/// the output's bytes, empty after a failure.
std::vector<uint8_t> launchShifted(const Kernel &kernel, const std::vector<HostTensor> &inputs,
                                   size_t outputBytes, size_t inputShift, size_t outputShift) {
  std::vector<void *> allocations;
  struct Cleanup {
    std::vector<void *> &allocations;
    ~Cleanup() {
      for (void *pointer : allocations)
        cudaFree(pointer);
    }
  } cleanup{allocations};
  auto allocate = [&](size_t bytes, size_t shift) -> char * {
    void *pointer = nullptr;
    if (cudaMalloc(&pointer, bytes + shift + 1) != cudaSuccess)
      return nullptr;
    allocations.push_back(pointer);
    return static_cast<char *>(pointer) + shift;
  };
  std::vector<const void *> inputPointers;
  for (size_t index = 0; index < inputs.size(); ++index) {
    char *device = allocate(inputs[index].bytes.size(), index == 0 ? inputShift : 0);
    if (!device ||
        cudaMemcpy(device, inputs[index].bytes.data(), inputs[index].bytes.size(),
                   cudaMemcpyHostToDevice) != cudaSuccess) {
      ADD_FAILURE() << "cannot stage input " << index;
      return {};
    }
    inputPointers.push_back(device);
  }
  char *output = allocate(outputBytes, outputShift);
  if (!output || cudaMemset(output, 0xA5, outputBytes) != cudaSuccess) {
    ADD_FAILURE() << "cannot stage the output";
    return {};
  }
  std::vector<void *> outputPointers{output};
  LaunchArgs args{inputPointers, outputPointers, nullptr, nullptr};
  std::string message = kernel.launch(args);
  EXPECT_EQ(message, "");
  cudaError_t error = cudaDeviceSynchronize();
  EXPECT_EQ(error, cudaSuccess) << cudaGetErrorString(error);
  std::vector<uint8_t> bytes(outputBytes);
  if (cudaMemcpy(bytes.data(), output, outputBytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    ADD_FAILURE() << "cannot read the output back";
    return {};
  }
  return bytes;
}

TEST_F(DataMovementTest, StridedCopiesOfShiftedBuffersMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *deviceContext = getDeviceContext();
  ASSERT_NE(deviceContext, nullptr);
  const OpCase cases[] = {
      transposeCase({2, 5, 3, 32}, DType::I8, {0, 2, 1, 3}),
      transposeCase({2, 5, 3, 32}, DType::F16, {0, 2, 1, 3}),
      transposeCase({2, 5, 3, 32}, DType::F32, {0, 2, 1, 3}),
      transposeCase({2, 5, 3, 32}, DType::I64, {0, 2, 1, 3}),
      gatherOneCase({3, 4, 32}, DType::F16, 0, DType::I64, {}, 2.0),
      transposeCase({2, 37, 45}, DType::F16, {0, 2, 1}),
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
    size_t width = getByteWidth(expected[0].dtype);
    // In element widths: unaligned to any vector, to 16 bytes only one
    // side, both aligned to 8 or 4 bytes only, both to 16.
    const std::pair<size_t, size_t> shifts[] = {{1, 0}, {0, 3}, {8, 0}, {4, 8}, {2, 6}, {16, 16}};
    for (auto [inputShift, outputShift] : shifts) {
      SCOPED_TRACE("input shifted " + std::to_string(inputShift * width) + " bytes, output " +
                   std::to_string(outputShift * width));
      std::vector<uint8_t> actual = launchShifted(*kernel, inputs, expected[0].bytes.size(),
                                                  inputShift * width, outputShift * width);
      ASSERT_EQ(actual.size(), expected[0].bytes.size());
      int64_t mismatches = 0;
      for (int64_t index = 0; index < expected[0].size(); ++index)
        if (std::memcmp(actual.data() + index * width, expected[0].bytes.data() + index * width,
                        width) != 0 &&
            ++mismatches <= 3)
          ADD_FAILURE() << "element " << index << " differs";
      EXPECT_EQ(mismatches, 0);
    }
  }
}

} // namespace
