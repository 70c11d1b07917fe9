// cgc-partition's max-layers cap: a partition takes calls of its target while
// their layers add up to at most the cap; a call larger than the cap gets a
// partition of its own.

// RUN: cgc-opt %s --cgc-partition=max-layers=2 | FileCheck %s --check-prefix=CAP2
// RUN: cgc-opt %s --cgc-partition=max-layers=4 | FileCheck %s --check-prefix=CAP4
// Without a cap one partition takes all five calls:
// RUN: cgc-opt %s --cgc-partition | FileCheck %s --check-prefix=NONE
// The cap applies to copies too: the copy of the fallback output cannot join.
// RUN: cgc-opt %s --cgc-partition=max-layers=1 | FileCheck %s --check-prefix=CAP1

// Calls (layers): a(1) b(1) c(2) d(3) e(1), a chain, all of target "fallback";
// the last output is returned twice, which needs a copy.
cgc.module {
  cgc.subgraph @relu attributes {origin = "fallback"} {
    cgc.functional_definition private @relu_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.subgraph @relu2 attributes {origin = "fallback"} {
    cgc.functional_definition private @relu2_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      %1 = cgc_op.relu(%0) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %1 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.subgraph @relu3 attributes {origin = "fallback"} {
    cgc.functional_definition private @relu3_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      %1 = cgc_op.relu(%0) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      %2 = cgc_op.relu(%1) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %2 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.entry_point @capped(%x: !cgc.tensor<16x!cgc.float32>) -> (!cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>) {
    %a = cgc.call @relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %b = cgc.call @relu(%a) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %c = cgc.call @relu2(%b) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %d = cgc.call @relu3(%c) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %e = cgc.call @relu(%d) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    cgc.return %e, %e : !cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>
  }
}

// Cap 2: {a b} {c} {d} (3 layers, alone) {e copy}.
// CAP2-LABEL: cgc.module {
// CAP2: cgc.partition @partition_0(
// CAP2-NEXT: cgc.invoke @relu(
// CAP2-NEXT: cgc.invoke @relu(
// CAP2-NEXT: cgc.return
// CAP2: cgc.partition @partition_1(
// CAP2-NEXT: cgc.invoke @relu2(
// CAP2-NEXT: cgc.return
// CAP2: cgc.partition @partition_2(
// CAP2-NEXT: cgc.invoke @relu3(
// CAP2-NEXT: cgc.return
// CAP2: cgc.partition @partition_3(
// CAP2-NEXT: cgc.invoke @relu(
// CAP2-NEXT: cgc.invoke @copy_0(
// CAP2-NEXT: cgc.return
// CAP2-NOT: cgc.partition
// CAP2: cgc.program @capped(

// Cap 4: {a b c} {d e} {copy}.
// CAP4-LABEL: cgc.module {
// CAP4: cgc.partition @partition_0(
// CAP4-NEXT: cgc.invoke @relu(
// CAP4-NEXT: cgc.invoke @relu(
// CAP4-NEXT: cgc.invoke @relu2(
// CAP4-NEXT: cgc.return
// CAP4: cgc.partition @partition_1(
// CAP4-NEXT: cgc.invoke @relu3(
// CAP4-NEXT: cgc.invoke @relu(
// CAP4-NEXT: cgc.return
// CAP4: cgc.partition @partition_2(
// CAP4-NEXT: cgc.invoke @copy_0(
// CAP4-NEXT: cgc.return
// CAP4-NOT: cgc.partition

// NONE-LABEL: cgc.module {
// NONE: cgc.partition @partition_0(
// NONE-NEXT: cgc.invoke @relu(
// NONE-NEXT: cgc.invoke @relu(
// NONE-NEXT: cgc.invoke @relu2(
// NONE-NEXT: cgc.invoke @relu3(
// NONE-NEXT: cgc.invoke @relu(
// NONE-NEXT: cgc.invoke @copy_0(
// NONE-NEXT: cgc.return
// NONE-NOT: cgc.partition

// Cap 1: every call and the copy alone.
// CAP1-LABEL: cgc.program @capped(
// CAP1-COUNT-6: cgc.invoke @partition_
// CAP1-NEXT: cgc.return
