// cgc-move-row-transposes: the transpose that swaps nn.MultiheadAttention's
// sequence and batch back after its output projection moves to the
// projection's input, where it composes with the transpose that made it;
// the gemm becomes a matmul (its weight bound transposed, its C an add) and
// the residual add reads it directly. Chains with another reader, a gemm
// whose B is not a constant, or rows that do not line up stay. Twice
// changes nothing more.
// RUN: cgc-opt %s --split-input-file --cgc-move-row-transposes | FileCheck %s
// RUN: cgc-opt %s --split-input-file --cgc-move-row-transposes --cgc-move-row-transposes | FileCheck %s

// CHECK-LABEL: cgc.entry_point @vit_attention_tail(
// CHECK-SAME: %[[A:[^:]*]]: !cgc.tensor<2x12x197x64x!cgc.float32>, %[[RES:[^:]*]]: !cgc.tensor<2x197x768x!cgc.float32>)
// CHECK: %[[W:.*]] = cgc.constant("out_proj.weight") {permutation = [1, 0]} : !cgc.tensor<constant 768x768x!cgc.float32>
// CHECK: %[[B:.*]] = cgc.constant("out_proj.bias")
// CHECK-NOT: cgc.constant("out_proj.weight") :
// CHECK: %[[T:.*]] = cgc_op.transpose(%[[A]]) {permutation = [0, 2, 1, 3]} : (!cgc.tensor<2x12x197x64x!cgc.float32>) -> !cgc.tensor<2x197x12x64x!cgc.float32>
// CHECK-NEXT: %[[R:.*]] = cgc_op.reshape(%[[T]]) {shape = [2, 197, 768]}
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%[[R]], %[[W]]) : (!cgc.tensor<2x197x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>) -> !cgc.tensor<2x197x768x!cgc.float32>
// CHECK-NEXT: %[[P:.*]] = cgc_op.add(%[[M]], %[[B]])
// CHECK-NEXT: %[[S:.*]] = cgc_op.add(%[[P]], %[[RES]])
// CHECK-NEXT: cgc.return %[[S]]
cgc.module {
  cgc.entry_point @vit_attention_tail(%a: !cgc.tensor<2x12x197x64x!cgc.float32>, %res: !cgc.tensor<2x197x768x!cgc.float32>) -> !cgc.tensor<2x197x768x!cgc.float32> {
    %w = cgc.constant("out_proj.weight") : !cgc.tensor<constant 768x768x!cgc.float32>
    %b = cgc.constant("out_proj.bias") : !cgc.tensor<constant 768x!cgc.float32>
    %t = cgc_op.transpose(%a) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<2x12x197x64x!cgc.float32>) -> !cgc.tensor<197x2x12x64x!cgc.float32>
    %r = cgc_op.reshape(%t) {shape = [394, 768]} : (!cgc.tensor<197x2x12x64x!cgc.float32>) -> !cgc.tensor<394x768x!cgc.float32>
    %g = cgc_op.gemm(%r, %w, %b) {trans_b = true} : (!cgc.tensor<394x768x!cgc.float32>, !cgc.tensor<constant 768x768x!cgc.float32>, !cgc.tensor<constant 768x!cgc.float32>) -> !cgc.tensor<394x768x!cgc.float32>
    %s = cgc_op.reshape(%g) {shape = [197, 2, 768]} : (!cgc.tensor<394x768x!cgc.float32>) -> !cgc.tensor<197x2x768x!cgc.float32>
    %o = cgc_op.transpose(%s) {permutation = [1, 0, 2]} : (!cgc.tensor<197x2x768x!cgc.float32>) -> !cgc.tensor<2x197x768x!cgc.float32>
    %sum = cgc_op.add(%o, %res) : (!cgc.tensor<2x197x768x!cgc.float32>, !cgc.tensor<2x197x768x!cgc.float32>) -> !cgc.tensor<2x197x768x!cgc.float32>
    cgc.return %sum : !cgc.tensor<2x197x768x!cgc.float32>
  }
}

// -----

// The projection's input is read elsewhere too: nothing moves.
// CHECK-LABEL: cgc.entry_point @shared_input(
// CHECK: cgc_op.transpose(%{{.*}}) {permutation = [2, 0, 1, 3]}
// CHECK: cgc_op.gemm
// CHECK: cgc_op.transpose(%{{.*}}) {permutation = [1, 0, 2]}
cgc.module {
  cgc.entry_point @shared_input(%a: !cgc.tensor<2x4x3x8x!cgc.float32>) -> (!cgc.tensor<2x3x32x!cgc.float32>, !cgc.tensor<6x32x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 32x32x!cgc.float32>
    %t = cgc_op.transpose(%a) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<2x4x3x8x!cgc.float32>) -> !cgc.tensor<3x2x4x8x!cgc.float32>
    %r = cgc_op.reshape(%t) {shape = [6, 32]} : (!cgc.tensor<3x2x4x8x!cgc.float32>) -> !cgc.tensor<6x32x!cgc.float32>
    %g = cgc_op.gemm(%r, %w) : (!cgc.tensor<6x32x!cgc.float32>, !cgc.tensor<constant 32x32x!cgc.float32>) -> !cgc.tensor<6x32x!cgc.float32>
    %s = cgc_op.reshape(%g) {shape = [3, 2, 32]} : (!cgc.tensor<6x32x!cgc.float32>) -> !cgc.tensor<3x2x32x!cgc.float32>
    %o = cgc_op.transpose(%s) {permutation = [1, 0, 2]} : (!cgc.tensor<3x2x32x!cgc.float32>) -> !cgc.tensor<2x3x32x!cgc.float32>
    cgc.return %o, %r : !cgc.tensor<2x3x32x!cgc.float32>, !cgc.tensor<6x32x!cgc.float32>
  }
}

// -----

// A weight computed at run time, and rows that the last reshape splits
// differently from the first transpose (3·2 as 2·3): nothing moves.
// CHECK-LABEL: cgc.entry_point @not_moved(
// CHECK-COUNT-2: cgc_op.gemm
// CHECK-NOT: cgc_op.matmul
cgc.module {
  cgc.entry_point @not_moved(%a: !cgc.tensor<2x4x3x8x!cgc.float32>, %v: !cgc.tensor<32x32x!cgc.float32>) -> (!cgc.tensor<2x3x32x!cgc.float32>, !cgc.tensor<3x2x32x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 32x32x!cgc.float32>
    %t = cgc_op.transpose(%a) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<2x4x3x8x!cgc.float32>) -> !cgc.tensor<3x2x4x8x!cgc.float32>
    %r = cgc_op.reshape(%t) {shape = [6, 32]} : (!cgc.tensor<3x2x4x8x!cgc.float32>) -> !cgc.tensor<6x32x!cgc.float32>
    %g = cgc_op.gemm(%r, %v) : (!cgc.tensor<6x32x!cgc.float32>, !cgc.tensor<32x32x!cgc.float32>) -> !cgc.tensor<6x32x!cgc.float32>
    %s = cgc_op.reshape(%g) {shape = [3, 2, 32]} : (!cgc.tensor<6x32x!cgc.float32>) -> !cgc.tensor<3x2x32x!cgc.float32>
    %o = cgc_op.transpose(%s) {permutation = [1, 0, 2]} : (!cgc.tensor<3x2x32x!cgc.float32>) -> !cgc.tensor<2x3x32x!cgc.float32>
    %t2 = cgc_op.transpose(%a) {permutation = [2, 0, 1, 3]} : (!cgc.tensor<2x4x3x8x!cgc.float32>) -> !cgc.tensor<3x2x4x8x!cgc.float32>
    %r2 = cgc_op.reshape(%t2) {shape = [6, 32]} : (!cgc.tensor<3x2x4x8x!cgc.float32>) -> !cgc.tensor<6x32x!cgc.float32>
    %g2 = cgc_op.gemm(%r2, %w) : (!cgc.tensor<6x32x!cgc.float32>, !cgc.tensor<constant 32x32x!cgc.float32>) -> !cgc.tensor<6x32x!cgc.float32>
    %s2 = cgc_op.reshape(%g2) {shape = [2, 3, 32]} : (!cgc.tensor<6x32x!cgc.float32>) -> !cgc.tensor<2x3x32x!cgc.float32>
    %o2 = cgc_op.transpose(%s2) {permutation = [1, 0, 2]} : (!cgc.tensor<2x3x32x!cgc.float32>) -> !cgc.tensor<3x2x32x!cgc.float32>
    cgc.return %o, %o2 : !cgc.tensor<2x3x32x!cgc.float32>, !cgc.tensor<3x2x32x!cgc.float32>
  }
}
