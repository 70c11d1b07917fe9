//===- Passes.td - OpenCGC compiler passes (Input IR -> Output IR) ---------===//

#ifndef CGC_COMPILER_PASSES_TD
#define CGC_COMPILER_PASSES_TD

include "mlir/Pass/PassBase.td"

def BaselinePipeline : Pass<"cgc-baseline-pipeline", "::cgc::ModuleOp"> {
  let summary = "Lowers Input IR to Output IR: one subgraph per layer, one partition, one scratch slot per intermediate";
  let description = [{
    The compiler with every optimization off: the reference that fused
    pipelines are checked against, and what runs a model on a target that
    declares no patterns (every `cgc_op` has a fallback).

    * Each live `cgc_op` layer becomes a `cgc.subgraph` (`origin` = the
      `target` option) whose `cgc.functional_definition` takes the layer's
      distinct operands (constants as `constant` tensors) and returns its
      used results. Layers whose results are never used are dropped.
    * One `cgc.partition` invokes every subgraph in program order; it has one
      memref bind point per distinct value it touches: inputs, constants,
      outputs, then intermediates.
    * One `cgc.program` with the entry point's name takes the inputs, the
      outputs and a `!cgc.memref<Nx!cgc.int8>` scratch buffer; it binds the
      constants (`cgc.constant`), views each intermediate at its own
      64-byte-aligned slot of the scratch (`cgc.view_memref`) and invokes the
      partition.
    * An output that is an input, a constant, or a value already returned at
      an earlier position is written by a copy subgraph (an identity
      `cgc_op.reshape`).

    ```mlir
    // cgc-opt --cgc-baseline-pipeline=target=cpu
    cgc.module {
      cgc.subgraph @relu_0 attributes {origin = "cpu"} {
        cgc.functional_definition private @relu_0_functional(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> { ... }
      }
      cgc.partition @partition_0(%in: !cgc.memref<4x!cgc.float32>, %out: !cgc.memref<4x!cgc.float32>) {
        cgc.invoke @relu_0(%in, %out) : (...)
        cgc.return
      }
      cgc.program @main(%in: ..., %out: ..., %scratch: !cgc.memref<0x!cgc.int8>) { ... }
    }
    ```
  }];
  // The copy subgraphs are cgc_op.reshape layers, even in a model that has none.
  let dependentDialects = ["::cgc::op::CGCOpDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "The target every subgraph is assigned to (its `origin`)">
  ];
}

//===----------------------------------------------------------------------===//
// Before the stages: the precision the model computes in
//===----------------------------------------------------------------------===//

def ConvertPrecision : Pass<"cgc-convert-precision", "::cgc::ModuleOp"> {
  let summary = "Runs a float32 model in float16 or bfloat16; inputs and outputs stay float32";
  let description = [{
    Runs on Input IR before the compiler's stages
    (`cgc::compiler::convertPrecision`, `CompileOptions::precision`,
    `cgc-compile --precision`, `cgc-run --precision`), as `trtexec --fp16`
    does for TensorRT:

    * Every float32 tensor value of the entry point becomes a tensor of `to`
      (`float16` or `bfloat16`): layers compute in it, and kernels
      accumulate in float32. Values of other element types (integers, bool,
      float64, values that already were float16) are left alone.
    * The model's signature does not change: a `cgc_op.cast` to `to` follows
      each float32 input where a converted layer reads it, and a
      `cgc_op.cast` back to float32 precedes `cgc.return` for each float32
      result.
    * A float32 `cgc.constant` takes the type `to` (the `constant` qualifier
      stays). Its weights file still holds float32 data: the runtime converts
      it once, when it uploads the constants, rounding to nearest-even and
      saturating finite values to the target's finite range (float32's
      lowest, a common attention-mask value, becomes -65504 in float16,
      not -inf). A constant that only layers kept in float32 read, or that is
      returned as it is, keeps float32.
    * Attributes that name float32 follow the values: `cgc_op.cast`'s `to`
      (so a cast to float32 in the model becomes a cast to `to`), and any
      other type attribute.
    * Kept in float32, with casts leading in and out: `cgc_op.reduce_sum`,
      `cgc_op.reduce_prod` and `cgc_op.cumsum`, whose results grow with the
      length of the axes they run along, which the model does not bound (a
      sum of 4096 values near 16 exceeds float16's 65504). A kept layer's
      result stays float32 for the kept layers and outputs that read it and is
      cast to `to` once for the converted layers that read it. No layer's
      verifier requires float32, so no other layer needs to stay.
    * Casts are created only where a value crosses between float32 and
      `to`, once per value; casts that convert a value to its own type (also
      ones the model had) are removed. Converting a converted model changes
      nothing. The result is verified.

    ```mlir
    // cgc-opt --cgc-convert-precision=to=float16
    cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.cast(%x) {to = !cgc.float16} : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float16>
      %w = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.float16>
      %1 = cgc_op.mul(%0, %w) : (!cgc.tensor<4x!cgc.float16>, !cgc.tensor<constant 4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float16>
      %2 = cgc_op.cast(%1) {to = !cgc.float32} : (!cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %2 : !cgc.tensor<4x!cgc.float32>
    }
    ```
  }];
  let dependentDialects = ["::cgc::op::CGCOpDialect"];
  let options = [
    Option<"to", "to", "std::string", /*default=*/"\"\"",
           "The type float32 values become: float16 or bfloat16">
  ];
}

//===----------------------------------------------------------------------===//
// Before the stages: the layout 2-D convolutions compute in
//===----------------------------------------------------------------------===//

def ChannelsLast : Pass<"cgc-channels-last", "::cgc::ModuleOp"> {
  let summary = "Runs 2-D convolutions on channels-last (NHWC) activations and OHWI weights";
  let description = [{
    Runs on Input IR after `cgc-convert-precision` and before matching
    (`cgc::compiler::convertToChannelsLast`, `CompileOptions::layout`,
    `cgc-compile --layout`, `cgc-run --layout`). NHWC is expressed with
    `cgc_op.transpose` and a permuted `cgc.constant`, so every target still
    computes the same model; a target whose fused kernels prefer NHWC (its
    declaration's `cgc.preferred_layout = "channels_last"`) claims each
    convolution or pool with its transposes as one NHWC kernel.

    * Every `cgc_op.convolution` whose input has rank 4 (any `groups`) takes
      this form, its attributes unchanged:

      ```mlir
      %xt = cgc_op.transpose(%x_nhwc) {permutation = [0, 3, 1, 2]}  // NHWC -> NCHW
      %wt = cgc_op.transpose(%w_ohwi) {permutation = [0, 3, 1, 2]}  // OHWI -> OIHW
      %c = cgc_op.convolution(%xt, %wt, %b) {...}
      %y = cgc_op.transpose(%c) {permutation = [0, 2, 3, 1]}        // NCHW -> NHWC
      ```

      `%xt` and `%wt` belong to their convolution alone, and `%y` is the
      convolution's only user. `%w_ohwi` is `cgc.constant("<the weight's
      name>") {permutation = [0, 2, 3, 1]}` of type O×H×W×I (one per weight:
      the runtime binds the weight's data permuted, once); a weight that is
      not a `cgc.constant` stays the convolution's operand, without `%wt`.
    * `%x_nhwc` is the NHWC value of the input: one the pass already holds,
      or a `cgc_op.transpose(%x) {permutation = [0, 2, 3, 1]}` shared by the
      convolutions (and elementwise layers, below) that read `%x`.
    * A `cgc_op.max_pool` or `cgc_op.average_pool` of an N×C×H×W value that
      the pass holds in NHWC (a `%y`, or an elementwise layer's result
      below) takes the same form, its attributes unchanged (ResNet's stem
      pool, between the stem and the first block's convolutions): `%pt`
      belongs to the pool alone, and `%z`, the pool's only user, is its
      NHWC value.

      ```mlir
      %pt = cgc_op.transpose(%x_nhwc) {permutation = [0, 3, 1, 2]}  // NHWC -> NCHW
      %p = cgc_op.max_pool(%pt) {...}
      %z = cgc_op.transpose(%p) {permutation = [0, 2, 3, 1]}        // NCHW -> NHWC
      ```

      A pool of an NCHW value (a model input, say) stays as it is: the form
      would only move the transpose to NHWC onto its larger input.
    * NHWC values propagate through elementwise layers (the `Elementwise`
      trait) with one result: a layer is rewritten in place on the NHWC
      shapes (result N×C×H×W becomes N×H×W×C, element type unchanged) when
      at least one operand is an NHWC value of the pass (a `%y` or `%z`, or
      such a layer's result) of the result's shape and every other operand is
      either one too, a value that already has its NHWC transpose (a
      convolution input: a residual shortcut), or scalar-like (rank at most
      4, every dimension 1). An operand that broadcasts along some
      dimensions only (a per-channel `Cx1x1`) stops the propagation.
    * Every other use of an NHWC value (a layer that does not qualify, a
      global pool, a convolution's weight or bias, `cgc.return`) reads
      `cgc_op.transpose(%v) {permutation = [0, 3, 1, 2]}`, one per value, so
      the model's semantics and signature do not change.
    * A convolution whose activations already have this form (its input a
      transpose to NCHW that only it reads, its only user a transpose to
      NHWC: what this pass made, or a model exported from NHWC) keeps them;
      only a `cgc.constant` weight is bound as OHWI. Running the pass twice
      changes nothing.
    * 1-D and 3-D convolutions and pools, `conv_transpose`, the global
      pools and every other layer are left alone. No transpose pair is
      folded: the form is what targets match. The result is verified.

    ```mlir
    // cgc-opt --cgc-channels-last
    cgc.entry_point @main(%x: !cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32> {
      %w = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 16x3x3x4x!cgc.float32>
      %0 = cgc_op.transpose(%x) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x4x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x4x!cgc.float32>
      %1 = cgc_op.transpose(%0) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x4x!cgc.float32>) -> !cgc.tensor<1x4x8x8x!cgc.float32>
      %2 = cgc_op.transpose(%w) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<constant 16x3x3x4x!cgc.float32>) -> !cgc.tensor<16x4x3x3x!cgc.float32>
      %3 = cgc_op.convolution(%1, %2) {end_padding = [1, 1], start_padding = [1, 1]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<16x4x3x3x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
      %4 = cgc_op.transpose(%3) {permutation = [0, 2, 3, 1]} : (!cgc.tensor<1x16x8x8x!cgc.float32>) -> !cgc.tensor<1x8x8x16x!cgc.float32>
      %5 = cgc_op.relu(%4) : (!cgc.tensor<1x8x8x16x!cgc.float32>) -> !cgc.tensor<1x8x8x16x!cgc.float32>
      %6 = cgc_op.transpose(%5) {permutation = [0, 3, 1, 2]} : (!cgc.tensor<1x8x8x16x!cgc.float32>) -> !cgc.tensor<1x16x8x8x!cgc.float32>
      cgc.return %6 : !cgc.tensor<1x16x8x8x!cgc.float32>
    }
    ```
  }];
  let dependentDialects = ["::cgc::op::CGCOpDialect"];
}

//===----------------------------------------------------------------------===//
// Before the stages: each value computed once
//===----------------------------------------------------------------------===//

def SinkBroadcasts : Pass<"cgc-sink-broadcasts", "::cgc::ModuleOp"> {
  let summary = "Moves expands after the elementwise layers that read them";
  let description = [{
    Runs on Input IR after `cgc-convert-precision` and before
    `cgc-merge-common-layers` (`cgc::compiler::sinkBroadcasts`; `cgc-compile
    --report` prints how many rewrites it made). Elementwise layers
    broadcast their operands as numpy does, so a `cgc_op.expand` that one of
    them reads is either redundant, where the layer's result keeps its type
    when it reads the expand's input instead, or can follow the layer, where
    every operand that made the result large was an expand: the layer then
    computes on the smaller shape (the type its inference gives; the same
    element type) and one expand to the old shape follows it. An expand of
    an expand becomes one expand of the first input, and an expand to its
    input's own type is its input. The rewrites repeat until none applies,
    so an expand moves down a chain of elementwise layers until a layer
    that broadcasts anyway takes it.

    transformers' BERT builds its attention mask over batch × 128 × 128
    and adds it to the scores; after this pass the mask is one row per
    sequence, which the attention patterns read broadcast over the queries:

    ```mlir
    // Before: %keys is B×1×1×128 (2×1×1×128).
    %e = cgc_op.expand(%keys) {shape = [2, 1, 128, 128]} : (...) -> !cgc.tensor<2x1x128x128x!cgc.bool>
    %m = cgc_op.where(%e, %zero, %low) : (...) -> !cgc.tensor<2x1x128x128x!cgc.float32>
    %s = cgc_op.add(%scores, %m) : (!cgc.tensor<2x12x128x128x!cgc.float32>, ...) -> !cgc.tensor<2x12x128x128x!cgc.float32>

    // After (cgc-opt --cgc-sink-broadcasts):
    %m = cgc_op.where(%keys, %zero, %low) : (...) -> !cgc.tensor<2x1x1x128x!cgc.float32>
    %s = cgc_op.add(%scores, %m) : (!cgc.tensor<2x12x128x128x!cgc.float32>, ...) -> !cgc.tensor<2x12x128x128x!cgc.float32>
    ```
  }];
  let dependentDialects = ["::cgc::op::CGCOpDialect"];
}

def MergeCommonLayers : Pass<"cgc-merge-common-layers", "::cgc::ModuleOp"> {
  let summary = "Merges the Input IR layers that compute the same value";
  let description = [{
    Runs on Input IR after `cgc-sink-broadcasts` and before
    `cgc-channels-last`, whose private per-convolution transposes it would
    otherwise share (`cgc::compiler::mergeCommonLayers`; `cgc-compile
    --report` prints how many layers it removed). Two layers are the same when they are the same
    op with the same attributes, result types and operands; two
    `cgc.constant`s when they have the same name, attributes and type. The
    first of each set stays and takes the uses of the others, which are
    removed (MLIR's common subexpression elimination: every `cgc_op` layer
    and `cgc.constant` is Pure). The ONNX importer gives small constants of
    equal type, shape and bytes one name, so a computation an exporter
    repeats per layer from per-layer copies of a constant (BERT's attention
    mask) runs once.

    ```mlir
    // cgc-opt --cgc-merge-common-layers
    cgc.entry_point @main(%m: !cgc.tensor<4x!cgc.bool>, %x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %zero = cgc.constant("zero") : !cgc.tensor<constant 1x!cgc.float32>
      %low = cgc.constant("low") : !cgc.tensor<constant 1x!cgc.float32>
      %0 = cgc_op.where(%m, %zero, %low) : (...) -> !cgc.tensor<4x!cgc.float32>
      %1 = cgc_op.add(%x, %0) : (...) -> !cgc.tensor<4x!cgc.float32>
      %2 = cgc_op.add(%1, %0) : (...) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %2 : !cgc.tensor<4x!cgc.float32>
    }
    ```

    (the input had a second `where` over second `cgc.constant("zero")` and
    `cgc.constant("low")` ops, which `%2` read).
  }];
  let dependentDialects = ["::cgc::op::CGCOpDialect"];
}

def MoveRowTransposes : Pass<"cgc-move-row-transposes", "::cgc::ModuleOp"> {
  let summary = "Moves transposes of a product's rows to the other side of it";
  let description = [{
    Runs on Input IR after `cgc-merge-common-layers`
    (`cgc::compiler::moveRowTransposes`; `cgc-compile --report` prints how
    many moved). A gemm computes each row of its result from the same row
    of its input, so a transpose that permutes only the rows of its result
    (split by a reshape) can permute its input's rows instead. Where that
    input is a transpose merged into rows by a reshape, the two transposes
    compose into one, the gemm becomes a matmul over the permuted rows
    (its weight bound transposed where it was read so, its C an add), and
    the reshape and transpose after it disappear.

    nn.MultiheadAttention (torchvision's ViT) swaps batch and sequence back
    after its output projection; moved, the projection reads the attention
    in BERT's layout and the residual add follows the product directly:

    ```mlir
    // Before: %a is B×H×S×D (2×12×197×64).
    %t = cgc_op.transpose(%a) {permutation = [2, 0, 1, 3]} : (...) -> !cgc.tensor<197x2x12x64x!cgc.float32>
    %r = cgc_op.reshape(%t) {shape = [394, 768]} : (...) -> !cgc.tensor<394x768x!cgc.float32>
    %g = cgc_op.gemm(%r, %w, %b) {trans_b = true} : (...) -> !cgc.tensor<394x768x!cgc.float32>
    %s = cgc_op.reshape(%g) {shape = [197, 2, 768]} : (...) -> !cgc.tensor<197x2x768x!cgc.float32>
    %o = cgc_op.transpose(%s) {permutation = [1, 0, 2]} : (...) -> !cgc.tensor<2x197x768x!cgc.float32>

    // After (cgc-opt --cgc-move-row-transposes):
    %wt = cgc.constant("w") {permutation = [1, 0]} : !cgc.tensor<constant 768x768x!cgc.float32>
    %t = cgc_op.transpose(%a) {permutation = [0, 2, 1, 3]} : (...) -> !cgc.tensor<2x197x12x64x!cgc.float32>
    %r = cgc_op.reshape(%t) {shape = [2, 197, 768]} : (...) -> !cgc.tensor<2x197x768x!cgc.float32>
    %m = cgc_op.matmul(%r, %wt) : (...) -> !cgc.tensor<2x197x768x!cgc.float32>
    %o = cgc_op.add(%m, %b) : (...) -> !cgc.tensor<2x197x768x!cgc.float32>
    ```

    Taken only where every value in between has no other reader, the gemm
    has alpha 1 and no transposed A, its C (beta 1) is one row for all, its
    B is a `cgc.constant`, and the leading dimensions of the first
    transpose's result are the rows the last reshape splits out.

    The same attention swaps batch and sequence before its input
    projection too. A transpose that keeps the last dimension, read only
    by a matmul with a 2-D constant weight (and that product's add of a
    constant bias, one value per column), moves after the product and the
    add, where the attention patterns read it in place through their views:

    ```mlir
    // Before: %x is B×S×E (2×197×768).
    %t = cgc_op.transpose(%x) {permutation = [1, 0, 2]} : (...) -> !cgc.tensor<197x2x768x!cgc.float32>
    %m = cgc_op.matmul(%t, %w) : (...) -> !cgc.tensor<197x2x2304x!cgc.float32>
    %p = cgc_op.add(%b, %m) : (...) -> !cgc.tensor<197x2x2304x!cgc.float32>

    // After:
    %m = cgc_op.matmul(%x, %w) : (...) -> !cgc.tensor<2x197x2304x!cgc.float32>
    %p = cgc_op.add(%b, %m) : (...) -> !cgc.tensor<2x197x2304x!cgc.float32>
    %t = cgc_op.transpose(%p) {permutation = [1, 0, 2]} : (...) -> !cgc.tensor<197x2x2304x!cgc.float32>
    ```

    It moves only where the product has no more columns than it reads, or
    where every reader of the result is a reshape, transpose or gather (a
    view chain): a wider product read by a computing layer would make the
    transpose copy more.
  }];
  let dependentDialects = ["::cgc::op::CGCOpDialect"];
}

//===----------------------------------------------------------------------===//
// The compiler's stages (see cgc/Compiler/Compiler.h)
//===----------------------------------------------------------------------===//

def MatchSubgraphs : Pass<"cgc-match-subgraphs", "::cgc::ModuleOp"> {
  let summary = "Applies target-declared patterns: Input IR -> subgraph calls";
  let description = [{
    Stage 1 of the compiler (`cgc::compiler::matchSubgraphs`). Every
    pattern of every target (`cgc_pattern.pattern`, from the target's
    CGC_SUBGRAPH_DECLARATION) is matched against the entry point's layers:

    * a match binds each pattern value to one IR value; layers are matched by
      name, operands (a trailing `optional` input may be absent), attribute
      values and element types; `elementwise_chain` takes the longest chain of
      allowed single-use elementwise layers, `view_chain` the longest chain
      of allowed single-use views (transposes, reshapes, selections) after a
      matched layer or, from an input, into the match (where the chains of
      inputs may share layers whose users are all in the match); inputs
      check `constant`,
      element types, rank and shape; named constraints (`cgc.same_shape`,
      ...) are evaluated;
    * a match must be convex (no path leaves it and comes back) and its
      values other than the root must have no users outside it;
    * overlapping matches resolve by benefit (higher first), then size, then
      program order; each target is sent its selected matches in one
      CGC_SUBGRAPH_SPECIALIZATION_REQUEST and the rejected ones free their
      layers for the next round;
    * every layer left becomes a one-layer subgraph of `fallback-target`;
    * structurally identical subgraphs of one target become one symbol.

    Each pattern subgraph carries `cgc.pattern = "<pattern name>"`.

    ```mlir
    // cgc-opt --cgc-match-subgraphs="declarations=driverTarget=patterns.mlir fallback-target=fallbackTarget"
    cgc.subgraph @conv_relu_add_0 attributes {cgc.pattern = "conv_relu_add", origin = "driverTarget"} {
      cgc.functional_definition private @conv_relu_add_0_functional(...) -> ... { ... }
    }
    cgc.entry_point @main(%in: ...) -> ... {
      %0 = cgc.call @conv_relu_add_0(%in, %w1, %b1) : (...) -> ...
      ...
    }
    ```

    In `cgc-opt` the targets' declarations come from files and the targets
    accept every match except those of the patterns named in `reject`;
    tools and the runtime ask the device's drivers instead.
  }];
  let dependentDialects = ["::cgc::op::CGCOpDialect", "::cgc::pattern::CGCPatternDialect"];
  let options = [
    ListOption<"declarations", "declarations", "std::string",
               "Targets with their pattern declarations, as target=path (MLIR text "
               "of a cgc.module of cgc_pattern.pattern ops)">,
    Option<"fallbackTarget", "fallback-target", "std::string", /*default=*/"\"fallback\"",
           "The target that takes every layer no pattern takes">,
    ListOption<"reject", "reject", "std::string",
               "Patterns whose matches the declared targets reject at specialization "
               "(for tests)">,
    Option<"deduplicate", "deduplicate", "bool", /*default=*/"true",
           "Merge structurally identical subgraphs of one target">
  ];
}

def PartitionSubgraphs : Pass<"cgc-partition", "::cgc::ModuleOp"> {
  let summary = "Groups subgraph calls into partitions and builds the program";
  let description = [{
    Stage 2 (`cgc::compiler::partitionSubgraphs`): the matched stage becomes
    Output IR with the naive memory plan.

    * Calls are grouped into `cgc.partition`s: with `mode=per-target`
      (default) each partition is a maximal convex run of one target's calls
      in dataflow order, at most `max-layers` layers when that is non-zero;
      with `mode=per-subgraph` each call is its own partition.
    * A partition has one memref bind point per distinct value it touches and
      invokes its subgraphs in order (invocations of one partition have
      sequential semantics; bind points may alias).
    * The `cgc.program` takes the inputs, the outputs and one
      `!cgc.memref<Nx!cgc.int8>` scratch buffer, binds constants
      (`cgc.constant`), views each intermediate at its own `alignment`-aligned
      slot (`cgc.view_memref`) and invokes the partitions in order.
    * An output that is an input, a constant or a value returned earlier is
      written by a copy subgraph (identity `cgc_op.reshape`) of the fallback
      target.
  }];
  let dependentDialects = ["::cgc::op::CGCOpDialect"];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"per-target\"",
           "per-target (maximal convex runs of one target) or per-subgraph">,
    Option<"maxLayers", "max-layers", "unsigned", /*default=*/"0",
           "Cap on layers per partition in per-target mode (0: none)">,
    Option<"alignment", "alignment", "uint64_t", /*default=*/"64",
           "Alignment of each naive scratch slot">,
    Option<"fallbackTarget", "fallback-target", "std::string", /*default=*/"\"fallback\"",
           "The target of copy subgraphs">
  ];
}

def PlanMemory : Pass<"cgc-plan-memory", "::cgc::ModuleOp"> {
  let summary = "Liveness-based scratch reuse with a best-fit offset packer";
  let description = [{
    Stage 3 (`cgc::compiler::planMemory`). Steps are the subgraph
    invocations in program order (partitions expanded); each scratch value
    lives from the step that writes it to the last step that reads it.
    Values are placed one by one at the best-fitting (or lowest) free
    offset among values whose lifetimes overlap (with `concurrency`, also
    among values whose sharing would order otherwise independent
    invocations); several orders are tried — largest first, largest area
    first, production order, and long-lived values first placed alternately
    at the bottom and the top (a transformer's residual stream) — and the
    smallest footprint is kept. With
    `in-place`, a subgraph made only of elementwise layers writes its single
    result over an operand of the same type that dies there. With
    `inputs-in-scratch`, inputs join the plan (the program argument gets
    `cgc.scratch_offset`). Offsets are aligned to `alignment` and, for values
    a target touches, its `target-alignment`.

    The program gets `cgc.memory_plan = {scratch_bytes, naive_bytes,
    lower_bound_bytes, in_place}`; the lower bound is the peak of live bytes.
  }];
  let options = [
    Option<"reuse", "reuse", "bool", /*default=*/"true", "Reuse dead values' bytes">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Elementwise subgraphs write over a dying operand of the same type">,
    Option<"inputsInScratch", "inputs-in-scratch", "bool", /*default=*/"false",
           "Place inputs no later step needs in scratch">,
    Option<"concurrency", "concurrency", "bool", /*default=*/"false",
           "Never make independent invocations share bytes (more memory, more concurrency)">,
    Option<"alignment", "alignment", "uint64_t", /*default=*/"64",
           "Alignment of every scratch offset">,
    ListOption<"targetAlignment", "target-alignment", "std::string",
               "Per-target alignment as target=bytes">
  ];
}

def ScheduleProgram : Pass<"cgc-schedule", "::cgc::ModuleOp"> {
  let summary = "Orders partition invocations and records range-aware dependencies";
  let description = [{
    Stage 4 (`cgc::compiler::scheduleProgram`). Two program invocations
    conflict when one writes a byte range (of scratch, an output, or an input
    in scratch) that the other reads or writes; constants and inputs are only
    read. With `reorder`, invocations are ordered by dependency level, so that
    independent ones are adjacent. Each invocation gets `cgc.depends_on`, the
    program positions of the earlier invocations it directly depends on
    (transitively reduced): the runtime records a barrier only there. The
    program gets `cgc.schedule = {invocations, dependencies, barriers,
    global_barriers}`.
  }];
  let options = [
    Option<"reorder", "reorder", "bool", /*default=*/"true",
           "Order invocations by dependency level">
  ];
}

#endif // CGC_COMPILER_PASSES_TD
