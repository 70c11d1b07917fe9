// cgc-convert-precision to float16: float32 values inside the entry point
// become float16, inputs and outputs stay float32 behind casts, float32
// constants become float16, and integer, bool, float64 and float16 values are
// left alone.
// RUN: cgc-opt %s --split-input-file --cgc-convert-precision=to=float16 | FileCheck %s
// Converting a converted model changes nothing:
// RUN: cgc-opt %s --split-input-file --cgc-convert-precision=to=float16 --cgc-convert-precision=to=float16 | FileCheck %s
// RUN: cgc-opt %s --split-input-file --cgc-convert-precision=to=float16 -o %t.once.mlir
// RUN: cgc-opt %t.once.mlir --split-input-file --cgc-convert-precision=to=float16 -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// Boundary casts and constants: the input is cast once, however many layers
// read it; the constant takes float16; the result is cast back before
// cgc.return, and the signature is unchanged.
// CHECK-LABEL: cgc.entry_point @boundary(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<2x4x!cgc.float32> {cgc.name = "x"}) -> (!cgc.tensor<2x4x!cgc.float32> {cgc.name = "y"})
// CHECK-NEXT: %[[XH:.*]] = cgc_op.cast(%[[X]]) {to = !cgc.float16} : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float16>
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.float16>
// CHECK-NEXT: %[[A:.*]] = cgc_op.add(%[[XH]], %[[W]]) : (!cgc.tensor<2x4x!cgc.float16>, !cgc.tensor<constant 4x!cgc.float16>) -> !cgc.tensor<2x4x!cgc.float16>
// CHECK-NEXT: %[[M:.*]] = cgc_op.mul(%[[A]], %[[XH]]) : (!cgc.tensor<2x4x!cgc.float16>, !cgc.tensor<2x4x!cgc.float16>) -> !cgc.tensor<2x4x!cgc.float16>
// CHECK-NEXT: %[[Y:.*]] = cgc_op.cast(%[[M]]) {to = !cgc.float32} : (!cgc.tensor<2x4x!cgc.float16>) -> !cgc.tensor<2x4x!cgc.float32>
// CHECK-NEXT: cgc.return %[[Y]] : !cgc.tensor<2x4x!cgc.float32>
cgc.module {
  cgc.entry_point @boundary(%x: !cgc.tensor<2x4x!cgc.float32> {cgc.name = "x"}) -> (!cgc.tensor<2x4x!cgc.float32> {cgc.name = "y"}) {
    %w = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.float32>
    %0 = cgc_op.add(%x, %w) : (!cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<constant 4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %1 = cgc_op.mul(%0, %x) : (!cgc.tensor<2x4x!cgc.float32>, !cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    cgc.return %1 : !cgc.tensor<2x4x!cgc.float32>
  }
}

// -----

// The model's casts: a cast to float32 becomes a cast to float16 (its `to`
// follows its result), a cast from float32 to an integer reads float16, a
// cast that becomes float16 -> float16 (the model's own cast to float16, an
// identity cast to float32) is removed, and a cast to float64 keeps float64.
// CHECK-LABEL: cgc.entry_point @casts(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<4x!cgc.float32>, %[[I:[^:]*]]: !cgc.tensor<4x!cgc.int64>)
// CHECK-SAME: -> (!cgc.tensor<4x!cgc.int32>, !cgc.tensor<4x!cgc.float32>, !cgc.tensor<4x!cgc.float64>)
// CHECK-NEXT: %[[XH:.*]] = cgc_op.cast(%[[X]]) {to = !cgc.float16} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float16>
// CHECK-NEXT: %[[IF:.*]] = cgc_op.cast(%[[I]]) {to = !cgc.float16} : (!cgc.tensor<4x!cgc.int64>) -> !cgc.tensor<4x!cgc.float16>
// CHECK-NEXT: %[[S:.*]] = cgc_op.add(%[[IF]], %[[XH]]) : (!cgc.tensor<4x!cgc.float16>, !cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16>
// CHECK-NEXT: %[[INT:.*]] = cgc_op.cast(%[[S]]) {to = !cgc.int32} : (!cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.int32>
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[XH]]) : (!cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16>
// CHECK-NEXT: %[[D:.*]] = cgc_op.cast(%[[R]]) {to = !cgc.float64} : (!cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float64>
// CHECK-NEXT: %[[RF:.*]] = cgc_op.cast(%[[R]]) {to = !cgc.float32} : (!cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float32>
// CHECK-NEXT: cgc.return %[[INT]], %[[RF]], %[[D]] : !cgc.tensor<4x!cgc.int32>, !cgc.tensor<4x!cgc.float32>, !cgc.tensor<4x!cgc.float64>
cgc.module {
  cgc.entry_point @casts(%x: !cgc.tensor<4x!cgc.float32>, %i: !cgc.tensor<4x!cgc.int64>) -> (!cgc.tensor<4x!cgc.int32>, !cgc.tensor<4x!cgc.float32>, !cgc.tensor<4x!cgc.float64>) {
    %0 = cgc_op.cast(%i) {to = !cgc.float32} : (!cgc.tensor<4x!cgc.int64>) -> !cgc.tensor<4x!cgc.float32>
    %1 = cgc_op.add(%0, %x) : (!cgc.tensor<4x!cgc.float32>, !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %2 = cgc_op.cast(%1) {to = !cgc.int32} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.int32>
    %h = cgc_op.cast(%x) {to = !cgc.float16} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float16>
    %f = cgc_op.cast(%h) {to = !cgc.float32} : (!cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float32>
    %same = cgc_op.cast(%f) {to = !cgc.float32} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %3 = cgc_op.relu(%same) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    %4 = cgc_op.cast(%3) {to = !cgc.float64} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float64>
    cgc.return %2, %3, %4 : !cgc.tensor<4x!cgc.int32>, !cgc.tensor<4x!cgc.float32>, !cgc.tensor<4x!cgc.float64>
  }
}

// -----

// Integer and bool values are untouched: an embedding lookup by int64 ids
// (the table becomes float16, the ids stay int64), a comparison's bool
// result selecting between float values, and an int64 arg_max output.
// CHECK-LABEL: cgc.entry_point @untouched(
// CHECK-SAME: %[[IDS:[^:]*]]: !cgc.tensor<1x3x!cgc.int64>)
// CHECK-NEXT: %[[T:.*]] = cgc.constant("table") : !cgc.tensor<constant 10x8x!cgc.float16>
// CHECK-NEXT: %[[Z:.*]] = cgc.constant("zero") : !cgc.tensor<constant !cgc.float16>
// CHECK-NEXT: %[[M:.*]] = cgc.constant("mask") : !cgc.tensor<constant 1x3x8x!cgc.bool>
// CHECK-NEXT: %[[N:.*]] = cgc.constant("offsets") : !cgc.tensor<constant 3x!cgc.int64>
// CHECK-NEXT: %[[G:.*]] = cgc_op.gather(%[[T]], %[[IDS]]) : (!cgc.tensor<constant 10x8x!cgc.float16>, !cgc.tensor<1x3x!cgc.int64>) -> !cgc.tensor<1x3x8x!cgc.float16>
// CHECK-NEXT: %[[P:.*]] = cgc_op.greater(%[[G]], %[[Z]]) : (!cgc.tensor<1x3x8x!cgc.float16>, !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<1x3x8x!cgc.bool>
// CHECK-NEXT: %[[B:.*]] = cgc_op.and(%[[P]], %[[M]]) : (!cgc.tensor<1x3x8x!cgc.bool>, !cgc.tensor<constant 1x3x8x!cgc.bool>) -> !cgc.tensor<1x3x8x!cgc.bool>
// CHECK-NEXT: %[[W:.*]] = cgc_op.where(%[[B]], %[[G]], %[[Z]]) : (!cgc.tensor<1x3x8x!cgc.bool>, !cgc.tensor<1x3x8x!cgc.float16>, !cgc.tensor<constant !cgc.float16>) -> !cgc.tensor<1x3x8x!cgc.float16>
// CHECK-NEXT: %[[A:.*]] = cgc_op.arg_max(%[[W]]) {axis = 2 : i64, keep_dims = false} : (!cgc.tensor<1x3x8x!cgc.float16>) -> !cgc.tensor<1x3x!cgc.int64>
// CHECK-NEXT: %[[AN:.*]] = cgc_op.add(%[[A]], %[[N]]) : (!cgc.tensor<1x3x!cgc.int64>, !cgc.tensor<constant 3x!cgc.int64>) -> !cgc.tensor<1x3x!cgc.int64>
// CHECK-NEXT: %[[WF:.*]] = cgc_op.cast(%[[W]]) {to = !cgc.float32}
// CHECK-NEXT: cgc.return %[[AN]], %[[B]], %[[WF]] : !cgc.tensor<1x3x!cgc.int64>, !cgc.tensor<1x3x8x!cgc.bool>, !cgc.tensor<1x3x8x!cgc.float32>
cgc.module {
  cgc.entry_point @untouched(%ids: !cgc.tensor<1x3x!cgc.int64>) -> (!cgc.tensor<1x3x!cgc.int64>, !cgc.tensor<1x3x8x!cgc.bool>, !cgc.tensor<1x3x8x!cgc.float32>) {
    %table = cgc.constant("table") : !cgc.tensor<constant 10x8x!cgc.float32>
    %zero = cgc.constant("zero") : !cgc.tensor<constant !cgc.float32>
    %mask = cgc.constant("mask") : !cgc.tensor<constant 1x3x8x!cgc.bool>
    %offsets = cgc.constant("offsets") : !cgc.tensor<constant 3x!cgc.int64>
    %0 = cgc_op.gather(%table, %ids) : (!cgc.tensor<constant 10x8x!cgc.float32>, !cgc.tensor<1x3x!cgc.int64>) -> !cgc.tensor<1x3x8x!cgc.float32>
    %1 = cgc_op.greater(%0, %zero) : (!cgc.tensor<1x3x8x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x3x8x!cgc.bool>
    %2 = cgc_op.and(%1, %mask) : (!cgc.tensor<1x3x8x!cgc.bool>, !cgc.tensor<constant 1x3x8x!cgc.bool>) -> !cgc.tensor<1x3x8x!cgc.bool>
    %3 = cgc_op.where(%2, %0, %zero) : (!cgc.tensor<1x3x8x!cgc.bool>, !cgc.tensor<1x3x8x!cgc.float32>, !cgc.tensor<constant !cgc.float32>) -> !cgc.tensor<1x3x8x!cgc.float32>
    %4 = cgc_op.arg_max(%3) {axis = 2 : i64, keep_dims = false} : (!cgc.tensor<1x3x8x!cgc.float32>) -> !cgc.tensor<1x3x!cgc.int64>
    %5 = cgc_op.add(%4, %offsets) : (!cgc.tensor<1x3x!cgc.int64>, !cgc.tensor<constant 3x!cgc.int64>) -> !cgc.tensor<1x3x!cgc.int64>
    cgc.return %5, %2, %3 : !cgc.tensor<1x3x!cgc.int64>, !cgc.tensor<1x3x8x!cgc.bool>, !cgc.tensor<1x3x8x!cgc.float32>
  }
}

// -----

// Values that already are float16 are left alone, and so is a model with
// no float32 value.
// CHECK-LABEL: cgc.entry_point @half(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16>
// CHECK-NEXT: %[[W:.*]] = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.float16>
// CHECK-NEXT: %[[S:.*]] = cgc_op.sub(%[[X]], %[[W]]) : (!cgc.tensor<4x!cgc.float16>, !cgc.tensor<constant 4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16>
// CHECK-NEXT: cgc.return %[[S]] : !cgc.tensor<4x!cgc.float16>
cgc.module {
  cgc.entry_point @half(%x: !cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16> {
    %w = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.float16>
    %0 = cgc_op.sub(%x, %w) : (!cgc.tensor<4x!cgc.float16>, !cgc.tensor<constant 4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16>
    cgc.return %0 : !cgc.tensor<4x!cgc.float16>
  }
}

// -----

// Layers kept in float32 (reduce_sum, reduce_prod, cumsum): converted
// operands are cast back to float32 before them; a kept result feeds kept
// layers and outputs as it is and is cast to float16 once, after its layer,
// for the converted layers. A constant that only kept layers read stays
// float32; one that converted layers also read takes float16 and is cast
// back for the kept layer. An input returned as it is stays as it is.
// CHECK-LABEL: cgc.entry_point @kept(
// CHECK-SAME: %[[X:[^:]*]]: !cgc.tensor<2x8x!cgc.float32>)
// CHECK-NEXT: %[[XH:.*]] = cgc_op.cast(%[[X]]) {to = !cgc.float16} : (!cgc.tensor<2x8x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float16>
// CHECK-NEXT: %[[ONLY:.*]] = cgc.constant("only_kept") : !cgc.tensor<constant 2x8x!cgc.float32>
// CHECK-NEXT: %[[BOTH:.*]] = cgc.constant("both") : !cgc.tensor<constant 2x8x!cgc.float16>
// CHECK-NEXT: %[[E:.*]] = cgc_op.exp(%[[XH]]) : (!cgc.tensor<2x8x!cgc.float16>) -> !cgc.tensor<2x8x!cgc.float16>
// CHECK-NEXT: %[[EF:.*]] = cgc_op.cast(%[[E]]) {to = !cgc.float32} : (!cgc.tensor<2x8x!cgc.float16>) -> !cgc.tensor<2x8x!cgc.float32>
// CHECK-NEXT: %[[SUM:.*]] = cgc_op.reduce_sum(%[[EF]]) {axes = [-1]} : (!cgc.tensor<2x8x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float32>
// CHECK-NEXT: %[[SUMH:.*]] = cgc_op.cast(%[[SUM]]) {to = !cgc.float16} : (!cgc.tensor<2x1x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float16>
// CHECK-NEXT: %[[Q:.*]] = cgc_op.div(%[[E]], %[[SUMH]]) : (!cgc.tensor<2x8x!cgc.float16>, !cgc.tensor<2x1x!cgc.float16>) -> !cgc.tensor<2x8x!cgc.float16>
// CHECK-NEXT: %[[CUM:.*]] = cgc_op.cumsum(%[[SUM]]) {axis = 0 : i64} : (!cgc.tensor<2x1x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float32>
// CHECK-NEXT: %[[C:.*]] = cgc_op.cumsum(%[[ONLY]]) {axis = 1 : i64} : (!cgc.tensor<constant 2x8x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float32>
// CHECK-NEXT: %[[BOTHF:.*]] = cgc_op.cast(%[[BOTH]]) {to = !cgc.float32} : (!cgc.tensor<constant 2x8x!cgc.float16>) -> !cgc.tensor<2x8x!cgc.float32>
// CHECK-NEXT: %[[PROD:.*]] = cgc_op.reduce_prod(%[[BOTHF]]) {axes = [-1]} : (!cgc.tensor<2x8x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float32>
// CHECK-NEXT: %[[PH:.*]] = cgc_op.cast(%[[PROD]]) {to = !cgc.float16} : (!cgc.tensor<2x1x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float16>
// CHECK-NEXT: %[[USE:.*]] = cgc_op.add(%[[BOTH]], %[[PH]]) : (!cgc.tensor<constant 2x8x!cgc.float16>, !cgc.tensor<2x1x!cgc.float16>) -> !cgc.tensor<2x8x!cgc.float16>
// CHECK-NEXT: %[[QF:.*]] = cgc_op.cast(%[[Q]]) {to = !cgc.float32}
// CHECK-NEXT: %[[USEF:.*]] = cgc_op.cast(%[[USE]]) {to = !cgc.float32}
// CHECK-NEXT: cgc.return %[[QF]], %[[CUM]], %[[X]], %[[USEF]], %[[C]] :
cgc.module {
  cgc.entry_point @kept(%x: !cgc.tensor<2x8x!cgc.float32>) -> (!cgc.tensor<2x8x!cgc.float32>, !cgc.tensor<2x1x!cgc.float32>, !cgc.tensor<2x8x!cgc.float32>, !cgc.tensor<2x8x!cgc.float32>, !cgc.tensor<2x8x!cgc.float32>) {
    %only = cgc.constant("only_kept") : !cgc.tensor<constant 2x8x!cgc.float32>
    %both = cgc.constant("both") : !cgc.tensor<constant 2x8x!cgc.float32>
    %0 = cgc_op.exp(%x) : (!cgc.tensor<2x8x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float32>
    %1 = cgc_op.reduce_sum(%0) {axes = [-1]} : (!cgc.tensor<2x8x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float32>
    %2 = cgc_op.div(%0, %1) : (!cgc.tensor<2x8x!cgc.float32>, !cgc.tensor<2x1x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float32>
    %3 = cgc_op.cumsum(%1) {axis = 0 : i64} : (!cgc.tensor<2x1x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float32>
    %4 = cgc_op.cumsum(%only) {axis = 1 : i64} : (!cgc.tensor<constant 2x8x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float32>
    %5 = cgc_op.reduce_prod(%both) {axes = [-1]} : (!cgc.tensor<constant 2x8x!cgc.float32>) -> !cgc.tensor<2x1x!cgc.float32>
    %6 = cgc_op.add(%both, %5) : (!cgc.tensor<constant 2x8x!cgc.float32>, !cgc.tensor<2x1x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float32>
    cgc.return %2, %3, %x, %6, %4 : !cgc.tensor<2x8x!cgc.float32>, !cgc.tensor<2x1x!cgc.float32>, !cgc.tensor<2x8x!cgc.float32>, !cgc.tensor<2x8x!cgc.float32>, !cgc.tensor<2x8x!cgc.float32>
  }
}
