//===- FusedAttentionTest.cpp - the attention kernel against the CPU ------===//
//
// The attention kernel (drivers/cuda/kernels/AttentionKernel.h) twice: as
// the fused kernel of attention written out as layers (each definition run
// layer by layer by the CPU driver is the reference), and as the layer
// kernel of cgc_op.scaled_dot_product_attention (the CPU driver's kernel of
// the op is the reference). Shapes are those of BERT-base and ViT-B/16
// heads, odd sizes that leave partial tiles, broadcast batch dimensions and
// the largest head dimension. Every case runs as the kernel the build
// chooses and through each path forced: the flash kernel, the GEMM path
// (cuBLASLt products around a softmax kernel, AttentionGemm.h) with the
// scores in the element type and in float32, and the tensor-core flash
// kernel (AttentionTensorCore.h) where it takes the plan; the tensor-core
// kernel has cases of its own too (float16 and bfloat16: partial tiles,
// masks, causal, scaled inputs, the NaN guard, transposed and broadcast
// views, a strided output, head dimension 128, BERT's and ViT's batch-1
// grids), each run at every tiling (blocks of 1, 2 and 4 warps). Without a
// GPU the recognition, the rejections, the tiling chosen for a device's
// size and the NVRTC compilation of every generated kernel (sm_90) of
// every path and tiling are still checked.
//
//===----------------------------------------------------------------------===//

#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/AttentionKernel.h"
#include "drivers/cuda/kernels/AttentionTensorCore.h"
#include "drivers/cuda/kernels/FusedSupport.h"

#include <cmath>
#include <iostream>
#include <limits>

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class FusedAttentionTest : public FusedKernelTest {};

//===----------------------------------------------------------------------===//
// Definitions of attention layers
//===----------------------------------------------------------------------===//

/// `!cgc.tensor<...>`, constant-qualified when `constant`.
std::string typeOf(const Dims &shape, DType dtype, bool constant = false) {
  std::string text = tensorType(shape, dtype);
  return constant ? "!cgc.tensor<constant " + text.substr(std::string("!cgc.tensor<").size())
                  : text;
}

/// The numpy broadcast of two shapes (valid ones).
Dims broadcastShapes(const Dims &a, const Dims &b) {
  Dims result(std::max(a.size(), b.size()), 1);
  for (size_t index = 0; index < result.size(); ++index) {
    int64_t x = index < a.size() ? a[a.size() - 1 - index] : 1;
    int64_t y = index < b.size() ? b[b.size() - 1 - index] : 1;
    result[result.size() - 1 - index] = x == 1 ? y : x;
  }
  return result;
}

/// The shape of matmul(a, b), both of rank 2 or more.
Dims matmulShape(const Dims &a, const Dims &b) {
  Dims batch = broadcastShapes(Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2));
  batch.push_back(a[a.size() - 2]);
  batch.push_back(b.back());
  return batch;
}

/// One layer between the scores and the softmax: `op`(scores, x), or
/// `op`(x, scores) when not `scoreFirst`, or `op`(scores, scores) when
/// `self`.
struct ScoreLayer {
  std::string op;
  OperandSpec operand;
  bool constant = false;
  bool scoreFirst = true;
  bool self = false;
};

/// Attention as layers: matmul(q', kT') -> score layers -> softmax -> matmul
/// with v; with `scaledInputs`, q' = mul(q, c) and kT' = mul(kT, c) for one
/// scalar constant c (torch's exporter).
struct AttentionLayers {
  std::string name;
  DType dtype = DType::F32;
  Dims query, transposedKey, value;
  std::vector<ScoreLayer> scoreLayers;
  std::optional<double> inputScale;
  /// q' = mul(q, queryFactor) and kT' = mul(keyFactor, kT) (the factor
  /// first), constant factors of any shape broadcasting to the operand;
  /// instead of inputScale.
  std::optional<OperandSpec> queryFactor, keyFactor;
  /// The softmax's axis attribute; std::nullopt: the last, written out.
  std::optional<int64_t> softmaxAxis;
  /// Replaces the value argument by relu(value) (not attention's shape).
  bool valueThroughRelu = false;
  /// Inserts a relu between the scores and the softmax.
  bool reluOnScores = false;
  /// Guards the probabilities as torch's exporter does: where(p != p, r, p)
  /// with a one-element constant r.
  std::optional<double> nanReplacement;
};

DefinitionCase makeDefinition(const AttentionLayers &layers, Tolerance tolerance) {
  DType dtype = layers.dtype;
  Dims scores = matmulShape(layers.query, layers.transposedKey);
  Dims output = matmulShape(scores, layers.value);
  std::string scoresType = typeOf(scores, dtype);
  std::vector<std::string> argumentTypes;
  std::vector<OperandSpec> operands;
  auto addArgument = [&](const OperandSpec &spec, bool constant) {
    argumentTypes.push_back(typeOf(spec.shape, spec.dtype, constant));
    operands.push_back(spec);
    return "%a" + std::to_string(argumentTypes.size() - 1);
  };
  std::string body;
  int counter = 0;
  auto fresh = [&] { return "%t" + std::to_string(counter++); };

  std::string query = addArgument(tensor(layers.query, dtype, -1.0, 1.0), false);
  std::string scale;
  if (layers.inputScale) {
    scale = addArgument(values({}, dtype, {*layers.inputScale}), true);
    std::string scaled = fresh();
    body += "    " + scaled + " = cgc_op.mul(" + query + ", " + scale + ") : (" +
            typeOf(layers.query, dtype) + ", " + typeOf({}, dtype, true) + ") -> " +
            typeOf(layers.query, dtype) + "\n";
    query = scaled;
  }
  if (layers.queryFactor) {
    std::string factor = addArgument(*layers.queryFactor, true);
    std::string scaled = fresh();
    body += "    " + scaled + " = cgc_op.mul(" + query + ", " + factor + ") : (" +
            typeOf(layers.query, dtype) + ", " +
            typeOf(layers.queryFactor->shape, layers.queryFactor->dtype, true) + ") -> " +
            typeOf(layers.query, dtype) + "\n";
    query = scaled;
  }
  std::string key = addArgument(tensor(layers.transposedKey, dtype, -1.0, 1.0), false);
  if (layers.keyFactor) {
    std::string factor = addArgument(*layers.keyFactor, true);
    std::string scaled = fresh();
    body += "    " + scaled + " = cgc_op.mul(" + factor + ", " + key + ") : (" +
            typeOf(layers.keyFactor->shape, layers.keyFactor->dtype, true) + ", " +
            typeOf(layers.transposedKey, dtype) + ") -> " + typeOf(layers.transposedKey, dtype) +
            "\n";
    key = scaled;
  }
  if (layers.inputScale) {
    std::string scaled = fresh();
    body += "    " + scaled + " = cgc_op.mul(" + key + ", " + scale + ") : (" +
            typeOf(layers.transposedKey, dtype) + ", " + typeOf({}, dtype, true) + ") -> " +
            typeOf(layers.transposedKey, dtype) + "\n";
    key = scaled;
  }
  std::string current = fresh();
  body += "    " + current + " = cgc_op.matmul(" + query + ", " + key + ") : (" +
          typeOf(layers.query, dtype) + ", " + typeOf(layers.transposedKey, dtype) + ") -> " +
          scoresType + "\n";
  for (const ScoreLayer &layer : layers.scoreLayers) {
    std::string next = fresh();
    if (layer.self) {
      body += "    " + next + " = " + layer.op + "(" + current + ", " + current + ") : (" +
              scoresType + ", " + scoresType + ") -> " + scoresType + "\n";
    } else {
      std::string operand = addArgument(layer.operand, layer.constant);
      std::string operandType = typeOf(layer.operand.shape, layer.operand.dtype, layer.constant);
      body +=
          "    " + next + " = " + layer.op + "(" +
          (layer.scoreFirst ? current + ", " + operand : operand + ", " + current) + ") : (" +
          (layer.scoreFirst ? scoresType + ", " + operandType : operandType + ", " + scoresType) +
          ") -> " + scoresType + "\n";
    }
    current = next;
  }
  if (layers.reluOnScores) {
    std::string next = fresh();
    body += "    " + next + " = cgc_op.relu(" + current + ") : (" + scoresType + ") -> " +
            scoresType + "\n";
    current = next;
  }
  std::string probabilities = fresh();
  int64_t axis = layers.softmaxAxis.value_or(static_cast<int64_t>(scores.size()) - 1);
  body += "    " + probabilities + " = cgc_op.softmax(" + current +
          ") {axis = " + std::to_string(axis) + " : i64} : (" + scoresType + ") -> " + scoresType +
          "\n";
  if (layers.nanReplacement) {
    std::string replacement = addArgument(values({1}, dtype, {*layers.nanReplacement}), true);
    std::string isNan = fresh(), guarded = fresh();
    std::string maskType = typeOf(scores, DType::Bool);
    body += "    " + isNan + " = cgc_op.not_equal(" + probabilities + ", " + probabilities +
            ") : (" + scoresType + ", " + scoresType + ") -> " + maskType + "\n";
    body += "    " + guarded + " = cgc_op.where(" + isNan + ", " + replacement + ", " +
            probabilities + ") : (" + maskType + ", " + typeOf({1}, dtype, true) + ", " +
            scoresType + ") -> " + scoresType + "\n";
    probabilities = guarded;
  }
  std::string value = addArgument(tensor(layers.value, dtype), false);
  if (layers.valueThroughRelu) {
    std::string next = fresh();
    body += "    " + next + " = cgc_op.relu(" + value + ") : (" + typeOf(layers.value, dtype) +
            ") -> " + typeOf(layers.value, dtype) + "\n";
    value = next;
  }
  std::string result = fresh();
  body += "    " + result + " = cgc_op.matmul(" + probabilities + ", " + value + ") : (" +
          scoresType + ", " + typeOf(layers.value, dtype) + ") -> " + typeOf(output, dtype) + "\n";

  std::string text = "cgc.functional_definition private @" + layers.name + "(";
  for (size_t index = 0; index < argumentTypes.size(); ++index)
    text += (index ? ", " : "") + std::string("%a") + std::to_string(index) + ": " +
            argumentTypes[index];
  text += ") -> " + typeOf(output, dtype) + " {\n" + body + "    cgc.return " + result + " : " +
          typeOf(output, dtype) + "\n  }";
  return DefinitionCase{text, operands, tolerance};
}

Tolerance attentionTolerance(DType dtype) {
  return dtype == DType::F32 ? Tolerance{1e-4, 1e-5} : Tolerance{1e-2, 1e-2};
}

std::string suffix(DType dtype) { return "_" + dtypeName(dtype); }

/// BERT-base's self-attention, as transformers' eager attention writes it
/// (scores scaled by a constant, plus the [B, 1, 1, S] additive mask).
AttentionLayers bertLayers(DType dtype) {
  AttentionLayers layers;
  layers.name = "bert" + suffix(dtype);
  layers.dtype = dtype;
  layers.query = {1, 12, 128, 64};
  layers.transposedKey = {1, 12, 64, 128};
  layers.value = {1, 12, 128, 64};
  layers.scoreLayers = {
      {"cgc_op.mul", values({}, dtype, {0.125}), /*constant=*/true},
      {"cgc_op.add", values({1, 1, 1, 128}, dtype, {0, 0, 0, -10000, 0, 0, -10000})}};
  return layers;
}

/// ViT-B/16's attention as torch exports scaled_dot_product_attention:
/// q and kᵀ each times sqrt(1/sqrt(64)); 197 keys leave a partial tile.
AttentionLayers vitLayers(DType dtype) {
  AttentionLayers layers;
  layers.name = "vit" + suffix(dtype);
  layers.dtype = dtype;
  layers.query = {1, 12, 197, 64};
  layers.transposedKey = {1, 12, 64, 197};
  layers.value = {1, 12, 197, 64};
  layers.inputScale = std::sqrt(0.125);
  return layers;
}

/// Odd sizes everywhere: partial query and key tiles, value columns not a
/// multiple of 8, and score layers in both operand orders.
AttentionLayers oddLayers(DType dtype) {
  AttentionLayers layers;
  layers.name = "odd" + suffix(dtype);
  layers.dtype = dtype;
  layers.query = {2, 3, 5, 7};
  layers.transposedKey = {2, 3, 7, 9};
  layers.value = {2, 3, 9, 5};
  layers.scoreLayers = {{"cgc_op.sub", tensor({9}, dtype, -0.5, 0.5)},
                        {"cgc_op.sub", tensor({3, 1, 9}, dtype, -0.5, 0.5), false,
                         /*scoreFirst=*/false},
                        {"cgc_op.div", values({1}, dtype, {2.0}), /*constant=*/true}};
  return layers;
}

std::vector<DefinitionCase> fusedCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    Tolerance tolerance = attentionTolerance(dtype);
    cases.push_back(makeDefinition(bertLayers(dtype), tolerance));
    cases.push_back(makeDefinition(vitLayers(dtype), tolerance));
    cases.push_back(makeDefinition(oddLayers(dtype), tolerance));
  }
  Tolerance tolerance = attentionTolerance(DType::F32);
  float lowest = std::numeric_limits<float>::lowest();

  // BERT as the ONNX importer gives it: division by sqrt(64), the mask
  // (1 - mask) * lowest expanded to the scores' shape; the first two
  // queries' rows of the mask drop every key.
  AttentionLayers imported;
  imported.name = "bert_imported";
  imported.query = {1, 12, 128, 64};
  imported.transposedKey = {1, 12, 64, 128};
  imported.value = {1, 12, 128, 64};
  std::vector<double> mask(2 * 128, lowest);
  for (int index = 0; index < 128 * 6; ++index)
    mask.push_back(index % 5 == 3 ? lowest : 0.0);
  imported.scoreLayers = {{"cgc_op.div", values({}, DType::F32, {8.0}), /*constant=*/true},
                          {"cgc_op.add", values({1, 12, 128, 128}, DType::F32, mask)}};
  cases.push_back(makeDefinition(imported, tolerance));

  // BERT as torch.onnx exports it: the scale split over q and kᵀ, an
  // additive mask, and the NaN guard on the probabilities. The mask is -inf
  // over every key of the first queries (their probabilities are NaN, so
  // they get the replacement) and over some keys of the others.
  float infinity = std::numeric_limits<float>::infinity();
  for (DType dtype : {DType::F32, DType::F16}) {
    AttentionLayers guarded;
    guarded.name = "bert_exported_nan_guard";
    guarded.dtype = dtype;
    guarded.query = {1, 4, 40, 64};
    guarded.transposedKey = {1, 4, 64, 40};
    guarded.value = {1, 4, 40, 64};
    guarded.inputScale = 0.35355339059327373; // sqrt(1 / sqrt(64))
    std::vector<double> guardMask(3 * 40, -infinity);
    for (int index = 0; index < 37 * 40; ++index)
      guardMask.push_back(index % 7 == 2 ? -infinity : 0.0);
    guarded.scoreLayers = {{"cgc_op.add", values({1, 1, 40, 40}, dtype, guardMask)}};
    guarded.nanReplacement = 0.25;
    cases.push_back(makeDefinition(guarded, attentionTolerance(dtype)));
  }

  // The shapes the GEMM path is for, in float16 at batch 2: ViT-B/16 (197
  // tokens, the scale on q and kᵀ) and BERT-base as torch exports it (the
  // scale on q and kᵀ, a padding mask of [B, 1, 1, S] and the NaN guard).
  Tolerance half = attentionTolerance(DType::F16);
  AttentionLayers vitBatch = vitLayers(DType::F16);
  vitBatch.name = "vit_batch2_float16";
  vitBatch.query = {2, 12, 197, 64};
  vitBatch.transposedKey = {2, 12, 64, 197};
  vitBatch.value = {2, 12, 197, 64};
  cases.push_back(makeDefinition(vitBatch, half));
  AttentionLayers bertBatch;
  bertBatch.name = "bert_batch2_nan_guard_float16";
  bertBatch.dtype = DType::F16;
  bertBatch.query = {2, 12, 128, 64};
  bertBatch.transposedKey = {2, 12, 64, 128};
  bertBatch.value = {2, 12, 128, 64};
  bertBatch.inputScale = 0.35355339059327373;
  std::vector<double> padding; // 100 and 60 tokens
  for (int batch = 0; batch < 2; ++batch)
    for (int key = 0; key < 128; ++key)
      padding.push_back(key < (batch == 0 ? 100 : 60) ? 0.0 : -infinity);
  bertBatch.scoreLayers = {{"cgc_op.add", values({2, 1, 1, 128}, DType::F16, padding)}};
  bertBatch.nanReplacement = 0.0;
  cases.push_back(makeDefinition(bertBatch, half));

  // Factors on the way in: one of more elements on q (the GEMM path's
  // pre-pass) and a scalar written first on kᵀ (folded into alpha).
  for (DType dtype : {DType::F32, DType::F16}) {
    AttentionLayers factors;
    factors.name = "tensor_factors" + suffix(dtype);
    factors.dtype = dtype;
    factors.query = {1, 2, 6, 8};
    factors.transposedKey = {1, 2, 8, 10};
    factors.value = {1, 2, 10, 4};
    factors.queryFactor = tensor({8}, dtype, 0.5, 1.5);
    factors.keyFactor = values({}, dtype, {0.5});
    cases.push_back(makeDefinition(factors, attentionTolerance(dtype)));
  }

  // The score squared (a layer whose operands are both the score).
  AttentionLayers squared;
  squared.name = "squared";
  squared.query = {1, 2, 6, 4};
  squared.transposedKey = {1, 2, 4, 10};
  squared.value = {1, 2, 10, 3};
  squared.scoreLayers = {{"cgc_op.mul", {}, false, true, /*self=*/true}};
  cases.push_back(makeDefinition(squared, tolerance));

  // Batch dimensions that broadcast: q over heads, kᵀ over the batch, v of
  // lower rank.
  AttentionLayers broadcast;
  broadcast.name = "broadcast_batches";
  broadcast.query = {2, 1, 5, 16};
  broadcast.transposedKey = {1, 3, 16, 33};
  broadcast.value = {3, 33, 8};
  broadcast.scoreLayers = {{"cgc_op.add", tensor({2, 1, 5, 1}, DType::F32)}};
  cases.push_back(makeDefinition(broadcast, tolerance));

  // nn.MultiheadAttention's batched 3-D products.
  AttentionLayers rank3;
  rank3.name = "rank3";
  rank3.query = {4, 40, 32};
  rank3.transposedKey = {4, 32, 50};
  rank3.value = {4, 50, 24};
  rank3.scoreLayers = {{"cgc_op.mul", values({1}, DType::F32, {0.17677669529663687}), true}};
  cases.push_back(makeDefinition(rank3, tolerance));

  // The largest head dimensions, many key tiles (the last partial).
  AttentionLayers widest;
  widest.name = "head_dim_128";
  widest.query = {1, 2, 20, 128};
  widest.transposedKey = {1, 2, 128, 300};
  widest.value = {1, 2, 300, 128};
  widest.scoreLayers = {{"cgc_op.div", values({}, DType::F32, {11.313708498984761}), true}};
  cases.push_back(makeDefinition(widest, tolerance));

  // Plain matrices, softmax axis written as -1.
  AttentionLayers matrices;
  matrices.name = "matrices";
  matrices.query = {3, 8};
  matrices.transposedKey = {8, 5};
  matrices.value = {5, 4};
  matrices.softmaxAxis = -1;
  cases.push_back(makeDefinition(matrices, tolerance));

  // One query, one key.
  AttentionLayers single;
  single.name = "single_key";
  single.query = {1, 1, 1, 64};
  single.transposedKey = {1, 1, 64, 1};
  single.value = {1, 1, 1, 64};
  cases.push_back(makeDefinition(single, tolerance));
  return cases;
}
CGC_FUSED_KERNEL_CASES(FusedAttentionTest, Fused, fusedCases)

TEST_F(FusedAttentionTest, FusedCompiles) {
  for (const DefinitionCase &definitionCase : fusedCases()) {
    SCOPED_TRACE(definitionCase.describe());
    cgc::FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    std::optional<llvm::Expected<Kernel>> kernel =
        kFusedAttention.build(definition, getCompileOnlyContext());
    ASSERT_TRUE(kernel.has_value());
    EXPECT_TRUE(static_cast<bool>(*kernel)) << llvm::toString(kernel->takeError());
  }
}

TEST_F(FusedAttentionTest, FusedFamilyIsAttention) {
  for (const DefinitionCase &definitionCase : fusedCases())
    expectFusedFamily(definitionCase, "attention");
}

TEST_F(FusedAttentionTest, FusedRejectsWhatTheKernelLacks) {
  Tolerance tolerance = attentionTolerance(DType::F32);
  AttentionLayers wide;
  wide.name = "wide";
  wide.query = {1, 2, 8, 256};
  wide.transposedKey = {1, 2, 256, 8};
  wide.value = {1, 2, 8, 64};
  expectFusedRejected(makeDefinition(wide, tolerance),
                      "@wide: fused attention: query/key head dimension 256 (more than 128) is "
                      "not implemented on the CUDA driver");

  AttentionLayers wideValue = wide;
  wideValue.name = "wide_value";
  wideValue.query = {1, 2, 8, 64};
  wideValue.transposedKey = {1, 2, 64, 8};
  wideValue.value = {1, 2, 8, 160};
  expectFusedRejected(makeDefinition(wideValue, tolerance),
                      "value head dimension 160 (more than 128) is not implemented on the "
                      "CUDA driver");

  AttentionLayers axis = bertLayers(DType::F32);
  axis.name = "axis";
  axis.softmaxAxis = 2;
  expectFusedRejected(makeDefinition(axis, tolerance),
                      "a softmax over axis 2 (not the last of 4) is not implemented on the CUDA "
                      "driver");

  AttentionLayers relu = bertLayers(DType::F32);
  relu.name = "relu";
  relu.reluOnScores = true;
  expectFusedRejected(makeDefinition(relu, tolerance),
                      "cgc_op.relu between the scores and the softmax is not implemented on the "
                      "CUDA driver");

  AttentionLayers value = bertLayers(DType::F32);
  value.name = "value";
  value.valueThroughRelu = true;
  expectFusedRejected(makeDefinition(value, tolerance),
                      "a value that is not a definition argument is not implemented on the CUDA "
                      "driver");

  AttentionLayers chain = oddLayers(DType::F32);
  chain.name = "chain";
  chain.scoreLayers.clear();
  for (int index = 0; index < 9; ++index)
    chain.scoreLayers.push_back({"cgc_op.add", tensor({9}, DType::F32)});
  expectFusedRejected(makeDefinition(chain, tolerance),
                      "a chain of 9 score layers (more than 8) is not implemented on the CUDA "
                      "driver");
}

TEST_F(FusedAttentionTest, OtherShapesAreNotAttention) {
  std::string matrix = typeOf({4, 4}, DType::F32);
  for (std::string body :
       {"%r = cgc_op.matmul(%a, %b) : (" + matrix + ", " + matrix + ") -> " + matrix,
        "%s = cgc_op.softmax(%a) : (" + matrix + ") -> " + matrix +
            "\n    %r = cgc_op.matmul(%b, %s) : (" + matrix + ", " + matrix + ") -> " + matrix,
        "%r = cgc_op.softmax(%a) : (" + matrix + ") -> " + matrix}) {
    DefinitionCase definitionCase{"cgc.functional_definition private @other(%a: " + matrix +
                                      ", %b: " + matrix + ") -> " + matrix + " {\n    " + body +
                                      "\n    cgc.return %r : " + matrix + "\n  }",
                                  {tensor({4, 4}, DType::F32), tensor({4, 4}, DType::F32)},
                                  {}};
    SCOPED_TRACE(body);
    cgc::FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    std::optional<llvm::Error> recognized = kFusedAttention.check(definition);
    EXPECT_FALSE(recognized.has_value());
    if (recognized)
      llvm::consumeError(std::move(*recognized));
  }
}

//===----------------------------------------------------------------------===//
// cgc_op.scaled_dot_product_attention
//===----------------------------------------------------------------------===//

const char kAttention[] = "cgc_op.scaled_dot_product_attention";

std::vector<OpCase> layerCases() {
  std::vector<OpCase> cases;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    Tolerance tolerance = attentionTolerance(dtype);
    auto qkv = [&](Dims query, Dims key, Dims value) {
      return std::vector<OperandSpec>{tensor(std::move(query), dtype),
                                      tensor(std::move(key), dtype),
                                      tensor(std::move(value), dtype)};
    };
    cases.push_back(
        {kAttention, qkv({1, 12, 128, 64}, {1, 12, 128, 64}, {1, 12, 128, 64}), "", tolerance});
    cases.push_back({kAttention, qkv({2, 4, 37, 64}, {2, 4, 37, 64}, {2, 4, 37, 64}),
                     "{is_causal = true}", tolerance});
    // Causal with fewer and with more queries than keys.
    cases.push_back({kAttention, qkv({1, 2, 20, 32}, {1, 2, 45, 32}, {1, 2, 45, 32}),
                     "{is_causal = true}", tolerance});
    cases.push_back({kAttention, qkv({1, 2, 45, 32}, {1, 2, 20, 32}, {1, 2, 20, 32}),
                     "{is_causal = true}", tolerance});
    // Masks: BERT's additive [B, 1, 1, S], bool per query, 1-D.
    std::vector<OperandSpec> operands = qkv({2, 3, 17, 40}, {2, 3, 50, 40}, {2, 3, 50, 24});
    operands.push_back(values({2, 1, 1, 50}, dtype, {0, 0, -10000, 0, 0, 0, 0}));
    cases.push_back({kAttention, operands, "{scale = 3.000000e-01 : f64}", tolerance});
    operands.back() = tensor({2, 1, 17, 50}, DType::Bool);
    cases.push_back({kAttention, operands, "", tolerance});
    operands.back() = tensor({50}, dtype);
    cases.push_back({kAttention, operands, "", tolerance});
    // Broadcast batch dimensions, plain matrices.
    cases.push_back({kAttention, qkv({2, 3, 10, 16}, {1, 3, 24, 16}, {3, 24, 20}), "", tolerance});
    cases.push_back({kAttention, qkv({10, 16}, {24, 16}, {24, 8}), "", tolerance});
    // The largest head dimensions; a value head dimension of its own.
    cases.push_back(
        {kAttention, qkv({1, 1, 33, 128}, {1, 1, 300, 128}, {1, 1, 300, 128}), "", tolerance});
    cases.push_back(
        {kAttention, qkv({1, 2, 9, 64}, {1, 2, 70, 64}, {1, 2, 70, 100}), "", tolerance});
  }
  return cases;
}
CGC_CUDA_KERNEL_CASES(FusedAttentionTest, Layer, layerCases)

TEST_F(FusedAttentionTest, LayerRejectsWhatTheKernelLacks) {
  auto error = [&](const OpCase &opCase) -> std::string {
    mlir::Operation *op = buildOp(opCase);
    if (!op)
      return "<no op>";
    llvm::Expected<Kernel> kernel = buildKernelForContext(op, getCompileOnlyContext());
    return kernel ? "" : llvm::toString(kernel.takeError());
  };
  EXPECT_EQ(error({kAttention,
                   {tensor({1, 2, 4, 256}, DType::F32), tensor({1, 2, 4, 256}, DType::F32),
                    tensor({1, 2, 4, 64}, DType::F32)},
                   ""}),
            "cgc_op.scaled_dot_product_attention: query/key head dimension 256 (more than 128) "
            "is not implemented on the CUDA driver");
  EXPECT_EQ(error({kAttention,
                   {tensor({1, 2, 4, 64}, DType::F32), tensor({1, 2, 4, 64}, DType::F32),
                    tensor({1, 2, 4, 160}, DType::F32)},
                   ""}),
            "cgc_op.scaled_dot_product_attention: value head dimension 160 (more than 128) is "
            "not implemented on the CUDA driver");
  EXPECT_EQ(error({kAttention,
                   {tensor({1, 2, 4, 8}, DType::F64), tensor({1, 2, 4, 8}, DType::F64),
                    tensor({1, 2, 4, 8}, DType::F64)},
                   ""}),
            "cgc_op.scaled_dot_product_attention: element type float64 is not implemented on "
            "the CUDA driver");
}

//===----------------------------------------------------------------------===//
// Both paths: the flash kernel and the GEMM path
//===----------------------------------------------------------------------===//

/// One forced build of a case.
struct PathCase {
  const char *name;
  AttentionBuildOptions options;
};

/// The flash kernel, the GEMM path, the GEMM path with float32 scores, and
/// the tensor-core flash kernel.
std::vector<PathCase> forcedPaths() {
  AttentionBuildOptions flash, gemm, gemmFloat32, tensorCore;
  flash.path = AttentionPath::Flash;
  gemm.path = AttentionPath::Gemm;
  gemmFloat32.path = AttentionPath::Gemm;
  gemmFloat32.float32Scores = true;
  tensorCore.path = AttentionPath::TensorCore;
  return {{"flash kernel", flash},
          {"GEMM path", gemm},
          {"GEMM path, float32 scores", gemmFloat32},
          {"tensor-core flash kernel", tensorCore}};
}

/// Whether `message` is the tensor-core kernel's refusal of an element type
/// or head dimension it does not take (float32, head dimensions that are
/// not multiples of 16): the cases of every path include such plans. Its
/// own cases (TensorCoreFusedMatchesCpu, ...) must all run.
bool isTensorCoreShapeRefusal(const std::string &message) {
  std::string refusal = "the tensor-core flash kernel does not run this attention: ";
  size_t at = message.find(refusal);
  if (at == std::string::npos)
    return false;
  llvm::StringRef reason = llvm::StringRef(message).substr(at + refusal.size());
  return reason.starts_with("element type float32 ") ||
         (reason.contains("head dimension") && reason.contains("multiples of 16"));
}

/// Expects `built` to run as `path` asks and to match `expected`, launched
/// directly and through graph capture.
void expectBuiltMatches(llvm::Expected<AttentionPlanKernel> built, const PathCase &path,
                        const std::vector<HostTensor> &inputs,
                        const std::vector<HostTensor> &expected, mlir::TypeRange resultTypes,
                        Tolerance tolerance, const std::string &what) {
  if (!built) {
    std::string message = llvm::toString(built.takeError());
    if (*path.options.path == AttentionPath::TensorCore && isTensorCoreShapeRefusal(message))
      return;
    ADD_FAILURE() << what << ": " << path.name << ": " << message;
    return;
  }
  EXPECT_EQ(built->path, *path.options.path) << what << ": " << path.name;
  for (bool capture : {false, true}) {
    std::vector<HostTensor> actual =
        launchOnCuda(built->kernel, inputs, makeOutputs(resultTypes), capture);
    ASSERT_EQ(actual.size(), expected.size()) << what << ": " << path.name;
    for (size_t index = 0; index < actual.size(); ++index)
      expectClose(actual[index], expected[index], tolerance,
                  what + " (" + path.name + (capture ? ", captured" : "") + ")");
  }
}

/// "<case>: runs as <path> (GEMM path: <why not>)": which path the build
/// chooses is reported, not checked (it is whichever is faster here).
void reportChoice(const std::string &what, llvm::Expected<AttentionPlanKernel> chosen) {
  if (!chosen) {
    ADD_FAILURE() << what << ": " << llvm::toString(chosen.takeError());
    return;
  }
  std::cout << what << ": runs as " << getAttentionPathName(chosen->path);
  if (!chosen->tensorCoreRefusal.empty())
    std::cout << " (tensor-core flash kernel: " << chosen->tensorCoreRefusal << ")";
  if (!chosen->gemmRefusal.empty())
    std::cout << " (GEMM path: " << chosen->gemmRefusal << ")";
  std::cout << "\n";
}

/// Every fused case through each path, against the CPU reference: the GEMM
/// path runs them all, the tensor-core kernel those of float16 and bfloat16
/// at head dimensions that are multiples of 16.
TEST_F(FusedAttentionTest, FusedBothPathsMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  for (const DefinitionCase &definitionCase : fusedCases()) {
    SCOPED_TRACE(definitionCase.describe());
    auto [definition, inputs, expected] = runReference(definitionCase);
    ASSERT_TRUE(definition);
    ASSERT_EQ(expected.size(), 1u);
    for (const PathCase &path : forcedPaths()) {
      std::optional<llvm::Expected<AttentionPlanKernel>> built =
          buildFusedAttention(definition, kernelContext->getImpl(), path.options);
      ASSERT_TRUE(built.has_value());
      expectBuiltMatches(std::move(*built), path, inputs, expected, definition.getResultTypes(),
                         definitionCase.tolerance, definitionCase.describe());
    }
    std::optional<llvm::Expected<AttentionPlanKernel>> chosen =
        buildFusedAttention(definition, kernelContext->getImpl());
    ASSERT_TRUE(chosen.has_value());
    reportChoice(definitionCase.describe(), std::move(*chosen));
  }
}

/// Every cgc_op.scaled_dot_product_attention case through each path (the
/// GEMM path reads K as a column-major Kᵀ, and applies the causal and
/// boolean masks in its softmax).
TEST_F(FusedAttentionTest, LayerBothPathsMatchCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  for (const OpCase &opCase : layerCases()) {
    SCOPED_TRACE(opCase.describe());
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    std::vector<HostTensor> inputs = makeInputs(opCase);
    std::vector<HostTensor> expected = runCpu(op, inputs);
    ASSERT_EQ(expected.size(), 1u);
    for (const PathCase &path : forcedPaths())
      expectBuiltMatches(buildAttentionLayerKernel(op, kernelContext->getImpl(), path.options),
                         path, inputs, expected, op->getResultTypes(), opCase.tolerance,
                         opCase.describe());
    reportChoice(opCase.describe(), buildAttentionLayerKernel(op, kernelContext->getImpl()));
  }
}

/// Without a device, the GEMM path of every case compiles its generated
/// kernels (the softmax, the alpha of one-element factors, the pre-pass of
/// larger factors), then stops where cuBLASLt needs a device; the build's
/// own choice there is the flash kernel.
TEST_F(FusedAttentionTest, GemmPathCompiles) {
  auto expectStopsAtCublasLt = [](llvm::Expected<AttentionPlanKernel> built,
                                  const std::string &what) {
    ASSERT_FALSE(static_cast<bool>(built)) << what << ": built without a device";
    std::string message = llvm::toString(built.takeError());
    EXPECT_NE(message.find("cuBLASLt needs a device"), std::string::npos)
        << what << ": " << message;
  };
  KernelContext::Impl &context = getCompileOnlyContext();
  for (const PathCase &path : forcedPaths()) {
    if (*path.options.path != AttentionPath::Gemm)
      continue;
    for (const DefinitionCase &definitionCase : fusedCases()) {
      cgc::FunctionalDefinitionOp definition = buildDefinition(definitionCase);
      ASSERT_TRUE(definition);
      std::optional<llvm::Expected<AttentionPlanKernel>> built =
          buildFusedAttention(definition, context, path.options);
      ASSERT_TRUE(built.has_value());
      expectStopsAtCublasLt(std::move(*built), definitionCase.describe() + ": " + path.name);
    }
    for (const OpCase &opCase : layerCases()) {
      mlir::Operation *op = buildOp(opCase);
      ASSERT_NE(op, nullptr);
      expectStopsAtCublasLt(buildAttentionLayerKernel(op, context, path.options),
                            opCase.describe() + ": " + path.name);
    }
  }
  for (const DefinitionCase &definitionCase : fusedCases()) {
    cgc::FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    std::optional<llvm::Expected<AttentionPlanKernel>> chosen =
        buildFusedAttention(definition, context);
    ASSERT_TRUE(chosen.has_value());
    ASSERT_TRUE(static_cast<bool>(*chosen)) << llvm::toString(chosen->takeError());
    EXPECT_EQ((*chosen)->path, AttentionPath::Flash) << definitionCase.describe();
    EXPECT_EQ((*chosen)->gemmRefusal, "the kernel context has no device")
        << definitionCase.describe();
  }
}

/// What the GEMM path leaves to the flash kernel: forced, it is an error
/// naming why; chosen by the build, the flash kernel runs it.
TEST_F(FusedAttentionTest, GemmPathRefusals) {
  Tolerance tolerance = attentionTolerance(DType::F32);
  AttentionLayers longRows;
  longRows.name = "long_rows";
  longRows.query = {1, 1, 2, 8};
  longRows.transposedKey = {1, 1, 8, 9000};
  longRows.value = {1, 1, 9000, 4};
  // q broadcast over the second batch dimension and kᵀ over the first: the
  // two do not merge into one strided batch, so 70 calls of 2 matrices.
  AttentionLayers manyCalls;
  manyCalls.name = "many_calls";
  manyCalls.query = {70, 1, 4, 8};
  manyCalls.transposedKey = {1, 2, 8, 4};
  manyCalls.value = {1, 2, 4, 4};
  const std::pair<AttentionLayers, std::string> refused[] = {
      {longRows, "9000 keys (the softmax holds a row of at most 8192 in shared memory)"},
      {manyCalls, "batch dimensions that take 70 cuBLASLt calls per product (more than 64)"}};
  AttentionBuildOptions gemm;
  gemm.path = AttentionPath::Gemm;
  for (const auto &[layers, reason] : refused) {
    SCOPED_TRACE(layers.name);
    cgc::FunctionalDefinitionOp definition = buildDefinition(makeDefinition(layers, tolerance));
    ASSERT_TRUE(definition);
    std::optional<llvm::Expected<AttentionPlanKernel>> forced =
        buildFusedAttention(definition, getCompileOnlyContext(), gemm);
    ASSERT_TRUE(forced.has_value());
    ASSERT_FALSE(static_cast<bool>(*forced)) << "the GEMM path was built";
    EXPECT_EQ(llvm::toString(forced->takeError()),
              "@" + layers.name + ": fused attention: the GEMM path does not run this " +
                  "attention: " + reason);
    std::optional<llvm::Expected<AttentionPlanKernel>> chosen =
        buildFusedAttention(definition, getCompileOnlyContext());
    ASSERT_TRUE(chosen.has_value());
    ASSERT_TRUE(static_cast<bool>(*chosen)) << llvm::toString(chosen->takeError());
    EXPECT_EQ((*chosen)->path, AttentionPath::Flash);
    EXPECT_EQ((*chosen)->gemmRefusal, reason);
  }
}

//===----------------------------------------------------------------------===//
// The tensor-core flash kernel
//===----------------------------------------------------------------------===//

/// Definitions the tensor-core kernel must run, in float16 and bfloat16 at
/// head dimensions of 16, 32, 64 and 128; query and key counts that leave
/// partial tiles.
std::vector<DefinitionCase> tensorCoreFusedCases() {
  std::vector<DefinitionCase> cases;
  float infinity = std::numeric_limits<float>::infinity();
  for (DType dtype : {DType::F16, DType::BF16}) {
    Tolerance tolerance = attentionTolerance(dtype);
    // ViT-B/16 at batch 2: q and kᵀ scaled on the way in, Kᵀ materialized
    // (its keys contiguous).
    AttentionLayers vit = vitLayers(dtype);
    vit.name = "tensor_core_vit" + suffix(dtype);
    vit.query = {2, 12, 197, 64};
    vit.transposedKey = {2, 12, 64, 197};
    vit.value = {2, 12, 197, 64};
    cases.push_back(makeDefinition(vit, tolerance));

    // BERT: a scale layer and the additive [1, 1, 1, S] mask.
    AttentionLayers bert = bertLayers(dtype);
    bert.name = "tensor_core_" + bert.name;
    cases.push_back(makeDefinition(bert, tolerance));

    // torch's export with the NaN guard: the first 3 queries have every key
    // masked (-inf), so they get the replacement times the sum of the values.
    AttentionLayers guarded;
    guarded.name = "tensor_core_nan_guard" + suffix(dtype);
    guarded.dtype = dtype;
    guarded.query = {1, 4, 77, 64};
    guarded.transposedKey = {1, 4, 64, 77};
    guarded.value = {1, 4, 77, 64};
    guarded.inputScale = 0.35355339059327373;
    std::vector<double> guardMask(3 * 77, -infinity);
    for (int index = 0; index < 74 * 77; ++index)
      guardMask.push_back(index % 7 == 2 ? -infinity : 0.0);
    guarded.scoreLayers = {{"cgc_op.add", values({1, 1, 77, 77}, dtype, guardMask)}};
    guarded.nanReplacement = 0.25;
    cases.push_back(makeDefinition(guarded, tolerance));

    // A factor of 64 elements on q (rounded to the element type with q, as
    // the mul layer stores it), a scalar written first on kᵀ.
    AttentionLayers factors;
    factors.name = "tensor_core_factors" + suffix(dtype);
    factors.dtype = dtype;
    factors.query = {2, 2, 77, 64};
    factors.transposedKey = {2, 2, 64, 77};
    factors.value = {2, 2, 77, 64};
    factors.queryFactor = tensor({64}, dtype, 0.5, 1.5);
    factors.keyFactor = values({}, dtype, {0.125});
    cases.push_back(makeDefinition(factors, tolerance));

    // Kᵀ broadcast over the heads (batch stride 0), V over the batch; a
    // value head dimension of its own; score layers in both operand orders
    // and the score squared (a step without an operand).
    AttentionLayers broadcast;
    broadcast.name = "tensor_core_broadcast" + suffix(dtype);
    broadcast.dtype = dtype;
    broadcast.query = {2, 3, 77, 32};
    broadcast.transposedKey = {2, 1, 32, 100};
    broadcast.value = {3, 100, 16};
    broadcast.scoreLayers = {{"cgc_op.mul", values({}, dtype, {0.25}), /*constant=*/true},
                             {"cgc_op.sub", tensor({2, 1, 77, 1}, dtype, -0.5, 0.5), false,
                              /*scoreFirst=*/false},
                             {"cgc_op.mul", {}, false, true, /*self=*/true}};
    // The CPU runs each score layer on its own and rounds its result to the
    // element type; the kernel keeps the scores in float32. Squaring doubles
    // bfloat16's rounding of the subtracted scores (8 bits) before the
    // softmax, which then moves some outputs by ~3%.
    Tolerance squared = tolerance;
    if (dtype == DType::BF16)
      squared.rtol = squared.atol = 5e-2;
    cases.push_back(makeDefinition(broadcast, squared));

    // Head dimension 128, Kᵀ materialized (its keys contiguous: the Kᵀ tile
    // is 128 rows of 64 keys), several query tiles at every tiling and a
    // partial last key tile.
    AttentionLayers widest;
    widest.name = "tensor_core_head_dim_128" + suffix(dtype);
    widest.dtype = dtype;
    widest.query = {1, 2, 70, 128};
    widest.transposedKey = {1, 2, 128, 300};
    widest.value = {1, 2, 300, 128};
    widest.scoreLayers = {{"cgc_op.div", values({}, dtype, {11.3125}), /*constant=*/true}};
    cases.push_back(makeDefinition(widest, tolerance));

    // ViT-B/16 at batch 1: 12 heads of 197 queries, a grid the tiling fills
    // with blocks of 16 queries (the last tile 5 queries, the last key tile
    // 5 keys).
    AttentionLayers vitSingle = vitLayers(dtype);
    vitSingle.name = "tensor_core_vit_batch1" + suffix(dtype);
    cases.push_back(makeDefinition(vitSingle, tolerance));

    // The smallest: plain matrices of head dimension 16.
    AttentionLayers matrices;
    matrices.name = "tensor_core_matrices" + suffix(dtype);
    matrices.dtype = dtype;
    matrices.query = {10, 16};
    matrices.transposedKey = {16, 24};
    matrices.value = {24, 16};
    cases.push_back(makeDefinition(matrices, tolerance));
  }
  return cases;
}

/// cgc_op.scaled_dot_product_attention layers the tensor-core kernel must
/// run: K [..., S, E] read as Kᵀ with its embedding contiguous, causal
/// masks, additive and boolean masks.
std::vector<OpCase> tensorCoreLayerCases() {
  std::vector<OpCase> cases;
  for (DType dtype : {DType::F16, DType::BF16}) {
    Tolerance tolerance = attentionTolerance(dtype);
    auto qkv = [&](Dims query, Dims key, Dims value) {
      return std::vector<OperandSpec>{tensor(std::move(query), dtype),
                                      tensor(std::move(key), dtype),
                                      tensor(std::move(value), dtype)};
    };
    cases.push_back(
        {kAttention, qkv({1, 12, 128, 64}, {1, 12, 128, 64}, {1, 12, 128, 64}), "", tolerance});
    cases.push_back({kAttention, qkv({2, 4, 77, 64}, {2, 4, 77, 64}, {2, 4, 77, 64}),
                     "{is_causal = true}", tolerance});
    // Causal with fewer and with more queries than keys.
    cases.push_back({kAttention, qkv({1, 2, 20, 32}, {1, 2, 145, 32}, {1, 2, 145, 32}),
                     "{is_causal = true}", tolerance});
    cases.push_back({kAttention, qkv({1, 2, 145, 32}, {1, 2, 20, 32}, {1, 2, 20, 32}),
                     "{is_causal = true}", tolerance});
    // BERT's additive [B, 1, 1, S] mask and a scale.
    std::vector<OperandSpec> operands = qkv({2, 3, 77, 64}, {2, 3, 77, 64}, {2, 3, 77, 32});
    operands.push_back(values({2, 1, 1, 77}, dtype, {0, 0, -10000, 0, 0, 0, 0}));
    cases.push_back({kAttention, operands, "{scale = 3.000000e-01 : f64}", tolerance});
    // A boolean mask per query that drops every key of query 0 (NaN, as on
    // the CPU) and every third key of the others.
    std::vector<double> keep(77, 0.0);
    for (int index = 0; index < 76 * 77; ++index)
      keep.push_back(index % 3 == 1 ? 0.0 : 1.0);
    operands.back() = values({2, 1, 77, 77}, DType::Bool, keep);
    cases.push_back({kAttention, operands, "", tolerance});
    // Broadcast batch dimensions; head dimension 64 over many key tiles.
    cases.push_back({kAttention, qkv({2, 3, 10, 16}, {1, 3, 24, 16}, {3, 24, 32}), "", tolerance});
    cases.push_back(
        {kAttention, qkv({1, 1, 33, 64}, {1, 1, 300, 64}, {1, 1, 300, 64}), "", tolerance});
    // The largest head dimension, K read with its embedding contiguous:
    // several query tiles, causal too.
    cases.push_back(
        {kAttention, qkv({1, 2, 70, 128}, {1, 2, 300, 128}, {1, 2, 300, 128}), "", tolerance});
    cases.push_back({kAttention, qkv({2, 1, 150, 128}, {2, 1, 150, 128}, {2, 1, 150, 128}),
                     "{is_causal = true}", tolerance});
  }
  return cases;
}

/// Forced onto the tensor-core path, in blocks of `warps` warps (none: the
/// tiling chosen for the device).
AttentionBuildOptions tensorCorePath(std::optional<int64_t> warps = std::nullopt) {
  AttentionBuildOptions options;
  options.path = AttentionPath::TensorCore;
  options.tensorCoreWarps = warps;
  return options;
}

/// Every tiling of the tensor-core kernel, forced.
std::vector<PathCase> tensorCoreTilings() {
  return {{"tensor-core flash kernel, 1 warp per block", tensorCorePath(1)},
          {"tensor-core flash kernel, 2 warps per block", tensorCorePath(2)},
          {"tensor-core flash kernel, 4 warps per block", tensorCorePath(4)}};
}

TEST_F(FusedAttentionTest, TensorCoreFusedMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  for (const DefinitionCase &definitionCase : tensorCoreFusedCases()) {
    SCOPED_TRACE(definitionCase.describe());
    auto [definition, inputs, expected] = runReference(definitionCase);
    ASSERT_TRUE(definition);
    ASSERT_EQ(expected.size(), 1u);
    for (const PathCase &path : tensorCoreTilings()) {
      std::optional<llvm::Expected<AttentionPlanKernel>> built =
          buildFusedAttention(definition, kernelContext->getImpl(), path.options);
      ASSERT_TRUE(built.has_value());
      if (!*built) {
        ADD_FAILURE() << path.name << ": " << llvm::toString(built->takeError());
        continue;
      }
      expectBuiltMatches(std::move(*built), path, inputs, expected, definition.getResultTypes(),
                         definitionCase.tolerance, definitionCase.describe());
    }
    std::optional<llvm::Expected<AttentionPlanKernel>> chosen =
        buildFusedAttention(definition, kernelContext->getImpl());
    ASSERT_TRUE(chosen.has_value());
    reportChoice(definitionCase.describe(), std::move(*chosen));
  }
}

TEST_F(FusedAttentionTest, TensorCoreLayerMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  for (const OpCase &opCase : tensorCoreLayerCases()) {
    SCOPED_TRACE(opCase.describe());
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    std::vector<HostTensor> inputs = makeInputs(opCase);
    std::vector<HostTensor> expected = runCpu(op, inputs);
    ASSERT_EQ(expected.size(), 1u);
    for (const PathCase &path : tensorCoreTilings()) {
      llvm::Expected<AttentionPlanKernel> built =
          buildAttentionLayerKernel(op, kernelContext->getImpl(), path.options);
      if (!built) {
        ADD_FAILURE() << path.name << ": " << llvm::toString(built.takeError());
        continue;
      }
      expectBuiltMatches(std::move(built), path, inputs, expected, op->getResultTypes(),
                         opCase.tolerance, opCase.describe());
    }
    reportChoice(opCase.describe(), buildAttentionLayerKernel(op, kernelContext->getImpl()));
  }
}

/// A plan built again on the same device runs the path its first build
/// chose, without timing the paths again (a transformer's layers), and
/// still matches the CPU.
TEST_F(FusedAttentionTest, IdenticalPlansTimeOnce) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  // A shape no other test builds, so that the first build here times.
  Tolerance tolerance = attentionTolerance(DType::F16);
  OpCase opCase{kAttention,
                {tensor({1, 3, 61, 64}, DType::F16), tensor({1, 3, 61, 64}, DType::F16),
                 tensor({1, 3, 61, 64}, DType::F16)},
                "",
                tolerance};
  mlir::Operation *op = buildOp(opCase);
  ASSERT_NE(op, nullptr);
  uint64_t before = getTimedAttentionPlanCount();
  llvm::Expected<AttentionPlanKernel> first = buildAttentionLayerKernel(op, kernelContext->getImpl());
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(getTimedAttentionPlanCount(), before + 1);
  AttentionPath firstPath = first->path;
  std::string firstRefusals = first->gemmRefusal + "|" + first->tensorCoreRefusal;

  llvm::Expected<AttentionPlanKernel> second =
      buildAttentionLayerKernel(op, kernelContext->getImpl());
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(getTimedAttentionPlanCount(), before + 1);
  EXPECT_EQ(second->path, firstPath);
  EXPECT_EQ(second->gemmRefusal + "|" + second->tensorCoreRefusal, firstRefusals);
  // Forcing a path neither times nor reads the choice.
  llvm::Expected<AttentionPlanKernel> forced =
      buildAttentionLayerKernel(op, kernelContext->getImpl(), tensorCorePath());
  ASSERT_TRUE(static_cast<bool>(forced)) << llvm::toString(forced.takeError());
  EXPECT_EQ(forced->path, AttentionPath::TensorCore);
  EXPECT_EQ(getTimedAttentionPlanCount(), before + 1);

  std::vector<HostTensor> inputs = makeInputs(opCase);
  std::vector<HostTensor> expected = runCpu(op, inputs);
  ASSERT_EQ(expected.size(), 1u);
  PathCase cached{"the cached choice", {}};
  cached.options.path = firstPath; // what expectBuiltMatches checks it ran
  expectBuiltMatches(std::move(second), cached, inputs, expected, op->getResultTypes(), tolerance,
                     opCase.describe());
}

/// Without a device, every tensor-core case compiles (NVRTC, sm_90) at the
/// tiling chosen for an H100's 132 multiprocessors, and the float16
/// definitions at every tiling (the element type changes no more of the
/// tiling's code than the shapes do); the build's own choice there is the
/// flash kernel.
TEST_F(FusedAttentionTest, TensorCoreCompiles) {
  KernelContext::Impl &context = getCompileOnlyContext();
  std::vector<PathCase> chosenTiling = {{"tensor-core flash kernel", tensorCorePath()}};
  for (const DefinitionCase &definitionCase : tensorCoreFusedCases()) {
    SCOPED_TRACE(definitionCase.describe());
    cgc::FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    bool everyTiling = definitionCase.operands.front().dtype == DType::F16;
    for (const PathCase &path : everyTiling ? tensorCoreTilings() : chosenTiling) {
      std::optional<llvm::Expected<AttentionPlanKernel>> built =
          buildFusedAttention(definition, context, path.options);
      ASSERT_TRUE(built.has_value());
      ASSERT_TRUE(static_cast<bool>(*built))
          << path.name << ": " << llvm::toString(built->takeError());
      EXPECT_EQ((*built)->path, AttentionPath::TensorCore);
    }
    std::optional<llvm::Expected<AttentionPlanKernel>> chosen =
        buildFusedAttention(definition, context);
    ASSERT_TRUE(chosen.has_value());
    ASSERT_TRUE(static_cast<bool>(*chosen)) << llvm::toString(chosen->takeError());
    EXPECT_EQ((*chosen)->path, AttentionPath::Flash);
    EXPECT_EQ((*chosen)->tensorCoreRefusal, "the kernel context has no device");
  }
  for (const OpCase &opCase : tensorCoreLayerCases()) {
    SCOPED_TRACE(opCase.describe());
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    llvm::Expected<AttentionPlanKernel> built =
        buildAttentionLayerKernel(op, context, tensorCorePath());
    ASSERT_TRUE(static_cast<bool>(built)) << llvm::toString(built.takeError());
    EXPECT_EQ(built->path, AttentionPath::TensorCore);
  }
}

/// The plan of `query`, `key` and `value` tensors ([batch..., sequence, E],
/// dense float16) with scale 1/√E, as the per-layer op reads them.
AttentionPlan layerPlan(Dims query, Dims key, Dims value) {
  AttentionPlan plan;
  plan.dtype = DType::F16;
  plan.inputTypes = {DType::F16, DType::F16, DType::F16};
  plan.batch.assign(query.begin(), query.end() - 2);
  plan.queries = query.end()[-2];
  plan.keys = key.end()[-2];
  plan.embedding = query.back();
  plan.valueEmbedding = value.back();
  Dims keyTarget(plan.batch.begin(), plan.batch.end());
  Dims valueTarget = keyTarget;
  keyTarget.insert(keyTarget.end(), {plan.keys, plan.embedding});
  valueTarget.insert(valueTarget.end(), {plan.keys, plan.valueEmbedding});
  plan.query.view = makeAttentionView(0, DType::F16, query, query);
  plan.key.view = makeAttentionView(1, DType::F16, key, keyTarget);
  std::swap(plan.key.view.rowStride, plan.key.view.columnStride);
  plan.value = makeAttentionView(2, DType::F16, value, valueTarget);
  plan.scale = 1.0 / std::sqrt(static_cast<double>(plan.embedding));
  return plan;
}

/// The generated source bakes the plan's sizes and strides in as constants
/// and indexes in 32 bits (within 128 registers: 16 warps a multiprocessor)
/// while every offset fits; a batch whose offsets pass 2^30 keeps 64-bit
/// indices and the plain launch bounds.
TEST_F(FusedAttentionTest, TensorCoreSourceIndexWidthFollowsThePlan) {
  TensorCoreAttentionTiling tiling;
  AttentionPlan bert = layerPlan({32, 12, 128, 64}, {32, 12, 128, 64}, {32, 12, 128, 64});
  std::string small = generateTensorCoreAttentionSource(bert, tiling);
  EXPECT_NE(small.find("constexpr cgc_attention_constants p = {384ll, 128ll, 128ll"),
            std::string::npos);
  EXPECT_NE(small.find("__launch_bounds__(128, 4)"), std::string::npos);
  EXPECT_NE(small.find("typedef int cgc_index;"), std::string::npos);
  EXPECT_EQ(small.find("typedef long long cgc_index;"), std::string::npos);
  EXPECT_NE(small.find("cgc_index base["), std::string::npos);
  // Pointers keep their 64-bit alignment checks.
  EXPECT_NE(small.find("(unsigned long long)in0 & 15ull"), std::string::npos);

  // 2^31 / (12 · 128 · 64) < 22000 batch matrices.
  AttentionPlan large =
      layerPlan({22000, 12, 128, 64}, {22000, 12, 128, 64}, {22000, 12, 128, 64});
  std::string wide = generateTensorCoreAttentionSource(large, tiling);
  EXPECT_NE(wide.find("typedef long long cgc_index;"), std::string::npos);
  EXPECT_NE(wide.find("__launch_bounds__(128)"), std::string::npos);
}

/// Kᵀ's and V's tiles take two slots each where they fit the 48 KiB of
/// static shared memory with Q's own buffer (head dimension 64: the next
/// tile is copied while one is computed, one barrier a tile); head
/// dimension 128 keeps one buffer per operand and two barriers a tile.
TEST_F(FusedAttentionTest, TensorCoreSourceTakesTwoSlotsWhereTheyFit) {
  TensorCoreAttentionTiling tiling;
  AttentionPlan vit = layerPlan({32, 12, 197, 64}, {32, 12, 197, 64}, {32, 12, 197, 64});
  std::string slotted = generateTensorCoreAttentionSource(vit, tiling);
  EXPECT_NE(slotted.find("unsigned short keyTileSlots[2][4608];"), std::string::npos);
  EXPECT_NE(slotted.find("unsigned short valueTileSlots[2][4608];"), std::string::npos);
  EXPECT_NE(slotted.find("unsigned short queryTile[4608];"), std::string::npos);
  EXPECT_NE(slotted.find("cgc_copy_wait_but_last();"), std::string::npos);
  EXPECT_NE(slotted.find("const cgc_index keyOrigin = keyStart + 128;"), std::string::npos);
  EXPECT_EQ(slotted.find("unsigned short keyTile["), std::string::npos);

  AttentionPlan wide = layerPlan({2, 1, 150, 128}, {2, 1, 150, 128}, {2, 1, 150, 128});
  std::string single = generateTensorCoreAttentionSource(wide, tiling);
  EXPECT_EQ(single.find("keyTileSlots"), std::string::npos);
  EXPECT_NE(single.find("unsigned short keyTile["), std::string::npos);
  EXPECT_NE(single.find("const cgc_index keyOrigin = keyStart + 64;"), std::string::npos);
}

/// The tiling follows the grid: blocks of 4 warps (64 queries) while they
/// give every multiprocessor of an H100 (132) a block, smaller ones when
/// the batch is small.
TEST_F(FusedAttentionTest, TensorCoreTilingFillsTheDevice) {
  struct Expected {
    const char *name;
    AttentionPlan plan;
    int64_t warps;
  };
  const Expected cases[] = {
      // 12 × 2 = 24 blocks of 64, 48 of 32: 96 of 16.
      {"BERT-base, batch 1", layerPlan({1, 12, 128, 64}, {1, 12, 128, 64}, {1, 12, 128, 64}), 1},
      // 12 × 13 = 156 blocks of 16 (the last 5 queries).
      {"ViT-B/16, batch 1", layerPlan({1, 12, 197, 64}, {1, 12, 197, 64}, {1, 12, 197, 64}), 1},
      // 24 × 4 = 96 blocks of 64: 24 × 7 = 168 of 32.
      {"ViT-B/16, batch 2", layerPlan({2, 12, 197, 64}, {2, 12, 197, 64}, {2, 12, 197, 64}), 2},
      // 384 × 2 blocks of 64.
      {"BERT-base, batch 32", layerPlan({32, 12, 128, 64}, {32, 12, 128, 64}, {32, 12, 128, 64}),
       4},
      // Too few queries for any tiling to fill the device: the most blocks.
      {"one small matrix", layerPlan({1, 1, 20, 128}, {1, 1, 300, 128}, {1, 1, 300, 128}), 1}};
  for (const Expected &expected : cases) {
    SCOPED_TRACE(expected.name);
    EXPECT_EQ(getTensorCoreAttentionTiling(expected.plan, 132).warps, expected.warps);
    // A device of one multiprocessor takes the largest blocks.
    EXPECT_EQ(getTensorCoreAttentionTiling(expected.plan, 1).warps, 4);
  }
  // A block size the kernel is not written for is an error.
  llvm::Expected<Kernel> odd = buildTensorCoreAttentionKernel(
      cases[0].plan, getCompileOnlyContext(), "odd_tiling", /*warps=*/3);
  ASSERT_FALSE(static_cast<bool>(odd));
  EXPECT_EQ(llvm::toString(odd.takeError()),
            "odd_tiling: the tensor-core flash kernel takes blocks of 1, 2 or 4 warps, not 3");
}

/// What the tensor-core kernel leaves to the other paths: forced, it is an
/// error naming why; chosen by the build, the flash kernel runs it.
TEST_F(FusedAttentionTest, TensorCoreRefusals) {
  const std::pair<OpCase, std::string> refused[] = {
      {{kAttention,
        {tensor({1, 2, 9, 40}, DType::F16), tensor({1, 2, 70, 40}, DType::F16),
         tensor({1, 2, 70, 64}, DType::F16)},
        ""},
       "query/key head dimension 40 (the tensor-core kernel takes multiples of 16 up to 128)"},
      {{kAttention,
        {tensor({1, 2, 9, 64}, DType::BF16), tensor({1, 2, 70, 64}, DType::BF16),
         tensor({1, 2, 70, 24}, DType::BF16)},
        ""},
       "value head dimension 24 (the tensor-core kernel takes multiples of 16 up to 128)"},
      {{kAttention,
        {tensor({1, 2, 9, 112}, DType::F16), tensor({1, 2, 70, 112}, DType::F16),
         tensor({1, 2, 70, 120}, DType::F16)},
        ""},
       "value head dimension 120 (the tensor-core kernel takes multiples of 16 up to 128)"},
      {{kAttention,
        {tensor({1, 2, 9, 64}, DType::F32), tensor({1, 2, 70, 64}, DType::F32),
         tensor({1, 2, 70, 64}, DType::F32)},
        ""},
       "element type float32 (tensor cores take float16 and bfloat16)"}};
  for (const auto &[opCase, reason] : refused) {
    SCOPED_TRACE(opCase.describe());
    mlir::Operation *op = buildOp(opCase);
    ASSERT_NE(op, nullptr);
    llvm::Expected<AttentionPlanKernel> forced =
        buildAttentionLayerKernel(op, getCompileOnlyContext(), tensorCorePath());
    ASSERT_FALSE(static_cast<bool>(forced)) << "the tensor-core kernel was built";
    EXPECT_EQ(llvm::toString(forced.takeError()),
              std::string(kAttention) +
                  ": the tensor-core flash kernel does not run this attention: " + reason);
    llvm::Expected<AttentionPlanKernel> chosen =
        buildAttentionLayerKernel(op, getCompileOnlyContext());
    ASSERT_TRUE(static_cast<bool>(chosen)) << llvm::toString(chosen.takeError());
    EXPECT_EQ(chosen->path, AttentionPath::Flash);
    EXPECT_EQ(chosen->tensorCoreRefusal, reason);
  }
}

/// The tensor-core kernel writes through the plan's output view: attention
/// over [B, H, L, E] tensors written as [B, L, H, E] (two elements per
/// store) and as [B, H, E, L] (one per store), against the flash kernel's
/// dense output permuted on the host.
TEST_F(FusedAttentionTest, TensorCoreWritesThroughOutputView) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *kernelContext = getDeviceContext();
  ASSERT_NE(kernelContext, nullptr);
  const int64_t batch = 2, heads = 3, length = 77, width = 64;
  Dims shape = {batch, heads, length, width};
  AttentionPlan plan;
  plan.dtype = DType::F16;
  plan.inputTypes = {DType::F16, DType::F16, DType::F16};
  plan.batch = {batch, heads};
  plan.queries = plan.keys = length;
  plan.embedding = plan.valueEmbedding = width;
  plan.query.view = makeAttentionView(0, DType::F16, shape, shape);
  plan.key.view = makeAttentionView(1, DType::F16, shape, shape);
  std::swap(plan.key.view.rowStride, plan.key.view.columnStride);
  plan.value = makeAttentionView(2, DType::F16, shape, shape);
  plan.scale = 0.125;
  OpCase operands;
  operands.operands = {tensor(shape, DType::F16), tensor(shape, DType::F16),
                       tensor(shape, DType::F16)};
  std::vector<HostTensor> inputs = makeInputs(operands);

  AttentionBuildOptions flash;
  flash.path = AttentionPath::Flash;
  llvm::Expected<AttentionPlanKernel> dense =
      buildAttentionPlanKernel(plan, kernelContext->getImpl(), "dense_attention", nullptr, flash);
  ASSERT_TRUE(static_cast<bool>(dense)) << llvm::toString(dense.takeError());
  std::vector<HostTensor> expected =
      launchOnCuda(dense->kernel, inputs, {HostTensor(DType::F16, shape)});
  ASSERT_EQ(expected.size(), 1u);

  struct Layout {
    const char *name;
    Dims shape;
    AttentionView view;
  };
  AttentionView byLength, transposed;
  byLength.batchStrides = {length * heads * width, width};
  byLength.rowStride = heads * width;
  byLength.columnStride = 1;
  transposed.batchStrides = {heads * width * length, width * length};
  transposed.rowStride = 1;
  transposed.columnStride = length;
  const Layout layouts[] = {{"[B, L, H, E]", {batch, length, heads, width}, byLength},
                            {"[B, H, E, L]", {batch, heads, width, length}, transposed}};
  for (const Layout &layout : layouts) {
    SCOPED_TRACE(layout.name);
    AttentionPlan strided = plan;
    strided.output = layout.view;
    strided.output->dtype = DType::F16;
    llvm::Expected<AttentionPlanKernel> built = buildAttentionPlanKernel(
        strided, kernelContext->getImpl(), "strided_attention", nullptr, tensorCorePath());
    ASSERT_TRUE(static_cast<bool>(built)) << llvm::toString(built.takeError());
    std::vector<HostTensor> actual =
        launchOnCuda(built->kernel, inputs, {HostTensor(DType::F16, layout.shape)});
    ASSERT_EQ(actual.size(), 1u);
    // The flash kernel's result, element (b, h, l, e), moved to the view.
    HostTensor permuted(DType::F16, layout.shape);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t l = 0; l < length; ++l)
          for (int64_t e = 0; e < width; ++e) {
            int64_t at = b * layout.view.batchStrides[0] + h * layout.view.batchStrides[1] +
                         l * layout.view.rowStride + e * layout.view.columnStride;
            permuted.set(at, expected[0].get(((b * heads + h) * length + l) * width + e));
          }
    expectClose(actual[0], permuted, attentionTolerance(DType::F16),
                std::string("output view ") + layout.name);
  }
}

} // namespace
