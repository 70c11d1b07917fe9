// The spec's 7-layer network (spec 000, "CGC Output IR"), planned.

// Its written-out Output IR: add1 (written by the driver partition's first
// subgraph, read by its second) and add2 (written by the second, read by
// the fallback partition) are live together at the second subgraph, so they
// keep two slots; add1, produced first, takes offset 0. The fallback
// partition waits for the driver partition.
// RUN: cgc-opt %S/../Dialect/CGC/spec-output-ir.mlir --cgc-plan-memory --cgc-schedule | FileCheck %s --check-prefix=OUTPUT
// OUTPUT-LABEL: cgc.program @main(
// OUTPUT-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<128x!cgc.int8>)
// OUTPUT-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 128 : i64, naive_bytes = 128 : i64, scratch_bytes = 128 : i64}
// OUTPUT-SAME: cgc.schedule = {barriers = 1 : i64, dependencies = 1 : i64, global_barriers = 1 : i64, invocations = 2 : i64}
// OUTPUT: %[[ADD2:.*]] = cgc.view_memref %[[SCRATCH]][64] :
// OUTPUT-NEXT: %[[ADD1:.*]] = cgc.view_memref %[[SCRATCH]][0] :
// OUTPUT-NEXT: cgc.invoke @driverPartition({{.*}}, %[[ADD2]], %[[ADD1]]) {cgc.depends_on = array<i64>}
// OUTPUT-NEXT: cgc.invoke @fallbackPartition(%[[ADD2]], {{.*}}) {cgc.depends_on = array<i64: 0>}

// Its baseline lowering (one subgraph per layer, six intermediates in one
// partition): relu1 and add1 run in place over conv1, relu2 and add2 over
// conv2, so two slots hold all six (the lower bound).
// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-baseline-pipeline --cgc-plan-memory | FileCheck %s --check-prefix=BASELINE
// BASELINE-LABEL: cgc.program @main(
// BASELINE-SAME: %[[SCRATCH:[^:]*]]: !cgc.memref<128x!cgc.int8>)
// BASELINE-SAME: cgc.memory_plan = {in_place = 4 : i64, lower_bound_bytes = 128 : i64, naive_bytes = 384 : i64, scratch_bytes = 128 : i64}
// BASELINE: cgc.view_memref %[[SCRATCH]][0] :
// BASELINE-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// BASELINE-NEXT: cgc.view_memref %[[SCRATCH]][0] :
// BASELINE-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// BASELINE-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// BASELINE-NEXT: cgc.view_memref %[[SCRATCH]][64] :
// Without in-place: conv1 [0,2], relu1 [1,2], add1 [2,5], conv2 [3,4],
// relu2 [4,5], add2 [5,6]; at most three live at once.
// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-baseline-pipeline --cgc-plan-memory=in-place=false | FileCheck %s --check-prefix=NO-IN-PLACE
// NO-IN-PLACE-LABEL: cgc.program @main(
// NO-IN-PLACE-SAME: !cgc.memref<192x!cgc.int8>)
// NO-IN-PLACE-SAME: cgc.memory_plan = {in_place = 0 : i64, lower_bound_bytes = 192 : i64, naive_bytes = 384 : i64, scratch_bytes = 192 : i64}
