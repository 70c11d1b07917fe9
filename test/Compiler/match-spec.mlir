// cgc-match-subgraphs on the spec's 7-layer network (spec 000, "CGC Output
// IR"): a driver target that fuses conv -> relu -> add(relu, x) takes both
// residual blocks as calls of one subgraph; upsample falls back.

// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=driverTarget=%S/Inputs/match-conv-relu-add.mlir fallback-target=fallbackTarget" | FileCheck %s
// Without deduplication each call has its own symbol:
// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=driverTarget=%S/Inputs/match-conv-relu-add.mlir fallback-target=fallbackTarget deduplicate=false" | FileCheck %s --check-prefix=NODEDUP
// The CPU driver's own declaration (conv, optional bias, elementwise epilogue)
// takes the same two blocks, the residual add as a chain layer:
// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=cpu=%S/../../drivers/cpu/Patterns.mlir fallback-target=cpu.fallback" | FileCheck %s --check-prefix=CPU
// No declarations: every layer falls back, one subgraph per layer; the two
// blocks' layers are identical (same types and attributes), so each kind of
// layer is one symbol, called twice.
// RUN: cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: cgc.module {
// CHECK-NEXT: cgc.subgraph @conv_relu_add_0 attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"} {
// CHECK-NEXT: cgc.functional_definition private @conv_relu_add_0_functional(%[[X:.*]]: !cgc.tensor<1x1x4x4x!cgc.float32>, %[[W:.*]]: !cgc.tensor<constant 1x1x3x3x!cgc.float32>, %[[B:.*]]: !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32> {
// CHECK-NEXT: %[[CONV:.*]] = cgc_op.convolution(%[[X]], %[[W]], %[[B]])
// CHECK-SAME: start_padding = [1, 1]
// CHECK-NEXT: %[[RELU:.*]] = cgc_op.relu(%[[CONV]])
// CHECK-NEXT: %[[ADD:.*]] = cgc_op.add(%[[RELU]], %[[X]])
// CHECK-NEXT: cgc.return %[[ADD]] : !cgc.tensor<1x1x4x4x!cgc.float32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: cgc.subgraph @upsample_2 attributes {origin = "fallbackTarget"} {
// CHECK-NEXT: cgc.functional_definition private @upsample_2_functional(%[[UIN:.*]]: !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x8x8x!cgc.float32> {
// CHECK-NEXT: %[[UP:.*]] = cgc_op.upsample(%[[UIN]])
// CHECK-NEXT: cgc.return %[[UP]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: cgc.entry_point @main(%[[IN:.*]]: !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x8x8x!cgc.float32> {
// CHECK-DAG: %[[W1:.*]] = cgc.constant("w1")
// CHECK-DAG: %[[B1:.*]] = cgc.constant("b1")
// CHECK-DAG: %[[W2:.*]] = cgc.constant("w2")
// CHECK-DAG: %[[B2:.*]] = cgc.constant("b2")
// CHECK: %[[BLOCK1:.*]] = cgc.call @conv_relu_add_0(%[[IN]], %[[W1]], %[[B1]]) : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<constant 1x1x3x3x!cgc.float32>, !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
// CHECK-NEXT: %[[BLOCK2:.*]] = cgc.call @conv_relu_add_0(%[[BLOCK1]], %[[W2]], %[[B2]])
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @upsample_2(%[[BLOCK2]]) : (!cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x8x8x!cgc.float32>
// CHECK-NEXT: cgc.return %[[OUT]]
// CHECK-NOT: cgc_op.
// CHECK-NOT: cgc.subgraph

// NODEDUP: cgc.subgraph @conv_relu_add_0 attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"}
// NODEDUP: cgc.subgraph @conv_relu_add_1 attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"}
// NODEDUP: cgc.subgraph @upsample_2
// NODEDUP: cgc.call @conv_relu_add_0(
// NODEDUP-NEXT: cgc.call @conv_relu_add_1(
// NODEDUP-NEXT: cgc.call @upsample_2(

// CPU: cgc.subgraph @conv_bias_epilogue_0 attributes {cgc.pattern = "conv_bias_epilogue", origin = "cpu"} {
// CPU-NEXT: cgc.functional_definition private @conv_bias_epilogue_0_functional(%[[X:.*]]: !cgc.tensor<1x1x4x4x!cgc.float32>, %[[W:.*]]: !cgc.tensor<constant 1x1x3x3x!cgc.float32>, %[[B:.*]]: !cgc.tensor<constant 1x!cgc.float32>)
// CPU-NEXT: %[[CONV:.*]] = cgc_op.convolution(%[[X]], %[[W]], %[[B]])
// CPU-NEXT: %[[RELU:.*]] = cgc_op.relu(%[[CONV]])
// CPU-NEXT: %[[ADD:.*]] = cgc_op.add(%[[RELU]], %[[X]])
// CPU-NEXT: cgc.return %[[ADD]]
// CPU: cgc.subgraph @upsample_2 attributes {origin = "cpu.fallback"}
// CPU: cgc.call @conv_bias_epilogue_0(
// CPU-NEXT: cgc.call @conv_bias_epilogue_0(
// CPU-NEXT: cgc.call @upsample_2(

// NONE: cgc.subgraph @convolution_0 attributes {origin = "fallback"}
// NONE-NEXT: cgc.functional_definition private @convolution_0_functional(
// NONE: cgc.subgraph @relu_1 attributes {origin = "fallback"}
// NONE: cgc.subgraph @add_2 attributes {origin = "fallback"}
// NONE-NOT: cgc.subgraph @convolution_3
// NONE-NOT: cgc.subgraph @relu_4
// NONE-NOT: cgc.subgraph @add_5
// NONE: cgc.subgraph @upsample_6 attributes {origin = "fallback"}
// NONE: cgc.call @convolution_0(
// NONE-NEXT: cgc.call @relu_1(
// NONE-NEXT: cgc.call @add_2(
// NONE-NEXT: cgc.call @convolution_0(
// NONE-NEXT: cgc.call @relu_1(
// NONE-NEXT: cgc.call @add_2(
// NONE-NEXT: cgc.call @upsample_6(
