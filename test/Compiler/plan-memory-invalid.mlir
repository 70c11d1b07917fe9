// What memory planning refuses, with the reason.

// RUN: not cgc-opt %s --split-input-file --cgc-plan-memory=alignment=48 2>&1 | FileCheck %s --check-prefix=ALIGNMENT
// ALIGNMENT: error: memory planning alignment 48 must be a power of two
// RUN: not cgc-opt %s --split-input-file --cgc-plan-memory=target-alignment=gpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: target alignment 'gpu' must be target=bytes with bytes a power of two
// RUN: not cgc-opt %s --split-input-file --cgc-plan-memory=target-alignment=gpu=96 2>&1 | FileCheck %s --check-prefix=TARGET-96
// TARGET-96: error: target alignment 'gpu=96' must be target=bytes with bytes a power of two
// RUN: not cgc-opt %s --split-input-file --cgc-plan-memory=inputs-in-scratch=true 2>&1 | FileCheck %s --check-prefix=ERROR

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>

// Inputs cannot go to scratch when the program has no scratch argument.
// ERROR: error: 'cgc.program' op has no scratch argument (a trailing !cgc.memref<Nx!cgc.int8>) to place input #0 in
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
  cgc.program @main(%in: !m, %out: !m) {
    cgc.invoke @p(%in, %out) : (!m, !m)
    cgc.return
  }
}

// -----

// Not Output IR: no program.
// ERROR: error: memory planning takes Output IR with exactly one cgc.program, found 0
cgc.module {
}
