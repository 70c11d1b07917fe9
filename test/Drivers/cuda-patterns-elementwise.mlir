// The CUDA driver's fused elementwise patterns (drivers/cuda/patterns/elementwise.mlir)
// over elementwise chains of the reference models as the ONNX importer gives
// them (torch.onnx, opset 17): BERT-base's extended attention mask and its
// GELU written out with Erf, MobileNet-style input normalization with
// broadcast statistics and a clip before a residual add, a mask selection.
// Each chain of two or more elementwise layers of a float type becomes one
// subgraph of the fused target; everything else falls back (with the other
// families' patterns declared too, a chain right after a convolution or a
// product goes with it).

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/elementwise.mlir fallback-target=cuda.fallback" | FileCheck %s

// BERT's mask: (1 - float(mask)) * finfo.min. The cast of the int64 mask
// anchors the chain; the reshape falls back.
// CHECK-LABEL: cgc.subgraph @reshape_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @elementwise_cast_1 attributes {cgc.pattern = "elementwise_cast", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @elementwise_cast_1_functional(%[[M:[^:]*]]: !cgc.tensor<1x1x1x128x!cgc.int64>, %[[ONE:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[LOW:[^:]*]]: !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x1x1x128x!cgc.float32> {
// CHECK-NEXT: %[[F:.*]] = cgc_op.cast(%[[M]]) {to = !cgc.float32}
// CHECK-NEXT: %[[I:.*]] = cgc_op.sub(%[[ONE]], %[[F]])
// CHECK-NEXT: %[[O:.*]] = cgc_op.mul(%[[I]], %[[LOW]])
// CHECK-NEXT: cgc.return %[[O]]
// CHECK-LABEL: cgc.entry_point @bert_mask(
// CHECK: %[[R:.*]] = cgc.call @reshape_0(
// CHECK-NEXT: cgc.call @elementwise_cast_1(%[[R]],
cgc.module {
  cgc.entry_point @bert_mask(%mask: !cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x1x1x128x!cgc.float32> {
    %one = cgc.constant("one") : !cgc.tensor<constant !cgc.float32>
    %lowest = cgc.constant("lowest") : !cgc.tensor<constant !cgc.float32>
    %0 = cgc_op.reshape(%mask) {shape = [1, 1, 1, 128]} : (!cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x1x1x128x!cgc.int64>
    %1 = cgc_op.cast(%0) {to = !cgc.float32} : (!cgc.tensor<1x1x1x128x!cgc.int64>) -> !cgc.tensor<1x1x1x128x!cgc.float32>
    %2 = cgc_op.sub(%one, %1) : (!cgc.tensor<constant !cgc.float32>, !cgc.tensor<1x1x1x128x!cgc.float32>) -> !cgc.tensor<1x1x1x128x!cgc.float32>
    %3 = cgc_op.mul(%2, %lowest) : (!cgc.tensor<1x1x1x128x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x1x1x128x!cgc.float32>
    cgc.return %3 : !cgc.tensor<1x1x1x128x!cgc.float32>
  }
}

// -----

// GELU as torch.onnx writes it, x * 0.5 * (1 + erf(x / sqrt(2))), on a
// value no product precedes: the five layers are one subgraph whose
// arguments are x (read by the division and the product) and the three
// constants.
// CHECK-LABEL: cgc.subgraph @reshape_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @elementwise_div_1 attributes {cgc.pattern = "elementwise_div", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @elementwise_div_1_functional(%[[X:[^:]*]]: !cgc.tensor<1x128x3072x!cgc.float32>, %[[ROOT2:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[ONE:[^:]*]]: !cgc.tensor<constant !cgc.float32>, %[[HALF:[^:]*]]: !cgc.tensor<constant !cgc.float32>) ->
// CHECK-NEXT: %[[D:.*]] = cgc_op.div(%[[X]], %[[ROOT2]])
// CHECK-NEXT: %[[E:.*]] = cgc_op.erf(%[[D]])
// CHECK-NEXT: %[[A:.*]] = cgc_op.add(%[[E]], %[[ONE]])
// CHECK-NEXT: %[[G:.*]] = cgc_op.mul(%[[X]], %[[A]])
// CHECK-NEXT: %[[H:.*]] = cgc_op.mul(%[[G]], %[[HALF]])
// CHECK-NEXT: cgc.return %[[H]]
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @gelu(
cgc.module {
  cgc.entry_point @gelu(%h: !cgc.tensor<1x128x12x256x!cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32> {
    %root2 = cgc.constant("root2") : !cgc.tensor<constant !cgc.float32>
    %one = cgc.constant("one") : !cgc.tensor<constant !cgc.float32>
    %half = cgc.constant("half") : !cgc.tensor<constant !cgc.float32>
    %x = cgc_op.reshape(%h) {shape = [1, 128, 3072]} : (!cgc.tensor<1x128x12x256x!cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32>
    %0 = cgc_op.div(%x, %root2) : (!cgc.tensor<1x128x3072x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32>
    %1 = cgc_op.erf(%0) : (!cgc.tensor<1x128x3072x!cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32>
    %2 = cgc_op.add(%1, %one) : (!cgc.tensor<1x128x3072x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32>
    %3 = cgc_op.mul(%x, %2) : (!cgc.tensor<1x128x3072x!cgc.float32>, !cgc.tensor<1x128x3072x!cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32>
    %4 = cgc_op.mul(%3, %half) : (!cgc.tensor<1x128x3072x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x128x3072x!cgc.float32>
    cgc.return %4 : !cgc.tensor<1x128x3072x!cgc.float32>
  }
}

// -----

// MobileNet-style float16 input normalization, (x - mean) / std with 1x3x1x1
// statistics, then a convolution (falls back here) whose clip (ReLU6) and
// residual add form a second chain.
// CHECK-LABEL: cgc.subgraph @elementwise_sub_0 attributes {cgc.pattern = "elementwise_sub", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @elementwise_sub_0_functional(%[[IMG:[^:]*]]: !cgc.tensor<1x3x224x224x!cgc.float16>, %[[MEAN:[^:]*]]: !cgc.tensor<constant 1x3x1x1x!cgc.float16>, %[[STD:[^:]*]]: !cgc.tensor<constant 1x3x1x1x!cgc.float16>) ->
// CHECK-NEXT: %[[C:.*]] = cgc_op.sub(%[[IMG]], %[[MEAN]])
// CHECK-NEXT: %[[N:.*]] = cgc_op.div(%[[C]], %[[STD]])
// CHECK-NEXT: cgc.return %[[N]]
// CHECK: cgc.subgraph @convolution_1 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @elementwise_clip_2 attributes {cgc.pattern = "elementwise_clip", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @elementwise_clip_2_functional(%[[Y:[^:]*]]: !cgc.tensor<1x32x112x112x!cgc.float16>, %[[RES:[^:]*]]: !cgc.tensor<1x32x112x112x!cgc.float16>) ->
// CHECK-NEXT: %[[K:.*]] = cgc_op.clip(%[[Y]])
// CHECK-NEXT: %[[S:.*]] = cgc_op.add(%[[K]], %[[RES]])
// CHECK-NEXT: cgc.return %[[S]]
// CHECK-LABEL: cgc.entry_point @mobilenet_stem(
// CHECK: %[[NORM:.*]] = cgc.call @elementwise_sub_0(
// CHECK-NEXT: %[[CONV:.*]] = cgc.call @convolution_1(%[[NORM]],
// CHECK-NEXT: cgc.call @elementwise_clip_2(%[[CONV]],
cgc.module {
  cgc.entry_point @mobilenet_stem(%image: !cgc.tensor<1x3x224x224x!cgc.float16>, %w: !cgc.tensor<32x3x3x3x!cgc.float16>, %r: !cgc.tensor<1x32x112x112x!cgc.float16>) -> !cgc.tensor<1x32x112x112x!cgc.float16> {
    %mean = cgc.constant("mean") : !cgc.tensor<constant 1x3x1x1x!cgc.float16>
    %std = cgc.constant("std") : !cgc.tensor<constant 1x3x1x1x!cgc.float16>
    %0 = cgc_op.sub(%image, %mean) : (!cgc.tensor<1x3x224x224x!cgc.float16>, !cgc.tensor<constant 1x3x1x1x!cgc.float16>) -> !cgc.tensor<1x3x224x224x!cgc.float16>
    %1 = cgc_op.div(%0, %std) : (!cgc.tensor<1x3x224x224x!cgc.float16>, !cgc.tensor<constant 1x3x1x1x!cgc.float16>) -> !cgc.tensor<1x3x224x224x!cgc.float16>
    %2 = cgc_op.convolution(%1, %w) {dilations = [1, 1], end_padding = [1, 1], start_padding = [1, 1], strides = [2, 2]} : (!cgc.tensor<1x3x224x224x!cgc.float16>, !cgc.tensor<32x3x3x3x!cgc.float16>) -> !cgc.tensor<1x32x112x112x!cgc.float16>
    %3 = cgc_op.clip(%2) {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : (!cgc.tensor<1x32x112x112x!cgc.float16>) -> !cgc.tensor<1x32x112x112x!cgc.float16>
    %4 = cgc_op.add(%3, %r) : (!cgc.tensor<1x32x112x112x!cgc.float16>, !cgc.tensor<1x32x112x112x!cgc.float16>) -> !cgc.tensor<1x32x112x112x!cgc.float16>
    cgc.return %4 : !cgc.tensor<1x32x112x112x!cgc.float16>
  }
}

// -----

// Where chains end: a value with two users (the add, read by tanh and the
// product) starts no chain but is an argument of the one after it; a value
// also returned ends the chain at it; a comparison's bool result is no
// chain step; integer layers match no pattern (the patterns take float
// types only). tanh, mul and sigmoid are one subgraph.
// CHECK-LABEL: cgc.subgraph @add_0 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @elementwise_tanh_1 attributes {cgc.pattern = "elementwise_tanh", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @elementwise_tanh_1_functional(%[[V:[^:]*]]: !cgc.tensor<1x197x768x!cgc.float32>) ->
// CHECK-NEXT: %[[T:.*]] = cgc_op.tanh(%[[V]])
// CHECK-NEXT: %[[P:.*]] = cgc_op.mul(%[[V]], %[[T]])
// CHECK-NEXT: %[[G:.*]] = cgc_op.sigmoid(%[[P]])
// CHECK-NEXT: cgc.return %[[G]]
// CHECK: cgc.subgraph @not_equal_2 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @add_3 attributes {origin = "cuda.fallback"}
// CHECK: cgc.subgraph @mul_4 attributes {origin = "cuda.fallback"}
// CHECK-NOT: cgc.subgraph
// CHECK-LABEL: cgc.entry_point @breaks(
cgc.module {
  cgc.entry_point @breaks(%x: !cgc.tensor<1x197x768x!cgc.float32>, %pos: !cgc.tensor<1x197x768x!cgc.float32>, %ids: !cgc.tensor<1x128x!cgc.int64>, %offset: !cgc.tensor<1x128x!cgc.int64>) -> (!cgc.tensor<1x197x768x!cgc.float32>, !cgc.tensor<1x197x768x!cgc.bool>, !cgc.tensor<1x128x!cgc.int64>) {
    %0 = cgc_op.add(%x, %pos) : (!cgc.tensor<1x197x768x!cgc.float32>, !cgc.tensor<1x197x768x!cgc.float32>) -> !cgc.tensor<1x197x768x!cgc.float32>
    %1 = cgc_op.tanh(%0) : (!cgc.tensor<1x197x768x!cgc.float32>) -> !cgc.tensor<1x197x768x!cgc.float32>
    %2 = cgc_op.mul(%0, %1) : (!cgc.tensor<1x197x768x!cgc.float32>, !cgc.tensor<1x197x768x!cgc.float32>) -> !cgc.tensor<1x197x768x!cgc.float32>
    %3 = cgc_op.sigmoid(%2) : (!cgc.tensor<1x197x768x!cgc.float32>) -> !cgc.tensor<1x197x768x!cgc.float32>
    %4 = cgc_op.not_equal(%3, %x) : (!cgc.tensor<1x197x768x!cgc.float32>, !cgc.tensor<1x197x768x!cgc.float32>) -> !cgc.tensor<1x197x768x!cgc.bool>
    %5 = cgc_op.add(%ids, %offset) : (!cgc.tensor<1x128x!cgc.int64>, !cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x128x!cgc.int64>
    %6 = cgc_op.mul(%5, %offset) : (!cgc.tensor<1x128x!cgc.int64>, !cgc.tensor<1x128x!cgc.int64>) -> !cgc.tensor<1x128x!cgc.int64>
    cgc.return %3, %4, %6 : !cgc.tensor<1x197x768x!cgc.float32>, !cgc.tensor<1x197x768x!cgc.bool>, !cgc.tensor<1x128x!cgc.int64>
  }
}

// -----

// A chain through where: the selection takes two operands besides the
// chain's value (the bool condition and the fill value, both broadcast).
// CHECK-LABEL: cgc.subgraph @elementwise_add_0 attributes {cgc.pattern = "elementwise_add", origin = "cuda"} {
// CHECK-NEXT: cgc.functional_definition private @elementwise_add_0_functional(%[[SC:[^:]*]]: !cgc.tensor<1x12x128x128x!cgc.float32>, %[[B:[^:]*]]: !cgc.tensor<1x1x128x128x!cgc.float32>, %[[KEEP:[^:]*]]: !cgc.tensor<1x1x1x128x!cgc.bool>, %[[FILL:[^:]*]]: !cgc.tensor<!cgc.float32>) ->
// CHECK-NEXT: %[[A:.*]] = cgc_op.add(%[[SC]], %[[B]])
// CHECK-NEXT: %[[W:.*]] = cgc_op.where(%[[KEEP]], %[[A]], %[[FILL]])
// CHECK-NEXT: %[[E:.*]] = cgc_op.exp(%[[W]])
// CHECK-NEXT: cgc.return %[[E]]
// CHECK-LABEL: cgc.entry_point @select(
// CHECK-NEXT: cgc.call @elementwise_add_0(
cgc.module {
  cgc.entry_point @select(%scores: !cgc.tensor<1x12x128x128x!cgc.float32>, %bias: !cgc.tensor<1x1x128x128x!cgc.float32>, %keep: !cgc.tensor<1x1x1x128x!cgc.bool>, %fill: !cgc.tensor<!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32> {
    %0 = cgc_op.add(%scores, %bias) : (!cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<1x1x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %1 = cgc_op.where(%keep, %0, %fill) : (!cgc.tensor<1x1x1x128x!cgc.bool>, !cgc.tensor<1x12x128x128x!cgc.float32>, !cgc.tensor<!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    %2 = cgc_op.exp(%1) : (!cgc.tensor<1x12x128x128x!cgc.float32>) -> !cgc.tensor<1x12x128x128x!cgc.float32>
    cgc.return %2 : !cgc.tensor<1x12x128x128x!cgc.float32>
  }
}
