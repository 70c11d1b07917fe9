//===- TestModels.cpp - the ONNX models of the importer's lit tests -------===//
//
// Small models with the structure of real exports (a ResNet stage, a
// MobileNetV2 block, a BERT-style encoder layer with the shape computations
// PyTorch emits) and one model per import error.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"

#include <cmath>
#include <filesystem>

namespace cgc::importer::testing {

namespace {

/// Writes `model` to `path`.
bool save(const ModelBuilder &model, const std::string &path) {
  return writeFile(path, model.serialize());
}

/// Conv, BatchNormalization, Relu, MaxPool, a residual Add, GlobalAveragePool,
/// Flatten, Gemm, Softmax: the layers of a ResNet.
ModelBuilder miniResNet() {
  ModelBuilder m("mini_resnet", 13);
  m.input("input.1", kFloat, {1, 3, 8, 8});
  m.weight("conv1.weight", {4, 3, 3, 3});
  m.weight("conv1.bias", {4});
  m.floats("bn1.weight", {4}, {1.0f, 0.5f, 2.0f, 1.5f});
  m.floats("bn1.bias", {4}, {0.1f, -0.1f, 0.0f, 0.2f});
  m.floats("bn1.running_mean", {4}, {0.0f, 0.1f, -0.1f, 0.05f});
  m.floats("bn1.running_var", {4}, {1.0f, 0.5f, 2.0f, 1.0f});
  m.weight("conv2.weight", {4, 4, 1, 1});
  m.weight("fc.weight", {10, 4});
  m.weight("fc.bias", {10});
  onnx::NodeProto &conv = m.node("Conv", {"input.1", "conv1.weight", "conv1.bias"}, {"conv1"},
                                 "/conv1/Conv");
  setInts(conv, "pads", {1, 1, 1, 1});
  setInts(conv, "kernel_shape", {3, 3});
  onnx::NodeProto &bn = m.node("BatchNormalization",
                               {"conv1", "bn1.weight", "bn1.bias", "bn1.running_mean",
                                "bn1.running_var"},
                               {"bn1"}, "/bn1/BatchNormalization");
  setFloat(bn, "epsilon", 1e-5f);
  m.node("Relu", {"bn1"}, {"relu1"}, "/relu/Relu");
  onnx::NodeProto &pool = m.node("MaxPool", {"relu1"}, {"pool1"}, "/maxpool/MaxPool");
  setInts(pool, "kernel_shape", {3, 3});
  setInts(pool, "strides", {2, 2});
  setInts(pool, "pads", {1, 1, 1, 1});
  m.node("Conv", {"pool1", "conv2.weight"}, {"conv2"}, "/conv2/Conv");
  m.node("Add", {"conv2", "pool1"}, {"add1"}, "/Add");
  m.node("Relu", {"add1"}, {"relu2"}, "/relu_1/Relu");
  m.node("GlobalAveragePool", {"relu2"}, {"gap"}, "/avgpool/GlobalAveragePool");
  onnx::NodeProto &flatten = m.node("Flatten", {"gap"}, {"flat"}, "/Flatten");
  setInt(flatten, "axis", 1);
  onnx::NodeProto &gemm = m.node("Gemm", {"flat", "fc.weight", "fc.bias"}, {"logits"}, "/fc/Gemm");
  setInt(gemm, "transB", 1);
  onnx::NodeProto &softmax = m.node("Softmax", {"logits"}, {"probabilities"}, "/Softmax");
  setInt(softmax, "axis", 1);
  m.output("probabilities", kFloat, {1, 10});
  return m;
}

/// An inverted residual block of MobileNetV2: 1x1 expand, Clip(0, 6) as
/// ReLU6, a strided depthwise 3x3 with auto_pad SAME_UPPER, 1x1 project.
ModelBuilder mobileNetBlock() {
  ModelBuilder m("mobilenet_block", 11);
  m.input("x", kFloat, {1, 4, 8, 8});
  m.weight("expand.weight", {8, 4, 1, 1});
  m.weight("depthwise.weight", {8, 1, 3, 3});
  m.weight("depthwise.bias", {8});
  m.weight("project.weight", {4, 8, 1, 1});
  m.floats("relu6.min", {}, {0.0f});
  m.floats("relu6.max", {}, {6.0f});
  m.node("Conv", {"x", "expand.weight"}, {"expanded"});
  m.node("Clip", {"expanded", "relu6.min", "relu6.max"}, {"relu6a"});
  onnx::NodeProto &depthwise =
      m.node("Conv", {"relu6a", "depthwise.weight", "depthwise.bias"}, {"depthwise"});
  setInt(depthwise, "group", 8);
  setInts(depthwise, "strides", {2, 2});
  setString(depthwise, "auto_pad", "SAME_UPPER");
  m.node("Clip", {"depthwise", "relu6.min", "relu6.max"}, {"relu6b"});
  m.node("Conv", {"relu6b", "project.weight"}, {"y"});
  m.output("y", kFloat, {1, 4, 4, 4});
  return m;
}

/// Two layers, each with its own copies of the same scalars (as torch.onnx
/// writes an attention mask's 0 and -inf per layer), a scalar of another
/// value, and two equal weights too large to share a name.
ModelBuilder repeatedConstants() {
  ModelBuilder m("repeated_constants", 17);
  m.input("x", kFloat, {2, 80});
  m.floats("layer.0/half", {}, {0.5f});
  m.floats("layer.1/half", {}, {0.5f});
  m.floats("layer.1/third", {}, {0.25f});
  m.weight("layer.0/scale", {80});
  m.weight("layer.1/scale", {80});
  m.node("Mul", {"x", "layer.0/half"}, {"h0"});
  m.node("Mul", {"h0", "layer.0/scale"}, {"s0"});
  m.node("Mul", {"x", "layer.1/half"}, {"h1"});
  m.node("Mul", {"h1", "layer.1/third"}, {"t1"});
  m.node("Mul", {"t1", "layer.1/scale"}, {"s1"});
  m.node("Add", {"s0", "s1"}, {"y"});
  m.output("y", kFloat, {2, 80});
  return m;
}

/// Transposes that only move dimensions of size 1 (torch's
/// MultiheadAttention swapping batch and sequence at batch 1), and one that
/// moves data.
ModelBuilder unitTransposes() {
  ModelBuilder m("unit_transposes", 17);
  m.input("x", kFloat, {1, 5, 1, 4});
  setInts(m.node("Transpose", {"x"}, {"swapped"}), "perm", {2, 0, 1, 3});
  setInts(m.node("Transpose", {"swapped"}, {"y"}), "perm", {0, 1, 3, 2});
  m.output("y", kFloat, {1, 1, 4, 5});
  return m;
}

/// A BERT-style encoder layer with a dynamic sequence length, written the way
/// torch.onnx exports it: position ids sliced from a buffer by a length
/// computed from Shape, heads split by Reshape with a Concat-ed shape, an
/// expanded attention mask, LayerNorm decomposed into ReduceMean / Sub / Pow
/// / Sqrt / Div and Gelu through Erf.
ModelBuilder encoderLayer() {
  const int64_t hidden = 16, heads = 2, headSize = 8, vocabulary = 50, positions = 32;
  ModelBuilder m("encoder_layer", 14);
  m.input("input_ids", kInt64, {1, "sequence"});
  m.input("attention_mask", kInt64, {1, "sequence"});
  m.weight("embeddings.word", {vocabulary, hidden});
  m.weight("embeddings.position", {positions, hidden});
  m.ints("position_ids", {1, positions}, [&] {
    std::vector<int64_t> ids(positions);
    for (int64_t i = 0; i < positions; ++i)
      ids[i] = i;
    return ids;
  }());
  for (const char *name : {"query", "key", "value", "output", "intermediate", "dense"})
    m.weight(std::string(name) + ".weight", {hidden, hidden});
  m.floats("ln.gamma", {hidden}, std::vector<float>(hidden, 1.0f));
  m.floats("ln.beta", {hidden}, std::vector<float>(hidden, 0.0f));
  m.ints("zero", {1}, {0});
  m.ints("one", {1}, {1});
  m.ints("axis0", {1}, {0});
  m.ints("axes12", {2}, {1, 2});
  m.ints("heads", {2}, {heads, headSize});
  m.ints("hidden", {1}, {hidden});
  m.ints("index1", {}, {1});
  m.floats("two", {}, {2.0f});
  m.floats("epsilon", {}, {1e-12f});
  m.floats("sqrt_head", {}, {std::sqrt(static_cast<float>(headSize))});
  m.floats("one_f", {}, {1.0f});
  m.floats("half", {}, {0.5f});
  m.floats("sqrt2", {}, {std::sqrt(2.0f)});
  m.floats("mask_value", {}, {-10000.0f});

  // Embeddings: word + position, positions sliced to the sequence length.
  m.node("Gather", {"embeddings.word", "input_ids"}, {"word_embeddings"});
  m.node("Shape", {"input_ids"}, {"ids_shape"});
  m.node("Gather", {"ids_shape", "index1"}, {"sequence_length"});
  m.node("Unsqueeze", {"sequence_length", "axis0"}, {"sequence_end"});
  m.node("Slice", {"position_ids", "zero", "sequence_end", "one", "one"}, {"sliced_ids"});
  m.node("Gather", {"embeddings.position", "sliced_ids"}, {"position_embeddings"});
  m.node("Add", {"word_embeddings", "position_embeddings"}, {"embeddings"});

  // LayerNorm, decomposed.
  onnx::NodeProto &mean = m.node("ReduceMean", {"embeddings"}, {"ln_mean"});
  setInts(mean, "axes", {-1});
  m.node("Sub", {"embeddings", "ln_mean"}, {"ln_centered"});
  m.node("Pow", {"ln_centered", "two"}, {"ln_squared"});
  onnx::NodeProto &variance = m.node("ReduceMean", {"ln_squared"}, {"ln_variance"});
  setInts(variance, "axes", {-1});
  m.node("Add", {"ln_variance", "epsilon"}, {"ln_shifted"});
  m.node("Sqrt", {"ln_shifted"}, {"ln_deviation"});
  m.node("Div", {"ln_centered", "ln_deviation"}, {"ln_normalized"});
  m.node("Mul", {"ln_normalized", "ln.gamma"}, {"ln_scaled"});
  m.node("Add", {"ln_scaled", "ln.beta"}, {"hidden_states"});

  // Heads: Reshape to [batch, sequence, heads, head_size] with a computed shape.
  m.node("Shape", {"hidden_states"}, {"hidden_shape"});
  m.node("Gather", {"hidden_shape", "axis0"}, {"batch_size"});
  setInt(m.node("Concat", {"batch_size", "sequence_end", "heads"}, {"split_shape"}), "axis", 0);
  for (const char *name : {"query", "key", "value"}) {
    std::string projected = std::string(name) + "_projected";
    m.node("MatMul", {"hidden_states", std::string(name) + ".weight"}, {projected});
    m.node("Reshape", {projected, "split_shape"}, {std::string(name) + "_heads"});
  }
  setInts(m.node("Transpose", {"query_heads"}, {"q"}), "perm", {0, 2, 1, 3});
  setInts(m.node("Transpose", {"key_heads"}, {"k"}), "perm", {0, 2, 3, 1});
  setInts(m.node("Transpose", {"value_heads"}, {"v"}), "perm", {0, 2, 1, 3});
  m.node("MatMul", {"q", "k"}, {"scores_raw"});
  m.node("Div", {"scores_raw", "sqrt_head"}, {"scores_scaled"});

  // Attention mask: (1 - mask) * -10000, broadcast over heads and queries,
  // with the Expand shape chosen by Where/Equal/ConstantOfShape as exported.
  m.node("Unsqueeze", {"attention_mask", "axes12"}, {"mask4"});
  setInt(m.node("Cast", {"mask4"}, {"mask_float"}), "to", kFloat);
  m.node("Sub", {"one_f", "mask_float"}, {"mask_inverted"});
  m.node("Mul", {"mask_inverted", "mask_value"}, {"mask_additive"});
  m.node("Shape", {"scores_scaled"}, {"scores_shape"});
  m.node("Shape", {"scores_shape"}, {"scores_rank"});
  setTensor(m.node("ConstantOfShape", {"scores_rank"}, {"minus_ones"}), "value", kInt64, {1}, {-1});
  m.node("Equal", {"scores_shape", "minus_ones"}, {"is_unknown"});
  setTensor(m.node("ConstantOfShape", {"scores_rank"}, {"ones"}), "value", kInt64, {1}, {1});
  m.node("Where", {"is_unknown", "ones", "scores_shape"}, {"expand_shape"});
  m.node("Expand", {"mask_additive", "expand_shape"}, {"mask_expanded"});
  m.node("Add", {"scores_scaled", "mask_expanded"}, {"scores"});
  setInt(m.node("Softmax", {"scores"}, {"probabilities"}), "axis", -1);
  m.node("MatMul", {"probabilities", "v"}, {"context_heads"});
  setInts(m.node("Transpose", {"context_heads"}, {"context_transposed"}), "perm", {0, 2, 1, 3});
  setInt(m.node("Concat", {"batch_size", "sequence_end", "hidden"}, {"merge_shape"}), "axis", 0);
  m.node("Reshape", {"context_transposed", "merge_shape"}, {"context"});
  m.node("MatMul", {"context", "output.weight"}, {"attention_output"});
  m.node("Add", {"attention_output", "hidden_states"}, {"attention_residual"});

  // Feed-forward with Gelu through Erf: x * 0.5 * (1 + erf(x / sqrt(2))).
  m.node("MatMul", {"attention_residual", "intermediate.weight"}, {"ff_in"});
  m.node("Div", {"ff_in", "sqrt2"}, {"ff_scaled"});
  m.node("Erf", {"ff_scaled"}, {"ff_erf"});
  m.node("Add", {"ff_erf", "one_f"}, {"ff_cdf"});
  m.node("Mul", {"ff_in", "ff_cdf"}, {"ff_gelu2"});
  m.node("Mul", {"ff_gelu2", "half"}, {"ff_gelu"});
  m.node("MatMul", {"ff_gelu", "dense.weight"}, {"ff_out"});
  m.node("Add", {"ff_out", "attention_residual"}, {"last_hidden_state"});
  // Pooler: first token, Tanh.
  m.ints("first", {}, {0});
  setInt(m.node("Gather", {"last_hidden_state", "first"}, {"first_token"}), "axis", 1);
  m.node("Tanh", {"first_token"}, {"pooler_output"});
  m.output("last_hidden_state", kFloat, {1, "sequence", hidden});
  m.output("pooler_output", kFloat, {1, hidden});
  return m;
}

/// Many single-input activations and shape ops chained, for IR checks.
ModelBuilder activations() {
  ModelBuilder m("activations", 13);
  m.input("x", kFloat, {2, 3, 4});
  std::string previous = "x";
  auto chain = [&](const std::string &op) -> onnx::NodeProto & {
    std::string next = op + "_out";
    onnx::NodeProto &node = m.node(op, {previous}, {next});
    previous = next;
    return node;
  };
  setFloat(chain("LeakyRelu"), "alpha", 0.2f);
  chain("Elu");
  chain("Selu");
  chain("Softplus");
  chain("Sigmoid");
  chain("HardSwish");
  chain("Tanh");
  chain("Softsign");
  setInt(chain("LogSoftmax"), "axis", 1);
  m.ints("squeeze_axes", {1}, {0});
  m.node("Unsqueeze", {previous, "squeeze_axes"}, {"unsqueezed"});
  m.node("Squeeze", {"unsqueezed", "squeeze_axes"}, {"squeezed"});
  onnx::NodeProto &reduce = m.node("ReduceL2", {"squeezed"}, {"norm"});
  setInts(reduce, "axes", {2});
  setInt(reduce, "keepdims", 0);
  m.output("norm", kFloat, {2, 3});
  return m;
}

/// Exact GELU written out through Erf in the orders exporters use, and
/// groups that are not GELU: a divisor that is not √2, and an erf whose
/// value another layer reads too.
ModelBuilder geluForms() {
  ModelBuilder m("gelu_forms", 13);
  m.input("x", kFloat, {2, 8});
  m.floats("sqrt2", {}, {std::sqrt(2.0f)});
  m.floats("inv_sqrt2", {}, {1.0f / std::sqrt(2.0f)});
  m.floats("not_sqrt2", {}, {1.5f});
  m.floats("one", {}, {1.0f});
  m.floats("half", {}, {0.5f});
  // ((x · (erf(x / √2) + 1)) · ½): torch.onnx's F.gelu.
  m.node("Div", {"x", "sqrt2"}, {"a_scaled"});
  m.node("Erf", {"a_scaled"}, {"a_erf"});
  m.node("Add", {"a_erf", "one"}, {"a_cdf"});
  m.node("Mul", {"x", "a_cdf"}, {"a_product"});
  m.node("Mul", {"a_product", "half"}, {"a"});
  // ((½ · a) · (1 + erf(a · 1/√2))).
  m.node("Mul", {"a", "inv_sqrt2"}, {"b_scaled"});
  m.node("Erf", {"b_scaled"}, {"b_erf"});
  m.node("Add", {"one", "b_erf"}, {"b_cdf"});
  m.node("Mul", {"half", "a"}, {"b_half"});
  m.node("Mul", {"b_half", "b_cdf"}, {"b"});
  // (b · ((erf(b / √2) + 1) · ½)).
  m.node("Div", {"b", "sqrt2"}, {"c_scaled"});
  m.node("Erf", {"c_scaled"}, {"c_erf"});
  m.node("Add", {"c_erf", "one"}, {"c_cdf"});
  m.node("Mul", {"c_cdf", "half"}, {"c_half"});
  m.node("Mul", {"b", "c_half"}, {"c"});
  // Not GELU: x / 1.5.
  m.node("Div", {"c", "not_sqrt2"}, {"d_scaled"});
  m.node("Erf", {"d_scaled"}, {"d_erf"});
  m.node("Add", {"d_erf", "one"}, {"d_cdf"});
  m.node("Mul", {"c", "d_cdf"}, {"d_product"});
  m.node("Mul", {"d_product", "half"}, {"d"});
  // Not fused: the erf is an output too.
  m.node("Div", {"d", "sqrt2"}, {"e_scaled"});
  m.node("Erf", {"e_scaled"}, {"e_erf"});
  m.node("Add", {"e_erf", "one"}, {"e_cdf"});
  m.node("Mul", {"d", "e_cdf"}, {"e_product"});
  m.node("Mul", {"e_product", "half"}, {"e"});
  m.output("e", kFloat, {2, 8});
  m.output("e_erf", kFloat, {2, 8});
  return m;
}

/// Products of one input with constant weights, as BERT's attention writes
/// its query, key and value: three with biases (packed), and ones that stay
/// (a weight another layer reads too, a weight of another shape).
ModelBuilder sharedProjections() {
  ModelBuilder m("shared_projections", 13);
  m.input("x", kFloat, {1, 4, 16});
  for (const char *name : {"q", "k", "v"}) {
    m.weight(std::string(name) + ".weight", {16, 16});
    m.weight(std::string(name) + ".bias", {16});
    m.node("MatMul", {"x", std::string(name) + ".weight"}, {std::string(name) + "_product"});
    m.node("Add", {std::string(name) + ".bias", std::string(name) + "_product"},
           {std::string(name)});
  }
  m.node("Add", {"q", "k"}, {"qk"});
  m.node("Add", {"qk", "v"}, {"qkv"});
  // Read twice: not packed.
  m.weight("shared.weight", {16, 16});
  m.node("MatMul", {"x", "shared.weight"}, {"s1"});
  m.node("MatMul", {"qkv", "shared.weight"}, {"s2"});
  // Another shape: alone in its set.
  m.weight("wide.weight", {16, 32});
  m.node("MatMul", {"x", "wide.weight"}, {"wide"});
  m.output("s1", kFloat, {1, 4, 16});
  m.output("s2", kFloat, {1, 4, 16});
  m.output("wide", kFloat, {1, 4, 32});
  return m;
}

/// Rounding, trigonometry and the index layers: Floor, Sin, TopK,
/// GatherElements, CumSum, Hardmax (arg_max decomposition), ArgMax, Mod.
ModelBuilder indexing() {
  ModelBuilder m("indexing", 13);
  m.input("x", kFloat, {2, 5});
  m.ints("k", {1}, {3});
  m.ints("axis1", {}, {1});
  m.ints("gather_indices", {2, 2}, {0, -1, 4, 2});
  m.ints("divisors", {2}, {3, -3});
  m.node("Floor", {"x"}, {"floored"});
  m.node("Sin", {"floored"}, {"sines"});
  onnx::NodeProto &topK = m.node("TopK", {"sines", "k"}, {"top_values", "top_indices"});
  setInt(topK, "largest", 0);
  setInt(m.node("GatherElements", {"sines", "gather_indices"}, {"gathered"}), "axis", 1);
  setInt(m.node("CumSum", {"gathered", "axis1"}, {"sums"}), "reverse", 1);
  m.node("Hardmax", {"sines"}, {"hard"});
  onnx::NodeProto &argMax = m.node("ArgMax", {"sines"}, {"positions"});
  setInt(argMax, "axis", 1);
  setInt(argMax, "keepdims", 0);
  m.node("Mod", {"positions", "divisors"}, {"remainders"});
  m.output("top_values", kFloat, {2, 3});
  m.output("top_indices", kInt64, {2, 3});
  m.output("sums", kFloat, {2, 2});
  m.output("hard", kFloat, {2, 5});
  m.output("remainders", kInt64, {2});
  return m;
}

/// float64 and the wide unsigned types (CGC 0.2.0): a double constant, a
/// cast to uint32 and uint64 arithmetic.
ModelBuilder wideTypes() {
  ModelBuilder m("wide_types", 13);
  m.input("x", kDouble, {2, 3});
  m.input("bits", kUInt64, {3});
  m.input("halves", kUInt16, {3});
  setTensor(m.node("Constant", {}, {"half"}), "value", kDouble, {}, {0.5});
  m.node("Add", {"x", "half"}, {"shifted"});
  setInt(m.node("Cast", {"shifted"}, {"counts"}), "to", kUInt32);
  m.node("Max", {"bits", "bits"}, {"widest"});
  setString(m.node("BitShift", {"halves", "halves"}, {"moved"}), "direction", "LEFT");
  m.output("shifted", kDouble, {2, 3});
  m.output("counts", kUInt32, {2, 3});
  m.output("widest", kUInt64, {3});
  m.output("moved", kUInt16, {3});
  return m;
}

/// Recurrent ops unrolled over two steps: a bidirectional LSTM with
/// peepholes and full-length sequence_lens, then a batch-major GRU with
/// linear_before_reset over its hidden states.
ModelBuilder recurrent() {
  ModelBuilder m("recurrent", 14);
  m.input("x", kFloat, {2, 1, 4});
  m.weight("lstm.W", {2, 12, 4});
  m.weight("lstm.R", {2, 12, 3});
  m.weight("lstm.B", {2, 24});
  m.weight("lstm.P", {2, 9});
  m.ints("lstm.lengths", {1}, {2});
  onnx::NodeProto &lstm =
      m.node("LSTM", {"x", "lstm.W", "lstm.R", "lstm.B", "lstm.lengths", "", "", "lstm.P"},
             {"lstm_y", "lstm_h", "lstm_c"}, "lstm");
  setString(lstm, "direction", "bidirectional");
  setInt(lstm, "hidden_size", 3);
  // seq × dirs × batch × hidden → batch × seq × (dirs · hidden)
  setInts(m.node("Transpose", {"lstm_y"}, {"lstm_y_batch_major"}), "perm", {2, 0, 1, 3});
  m.ints("gru_input_shape", {3}, {1, 2, 6});
  m.node("Reshape", {"lstm_y_batch_major", "gru_input_shape"}, {"gru_x"});
  m.weight("gru.W", {1, 6, 6});
  m.weight("gru.R", {1, 6, 2});
  m.weight("gru.B", {1, 12});
  onnx::NodeProto &gru =
      m.node("GRU", {"gru_x", "gru.W", "gru.R", "gru.B"}, {"gru_y", "gru_h"}, "gru");
  setInt(gru, "hidden_size", 2);
  setInt(gru, "layout", 1);
  setInt(gru, "linear_before_reset", 1);
  m.output("gru_y", kFloat, {1, 2, 1, 2});
  m.output("gru_h", kFloat, {1, 1, 2});
  m.output("lstm_c", kFloat, {2, 1, 3});
  return m;
}

/// An RNN whose sequence_lens shortens a sequence, which unrolling over the
/// static length cannot express.
ModelBuilder rnnShortSequence() {
  ModelBuilder m("rnn_short_sequence", 14);
  m.input("x", kFloat, {3, 2, 4});
  m.weight("W", {1, 5, 4});
  m.weight("R", {1, 5, 5});
  m.ints("lengths", {2}, {3, 2});
  m.node("RNN", {"x", "W", "R", "", "lengths"}, {"y"}, "short_rnn");
  m.output("y", kFloat, {3, 1, 2, 5});
  return m;
}

/// QuantizeLinear per axis to int8, DynamicQuantizeLinear, MatMulInteger of
/// the two with zero points, Shrink and ReverseSequence.
ModelBuilder quantization() {
  ModelBuilder m("quantization", 13);
  m.input("x", kFloat, {2, 3});
  m.input("y", kFloat, {3, 4});
  m.floats("scales", {3}, {0.5f, 0.25f, 2.0f});
  setTensor(m.node("Constant", {}, {"zero_points"}), "value", onnx::TensorProto_DataType_INT8,
            {3}, {1, -2, 0});
  setInt(m.node("QuantizeLinear", {"x", "scales", "zero_points"}, {"x_quantized"}, "quantize"),
         "axis", 1);
  m.node("DynamicQuantizeLinear", {"y"}, {"y_quantized", "y_scale", "y_zero_point"},
         "dynamic_quantize");
  m.node("MatMulInteger", {"x_quantized", "y_quantized", "zero_points", "y_zero_point"},
         {"product"}, "matmul_integer");
  onnx::NodeProto &shrink = m.node("Shrink", {"y"}, {"shrunk"}, "shrink");
  setFloat(shrink, "lambd", 1.5f);
  setFloat(shrink, "bias", 0.5f);
  m.ints("lengths", {3}, {4, 1, 2});
  onnx::NodeProto &reverse = m.node("ReverseSequence", {"shrunk", "lengths"}, {"reversed"},
                                    "reverse");
  setInt(reverse, "batch_axis", 0);
  setInt(reverse, "time_axis", 1);
  m.output("product", onnx::TensorProto_DataType_INT32, {2, 4});
  m.output("y_scale", kFloat, {});
  m.output("reversed", kFloat, {3, 4});
  return m;
}

/// QLinearConv with a per-channel weight scale, zero points and an int32
/// bias.
ModelBuilder integerConvolution() {
  ModelBuilder m("integer_convolution", 13);
  constexpr int32_t kUInt8 = onnx::TensorProto_DataType_UINT8;
  constexpr int32_t kInt8 = onnx::TensorProto_DataType_INT8;
  m.input("x", kUInt8, {1, 2, 4, 4});
  std::vector<double> weights;
  for (int i = 0; i < 3 * 2 * 2 * 2; ++i)
    weights.push_back(i % 7 - 3);
  setTensor(m.node("Constant", {}, {"w"}), "value", kInt8, {3, 2, 2, 2}, weights);
  setTensor(m.node("Constant", {}, {"x_zero_point"}), "value", kUInt8, {}, {3});
  setTensor(m.node("Constant", {}, {"w_zero_point"}), "value", kInt8, {3}, {0, 1, -1});
  setTensor(m.node("Constant", {}, {"y_zero_point"}), "value", kUInt8, {}, {5});
  setTensor(m.node("Constant", {}, {"bias"}), "value", onnx::TensorProto_DataType_INT32, {3},
            {10, -20, 30});
  m.floats("x_scale", {}, {0.5f});
  m.floats("w_scale", {3}, {0.25f, 0.5f, 1.0f});
  m.floats("y_scale", {}, {0.25f});
  onnx::NodeProto &conv = m.node("QLinearConv",
                                 {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
                                  "y_scale", "y_zero_point", "bias"},
                                 {"y"}, "qconv");
  setInts(conv, "pads", {1, 1, 1, 1});
  m.output("y", kUInt8, {1, 3, 5, 5});
  return m;
}

/// ConvInteger summing 64 × 3 × 3 products per output: float32 is not exact.
ModelBuilder largeConvInteger() {
  ModelBuilder m("large_conv_integer", 13);
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 64, 4, 4});
  setTensor(m.node("Constant", {}, {"w"}), "value", onnx::TensorProto_DataType_UINT8,
            {1, 64, 3, 3}, std::vector<double>(64 * 9, 1));
  m.node("ConvInteger", {"x", "w"}, {"y"}, "wide_conv");
  m.output("y", onnx::TensorProto_DataType_INT32, {1, 1, 2, 2});
  return m;
}

/// Mod of floats without fmod=1, which ONNX leaves undefined.
ModelBuilder floatModWithoutFmod() {
  ModelBuilder m("float_mod", 13);
  m.input("x", kFloat, {2, 3});
  m.input("y", kFloat, {2, 3});
  m.node("Mod", {"x", "y"}, {"z"}, "float_mod");
  m.output("z", kFloat, {2, 3});
  return m;
}

/// Resize by scales (opset 13) and ConvTranspose with output_shape.
ModelBuilder upsampling() {
  ModelBuilder m("upsampling", 13);
  m.input("x", kFloat, {1, 2, 4, 4});
  m.floats("scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
  m.weight("deconv.weight", {2, 3, 3, 3});
  onnx::NodeProto &resize = m.node("Resize", {"x", "", "scales"}, {"resized"});
  setString(resize, "mode", "nearest");
  setString(resize, "coordinate_transformation_mode", "asymmetric");
  setString(resize, "nearest_mode", "floor");
  onnx::NodeProto &deconv = m.node("ConvTranspose", {"resized", "deconv.weight"}, {"y"});
  setInts(deconv, "strides", {2, 2});
  setInts(deconv, "output_shape", {16, 16});
  m.output("y", kFloat, {1, 3, 16, 16});
  return m;
}

/// An initializer stored in an external data file next to the model.
bool externalData(const std::string &path) {
  ModelBuilder m("external_data", 13);
  m.input("x", kFloat, {2, 2});
  m.externalFloats("w", {2, 2}, "external.bin", 8);
  m.node("Add", {"x", "w"}, {"y"});
  m.output("y", kFloat, {2, 2});
  std::filesystem::path data = std::filesystem::path(path).parent_path() / "external.bin";
  float values[] = {0.0f, 0.0f, 1.0f, 2.0f, 3.0f, 4.0f};
  return writeFile(data.string(), std::string(reinterpret_cast<const char *>(values),
                                              sizeof(values))) &&
         save(m, path);
}

//===----------------------------------------------------------------------===//
// Error cases
//===----------------------------------------------------------------------===//

ModelBuilder singleNode(const std::string &op, int64_t opset = 13) {
  ModelBuilder m("single_" + op, opset);
  m.input("x", kFloat, {2, 3});
  m.node(op, {"x"}, {"y"}, "the_" + op);
  m.output("y", kFloat, {2, 3});
  return m;
}

ModelBuilder badAutoPad() {
  ModelBuilder m("bad_auto_pad", 13);
  m.input("x", kFloat, {1, 1, 4, 4});
  m.weight("w", {1, 1, 3, 3});
  setString(m.node("Conv", {"x", "w"}, {"y"}, "Conv_3"), "auto_pad", "SAME_MIDDLE");
  m.output("y", kFloat, {1, 1, 4, 4});
  return m;
}

ModelBuilder cycle() {
  ModelBuilder m("cycle", 13);
  m.input("x", kFloat, {2});
  m.node("Add", {"x", "b"}, {"a"}, "first");
  m.node("Relu", {"a"}, {"b"}, "second");
  m.output("b", kFloat, {2});
  return m;
}

ModelBuilder undefinedInput() {
  ModelBuilder m("undefined", 13);
  m.input("x", kFloat, {2});
  m.node("Add", {"x", "nowhere"}, {"y"}, "adder");
  m.output("y", kFloat, {2});
  return m;
}

ModelBuilder shapeMismatch() {
  ModelBuilder m("shape_mismatch", 13);
  m.input("x", kFloat, {2, 3});
  m.node("Relu", {"x"}, {"y"});
  m.output("y", kFloat, {3, 2});
  return m;
}

ModelBuilder broadcastMismatch() {
  ModelBuilder m("broadcast_mismatch", 13);
  m.input("x", kFloat, {2, 3});
  m.weight("w", {4, 3});
  m.node("Add", {"x", "w"}, {"y"}, "bad_add");
  m.output("y", kFloat, {2, 3});
  return m;
}

ModelBuilder dynamicInput() {
  ModelBuilder m("dynamic", 13);
  m.input("images", kFloat, {"batch", 3});
  m.node("Relu", {"images"}, {"y"});
  m.output("y", kFloat, {"batch", 3});
  return m;
}

// An int64 initializer whose shape claims 2^36 elements (under the
// importer's size cap) while int64_data holds one: found by the fuzzer,
// which timed out allocating the shape's 512 GiB before the count was
// checked.
ModelBuilder shortTypedData() {
  ModelBuilder m("short_typed_data", 13);
  m.input("x", kInt64, {1});
  m.ints("huge", {int64_t(1) << 20, int64_t(1) << 16}, {7});
  m.node("Add", {"x", "huge"}, {"y"});
  m.output("y", kInt64, {int64_t(1) << 20, int64_t(1) << 16});
  return m;
}

ModelBuilder runtimeReshape() {
  ModelBuilder m("runtime_reshape", 13);
  m.input("x", kFloat, {2, 3});
  m.input("shape", kInt64, {2});
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape_by_input");
  m.output("y", kFloat, {3, 2});
  return m;
}

// A constant's Gather whose indices input is left out (an empty name):
// folding must not read it, and the converter says it is missing.
ModelBuilder omittedGatherIndices() {
  ModelBuilder m("omitted_gather_indices", 13);
  m.floats("table", {3}, {1.0f, 2.0f, 3.0f});
  m.node("Gather", {"table", ""}, {"y"}, "gather_nothing");
  m.output("y", kFloat, {3});
  return m;
}

// A Gather of a graph input at a constant index past its dimension: ONNX
// makes it an error, and the importer says so.
ModelBuilder gatherIndexOutOfRange() {
  ModelBuilder m("gather_index_out_of_range", 13);
  m.input("x", kFloat, {2, 3});
  m.ints("row", {1}, {3});
  m.node("Gather", {"x", "row"}, {"y"}, "gather_past_the_end");
  m.output("y", kFloat, {1, 3});
  return m;
}

ModelBuilder dropoutTraining() {
  ModelBuilder m("dropout_training", 13);
  m.input("x", kFloat, {2, 3});
  m.floats("ratio", {}, {0.5f});
  setTensor(m.node("Constant", {}, {"training"}, "training_flag"), "value", kBool, {}, {1});
  m.node("Dropout", {"x", "ratio", "training"}, {"y"}, "dropout");
  m.output("y", kFloat, {2, 3});
  return m;
}

ModelBuilder maxPoolIndices() {
  ModelBuilder m("maxpool_indices", 13);
  m.input("x", kFloat, {1, 1, 4, 4});
  onnx::NodeProto &pool = m.node("MaxPool", {"x"}, {"y", "indices"}, "pool");
  setInts(pool, "kernel_shape", {2, 2});
  setInts(pool, "strides", {2, 2});
  m.output("y", kFloat, {1, 1, 2, 2});
  m.output("indices", kInt64, {1, 1, 2, 2});
  return m;
}

ModelBuilder stringOp() {
  ModelBuilder m("string_op", 13);
  m.input("x", kFloat, {2, 3});
  m.node("Relu", {"x"}, {"y"});
  onnx::NodeProto &constant = m.node("Constant", {}, {"words"}, "words");
  onnx::AttributeProto *attribute = constant.add_attribute();
  attribute->set_name("value_strings");
  attribute->set_type(onnx::AttributeProto_AttributeType_STRINGS);
  attribute->add_strings("hello");
  m.node("StringNormalizer", {"words"}, {"normalized"}, "normalize");
  m.output("y", kFloat, {2, 3});
  m.output("normalized", kString, {1});
  return m;
}

ModelBuilder sequenceOp() {
  ModelBuilder m("sequence_op", 13);
  m.input("x", kFloat, {2, 3});
  m.node("SequenceConstruct", {"x"}, {"sequence"}, "make_sequence");
  m.node("SequenceAt", {"sequence", "index"}, {"y"}, "take");
  m.ints("index", {}, {0});
  m.output("y", kFloat, {2, 3});
  return m;
}

ModelBuilder trainingOp() {
  ModelBuilder m("training_op", 13);
  m.input("scores", kFloat, {2, 3});
  m.input("labels", kInt64, {2});
  m.node("SoftmaxCrossEntropyLoss", {"scores", "labels"}, {"loss"}, "loss");
  m.output("loss", kFloat, {});
  return m;
}

/// transformers' attention mask: a folded all-true query mask [1, 1, L, 1]
/// ANDed with the padding mask [B, 1, 1, L], made an additive bias by Where
/// and added to the scores; an And with a constant that is not all true, and
/// an Or with an all-false constant, beside it.
ModelBuilder maskBroadcast() {
  ModelBuilder m("mask_broadcast", 17);
  m.input("mask", kInt64, {2, 4});
  m.input("scores", kFloat, {2, 3, 4, 4});
  m.ints("keys_shape", {4}, {2, 1, 1, 4});
  m.ints("ones", {1, 1, 4, 1}, {1, 1, 1, 1});
  m.ints("mixed", {1, 1, 4, 1}, {1, 0, 1, 1});
  m.ints("zeros", {1, 1, 4, 1}, {0, 0, 0, 0});
  m.floats("zero", {1}, {0.0f});
  m.floats("low", {1}, {-10000.0f});
  auto toBool = [&](const std::string &from, const std::string &to) {
    setInt(m.node("Cast", {from}, {to}), "to", kBool);
  };
  toBool("mask", "mask_bool");
  m.node("Reshape", {"mask_bool", "keys_shape"}, {"keys"});
  toBool("ones", "all_true");
  toBool("mixed", "some_true");
  toBool("zeros", "all_false");
  m.node("And", {"all_true", "keys"}, {"both"});
  m.node("Where", {"both", "zero", "low"}, {"bias"});
  m.node("Add", {"scores", "bias"}, {"y"});
  m.node("And", {"some_true", "keys"}, {"masked"});
  m.node("Or", {"keys", "all_false"}, {"either"});
  m.output("y", kFloat, {2, 3, 4, 4});
  m.output("masked", kBool, {2, 1, 4, 4});
  m.output("either", kBool, {2, 1, 4, 4});
  return m;
}

/// Opset 6 as PyTorch's old exporter wrote it: Add with legacy broadcasting
/// along an axis (a per-channel bias), PRelu with one slope per channel.
ModelBuilder opset6Legacy() {
  ModelBuilder m("opset6_legacy", 6);
  m.input("x", kFloat, {1, 3, 4, 4});
  m.weight("bias", {3});
  // Not the bias's values (equal small constants would share its name).
  m.floats("slope", {3}, {0.25f, 0.5f, 0.75f});
  onnx::NodeProto &add = m.node("Add", {"x", "bias"}, {"biased"}, "legacy_add");
  setInt(add, "broadcast", 1);
  setInt(add, "axis", 1);
  m.node("PRelu", {"biased", "slope"}, {"y"}, "legacy_prelu");
  m.output("y", kFloat, {1, 3, 4, 4});
  return m;
}

ModelBuilder withOpset(ModelBuilder m, int64_t opset) {
  m.getModel().mutable_opset_import(0)->set_version(opset);
  return m;
}

} // namespace

const std::map<std::string, ModelFactory> &getTestModels() {
  static const std::map<std::string, ModelFactory> models = [] {
    std::map<std::string, ModelFactory> table;
    auto add = [&](const std::string &name, std::function<ModelBuilder()> build) {
      table[name] = [build](const std::string &path) { return save(build(), path); };
    };
    add("relu", [] { return singleNode("Relu"); });
    add("mini-resnet", miniResNet);
    add("mobilenet-block", mobileNetBlock);
    add("encoder-layer", encoderLayer);
    add("repeated-constants", repeatedConstants);
    add("unit-transposes", unitTransposes);
    add("activations", activations);
    add("gelu-forms", geluForms);
    add("mask-broadcast", maskBroadcast);
    add("shared-projections", sharedProjections);
    add("upsampling", upsampling);
    add("indexing", indexing);
    add("error-float-mod", floatModWithoutFmod);
    add("recurrent", recurrent);
    add("quantization", quantization);
    add("integer-convolution", integerConvolution);
    add("error-conv-integer-exactness", largeConvInteger);
    add("error-rnn-sequence-lens", rnnShortSequence);
    add("wide-types", wideTypes);
    table["external-data"] = externalData;
    add("error-unsupported-op", [] { return singleNode("Det"); });
    add("error-auto-pad", badAutoPad);
    add("error-cycle", cycle);
    add("error-undefined-input", undefinedInput);
    add("error-shape-mismatch", shapeMismatch);
    add("error-broadcast", broadcastMismatch);
    add("error-dynamic-input", dynamicInput);
    add("error-runtime-reshape", runtimeReshape);
    add("error-omitted-gather-indices", omittedGatherIndices);
    add("error-gather-index-out-of-range", gatherIndexOutOfRange);
    add("error-short-typed-data", shortTypedData);
    add("error-dropout-training", dropoutTraining);
    add("error-maxpool-indices", maxPoolIndices);
    add("error-string-op", stringOp);
    add("error-sequence-op", sequenceOp);
    add("error-training-op", trainingOp);
    add("opset-5-relu", [] { return withOpset(singleNode("Relu"), 5); });
    add("opset-6-legacy", opset6Legacy);
    add("error-opset-unknown", [] { return withOpset(singleNode("Relu"), 99); });
    return table;
  }();
  return models;
}

} // namespace cgc::importer::testing
