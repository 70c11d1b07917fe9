// What patterns require of the values they match: element types, rank and
// shape of inputs, attribute values and result element types of layers, and
// the native constraints. Each case has a layer that satisfies the pattern
// and one that does not (it falls back).

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=t=%S/Inputs/match-constraints.mlir fallback-target=fb" | FileCheck %s

// Input element types.
// CHECK-LABEL: cgc.entry_point @element_types(
// CHECK-NEXT: cgc.call @half_relu_0(
// CHECK-NEXT: cgc.call @relu_1(
cgc.module {
  cgc.entry_point @element_types(%h: !cgc.tensor<4x!cgc.float16>, %f: !cgc.tensor<4x!cgc.float32>) -> (!cgc.tensor<4x!cgc.float16>, !cgc.tensor<4x!cgc.float32>) {
    %0 = cgc_op.relu(%h) : (!cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16>
    %1 = cgc_op.relu(%f) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %0, %1 : !cgc.tensor<4x!cgc.float16>, !cgc.tensor<4x!cgc.float32>
  }
}

// -----

// Layer result element types.
// CHECK-LABEL: cgc.entry_point @result_types(
// CHECK-NEXT: cgc.call @neg_0(
// CHECK-NEXT: cgc.call @int_neg_1(
cgc.module {
  cgc.entry_point @result_types(%l: !cgc.tensor<4x!cgc.int64>, %i: !cgc.tensor<4x!cgc.int32>) -> (!cgc.tensor<4x!cgc.int64>, !cgc.tensor<4x!cgc.int32>) {
    %0 = cgc_op.neg(%l) : (!cgc.tensor<4x!cgc.int64>) -> !cgc.tensor<4x!cgc.int64>
    %1 = cgc_op.neg(%i) : (!cgc.tensor<4x!cgc.int32>) -> !cgc.tensor<4x!cgc.int32>
    cgc.return %0, %1 : !cgc.tensor<4x!cgc.int64>, !cgc.tensor<4x!cgc.int32>
  }
}

// -----

// Input rank.
// CHECK-LABEL: cgc.entry_point @rank(
// CHECK-NEXT: cgc.call @rank4_sigmoid_0(
// CHECK-NEXT: cgc.call @sigmoid_1(
cgc.module {
  cgc.entry_point @rank(%a: !cgc.tensor<1x2x3x4x!cgc.float32>, %b: !cgc.tensor<2x3x4x!cgc.float32>) -> (!cgc.tensor<1x2x3x4x!cgc.float32>, !cgc.tensor<2x3x4x!cgc.float32>) {
    %0 = cgc_op.sigmoid(%a) : (!cgc.tensor<1x2x3x4x!cgc.float32>) -> !cgc.tensor<1x2x3x4x!cgc.float32>
    %1 = cgc_op.sigmoid(%b) : (!cgc.tensor<2x3x4x!cgc.float32>) -> !cgc.tensor<2x3x4x!cgc.float32>
    cgc.return %0, %1 : !cgc.tensor<1x2x3x4x!cgc.float32>, !cgc.tensor<2x3x4x!cgc.float32>
  }
}

// -----

// Input shape: -1 is any size, other sizes are exact, and the rank is the
// shape's.
// CHECK-LABEL: cgc.entry_point @shape(
// CHECK-NEXT: cgc.call @features8_tanh_0(
// CHECK-NEXT: cgc.call @tanh_1(
// CHECK-NEXT: cgc.call @tanh_2(
cgc.module {
  cgc.entry_point @shape(%a: !cgc.tensor<3x8x!cgc.float32>, %b: !cgc.tensor<3x9x!cgc.float32>, %c: !cgc.tensor<3x8x1x!cgc.float32>) -> (!cgc.tensor<3x8x!cgc.float32>, !cgc.tensor<3x9x!cgc.float32>, !cgc.tensor<3x8x1x!cgc.float32>) {
    %0 = cgc_op.tanh(%a) : (!cgc.tensor<3x8x!cgc.float32>) -> !cgc.tensor<3x8x!cgc.float32>
    %1 = cgc_op.tanh(%b) : (!cgc.tensor<3x9x!cgc.float32>) -> !cgc.tensor<3x9x!cgc.float32>
    %2 = cgc_op.tanh(%c) : (!cgc.tensor<3x8x1x!cgc.float32>) -> !cgc.tensor<3x8x1x!cgc.float32>
    cgc.return %0, %1, %2 : !cgc.tensor<3x8x!cgc.float32>, !cgc.tensor<3x9x!cgc.float32>, !cgc.tensor<3x8x1x!cgc.float32>
  }
}

// -----

// Attribute values: axis 1 matches, the default axis (-1) does not.
// CHECK-LABEL: cgc.entry_point @attributes(
// CHECK-NEXT: %[[A:.*]] = cgc.call @axis1_softmax_0(
// CHECK-NEXT: %[[B:.*]] = cgc.call @softmax_1(%[[A]])
cgc.module {
  cgc.entry_point @attributes(%x: !cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32> {
    %0 = cgc_op.softmax(%x) {axis = 1 : i64} : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %1 = cgc_op.softmax(%0) : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    cgc.return %1 : !cgc.tensor<2x4x!cgc.float32>
  }
}

// -----

// cgc.channels_multiple_of: 16 input channels are a multiple of 8, 12 are not.
// CHECK-LABEL: cgc.entry_point @channels(
// CHECK: cgc.call @channels8_conv_0(
// CHECK-NEXT: cgc.call @convolution_1(
cgc.module {
  cgc.entry_point @channels(%a: !cgc.tensor<1x16x2x2x!cgc.float32>, %b: !cgc.tensor<1x12x2x2x!cgc.float32>) -> (!cgc.tensor<1x4x2x2x!cgc.float32>, !cgc.tensor<1x4x2x2x!cgc.float32>) {
    %wa = cgc.constant("wa") : !cgc.tensor<constant 4x16x1x1x!cgc.float32>
    %wb = cgc.constant("wb") : !cgc.tensor<constant 4x12x1x1x!cgc.float32>
    %0 = cgc_op.convolution(%a, %wa) : (!cgc.tensor<1x16x2x2x!cgc.float32>, !cgc.tensor<constant 4x16x1x1x!cgc.float32>) -> !cgc.tensor<1x4x2x2x!cgc.float32>
    %1 = cgc_op.convolution(%b, %wb) : (!cgc.tensor<1x12x2x2x!cgc.float32>, !cgc.tensor<constant 4x12x1x1x!cgc.float32>) -> !cgc.tensor<1x4x2x2x!cgc.float32>
    cgc.return %0, %1 : !cgc.tensor<1x4x2x2x!cgc.float32>, !cgc.tensor<1x4x2x2x!cgc.float32>
  }
}

// -----

// cgc.same_shape: a broadcasting add does not match.
// CHECK-LABEL: cgc.entry_point @same_shape(
// CHECK-NEXT: %[[A:.*]] = cgc.call @same_shape_add_0(
// CHECK-NEXT: cgc.call @add_1(%[[A]],
cgc.module {
  cgc.entry_point @same_shape(%a: !cgc.tensor<2x4x!cgc.float32>, %b: !cgc.tensor<2x4x!cgc.float32>, %c: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32> {
    %0 = cgc_op.add(%a, %b) : (!cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %1 = cgc_op.add(%0, %c) : (!cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    cgc.return %1 : !cgc.tensor<2x4x!cgc.float32>
  }
}

// -----

// cgc.same_element_type: an identity cast matches, a converting one does not.
// CHECK-LABEL: cgc.entry_point @same_element_type(
// CHECK-NEXT: %[[A:.*]] = cgc.call @identity_cast_0(
// CHECK-NEXT: cgc.call @cast_1(%[[A]])
cgc.module {
  cgc.entry_point @same_element_type(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float16> {
    %0 = cgc_op.cast(%x) {to = !cgc.float32} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %1 = cgc_op.cast(%0) {to = !cgc.float16} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float16>
    cgc.return %1 : !cgc.tensor<4x!cgc.float16>
  }
}

// -----

// cgc.alignment is a request to memory planning: the largest one is recorded
// on the subgraph as a discardable attribute.
// CHECK-LABEL: cgc.subgraph @aligned_exp_0 attributes {cgc.alignment = 256 : i64, cgc.pattern = "aligned_exp", origin = "t"}
// CHECK-LABEL: cgc.entry_point @alignment(
// CHECK-NEXT: cgc.call @aligned_exp_0(
cgc.module {
  cgc.entry_point @alignment(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %0 = cgc_op.exp(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %0 : !cgc.tensor<4x!cgc.float32>
  }
}
