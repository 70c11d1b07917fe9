// The CUDA driver's layout patterns (cast_transpose and transpose_cast,
// drivers/cuda/patterns/layout.mlir): a float cast and a transpose, either
// first, the first private to the second, become one subgraph of the fused
// target (one strided copy that converts on the way). A float32 model's
// NCHW input cast for a float16 computation and transposed to NHWC is
// ResNet-50's and MobileNetV2's first layers.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/layout.mlir fallback-target=cuda.fallback" | FileCheck %s

// CHECK-LABEL: cgc.subgraph @cast_transpose_0 attributes {cgc.pattern = "cast_transpose", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @cast_transpose_0_functional(%[[X:[^:]*]]: !cgc.tensor<2x3x8x8x!cgc.float32>) -> !cgc.tensor<2x8x8x3x!cgc.float16> {
// CHECK-NEXT: %[[C:.*]] = cgc_op.cast(%[[X]]) {to = !cgc.float16}
// CHECK-NEXT: %[[T:.*]] = cgc_op.transpose(%[[C]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: cgc.return %[[T]]
// CHECK: cgc.subgraph @transpose_cast_1 attributes {cgc.pattern = "transpose_cast", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @transpose_cast_1_functional(%{{[^:]*}}: !cgc.tensor<2x8x8x3x!cgc.bfloat16>) -> !cgc.tensor<2x3x8x8x!cgc.float32> {
// CHECK-NEXT: cgc_op.transpose
// CHECK-NEXT: cgc_op.cast
// CHECK-NEXT: cgc.return
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @model_input(
// CHECK-NEXT: %[[A:.*]] = cgc.call @cast_transpose_0(
// CHECK-NEXT: %[[B:.*]] = cgc.call @transpose_cast_1(
// CHECK-NEXT: cgc.return %[[A]], %[[B]]
cgc.module {
  cgc.entry_point @model_input(%x: !cgc.tensor<2x3x8x8x!cgc.float32>, %y: !cgc.tensor<2x8x8x3x!cgc.bfloat16>)
      -> (!cgc.tensor<2x8x8x3x!cgc.float16>, !cgc.tensor<2x3x8x8x!cgc.float32>) {
    %c = cgc_op.cast(%x) {to = !cgc.float16} : (!cgc.tensor<2x3x8x8x!cgc.float32>) -> !cgc.tensor<2x3x8x8x!cgc.float16>
    %t = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x3x8x8x!cgc.float16>) -> !cgc.tensor<2x8x8x3x!cgc.float16>
    %u = cgc_op.transpose(%y) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x8x8x3x!cgc.bfloat16>) -> !cgc.tensor<2x3x8x8x!cgc.bfloat16>
    %d = cgc_op.cast(%u) {to = !cgc.float32} : (!cgc.tensor<2x3x8x8x!cgc.bfloat16>) -> !cgc.tensor<2x3x8x8x!cgc.float32>
    cgc.return %t, %d : !cgc.tensor<2x8x8x3x!cgc.float16>, !cgc.tensor<2x3x8x8x!cgc.float32>
  }
}

// -----

// Left to the fallback target, layer by layer: an integer input's cast (the
// kernel converts float types only), and a cast whose result is also
// returned (not private to the transpose).
// CHECK-NOT: cgc.pattern
// CHECK-LABEL: cgc.entry_point @not_matched(
// CHECK-NEXT: %[[C:.*]] = cgc.call @cast_0(
// CHECK-NEXT: cgc.call @transpose_1(%[[C]])
// CHECK-NEXT: %[[S:.*]] = cgc.call @cast_2(
// CHECK-NEXT: %[[T:.*]] = cgc.call @transpose_3(%[[S]])
// CHECK-NEXT: cgc.return %{{.*}}, %[[T]], %[[S]]
cgc.module {
  cgc.entry_point @not_matched(%i: !cgc.tensor<1x3x4x4x!cgc.int32>, %x: !cgc.tensor<1x3x4x4x!cgc.float32>)
      -> (!cgc.tensor<1x4x4x3x!cgc.float32>, !cgc.tensor<1x4x4x3x!cgc.float16>, !cgc.tensor<1x3x4x4x!cgc.float16>) {
    %ic = cgc_op.cast(%i) {to = !cgc.float32} : (!cgc.tensor<1x3x4x4x!cgc.int32>) -> !cgc.tensor<1x3x4x4x!cgc.float32>
    %it = cgc_op.transpose(%ic) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x3x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x3x!cgc.float32>
    %c = cgc_op.cast(%x) {to = !cgc.float16} : (!cgc.tensor<1x3x4x4x!cgc.float32>) -> !cgc.tensor<1x3x4x4x!cgc.float16>
    %t = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x3x4x4x!cgc.float16>) -> !cgc.tensor<1x4x4x3x!cgc.float16>
    cgc.return %it, %t, %c : !cgc.tensor<1x4x4x3x!cgc.float32>, !cgc.tensor<1x4x4x3x!cgc.float16>, !cgc.tensor<1x3x4x4x!cgc.float16>
  }
}
