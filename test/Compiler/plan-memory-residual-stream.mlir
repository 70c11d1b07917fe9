// A transformer's residual stream: each block reads x_i through a wide
// intermediate and writes x_{i+1} = x_i + f(x_i), so consecutive residual
// values overlap at the add and each lives through a whole block. Packing
// largest-first leaves one residual tensor above the lower bound (704 of 576
// bytes here, 1.11x on ViT-B/16); placing the long-lived chain alternately at
// the bottom and the top of the buffer reaches the lower bound.

// RUN: cgc-opt %s --cgc-match-subgraphs --cgc-partition --cgc-plan-memory="in-place=false" | FileCheck %s

// CHECK-LABEL: cgc.program @main(
// CHECK-SAME: !cgc.memref<576x!cgc.int8>
// CHECK-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 576 : i64, naive_bytes = 2496 : i64, scratch_bytes = 576 : i64}
// Views in production order (a, b, c, x per block): x1 sits at the bottom,
// x2, which overlaps it, at the top, and each block's wide values between.
// CHECK: cgc.view_memref %{{.*}}[0] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x64x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[256] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x64x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[512] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x16x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[0] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x16x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[64] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x64x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[320] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x64x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[64] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x16x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[512] : !cgc.memref<576x!cgc.int8> to !cgc.memref<1x16x!cgc.float32>

cgc.module {
  cgc.entry_point @main(%x0: !cgc.tensor<1x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32> {
    %up = cgc.constant("up") : !cgc.tensor<constant 16x64x!cgc.float32>
    %sq = cgc.constant("sq") : !cgc.tensor<constant 64x64x!cgc.float32>
    %down = cgc.constant("down") : !cgc.tensor<constant 64x16x!cgc.float32>
    %a0 = cgc_op.matmul(%x0, %up) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<constant 16x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %b0 = cgc_op.matmul(%a0, %sq) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %c0 = cgc_op.matmul(%b0, %down) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    %x1 = cgc_op.add(%x0, %c0) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<1x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    %a1 = cgc_op.matmul(%x1, %up) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<constant 16x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %b1 = cgc_op.matmul(%a1, %sq) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %c1 = cgc_op.matmul(%b1, %down) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    %x2 = cgc_op.add(%x1, %c1) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<1x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    %a2 = cgc_op.matmul(%x2, %up) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<constant 16x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %b2 = cgc_op.matmul(%a2, %sq) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %c2 = cgc_op.matmul(%b2, %down) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    %x3 = cgc_op.add(%x2, %c2) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<1x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    %a3 = cgc_op.matmul(%x3, %up) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<constant 16x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %b3 = cgc_op.matmul(%a3, %sq) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x64x!cgc.float32>) -> !cgc.tensor<1x64x!cgc.float32>
    %c3 = cgc_op.matmul(%b3, %down) : (!cgc.tensor<1x64x!cgc.float32>, !cgc.tensor<constant 64x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    %x4 = cgc_op.add(%x3, %c3) : (!cgc.tensor<1x16x!cgc.float32>, !cgc.tensor<1x16x!cgc.float32>) -> !cgc.tensor<1x16x!cgc.float32>
    cgc.return %x4 : !cgc.tensor<1x16x!cgc.float32>
  }
}
