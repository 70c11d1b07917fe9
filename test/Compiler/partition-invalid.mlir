// What cgc-partition refuses, with the op or option to blame.
// RUN: cgc-opt %s --split-input-file --verify-diagnostics --cgc-partition
// RUN: not cgc-opt %s --split-input-file --cgc-partition=mode=per-layer 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not cgc-opt %s --split-input-file --cgc-partition=alignment=48 2>&1 | FileCheck %s --check-prefix=ALIGNMENT

// MODE: cgc-partition: unknown mode 'per-layer', expected per-target or per-subgraph
// ALIGNMENT: cgc-partition: the scratch slot alignment must be a power of two, got 48

// Input IR: the layers were never matched into subgraphs.
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    // expected-error @+1 {{'cgc_op.relu' op is a layer left in the entry point: cgc-partition takes subgraph calls; run cgc-match-subgraphs first}}
    %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %0 : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

// Raw layers left beside calls.
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %0 = cgc.call @relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    // expected-error @+1 {{run cgc-match-subgraphs first}}
    %1 = cgc_op.abs(%0) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %1 : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

// No entry point: nothing to partition.
// expected-error @+1 {{cgc-partition takes the matched stage with exactly one cgc.entry_point, found 0}}
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
}

// -----

// Already partitioned: Output IR is not the matched stage.
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @relu_functional(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
  // expected-error @+1 {{'cgc.partition' op cannot be partitioned: cgc-partition takes the matched stage (cgc.subgraph ops and one cgc.entry_point)}}
  cgc.partition @partition_0(%x: !cgc.memref<4x!cgc.float32>, %y: !cgc.memref<4x!cgc.float32>) {
    cgc.invoke @relu(%x, %y) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}

// -----

// A model without outputs computes nothing.
cgc.module {
  // expected-error @+1 {{'cgc.entry_point' op returns nothing: a program without outputs computes nothing}}
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) {
    cgc.return
  }
}
