// Memory planning of the spec's A–E diamond (spec 000, "Memory planning"):
//
//   in --> A --a--> B --b--> D --d--> E --> out
//              a--> C --c----------> E
//
// Five one-layer subgraphs, one partition each, all tensors 64 bytes. The
// input holds the naive plan: one 64-byte-aligned slot per intermediate.
// Every layer is elementwise, so in-place is off here (see
// plan-memory-in-place.mlir).

// The spec's memory table: a, b and c take three slots; d reuses a's slot
// once B and C (a's readers) have run.
// RUN: cgc-opt %s --cgc-plan-memory=in-place=false | FileCheck %s --check-prefix=TABLE
// With concurrency, d may not reuse a: D does not depend on C, which reads a.
// RUN: cgc-opt %s --cgc-plan-memory="in-place=false concurrency=true" | FileCheck %s --check-prefix=CONCURRENT
// Scheduling the spec's plan shows the implicit dependency C -> D; with
// concurrency D depends on B only and E on both C and D.
// RUN: cgc-opt %s --cgc-plan-memory=in-place=false --cgc-schedule | FileCheck %s --check-prefix=IMPLICIT
// RUN: cgc-opt %s --cgc-plan-memory="in-place=false concurrency=true" --cgc-schedule | FileCheck %s --check-prefix=INDEPENDENT
// With in-place (the default), C writes c over a (its last reader) and D
// writes d over b: two slots. With concurrency too, c may not take a's
// bytes: B reads a and C does not depend on B.
// RUN: cgc-opt %s --cgc-plan-memory | FileCheck %s --check-prefix=IN-PLACE
// RUN: cgc-opt %s --cgc-plan-memory=concurrency=true | FileCheck %s --check-prefix=IN-PLACE-CONCURRENT
// Without reuse the naive plan stays: one slot per value.
// RUN: cgc-opt %s --cgc-plan-memory=reuse=false | FileCheck %s --check-prefix=NAIVE
// The planned and scheduled program is valid CGC_OUTPUT.
// RUN: cgc-opt %s --cgc-plan-memory --cgc-schedule --emit-container=output -o %t.cgc
// RUN: cgc-opt %t.cgc | FileCheck %s --check-prefix=IN-PLACE
// Planning again drops the schedule, which was for the old byte ranges.
// RUN: cgc-opt %s --cgc-plan-memory --cgc-schedule --cgc-plan-memory=in-place=false | FileCheck %s --check-prefix=REPLANNED
// REPLANNED-LABEL: cgc.program @main(
// REPLANNED-SAME: scratch_bytes = 192 : i64}} {
// REPLANNED-NOT: cgc.schedule
// REPLANNED-NOT: cgc.depends_on
// Planning twice gives the same plan.
// RUN: cgc-opt %s --cgc-plan-memory=in-place=false -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --cgc-plan-memory=in-place=false -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// TABLE-LABEL: cgc.program @main(
// TABLE-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<192x!cgc.int8>)
// TABLE-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 192 : i64, naive_bytes = 256 : i64, scratch_bytes = 192 : i64}
// TABLE-NEXT: %[[A:.*]] = cgc.view_memref %[[SCRATCH]][0] : !cgc.memref<192x!cgc.int8> to !cgc.memref<16x!cgc.float32>
// TABLE-NEXT: %[[B:.*]] = cgc.view_memref %[[SCRATCH]][64] :
// TABLE-NEXT: %[[C:.*]] = cgc.view_memref %[[SCRATCH]][128] :
// TABLE-NEXT: %[[D:.*]] = cgc.view_memref %[[SCRATCH]][0] :
// TABLE-NEXT: cgc.invoke @layerA(%{{.*}}, %[[A]])
// TABLE-NEXT: cgc.invoke @layerB(%[[A]], %[[B]])
// TABLE-NEXT: cgc.invoke @layerC(%[[A]], %[[C]])
// TABLE-NEXT: cgc.invoke @layerD(%[[B]], %[[D]])
// TABLE-NEXT: cgc.invoke @layerE(%[[D]], %[[C]], %{{.*}})

// CONCURRENT-LABEL: cgc.program @main(
// CONCURRENT-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<256x!cgc.int8>)
// CONCURRENT-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 192 : i64, naive_bytes = 256 : i64, scratch_bytes = 256 : i64}
// CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][128] :
// CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][192] :

// IN-PLACE-LABEL: cgc.program @main(
// IN-PLACE-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<128x!cgc.int8>)
// IN-PLACE-SAME: cgc.memory_plan = {in_place = 2 : i64, lower_bound_bytes = 128 : i64, naive_bytes = 256 : i64, scratch_bytes = 128 : i64}
// IN-PLACE-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// IN-PLACE-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// IN-PLACE-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// IN-PLACE-NEXT: cgc.view_memref %[[SCRATCH]][64] :

// IN-PLACE-CONCURRENT-LABEL: cgc.program @main(
// IN-PLACE-CONCURRENT-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<192x!cgc.int8>)
// IN-PLACE-CONCURRENT-SAME: cgc.memory_plan = {in_place = 1 : i64, lower_bound_bytes = 192 : i64, naive_bytes = 256 : i64, scratch_bytes = 192 : i64}
// IN-PLACE-CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// IN-PLACE-CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// IN-PLACE-CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][128] :
// IN-PLACE-CONCURRENT-NEXT: cgc.view_memref %[[SCRATCH]][64] :

// NAIVE-LABEL: cgc.program @main(
// NAIVE-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<256x!cgc.int8>)
// NAIVE-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 192 : i64, naive_bytes = 256 : i64, scratch_bytes = 256 : i64}
// NAIVE-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// NAIVE-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// NAIVE-NEXT: cgc.view_memref %[[SCRATCH]][128] :
// NAIVE-NEXT: cgc.view_memref %[[SCRATCH]][192] :

// IMPLICIT-LABEL: cgc.program @main(
// IMPLICIT-SAME: cgc.schedule = {barriers = 4 : i64, dependencies = 5 : i64, global_barriers = 3 : i64, invocations = 5 : i64}
// IMPLICIT: cgc.invoke @layerA({{.*}}) {cgc.depends_on = array<i64>}
// IMPLICIT-NEXT: cgc.invoke @layerB({{.*}}) {cgc.depends_on = array<i64: 0>}
// IMPLICIT-NEXT: cgc.invoke @layerC({{.*}}) {cgc.depends_on = array<i64: 0>}
// IMPLICIT-NEXT: cgc.invoke @layerD({{.*}}) {cgc.depends_on = array<i64: 1, 2>}
// IMPLICIT-NEXT: cgc.invoke @layerE({{.*}}) {cgc.depends_on = array<i64: 3>}

// INDEPENDENT-LABEL: cgc.program @main(
// INDEPENDENT-SAME: cgc.schedule = {barriers = 4 : i64, dependencies = 5 : i64, global_barriers = 3 : i64, invocations = 5 : i64}
// INDEPENDENT: cgc.invoke @layerA({{.*}}) {cgc.depends_on = array<i64>}
// INDEPENDENT-NEXT: cgc.invoke @layerB({{.*}}) {cgc.depends_on = array<i64: 0>}
// INDEPENDENT-NEXT: cgc.invoke @layerC({{.*}}) {cgc.depends_on = array<i64: 0>}
// INDEPENDENT-NEXT: cgc.invoke @layerD({{.*}}) {cgc.depends_on = array<i64: 1>}
// INDEPENDENT-NEXT: cgc.invoke @layerE({{.*}}) {cgc.depends_on = array<i64: 2, 3>}

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
  cgc.program @main(%in: !m, %out: !m, %scratch: !s) {
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
