// view_chain with selections and shared layers: torchvision's ViT exports
// nn.MultiheadAttention's q, k and v as slices of one projection
// [S, B, 3 * 768]: two reshapes, a transpose [3, 1, 2, 0, 4] and a reshape
// that the three chains share, a gather of one constant index each, then
// the heads' reshape, transpose and reshape (and kT's transpose). With
// cgc_op.gather listed, each chain takes its gather and the shared layers
// above, which the subgraph holds once.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=t=%S/Inputs/match-view-chain-shared.mlir" | FileCheck %s

// Batch 1, as the importer reads the export (scalar indices): everything
// between the in-projection's bias add and the out-projection's gemm is one
// subgraph, the shared reshapes and transpose once, each gather's constant
// an argument (after the projection, in order of first use).
// CHECK-LABEL: cgc.subgraph @heads_2 attributes {cgc.pattern = "heads", origin = "t"} {
// CHECK-NEXT: cgc.functional_definition private @heads_2_functional(%[[G:[^:]*]]: !cgc.tensor<197x1x2304x!cgc.float32>, %[[I0:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[I1:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[I2:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[C:[^:]*]]: !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<197x768x!cgc.float32> {
// CHECK-NEXT: %[[R1:.*]] = cgc_op.reshape(%[[G]]) {shape = [197, 1, 3, 768]}
// CHECK-NEXT: %[[R2:.*]] = cgc_op.reshape(%[[R1]]) {shape = [1, 197, 1, 3, 768]}
// CHECK-NEXT: %[[T:.*]] = cgc_op.transpose(%[[R2]]) {permutation = [3, 1, 2, 0, 4]}
// CHECK-NEXT: %[[QKV:.*]] = cgc_op.reshape(%[[T]]) {shape = [3, 197, 1, 768]}
// CHECK-NEXT: %[[Q:.*]] = cgc_op.gather(%[[QKV]], %[[I0]])
// CHECK-NEXT: %[[QR:.*]] = cgc_op.reshape(%[[Q]]) {shape = [197, 12, 64]}
// CHECK-NEXT: %[[QT:.*]] = cgc_op.transpose(%[[QR]]) {permutation = [1, 0, 2]}
// CHECK-NEXT: %[[QH:.*]] = cgc_op.reshape(%[[QT]]) {shape = [1, 12, 197, 64]}
// CHECK-NEXT: %[[K:.*]] = cgc_op.gather(%[[QKV]], %[[I1]])
// CHECK-NEXT: %[[KR:.*]] = cgc_op.reshape(%[[K]]) {shape = [197, 12, 64]}
// CHECK-NEXT: %[[KT:.*]] = cgc_op.transpose(%[[KR]]) {permutation = [1, 0, 2]}
// CHECK-NEXT: %[[KH:.*]] = cgc_op.reshape(%[[KT]]) {shape = [1, 12, 197, 64]}
// CHECK-NEXT: %[[V:.*]] = cgc_op.gather(%[[QKV]], %[[I2]])
// CHECK-NEXT: %[[VR:.*]] = cgc_op.reshape(%[[V]]) {shape = [197, 12, 64]}
// CHECK-NEXT: %[[VT:.*]] = cgc_op.transpose(%[[VR]]) {permutation = [1, 0, 2]}
// CHECK-NEXT: %[[VH:.*]] = cgc_op.reshape(%[[VT]]) {shape = [1, 12, 197, 64]}
// CHECK-NEXT: %[[QS:.*]] = cgc_op.mul(%[[QH]], %[[C]])
// CHECK-NEXT: %[[KHT:.*]] = cgc_op.transpose(%[[KH]]) {permutation = [0, 1, 3, 2]}
// CHECK-NEXT: %[[KS:.*]] = cgc_op.mul(%[[KHT]], %[[C]])
// CHECK-NEXT: %[[S:.*]] = cgc_op.matmul(%[[QS]], %[[KS]])
// CHECK-NEXT: %[[P:.*]] = cgc_op.softmax(%[[S]])
// CHECK-NEXT: %[[O:.*]] = cgc_op.matmul(%[[P]], %[[VH]])
// CHECK-NEXT: %[[OT:.*]] = cgc_op.transpose(%[[O]]) {permutation = [2, 0, 1, 3]}
// CHECK-NEXT: %[[OR:.*]] = cgc_op.reshape(%[[OT]]) {shape = [197, 768]}
// CHECK-NEXT: cgc.return %[[OR]]
// CHECK-LABEL: cgc.entry_point @vit_b1(
// CHECK: %[[BIASED:.*]] = cgc.call @add_1(
// CHECK-NEXT: %[[C0:.*]] = cgc.constant("Constant_0_output_0")
// CHECK-NEXT: %[[C1:.*]] = cgc.constant("Constant_1_output_0")
// CHECK-NEXT: %[[C2:.*]] = cgc.constant("Constant_2_output_0")
// CHECK-NEXT: %[[SCALE:.*]] = cgc.constant("sqrt_scale")
// CHECK-NEXT: %[[HEADS:.*]] = cgc.call @heads_2(%[[BIASED]], %[[C0]], %[[C1]], %[[C2]], %[[SCALE]])
// CHECK: cgc.call @gemm_3(%[[HEADS]],
cgc.module {
  cgc.entry_point @vit_b1(%x: !cgc.tensor<197x1x768x!cgc.float32>) -> !cgc.tensor<197x768x!cgc.float32> {
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

// Batch 32 (k's index given as [1], which keeps a dimension of size 1):
// the same subgraph, at these shapes.
// CHECK-LABEL: cgc.subgraph @heads_2 attributes {cgc.pattern = "heads", origin = "t"} {
// CHECK-NEXT: cgc.functional_definition private @heads_2_functional(%[[G:[^:]*]]: !cgc.tensor<197x32x2304x!cgc.float32>, %[[I0:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[I1:[^:]*]]: !cgc.tensor<constant 1x!cgc.int64>, %[[I2:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[C:[^:]*]]: !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<6304x768x!cgc.float32> {
// CHECK-NEXT: %[[R1:.*]] = cgc_op.reshape(%[[G]]) {shape = [197, 32, 3, 768]}
// CHECK-NEXT: %[[R2:.*]] = cgc_op.reshape(%[[R1]]) {shape = [1, 197, 32, 3, 768]}
// CHECK-NEXT: %[[T:.*]] = cgc_op.transpose(%[[R2]]) {permutation = [3, 1, 2, 0, 4]}
// CHECK-NEXT: %[[QKV:.*]] = cgc_op.reshape(%[[T]]) {shape = [3, 197, 32, 768]}
// CHECK-NEXT: %[[Q:.*]] = cgc_op.gather(%[[QKV]], %[[I0]])
// CHECK-NEXT: cgc_op.reshape(%[[Q]]) {shape = [197, 384, 64]}
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.reshape({{.*}}) {shape = [32, 12, 197, 64]}
// CHECK-NEXT: %[[K:.*]] = cgc_op.gather(%[[QKV]], %[[I1]]) : ({{.*}}) -> !cgc.tensor<1x197x32x768x!cgc.float32>
// CHECK-NEXT: cgc_op.reshape(%[[K]]) {shape = [197, 384, 64]}
// CHECK-NOT: cgc.subgraph
// CHECK: %[[V:.*]] = cgc_op.gather(%[[QKV]], %[[I2]])
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.reshape({{.*}}) {shape = [6304, 768]}
// CHECK-NEXT: cgc.return
// CHECK-LABEL: cgc.entry_point @vit_b32(
// CHECK: %[[BIASED:.*]] = cgc.call @add_1(
// CHECK: cgc.call @heads_2(%[[BIASED]],
cgc.module {
  cgc.entry_point @vit_b32(%x: !cgc.tensor<197x32x768x!cgc.float32>) -> !cgc.tensor<6304x768x!cgc.float32> {
    %w_in = cgc.constant("in_proj_weight") : !cgc.tensor<constant 768x2304x!cgc.float32>
    %b_in = cgc.constant("in_proj_bias") : !cgc.tensor<constant 2304x!cgc.float32>
    %15 = cgc_op.matmul(%x, %w_in) : (!cgc.tensor<197x32x768x!cgc.float32>, !cgc.tensor<constant 768x2304x!cgc.float32>) -> !cgc.tensor<197x32x2304x!cgc.float32>
    %16 = cgc_op.add(%b_in, %15) : (!cgc.tensor<constant 2304x!cgc.float32>, !cgc.tensor<197x32x2304x!cgc.float32>) -> !cgc.tensor<197x32x2304x!cgc.float32>
    %17 = cgc_op.reshape(%16) {shape = [197, 32, 3, 768]} : (!cgc.tensor<197x32x2304x!cgc.float32>) -> !cgc.tensor<197x32x3x768x!cgc.float32>
    %18 = cgc_op.reshape(%17) {shape = [1, 197, 32, 3, 768]} : (!cgc.tensor<197x32x3x768x!cgc.float32>) -> !cgc.tensor<1x197x32x3x768x!cgc.float32>
    %19 = cgc_op.transpose(%18) {permutation = [3, 1, 2, 0, 4]} : (!cgc.tensor<1x197x32x3x768x!cgc.float32>) -> !cgc.tensor<3x197x32x1x768x!cgc.float32>
    %20 = cgc_op.reshape(%19) {shape = [3, 197, 32, 768]} : (!cgc.tensor<3x197x32x1x768x!cgc.float32>) -> !cgc.tensor<3x197x32x768x!cgc.float32>
    %c0 = cgc.constant("Constant_0_output_0") : !cgc.tensor<constant !cgc.int64>
    %22 = cgc_op.gather(%20, %c0) : (!cgc.tensor<3x197x32x768x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x32x768x!cgc.float32>
    %r22 = cgc_op.reshape(%22) {shape = [197, 384, 64]} : (!cgc.tensor<197x32x768x!cgc.float32>) -> !cgc.tensor<197x384x64x!cgc.float32>
    %t22 = cgc_op.transpose(%r22) {permutation = [1, 0, 2]} : (!cgc.tensor<197x384x64x!cgc.float32>) -> !cgc.tensor<384x197x64x!cgc.float32>
    %h22 = cgc_op.reshape(%t22) {shape = [32, 12, 197, 64]} : (!cgc.tensor<384x197x64x!cgc.float32>) -> !cgc.tensor<32x12x197x64x!cgc.float32>
    %c1 = cgc.constant("Constant_1_output_0") : !cgc.tensor<constant 1x!cgc.int64>
    %24 = cgc_op.gather(%20, %c1) : (!cgc.tensor<3x197x32x768x!cgc.float32>, !cgc.tensor<constant 1x!cgc.int64>) -> !cgc.tensor<1x197x32x768x!cgc.float32>
    %r24 = cgc_op.reshape(%24) {shape = [197, 384, 64]} : (!cgc.tensor<1x197x32x768x!cgc.float32>) -> !cgc.tensor<197x384x64x!cgc.float32>
    %t24 = cgc_op.transpose(%r24) {permutation = [1, 0, 2]} : (!cgc.tensor<197x384x64x!cgc.float32>) -> !cgc.tensor<384x197x64x!cgc.float32>
    %h24 = cgc_op.reshape(%t24) {shape = [32, 12, 197, 64]} : (!cgc.tensor<384x197x64x!cgc.float32>) -> !cgc.tensor<32x12x197x64x!cgc.float32>
    %c2 = cgc.constant("Constant_2_output_0") : !cgc.tensor<constant !cgc.int64>
    %26 = cgc_op.gather(%20, %c2) : (!cgc.tensor<3x197x32x768x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<197x32x768x!cgc.float32>
    %r26 = cgc_op.reshape(%26) {shape = [197, 384, 64]} : (!cgc.tensor<197x32x768x!cgc.float32>) -> !cgc.tensor<197x384x64x!cgc.float32>
    %t26 = cgc_op.transpose(%r26) {permutation = [1, 0, 2]} : (!cgc.tensor<197x384x64x!cgc.float32>) -> !cgc.tensor<384x197x64x!cgc.float32>
    %h26 = cgc_op.reshape(%t26) {shape = [32, 12, 197, 64]} : (!cgc.tensor<384x197x64x!cgc.float32>) -> !cgc.tensor<32x12x197x64x!cgc.float32>
    %scale = cgc.constant("sqrt_scale") : !cgc.tensor<constant !cgc.float32>
    %qs = cgc_op.mul(%h22, %scale) : (!cgc.tensor<32x12x197x64x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<32x12x197x64x!cgc.float32>
    %kt = cgc_op.transpose(%h24) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<32x12x197x64x!cgc.float32>) -> !cgc.tensor<32x12x64x197x!cgc.float32>
    %kts = cgc_op.mul(%kt, %scale) : (!cgc.tensor<32x12x64x197x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<32x12x64x197x!cgc.float32>
    %s = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<32x12x197x64x!cgc.float32>, !cgc.tensor<32x12x64x197x!cgc.float32>) -> !cgc.tensor<32x12x197x197x!cgc.float32>
    %p = cgc_op.softmax(%s) {axis = 3 : i64} : (!cgc.tensor<32x12x197x197x!cgc.float32>) -> !cgc.tensor<32x12x197x197x!cgc.float32>
    %o = cgc_op.matmul(%p, %h26) : (!cgc.tensor<32x12x197x197x!cgc.float32>, !cgc.tensor<32x12x197x64x!cgc.float32>) -> !cgc.tensor<32x12x197x64x!cgc.float32>
    %ot = cgc_op.transpose(%o) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<32x12x197x64x!cgc.float32>) -> !cgc.tensor<197x32x12x64x!cgc.float32>
    %or = cgc_op.reshape(%ot) {shape = [6304, 768]} : (!cgc.tensor<197x32x12x64x!cgc.float32>) -> !cgc.tensor<6304x768x!cgc.float32>
    %w_out = cgc.constant("out_proj_weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %b_out = cgc.constant("out_proj_bias") : !cgc.tensor<constant 768x!cgc.float32>
    %y = cgc_op.gemm(%or, %w_out, %b_out) {trans_b = true} : (!cgc.tensor<6304x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>, !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<6304x768x!cgc.float32>
      cgc.return %y : !cgc.tensor<6304x768x!cgc.float32>
  }
}

// -----

// A shared layer whose result is read outside: the transpose's result is
// also an output, so no chain takes it (nor the reshapes above it); the
// chains share the reshape below it and read the transposed tensor.
// CHECK-LABEL: cgc.subgraph @transpose_4 attributes {origin = "fallback"}
// CHECK-LABEL: cgc.subgraph @heads_5 attributes {cgc.pattern = "heads", origin = "t"} {
// CHECK-NEXT: cgc.functional_definition private @heads_5_functional(%[[T:[^:]*]]: !cgc.tensor<3x4x2x1x8x!cgc.float32>,
// CHECK-NEXT: %[[QKV:.*]] = cgc_op.reshape(%[[T]]) {shape = [3, 4, 2, 8]}
// CHECK-NEXT: cgc_op.gather(%[[QKV]],
// CHECK-NOT: cgc_op.reshape(%[[T]])
// CHECK-LABEL: cgc.entry_point @transpose_also_output(
// CHECK: %[[TRANSPOSED:.*]] = cgc.call @transpose_4(
// CHECK: %[[OUT:.*]] = cgc.call @heads_5(%[[TRANSPOSED]],
// CHECK: cgc.return %{{.*}}, %[[TRANSPOSED]]
cgc.module {
  cgc.entry_point @transpose_also_output(%x: !cgc.tensor<4x2x8x!cgc.float32>) -> (!cgc.tensor<8x8x!cgc.float32>, !cgc.tensor<3x4x2x1x8x!cgc.float32>) {
    %w_in = cgc.constant("in_proj_weight") : !cgc.tensor<constant 8x24x!cgc.float32>
    %b_in = cgc.constant("in_proj_bias") : !cgc.tensor<constant 24x!cgc.float32>
    %15 = cgc_op.matmul(%x, %w_in) : (!cgc.tensor<4x2x8x!cgc.float32>, !cgc.tensor<constant 8x24x!cgc.float32>) -> !cgc.tensor<4x2x24x!cgc.float32>
    %16 = cgc_op.add(%b_in, %15) : (!cgc.tensor<constant 24x!cgc.float32>, !cgc.tensor<4x2x24x!cgc.float32>) -> !cgc.tensor<4x2x24x!cgc.float32>
    %17 = cgc_op.reshape(%16) {shape = [4, 2, 3, 8]} : (!cgc.tensor<4x2x24x!cgc.float32>) -> !cgc.tensor<4x2x3x8x!cgc.float32>
    %18 = cgc_op.reshape(%17) {shape = [1, 4, 2, 3, 8]} : (!cgc.tensor<4x2x3x8x!cgc.float32>) -> !cgc.tensor<1x4x2x3x8x!cgc.float32>
    %19 = cgc_op.transpose(%18) {permutation = [3, 1, 2, 0, 4]} : (!cgc.tensor<1x4x2x3x8x!cgc.float32>) -> !cgc.tensor<3x4x2x1x8x!cgc.float32>
    %20 = cgc_op.reshape(%19) {shape = [3, 4, 2, 8]} : (!cgc.tensor<3x4x2x1x8x!cgc.float32>) -> !cgc.tensor<3x4x2x8x!cgc.float32>
    %c0 = cgc.constant("Constant_0_output_0") : !cgc.tensor<constant !cgc.int64>
    %22 = cgc_op.gather(%20, %c0) : (!cgc.tensor<3x4x2x8x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<4x2x8x!cgc.float32>
    %r22 = cgc_op.reshape(%22) {shape = [4, 4, 4]} : (!cgc.tensor<4x2x8x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %t22 = cgc_op.transpose(%r22) {permutation = [1, 0, 2]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %h22 = cgc_op.reshape(%t22) {shape = [2, 2, 4, 4]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %c1 = cgc.constant("Constant_1_output_0") : !cgc.tensor<constant !cgc.int64>
    %24 = cgc_op.gather(%20, %c1) : (!cgc.tensor<3x4x2x8x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<4x2x8x!cgc.float32>
    %r24 = cgc_op.reshape(%24) {shape = [4, 4, 4]} : (!cgc.tensor<4x2x8x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %t24 = cgc_op.transpose(%r24) {permutation = [1, 0, 2]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %h24 = cgc_op.reshape(%t24) {shape = [2, 2, 4, 4]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %c2 = cgc.constant("Constant_2_output_0") : !cgc.tensor<constant !cgc.int64>
    %26 = cgc_op.gather(%20, %c2) : (!cgc.tensor<3x4x2x8x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<4x2x8x!cgc.float32>
    %r26 = cgc_op.reshape(%26) {shape = [4, 4, 4]} : (!cgc.tensor<4x2x8x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %t26 = cgc_op.transpose(%r26) {permutation = [1, 0, 2]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %h26 = cgc_op.reshape(%t26) {shape = [2, 2, 4, 4]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %scale = cgc.constant("sqrt_scale") : !cgc.tensor<constant !cgc.float32>
    %qs = cgc_op.mul(%h22, %scale) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %kt = cgc_op.transpose(%h24) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %kts = cgc_op.mul(%kt, %scale) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %s = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %p = cgc_op.softmax(%s) {axis = 3 : i64} : (!cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %o = cgc_op.matmul(%p, %h26) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %ot = cgc_op.transpose(%o) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<4x2x2x4x!cgc.float32>
    %or = cgc_op.reshape(%ot) {shape = [8, 8]} : (!cgc.tensor<4x2x2x4x!cgc.float32>) -> !cgc.tensor<8x8x!cgc.float32>
    %w_out = cgc.constant("out_proj_weight") : !cgc.tensor<constant 8x8x!cgc.float32>
    %b_out = cgc.constant("out_proj_bias") : !cgc.tensor<constant 8x!cgc.float32>
    %y = cgc_op.gemm(%or, %w_out, %b_out) {trans_b = true} : (!cgc.tensor<8x8x!cgc.float32>, !cgc.tensor<constant 8x8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<8x8x!cgc.float32>
      cgc.return %y, %19 : !cgc.tensor<8x8x!cgc.float32>, !cgc.tensor<3x4x2x1x8x!cgc.float32>
  }
}

// -----

// A gather whose index is not a constant (here an argument) is no
// selection: q's chain stops at it, and since the shared reshape's result
// is then read outside the match (by that gather), the chains of k and v
// stop below it too.
// CHECK-LABEL: cgc.subgraph @gather_6 attributes {origin = "fallback"}
// CHECK-NEXT: cgc.functional_definition private @gather_6_functional(%{{[^:]*}}: !cgc.tensor<3x4x2x8x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<!cgc.int64>)
// CHECK-LABEL: cgc.subgraph @heads_7 attributes {cgc.pattern = "heads", origin = "t"} {
// CHECK-NEXT: cgc.functional_definition private @heads_7_functional(%[[Q:[^:]*]]: !cgc.tensor<4x2x8x!cgc.float32>, %[[QKV:[^:]*]]: !cgc.tensor<3x4x2x8x!cgc.float32>,
// CHECK-NEXT: cgc_op.reshape(%[[Q]]) {shape = [4, 4, 4]}
// CHECK-NOT: cgc.subgraph
// CHECK: cgc_op.gather(%[[QKV]],
// CHECK-LABEL: cgc.entry_point @index_argument(
// CHECK: %[[SHARED:.*]] = cgc.call @reshape_5(
// CHECK-NEXT: %[[PICKED:.*]] = cgc.call @gather_6(%[[SHARED]], %arg1)
// CHECK: cgc.call @heads_7(%[[PICKED]], %[[SHARED]],
cgc.module {
  cgc.entry_point @index_argument(%x: !cgc.tensor<4x2x8x!cgc.float32>, %i0: !cgc.tensor<!cgc.int64>) -> !cgc.tensor<8x8x!cgc.float32> {
    %w_in = cgc.constant("in_proj_weight") : !cgc.tensor<constant 8x24x!cgc.float32>
    %b_in = cgc.constant("in_proj_bias") : !cgc.tensor<constant 24x!cgc.float32>
    %15 = cgc_op.matmul(%x, %w_in) : (!cgc.tensor<4x2x8x!cgc.float32>, !cgc.tensor<constant 8x24x!cgc.float32>) -> !cgc.tensor<4x2x24x!cgc.float32>
    %16 = cgc_op.add(%b_in, %15) : (!cgc.tensor<constant 24x!cgc.float32>, !cgc.tensor<4x2x24x!cgc.float32>) -> !cgc.tensor<4x2x24x!cgc.float32>
    %17 = cgc_op.reshape(%16) {shape = [4, 2, 3, 8]} : (!cgc.tensor<4x2x24x!cgc.float32>) -> !cgc.tensor<4x2x3x8x!cgc.float32>
    %18 = cgc_op.reshape(%17) {shape = [1, 4, 2, 3, 8]} : (!cgc.tensor<4x2x3x8x!cgc.float32>) -> !cgc.tensor<1x4x2x3x8x!cgc.float32>
    %19 = cgc_op.transpose(%18) {permutation = [3, 1, 2, 0, 4]} : (!cgc.tensor<1x4x2x3x8x!cgc.float32>) -> !cgc.tensor<3x4x2x1x8x!cgc.float32>
    %20 = cgc_op.reshape(%19) {shape = [3, 4, 2, 8]} : (!cgc.tensor<3x4x2x1x8x!cgc.float32>) -> !cgc.tensor<3x4x2x8x!cgc.float32>
    %22 = cgc_op.gather(%20, %i0) : (!cgc.tensor<3x4x2x8x!cgc.float32>, !cgc.tensor<!cgc.int64>) -> !cgc.tensor<4x2x8x!cgc.float32>
    %r22 = cgc_op.reshape(%22) {shape = [4, 4, 4]} : (!cgc.tensor<4x2x8x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %t22 = cgc_op.transpose(%r22) {permutation = [1, 0, 2]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %h22 = cgc_op.reshape(%t22) {shape = [2, 2, 4, 4]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %c1 = cgc.constant("Constant_1_output_0") : !cgc.tensor<constant !cgc.int64>
    %24 = cgc_op.gather(%20, %c1) : (!cgc.tensor<3x4x2x8x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<4x2x8x!cgc.float32>
    %r24 = cgc_op.reshape(%24) {shape = [4, 4, 4]} : (!cgc.tensor<4x2x8x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %t24 = cgc_op.transpose(%r24) {permutation = [1, 0, 2]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %h24 = cgc_op.reshape(%t24) {shape = [2, 2, 4, 4]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %c2 = cgc.constant("Constant_2_output_0") : !cgc.tensor<constant !cgc.int64>
    %26 = cgc_op.gather(%20, %c2) : (!cgc.tensor<3x4x2x8x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<4x2x8x!cgc.float32>
    %r26 = cgc_op.reshape(%26) {shape = [4, 4, 4]} : (!cgc.tensor<4x2x8x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %t26 = cgc_op.transpose(%r26) {permutation = [1, 0, 2]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<4x4x4x!cgc.float32>
    %h26 = cgc_op.reshape(%t26) {shape = [2, 2, 4, 4]} : (!cgc.tensor<4x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %scale = cgc.constant("sqrt_scale") : !cgc.tensor<constant !cgc.float32>
    %qs = cgc_op.mul(%h22, %scale) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %kt = cgc_op.transpose(%h24) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %kts = cgc_op.mul(%kt, %scale) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %s = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %p = cgc_op.softmax(%s) {axis = 3 : i64} : (!cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %o = cgc_op.matmul(%p, %h26) : (!cgc.tensor<2x2x4x4x!cgc.float32>, !cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<2x2x4x4x!cgc.float32>
    %ot = cgc_op.transpose(%o) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<2x2x4x4x!cgc.float32>) -> !cgc.tensor<4x2x2x4x!cgc.float32>
    %or = cgc_op.reshape(%ot) {shape = [8, 8]} : (!cgc.tensor<4x2x2x4x!cgc.float32>) -> !cgc.tensor<8x8x!cgc.float32>
    %w_out = cgc.constant("out_proj_weight") : !cgc.tensor<constant 8x8x!cgc.float32>
    %b_out = cgc.constant("out_proj_bias") : !cgc.tensor<constant 8x!cgc.float32>
    %y = cgc_op.gemm(%or, %w_out, %b_out) {trans_b = true} : (!cgc.tensor<8x8x!cgc.float32>, !cgc.tensor<constant 8x8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<8x8x!cgc.float32>
      cgc.return %y : !cgc.tensor<8x8x!cgc.float32>
  }
}

// -----

// A constant index of two elements is no selection either (it gathers two
// slices): that gather falls back and ends q's chain below the shared
// transpose; k and v, picked from its result, share the reshape after it.
// CHECK-LABEL: cgc.subgraph @gather_2 attributes {origin = "fallback"}
// CHECK-LABEL: cgc.subgraph @heads_3 attributes {cgc.pattern = "heads", origin = "t"} {
// CHECK-NEXT: cgc.functional_definition private @heads_3_functional(%[[QKV:[^:]*]]: !cgc.tensor<3x4x1x8x!cgc.float32>, %[[I0:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[KV:[^:]*]]: !cgc.tensor<2x4x1x8x!cgc.float32>, %[[I1:[^:]*]]: !cgc.tensor<constant !cgc.int64>, %[[C:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[I2:[^:]*]]: !cgc.tensor<constant !cgc.int64>)
// CHECK-NEXT: cgc_op.gather(%[[QKV]], %[[I0]])
// CHECK-NEXT: cgc_op.reshape
// CHECK-NEXT: %[[KVH:.*]] = cgc_op.reshape(%[[KV]])
// CHECK-NEXT: cgc_op.gather(%[[KVH]], %[[I1]])
// CHECK-NOT: cgc_op.reshape(%[[KV]])
// CHECK: cgc_op.gather(%[[KVH]], %[[I2]])
// CHECK-LABEL: cgc.entry_point @two_indices(
// CHECK: %[[PAIR:.*]] = cgc.constant("Constant_12_output_0")
// CHECK-NEXT: cgc.call @gather_2(%{{.*}}, %[[PAIR]])
cgc.module {
  cgc.entry_point @two_indices(%g: !cgc.tensor<4x1x24x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32> {
    %r = cgc_op.reshape(%g) {shape = [4, 1, 3, 8]} : (!cgc.tensor<4x1x24x!cgc.float32>) -> !cgc.tensor<4x1x3x8x!cgc.float32>
    %t = cgc_op.transpose(%r) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<4x1x3x8x!cgc.float32>) -> !cgc.tensor<3x4x1x8x!cgc.float32>
    %c0 = cgc.constant("Constant_0_output_0") : !cgc.tensor<constant !cgc.int64>
    %q = cgc_op.gather(%t, %c0) : (!cgc.tensor<3x4x1x8x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<4x1x8x!cgc.float32>
    %qh = cgc_op.reshape(%q) {shape = [1, 2, 4, 4]} : (!cgc.tensor<4x1x8x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %c12 = cgc.constant("Constant_12_output_0") : !cgc.tensor<constant 2x!cgc.int64>
    %kv = cgc_op.gather(%t, %c12) : (!cgc.tensor<3x4x1x8x!cgc.float32>, !cgc.tensor<constant 2x!cgc.int64>) -> !cgc.tensor<2x4x1x8x!cgc.float32>
    %kvh = cgc_op.reshape(%kv) {shape = [2, 1, 2, 4, 4]} : (!cgc.tensor<2x4x1x8x!cgc.float32>) -> !cgc.tensor<2x1x2x4x4x!cgc.float32>
    %c1 = cgc.constant("Constant_1_output_0") : !cgc.tensor<constant !cgc.int64>
    %k = cgc_op.gather(%kvh, %c1) : (!cgc.tensor<2x1x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %kt = cgc_op.transpose(%k) {permutation = [0, 1, 3, 2]} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %scale = cgc.constant("sqrt_scale") : !cgc.tensor<constant !cgc.float32>
    %qs = cgc_op.mul(%qh, %scale) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %kts = cgc_op.mul(%kt, %scale) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %s = cgc_op.matmul(%qs, %kts) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %p = cgc_op.softmax(%s) {axis = 3 : i64} : (!cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %c2 = cgc.constant("Constant_2_output_0") : !cgc.tensor<constant !cgc.int64>
    %v = cgc_op.gather(%kvh, %c2) : (!cgc.tensor<2x1x2x4x4x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    %o = cgc_op.matmul(%p, %v) : (!cgc.tensor<1x2x4x4x!cgc.float32>, !cgc.tensor<1x2x4x4x!cgc.float32>) -> !cgc.tensor<1x2x4x4x!cgc.float32>
    cgc.return %o : !cgc.tensor<1x2x4x4x!cgc.float32>
  }
}
