// cgc_pattern.root's outputs: a matched value besides the root that layers
// after the root may read becomes a further result of the subgraph and its
// call; read by a layer before the root, or another matched value read
// outside, there is no match.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=t=%S/Inputs/match-outputs.mlir" | FileCheck %s

// The first relu is read by the add after the pair: the subgraph returns it
// second, and the add reads the call's second result.
// CHECK-LABEL: cgc.subgraph @matmul_relu_pair_0 attributes {cgc.pattern = "matmul_relu_pair", origin = "t"}
// CHECK: %[[M1:.*]] = cgc_op.matmul
// CHECK-NEXT: %[[R1:.*]] = cgc_op.relu(%[[M1]])
// CHECK-NEXT: %[[M2:.*]] = cgc_op.matmul(%[[R1]],
// CHECK-NEXT: %[[R2:.*]] = cgc_op.relu(%[[M2]])
// CHECK-NEXT: cgc.return %[[R2]], %[[R1]]
// CHECK-LABEL: cgc.entry_point @read_after(
// CHECK-NEXT: %[[C:.*]]:2 = cgc.call @matmul_relu_pair_0(%arg0, %arg1)
// CHECK-NEXT: %[[ADD:.*]] = cgc.call @add_1(%[[C]]#0, %[[C]]#1)
// CHECK-NEXT: cgc.return %[[ADD]]
cgc.module {
  cgc.entry_point @read_after(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32> {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %2 = cgc_op.matmul(%1, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %3 = cgc_op.relu(%2) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %4 = cgc_op.add(%3, %1) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %4 : !cgc.tensor<2x2x!cgc.float32>
  }
}

// -----

// Nothing outside reads the first relu: it is still a result.
// CHECK-LABEL: cgc.entry_point @unread(
// CHECK-NEXT: %[[C:.*]]:2 = cgc.call @matmul_relu_pair_0(%arg0, %arg1)
// CHECK-NEXT: cgc.return %[[C]]#0
cgc.module {
  cgc.entry_point @unread(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32> {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %2 = cgc_op.matmul(%1, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %3 = cgc_op.relu(%2) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %3 : !cgc.tensor<2x2x!cgc.float32>
  }
}

// -----

// A layer between the first relu and the second matmul reads the output:
// the call could not take the root's place, so the pair does not match.
// CHECK-LABEL: cgc.entry_point @read_before(
// CHECK-NEXT: cgc.call @matmul_0(
// CHECK-NEXT: cgc.call @relu_1(
// CHECK-NEXT: cgc.call @neg_2(
// CHECK-NEXT: cgc.call @matmul_0(
cgc.module {
  cgc.entry_point @read_before(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>) -> (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %2 = cgc_op.neg(%1) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %3 = cgc_op.matmul(%1, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %4 = cgc_op.relu(%3) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %4, %2 : !cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>
  }
}

// -----

// The first matmul is read outside: only the named outputs may be.
// CHECK-LABEL: cgc.entry_point @other_value_read(
// CHECK-NEXT: cgc.call @matmul_0(
// CHECK-NEXT: cgc.call @relu_1(
cgc.module {
  cgc.entry_point @other_value_read(%a: !cgc.tensor<2x2x!cgc.float32>, %b: !cgc.tensor<2x2x!cgc.float32>) -> (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) {
    %0 = cgc_op.matmul(%a, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %2 = cgc_op.matmul(%1, %b) : (!cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    %3 = cgc_op.relu(%2) : (!cgc.tensor<2x2x!cgc.float32>) -> !cgc.tensor<2x2x!cgc.float32>
    cgc.return %3, %0 : !cgc.tensor<2x2x!cgc.float32>, !cgc.tensor<2x2x!cgc.float32>
  }
}
