// The CUDA driver's conv_nhwc_bias_activation_max_pool pattern
// (drivers/cuda/patterns/convolution.mlir) over ResNet's first layer and
// its pool in the compiler's channels-last form: the convolution with its
// transposes, the chain, the chain's transpose to NCHW for the pool, the
// pool and its result's transpose to NHWC become one subgraph, which one
// generated kernel runs without writing the convolution's result.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/convolution.mlir,cuda_pooling=%S/../../drivers/cuda/patterns/pooling.mlir fallback-target=cuda.fallback" | FileCheck %s

// ResNet-50's stem in float16 (7×7 stride 2, relu, 3×3 stride-2 pool): one
// subgraph from the input's transpose to the pool's; the first block's
// convolution reads its NHWC result.
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_max_pool_1 attributes {cgc.pattern = "conv_nhwc_bias_activation_max_pool", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_max_pool_1_functional(%[[X:[^:]*]]: !cgc.tensor<1x224x224x3x!cgc.float16>, %[[W:[^:]*]]: !cgc.tensor<constant 64x7x7x3x!cgc.float16>, %[[B:[^:]*]]: !cgc.tensor<constant 64x!cgc.float16>) -> !cgc.tensor<1x56x56x64x!cgc.float16> {
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose(%[[W]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[XT]], %[[WT]], %[[B]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[Y]])
// CHECK-NEXT: %[[PT:.*]] = cgc_op.transpose(%[[R]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[P:.*]] = cgc_op.max_pool(%[[PT]]) {end_padding = [1, 1], kernel_shape = [3, 3], start_padding = [1, 1], strides = [2, 2]}
// CHECK-NEXT: %[[Z:.*]] = cgc_op.transpose(%[[P]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x64x56x56x!cgc.float16>) -> !cgc.tensor<1x56x56x64x!cgc.float16>
// CHECK-NEXT: cgc.return %[[Z]]
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_2 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @resnet_stem(
// CHECK: %[[XN:.*]] = cgc.call @transpose_0(
// CHECK-NEXT: %[[POOL:.*]] = cgc.call @conv_nhwc_bias_activation_max_pool_1(%[[XN]],
// CHECK-NEXT: %[[A:.*]] = cgc.call @conv_nhwc_bias_activation_2(%[[POOL]],
// CHECK-NEXT: cgc.return %[[A]]
!img = !cgc.tensor<1x3x224x224x!cgc.float16>
!img_nhwc = !cgc.tensor<1x224x224x3x!cgc.float16>
!stem = !cgc.tensor<1x64x112x112x!cgc.float16>
!stem_nhwc = !cgc.tensor<1x112x112x64x!cgc.float16>
!pool = !cgc.tensor<1x64x56x56x!cgc.float16>
!pool_nhwc = !cgc.tensor<1x56x56x64x!cgc.float16>
cgc.module {
  cgc.entry_point @resnet_stem(%x: !img) -> (!pool_nhwc) {
    %w = cgc.constant("conv1.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x7x7x3x!cgc.float16>
    %b = cgc.constant("conv1.bias") : !cgc.tensor<constant 64x!cgc.float16>
    %w1 = cgc.constant("layer1.0.conv1.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x1x1x64x!cgc.float16>
    %xn = cgc_op.transpose(%x) {permutation = [0, 2, 3, 1]} : (!img) -> !img_nhwc
    %xt = cgc_op.transpose(%xn) {permutation = [0, 3, 1, 2]} : (!img_nhwc) -> !img
    %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 64x7x7x3x!cgc.float16>) -> !cgc.tensor<64x3x7x7x!cgc.float16>
    %c = cgc_op.convolution(%xt, %wt, %b) {start_padding = [3, 3], end_padding = [3, 3], strides = [2, 2]}
        : (!img, !cgc.tensor<64x3x7x7x!cgc.float16>, !cgc.tensor<constant 64x!cgc.float16>) -> !stem
    %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!stem) -> !stem_nhwc
    %r = cgc_op.relu(%y) : (!stem_nhwc) -> !stem_nhwc
    %pt = cgc_op.transpose(%r) {permutation = [0, 3, 1, 2]} : (!stem_nhwc) -> !stem
    %p = cgc_op.max_pool(%pt) {kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1]}
        : (!stem) -> !pool
    %z = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    %x1 = cgc_op.transpose(%z) {permutation = [0, 3, 1, 2]} : (!pool_nhwc) -> !pool
    %w1t = cgc_op.transpose(%w1) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 64x1x1x64x!cgc.float16>) -> !cgc.tensor<64x64x1x1x!cgc.float16>
    %c1 = cgc_op.convolution(%x1, %w1t) : (!pool, !cgc.tensor<64x64x1x1x!cgc.float16>) -> !pool
    %y1 = cgc_op.transpose(%c1) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    cgc.return %y1 : !pool_nhwc
  }
}

// -----

// Where the stem's activation is also returned (read outside the pool),
// the convolution and the pool match apart; an average pool is not the
// pattern's either.
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "cuda.fallback"}
// CHECK-NOT: conv_nhwc_bias_activation_max_pool
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_1 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"}
// CHECK: cgc.subgraph @max_pool_nhwc_2 attributes {cgc.pattern = "max_pool_nhwc", origin = "cuda_pooling"}
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_3 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"}
// CHECK: cgc.subgraph @average_pool_nhwc_4 attributes {cgc.pattern = "average_pool_nhwc", origin = "cuda_pooling"}
// CHECK-NOT: cgc.subgraph
!img = !cgc.tensor<1x3x16x16x!cgc.float16>
!img_nhwc = !cgc.tensor<1x16x16x3x!cgc.float16>
!stem = !cgc.tensor<1x8x8x8x!cgc.float16>
!stem_nhwc = !cgc.tensor<1x8x8x8x!cgc.float16>
!pool = !cgc.tensor<1x8x4x4x!cgc.float16>
!pool_nhwc = !cgc.tensor<1x4x4x8x!cgc.float16>
cgc.module {
  cgc.entry_point @not_fused(%x: !img) -> (!pool_nhwc, !stem_nhwc, !pool_nhwc) {
    %w = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 8x3x3x3x!cgc.float16>
    %xn = cgc_op.transpose(%x) {permutation = [0, 2, 3, 1]} : (!img) -> !img_nhwc
    %xt = cgc_op.transpose(%xn) {permutation = [0, 3, 1, 2]} : (!img_nhwc) -> !img
    %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 8x3x3x3x!cgc.float16>) -> !cgc.tensor<8x3x3x3x!cgc.float16>
    %c = cgc_op.convolution(%xt, %wt) {start_padding = [1, 1], end_padding = [1, 1], strides = [2, 2]}
        : (!img, !cgc.tensor<8x3x3x3x!cgc.float16>) -> !stem
    %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!stem) -> !stem_nhwc
    %r = cgc_op.relu(%y) : (!stem_nhwc) -> !stem_nhwc
    %pt = cgc_op.transpose(%r) {permutation = [0, 3, 1, 2]} : (!stem_nhwc) -> !stem
    %p = cgc_op.max_pool(%pt) {kernel_shape = [2, 2], strides = [2, 2]} : (!stem) -> !pool
    %z = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    %xt2 = cgc_op.transpose(%xn) {permutation = [0, 3, 1, 2]} : (!img_nhwc) -> !img
    %wt2 = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 8x3x3x3x!cgc.float16>) -> !cgc.tensor<8x3x3x3x!cgc.float16>
    %c2 = cgc_op.convolution(%xt2, %wt2) {start_padding = [1, 1], end_padding = [1, 1], strides = [2, 2]}
        : (!img, !cgc.tensor<8x3x3x3x!cgc.float16>) -> !stem
    %y2 = cgc_op.transpose(%c2) {permutation = [0, 2, 3, 1]} : (!stem) -> !stem_nhwc
    %pt2 = cgc_op.transpose(%y2) {permutation = [0, 3, 1, 2]} : (!stem_nhwc) -> !stem
    %a2 = cgc_op.average_pool(%pt2) {kernel_shape = [2, 2], strides = [2, 2]} : (!stem) -> !pool
    %z2 = cgc_op.transpose(%a2) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    cgc.return %z, %r, %z2 : !pool_nhwc, !stem_nhwc, !pool_nhwc
  }
}
