// Scheduling the spec's A–E diamond (spec 000, "Execution scheduling"):
// two invocations depend on each other where one writes bytes the other
// reads or writes, so a plan that reuses memory adds dependencies that the
// dataflow does not have.

// RUN: cgc-opt %s --split-input-file --cgc-schedule | FileCheck %s
// Scheduling twice is stable.
// RUN: cgc-opt %s --split-input-file --cgc-schedule -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --split-input-file --cgc-schedule -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// The spec's memory table: d reuses a's slot, so D (writing d) must wait
// for C (reading a): the implicit dependency C -> D. D's dependency on A
// (which wrote a) is implied by B and dropped; so is E's on C.
// CHECK-LABEL: cgc.program @memory_table(
// CHECK-SAME: cgc.schedule = {barriers = 4 : i64, dependencies = 5 : i64, global_barriers = 3 : i64, invocations = 5 : i64}
// CHECK: cgc.invoke @layerA({{.*}}) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @layerB({{.*}}) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @layerC({{.*}}) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @layerD({{.*}}) {cgc.depends_on = array<i64: 1, 2>}
// CHECK-NEXT: cgc.invoke @layerE({{.*}}) {cgc.depends_on = array<i64: 3>}
// CHECK-NEXT: cgc.return
!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<192x!cgc.int8>

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
  cgc.program @memory_table(%in: !m, %out: !m, %scratch: !s) {
    %a = cgc.view_memref %scratch[0] : !s to !m
    %b = cgc.view_memref %scratch[64] : !s to !m
    %c = cgc.view_memref %scratch[128] : !s to !m
    %d = cgc.view_memref %scratch[0] : !s to !m
    cgc.invoke @layerA(%in, %a) : (!m, !m)
    cgc.invoke @layerB(%a, %b) : (!m, !m)
    cgc.invoke @layerC(%a, %c) : (!m, !m)
    cgc.invoke @layerD(%b, %d) : (!m, !m)
    cgc.invoke @layerE(%d, %c, %out) : (!m, !m, !m)
    cgc.return
  }
}

// -----

// One slot per tensor: only the dataflow orders the invocations, and C may
// run alongside B and D.
// CHECK-LABEL: cgc.program @one_slot_each(
// CHECK-SAME: cgc.schedule = {barriers = 4 : i64, dependencies = 5 : i64, global_barriers = 3 : i64, invocations = 5 : i64}
// CHECK: cgc.invoke @layerA({{.*}}) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @layerB({{.*}}) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @layerC({{.*}}) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @layerD({{.*}}) {cgc.depends_on = array<i64: 1>}
// CHECK-NEXT: cgc.invoke @layerE({{.*}}) {cgc.depends_on = array<i64: 2, 3>}
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
  cgc.program @one_slot_each(%in: !m, %out: !m, %scratch: !s) {
    %a = cgc.view_memref %scratch[0] : !s to !m
    %b = cgc.view_memref %scratch[64] : !s to !m
    %c = cgc.view_memref %scratch[128] : !s to !m
    %d = cgc.view_memref %scratch[192] : !s to !m
    cgc.invoke @layerA(%in, %a) : (!m, !m)
    cgc.invoke @layerB(%a, %b) : (!m, !m)
    cgc.invoke @layerC(%a, %c) : (!m, !m)
    cgc.invoke @layerD(%b, %d) : (!m, !m)
    cgc.invoke @layerE(%d, %c, %out) : (!m, !m, !m)
    cgc.return
  }
}
