// cgc-partition on the spec's 7-layer network at the matched stage: two
// conv+relu+add calls of the driver target (one subgraph symbol) and the
// upsample of the fallback target (spec 000, "CGC Output IR").

// Per target: the spec's two partitions.
// RUN: cgc-opt %s --cgc-partition | FileCheck %s
// The result is valid CGC_OUTPUT: it seals into a container, reads back
// identically, and each partition isolates into valid Partition IR.
// RUN: cgc-opt %s --cgc-partition -o %t.printed.mlir
// RUN: cgc-opt %s --cgc-partition --emit-container=output -o %t.cgc
// RUN: cgc-opt %t.cgc -o %t.from-container.mlir
// RUN: diff %t.printed.mlir %t.from-container.mlir
// RUN: cgc-opt %t.cgc --cgc-isolate-partition=partition=partition_0 --emit-container=partition -o %t.driver.cgc
// RUN: cgc-opt %t.driver.cgc | FileCheck %s --check-prefix=ISOLATED
// Per subgraph: the spec's alternative with three partitions.
// RUN: cgc-opt %s --cgc-partition=mode=per-subgraph | FileCheck %s --check-prefix=PER-SUBGRAPH
// RUN: cgc-opt %s --cgc-partition=mode=per-subgraph --emit-container=output -o %t.per-subgraph.cgc
// A layer cap of 3 fits one conv+relu+add per partition:
// RUN: cgc-opt %s --cgc-partition=max-layers=3 | FileCheck %s --check-prefix=CAP
// RUN: cgc-opt %s --cgc-partition=max-layers=6 | FileCheck %s --check-prefix=NO-CAP
// The slot alignment is an option:
// RUN: cgc-opt %s --cgc-partition=alignment=256 | FileCheck %s --check-prefix=ALIGN

// Bind points of the driver partition, as in the spec: the input, the
// constants by first use, add2 (read by the fallback partition), then add1
// (lives only inside the partition).
// CHECK-LABEL: cgc.module {
// CHECK: cgc.subgraph @conv_relu_add_0 attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"}
// CHECK: cgc.subgraph @upsample_1 attributes {origin = "fallbackTarget"}
// CHECK: cgc.partition @partition_0(%[[IN:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[W1:[^:]*]]: !cgc.memref<constant 1x1x3x3x!cgc.float32>, %[[B1:[^:]*]]: !cgc.memref<constant 1x!cgc.float32>, %[[W2:[^:]*]]: !cgc.memref<constant 1x1x3x3x!cgc.float32>, %[[B2:[^:]*]]: !cgc.memref<constant 1x!cgc.float32>, %[[ADD2:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[ADD1:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @conv_relu_add_0(%[[IN]], %[[W1]], %[[B1]], %[[ADD1]])
// CHECK-NEXT: cgc.invoke @conv_relu_add_0(%[[ADD1]], %[[W2]], %[[B2]], %[[ADD2]])
// CHECK-NEXT: cgc.return
// CHECK: cgc.partition @partition_1(%[[X:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[OUT:[^:]*]]: !cgc.memref<1x1x8x8x!cgc.float32>) {
// CHECK-NEXT: cgc.invoke @upsample_1(%[[X]], %[[OUT]])
// CHECK-NEXT: cgc.return
// Constants by first use; add1 and add2 in their own 64-byte slots.
// CHECK: cgc.program @main(%[[PIN:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[POUT:[^:]*]]: !cgc.memref<1x1x8x8x!cgc.float32>, %[[S:[^:]*]]: !cgc.memref<128x!cgc.int8>) {
// CHECK-NEXT: %[[PW1:.*]] = cgc.constant("w1") : !cgc.memref<constant 1x1x3x3x!cgc.float32>
// CHECK-NEXT: %[[PB1:.*]] = cgc.constant("b1") : !cgc.memref<constant 1x!cgc.float32>
// CHECK-NEXT: %[[PW2:.*]] = cgc.constant("w2") : !cgc.memref<constant 1x1x3x3x!cgc.float32>
// CHECK-NEXT: %[[PB2:.*]] = cgc.constant("b2") : !cgc.memref<constant 1x!cgc.float32>
// CHECK-NEXT: %[[VADD1:.*]] = cgc.view_memref %[[S]][0] : !cgc.memref<128x!cgc.int8> to !cgc.memref<1x1x4x4x!cgc.float32>
// CHECK-NEXT: %[[VADD2:.*]] = cgc.view_memref %[[S]][64] : !cgc.memref<128x!cgc.int8> to !cgc.memref<1x1x4x4x!cgc.float32>
// CHECK-NEXT: cgc.invoke @partition_0(%[[PIN]], %[[PW1]], %[[PB1]], %[[PW2]], %[[PB2]], %[[VADD2]], %[[VADD1]])
// CHECK-NEXT: cgc.invoke @partition_1(%[[VADD2]], %[[POUT]])
// CHECK-NEXT: cgc.return
// CHECK-NOT: cgc.entry_point

// ISOLATED: cgc.subgraph @conv_relu_add_0
// ISOLATED-NOT: @upsample_1
// ISOLATED: cgc.partition @partition_0
// ISOLATED-NOT: cgc.program

// PER-SUBGRAPH-LABEL: cgc.module {
// PER-SUBGRAPH: cgc.partition @partition_0(%[[IN:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[W1:[^:]*]]: !cgc.memref<constant 1x1x3x3x!cgc.float32>, %[[B1:[^:]*]]: !cgc.memref<constant 1x!cgc.float32>, %[[ADD1:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>) {
// PER-SUBGRAPH-NEXT: cgc.invoke @conv_relu_add_0(%[[IN]], %[[W1]], %[[B1]], %[[ADD1]])
// PER-SUBGRAPH-NEXT: cgc.return
// PER-SUBGRAPH: cgc.partition @partition_1(%[[ADD1:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[W2:[^:]*]]: !cgc.memref<constant 1x1x3x3x!cgc.float32>, %[[B2:[^:]*]]: !cgc.memref<constant 1x!cgc.float32>, %[[ADD2:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>) {
// PER-SUBGRAPH-NEXT: cgc.invoke @conv_relu_add_0(%[[ADD1]], %[[W2]], %[[B2]], %[[ADD2]])
// PER-SUBGRAPH-NEXT: cgc.return
// PER-SUBGRAPH: cgc.partition @partition_2(%[[ADD2:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[OUT:[^:]*]]: !cgc.memref<1x1x8x8x!cgc.float32>) {
// PER-SUBGRAPH-NEXT: cgc.invoke @upsample_1(%[[ADD2]], %[[OUT]])
// PER-SUBGRAPH: cgc.program @main(%[[PIN:[^:]*]]: !cgc.memref<1x1x4x4x!cgc.float32>, %[[POUT:[^:]*]]: !cgc.memref<1x1x8x8x!cgc.float32>, %[[S:[^:]*]]: !cgc.memref<128x!cgc.int8>) {
// PER-SUBGRAPH-NEXT: %[[PW1:.*]] = cgc.constant("w1")
// PER-SUBGRAPH-NEXT: %[[PB1:.*]] = cgc.constant("b1")
// PER-SUBGRAPH-NEXT: %[[PW2:.*]] = cgc.constant("w2")
// PER-SUBGRAPH-NEXT: %[[PB2:.*]] = cgc.constant("b2")
// PER-SUBGRAPH-NEXT: %[[VADD1:.*]] = cgc.view_memref %[[S]][0]
// PER-SUBGRAPH-NEXT: %[[VADD2:.*]] = cgc.view_memref %[[S]][64]
// PER-SUBGRAPH-NEXT: cgc.invoke @partition_0(%[[PIN]], %[[PW1]], %[[PB1]], %[[VADD1]])
// PER-SUBGRAPH-NEXT: cgc.invoke @partition_1(%[[VADD1]], %[[PW2]], %[[PB2]], %[[VADD2]])
// PER-SUBGRAPH-NEXT: cgc.invoke @partition_2(%[[VADD2]], %[[POUT]])
// PER-SUBGRAPH-NEXT: cgc.return

// CAP-LABEL: cgc.module {
// CAP: cgc.partition @partition_0(
// CAP-NEXT: cgc.invoke @conv_relu_add_0(
// CAP-NEXT: cgc.return
// CAP: cgc.partition @partition_1(
// CAP-NEXT: cgc.invoke @conv_relu_add_0(
// CAP-NEXT: cgc.return
// CAP: cgc.partition @partition_2(
// CAP-NEXT: cgc.invoke @upsample_1(
// CAP: cgc.program @main(
// CAP-COUNT-3: cgc.invoke @partition_

// NO-CAP: cgc.partition @partition_0(
// NO-CAP-COUNT-2: cgc.invoke @conv_relu_add_0(
// NO-CAP-NEXT: cgc.return
// NO-CAP: cgc.partition @partition_1(
// NO-CAP-NOT: cgc.partition @partition_2

// ALIGN: cgc.program @main(%{{[^:]*}}: !cgc.memref<1x1x4x4x!cgc.float32>, %{{[^:]*}}: !cgc.memref<1x1x8x8x!cgc.float32>, %[[S:[^:]*]]: !cgc.memref<512x!cgc.int8>) {
// ALIGN: cgc.view_memref %[[S]][0] :
// ALIGN-NEXT: cgc.view_memref %[[S]][256] :

cgc.module {
  cgc.subgraph @conv_relu_add_0 attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"} {
    cgc.functional_definition private @conv_relu_add_0_functional(
        %in: !cgc.tensor<1x1x4x4x!cgc.float32>,
        %w: !cgc.tensor<constant 1x1x3x3x!cgc.float32>,
        %b: !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32> {
      %0 = cgc_op.convolution(%in, %w, %b) {start_padding = [1, 1], end_padding = [1, 1], strides = [1, 1], dilations = [1, 1], groups = 1 : i64}
          : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<constant 1x1x3x3x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
      %1 = cgc_op.relu(%0) : (!cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
      %2 = cgc_op.add(%1, %in) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
      cgc.return %2 : !cgc.tensor<1x1x4x4x!cgc.float32>
    }
  }
  cgc.subgraph @upsample_1 attributes {origin = "fallbackTarget"} {
    cgc.functional_definition private @upsample_1_functional(%x: !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x8x8x!cgc.float32> {
      %0 = cgc_op.upsample(%x) {mode = "nearest", scales = [1.0, 1.0, 2.0, 2.0]}
          : (!cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x8x8x!cgc.float32>
      cgc.return %0 : !cgc.tensor<1x1x8x8x!cgc.float32>
    }
  }
  cgc.entry_point @main(%in: !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x8x8x!cgc.float32> {
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 1x1x3x3x!cgc.float32>
    %b2 = cgc.constant("b2") : !cgc.tensor<constant 1x!cgc.float32>
    %w2 = cgc.constant("w2") : !cgc.tensor<constant 1x1x3x3x!cgc.float32>
    %b1 = cgc.constant("b1") : !cgc.tensor<constant 1x!cgc.float32>
    %add1 = cgc.call @conv_relu_add_0(%in, %w1, %b1)
        : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<constant 1x1x3x3x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %add2 = cgc.call @conv_relu_add_0(%add1, %w2, %b2)
        : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<constant 1x1x3x3x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    %up = cgc.call @upsample_1(%add2) : (!cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x8x8x!cgc.float32>
    cgc.return %up : !cgc.tensor<1x1x8x8x!cgc.float32>
  }
}
