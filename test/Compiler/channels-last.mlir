// cgc-channels-last: every 2-D convolution reads NHWC activations and an
// OHWI weight through its own transposes and writes NHWC through one;
// elementwise layers between convolutions compute on NHWC shapes; every
// other reader gets NCHW back, so the model's signature is unchanged.
// RUN: cgc-opt %s --split-input-file --cgc-channels-last | FileCheck %s
// Converting a converted model changes nothing:
// RUN: cgc-opt %s --split-input-file --cgc-channels-last -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --split-input-file --cgc-channels-last -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// The contract form: a model input is transposed to NHWC, then back by the
// convolution's own transpose; the constant weight is bound as OHWI (same
// name, permuted) and transposed back to OIHW by the convolution's own
// transpose; the bias and the attributes stay; the result's only user is the
// transpose to NHWC, which cgc.return reads back in NCHW.
// CHECK-LABEL: cgc.entry_point @constant_weight(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x4x8x8x!cgc.float32> {cgc.name = "x"}) -> (!cgc.tensor<1x16x8x8x!cgc.float32> {cgc.name = "y"})
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 16x3x5x4x!cgc.float32>
// CHECK-NEXT: %[[B:.*]] = cgc.constant("b") : !cgc.tensor<constant 16x!cgc.float32>
// CHECK-NEXT: %[[XN:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x4x!cgc.float32>
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x4x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose(%[[W]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 16x3x5x4x!cgc.float32>) -> !cgc.tensor<16x4x3x5x!cgc.float32>
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[XT]], %[[WT]], %[[B]]) {end_padding = [1, 2], start_padding = [1, 2], strides = [1, 1]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<16x4x3x5x!cgc.float32>, !cgc.tensor<constant 16x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x16x!cgc.float32>
// CHECK-NEXT: %[[R:.*]] = cgc_op.transpose(%[[Y]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x16x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
// CHECK-NEXT: cgc.return %[[R]] : !cgc.tensor<1x16x8x8x!cgc.float32>
cgc.module {
  cgc.entry_point @constant_weight(%x: !cgc.tensor<1x4x8x8x!cgc.float32> {cgc.name = "x"}) -> (!cgc.tensor<1x16x8x8x!cgc.float32> {cgc.name = "y"}) {
    %w = cgc.constant("w") : !cgc.tensor<constant 16x4x3x5x!cgc.float32>
    %b = cgc.constant("b") : !cgc.tensor<constant 16x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w, %b) {start_padding = [1, 2], end_padding = [1, 2], strides = [1, 1]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 16x4x3x5x!cgc.float32>, !cgc.tensor<constant 16x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
    cgc.return %0 : !cgc.tensor<1x16x8x8x!cgc.float32>
  }
}

// -----

// A ResNet block: conv -> relu -> conv, plus a shortcut conv, -> add -> relu.
// The relus and the add compute on NHWC shapes and read the convolutions'
// NHWC results; the second convolution reads the relu's NHWC result
// directly; both convolutions that read %x share its NHWC transpose but
// have their own transposes back. Only the block's result is read in NCHW.
// CHECK-LABEL: cgc.entry_point @resnet_block(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x4x8x8x!cgc.float32>)
// CHECK-DAG: %[[W1:.*]] = cgc.constant("w1") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 6x3x3x4x!cgc.float32>
// CHECK-DAG: %[[W2:.*]] = cgc.constant("w2") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 6x3x3x6x!cgc.float32>
// CHECK-DAG: %[[WS:.*]] = cgc.constant("ws") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 6x1x1x4x!cgc.float32>
// CHECK: %[[XN:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x4x!cgc.float32>
// CHECK-NEXT: %[[XT1:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT1:.*]] = cgc_op.transpose(%[[W1]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C1:.*]] = cgc_op.convolution(%[[XT1]], %[[WT1]])
// CHECK-NEXT: %[[Y1:.*]] = cgc_op.transpose(%[[C1]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x6x!cgc.float32>
// CHECK-NEXT: %[[R1:.*]] = cgc_op.relu(%[[Y1]]) : (!cgc.tensor<1x4x4x6x!cgc.float32>) -> !cgc.tensor<1x4x4x6x!cgc.float32>
// CHECK-NEXT: %[[XT2:.*]] = cgc_op.transpose(%[[R1]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x6x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
// CHECK-NEXT: %[[WT2:.*]] = cgc_op.transpose(%[[W2]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C2:.*]] = cgc_op.convolution(%[[XT2]], %[[WT2]])
// CHECK-NEXT: %[[Y2:.*]] = cgc_op.transpose(%[[C2]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[XTS:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WTS:.*]] = cgc_op.transpose(%[[WS]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[CS:.*]] = cgc_op.convolution(%[[XTS]], %[[WTS]]) {strides = [2, 2]}
// CHECK-NEXT: %[[YS:.*]] = cgc_op.transpose(%[[CS]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[SUM:.*]] = cgc_op.add(%[[Y2]], %[[YS]]) : (!cgc.tensor<1x4x4x6x!cgc.float32>, !cgc.tensor<1x4x4x6x!cgc.float32>) -> !cgc.tensor<1x4x4x6x!cgc.float32>
// CHECK-NEXT: %[[R2:.*]] = cgc_op.relu(%[[SUM]]) : (!cgc.tensor<1x4x4x6x!cgc.float32>) -> !cgc.tensor<1x4x4x6x!cgc.float32>
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.transpose(%[[R2]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x6x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
// CHECK-NEXT: cgc.return %[[OUT]] : !cgc.tensor<1x6x4x4x!cgc.float32>
cgc.module {
  cgc.entry_point @resnet_block(%x: !cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32> {
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 6x4x3x3x!cgc.float32>
    %w2 = cgc.constant("w2") : !cgc.tensor<constant 6x6x3x3x!cgc.float32>
    %ws = cgc.constant("ws") : !cgc.tensor<constant 6x4x1x1x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w1) {start_padding = [1, 1], end_padding = [1, 1], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 6x4x3x3x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %2 = cgc_op.convolution(%1, %w2) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<constant 6x6x3x3x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %3 = cgc_op.convolution(%x, %ws) {strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 6x4x1x1x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %4 = cgc_op.add(%2, %3) : (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %5 = cgc_op.relu(%4) : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    cgc.return %5 : !cgc.tensor<1x6x4x4x!cgc.float32>
  }
}

// -----

// An identity shortcut: the add reads the convolution's NHWC result and the
// NHWC transpose of %x that the convolution made. A layer that reads only
// such transposes (the relu of %x) stays NCHW, and so does a layer that
// reads an NCHW value (the last add, whose NHWC operand is read back).
// CHECK-LABEL: cgc.entry_point @identity_shortcut(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x6x4x5x!cgc.float32>)
// CHECK: %[[XN:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x4x5x!cgc.float32>) -> !cgc.tensor<1x4x5x6x!cgc.float32>
// CHECK: %[[C:.*]] = cgc_op.convolution(
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[SUM:.*]] = cgc_op.add(%[[Y]], %[[XN]]) : (!cgc.tensor<1x4x5x6x!cgc.float32>, !cgc.tensor<1x4x5x6x!cgc.float32>) -> !cgc.tensor<1x4x5x6x!cgc.float32>
// CHECK-NEXT: %[[SUMT:.*]] = cgc_op.transpose(%[[SUM]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x5x6x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32>
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[X]]) : (!cgc.tensor<1x6x4x5x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32>
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.add(%[[SUMT]], %[[R]]) : (!cgc.tensor<1x6x4x5x!cgc.float32>, !cgc.tensor<1x6x4x5x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32>
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @identity_shortcut(%x: !cgc.tensor<1x6x4x5x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32> {
    %w = cgc.constant("w") : !cgc.tensor<constant 6x6x3x3x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x6x4x5x!cgc.float32>, !cgc.tensor<constant 6x6x3x3x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32>
    %1 = cgc_op.add(%0, %x) : (!cgc.tensor<1x6x4x5x!cgc.float32>, !cgc.tensor<1x6x4x5x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32>
    %2 = cgc_op.relu(%x) : (!cgc.tensor<1x6x4x5x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32>
    %3 = cgc_op.add(%1, %2) : (!cgc.tensor<1x6x4x5x!cgc.float32>, !cgc.tensor<1x6x4x5x!cgc.float32>) -> !cgc.tensor<1x6x4x5x!cgc.float32>
    cgc.return %3 : !cgc.tensor<1x6x4x5x!cgc.float32>
  }
}

// -----

// Layers that are not elementwise read the NHWC value back in NCHW, through
// one transpose shared by all of them (the global pool and cgc.return); a
// 2-D max pool of it takes the convolutions' form instead, with a transpose
// of its own (channels-last-pooling.mlir).
// CHECK-LABEL: cgc.entry_point @pooling(
// CHECK: %[[Y:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x16x!cgc.float32>
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[Y]]) : (!cgc.tensor<1x8x8x16x!cgc.float32>) -> !cgc.tensor<1x8x8x16x!cgc.float32>
// CHECK-NEXT: %[[RT:.*]] = cgc_op.transpose(%[[R]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x16x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
// CHECK-NEXT: %[[PT:.*]] = cgc_op.transpose(%[[R]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x16x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
// CHECK-NEXT: %[[M:.*]] = cgc_op.max_pool(%[[PT]]) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x16x4x4x!cgc.float32>
// CHECK-NEXT: %[[Z:.*]] = cgc_op.transpose(%[[M]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x16x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x16x!cgc.float32>
// CHECK-NEXT: %[[ZT:.*]] = cgc_op.transpose(%[[Z]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x16x!cgc.float32>) -> !cgc.tensor<1x16x4x4x!cgc.float32>
// CHECK-NEXT: %[[G:.*]] = cgc_op.global_average_pool(%[[RT]]) : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x16x1x1x!cgc.float32>
// CHECK-NEXT: cgc.return %[[ZT]], %[[G]], %[[RT]]
cgc.module {
  cgc.entry_point @pooling(%x: !cgc.tensor<1x3x8x8x!cgc.float32>) -> (!cgc.tensor<1x16x4x4x!cgc.float32>, !cgc.tensor<1x16x1x1x!cgc.float32>, !cgc.tensor<1x16x8x8x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 16x3x3x3x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x3x8x8x!cgc.float32>, !cgc.tensor<constant 16x3x3x3x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
    %2 = cgc_op.max_pool(%1) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x16x4x4x!cgc.float32>
    %3 = cgc_op.global_average_pool(%1) : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x16x1x1x!cgc.float32>
    cgc.return %2, %3, %1 : !cgc.tensor<1x16x4x4x!cgc.float32>, !cgc.tensor<1x16x1x1x!cgc.float32>, !cgc.tensor<1x16x8x8x!cgc.float32>
  }
}

// -----

// A weight that is not a cgc.constant stays the convolution's operand, with
// no transpose; the activations still take the form.
// CHECK-LABEL: cgc.entry_point @non_constant_weight(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x4x8x8x!cgc.float32>, %[[W:[^:]*]]: !cgc.tensor<8x4x3x3x!cgc.float32>)
// CHECK-NEXT: %[[XN:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[XT]], %[[W]]) : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<8x4x3x3x!cgc.float32>) -> !cgc.tensor<1x8x6x6x!cgc.float32>
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[R:.*]] = cgc_op.transpose(%[[Y]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: cgc.return %[[R]]
cgc.module {
  cgc.entry_point @non_constant_weight(%x: !cgc.tensor<1x4x8x8x!cgc.float32>, %w: !cgc.tensor<8x4x3x3x!cgc.float32>) -> !cgc.tensor<1x8x6x6x!cgc.float32> {
    %0 = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<8x4x3x3x!cgc.float32>) -> !cgc.tensor<1x8x6x6x!cgc.float32>
    cgc.return %0 : !cgc.tensor<1x8x6x6x!cgc.float32>
  }
}

// -----

// 1-D and 3-D convolutions and transposed convolutions are left alone.
// CHECK-LABEL: cgc.entry_point @untouched(
// CHECK-SAME: %[[X1:[^:]*]]: !cgc.tensor<1x4x16x!cgc.float32>, %[[X3:[^:]*]]: !cgc.tensor<1x4x4x4x4x!cgc.float32>, %[[X:[^:]*]]: !cgc.tensor<1x4x8x8x!cgc.float32>)
// CHECK-NEXT: %[[W1:.*]] = cgc.constant("w1") : !cgc.tensor<constant 8x4x3x!cgc.float32>
// CHECK-NEXT: %[[W3:.*]] = cgc.constant("w3") : !cgc.tensor<constant 8x4x3x3x3x!cgc.float32>
// CHECK-NEXT: %[[WT:.*]] = cgc.constant("wt") : !cgc.tensor<constant 4x8x3x3x!cgc.float32>
// CHECK-NEXT: %[[C1:.*]] = cgc_op.convolution(%[[X1]], %[[W1]])
// CHECK-NEXT: %[[C3:.*]] = cgc_op.convolution(%[[X3]], %[[W3]])
// CHECK-NEXT: %[[CT:.*]] = cgc_op.conv_transpose(%[[X]], %[[WT]])
// CHECK-NEXT: cgc.return %[[C1]], %[[C3]], %[[CT]]
// CHECK-NOT: cgc_op.transpose
cgc.module {
  cgc.entry_point @untouched(%x1: !cgc.tensor<1x4x16x!cgc.float32>, %x3: !cgc.tensor<1x4x4x4x4x!cgc.float32>, %x: !cgc.tensor<1x4x8x8x!cgc.float32>) -> (!cgc.tensor<1x8x14x!cgc.float32>, !cgc.tensor<1x8x2x2x2x!cgc.float32>, !cgc.tensor<1x8x10x10x!cgc.float32>) {
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 8x4x3x!cgc.float32>
    %w3 = cgc.constant("w3") : !cgc.tensor<constant 8x4x3x3x3x!cgc.float32>
    %wt = cgc.constant("wt") : !cgc.tensor<constant 4x8x3x3x!cgc.float32>
    %0 = cgc_op.convolution(%x1, %w1) : (!cgc.tensor<1x4x16x!cgc.float32>, !cgc.tensor<constant 8x4x3x!cgc.float32>) -> !cgc.tensor<1x8x14x!cgc.float32>
    %1 = cgc_op.convolution(%x3, %w3) : (!cgc.tensor<1x4x4x4x4x!cgc.float32>, !cgc.tensor<constant 8x4x3x3x3x!cgc.float32>) -> !cgc.tensor<1x8x2x2x2x!cgc.float32>
    %2 = cgc_op.conv_transpose(%x, %wt) : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 4x8x3x3x!cgc.float32>) -> !cgc.tensor<1x8x10x10x!cgc.float32>
    cgc.return %0, %1, %2 : !cgc.tensor<1x8x14x!cgc.float32>, !cgc.tensor<1x8x2x2x2x!cgc.float32>, !cgc.tensor<1x8x10x10x!cgc.float32>
  }
}

// -----

// Scalar-like operands (rank 0, or every dimension 1) keep NHWC going; a
// per-channel operand (6x1x1) broadcasts differently in NHWC, so the layer
// reading it gets NCHW.
// CHECK-LABEL: cgc.entry_point @broadcast(
// CHECK-DAG: %[[SCALE:.*]] = cgc.constant("scale") : !cgc.tensor<constant 6x1x1x!cgc.float32>
// CHECK-DAG: %[[HALF:.*]] = cgc.constant("half") : !cgc.tensor<constant !cgc.float32>
// CHECK-DAG: %[[ONE:.*]] = cgc.constant("one") : !cgc.tensor<constant 1x1x1x1x!cgc.float32>
// CHECK: %[[Y:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x6x!cgc.float32>
// CHECK-NEXT: %[[H:.*]] = cgc_op.mul(%[[Y]], %[[HALF]]) : (!cgc.tensor<1x8x8x6x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x8x8x6x!cgc.float32>
// CHECK-NEXT: %[[S:.*]] = cgc_op.add(%[[ONE]], %[[H]]) : (!cgc.tensor<constant 1x1x1x1x!cgc.float32>, !cgc.tensor<1x8x8x6x!cgc.float32>) -> !cgc.tensor<1x8x8x6x!cgc.float32>
// CHECK-NEXT: %[[ST:.*]] = cgc_op.transpose(%[[S]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x6x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
// CHECK-NEXT: %[[P:.*]] = cgc_op.mul(%[[ST]], %[[SCALE]]) : (!cgc.tensor<1x6x8x8x!cgc.float32>, !cgc.tensor<constant 6x1x1x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
// CHECK-NEXT: cgc.return %[[ST]], %[[P]]
cgc.module {
  cgc.entry_point @broadcast(%x: !cgc.tensor<1x4x8x8x!cgc.float32>) -> (!cgc.tensor<1x6x8x8x!cgc.float32>, !cgc.tensor<1x6x8x8x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 6x4x1x1x!cgc.float32>
    %scale = cgc.constant("scale") : !cgc.tensor<constant 6x1x1x!cgc.float32>
    %half = cgc.constant("half") : !cgc.tensor<constant !cgc.float32>
    %one = cgc.constant("one") : !cgc.tensor<constant 1x1x1x1x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 6x4x1x1x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
    %1 = cgc_op.mul(%0, %half) : (!cgc.tensor<1x6x8x8x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
    %2 = cgc_op.add(%one, %1) : (!cgc.tensor<constant 1x1x1x1x!cgc.float32>, !cgc.tensor<1x6x8x8x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
    %3 = cgc_op.mul(%2, %scale) : (!cgc.tensor<1x6x8x8x!cgc.float32>, !cgc.tensor<constant 6x1x1x!cgc.float32>) -> !cgc.tensor<1x6x8x8x!cgc.float32>
    cgc.return %2, %3 : !cgc.tensor<1x6x8x8x!cgc.float32>, !cgc.tensor<1x6x8x8x!cgc.float32>
  }
}

// -----

// Two convolutions with one weight: one OHWI constant, a transpose back for
// each convolution. A layer that reads the weight itself keeps the constant
// as stored (the same name, bound twice). The second convolution reads the
// first one's NHWC result through its own transpose.
// CHECK-LABEL: cgc.entry_point @shared_weight(
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") : !cgc.tensor<constant 8x8x3x3x!cgc.float32>
// CHECK-NEXT: %[[WP:.*]] = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 8x3x3x8x!cgc.float32>
// CHECK-NEXT: %[[XN:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[XT1:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT1:.*]] = cgc_op.transpose(%[[WP]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C1:.*]] = cgc_op.convolution(%[[XT1]], %[[WT1]])
// CHECK-NEXT: %[[Y1:.*]] = cgc_op.transpose(%[[C1]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[XT2:.*]] = cgc_op.transpose(%[[Y1]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT2:.*]] = cgc_op.transpose(%[[WP]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C2:.*]] = cgc_op.convolution(%[[XT2]], %[[WT2]])
// CHECK-NEXT: %[[Y2:.*]] = cgc_op.transpose(%[[C2]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[R:.*]] = cgc_op.transpose(%[[Y2]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[N:.*]] = cgc_op.neg(%[[W]])
// CHECK-NEXT: cgc.return %[[R]], %[[N]]
cgc.module {
  cgc.entry_point @shared_weight(%x: !cgc.tensor<1x8x4x4x!cgc.float32>) -> (!cgc.tensor<1x8x4x4x!cgc.float32>, !cgc.tensor<8x8x3x3x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 8x8x3x3x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x8x4x4x!cgc.float32>, !cgc.tensor<constant 8x8x3x3x!cgc.float32>) -> !cgc.tensor<1x8x4x4x!cgc.float32>
    %1 = cgc_op.convolution(%0, %w) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x8x4x4x!cgc.float32>, !cgc.tensor<constant 8x8x3x3x!cgc.float32>) -> !cgc.tensor<1x8x4x4x!cgc.float32>
    %2 = cgc_op.neg(%w) : (!cgc.tensor<constant 8x8x3x3x!cgc.float32>) -> !cgc.tensor<8x8x3x3x!cgc.float32>
    cgc.return %1, %2 : !cgc.tensor<1x8x4x4x!cgc.float32>, !cgc.tensor<8x8x3x3x!cgc.float32>
  }
}

// -----

// A depthwise float16 convolution (groups = C): the form does not depend on
// groups or the element type.
// CHECK-LABEL: cgc.entry_point @depthwise(
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 8x3x3x1x!cgc.float16>
// CHECK-NEXT: %[[XN:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x8x4x5x!cgc.float16>) -> !cgc.tensor<1x4x5x8x!cgc.float16>
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose(%[[W]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 8x3x3x1x!cgc.float16>) -> !cgc.tensor<8x1x3x3x!cgc.float16>
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[XT]], %[[WT]]) {end_padding = [1, 1], groups = 8 : i64, start_padding = [1, 1]}
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
cgc.module {
  cgc.entry_point @depthwise(%x: !cgc.tensor<1x8x4x5x!cgc.float16>) -> !cgc.tensor<1x8x4x5x!cgc.float16> {
    %w = cgc.constant("w") : !cgc.tensor<constant 8x1x3x3x!cgc.float16>
    %0 = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1], groups = 8 : i64} : (!cgc.tensor<1x8x4x5x!cgc.float16>, !cgc.tensor<constant 8x1x3x3x!cgc.float16>) -> !cgc.tensor<1x8x4x5x!cgc.float16>
    cgc.return %0 : !cgc.tensor<1x8x4x5x!cgc.float16>
  }
}

// -----

// A model exported from NHWC already transposes around its convolution: the
// activations keep their transposes (nothing is added), and only the
// constant weight is bound as OHWI.
// CHECK-LABEL: cgc.entry_point @exported_nhwc(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<1x9x8x4x!cgc.float32>)
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 6x3x3x4x!cgc.float32>
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose(%[[W]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[XT]], %[[WT]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[Y]]) : (!cgc.tensor<1x7x6x6x!cgc.float32>) -> !cgc.tensor<1x7x6x6x!cgc.float32>
// CHECK-NEXT: cgc.return %[[R]]
cgc.module {
  cgc.entry_point @exported_nhwc(%x: !cgc.tensor<1x9x8x4x!cgc.float32>) -> !cgc.tensor<1x7x6x6x!cgc.float32> {
    %w = cgc.constant("w") : !cgc.tensor<constant 6x4x3x3x!cgc.float32>
    %0 = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x9x8x4x!cgc.float32>) -> !cgc.tensor<1x4x9x8x!cgc.float32>
    %1 = cgc_op.convolution(%0, %w) : (!cgc.tensor<1x4x9x8x!cgc.float32>, !cgc.tensor<constant 6x4x3x3x!cgc.float32>) -> !cgc.tensor<1x6x7x6x!cgc.float32>
    %2 = cgc_op.transpose(%1) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x7x6x!cgc.float32>) -> !cgc.tensor<1x7x6x6x!cgc.float32>
    %3 = cgc_op.relu(%2) : (!cgc.tensor<1x7x6x6x!cgc.float32>) -> !cgc.tensor<1x7x6x6x!cgc.float32>
    cgc.return %3 : !cgc.tensor<1x7x6x6x!cgc.float32>
  }
}

// -----

// A convolution's scalar-like (1x1x1x1) result broadcasts in either layout:
// the mul stays NHWC and reads it through its NHWC transpose, leaving the
// convolution's result to that transpose alone.
// CHECK-LABEL: cgc.entry_point @scalar_like_convolution(
// CHECK: %[[G:.*]] = cgc_op.convolution(
// CHECK-NEXT: %[[GY:.*]] = cgc_op.transpose(%[[G]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x1x1x1x!cgc.float32>) -> !cgc.tensor<1x1x1x1x!cgc.float32>
// CHECK: %[[C:.*]] = cgc_op.convolution(
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x6x!cgc.float32>
// CHECK-NEXT: %[[M:.*]] = cgc_op.mul(%[[Y]], %[[GY]]) : (!cgc.tensor<1x4x4x6x!cgc.float32>, !cgc.tensor<1x1x1x1x!cgc.float32>) -> !cgc.tensor<1x4x4x6x!cgc.float32>
// CHECK-NEXT: %[[R:.*]] = cgc_op.transpose(%[[M]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: cgc.return %[[R]]
cgc.module {
  cgc.entry_point @scalar_like_convolution(%x: !cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32> {
    %wg = cgc.constant("wg") : !cgc.tensor<constant 1x6x4x4x!cgc.float32>
    %w = cgc.constant("w") : !cgc.tensor<constant 6x6x1x1x!cgc.float32>
    %0 = cgc_op.convolution(%x, %wg) : (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<constant 1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x1x1x1x!cgc.float32>
    %1 = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<constant 6x6x1x1x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %2 = cgc_op.mul(%1, %0) : (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<1x1x1x1x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    cgc.return %2 : !cgc.tensor<1x6x4x4x!cgc.float32>
  }
}
