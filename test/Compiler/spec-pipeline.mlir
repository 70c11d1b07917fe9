// The spec's 7-layer network through the whole compiler, stage by stage, with
// a driver target declaring convolution -> relu -> add (spec 000, "CGC Output
// IR"): two conv+relu+add invocations of one driver subgraph in one driver
// partition, the upsample in a fallback partition, and a program that binds
// the constants, views the scratch buffer and invokes both partitions.
//
// The spec's listing binds 6 operands to the driver partition's 7 bind points
// and a 64-byte scratch; here add1 (between the two conv+relu+add) and add2
// (between the partitions) are both intermediates that are live at once, so
// scratch holds 128 bytes, which is also the plan's lower bound.

// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir \
// RUN:   --cgc-match-subgraphs="declarations=driverTarget=%S/Inputs/match-conv-relu-add.mlir fallback-target=fallbackTarget" \
// RUN:   --cgc-partition="fallback-target=fallbackTarget" --cgc-plan-memory --cgc-schedule \
// RUN:   | FileCheck %s

// The result is valid CGC_OUTPUT and each partition isolates as the driver sees it:
// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir \
// RUN:   --cgc-match-subgraphs="declarations=driverTarget=%S/Inputs/match-conv-relu-add.mlir fallback-target=fallbackTarget" \
// RUN:   --cgc-partition="fallback-target=fallbackTarget" --cgc-plan-memory --cgc-schedule \
// RUN:   --emit-container=output -o %t.cgc
// RUN: cgc-opt %t.cgc --cgc-isolate-partition=partition=partition_0 | FileCheck %s --check-prefix=ISOLATED

// The spec's alternative: one partition per subgraph (three partitions, a
// dependency chain driverPartition1 -> driverPartition2 -> fallbackPartition).
// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir \
// RUN:   --cgc-match-subgraphs="declarations=driverTarget=%S/Inputs/match-conv-relu-add.mlir fallback-target=fallbackTarget" \
// RUN:   --cgc-partition="mode=per-subgraph fallback-target=fallbackTarget" --cgc-plan-memory --cgc-schedule \
// RUN:   | FileCheck %s --check-prefix=PER-SUBGRAPH

// CHECK-LABEL: cgc.module {
// CHECK: cgc.subgraph @[[CRA:conv_relu_add_0]] attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"} {
// CHECK: cgc.functional_definition private @conv_relu_add_0_functional(%{{.*}}: !cgc.tensor<1x1x4x4x!cgc.float32>, %{{.*}}: !cgc.tensor<constant 1x1x3x3x!cgc.float32>, %{{.*}}: !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
// CHECK-NEXT: cgc_op.convolution
// CHECK-NEXT: cgc_op.relu
// CHECK-NEXT: cgc_op.add
// CHECK-NEXT: cgc.return
// CHECK: cgc.subgraph @[[UP:upsample_[0-9]+]] attributes {origin = "fallbackTarget"} {
// CHECK-NEXT: cgc.functional_definition
// CHECK-NEXT: cgc_op.upsample
// CHECK-NOT: cgc.subgraph
// CHECK: cgc.partition @[[DRIVER:partition_0]](%[[IN:.*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[W1:.*]]: !cgc.memref<constant 1x1x3x3x!cgc.float32>, %[[B1:.*]]: !cgc.memref<constant 1x!cgc.float32>, %[[W2:.*]]: !cgc.memref<constant 1x1x3x3x!cgc.float32>, %[[B2:.*]]: !cgc.memref<constant 1x!cgc.float32>, %[[OUT:.*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[SCRATCH:.*]]: !cgc.memref<1x1x4x4x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @[[CRA]](%[[IN]], %[[W1]], %[[B1]], %[[SCRATCH]])
// CHECK-NEXT: cgc.invoke @[[CRA]](%[[SCRATCH]], %[[W2]], %[[B2]], %[[OUT]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.partition @[[FALLBACK:partition_1]](%[[FIN:.*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[FOUT:.*]]: !cgc.memref<1x1x8x8x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @[[UP]](%[[FIN]], %[[FOUT]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.program @main(%[[PIN:.*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[POUT:.*]]: !cgc.memref<1x1x8x8x!cgc.float32>, %[[PSCRATCH:.*]]: !cgc.memref<128x!cgc.int8>)
// CHECK-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 128 : i64, naive_bytes = 128 : i64, scratch_bytes = 128 : i64}
// CHECK-SAME: cgc.schedule = {barriers = 1 : i64, dependencies = 1 : i64, global_barriers = 1 : i64, invocations = 2 : i64}
// CHECK-DAG: %[[PW1:.*]] = cgc.constant("w1")
// CHECK-DAG: %[[PB1:.*]] = cgc.constant("b1")
// CHECK-DAG: %[[PW2:.*]] = cgc.constant("w2")
// CHECK-DAG: %[[PB2:.*]] = cgc.constant("b2")
// CHECK-DAG: %[[ADD1:.*]] = cgc.view_memref %[[PSCRATCH]][0] : !cgc.memref<128x!cgc.int8> to !cgc.memref<1x1x4x4x!cgc.float32>
// CHECK-DAG: %[[ADD2:.*]] = cgc.view_memref %[[PSCRATCH]][64] : !cgc.memref<128x!cgc.int8> to !cgc.memref<1x1x4x4x!cgc.float32>
// CHECK: cgc.invoke @[[DRIVER]](%[[PIN]], %[[PW1]], %[[PB1]], %[[PW2]], %[[PB2]], %[[ADD2]], %[[ADD1]]) {cgc.depends_on = array<i64>}
// CHECK-NEXT: cgc.invoke @[[FALLBACK]](%[[ADD2]], %[[POUT]]) {cgc.depends_on = array<i64: 0>}
// CHECK-NEXT: cgc.return

// ISOLATED: cgc.module {
// ISOLATED-NEXT: cgc.subgraph @conv_relu_add_0 attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"}
// ISOLATED-NOT: upsample
// ISOLATED: cgc.partition @partition_0(
// ISOLATED-NOT: cgc.program

// PER-SUBGRAPH: cgc.partition @[[P0:partition_0]](
// PER-SUBGRAPH-NEXT: cgc.invoke @conv_relu_add_0(
// PER-SUBGRAPH-NEXT: cgc.return
// PER-SUBGRAPH: cgc.partition @[[P1:partition_1]](
// PER-SUBGRAPH-NEXT: cgc.invoke @conv_relu_add_0(
// PER-SUBGRAPH-NEXT: cgc.return
// PER-SUBGRAPH: cgc.partition @[[P2:partition_2]](
// PER-SUBGRAPH-NEXT: cgc.invoke @upsample_{{[0-9]+}}(
// PER-SUBGRAPH-NEXT: cgc.return
// PER-SUBGRAPH: cgc.program @main(
// PER-SUBGRAPH-SAME: cgc.schedule = {barriers = 2 : i64, dependencies = 2 : i64, global_barriers = 2 : i64, invocations = 3 : i64}
// PER-SUBGRAPH: cgc.invoke @[[P0]]({{.*}}) {cgc.depends_on = array<i64>}
// PER-SUBGRAPH-NEXT: cgc.invoke @[[P1]]({{.*}}) {cgc.depends_on = array<i64: 0>}
// PER-SUBGRAPH-NEXT: cgc.invoke @[[P2]]({{.*}}) {cgc.depends_on = array<i64: 1>}
