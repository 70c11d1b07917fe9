// The CUDA driver's attention patterns (drivers/cuda/patterns/attention.mlir)
// over attention blocks shaped as the ONNX importer gives them for the
// reference models (torch.onnx, opset 17): the layers of one attention
// become one subgraph of the fused target, the layers around it fall back.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/attention.mlir fallback-target=cuda.fallback" | FileCheck %s

// BERT-base self-attention (transformers' eager attention): the
// projections fall back; everything from their results on is one call of
// the `_views` variant: the reshapes and head transposes of q, kT (the
// key's permute and transpose folded into one transpose by the exporter)
// and v, matmul, the division by sqrt(64), the expanded additive mask,
// softmax over the last axis, the product with v, and the transpose and
// reshape that put the heads back. Its arguments are the three projections,
// the divisor and the mask.
// CHECK-LABEL: cgc.subgraph @expand_7 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @attention_4d_views_8 attributes {cgc.pattern = "attention_4d_views", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @attention_4d_views_8_functional(%[[Q:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[K:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[V:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[DIV:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[MASK:[^:]*]]: !cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32> {
// CHECK-NEXT: %[[QR:.*]] = cgc_op.reshape(%[[Q]]) {shape = [1, 128, 12, 64]}
// CHECK-NEXT: %[[KR:.*]] = cgc_op.reshape(%[[K]]) {shape = [1, 128, 12, 64]}
// CHECK-NEXT: %[[VR:.*]] = cgc_op.reshape(%[[V]]) {shape = [1, 128, 12, 64]}
// CHECK-NEXT: %[[QT:.*]] = cgc_op.transpose(%[[QR]]) {permutation = [0, 2, 1, 3]}
// CHECK-NEXT: %[[KT:.*]] = cgc_op.transpose(%[[KR]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[VT:.*]] = cgc_op.transpose(%[[VR]]) {permutation = [0, 2, 1, 3]}
// CHECK-NEXT: %[[S:.*]] = cgc_op.matmul(%[[QT]], %[[KT]])
// CHECK-NEXT: %[[SCALED:.*]] = cgc_op.div(%[[S]], %[[DIV]])
// CHECK-NEXT: %[[MASKED:.*]] = cgc_op.add(%[[SCALED]], %[[MASK]])
// CHECK-NEXT: %[[P:.*]] = cgc_op.softmax(%[[MASKED]]) {axis = 3 : i64}
// CHECK-NEXT: %[[O:.*]] = cgc_op.matmul(%[[P]], %[[VT]])
// CHECK-NEXT: %[[OT:.*]] = cgc_op.transpose(%[[O]]) {permutation = [0, 2, 1, 3]}
// CHECK-NEXT: %[[OR:.*]] = cgc_op.reshape(%[[OT]]) {shape = [1, 128, 768]}
// CHECK-NEXT: cgc.return %[[OR]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @bert_self_attention(
// CHECK: %[[QIN:.*]] = cgc.call @matmul_0(
// CHECK: %[[KIN:.*]] = cgc.call @matmul_0(
// CHECK: %[[VIN:.*]] = cgc.call @matmul_0(
// CHECK: %[[SQRT:.*]] = cgc.constant("sqrt_head")
// CHECK: %[[MASKIN:.*]] = cgc.call @expand_7(
// CHECK-NEXT: %[[CONTEXT:.*]] = cgc.call @attention_4d_views_8(%[[QIN]], %[[KIN]], %[[VIN]], %[[SQRT]], %[[MASKIN]])
// CHECK-NEXT: cgc.return %[[CONTEXT]]
cgc.module {
  cgc.entry_point @bert_self_attention(%hidden: !cgc.tensor<1x128x768x!cgc.float32>, %mask: !cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x128x768x!cgc.float32> {
    %wq = cgc.constant("query.weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %0 = cgc_op.matmul(%hidden, %wq) : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %1 = cgc_op.reshape(%0) {shape = [1, 128, 12, 64]} : (!cgc.tensor<1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x12x64x!cgc.float32>
    %wk = cgc.constant("key.weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %2 = cgc_op.matmul(%hidden, %wk) : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %3 = cgc_op.reshape(%2) {shape = [1, 128, 12, 64]} : (!cgc.tensor<1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x12x64x!cgc.float32>
    %wv = cgc.constant("value.weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %4 = cgc_op.matmul(%hidden, %wv) : (!cgc.tensor<1x128x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    %5 = cgc_op.reshape(%4) {shape = [1, 128, 12, 64]} : (!cgc.tensor<1x128x768x!cgc.float32>) -> !cgc.tensor<1x128x12x64x!cgc.float32>
    %q = cgc_op.transpose(%1) {permutation = [0, 2, 1, 3]} : (!cgc.tensor<1x128x12x64x!cgc.float32>) -> !cgc.tensor<1x12x128x64x!cgc.float32>
    %kt = cgc_op.transpose(%3) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x128x12x64x!cgc.float32>) -> !cgc.tensor<1x12x64x128x!cgc.float32>
    %v = cgc_op.transpose(%5) {permutation = [0, 2, 1, 3]} : (!cgc.tensor<1x128x12x64x!cgc.float32>) -> !cgc.tensor<1x12x128x64x!cgc.float32>
    %scores = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x12x128x64x!cgc.float32>, !cgc.tensor<1x12x64x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %sqrt_head = cgc.constant("sqrt_head") : !cgc.tensor<constant !cgc.float32>
    %scaled = cgc_op.div(%scores, %sqrt_head) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %m4 = cgc_op.reshape(%mask) {shape = [1, 1, 1, 128]} : (!cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x1x1x128x!cgc.int64>
    %mf = cgc_op.cast(%m4) {to = !cgc.float32} : (!cgc.tensor<1x1x1x128x!cgc.int64>) -> !cgc.tensor<1x1x1x128x!cgc.float32>
    %one = cgc.constant("one") : !cgc.tensor<constant !cgc.float32>
    %inverted = cgc_op.sub(%one, %mf) : (!cgc.tensor<constant !cgc.float32>, !cgc.tensor<1x1x1x128x!cgc.float32>) -> !cgc.tensor<1x1x1x128x!cgc.float32>
    %lowest = cgc.constant("lowest") : !cgc.tensor<constant !cgc.float32>
    %additive = cgc_op.mul(%inverted, %lowest) : (!cgc.tensor<1x1x1x128x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x1x1x128x!cgc.float32>
    %expanded = cgc_op.expand(%additive) {shape = [1, 12, 128, 128]} : (!cgc.tensor<1x1x1x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %masked = cgc_op.add(%scaled, %expanded) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %probs = cgc_op.softmax(%masked) {axis = 3 : i64} : (!cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %context = cgc_op.matmul(%probs, %v) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x12x128x64x!cgc.float32>) -> !cgc.tensor<1x12x128x64x!cgc.float32>
    %merged = cgc_op.transpose(%context) {permutation = [0, 2, 1, 3]} : (!cgc.tensor<1x12x128x64x!cgc.float32>) -> !cgc.tensor<1x128x12x64x!cgc.float32>
    %out = cgc_op.reshape(%merged) {shape = [1, 128, 768]} : (!cgc.tensor<1x128x12x64x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32>
    cgc.return %out : !cgc.tensor<1x128x768x!cgc.float32>
  }
}

// -----

// ViT-B/16's attention as torch exports scaled_dot_product_attention
// (float16 here): q and kT each multiplied by sqrt(scale), no mask. Both
// multiplications and the transpose of k join the attention (197 keys, the
// kernel's tiles do not divide them), k read through the transpose's
// strides.
// CHECK-LABEL: cgc.subgraph @attention_4d_scaled_inputs_views_0 attributes {cgc.pattern = "attention_4d_scaled_inputs_views", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @attention_4d_scaled_inputs_views_0_functional(%[[Q:[^:]*]]: !cgc.tensor<1x12x197x64x!cgc.float16>, %[[C:[^:]*]]: !cgc.tensor<constant !cgc.float16>, %[[K:[^:]*]]: !cgc.tensor<1x12x197x64x!cgc.float16>, %[[V:[^:]*]]: !cgc.tensor<1x12x197x64x!cgc.float16>) -> !cgc.tensor<1x12x197x64x!cgc.float16> {
// CHECK-NEXT: %[[QS:.*]] = cgc_op.mul(%[[Q]], %[[C]])
// CHECK-NEXT: %[[KT:.*]] = cgc_op.transpose(%[[K]]) {permutation = [0, 1, 3, 2]}
// CHECK-NEXT: %[[KTS:.*]] = cgc_op.mul(%[[KT]], %[[C]])
// CHECK-NEXT: %[[S:.*]] = cgc_op.matmul(%[[QS]], %[[KTS]])
// CHECK-NEXT: %[[P:.*]] = cgc_op.softmax(%[[S]]) {axis = 3 : i64}
// CHECK-NEXT: %[[O:.*]] = cgc_op.matmul(%[[P]], %[[V]])
// CHECK-NEXT: cgc.return %[[O]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @vit_sdpa(
// CHECK-SAME: %[[QIN:[^:]*]]: !cgc.tensor<1x12x197x64x!cgc.float16>, %[[KIN:[^:]*]]: !cgc.tensor<1x12x197x64x!cgc.float16>, %[[VIN:[^:]*]]: !cgc.tensor<1x12x197x64x!cgc.float16>)
// CHECK-NEXT: %[[CIN:.*]] = cgc.constant("sqrt_scale")
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @attention_4d_scaled_inputs_views_0(%[[QIN]], %[[CIN]], %[[KIN]], %[[VIN]])
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @vit_sdpa(%q: !cgc.tensor<1x12x197x64x!cgc.float16>, %k: !cgc.tensor<1x12x197x64x!cgc.float16>, %v: !cgc.tensor<1x12x197x64x!cgc.float16>) -> !cgc.tensor<1x12x197x64x!cgc.float16> {
    %root_scale = cgc.constant("sqrt_scale") : !cgc.tensor<constant !cgc.float16>
    %qs = cgc_op.mul(%q, %root_scale) : (!cgc.tensor<1x12x197x64x!cgc.float16>, !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<1x12x197x64x!cgc.float16>
    %kt = cgc_op.transpose(%k) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<1x12x197x64x!cgc.float16>) -> !cgc.tensor<1x12x64x197x!cgc.float16>
    %kts = cgc_op.mul(%kt, %root_scale) : (!cgc.tensor<1x12x64x197x!cgc.float16>, !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<1x12x64x197x!cgc.float16>
    %scores = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<1x12x197x64x!cgc.float16>, !cgc.tensor<1x12x64x197x!cgc.float16>) -> !cgc.tensor<1x12x197x197x!cgc.float16>
    %probs = cgc_op.softmax(%scores) {axis = 3 : i64} : (!cgc.tensor<1x12x197x197x!cgc.float16>) -> !cgc.tensor<1x12x197x197x!cgc.float16>
    %out = cgc_op.matmul(%probs, %v) : (!cgc.tensor<1x12x197x197x!cgc.float16>, !cgc.tensor<1x12x197x64x!cgc.float16>) -> !cgc.tensor<1x12x197x64x!cgc.float16>
    cgc.return %out : !cgc.tensor<1x12x197x64x!cgc.float16>
  }
}

// -----

// nn.MultiheadAttention's 3-D products (bfloat16): only q is scaled, so
// the 3-D pattern without scaled inputs matches and the multiplication
// falls back with the transpose of k.
// CHECK-LABEL: cgc.subgraph @mul_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @transpose_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @attention_3d_2 attributes {cgc.pattern = "attention_3d", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @attention_3d_2_functional(%[[Q:.*]]: !cgc.tensor<12x197x64x!cgc.bfloat16>, %[[KT:.*]]: !cgc.tensor<12x64x197x!cgc.bfloat16>, %[[V:.*]]: !cgc.tensor<12x197x64x!cgc.bfloat16>)
// CHECK-NEXT: %[[S:.*]] = cgc_op.matmul(%[[Q]], %[[KT]])
// CHECK-NEXT: %[[P:.*]] = cgc_op.softmax(%[[S]]) {axis = 2 : i64}
// CHECK-NEXT: %[[O:.*]] = cgc_op.matmul(%[[P]], %[[V]])
// CHECK-NEXT: cgc.return %[[O]]
// CHECK-LABEL: cgc.entry_point @mha_batched(
// CHECK: %[[QS:.*]] = cgc.call @mul_0(
// CHECK-NEXT: %[[KT:.*]] = cgc.call @transpose_1(
// CHECK-NEXT: cgc.call @attention_3d_2(%[[QS]], %[[KT]], %arg2)
cgc.module {
  cgc.entry_point @mha_batched(%q: !cgc.tensor<12x197x64x!cgc.bfloat16>, %k: !cgc.tensor<12x197x64x!cgc.bfloat16>, %v: !cgc.tensor<12x197x64x!cgc.bfloat16>) -> !cgc.tensor<12x197x64x!cgc.bfloat16> {
    %scale = cgc.constant("scale") : !cgc.tensor<constant !cgc.bfloat16>
    %qs = cgc_op.mul(%q, %scale) : (!cgc.tensor<12x197x64x!cgc.bfloat16>, !cgc.tensor<constant !cgc.bfloat16>) -> !cgc.tensor<12x197x64x!cgc.bfloat16>
    %kt = cgc_op.transpose(%k) {permutation = [0, 2, 1]} : (!cgc.tensor<12x197x64x!cgc.bfloat16>) -> !cgc.tensor<12x64x197x!cgc.bfloat16>
    %scores = cgc_op.matmul(%qs, %kt) : (!cgc.tensor<12x197x64x!cgc.bfloat16>, !cgc.tensor<12x64x197x!cgc.bfloat16>) -> !cgc.tensor<12x197x197x!cgc.bfloat16>
    %probs = cgc_op.softmax(%scores) {axis = 2 : i64} : (!cgc.tensor<12x197x197x!cgc.bfloat16>) -> !cgc.tensor<12x197x197x!cgc.bfloat16>
    %out = cgc_op.matmul(%probs, %v) : (!cgc.tensor<12x197x197x!cgc.bfloat16>, !cgc.tensor<12x197x64x!cgc.bfloat16>) -> !cgc.tensor<12x197x64x!cgc.bfloat16>
    cgc.return %out : !cgc.tensor<12x197x64x!cgc.bfloat16>
  }
}

// -----

// No attention: a softmax over another axis than the last, and attention
// probabilities that are also an output (need_weights) cannot be hidden in
// a subgraph; every layer falls back.
// CHECK-LABEL: cgc.subgraph @matmul_0 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.pattern
// CHECK-LABEL: cgc.entry_point @not_attention(
// CHECK-NOT: cgc.pattern
// CHECK: cgc.return
cgc.module {
  cgc.entry_point @not_attention(%q: !cgc.tensor<1x2x8x16x!cgc.float32>, %kt: !cgc.tensor<1x2x16x8x!cgc.float32>, %v: !cgc.tensor<1x2x8x16x!cgc.float32>) -> (!cgc.tensor<1x2x8x16x!cgc.float32>, !cgc.tensor<1x2x8x8x!cgc.float32>) {
    %s1 = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x2x8x16x!cgc.float32>, !cgc.tensor<1x2x16x8x!cgc.float32>) -> !cgc.tensor<1x2x8x8x!cgc.float32>
    %p1 = cgc_op.softmax(%s1) {axis = 2 : i64} : (!cgc.tensor<1x2x8x8x!cgc.float32>) -> !cgc.tensor<1x2x8x8x!cgc.float32>
    %o1 = cgc_op.matmul(%p1, %v) : (!cgc.tensor<1x2x8x8x!cgc.float32>, !cgc.tensor<1x2x8x16x!cgc.float32>) -> !cgc.tensor<1x2x8x16x!cgc.float32>
    %s2 = cgc_op.matmul(%o1, %kt) : (!cgc.tensor<1x2x8x16x!cgc.float32>, !cgc.tensor<1x2x16x8x!cgc.float32>) -> !cgc.tensor<1x2x8x8x!cgc.float32>
    %p2 = cgc_op.softmax(%s2) {axis = 3 : i64} : (!cgc.tensor<1x2x8x8x!cgc.float32>) -> !cgc.tensor<1x2x8x8x!cgc.float32>
    %o2 = cgc_op.matmul(%p2, %v) : (!cgc.tensor<1x2x8x8x!cgc.float32>, !cgc.tensor<1x2x8x16x!cgc.float32>) -> !cgc.tensor<1x2x8x16x!cgc.float32>
    cgc.return %o2, %p2 : !cgc.tensor<1x2x8x16x!cgc.float32>, !cgc.tensor<1x2x8x8x!cgc.float32>
  }
}

// -----

// BERT-base's self-attention exactly as torch.onnx exports it and the ONNX
// importer reads it: the scale split over q and kT, the boolean mask turned
// additive by a where outside the pattern, and the NaN guard
// where(p != p, 0, p) on the probabilities — all one subgraph (of the
// `_views` variant, whose chains are empty here).
// CHECK-LABEL: cgc.subgraph @{{.*}} attributes {cgc.pattern = "attention_4d_scaled_inputs_nan_guard_views", origin = "cuda"}
// CHECK: cgc_op.not_equal
// CHECK: cgc_op.where
// CHECK-LABEL: cgc.entry_point @bert_exported_attention(
// CHECK: cgc.call @where_{{[0-9]+}}(
// CHECK: cgc.call @attention_4d_scaled_inputs_nan_guard_views_{{[0-9]+}}(
// CHECK-NEXT: cgc.return
cgc.module {
  cgc.entry_point @bert_exported_attention(%q: !cgc.tensor<1x12x128x64x!cgc.float32>, %kt: !cgc.tensor<1x12x64x128x!cgc.float32>, %v: !cgc.tensor<1x12x128x64x!cgc.float32>, %mask: !cgc.tensor<1x1x128x128x!cgc.bool>) -> !cgc.tensor<1x12x128x64x!cgc.float32> {
    %c3 = cgc.constant("Constant_3_output_0") : !cgc.tensor<constant !cgc.float32>
    %qs = cgc_op.mul(%q, %c3) : (!cgc.tensor<1x12x128x64x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x12x128x64x!cgc.float32>
    %c4 = cgc.constant("Constant_4_output_0") : !cgc.tensor<constant !cgc.float32>
    %kts = cgc_op.mul(%kt, %c4) : (!cgc.tensor<1x12x64x128x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x12x64x128x!cgc.float32>
    %scores = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<1x12x128x64x!cgc.float32>, !cgc.tensor<1x12x64x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %c5 = cgc.constant("Constant_5_output_0") : !cgc.tensor<constant 1x!cgc.float32>
    %c6 = cgc.constant("Constant_6_output_0") : !cgc.tensor<constant 1x!cgc.float32>
    %additive = cgc_op.where(%mask, %c5, %c6) : (!cgc.tensor<1x1x128x128x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x128x128x!cgc.float32>
    %masked = cgc_op.add(%scores, %additive) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x1x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %probs = cgc_op.softmax(%masked) {axis = 3 : i64} : (!cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %isnan = cgc_op.not_equal(%probs, %probs) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.bool>
    %c7 = cgc.constant("Constant_7_output_0") : !cgc.tensor<constant 1x!cgc.float32>
    %guarded = cgc_op.where(%isnan, %c7, %probs) : (!cgc.tensor<1x12x128x128x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %out = cgc_op.matmul(%guarded, %v) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x12x128x64x!cgc.float32>) -> !cgc.tensor<1x12x128x64x!cgc.float32>
    cgc.return %out : !cgc.tensor<1x12x128x64x!cgc.float32>
  }
}

// -----

// torchvision's ViT-B/16 attention as nn.MultiheadAttention exports it
// (batch 1): q, k and v are picked out of the in-projection [197, 1, 2304]
// by two reshapes, a transpose [3, 1, 2, 0, 4] and a reshape shared by the
// three, and a gather of constant index 0, 1 or 2 each (selections), then
// split into heads and scaled by sqrt(scale). Everything from the biased
// projection to the merged heads is one subgraph of the scaled-inputs
// `_views` variant; the projections fall back.
// CHECK-LABEL: cgc.subgraph @attention_4d_scaled_inputs_views_2 attributes {cgc.pattern = "attention_4d_scaled_inputs_views", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @attention_4d_scaled_inputs_views_2_functional(%[[G:[^:]*]]: !cgc.tensor<197x1x2304x!cgc.float32>, %[[I0:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[I1:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[I2:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[C:[^:]*]]: !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<197x768x!cgc.float32> {
// CHECK-NEXT: cgc_op.reshape(%[[G]]) {shape = [197, 1, 3, 768]}
// CHECK-NEXT: cgc_op.reshape
// CHECK-NEXT: cgc_op.transpose({{.*}}) {permutation = [3, 1, 2, 0, 4]}
// CHECK-NEXT: %[[QKV:.*]] = cgc_op.reshape({{.*}}) {shape = [3, 197, 1, 768]}
// CHECK-NEXT: cgc_op.gather(%[[QKV]], %[[I0]])
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.gather(%[[QKV]], %[[I1]])
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.gather(%[[QKV]], %[[I2]])
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.softmax
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.reshape({{.*}}) {shape = [197, 768]}
// CHECK-NEXT: cgc.return
// CHECK-LABEL: cgc.entry_point @vit_mha_b1(
// CHECK: %[[BIASED:.*]] = cgc.call @add_1(
// CHECK: %[[HEADS:.*]] = cgc.call @attention_4d_scaled_inputs_views_2(%[[BIASED]],
// CHECK-NEXT: cgc.constant("out_proj_weight")
cgc.module {
  cgc.entry_point @vit_mha_b1(%x: !cgc.tensor<197x1x768x!cgc.float32>) -> !cgc.tensor<197x768x!cgc.float32> {
    %w_in = cgc.constant("in_proj_weight") : !cgc.tensor<constant 768x2304x!cgc.float32>
    %b_in = cgc.constant("in_proj_bias") : !cgc.tensor<constant 2304x!cgc.float32>
    %15 = cgc_op.matmul(%x, %w_in) : (!cgc.tensor<197x1x768x!cgc.float32>, !cgc.tensor<constant 768x2304x!cgc.float32>) -> !cgc.tensor<197x1x2304x!cgc.float32>
    %16 = cgc_op.add(%b_in, %15) : (!cgc.tensor<constant 2304x!cgc.float32>, !cgc.tensor<197x1x2304x!cgc.float32>) -> !cgc.tensor<197x1x2304x!cgc.float32>
    %17 = cgc_op.reshape(%16) {shape = [197, 1, 3, 768]} : (!cgc.tensor<197x1x2304x!cgc.float32>) -> !cgc.tensor<197x1x3x768x!cgc.float32>
    %18 = cgc_op.reshape(%17) {shape = [1, 197, 1, 3, 768]} : (!cgc.tensor<197x1x3x768x!cgc.float32>) -> !cgc.tensor<1x197x1x3x768x!cgc.float32>
    %19 = cgc_op.transpose(%18) {permutation = [3, 1, 2, 0, 4]} : (!cgc.tensor<1x197x1x3x768x!cgc.float32>) -> !cgc.tensor<3x197x1x1x768x!cgc.float32>
    %20 = cgc_op.reshape(%19) {shape = [3, 197, 1, 768]} : (!cgc.tensor<3x197x1x1x768x!cgc.float32>) -> !cgc.tensor<3x197x1x768x!cgc.float32>
    %c0 = cgc.constant("Constant_0_output_0") : !cgc.tensor<constant !cgc.int64>
    %22 = cgc_op.gather(%20, %c0) : (!cgc.tensor<3x197x1x768x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x1x768x!cgc.float32>
    %r22 = cgc_op.reshape(%22) {shape = [197, 12, 64]} : (!cgc.tensor<197x1x768x!cgc.float32>) -> !cgc.tensor<197x12x64x!cgc.float32>
    %t22 = cgc_op.transpose(%r22) {permutation = [1, 0, 2]} : (!cgc.tensor<197x12x64x!cgc.float32>) -> !cgc.tensor<12x197x64x!cgc.float32>
    %h22 = cgc_op.reshape(%t22) {shape = [1, 12, 197, 64]} : (!cgc.tensor<12x197x64x!cgc.float32>) -> !cgc.tensor<1x12x197x64x!cgc.float32>
    %c1 = cgc.constant("Constant_1_output_0") : !cgc.tensor<constant !cgc.int64>
    %24 = cgc_op.gather(%20, %c1) : (!cgc.tensor<3x197x1x768x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x1x768x!cgc.float32>
    %r24 = cgc_op.reshape(%24) {shape = [197, 12, 64]} : (!cgc.tensor<197x1x768x!cgc.float32>) -> !cgc.tensor<197x12x64x!cgc.float32>
    %t24 = cgc_op.transpose(%r24) {permutation = [1, 0, 2]} : (!cgc.tensor<197x12x64x!cgc.float32>) -> !cgc.tensor<12x197x64x!cgc.float32>
    %h24 = cgc_op.reshape(%t24) {shape = [1, 12, 197, 64]} : (!cgc.tensor<12x197x64x!cgc.float32>) -> !cgc.tensor<1x12x197x64x!cgc.float32>
    %c2 = cgc.constant("Constant_2_output_0") : !cgc.tensor<constant !cgc.int64>
    %26 = cgc_op.gather(%20, %c2) : (!cgc.tensor<3x197x1x768x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x1x768x!cgc.float32>
    %r26 = cgc_op.reshape(%26) {shape = [197, 12, 64]} : (!cgc.tensor<197x1x768x!cgc.float32>) -> !cgc.tensor<197x12x64x!cgc.float32>
    %t26 = cgc_op.transpose(%r26) {permutation = [1, 0, 2]} : (!cgc.tensor<197x12x64x!cgc.float32>) -> !cgc.tensor<12x197x64x!cgc.float32>
    %h26 = cgc_op.reshape(%t26) {shape = [1, 12, 197, 64]} : (!cgc.tensor<12x197x64x!cgc.float32>) -> !cgc.tensor<1x12x197x64x!cgc.float32>
    %scale = cgc.constant("sqrt_scale") : !cgc.tensor<constant !cgc.float32>
    %qs = cgc_op.mul(%h22, %scale) : (!cgc.tensor<1x12x197x64x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x12x197x64x!cgc.float32>
    %kt = cgc_op.transpose(%h24) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<1x12x197x64x!cgc.float32>) -> !cgc.tensor<1x12x64x197x!cgc.float32>
    %kts = cgc_op.mul(%kt, %scale) : (!cgc.tensor<1x12x64x197x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x12x64x197x!cgc.float32>
    %s = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<1x12x197x64x!cgc.float32>, !cgc.tensor<1x12x64x197x!cgc.float32>) -> !cgc.tensor<1x12x197x197x!cgc.float32>
    %p = cgc_op.softmax(%s) {axis = 3 : i64} : (!cgc.tensor<1x12x197x197x!cgc.float32>) -> !cgc.tensor<1x12x197x197x!cgc.float32>
    %o = cgc_op.matmul(%p, %h26) : (!cgc.tensor<1x12x197x197x!cgc.float32>, !cgc.tensor<1x12x197x64x!cgc.float32>) -> !cgc.tensor<1x12x197x64x!cgc.float32>
    %ot = cgc_op.transpose(%o) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<1x12x197x64x!cgc.float32>) -> !cgc.tensor<197x1x12x64x!cgc.float32>
    %or = cgc_op.reshape(%ot) {shape = [197, 768]} : (!cgc.tensor<197x1x12x64x!cgc.float32>) -> !cgc.tensor<197x768x!cgc.float32>
    %w_out = cgc.constant("out_proj_weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %b_out = cgc.constant("out_proj_bias") : !cgc.tensor<constant 768x!cgc.float32>
    %y = cgc_op.gemm(%or, %w_out, %b_out) {trans_b = true} : (!cgc.tensor<197x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>, !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<197x768x!cgc.float32>
      cgc.return %y : !cgc.tensor<197x768x!cgc.float32>
  }
}

// -----

// The same at batch 32 in float16, as the benchmark runs it: one subgraph
// again (the heads' [197, 384, 64] between the gathers and the split
// [32, 12, 197, 64] is no single strided view, which the kernel's reader
// handles; the matcher only sees the layers).
// CHECK-LABEL: cgc.subgraph @attention_4d_scaled_inputs_views_2 attributes {cgc.pattern = "attention_4d_scaled_inputs_views", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @attention_4d_scaled_inputs_views_2_functional(%{{[^:]*}}: !cgc.tensor<197x32x2304x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant !cgc.int64>, %{{[^:]*}}: !cgc.tensor<constant !cgc.int64>, %{{[^:]*}}: !cgc.tensor<constant !cgc.int64>, %{{[^:]*}}: !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<6304x768x!cgc.float16> {
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.reshape({{.*}}) {shape = [197, 384, 64]}
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.reshape({{.*}}) {shape = [6304, 768]}
// CHECK-NEXT: cgc.return
// CHECK-LABEL: cgc.entry_point @vit_mha_b32(
// CHECK: %[[BIASED:.*]] = cgc.call @add_1(
// CHECK: cgc.call @attention_4d_scaled_inputs_views_2(%[[BIASED]],
cgc.module {
  cgc.entry_point @vit_mha_b32(%x: !cgc.tensor<197x32x768x!cgc.float16>) -> !cgc.tensor<6304x768x!cgc.float16> {
    %w_in = cgc.constant("in_proj_weight") : !cgc.tensor<constant 768x2304x!cgc.float16>
    %b_in = cgc.constant("in_proj_bias") : !cgc.tensor<constant 2304x!cgc.float16>
    %15 = cgc_op.matmul(%x, %w_in) : (!cgc.tensor<197x32x768x!cgc.float16>, !cgc.tensor<constant 768x2304x!cgc.float16>) -> !cgc.tensor<197x32x2304x!cgc.float16>
    %16 = cgc_op.add(%b_in, %15) : (!cgc.tensor<constant 2304x!cgc.float16>, !cgc.tensor<197x32x2304x!cgc.float16>) -> !cgc.tensor<197x32x2304x!cgc.float16>
    %17 = cgc_op.reshape(%16) {shape = [197, 32, 3, 768]} : (!cgc.tensor<197x32x2304x!cgc.float16>) -> !cgc.tensor<197x32x3x768x!cgc.float16>
    %18 = cgc_op.reshape(%17) {shape = [1, 197, 32, 3, 768]} : (!cgc.tensor<197x32x3x768x!cgc.float16>) -> !cgc.tensor<1x197x32x3x768x!cgc.float16>
    %19 = cgc_op.transpose(%18) {permutation = [3, 1, 2, 0, 4]} : (!cgc.tensor<1x197x32x3x768x!cgc.float16>) -> !cgc.tensor<3x197x32x1x768x!cgc.float16>
    %20 = cgc_op.reshape(%19) {shape = [3, 197, 32, 768]} : (!cgc.tensor<3x197x32x1x768x!cgc.float16>) -> !cgc.tensor<3x197x32x768x!cgc.float16>
    %c0 = cgc.constant("Constant_0_output_0") : !cgc.tensor<constant !cgc.int64>
    %22 = cgc_op.gather(%20, %c0) : (!cgc.tensor<3x197x32x768x!cgc.float16>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x32x768x!cgc.float16>
    %r22 = cgc_op.reshape(%22) {shape = [197, 384, 64]} : (!cgc.tensor<197x32x768x!cgc.float16>) -> !cgc.tensor<197x384x64x!cgc.float16>
    %t22 = cgc_op.transpose(%r22) {permutation = [1, 0, 2]} : (!cgc.tensor<197x384x64x!cgc.float16>) -> !cgc.tensor<384x197x64x!cgc.float16>
    %h22 = cgc_op.reshape(%t22) {shape = [32, 12, 197, 64]} : (!cgc.tensor<384x197x64x!cgc.float16>) -> !cgc.tensor<32x12x197x64x!cgc.float16>
    %c1 = cgc.constant("Constant_1_output_0") : !cgc.tensor<constant !cgc.int64>
    %24 = cgc_op.gather(%20, %c1) : (!cgc.tensor<3x197x32x768x!cgc.float16>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x32x768x!cgc.float16>
    %r24 = cgc_op.reshape(%24) {shape = [197, 384, 64]} : (!cgc.tensor<197x32x768x!cgc.float16>) -> !cgc.tensor<197x384x64x!cgc.float16>
    %t24 = cgc_op.transpose(%r24) {permutation = [1, 0, 2]} : (!cgc.tensor<197x384x64x!cgc.float16>) -> !cgc.tensor<384x197x64x!cgc.float16>
    %h24 = cgc_op.reshape(%t24) {shape = [32, 12, 197, 64]} : (!cgc.tensor<384x197x64x!cgc.float16>) -> !cgc.tensor<32x12x197x64x!cgc.float16>
    %c2 = cgc.constant("Constant_2_output_0") : !cgc.tensor<constant !cgc.int64>
    %26 = cgc_op.gather(%20, %c2) : (!cgc.tensor<3x197x32x768x!cgc.float16>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x32x768x!cgc.float16>
    %r26 = cgc_op.reshape(%26) {shape = [197, 384, 64]} : (!cgc.tensor<197x32x768x!cgc.float16>) -> !cgc.tensor<197x384x64x!cgc.float16>
    %t26 = cgc_op.transpose(%r26) {permutation = [1, 0, 2]} : (!cgc.tensor<197x384x64x!cgc.float16>) -> !cgc.tensor<384x197x64x!cgc.float16>
    %h26 = cgc_op.reshape(%t26) {shape = [32, 12, 197, 64]} : (!cgc.tensor<384x197x64x!cgc.float16>) -> !cgc.tensor<32x12x197x64x!cgc.float16>
    %scale = cgc.constant("sqrt_scale") : !cgc.tensor<constant !cgc.float16>
    %qs = cgc_op.mul(%h22, %scale) : (!cgc.tensor<32x12x197x64x!cgc.float16>, !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<32x12x197x64x!cgc.float16>
    %kt = cgc_op.transpose(%h24) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<32x12x197x64x!cgc.float16>) -> !cgc.tensor<32x12x64x197x!cgc.float16>
    %kts = cgc_op.mul(%kt, %scale) : (!cgc.tensor<32x12x64x197x!cgc.float16>, !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<32x12x64x197x!cgc.float16>
    %s = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<32x12x197x64x!cgc.float16>, !cgc.tensor<32x12x64x197x!cgc.float16>) -> !cgc.tensor<32x12x197x197x!cgc.float16>
    %p = cgc_op.softmax(%s) {axis = 3 : i64} : (!cgc.tensor<32x12x197x197x!cgc.float16>) -> !cgc.tensor<32x12x197x197x!cgc.float16>
    %o = cgc_op.matmul(%p, %h26) : (!cgc.tensor<32x12x197x197x!cgc.float16>, !cgc.tensor<32x12x197x64x!cgc.float16>) -> !cgc.tensor<32x12x197x64x!cgc.float16>
    %ot = cgc_op.transpose(%o) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<32x12x197x64x!cgc.float16>) -> !cgc.tensor<197x32x12x64x!cgc.float16>
    %or = cgc_op.reshape(%ot) {shape = [6304, 768]} : (!cgc.tensor<197x32x12x64x!cgc.float16>) -> !cgc.tensor<6304x768x!cgc.float16>
    %w_out = cgc.constant("out_proj_weight") : !cgc.tensor<constant 768x768x!cgc.float16>
    %b_out = cgc.constant("out_proj_bias") : !cgc.tensor<constant 768x!cgc.float16>
    %y = cgc_op.gemm(%or, %w_out, %b_out) {trans_b = true} : (!cgc.tensor<6304x768x!cgc.float16>, !cgc.tensor<constant 768x768x!cgc.float16>, !cgc.tensor<constant 768x!cgc.float16>) -> !cgc.tensor<6304x768x!cgc.float16>
      cgc.return %y : !cgc.tensor<6304x768x!cgc.float16>
  }
}
