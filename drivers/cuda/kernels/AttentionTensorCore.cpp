//===- AttentionTensorCore.cpp - flash attention on tensor cores ----------===//
//
// The generated kernel: blocks of 1, 2 or 4 warps (the tiling,
// getTensorCoreAttentionTiling), each block 16 queries per warp of one
// batch matrix. The block stages its Q tile in shared memory once and each
// warp keeps its 16 rows as mma A fragments in registers. Per tile of 64
// keys the block stages Kᵀ and V in shared memory, in the element type;
// each warp then
//
//   S = Q·Kᵀ             16 × 64 scores, float32 in registers (mma.sync)
//   s = steps(alpha · S)  the scalar flash kernel's code (AttentionCodegen.h)
//   online softmax        running maximum and sum per row, in float32
//   O = O·c + P·V         P = 2^(s·log2e - max·log2e) (one fma and one ex2)
//                         rounded to the element type, taken from the
//                         score registers as A fragments
//
// and at the end writes O / sum through the plan's output view. A factor
// on Q or Kᵀ of one element (torch's √scale) joins the scale in alpha, as
// the GEMM path folds it; a larger one multiplies each element as it is
// staged, the product rounded to the element type as the mul layer stores
// it. The fragment layouts are PTX's (m16n8k16: lane = 4·group + thread; a
// thread holds rows group and group + 8, columns 2·thread and 2·thread + 1
// of each 8-column block), so the rows' maxima and sums combine over the 4
// lanes of a group with two shuffles, and O never leaves registers.
//
// Copies overlap the products. Where shared memory allows two slots of
// Kᵀ's, V's and the staged steps' tiles (and Q's tile a buffer of its own:
// head dimensions up to 64 without a mask per query, or blocks of one
// warp), the first two key tiles are copied with Q's, and each tile's
// copies are issued when the slot two tiles back is free, so that a whole
// tile's products hide them; one barrier a tile, when the next tile has
// landed and every warp is done with the slot it will overwrite (ViT-B/16
// batch 32 on an H100: 41.2 -> 39.0 us a layer). Otherwise, one buffer
// per operand as FlashAttention-2's: V's tile is copied while S = Q·Kᵀ
// and the softmax run, and the next Kᵀ tile while O += P·V runs; each tile
// costs two barriers, one when Kᵀ has landed (and V's buffer is free) and
// one when V has (and Kᵀ's is). Q's tile has a buffer of its own where
// shared memory allows, and V's first tile is then copied with Q's and
// Kᵀ's, so that a short sequence (BERT's 128 keys: two tiles) waits on
// device memory once less; else Q's tile is staged in V's buffer, which is
// free until the first V tile.
// Score steps' operands of the element type with contiguous keys (an
// additive mask) are staged with each Kᵀ tile, a row per query of the
// block, or one row when the mask is broadcast over the queries.
//
// Shared tiles are stored with their contiguous dimension along the view's
// (K as [key][embedding] when the embedding is contiguous, as the per-layer
// op's K is, or [embedding][key] when the keys are, as a materialized Kᵀ
// is; V likewise), and ldmatrix (.trans where the tile is k-major) gives the
// B fragments either way. Rows are padded by 8 elements, so that the 8 rows
// one ldmatrix phase reads, and the 8 rows of 16 bytes a quarter warp
// copies, lie in distinct banks. A view whose contiguous dimension is the
// tile's, with strides that keep 16-byte alignment, is copied 16 bytes at a
// time by cp.async (when its pointer is aligned, checked at run time; the
// bytes past a bound are zero-filled by the copy itself); any other view,
// broadcast strides included, is read element by element through the view
// table. Shared memory stays under the 48 KiB a block gets without opting
// in (37 KiB at head dimensions of 128, 18 KiB at 64, before Q's own buffer
// and the staged steps, each taken only while the total stays under it).
//
// The softmax mirrors the scalar flash kernel (AttentionKernel.cpp) exactly
// on masked scores: while every score of a row so far is -inf the shift is
// 0, so a query whose every key is masked gets 0/0 = NaN, an attention over
// no keys gives 0, and with the NaN guard a fully masked query gets r times
// the sum of the values over all keys (the block then walks every key tile,
// causal or not; V's column sums are read from device memory afterwards,
// only by blocks that have such a query).
//
// The parameter block's values (sizes and strides) are emitted as
// constants of the generated source, which is built for one plan anyway.
// The views' table and the tiles' staging statements are
// AttentionTensorCoreStaging.h's.
//
//===----------------------------------------------------------------------===//

#include "AttentionTensorCore.h"
#include "AttentionCodegen.h"
#include "AttentionTensorCoreStaging.h"
#include "DeviceCode.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace cgc::cuda {

namespace {

/// Keys per staged tile (the generated source spells the same number).
constexpr int64_t kKeyTile = 64;
/// Elements of padding after each row of a shared tile.
constexpr int64_t kRowPadding = 8;
/// The grid's y dimension covers batch matrices; blocks loop past this.
constexpr int64_t kMaxBatchBlocks = 65535;
/// Bytes of shared memory a block may declare statically (48 KiB), less a
/// margin for what the compiler adds.
constexpr int64_t kSharedBudget = 48 * 1024 - 256;

/// The kernel's parameter block of `plan`: batches, queries, keys, the
/// batch sizes and the views' strides (cgc_attention_params' layout).
std::vector<int64_t> getTensorCoreParams(const AttentionPlan &plan) {
  std::vector<int64_t> params = {getNumElements(plan.batch), plan.queries, plan.keys};
  appendBatchSizeParams(plan, params);
  TensorCoreViews views(plan);
  views.table.appendViewParams(params);
  return params;
}

/// Whether every index the kernel computes fits in 32 bits: each view's
/// farthest offset, with a tile's overrun past every bound, stays below
/// 2^30 (the kernel then indexes with int, which takes half the registers
/// and instructions of 64-bit arithmetic).
bool fitsInt32Indices(const AttentionPlan &plan) {
  TensorCoreViews views(plan);
  int64_t extent = std::max({plan.queries, plan.keys, plan.embedding, plan.valueEmbedding}) + 128;
  constexpr int64_t kLimit = int64_t(1) << 30;
  if (getNumElements(plan.batch) >= kLimit || extent >= kLimit)
    return false;
  for (const AttentionView *view : views.table.getViews()) {
    int64_t reach = extent * (std::abs(view->rowStride) + std::abs(view->columnStride));
    for (auto [size, stride] : llvm::zip(plan.batch, view->batchStrides))
      reach += (size - 1) * std::abs(stride);
    for (const AttentionSelection &selection : view->selections)
      reach += (selection.size - 1) * std::abs(selection.stride);
    if (reach >= kLimit)
      return false;
  }
  return true;
}

/// `values` as a braced C++ initializer list.
std::string formatInitializer(llvm::ArrayRef<int64_t> values) {
  std::string text = "{";
  for (auto [index, value] : llvm::enumerate(values))
    text += (index ? ", " : "") + std::to_string(value) + "ll";
  return text + "}";
}

} // namespace

/// The largest head dimension the kernel takes: the tiles of 128 take 37
/// KiB of shared memory, and a warp's O (EV / 2 floats a thread), Q
/// fragments (E / 4 registers) and scores stay in registers. (At 128 with
/// a materialized Kᵀ, whose tile is E rows of 64 keys, the tile once was
/// sized as 64 rows of E and overran into V's.)
constexpr int64_t kMaxTensorCoreHeadDim = 128;

std::optional<std::string> getTensorCoreAttentionRefusal(const AttentionPlan &plan,
                                                         int computeMajor) {
  if (plan.dtype != DType::F16 && plan.dtype != DType::BF16)
    return std::string("element type ") + getDTypeName(plan.dtype) +
           " (tensor cores take float16 and bfloat16)";
  if (computeMajor < 8)
    return "compute capability " + std::to_string(computeMajor) +
           ".x (float16 and bfloat16 mma.sync need 8.0)";
  auto checkHeadDim = [](const char *role, int64_t size) -> std::optional<std::string> {
    if (size > 0 && size % 16 == 0 && size <= kMaxTensorCoreHeadDim)
      return std::nullopt;
    return std::string(role) + " head dimension " + std::to_string(size) +
           " (the tensor-core kernel takes multiples of 16 up to " +
           std::to_string(kMaxTensorCoreHeadDim) + ")";
  };
  if (auto refusal = checkHeadDim("query/key", plan.embedding))
    return refusal;
  if (auto refusal = checkHeadDim("value", plan.valueEmbedding))
    return refusal;
  if (std::optional<std::string> what = getUnimplementedAttentionFeature(plan))
    return what;
  return std::nullopt;
}

TensorCoreAttentionTiling getTensorCoreAttentionTiling(const AttentionPlan &plan,
                                                       int multiprocessorCount) {
  int64_t batches = std::max<int64_t>(getNumElements(plan.batch), 1);
  TensorCoreAttentionTiling tiling;
  for (int64_t warps : {4, 2, 1}) {
    tiling.warps = warps;
    int64_t tiles = (plan.queries + tiling.getQueryTile() - 1) / tiling.getQueryTile();
    if (batches * tiles >= multiprocessorCount)
      break;
  }
  return tiling;
}

std::string generateTensorCoreAttentionSource(const AttentionPlan &plan,
                                              const TensorCoreAttentionTiling &tiling) {
  TensorCoreViews views(plan);
  const AttentionViewTable &table = views.table;
  size_t rank = table.getBatchRank(), viewCount = table.size();
  int64_t e = plan.embedding, ev = plan.valueEmbedding;
  int64_t queryTile = tiling.getQueryTile();
  unsigned threads = tiling.getThreads();
  bool guarded = plan.nanReplacementInput.has_value();
  auto number = [](int64_t value) { return std::to_string(value); };

  // One-element factors (torch's √scale on q and kᵀ) multiply the scores
  // instead, as the GEMM path folds them into its alpha, so that the
  // operands stage as they are stored; others multiply each element, the
  // product rounded to the element type (as the mul layer stores it).
  std::vector<std::string> foldedFactors;
  auto stagedViews = [&](const AttentionOperand &operand, size_t view,
                         std::optional<size_t> factor) -> std::pair<size_t, std::optional<size_t>> {
    auto fold = [&](const AttentionView &scalar) {
      foldedFactors.push_back(loadValue(scalar.dtype, "in" + std::to_string(scalar.input) + "[0]"));
    };
    if (!factor)
      return {view, std::nullopt};
    if (isOneElement(*operand.factor)) {
      fold(*operand.factor);
      return {view, std::nullopt};
    }
    if (isOneElement(operand.view)) {
      fold(operand.view);
      return {*factor, std::nullopt};
    }
    return {view, factor};
  };
  auto [queryRead, queryFactor] = stagedViews(plan.query, views.query, views.queryFactor);
  auto [keyRead, keyFactor] = stagedViews(plan.key, views.key, views.keyFactor);
  const AttentionView &queryView = *table.getViews()[queryRead];
  const AttentionView &keyView = *table.getViews()[keyRead];
  const AttentionView &valueView = plan.value;

  // Q: [query][embedding], in V's buffer. Kᵀ: [key][embedding] (B
  // fragments by ldmatrix) unless its keys are contiguous: [embedding][key]
  // (ldmatrix .trans). V: [key][column] (.trans) unless its keys are
  // contiguous: [column][key]. A tile's rows are its outer dimension's: an
  // [embedding][key] Kᵀ tile has E rows, not 64.
  bool keyByEmbedding = keyView.columnStride == 1 && keyView.rowStride != 1;
  bool valueByColumn = valueView.rowStride == 1 && valueView.columnStride != 1;
  int64_t queryStride = e + kRowPadding;
  int64_t keyStride = keyByEmbedding ? kKeyTile + kRowPadding : e + kRowPadding;
  int64_t valueStride = valueByColumn ? kKeyTile + kRowPadding : ev + kRowPadding;
  int64_t keyTileElements = (keyByEmbedding ? e : kKeyTile) * keyStride;
  int64_t queryTileElements = queryTile * queryStride;
  int64_t valueTileElements = (valueByColumn ? ev : kKeyTile) * valueStride;
  const int64_t valueSlotElements = valueTileElements;
  // Q gets a buffer of its own where shared memory allows, so that V's
  // first tile is copied with Q's and Kᵀ's; else Q's tile lives in V's
  // buffer until the first V tile is staged.
  int64_t sharedBytes = 2 * (keyTileElements + valueTileElements) + (guarded ? 4 * ev : 0);
  bool separateQuery = sharedBytes + 2 * queryTileElements <= kSharedBudget;
  if (separateQuery)
    sharedBytes += 2 * queryTileElements;
  else
    valueTileElements = std::max(valueTileElements, queryTileElements);

  TileStaging query;
  query.tile = separateQuery ? "queryTile" : "valueTile";
  query.stride = queryStride;
  query.outer = {queryTile, "firstQuery", "p.queries", /*isViewRow=*/true};
  query.inner = {e, "0", "", /*isViewRow=*/false};
  query.view = queryRead;
  query.factor = queryFactor;
  query.vectorized = isVectorReadable(plan, queryView, true, queryFactor.has_value());
  query.alignedFlag = "queryAligned";

  // Kᵀ's tile starts at `keyOrigin` (the prologue's first tile, then the
  // next one while the current is in use), V's at `keyStart`.
  TileStaging key;
  key.tile = "keyTile";
  key.stride = keyStride;
  TileAxis keys{kKeyTile, "keyOrigin", "p.keys", /*isViewRow=*/false};
  TileAxis embedding{e, "0", "", /*isViewRow=*/true};
  key.outer = keyByEmbedding ? embedding : keys;
  key.inner = keyByEmbedding ? keys : embedding;
  key.view = keyRead;
  key.factor = keyFactor;
  key.vectorized = isVectorReadable(plan, keyView, keyByEmbedding, keyFactor.has_value());
  key.alignedFlag = "keyAligned";

  TileStaging value;
  value.tile = "valueTile";
  value.stride = valueStride;
  TileAxis valueKeys{kKeyTile, "keyStart", "p.keys", /*isViewRow=*/true};
  TileAxis columns{ev, "0", "", /*isViewRow=*/false};
  value.outer = valueByColumn ? columns : valueKeys;
  value.inner = valueByColumn ? valueKeys : columns;
  value.view = views.value;
  value.vectorized = isVectorReadable(plan, valueView, !valueByColumn, false);
  value.alignedFlag = "valueAligned";

  // Score steps' operands of the element type whose keys are contiguous
  // (BERT's additive mask, [batch, 1, queries, keys] or broadcast over the
  // queries) are staged per key tile with Kᵀ's, so that the softmax reads
  // them from shared memory instead of waiting on a device-memory read per
  // score; a mask broadcast over the queries takes one row.
  std::vector<TileStaging> stepStagings;
  std::vector<std::string> stagedReads(plan.steps.size());
  for (auto [index, stepView] : llvm::enumerate(views.steps)) {
    if (!stepView)
      continue;
    const AttentionView &operand = *table.getViews()[*stepView];
    if (operand.dtype != plan.dtype || operand.columnStride != 1 || isOneElement(operand))
      continue;
    bool perQuery = operand.rowStride != 0;
    int64_t rows = perQuery ? queryTile : 1, stride = kKeyTile + kRowPadding;
    if (sharedBytes + 2 * rows * stride > kSharedBudget)
      continue;
    sharedBytes += 2 * rows * stride;
    TileStaging staging;
    staging.tile = "stepTile" + number(index);
    staging.stride = stride;
    staging.outer = {rows, "firstQuery", "p.queries", /*isViewRow=*/true};
    staging.inner = {kKeyTile, "keyOrigin", "p.keys", /*isViewRow=*/false};
    staging.view = *stepView;
    staging.vectorized = isVectorReadable(plan, operand, true, false);
    staging.alignedFlag = "stepAligned" + number(index);
    stagedReads[index] = loadValue(
        operand.dtype, staging.tile + "[" +
                           (perQuery ? "(query - firstQuery) * " + number(stride) + " + " : "") +
                           "(key - keyStart)]");
    stepStagings.push_back(std::move(staging));
  }
  // Two slots for Kᵀ's, V's and the staged steps' tiles where shared
  // memory allows (head dimensions up to 64 without a per-query mask):
  // the next tile is in flight while a whole tile is computed, and a short
  // sequence (BERT's two tiles) is copied at once. The copies then stage
  // into slot `stage` and the products read slot `slot`.
  int64_t stepBytes = 0;
  for (const TileStaging &staging : stepStagings)
    stepBytes += 2 * staging.outer.size * staging.stride;
  bool ring = 2 * queryTileElements + 2 * (2 * (keyTileElements + valueSlotElements) + stepBytes) +
                  (guarded ? 4 * ev : 0) <=
              kSharedBudget;
  std::vector<std::string> stepTileNames;
  for (TileStaging &staging : stepStagings) {
    stepTileNames.push_back(staging.tile);
    if (ring)
      staging.tile += "Slots[stage]";
  }
  if (ring) {
    key.tile = "keyTileSlots[stage]";
    value.tile = "valueTileSlots[stage]";
    // V's tile is staged with Kᵀ's, from the same key.
    for (TileAxis *axis : {&value.outer, &value.inner})
      if (axis->isViewRow)
        axis->origin = "keyOrigin";
  }
  auto stageKeyTile = [&]() {
    std::string code = generateStaging(plan, table, key, threads);
    for (const TileStaging &staging : stepStagings)
      code += generateStaging(plan, table, staging, threads);
    if (ring)
      code += generateStaging(plan, table, value, threads);
    return code;
  };

  const AttentionView &outputView = *table.getViews()[views.output];
  bool outputPairs =
      outputView.columnStride == 1 && outputView.rowStride % 2 == 0 &&
      llvm::all_of(outputView.batchStrides, [](int64_t stride) { return stride % 2 == 0; });

  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << getTensorCoreHelpers(plan.dtype);
  // 2^x by the multifunction unit alone: the weights are rounded to 16
  // bits anyway, and a result below float32's normal range is one of them
  // that rounds to 0 (the scalar kernels' exp2f also handles subnormals).
  os << "CGC_DEVICE float cgc_exp2(float x) {\n"
     << "  float y;\n"
     << "  asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n"
     << "  return y;\n"
     << "}\n";
  os << "struct cgc_attention_params {\n"
     << "  long long batches, queries, keys;\n"
     << "  long long batchSizes[" << rank << "];\n"
     << "  long long views[" << viewCount << "][" << rank + 2 << "];\n"
     << "};\n\n";
  // With 32-bit indices the kernel fits 128 registers a thread (a few
  // bytes spill), so 16 warps share a multiprocessor instead of 8: blocks
  // of 128 threads are latency-bound, and more of them hide it. Head
  // dimensions past 64 keep 8 (O and Q's fragments alone take 96 registers
  // at 128, and 128 a thread spilled over a kilobyte).
  bool int32Indices = fitsInt32Indices(plan);
  os << getIndexTypedef(int32Indices);
  os << "extern \"C\" __global__ void __launch_bounds__(" << threads;
  if (int32Indices && std::max(e, ev) <= 64)
    os << ", " << 512 / threads;
  os << ") cgc_attention_tensor_core(";
  for (auto [index, dtype] : llvm::enumerate(plan.inputTypes))
    os << "const " << getStorageType(dtype) << " *in" << index << ", ";
  os << "unsigned short *out, cgc_attention_params) {\n"
     << "  constexpr int E = " << e << ", EV = " << ev << ";\n";
  // The parameter block's values are known here (the source is generated
  // for one plan): as constants, strides fold into the address arithmetic,
  // divisions by batch sizes become multiplications, and bounds checks
  // that tiles always pass disappear. The launch still passes the block.
  {
    std::vector<int64_t> params = getTensorCoreParams(plan);
    llvm::ArrayRef<int64_t> values(params);
    os << "  struct cgc_attention_constants {\n"
       << "    long long batches, queries, keys;\n"
       << "    long long batchSizes[" << rank << "];\n"
       << "    long long views[" << viewCount << "][" << rank + 2 << "];\n"
       << "  };\n"
       << "  constexpr cgc_attention_constants p = {" << values[0] << "ll, " << values[1]
       << "ll, " << values[2] << "ll, " << formatInitializer(values.slice(3, rank)) << ", {";
    for (size_t view = 0; view < viewCount; ++view)
      os << (view ? ", " : "")
         << formatInitializer(values.slice(3 + rank + view * (rank + 2), rank + 2));
    os << "}};\n";
  }
  if (ring) {
    os << "  __shared__ __align__(16) unsigned short keyTileSlots[2][" << keyTileElements << "];\n"
       << "  __shared__ __align__(16) unsigned short queryTile[" << queryTileElements << "];\n"
       << "  __shared__ __align__(16) unsigned short valueTileSlots[2][" << valueSlotElements
       << "];\n";
    for (auto [staging, name] : llvm::zip(stepStagings, stepTileNames))
      os << "  __shared__ __align__(16) unsigned short " << name << "Slots[2]["
         << staging.outer.size * staging.stride << "];\n";
  } else {
    os << "  __shared__ __align__(16) unsigned short keyTile[" << keyTileElements << "];\n";
    if (separateQuery)
      os << "  __shared__ __align__(16) unsigned short queryTile[" << queryTileElements << "];\n"
         << "  __shared__ __align__(16) unsigned short valueTile[" << valueTileElements << "];\n";
    else
      os << "  // V's tile, and Q's until the first V tile is staged.\n"
         << "  __shared__ __align__(16) unsigned short valueTile[" << valueTileElements << "];\n";
    for (const TileStaging &staging : stepStagings)
      os << "  __shared__ __align__(16) unsigned short " << staging.tile << "["
         << staging.outer.size * staging.stride << "];\n";
  }
  if (guarded)
    os << "  __shared__ float valueSums[EV];\n";
  os << "  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;\n"
     << "  // This lane's rows of the warp's 16 and its columns of each 8.\n"
     << "  const int group = lane >> 2, quad = lane & 3;\n"
     << "  const cgc_index firstQuery = (cgc_index)blockIdx.x * " << queryTile << ";\n"
     << "  const cgc_index query0 = firstQuery + warp * 16 + group, query1 = query0 + 8;\n"
     << "  const bool warpActive = firstQuery + warp * 16 < p.queries;\n"
     << "  const float negativeInfinity = __int_as_float((int)0xff800000u);\n"
     << "  const float log2e = 1.4426950408889634f;\n";
  llvm::SmallVector<const TileStaging *, 6> stagings = {&query, &key, &value};
  for (const TileStaging &staging : stepStagings)
    stagings.push_back(&staging);
  for (const TileStaging *staging : stagings)
    if (staging->vectorized)
      os << "  const bool " << staging->alignedFlag << " = ((unsigned long long)in"
         << table.getViews()[staging->view]->input << " & 15ull) == 0;\n";
  if (outputPairs)
    os << "  const bool outputAligned = ((unsigned long long)out & 3ull) == 0;\n";
  bool scaled = plan.scale || !foldedFactors.empty();
  if (scaled) {
    os << "  float alpha = " << floatLiteral(plan.scale.value_or(1.0), "float") << ";\n";
    for (const std::string &factor : foldedFactors)
      os << "  alpha = alpha * (float)(" << factor << ");\n";
  }
  if (plan.causal && !guarded)
    // Keys after the tile's last query are masked for all of its queries
    // (the NaN guard needs every key's value).
    os << "  const cgc_index keyEnd = p.keys < firstQuery + " << queryTile
       << " ? p.keys : firstQuery + " << queryTile << ";\n";
  else
    os << "  const cgc_index keyEnd = p.keys;\n";
  os << "  for (cgc_index batch = blockIdx.y; batch < p.batches; batch += gridDim.y) {\n"
     << table.generateBatchBases()
     << "    // The previous batch matrix's reads of the tiles are done.\n"
     << "    __syncthreads();\n"
     << "    {\n"
     << generateStaging(plan, table, query, threads) << "    }\n";
  if (ring) {
    // The first two tiles, a commit group each (Q's copies in the first).
    os << "#pragma unroll\n"
       << "    for (int stage = 0; stage < 2; ++stage) {\n"
       << "      const cgc_index keyOrigin = stage * 64;\n"
       << "      if (keyOrigin < keyEnd) {\n"
       << stageKeyTile() << "      }\n"
       << "      cgc_copy_commit();\n"
       << "    }\n"
       << "    cgc_copy_wait_but_last();\n";
  } else {
    os << "    if (keyEnd > 0) {\n"
       << "      const cgc_index keyOrigin = 0;\n"
       << stageKeyTile();
    if (separateQuery)
      os << "      const cgc_index keyStart = 0;\n"
         << generateStaging(plan, table, value, threads);
    os << "    }\n"
       << "    cgc_copy_commit();\n"
       << "    cgc_copy_wait();\n";
  }
  os << "    __syncthreads();\n"
     << "    // The warp's 16 queries as A fragments: lanes 0-15 address rows\n"
     << "    // 0-15 at column k, lanes 16-31 the same rows at column k + 8.\n"
     << "    unsigned int queryFragment[E / 16][4];\n"
     << "#pragma unroll\n"
     << "    for (int k = 0; k < E / 16; ++k)\n"
     << "      cgc_load_matrices(queryFragment[k], " << query.tile
     << " + (warp * 16 + (lane & 15)) * " << queryStride << " + k * 16 + (lane >> 4) * 8);\n"
     << "    float output[EV / 8][4];\n"
     << "#pragma unroll\n"
     << "    for (int n = 0; n < EV / 8; ++n)\n"
     << "      output[n][0] = output[n][1] = output[n][2] = output[n][3] = 0.0f;\n"
     << "    float runningMax[2] = {negativeInfinity, negativeInfinity};\n"
     << "    float runningSum[2] = {0.0f, 0.0f};\n";
  if (ring) {
    os << "    int slot = 0;\n"
       << "    for (cgc_index keyStart = 0; keyStart < keyEnd; keyStart += 64, slot ^= 1) {\n"
       << "      const unsigned short *keyTile = keyTileSlots[slot];\n"
       << "      const unsigned short *valueTile = valueTileSlots[slot];\n";
    for (const std::string &name : stepTileNames)
      os << "      const unsigned short *" << name << " = " << name << "Slots[slot];\n";
  } else {
    os << "    for (cgc_index keyStart = 0; keyStart < keyEnd; keyStart += 64) {\n"
       << "      // Kᵀ's tile has landed, and every warp is done with V's buffer\n"
       << "      // (the previous tile's P·V; the first time, Q's fragments).\n"
       << "      cgc_copy_wait();\n"
       << "      __syncthreads();\n"
       << "      // V's tile is copied while the scores and the softmax run"
       << (separateQuery ? " (the first with Q's).\n" : ".\n")
       << (separateQuery ? "      if (keyStart != 0) {\n" : "      {\n")
       << generateStaging(plan, table, value, threads) << "      }\n"
       << "      cgc_copy_commit();\n";
  }
  // B fragments of n-tiles 2n and 2n + 1 (8 columns each) at k-step k: the
  // four matrices are (n-tile 2n, k), (2n, k + 8), (2n + 1, k), (2n + 1, k +
  // 8). An [n][k] tile gives them untransposed, a [k][n] tile transposed.
  auto loadB = [&](const std::string &tile, int64_t stride, bool nMajor) {
    if (nMajor)
      return "          cgc_load_matrices(b, " + tile +
             " + (n * 16 + (lane & 7) + ((lane >> 4) << 3)) * " + number(stride) +
             " + k * 16 + ((lane >> 3) & 1) * 8);\n";
    return "          cgc_load_matrices_transposed(b, " + tile +
           " + (k * 16 + (lane & 7) + (((lane >> 3) & 1) << 3)) * " + number(stride) +
           " + n * 16 + (lane >> 4) * 8);\n";
  };
  // A tile that runs past the last key (ViT's 197 keys end 5 into their
  // fourth tile) computes only its 16-key chunks that hold a key: the
  // others' scores are masked and their weights 0 anyway. Full tiles keep
  // the unguarded products, which the compiler schedules as one block.
  bool partialTiles = plan.keys % kKeyTile != 0 || (plan.causal && !guarded);
  auto scoreProducts = [&](bool guardChunks) {
    std::string inner = "          unsigned int b[4];\n" +
                        loadB("keyTile", keyStride, !keyByEmbedding) +
                        "          cgc_mma(score[2 * n], queryFragment[k], b[0], b[1]);\n"
                        "          cgc_mma(score[2 * n + 1], queryFragment[k], b[2], b[3]);\n";
    if (guardChunks)
      inner = "          if (keyStart + n * 16 < keyEnd) {\n" + inner + "          }\n";
    return "#pragma unroll\n"
           "      for (int k = 0; k < E / 16; ++k) {\n"
           "#pragma unroll\n"
           "        for (int n = 0; n < 4; ++n) {\n" +
           inner + "        }\n      }\n";
  };
  auto valueProducts = [&](bool guardChunks) {
    std::string inner = "#pragma unroll\n"
                        "        for (int n = 0; n < EV / 16; ++n) {\n"
                        "          unsigned int b[4];\n" +
                        loadB("valueTile", valueStride, valueByColumn) +
                        "          cgc_mma(output[2 * n], weights[k], b[0], b[1]);\n"
                        "          cgc_mma(output[2 * n + 1], weights[k], b[2], b[3]);\n"
                        "        }\n";
    if (guardChunks)
      inner = "        if (keyStart + k * 16 < keyEnd) {\n" + inner + "        }\n";
    return "#pragma unroll\n"
           "      for (int k = 0; k < 4; ++k) {\n" +
           inner + "      }\n";
  };
  auto split = [&](auto generate) {
    if (!partialTiles)
      return generate(false);
    return "      if (keyStart + 64 <= keyEnd) {\n" + generate(false) + "      } else {\n" +
           generate(true) + "      }\n";
  };
  os << "      // P as A fragments: keys 16k..16k+15 are score blocks 2k and 2k + 1.\n"
     << "      unsigned int weights[4][4];\n"
     << "      // A warp whose 16 queries are all past the last (the block's\n"
     << "      // tail) only helps stage the tiles.\n"
     << "      if (warpActive) {\n"
     << "      // S = Q·Kᵀ: score[j] is the 16 x 8 block of keys 8j..8j+7.\n"
     << "      float score[8][4];\n"
     << "#pragma unroll\n"
     << "      for (int j = 0; j < 8; ++j)\n"
     << "        score[j][0] = score[j][1] = score[j][2] = score[j][3] = 0.0f;\n"
     << split(scoreProducts)
     << "      // score[j][h]: query h < 2 ? query0 : query1, key 8j + 2 quad + (h & 1).\n"
     << "      float tileMax[2] = {negativeInfinity, negativeInfinity};\n";
  // Scores past the last query or key are masked. A tile whose keys all
  // exist, for a warp whose queries all do (all but the last of ViT's 197),
  // skips the per-score bounds checks.
  std::string steps =
      (scaled ? "            s = s * alpha;\n" : "") +
      generateScoreStatements(plan, table, views.steps, /*applyScale=*/false, stagedReads);
  auto scoreSteps = [&](bool checked) {
    std::string body = checked ? "          if (query < p.queries && key < p.keys) {\n" + steps +
                                     "          } else {\n"
                                     "            s = negativeInfinity;\n"
                                     "          }\n"
                               : steps;
    return "#pragma unroll\n"
           "      for (int j = 0; j < 8; ++j) {\n"
           "#pragma unroll\n"
           "        for (int h = 0; h < 4; ++h) {\n"
           "          const cgc_index query = h < 2 ? query0 : query1;\n"
           "          const cgc_index key = keyStart + j * 8 + quad * 2 + (h & 1);\n"
           "          (void)query;\n"
           "          (void)key;\n"
           "          float s = score[j][h];\n" +
           body +
           "          score[j][h] = s;\n"
           "          tileMax[h >> 1] = fmaxf(tileMax[h >> 1], s);\n"
           "        }\n"
           "      }\n";
  };
  if (plan.keys % kKeyTile == 0 && plan.queries % 16 == 0)
    os << scoreSteps(false);
  else
    os << "      if (keyStart + 64 <= p.keys && firstQuery + warp * 16 + 16 <= p.queries) {\n"
       << scoreSteps(false) << "      } else {\n"
       << scoreSteps(true) << "      }\n";
  os
     << "      // A row's 64 scores are spread over the 4 lanes of its group.\n"
     << "      // Exponents are taken base 2: e^(s - m) = 2^(s·log2e - m·log2e),\n"
     << "      // one fma per score (the compiler fuses nothing: --fmad=false).\n"
     << "      float scaledShift[2], correction[2];\n"
     << "#pragma unroll\n"
     << "      for (int r = 0; r < 2; ++r) {\n"
     << "        tileMax[r] = fmaxf(tileMax[r], __shfl_xor_sync(0xffffffffu, tileMax[r], 1));\n"
     << "        tileMax[r] = fmaxf(tileMax[r], __shfl_xor_sync(0xffffffffu, tileMax[r], 2));\n"
     << "        const float newMax = fmaxf(runningMax[r], tileMax[r]);\n"
     << "        // While every score so far is masked (-inf), exponents stay finite.\n"
     << "        scaledShift[r] = (newMax == negativeInfinity ? 0.0f : newMax) * log2e;\n"
     << "        correction[r] = cgc_exp2(fmaf(runningMax[r], log2e, -scaledShift[r]));\n"
     << "        runningMax[r] = newMax;\n"
     << "      }\n"
     << "      float tileSum[2] = {0.0f, 0.0f};\n"
     << "#pragma unroll\n"
     << "      for (int j = 0; j < 8; ++j) {\n"
     << "        float w[4];\n"
     << "#pragma unroll\n"
     << "        for (int h = 0; h < 4; ++h) {\n"
     << "          w[h] = cgc_exp2(fmaf(score[j][h], log2e, -scaledShift[h >> 1]));\n"
     << "          tileSum[h >> 1] += w[h];\n"
     << "        }\n"
     << "        weights[j >> 1][(j & 1) * 2] = cgc_pack(w[0], w[1]);\n"
     << "        weights[j >> 1][(j & 1) * 2 + 1] = cgc_pack(w[2], w[3]);\n"
     << "      }\n"
     << "#pragma unroll\n"
     << "      for (int r = 0; r < 2; ++r) {\n"
     << "        tileSum[r] += __shfl_xor_sync(0xffffffffu, tileSum[r], 1);\n"
     << "        tileSum[r] += __shfl_xor_sync(0xffffffffu, tileSum[r], 2);\n"
     << "        runningSum[r] = runningSum[r] * correction[r] + tileSum[r];\n"
     << "      }\n"
     << "#pragma unroll\n"
     << "      for (int n = 0; n < EV / 8; ++n) {\n"
     << "        output[n][0] *= correction[0];\n"
     << "        output[n][1] *= correction[0];\n"
     << "        output[n][2] *= correction[1];\n"
     << "        output[n][3] *= correction[1];\n"
     << "      }\n"
     << "      }\n";
  if (ring) {
    os << "      // O += P·V: output[n] is the 16 x 8 block of columns 8n..8n+7.\n"
       << "      if (warpActive) {\n"
       << split(valueProducts) << "      }\n"
       << "      // The next tile has landed, and every warp is done with this\n"
       << "      // slot, which takes the tile after it.\n"
       << "      cgc_copy_wait();\n"
       << "      __syncthreads();\n"
       << "      if (keyStart + 128 < keyEnd) {\n"
       << "        const cgc_index keyOrigin = keyStart + 128;\n"
       << "        const int stage = slot;\n"
       << stageKeyTile() << "      }\n"
       << "      cgc_copy_commit();\n"
       << "    }\n";
  } else {
    os << "      // V's tile has landed, and every warp is done with Kᵀ's buffer.\n"
       << "      cgc_copy_wait();\n"
       << "      __syncthreads();\n"
       << "      // The next Kᵀ tile is copied while P·V runs.\n"
       << "      if (keyStart + 64 < keyEnd) {\n"
       << "        const cgc_index keyOrigin = keyStart + 64;\n"
       << stageKeyTile() << "      }\n"
       << "      cgc_copy_commit();\n"
       << "      // O += P·V: output[n] is the 16 x 8 block of columns 8n..8n+7.\n"
       << "      if (warpActive) {\n"
       << split(valueProducts) << "      }\n"
       << "    }\n";
  }
  if (guarded) {
    unsigned input = *plan.nanReplacementInput;
    // Only a query whose every key is masked (a sum of 0) needs V's
    // column sums: they are summed, in key order, only when some query of
    // the block does (BERT's padding never masks a whole row).
    os << "    const bool needsSums = p.keys != 0 && ((query0 < p.queries && runningSum[0] == "
          "0.0f) || (query1 < p.queries && runningSum[1] == 0.0f));\n"
       << "    if (__syncthreads_or(needsSums)) {\n"
       << "      for (int column = threadIdx.x; column < EV; column += " << threads << ") {\n"
       << "        float sum = 0.0f;\n"
       << "        for (cgc_index key = 0; key < p.keys; ++key)\n"
       << "          sum += (float)(" << table.read(views.value, "key", "column") << ");\n"
       << "        valueSums[column] = sum;\n"
       << "      }\n"
       << "      __syncthreads();\n"
       << "    }\n"
       << "    const float replacement = "
       << loadValue(plan.inputTypes[input], "in" + std::to_string(input) + "[0]") << ";\n";
  }
  std::string at = std::to_string(views.output);
  std::string outputOffset = viewOffset(table, views.output, "query", "d");
  os << "#pragma unroll\n"
     << "    for (int r = 0; r < 2; ++r) {\n"
     << "      const cgc_index query = r == 0 ? query0 : query1;\n"
     << "      if (query < p.queries) {\n"
     << "        // x · (1 / sum) is within a float32 ulp of x / sum.\n"
     << "        const float inverse = 1.0f / runningSum[r];\n"
     << "#pragma unroll\n"
     << "        for (int n = 0; n < EV / 8; ++n) {\n"
     << "          const int d = n * 8 + quad * 2;\n"
     << "          float result[2];\n"
     << "#pragma unroll\n"
     << "          for (int h = 0; h < 2; ++h) {\n"
     << "            result[h] = p.keys == 0 ? 0.0f : output[n][2 * r + h] * inverse;\n";
  if (guarded)
    os << "            if (p.keys != 0 && runningSum[r] == 0.0f)\n"
       << "              result[h] = replacement * valueSums[d + h];\n";
  os << "          }\n"
     << "          const cgc_index at = " << outputOffset << ";\n";
  if (outputPairs)
    os << "          if (outputAligned) {\n"
       << "            *reinterpret_cast<unsigned int *>(out + at) = (unsigned int)"
       << storeValue(plan.dtype, "result[0]") << " | ((unsigned int)"
       << storeValue(plan.dtype, "result[1]") << " << 16);\n"
       << "            continue;\n"
       << "          }\n";
  os << "          out[at] = " << storeValue(plan.dtype, "result[0]") << ";\n"
     << "          out[at + p.views[" << at << "][" << rank + 1
     << "]] = " << storeValue(plan.dtype, "result[1]") << ";\n"
     << "        }\n"
     << "      }\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return source;
}

llvm::Expected<Kernel> buildTensorCoreAttentionKernel(const AttentionPlan &plan,
                                                      KernelContext::Impl &context,
                                                      llvm::StringRef name,
                                                      std::optional<int64_t> warps) {
  std::string kernelName = name.str();
  auto makeError = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), name + ": " + message);
  };
  if (std::optional<std::string> refusal =
          getTensorCoreAttentionRefusal(plan, context.getComputeMajor()))
    return makeError("the tensor-core flash kernel does not run this attention: " + *refusal);
  if (warps && *warps != 1 && *warps != 2 && *warps != 4)
    return makeError("the tensor-core flash kernel takes blocks of 1, 2 or 4 warps, not " +
                     std::to_string(*warps));
  int64_t batches = getNumElements(plan.batch);
  if (batches == 0 || plan.queries == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  TensorCoreAttentionTiling tiling =
      getTensorCoreAttentionTiling(plan, context.getMultiprocessorCount());
  if (warps)
    tiling.warps = *warps;
  llvm::Expected<DeviceFunction> function = context.getCompiler().getFunction(
      generateTensorCoreAttentionSource(plan, tiling), "cgc_attention_tensor_core");
  if (!function)
    return makeError(llvm::toString(function.takeError()));

  std::vector<int64_t> params = getTensorCoreParams(plan);
  auto tiles =
      static_cast<unsigned>((plan.queries + tiling.getQueryTile() - 1) / tiling.getQueryTile());
  auto batchBlocks = static_cast<unsigned>(std::min(batches, kMaxBatchBlocks));
  return makeAttentionKernelLaunch(std::move(*function), dim3(tiles, batchBlocks),
                                   dim3(tiling.getThreads()), plan.inputTypes.size(),
                                   std::move(params), kernelName);
}

} // namespace cgc::cuda
