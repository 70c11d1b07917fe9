// What cgc-match-subgraphs refuses, with the op, target or file to blame.

// RUN: cgc-opt %s --split-input-file --verify-diagnostics --cgc-match-subgraphs

// Declarations that cannot be used:
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=t=%S/Inputs/does-not-exist.mlir" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: target 't': cannot read {{.*}}does-not-exist.mlir
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=t=%S/Inputs/match-invalid-syntax.mlir" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: match-invalid-syntax.mlir:3:{{[0-9]+}}: error:
// SYNTAX: error: target 't': {{.*}}match-invalid-syntax.mlir does not parse
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=t=%S/Inputs/match-unknown-constraint.mlir" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: match-unknown-constraint.mlir:6:5: error: pattern @mystery names the unknown constraint 'cgc.tensor_cores'; known constraints: cgc.same_shape, cgc.same_element_type, cgc.static_dims, cgc.channels_multiple_of, cgc.alignment
// UNKNOWN: error: target 't': {{.*}}match-unknown-constraint.mlir is not a valid CGC_SUBGRAPH_DECLARATION
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=t=%S/Inputs/match-entry-point.mlir" 2>&1 | FileCheck %s --check-prefix=NOT-PATTERNS
// NOT-PATTERNS: error: CGC_SUBGRAPH_DECLARATION IR must hold one or more cgc_pattern.pattern ops and nothing else (found 1 entry point(s)
// NOT-PATTERNS: error: target 't': {{.*}}match-entry-point.mlir is not a valid CGC_SUBGRAPH_DECLARATION
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=%S/Inputs/match-chain.mlir" 2>&1 | FileCheck %s --check-prefix=NO-NAME
// NO-NAME: error: target declaration '{{.*}}match-chain.mlir' must be target=path (a file of cgc_pattern.pattern ops)

// Targets that cannot be told apart, and rejections of nothing:
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=fallback=%S/Inputs/match-chain.mlir" 2>&1 | FileCheck %s --check-prefix=IS-FALLBACK
// IS-FALLBACK: error: target 'fallback' declares patterns but is also the fallback target
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=t=%S/Inputs/match-chain.mlir,t=%S/Inputs/match-relu-pair.mlir" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: two targets are named 't'
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="declarations=t=%S/Inputs/match-chain.mlir reject=matmul_long_epilogue" 2>&1 | FileCheck %s --check-prefix=REJECT
// REJECT: error: reject names 'matmul_long_epilogue', which is not a pattern of any declared target
// RUN: not cgc-opt %S/../Dialect/CGC/spec-input-ir.mlir --cgc-match-subgraphs="fallback-target=" 2>&1 | FileCheck %s --check-prefix=NO-FALLBACK
// NO-FALLBACK: error: matching needs a name for the fallback target

// Output IR is not Input IR.
cgc.module {
  // expected-error @+1 {{'cgc.subgraph' op cannot be matched: matching takes Input IR (one cgc.entry_point and nothing else)}}
  cgc.subgraph @s attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %0 = cgc.call @s(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %0 : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

// expected-error @+1 {{matching takes Input IR with exactly one cgc.entry_point, found 0}}
cgc.module {
}

// -----

// A declaration is not Input IR either.
cgc.module {
  // expected-error @+1 {{'cgc_pattern.pattern' op cannot be matched: matching takes Input IR (one cgc.entry_point and nothing else)}}
  cgc_pattern.pattern @relu benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}
