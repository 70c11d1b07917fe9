// A multi-layer pattern: attention as matmul -> mul(scale) -> softmax ->
// matmul, declared by a test target, against hand-written attention blocks.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=gpu=%S/Inputs/match-attention.mlir fallback-target=gpu.fallback" | FileCheck %s

// One block: the transpose of k and the residual add are not part of the
// pattern and fall back; the four attention layers are one call whose
// arguments are q, kT, the scale and v, in order of first use.
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "gpu.fallback"}
// CHECK: cgc.subgraph @attention_1 attributes {cgc.pattern = "attention", origin = "gpu"} {
// CHECK-NEXT: cgc.functional_definition private @attention_1_functional(%[[Q:.*]]: !cgc.tensor<1x2x8x16x!cgc.float32>, %[[KT:.*]]: !cgc.tensor<1x2x16x8x!cgc.float32>, %[[SCALE:.*]]: !cgc.tensor<constant 1x!cgc.float32>, %[[V:.*]]: !cgc.tensor<1x2x8x16x!cgc.float32>) -> !cgc.tensor<1x2x8x16x!cgc.float32> {
// CHECK-NEXT: %[[SCORES:.*]] = cgc_op.matmul(%[[Q]], %[[KT]])
// CHECK-NEXT: %[[SCALED:.*]] = cgc_op.mul(%[[SCORES]], %[[SCALE]])
// CHECK-NEXT: %[[PROBS:.*]] = cgc_op.softmax(%[[SCALED]])
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.matmul(%[[PROBS]], %[[V]])
// CHECK-NEXT: cgc.return %[[OUT]]
// CHECK: cgc.subgraph @add_2 attributes {origin = "gpu.fallback"}
// CHECK-LABEL: cgc.entry_point @attention_block(
// CHECK-SAME: %[[QIN:[^:]*]]: !cgc.tensor<1x2x8x16x!cgc.float32>, %[[KIN:[^:]*]]: !cgc.tensor<1x2x8x16x!cgc.float32>, %[[VIN:[^:]*]]: !cgc.tensor<1x2x8x16x!cgc.float32>)
// CHECK-NEXT: %[[SCALEIN:.*]] = cgc.constant("scale")
// CHECK-NEXT: %[[KTIN:.*]] = cgc.call @transpose_0(%[[KIN]])
// CHECK-NEXT: %[[ATTN:.*]] = cgc.call @attention_1(%[[QIN]], %[[KTIN]], %[[SCALEIN]], %[[VIN]])
// CHECK-NEXT: %[[RES:.*]] = cgc.call @add_2(%[[ATTN]], %[[QIN]])
// CHECK-NEXT: cgc.return %[[RES]]
cgc.module {
  cgc.entry_point @attention_block(%q: !cgc.tensor<1x2x8x16x!cgc.float32>, %k: !cgc.tensor<1x2x8x16x!cgc.float32>, %v: !cgc.tensor<1x2x8x16x!cgc.float32>) -> !cgc.tensor<1x2x8x16x!cgc.float32> {
    %scale = cgc.constant("scale") : !cgc.tensor<constant 1x!cgc.float32>
    %kt = cgc_op.transpose(%k) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<1x2x8x16x!cgc.float32>) -> !cgc.tensor<1x2x16x8x!cgc.float32>
    %scores = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x2x8x16x!cgc.float32>, !cgc.tensor<1x2x16x8x!cgc.float32>) -> !cgc.tensor<1x2x8x8x!cgc.float32>
    %scaled = cgc_op.mul(%scores, %scale) : (!cgc.tensor<1x2x8x8x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x2x8x8x!cgc.float32>
    %probs = cgc_op.softmax(%scaled) {axis = -1 : i64} : (!cgc.tensor<1x2x8x8x!cgc.float32>) -> !cgc.tensor<1x2x8x8x!cgc.float32>
    %out = cgc_op.matmul(%probs, %v) : (!cgc.tensor<1x2x8x8x!cgc.float32>, !cgc.tensor<1x2x8x16x!cgc.float32>) -> !cgc.tensor<1x2x8x16x!cgc.float32>
    %res = cgc_op.add(%out, %q) : (!cgc.tensor<1x2x8x16x!cgc.float32>, !cgc.tensor<1x2x8x16x!cgc.float32>) -> !cgc.tensor<1x2x8x16x!cgc.float32>
    cgc.return %res : !cgc.tensor<1x2x8x16x!cgc.float32>
  }
}

// -----

// Two blocks over different scale constants of one type (softmax's axis left
// at its default, -1): one symbol, called twice. Each block's q is also its
// v: one value, one argument. A third block whose softmax
// runs over another axis does not match and falls back layer by layer.
// CHECK-LABEL: cgc.subgraph @attention_0 attributes {cgc.pattern = "attention", origin = "gpu"}
// CHECK-NOT: cgc.subgraph @attention
// CHECK: cgc.subgraph @matmul_2 attributes {origin = "gpu.fallback"}
// CHECK: cgc.subgraph @mul_3 attributes {origin = "gpu.fallback"}
// CHECK: cgc.subgraph @softmax_4 attributes {origin = "gpu.fallback"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @three_blocks(
// CHECK-SAME: %[[Q:[^:]*]]: !cgc.tensor<1x1x4x4x!cgc.float16>, %[[KT:[^:]*]]: !cgc.tensor<1x1x4x4x!cgc.float16>)
// CHECK-DAG: %[[S1:.*]] = cgc.constant("s1")
// CHECK-DAG: %[[S2:.*]] = cgc.constant("s2")
// CHECK: %[[A1:.*]] = cgc.call @attention_0(%[[Q]], %[[KT]], %[[S1]]) :
// CHECK-NEXT: %[[A2:.*]] = cgc.call @attention_0(%[[A1]], %[[KT]], %[[S2]]) :
// CHECK-NEXT: %[[M:.*]] = cgc.call @matmul_2(%[[A2]], %[[KT]])
// CHECK-NEXT: %[[SC:.*]] = cgc.call @mul_3(%[[M]], %[[S1]])
// CHECK-NEXT: %[[P:.*]] = cgc.call @softmax_4(%[[SC]])
// CHECK-NEXT: %[[O:.*]] = cgc.call @matmul_2(%[[P]], %[[A2]])
// CHECK-NEXT: cgc.return %[[O]]
cgc.module {
  cgc.entry_point @three_blocks(%q: !cgc.tensor<1x1x4x4x!cgc.float16>, %kt: !cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16> {
    %s1 = cgc.constant("s1") : !cgc.tensor<constant 1x!cgc.float16>
    %s2 = cgc.constant("s2") : !cgc.tensor<constant 1x!cgc.float16>
    %scores1 = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %scaled1 = cgc_op.mul(%scores1, %s1) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<constant 1x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %probs1 = cgc_op.softmax(%scaled1) : (!cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %out1 = cgc_op.matmul(%probs1, %q) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %scores2 = cgc_op.matmul(%out1, %kt) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %scaled2 = cgc_op.mul(%scores2, %s2) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<constant 1x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %probs2 = cgc_op.softmax(%scaled2) : (!cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %out2 = cgc_op.matmul(%probs2, %out1) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %scores3 = cgc_op.matmul(%out2, %kt) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %scaled3 = cgc_op.mul(%scores3, %s1) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<constant 1x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %probs3 = cgc_op.softmax(%scaled3) {axis = 2 : i64} : (!cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    %out3 = cgc_op.matmul(%probs3, %out2) : (!cgc.tensor<1x1x4x4x!cgc.float16>, !cgc.tensor<1x1x4x4x!cgc.float16>) -> !cgc.tensor<1x1x4x4x!cgc.float16>
    cgc.return %out3 : !cgc.tensor<1x1x4x4x!cgc.float16>
  }
}

// -----

// Values escaping the match: the attention probabilities are also an output,
// so no subgraph may hide them, and every layer falls back. (A match whose
// only escaping value is its root is convex: every other matched layer
// reaches the root inside the match, so no path can leave and come back.)
// CHECK-LABEL: cgc.entry_point @escaping(
// CHECK-NEXT: %[[SCALE:.*]] = cgc.constant("scale")
// CHECK-NEXT: %[[M:.*]] = cgc.call @matmul_0(
// CHECK-NEXT: %[[SC:.*]] = cgc.call @mul_1(%[[M]], %[[SCALE]])
// CHECK-NEXT: %[[P:.*]] = cgc.call @softmax_2(%[[SC]])
// CHECK-NEXT: %[[O:.*]] = cgc.call @matmul_0(%[[P]],
// CHECK-NEXT: cgc.return %[[O]], %[[P]]
cgc.module {
  cgc.entry_point @escaping(%q: !cgc.tensor<1x1x4x4x!cgc.float32>, %kt: !cgc.tensor<1x1x4x4x!cgc.float32>, %v: !cgc.tensor<1x1x4x4x!cgc.float32>) -> (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>) {
    %scale = cgc.constant("scale") : !cgc.tensor<constant 1x!cgc.float32>
    %scores = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %scaled = cgc_op.mul(%scores, %scale) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %probs = cgc_op.softmax(%scaled) : (!cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %out = cgc_op.matmul(%probs, %v) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    cgc.return %out, %probs : !cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>
  }
}

// -----

// A scale that is not constant data is no match for `{constant}`.
// CHECK-LABEL: cgc.entry_point @variable_scale(
// CHECK-NOT: cgc.call @attention
// CHECK: cgc.return
cgc.module {
  cgc.entry_point @variable_scale(%q: !cgc.tensor<1x1x4x4x!cgc.float32>, %kt: !cgc.tensor<1x1x4x4x!cgc.float32>, %v: !cgc.tensor<1x1x4x4x!cgc.float32>, %scale: !cgc.tensor<1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32> {
    %scores = cgc_op.matmul(%q, %kt) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %scaled = cgc_op.mul(%scores, %scale) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %probs = cgc_op.softmax(%scaled) : (!cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %out = cgc_op.matmul(%probs, %v) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    cgc.return %out : !cgc.tensor<1x1x4x4x!cgc.float32>
  }
}
