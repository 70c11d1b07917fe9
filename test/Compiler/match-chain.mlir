// elementwise_chain bounds: min_length, max_length and max_extra_inputs, with
// every elementwise layer allowed when `layers` is left out.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=t=%S/Inputs/match-chain.mlir" | FileCheck %s

// At most two layers: floor and sin join (neither is in the CPU driver's
// list), the greedy chain stops at max_length and cos is left to lone_cos.
// CHECK-LABEL: cgc.subgraph @matmul_short_epilogue_0 attributes {cgc.pattern = "matmul_short_epilogue", origin = "t"}
// CHECK: %[[MM:.*]] = cgc_op.matmul
// CHECK-NEXT: %[[FLOOR:.*]] = cgc_op.floor(%[[MM]])
// CHECK-NEXT: %[[SIN:.*]] = cgc_op.sin(%[[FLOOR]])
// CHECK-NEXT: cgc.return %[[SIN]]
// CHECK: cgc.subgraph @lone_cos_1 attributes {cgc.pattern = "lone_cos", origin = "t"}
// CHECK-LABEL: cgc.entry_point @max_length(
// CHECK-NEXT: %[[A:.*]] = cgc.call @matmul_short_epilogue_0(
// CHECK-NEXT: %[[B:.*]] = cgc.call @lone_cos_1(%[[A]])
cgc.module {
  cgc.entry_point @max_length(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32> {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %1 = cgc_op.floor(%0) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %2 = cgc_op.sin(%1) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %3 = cgc_op.cos(%2) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %3 : !cgc.tensor<2x2x!cgc.float32>
  }
}

// -----

// At least one layer: a bare matmul does not match.
// CHECK-LABEL: cgc.entry_point @min_length(
// CHECK-NEXT: cgc.call @matmul_0(
cgc.module {
  cgc.entry_point @min_length(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32> {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %0 : !cgc.tensor<2x2x!cgc.float32>
  }
}

// -----

// No extra inputs: an add of a bias cannot extend the chain, so the chain
// is too short and nothing matches; a square (mul of the value by itself)
// takes no other operand and does.
// CHECK-LABEL: cgc.entry_point @extra_inputs(
// CHECK-NEXT: %[[M:.*]] = cgc.call @matmul_0(
// CHECK-NEXT: %[[ADD:.*]] = cgc.call @add_1(%[[M]],
// CHECK-NEXT: %[[SQ:.*]] = cgc.call @matmul_short_epilogue_2(%[[ADD]], %arg1)
// CHECK-NEXT: cgc.return %[[SQ]]
cgc.module {
  cgc.entry_point @extra_inputs(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>, %bias: !cgc.tensor<2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32> {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %1 = cgc_op.add(%0, %bias) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %2 = cgc_op.matmul(%1, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %3 = cgc_op.mul(%2, %2) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %3 : !cgc.tensor<2x2x!cgc.float32>
  }
}

// -----

// The chain is the greedy longest one from its anchor: it is floor and cos.
// lone_cos (worth more) takes cos; the second look around the accepted
// subgraphs then reads the chain without cos, so matmul and floor match
// together instead of falling back.
// CHECK-LABEL: cgc.subgraph @matmul_short_epilogue_0 attributes {cgc.pattern = "matmul_short_epilogue", origin = "t"}
// CHECK: %[[MM:.*]] = cgc_op.matmul
// CHECK-NEXT: %[[FLOOR:.*]] = cgc_op.floor(%[[MM]])
// CHECK-NEXT: cgc.return %[[FLOOR]]
// CHECK: cgc.subgraph @lone_cos_1 attributes {cgc.pattern = "lone_cos", origin = "t"}
// CHECK-NOT: origin = "fallback"
// CHECK-LABEL: cgc.entry_point @greedy(
// CHECK-NEXT: %[[F:.*]] = cgc.call @matmul_short_epilogue_0(
// CHECK-NEXT: %[[C:.*]] = cgc.call @lone_cos_1(%[[F]])
// CHECK-NEXT: cgc.return %[[C]]
cgc.module {
  cgc.entry_point @greedy(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32> {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %1 = cgc_op.floor(%0) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %2 = cgc_op.cos(%1) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %2 : !cgc.tensor<2x2x!cgc.float32>
  }
}
