// cgc-channels-last on 2-D max and average pools: a pool whose input the
// pass holds in NHWC takes the convolutions' form (its own transpose of
// that value to NCHW, the unchanged pool, the one transpose of its result
// to NHWC), so ResNet's stem pool sits between NHWC neighbours; its NHWC
// result feeds the next convolutions, elementwise layers and pools. Pools
// of NCHW values, 1-D and 3-D pools and the global pools stay as they are.
// RUN: cgc-opt %s --split-input-file --cgc-channels-last | FileCheck %s
// Converting a converted model changes nothing:
// RUN: cgc-opt %s --split-input-file --cgc-channels-last -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --split-input-file --cgc-channels-last -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// ResNet's stem: 7×7 convolution (stride 2) -> relu -> 3×3 max pool
// (stride 2, padding 1) -> the first block's 1×1 convolution and its
// shortcut. The pool reads the relu's NHWC result through its own
// transpose, keeps its attributes, and its NHWC result is what both
// convolutions transpose back, each with a transpose of its own; no NCHW
// value of the relu remains.
// CHECK-LABEL: cgc.entry_point @resnet_stem(
// CHECK: %[[C0:.*]] = cgc_op.convolution(
// CHECK-NEXT: %[[Y0:.*]] = cgc_op.transpose(%[[C0]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x10x10x!cgc.float32>) -> !cgc.tensor<1x10x10x6x!cgc.float32>
// CHECK-NEXT: %[[R0:.*]] = cgc_op.relu(%[[Y0]]) : (!cgc.tensor<1x10x10x6x!cgc.float32>) -> !cgc.tensor<1x10x10x6x!cgc.float32>
// CHECK-NEXT: %[[PT:.*]] = cgc_op.transpose(%[[R0]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x10x10x6x!cgc.float32>) -> !cgc.tensor<1x6x10x10x!cgc.float32>
// CHECK-NEXT: %[[P:.*]] = cgc_op.max_pool(%[[PT]]) {end_padding = [1, 1], kernel_shape = [3, 3], start_padding = [1, 1], strides = [2, 2]} : (!cgc.tensor<1x6x10x10x!cgc.float32>) -> !cgc.tensor<1x6x5x5x!cgc.float32>
// CHECK-NEXT: %[[Z:.*]] = cgc_op.transpose(%[[P]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x5x5x!cgc.float32>) -> !cgc.tensor<1x5x5x6x!cgc.float32>
// CHECK-NEXT: %[[XT1:.*]] = cgc_op.transpose(%[[Z]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x5x5x6x!cgc.float32>) -> !cgc.tensor<1x6x5x5x!cgc.float32>
// CHECK-NEXT: %[[WT1:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C1:.*]] = cgc_op.convolution(%[[XT1]], %[[WT1]])
// CHECK-NEXT: %[[Y1:.*]] = cgc_op.transpose(%[[C1]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[XTS:.*]] = cgc_op.transpose(%[[Z]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x5x5x6x!cgc.float32>) -> !cgc.tensor<1x6x5x5x!cgc.float32>
// CHECK-NEXT: %[[WTS:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[CS:.*]] = cgc_op.convolution(%[[XTS]], %[[WTS]])
// CHECK-NEXT: %[[YS:.*]] = cgc_op.transpose(%[[CS]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[SUM:.*]] = cgc_op.add(%[[Y1]], %[[YS]]) : (!cgc.tensor<1x5x5x8x!cgc.float32>, !cgc.tensor<1x5x5x8x!cgc.float32>) -> !cgc.tensor<1x5x5x8x!cgc.float32>
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.transpose(%[[SUM]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @resnet_stem(%x: !cgc.tensor<1x3x20x20x!cgc.float32>) -> !cgc.tensor<1x8x5x5x!cgc.float32> {
    %w = cgc.constant("w") : !cgc.tensor<constant 6x3x7x7x!cgc.float32>
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 8x6x1x1x!cgc.float32>
    %ws = cgc.constant("ws") : !cgc.tensor<constant 8x6x1x1x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w) {start_padding = [3, 3], end_padding = [3, 3], strides = [2, 2]} : (!cgc.tensor<1x3x20x20x!cgc.float32>, !cgc.tensor<constant 6x3x7x7x!cgc.float32>) -> !cgc.tensor<1x6x10x10x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<1x6x10x10x!cgc.float32>) -> !cgc.tensor<1x6x10x10x!cgc.float32>
    %2 = cgc_op.max_pool(%1) {kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x6x10x10x!cgc.float32>) -> !cgc.tensor<1x6x5x5x!cgc.float32>
    %3 = cgc_op.convolution(%2, %w1) : (!cgc.tensor<1x6x5x5x!cgc.float32>, !cgc.tensor<constant 8x6x1x1x!cgc.float32>) -> !cgc.tensor<1x8x5x5x!cgc.float32>
    %4 = cgc_op.convolution(%2, %ws) : (!cgc.tensor<1x6x5x5x!cgc.float32>, !cgc.tensor<constant 8x6x1x1x!cgc.float32>) -> !cgc.tensor<1x8x5x5x!cgc.float32>
    %5 = cgc_op.add(%3, %4) : (!cgc.tensor<1x8x5x5x!cgc.float32>, !cgc.tensor<1x8x5x5x!cgc.float32>) -> !cgc.tensor<1x8x5x5x!cgc.float32>
    cgc.return %5 : !cgc.tensor<1x8x5x5x!cgc.float32>
  }
}

// -----

// Every window attribute stays as written: an average pool with ceil_mode,
// count_include_pad, asymmetric padding, dilations and strides reading a
// convolution's NHWC result directly (float16); a max pool with ceil_mode
// and dilations reading that pool's NHWC result (pools chain without a
// transpose pair between them); an elementwise layer after it computes on
// NHWC shapes.
// CHECK-LABEL: cgc.entry_point @window_attributes(
// CHECK: %[[C:.*]] = cgc_op.convolution(
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x8x13x11x!cgc.float16>) -> !cgc.tensor<1x13x11x8x!cgc.float16>
// CHECK-NEXT: %[[AT:.*]] = cgc_op.transpose(%[[Y]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x13x11x8x!cgc.float16>) -> !cgc.tensor<1x8x13x11x!cgc.float16>
// CHECK-NEXT: %[[A:.*]] = cgc_op.average_pool(%[[AT]]) {ceil_mode = true, count_include_pad = true, dilations = [2, 1], end_padding = [2, 0], kernel_shape = [3, 2], start_padding = [1, 0], strides = [2, 3]} : (!cgc.tensor<1x8x13x11x!cgc.float16>) -> !cgc.tensor<1x8x7x4x!cgc.float16>
// CHECK-NEXT: %[[AZ:.*]] = cgc_op.transpose(%[[A]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x8x7x4x!cgc.float16>) -> !cgc.tensor<1x7x4x8x!cgc.float16>
// CHECK-NEXT: %[[MT:.*]] = cgc_op.transpose(%[[AZ]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x7x4x8x!cgc.float16>) -> !cgc.tensor<1x8x7x4x!cgc.float16>
// CHECK-NEXT: %[[M:.*]] = cgc_op.max_pool(%[[MT]]) {ceil_mode = true, dilations = [1, 2], kernel_shape = [2, 2], strides = [2, 1]} : (!cgc.tensor<1x8x7x4x!cgc.float16>) -> !cgc.tensor<1x8x4x2x!cgc.float16>
// CHECK-NEXT: %[[MZ:.*]] = cgc_op.transpose(%[[M]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x8x4x2x!cgc.float16>) -> !cgc.tensor<1x4x2x8x!cgc.float16>
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[MZ]]) : (!cgc.tensor<1x4x2x8x!cgc.float16>) -> !cgc.tensor<1x4x2x8x!cgc.float16>
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.transpose(%[[R]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x2x8x!cgc.float16>) -> !cgc.tensor<1x8x4x2x!cgc.float16>
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @window_attributes(%x: !cgc.tensor<1x4x13x11x!cgc.float16>) -> !cgc.tensor<1x8x4x2x!cgc.float16> {
    %w = cgc.constant("w") : !cgc.tensor<constant 8x4x3x3x!cgc.float16>
    %0 = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x4x13x11x!cgc.float16>, !cgc.tensor<constant 8x4x3x3x!cgc.float16>) -> !cgc.tensor<1x8x13x11x!cgc.float16>
    %1 = cgc_op.average_pool(%0) {kernel_shape = [3, 2], strides = [2, 3], dilations = [2, 1], start_padding = [1, 0], end_padding = [2, 0], ceil_mode = true, count_include_pad = true} : (!cgc.tensor<1x8x13x11x!cgc.float16>) -> !cgc.tensor<1x8x7x4x!cgc.float16>
    %2 = cgc_op.max_pool(%1) {kernel_shape = [2, 2], strides = [2, 1], dilations = [1, 2], ceil_mode = true} : (!cgc.tensor<1x8x7x4x!cgc.float16>) -> !cgc.tensor<1x8x4x2x!cgc.float16>
    %3 = cgc_op.relu(%2) : (!cgc.tensor<1x8x4x2x!cgc.float16>) -> !cgc.tensor<1x8x4x2x!cgc.float16>
    cgc.return %3 : !cgc.tensor<1x8x4x2x!cgc.float16>
  }
}

// -----

// Pools that must not be converted. A pool of the model's input (NCHW: the
// form would only move the transpose to NHWC onto its larger input) and a
// pool of an NCHW layer's result stay as written; so do 1-D and 3-D pools.
// A global pool of an NHWC value reads it back in NCHW through the
// transpose shared with the other NCHW readers (cgc.return here).
// CHECK-LABEL: cgc.entry_point @not_converted(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x4x8x8x!cgc.float32>, %[[X1:[^:]*]]: !cgc.tensor<1x4x9x!cgc.float32>, %[[X3:[^:]*]]: !cgc.tensor<1x4x4x4x4x!cgc.float32>)
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[P0:.*]] = cgc_op.max_pool(%[[X]]) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
// CHECK-NEXT: %[[N:.*]] = cgc_op.neg(%[[X]]) : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
// CHECK-NEXT: %[[P1:.*]] = cgc_op.average_pool(%[[N]]) {kernel_shape = [3, 3]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x6x6x!cgc.float32>
// CHECK-NEXT: %[[P1D:.*]] = cgc_op.max_pool(%[[X1]]) {kernel_shape = [2]} : (!cgc.tensor<1x4x9x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
// CHECK-NEXT: %[[P3D:.*]] = cgc_op.average_pool(%[[X3]]) {kernel_shape = [2, 2, 2]} : (!cgc.tensor<1x4x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x3x3x3x!cgc.float32>
// CHECK-NEXT: %[[XN:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose(%[[W]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[XT]], %[[WT]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x6x!cgc.float32>
// CHECK-NEXT: %[[YT:.*]] = cgc_op.transpose(%[[Y]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x6x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
// CHECK-NEXT: %[[G:.*]] = cgc_op.global_average_pool(%[[YT]]) : (!cgc.tensor<1x6x8x8x!cgc.float32>) -> !cgc.tensor<1x6x1x1x!cgc.float32>
// CHECK-NEXT: cgc.return %[[P0]], %[[P1]], %[[P1D]], %[[P3D]], %[[G]], %[[YT]]
// CHECK-NOT: cgc_op.transpose
cgc.module {
  cgc.entry_point @not_converted(%x: !cgc.tensor<1x4x8x8x!cgc.float32>, %x1: !cgc.tensor<1x4x9x!cgc.float32>, %x3: !cgc.tensor<1x4x4x4x4x!cgc.float32>) -> (!cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<1x4x6x6x!cgc.float32>, !cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<1x4x3x3x3x!cgc.float32>, !cgc.tensor<1x6x1x1x!cgc.float32>, !cgc.tensor<1x6x8x8x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 6x4x3x3x!cgc.float32>
    %0 = cgc_op.max_pool(%x) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %1 = cgc_op.neg(%x) : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %2 = cgc_op.average_pool(%1) {kernel_shape = [3, 3]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x6x6x!cgc.float32>
    %3 = cgc_op.max_pool(%x1) {kernel_shape = [2]} : (!cgc.tensor<1x4x9x!cgc.float32>) -> !cgc.tensor<1x4x8x!cgc.float32>
    %4 = cgc_op.average_pool(%x3) {kernel_shape = [2, 2, 2]} : (!cgc.tensor<1x4x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x3x3x3x!cgc.float32>
    %5 = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 6x4x3x3x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
    %6 = cgc_op.global_average_pool(%5) : (!cgc.tensor<1x6x8x8x!cgc.float32>) -> !cgc.tensor<1x6x1x1x!cgc.float32>
    cgc.return %0, %2, %3, %4, %6, %5 : !cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<1x4x6x6x!cgc.float32>, !cgc.tensor<1x4x8x!cgc.float32>, !cgc.tensor<1x4x3x3x3x!cgc.float32>, !cgc.tensor<1x6x1x1x!cgc.float32>, !cgc.tensor<1x6x8x8x!cgc.float32>
  }
}

// -----

// A pool whose result the model returns, and that a non-elementwise layer
// (a global pool) also reads: both get its NHWC result back in NCHW through
// one shared transpose, never the pool's own result (which only its
// transpose to NHWC reads).
// CHECK-LABEL: cgc.entry_point @pool_read_back(
// CHECK: %[[PT:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x6x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
// CHECK-NEXT: %[[P:.*]] = cgc_op.max_pool(%[[PT]]) {kernel_shape = [2, 2], strides = [2, 2]}
// CHECK-NEXT: %[[Z:.*]] = cgc_op.transpose(%[[P]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x6x!cgc.float32>
// CHECK-NEXT: %[[ZT:.*]] = cgc_op.transpose(%[[Z]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x6x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
// CHECK-NEXT: %[[G:.*]] = cgc_op.global_max_pool(%[[ZT]])
// CHECK-NEXT: cgc.return %[[ZT]], %[[G]]
cgc.module {
  cgc.entry_point @pool_read_back(%x: !cgc.tensor<1x4x8x8x!cgc.float32>) -> (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<1x6x1x1x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 6x4x1x1x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 6x4x1x1x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
    %1 = cgc_op.max_pool(%0) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x6x8x8x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %2 = cgc_op.global_max_pool(%1) : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x1x1x!cgc.float32>
    cgc.return %1, %2 : !cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<1x6x1x1x!cgc.float32>
  }
}

// -----

// A model exported from NHWC already transposes around its pool: nothing
// is added.
// CHECK-LABEL: cgc.entry_point @exported_nhwc(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x8x8x4x!cgc.float32>)
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[P:.*]] = cgc_op.average_pool(%[[XT]]) {kernel_shape = [2, 2], strides = [2, 2]}
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[P]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: cgc.return %[[Y]]
cgc.module {
  cgc.entry_point @exported_nhwc(%x: !cgc.tensor<1x8x8x4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32> {
    %0 = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x4x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %1 = cgc_op.average_pool(%0) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %2 = cgc_op.transpose(%1) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    cgc.return %2 : !cgc.tensor<1x4x4x4x!cgc.float32>
  }
}
