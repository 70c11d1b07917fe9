// Dependencies are range-aware: two invocations conflict only where one
// writes bytes of a buffer that the other reads or writes.

// RUN: cgc-opt %s --split-input-file --cgc-schedule | FileCheck %s

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!w = !cgc.memref<constant 16x!cgc.float32>
!s = !cgc.memref<192x!cgc.int8>

// Two invocations that read the same input and constant and write disjoint
// scratch ranges are independent; the third reads both ranges. Bytes of
// nested views (a view of a view) count from the scratch buffer's start.
// CHECK-LABEL: cgc.program @disjoint(
// CHECK-SAME: cgc.schedule = {barriers = 1 : i64, dependencies = 2 : i64, global_barriers = 1 : i64, invocations = 3 : i64}
// CHECK: cgc.invoke @scale({{.*}}) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @scale({{.*}}) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @sum({{.*}}) {cgc.depends_on = array<i64: 0, 1>}
cgc.module {
  cgc.subgraph @mul attributes {origin = "cpu"} {
    cgc.functional_definition private @mul_functional(%x: !t, %w: !cgc.tensor<constant 16x!cgc.float32>) -> !t {
      %0 = cgc_op.mul(%x, %w) : (!t, !cgc.tensor<constant 16x!cgc.float32>) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.subgraph @add attributes {origin = "cpu"} {
    cgc.functional_definition private @add_functional(%x: !t, %y: !t) -> !t {
      %0 = cgc_op.add(%x, %y) : (!t, !t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @scale(%x: !m, %w: !w, %y: !m) {
    cgc.invoke @mul(%x, %w, %y) : (!m, !w, !m)
    cgc.return
  }
  cgc.partition @sum(%x: !m, %y: !m, %z: !m) {
    cgc.invoke @add(%x, %y, %z) : (!m, !m, !m)
    cgc.return
  }
  cgc.program @disjoint(%in: !m, %out: !m, %scratch: !s) {
    %w = cgc.constant("w") : !w
    %both = cgc.view_memref %scratch[64] : !s to !cgc.memref<32x!cgc.float32>
    %lo = cgc.view_memref %both[0] : !cgc.memref<32x!cgc.float32> to !m
    %hi = cgc.view_memref %both[64] : !cgc.memref<32x!cgc.float32> to !m
    cgc.invoke @scale(%in, %w, %lo) : (!m, !w, !m)
    cgc.invoke @scale(%in, %w, %hi) : (!m, !w, !m)
    cgc.invoke @sum(%lo, %hi, %out) : (!m, !m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<192x!cgc.int8>

// Views that overlap by 32 bytes: the second write waits for the first.
// Two writes of one output conflict too. The output's first writer depends
// on nothing and moves up to level 0.
// CHECK-LABEL: cgc.program @overlap(
// CHECK-SAME: cgc.schedule = {barriers = 2 : i64, dependencies = 3 : i64, global_barriers = 2 : i64, invocations = 4 : i64}
// CHECK: cgc.invoke @copy(%{{.*}}, %[[U:[^)]*]]) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @copy(%{{.*}}, %[[OUT:[^)]*]]) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @copy(%{{.*}}, %[[V:[^)]*]]) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.invoke @copy(%[[V]], %[[OUT]]) {cgc.depends_on = array<i64: 1, 2>}
cgc.module {
  cgc.subgraph @c attributes {origin = "cpu"} {
    cgc.functional_definition private @c_functional(%x: !t) -> !t {
      %0 = cgc_op.reshape(%x) {shape = [16]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @copy(%x: !m, %y: !m) {
    cgc.invoke @c(%x, %y) : (!m, !m)
    cgc.return
  }
  cgc.program @overlap(%in: !m, %out: !m, %scratch: !s) {
    %u = cgc.view_memref %scratch[0] : !s to !m
    %v = cgc.view_memref %scratch[32] : !s to !m
    cgc.invoke @copy(%in, %u) : (!m, !m)
    cgc.invoke @copy(%in, %v) : (!m, !m)
    cgc.invoke @copy(%in, %out) : (!m, !m)
    cgc.invoke @copy(%v, %out) : (!m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<64x!cgc.int8>

// An input placed in scratch (cgc.scratch_offset) shares bytes with the view
// at the same offset: writing the view waits for the input's reader.
// CHECK-LABEL: cgc.program @input_in_scratch(
// CHECK: cgc.invoke @copy(%{{.*}}) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @copy(%{{.*}}) {cgc.depends_on = array<i64: 0>}
cgc.module {
  cgc.subgraph @c attributes {origin = "cpu"} {
    cgc.functional_definition private @c_functional(%x: !t) -> !t {
      %0 = cgc_op.reshape(%x) {shape = [16]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @copy(%x: !m, %y: !m) {
    cgc.invoke @c(%x, %y) : (!m, !m)
    cgc.return
  }
  cgc.program @input_in_scratch(%in: !m {cgc.scratch_offset = 0 : i64}, %x: !m, %out: !m, %scratch: !s) {
    %t = cgc.view_memref %scratch[0] : !s to !m
    cgc.invoke @copy(%in, %out) : (!m, !m)
    cgc.invoke @copy(%x, %t) : (!m, !m)
    cgc.return
  }
}

// -----

!t = !cgc.tensor<16x!cgc.float32>
!m = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<64x!cgc.int8>

// A bind point that no subgraph of the partition uses is no access.
// CHECK-LABEL: cgc.program @unused_bind_point(
// CHECK: cgc.invoke @copy(%{{.*}}) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @copy_ignoring(%{{.*}}) {cgc.depends_on = array<i64>}
cgc.module {
  cgc.subgraph @c attributes {origin = "cpu"} {
    cgc.functional_definition private @c_functional(%x: !t) -> !t {
      %0 = cgc_op.reshape(%x) {shape = [16]} : (!t) -> !t
      cgc.return %0 : !t
    }
  }
  cgc.partition @copy(%x: !m, %y: !m) {
    cgc.invoke @c(%x, %y) : (!m, !m)
    cgc.return
  }
  cgc.partition @copy_ignoring(%x: !m, %y: !m, %ignored: !m) {
    cgc.invoke @c(%x, %y) : (!m, !m)
    cgc.return
  }
  cgc.program @unused_bind_point(%in: !m, %out: !m, %scratch: !s) {
    %t = cgc.view_memref %scratch[0] : !s to !m
    cgc.invoke @copy(%in, %t) : (!m, !m)
    cgc.invoke @copy_ignoring(%in, %out, %t) : (!m, !m, !m)
    cgc.return
  }
}
