// The CUDA driver's fused matmul patterns (drivers/cuda/patterns/matmul.mlir)
// over the linear layers of the reference transformers as the ONNX importer
// gives them (torch.onnx, opset 17): BERT-base's and ViT-B/16's MatMul of a
// constant weight, its bias added first (Add(bias, x·W)), then GELU written
// out with Erf, a residual add, or nothing; gemm with its bias (Gemm(x, W,
// b, transB = 1) of a 2-D Linear: ViT's attention output and head). Each
// product and the elementwise layers after it become one subgraph of the
// fused target; everything else falls back.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/matmul.mlir fallback-target=cuda.fallback" | FileCheck %s
// When a longer match loses (rejected here; in the driver, a layer after the
// bias taken by a pattern of higher benefit), matmul + bias remains.
// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/matmul.mlir fallback-target=cuda.fallback reject=matmul_epilogue" | FileCheck %s --check-prefix=REJECT

// One BERT-base encoder layer. The q, k and v projections (x·W + b) are one
// symbol called three times; the attention scores take the division and the
// mask as their epilogue (with the attention patterns declared too, the
// attention's higher benefit takes these layers instead); the context product,
// followed by a transpose, is a plain matmul and falls back. The attention
// output and the feed-forward output add the bias, then the residual; the
// feed-forward input adds the bias, then GELU as Div / Erf / Add / Mul / Mul.
// CHECK-LABEL: cgc.subgraph @matmul_epilogue_0 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_epilogue_0_functional(%[[X:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[W:[^:]*]]: !cgc.tensor<constant 768x768x!cgc.float32>, %[[B:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<1x128x768x!cgc.float32> {
// CHECK-NEXT: %[[P:.*]] = cgc_op.matmul(%[[X]], %[[W]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.add(%[[B]], %[[P]])
// CHECK-NEXT: cgc.return %[[Y]]
// CHECK: cgc.subgraph @matmul_epilogue_9 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_epilogue_9_functional(%[[Q:[^:]*]]: !cgc.tensor<1x12x128x64x!cgc.float32>, %[[KT:[^:]*]]: !cgc.tensor<1x12x64x128x!cgc.float32>, %[[D:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[M:[^:]*]]: !cgc.tensor<1x1x1x128x!cgc.float32>)
// CHECK-NEXT: %[[S:.*]] = cgc_op.matmul(%[[Q]], %[[KT]])
// CHECK-NEXT: %[[SD:.*]] = cgc_op.div(%[[S]], %[[D]])
// CHECK-NEXT: %[[SM:.*]] = cgc_op.add(%[[SD]], %[[M]])
// CHECK-NEXT: cgc.return %[[SM]]
// CHECK: cgc.subgraph @softmax_10 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @matmul_11 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @matmul_epilogue_14 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_epilogue_14_functional(%[[C:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[WO:[^:]*]]: !cgc.tensor<constant 768x768x!cgc.float32>, %[[BO:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>, %[[R:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>)
// CHECK-NEXT: %[[O:.*]] = cgc_op.matmul(%[[C]], %[[WO]])
// CHECK-NEXT: %[[OB:.*]] = cgc_op.add(%[[BO]], %[[O]])
// CHECK-NEXT: %[[OR:.*]] = cgc_op.add(%[[OB]], %[[R]])
// CHECK-NEXT: cgc.return %[[OR]]
// CHECK: cgc.subgraph @layer_norm_15 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @matmul_gelu_erf_epilogue_16 attributes {cgc.pattern = "matmul_gelu_erf_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_gelu_erf_epilogue_16_functional(%[[H:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[WI:[^:]*]]: !cgc.tensor<constant 768x3072x!cgc.float32>, %[[BI:[^:]*]]: !cgc.tensor<constant 3072x!cgc.float32>, %[[ROOT2:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[ONE:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[HALF:[^:]*]]: !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32> {
// CHECK-NEXT: %[[F0:.*]] = cgc_op.matmul(%[[H]], %[[WI]])
// CHECK-NEXT: %[[F1:.*]] = cgc_op.add(%[[BI]], %[[F0]])
// CHECK-NEXT: %[[F2:.*]] = cgc_op.div(%[[F1]], %[[ROOT2]])
// CHECK-NEXT: %[[F3:.*]] = cgc_op.erf(%[[F2]])
// CHECK-NEXT: %[[F4:.*]] = cgc_op.add(%[[F3]], %[[ONE]])
// CHECK-NEXT: %[[F5:.*]] = cgc_op.mul(%[[F1]], %[[F4]])
// CHECK-NEXT: %[[F6:.*]] = cgc_op.mul(%[[F5]], %[[HALF]])
// CHECK-NEXT: cgc.return %[[F6]]
// CHECK: cgc.subgraph @matmul_epilogue_17 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_epilogue_17_functional(%{{[^:]*}}: !cgc.tensor<1x128x3072x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 3072x768x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 768x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<1x128x768x!cgc.float32>)
// CHECK-NEXT: cgc_op.matmul
// CHECK-NEXT: cgc_op.add
// CHECK-NEXT: cgc_op.add
// CHECK-NEXT: cgc.return
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @bert_layer(
// CHECK-SAME: %[[XIN:[^:]*]]: !cgc.tensor<1x128x768x!cgc.float32>, %[[MASKIN:[^:]*]]: !cgc.tensor<1x1x1x128x!cgc.float32>)
// CHECK: %[[QP:.*]] = cgc.call @matmul_epilogue_0(%[[XIN]],
// CHECK: %[[KP:.*]] = cgc.call @matmul_epilogue_0(%[[XIN]],
// CHECK: %[[VP:.*]] = cgc.call @matmul_epilogue_0(%[[XIN]],
// CHECK: %[[SCORES:.*]] = cgc.call @matmul_epilogue_9(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[MASKIN]])
// CHECK-NEXT: cgc.call @softmax_10(%[[SCORES]])
// CHECK: %[[ATTN:.*]] = cgc.call @matmul_epilogue_14(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[XIN]])
// CHECK-NEXT: %[[LN1:.*]] = cgc.call @layer_norm_15(%[[ATTN]],
// CHECK-NEXT: %[[FF:.*]] = cgc.call @matmul_gelu_erf_epilogue_16(%[[LN1]],
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @matmul_epilogue_17(%[[FF]], %{{[^,]*}}, %{{[^,]*}}, %[[LN1]])
// CHECK-NEXT: cgc.call @layer_norm_15(%[[OUT]],
// The q, k, v and both output products keep their bias; the scores and
// the residual adds fall back.
// REJECT-LABEL: cgc.subgraph @matmul_bias_0 attributes {cgc.pattern = "matmul_bias", origin = "cuda"} {
// REJECT: cgc_op.matmul
// REJECT-NEXT: cgc_op.add
// REJECT-NEXT: cgc.return
// REJECT: cgc.subgraph @matmul_9 attributes {origin = "cuda.fallback"}
// REJECT: cgc.subgraph @div_10 attributes {origin = "cuda.fallback"}
// REJECT: cgc.subgraph @add_17 attributes {origin = "cuda.fallback"}
// REJECT: cgc.subgraph @matmul_gelu_erf_epilogue_19 attributes {cgc.pattern = "matmul_gelu_erf_epilogue", origin = "cuda"}
// REJECT: cgc.subgraph @matmul_bias_20 attributes {cgc.pattern = "matmul_bias", origin = "cuda"}
// REJECT-LABEL: cgc.entry_point @bert_layer(
// REJECT-COUNT-3: cgc.call @matmul_bias_0(
// REJECT: %[[ATTN:.*]] = cgc.call @matmul_bias_0(
// REJECT-NEXT: cgc.call @add_17(%[[ATTN]],
// REJECT: %[[OUT:.*]] = cgc.call @matmul_bias_20(
// REJECT-NEXT: cgc.call @add_17(%[[OUT]],
!x = !cgc.tensor<1x128x768x!cgc.float32>
!w = !cgc.tensor<constant 768x768x!cgc.float32>
!b = !cgc.tensor<constant 768x!cgc.float32>
!heads = !cgc.tensor<1x128x12x64x!cgc.float32>
!q = !cgc.tensor<1x12x128x64x!cgc.float32>
!kt = !cgc.tensor<1x12x64x128x!cgc.float32>
!s = !cgc.tensor<1x12x128x128x!cgc.float32>
!mask = !cgc.tensor<1x1x1x128x!cgc.float32>
!scalar = !cgc.tensor<constant !cgc.float32>
!wi = !cgc.tensor<constant 768x3072x!cgc.float32>
!bi = !cgc.tensor<constant 3072x!cgc.float32>
!ff = !cgc.tensor<1x128x3072x!cgc.float32>
!wd = !cgc.tensor<constant 3072x768x!cgc.float32>
cgc.module {
  cgc.entry_point @bert_layer(%x: !x, %mask: !mask) -> !x {
    %wq = cgc.constant("query.weight") : !w
    %bq = cgc.constant("query.bias") : !b
    %wk = cgc.constant("key.weight") : !w
    %bk = cgc.constant("key.bias") : !b
    %wv = cgc.constant("value.weight") : !w
    %bv = cgc.constant("value.bias") : !b
    %wo = cgc.constant("output.weight") : !w
    %bo = cgc.constant("output.bias") : !b
    %g1 = cgc.constant("ln1.weight") : !b
    %e1 = cgc.constant("ln1.bias") : !b
    %wi = cgc.constant("intermediate.weight") : !wi
    %bi = cgc.constant("intermediate.bias") : !bi
    %wd = cgc.constant("dense.weight") : !wd
    %bd = cgc.constant("dense.bias") : !b
    %g2 = cgc.constant("ln2.weight") : !b
    %e2 = cgc.constant("ln2.bias") : !b
    %scale = cgc.constant("sqrt_head") : !scalar
    %sqrt2 = cgc.constant("sqrt2") : !scalar
    %one = cgc.constant("one") : !scalar
    %half = cgc.constant("half") : !scalar
    %q0 = cgc_op.matmul(%x, %wq) : (!x, !w) -> !x
    %q1 = cgc_op.add(%bq, %q0) : (!b, !x) -> !x
    %q2 = cgc_op.reshape(%q1) {shape = [1, 128, 12, 64]} : (!x) -> !heads
    %q = cgc_op.transpose(%q2) {permutation = [0, 2, 1, 3]} : (!heads) -> !q
    %k0 = cgc_op.matmul(%x, %wk) : (!x, !w) -> !x
    %k1 = cgc_op.add(%bk, %k0) : (!b, !x) -> !x
    %k2 = cgc_op.reshape(%k1) {shape = [1, 128, 12, 64]} : (!x) -> !heads
    %k = cgc_op.transpose(%k2) {permutation = [0, 2, 3, 1]} : (!heads) -> !kt
    %v0 = cgc_op.matmul(%x, %wv) : (!x, !w) -> !x
    %v1 = cgc_op.add(%bv, %v0) : (!b, !x) -> !x
    %v2 = cgc_op.reshape(%v1) {shape = [1, 128, 12, 64]} : (!x) -> !heads
    %v = cgc_op.transpose(%v2) {permutation = [0, 2, 1, 3]} : (!heads) -> !q
    %s0 = cgc_op.matmul(%q, %k) : (!q, !kt) -> !s
    %s1 = cgc_op.div(%s0, %scale) : (!s, !scalar) -> !s
    %s2 = cgc_op.add(%s1, %mask) : (!s, !mask) -> !s
    %p = cgc_op.softmax(%s2) {axis = 3 : i64} : (!s) -> !s
    %c0 = cgc_op.matmul(%p, %v) : (!s, !q) -> !q
    %c1 = cgc_op.transpose(%c0) {permutation = [0, 2, 1, 3]} : (!q) -> !heads
    %c = cgc_op.reshape(%c1) {shape = [1, 128, 768]} : (!heads) -> !x
    %o0 = cgc_op.matmul(%c, %wo) : (!x, !w) -> !x
    %o1 = cgc_op.add(%bo, %o0) : (!b, !x) -> !x
    %o2 = cgc_op.add(%o1, %x) : (!x, !x) -> !x
    %h = cgc_op.layer_norm(%o2, %g1, %e1) {epsilon = 9.9999999999999998E-13} : (!x, !b, !b) -> !x
    %f0 = cgc_op.matmul(%h, %wi) : (!x, !wi) -> !ff
    %f1 = cgc_op.add(%bi, %f0) : (!bi, !ff) -> !ff
    %f2 = cgc_op.div(%f1, %sqrt2) : (!ff, !scalar) -> !ff
    %f3 = cgc_op.erf(%f2) : (!ff) -> !ff
    %f4 = cgc_op.add(%f3, %one) : (!ff, !scalar) -> !ff
    %f5 = cgc_op.mul(%f1, %f4) : (!ff, !ff) -> !ff
    %f6 = cgc_op.mul(%f5, %half) : (!ff, !scalar) -> !ff
    %d0 = cgc_op.matmul(%f6, %wd) : (!ff, !wd) -> !x
    %d1 = cgc_op.add(%bd, %d0) : (!b, !x) -> !x
    %d2 = cgc_op.add(%d1, %h) : (!x, !x) -> !x
    %out = cgc_op.layer_norm(%d2, %g2, %e2) {epsilon = 9.9999999999999998E-13} : (!x, !b, !b) -> !x
    cgc.return %out : !x
  }
}

// -----

// A ViT-B/16 encoder block and the head, as torch.onnx exports torchvision's
// nn.MultiheadAttention (sequence first; the packed q/k/v projection split,
// simplified here to one split) and scaled_dot_product_attention (q and kT
// each scaled, then a product straight into softmax: no matmul epilogue).
// The packed projection is matmul + bias; the attention output and the
// head are gemm with C, alone; the MLP is matmul, bias and GELU written out,
// then matmul, bias and the residual (the chain's value second in the add).
// CHECK-LABEL: cgc.subgraph @matmul_epilogue_2 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_epilogue_2_functional(%{{[^:]*}}: !cgc.tensor<197x1x768x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 768x2304x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 2304x!cgc.float32>) -> !cgc.tensor<197x1x2304x!cgc.float32> {
// CHECK-NEXT: cgc_op.matmul
// CHECK-NEXT: cgc_op.add
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @mul_13 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @matmul_16 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @softmax_17 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @matmul_18 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @gemm_bias_epilogue_21 attributes {cgc.pattern = "gemm_bias_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @gemm_bias_epilogue_21_functional(%[[A:[^:]*]]: !cgc.tensor<197x768x!cgc.float32>, %[[WO:[^:]*]]: !cgc.tensor<constant 768x768x!cgc.float32>, %[[BO:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<197x768x!cgc.float32> {
// CHECK-NEXT: %[[G:.*]] = cgc_op.gemm(%[[A]], %[[WO]], %[[BO]]) {trans_b = true}
// CHECK-NEXT: cgc.return %[[G]]
// CHECK: cgc.subgraph @add_24 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @matmul_gelu_erf_epilogue_26 attributes {cgc.pattern = "matmul_gelu_erf_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_gelu_erf_epilogue_26_functional(%{{[^:]*}}: !cgc.tensor<1x197x768x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 768x3072x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 3072x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant !cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant !cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x197x3072x!cgc.float32> {
// CHECK-COUNT-7: cgc_op.
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @matmul_epilogue_27 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @matmul_epilogue_27_functional(%{{[^:]*}}: !cgc.tensor<1x197x3072x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 3072x768x!cgc.float32>, %[[B2:[^:]*]]: !cgc.tensor<constant 768x!cgc.float32>, %[[RES:[^:]*]]: !cgc.tensor<1x197x768x!cgc.float32>)
// CHECK-NEXT: %[[M7:.*]] = cgc_op.matmul
// CHECK-NEXT: %[[M8:.*]] = cgc_op.add(%[[B2]], %[[M7]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.add(%[[RES]], %[[M8]])
// CHECK-NEXT: cgc.return %[[Y]]
// CHECK: cgc.subgraph @gather_28 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @gemm_bias_epilogue_29 attributes {cgc.pattern = "gemm_bias_epilogue", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @gemm_bias_epilogue_29_functional(%{{[^:]*}}: !cgc.tensor<1x768x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 1000x768x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 1000x!cgc.float32>) -> !cgc.tensor<1x1000x!cgc.float32> {
// CHECK-NEXT: cgc_op.gemm
// CHECK-NEXT: cgc.return
// CHECK-LABEL: cgc.entry_point @vit_block_and_head(
// CHECK: %[[PACKED:.*]] = cgc.call @matmul_epilogue_2(
// CHECK-NEXT: cgc.call @split_3(%[[PACKED]])
// CHECK: %[[ATTN:.*]] = cgc.call @gemm_bias_epilogue_21(
// CHECK: %[[R1:.*]] = cgc.call @add_24(
// CHECK: %[[MLP:.*]] = cgc.call @matmul_gelu_erf_epilogue_26(
// CHECK-NEXT: %[[BLOCK:.*]] = cgc.call @matmul_epilogue_27(%[[MLP]], %{{[^,]*}}, %{{[^,]*}}, %[[R1]])
// CHECK-NEXT: %[[CLS:.*]] = cgc.call @gather_28(%[[BLOCK]],
// CHECK-NEXT: %[[LOGITS:.*]] = cgc.call @gemm_bias_epilogue_29(%[[CLS]],
// CHECK-NEXT: cgc.return %[[LOGITS]]
!x = !cgc.tensor<1x197x768x!cgc.float32>
!xt = !cgc.tensor<197x1x768x!cgc.float32>
!c = !cgc.tensor<constant 768x!cgc.float32>
!packed = !cgc.tensor<197x1x2304x!cgc.float32>
!rows = !cgc.tensor<197x12x64x!cgc.float32>
!hrows = !cgc.tensor<12x197x64x!cgc.float32>
!q = !cgc.tensor<1x12x197x64x!cgc.float32>
!kt = !cgc.tensor<1x12x64x197x!cgc.float32>
!s = !cgc.tensor<1x12x197x197x!cgc.float32>
!merged = !cgc.tensor<197x1x12x64x!cgc.float32>
!flat = !cgc.tensor<197x768x!cgc.float32>
!scalar = !cgc.tensor<constant !cgc.float32>
!ff = !cgc.tensor<1x197x3072x!cgc.float32>
cgc.module {
  cgc.entry_point @vit_block_and_head(%x: !x) -> !cgc.tensor<1x1000x!cgc.float32> {
    %g1 = cgc.constant("ln_1.weight") : !c
    %e1 = cgc.constant("ln_1.bias") : !c
    %w_in = cgc.constant("in_proj_weight") : !cgc.tensor<constant 768x2304x!cgc.float32>
    %b_in = cgc.constant("in_proj_bias") : !cgc.tensor<constant 2304x!cgc.float32>
    %scale = cgc.constant("sqrt_scale") : !scalar
    %w_out = cgc.constant("out_proj.weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %b_out = cgc.constant("out_proj.bias") : !c
    %g2 = cgc.constant("ln_2.weight") : !c
    %e2 = cgc.constant("ln_2.bias") : !c
    %w1 = cgc.constant("mlp.0.weight") : !cgc.tensor<constant 768x3072x!cgc.float32>
    %b1 = cgc.constant("mlp.0.bias") : !cgc.tensor<constant 3072x!cgc.float32>
    %sqrt2 = cgc.constant("sqrt2") : !scalar
    %one = cgc.constant("one") : !scalar
    %half = cgc.constant("half") : !scalar
    %w2 = cgc.constant("mlp.3.weight") : !cgc.tensor<constant 3072x768x!cgc.float32>
    %b2 = cgc.constant("mlp.3.bias") : !c
    %first = cgc.constant("class_token_index") : !cgc.tensor<constant !cgc.int64>
    %w_head = cgc.constant("heads.head.weight") : !cgc.tensor<constant 1000x768x!cgc.float32>
    %b_head = cgc.constant("heads.head.bias") : !cgc.tensor<constant 1000x!cgc.float32>
    %ln1 = cgc_op.layer_norm(%x, %g1, %e1) {epsilon = 9.9999999999999995E-7} : (!x, !c, !c) -> !x
    %t = cgc_op.transpose(%ln1) {permutation = [1, 0, 2]} : (!x) -> !xt
    %p0 = cgc_op.matmul(%t, %w_in) : (!xt, !cgc.tensor<constant 768x2304x!cgc.float32>) -> !packed
    %p1 = cgc_op.add(%b_in, %p0) : (!cgc.tensor<constant 2304x!cgc.float32>, !packed) -> !packed
    %q0, %k0, %v0 = cgc_op.split(%p1) {axis = 2 : i64, sizes = [768, 768, 768]} : (!packed) -> (!xt, !xt, !xt)
    %q1 = cgc_op.reshape(%q0) {shape = [197, 12, 64]} : (!xt) -> !rows
    %q2 = cgc_op.transpose(%q1) {permutation = [1, 0, 2]} : (!rows) -> !hrows
    %q3 = cgc_op.reshape(%q2) {shape = [1, 12, 197, 64]} : (!hrows) -> !q
    %k1 = cgc_op.reshape(%k0) {shape = [197, 12, 64]} : (!xt) -> !rows
    %k2 = cgc_op.transpose(%k1) {permutation = [1, 0, 2]} : (!rows) -> !hrows
    %k3 = cgc_op.reshape(%k2) {shape = [1, 12, 197, 64]} : (!hrows) -> !q
    %v1 = cgc_op.reshape(%v0) {shape = [197, 12, 64]} : (!xt) -> !rows
    %v2 = cgc_op.transpose(%v1) {permutation = [1, 0, 2]} : (!rows) -> !hrows
    %v3 = cgc_op.reshape(%v2) {shape = [1, 12, 197, 64]} : (!hrows) -> !q
    %qs = cgc_op.mul(%q3, %scale) : (!q, !scalar) -> !q
    %kt = cgc_op.transpose(%k3) {permutation = [0, 1, 3, 2]} : (!q) -> !kt
    %ks = cgc_op.mul(%kt, %scale) : (!kt, !scalar) -> !kt
    %s0 = cgc_op.matmul(%qs, %ks) : (!q, !kt) -> !s
    %p = cgc_op.softmax(%s0) {axis = 3 : i64} : (!s) -> !s
    %o0 = cgc_op.matmul(%p, %v3) : (!s, !q) -> !q
    %o1 = cgc_op.transpose(%o0) {permutation = [2, 0, 1, 3]} : (!q) -> !merged
    %o2 = cgc_op.reshape(%o1) {shape = [197, 768]} : (!merged) -> !flat
    %o3 = cgc_op.gemm(%o2, %w_out, %b_out) {trans_b = true} : (!flat, !cgc.tensor<constant 768x768x!cgc.float32>, !c) -> !flat
    %o4 = cgc_op.reshape(%o3) {shape = [197, 1, 768]} : (!flat) -> !xt
    %o5 = cgc_op.transpose(%o4) {permutation = [1, 0, 2]} : (!xt) -> !x
    %r = cgc_op.add(%o5, %x) : (!x, !x) -> !x
    %ln2 = cgc_op.layer_norm(%r, %g2, %e2) {epsilon = 9.9999999999999995E-7} : (!x, !c, !c) -> !x
    %m0 = cgc_op.matmul(%ln2, %w1) : (!x, !cgc.tensor<constant 768x3072x!cgc.float32>) -> !ff
    %m1 = cgc_op.add(%b1, %m0) : (!cgc.tensor<constant 3072x!cgc.float32>, !ff) -> !ff
    %m2 = cgc_op.div(%m1, %sqrt2) : (!ff, !scalar) -> !ff
    %m3 = cgc_op.erf(%m2) : (!ff) -> !ff
    %m4 = cgc_op.add(%m3, %one) : (!ff, !scalar) -> !ff
    %m5 = cgc_op.mul(%m1, %m4) : (!ff, !ff) -> !ff
    %m6 = cgc_op.mul(%m5, %half) : (!ff, !scalar) -> !ff
    %m7 = cgc_op.matmul(%m6, %w2) : (!ff, !cgc.tensor<constant 3072x768x!cgc.float32>) -> !x
    %m8 = cgc_op.add(%b2, %m7) : (!c, !x) -> !x
    %y = cgc_op.add(%r, %m8) : (!x, !x) -> !x
    %cls = cgc_op.gather(%y, %first) {axis = 1 : i64} : (!x, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<1x768x!cgc.float32>
    %logits = cgc_op.gemm(%cls, %w_head, %b_head) {trans_b = true} : (!cgc.tensor<1x768x!cgc.float32>, !cgc.tensor<constant 1000x768x!cgc.float32>, !cgc.tensor<constant 1000x!cgc.float32>) -> !cgc.tensor<1x1000x!cgc.float32>
    cgc.return %logits : !cgc.tensor<1x1000x!cgc.float32>
  }
}

// -----

// float16 BERT exported with opset 20 (one Gelu layer, exact): bias (second
// in the add) and gelu; the output projection with bias and relu; a bfloat16
// gemm without C whose bias comes from the chain.
// CHECK-LABEL: cgc.subgraph @matmul_epilogue_0 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK: cgc_op.matmul
// CHECK-NEXT: cgc_op.add
// CHECK-NEXT: cgc_op.gelu
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @matmul_epilogue_1 attributes {cgc.pattern = "matmul_epilogue", origin = "cuda"} {
// CHECK: cgc_op.matmul
// CHECK-NEXT: cgc_op.add
// CHECK-NEXT: cgc_op.relu
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @gemm_epilogue_2 attributes {cgc.pattern = "gemm_epilogue", origin = "cuda"} {
// CHECK: cgc_op.gemm
// CHECK-NEXT: cgc_op.add
// CHECK-NEXT: cgc.return
// CHECK-LABEL: cgc.entry_point @variants(
// CHECK: %[[FF:.*]] = cgc.call @matmul_epilogue_0(
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @matmul_epilogue_1(%[[FF]],
// CHECK: %[[HEAD:.*]] = cgc.call @gemm_epilogue_2(
// CHECK: cgc.return %[[OUT]], %[[HEAD]] :
cgc.module {
  cgc.entry_point @variants(%x: !cgc.tensor<8x128x768x!cgc.float16>, %h: !cgc.tensor<2x64x!cgc.bfloat16>) -> (!cgc.tensor<8x128x768x!cgc.float16>, !cgc.tensor<2x64x!cgc.bfloat16>) {
    %wi = cgc.constant("intermediate.weight") : !cgc.tensor<constant 768x3072x!cgc.float16>
    %bi = cgc.constant("intermediate.bias") : !cgc.tensor<constant 3072x!cgc.float16>
    %wd = cgc.constant("output.weight") : !cgc.tensor<constant 3072x768x!cgc.float16>
    %bd = cgc.constant("output.bias") : !cgc.tensor<constant 768x!cgc.float16>
    %0 = cgc_op.matmul(%x, %wi) : (!cgc.tensor<8x128x768x!cgc.float16>, !cgc.tensor<constant 768x3072x!cgc.float16>) -> !cgc.tensor<8x128x3072x!cgc.float16>
    %1 = cgc_op.add(%0, %bi) : (!cgc.tensor<8x128x3072x!cgc.float16>, !cgc.tensor<constant 3072x!cgc.float16>) -> !cgc.tensor<8x128x3072x!cgc.float16>
    %2 = cgc_op.gelu(%1) : (!cgc.tensor<8x128x3072x!cgc.float16>) -> !cgc.tensor<8x128x3072x!cgc.float16>
    %3 = cgc_op.matmul(%2, %wd) : (!cgc.tensor<8x128x3072x!cgc.float16>, !cgc.tensor<constant 3072x768x!cgc.float16>) -> !cgc.tensor<8x128x768x!cgc.float16>
    %4 = cgc_op.add(%bd, %3) : (!cgc.tensor<constant 768x!cgc.float16>, !cgc.tensor<8x128x768x!cgc.float16>) -> !cgc.tensor<8x128x768x!cgc.float16>
    %5 = cgc_op.relu(%4) : (!cgc.tensor<8x128x768x!cgc.float16>) -> !cgc.tensor<8x128x768x!cgc.float16>
    %wc = cgc.constant("classifier.weight") : !cgc.tensor<constant 64x64x!cgc.bfloat16>
    %bc = cgc.constant("classifier.bias") : !cgc.tensor<constant 64x!cgc.bfloat16>
    %6 = cgc_op.gemm(%h, %wc) {trans_b = true} : (!cgc.tensor<2x64x!cgc.bfloat16>, !cgc.tensor<constant 64x64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %7 = cgc_op.add(%bc, %6) : (!cgc.tensor<constant 64x!cgc.bfloat16>, !cgc.tensor<2x64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    cgc.return %5, %7 : !cgc.tensor<8x128x768x!cgc.float16>, !cgc.tensor<2x64x!cgc.bfloat16>
  }
}

// -----

// The GELU written x * 0.5 * (1 + erf(x / sqrt2)), the half first, on
// bfloat16, with a tanh after it: one subgraph.
// CHECK-LABEL: cgc.subgraph @matmul_gelu_erf_half_first_epilogue_0 attributes {cgc.pattern = "matmul_gelu_erf_half_first_epilogue", origin = "cuda"} {
// CHECK: %[[P:.*]] = cgc_op.matmul
// CHECK-NEXT: %[[H:.*]] = cgc_op.add(%[[P]],
// CHECK-NEXT: %[[HALVED:.*]] = cgc_op.mul(%[[H]],
// CHECK-NEXT: %[[SCALED:.*]] = cgc_op.div(%[[H]],
// CHECK-NEXT: %[[ERF:.*]] = cgc_op.erf(%[[SCALED]])
// CHECK-NEXT: %[[CDF:.*]] = cgc_op.add(%[[ERF]],
// CHECK-NEXT: %[[GELU:.*]] = cgc_op.mul(%[[HALVED]], %[[CDF]])
// CHECK-NEXT: %[[T:.*]] = cgc_op.tanh(%[[GELU]])
// CHECK-NEXT: cgc.return %[[T]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @head_gelu(
// CHECK: %[[OUT:.*]] = cgc.call @matmul_gelu_erf_half_first_epilogue_0(
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @head_gelu(%h: !cgc.tensor<2x64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16> {
    %wc = cgc.constant("dense.weight") : !cgc.tensor<constant 64x64x!cgc.bfloat16>
    %bc = cgc.constant("dense.bias") : !cgc.tensor<constant 64x!cgc.bfloat16>
    %sqrt2 = cgc.constant("sqrt2") : !cgc.tensor<constant !cgc.bfloat16>
    %one = cgc.constant("one") : !cgc.tensor<constant !cgc.bfloat16>
    %half = cgc.constant("half") : !cgc.tensor<constant !cgc.bfloat16>
    %0 = cgc_op.matmul(%h, %wc) : (!cgc.tensor<2x64x!cgc.bfloat16>, !cgc.tensor<constant 64x64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %1 = cgc_op.add(%0, %bc) : (!cgc.tensor<2x64x!cgc.bfloat16>, !cgc.tensor<constant 64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %2 = cgc_op.mul(%1, %half) : (!cgc.tensor<2x64x!cgc.bfloat16>, !cgc.tensor<constant !cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %3 = cgc_op.div(%1, %sqrt2) : (!cgc.tensor<2x64x!cgc.bfloat16>, !cgc.tensor<constant !cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %4 = cgc_op.erf(%3) : (!cgc.tensor<2x64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %5 = cgc_op.add(%4, %one) : (!cgc.tensor<2x64x!cgc.bfloat16>, !cgc.tensor<constant !cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %6 = cgc_op.mul(%2, %5) : (!cgc.tensor<2x64x!cgc.bfloat16>, !cgc.tensor<2x64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    %7 = cgc_op.tanh(%6) : (!cgc.tensor<2x64x!cgc.bfloat16>) -> !cgc.tensor<2x64x!cgc.bfloat16>
    cgc.return %7 : !cgc.tensor<2x64x!cgc.bfloat16>
  }
}
// -----

// No fused matmul: a product alone (the matmul), a product used twice (the
// gemm, by sigmoid and by the mul of SiLU: no chain starts), float64.
// CHECK-LABEL: cgc.subgraph @matmul_0 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.pattern
// CHECK: cgc.subgraph @gemm_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @sigmoid_2 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @mul_3 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @matmul_4 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @relu_5 attributes {origin = "cuda.fallback"}
// CHECK-LABEL: cgc.entry_point @not_fused(
cgc.module {
  cgc.entry_point @not_fused(%x: !cgc.tensor<4x16x!cgc.float32>, %w: !cgc.tensor<16x16x!cgc.float32>, %d: !cgc.tensor<4x16x!cgc.float64>, %dw: !cgc.tensor<16x16x!cgc.float64>) -> (!cgc.tensor<4x16x!cgc.float32>, !cgc.tensor<4x16x!cgc.float64>) {
    %0 = cgc_op.matmul(%x, %w) : (!cgc.tensor<4x16x!cgc.float32>, !cgc.tensor<16x16x!cgc.float32>) -> !cgc.tensor<4x16x!cgc.float32>
    %1 = cgc_op.gemm(%0, %w) : (!cgc.tensor<4x16x!cgc.float32>, !cgc.tensor<16x16x!cgc.float32>) -> !cgc.tensor<4x16x!cgc.float32>
    %2 = cgc_op.sigmoid(%1) : (!cgc.tensor<4x16x!cgc.float32>) -> !cgc.tensor<4x16x!cgc.float32>
    %3 = cgc_op.mul(%1, %2) : (!cgc.tensor<4x16x!cgc.float32>, !cgc.tensor<4x16x!cgc.float32>) -> !cgc.tensor<4x16x!cgc.float32>
    %4 = cgc_op.matmul(%d, %dw) : (!cgc.tensor<4x16x!cgc.float64>, !cgc.tensor<16x16x!cgc.float64>) -> !cgc.tensor<4x16x!cgc.float64>
    %5 = cgc_op.relu(%4) : (!cgc.tensor<4x16x!cgc.float64>) -> !cgc.tensor<4x16x!cgc.float64>
    cgc.return %3, %5 : !cgc.tensor<4x16x!cgc.float32>, !cgc.tensor<4x16x!cgc.float64>
  }
}
