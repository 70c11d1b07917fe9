// cgc-merge-common-layers: a layer equal to an earlier one (op, attributes,
// operands) is removed and its uses read the earlier one; cgc.constant ops
// of one name are one value; layers that differ in an operand, an attribute
// or a constant's name stay. Twice changes nothing more.
// RUN: cgc-opt %s --split-input-file --cgc-merge-common-layers | FileCheck %s
// RUN: cgc-opt %s --split-input-file --cgc-merge-common-layers --cgc-merge-common-layers | FileCheck %s

// BERT's per-layer attention mask: two where layers over two copies of the
// same constants become one, read by both adds.
// CHECK-LABEL: cgc.entry_point @mask(
// CHECK-SAME: %[[M:[^:]*]]: !cgc.tensor<4x!cgc.bool>, %[[X:[^:]*]]: !cgc.tensor<4x!cgc.float32>)
// CHECK-NEXT: %[[ZERO:.*]] = cgc.constant("zero")
// CHECK-NEXT: %[[LOW:.*]] = cgc.constant("low")
// CHECK-NEXT: %[[W:.*]] = cgc_op.where(%[[M]], %[[ZERO]], %[[LOW]])
// CHECK-NEXT: %[[A:.*]] = cgc_op.add(%[[X]], %[[W]])
// CHECK-NEXT: %[[B:.*]] = cgc_op.add(%[[A]], %[[W]])
// CHECK-NEXT: cgc.return %[[B]]
cgc.module {
  cgc.entry_point @mask(%m: !cgc.tensor<4x!cgc.bool>, %x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %z0 = cgc.constant("zero") : !cgc.tensor<constant 1x!cgc.float32>
    %l0 = cgc.constant("low") : !cgc.tensor<constant 1x!cgc.float32>
    %w0 = cgc_op.where(%m, %z0, %l0) : (!cgc.tensor<4x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %a = cgc_op.add(%x, %w0) : (!cgc.tensor<4x!cgc.float32>, !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %z1 = cgc.constant("zero") : !cgc.tensor<constant 1x!cgc.float32>
    %l1 = cgc.constant("low") : !cgc.tensor<constant 1x!cgc.float32>
    %w1 = cgc_op.where(%m, %z1, %l1) : (!cgc.tensor<4x!cgc.bool>, !cgc.tensor<constant 1x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %b = cgc_op.add(%a, %w1) : (!cgc.tensor<4x!cgc.float32>, !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %b : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

// What stays: another constant name, another attribute, another operand.
// CHECK-LABEL: cgc.entry_point @different(
// CHECK-COUNT-2: cgc.constant(
// CHECK-COUNT-2: cgc_op.mul(
// CHECK-COUNT-2: cgc_op.softmax(
// CHECK-COUNT-2: cgc_op.relu(
// CHECK: cgc.return
cgc.module {
  cgc.entry_point @different(%x: !cgc.tensor<2x4x!cgc.float32>, %y: !cgc.tensor<2x4x!cgc.float32>) -> (!cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>) {
    %c0 = cgc.constant("half") : !cgc.tensor<constant !cgc.float32>
    %c1 = cgc.constant("half_1") : !cgc.tensor<constant !cgc.float32>
    %0 = cgc_op.mul(%x, %c0) : (!cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %1 = cgc_op.mul(%x, %c1) : (!cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %2 = cgc_op.softmax(%x) {axis = 0 : i64} : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %3 = cgc_op.softmax(%x) {axis = 1 : i64} : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %4 = cgc_op.relu(%x) : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %5 = cgc_op.relu(%y) : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    cgc.return %0, %1, %2, %3, %4, %5 : !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>
  }
}
