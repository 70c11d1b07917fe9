// Round trip of the cgc_pattern dialect (text, bytecode, a sealed
// CGC_SUBGRAPH_DECLARATION container), and what the printer elides.
// RUN: cgc-opt %s -o %t.printed.mlir
// RUN: FileCheck %s --input-file=%t.printed.mlir
// RUN: cgc-opt %t.printed.mlir -o %t.reprinted.mlir
// RUN: diff %t.printed.mlir %t.reprinted.mlir
// RUN: cgc-opt %s --emit-bytecode | cgc-opt -o %t.from-bytecode.mlir
// RUN: diff %t.printed.mlir %t.from-bytecode.mlir
// RUN: cgc-opt %s --emit-container=declaration -o %t.cgc
// RUN: cgc-opt %t.cgc -o %t.from-container.mlir
// RUN: diff %t.printed.mlir %t.from-container.mlir

// CHECK-LABEL: cgc.module {
cgc.module {
  // Convolution with an optional bias, then any number of elementwise layers.
  // CHECK-NEXT: cgc_pattern.pattern @conv_bias_epilogue benefit(10) {
  // CHECK-NEXT: %[[X:.*]] = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4 : i64, shape = [-1, 64, -1, -1]}
  // CHECK-NEXT: %[[W:.*]] = cgc_pattern.input {constant}
  // CHECK-NEXT: %[[B:.*]] = cgc_pattern.input {constant, optional}
  // CHECK-NEXT: %[[CONV:.*]] = cgc_pattern.layer "cgc_op.convolution"(%[[X]], %[[W]], %[[B]]) {op_attributes = {dilations = [1, 1]}}
  // The defaults (min_length = 0, max_length = -1, max_extra_inputs = 1) are elided.
  // CHECK-NEXT: %[[OUT:.*]] = cgc_pattern.elementwise_chain(%[[CONV]]){{$}}
  // CHECK-NEXT: cgc_pattern.root %[[OUT]]
  // CHECK-NEXT: }
  cgc_pattern.pattern @conv_bias_epilogue benefit(10) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4, shape = [-1, 64, -1, -1]}
    %w = cgc_pattern.input {constant}
    %b = cgc_pattern.input {constant, optional}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b) {op_attributes = {dilations = [1, 1]}}
    %out = cgc_pattern.elementwise_chain(%conv) {min_length = 0, max_length = -1, max_extra_inputs = 1}
    cgc_pattern.root %out
  }

  // Two layers in a row whose first result is also the subgraph's.
  // CHECK-LABEL: cgc_pattern.pattern @relu_pair_outputs benefit(1) {
  // CHECK: %[[FIRST:.*]] = cgc_pattern.layer "cgc_op.relu"
  // CHECK-NEXT: %[[SECOND:.*]] = cgc_pattern.layer "cgc_op.relu"(%[[FIRST]])
  // CHECK-NEXT: cgc_pattern.root %[[SECOND]] outputs(%[[FIRST]])
  cgc_pattern.pattern @relu_pair_outputs benefit(1) {
    %x = cgc_pattern.input
    %first = cgc_pattern.layer "cgc_op.relu"(%x)
    %second = cgc_pattern.layer "cgc_op.relu"(%first)
    cgc_pattern.root %second outputs(%first)
  }

  // A fixed DAG: conv -> relu -> add(residual), with a native constraint.
  // CHECK: cgc_pattern.pattern @conv_relu_add benefit(20) {
  // CHECK-NEXT: %[[X:.*]] = cgc_pattern.input{{$}}
  // CHECK-NEXT: %[[W:.*]] = cgc_pattern.input {constant}
  // CHECK-NEXT: %[[B:.*]] = cgc_pattern.input {constant, optional}
  // CHECK-NEXT: %[[C:.*]] = cgc_pattern.layer "cgc_op.convolution"(%[[X]], %[[W]], %[[B]]){{$}}
  // CHECK-NEXT: %[[R:.*]] = cgc_pattern.layer "cgc_op.relu"(%[[C]]) {element_types = [!cgc.float32]}
  // CHECK-NEXT: %[[A:.*]] = cgc_pattern.layer "cgc_op.add"(%[[R]], %[[X]])
  // CHECK-NEXT: cgc_pattern.constraint "cgc.same_shape"(%[[A]], %[[X]]){{$}}
  // CHECK-NEXT: cgc_pattern.constraint "cgc.channels_multiple_of"(%[[X]]) {params = {value = 8 : i64}}
  // CHECK-NEXT: cgc_pattern.root %[[A]]
  cgc_pattern.pattern @conv_relu_add benefit(20) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input {constant}
    %b = cgc_pattern.input {constant, optional}
    %c = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b)
    %r = cgc_pattern.layer "cgc_op.relu"(%c) {element_types = [!cgc.float32]}
    %a = cgc_pattern.layer "cgc_op.add"(%r, %x)
    cgc_pattern.constraint "cgc.same_shape"(%a, %x)
    cgc_pattern.constraint "cgc.channels_multiple_of"(%x) {params = {value = 8}}
    cgc_pattern.root %a
  }

  // Attention: matmul -> scale -> softmax -> matmul; a bounded chain with an
  // allow-list and value-first layers; benefit 0 is allowed.
  // CHECK: cgc_pattern.pattern @attention benefit(0) {
  // CHECK: %[[S:.*]] = cgc_pattern.layer "cgc_op.matmul"
  // CHECK-NEXT: %[[SCALED:.*]] = cgc_pattern.elementwise_chain(%[[S]]) {layers = ["cgc_op.mul", "cgc_op.div", "cgc_op.add"], max_length = 2 : i64, min_length = 1 : i64, value_first_layers = ["cgc_op.div"]}
  // CHECK-NEXT: cgc_pattern.layer "cgc_op.softmax"(%[[SCALED]]) {op_attributes = {axis = -1 : i64}}
  // CHECK: cgc_pattern.constraint "cgc.alignment"
  cgc_pattern.pattern @attention benefit(0) {
    %q = cgc_pattern.input {rank = 4}
    %k = cgc_pattern.input {rank = 4}
    %v = cgc_pattern.input {rank = 4}
    %s = cgc_pattern.layer "cgc_op.matmul"(%q, %k)
    %scaled = cgc_pattern.elementwise_chain(%s) {min_length = 1, max_length = 2, layers = ["cgc_op.mul", "cgc_op.div", "cgc_op.add"], value_first_layers = ["cgc_op.div"]}
    %p = cgc_pattern.layer "cgc_op.softmax"(%scaled) {op_attributes = {axis = -1}}
    %o = cgc_pattern.layer "cgc_op.matmul"(%p, %v)
    cgc_pattern.constraint "cgc.alignment"(%q, %k, %v) {params = {bytes = 16}}
    cgc_pattern.root %o
  }

  // A chain may continue a chain; a chain result may feed a layer.
  // CHECK: cgc_pattern.pattern @chains benefit(1) {
  // CHECK: %[[FIRST:.*]] = cgc_pattern.elementwise_chain(%{{.*}}) {max_extra_inputs = 0 : i64}
  // CHECK-NEXT: cgc_pattern.elementwise_chain(%[[FIRST]]) {max_length = 1 : i64}
  cgc_pattern.pattern @chains benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %m = cgc_pattern.layer "cgc_op.matmul"(%a, %b)
    %first = cgc_pattern.elementwise_chain(%m) {max_extra_inputs = 0}
    %second = cgc_pattern.elementwise_chain(%first) {max_length = 1}
    %n = cgc_pattern.layer "cgc_op.layer_norm"(%second)
    cgc_pattern.root %n
  }

  // View chains: from inputs into the match (defaults elided, layers in any
  // order) and after the product, where an elementwise chain may continue
  // the view chain since it continues a layer.
  // CHECK: cgc_pattern.pattern @attention_views benefit(20) {
  // CHECK-NEXT: %[[Q:.*]] = cgc_pattern.input
  // CHECK-NEXT: %[[K:.*]] = cgc_pattern.input
  // CHECK-NEXT: %[[V:.*]] = cgc_pattern.input
  // CHECK-NEXT: %[[QH:.*]] = cgc_pattern.view_chain(%[[Q]]){{$}}
  // CHECK-NEXT: %[[KH:.*]] = cgc_pattern.view_chain(%[[K]]) {layers = ["cgc_op.reshape", "cgc_op.transpose"], max_length = 4 : i64}
  // CHECK-NEXT: %[[VH:.*]] = cgc_pattern.view_chain(%[[V]]) {max_length = 2 : i64, min_length = 1 : i64}
  // CHECK-NEXT: %[[S:.*]] = cgc_pattern.layer "cgc_op.matmul"(%[[QH]], %[[KH]])
  // CHECK-NEXT: %[[P:.*]] = cgc_pattern.layer "cgc_op.softmax"(%[[S]])
  // CHECK-NEXT: %[[O:.*]] = cgc_pattern.layer "cgc_op.matmul"(%[[P]], %[[VH]])
  // CHECK-NEXT: %[[HEADS:.*]] = cgc_pattern.view_chain(%[[O]]) {layers = ["cgc_op.transpose"]}
  // CHECK-NEXT: %[[OUT:.*]] = cgc_pattern.elementwise_chain(%[[HEADS]]) {max_length = 1 : i64}
  // CHECK-NEXT: cgc_pattern.root %[[OUT]]
  cgc_pattern.pattern @attention_views benefit(20) {
    %q = cgc_pattern.input
    %k = cgc_pattern.input
    %v = cgc_pattern.input
    %qh = cgc_pattern.view_chain(%q) {min_length = 0, max_length = -1}
    %kh = cgc_pattern.view_chain(%k) {layers = ["cgc_op.reshape", "cgc_op.transpose"], max_length = 4}
    %vh = cgc_pattern.view_chain(%v) {min_length = 1, max_length = 2}
    %s = cgc_pattern.layer "cgc_op.matmul"(%qh, %kh)
    %p = cgc_pattern.layer "cgc_op.softmax"(%s)
    %o = cgc_pattern.layer "cgc_op.matmul"(%p, %vh)
    %heads = cgc_pattern.view_chain(%o) {layers = ["cgc_op.transpose"]}
    %out = cgc_pattern.elementwise_chain(%heads) {max_length = 1}
    cgc_pattern.root %out
  }

  // Views alone: a view chain of an input that holds at least one layer may
  // be the root, and an elementwise chain may continue it; any layer with
  // one operand and one result may be listed.
  // CHECK: cgc_pattern.pattern @views_only benefit(1) {
  // CHECK-NEXT: %[[X:.*]] = cgc_pattern.input
  // CHECK-NEXT: %[[T:.*]] = cgc_pattern.view_chain(%[[X]]) {layers = ["cgc_op.transpose", "cgc_op.slice", "cgc_op.expand"], min_length = 1 : i64}
  // CHECK-NEXT: %[[E:.*]] = cgc_pattern.elementwise_chain(%[[T]])
  // CHECK-NEXT: cgc_pattern.root %[[E]]
  cgc_pattern.pattern @views_only benefit(1) {
    %x = cgc_pattern.input
    %t = cgc_pattern.view_chain(%x) {min_length = 1, layers = ["cgc_op.transpose", "cgc_op.slice", "cgc_op.expand"]}
    %e = cgc_pattern.elementwise_chain(%t)
    cgc_pattern.root %e
  }

  // Selections: cgc_op.gather (two operands) may be listed, the one layer
  // of more than one operand that may.
  // CHECK: cgc_pattern.pattern @selections benefit(1) {
  // CHECK-NEXT: %[[X:.*]] = cgc_pattern.input
  // CHECK-NEXT: %[[S:.*]] = cgc_pattern.view_chain(%[[X]]) {layers = ["cgc_op.reshape", "cgc_op.gather"], max_length = 12 : i64}
  // CHECK-NEXT: %[[R:.*]] = cgc_pattern.layer "cgc_op.relu"(%[[S]])
  cgc_pattern.pattern @selections benefit(1) {
    %x = cgc_pattern.input
    %s = cgc_pattern.view_chain(%x) {layers = ["cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %r = cgc_pattern.layer "cgc_op.relu"(%s)
    cgc_pattern.root %r
  }
}
