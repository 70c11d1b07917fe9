//===- FusedAttentionTest.cpp - the attention kernel against the CPU ------===//
//
// The attention kernel (drivers/cuda/kernels/AttentionKernel.h) twice: as
// the fused kernel of attention written out as layers (each definition run
// layer by layer by the CPU driver is the reference), and as the layer
// kernel of cgc_op.scaled_dot_product_attention (the CPU driver's kernel of
// the op is the reference). Shapes are those of BERT-base and ViT-B/16
// heads, odd sizes that leave partial tiles, broadcast batch dimensions and
// the largest head dimension. Without a GPU the recognition, the
// rejections and the NVRTC compilation of every generated kernel (sm_90)
// are still checked.
//
//===----------------------------------------------------------------------===//

#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/FusedSupport.h"

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
  std::string key = addArgument(tensor(layers.transposedKey, dtype, -1.0, 1.0), false);
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
  for (const DefinitionCase &definitionCase : fusedCases()) {
    SCOPED_TRACE(definitionCase.describe());
    cgc::FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    EXPECT_EQ(getFusedFamilyName(definition).str(), "attention");
  }
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

} // namespace
