// The CUDA driver's fused convolution patterns (drivers/cuda/patterns/convolution.mlir)
// over the convolutions of the reference CNNs as the ONNX importer gives them
// (torch.onnx, opset 17, batch normalization folded into each convolution's
// bias): ResNet-50's bottleneck blocks (conv → relu, conv → add(residual) →
// relu) and MobileNetV2's inverted residual blocks (conv → clip(0, 6),
// depthwise conv → clip(0, 6), a linear projection, add(residual)). Each
// convolution and the elementwise layers after it become one subgraph of
// the fused target; everything else falls back.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/convolution.mlir fallback-target=cuda.fallback" | FileCheck %s

// ResNet-50's first bottleneck of stage 1 (identity shortcut): two
// convolutions with bias and relu, then the tail conv → add(residual) →
// relu as one subgraph whose residual is the block's input.
// CHECK-LABEL: cgc.subgraph @conv_bias_activation_0 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_0_functional(%[[X:[^:]*]]: !cgc.tensor<1x256x56x56x!cgc.float32>, %[[W:[^:]*]]: !cgc.tensor<constant 64x256x1x1x!cgc.float32>, %[[B:[^:]*]]: !cgc.tensor<constant 64x!cgc.float32>) -> !cgc.tensor<1x64x56x56x!cgc.float32> {
// CHECK-NEXT: %[[C:.*]] = cgc_op.convolution(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[C]])
// CHECK-NEXT: cgc.return %[[R]]
// CHECK: cgc.subgraph @conv_bias_activation_1 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_1_functional(%{{[^:]*}}: !cgc.tensor<1x64x56x56x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 64x64x3x3x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 64x!cgc.float32>) -> !cgc.tensor<1x64x56x56x!cgc.float32> {
// CHECK-NEXT: cgc_op.convolution
// CHECK-SAME: end_padding = [1, 1]
// CHECK-NEXT: cgc_op.relu
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @conv_bias_activation_2 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_2_functional(%[[H:[^:]*]]: !cgc.tensor<1x64x56x56x!cgc.float32>, %[[W3:[^:]*]]: !cgc.tensor<constant 256x64x1x1x!cgc.float32>, %[[B3:[^:]*]]: !cgc.tensor<constant 256x!cgc.float32>, %[[RES:[^:]*]]: !cgc.tensor<1x256x56x56x!cgc.float32>) -> !cgc.tensor<1x256x56x56x!cgc.float32> {
// CHECK-NEXT: %[[C3:.*]] = cgc_op.convolution(%[[H]], %[[W3]], %[[B3]])
// CHECK-NEXT: %[[SUM:.*]] = cgc_op.add(%[[C3]], %[[RES]])
// CHECK-NEXT: %[[OUT:.*]] = cgc_op.relu(%[[SUM]])
// CHECK-NEXT: cgc.return %[[OUT]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @resnet_bottleneck(
// CHECK-SAME: %[[IN:[^:]*]]: !cgc.tensor<1x256x56x56x!cgc.float32>)
// CHECK: %[[A:.*]] = cgc.call @conv_bias_activation_0(%[[IN]],
// CHECK-NEXT: %[[M:.*]] = cgc.call @conv_bias_activation_1(%[[A]],
// CHECK-NEXT: %[[Y:.*]] = cgc.call @conv_bias_activation_2(%[[M]], %{{[^,]*}}, %{{[^,]*}}, %[[IN]])
// CHECK-NEXT: cgc.return %[[Y]]
!in = !cgc.tensor<1x256x56x56x!cgc.float32>
!mid = !cgc.tensor<1x64x56x56x!cgc.float32>
cgc.module {
  cgc.entry_point @resnet_bottleneck(%x: !in) -> !in {
    %w1 = cgc.constant("layer1.0.conv1.weight") : !cgc.tensor<constant 64x256x1x1x!cgc.float32>
    %b1 = cgc.constant("layer1.0.conv1.bias") : !cgc.tensor<constant 64x!cgc.float32>
    %w2 = cgc.constant("layer1.0.conv2.weight") : !cgc.tensor<constant 64x64x3x3x!cgc.float32>
    %b2 = cgc.constant("layer1.0.conv2.bias") : !cgc.tensor<constant 64x!cgc.float32>
    %w3 = cgc.constant("layer1.0.conv3.weight") : !cgc.tensor<constant 256x64x1x1x!cgc.float32>
    %b3 = cgc.constant("layer1.0.conv3.bias") : !cgc.tensor<constant 256x!cgc.float32>
    %c1 = cgc_op.convolution(%x, %w1, %b1)
        : (!in, !cgc.tensor<constant 64x256x1x1x!cgc.float32>, !cgc.tensor<constant 64x!cgc.float32>) -> !mid
    %r1 = cgc_op.relu(%c1) : (!mid) -> !mid
    %c2 = cgc_op.convolution(%r1, %w2, %b2) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!mid, !cgc.tensor<constant 64x64x3x3x!cgc.float32>, !cgc.tensor<constant 64x!cgc.float32>) -> !mid
    %r2 = cgc_op.relu(%c2) : (!mid) -> !mid
    %c3 = cgc_op.convolution(%r2, %w3, %b3)
        : (!mid, !cgc.tensor<constant 256x64x1x1x!cgc.float32>, !cgc.tensor<constant 256x!cgc.float32>) -> !in
    %sum = cgc_op.add(%c3, %x) : (!in, !in) -> !in
    %out = cgc_op.relu(%sum) : (!in) -> !in
    cgc.return %out : !in
  }
}

// -----

// The stem and a downsampling block's shortcut: the 7×7 stride-2 stem conv
// → relu, then max_pool (not elementwise: it falls back). The block's
// projection shortcut is a second convolution feeding the residual add: the
// add and relu join the main path's convolution (the add's first operand);
// the shortcut's convolution, whose longest chain would run into that add,
// matches alone when the patterns are matched again around the accepted
// subgraphs.
// CHECK-LABEL: cgc.subgraph @conv_bias_activation_0 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_0_functional(%{{[^:]*}}: !cgc.tensor<1x3x224x224x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 64x3x7x7x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 64x!cgc.float32>) -> !cgc.tensor<1x64x112x112x!cgc.float32> {
// CHECK-NEXT: cgc_op.convolution
// CHECK-SAME: strides = [2, 2]
// CHECK-NEXT: cgc_op.relu
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @max_pool_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @conv_bias_activation_2 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition
// CHECK-NEXT: cgc_op.convolution
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @conv_bias_activation_3 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_3_functional(%[[P:[^:]*]]: !cgc.tensor<1x64x56x56x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 256x64x1x1x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 256x!cgc.float32>, %[[SHORTCUT:[^:]*]]: !cgc.tensor<1x256x56x56x!cgc.float32>)
// CHECK-NEXT: %[[D:.*]] = cgc_op.convolution(%[[P]],
// CHECK-NEXT: %[[S:.*]] = cgc_op.add(%[[D]], %[[SHORTCUT]])
// CHECK-NEXT: %[[O:.*]] = cgc_op.relu(%[[S]])
// CHECK-NEXT: cgc.return %[[O]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @resnet_stem_and_shortcut(
// CHECK: %[[STEM:.*]] = cgc.call @conv_bias_activation_0(
// CHECK-NEXT: %[[POOL:.*]] = cgc.call @max_pool_1(%[[STEM]])
// CHECK-NEXT: %[[DOWN:.*]] = cgc.call @conv_bias_activation_2(%[[POOL]],
// CHECK-NEXT: cgc.call @conv_bias_activation_3(%[[POOL]], %{{[^,]*}}, %{{[^,]*}}, %[[DOWN]])
!image = !cgc.tensor<1x3x224x224x!cgc.float32>
!stem = !cgc.tensor<1x64x112x112x!cgc.float32>
!pooled = !cgc.tensor<1x64x56x56x!cgc.float32>
!wide = !cgc.tensor<1x256x56x56x!cgc.float32>
cgc.module {
  cgc.entry_point @resnet_stem_and_shortcut(%x: !image) -> !wide {
    %w0 = cgc.constant("conv1.weight") : !cgc.tensor<constant 64x3x7x7x!cgc.float32>
    %b0 = cgc.constant("conv1.bias") : !cgc.tensor<constant 64x!cgc.float32>
    %wm = cgc.constant("layer1.0.conv3.weight") : !cgc.tensor<constant 256x64x1x1x!cgc.float32>
    %bm = cgc.constant("layer1.0.conv3.bias") : !cgc.tensor<constant 256x!cgc.float32>
    %wd = cgc.constant("layer1.0.downsample.0.weight") : !cgc.tensor<constant 256x64x1x1x!cgc.float32>
    %bd = cgc.constant("layer1.0.downsample.0.bias") : !cgc.tensor<constant 256x!cgc.float32>
    %c0 = cgc_op.convolution(%x, %w0, %b0) {start_padding = [3, 3], end_padding = [3, 3], strides = [2, 2]}
        : (!image, !cgc.tensor<constant 64x3x7x7x!cgc.float32>, !cgc.tensor<constant 64x!cgc.float32>) -> !stem
    %r0 = cgc_op.relu(%c0) : (!stem) -> !stem
    %p = cgc_op.max_pool(%r0) {kernel_shape = [3, 3], strides = [2, 2], start_padding = [1, 1], end_padding = [1, 1]} : (!stem) -> !pooled
    %main = cgc_op.convolution(%p, %wm, %bm)
        : (!pooled, !cgc.tensor<constant 256x64x1x1x!cgc.float32>, !cgc.tensor<constant 256x!cgc.float32>) -> !wide
    %down = cgc_op.convolution(%p, %wd, %bd)
        : (!pooled, !cgc.tensor<constant 256x64x1x1x!cgc.float32>, !cgc.tensor<constant 256x!cgc.float32>) -> !wide
    %sum = cgc_op.add(%main, %down) : (!wide, !wide) -> !wide
    %out = cgc_op.relu(%sum) : (!wide) -> !wide
    cgc.return %out : !wide
  }
}

// -----

// MobileNetV2's first layer and an inverted residual block with a residual:
// conv (stride 2) → clip(0, 6); the 1×1 expansion → clip(0, 6); the
// depthwise 3×3 (groups = channels) → clip(0, 6); the linear 1×1
// projection → add(residual) without activation.
// CHECK-LABEL: cgc.subgraph @conv_bias_activation_0 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_0_functional(%{{[^:]*}}: !cgc.tensor<1x3x224x224x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 32x3x3x3x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 32x!cgc.float32>) -> !cgc.tensor<1x32x112x112x!cgc.float32> {
// CHECK-NEXT: %[[C0:.*]] = cgc_op.convolution
// CHECK-NEXT: %[[A0:.*]] = cgc_op.clip(%[[C0]]) {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK-NEXT: cgc.return %[[A0]]
// CHECK: cgc.subgraph @conv_bias_activation_1 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_1_functional(%{{[^:]*}}: !cgc.tensor<1x24x56x56x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 144x24x1x1x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 144x!cgc.float32>) -> !cgc.tensor<1x144x56x56x!cgc.float32> {
// CHECK-NEXT: cgc_op.convolution
// CHECK-NEXT: cgc_op.clip
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @conv_bias_activation_2 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_2_functional(%{{[^:]*}}: !cgc.tensor<1x144x56x56x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 144x1x3x3x!cgc.float32>, %{{[^:]*}}: !cgc.tensor<constant 144x!cgc.float32>) -> !cgc.tensor<1x144x56x56x!cgc.float32> {
// CHECK-NEXT: %[[DW:.*]] = cgc_op.convolution
// CHECK-SAME: groups = 144
// CHECK-NEXT: %[[A2:.*]] = cgc_op.clip(%[[DW]])
// CHECK-NEXT: cgc.return %[[A2]]
// CHECK: cgc.subgraph @conv_bias_activation_3 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_activation_3_functional(%[[E:[^:]*]]: !cgc.tensor<1x144x56x56x!cgc.float32>, %[[WP:[^:]*]]: !cgc.tensor<constant 24x144x1x1x!cgc.float32>, %[[BP:[^:]*]]: !cgc.tensor<constant 24x!cgc.float32>, %[[RESIDUAL:[^:]*]]: !cgc.tensor<1x24x56x56x!cgc.float32>) -> !cgc.tensor<1x24x56x56x!cgc.float32> {
// CHECK-NEXT: %[[P:.*]] = cgc_op.convolution(%[[E]], %[[WP]], %[[BP]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.add(%[[RESIDUAL]], %[[P]])
// CHECK-NEXT: cgc.return %[[Y]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @mobilenet_v2_blocks(
// CHECK-SAME: %[[IMAGE:[^:]*]]: !cgc.tensor<1x3x224x224x!cgc.float32>, %[[BLOCK:[^:]*]]: !cgc.tensor<1x24x56x56x!cgc.float32>)
// CHECK: cgc.call @conv_bias_activation_0(%[[IMAGE]],
// CHECK: %[[X1:.*]] = cgc.call @conv_bias_activation_1(%[[BLOCK]],
// CHECK-NEXT: %[[X2:.*]] = cgc.call @conv_bias_activation_2(%[[X1]],
// CHECK-NEXT: %[[X3:.*]] = cgc.call @conv_bias_activation_3(%[[X2]], %{{[^,]*}}, %{{[^,]*}}, %[[BLOCK]])
!image = !cgc.tensor<1x3x224x224x!cgc.float32>
!first = !cgc.tensor<1x32x112x112x!cgc.float32>
!narrow = !cgc.tensor<1x24x56x56x!cgc.float32>
!expanded = !cgc.tensor<1x144x56x56x!cgc.float32>
cgc.module {
  cgc.entry_point @mobilenet_v2_blocks(%image: !image, %block: !narrow) -> (!first, !narrow) {
    %w0 = cgc.constant("features.0.0.weight") : !cgc.tensor<constant 32x3x3x3x!cgc.float32>
    %b0 = cgc.constant("features.0.0.bias") : !cgc.tensor<constant 32x!cgc.float32>
    %we = cgc.constant("features.3.conv.0.0.weight") : !cgc.tensor<constant 144x24x1x1x!cgc.float32>
    %be = cgc.constant("features.3.conv.0.0.bias") : !cgc.tensor<constant 144x!cgc.float32>
    %wd = cgc.constant("features.3.conv.1.0.weight") : !cgc.tensor<constant 144x1x3x3x!cgc.float32>
    %bd = cgc.constant("features.3.conv.1.0.bias") : !cgc.tensor<constant 144x!cgc.float32>
    %wp = cgc.constant("features.3.conv.2.weight") : !cgc.tensor<constant 24x144x1x1x!cgc.float32>
    %bp = cgc.constant("features.3.conv.2.bias") : !cgc.tensor<constant 24x!cgc.float32>
    %c0 = cgc_op.convolution(%image, %w0, %b0) {start_padding = [1, 1], end_padding = [1, 1], strides = [2, 2]}
        : (!image, !cgc.tensor<constant 32x3x3x3x!cgc.float32>, !cgc.tensor<constant 32x!cgc.float32>) -> !first
    %a0 = cgc_op.clip(%c0) {max = 6.000000e+00, min = 0.000000e+00} : (!first) -> !first
    %c1 = cgc_op.convolution(%block, %we, %be)
        : (!narrow, !cgc.tensor<constant 144x24x1x1x!cgc.float32>, !cgc.tensor<constant 144x!cgc.float32>) -> !expanded
    %a1 = cgc_op.clip(%c1) {max = 6.000000e+00, min = 0.000000e+00} : (!expanded) -> !expanded
    %c2 = cgc_op.convolution(%a1, %wd, %bd) {start_padding = [1, 1], end_padding = [1, 1], groups = 144 : i64}
        : (!expanded, !cgc.tensor<constant 144x1x3x3x!cgc.float32>, !cgc.tensor<constant 144x!cgc.float32>) -> !expanded
    %a2 = cgc_op.clip(%c2) {max = 6.000000e+00, min = 0.000000e+00} : (!expanded) -> !expanded
    %c3 = cgc_op.convolution(%a2, %wp, %bp)
        : (!expanded, !cgc.tensor<constant 24x144x1x1x!cgc.float32>, !cgc.tensor<constant 24x!cgc.float32>) -> !narrow
    %y = cgc_op.add(%block, %c3) : (!narrow, !narrow) -> !narrow
    cgc.return %a0, %y : !first, !narrow
  }
}

// -----

// What the pattern leaves out: exp is no chain layer of the fused kernel, so
// the convolution's subgraph ends before it; a float64 convolution matches
// nothing.
// CHECK-LABEL: cgc.subgraph @conv_bias_activation_0 attributes {cgc.pattern = "conv_bias_activation", origin = "cuda"} {
// CHECK: cgc_op.convolution
// CHECK-NEXT: cgc_op.relu
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @exp_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @convolution_2 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @relu_3 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @left_out(
cgc.module {
  cgc.entry_point @left_out(%x: !cgc.tensor<1x4x8x8x!cgc.float32>, %w: !cgc.tensor<4x4x3x3x!cgc.float32>, %x64: !cgc.tensor<1x4x8x8x!cgc.float64>, %w64: !cgc.tensor<4x4x3x3x!cgc.float64>) -> (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<1x4x8x8x!cgc.float64>) {
    %c = cgc_op.convolution(%x, %w) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<4x4x3x3x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %r = cgc_op.relu(%c) : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %e = cgc_op.exp(%r) : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %c64 = cgc_op.convolution(%x64, %w64) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!cgc.tensor<1x4x8x8x!cgc.float64>, !cgc.tensor<4x4x3x3x!cgc.float64>) -> !cgc.tensor<1x4x8x8x!cgc.float64>
    %r64 = cgc_op.relu(%c64) : (!cgc.tensor<1x4x8x8x!cgc.float64>) -> !cgc.tensor<1x4x8x8x!cgc.float64>
    cgc.return %e, %r64 : !cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<1x4x8x8x!cgc.float64>
  }
}
