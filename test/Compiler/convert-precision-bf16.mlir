// cgc-convert-precision to bfloat16 on transformer layers: attention with a
// float mask, layer normalization, gelu and a matmul with a weight; every
// float32 value inside becomes bfloat16, the signature stays float32.
// RUN: cgc-opt %s --cgc-convert-precision=to=bfloat16 | FileCheck %s
// Idempotent:
// RUN: cgc-opt %s --cgc-convert-precision=to=bfloat16 -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --cgc-convert-precision=to=bfloat16 -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// CHECK-LABEL: cgc.entry_point @encoder(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x4x8x!cgc.float32>, %[[MASK:[^:]*]]: !cgc.tensor<1x1x4x4x!cgc.float32>)
// CHECK-SAME: -> !cgc.tensor<1x4x8x!cgc.float32>
// CHECK-NEXT: %[[XB:.*]] = cgc_op.cast(%[[X]]) {to = !cgc.bfloat16} : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[MB:.*]] = cgc_op.cast(%[[MASK]]) {to = !cgc.bfloat16} : (!cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.bfloat16>
// CHECK-NEXT: %[[G:.*]] = cgc.constant("gamma") : !cgc.tensor<constant 8x!cgc.bfloat16>
// CHECK-NEXT: %[[B:.*]] = cgc.constant("beta") : !cgc.tensor<constant 8x!cgc.bfloat16>
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") : !cgc.tensor<constant 8x8x!cgc.bfloat16>
// CHECK-NEXT: %[[N:.*]] = cgc_op.layer_norm(%[[XB]], %[[G]], %[[B]]) {epsilon = 9.9999999999999998E-13 : f64} : (!cgc.tensor<1x4x8x!cgc.bfloat16>, !cgc.tensor<constant 8x!cgc.bfloat16>, !cgc.tensor<constant 8x!cgc.bfloat16>) -> !cgc.tensor<1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[R:.*]] = cgc_op.reshape(%[[N]]) {shape = [1, 1, 4, 8]} : (!cgc.tensor<1x4x8x!cgc.bfloat16>) -> !cgc.tensor<1x1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[A:.*]] = cgc_op.scaled_dot_product_attention(%[[R]], %[[R]], %[[R]], %[[MB]]) : (!cgc.tensor<1x1x4x8x!cgc.bfloat16>, !cgc.tensor<1x1x4x8x!cgc.bfloat16>, !cgc.tensor<1x1x4x8x!cgc.bfloat16>, !cgc.tensor<1x1x4x4x!cgc.bfloat16>) -> !cgc.tensor<1x1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[F:.*]] = cgc_op.reshape(%[[A]]) {shape = [1, 4, 8]} : (!cgc.tensor<1x1x4x8x!cgc.bfloat16>) -> !cgc.tensor<1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%[[F]], %[[W]]) : (!cgc.tensor<1x4x8x!cgc.bfloat16>, !cgc.tensor<constant 8x8x!cgc.bfloat16>) -> !cgc.tensor<1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[GE:.*]] = cgc_op.gelu(%[[M]]) {approximate = "tanh"} : (!cgc.tensor<1x4x8x!cgc.bfloat16>) -> !cgc.tensor<1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[S:.*]] = cgc_op.softmax(%[[GE]]) : (!cgc.tensor<1x4x8x!cgc.bfloat16>) -> !cgc.tensor<1x4x8x!cgc.bfloat16>
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.cast(%[[S]]) {to = !cgc.float32} : (!cgc.tensor<1x4x8x!cgc.bfloat16>) -> !cgc.tensor<1x4x8x!cgc.float32>
// CHECK-NEXT: cgc.return %[[OUT]] : !cgc.tensor<1x4x8x!cgc.float32>
// CHECK-NOT: float16
cgc.module {
  cgc.entry_point @encoder(%x: !cgc.tensor<1x4x8x!cgc.float32>, %mask: !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32> {
    %gamma = cgc.constant("gamma") : !cgc.tensor<constant 8x!cgc.float32>
    %beta = cgc.constant("beta") : !cgc.tensor<constant 8x!cgc.float32>
    %w = cgc.constant("w") : !cgc.tensor<constant 8x8x!cgc.float32>
    %0 = cgc_op.layer_norm(%x, %gamma, %beta) {epsilon = 9.9999999999999998E-13 : f64} : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %1 = cgc_op.reshape(%0) {shape = [1, 1, 4, 8]} : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x1x4x8x!cgc.float32>
    %2 = cgc_op.scaled_dot_product_attention(%1, %1, %1, %mask) : (!cgc.tensor<1x1x4x8x!cgc.float32>, !cgc.tensor<1x1x4x8x!cgc.float32>, !cgc.tensor<1x1x4x8x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x8x!cgc.float32>
    %3 = cgc_op.reshape(%2) {shape = [1, 4, 8]} : (!cgc.tensor<1x1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %4 = cgc_op.matmul(%3, %w) : (!cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<constant 8x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %5 = cgc_op.gelu(%4) {approximate = "tanh"} : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %6 = cgc_op.softmax(%5) : (!cgc.tensor<1x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    cgc.return %6 : !cgc.tensor<1x4x8x!cgc.float32>
  }
}
