// cgc-move-row-transposes: the transpose that swaps nn.MultiheadAttention's
// sequence and batch back after its output projection moves to the
// projection's input, where it composes with the transpose that made it;
// the gemm becomes a matmul (its weight bound transposed, its C an add) and
// the residual add reads it directly. Chains with another reader, a gemm
// whose B is not a constant, or rows that do not line up stay. The swap
// before the input projection moves after the product and its bias, where
// only views read it. Twice changes nothing more.
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

// -----

// The head of the chain: nn.MultiheadAttention's swap of batch and
// sequence before its input projection moves after the product and its bias
// (the bias first and defined after the product, as torch's exporter
// writes it), where only views read it.
// CHECK-LABEL: cgc.entry_point @vit_attention_head(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<2x5x8x!cgc.float32>)
// CHECK: %[[W:.*]] = cgc.constant("in_proj.weight")
// CHECK: %[[B:.*]] = cgc.constant("in_proj.bias")
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%[[X]], %[[W]]) : (!cgc.tensor<2x5x8x!cgc.float32>, !cgc.tensor<constant 8x24x!cgc.float32>) -> !cgc.tensor<2x5x24x!cgc.float32>
// CHECK-NEXT: %[[P:.*]] = cgc_op.add(%[[B]], %[[M]])
// CHECK-NEXT: %[[T:.*]] = cgc_op.transpose(%[[P]]) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
// CHECK-NEXT: %[[R:.*]] = cgc_op.reshape(%[[T]]) {shape = [5, 2, 3, 8]}
// CHECK-NEXT: cgc.return %[[R]]
cgc.module {
  cgc.entry_point @vit_attention_head(%x: !cgc.tensor<2x5x8x!cgc.float32>) -> !cgc.tensor<5x2x3x8x!cgc.float32> {
    %w = cgc.constant("in_proj.weight") : !cgc.tensor<constant 8x24x!cgc.float32>
    %t = cgc_op.transpose(%x) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x8x!cgc.float32>) -> !cgc.tensor<5x2x8x!cgc.float32>
    %m = cgc_op.matmul(%t, %w) : (!cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<constant 8x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %b = cgc.constant("in_proj.bias") : !cgc.tensor<constant 24x!cgc.float32>
    %p = cgc_op.add(%b, %m) : (!cgc.tensor<constant 24x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %r = cgc_op.reshape(%p) {shape = [5, 2, 3, 8]} : (!cgc.tensor<5x2x24x!cgc.float32>) -> !cgc.tensor<5x2x3x8x!cgc.float32>
    cgc.return %r : !cgc.tensor<5x2x3x8x!cgc.float32>
  }
}

// -----

// A product no wider than its input moves whatever reads it; a wider one
// read by a computing layer, a transpose read twice, a weight computed at
// run time, and a bias that varies by row stay.
// CHECK-LABEL: cgc.entry_point @head_rules(
// CHECK: %[[N:.*]] = cgc_op.matmul(%{{.*}}, %{{.*}}) : (!cgc.tensor<2x5x8x!cgc.float32>, !cgc.tensor<constant 8x4x!cgc.float32>) -> !cgc.tensor<2x5x4x!cgc.float32>
// CHECK-NEXT: %[[NT:.*]] = cgc_op.transpose(%[[N]]) {permutation = [1, 0, 2]}
// CHECK-NEXT: cgc_op.relu(%[[NT]])
// CHECK-COUNT-4: cgc_op.transpose(%{{.*}}) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x8x!cgc.float32>)
// CHECK-NOT: cgc_op.transpose
cgc.module {
  cgc.entry_point @head_rules(%x: !cgc.tensor<2x5x8x!cgc.float32>, %v: !cgc.tensor<8x24x!cgc.float32>) -> (!cgc.tensor<5x2x4x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>, !cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>) {
    %narrow = cgc.constant("narrow") : !cgc.tensor<constant 8x4x!cgc.float32>
    %w = cgc.constant("w") : !cgc.tensor<constant 8x24x!cgc.float32>
    %rows = cgc.constant("rows") : !cgc.tensor<constant 5x1x24x!cgc.float32>
    %t1 = cgc_op.transpose(%x) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x8x!cgc.float32>) -> !cgc.tensor<5x2x8x!cgc.float32>
    %m1 = cgc_op.matmul(%t1, %narrow) : (!cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<constant 8x4x!cgc.float32>) -> !cgc.tensor<5x2x4x!cgc.float32>
    %a1 = cgc_op.relu(%m1) : (!cgc.tensor<5x2x4x!cgc.float32>) -> !cgc.tensor<5x2x4x!cgc.float32>
    %t2 = cgc_op.transpose(%x) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x8x!cgc.float32>) -> !cgc.tensor<5x2x8x!cgc.float32>
    %m2 = cgc_op.matmul(%t2, %w) : (!cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<constant 8x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %a2 = cgc_op.relu(%m2) : (!cgc.tensor<5x2x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %t3 = cgc_op.transpose(%x) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x8x!cgc.float32>) -> !cgc.tensor<5x2x8x!cgc.float32>
    %m3 = cgc_op.matmul(%t3, %w) : (!cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<constant 8x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %t4 = cgc_op.transpose(%x) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x8x!cgc.float32>) -> !cgc.tensor<5x2x8x!cgc.float32>
    %m4 = cgc_op.matmul(%t4, %v) : (!cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<8x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %t5 = cgc_op.transpose(%x) {permutation = [1, 0, 2]} : (!cgc.tensor<2x5x8x!cgc.float32>) -> !cgc.tensor<5x2x8x!cgc.float32>
    %m5 = cgc_op.matmul(%t5, %w) : (!cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<constant 8x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %p5 = cgc_op.add(%m5, %rows) : (!cgc.tensor<5x2x24x!cgc.float32>, !cgc.tensor<constant 5x1x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    %r5 = cgc_op.reshape(%p5) {shape = [5, 2, 24]} : (!cgc.tensor<5x2x24x!cgc.float32>) -> !cgc.tensor<5x2x24x!cgc.float32>
    cgc.return %a1, %a2, %m3, %t3, %m4, %r5 : !cgc.tensor<5x2x4x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>, !cgc.tensor<5x2x8x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>, !cgc.tensor<5x2x24x!cgc.float32>
  }
}
