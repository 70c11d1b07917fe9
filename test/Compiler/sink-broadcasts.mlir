// cgc-sink-broadcasts: an expand read by an elementwise layer moves after
// the layer where every operand that made its result large was an expand,
// and folds into a layer that broadcasts anyway. transformers' BERT mask
// (expand, a no-op expand, where, then the scores' add) ends as a where over
// one row per sequence that the add broadcasts. Expands with other readers
// stay for them; an expand whose reader is not elementwise stays; twice
// changes nothing more.
// RUN: cgc-opt %s --split-input-file --cgc-sink-broadcasts | FileCheck %s
// RUN: cgc-opt %s --split-input-file --cgc-sink-broadcasts --cgc-sink-broadcasts | FileCheck %s

// CHECK-LABEL: cgc.entry_point @bert_mask(
// CHECK-SAME: %[[KEYS:[^:]*]]: !cgc.tensor<2x1x1x128x!cgc.bool>, %[[SCORES:[^:]*]]: !cgc.tensor<2x12x128x128x!cgc.float32>)
// CHECK-NOT: cgc_op.expand
// CHECK: %[[M:.*]] = cgc_op.where(%[[KEYS]], %{{.*}}, %{{.*}}) : (!cgc.tensor<2x1x1x128x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<2x1x1x128x!cgc.float32>
// CHECK-NEXT: %[[S:.*]] = cgc_op.add(%[[SCORES]], %[[M]]) : (!cgc.tensor<2x12x128x128x!cgc.float32>, !cgc.tensor<2x1x1x128x!cgc.float32>) -> !cgc.tensor<2x12x128x128x!cgc.float32>
// CHECK-NEXT: cgc.return %[[S]]
cgc.module {
  cgc.entry_point @bert_mask(%keys: !cgc.tensor<2x1x1x128x!cgc.bool>, %scores: !cgc.tensor<2x12x128x128x!cgc.float32>) -> !cgc.tensor<2x12x128x128x!cgc.float32> {
    %zero = cgc.constant("zero") : !cgc.tensor<constant 1x!cgc.float32>
    %low = cgc.constant("low") : !cgc.tensor<constant 1x!cgc.float32>
    %e = cgc_op.expand(%keys) {shape = [2, 1, 128, 128]} : (!cgc.tensor<2x1x1x128x!cgc.bool>) -> !cgc.tensor<2x1x128x128x!cgc.bool>
    %f = cgc_op.expand(%e) {shape = [2, 1, 128, 128]} : (!cgc.tensor<2x1x128x128x!cgc.bool>) -> !cgc.tensor<2x1x128x128x!cgc.bool>
    %m = cgc_op.where(%f, %zero, %low) : (!cgc.tensor<2x1x128x128x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<2x1x128x128x!cgc.float32>
    %s = cgc_op.add(%scores, %m) : (!cgc.tensor<2x12x128x128x!cgc.float32>, !cgc.tensor<2x1x128x128x!cgc.float32>) -> !cgc.tensor<2x12x128x128x!cgc.float32>
    cgc.return %s : !cgc.tensor<2x12x128x128x!cgc.float32>
  }
}

// -----

// A chain of unary layers takes the expand to its end, where a matmul (not
// elementwise) reads it: one expand stays, after the last layer.
// CHECK-LABEL: cgc.entry_point @chain_to_matmul(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x4x!cgc.float32>, %[[W:[^:]*]]: !cgc.tensor<4x4x!cgc.float32>)
// CHECK: %[[R:.*]] = cgc_op.relu(%[[X]]) : (!cgc.tensor<1x4x!cgc.float32>) -> !cgc.tensor<1x4x!cgc.float32>
// CHECK-NEXT: %[[N:.*]] = cgc_op.neg(%[[R]]) : (!cgc.tensor<1x4x!cgc.float32>) -> !cgc.tensor<1x4x!cgc.float32>
// CHECK-NEXT: %[[E:.*]] = cgc_op.expand(%[[N]]) {shape = [4, 4]} : (!cgc.tensor<1x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32>
// CHECK-NEXT: %[[P:.*]] = cgc_op.matmul(%[[E]], %[[W]])
// CHECK-NEXT: cgc.return %[[P]]
cgc.module {
  cgc.entry_point @chain_to_matmul(%x: !cgc.tensor<1x4x!cgc.float32>, %w: !cgc.tensor<4x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32> {
    %e = cgc_op.expand(%x) {shape = [4, 4]} : (!cgc.tensor<1x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32>
    %r = cgc_op.relu(%e) : (!cgc.tensor<4x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32>
    %n = cgc_op.neg(%r) : (!cgc.tensor<4x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32>
    %p = cgc_op.matmul(%n, %w) : (!cgc.tensor<4x4x!cgc.float32>, !cgc.tensor<4x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32>
    cgc.return %p : !cgc.tensor<4x4x!cgc.float32>
  }
}

// -----

// The expand has a second reader (the result): it stays for it, and the
// add reads its input. An add whose other operand is as large as the result
// only folds the expand away. A cast to another element type moves the
// expand after it too (its result keeps its element type across the move).
// CHECK-LABEL: cgc.entry_point @shared_and_cast(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<3x1x!cgc.float32>, %[[Y:[^:]*]]: !cgc.tensor<3x5x!cgc.float32>, %[[B:[^:]*]]: !cgc.tensor<1x5x!cgc.bool>)
// CHECK: %[[E:.*]] = cgc_op.expand(%[[X]]) {shape = [3, 5]}
// CHECK-NEXT: %[[A:.*]] = cgc_op.add(%[[X]], %[[Y]]) : (!cgc.tensor<3x1x!cgc.float32>, !cgc.tensor<3x5x!cgc.float32>) -> !cgc.tensor<3x5x!cgc.float32>
// CHECK-NEXT: %[[C:.*]] = cgc_op.cast(%[[B]]) {to = !cgc.float32} : (!cgc.tensor<1x5x!cgc.bool>) -> !cgc.tensor<1x5x!cgc.float32>
// CHECK-NEXT: %[[M:.*]] = cgc_op.mul(%[[A]], %[[C]]) : (!cgc.tensor<3x5x!cgc.float32>, !cgc.tensor<1x5x!cgc.float32>) -> !cgc.tensor<3x5x!cgc.float32>
// CHECK-NEXT: cgc.return %[[E]], %[[M]]
cgc.module {
  cgc.entry_point @shared_and_cast(%x: !cgc.tensor<3x1x!cgc.float32>, %y: !cgc.tensor<3x5x!cgc.float32>, %b: !cgc.tensor<1x5x!cgc.bool>) -> (!cgc.tensor<3x5x!cgc.float32>, !cgc.tensor<3x5x!cgc.float32>) {
    %e = cgc_op.expand(%x) {shape = [3, 5]} : (!cgc.tensor<3x1x!cgc.float32>) -> !cgc.tensor<3x5x!cgc.float32>
    %a = cgc_op.add(%e, %y) : (!cgc.tensor<3x5x!cgc.float32>, !cgc.tensor<3x5x!cgc.float32>) -> !cgc.tensor<3x5x!cgc.float32>
    %eb = cgc_op.expand(%b) {shape = [3, 5]} : (!cgc.tensor<1x5x!cgc.bool>) -> !cgc.tensor<3x5x!cgc.bool>
    %c = cgc_op.cast(%eb) {to = !cgc.float32} : (!cgc.tensor<3x5x!cgc.bool>) -> !cgc.tensor<3x5x!cgc.float32>
    %m = cgc_op.mul(%a, %c) : (!cgc.tensor<3x5x!cgc.float32>, !cgc.tensor<3x5x!cgc.float32>) -> !cgc.tensor<3x5x!cgc.float32>
    cgc.return %e, %m : !cgc.tensor<3x5x!cgc.float32>, !cgc.tensor<3x5x!cgc.float32>
  }
}
