// In-place execution: a subgraph made only of elementwise layers writes its
// single result over an operand of the same type that dies there.

// RUN: cgc-opt %s --split-input-file --cgc-plan-memory | FileCheck %s
// RUN: cgc-opt %s --split-input-file --cgc-plan-memory=in-place=false | FileCheck %s --check-prefix=OFF
// Planning the planned program again changes nothing.
// RUN: cgc-opt %s --split-input-file --cgc-plan-memory | cgc-opt --split-input-file --cgc-plan-memory | FileCheck %s

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>

// An elementwise chain in -> t0 -> t1 -> t2 -> out: t1 is written over t0
// and t2 over t1, so the three intermediates share one 64-byte slot.
// CHECK-LABEL: cgc.program @chain(
// CHECK-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<64x!cgc.int8>)
// CHECK-SAME: cgc.memory_plan = {in_place = 2 : i64, lower_bound_bytes = 64 : i64, naive_bytes = 192 : i64, scratch_bytes = 64 : i64}
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// Without in-place, neighbours overlap at the step between them: two slots.
// OFF-LABEL: cgc.program @chain(
// OFF-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<128x!cgc.int8>)
// OFF-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 128 : i64, naive_bytes = 192 : i64, scratch_bytes = 128 : i64}
// OFF-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// OFF-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// OFF-NEXT: cgc.view_memref %[[SCRATCH]][0] :
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !t) -> !t {
      %0 = cgc_op.relu(%x) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  // Two elementwise layers fused: still elementwise.
  cgc.subgraph @sigmoid_tanh attributes {origin = "cpu"} {
    cgc.functional_definition private @sigmoid_tanh_functional(%x: !t) -> !t {
      %0 = cgc_op.sigmoid(%x) : (!t) -> !t
      %1 = cgc_op.tanh(%0) : (!t) -> !t
      cgc.return %1 : !t
    }
  }
  cgc.partition @p(%in: !m, %out: !m, %t0: !m, %t1: !m, %t2: !m) {
    cgc.invoke @relu(%in, %t0) : (!m, !m)
    cgc.invoke @sigmoid_tanh(%t0, %t1) : (!m, !m)
    cgc.invoke @relu(%t1, %t2) : (!m, !m)
    cgc.invoke @relu(%t2, %out) : (!m, !m)
    cgc.return
  }
  cgc.program @chain(%in: !m, %out: !m, %scratch: !cgc.memref<192x!cgc.int8>) {
    %t0 = cgc.view_memref %scratch[0] : !cgc.memref<192x!cgc.int8> to !m
    %t1 = cgc.view_memref %scratch[64] : !cgc.memref<192x!cgc.int8> to !m
    %t2 = cgc.view_memref %scratch[128] : !cgc.memref<192x!cgc.int8> to !m
    cgc.invoke @p(%in, %out, %t0, %t1, %t2) : (!m, !m, !m, !m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>

// Not in place: t0 is read again after t1's producer (a skip connection),
// and add(t1, t1) reads its dying operand twice. Only relu(t2) -> t3 is in
// place.
// CHECK-LABEL: cgc.program @live_after(
// CHECK-SAME: !cgc.memref<192x!cgc.int8>)
// CHECK-SAME: in_place = 1 : i64
// CHECK-NEXT: %[[T0:.*]] = cgc.view_memref %{{.*}}[0] :
// CHECK-NEXT: %[[T1:.*]] = cgc.view_memref %{{.*}}[64] :
// CHECK-NEXT: %[[T2:.*]] = cgc.view_memref %{{.*}}[128] :
// CHECK-NEXT: %[[T3:.*]] = cgc.view_memref %{{.*}}[128] :
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !t) -> !t {
      %0 = cgc_op.relu(%x) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @add attributes {origin = "cpu"} {
    cgc.functional_definition private @add_functional(%x: !t, %y: !t) -> !t {
      %0 = cgc_op.add(%x, %y) : (!t, !t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @p(%in: !m, %out: !m, %t0: !m, %t1: !m, %t2: !m, %t3: !m) {
    cgc.invoke @relu(%in, %t0) : (!m, !m)
    cgc.invoke @relu(%t0, %t1) : (!m, !m)
    cgc.invoke @add(%t1, %t1, %t2) : (!m, !m, !m)
    cgc.invoke @relu(%t2, %t3) : (!m, !m)
    cgc.invoke @add(%t3, %t0, %out) : (!m, !m, !m)
    cgc.return
  }
  cgc.program @live_after(%in: !m, %out: !m, %scratch: !cgc.memref<256x!cgc.int8>) {
    %t0 = cgc.view_memref %scratch[0] : !cgc.memref<256x!cgc.int8> to !m
    %t1 = cgc.view_memref %scratch[64] : !cgc.memref<256x!cgc.int8> to !m
    %t2 = cgc.view_memref %scratch[128] : !cgc.memref<256x!cgc.int8> to !m
    %t3 = cgc.view_memref %scratch[192] : !cgc.memref<256x!cgc.int8> to !m
    cgc.invoke @p(%in, %out, %t0, %t1, %t2, %t3) : (!m, !m, !m, !m, !m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>

// A subgraph of reshapes alone gives its result its operand's bytes (t1 is
// t0: the same bytes under another shape). A reshape fused after an
// elementwise layer is neither elementwise nor a plain reshape: square's
// result t2 gets bytes of its own.
// CHECK-LABEL: cgc.program @not_elementwise(
// CHECK-SAME: in_place = 1 : i64
// CHECK-NEXT: cgc.view_memref %{{.*}}[0] : {{.*}} to !cgc.memref<16x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[0] : {{.*}} to !cgc.memref<16x!cgc.float32>
// CHECK-NEXT: cgc.view_memref %{{.*}}[64] : {{.*}} to !cgc.memref<4x4x!cgc.float32>
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !t) -> !t {
      %0 = cgc_op.relu(%x) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @copy attributes {origin = "cpu"} {
    cgc.functional_definition private @copy_functional(%x: !t) -> !t {
      %0 = cgc_op.reshape(%x) {shape = [16]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @square attributes {origin = "cpu"} {
    cgc.functional_definition private @square_functional(%x: !t) -> !cgc.tensor<4x4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!t) -> !t
      %1 = cgc_op.reshape(%0) {shape = [4, 4]} : (!t) -> !cgc.tensor<4x4x!cgc.float32>
      cgc.return %1 : !cgc.tensor<4x4x!cgc.float32>
    }
  }
  cgc.subgraph @flat_relu attributes {origin = "cpu"} {
    cgc.functional_definition private @flat_relu_functional(%x: !cgc.tensor<4x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x4x!cgc.float32>) -> !cgc.tensor<4x4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x4x!cgc.float32>
    }
  }
  cgc.partition @p(%in: !m, %out: !cgc.memref<4x4x!cgc.float32>, %t0: !m, %t1: !m, %t2: !cgc.memref<4x4x!cgc.float32>) {
    cgc.invoke @relu(%in, %t0) : (!m, !m)
    cgc.invoke @copy(%t0, %t1) : (!m, !m)
    cgc.invoke @square(%t1, %t2) : (!m, !cgc.memref<4x4x!cgc.float32>)
    cgc.invoke @flat_relu(%t2, %out) : (!cgc.memref<4x4x!cgc.float32>, !cgc.memref<4x4x!cgc.float32>)
    cgc.return
  }
  cgc.program @not_elementwise(%in: !m, %out: !cgc.memref<4x4x!cgc.float32>, %scratch: !cgc.memref<192x!cgc.int8>) {
    %t0 = cgc.view_memref %scratch[0] : !cgc.memref<192x!cgc.int8> to !m
    %t1 = cgc.view_memref %scratch[64] : !cgc.memref<192x!cgc.int8> to !m
    %t2 = cgc.view_memref %scratch[128] : !cgc.memref<192x!cgc.int8> to !cgc.memref<4x4x!cgc.float32>
    cgc.invoke @p(%in, %out, %t0, %t1, %t2) : (!m, !cgc.memref<4x4x!cgc.float32>, !m, !m, !cgc.memref<4x4x!cgc.float32>)
    cgc.return
  }
}
