// The CUDA driver's channels-last pool patterns (max_pool_nhwc and
// average_pool_nhwc, drivers/cuda/patterns/pooling.mlir) over pools in the
// compiler's channels-last form (what its cgc-channels-last pass makes of a
// pool whose input is NHWC): the pool's own transpose of its NHWC input to
// NCHW ([0, 3, 1, 2]), the pool, and the one transpose of its result to
// NHWC ([0, 2, 3, 1]). The three layers become one subgraph of the fused
// target, which pools the NHWC tensors as they are; the convolution
// patterns (a second target here) take the neighbours, so no transpose is
// left between them.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/pooling.mlir,cuda_convolution=%S/../../drivers/cuda/patterns/convolution.mlir fallback-target=cuda.fallback" | FileCheck %s

// ResNet-50's stem in float32: the 7×7 stride-2 convolution → relu, the
// 3×3 stride-2 max pool (padding 1), and the first block's 1×1 convolution
// and shortcut, which both read the pool's NHWC result. Only the model
// input's transpose to NHWC is left to the fallback target. (In float16
// and bfloat16 conv_nhwc_bias_activation_max_pool takes the stem and its
// pool as one: cuda-patterns-convolution-pool.mlir.)
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_1 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda_convolution"}
// CHECK: cgc.subgraph @max_pool_nhwc_2 attributes {cgc.pattern = "max_pool_nhwc", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @max_pool_nhwc_2_functional(%[[X:[^:]*]]: !cgc.tensor<1x112x112x64x!cgc.float32>) -> !cgc.tensor<1x56x56x64x!cgc.float32> {
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x112x112x64x!cgc.float32>) -> !cgc.tensor<1x64x112x112x!cgc.float32>
// CHECK-NEXT: %[[P:.*]] = cgc_op.max_pool(%[[XT]]) {end_padding = [1, 1], kernel_shape = [3, 3], start_padding = [1, 1], strides = [2, 2]}
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[P]]) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x64x56x56x!cgc.float32>) -> !cgc.tensor<1x56x56x64x!cgc.float32>
// CHECK-NEXT: cgc.return %[[Y]]
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_3 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda_convolution"}
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_4 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda_convolution"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @resnet_stem_nhwc(
// CHECK-SAME: %[[IN:[^:]*]]: !cgc.tensor<1x3x224x224x!cgc.float32>)
// CHECK: %[[XN:.*]] = cgc.call @transpose_0(%[[IN]])
// CHECK-NEXT: %[[STEM:.*]] = cgc.call @conv_nhwc_bias_activation_1(%[[XN]],
// CHECK-NEXT: %[[POOL:.*]] = cgc.call @max_pool_nhwc_2(%[[STEM]]) : (!cgc.tensor<1x112x112x64x!cgc.float32>) -> !cgc.tensor<1x56x56x64x!cgc.float32>
// CHECK-NEXT: %[[A:.*]] = cgc.call @conv_nhwc_bias_activation_3(%[[POOL]],
// CHECK-NEXT: %[[B:.*]] = cgc.call @conv_nhwc_bias_activation_4(%[[POOL]],
// CHECK-NEXT: cgc.return %[[A]], %[[B]]
!img = !cgc.tensor<1x3x224x224x!cgc.float32>
!img_nhwc = !cgc.tensor<1x224x224x3x!cgc.float32>
!stem = !cgc.tensor<1x64x112x112x!cgc.float32>
!stem_nhwc = !cgc.tensor<1x112x112x64x!cgc.float32>
!pool = !cgc.tensor<1x64x56x56x!cgc.float32>
!pool_nhwc = !cgc.tensor<1x56x56x64x!cgc.float32>
!block = !cgc.tensor<1x256x56x56x!cgc.float32>
!block_nhwc = !cgc.tensor<1x56x56x256x!cgc.float32>
cgc.module {
  cgc.entry_point @resnet_stem_nhwc(%x: !img) -> (!pool_nhwc, !block_nhwc) {
    %w = cgc.constant("conv1.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x7x7x3x!cgc.float32>
    %b = cgc.constant("conv1.bias") : !cgc.tensor<constant 64x!cgc.float32>
    %w1 = cgc.constant("layer1.0.conv1.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x1x1x64x!cgc.float32>
    %ws = cgc.constant("layer1.0.downsample.0.weight") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 256x1x1x64x!cgc.float32>
    %xn = cgc_op.transpose(%x) {permutation = [0, 2, 3, 1]} : (!img) -> !img_nhwc
    %xt = cgc_op.transpose(%xn) {permutation = [0, 3, 1, 2]} : (!img_nhwc) -> !img
    %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 64x7x7x3x!cgc.float32>) -> !cgc.tensor<64x3x7x7x!cgc.float32>
    %c = cgc_op.convolution(%xt, %wt, %b) {start_padding = [3, 3], end_padding = [3, 3], strides = [2, 2]}
        : (!img, !cgc.tensor<64x3x7x7x!cgc.float32>, !cgc.tensor<constant 64x!cgc.float32>) -> !stem
    %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!stem) -> !stem_nhwc
    %r = cgc_op.relu(%y) : (!stem_nhwc) -> !stem_nhwc
    %pt = cgc_op.transpose(%r) {permutation = [0, 3, 1, 2]} : (!stem_nhwc) -> !stem
    %p = cgc_op.max_pool(%pt) {kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1]}
        : (!stem) -> !pool
    %z = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    %x1 = cgc_op.transpose(%z) {permutation = [0, 3, 1, 2]} : (!pool_nhwc) -> !pool
    %w1t = cgc_op.transpose(%w1) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 64x1x1x64x!cgc.float32>) -> !cgc.tensor<64x64x1x1x!cgc.float32>
    %c1 = cgc_op.convolution(%x1, %w1t) : (!pool, !cgc.tensor<64x64x1x1x!cgc.float32>) -> !pool
    %y1 = cgc_op.transpose(%c1) {permutation = [0, 2, 3, 1]} : (!pool) -> !pool_nhwc
    %r1 = cgc_op.relu(%y1) : (!pool_nhwc) -> !pool_nhwc
    %xs = cgc_op.transpose(%z) {permutation = [0, 3, 1, 2]} : (!pool_nhwc) -> !pool
    %wst = cgc_op.transpose(%ws) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 256x1x1x64x!cgc.float32>) -> !cgc.tensor<256x64x1x1x!cgc.float32>
    %cs = cgc_op.convolution(%xs, %wst) : (!pool, !cgc.tensor<256x64x1x1x!cgc.float32>) -> !block
    %ys = cgc_op.transpose(%cs) {permutation = [0, 2, 3, 1]} : (!block) -> !block_nhwc
    cgc.return %r1, %ys : !pool_nhwc, !block_nhwc
  }
}

// -----

// Average pools, every window attribute kept (float32): ceil_mode with
// count_include_pad, asymmetric padding and dilations; and a bfloat16
// 2×2 stride-2 pool. Each in the form is one subgraph.
// CHECK-LABEL: cgc.subgraph @average_pool_nhwc_0 attributes {cgc.pattern = "average_pool_nhwc", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @average_pool_nhwc_0_functional(%[[X:[^:]*]]: !cgc.tensor<2x13x12x8x!cgc.float32>) -> !cgc.tensor<2x7x11x8x!cgc.float32> {
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[P:.*]] = cgc_op.average_pool(%[[XT]]) {ceil_mode = true, count_include_pad = true, dilations = [2, 3], end_padding = [1, 2], kernel_shape = [3, 2], start_padding = [2, 0], strides = [2, 1]}
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[P]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: cgc.return %[[Y]]
// CHECK: cgc.subgraph @average_pool_nhwc_1 attributes {cgc.pattern = "average_pool_nhwc", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @average_pool_nhwc_1_functional(%{{[^:]*}}: !cgc.tensor<1x8x8x16x!cgc.bfloat16>) -> !cgc.tensor<1x4x4x16x!cgc.bfloat16> {
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.average_pool
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc.return
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @average_pools(
// CHECK-NEXT: %[[A:.*]] = cgc.call @average_pool_nhwc_0(
// CHECK-NEXT: %[[B:.*]] = cgc.call @average_pool_nhwc_1(
// CHECK-NEXT: cgc.return %[[A]], %[[B]]
cgc.module {
  cgc.entry_point @average_pools(%x: !cgc.tensor<2x13x12x8x!cgc.float32>, %v: !cgc.tensor<1x8x8x16x!cgc.bfloat16>) -> (!cgc.tensor<2x7x11x8x!cgc.float32>, !cgc.tensor<1x4x4x16x!cgc.bfloat16>) {
    %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x13x12x8x!cgc.float32>) -> !cgc.tensor<2x8x13x12x!cgc.float32>
    %p = cgc_op.average_pool(%xt) {kernel_shape = [3, 2], strides = [2, 1], dilations = [2, 3], start_padding = [2, 0], end_padding = [1, 2], ceil_mode = true, count_include_pad = true}
        : (!cgc.tensor<2x8x13x12x!cgc.float32>) -> !cgc.tensor<2x8x7x11x!cgc.float32>
    %y = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x8x7x11x!cgc.float32>) -> !cgc.tensor<2x7x11x8x!cgc.float32>
    %vt = cgc_op.transpose(%v) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x16x!cgc.bfloat16>) -> !cgc.tensor<1x16x8x8x!cgc.bfloat16>
    %q = cgc_op.average_pool(%vt) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x16x8x8x!cgc.bfloat16>) -> !cgc.tensor<1x16x4x4x!cgc.bfloat16>
    %z = cgc_op.transpose(%q) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x16x4x4x!cgc.bfloat16>) -> !cgc.tensor<1x4x4x16x!cgc.bfloat16>
    cgc.return %y, %z : !cgc.tensor<2x7x11x8x!cgc.float32>, !cgc.tensor<1x4x4x16x!cgc.bfloat16>
  }
}

// -----

// What the patterns leave to the fallback target, layer by layer: a
// float64 pool in the form (the kernel's types are float32, float16 and
// bfloat16); a pool whose input transpose is also returned (not private to
// it); a pool between other permutations; an NCHW pool without the form.
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.pattern
// CHECK: cgc.subgraph @max_pool_1 attributes {origin = "cuda.fallback"}
// CHECK-NEXT: cgc.functional_definition private @max_pool_1_functional(%{{[^:]*}}: !cgc.tensor<1x4x8x8x!cgc.float64>)
// CHECK-NOT: cgc.pattern
// CHECK: cgc.subgraph @max_pool_4 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.pattern
// CHECK: cgc.subgraph @average_pool_7 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.pattern
// CHECK-LABEL: cgc.entry_point @not_matched(
// CHECK: %[[ST:.*]] = cgc.call @transpose_3(
// CHECK-NEXT: cgc.call @max_pool_4(%[[ST]])
// CHECK: %[[NP:.*]] = cgc.call @max_pool_4(%{{[^)]*}}) : (!cgc.tensor<1x4x8x8x!cgc.float32>)
// CHECK-NEXT: cgc.return %{{.*}}, %{{.*}}, %[[ST]], %{{.*}}, %[[NP]]
cgc.module {
  cgc.entry_point @not_matched(%d: !cgc.tensor<1x8x8x4x!cgc.float64>, %s: !cgc.tensor<1x8x8x4x!cgc.float32>, %q: !cgc.tensor<1x6x6x6x!cgc.float16>, %n: !cgc.tensor<1x4x8x8x!cgc.float32>)
      -> (!cgc.tensor<1x4x4x4x!cgc.float64>, !cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<1x3x3x6x!cgc.float16>, !cgc.tensor<1x4x4x4x!cgc.float32>) {
    %dt = cgc_op.transpose(%d) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x4x!cgc.float64>) -> !cgc.tensor<1x4x8x8x!cgc.float64>
    %dp = cgc_op.max_pool(%dt) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float64>) -> !cgc.tensor<1x4x4x4x!cgc.float64>
    %dy = cgc_op.transpose(%dp) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x4x4x4x!cgc.float64>) -> !cgc.tensor<1x4x4x4x!cgc.float64>
    %st = cgc_op.transpose(%s) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x4x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %sp = cgc_op.max_pool(%st) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %sy = cgc_op.transpose(%sp) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %qt = cgc_op.transpose(%q) {permutation = [0, 3, 2, 1]} : (!cgc.tensor<1x6x6x6x!cgc.float16>) -> !cgc.tensor<1x6x6x6x!cgc.float16>
    %qp = cgc_op.average_pool(%qt) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x6x6x6x!cgc.float16>) -> !cgc.tensor<1x6x3x3x!cgc.float16>
    %qy = cgc_op.transpose(%qp) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x6x3x3x!cgc.float16>) -> !cgc.tensor<1x3x3x6x!cgc.float16>
    %np = cgc_op.max_pool(%n) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    cgc.return %dy, %sy, %st, %qy, %np : !cgc.tensor<1x4x4x4x!cgc.float64>, !cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<1x3x3x6x!cgc.float16>, !cgc.tensor<1x4x4x4x!cgc.float32>
  }
}

// -----

// Global pools of NHWC tensors (ResNet-50's and MobileNetV2's last
// convolution output before the classifier): the input's transpose to NCHW
// and the pool are one subgraph, whose N×C×1×1 result the reshape reads
// as it is; a float16 average and a bfloat16 maximum. A global pool whose
// input transpose is also returned stays with the fallback target.
// CHECK-LABEL: cgc.subgraph @global_average_pool_nhwc_0 attributes {cgc.pattern = "global_average_pool_nhwc", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @global_average_pool_nhwc_0_functional(%[[X:[^:]*]]: !cgc.tensor<2x7x7x64x!cgc.float16>) -> !cgc.tensor<2x64x1x1x!cgc.float16> {
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[P:.*]] = cgc_op.global_average_pool(%[[XT]])
// CHECK-NEXT: cgc.return %[[P]]
// CHECK: cgc.subgraph @reshape_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @global_max_pool_nhwc_2 attributes {cgc.pattern = "global_max_pool_nhwc", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @global_max_pool_nhwc_2_functional(%{{[^:]*}}: !cgc.tensor<1x4x4x16x!cgc.bfloat16>) -> !cgc.tensor<1x16x1x1x!cgc.bfloat16> {
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.global_max_pool
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @transpose_3 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @global_average_pool_4 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @global_pools(
// CHECK-NEXT: %[[A:.*]] = cgc.call @global_average_pool_nhwc_0(
// CHECK-NEXT: %[[R:.*]] = cgc.call @reshape_1(%[[A]])
// CHECK-NEXT: %[[B:.*]] = cgc.call @global_max_pool_nhwc_2(
// CHECK-NEXT: %[[ST:.*]] = cgc.call @transpose_3(
// CHECK-NEXT: %[[C:.*]] = cgc.call @global_average_pool_4(%[[ST]])
// CHECK-NEXT: cgc.return %[[R]], %[[B]], %[[C]], %[[ST]]
cgc.module {
  cgc.entry_point @global_pools(%x: !cgc.tensor<2x7x7x64x!cgc.float16>, %v: !cgc.tensor<1x4x4x16x!cgc.bfloat16>, %s: !cgc.tensor<1x3x3x8x!cgc.float32>)
      -> (!cgc.tensor<2x64x!cgc.float16>, !cgc.tensor<1x16x1x1x!cgc.bfloat16>, !cgc.tensor<1x8x1x1x!cgc.float32>, !cgc.tensor<1x8x3x3x!cgc.float32>) {
    %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x7x7x64x!cgc.float16>) -> !cgc.tensor<2x64x7x7x!cgc.float16>
    %p = cgc_op.global_average_pool(%xt) : (!cgc.tensor<2x64x7x7x!cgc.float16>) -> !cgc.tensor<2x64x1x1x!cgc.float16>
    %f = cgc_op.reshape(%p) {shape = [2, 64]} : (!cgc.tensor<2x64x1x1x!cgc.float16>) -> !cgc.tensor<2x64x!cgc.float16>
    %vt = cgc_op.transpose(%v) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x4x4x16x!cgc.bfloat16>) -> !cgc.tensor<1x16x4x4x!cgc.bfloat16>
    %q = cgc_op.global_max_pool(%vt) : (!cgc.tensor<1x16x4x4x!cgc.bfloat16>) -> !cgc.tensor<1x16x1x1x!cgc.bfloat16>
    %st = cgc_op.transpose(%s) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x3x3x8x!cgc.float32>) -> !cgc.tensor<1x8x3x3x!cgc.float32>
    %sp = cgc_op.global_average_pool(%st) : (!cgc.tensor<1x8x3x3x!cgc.float32>) -> !cgc.tensor<1x8x1x1x!cgc.float32>
    cgc.return %f, %q, %sp, %st : !cgc.tensor<2x64x!cgc.float16>, !cgc.tensor<1x16x1x1x!cgc.bfloat16>, !cgc.tensor<1x8x1x1x!cgc.float32>, !cgc.tensor<1x8x3x3x!cgc.float32>
  }
}
