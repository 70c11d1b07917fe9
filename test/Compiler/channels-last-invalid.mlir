// What cgc-channels-last refuses: modules that are not Input IR.
// RUN: cgc-opt %s --split-input-file --verify-diagnostics --cgc-channels-last

// Output IR is not Input IR.
cgc.module {
  // expected-error @+1 {{'cgc.subgraph' op cannot be converted: the channels-last conversion takes Input IR (one cgc.entry_point and nothing else)}}
  cgc.subgraph @s attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
}

// -----

// expected-error @+1 {{the channels-last conversion takes Input IR with exactly one cgc.entry_point, found 0}}
cgc.module {
}
