// The CUDA driver's fused normalization patterns (drivers/cuda/patterns/normalization.mlir)
// over the normalizations of the reference transformers as the ONNX importer
// gives them (torch.onnx, opset 17: LayerNormalization becomes one
// layer_norm, Softmax one softmax along a non-negative axis): BERT-base's
// embedding sum and residual adds before layer_norm, its masked attention
// scores before softmax, ViT-B/16's layer_norm and scaled softmax in
// float16. The elementwise layers producing the normalized input and the
// chain after it join the normalization in one subgraph of the fused
// target; everything else falls back.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/normalization.mlir fallback-target=cuda.fallback" | FileCheck %s

// BERT's embeddings: word + token type, + position, then layer_norm
// (epsilon 1e-12). Both adds are the prologue.
// CHECK-LABEL: cgc.subgraph @gather_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @gather_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @add_layer_norm_2 attributes {cgc.pattern = "add_layer_norm", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @add_layer_norm_2_functional(%[[W:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[T:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[P:[^:]*]]: !cgc.tensor<constant 1x128x768x!cgc.float32>, %[[G:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>, %[[B:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32> {
// CHECK-NEXT: %[[S:.*]] = cgc_op.add(%[[W]], %[[T]])
// CHECK-NEXT: %[[E:.*]] = cgc_op.add(%[[S]], %[[P]])
// CHECK-NEXT: %[[N:.*]] = cgc_op.layer_norm(%[[E]], %[[G]], %[[B]]) {epsilon = 9.9999999999999998E-13 : f64}
// CHECK-NEXT: cgc.return %[[N]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @bert_embeddings(
cgc.module {
  cgc.entry_point @bert_embeddings(%ids: !cgc.tensor<1x128x!cgc.int64>, %types: !cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x128x768x!cgc.float32> {
    %words = cgc.constant("word_embeddings") : !cgc.tensor<constant 30522x768x!cgc.float32>
    %kinds = cgc.constant("token_type_embeddings") : !cgc.tensor<constant 2x768x!cgc.float32>
    %positions = cgc.constant("position_embeddings") : !cgc.tensor<constant 1x128x768x!cgc.float32>
    %gamma = cgc.constant("ln.weight") : !cgc.tensor<constant 768x!cgc.float32>
    %beta = cgc.constant("ln.bias") : !cgc.tensor<constant 768x!cgc.float32>
    %0 = cgc_op.gather(%words, %ids) : (!cgc.tensor<constant 30522x768x!cgc.float32>, !cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %1 = cgc_op.gather(%kinds, %types) : (!cgc.tensor<constant 2x768x!cgc.float32>, !cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %2 = cgc_op.add(%0, %1) : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %3 = cgc_op.add(%2, %positions) : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<constant 1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %4 = cgc_op.layer_norm(%3, %gamma, %beta) {epsilon = 9.9999999999999998E-13 : f64} : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<constant 768x!cgc.float32>, !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    cgc.return %4 : !cgc.tensor<1x128x768x!cgc.float32>
  }
}

// -----

// BERT's attention output: x·W, + bias, + residual, layer_norm. With only
// these patterns declared both adds are the prologue and the product falls
// back (with the matmul patterns declared too, the product's epilogue takes
// the adds and layer_norm matches alone).
// CHECK-LABEL: cgc.subgraph @matmul_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @add_layer_norm_1 attributes {cgc.pattern = "add_layer_norm", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @add_layer_norm_1_functional(%[[BIAS:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>, %[[Y:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[R:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[G:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>, %[[B:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>) ->
// CHECK-NEXT: %[[YB:.*]] = cgc_op.add(%[[BIAS]], %[[Y]])
// CHECK-NEXT: %[[YR:.*]] = cgc_op.add(%[[YB]], %[[R]])
// CHECK-NEXT: %[[N:.*]] = cgc_op.layer_norm(%[[YR]], %[[G]], %[[B]])
// CHECK-NEXT: cgc.return %[[N]]
// CHECK-LABEL: cgc.entry_point @bert_attention_output(
// CHECK-SAME: %[[CTX:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[RES:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>)
// CHECK: %[[PROD:.*]] = cgc.call @matmul_0(%[[CTX]],
// CHECK-NEXT: cgc.call @add_layer_norm_1(%{{[^,]*}}, %[[PROD]], %[[RES]],
cgc.module {
  cgc.entry_point @bert_attention_output(%context: !cgc.tensor<1x128x768x!cgc.float32>, %residual: !cgc.tensor<1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32> {
    %w = cgc.constant("attention.output.dense.weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %b = cgc.constant("attention.output.dense.bias") : !cgc.tensor<constant 768x!cgc.float32>
    %gamma = cgc.constant("attention.output.LayerNorm.weight") : !cgc.tensor<constant 768x!cgc.float32>
    %beta = cgc.constant("attention.output.LayerNorm.bias") : !cgc.tensor<constant 768x!cgc.float32>
    %0 = cgc_op.matmul(%context, %w) : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %1 = cgc_op.add(%b, %0) : (!cgc.tensor<constant 768x!cgc.float32>, !cgc.tensor<1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %2 = cgc_op.add(%1, %residual) : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %3 = cgc_op.layer_norm(%2, %gamma, %beta) {epsilon = 9.9999999999999998E-13 : f64} : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<constant 768x!cgc.float32>, !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    cgc.return %3 : !cgc.tensor<1x128x768x!cgc.float32>
  }
}

// -----

// BERT's attention probabilities with the products apart (as when the
// attention patterns are not declared, or their kernel refuses the match):
// the mask add is softmax's prologue. The mask (where over a 1x1xSxS
// condition) has another shape and stays out; softmax's result, read twice
// by the NaN guard (not_equal, where), ends the match.
// CHECK-LABEL: cgc.subgraph @matmul_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @where_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @add_softmax_2 attributes {cgc.pattern = "add_softmax", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @add_softmax_2_functional(%[[SC:[^:]*]]: !cgc.tensor<1x12x128x128x!cgc.float32>, %[[M:[^:]*]]: !cgc.tensor<1x1x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32> {
// CHECK-NEXT: %[[A:.*]] = cgc_op.add(%[[SC]], %[[M]])
// CHECK-NEXT: %[[S:.*]] = cgc_op.softmax(%[[A]]) {axis = 3 : i64}
// CHECK-NEXT: cgc.return %[[S]]
// CHECK: cgc.subgraph @not_equal_3 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @where_4 attributes {origin = "cuda.fallback"}
// CHECK-LABEL: cgc.entry_point @bert_probabilities(
// CHECK: %[[SCORES:.*]] = cgc.call @matmul_0(
// CHECK-NEXT: %[[MASK:.*]] = cgc.call @where_1(
// CHECK-NEXT: %[[PROBS:.*]] = cgc.call @add_softmax_2(%[[SCORES]], %[[MASK]])
// CHECK-NEXT: cgc.call @not_equal_3(%[[PROBS]])
cgc.module {
  cgc.entry_point @bert_probabilities(%q: !cgc.tensor<1x12x128x64x!cgc.float32>, %kt: !cgc.tensor<1x12x64x128x!cgc.float32>, %keep: !cgc.tensor<1x1x128x128x!cgc.bool>) -> !cgc.tensor<1x12x128x128x!cgc.float32> {
    %zero = cgc.constant("zero") : !cgc.tensor<constant 1x!cgc.float32>
    %lowest = cgc.constant("lowest") : !cgc.tensor<constant 1x!cgc.float32>
    %nan_fill = cgc.constant("nan_fill") : !cgc.tensor<constant 1x!cgc.float32>
    %0 = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x12x128x64x!cgc.float32>, !cgc.tensor<1x12x64x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %1 = cgc_op.where(%keep, %zero, %lowest) : (!cgc.tensor<1x1x128x128x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x128x128x!cgc.float32>
    %2 = cgc_op.add(%0, %1) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x1x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %3 = cgc_op.softmax(%2) {axis = 3 : i64} : (!cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %4 = cgc_op.not_equal(%3, %3) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.bool>
    %5 = cgc_op.where(%4, %nan_fill, %3) : (!cgc.tensor<1x12x128x128x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    cgc.return %5 : !cgc.tensor<1x12x128x128x!cgc.float32>
  }
}

// -----

// ViT-B/16 in float16. The residual sum h = x + y is read by layer_norm
// and again after it, so it cannot be the prologue: layer_norm matches with
// an epilogue (h + layer_norm(h)) that reads h as an argument. The scores
// divided by sqrt(d), softmax and a per-head scale (12x1x1) are one
// subgraph.
// CHECK-LABEL: cgc.subgraph @add_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @layer_norm_1 attributes {cgc.pattern = "layer_norm", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @layer_norm_1_functional(%[[H:[^:]*]]: !cgc.tensor<1x197x768x!cgc.float16>, %[[G:[^:]*]]: !cgc.tensor<constant 768x!cgc.float16>, %[[B:[^:]*]]: !cgc.tensor<constant 768x!cgc.float16>) ->
// CHECK-NEXT: %[[N:.*]] = cgc_op.layer_norm(%[[H]], %[[G]], %[[B]]) {epsilon = 9.9999999999999995E-7 : f64}
// CHECK-NEXT: %[[O:.*]] = cgc_op.add(%[[H]], %[[N]])
// CHECK-NEXT: cgc.return %[[O]]
// CHECK: cgc.subgraph @div_softmax_2 attributes {cgc.pattern = "div_softmax", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @div_softmax_2_functional(%[[S:[^:]*]]: !cgc.tensor<1x12x197x197x!cgc.float16>, %[[D:[^:]*]]: !cgc.tensor<constant !cgc.float16>, %[[HS:[^:]*]]: !cgc.tensor<constant 12x1x1x!cgc.float16>) ->
// CHECK-NEXT: %[[Q:.*]] = cgc_op.div(%[[S]], %[[D]])
// CHECK-NEXT: %[[P:.*]] = cgc_op.softmax(%[[Q]]) {axis = 3 : i64}
// CHECK-NEXT: %[[PS:.*]] = cgc_op.mul(%[[P]], %[[HS]])
// CHECK-NEXT: cgc.return %[[PS]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @vit_block(
cgc.module {
  cgc.entry_point @vit_block(%x: !cgc.tensor<1x197x768x!cgc.float16>, %scores: !cgc.tensor<1x12x197x197x!cgc.float16>, %y: !cgc.tensor<1x197x768x!cgc.float16>) -> (!cgc.tensor<1x197x768x!cgc.float16>, !cgc.tensor<1x12x197x197x!cgc.float16>) {
    %gamma = cgc.constant("ln_1.weight") : !cgc.tensor<constant 768x!cgc.float16>
    %beta = cgc.constant("ln_1.bias") : !cgc.tensor<constant 768x!cgc.float16>
    %scale = cgc.constant("scale") : !cgc.tensor<constant !cgc.float16>
    %heads = cgc.constant("head_scale") : !cgc.tensor<constant 12x1x1x!cgc.float16>
    %0 = cgc_op.add(%x, %y) : (!cgc.tensor<1x197x768x!cgc.float16>, !cgc.tensor<1x197x768x!cgc.float16>) -> !cgc.tensor<1x197x768x!cgc.float16>
    %1 = cgc_op.layer_norm(%0, %gamma, %beta) {epsilon = 9.9999999999999995E-7 : f64} : (!cgc.tensor<1x197x768x!cgc.float16>, !cgc.tensor<constant 768x!cgc.float16>, !cgc.tensor<constant 768x!cgc.float16>) -> !cgc.tensor<1x197x768x!cgc.float16>
    %2 = cgc_op.add(%0, %1) : (!cgc.tensor<1x197x768x!cgc.float16>, !cgc.tensor<1x197x768x!cgc.float16>) -> !cgc.tensor<1x197x768x!cgc.float16>
    %3 = cgc_op.div(%scores, %scale) : (!cgc.tensor<1x12x197x197x!cgc.float16>, !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<1x12x197x197x!cgc.float16>
    %4 = cgc_op.softmax(%3) {axis = 3 : i64} : (!cgc.tensor<1x12x197x197x!cgc.float16>) -> !cgc.tensor<1x12x197x197x!cgc.float16>
    %5 = cgc_op.mul(%4, %heads) : (!cgc.tensor<1x12x197x197x!cgc.float16>, !cgc.tensor<constant 12x1x1x!cgc.float16>) -> !cgc.tensor<1x12x197x197x!cgc.float16>
    cgc.return %2, %5 : !cgc.tensor<1x197x768x!cgc.float16>, !cgc.tensor<1x12x197x197x!cgc.float16>
  }
}
