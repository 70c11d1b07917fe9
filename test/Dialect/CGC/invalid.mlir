// One case per verifier error of the cgc dialect's types and structure ops.
// RUN: cgc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{tensor element type must be a cgc element type (!cgc.float32, !cgc.int8, ...), got 'f32'}}
cgc.module { cgc.entry_point @main(%x: !cgc.tensor<4xf32>) { cgc.return } }

// -----

// expected-error @+1 {{memref element type must be a cgc element type}}
cgc.module { cgc.partition @p(%x: !cgc.memref<4xi8>) { cgc.return } }

// -----

cgc.module {
  // expected-error @+1 {{'cgc.return' op is not allowed directly in 'cgc.module': it holds only cgc.entry_point, cgc.subgraph, cgc.partition, cgc.program and cgc_pattern.pattern}}
  cgc.return
}

// -----

cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<constant 4x!cgc.float32> {
    // expected-note @+1 {{first referenced here}}
    %a = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.float32>
    // expected-error @+1 {{constant "w" has type '!cgc.tensor<constant 8x!cgc.float32>' but is also referenced as '!cgc.tensor<constant 4x!cgc.float32>'}}
    %b = cgc.constant("w") : !cgc.tensor<constant 8x!cgc.float32>
    cgc.return %a : !cgc.tensor<constant 4x!cgc.float32>
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.entry_point' op argument #0 must be a !cgc.tensor, got '!cgc.memref<4x!cgc.float32>'}}
  cgc.entry_point @main(%x: !cgc.memref<4x!cgc.float32>) {
    cgc.return
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.entry_point' op result #0 must be a !cgc.tensor, got '!cgc.memref<4x!cgc.float32>'}}
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.memref<4x!cgc.float32> {
    cgc.return
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.entry_point' op must have a body}}
  cgc.entry_point @main(!cgc.tensor<4x!cgc.float32>)
}

// -----

cgc.module {
  cgc.subgraph @s attributes {origin = "cpu"} {
    // expected-error @+1 {{'cgc.functional_definition' op must produce at least one result}}
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) {
      cgc.return
    }
  }
}

// -----

cgc.module {
  cgc.subgraph @s attributes {origin = "cpu"} {
    // expected-error @+1 {{'cgc.functional_definition' op result #0 must not be constant: results are written by the subgraph}}
    cgc.functional_definition private @f(%x: !cgc.tensor<constant 4x!cgc.float32>) -> !cgc.tensor<constant 4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<constant 4x!cgc.float32>
    }
  }
}

// -----

cgc.module {
  cgc.subgraph @s attributes {origin = "cpu"} {
    // expected-error @+1 {{'cgc.functional_definition' op argument #0 must be a !cgc.tensor, got '!cgc.memref<4x!cgc.float32>'}}
    cgc.functional_definition private @f(%x: !cgc.memref<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return
    }
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.functional_definition' op is not allowed directly in 'cgc.module'}}
  cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    cgc.return %x : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.partition' op argument #0 must be a !cgc.memref: partitions take only memrefs (their bind points), got '!cgc.tensor<4x!cgc.float32>'}}
  cgc.partition @p(%x: !cgc.tensor<4x!cgc.float32>) {
    cgc.return
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.partition' op must not return values: outputs are bind points}}
  cgc.partition @p(%x: !cgc.memref<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    cgc.return
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.program' op argument #1 must be a !cgc.memref, got '!cgc.tensor<4x!cgc.float32>'}}
  cgc.program @main(%x: !cgc.memref<4x!cgc.float32>, %y: !cgc.tensor<4x!cgc.float32>) {
    cgc.return
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.program' op must not return values: outputs are arguments}}
  cgc.program @main(%x: !cgc.memref<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    cgc.return
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.subgraph' op needs a non-empty 'origin' naming the target that implements it}}
  cgc.subgraph @s attributes {origin = ""} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.subgraph' op must hold exactly one cgc.functional_definition, found 0}}
  cgc.subgraph @s attributes {origin = "cpu"} {
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc.subgraph' op must hold exactly one cgc.functional_definition, found 2}}
  cgc.subgraph @s attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
    cgc.functional_definition private @g(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
}

// -----

cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<constant 4x!cgc.float32> {
    // expected-error @+1 {{'cgc.constant' op needs a non-empty constant name}}
    %a = cgc.constant("") : !cgc.tensor<constant 4x!cgc.float32>
    cgc.return %a : !cgc.tensor<constant 4x!cgc.float32>
  }
}

// -----

cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<4x!cgc.float32> {
    // expected-error @+1 {{'cgc.constant' op result type '!cgc.tensor<4x!cgc.float32>' must carry the 'constant' qualifier: constants are read-only}}
    %a = cgc.constant("w") : !cgc.tensor<4x!cgc.float32>
    cgc.return %a : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

cgc.module {
  cgc.entry_point @main() {
    // expected-error @+1 {{'cgc.constant' op in a cgc.entry_point must yield a !cgc.tensor, got '!cgc.memref<constant 4x!cgc.float32>'}}
    %a = cgc.constant("w") : !cgc.memref<constant 4x!cgc.float32>
    cgc.return
  }
}

// -----

cgc.module {
  cgc.program @main() {
    // expected-error @+1 {{'cgc.constant' op in a cgc.program must yield a !cgc.memref, got '!cgc.tensor<constant 4x!cgc.float32>'}}
    %a = cgc.constant("w") : !cgc.tensor<constant 4x!cgc.float32>
    cgc.return
  }
}

// -----

// A permutation names every result dimension once: too short.
cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<constant 2x3x4x5x!cgc.float32> {
    // expected-error @+1 {{'cgc.constant' op permutation [0, 2, 1] is not a permutation of the 4 dimensions of '!cgc.tensor<constant 2x3x4x5x!cgc.float32>'}}
    %a = cgc.constant("w") {permutation = [0, 2, 1]} : !cgc.tensor<constant 2x3x4x5x!cgc.float32>
    cgc.return %a : !cgc.tensor<constant 2x3x4x5x!cgc.float32>
  }
}

// -----

// A repeated dimension.
cgc.module {
  cgc.program @main() {
    // expected-error @+1 {{'cgc.constant' op permutation [0, 2, 2, 1] is not a permutation of the 4 dimensions of '!cgc.memref<constant 2x3x4x5x!cgc.float32>'}}
    %a = cgc.constant("w") {permutation = [0, 2, 2, 1]} : !cgc.memref<constant 2x3x4x5x!cgc.float32>
    cgc.return
  }
}

// -----

// A dimension out of range.
cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<constant 3x4x!cgc.float32> {
    // expected-error @+1 {{'cgc.constant' op permutation [1, 2] is not a permutation of the 2 dimensions of '!cgc.tensor<constant 3x4x!cgc.float32>'}}
    %a = cgc.constant("w") {permutation = [1, 2]} : !cgc.tensor<constant 3x4x!cgc.float32>
    cgc.return %a : !cgc.tensor<constant 3x4x!cgc.float32>
  }
}

// -----

// A permutation is a list of integers.
cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<constant 3x4x!cgc.float32> {
    // expected-error @+1 {{'cgc.constant' op 'permutation' must be a list of 64-bit integers, got "1, 0"}}
    %a = cgc.constant("w") {permutation = "1, 0"} : !cgc.tensor<constant 3x4x!cgc.float32>
    cgc.return %a : !cgc.tensor<constant 3x4x!cgc.float32>
  }
}

// -----

// An empty permutation on a rank-1 constant.
cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<constant 4x!cgc.float32> {
    // expected-error @+1 {{'cgc.constant' op permutation [] is not a permutation of the 1 dimensions of '!cgc.tensor<constant 4x!cgc.float32>'}}
    %a = cgc.constant("w") {permutation = []} : !cgc.tensor<constant 4x!cgc.float32>
    cgc.return %a : !cgc.tensor<constant 4x!cgc.float32>
  }
}

// -----

// References of one name agree on the stored shape: 8x2x3x4 permuted by
// [0, 2, 3, 1] is 8x3x4x2, not 8x2x3x4.
cgc.module {
  cgc.entry_point @main() -> !cgc.tensor<constant 8x2x3x4x!cgc.float32> {
    // expected-note @+1 {{first referenced here}}
    %a = cgc.constant("w") : !cgc.tensor<constant 8x2x3x4x!cgc.float32>
    // expected-error @+1 {{'cgc.constant' op constant "w" has stored type '!cgc.tensor<constant 8x4x2x3x!cgc.float32>' but is also referenced as '!cgc.tensor<constant 8x2x3x4x!cgc.float32>'}}
    %b = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.tensor<constant 8x2x3x4x!cgc.float32>
    cgc.return %a : !cgc.tensor<constant 8x2x3x4x!cgc.float32>
  }
}

// -----

cgc.module {
  cgc.program @main(%scratch: !cgc.memref<128x!cgc.int8>) {
    // expected-error @+1 {{'cgc.view_memref' op offset -4 must be non-negative}}
    %0 = cgc.view_memref %scratch[-4] : !cgc.memref<128x!cgc.int8> to !cgc.memref<4x!cgc.float32>
    cgc.return
  }
}

// -----

cgc.module {
  cgc.program @main(%scratch: !cgc.memref<128x!cgc.int8>) {
    // expected-error @+1 {{'cgc.view_memref' op view of 64 bytes at offset 96 ends at byte 160, past the end of its 128-byte source}}
    %0 = cgc.view_memref %scratch[96] : !cgc.memref<128x!cgc.int8> to !cgc.memref<16x!cgc.float32>
    cgc.return
  }
}

// -----

cgc.module {
  cgc.program @main(%scratch: !cgc.memref<128x!cgc.int8>) {
    // expected-error @+1 {{'cgc.view_memref' op offset 6 is not a multiple of the view's 4-byte element alignment}}
    %0 = cgc.view_memref %scratch[6] : !cgc.memref<128x!cgc.int8> to !cgc.memref<4x!cgc.float32>
    cgc.return
  }
}

// -----

cgc.module {
  cgc.program @main(%scratch: !cgc.memref<128x!cgc.int8>) {
    // expected-error @+1 {{'cgc.view_memref' op a view of a non-constant memref must be non-constant too}}
    %0 = cgc.view_memref %scratch[0] : !cgc.memref<128x!cgc.int8> to !cgc.memref<constant 4x!cgc.float32>
    cgc.return
  }
}

// -----

cgc.module {
  cgc.program @main(%x: !cgc.memref<4x!cgc.float32>) {
    // expected-error @+1 {{'cgc.invoke' op callee @missing does not resolve to a symbol}}
    cgc.invoke @missing(%x) : (!cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.partition @inner(%x: !cgc.memref<4x!cgc.float32>) {
    cgc.return
  }
  cgc.partition @outer(%x: !cgc.memref<4x!cgc.float32>) {
    // expected-error @+1 {{'cgc.invoke' op in a cgc.partition must invoke a cgc.subgraph, but @inner is a 'cgc.partition'}}
    cgc.invoke @inner(%x) : (!cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.subgraph @id attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.program @main(%x: !cgc.memref<4x!cgc.float32>, %y: !cgc.memref<4x!cgc.float32>) {
    // expected-error @+1 {{'cgc.invoke' op in a cgc.program must invoke a cgc.partition, but @id is a 'cgc.subgraph'}}
    cgc.invoke @id(%x, %y) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.subgraph @id attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.partition @p(%x: !cgc.memref<4x!cgc.float32>) {
    // expected-error @+1 {{'cgc.invoke' op passes 1 operands but @id takes 2}}
    cgc.invoke @id(%x) : (!cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.subgraph @id attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.partition @p(%x: !cgc.memref<4x!cgc.float32>, %y: !cgc.memref<4x!cgc.float16>) {
    // expected-error @+1 {{'cgc.invoke' op operand #1 has type '!cgc.memref<4x!cgc.float16>' but @id expects '!cgc.memref<4x!cgc.float32>'}}
    cgc.invoke @id(%x, %y) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float16>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.subgraph @scale attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>, %w: !cgc.tensor<constant 4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.partition @p(%x: !cgc.memref<4x!cgc.float32>, %w: !cgc.memref<4x!cgc.float32>, %y: !cgc.memref<4x!cgc.float32>) {
    // expected-error @+1 {{'cgc.invoke' op operand #1 must be constant: parameter #1 of @scale is constant}}
    cgc.invoke @scale(%x, %w, %y) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.subgraph @id attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.partition @p(%x: !cgc.memref<4x!cgc.float32>, %w: !cgc.memref<constant 4x!cgc.float32>) {
    // expected-error @+1 {{'cgc.invoke' op operand #1 is constant but @id writes it: constants are read-only}}
    cgc.invoke @id(%x, %w) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<constant 4x!cgc.float32>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.subgraph @id attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      cgc.return %x : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.partition @copy(%x: !cgc.memref<4x!cgc.float32>, %y: !cgc.memref<4x!cgc.float32>) {
    cgc.invoke @id(%x, %y) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>)
    cgc.return
  }
  cgc.program @main(%x: !cgc.memref<4x!cgc.float32>) {
    %w = cgc.constant("w") : !cgc.memref<constant 4x!cgc.float32>
    // expected-error @+1 {{'cgc.invoke' op operand #1 is constant but @copy writes it: constants are read-only}}
    cgc.invoke @copy(%x, %w) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<constant 4x!cgc.float32>)
    cgc.return
  }
}

// -----

cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    // expected-error @+1 {{'cgc.return' op returns 0 values but 'cgc.entry_point' @main declares 1 results}}
    cgc.return
  }
}

// -----

cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float16>) -> !cgc.tensor<4x!cgc.float32> {
    // expected-error @+1 {{'cgc.return' op operand #0 has type '!cgc.tensor<4x!cgc.float16>' but the enclosing function returns '!cgc.tensor<4x!cgc.float32>'}}
    cgc.return %x : !cgc.tensor<4x!cgc.float16>
  }
}

// -----

// expected-error @+1 {{expected static shape}}
cgc.module { cgc.entry_point @main(%x: !cgc.tensor<?x4x!cgc.float32>) { cgc.return } }
