// Epilogue fusion with the CPU driver's declaration (drivers/cpu/Patterns.mlir):
// convolution, optional bias, then the greedy longest chain of single-use
// elementwise layers that keep the convolution's type, each with at most one
// other operand from outside the match that broadcasts to the chain's value.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cpu=%S/../../drivers/cpu/Patterns.mlir fallback-target=cpu.fallback" | FileCheck %s

// The whole epilogue: bias, relu, a residual add that takes the chain's value
// second, a broadcast per-channel scale and prelu (value first); softmax is
// not elementwise and ends the chain. Arguments are the distinct external
// operands in first-use order; the scale, used twice, is one argument.
// CHECK-LABEL: cgc.subgraph @conv_bias_epilogue_0 attributes {cgc.pattern = "conv_bias_epilogue", origin = "cpu"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_epilogue_0_functional(%[[X:.*]]: !cgc.tensor<1x4x4x4x!cgc.float32>, %[[W:.*]]: !cgc.tensor<constant 4x4x3x3x!cgc.float32>, %[[B:.*]]: !cgc.tensor<constant 4x!cgc.float32>, %[[S:.*]]: !cgc.tensor<constant 1x4x1x1x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32> {
// CHECK-NEXT: %[[CONV:.*]] = cgc_op.convolution(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT: %[[RELU:.*]] = cgc_op.relu(%[[CONV]])
// CHECK-NEXT: %[[ADD:.*]] = cgc_op.add(%[[X]], %[[RELU]])
// CHECK-NEXT: %[[MUL:.*]] = cgc_op.mul(%[[ADD]], %[[S]])
// CHECK-NEXT: %[[PRELU:.*]] = cgc_op.prelu(%[[MUL]], %[[S]])
// CHECK-NEXT: cgc.return %[[PRELU]]
// CHECK: cgc.subgraph @softmax_1 attributes {origin = "cpu.fallback"}
// CHECK: cgc.entry_point @epilogue(%[[IN:.*]]: !cgc.tensor<1x4x4x4x!cgc.float32>)
// CHECK: %[[FUSED:.*]] = cgc.call @conv_bias_epilogue_0(%[[IN]], %{{.*}}, %{{.*}}, %{{.*}}) : (!cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<constant 4x4x3x3x!cgc.float32>, !cgc.tensor<constant 4x!cgc.float32>, !cgc.tensor<constant 1x4x1x1x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @softmax_1(%[[FUSED]])
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @epilogue(%x: !cgc.tensor<1x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32> {
    %w = cgc.constant("w") : !cgc.tensor<constant 4x4x3x3x!cgc.float32>
    %b = cgc.constant("b") : !cgc.tensor<constant 4x!cgc.float32>
    %s = cgc.constant("s") : !cgc.tensor<constant 1x4x1x1x!cgc.float32>
    %conv = cgc_op.convolution(%x, %w, %b) {start_padding = [1, 1], end_padding = [1, 1]}
        : (!cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<constant 4x4x3x3x!cgc.float32>, !cgc.tensor<constant 4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %relu = cgc_op.relu(%conv) : (!cgc.tensor<1x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %add = cgc_op.add(%x, %relu) : (!cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<1x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %mul = cgc_op.mul(%add, %s) : (!cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<constant 1x4x1x1x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %prelu = cgc_op.prelu(%mul, %s) : (!cgc.tensor<1x4x4x4x!cgc.float32>, !cgc.tensor<constant 1x4x1x1x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    %softmax = cgc_op.softmax(%prelu) {axis = 1 : i64} : (!cgc.tensor<1x4x4x4x!cgc.float32>) -> !cgc.tensor<1x4x4x4x!cgc.float32>
    cgc.return %softmax : !cgc.tensor<1x4x4x4x!cgc.float32>
  }
}

// -----

// The bias is optional and the weights need not be constant: a convolution
// of two inputs without bias, then sigmoid. The dead tanh is dropped.
// CHECK-LABEL: cgc.subgraph @conv_bias_epilogue_0 attributes {cgc.pattern = "conv_bias_epilogue", origin = "cpu"} {
// CHECK-NEXT: cgc.functional_definition private @conv_bias_epilogue_0_functional(%[[X:.*]]: !cgc.tensor<1x2x3x3x!cgc.float16>, %[[W:.*]]: !cgc.tensor<2x2x1x1x!cgc.float16>) -> !cgc.tensor<1x2x3x3x!cgc.float16> {
// CHECK-NEXT: %[[CONV:.*]] = cgc_op.convolution(%[[X]], %[[W]]) :
// CHECK-NEXT: %[[SIGMOID:.*]] = cgc_op.sigmoid(%[[CONV]])
// CHECK-NEXT: cgc.return %[[SIGMOID]]
// CHECK-NOT: tanh
// CHECK-LABEL: cgc.entry_point @no_bias(
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @conv_bias_epilogue_0(
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @no_bias(%x: !cgc.tensor<1x2x3x3x!cgc.float16>, %w: !cgc.tensor<2x2x1x1x!cgc.float16>) -> !cgc.tensor<1x2x3x3x!cgc.float16> {
    %conv = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x3x3x!cgc.float16>, !cgc.tensor<2x2x1x1x!cgc.float16>) -> !cgc.tensor<1x2x3x3x!cgc.float16>
    %sigmoid = cgc_op.sigmoid(%conv) : (!cgc.tensor<1x2x3x3x!cgc.float16>) -> !cgc.tensor<1x2x3x3x!cgc.float16>
    %dead = cgc_op.tanh(%sigmoid) : (!cgc.tensor<1x2x3x3x!cgc.float16>) -> !cgc.tensor<1x2x3x3x!cgc.float16>
    cgc.return %sigmoid : !cgc.tensor<1x2x3x3x!cgc.float16>
  }
}

// -----

// The chain ends before a layer whose previous value has another user: relu
// is also returned, so the add is not part of the match.
// CHECK-LABEL: cgc.subgraph @conv_bias_epilogue_0 attributes {cgc.pattern = "conv_bias_epilogue", origin = "cpu"} {
// CHECK: %[[CONV:.*]] = cgc_op.convolution
// CHECK-NEXT: %[[RELU:.*]] = cgc_op.relu(%[[CONV]])
// CHECK-NEXT: cgc.return %[[RELU]]
// CHECK: cgc.subgraph @add_1 attributes {origin = "cpu.fallback"}
// CHECK-LABEL: cgc.entry_point @shared_value(
// CHECK-NEXT: %[[RELU:.*]] = cgc.call @conv_bias_epilogue_0(
// CHECK-NEXT: %[[ADD:.*]] = cgc.call @add_1(%[[RELU]], %{{.*}})
// CHECK-NEXT: cgc.return %[[ADD]], %[[RELU]]
cgc.module {
  cgc.entry_point @shared_value(%x: !cgc.tensor<1x2x3x3x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>) -> (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<1x2x3x3x!cgc.float32>) {
    %conv = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %relu = cgc_op.relu(%conv) : (!cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %add = cgc_op.add(%relu, %x) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    cgc.return %add, %relu : !cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<1x2x3x3x!cgc.float32>
  }
}

// -----

// A convolution used twice starts no chain: the match is the convolution
// alone (a chain of length 0), and relu and the add fall back.
// CHECK-LABEL: cgc.subgraph @conv_bias_epilogue_0 attributes {cgc.pattern = "conv_bias_epilogue", origin = "cpu"} {
// CHECK: %[[CONV:.*]] = cgc_op.convolution
// CHECK-NEXT: cgc.return %[[CONV]]
// CHECK: cgc.subgraph @relu_1 attributes {origin = "cpu.fallback"}
// CHECK: cgc.subgraph @add_2 attributes {origin = "cpu.fallback"}
// CHECK-LABEL: cgc.entry_point @shared_anchor(
// CHECK-NEXT: %[[CONV:.*]] = cgc.call @conv_bias_epilogue_0(
// CHECK-NEXT: %[[RELU:.*]] = cgc.call @relu_1(%[[CONV]])
// CHECK-NEXT: %[[ADD:.*]] = cgc.call @add_2(%[[RELU]], %[[CONV]])
cgc.module {
  cgc.entry_point @shared_anchor(%x: !cgc.tensor<1x2x3x3x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32> {
    %conv = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %relu = cgc_op.relu(%conv) : (!cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %add = cgc_op.add(%relu, %conv) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    cgc.return %add : !cgc.tensor<1x2x3x3x!cgc.float32>
  }
}

// -----

// prelu must take the chain's value first: as its slope, it ends the chain.
// cast changes the element type, which ends a chain too.
// CHECK-LABEL: cgc.subgraph @conv_bias_epilogue_0 attributes {cgc.pattern = "conv_bias_epilogue", origin = "cpu"} {
// CHECK: %[[CONV:.*]] = cgc_op.convolution
// CHECK-NEXT: %[[ABS:.*]] = cgc_op.abs(%[[CONV]])
// CHECK-NEXT: cgc.return %[[ABS]]
// CHECK: cgc.subgraph @prelu_1 attributes {origin = "cpu.fallback"}
// CHECK: cgc.subgraph @conv_bias_epilogue_2 attributes {cgc.pattern = "conv_bias_epilogue", origin = "cpu"} {
// CHECK: %[[CONV2:.*]] = cgc_op.convolution
// CHECK-NEXT: cgc.return %[[CONV2]]
// CHECK: cgc.subgraph @cast_3 attributes {origin = "cpu.fallback"}
// CHECK-LABEL: cgc.entry_point @chain_ends(
// CHECK-NEXT: %[[A:.*]] = cgc.call @conv_bias_epilogue_0(
// CHECK-NEXT: %[[P:.*]] = cgc.call @prelu_1(
// CHECK-NEXT: %[[C:.*]] = cgc.call @conv_bias_epilogue_2(
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @cast_3(%[[C]])
cgc.module {
  cgc.entry_point @chain_ends(%x: !cgc.tensor<1x2x3x3x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>, %y: !cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float16> {
    %conv = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %abs = cgc_op.abs(%conv) : (!cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %prelu = cgc_op.prelu(%y, %abs) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %conv2 = cgc_op.convolution(%prelu, %w) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %cast = cgc_op.cast(%conv2) {to = !cgc.float16} : (!cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float16>
    cgc.return %cast : !cgc.tensor<1x2x3x3x!cgc.float16>
  }
}

// -----

// The declaration's element types: a float64 convolution is none of them,
// so nothing matches and both layers fall back.
// CHECK-LABEL: cgc.subgraph @convolution_0 attributes {origin = "cpu.fallback"}
// CHECK-NOT: cgc.pattern
// CHECK: cgc.subgraph @relu_1 attributes {origin = "cpu.fallback"}
// CHECK-LABEL: cgc.entry_point @float64(
// CHECK-NEXT: cgc.call @convolution_0(
// CHECK-NEXT: cgc.call @relu_1(
cgc.module {
  cgc.entry_point @float64(%x: !cgc.tensor<1x2x3x3x!cgc.float64>, %w: !cgc.tensor<2x2x1x1x!cgc.float64>) -> !cgc.tensor<1x2x3x3x!cgc.float64> {
    %conv = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x3x3x!cgc.float64>, !cgc.tensor<2x2x1x1x!cgc.float64>) -> !cgc.tensor<1x2x3x3x!cgc.float64>
    %relu = cgc_op.relu(%conv) : (!cgc.tensor<1x2x3x3x!cgc.float64>) -> !cgc.tensor<1x2x3x3x!cgc.float64>
    cgc.return %relu : !cgc.tensor<1x2x3x3x!cgc.float64>
  }
}
