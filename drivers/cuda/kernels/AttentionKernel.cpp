//===- AttentionKernel.cpp - one-kernel scaled-dot-product attention ------===//
//
// The generated kernel: blocks of 128 threads, each block one tile of 16
// queries of one batch matrix, 8 threads per query. Per tile of 32 keys the
// block stages Kᵀ and V in shared memory (as float32); each thread computes
// 4 scores of its query, applies the scale, the score steps and the masks,
// and the 8 threads of a query combine their maxima and sums with warp
// shuffles (they are neighbouring lanes of one warp). The running output
// (8 value columns apart per thread) is rescaled by exp(old max - new max)
// before the tile's weights are added in, and divided by the running sum at
// the end. Shared memory stays under the 48 KiB a block gets without
// opting in (43 KiB at head dimensions of 128). A plan with an output view
// (a definition that transposes the result back) writes through it, the
// view passed as the parameter block's last; without one the source is
// the dense kernel's, unchanged.
//
// As on the CPU, a query whose every key is masked out gets NaN (0/0) and
// an attention over no keys gives 0. With a NaN guard on the probabilities
// (AttentionPlan::nanReplacementInput), such a query's probabilities are all
// the replacement r, so it gets r times the sum of the values, which the
// threads then also accumulate. (A NaN score among finite ones, from NaN
// inputs, still makes its query NaN.)
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "AttentionCodegen.h"
#include "AttentionGemm.h"
#include "ChoiceCache.h"
#include "AttentionTensorCore.h"
#include "DeviceCode.h"
#include "FusedSupport.h"
#include "StridedView.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace cgc::cuda {

namespace {
/// The kernel's tiling (the generated source spells the same numbers).
constexpr int64_t kQueryTile = 16;
constexpr int64_t kThreads = 128;
/// The grid's y dimension covers batch matrices; blocks loop past this.
constexpr int64_t kMaxBatchBlocks = 65535;
} // namespace

AttentionView makeAttentionView(unsigned input, DType dtype, llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<int64_t> targetShape) {
  Shape strides = getBroadcastStrides(shape, targetShape);
  AttentionView view;
  view.input = input;
  view.dtype = dtype;
  view.batchStrides.assign(strides.begin(), strides.end() - 2);
  view.rowStride = strides.end()[-2];
  view.columnStride = strides.back();
  return view;
}

AttentionView getAttentionOutputView(const AttentionPlan &plan) {
  if (plan.output)
    return *plan.output;
  AttentionView view;
  view.dtype = plan.dtype;
  int64_t stride = plan.queries * plan.valueEmbedding;
  view.batchStrides.resize(plan.batch.size());
  for (size_t index = plan.batch.size(); index-- > 0;) {
    view.batchStrides[index] = stride;
    stride *= plan.batch[index];
  }
  view.rowStride = plan.valueEmbedding;
  view.columnStride = 1;
  return view;
}

std::optional<std::string> getUnimplementedAttentionFeature(const AttentionPlan &plan) {
  if (!isFloat32ComputedDType(plan.dtype))
    return std::string("element type ") + getDTypeName(plan.dtype);
  if (plan.embedding > kMaxAttentionHeadDim)
    return "query/key head dimension " + std::to_string(plan.embedding) + " (more than " +
           std::to_string(kMaxAttentionHeadDim) + ")";
  if (plan.valueEmbedding > kMaxAttentionHeadDim)
    return "value head dimension " + std::to_string(plan.valueEmbedding) + " (more than " +
           std::to_string(kMaxAttentionHeadDim) + ")";
  if (plan.steps.size() > kMaxAttentionScoreSteps)
    return "a chain of " + std::to_string(plan.steps.size()) + " score layers (more than " +
           std::to_string(kMaxAttentionScoreSteps) + ")";
  if ((plan.queries + kQueryTile - 1) / kQueryTile > INT_MAX)
    return std::to_string(plan.queries) + " queries";
  // Views come from broadcasts, transposes and reshapes, none of which
  // walks backwards; an output view must give every element its own place.
  auto hasNegativeStride = [](const AttentionView &view) {
    return view.rowStride < 0 || view.columnStride < 0 ||
           llvm::any_of(view.batchStrides, [](int64_t stride) { return stride < 0; }) ||
           llvm::any_of(view.selections,
                        [](const AttentionSelection &selection) { return selection.stride < 0; });
  };
  llvm::SmallVector<const AttentionView *, 8> inputs = {&plan.query.view, &plan.key.view,
                                                        &plan.value};
  for (const AttentionOperand *operand : {&plan.query, &plan.key})
    if (operand->factor)
      inputs.push_back(&*operand->factor);
  for (const AttentionScoreStep &step : plan.steps)
    if (step.operand)
      inputs.push_back(&*step.operand);
  if (llvm::any_of(inputs, [&](const AttentionView *view) { return hasNegativeStride(*view); }))
    return std::string("a tensor read with a negative stride");
  for (const AttentionView *view : inputs)
    for (const AttentionSelection &selection : view->selections)
      if (selection.indexType != DType::I32 && selection.indexType != DType::I64)
        return std::string("a gather index of element type ") +
               getDTypeName(selection.indexType);
  if (plan.output && !plan.output->selections.empty())
    return std::string("an output written through a gather");
  if (plan.output) {
    if (plan.output->batchStrides.size() != plan.batch.size())
      return "an output view of " + std::to_string(plan.output->batchStrides.size()) +
             " batch dimensions for " + std::to_string(plan.batch.size());
    if (hasNegativeStride(*plan.output))
      return std::string("an output written with a negative stride");
    Shape shape(plan.batch), strides(plan.output->batchStrides);
    shape.append({plan.queries, plan.valueEmbedding});
    strides.append({plan.output->rowStride, plan.output->columnStride});
    if (mayOverlap(shape, strides))
      return std::string("an output view whose elements overlap");
  }
  return std::nullopt;
}

namespace {

/// The float value of an operand at (`row`, `column`).
std::string readOperand(const AttentionViewTable &table, size_t view, std::optional<size_t> factor,
                        const std::string &row, const std::string &column) {
  std::string value = "(float)(" + table.read(view, row, column) + ")";
  if (factor)
    value += " * (float)(" + table.read(*factor, row, column) + ")";
  return value;
}

} // namespace

std::string generateAttentionSource(const AttentionPlan &plan) {
  AttentionViewTable table(plan);
  size_t queryView = table.add(plan.query.view);
  std::optional<size_t> queryFactor, keyFactor;
  if (plan.query.factor)
    queryFactor = table.add(*plan.query.factor);
  size_t keyView = table.add(plan.key.view);
  if (plan.key.factor)
    keyFactor = table.add(*plan.key.factor);
  size_t valueView = table.add(plan.value);
  llvm::SmallVector<std::optional<size_t>, 4> stepViews;
  for (const AttentionScoreStep &step : plan.steps)
    stepViews.push_back(step.operand ? std::optional<size_t>(table.add(*step.operand))
                                     : std::nullopt);
  // A strided output is the last view (its `in` is never read); a dense one
  // adds nothing, so its source stays as it was.
  std::optional<size_t> outputView;
  if (plan.output)
    outputView = table.add(*plan.output);
  size_t rank = table.getBatchRank(), viewCount = table.size();
  int64_t e = plan.embedding, ev = plan.valueEmbedding;
  // Row strides of the shared tiles are odd, so that the threads of a warp
  // reading one column of different rows hit different banks.
  int64_t queryStride = e % 2 ? e : e + 1;
  int64_t keyStride = queryStride;
  int64_t valueColumns = std::max<int64_t>(ev, 1);
  int64_t valuesPerThread = std::max<int64_t>((ev + 7) / 8, 1);
  // Kᵀ tiles are loaded along whichever of its dimensions is contiguous.
  bool keysContiguous = plan.key.view.columnStride == 1 && plan.key.view.rowStride != 1;

  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getIndexTypedef(/*narrow=*/false);
  os << "struct cgc_attention_params {\n"
     << "  long long batches, queries, keys;\n"
     << "  long long batchSizes[" << rank << "];\n"
     << "  long long views[" << viewCount << "][" << rank + 2 << "];\n"
     << "};\n\n";
  os << "extern \"C\" __global__ void __launch_bounds__(128) cgc_attention(";
  for (auto [index, dtype] : llvm::enumerate(plan.inputTypes))
    os << "const " << getStorageType(dtype) << " *in" << index << ", ";
  os << getStorageType(plan.dtype) << " *out, cgc_attention_params p) {\n";
  os << "  constexpr int E = " << e << ", EV = " << ev << ";\n"
     << "  __shared__ float queryTile[16][" << queryStride << "];\n"
     << "  __shared__ float keyTile[32][" << keyStride << "];\n"
     << "  __shared__ float valueTile[32][" << valueColumns << "];\n"
     << "  __shared__ float weightTile[16][33];\n"
     << "  const int row = threadIdx.x >> 3, lane = threadIdx.x & 7;\n"
     << "  const long long firstQuery = (long long)blockIdx.x * 16;\n"
     << "  const long long query = firstQuery + row;\n"
     << "  const float negativeInfinity = __int_as_float((int)0xff800000u);\n";
  if (plan.causal)
    // Keys after the tile's last query are masked for all of its queries.
    os << "  const long long keyEnd = p.keys < firstQuery + 16 ? p.keys : firstQuery + 16;\n";
  else
    os << "  const long long keyEnd = p.keys;\n";
  os << "  for (long long batch = blockIdx.y; batch < p.batches; batch += gridDim.y) {\n"
     << table.generateBatchBases()
     << "    // The previous batch matrix's reads of the query tile are done.\n"
     << "    __syncthreads();\n";
  if (e > 0)
    os << "    for (int i = threadIdx.x; i < 16 * E; i += 128) {\n"
       << "      const int r = i / E, e = i % E;\n"
       << "      const long long l = firstQuery + r;\n"
       << "      queryTile[r][e] = l < p.queries ? "
       << readOperand(table, queryView, queryFactor, "l", "e") << " : 0.0f;\n"
       << "    }\n";
  os << "    float runningMax = negativeInfinity, runningSum = 0.0f;\n"
     << "    float accumulator[" << valuesPerThread << "];\n"
     << "#pragma unroll\n"
     << "    for (int j = 0; j < " << valuesPerThread << "; ++j)\n"
     << "      accumulator[j] = 0.0f;\n";
  bool guarded = plan.nanReplacementInput.has_value();
  if (guarded)
    os << "    float valueSum[" << valuesPerThread << "];\n"
       << "#pragma unroll\n"
       << "    for (int j = 0; j < " << valuesPerThread << "; ++j)\n"
       << "      valueSum[j] = 0.0f;\n";
  os << "    for (long long keyStart = 0; keyStart < keyEnd; keyStart += 32) {\n"
     << "      // The previous key tile's reads are done.\n"
     << "      __syncthreads();\n";
  if (e > 0)
    os << "      for (int i = threadIdx.x; i < 32 * E; i += 128) {\n"
       << (keysContiguous ? "        const int e = i / 32, c = i % 32;\n"
                          : "        const int c = i / E, e = i % E;\n")
       << "        const long long key = keyStart + c;\n"
       << "        keyTile[c][e] = key < p.keys ? "
       << readOperand(table, keyView, keyFactor, "e", "key") << " : 0.0f;\n"
       << "      }\n";
  os << "      for (int i = threadIdx.x; i < 32 * EV; i += 128) {\n"
     << "        const int c = i / EV, d = i % EV;\n"
     << "        const long long key = keyStart + c;\n"
     << "        valueTile[c][d] = key < p.keys ? "
     << readOperand(table, valueView, std::nullopt, "key", "d") << " : 0.0f;\n"
     << "      }\n"
     << "      __syncthreads();\n"
     << "      float score[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n"
     << "#pragma unroll 8\n"
     << "      for (int e = 0; e < E; ++e) {\n"
     << "        const float q = queryTile[row][e];\n"
     << "#pragma unroll\n"
     << "        for (int j = 0; j < 4; ++j)\n"
     << "          score[j] = fmaf(q, keyTile[lane + 8 * j][e], score[j]);\n"
     << "      }\n"
     << "      float tileMax = negativeInfinity;\n"
     << "#pragma unroll\n"
     << "      for (int j = 0; j < 4; ++j) {\n"
     << "        const long long key = keyStart + lane + 8 * j;\n"
     << "        float s = score[j];\n"
     << "        if (query < p.queries && key < p.keys) {\n"
     << generateScoreStatements(plan, table, stepViews, /*applyScale=*/true) << "        } else {\n"
     << "          s = negativeInfinity;\n"
     << "        }\n"
     << "        score[j] = s;\n"
     << "        tileMax = fmaxf(tileMax, s);\n"
     << "      }\n"
     << "      // The 8 threads of a query are lanes 8r..8r+7 of one warp.\n"
     << "      for (int offset = 1; offset < 8; offset <<= 1)\n"
     << "        tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, offset));\n"
     << "      const float newMax = fmaxf(runningMax, tileMax);\n"
     << "      // While every score so far is masked (-inf), exponents stay finite.\n"
     << "      const float shift = newMax == negativeInfinity ? 0.0f : newMax;\n"
     << "      const float correction = expf(runningMax - shift);\n"
     << "      float tileSum = 0.0f;\n"
     << "#pragma unroll\n"
     << "      for (int j = 0; j < 4; ++j) {\n"
     << "        const float weight = expf(score[j] - shift);\n"
     << "        weightTile[row][lane + 8 * j] = weight;\n"
     << "        tileSum += weight;\n"
     << "      }\n"
     << "      for (int offset = 1; offset < 8; offset <<= 1)\n"
     << "        tileSum += __shfl_xor_sync(0xffffffffu, tileSum, offset);\n"
     << "      runningSum = runningSum * correction + tileSum;\n"
     << "      runningMax = newMax;\n"
     << "      // A query's weights are written and read by its own 8 lanes.\n"
     << "      __syncwarp();\n"
     << "#pragma unroll\n"
     << "      for (int j = 0; j < " << valuesPerThread << "; ++j)\n"
     << "        accumulator[j] *= correction;\n"
     << "      for (int c = 0; c < 32; ++c) {\n"
     << "        const float weight = weightTile[row][c];\n"
     << "#pragma unroll\n"
     << "        for (int j = 0; j < " << valuesPerThread << "; ++j) {\n"
     << "          const int d = lane + 8 * j;\n"
     << "          if (d < EV)\n"
     << "            accumulator[j] = fmaf(weight, valueTile[c][d], accumulator[j]);\n"
     << "        }\n"
     << "      }\n";
  if (guarded)
    // Keys past the end were staged as zeros.
    os << "      for (int c = 0; c < 32; ++c) {\n"
       << "#pragma unroll\n"
       << "        for (int j = 0; j < " << valuesPerThread << "; ++j) {\n"
       << "          const int d = lane + 8 * j;\n"
       << "          if (d < EV)\n"
       << "            valueSum[j] += valueTile[c][d];\n"
       << "        }\n"
       << "      }\n";
  os << "    }\n"
     << "    if (query < p.queries) {\n";
  if (outputView) {
    std::string at = std::to_string(*outputView);
    os << "      const long long at = base[" << at << "] + query * p.views[" << at << "][" << rank
       << "];\n"
       << "      const long long columnStride = p.views[" << at << "][" << rank + 1 << "];\n";
  } else {
    os << "      const long long at = (batch * p.queries + query) * EV;\n";
  }
  os << "#pragma unroll\n"
     << "      for (int j = 0; j < " << valuesPerThread << "; ++j) {\n"
     << "        const int d = lane + 8 * j;\n"
     << "        if (d < EV) {\n"
     << "          float result = p.keys == 0 ? 0.0f : accumulator[j] / runningSum;\n";
  if (guarded) {
    unsigned input = *plan.nanReplacementInput;
    os << "          if (p.keys != 0 && runningSum == 0.0f)\n"
       << "            result = "
       << loadValue(plan.inputTypes[input], "in" + std::to_string(input) + "[0]")
       << " * valueSum[j];\n";
  }
  os << "          out[at + " << (outputView ? "d * columnStride" : "d")
     << "] = " << storeValue(plan.dtype, "result") << ";\n"
     << "        }\n"
     << "      }\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return source;
}

/// The kernel parameter block of `plan`: the layout of cgc_attention_params
/// (all long long).
static std::vector<int64_t> makeAttentionParams(const AttentionPlan &plan) {
  std::vector<int64_t> params = {getNumElements(plan.batch), plan.queries, plan.keys};
  if (plan.batch.empty())
    params.push_back(1);
  params.insert(params.end(), plan.batch.begin(), plan.batch.end());
  auto addView = [&](const AttentionView &view) {
    if (plan.batch.empty())
      params.push_back(0);
    params.insert(params.end(), view.batchStrides.begin(), view.batchStrides.end());
    params.push_back(view.rowStride);
    params.push_back(view.columnStride);
  };
  // The order of generateAttentionSource's views.
  addView(plan.query.view);
  if (plan.query.factor)
    addView(*plan.query.factor);
  addView(plan.key.view);
  if (plan.key.factor)
    addView(*plan.key.factor);
  addView(plan.value);
  for (const AttentionScoreStep &step : plan.steps)
    if (step.operand)
      addView(*step.operand);
  if (plan.output)
    addView(*plan.output);
  return params;
}

/// The flash kernel of `plan`.
static llvm::Expected<Kernel> buildFlashKernel(const AttentionPlan &plan,
                                               KernelContext::Impl &context, llvm::StringRef name) {
  std::string kernelName = name.str();
  auto makeError = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), name + ": " + message);
  };
  if (std::optional<std::string> what = getUnimplementedAttentionFeature(plan))
    return makeError(*what + " is not implemented on the CUDA driver");
  int64_t batches = getNumElements(plan.batch);
  if (batches == 0 || plan.queries == 0 || plan.valueEmbedding == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  llvm::Expected<DeviceFunction> function =
      context.getCompiler().getFunction(generateAttentionSource(plan), "cgc_attention");
  if (!function)
    return makeError(llvm::toString(function.takeError()));
  auto tiles = static_cast<unsigned>((plan.queries + kQueryTile - 1) / kQueryTile);
  auto batchBlocks = static_cast<unsigned>(std::min(batches, kMaxBatchBlocks));
  return makeAttentionKernelLaunch(std::move(*function), dim3(tiles, batchBlocks), dim3(kThreads),
                                   plan.inputTypes.size(), makeAttentionParams(plan),
                                   kernelName);
}

//===----------------------------------------------------------------------===//
// Choosing the path
//===----------------------------------------------------------------------===//

const char *getAttentionPathName(AttentionPath path) {
  switch (path) {
  case AttentionPath::Flash:
    return "flash kernel";
  case AttentionPath::Gemm:
    return "cuBLASLt GEMMs + softmax";
  case AttentionPath::TensorCore:
    return "tensor-core flash kernel";
  }
  return "?";
}

/// The path CGC_CUDA_ATTENTION forces ("flash", "tensorcore" or "gemm");
/// none for "auto" or unset: every path that runs the plan is built and
/// timed, and the fastest kept.
static std::optional<AttentionPath> getForcedPath() {
  static const std::optional<AttentionPath> forced = []() -> std::optional<AttentionPath> {
    const char *value = std::getenv("CGC_CUDA_ATTENTION");
    llvm::StringRef name = value ? value : "";
    if (name == "flash")
      return AttentionPath::Flash;
    if (name == "tensorcore")
      return AttentionPath::TensorCore;
    if (name == "gemm")
      return AttentionPath::Gemm;
    return std::nullopt;
  }();
  return forced;
}

/// The last element of `view` over [batch..., rows, columns], plus one
/// (at the farthest index of each selection).
static int64_t getViewReach(const AttentionPlan &plan, const AttentionView &view, int64_t rows,
                            int64_t columns) {
  int64_t last = (std::max<int64_t>(rows, 1) - 1) * view.rowStride +
                 (std::max<int64_t>(columns, 1) - 1) * view.columnStride;
  for (auto [size, stride] : llvm::zip(plan.batch, view.batchStrides))
    last += (size - 1) * stride;
  for (const AttentionSelection &selection : view.selections)
    last += (selection.size - 1) * selection.stride;
  return last + 1;
}

/// The bytes of each input (LaunchArgs order) that `plan`'s kernels may
/// read: zeroed buffers of these sizes time a launch.
static std::vector<uint64_t> getInputBytes(const AttentionPlan &plan) {
  std::vector<int64_t> elements(plan.inputTypes.size(), 1);
  auto reach = [&](const AttentionView &view, int64_t rows, int64_t columns) {
    elements[view.input] = std::max(elements[view.input], getViewReach(plan, view, rows, columns));
  };
  reach(plan.query.view, plan.queries, plan.embedding);
  if (plan.query.factor)
    reach(*plan.query.factor, plan.queries, plan.embedding);
  reach(plan.key.view, plan.embedding, plan.keys);
  if (plan.key.factor)
    reach(*plan.key.factor, plan.embedding, plan.keys);
  reach(plan.value, plan.keys, plan.valueEmbedding);
  for (const AttentionScoreStep &step : plan.steps)
    if (step.operand)
      reach(*step.operand, plan.queries, plan.keys);
  std::vector<uint64_t> bytes;
  for (auto [count, dtype] : llvm::zip(elements, plan.inputTypes))
    bytes.push_back(static_cast<uint64_t>(count) * getByteWidth(dtype));
  return bytes;
}

/// Everything an AttentionPlan determines a kernel by, as text: the key of
/// the process's choices between the paths.
static std::string getAttentionPlanKey(const AttentionPlan &plan,
                                       const AttentionBuildOptions &options) {
  std::string key;
  llvm::raw_string_ostream os(key);
  auto list = [&](llvm::ArrayRef<int64_t> values) {
    os << "[";
    for (int64_t value : values)
      os << value << ",";
    os << "]";
  };
  auto view = [&](const AttentionView &view) {
    os << "(" << view.input << " " << getDTypeName(view.dtype) << " ";
    list(view.batchStrides);
    os << " " << view.rowStride << " " << view.columnStride;
    for (const AttentionSelection &selection : view.selections)
      os << " s" << selection.input << ":" << getDTypeName(selection.indexType) << ":"
         << selection.size << ":" << selection.stride;
    os << ")";
  };
  auto operand = [&](const AttentionOperand &operand) {
    view(operand.view);
    if (operand.factor)
      view(*operand.factor);
  };
  os << getDTypeName(plan.dtype) << " in";
  for (DType dtype : plan.inputTypes)
    os << " " << getDTypeName(dtype);
  os << " batch";
  list(plan.batch);
  os << " " << plan.queries << "x" << plan.keys << "x" << plan.embedding << "x"
     << plan.valueEmbedding << " q";
  operand(plan.query);
  os << " k";
  operand(plan.key);
  os << " v";
  view(plan.value);
  if (plan.scale)
    os << " scale " << llvm::format("%a", *plan.scale);
  for (const AttentionScoreStep &step : plan.steps) {
    os << " step " << static_cast<int>(step.kind) << (step.scoreIsLhs ? "l" : "r");
    if (step.operand)
      view(*step.operand);
  }
  os << (plan.causal ? " causal" : "");
  if (plan.nanReplacementInput)
    os << " nan " << *plan.nanReplacementInput;
  if (plan.output) {
    os << " out";
    view(*plan.output);
  }
  os << " f32scores " << options.float32Scores << " warps "
     << options.tensorCoreWarps.value_or(0);
  return key;
}

namespace {
/// The path each timed plan runs on each device, and why the others do
/// not: a transformer's layers share one plan, which is timed once.
struct AttentionChoice {
  AttentionPath path;
  std::string gemmRefusal, tensorCoreRefusal;
};
ChoiceCache<AttentionChoice> &getAttentionChoiceCache() {
  static ChoiceCache<AttentionChoice> cache;
  return cache;
}
std::atomic<uint64_t> timedAttentionPlanCount{0};
} // namespace

uint64_t getTimedAttentionPlanCount() { return timedAttentionPlanCount.load(); }

llvm::Expected<AttentionPlanKernel> buildAttentionPlanKernel(const AttentionPlan &plan,
                                                             KernelContext::Impl &context,
                                                             llvm::StringRef name,
                                                             mlir::Operation *op,
                                                             const AttentionBuildOptions &options) {
  if (std::optional<std::string> what = getUnimplementedAttentionFeature(plan))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   name + ": " + *what + " is not implemented on the CUDA driver");
  AttentionPlanKernel result;
  int64_t batches = getNumElements(plan.batch);
  if (batches == 0 || plan.queries == 0 || plan.valueEmbedding == 0) {
    result.kernel = Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
    result.gemmRefusal = result.tensorCoreRefusal = "the output is empty";
    return result;
  }
  std::optional<AttentionPath> path = options.path ? options.path : getForcedPath();
  auto report = [&] {
    if (!isVerbose())
      return;
    llvm::errs() << "cgc cuda: " << name << ": runs as " << getAttentionPathName(result.path);
    if (!result.tensorCoreRefusal.empty())
      llvm::errs() << " (tensor-core flash kernel: " << result.tensorCoreRefusal << ")";
    if (!result.gemmRefusal.empty())
      llvm::errs() << " (GEMM path: " << result.gemmRefusal << ")";
    llvm::errs() << "\n";
  };

  // One path's kernel; a path that does not run the plan is the builder's
  // error, which names why.
  auto buildPath = [&](AttentionPath built) -> llvm::Expected<Kernel> {
    switch (built) {
    case AttentionPath::Gemm:
      return buildGemmAttentionKernel(plan, context, name, op, options.float32Scores);
    case AttentionPath::TensorCore:
      return buildTensorCoreAttentionKernel(plan, context, name, options.tensorCoreWarps);
    case AttentionPath::Flash:
      break;
    }
    return buildFlashKernel(plan, context, name);
  };
  // The plan run as `chosen`, untimed.
  auto runAs = [&](AttentionPath chosen) -> llvm::Expected<AttentionPlanKernel> {
    llvm::Expected<Kernel> kernel = buildPath(chosen);
    if (!kernel)
      return kernel.takeError();
    result.kernel = std::move(*kernel);
    result.path = chosen;
    report();
    return std::move(result);
  };
  if (path)
    return runAs(*path);
  // A plan timed before on this device runs as it was chosen then.
  std::string choiceKey;
  if (context.hasDevice()) {
    choiceKey = std::to_string(context.getDevice()) + ":" + getAttentionPlanKey(plan, options);
    if (std::optional<AttentionChoice> chosen = getAttentionChoiceCache().lookup(choiceKey)) {
      result.gemmRefusal = chosen->gemmRefusal;
      result.tensorCoreRefusal = chosen->tensorCoreRefusal;
      return runAs(chosen->path);
    }
  }
  auto flash = buildPath(AttentionPath::Flash);
  if (!flash)
    return flash.takeError();
  result.kernel = std::move(*flash);
  result.path = AttentionPath::Flash;

  // Every path that runs the plan: keep the fastest on this device.
  struct Candidate {
    AttentionPath path;
    std::string *refusal;
    Kernel kernel;
  };
  llvm::SmallVector<Candidate, 3> candidates;
  auto consider = [&](AttentionPath candidate, std::string &refusalOut,
                      std::optional<std::string> refusal) {
    if (!refusal && !context.hasDevice())
      refusal = "the kernel context has no device";
    if (refusal) {
      refusalOut = std::move(*refusal);
      return;
    }
    llvm::Expected<Kernel> kernel = buildPath(candidate);
    if (!kernel) {
      refusalOut = llvm::toString(kernel.takeError());
      return;
    }
    candidates.push_back({candidate, &refusalOut, std::move(*kernel)});
  };
  consider(AttentionPath::TensorCore, result.tensorCoreRefusal,
           getTensorCoreAttentionRefusal(plan, context.getComputeMajor()));
  consider(AttentionPath::Gemm, result.gemmRefusal,
           getGemmAttentionRefusal(plan, options.float32Scores));
  if (candidates.empty()) {
    report();
    return result;
  }
  std::vector<uint64_t> inputBytes = getInputBytes(plan);
  uint64_t outputBytes = static_cast<uint64_t>(getViewReach(plan, getAttentionOutputView(plan),
                                                            plan.queries, plan.valueEmbedding)) *
                         getByteWidth(plan.dtype);
  // The fastest of those timed; the flash kernel when none is.
  std::optional<float> bestTime = timeKernelLaunch(result.kernel, inputBytes, {outputBytes});
  std::string times = std::string(getAttentionPathName(AttentionPath::Flash)) + " " +
                      (bestTime ? std::to_string(*bestTime) : std::string("?")) + " ms";
  Candidate *best = nullptr;
  llvm::SmallVector<bool, 3> timed;
  for (Candidate &candidate : candidates) {
    std::optional<float> time = timeKernelLaunch(candidate.kernel, inputBytes, {outputBytes});
    times += std::string(", ") + getAttentionPathName(candidate.path) + " " +
             (time ? std::to_string(*time) : std::string("?")) + " ms";
    timed.push_back(time.has_value());
    if (time && (!bestTime || *time < *bestTime)) {
      bestTime = time;
      best = &candidate;
    }
  }
  if (isVerbose())
    llvm::errs() << "cgc cuda: " << name << ": " << times << "\n";
  if (best) {
    result.kernel = std::move(best->kernel);
    result.path = best->path;
  }
  for (auto [candidate, wasTimed] : llvm::zip(candidates, timed))
    if (&candidate != best)
      *candidate.refusal =
          wasTimed ? std::string("the ") + getAttentionPathName(result.path) + " was faster"
                   : std::string("the paths could not be timed");
  if (!choiceKey.empty() && bestTime) {
    getAttentionChoiceCache().store(choiceKey,
                                    {result.path, result.gemmRefusal, result.tensorCoreRefusal});
    ++timedAttentionPlanCount;
  }
  report();
  return result;
}

//===----------------------------------------------------------------------===//
// cgc_op.scaled_dot_product_attention
//===----------------------------------------------------------------------===//

/// `batch` followed by `rows` and `columns`.
static Shape matrixShape(llvm::ArrayRef<int64_t> batch, int64_t rows, int64_t columns) {
  Shape shape(batch);
  shape.append({rows, columns});
  return shape;
}

/// The plan of a cgc_op.scaled_dot_product_attention layer, or the error
/// naming what the kernel does not implement.
static llvm::Expected<AttentionPlan> readAttentionOp(mlir::Operation *op) {
  auto attention = llvm::cast<op::ScaledDotProductAttentionOp>(op);
  auto query = getTensorInfo(op, attention.getQuery());
  if (!query)
    return query.takeError();
  auto key = getTensorInfo(op, attention.getKey());
  if (!key)
    return key.takeError();
  auto value = getTensorInfo(op, attention.getValue());
  if (!value)
    return value.takeError();
  auto output = getTensorInfo(op, attention.getOutput());
  if (!output)
    return output.takeError();
  DType dtype = query->dtype;
  for (DType operandType : {dtype, key->dtype, value->dtype, output->dtype})
    if (!isFloat32ComputedDType(operandType) || operandType != dtype)
      return unimplementedElementType(op,
                                      isFloat32ComputedDType(operandType) ? dtype : operandType);
  if (query->getRank() < 2 || key->getRank() < 2 || value->getRank() < 2 || output->getRank() < 2)
    return makeKernelError(op, "query, key and value must be of rank 2 or more");

  AttentionPlan plan;
  plan.dtype = dtype;
  plan.inputTypes = {dtype, dtype, dtype};
  plan.batch.assign(output->shape.begin(), output->shape.end() - 2);
  plan.queries = query->shape.end()[-2];
  plan.embedding = query->shape.back();
  plan.keys = key->shape.end()[-2];
  plan.valueEmbedding = value->shape.back();
  plan.query.view = makeAttentionView(0, dtype, query->shape,
                                      matrixShape(plan.batch, plan.queries, plan.embedding));
  // K is [..., S, E]: read as Kᵀ, its rows are the embedding.
  AttentionView keyRows =
      makeAttentionView(1, dtype, key->shape, matrixShape(plan.batch, plan.keys, plan.embedding));
  std::swap(keyRows.rowStride, keyRows.columnStride);
  plan.key.view = keyRows;
  plan.value = makeAttentionView(2, dtype, value->shape,
                                 matrixShape(plan.batch, plan.keys, plan.valueEmbedding));
  plan.scale = attention.getScale() ? attention.getScale()->convertToDouble()
                                    : 1.0 / std::sqrt(static_cast<double>(plan.embedding));
  plan.causal = attention.getIsCausal();
  if (mlir::Value maskValue = attention.getMask()) {
    auto mask = getTensorInfo(op, maskValue);
    if (!mask)
      return mask.takeError();
    AttentionScoreStep step;
    if (mask->dtype == DType::Bool)
      step.kind = AttentionScoreStep::Kind::KeepWhere;
    else if (mask->dtype == dtype)
      step.kind = AttentionScoreStep::Kind::Add;
    else
      return unimplementedFeature(op,
                                  llvm::Twine("mask element type ") + getDTypeName(mask->dtype));
    Shape scores = matrixShape(plan.batch, plan.queries, plan.keys);
    if (mask->getRank() > static_cast<int64_t>(scores.size()))
      return makeKernelError(op, "the mask does not broadcast to the attention scores");
    step.operand = makeAttentionView(3, mask->dtype, mask->shape, scores);
    plan.inputTypes.push_back(mask->dtype);
    plan.steps.push_back(std::move(step));
  }
  if (std::optional<std::string> what = getUnimplementedAttentionFeature(plan))
    return unimplementedFeature(op, *what);
  return plan;
}

llvm::Expected<AttentionPlanKernel>
buildAttentionLayerKernel(mlir::Operation *op, KernelContext::Impl &context,
                          const AttentionBuildOptions &options) {
  llvm::Expected<AttentionPlan> plan = readAttentionOp(op);
  if (!plan)
    return plan.takeError();
  // The layer computes in float32 throughout (the CPU kernel keeps its
  // scores in float32), unlike a definition whose own matmul rounds them to
  // the element type: bfloat16 scores would lose too much.
  AttentionBuildOptions layerOptions = options;
  layerOptions.float32Scores = true;
  return buildAttentionPlanKernel(*plan, context, op->getName().getStringRef(), op, layerOptions);
}

llvm::Expected<Kernel> buildAttentionKernel(mlir::Operation *op, KernelContext::Impl &context) {
  llvm::Expected<AttentionPlanKernel> built = buildAttentionLayerKernel(op, context);
  if (!built)
    return built.takeError();
  return std::move(built->kernel);
}

} // namespace cgc::cuda
