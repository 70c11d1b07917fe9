// Reordering: invocations are ordered by dependency level (as soon as
// their dependencies allow; program order within a level), so that
// independent ones are adjacent.

// RUN: cgc-opt %s --split-input-file --cgc-schedule | FileCheck %s
// RUN: cgc-opt %s --split-input-file --cgc-schedule=reorder=false | FileCheck %s --check-prefix=KEEP
// The reordered program is scheduled again as it is.
// RUN: cgc-opt %s --split-input-file --cgc-schedule -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --split-input-file --cgc-schedule -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// The diamond with one scratch slot per tensor, in the program order
// A, B, D, C, E. C depends only on A: it moves up beside B (level 1), ahead
// of D (level 2). Positions in cgc.depends_on are those of the new order.
// The views stay in place: d's view, between the invocations before, now
// precedes them all.
// CHECK-LABEL: cgc.program @diamond(
// CHECK-SAME: cgc.schedule = {barriers = 4 : i64, dependencies = 5 : i64, global_barriers = 3 : i64, invocations = 5 : i64}
// CHECK-NEXT: %[[A:.*]] = cgc.view_memref
// CHECK-NEXT: %[[B:.*]] = cgc.view_memref
// CHECK-NEXT: %[[C:.*]] = cgc.view_memref
// CHECK-NEXT: %[[D:.*]] = cgc.view_memref
// CHECK-NEXT: cgc.invoke @layerA(%{{.*}}, %[[A]]) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @layerB(%[[A]], %[[B]]) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @layerC(%[[A]], %[[C]]) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @layerD(%[[B]], %[[D]]) {cgc.depends_on = array<i64: 1>}
// CHECK-NEXT: cgc.invoke @layerE(%[[D]], %[[C]], %{{.*}}) {cgc.depends_on = array<i64: 2, 3>}
// CHECK-NEXT: cgc.return

// Without reordering the program order stays, and so do the positions.
// KEEP-LABEL: cgc.program @diamond(
// KEEP-SAME: cgc.schedule = {barriers = 4 : i64, dependencies = 5 : i64, global_barriers = 3 : i64, invocations = 5 : i64}
// KEEP: cgc.invoke @layerA({{.*}}) {cgc.depends_on = array<i64>}
// KEEP-NEXT: cgc.invoke @layerB({{.*}}) {cgc.depends_on = array<i64: 0>}
// KEEP-NEXT: cgc.view_memref
// KEEP-NEXT: cgc.invoke @layerD({{.*}}) {cgc.depends_on = array<i64: 1>}
// KEEP-NEXT: cgc.invoke @layerC({{.*}}) {cgc.depends_on = array<i64: 0>}
// KEEP-NEXT: cgc.invoke @layerE({{.*}}) {cgc.depends_on = array<i64: 2, 3>}

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<256x!cgc.int8>

cgc.module {
  cgc.subgraph @A attributes {origin = "cpu"} {
    cgc.functional_definition private @A_functional(%x0: !t) -> !t {
      %0 = cgc_op.relu(%x0) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @B attributes {origin = "cpu"} {
    cgc.functional_definition private @B_functional(%x0: !t) -> !t {
      %0 = cgc_op.sigmoid(%x0) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @C attributes {origin = "cpu"} {
    cgc.functional_definition private @C_functional(%x0: !t) -> !t {
      %0 = cgc_op.tanh(%x0) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @D attributes {origin = "cpu"} {
    cgc.functional_definition private @D_functional(%x0: !t) -> !t {
      %0 = cgc_op.relu(%x0) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @E attributes {origin = "cpu"} {
    cgc.functional_definition private @E_functional(%x0: !t, %x1: !t) -> !t {
      %0 = cgc_op.add(%x0, %x1) : (!t, !t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @layerA(%m0: !m, %m1: !m) {
    cgc.invoke @A(%m0, %m1) : (!m, !m)
    cgc.return
  }
  cgc.partition @layerB(%m0: !m, %m1: !m) {
    cgc.invoke @B(%m0, %m1) : (!m, !m)
    cgc.return
  }
  cgc.partition @layerC(%m0: !m, %m1: !m) {
    cgc.invoke @C(%m0, %m1) : (!m, !m)
    cgc.return
  }
  cgc.partition @layerD(%m0: !m, %m1: !m) {
    cgc.invoke @D(%m0, %m1) : (!m, !m)
    cgc.return
  }
  cgc.partition @layerE(%m0: !m, %m1: !m, %m2: !m) {
    cgc.invoke @E(%m0, %m1, %m2) : (!m, !m, !m)
    cgc.return
  }
  cgc.program @diamond(%in: !m, %out: !m, %scratch: !s) {
    %a = cgc.view_memref %scratch[0] : !s to !m
    %b = cgc.view_memref %scratch[64] : !s to !m
    %c = cgc.view_memref %scratch[128] : !s to !m
    cgc.invoke @layerA(%in, %a) : (!m, !m)
    cgc.invoke @layerB(%a, %b) : (!m, !m)
    %d = cgc.view_memref %scratch[192] : !s to !m
    cgc.invoke @layerD(%b, %d) : (!m, !m)
    cgc.invoke @layerC(%a, %c) : (!m, !m)
    cgc.invoke @layerE(%d, %c, %out) : (!m, !m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<128x!cgc.int8>

// Two independent chains, one after the other in the program, interleave:
// both heads at level 0, both tails at level 1.
// CHECK-LABEL: cgc.program @two_chains(
// CHECK-SAME: cgc.schedule = {barriers = 2 : i64, dependencies = 2 : i64, global_barriers = 1 : i64, invocations = 4 : i64}
// CHECK: cgc.invoke @p(%[[X:[^,]*]], %[[T0:[^)]*]]) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @p(%[[Y:[^,]*]], %[[T1:[^)]*]]) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @p(%[[T0]], %{{[^)]*}}) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @p(%[[T1]], %{{[^)]*}}) {cgc.depends_on = array<i64: 1>}
// KEEP-LABEL: cgc.program @two_chains(
// KEEP: cgc.invoke @p(%[[X:[^,]*]], %[[T0:[^)]*]]) {cgc.depends_on = array<i64>}
// KEEP-NEXT: cgc.invoke @p(%[[T0]], %{{[^)]*}}) {cgc.depends_on = array<i64: 0>}
// KEEP-NEXT: cgc.invoke @p(%[[Y:[^,]*]], %[[T1:[^)]*]]) {cgc.depends_on = array<i64>}
// KEEP-NEXT: cgc.invoke @p(%[[T1]], %{{[^)]*}}) {cgc.depends_on = array<i64: 2>}
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !t) -> !t {
      %0 = cgc_op.relu(%x) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @p(%x: !m, %y: !m) {
    cgc.invoke @relu(%x, %y) : (!m, !m)
    cgc.return
  }
  cgc.program @two_chains(%x: !m, %y: !m, %out0: !m, %out1: !m, %scratch: !s) {
    %t0 = cgc.view_memref %scratch[0] : !s to !m
    %t1 = cgc.view_memref %scratch[64] : !s to !m
    cgc.invoke @p(%x, %t0) : (!m, !m)
    cgc.invoke @p(%t0, %out0) : (!m, !m)
    cgc.invoke @p(%y, %t1) : (!m, !m)
    cgc.invoke @p(%t1, %out1) : (!m, !m)
    cgc.return
  }
}
