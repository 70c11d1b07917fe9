// The CUDA driver's channels-last convolution pattern
// (conv_nhwc_bias_activation, drivers/cuda/patterns/convolution.mlir) over
// the reference CNNs' convolutions in the compiler's channels-last form (what
// its cgc-channels-last pass makes of them): activations NHWC, weights
// OHWI, and around each 2-D convolution a transpose of its input (NHWC →
// NCHW, [0, 3, 1, 2]), of its weight (OHWI → OIHW, [0, 3, 1, 2]) and of its
// result (NCHW → NHWC, [0, 2, 3, 1]). Each convolution, its three transposes
// and the elementwise layers after it become one subgraph of the fused
// target, which runs on the NHWC tensors as they are; everything else falls
// back.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/convolution.mlir fallback-target=cuda.fallback" | FileCheck %s

// ResNet-50's first bottleneck of stage 1 (identity shortcut): conv →
// relu twice, then conv → add(residual) → relu, whose residual is the
// block's NHWC input, also read (through a transpose of its own) by the
// first convolution.
// CHECK-LABEL: cgc.subgraph @conv_nhwc_bias_activation_0 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_0_functional(%[[X:[^:]*]]: !cgc.tensor<1x56x56x256x!cgc.float32>, %[[W:[^:]*]]: !cgc.tensor<constant 64x1x1x256x!cgc.float32>, %[[B:[^:]*]]: !cgc.tensor<constant 64x!cgc.float32>) -> !cgc.tensor<1x56x56x64x!cgc.float32> {
// CHECK-NEXT: %[[XT:.*]] = cgc_op.transpose(%[[X]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose(%[[W]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[XT]], %[[WT]], %[[B]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[Y]])
// CHECK-NEXT: cgc.return %[[R]]
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_1 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_1_functional(%{{[^:]*}}: !cgc.tensor<1x56x56x64x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 64x3x3x64x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 64x!cgc.float32>) -> !cgc.tensor<1x56x56x64x!cgc.float32> {
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.convolution
// CHECK-SAME: end_padding = [1, 1]
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.relu
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_2 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_2_functional(%[[H:[^:]*]]: !cgc.tensor<1x56x56x64x!cgc.float32>, %[[W3:[^:]*]]: !cgc.tensor<constant 256x1x1x64x!cgc.float32>, %[[B3:[^:]*]]: !cgc.tensor<constant 256x!cgc.float32>, %[[RES:[^:]*]]: !cgc.tensor<1x56x56x256x!cgc.float32>) -> !cgc.tensor<1x56x56x256x!cgc.float32> {
// CHECK-NEXT: %[[HT:.*]] = cgc_op.transpose(%[[H]])
// CHECK-NEXT: %[[W3T:.*]] = cgc_op.transpose(%[[W3]])
// CHECK-NEXT: %[[C3:.*]] = cgc_op.convolution(%[[HT]], %[[W3T]], %[[B3]])
// CHECK-NEXT: %[[Y3:.*]] = cgc_op.transpose(%[[C3]])
// CHECK-NEXT: %[[SUM:.*]] = cgc_op.add(%[[Y3]], %[[RES]])
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.relu(%[[SUM]])
// CHECK-NEXT: cgc.return %[[OUT]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @resnet_bottleneck_nhwc(
// CHECK-SAME: %[[IN:[^:]*]]: !cgc.tensor<1x56x56x256x!cgc.float32>)
// CHECK: %[[A:.*]] = cgc.call @conv_nhwc_bias_activation_0(%[[IN]],
// CHECK-NEXT: %[[M:.*]] = cgc.call @conv_nhwc_bias_activation_1(%[[A]],
// CHECK-NEXT: %[[OUTPUT:.*]] = cgc.call @conv_nhwc_bias_activation_2(%[[M]], %{{[^,]*}}, %{{[^,]*}}, %[[IN]])
// CHECK-NEXT: cgc.return %[[OUTPUT]]
!in = !cgc.tensor<1x56x56x256x!cgc.float32>
!in_nchw = !cgc.tensor<1x256x56x56x!cgc.float32>
!mid = !cgc.tensor<1x56x56x64x!cgc.float32>
!mid_nchw = !cgc.tensor<1x64x56x56x!cgc.float32>
cgc.module {
  cgc.entry_point @resnet_bottleneck_nhwc(%x: !in) -> !in {
    %w1 = cgc.constant("layer1.0.conv1.weight") : !cgc.tensor<constant 64x1x1x256x!cgc.float32>
    %b1 = cgc.constant("layer1.0.conv1.bias") : !cgc.tensor<constant 64x!cgc.float32>
    %w2 = cgc.constant("layer1.0.conv2.weight") : !cgc.tensor<constant 64x3x3x64x!cgc.float32>
    %b2 = cgc.constant("layer1.0.conv2.bias") : !cgc.tensor<constant 64x!cgc.float32>
    %w3 = cgc.constant("layer1.0.conv3.weight") : !cgc.tensor<constant 256x1x1x64x!cgc.float32>
    %b3 = cgc.constant("layer1.0.conv3.bias") : !cgc.tensor<constant 256x!cgc.float32>
    %x1 = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!in) -> !in_nchw
    %w1t = cgc_op.transpose(%w1) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 64x1x1x256x!cgc.float32>) -> !cgc.tensor<64x256x1x1x!cgc.float32>
    %c1 = cgc_op.convolution(%x1, %w1t, %b1)
        : (!in_nchw, !cgc.tensor<64x256x1x1x!cgc.float32>, !cgc.tensor<constant 64x!cgc.float32>) -> !mid_nchw
    %y1 = cgc_op.transpose(%c1) {permutation = [0, 2, 3, 1]} : (!mid_nchw) -> !mid
    %r1 = cgc_op.relu(%y1) : (!mid) -> !mid
    %x2 = cgc_op.transpose(%r1) {permutation = [0, 3, 1, 2]} : (!mid) -> !mid_nchw
    %w2t = cgc_op.transpose(%w2) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 64x3x3x64x!cgc.float32>) -> !cgc.tensor<64x64x3x3x!cgc.float32>
    %c2 = cgc_op.convolution(%x2, %w2t, %b2) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!mid_nchw, !cgc.tensor<64x64x3x3x!cgc.float32>, !cgc.tensor<constant 64x!cgc.float32>) -> !mid_nchw
    %y2 = cgc_op.transpose(%c2) {permutation = [0, 2, 3, 1]} : (!mid_nchw) -> !mid
    %r2 = cgc_op.relu(%y2) : (!mid) -> !mid
    %x3 = cgc_op.transpose(%r2) {permutation = [0, 3, 1, 2]} : (!mid) -> !mid_nchw
    %w3t = cgc_op.transpose(%w3) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 256x1x1x64x!cgc.float32>) -> !cgc.tensor<256x64x1x1x!cgc.float32>
    %c3 = cgc_op.convolution(%x3, %w3t, %b3)
        : (!mid_nchw, !cgc.tensor<256x64x1x1x!cgc.float32>, !cgc.tensor<constant 256x!cgc.float32>) -> !in_nchw
    %y3 = cgc_op.transpose(%c3) {permutation = [0, 2, 3, 1]} : (!in_nchw) -> !in
    %sum = cgc_op.add(%y3, %x) : (!in, !in) -> !in
    %out = cgc_op.relu(%sum) : (!in) -> !in
    cgc.return %out : !in
  }
}

// -----

// The stem (7×7, stride 2, three input channels) → relu in float16, and
// MobileNetV2's inverted residual block: the 1×1 expansion → clip(0, 6),
// the depthwise 3×3 (groups = channels, weight 144×3×3×1) → clip(0, 6),
// the linear projection → add(residual) without activation.
// CHECK-LABEL: cgc.subgraph @conv_nhwc_bias_activation_0 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_0_functional(%{{[^:]*}}: !cgc.tensor<1x224x224x3x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 64x7x7x3x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 64x!cgc.float16>) -> !cgc.tensor<1x112x112x64x!cgc.float16> {
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.convolution
// CHECK-SAME: strides = [2, 2]
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.relu
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_1 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_1_functional(%{{[^:]*}}: !cgc.tensor<1x56x56x24x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 144x1x1x24x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 144x!cgc.float16>) -> !cgc.tensor<1x56x56x144x!cgc.float16> {
// CHECK: cgc_op.clip
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_2 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_2_functional(%{{[^:]*}}: !cgc.tensor<1x56x56x144x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 144x3x3x1x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 144x!cgc.float16>) -> !cgc.tensor<1x56x56x144x!cgc.float16> {
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: %[[DW:.*]] = cgc_op.convolution
// CHECK-SAME: groups = 144
// CHECK-NEXT: %[[DWY:.*]] = cgc_op.transpose(%[[DW]])
// CHECK-NEXT: %[[A2:.*]] = cgc_op.clip(%[[DWY]])
// CHECK-NEXT: cgc.return %[[A2]]
// CHECK: cgc.subgraph @conv_nhwc_bias_activation_3 attributes {cgc.pattern = "conv_nhwc_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_bias_activation_3_functional(%{{[^:]*}}: !cgc.tensor<1x56x56x144x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 24x1x1x144x!cgc.float16>, %{{[^:]*}}: !cgc.tensor<constant 24x!cgc.float16>, %[[RESIDUAL:[^:]*]]: !cgc.tensor<1x56x56x24x!cgc.float16>) -> !cgc.tensor<1x56x56x24x!cgc.float16> {
// CHECK: %[[P:.*]] = cgc_op.transpose(%{{.*}}) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[SUM:.*]] = cgc_op.add(%[[RESIDUAL]], %[[P]])
// CHECK-NEXT: cgc.return %[[SUM]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @stem_and_inverted_residual_nhwc(
// CHECK-SAME: %[[IMAGE:[^:]*]]: !cgc.tensor<1x224x224x3x!cgc.float16>, %[[BLOCK:[^:]*]]: !cgc.tensor<1x56x56x24x!cgc.float16>)
// CHECK: cgc.call @conv_nhwc_bias_activation_0(%[[IMAGE]],
// CHECK: %[[E:.*]] = cgc.call @conv_nhwc_bias_activation_1(%[[BLOCK]],
// CHECK-NEXT: %[[D:.*]] = cgc.call @conv_nhwc_bias_activation_2(%[[E]],
// CHECK-NEXT: cgc.call @conv_nhwc_bias_activation_3(%[[D]], %{{[^,]*}}, %{{[^,]*}}, %[[BLOCK]])
!image = !cgc.tensor<1x224x224x3x!cgc.float16>
!image_nchw = !cgc.tensor<1x3x224x224x!cgc.float16>
!stem = !cgc.tensor<1x112x112x64x!cgc.float16>
!stem_nchw = !cgc.tensor<1x64x112x112x!cgc.float16>
!narrow = !cgc.tensor<1x56x56x24x!cgc.float16>
!narrow_nchw = !cgc.tensor<1x24x56x56x!cgc.float16>
!expanded = !cgc.tensor<1x56x56x144x!cgc.float16>
!expanded_nchw = !cgc.tensor<1x144x56x56x!cgc.float16>
cgc.module {
  cgc.entry_point @stem_and_inverted_residual_nhwc(%image: !image, %block: !narrow) -> (!stem, !narrow) {
    %w0 = cgc.constant("conv1.weight") : !cgc.tensor<constant 64x7x7x3x!cgc.float16>
    %b0 = cgc.constant("conv1.bias") : !cgc.tensor<constant 64x!cgc.float16>
    %we = cgc.constant("features.3.conv.0.0.weight") : !cgc.tensor<constant 144x1x1x24x!cgc.float16>
    %be = cgc.constant("features.3.conv.0.0.bias") : !cgc.tensor<constant 144x!cgc.float16>
    %wd = cgc.constant("features.3.conv.1.0.weight") : !cgc.tensor<constant 144x3x3x1x!cgc.float16>
    %bd = cgc.constant("features.3.conv.1.0.bias") : !cgc.tensor<constant 144x!cgc.float16>
    %wp = cgc.constant("features.3.conv.2.weight") : !cgc.tensor<constant 24x1x1x144x!cgc.float16>
    %bp = cgc.constant("features.3.conv.2.bias") : !cgc.tensor<constant 24x!cgc.float16>
    %x0 = cgc_op.transpose(%image) {permutation = [0, 3, 1, 2]} : (!image) -> !image_nchw
    %w0t = cgc_op.transpose(%w0) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 64x7x7x3x!cgc.float16>) -> !cgc.tensor<64x3x7x7x!cgc.float16>
    %c0 = cgc_op.convolution(%x0, %w0t, %b0) {start_padding = [3, 3], end_padding = [3, 3], strides = [2, 2]}
        : (!image_nchw, !cgc.tensor<64x3x7x7x!cgc.float16>, !cgc.tensor<constant 64x!cgc.float16>) -> !stem_nchw
    %y0 = cgc_op.transpose(%c0) {permutation = [0, 2, 3, 1]} : (!stem_nchw) -> !stem
    %r0 = cgc_op.relu(%y0) : (!stem) -> !stem
    %x1 = cgc_op.transpose(%block) {permutation = [0, 3, 1, 2]} : (!narrow) -> !narrow_nchw
    %wet = cgc_op.transpose(%we) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 144x1x1x24x!cgc.float16>) -> !cgc.tensor<144x24x1x1x!cgc.float16>
    %c1 = cgc_op.convolution(%x1, %wet, %be)
        : (!narrow_nchw, !cgc.tensor<144x24x1x1x!cgc.float16>, !cgc.tensor<constant 144x!cgc.float16>) -> !expanded_nchw
    %y1 = cgc_op.transpose(%c1) {permutation = [0, 2, 3, 1]} : (!expanded_nchw) -> !expanded
    %a1 = cgc_op.clip(%y1) {max = 6.000000e+00, min = 0.000000e+00} : (!expanded) -> !expanded
    %x2 = cgc_op.transpose(%a1) {permutation = [0, 3, 1, 2]} : (!expanded) -> !expanded_nchw
    %wdt = cgc_op.transpose(%wd) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 144x3x3x1x!cgc.float16>) -> !cgc.tensor<144x1x3x3x!cgc.float16>
    %c2 = cgc_op.convolution(%x2, %wdt, %bd) {start_padding = [1, 1], end_padding = [1, 1], groups = 144 : i64}
        : (!expanded_nchw, !cgc.tensor<144x1x3x3x!cgc.float16>, !cgc.tensor<constant 144x!cgc.float16>) -> !expanded_nchw
    %y2 = cgc_op.transpose(%c2) {permutation = [0, 2, 3, 1]} : (!expanded_nchw) -> !expanded
    %a2 = cgc_op.clip(%y2) {max = 6.000000e+00, min = 0.000000e+00} : (!expanded) -> !expanded
    %x3 = cgc_op.transpose(%a2) {permutation = [0, 3, 1, 2]} : (!expanded) -> !expanded_nchw
    %wpt = cgc_op.transpose(%wp) {permutation = [0, 3, 1, 2]}
        : (!cgc.tensor<constant 24x1x1x144x!cgc.float16>) -> !cgc.tensor<24x144x1x1x!cgc.float16>
    %c3 = cgc_op.convolution(%x3, %wpt, %bp)
        : (!expanded_nchw, !cgc.tensor<24x144x1x1x!cgc.float16>, !cgc.tensor<constant 24x!cgc.float16>) -> !narrow_nchw
    %y3 = cgc_op.transpose(%c3) {permutation = [0, 2, 3, 1]} : (!narrow_nchw) -> !narrow
    %y = cgc_op.add(%block, %y3) : (!narrow, !narrow) -> !narrow
    cgc.return %r0, %y : !stem, !narrow
  }
}

// -----

// What the pattern leaves out. A transposed input that another layer also
// reads (exp) is not private to the convolution: the NCHW pattern takes the
// convolution alone and the transposes fall back. A 1-D convolution's
// transposes ([0, 2, 1]) are not the 2-D form, and neither is a result
// transposed to another layout ([0, 3, 2, 1]): the same. (That last
// convolution is the first one again, so it calls the first's subgraphs.)
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @transpose_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @conv_bias_activation_2 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_2_functional(%{{[^:]*}}: !cgc.tensor<1x4x8x8x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<4x4x3x3x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32> {
// CHECK-NEXT: cgc_op.convolution
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @transpose_3 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @relu_4 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @exp_5 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @transpose_6 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @transpose_7 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @conv_bias_activation_8 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_8_functional(%{{[^:]*}}: !cgc.tensor<1x4x9x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<4x4x3x!cgc.float32>) -> !cgc.tensor<1x4x9x!cgc.float32> {
// CHECK: cgc.subgraph @transpose_9 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @transpose_13 attributes {origin = "cuda.fallback"}
// CHECK-NEXT: cgc.functional_definition private @transpose_13_functional(%{{[^:]*}}: !cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x4x!cgc.float32>
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @left_out(
// CHECK: = cgc.call @conv_bias_activation_2(
// CHECK: %[[AGAIN:.*]] = cgc.call @conv_bias_activation_2(
// CHECK-NEXT: cgc.call @transpose_13(%[[AGAIN]])
!nhwc = !cgc.tensor<1x8x8x4x!cgc.float32>
!nchw = !cgc.tensor<1x4x8x8x!cgc.float32>
!nwc = !cgc.tensor<1x9x4x!cgc.float32>
!ncw = !cgc.tensor<1x4x9x!cgc.float32>
cgc.module {
  cgc.entry_point @left_out(%x: !nhwc, %w: !cgc.tensor<4x3x3x4x!cgc.float32>, %v: !nwc, %u: !cgc.tensor<4x3x4x!cgc.float32>)
      -> (!nhwc, !nchw, !nwc, !cgc.tensor<1x8x8x4x!cgc.float32>) {
    %xt = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!nhwc) -> !nchw
    %wt = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<4x3x3x4x!cgc.float32>) -> !cgc.tensor<4x4x3x3x!cgc.float32>
    %c = cgc_op.convolution(%xt, %wt) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!nchw, !cgc.tensor<4x4x3x3x!cgc.float32>) -> !nchw
    %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!nchw) -> !nhwc
    %r = cgc_op.relu(%y) : (!nhwc) -> !nhwc
    %e = cgc_op.exp(%xt) : (!nchw) -> !nchw
    %vt = cgc_op.transpose(%v) {permutation = [0, 2, 1]} : (!nwc) -> !ncw
    %ut = cgc_op.transpose(%u) {permutation = [0, 2, 1]} : (!cgc.tensor<4x3x4x!cgc.float32>) -> !cgc.tensor<4x4x3x!cgc.float32>
    %c1 = cgc_op.convolution(%vt, %ut) {start_padding = [1], end_padding = [1]}
        : (!ncw, !cgc.tensor<4x4x3x!cgc.float32>) -> !ncw
    %y1 = cgc_op.transpose(%c1) {permutation = [0, 2, 1]} : (!ncw) -> !nwc
    %xt2 = cgc_op.transpose(%x) {permutation = [0, 3, 1, 2]} : (!nhwc) -> !nchw
    %wt2 = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<4x3x3x4x!cgc.float32>) -> !cgc.tensor<4x4x3x3x!cgc.float32>
    %c2 = cgc_op.convolution(%xt2, %wt2) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!nchw, !cgc.tensor<4x4x3x3x!cgc.float32>) -> !nchw
    %y2 = cgc_op.transpose(%c2) {permutation = [0, 3, 2, 1]} : (!nchw) -> !cgc.tensor<1x8x8x4x!cgc.float32>
    cgc.return %r, %e, %y1, %y2 : !nhwc, !nchw, !nwc, !cgc.tensor<1x8x8x4x!cgc.float32>
  }
}
