//===- CGCOps.td - cgc structure ops of Input and Output IR ----------------===//
//
// Input IR:  cgc.module > cgc.entry_point { cgc.constant, cgc_op.*, cgc.return }
// Output IR: cgc.module > cgc.subgraph { cgc.functional_definition }
//                       > cgc.partition { cgc.invoke @subgraph, cgc.return }
//                       > cgc.program { cgc.constant, cgc.view_memref,
//                                       cgc.invoke @partition, cgc.return }
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DIALECT_CGC_IR_CGCOPS_TD
#define CGC_DIALECT_CGC_IR_CGCOPS_TD

include "cgc/Dialect/CGC/IR/CGCTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// cgc.module
//===----------------------------------------------------------------------===//

def CGC_ModuleOp : CGC_Op<"module", [
    IsolatedFromAbove, NoRegionArguments, SymbolTable, SingleBlock, NoTerminator]> {
  let summary = "The top level of every CGC IR";
  let description = [{
    Holds the symbols of one CGC IR: an entry point for Input IR; subgraphs,
    partitions and one program for Output IR; subgraphs and one partition for
    an isolated partition (what a driver compiles); `cgc_pattern.pattern`s
    for a target's pattern declaration.

    ```mlir
    cgc.module {
      cgc.entry_point @main(%in: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
        %0 = cgc_op.relu(%in) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
        cgc.return %0 : !cgc.tensor<4x!cgc.float32>
      }
    }
    ```

    Verified: only `cgc.entry_point`, `cgc.subgraph`, `cgc.partition`,
    `cgc.program` and ops of the `cgc_pattern` dialect (its `pattern` op)
    appear directly inside; constants of one name agree on their
    shape and element type across the module.
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins)>];
  let extraClassDeclaration = [{
    ::mlir::Block *getBodyBlock() { return &getBody().front(); }
  }];
}

//===----------------------------------------------------------------------===//
// Function-like ops
//===----------------------------------------------------------------------===//

class CGC_FunctionLikeOp<string mnemonic, list<Trait> traits = []>
    : CGC_Op<mnemonic, !listconcat(traits, [
        IsolatedFromAbove, AutomaticAllocationScope, FunctionOpInterface,
        Symbol])> {
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region MaxSizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type)>];
  code functionLikeClassDeclaration = [{
    /// FunctionOpInterface: the callable body and signature.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
  }];
  let extraClassDeclaration = functionLikeClassDeclaration;
}

def CGC_EntryPointOp : CGC_FunctionLikeOp<"entry_point", [HasParent<"ModuleOp">]> {
  let summary = "The function of Input IR: a dataflow graph of layers";
  let description = [{
    The one function of CGC Input IR. Its arguments are the model's inputs and
    its results the model's outputs, all `!cgc.tensor`s; weights are not
    arguments but named `cgc.constant`s bound externally. The body is a
    dataflow graph of `cgc_op` layers ending in `cgc.return`.

    ```mlir
    cgc.entry_point @main(%in: !cgc.tensor<1x1x4x4x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32> {
      %w = cgc.constant("w1") : !cgc.tensor<constant 1x1x3x3x!cgc.float32>
      %0 = cgc_op.convolution(%in, %w) {start_padding = [1, 1], end_padding = [1, 1]}
          : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<constant 1x1x3x3x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<1x1x4x4x!cgc.float32>
    }
    ```

    Verified: arguments and results are tensors, the body holds only
    `cgc.constant`, `cgc_op` layers and `cgc.return` (and, at the compiler's
    matched stage, `cgc.call` of subgraphs).
  }];
}

def CGC_FunctionalDefinitionOp
    : CGC_FunctionLikeOp<"functional_definition", [HasParent<"SubgraphOp">]> {
  let summary = "What a subgraph computes, as a DAG of Input IR layers";
  let description = [{
    The body of a `cgc.subgraph`: the concrete DAG of `cgc_op` layers over
    tensors that the subgraph's target implements as one fused unit.
    Constants arrive as `constant`-qualified tensor arguments.

    ```mlir
    cgc.functional_definition private @reluFunctional(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
    ```

    Verified: tensor arguments and at least one non-constant tensor result; the
    body holds only `cgc_op` layers and `cgc.return`.
  }];
}

def CGC_PartitionOp : CGC_FunctionLikeOp<"partition", [HasParent<"ModuleOp">]> {
  let summary = "A unit of compilation and dispatch: subgraph invocations over bind points";
  let description = [{
    A partition is what a target compiles into an executable MLIR program and
    what `DispatchGraph` runs. Its arguments are memrefs, one per bind point,
    in order; inputs and outputs alike. The body invokes subgraphs.

    ```mlir
    cgc.partition @fallbackPartition(%in: !cgc.memref<1x1x4x4x!cgc.float32>,
                                     %out: !cgc.memref<1x1x8x8x!cgc.float32>) {
      cgc.invoke @upsample(%in, %out) : (!cgc.memref<1x1x4x4x!cgc.float32>, !cgc.memref<1x1x8x8x!cgc.float32>)
      cgc.return
    }
    ```

    Verified: arguments are memrefs (bind points), there are no results, the
    body holds only `cgc.invoke` of subgraphs, `cgc.view_memref` and
    `cgc.return`.
  }];
  let extraClassDeclaration = functionLikeClassDeclaration # [{
    /// Whether bind point `index` is written by some subgraph invocation.
    bool isBindPointWritten(unsigned index);
  }];
}

def CGC_ProgramOp : CGC_FunctionLikeOp<"program", [HasParent<"ModuleOp">]> {
  let summary = "The entry point of Output IR: an ordered sequence of partition invocations";
  let description = [{
    Orchestrates end-to-end execution: binds constants, views the scratch
    buffer and invokes partitions in order. Arguments are memrefs: the model's
    inputs and outputs and the scratch buffer(s).

    ```mlir
    cgc.program @main(%in: !cgc.memref<4x!cgc.float32>, %out: !cgc.memref<4x!cgc.float32>) {
      cgc.invoke @partition0(%in, %out) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>)
      cgc.return
    }
    ```

    Verified: memref arguments, no results; the body holds only
    `cgc.constant`, `cgc.view_memref`, `cgc.invoke` of partitions and
    `cgc.return`.
  }];
}

//===----------------------------------------------------------------------===//
// cgc.subgraph
//===----------------------------------------------------------------------===//

def CGC_SubgraphOp : CGC_Op<"subgraph", [
    HasParent<"ModuleOp">, IsolatedFromAbove, NoRegionArguments, Symbol,
    SymbolTable, SingleBlock, NoTerminator]> {
  let summary = "A target-implemented fusion of Input IR layers";
  let description = [{
    An externally implemented function: the target named by `origin` provides
    its implementation; its single `cgc.functional_definition` says what it
    computes. Invoked from a partition with memrefs: one per definition
    argument, then one per definition result (the outputs).

    ```mlir
    cgc.subgraph @relu attributes {origin = "fallbackTarget"} {
      cgc.functional_definition private @reluFunctional(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
        %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
        cgc.return %0 : !cgc.tensor<4x!cgc.float32>
      }
    }
    ```

    Verified: a non-empty `origin` and exactly one functional definition.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$origin);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The functional definition (null only in IR that failed to verify).
    FunctionalDefinitionOp getDefinition();
    /// The memref types an invocation passes: definition arguments, then results.
    ::llvm::SmallVector<MemRefType> getInvocationTypes();
    /// Number of leading invocation operands that are inputs.
    unsigned getNumInputs();
  }];
}

//===----------------------------------------------------------------------===//
// Leaf ops
//===----------------------------------------------------------------------===//

def CGC_ConstantOp : CGC_Op<"constant", [
    Pure, ParentOneOf<["EntryPointOp", "ProgramOp"]>]> {
  let summary = "A reference to externally bound named constant data";
  let description = [{
    Names constant data (weights) bound from outside rather than passed as a
    positional argument. In Input IR it yields a `constant` tensor; in a
    program, a `constant` memref to bind to partitions. Constants are
    read-only: the result type must carry the `constant` qualifier.

    ```mlir
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 1x1x3x3x!cgc.float32>
    %b1 = cgc.constant("b1") : !cgc.memref<constant 1x!cgc.float32>
    ```

    An optional `permutation` (a list of integers, as `cgc_op.transpose`'s)
    says the bound data's dimensions are permuted on binding, with
    `cgc_op.transpose`'s convention: result dimension `i` is stored dimension
    `permutation[i]`. The data is stored (in the weights file) in its natural
    shape; the result type is the permuted shape, and the runtime permutes
    the data once, when it uploads it. One name may be referenced with
    several permutations: the program binds each once. The channels-last
    pass uses it to bind an OIHW convolution weight as OHWI:

    ```mlir
    // "w1" is stored as 64x3x7x7 (OIHW); the constant yields it as 64x7x7x3.
    %w1 = cgc.constant("w1") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 64x7x7x3x!cgc.float32>
    ```

    `permutation` lives in the attribute dictionary rather than the op's
    properties, so that the bytecode of every constant without one is what
    it was before the attribute existed (containers written earlier still
    read); its accessors (`getPermutation`, `getPermutationList`,
    `getStoredShape`) and the verifier treat it as the op's own.

    Verified: the name is non-empty, the result is a constant tensor (in an
    entry point) or memref (in a program), and a permutation is a list of
    integers naming each of `0 .. rank-1` of the result type exactly once.
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs CGC_TensorOrMemRef:$result);
  let assemblyFormat = "`(` $name `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
  let builders = [
    // A constant bound permuted; a null `permutation` leaves it out.
    OpBuilder<(ins "::mlir::Type":$result, "::llvm::StringRef":$name,
                   "::mlir::ArrayAttr":$permutation), [{
      build($_builder, $_state, result, name);
      if (permutation)
        $_state.addAttribute(getPermutationAttrName(), permutation);
    }]>,
    // The same with the permutation's entries; empty leaves it out.
    OpBuilder<(ins "::mlir::Type":$result, "::llvm::StringRef":$name,
                   "::llvm::ArrayRef<int64_t>":$permutation), [{
      build($_builder, $_state, result, name,
            permutation.empty() ? ::mlir::ArrayAttr()
                                : $_builder.getI64ArrayAttr(permutation));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The name of the optional `permutation` attribute.
    static ::llvm::StringRef getPermutationAttrName() { return "permutation"; }
    /// The permutation, or null when the data is bound as stored.
    ::mlir::ArrayAttr getPermutationAttr();
    std::optional<::mlir::ArrayAttr> getPermutation();
    /// Sets the permutation; null removes it.
    void setPermutationAttr(::mlir::ArrayAttr permutation);
    /// The permutation's entries; empty when the data is bound as stored.
    ::llvm::SmallVector<int64_t> getPermutationList();
    /// The shape of the data as stored: the result shape with the
    /// permutation undone (stored dimension permutation[i] is result
    /// dimension i). The result shape when there is no permutation.
    ::llvm::SmallVector<int64_t> getStoredShape();
  }];
}

def CGC_ViewMemRefOp : CGC_Op<"view_memref", [Pure, ParentOneOf<["ProgramOp", "PartitionOp"]>]> {
  let summary = "A typed view of a memref at a byte offset";
  let description = [{
    Views `byte_size(result)` bytes of `source` starting `offset` bytes in, as
    a memref of another shape and element type; used to place intermediates
    in the scratch buffer.

    ```mlir
    %0 = cgc.view_memref %scratch[64] : !cgc.memref<128x!cgc.int8> to !cgc.memref<1x1x4x4x!cgc.float32>
    ```

    Verified: the view fits inside its source, the offset is a multiple of the
    result's alignment, and a view of a constant is constant (and only then).
  }];
  let arguments = (ins CGC_AnyMemRef:$source, I64Attr:$offset);
  let results = (outs CGC_AnyMemRef:$result);
  let assemblyFormat = [{
    $source `[` $offset `]` attr-dict `:` qualified(type($source)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def CGC_InvokeOp : CGC_Op<"invoke", [
    ParentOneOf<["ProgramOp", "PartitionOp"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Invokes a subgraph (in a partition) or a partition (in a program)";
  let description = [{
    Runs `callee` with memref operands. In a partition the callee is a
    `cgc.subgraph`: operands are its definition's arguments then its results.
    In a program the callee is a `cgc.partition`: operands are its bind points.

    ```mlir
    cgc.invoke @convReluAdd(%in, %w1, %b1, %scratch)
        : (!cgc.memref<1x1x4x4x!cgc.float32>, !cgc.memref<constant 1x1x3x3x!cgc.float32>,
           !cgc.memref<constant 1x!cgc.float32>, !cgc.memref<1x1x4x4x!cgc.float32>)
    ```

    Verified: the callee resolves to the right kind of symbol; operand count,
    shapes and element types match it; a `constant` parameter gets a constant
    operand; nothing constant is written (subgraph outputs, or partition bind
    points that the partition writes).
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<CGC_AnyMemRef>:$operands);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` `(` type($operands) `)`
  }];
}

def CGC_CallOp : CGC_Op<"call", [
    HasParent<"EntryPointOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls a subgraph on tensors (the compiler's matched stage)";
  let description = [{
    The compiler's stage between Input IR and Output IR: after matching, the
    entry point computes with calls of `cgc.subgraph`s instead of layers.
    Operands are the definition's arguments, results its results, as values
    (partitioning later turns each call into a `cgc.invoke` over memrefs).
    It is never part of an interchanged interface.

    ```mlir
    %0 = cgc.call @conv_relu_add_0(%in, %w1, %b1)
        : (!cgc.tensor<1x1x4x4x!cgc.float32>, !cgc.tensor<constant 1x1x3x3x!cgc.float32>,
           !cgc.tensor<constant 1x!cgc.float32>) -> !cgc.tensor<1x1x4x4x!cgc.float32>
    ```

    Verified: the callee is a `cgc.subgraph`; operand and result counts,
    shapes and element types match its definition; a `constant` parameter
    gets a constant operand; results have the definition's result types.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<CGC_AnyTensor>:$operands);
  let results = (outs Variadic<CGC_AnyTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
}

def CGC_ReturnOp : CGC_Op<"return", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["EntryPointOp", "FunctionalDefinitionOp", "PartitionOp", "ProgramOp"]>]> {
  let summary = "Returns from an entry point, functional definition, partition or program";
  let description = [{
    Ends the body of a function-like cgc op. Operand types must equal the
    enclosing op's result types (partitions and programs return nothing).

    ```mlir
    cgc.return %0 : !cgc.tensor<1x1x8x8x!cgc.float32>
    cgc.return
    ```
  }];
  let arguments = (ins Variadic<CGC_AnyTensor>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange{}); }]>];
  let hasVerifier = 1;
}

#endif // CGC_DIALECT_CGC_IR_CGCOPS_TD
