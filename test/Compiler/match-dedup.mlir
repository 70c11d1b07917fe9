// Deduplication: subgraphs of one origin whose definitions are equal up to
// value and symbol names are one symbol, which later calls share; types and
// attributes tell definitions apart. `deduplicate=false` keeps one symbol per
// call.

// RUN: cgc-opt %s --cgc-match-subgraphs="declarations=d=%S/Inputs/match-relu-pair.mlir" | FileCheck %s
// RUN: cgc-opt %s --cgc-match-subgraphs="declarations=d=%S/Inputs/match-relu-pair.mlir deduplicate=false" | FileCheck %s --check-prefix=NODEDUP

// Two pairs of 4-element relus share @relu_pair_0; the pair of 8 elements has
// its own symbol. Softmax over axis 0 twice shares @softmax_3; over axis 1
// it is another subgraph.
// CHECK-LABEL: cgc.module {
// CHECK-NEXT: cgc.subgraph @relu_pair_0 attributes {cgc.pattern = "relu_pair", origin = "d"}
// CHECK-NEXT: cgc.functional_definition private @relu_pair_0_functional(%{{.*}}: !cgc.tensor<4x!cgc.float32>)
// CHECK: cgc.subgraph @relu_pair_2 attributes {cgc.pattern = "relu_pair", origin = "d"}
// CHECK-NEXT: cgc.functional_definition private @relu_pair_2_functional(%{{.*}}: !cgc.tensor<8x!cgc.float32>)
// CHECK: cgc.subgraph @softmax_3 attributes {origin = "fallback"}
// CHECK: cgc.subgraph @softmax_5 attributes {origin = "fallback"}
// CHECK-NEXT: cgc.functional_definition
// CHECK-NEXT: cgc_op.softmax(%{{.*}}) {axis = 1 : i64}
// CHECK-NOT: cgc.subgraph
// CHECK: cgc.entry_point @main(%[[X:[^:]*]]: !cgc.tensor<4x!cgc.float32>, %[[Y:[^:]*]]: !cgc.tensor<8x!cgc.float32>, %[[Z:[^:]*]]: !cgc.tensor<2x2x!cgc.float32>)
// CHECK-NEXT: %[[P0:.*]] = cgc.call @relu_pair_0(%[[X]])
// CHECK-NEXT: %[[P1:.*]] = cgc.call @relu_pair_0(%[[P0]])
// CHECK-NEXT: %[[P2:.*]] = cgc.call @relu_pair_2(%[[Y]])
// CHECK-NEXT: %[[S0:.*]] = cgc.call @softmax_3(%[[Z]])
// CHECK-NEXT: %[[S1:.*]] = cgc.call @softmax_3(%[[S0]])
// CHECK-NEXT: %[[S2:.*]] = cgc.call @softmax_5(%[[S1]])
// CHECK-NEXT: cgc.return %[[P1]], %[[P2]], %[[S2]]

// NODEDUP-COUNT-3: cgc.subgraph @relu_pair_{{[0-2]}} attributes
// NODEDUP-COUNT-3: cgc.subgraph @softmax_{{[3-5]}} attributes
// NODEDUP: cgc.call @relu_pair_0(
// NODEDUP-NEXT: cgc.call @relu_pair_1(
// NODEDUP-NEXT: cgc.call @relu_pair_2(
// NODEDUP-NEXT: cgc.call @softmax_3(
// NODEDUP-NEXT: cgc.call @softmax_4(
// NODEDUP-NEXT: cgc.call @softmax_5(
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>, %y: !cgc.tensor<8x!cgc.float32>, %z: !cgc.tensor<2x2x!cgc.float32>) -> (!cgc.tensor<4x!cgc.float32>, !cgc.tensor<8x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) {
    %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %2 = cgc_op.relu(%1) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %3 = cgc_op.relu(%2) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %4 = cgc_op.relu(%y) : (!cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32>
    %5 = cgc_op.relu(%4) : (!cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32>
    %6 = cgc_op.softmax(%z) {axis = 0 : i64} : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %7 = cgc_op.softmax(%6) {axis = 0 : i64} : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %8 = cgc_op.softmax(%7) {axis = 1 : i64} : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %3, %5, %8 : !cgc.tensor<4x!cgc.float32>, !cgc.tensor<8x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>
  }
}
