// Mixed sizes: values are placed largest first, each in the smallest gap
// that holds it among the values live at the same time.
//
// Lifetimes (steps of the one partition):   L1 [0,9]  256 bytes
//                                           S1 [1,5]  256 bytes
//                                           L2 [2,10] 128 bytes
//                                           S2 [3,6]   64 bytes
//                                           L3 [4,11]  64 bytes
//                                           V  [7,8]   64 bytes
// When V is placed, L1 [0,256), L2 [512,640) and L3 [704,768) are live with
// it: the free gaps are [256,512) (S1's bytes) and [640,704) (S2's). Best
// fit takes the 64-byte gap, keeping the 256-byte one whole; first fit would
// have split it.

// RUN: cgc-opt %s --cgc-plan-memory | FileCheck %s
// RUN: cgc-opt %s --cgc-plan-memory | cgc-opt --cgc-plan-memory | FileCheck %s

// CHECK-LABEL: cgc.program @main(
// CHECK-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<768x!cgc.int8>)
// CHECK-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 768 : i64, naive_bytes = 832 : i64, scratch_bytes = 768 : i64}
// CHECK-NEXT: %[[L1:.*]] = cgc.view_memref %[[SCRATCH]][0] : {{.*}} to !cgc.memref<64x!cgc.float32>
// CHECK-NEXT: %[[S1:.*]] = cgc.view_memref %[[SCRATCH]][256] : {{.*}} to !cgc.memref<64x!cgc.float32>
// CHECK-NEXT: %[[L2:.*]] = cgc.view_memref %[[SCRATCH]][512] : {{.*}} to !cgc.memref<32x!cgc.float32>
// CHECK-NEXT: %[[S2:.*]] = cgc.view_memref %[[SCRATCH]][640] : {{.*}} to !cgc.memref<16x!cgc.float32>
// CHECK-NEXT: %[[L3:.*]] = cgc.view_memref %[[SCRATCH]][704] : {{.*}} to !cgc.memref<16x!cgc.float32>
// CHECK-NEXT: %[[V:.*]] = cgc.view_memref %[[SCRATCH]][640] : {{.*}} to !cgc.memref<16x!cgc.float32>
// CHECK-NEXT: cgc.invoke @p({{.*}}, %[[L1]], %[[S1]], %[[L2]], %[[S2]], %[[L3]], %[[V]])

!t64 = !cgc.tensor<64x!cgc.float32>
!t32 = !cgc.tensor<32x!cgc.float32>
!t16 = !cgc.tensor<16x!cgc.float32>
!m64 = !cgc.memref<64x!cgc.float32>
!m32 = !cgc.memref<32x!cgc.float32>
!m16 = !cgc.memref<16x!cgc.float32>
!s = !cgc.memref<832x!cgc.int8>

cgc.module {
  // Not elementwise, so that nothing is in place.
  cgc.subgraph @copy64 attributes {origin = "cpu"} {
    cgc.functional_definition private @copy64_functional(%x: !t64) -> !t64 {
      %0 = cgc_op.reshape(%x) {shape = [64]} : (!t64) -> !t64
      cgc.return %0 : !t64
    }
  }
  cgc.subgraph @copy32 attributes {origin = "cpu"} {
    cgc.functional_definition private @copy32_functional(%x: !t32) -> !t32 {
      %0 = cgc_op.reshape(%x) {shape = [32]} : (!t32) -> !t32
      cgc.return %0 : !t32
    }
  }
  cgc.subgraph @copy16 attributes {origin = "cpu"} {
    cgc.functional_definition private @copy16_functional(%x: !t16) -> !t16 {
      %0 = cgc_op.reshape(%x) {shape = [16]} : (!t16) -> !t16
      cgc.return %0 : !t16
    }
  }
  cgc.partition @p(%in64: !m64, %in32: !m32, %in16: !m16,
                   %o1: !m64, %o2: !m16, %o3: !m16, %o4: !m64, %o5: !m32, %o6: !m16,
                   %l1: !m64, %s1: !m64, %l2: !m32, %s2: !m16, %l3: !m16, %v: !m16) {
    cgc.invoke @copy64(%in64, %l1) : (!m64, !m64)
    cgc.invoke @copy64(%in64, %s1) : (!m64, !m64)
    cgc.invoke @copy32(%in32, %l2) : (!m32, !m32)
    cgc.invoke @copy16(%in16, %s2) : (!m16, !m16)
    cgc.invoke @copy16(%in16, %l3) : (!m16, !m16)
    cgc.invoke @copy64(%s1, %o1) : (!m64, !m64)
    cgc.invoke @copy16(%s2, %o2) : (!m16, !m16)
    cgc.invoke @copy16(%in16, %v) : (!m16, !m16)
    cgc.invoke @copy16(%v, %o3) : (!m16, !m16)
    cgc.invoke @copy64(%l1, %o4) : (!m64, !m64)
    cgc.invoke @copy32(%l2, %o5) : (!m32, !m32)
    cgc.invoke @copy16(%l3, %o6) : (!m16, !m16)
    cgc.return
  }
  cgc.program @main(%in64: !m64, %in32: !m32, %in16: !m16,
                    %o1: !m64, %o2: !m16, %o3: !m16, %o4: !m64, %o5: !m32, %o6: !m16,
                    %scratch: !s) {
    %l1 = cgc.view_memref %scratch[0] : !s to !m64
    %s1 = cgc.view_memref %scratch[256] : !s to !m64
    %l2 = cgc.view_memref %scratch[512] : !s to !m32
    %s2 = cgc.view_memref %scratch[640] : !s to !m16
    %l3 = cgc.view_memref %scratch[704] : !s to !m16
    %v = cgc.view_memref %scratch[768] : !s to !m16
    cgc.invoke @p(%in64, %in32, %in16, %o1, %o2, %o3, %o4, %o5, %o6, %l1, %s1, %l2, %s2, %l3, %v)
        : (!m64, !m32, !m16, !m64, !m16, !m16, !m64, !m32, !m16, !m64, !m64, !m32, !m16, !m16, !m16)
    cgc.return
  }
}
