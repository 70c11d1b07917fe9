// Offsets are aligned to `alignment`, and a value that a target's subgraph
// touches to that target's `target-alignment` too.
//
// Three 40-byte values: t0 [0,1] (cpu, gpu), t1 [1,2] (gpu, cpu), t2 [2,3]
// (cpu only). t2 reuses t0's bytes.

// RUN: cgc-opt %s --cgc-plan-memory | FileCheck %s --check-prefix=DEFAULT
// RUN: cgc-opt %s --cgc-plan-memory=alignment=16 | FileCheck %s --check-prefix=SIXTEEN
// RUN: cgc-opt %s --cgc-plan-memory="alignment=16 target-alignment=gpu=128" | FileCheck %s --check-prefix=GPU
// An alignment that another target asks for changes nothing here.
// RUN: cgc-opt %s --cgc-plan-memory="alignment=16 target-alignment=npu=512,gpu=128" | FileCheck %s --check-prefix=GPU

// DEFAULT-LABEL: cgc.program @main(
// DEFAULT-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<128x!cgc.int8>)
// DEFAULT-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 80 : i64, naive_bytes = 192 : i64, scratch_bytes = 128 : i64}
// DEFAULT-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// DEFAULT-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// DEFAULT-NEXT: cgc.view_memref %[[SCRATCH]][0] :

// SIXTEEN-LABEL: cgc.program @main(
// SIXTEEN-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<96x!cgc.int8>)
// SIXTEEN-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 80 : i64, naive_bytes = 144 : i64, scratch_bytes = 96 : i64}
// SIXTEEN-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// SIXTEEN-NEXT: cgc.view_memref %[[SCRATCH]][48] :
// SIXTEEN-NEXT: cgc.view_memref %[[SCRATCH]][0] :

// t0 and t1 are 128-byte aligned (the gpu subgraph touches them); t2 only
// 16-byte aligned.
// GPU-LABEL: cgc.program @main(
// GPU-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<176x!cgc.int8>)
// GPU-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 80 : i64, naive_bytes = 224 : i64, scratch_bytes = 176 : i64}
// GPU-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// GPU-NEXT: cgc.view_memref %[[SCRATCH]][128] :
// GPU-NEXT: cgc.view_memref %[[SCRATCH]][0] :

!t = !cgc.tensor<10x!cgc.float32>
!m = !cgc.memref<10x!cgc.float32>
!s = !cgc.memref<192x!cgc.int8>

cgc.module {
  cgc.subgraph @cpu_copy attributes {origin = "cpu"} {
    cgc.functional_definition private @cpu_copy_functional(%x: !t) -> !t {
      %0 = cgc_op.transpose(%x) {permutation = [0]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @gpu_copy attributes {origin = "gpu"} {
    cgc.functional_definition private @gpu_copy_functional(%x: !t) -> !t {
      %0 = cgc_op.transpose(%x) {permutation = [0]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @cpu(%x: !m, %y: !m) {
    cgc.invoke @cpu_copy(%x, %y) : (!m, !m)
    cgc.return
  }
  cgc.partition @gpu(%x: !m, %y: !m) {
    cgc.invoke @gpu_copy(%x, %y) : (!m, !m)
    cgc.return
  }
  cgc.program @main(%in: !m, %out: !m, %scratch: !s) {
    %t0 = cgc.view_memref %scratch[0] : !s to !m
    %t1 = cgc.view_memref %scratch[64] : !s to !m
    %t2 = cgc.view_memref %scratch[128] : !s to !m
    cgc.invoke @cpu(%in, %t0) : (!m, !m)
    cgc.invoke @gpu(%t0, %t1) : (!m, !m)
    cgc.invoke @cpu(%t1, %t2) : (!m, !m)
    cgc.invoke @cpu(%t2, %out) : (!m, !m)
    cgc.return
  }
}
