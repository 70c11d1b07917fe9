//===- CGCPatternBase.td - the cgc_pattern dialect: target subgraph patterns -===//
//
// The `cgc_pattern` dialect is the format of CGC_SUBGRAPH_DECLARATION: the
// subgraph patterns a target declares it can implement as one fused unit.
// Patterns are data: a target writes them, the compiler reads them at run
// time from the target's reply to CGC_SUBGRAPH_DECLARATION_REQUEST and
// matches them against Input IR. Nothing about a target is compiled into
// the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DIALECT_CGCPATTERN_IR_CGCPATTERNBASE_TD
#define CGC_DIALECT_CGCPATTERN_IR_CGCPATTERNBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def CGCPattern_Dialect : Dialect {
  let name = "cgc_pattern";
  let cppNamespace = "::cgc::pattern";
  let summary = "Declarative subgraph patterns that targets declare (CGC_SUBGRAPH_DECLARATION)";
  let description = [{
    A target tells the compiler which subgraphs it implements by declaring
    patterns, independently of any model (spec 000, "declarative subgraph
    patterns"). A `cgc_pattern.pattern` is a small dataflow graph over
    `!cgc_pattern.value`s, each standing for one tensor of a matched graph:

    * `cgc_pattern.input`: a tensor from outside the match; it becomes an
      argument of the subgraph. It may be required to be `constant`, or be
      `optional` (a trailing operand such as a bias that may be absent), and
      be constrained in element type, rank and shape.
    * `cgc_pattern.layer`: one `cgc_op` layer of a given name over given
      operands, with attribute values it must have. Layers give fixed DAGs
      such as convolution → relu → add.
    * `cgc_pattern.elementwise_chain`: any number of elementwise layers after
      an anchor (epilogue fusion), each consuming the previous value.
    * `cgc_pattern.view_chain`: any number of re-indexing layers (transpose,
      reshape) at an anchor: from an input into the match, or after a
      matched layer, which a fused kernel absorbs by reading or writing
      through strides.
    * `cgc_pattern.constraint`: a named native constraint the compiler
      evaluates on matched values (shapes, alignment, channel multiples).
      Names are checked against the compiler's known constraints before a
      declaration is used.
    * `cgc_pattern.root`: the value the matched subgraph produces.

    `benefit` orders overlapping matches: the higher benefit wins.

    ```mlir
    cgc.module {
      cgc_pattern.pattern @conv_relu_add benefit(20) {
        %x = cgc_pattern.input
        %w = cgc_pattern.input {constant}
        %b = cgc_pattern.input {constant, optional}
        %c = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b)
        %r = cgc_pattern.layer "cgc_op.relu"(%c)
        %a = cgc_pattern.layer "cgc_op.add"(%r, %x)
        cgc_pattern.root %a
      }
    }
    ```

    What a match is: an injective map from the pattern's layers (and chain
    steps) to ops of one function, such that every pattern edge is an IR
    use-def edge, every value of the match other than the root is used only
    inside the match, and inputs map to values defined outside the match.
    Like the other CGC dialects, this one is only ever extended.
  }];
  let dependentDialects = ["::cgc::CGCDialect", "::cgc::op::CGCOpDialect"];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class CGCPattern_Op<string mnemonic, list<Trait> traits = []>
    : Op<CGCPattern_Dialect, mnemonic, traits>;

#endif // CGC_DIALECT_CGCPATTERN_IR_CGCPATTERNBASE_TD
