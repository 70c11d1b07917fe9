// What cgc-convert-precision refuses: an option that is not float16 or
// bfloat16, and modules that are not Input IR.
// RUN: not cgc-opt %s --split-input-file --cgc-convert-precision=to=int8 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: not cgc-opt %s --split-input-file --cgc-convert-precision=to=float32 2>&1 | FileCheck %s --check-prefix=FLOAT32
// RUN: not cgc-opt %s --split-input-file --cgc-convert-precision 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: cgc-opt %s --split-input-file --verify-diagnostics --cgc-convert-precision=to=float16
// INT8: error: cgc-convert-precision: option 'to' must be float16 or bfloat16, got 'int8'
// FLOAT32: error: cgc-convert-precision: option 'to' must be float16 or bfloat16, got 'float32'
// MISSING: error: cgc-convert-precision: option 'to' must be float16 or bfloat16, got ''

// Output IR is not Input IR.
cgc.module {
  // expected-error @+1 {{'cgc.subgraph' op cannot be converted: precision conversion takes Input IR (one cgc.entry_point and nothing else)}}
  cgc.subgraph @s attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
}

// -----

// expected-error @+1 {{precision conversion takes Input IR with exactly one cgc.entry_point, found 0}}
cgc.module {
}
