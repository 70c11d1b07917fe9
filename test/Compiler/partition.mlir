// cgc-partition: grouping calls into convex per-target partitions, bind
// points, the naive scratch plan, copies into outputs and names.

// RUN: cgc-opt %s --split-input-file --cgc-partition | FileCheck %s
// Per subgraph, every call and every copy is its own partition:
// RUN: cgc-opt %s --split-input-file --cgc-partition=mode=per-subgraph | FileCheck %s --check-prefix=PER-SUBGRAPH
// The copies' origin is the fallback-target option:
// RUN: cgc-opt %s --split-input-file --cgc-partition=fallback-target=gpu.fallback | FileCheck %s --check-prefix=FALLBACK

// Interleaved targets: A(t1) -> B(t2) -> C(t1). A and C may not share a
// partition (it would not be convex), so there are three.
cgc.module {
  cgc.subgraph @relu_t1 attributes {origin = "t1"} {
    cgc.functional_definition private @relu_t1_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.subgraph @relu_t2 attributes {origin = "t2"} {
    cgc.functional_definition private @relu_t2_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.entry_point @interleaved(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
    %a = cgc.call @relu_t1(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %b = cgc.call @relu_t2(%a) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %c = cgc.call @relu_t1(%b) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    cgc.return %c : !cgc.tensor<16x!cgc.float32>
  }
}
// CHECK-LABEL: cgc.module {
// CHECK: cgc.partition @partition_0(%[[X:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[A:[^:]*]]: !cgc.memref<16x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_t1(%[[X]], %[[A]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.partition @partition_1(%[[A:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[B:[^:]*]]: !cgc.memref<16x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_t2(%[[A]], %[[B]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.partition @partition_2(%[[B:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT:[^:]*]]: !cgc.memref<16x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_t1(%[[B]], %[[OUT]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.program @interleaved(%[[PX:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[POUT:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[S:[^:]*]]: !cgc.memref<128x!cgc.int8>) {
// CHECK-NEXT: %[[VA:.*]] = cgc.view_memref %[[S]][0] :
// CHECK-NEXT: %[[VB:.*]] = cgc.view_memref %[[S]][64] :
// CHECK-NEXT: cgc.invoke @partition_0(%[[PX]], %[[VA]])
// CHECK-NEXT: cgc.invoke @partition_1(%[[VA]], %[[VB]])
// CHECK-NEXT: cgc.invoke @partition_2(%[[VB]], %[[POUT]])
// CHECK-NEXT: cgc.return

// PER-SUBGRAPH-LABEL: cgc.program @interleaved(
// PER-SUBGRAPH-COUNT-3: cgc.invoke @partition_
// PER-SUBGRAPH-NEXT: cgc.return

// -----

// Independent branches: C(t1) does not depend on B(t2), so it joins A's
// partition; D(t2) joins B's. Two partitions where walking the calls in
// program order would give four.
cgc.module {
  cgc.subgraph @relu_t1 attributes {origin = "t1"} {
    cgc.functional_definition private @relu_t1_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.subgraph @relu_t2 attributes {origin = "t2"} {
    cgc.functional_definition private @relu_t2_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.subgraph @add_t2 attributes {origin = "t2"} {
    cgc.functional_definition private @add_t2_functional(%x: !cgc.tensor<16x!cgc.float32>, %y: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.add(%x, %y) : (!cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.entry_point @branches(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
    %a = cgc.call @relu_t1(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %b = cgc.call @relu_t2(%a) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %c = cgc.call @relu_t1(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    %d = cgc.call @add_t2(%b, %c) : (!cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    cgc.return %d : !cgc.tensor<16x!cgc.float32>
  }
}
// Bind points of the second partition: a and c flow in (production order),
// the output, then b, which lives only inside it.
// CHECK-LABEL: cgc.module {
// CHECK: cgc.partition @partition_0(%[[X:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[A:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[C:[^:]*]]: !cgc.memref<16x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_t1(%[[X]], %[[A]])
// CHECK-NEXT: cgc.invoke @relu_t1(%[[X]], %[[C]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.partition @partition_1(%[[A:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[C:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[B:[^:]*]]: !cgc.memref<16x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_t2(%[[A]], %[[B]])
// CHECK-NEXT: cgc.invoke @add_t2(%[[B]], %[[C]], %[[OUT]])
// CHECK-NEXT: cgc.return
// CHECK-NOT: cgc.partition
// Slots in production order: a, c (partition_0), then b.
// CHECK: cgc.program @branches(%[[PX:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[POUT:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[S:[^:]*]]: !cgc.memref<192x!cgc.int8>) {
// CHECK-NEXT: %[[VA:.*]] = cgc.view_memref %[[S]][0] :
// CHECK-NEXT: %[[VC:.*]] = cgc.view_memref %[[S]][64] :
// CHECK-NEXT: %[[VB:.*]] = cgc.view_memref %[[S]][128] :
// CHECK-NEXT: cgc.invoke @partition_0(%[[PX]], %[[VA]], %[[VC]])
// CHECK-NEXT: cgc.invoke @partition_1(%[[VA]], %[[VC]], %[[POUT]], %[[VB]])
// CHECK-NEXT: cgc.return

// PER-SUBGRAPH-LABEL: cgc.program @branches(
// PER-SUBGRAPH-COUNT-4: cgc.invoke @partition_
// PER-SUBGRAPH-NEXT: cgc.return

// -----

// Outputs that need copies: an input, a value returned twice, a constant.
// The last partition is t1's, so the copies open a partition of the fallback
// target at the end; the two copies of a float tensor share one symbol.
cgc.module {
  cgc.subgraph @relu_t1 attributes {origin = "t1"} {
    cgc.functional_definition private @relu_t1_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.entry_point @copies(%x: !cgc.tensor<16x!cgc.float32>) -> (!cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>, !cgc.tensor<constant 4x!cgc.int32>) {
    %w = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.int32>
    %a = cgc.call @relu_t1(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    cgc.return %a, %x, %a, %w : !cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>, !cgc.tensor<constant 4x!cgc.int32>
  }
}
// CHECK-LABEL: cgc.module {
// CHECK: cgc.subgraph @copy_0 attributes {origin = "fallback"} {
// CHECK-NEXT: cgc.functional_definition private @copy_0_functional(%[[V:[^:]*]]: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
// CHECK-NEXT: %[[COPY:.*]] = cgc_op.reshape(%[[V]]) {shape = [16]} : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
// CHECK-NEXT: cgc.return %[[COPY]]
// CHECK: cgc.subgraph @copy_1 attributes {origin = "fallback"} {
// CHECK-NEXT: cgc.functional_definition private @copy_1_functional(%{{[^:]*}}: !cgc.tensor<constant 4x!cgc.int32>) -> !cgc.tensor<4x!cgc.int32> {
// CHECK-NOT: cgc.subgraph
// CHECK: cgc.partition @partition_0(%[[X:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT0:[^:]*]]: !cgc.memref<16x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_t1(%[[X]], %[[OUT0]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.partition @partition_1(%[[X:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[W:[^:]*]]: !cgc.memref<constant 4x!cgc.int32>, %[[OUT0:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT1:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT2:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT3:[^:]*]]: !cgc.memref<4x!cgc.int32>) {
// CHECK-NEXT: cgc.invoke @copy_0(%[[X]], %[[OUT1]])
// CHECK-NEXT: cgc.invoke @copy_0(%[[OUT0]], %[[OUT2]])
// CHECK-NEXT: cgc.invoke @copy_1(%[[W]], %[[OUT3]])
// CHECK-NEXT: cgc.return
// The program's outputs are never constant.
// CHECK: cgc.program @copies(%[[PX:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[P0:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[P1:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[P2:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[P3:[^:]*]]: !cgc.memref<4x!cgc.int32>, %{{[^:]*}}: !cgc.memref<0x!cgc.int8>) {
// CHECK-NEXT: %[[PW:.*]] = cgc.constant("w") : !cgc.memref<constant 4x!cgc.int32>
// CHECK-NEXT: cgc.invoke @partition_0(%[[PX]], %[[P0]])
// CHECK-NEXT: cgc.invoke @partition_1(%[[PX]], %[[PW]], %[[P0]], %[[P1]], %[[P2]], %[[P3]])
// CHECK-NEXT: cgc.return

// PER-SUBGRAPH-LABEL: cgc.program @copies(
// PER-SUBGRAPH: cgc.invoke @partition_0(
// PER-SUBGRAPH-NEXT: cgc.invoke @partition_1(
// PER-SUBGRAPH-NEXT: cgc.invoke @partition_2(
// PER-SUBGRAPH-NEXT: cgc.invoke @partition_3(
// PER-SUBGRAPH-NEXT: cgc.return

// FALLBACK: cgc.subgraph @copy_0 attributes {origin = "gpu.fallback"}
// FALLBACK: cgc.subgraph @copy_1 attributes {origin = "gpu.fallback"}
// FALLBACK-LABEL: cgc.program @copies(

// -----

// When the last partition is the fallback target's, copies join it.
cgc.module {
  cgc.subgraph @relu_fallback attributes {origin = "fallback"} {
    cgc.functional_definition private @relu_fallback_functional(%x: !cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
      cgc.return %0 : !cgc.tensor<16x!cgc.float32>
    }
  }
  cgc.entry_point @join_fallback(%x: !cgc.tensor<16x!cgc.float32>) -> (!cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>) {
    %a = cgc.call @relu_fallback(%x) : (!cgc.tensor<16x!cgc.float32>) -> !cgc.tensor<16x!cgc.float32>
    cgc.return %a, %a : !cgc.tensor<16x!cgc.float32>, !cgc.tensor<16x!cgc.float32>
  }
}
// CHECK-LABEL: cgc.module {
// CHECK: cgc.partition @partition_0(%[[X:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT0:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[OUT1:[^:]*]]: !cgc.memref<16x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_fallback(%[[X]], %[[OUT0]])
// CHECK-NEXT: cgc.invoke @copy_0(%[[OUT0]], %[[OUT1]])
// CHECK-NEXT: cgc.return
// CHECK-NOT: cgc.partition
// CHECK: cgc.program @join_fallback(

// With another fallback target the copy is a partition of its own.
// FALLBACK: cgc.partition @partition_0(
// FALLBACK-NEXT: cgc.invoke @relu_fallback(
// FALLBACK-NEXT: cgc.return
// FALLBACK: cgc.partition @partition_1(
// FALLBACK-NEXT: cgc.invoke @copy_0(
// FALLBACK-LABEL: cgc.program @join_fallback(

// -----

// Only copies: one fallback partition; a program without intermediates
// still takes an (empty) scratch buffer.
cgc.module {
  cgc.entry_point @only_copies(%x: !cgc.tensor<2x3x!cgc.float32>) -> !cgc.tensor<2x3x!cgc.float32> {
    cgc.return %x : !cgc.tensor<2x3x!cgc.float32>
  }
}
// CHECK-LABEL: cgc.module {
// CHECK: cgc.subgraph @copy_0 attributes {origin = "fallback"} {
// CHECK: cgc_op.reshape(%{{.*}}) {shape = [2, 3]} : (!cgc.tensor<2x3x!cgc.float32>) -> !cgc.tensor<2x3x!cgc.float32>
// CHECK: cgc.partition @partition_0(%[[IN:[^:]*]]: !cgc.memref<2x3x!cgc.float32>, %[[OUT:[^:]*]]: !cgc.memref<2x3x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @copy_0(%[[IN]], %[[OUT]])
// CHECK: cgc.program @only_copies(
// CHECK-SAME: %{{[^:]*}}: !cgc.memref<0x!cgc.int8>)

// -----

// Names from the entry point (cgc.name) stay on the program's arguments. A
// dead call is dropped and the subgraph only it called is erased. An output
// that a later partition reads is read from the output itself. A call result
// nobody reads still gets a scratch slot: the subgraph writes it.
cgc.module {
  cgc.subgraph @split_t1 attributes {origin = "t1"} {
    cgc.functional_definition private @split_t1_functional(%x: !cgc.tensor<16x!cgc.float32>) -> (!cgc.tensor<8x!cgc.float32>, !cgc.tensor<8x!cgc.float32>) {
      %0:2 = cgc_op.split(%x) {axis = 0 : i64, sizes = [8, 8]} : (!cgc.tensor<16x!cgc.float32>) -> (!cgc.tensor<8x!cgc.float32>, !cgc.tensor<8x!cgc.float32>)
      cgc.return %0#0, %0#1 : !cgc.tensor<8x!cgc.float32>, !cgc.tensor<8x!cgc.float32>
    }
  }
  cgc.subgraph @relu_t2 attributes {origin = "t2"} {
    cgc.functional_definition private @relu_t2_functional(%x: !cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32>
      cgc.return %0 : !cgc.tensor<8x!cgc.float32>
    }
  }
  cgc.subgraph @dead_t1 attributes {origin = "t1"} {
    cgc.functional_definition private @dead_t1_functional(%x: !cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32>
      cgc.return %0 : !cgc.tensor<8x!cgc.float32>
    }
  }
  cgc.entry_point @named(%x: !cgc.tensor<16x!cgc.float32> {cgc.name = "image"}, %unused: !cgc.tensor<3x!cgc.int8> {cgc.name = "ignored"})
      -> (!cgc.tensor<8x!cgc.float32> {cgc.name = "half"}, !cgc.tensor<8x!cgc.float32> {cgc.name = "activated"}) {
    %lo, %hi = cgc.call @split_t1(%x) : (!cgc.tensor<16x!cgc.float32>) -> (!cgc.tensor<8x!cgc.float32>, !cgc.tensor<8x!cgc.float32>)
    %dead = cgc.call @dead_t1(%lo) : (!cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32>
    %r = cgc.call @relu_t2(%lo) : (!cgc.tensor<8x!cgc.float32>) -> !cgc.tensor<8x!cgc.float32>
    cgc.return %lo, %r : !cgc.tensor<8x!cgc.float32>, !cgc.tensor<8x!cgc.float32>
  }
}
// CHECK-LABEL: cgc.module {
// CHECK-NOT: @dead_t1
// CHECK: cgc.partition @partition_0(%[[X:[^:]*]]: !cgc.memref<16x!cgc.float32>, %[[LO:[^:]*]]: !cgc.memref<8x!cgc.float32>, %[[HI:[^:]*]]: !cgc.memref<8x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @split_t1(%[[X]], %[[LO]], %[[HI]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.partition @partition_1(%[[LO:[^:]*]]: !cgc.memref<8x!cgc.float32>, %[[R:[^:]*]]: !cgc.memref<8x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @relu_t2(%[[LO]], %[[R]])
// CHECK-NOT: @dead_t1
// CHECK: cgc.program @named(%[[PX:[^:]*]]: !cgc.memref<16x!cgc.float32> {cgc.name = "image"}, %{{[^:]*}}: !cgc.memref<3x!cgc.int8> {cgc.name = "ignored"}, %[[HALF:[^:]*]]: !cgc.memref<8x!cgc.float32> {cgc.name = "half"}, %[[ACT:[^:]*]]: !cgc.memref<8x!cgc.float32> {cgc.name = "activated"}, %[[S:[^:]*]]: !cgc.memref<64x!cgc.int8>) {
// CHECK-NEXT: %[[VHI:.*]] = cgc.view_memref %[[S]][0] : !cgc.memref<64x!cgc.int8> to !cgc.memref<8x!cgc.float32>
// CHECK-NEXT: cgc.invoke @partition_0(%[[PX]], %[[HALF]], %[[VHI]])
// CHECK-NEXT: cgc.invoke @partition_1(%[[HALF]], %[[ACT]])
// CHECK-NEXT: cgc.return
