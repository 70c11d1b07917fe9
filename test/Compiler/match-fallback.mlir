// Layers no pattern takes: each live one becomes a one-layer subgraph of the
// fallback target; dead layers are dropped; module symbols stay unique.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="fallback-target=cpu.fallback" | FileCheck %s

// A multi-result layer keeps the results that are used, in order; the split
// part nobody reads and the dead relu chain hanging off it are dropped.
// Constants are arguments of constant tensor type.
// CHECK-LABEL: cgc.subgraph @split_0 attributes {origin = "cpu.fallback"} {
// CHECK-NEXT: cgc.functional_definition private @split_0_functional(%[[IN:.*]]: !cgc.tensor<6x!cgc.float32>) -> (!cgc.tensor<2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>) {
// CHECK-NEXT: %[[PARTS:.*]]:3 = cgc_op.split(%[[IN]])
// CHECK-NEXT: cgc.return %[[PARTS]]#0, %[[PARTS]]#2 : !cgc.tensor<2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>
// CHECK: cgc.subgraph @add_1 attributes {origin = "cpu.fallback"} {
// CHECK-NEXT: cgc.functional_definition private @add_1_functional(%{{.*}}: !cgc.tensor<2x!cgc.float32>, %{{.*}}: !cgc.tensor<constant 2x!cgc.float32>)
// CHECK-NOT: relu
// CHECK-LABEL: cgc.entry_point @multi_result(
// CHECK-NEXT: %[[C:.*]] = cgc.constant("c")
// CHECK-NEXT: %[[SPLIT:.*]]:2 = cgc.call @split_0(%arg0) : (!cgc.tensor<6x!cgc.float32>) -> (!cgc.tensor<2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>)
// CHECK-NEXT: %[[ADD:.*]] = cgc.call @add_1(%[[SPLIT]]#1, %[[C]])
// CHECK-NEXT: cgc.return %[[SPLIT]]#0, %[[ADD]]
cgc.module {
  cgc.entry_point @multi_result(%x: !cgc.tensor<6x!cgc.float32>) -> (!cgc.tensor<2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>) {
    %c = cgc.constant("c") : !cgc.tensor<constant 2x!cgc.float32>
    %a, %b, %d = cgc_op.split(%x) {axis = 0 : i64, sizes = [2, 2, 2]} : (!cgc.tensor<6x!cgc.float32>) -> (!cgc.tensor<2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>)
    %dead = cgc_op.relu(%b) : (!cgc.tensor<2x!cgc.float32>) -> !cgc.tensor<2x!cgc.float32>
    %dead2 = cgc_op.relu(%dead) : (!cgc.tensor<2x!cgc.float32>) -> !cgc.tensor<2x!cgc.float32>
    %sum = cgc_op.add(%d, %c) : (!cgc.tensor<2x!cgc.float32>, !cgc.tensor<constant 2x!cgc.float32>) -> !cgc.tensor<2x!cgc.float32>
    cgc.return %a, %sum : !cgc.tensor<2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>
  }
}

// -----

// The entry point already holds the name the first subgraph would get.
// CHECK-LABEL: cgc.subgraph @relu_0_1 attributes {origin = "cpu.fallback"}
// CHECK-NEXT: cgc.functional_definition private @relu_0_1_functional(
// CHECK-LABEL: cgc.entry_point @relu_0(
// CHECK-NEXT: cgc.call @relu_0_1(
cgc.module {
  cgc.entry_point @relu_0(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %0 : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

// Nothing but dead layers and pass-through outputs: no subgraph at all.
// CHECK-LABEL: cgc.module {
// CHECK-NEXT: cgc.entry_point @pass_through(%[[X:[^:]*]]: !cgc.tensor<4x!cgc.float32>)
// CHECK-NEXT: cgc.return %[[X]]
cgc.module {
  cgc.entry_point @pass_through(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %x : !cgc.tensor<4x!cgc.float32>
  }
}
