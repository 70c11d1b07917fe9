// view_chain: the transposes and reshapes around a product join its match,
// from the inputs into it and from its result to the root, greedily and
// around accepted subgraphs.

// RUN: cgc-opt %s --split-input-file --cgc-match-subgraphs="declarations=t=%S/Inputs/match-view-chain.mlir" | FileCheck %s

// Attention heads as exporters write them: q and k reach the product through
// a reshape and a transpose each, and its result leaves through a transpose
// and a reshape. The chains of the inputs take both views (the inputs bind to
// the values before them, and q's other user, the residual add, does not
// matter: it is outside the match); the root's chain takes the transpose and
// stops at the reshape, which it does not allow.
// CHECK-LABEL: cgc.subgraph @scores_0 attributes {cgc.pattern = "scores", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @scores_0_functional(%[[Q:.*]]: !cgc.tensor<1x8x32x!cgc.float32>, %[[K:.*]]: !cgc.tensor<1x8x32x!cgc.float32>) -> !cgc.tensor<1x8x4x8x!cgc.float32>
// CHECK-NEXT: %[[QR:.*]] = cgc_op.reshape(%[[Q]])
// CHECK-NEXT: %[[QH:.*]] = cgc_op.transpose(%[[QR]])
// CHECK-NEXT: %[[KR:.*]] = cgc_op.reshape(%[[K]])
// CHECK-NEXT: %[[KH:.*]] = cgc_op.transpose(%[[KR]])
// CHECK-NEXT: %[[S:.*]] = cgc_op.matmul(%[[QH]], %[[KH]])
// CHECK-NEXT: %[[ST:.*]] = cgc_op.transpose(%[[S]])
// CHECK-NEXT: cgc.return %[[ST]]
// CHECK: cgc.subgraph @reshape_1 attributes {origin = "fallback"}
// CHECK: cgc.subgraph @add_2 attributes {origin = "fallback"}
// CHECK-LABEL: cgc.entry_point @heads(
// CHECK-NEXT: %[[SCORES:.*]] = cgc.call @scores_0(%arg0, %arg1)
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @reshape_1(%[[SCORES]])
// CHECK-NEXT: %[[RES:.*]] = cgc.call @add_2(%[[OUT]], %arg0)
// CHECK-NEXT: cgc.return %[[RES]]
cgc.module {
  cgc.entry_point @heads(%q: !cgc.tensor<1x8x32x!cgc.float32>, %k: !cgc.tensor<1x8x32x!cgc.float32>) -> !cgc.tensor<1x8x32x!cgc.float32> {
    %qr = cgc_op.reshape(%q) {shape = [1, 8, 4, 8]} : (!cgc.tensor<1x8x32x!cgc.float32>) -> !cgc.tensor<1x8x4x8x!cgc.float32>
    %qh = cgc_op.transpose(%qr) {permutation = [0, 2, 1, 3]} : (!cgc.tensor<1x8x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %kr = cgc_op.reshape(%k) {shape = [1, 8, 4, 8]} : (!cgc.tensor<1x8x32x!cgc.float32>) -> !cgc.tensor<1x8x4x8x!cgc.float32>
    %kh = cgc_op.transpose(%kr) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x8x4x8x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %s = cgc_op.matmul(%qh, %kh) : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
    %st = cgc_op.transpose(%s) {permutation = [0, 2, 1, 3]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x8x4x8x!cgc.float32>
    %out = cgc_op.reshape(%st) {shape = [1, 8, 32]} : (!cgc.tensor<1x8x4x8x!cgc.float32>) -> !cgc.tensor<1x8x32x!cgc.float32>
    %res = cgc_op.add(%out, %q) : (!cgc.tensor<1x8x32x!cgc.float32>, !cgc.tensor<1x8x32x!cgc.float32>) -> !cgc.tensor<1x8x32x!cgc.float32>
    cgc.return %res : !cgc.tensor<1x8x32x!cgc.float32>
  }
}

// -----

// No views (n = 0 on every chain): the product alone, over the relu's
// result, which no chain allows, and followed by an exp.
// CHECK-LABEL: cgc.subgraph @scores_1 attributes {cgc.pattern = "scores", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @scores_1_functional(
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%arg0, %arg1)
// CHECK-NEXT: cgc.return %[[M]]
// CHECK-LABEL: cgc.entry_point @no_views(
// CHECK-NEXT: %[[R:.*]] = cgc.call @relu_0(%arg0)
// CHECK-NEXT: %[[MM:.*]] = cgc.call @scores_1(%[[R]], %arg1)
// CHECK-NEXT: %[[E:.*]] = cgc.call @exp_2(%[[MM]])
// CHECK-NEXT: cgc.return %[[E]]
cgc.module {
  cgc.entry_point @no_views(%a: !cgc.tensor<2x3x4x!cgc.float32>, %b: !cgc.tensor<2x4x5x!cgc.float32>) -> !cgc.tensor<2x3x5x!cgc.float32> {
    %r = cgc_op.relu(%a) : (!cgc.tensor<2x3x4x!cgc.float32>) -> !cgc.tensor<2x3x4x!cgc.float32>
    %m = cgc_op.matmul(%r, %b) : (!cgc.tensor<2x3x4x!cgc.float32>, !cgc.tensor<2x4x5x!cgc.float32>) -> !cgc.tensor<2x3x5x!cgc.float32>
    %e = cgc_op.exp(%m) : (!cgc.tensor<2x3x5x!cgc.float32>) -> !cgc.tensor<2x3x5x!cgc.float32>
    cgc.return %e : !cgc.tensor<2x3x5x!cgc.float32>
  }
}

// -----

// Three views before the product, at most two in the chain: the two
// closest to the product join it, the first transpose falls back.
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "fallback"}
// CHECK-LABEL: cgc.subgraph @scores_1 attributes {cgc.pattern = "scores", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @scores_1_functional(%[[T:.*]]: !cgc.tensor<3x2x4x!cgc.float32>, %[[B:.*]]: !cgc.tensor<3x2x5x!cgc.float32>)
// CHECK-NEXT: %[[R1:.*]] = cgc_op.reshape(%[[T]])
// CHECK-NEXT: %[[R2:.*]] = cgc_op.reshape(%[[R1]])
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%[[R2]], %[[B]])
// CHECK-NEXT: cgc.return %[[M]]
// CHECK-LABEL: cgc.entry_point @max_length(
// CHECK-NEXT: %[[TA:.*]] = cgc.call @transpose_0(%arg0)
// CHECK-NEXT: %[[MM:.*]] = cgc.call @scores_1(%[[TA]], %arg1)
// CHECK-NEXT: cgc.return %[[MM]]
cgc.module {
  cgc.entry_point @max_length(%a: !cgc.tensor<2x3x4x!cgc.float32>, %b: !cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x4x5x!cgc.float32> {
    %t1 = cgc_op.transpose(%a) {permutation = [1, 0, 2]} : (!cgc.tensor<2x3x4x!cgc.float32>) -> !cgc.tensor<3x2x4x!cgc.float32>
    %r = cgc_op.reshape(%t1) {shape = [3, 2, 2, 2]} : (!cgc.tensor<3x2x4x!cgc.float32>) -> !cgc.tensor<3x2x2x2x!cgc.float32>
    %r2 = cgc_op.reshape(%r) {shape = [3, 4, 2]} : (!cgc.tensor<3x2x2x2x!cgc.float32>) -> !cgc.tensor<3x4x2x!cgc.float32>
    %m = cgc_op.matmul(%r2, %b) : (!cgc.tensor<3x4x2x!cgc.float32>, !cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x4x5x!cgc.float32>
    cgc.return %m : !cgc.tensor<3x4x5x!cgc.float32>
  }
}

// -----

// Values with a second user stop the chains: the reshape's result is also
// an output, so a's chain holds the transpose only; b's transposed value is
// also read by a relu, so b's chain is empty; the product is also an
// output, so the root's chain is empty (a root may be used outside) and
// the transpose after it falls back.
// CHECK-LABEL: cgc.subgraph @scores_2 attributes {cgc.pattern = "scores", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @scores_2_functional(%[[R:.*]]: !cgc.tensor<3x2x4x!cgc.float32>, %[[BT:.*]]: !cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x4x5x!cgc.float32>
// CHECK-NEXT: %[[T:.*]] = cgc_op.transpose(%[[R]])
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%[[T]], %[[BT]])
// CHECK-NEXT: cgc.return %[[M]]
// CHECK-LABEL: cgc.entry_point @second_user(
// CHECK-NEXT: %[[RA:.*]] = cgc.call @reshape_0(%arg0)
// CHECK-NEXT: %[[TB:.*]] = cgc.call @transpose_1(%arg1)
// CHECK-NEXT: %[[MM:.*]] = cgc.call @scores_2(%[[RA]], %[[TB]])
// CHECK-NEXT: %[[O:.*]] = cgc.call @transpose_3(%[[MM]])
// CHECK-NEXT: %[[X:.*]] = cgc.call @relu_4(%[[TB]])
// CHECK-NEXT: cgc.return %[[O]], %[[RA]], %[[X]], %[[MM]]
cgc.module {
  cgc.entry_point @second_user(%a: !cgc.tensor<2x3x4x!cgc.float32>, %b: !cgc.tensor<3x5x2x!cgc.float32>) -> (!cgc.tensor<5x4x3x!cgc.float32>, !cgc.tensor<3x2x4x!cgc.float32>, !cgc.tensor<3x2x5x!cgc.float32>, !cgc.tensor<3x4x5x!cgc.float32>) {
    %r = cgc_op.reshape(%a) {shape = [3, 2, 4]} : (!cgc.tensor<2x3x4x!cgc.float32>) -> !cgc.tensor<3x2x4x!cgc.float32>
    %t = cgc_op.transpose(%r) {permutation = [0, 2, 1]} : (!cgc.tensor<3x2x4x!cgc.float32>) -> !cgc.tensor<3x4x2x!cgc.float32>
    %bt = cgc_op.transpose(%b) {permutation = [0, 2, 1]} : (!cgc.tensor<3x5x2x!cgc.float32>) -> !cgc.tensor<3x2x5x!cgc.float32>
    %m = cgc_op.matmul(%t, %bt) : (!cgc.tensor<3x4x2x!cgc.float32>, !cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x4x5x!cgc.float32>
    %o = cgc_op.transpose(%m) : (!cgc.tensor<3x4x5x!cgc.float32>) -> !cgc.tensor<5x4x3x!cgc.float32>
    %x = cgc_op.relu(%bt) : (!cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x2x5x!cgc.float32>
    cgc.return %o, %r, %x, %m : !cgc.tensor<5x4x3x!cgc.float32>, !cgc.tensor<3x2x4x!cgc.float32>, !cgc.tensor<3x2x5x!cgc.float32>, !cgc.tensor<3x4x5x!cgc.float32>
  }
}

// -----

// Views that accepted subgraphs took: tanh_transpose (worth more) takes the
// transpose before the reshape, transpose_tanh the one after the product.
// The second look around them reads the chains without those layers: a's
// chain, running into the match, ends at the reshape, where the taken
// transpose ends, and the root's chain is empty.
// CHECK-LABEL: cgc.subgraph @tanh_transpose_0 attributes {cgc.pattern = "tanh_transpose", origin = "t"}
// CHECK-LABEL: cgc.subgraph @scores_1 attributes {cgc.pattern = "scores", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @scores_1_functional(%[[HT:.*]]: !cgc.tensor<3x2x4x!cgc.float32>, %[[B:.*]]: !cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x4x5x!cgc.float32>
// CHECK-NEXT: %[[HR:.*]] = cgc_op.reshape(%[[HT]])
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%[[HR]], %[[B]])
// CHECK-NEXT: cgc.return %[[M]]
// CHECK-LABEL: cgc.subgraph @transpose_tanh_2 attributes {cgc.pattern = "transpose_tanh", origin = "t"}
// CHECK-NOT: origin = "fallback"
// CHECK-LABEL: cgc.entry_point @taken(
// CHECK-NEXT: %[[A:.*]] = cgc.call @tanh_transpose_0(%arg0)
// CHECK-NEXT: %[[MM:.*]] = cgc.call @scores_1(%[[A]], %arg1)
// CHECK-NEXT: %[[OUT:.*]] = cgc.call @transpose_tanh_2(%[[MM]])
// CHECK-NEXT: cgc.return %[[OUT]]
cgc.module {
  cgc.entry_point @taken(%a: !cgc.tensor<2x3x4x!cgc.float32>, %b: !cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x5x4x!cgc.float32> {
    %h = cgc_op.tanh(%a) : (!cgc.tensor<2x3x4x!cgc.float32>) -> !cgc.tensor<2x3x4x!cgc.float32>
    %ht = cgc_op.transpose(%h) {permutation = [1, 0, 2]} : (!cgc.tensor<2x3x4x!cgc.float32>) -> !cgc.tensor<3x2x4x!cgc.float32>
    %hr = cgc_op.reshape(%ht) {shape = [3, 4, 2]} : (!cgc.tensor<3x2x4x!cgc.float32>) -> !cgc.tensor<3x4x2x!cgc.float32>
    %m = cgc_op.matmul(%hr, %b) : (!cgc.tensor<3x4x2x!cgc.float32>, !cgc.tensor<3x2x5x!cgc.float32>) -> !cgc.tensor<3x4x5x!cgc.float32>
    %mt = cgc_op.transpose(%m) {permutation = [0, 2, 1]} : (!cgc.tensor<3x4x5x!cgc.float32>) -> !cgc.tensor<3x5x4x!cgc.float32>
    %out = cgc_op.tanh(%mt) : (!cgc.tensor<3x5x4x!cgc.float32>) -> !cgc.tensor<3x5x4x!cgc.float32>
    cgc.return %out : !cgc.tensor<3x5x4x!cgc.float32>
  }
}

// -----

// An elementwise chain may continue a view chain that continues a layer:
// the transpose after the first softmax joins its epilogue; after the
// second softmax, with no transpose, the view chain is empty.
// CHECK-LABEL: cgc.subgraph @softmax_epilogue_0 attributes {cgc.pattern = "softmax_epilogue", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @softmax_epilogue_0_functional(
// CHECK-NEXT: %[[P:.*]] = cgc_op.softmax(%arg0)
// CHECK-NEXT: %[[T:.*]] = cgc_op.transpose(%[[P]])
// CHECK-NEXT: %[[E:.*]] = cgc_op.exp(%[[T]])
// CHECK-NEXT: %[[R:.*]] = cgc_op.relu(%[[E]])
// CHECK-NEXT: cgc.return %[[R]]
// CHECK: cgc.subgraph @softmax_epilogue_1 attributes {cgc.pattern = "softmax_epilogue", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @softmax_epilogue_1_functional(
// CHECK-NEXT: %[[P2:.*]] = cgc_op.softmax(%arg0)
// CHECK-NEXT: %[[S:.*]] = cgc_op.sqrt(%[[P2]])
// CHECK-NEXT: cgc.return %[[S]]
// CHECK-LABEL: cgc.entry_point @epilogue(
// CHECK-NEXT: %[[A:.*]] = cgc.call @softmax_epilogue_0(%arg0)
// CHECK-NEXT: %[[B:.*]] = cgc.call @softmax_epilogue_1(%arg0)
// CHECK-NEXT: cgc.return %[[A]], %[[B]]
cgc.module {
  cgc.entry_point @epilogue(%a: !cgc.tensor<2x3x!cgc.float32>) -> (!cgc.tensor<3x2x!cgc.float32>, !cgc.tensor<2x3x!cgc.float32>) {
    %p = cgc_op.softmax(%a) : (!cgc.tensor<2x3x!cgc.float32>) -> !cgc.tensor<2x3x!cgc.float32>
    %t = cgc_op.transpose(%p) : (!cgc.tensor<2x3x!cgc.float32>) -> !cgc.tensor<3x2x!cgc.float32>
    %e = cgc_op.exp(%t) : (!cgc.tensor<3x2x!cgc.float32>) -> !cgc.tensor<3x2x!cgc.float32>
    %r = cgc_op.relu(%e) : (!cgc.tensor<3x2x!cgc.float32>) -> !cgc.tensor<3x2x!cgc.float32>
    %p2 = cgc_op.softmax(%a) : (!cgc.tensor<2x3x!cgc.float32>) -> !cgc.tensor<2x3x!cgc.float32>
    %s = cgc_op.sqrt(%p2) : (!cgc.tensor<2x3x!cgc.float32>) -> !cgc.tensor<2x3x!cgc.float32>
    cgc.return %r, %s : !cgc.tensor<3x2x!cgc.float32>, !cgc.tensor<2x3x!cgc.float32>
  }
}

// -----

// A selection (a gather of one constant index) joins only chains that list
// cgc_op.gather: the scores pattern's chains take transposes and reshapes,
// so q's chain stops at the gather, which falls back with the transpose
// before it.
// CHECK-LABEL: cgc.subgraph @transpose_0 attributes {origin = "fallback"}
// CHECK-LABEL: cgc.subgraph @gather_1 attributes {origin = "fallback"}
// CHECK-LABEL: cgc.subgraph @scores_2 attributes {cgc.pattern = "scores", origin = "t"}
// CHECK-NEXT: cgc.functional_definition private @scores_2_functional(%[[G:.*]]: !cgc.tensor<2x4x!cgc.float32>, %[[B:.*]]: !cgc.tensor<2x5x!cgc.float32>)
// CHECK-NEXT: %[[R:.*]] = cgc_op.reshape(%[[G]])
// CHECK-NEXT: %[[M:.*]] = cgc_op.matmul(%[[R]], %[[B]])
// CHECK-NEXT: cgc.return %[[M]]
// CHECK-LABEL: cgc.entry_point @selection_not_listed(
// CHECK-NEXT: %[[T:.*]] = cgc.call @transpose_0(%arg0)
// CHECK-NEXT: %[[C:.*]] = cgc.constant("index")
// CHECK-NEXT: %[[S:.*]] = cgc.call @gather_1(%[[T]], %[[C]])
// CHECK-NEXT: %[[MM:.*]] = cgc.call @scores_2(%[[S]], %arg1)
// CHECK-NEXT: cgc.return %[[MM]]
cgc.module {
  cgc.entry_point @selection_not_listed(%a: !cgc.tensor<2x3x4x!cgc.float32>, %b: !cgc.tensor<2x5x!cgc.float32>) -> !cgc.tensor<4x5x!cgc.float32> {
    %t = cgc_op.transpose(%a) {permutation = [1, 0, 2]} : (!cgc.tensor<2x3x4x!cgc.float32>) -> !cgc.tensor<3x2x4x!cgc.float32>
    %c = cgc.constant("index") : !cgc.tensor<constant !cgc.int64>
    %g = cgc_op.gather(%t, %c) : (!cgc.tensor<3x2x4x!cgc.float32>, !cgc.tensor<constant !cgc.int64>) -> !cgc.tensor<2x4x!cgc.float32>
    %r = cgc_op.reshape(%g) {shape = [4, 2]} : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<4x2x!cgc.float32>
    %m = cgc_op.matmul(%r, %b) : (!cgc.tensor<4x2x!cgc.float32>, !cgc.tensor<2x5x!cgc.float32>) -> !cgc.tensor<4x5x!cgc.float32>
    cgc.return %m : !cgc.tensor<4x5x!cgc.float32>
  }
}
