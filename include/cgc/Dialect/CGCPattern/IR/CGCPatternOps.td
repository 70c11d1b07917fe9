//===- CGCPatternOps.td - ops of the cgc_pattern dialect -------------------===//
//
// cgc.module > cgc_pattern.pattern @name benefit(N) {
//   cgc_pattern.input, cgc_pattern.layer, cgc_pattern.elementwise_chain,
//   cgc_pattern.view_chain, cgc_pattern.constraint, cgc_pattern.root }
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DIALECT_CGCPATTERN_IR_CGCPATTERNOPS_TD
#define CGC_DIALECT_CGCPATTERN_IR_CGCPATTERNOPS_TD

include "cgc/Dialect/CGCPattern/IR/CGCPatternTypes.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// cgc_pattern.pattern
//===----------------------------------------------------------------------===//

def CGCPattern_PatternOp : CGCPattern_Op<"pattern", [
    HasParent<"::cgc::ModuleOp">, IsolatedFromAbove, NoRegionArguments, Symbol,
    SingleBlock]> {
  let summary = "A subgraph pattern a target implements";
  let description = [{
    One pattern: its body describes the subgraphs the target implements as a
    dataflow graph of inputs, layers and chains, ending in `cgc_pattern.root`
    with the value the subgraph produces. `benefit` (non-negative) orders
    overlapping matches of all targets' patterns: the higher wins.

    ```mlir
    cgc_pattern.pattern @conv_bias_epilogue benefit(10) {
      %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16], rank = 4}
      %w = cgc_pattern.input {constant}
      %b = cgc_pattern.input {constant, optional}
      %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b)
      %out = cgc_pattern.elementwise_chain(%conv)
      cgc_pattern.root %out
    }
    ```

    Verified: every input is an operand of a layer or the anchor of a view
    chain; every layer and chain result other than the root is used by a
    layer, a chain or the root, so that every value of the pattern reaches
    the root (constraints alone do not count). By construction a pattern
    matches at least one layer (its root is a value the match computes: a
    layer result, or a chain that continues one or has a minimum length)
    and is acyclic (its values are SSA values of one block).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$benefit);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `benefit` `(` $benefit `)` attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block *getBodyBlock() { return &getBody().front(); }
    /// The value the pattern's subgraph produces (its first result).
    ::mlir::Value getRootValue();
    /// The root's `outputs`: the subgraph's further results, in order.
    ::llvm::SmallVector<::mlir::Value> getOutputValues();
  }];
}

//===----------------------------------------------------------------------===//
// Values of a pattern
//===----------------------------------------------------------------------===//

def CGCPattern_InputOp : CGCPattern_Op<"input", [HasParent<"PatternOp">]> {
  let summary = "A tensor from outside the match: an argument of the subgraph";
  let description = [{
    Matches any value defined outside the match; it becomes an argument of
    the subgraph. Used by several layers, it matches one value used by all of
    them (the residual of conv → relu → add).

    * `constant`: the value must be constant data (a `cgc.constant`,
      `constant`-qualified tensor), which the target may preprocess once.
    * `optional`: the value may be absent; only a trailing operand of a
      layer may be optional (a convolution's bias).
    * `element_types`: the cgc element types the tensor may have.
    * `rank`, `shape`: its rank and dimension sizes (`-1`: any size).

    ```mlir
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16], rank = 4, shape = [-1, 64, -1, -1]}
    %b = cgc_pattern.input {constant, optional}
    ```

    Verified: element types are distinct cgc element types; the rank is
    non-negative; sizes are -1 or non-negative; a shape has `rank` sizes.
  }];
  let arguments = (ins UnitAttr:$constant, UnitAttr:$optional,
                       OptionalAttr<TypeArrayAttr>:$element_types,
                       OptionalAttr<I64Attr>:$rank,
                       OptionalAttr<I64ArrayAttr>:$shape);
  let results = (outs CGCPattern_ValueType:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def CGCPattern_LayerOp : CGCPattern_Op<"layer", [HasParent<"PatternOp">]> {
  let summary = "One cgc_op layer of a given name over given operands";
  let description = [{
    Matches one op named `op_name` (a registered `cgc_op` layer) with a
    single result, whose operands are the matched `operands` in order; a
    trailing `optional` input may be missing (the op then has fewer
    operands). `op_attributes` lists attribute values the op must have
    (others are free), `element_types` the element types its result may have.

    ```mlir
    %c = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b) {op_attributes = {groups = 1 : i64}}
    %r = cgc_pattern.layer "cgc_op.relu"(%c) {element_types = [!cgc.float32]}
    ```

    Verified: `op_name` is a registered `cgc_op` op; each attribute is one of
    that op's attributes; at least one operand, and no non-optional operand
    after an optional one; element types are distinct cgc element types.
  }];
  let arguments = (ins StrAttr:$op_name, Variadic<CGCPattern_ValueType>:$operands,
                       OptionalAttr<DictionaryAttr>:$op_attributes,
                       OptionalAttr<TypeArrayAttr>:$element_types);
  let results = (outs CGCPattern_ValueType:$result);
  let assemblyFormat = "$op_name `(` $operands `)` attr-dict";
  let hasVerifier = 1;
}

def CGCPattern_ElementwiseChainOp
    : CGCPattern_Op<"elementwise_chain", [HasParent<"PatternOp">]> {
  let summary = "Any number of elementwise layers after an anchor (epilogue fusion)";
  let description = [{
    Matches a chain of `n` layers, `min_length <= n <= max_length`
    (`max_length = -1`: unbounded), starting at the value `anchor` matched:
    each layer has one result, has the `Elementwise` trait and consumes the
    previous value of the chain, which has no other user. Its result is the
    chain's value; with `n = 0` it is the anchor itself. A layer's other
    operands, at most `max_extra_inputs` of them, are values from outside
    the match (they become subgraph arguments) that broadcast to the chain's
    value: the chain's value keeps the anchor's type.

    * `layers`: the layer names allowed in the chain (default: every layer
      with the `Elementwise` trait).
    * `value_first_layers`: layers that must take the chain's value as their
      first operand (`prelu` whose slope is never the chain's value).

    ```mlir
    %out = cgc_pattern.elementwise_chain(%conv) {layers = ["cgc_op.relu", "cgc_op.add"], max_length = 3}
    ```

    Verified: `anchor` is a value the match computes (a layer result, an
    elementwise chain, or a view chain that is anchored on one or has
    `min_length >= 1`), not an input; `0 <= min_length`, `max_length` is -1 or at least `min_length` and not 0;
    `max_extra_inputs >= 0`; every listed layer is a registered `cgc_op`
    layer with the `Elementwise` trait, listed once, and each value-first
    layer is one of `layers` when those are given.
  }];
  let arguments = (ins CGCPattern_ValueType:$anchor,
                       DefaultValuedAttr<I64Attr, "0">:$min_length,
                       DefaultValuedAttr<I64Attr, "-1">:$max_length,
                       OptionalAttr<StrArrayAttr>:$layers,
                       OptionalAttr<StrArrayAttr>:$value_first_layers,
                       DefaultValuedAttr<I64Attr, "1">:$max_extra_inputs);
  let results = (outs CGCPattern_ValueType:$result);
  let assemblyFormat = "`(` $anchor `)` attr-dict";
  let hasVerifier = 1;
}

def CGCPattern_ViewChainOp : CGCPattern_Op<"view_chain", [HasParent<"PatternOp">]> {
  let summary = "Any number of re-indexing layers (transpose, reshape, selection) at an anchor";
  let description = [{
    Matches a chain of `n` layers, `min_length <= n <= max_length`
    (`max_length = -1`: unbounded), starting at the value `anchor` matched:
    each layer is one of `layers`, has one operand and one result (or is a
    selection, below), and consumes the previous value of the chain; the
    values between two chain layers have no other user (except where the
    chains of one match share layers, below). Its result is the chain's
    value; with `n = 0` it is the anchor itself. Shapes may change along
    the chain. The layers are meant to be the transposes and reshapes
    exporters put around fused kernels: the target reads its operands, or
    writes its result, through strides instead of copying. That they only
    re-index is the target's claim; the compiler checks their form.

    * `layers`: the layer names allowed in the chain (default:
      `cgc_op.transpose` and `cgc_op.reshape`).

    A selection is a `cgc_op.gather` whose indices are a `cgc.constant` of
    one element (any shape of size-1 dimensions, a scalar included): it
    picks the slice at one index (negative ones counting from the end, as
    ONNX says), an offset into its data plus a dimension dropped (or kept
    as size 1), so a target can read it through strides too (torch's
    nn.MultiheadAttention picks q, k and v out of one projection so). The
    chain continues through its data operand; the constant becomes an
    argument of the subgraph, like any value the match reads from outside,
    since constants are bound only at dispatch and the target reads the
    index then. A gather joins a chain only where `layers` lists
    `cgc_op.gather` (selections drop elements: a target opts in); one with
    other indices never does.

    Chains that run from inputs into the match may share layers: the
    chains of nn.MultiheadAttention's q, k and v read their projection
    through the same reshapes and transpose before their gathers. A shared layer is part of
    the match once (the subgraph holds it once), and like every layer of the
    match its result may only be read inside the match (below), so a value
    read outside ends every chain that would pass it.

    The anchor decides which way the chain runs, and its greedy rule:

    * An input: the chain runs from a value outside the match into it; the
      chain's layers join the match and the input binds to the value before
      the first one. The chain is the longest run of allowed layers ending
      at the value its users read: walking up from that value, at most
      `max_length` layers, it stops at a layer already in an accepted
      subgraph or whose result has a user outside the match; a result read
      by the next layers of several chains (shared layers) does not stop
      those chains, which then take the layers above it together (each
      within its own `max_length` and `layers`). The input's value itself
      may have other users.
    * A layer or elementwise chain result: the chain continues a matched
      layer, as an elementwise chain does, and is the longest run downward:
      each value, the anchor included, has exactly one user, the next
      allowed layer, at most `max_length` of them, not in an accepted
      subgraph.

    The chain's value may be used by layers, constraints and the root like
    any value, and the usual rules still hold: only the root is used
    outside the match, and the match is convex.

    ```mlir
    // Attention as ONNX exporters write it: q and k arrive as
    // [batch, tokens, heads * dim] and are split into heads around the
    // products, and the result is put back.
    %q = cgc_pattern.input
    %k = cgc_pattern.input
    %v = cgc_pattern.input
    %qh = cgc_pattern.view_chain(%q) {max_length = 2}
    %kh = cgc_pattern.view_chain(%k) {layers = ["cgc_op.reshape", "cgc_op.transpose"], max_length = 4}
    %vh = cgc_pattern.view_chain(%v) {max_length = 2}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qh, %kh)
    %probs = cgc_pattern.layer "cgc_op.softmax"(%scores)
    %heads = cgc_pattern.layer "cgc_op.matmul"(%probs, %vh)
    %out = cgc_pattern.view_chain(%heads) {max_length = 2}
    cgc_pattern.root %out
    ```

    With `layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"]`
    on the three input chains, q, k and v may also come from one input
    `%qkv` matched three times: the chains share the layers from `%qkv` to
    the gathers, and each takes its own gather of a constant index and the
    layers after it.

    Verified: `anchor` is an input (not an `optional` one, which may be
    absent), a layer result or an elementwise chain result, not another
    view chain (one chain over the union of the layers says the same);
    `0 <= min_length`, `max_length` is -1 or at least `min_length` and not
    0; every listed layer is a registered `cgc_op` layer with exactly one
    operand and one result, or `cgc_op.gather` (a selection), listed once.
  }];
  let arguments = (ins CGCPattern_ValueType:$anchor,
                       DefaultValuedAttr<I64Attr, "0">:$min_length,
                       DefaultValuedAttr<I64Attr, "-1">:$max_length,
                       OptionalAttr<StrArrayAttr>:$layers);
  let results = (outs CGCPattern_ValueType:$result);
  let assemblyFormat = "`(` $anchor `)` attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the chain may hold a layer named `name`: one of `layers`, or
    /// transpose and reshape when it is absent.
    bool allowsLayer(::llvm::StringRef name);
    /// The layer name that is a selection where `layers` lists it.
    static constexpr ::llvm::StringLiteral kSelectionLayer = "cgc_op.gather";
    /// Whether the chain runs from an input into the match (else it
    /// continues a matched layer).
    bool isAnchoredOnInput();
  }];
}

//===----------------------------------------------------------------------===//
// Constraints and the root
//===----------------------------------------------------------------------===//

def CGCPattern_ConstraintOp : CGCPattern_Op<"constraint", [HasParent<"PatternOp">]> {
  let summary = "A named native constraint on matched values";
  let description = [{
    A condition the compiler evaluates on the tensors matched by `values`,
    by name, with parameters `params`; the match is kept only when it holds.
    The names are the compiler's (see `cgc::pattern::getKnownConstraints`);
    a declaration naming an unknown one is rejected when it is read, not by
    this op's verifier, so that the set can grow without changing the IR.

    ```mlir
    cgc_pattern.constraint "cgc.same_shape"(%a, %x)
    cgc_pattern.constraint "cgc.channels_multiple_of"(%x) {params = {value = 8 : i64}}
    ```

    Verified: a non-empty name, at least one value, no `optional` input among
    the values.
  }];
  let arguments = (ins StrAttr:$constraint_name, Variadic<CGCPattern_ValueType>:$values,
                       OptionalAttr<DictionaryAttr>:$params);
  let assemblyFormat = "$constraint_name `(` $values `)` attr-dict";
  let hasVerifier = 1;
}

def CGCPattern_RootOp : CGCPattern_Op<"root", [Terminator, HasParent<"PatternOp">]> {
  let summary = "The values a pattern's subgraph produces";
  let description = [{
    Ends a pattern with the matched value that becomes the subgraph's result
    (the root: the match is searched backwards from it) and, in `outputs`,
    values the match computes on the way that are results of the subgraph
    too: the only matched values besides the root that layers outside the
    match may read. A match whose other values are read outside, or whose
    outputs are read by a layer before the root's, is not one. The
    subgraph's results are the root, then the outputs in order; an output
    nothing outside reads is still computed.

    ```mlir
    cgc_pattern.root %out
    cgc_pattern.root %second outputs(%first)
    ```

    Verified: each value is one the match computes: a layer result, an
    elementwise chain, or a view chain that is anchored on one or has
    `min_length >= 1` (a view chain of an input may otherwise match no
    layer); no value is named twice.
  }];
  let arguments = (ins CGCPattern_ValueType:$value, Variadic<CGCPattern_ValueType>:$outputs);
  let assemblyFormat = "$value (`outputs` `(` $outputs^ `)`)? attr-dict";
  let hasVerifier = 1;
}

#endif // CGC_DIALECT_CGCPATTERN_IR_CGCPATTERNOPS_TD
