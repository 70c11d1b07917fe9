// The CUDA driver's convolution pair patterns (drivers/cuda/patterns/
// convolution-pair.mlir) over ResNet bottleneck joins in the compiler's
// channels-last form: the block's last pointwise convolution, its residual
// add and relu (Y), and the next pointwise convolution of Y with its relu
// (Z) become one subgraph returning Z, then Y; the downsampling
// convolution after them reads Y from the call's second result.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=cuda=%S/../../drivers/cuda/patterns/convolution.mlir,cuda_pair=%S/../../drivers/cuda/patterns/convolution-pair.mlir fallback-target=cuda.fallback" | FileCheck %s

// A residual that is a pointwise convolution of the block's input (a
// projection): conv_nhwc_pair_projection takes it too, its convolution
// first in the definition, the add reading it second.
// CHECK-LABEL: cgc.subgraph @conv_nhwc_pair_projection_1 attributes {cgc.pattern = "conv_nhwc_pair_projection", origin = "cuda_pair"} {
// CHECK-NEXT: cgc.functional_definition private @conv_nhwc_pair_projection_1_functional({{.*}}) -> (!cgc.tensor<2x4x4x64x!cgc.float16>, !cgc.tensor<2x4x4x256x!cgc.float16>) {
// CHECK: %[[P:.*]] = cgc_op.convolution
// CHECK-NEXT: %[[PT:.*]] = cgc_op.transpose(%[[P]]) {permutation = [0, 2, 3, 1]}
// CHECK: %[[C1:.*]] = cgc_op.convolution
// CHECK-NEXT: %[[C1T:.*]] = cgc_op.transpose(%[[C1]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[ADD:.*]] = cgc_op.add(%[[C1T]], %[[PT]])
// CHECK-NEXT: %[[Y:.*]] = cgc_op.relu(%[[ADD]])
// CHECK-NEXT: %[[YT:.*]] = cgc_op.transpose(%[[Y]]) {permutation = [0, 3, 1, 2]}
// CHECK-NEXT: %[[WT:.*]] = cgc_op.transpose
// CHECK-NEXT: %[[C2:.*]] = cgc_op.convolution(%[[YT]], %[[WT]],
// CHECK-NEXT: %[[T:.*]] = cgc_op.transpose(%[[C2]]) {permutation = [0, 2, 3, 1]}
// CHECK-NEXT: %[[Z:.*]] = cgc_op.relu(%[[T]])
// CHECK-NEXT: cgc.return %[[Z]], %[[Y]]
// CHECK-LABEL: cgc.entry_point @join(
// CHECK: %[[PAIR:.*]]:2 = cgc.call @conv_nhwc_pair_projection_1(
// CHECK-NEXT: cgc.call @transpose_2(%[[PAIR]]#0)
// CHECK-NEXT: cgc.call @conv_nhwc_bias_activation_3(%[[PAIR]]#1,
cgc.module {
  cgc.entry_point @join(%arg0: !cgc.tensor<2x64x4x4x!cgc.float16> {cgc.name = "x"}) -> (!cgc.tensor<2x64x4x4x!cgc.float16> {cgc.name = "z"}, !cgc.tensor<2x512x2x2x!cgc.float16> {cgc.name = "d"}) {
    %0 = cgc.constant("w3") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 256x1x1x64x!cgc.float16>
    %1 = cgc.constant("b3") : !cgc.tensor<constant 256x!cgc.float16>
    %2 = cgc.constant("w1") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x1x1x256x!cgc.float16>
    %3 = cgc.constant("b1") : !cgc.tensor<constant 64x!cgc.float16>
    %4 = cgc.constant("wd") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 512x1x1x256x!cgc.float16>
    %5 = cgc.constant("wr") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 256x1x1x64x!cgc.float16>
    %6 = cgc_op.transpose(%arg0) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x64x!cgc.float16>
    %7 = cgc_op.transpose(%6) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float16>) -> !cgc.tensor<2x64x4x4x!cgc.float16>
    %8 = cgc_op.transpose(%5) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 256x1x1x64x!cgc.float16>) -> !cgc.tensor<256x64x1x1x!cgc.float16>
    %9 = cgc_op.convolution(%7, %8) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float16>, !cgc.tensor<256x64x1x1x!cgc.float16>) -> !cgc.tensor<2x256x4x4x!cgc.float16>
    %10 = cgc_op.transpose(%9) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %11 = cgc_op.transpose(%6) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float16>) -> !cgc.tensor<2x64x4x4x!cgc.float16>
    %12 = cgc_op.transpose(%0) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 256x1x1x64x!cgc.float16>) -> !cgc.tensor<256x64x1x1x!cgc.float16>
    %13 = cgc_op.convolution(%11, %12, %1) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float16>, !cgc.tensor<256x64x1x1x!cgc.float16>, !cgc.tensor<constant 256x!cgc.float16>) -> !cgc.tensor<2x256x4x4x!cgc.float16>
    %14 = cgc_op.transpose(%13) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %15 = cgc_op.add(%14, %10) : (!cgc.tensor<2x4x4x256x!cgc.float16>, !cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %16 = cgc_op.relu(%15) : (!cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %17 = cgc_op.transpose(%16) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x256x4x4x!cgc.float16>
    %18 = cgc_op.transpose(%2) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 64x1x1x256x!cgc.float16>) -> !cgc.tensor<64x256x1x1x!cgc.float16>
    %19 = cgc_op.convolution(%17, %18, %3) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float16>, !cgc.tensor<64x256x1x1x!cgc.float16>, !cgc.tensor<constant 64x!cgc.float16>) -> !cgc.tensor<2x64x4x4x!cgc.float16>
    %20 = cgc_op.transpose(%19) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x64x!cgc.float16>
    %21 = cgc_op.relu(%20) : (!cgc.tensor<2x4x4x64x!cgc.float16>) -> !cgc.tensor<2x4x4x64x!cgc.float16>
    %22 = cgc_op.transpose(%21) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float16>) -> !cgc.tensor<2x64x4x4x!cgc.float16>
    %23 = cgc_op.transpose(%16) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x256x4x4x!cgc.float16>
    %24 = cgc_op.transpose(%4) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 512x1x1x256x!cgc.float16>) -> !cgc.tensor<512x256x1x1x!cgc.float16>
    %25 = cgc_op.convolution(%23, %24) {end_padding = [0, 0], start_padding = [0, 0], strides = [2, 2]} : (!cgc.tensor<2x256x4x4x!cgc.float16>, !cgc.tensor<512x256x1x1x!cgc.float16>) -> !cgc.tensor<2x512x2x2x!cgc.float16>
    %26 = cgc_op.transpose(%25) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x512x2x2x!cgc.float16>) -> !cgc.tensor<2x2x2x512x!cgc.float16>
    %27 = cgc_op.transpose(%26) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x2x2x512x!cgc.float16>) -> !cgc.tensor<2x512x2x2x!cgc.float16>
    cgc.return %22, %27 : !cgc.tensor<2x64x4x4x!cgc.float16>, !cgc.tensor<2x512x2x2x!cgc.float16>
  }
}



// -----

// An identity residual (an argument of Y's shape): conv_nhwc_pair.
// CHECK-LABEL: cgc.subgraph @conv_nhwc_pair_{{[0-9]+}} attributes {cgc.pattern = "conv_nhwc_pair", origin = "cuda_pair"} {
// CHECK: %[[C1:.*]] = cgc_op.convolution
// CHECK: %[[ADD:.*]] = cgc_op.add
// CHECK-NEXT: %[[Y:.*]] = cgc_op.relu(%[[ADD]])
// CHECK: cgc.return %{{.*}}, %[[Y]]
// CHECK-LABEL: cgc.entry_point @identity_join(
// CHECK: %[[PAIR:.*]]:2 = cgc.call @conv_nhwc_pair_{{[0-9]+}}(
// CHECK: cgc.call @conv_nhwc_bias_activation_{{[0-9]+}}(%[[PAIR]]#1,
cgc.module {
  cgc.entry_point @identity_join(%arg0: !cgc.tensor<2x64x4x4x!cgc.float16> {cgc.name = "x"}, %arg1: !cgc.tensor<2x256x4x4x!cgc.float16> {cgc.name = "r"}) -> (!cgc.tensor<2x64x4x4x!cgc.float16> {cgc.name = "z"}, !cgc.tensor<2x512x2x2x!cgc.float16> {cgc.name = "d"}) {
    %0 = cgc.constant("w3") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 256x1x1x64x!cgc.float16>
    %1 = cgc.constant("b3") : !cgc.tensor<constant 256x!cgc.float16>
    %2 = cgc.constant("w1") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x1x1x256x!cgc.float16>
    %3 = cgc.constant("b1") : !cgc.tensor<constant 64x!cgc.float16>
    %4 = cgc.constant("wd") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 512x1x1x256x!cgc.float16>
    %6 = cgc_op.transpose(%arg0) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x64x!cgc.float16>
    %10 = cgc_op.transpose(%arg1) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %11 = cgc_op.transpose(%6) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float16>) -> !cgc.tensor<2x64x4x4x!cgc.float16>
    %12 = cgc_op.transpose(%0) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 256x1x1x64x!cgc.float16>) -> !cgc.tensor<256x64x1x1x!cgc.float16>
    %13 = cgc_op.convolution(%11, %12, %1) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float16>, !cgc.tensor<256x64x1x1x!cgc.float16>, !cgc.tensor<constant 256x!cgc.float16>) -> !cgc.tensor<2x256x4x4x!cgc.float16>
    %14 = cgc_op.transpose(%13) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %15 = cgc_op.add(%14, %10) : (!cgc.tensor<2x4x4x256x!cgc.float16>, !cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %16 = cgc_op.relu(%15) : (!cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x4x4x256x!cgc.float16>
    %17 = cgc_op.transpose(%16) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x256x4x4x!cgc.float16>
    %18 = cgc_op.transpose(%2) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 64x1x1x256x!cgc.float16>) -> !cgc.tensor<64x256x1x1x!cgc.float16>
    %19 = cgc_op.convolution(%17, %18, %3) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float16>, !cgc.tensor<64x256x1x1x!cgc.float16>, !cgc.tensor<constant 64x!cgc.float16>) -> !cgc.tensor<2x64x4x4x!cgc.float16>
    %20 = cgc_op.transpose(%19) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float16>) -> !cgc.tensor<2x4x4x64x!cgc.float16>
    %21 = cgc_op.relu(%20) : (!cgc.tensor<2x4x4x64x!cgc.float16>) -> !cgc.tensor<2x4x4x64x!cgc.float16>
    %22 = cgc_op.transpose(%21) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float16>) -> !cgc.tensor<2x64x4x4x!cgc.float16>
    %23 = cgc_op.transpose(%16) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x256x!cgc.float16>) -> !cgc.tensor<2x256x4x4x!cgc.float16>
    %24 = cgc_op.transpose(%4) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 512x1x1x256x!cgc.float16>) -> !cgc.tensor<512x256x1x1x!cgc.float16>
    %25 = cgc_op.convolution(%23, %24) {end_padding = [0, 0], start_padding = [0, 0], strides = [2, 2]} : (!cgc.tensor<2x256x4x4x!cgc.float16>, !cgc.tensor<512x256x1x1x!cgc.float16>) -> !cgc.tensor<2x512x2x2x!cgc.float16>
    %26 = cgc_op.transpose(%25) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x512x2x2x!cgc.float16>) -> !cgc.tensor<2x2x2x512x!cgc.float16>
    %27 = cgc_op.transpose(%26) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x2x2x512x!cgc.float16>) -> !cgc.tensor<2x512x2x2x!cgc.float16>
    cgc.return %22, %27 : !cgc.tensor<2x64x4x4x!cgc.float16>, !cgc.tensor<2x512x2x2x!cgc.float16>
  }
}


// -----

// In float32 the pattern does not apply (the kernel's tensor cores take
// float16 and bfloat16): each convolution is matched alone.
// CHECK-LABEL: cgc.entry_point @float32_join(
// CHECK-NOT: conv_nhwc_pair
// CHECK: cgc.return
cgc.module {
  cgc.entry_point @float32_join(%arg0: !cgc.tensor<2x64x4x4x!cgc.float32> {cgc.name = "x"}) -> (!cgc.tensor<2x64x4x4x!cgc.float32> {cgc.name = "z"}, !cgc.tensor<2x512x2x2x!cgc.float32> {cgc.name = "d"}) {
    %0 = cgc.constant("w3") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 256x1x1x64x!cgc.float32>
    %1 = cgc.constant("b3") : !cgc.tensor<constant 256x!cgc.float32>
    %2 = cgc.constant("w1") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x1x1x256x!cgc.float32>
    %3 = cgc.constant("b1") : !cgc.tensor<constant 64x!cgc.float32>
    %4 = cgc.constant("wd") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 512x1x1x256x!cgc.float32>
    %5 = cgc.constant("wr") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 256x1x1x64x!cgc.float32>
    %6 = cgc_op.transpose(%arg0) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float32>) -> !cgc.tensor<2x4x4x64x!cgc.float32>
    %7 = cgc_op.transpose(%6) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float32>) -> !cgc.tensor<2x64x4x4x!cgc.float32>
    %8 = cgc_op.transpose(%5) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 256x1x1x64x!cgc.float32>) -> !cgc.tensor<256x64x1x1x!cgc.float32>
    %9 = cgc_op.convolution(%7, %8) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float32>, !cgc.tensor<256x64x1x1x!cgc.float32>) -> !cgc.tensor<2x256x4x4x!cgc.float32>
    %10 = cgc_op.transpose(%9) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float32>) -> !cgc.tensor<2x4x4x256x!cgc.float32>
    %11 = cgc_op.transpose(%6) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float32>) -> !cgc.tensor<2x64x4x4x!cgc.float32>
    %12 = cgc_op.transpose(%0) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 256x1x1x64x!cgc.float32>) -> !cgc.tensor<256x64x1x1x!cgc.float32>
    %13 = cgc_op.convolution(%11, %12, %1) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float32>, !cgc.tensor<256x64x1x1x!cgc.float32>, !cgc.tensor<constant 256x!cgc.float32>) -> !cgc.tensor<2x256x4x4x!cgc.float32>
    %14 = cgc_op.transpose(%13) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float32>) -> !cgc.tensor<2x4x4x256x!cgc.float32>
    %15 = cgc_op.add(%14, %10) : (!cgc.tensor<2x4x4x256x!cgc.float32>, !cgc.tensor<2x4x4x256x!cgc.float32>) -> !cgc.tensor<2x4x4x256x!cgc.float32>
    %16 = cgc_op.relu(%15) : (!cgc.tensor<2x4x4x256x!cgc.float32>) -> !cgc.tensor<2x4x4x256x!cgc.float32>
    %17 = cgc_op.transpose(%16) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x256x!cgc.float32>) -> !cgc.tensor<2x256x4x4x!cgc.float32>
    %18 = cgc_op.transpose(%2) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 64x1x1x256x!cgc.float32>) -> !cgc.tensor<64x256x1x1x!cgc.float32>
    %19 = cgc_op.convolution(%17, %18, %3) {end_padding = [0, 0], start_padding = [0, 0], strides = [1, 1]} : (!cgc.tensor<2x256x4x4x!cgc.float32>, !cgc.tensor<64x256x1x1x!cgc.float32>, !cgc.tensor<constant 64x!cgc.float32>) -> !cgc.tensor<2x64x4x4x!cgc.float32>
    %20 = cgc_op.transpose(%19) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x64x4x4x!cgc.float32>) -> !cgc.tensor<2x4x4x64x!cgc.float32>
    %21 = cgc_op.relu(%20) : (!cgc.tensor<2x4x4x64x!cgc.float32>) -> !cgc.tensor<2x4x4x64x!cgc.float32>
    %22 = cgc_op.transpose(%21) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x64x!cgc.float32>) -> !cgc.tensor<2x64x4x4x!cgc.float32>
    %23 = cgc_op.transpose(%16) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x4x4x256x!cgc.float32>) -> !cgc.tensor<2x256x4x4x!cgc.float32>
    %24 = cgc_op.transpose(%4) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 512x1x1x256x!cgc.float32>) -> !cgc.tensor<512x256x1x1x!cgc.float32>
    %25 = cgc_op.convolution(%23, %24) {end_padding = [0, 0], start_padding = [0, 0], strides = [2, 2]} : (!cgc.tensor<2x256x4x4x!cgc.float32>, !cgc.tensor<512x256x1x1x!cgc.float32>) -> !cgc.tensor<2x512x2x2x!cgc.float32>
    %26 = cgc_op.transpose(%25) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<2x512x2x2x!cgc.float32>) -> !cgc.tensor<2x2x2x512x!cgc.float32>
    %27 = cgc_op.transpose(%26) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<2x2x2x512x!cgc.float32>) -> !cgc.tensor<2x512x2x2x!cgc.float32>
    cgc.return %22, %27 : !cgc.tensor<2x64x4x4x!cgc.float32>, !cgc.tensor<2x512x2x2x!cgc.float32>
  }
}

