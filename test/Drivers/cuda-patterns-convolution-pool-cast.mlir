// The CUDA driver's cast_conv_nhwc_bias_activation_max_pool pattern
// (drivers/cuda/patterns/convolution.mlir) over a float32 model's stem run in
// float16: the image's cast, its transpose to NHWC, the convolution with its
// transposes, the chain and the pool become one subgraph, which the
// convolution + max pool kernel runs reading the float32 NCHW image; where
// the converted image has another reader, the cast and its transpose match
// layout.mlir's cast_transpose and the stem conv_nhwc_bias_activation_max_pool.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/convolution.mlir,cuda_layout=%S/../../drivers/cuda/patterns/layout.mlir fallback-target=cuda.fallback" | FileCheck %s

// CHECK-LABEL: cgc.subgraph @cast_conv_nhwc_bias_activation_max_pool_0 attributes {cgc.pattern = "cast_conv_nhwc_bias_activation_max_pool", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @cast_conv_nhwc_bias_activation_max_pool_0_functional(%[[X:[^:]*]]: !cgc.tensor<2x3x32x32x!cgc.float32>, %[[W:[^:]*]]: !cgc.tensor<constant 16x7x7x3x!cgc.float16>, %[[B:[^:]*]]: !cgc.tensor<constant 16x!cgc.float16>) -> !cgc.tensor<2x8x8x16x!cgc.float16> {
// CHECK-NEXT: %[[C:.*]] = cgc_op.cast(%[[X]]) {to = !cgc.float16}
// CHECK-NEXT: %[[XN:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[XN]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose(%[[W]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: cgc_op.convolution(%[[XT]], %[[WT]], %[[B]])
// CHECK: cgc_op.max_pool
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_1 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @float32_stem(
// CHECK-NEXT: cgc.constant
// CHECK-NEXT: cgc.constant
// CHECK-NEXT: cgc.constant
// CHECK-NEXT: %[[POOL:.*]] = cgc.call @cast_conv_nhwc_bias_activation_max_pool_0(%{{.*}},
// CHECK-NEXT: %[[A:.*]] = cgc.call @conv_nhwc_bias_activation_1(%[[POOL]],
// CHECK-NEXT: cgc.return %[[A]]
!img32 = !cgc.tensor<2x3x32x32x!cgc.float32>
!img = !cgc.tensor<2x3x32x32x!cgc.float16>
!img_nhwc = !cgc.tensor<2x32x32x3x!cgc.float16>
!stem = !cgc.tensor<2x16x16x16x!cgc.float16>
!stem_nhwc = !cgc.tensor<2x16x16x16x!cgc.float16>
!pool = !cgc.tensor<2x16x8x8x!cgc.float16>
!pool_nhwc = !cgc.tensor<2x8x8x16x!cgc.float16>
cgc.module {
  cgc.entry_point @float32_stem(%x: !img32) -> (!pool_nhwc) {
    %w = cgc.constant("conv1.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 16x7x7x3x!cgc.float16>
    %b = cgc.constant("conv1.bias") : !cgc.tensor<constant 16x!cgc.float16>
    %w1 = cgc.constant("layer1.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 16x1x1x16x!cgc.float16>
    %xc = cgc_op.cast(%x) {to = !cgc.float16} : (!img32) -> !img
    %xn = cgc_op.transpose(%xc) {permutation = [0, 2, 3, 1]} : (!img) -> !img_nhwc
    %xt = cgc_op.transpose(%xn) {permutation = [0, 3, 1, 2]} : (!img_nhwc) -> !img
    %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 16x7x7x3x!cgc.float16>) -> !cgc.tensor<16x3x7x7x!cgc.float16>
    %c = cgc_op.convolution(%xt, %wt, %b) {start_padding = [3, 3], end_padding = [3, 3], strides = [2, 2]}
        : (!img, !cgc.tensor<16x3x7x7x!cgc.float16>, !cgc.tensor<constant 16x!cgc.float16>) -> !stem
    %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!stem) -> !stem_nhwc
    %r = cgc_op.relu(%y) : (!stem_nhwc) -> !stem_nhwc
    %pt = cgc_op.transpose(%r) {permutation = [0, 3, 1, 2]} : (!stem_nhwc) -> !stem
    %p = cgc_op.max_pool(%pt) {kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1]}
        : (!stem) -> !pool
    %z = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    %x1 = cgc_op.transpose(%z) {permutation = [0, 3, 1, 2]} : (!pool_nhwc) -> !pool
    %w1t = cgc_op.transpose(%w1) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 16x1x1x16x!cgc.float16>) -> !cgc.tensor<16x16x1x1x!cgc.float16>
    %c1 = cgc_op.convolution(%x1, %w1t) : (!pool, !cgc.tensor<16x16x1x1x!cgc.float16>) -> !pool
    %y1 = cgc_op.transpose(%c1) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    cgc.return %y1 : !pool_nhwc
  }
}

// -----

// The converted NHWC image is also returned: the cast and its transpose are
// one layout subgraph, and the stem reads its result.
// CHECK-LABEL: cgc.subgraph @cast_transpose_0 attributes {cgc.pattern = "cast_transpose", origin = "cuda_layout"}
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_max_pool_1 attributes {cgc.pattern = "conv_nhwc_bias_activation_max_pool", origin = "cuda"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @image_returned(
// CHECK: %[[XN:.*]] = cgc.call @cast_transpose_0(
// CHECK-NEXT: %[[POOL:.*]] = cgc.call @conv_nhwc_bias_activation_max_pool_1(%[[XN]],
// CHECK-NEXT: cgc.return %[[POOL]], %[[XN]]
!img32 = !cgc.tensor<2x3x32x32x!cgc.float32>
!img = !cgc.tensor<2x3x32x32x!cgc.float16>
!img_nhwc = !cgc.tensor<2x32x32x3x!cgc.float16>
!stem = !cgc.tensor<2x16x16x16x!cgc.float16>
!stem_nhwc = !cgc.tensor<2x16x16x16x!cgc.float16>
!pool = !cgc.tensor<2x16x8x8x!cgc.float16>
!pool_nhwc = !cgc.tensor<2x8x8x16x!cgc.float16>
cgc.module {
  cgc.entry_point @image_returned(%x: !img32) -> (!pool_nhwc, !img_nhwc) {
    %w = cgc.constant("conv1.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 16x7x7x3x!cgc.float16>
    %xc = cgc_op.cast(%x) {to = !cgc.float16} : (!img32) -> !img
    %xn = cgc_op.transpose(%xc) {permutation = [0, 2, 3, 1]} : (!img) -> !img_nhwc
    %xt = cgc_op.transpose(%xn) {permutation = [0, 3, 1, 2]} : (!img_nhwc) -> !img
    %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 16x7x7x3x!cgc.float16>) -> !cgc.tensor<16x3x7x7x!cgc.float16>
    %c = cgc_op.convolution(%xt, %wt) {start_padding = [3, 3], end_padding = [3, 3], strides = [2, 2]}
        : (!img, !cgc.tensor<16x3x7x7x!cgc.float16>) -> !stem
    %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!stem) -> !stem_nhwc
    %r = cgc_op.relu(%y) : (!stem_nhwc) -> !stem_nhwc
    %pt = cgc_op.transpose(%r) {permutation = [0, 3, 1, 2]} : (!stem_nhwc) -> !stem
    %p = cgc_op.max_pool(%pt) {kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1]}
        : (!stem) -> !pool
    %z = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    cgc.return %z, %xn : !pool_nhwc, !img_nhwc
  }
}
