// What scheduling refuses, with the op to blame.
// RUN: cgc-opt %s --split-input-file --verify-diagnostics --cgc-schedule

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>

// An input placed in scratch needs a scratch buffer to live in.
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
  // expected-error @+1 {{'cgc.program' op argument #0 has 'cgc.scratch_offset' but the program has no scratch argument}}
  cgc.program @main(%in: !m {cgc.scratch_offset = 0 : i64}, %out: !m) {
    cgc.invoke @p(%in, %out) : (!m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>

// ... and must fit it.
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
  // expected-error @+1 {{'cgc.program' op argument #0 is placed in scratch at 32 but its 64 bytes do not fit the 64-byte scratch buffer}}
  cgc.program @main(%in: !m {cgc.scratch_offset = 32 : i64}, %out: !m, %scratch: !cgc.memref<64x!cgc.int8>) {
    cgc.invoke @p(%in, %out) : (!m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>

// Two programs are not Output IR.
// expected-error @+1 {{scheduling takes Output IR with exactly one cgc.program, found 2}}
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
  cgc.program @first(%in: !m, %out: !m) {
    cgc.invoke @p(%in, %out) : (!m, !m)
    cgc.return
  }
  cgc.program @second(%in: !m, %out: !m) {
    cgc.invoke @p(%in, %out) : (!m, !m)
    cgc.return
  }
}
