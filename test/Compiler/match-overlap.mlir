// Overlapping matches of several targets: the higher benefit wins, then the
// larger match, then the earlier root; a target that rejects its match at
// specialization (`reject=`) frees its layers for the next best match.

// conv -> relu -> add: target a's conv_relu (benefit 5) and target b's
// relu_add (benefit 7) share the relu; b's wins in either declaration order.
// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=a=%S/Inputs/match-overlap-conv-relu.mlir,b=%S/Inputs/match-overlap-relu-add.mlir" | FileCheck %s --check-prefix=BENEFIT
// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=b=%S/Inputs/match-overlap-relu-add.mlir,a=%S/Inputs/match-overlap-conv-relu.mlir" | FileCheck %s --check-prefix=BENEFIT
// Equal benefit: target c's three layers beat target a's two (its inputs x and
// y bind one value: one argument).
// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=a=%S/Inputs/match-overlap-conv-relu.mlir,c=%S/Inputs/match-overlap-conv-relu-add.mlir" | FileCheck %s --check-prefix=SIZE
// b rejects relu_add: the next round gives conv and relu to a.
// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=a=%S/Inputs/match-overlap-conv-relu.mlir,b=%S/Inputs/match-overlap-relu-add.mlir reject=relu_add" | FileCheck %s --check-prefix=REJECT
// Both reject: everything falls back.
// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=a=%S/Inputs/match-overlap-conv-relu.mlir,b=%S/Inputs/match-overlap-relu-add.mlir reject=relu_add,conv_relu" | FileCheck %s --check-prefix=REJECT-ALL
// Equal benefit and size: relu -> relu -> relu gives the first two relus to
// relu_pair (the earlier root) and the third to the fallback.
// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=d=%S/Inputs/match-relu-pair.mlir" | FileCheck %s --check-prefix=ORDER

// BENEFIT-LABEL: cgc.subgraph @convolution_0 attributes {origin = "fallback"}
// BENEFIT-NEXT: cgc.functional_definition
// BENEFIT-NEXT: cgc_op.convolution
// BENEFIT: cgc.subgraph @relu_add_1 attributes {cgc.pattern = "relu_add", origin = "b"}
// BENEFIT-NEXT: cgc.functional_definition private @relu_add_1_functional(%[[C:.*]]: !cgc.tensor<1x2x3x3x!cgc.float32>, %[[X:.*]]: !cgc.tensor<1x2x3x3x!cgc.float32>)
// BENEFIT-NEXT: %[[RELU:.*]] = cgc_op.relu(%[[C]])
// BENEFIT-NEXT: %[[ADD:.*]] = cgc_op.add(%[[RELU]], %[[X]])
// BENEFIT-LABEL: cgc.entry_point @block(
// BENEFIT-NEXT: %[[CONV:.*]] = cgc.call @convolution_0(
// BENEFIT-NEXT: cgc.call @relu_add_1(%[[CONV]], %arg0)

// SIZE-LABEL: cgc.subgraph @conv_relu_add_0 attributes {cgc.pattern = "conv_relu_add", origin = "c"}
// SIZE-NOT: cgc.subgraph
// SIZE-LABEL: cgc.entry_point @block(
// SIZE-NEXT: %[[OUT:.*]] = cgc.call @conv_relu_add_0(%arg0, %arg1) :
// SIZE-NEXT: cgc.return %[[OUT]]

// REJECT-LABEL: cgc.subgraph @conv_relu_0 attributes {cgc.pattern = "conv_relu", origin = "a"}
// REJECT: cgc.subgraph @add_1 attributes {origin = "fallback"}
// REJECT-NOT: relu_add
// REJECT-LABEL: cgc.entry_point @block(
// REJECT-NEXT: %[[RELU:.*]] = cgc.call @conv_relu_0(%arg0, %arg1)
// REJECT-NEXT: cgc.call @add_1(%[[RELU]], %arg0)

// REJECT-ALL-LABEL: cgc.subgraph @convolution_0 attributes {origin = "fallback"}
// REJECT-ALL: cgc.subgraph @relu_1 attributes {origin = "fallback"}
// REJECT-ALL: cgc.subgraph @add_2 attributes {origin = "fallback"}
// REJECT-ALL-NOT: cgc.pattern
// REJECT-ALL-LABEL: cgc.entry_point @block(

cgc.module {
  cgc.entry_point @block(%x: !cgc.tensor<1x2x3x3x!cgc.float32>, %w: !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32> {
    %conv = cgc_op.convolution(%x, %w) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<2x2x1x1x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %relu = cgc_op.relu(%conv) : (!cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    %add = cgc_op.add(%relu, %x) : (!cgc.tensor<1x2x3x3x!cgc.float32>, !cgc.tensor<1x2x3x3x!cgc.float32>) -> !cgc.tensor<1x2x3x3x!cgc.float32>
    cgc.return %add : !cgc.tensor<1x2x3x3x!cgc.float32>
  }
}

// -----

// ORDER-LABEL: cgc.subgraph @relu_pair_0 attributes {cgc.pattern = "relu_pair", origin = "d"}
// ORDER: cgc.subgraph @relu_1 attributes {origin = "fallback"}
// ORDER-LABEL: cgc.entry_point @relus(
// ORDER-NEXT: %[[PAIR:.*]] = cgc.call @relu_pair_0(%arg0)
// ORDER-NEXT: %[[LAST:.*]] = cgc.call @relu_1(%[[PAIR]])
// ORDER-NEXT: cgc.return %[[LAST]]
cgc.module {
  cgc.entry_point @relus(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %2 = cgc_op.relu(%1) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %2 : !cgc.tensor<4x!cgc.float32>
  }
}
