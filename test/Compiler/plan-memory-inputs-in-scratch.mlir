// With `inputs-in-scratch`, program inputs join the plan: each lives from
// before the first step (the runtime copies it in) to its last reader, and
// its argument gets `cgc.scratch_offset`.

// RUN: cgc-opt %s --split-input-file --cgc-plan-memory=inputs-in-scratch=true | FileCheck %s
// Planning again without the option takes the inputs out again.
// RUN: cgc-opt %s --split-input-file --cgc-plan-memory=inputs-in-scratch=true --cgc-plan-memory | FileCheck %s --check-prefix=AGAIN
// AGAIN-NOT: cgc.scratch_offset
// Planning twice with it is stable.
// RUN: cgc-opt %s --split-input-file --cgc-plan-memory=inputs-in-scratch=true -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --split-input-file --cgc-plan-memory=inputs-in-scratch=true -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<128x!cgc.int8>

// The input dies at the first step: t1 takes its bytes.
// CHECK-LABEL: cgc.program @dies_early(
// CHECK-SAME: %[[IN:[^:]*]]: !cgc.memref<16x!cgc.float32> {cgc.scratch_offset = 0 : i64},
// CHECK-SAME: %[[OUT:[^:]*]]: !cgc.memref<16x!cgc.float32>,
// CHECK-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<128x!cgc.int8>)
// CHECK-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 128 : i64, naive_bytes = 192 : i64, scratch_bytes = 128 : i64}
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// CHECK-NEXT: cgc.invoke @p(%[[IN]], %[[OUT]],
cgc.module {
  cgc.subgraph @copy attributes {origin = "cpu"} {
    cgc.functional_definition private @copy_functional(%x: !t) -> !t {
      %0 = cgc_op.transpose(%x) {permutation = [0]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @p(%in: !m, %out: !m, %t0: !m, %t1: !m) {
    cgc.invoke @copy(%in, %t0) : (!m, !m)
    cgc.invoke @copy(%t0, %t1) : (!m, !m)
    cgc.invoke @copy(%t1, %out) : (!m, !m)
    cgc.return
  }
  cgc.program @dies_early(%in: !m, %out: !m, %scratch: !s) {
    %t0 = cgc.view_memref %scratch[0] : !s to !m
    %t1 = cgc.view_memref %scratch[64] : !s to !m
    cgc.invoke @p(%in, %out, %t0, %t1) : (!m, !m, !m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<128x!cgc.int8>

// %x is read until the last step; %y only by a copy into an output (still
// just read). Outputs never go to scratch.
// CHECK-LABEL: cgc.program @long_lived(
// CHECK-SAME: %{{[^:]*}}: !cgc.memref<16x!cgc.float32> {cgc.scratch_offset = 0 : i64},
// CHECK-SAME: %{{[^:]*}}: !cgc.memref<16x!cgc.float32> {cgc.scratch_offset = 64 : i64},
// CHECK-SAME: %{{[^:]*}}: !cgc.memref<16x!cgc.float32>,
// CHECK-SAME: %{{[^:]*}}: !cgc.memref<16x!cgc.float32>,
// CHECK-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<256x!cgc.int8>)
// CHECK-SAME: lower_bound_bytes = 256 : i64
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][128] :
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][192] :
cgc.module {
  cgc.subgraph @copy attributes {origin = "cpu"} {
    cgc.functional_definition private @copy_functional(%x: !t) -> !t {
      %0 = cgc_op.transpose(%x) {permutation = [0]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @add attributes {origin = "cpu"} {
    cgc.functional_definition private @add_functional(%x: !t, %y: !t) -> !t {
      %0 = cgc_op.add(%x, %y) : (!t, !t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @p(%x: !m, %y: !m, %out1: !m, %out2: !m, %t0: !m, %t1: !m) {
    cgc.invoke @copy(%x, %t0) : (!m, !m)
    cgc.invoke @copy(%t0, %t1) : (!m, !m)
    cgc.invoke @add(%t1, %x, %out1) : (!m, !m, !m)
    cgc.invoke @copy(%y, %out2) : (!m, !m)
    cgc.return
  }
  cgc.program @long_lived(%x: !m, %y: !m, %out1: !m, %out2: !m, %scratch: !s) {
    %t0 = cgc.view_memref %scratch[0] : !s to !m
    %t1 = cgc.view_memref %scratch[64] : !s to !m
    cgc.invoke @p(%x, %y, %out1, %out2, %t0, %t1) : (!m, !m, !m, !m, !m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<128x!cgc.int8>

// With in-place, an elementwise chain runs over the input's own bytes.
// CHECK-LABEL: cgc.program @in_place(
// CHECK-SAME: %{{[^:]*}}: !cgc.memref<16x!cgc.float32> {cgc.scratch_offset = 0 : i64},
// CHECK-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<64x!cgc.int8>)
// CHECK-SAME: cgc.memory_plan = {in_place = 2 : i64, lower_bound_bytes = 64 : i64, naive_bytes = 192 : i64, scratch_bytes = 64 : i64}
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// CHECK-NEXT: cgc.view_memref %[[SCRATCH]][0] :
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !t) -> !t {
      %0 = cgc_op.relu(%x) : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @p(%in: !m, %out: !m, %t0: !m, %t1: !m) {
    cgc.invoke @relu(%in, %t0) : (!m, !m)
    cgc.invoke @relu(%t0, %t1) : (!m, !m)
    cgc.invoke @relu(%t1, %out) : (!m, !m)
    cgc.return
  }
  cgc.program @in_place(%in: !m, %out: !m, %scratch: !s) {
    %t0 = cgc.view_memref %scratch[0] : !s to !m
    %t1 = cgc.view_memref %scratch[64] : !s to !m
    cgc.invoke @p(%in, %out, %t0, %t1) : (!m, !m, !m, !m)
    cgc.return
  }
}
