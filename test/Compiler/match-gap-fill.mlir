// When no open candidate fits any more, the patterns are matched again around
// the accepted subgraphs: a chain may then end where an accepted subgraph
// begins.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=t=%S/Inputs/match-conv-chain.mlir" | FileCheck %s

// ResNet's downsampling block: the main branch's convolution takes the
// residual add and the relu; the shortcut convolution, whose greedy chain
// would run into that add, is then matched on its own instead of falling
// back.
// CHECK-LABEL: cgc.subgraph @conv_chain_0 attributes {cgc.pattern = "conv_chain", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @conv_chain_0_functional(
// CHECK-NEXT: %[[SHORTCUT:.*]] = cgc_op.convolution
// CHECK-NEXT: cgc.return %[[SHORTCUT]]
// CHECK: cgc.subgraph @conv_chain_1 attributes {cgc.pattern = "conv_chain", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @conv_chain_1_functional(
// CHECK-NEXT: %[[MAIN:.*]] = cgc_op.convolution
// CHECK-NEXT: %[[ADD:.*]] = cgc_op.add(%[[MAIN]],
// CHECK-NEXT: %[[RELU:.*]] = cgc_op.relu(%[[ADD]])
// CHECK-NEXT: cgc.return %[[RELU]]
// CHECK-NOT: origin = "fallback"
// CHECK-LABEL: cgc.entry_point @downsample(
// CHECK-NEXT: %[[S:.*]] = cgc.call @conv_chain_0(%arg0, %arg2)
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @conv_chain_1(%arg0, %arg1, %[[S]])
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @downsample(%x: !cgc.tensor<1x2x3x3x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>, %ws: !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32> {
    %main = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %shortcut = cgc_op.convolution(%x, %ws) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %add = cgc_op.add(%main, %shortcut) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %relu = cgc_op.relu(%add) : (!cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    cgc.return %relu : !cgc.tensor<1x2x3x3x!cgc.float32>
  }
}
