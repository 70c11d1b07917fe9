// One case per verifier error of the cgc_pattern dialect.
// RUN: cgc-opt %s -split-input-file -verify-diagnostics

// A pattern lives in a cgc.module.
// expected-error @+1 {{'cgc_pattern.pattern' op expects parent op 'cgc.module'}}
cgc_pattern.pattern @orphan benefit(1) {
  %x = cgc_pattern.input
  %r = cgc_pattern.layer "cgc_op.relu"(%x)
  cgc_pattern.root %r
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc_pattern.pattern' op attribute 'benefit' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  cgc_pattern.pattern @negative benefit(-1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @unused_input benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.input' op is not an operand of any layer or view chain: every input must be consumed by the match}}
    %unused = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @input_only_constrained benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.input' op is not an operand of any layer}}
    %y = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.constraint "cgc.same_shape"(%x, %y)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @dead_layer benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.layer' op result is not used by a layer, a chain or the root: every value of a pattern must reach its root}}
    %dead = cgc_pattern.layer "cgc_op.neg"(%x)
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.constraint "cgc.same_shape"(%dead, %r)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @dead_chain benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op result is not used by a layer, a chain or the root}}
    %chain = cgc_pattern.elementwise_chain(%r)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @dead_view_chain benefit(1) {
    %x = cgc_pattern.input
    %y = cgc_pattern.input
    // An input read by a view chain only is consumed, but the chain's value
    // must then reach the root: a constraint does not count.
    // expected-error @+1 {{'cgc_pattern.view_chain' op result is not used by a layer, a chain or the root}}
    %v = cgc_pattern.view_chain(%y)
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.constraint "cgc.same_shape"(%v, %r)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  // expected-error @+1 {{'cgc_pattern.pattern' op expects a non-empty block}}
  cgc_pattern.pattern @empty benefit(1) {
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @no_root benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{block with no terminator}}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @root_is_input benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.root' op the root must name a layer or chain result, not an input: a pattern produces what it matches}}
    cgc_pattern.root %x
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @one benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
  // expected-error @+2 {{redefinition of symbol named 'one'}}
  // expected-note @-6 {{see existing symbol definition here}}
  cgc_pattern.pattern @one benefit(2) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

// Ops other than the pattern live in a pattern.
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    // expected-error @+1 {{'cgc_pattern.input' op expects parent op 'cgc_pattern.pattern'}}
    %p = cgc_pattern.input
    cgc.return %x : !cgc.tensor<4x!cgc.float32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// cgc_pattern.input
//===----------------------------------------------------------------------===//

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    // expected-error @+1 {{'cgc_pattern.input' op element_types holds 'i32', which is not a cgc element type}}
    %x = cgc_pattern.input {element_types = [i32]}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    // expected-error @+1 {{'cgc_pattern.input' op element_types lists '!cgc.float32' twice}}
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float32]}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    // expected-error @+1 {{'cgc_pattern.input' op element_types must not be empty: leave it out to allow any}}
    %x = cgc_pattern.input {element_types = []}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    // expected-error @+1 {{'cgc_pattern.input' op attribute 'element_types' failed to satisfy constraint: type array attribute}}
    %x = cgc_pattern.input {element_types = ["float32"]}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    // expected-error @+1 {{'cgc_pattern.input' op rank must be non-negative, got -2}}
    %x = cgc_pattern.input {rank = -2}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    // expected-error @+1 {{'cgc_pattern.input' op shape sizes must be -1 (any) or non-negative, got -3}}
    %x = cgc_pattern.input {shape = [1, -3]}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    // expected-error @+1 {{'cgc_pattern.input' op shape has 3 sizes but rank is 4}}
    %x = cgc_pattern.input {rank = 4, shape = [1, -1, 8]}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
}

// -----

//===----------------------------------------------------------------------===//
// cgc_pattern.layer
//===----------------------------------------------------------------------===//

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.layer' op layer 'cgc_op.frobnicate' is not a registered cgc_op layer}}
    %r = cgc_pattern.layer "cgc_op.frobnicate"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.layer' op layer 'cgc.constant' is not a cgc_op layer: patterns match cgc_op layers only}}
    %r = cgc_pattern.layer "cgc.constant"(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.layer' op 'cgc_op.convolution' has no attribute 'dilation'}}
    %r = cgc_pattern.layer "cgc_op.convolution"(%x, %w) {op_attributes = {dilation = [1, 1]}}
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.layer' op must have at least one operand}}
    %r = cgc_pattern.layer "cgc_op.relu"()
    %s = cgc_pattern.layer "cgc_op.add"(%r, %x)
    cgc_pattern.root %s
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %b = cgc_pattern.input {optional}
    // expected-error @+1 {{'cgc_pattern.layer' op operand #1 follows an optional input: only trailing operands may be optional}}
    %r = cgc_pattern.layer "cgc_op.add"(%b, %x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.layer' op element_types holds 'f32', which is not a cgc element type}}
    %r = cgc_pattern.layer "cgc_op.relu"(%x) {element_types = [f32]}
    cgc_pattern.root %r
  }
}

// -----

//===----------------------------------------------------------------------===//
// cgc_pattern.elementwise_chain
//===----------------------------------------------------------------------===//

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op anchor must be a layer or chain result, not an input: a chain continues a matched layer}}
    %c = cgc_pattern.elementwise_chain(%x)
    %s = cgc_pattern.layer "cgc_op.add"(%r, %c)
    cgc_pattern.root %s
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op min_length must be non-negative, got -1}}
    %c = cgc_pattern.elementwise_chain(%r) {min_length = -1}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op max_length 0 matches no layer: leave the chain out}}
    %c = cgc_pattern.elementwise_chain(%r) {max_length = 0}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op max_length (2) must be -1 (unbounded) or at least min_length (3)}}
    %c = cgc_pattern.elementwise_chain(%r) {min_length = 3, max_length = 2}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op max_extra_inputs must be non-negative, got -1}}
    %c = cgc_pattern.elementwise_chain(%r) {max_extra_inputs = -1}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op layers must not be empty: leave it out instead}}
    %c = cgc_pattern.elementwise_chain(%r) {layers = []}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op chain layer 'cgc_op.rleu' is not a registered cgc_op layer}}
    %c = cgc_pattern.elementwise_chain(%r) {layers = ["cgc_op.rleu"]}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op chain layer 'relu' is not a cgc_op layer: patterns match cgc_op layers only}}
    %c = cgc_pattern.elementwise_chain(%r) {layers = ["relu"]}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op chain layer 'cgc_op.softmax' is not elementwise (it lacks the Elementwise trait)}}
    %c = cgc_pattern.elementwise_chain(%r) {layers = ["cgc_op.relu", "cgc_op.softmax"]}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op layers lists 'cgc_op.add' twice}}
    %c = cgc_pattern.elementwise_chain(%r) {layers = ["cgc_op.add", "cgc_op.relu", "cgc_op.add"]}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op value-first layer "cgc_op.prelu" is not one of the chain's layers}}
    %c = cgc_pattern.elementwise_chain(%r) {layers = ["cgc_op.add"], value_first_layers = ["cgc_op.prelu"]}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op chain layer 'cgc_op.matmul' is not elementwise}}
    %c = cgc_pattern.elementwise_chain(%r) {value_first_layers = ["cgc_op.matmul"]}
    cgc_pattern.root %c
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %v = cgc_pattern.view_chain(%x)
    // expected-error @+1 {{'cgc_pattern.elementwise_chain' op anchor is a view chain of an input that may match no layer: a chain continues a matched layer (give the view chain min_length >= 1)}}
    %c = cgc_pattern.elementwise_chain(%v)
    %r = cgc_pattern.layer "cgc_op.relu"(%c)
    cgc_pattern.root %r
  }
}

// -----

//===----------------------------------------------------------------------===//
// cgc_pattern.view_chain
//===----------------------------------------------------------------------===//

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %v = cgc_pattern.view_chain(%x)
    // expected-error @+1 {{'cgc_pattern.view_chain' op anchor is another view chain: one chain allowing the layers of both says the same}}
    %w = cgc_pattern.view_chain(%v) {layers = ["cgc_op.transpose"]}
    %r = cgc_pattern.layer "cgc_op.relu"(%w)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %u = builtin.unrealized_conversion_cast to !cgc_pattern.value
    // expected-error @+1 {{'cgc_pattern.view_chain' op anchor must be an input, a layer or an elementwise chain result}}
    %v = cgc_pattern.view_chain(%u)
    %r = cgc_pattern.layer "cgc_op.add"(%x, %v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %b = cgc_pattern.input {optional}
    // expected-error @+1 {{'cgc_pattern.view_chain' op anchor is an optional input, which may be absent: a view chain needs a value to read}}
    %bv = cgc_pattern.view_chain(%b)
    %r = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %bv)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op min_length must be non-negative, got -1}}
    %v = cgc_pattern.view_chain(%x) {min_length = -1}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op max_length 0 matches no layer: leave the chain out}}
    %v = cgc_pattern.view_chain(%x) {max_length = 0}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.view_chain' op max_length (1) must be -1 (unbounded) or at least min_length (2)}}
    %v = cgc_pattern.view_chain(%r) {min_length = 2, max_length = 1}
    cgc_pattern.root %v
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op layers must not be empty: leave it out instead}}
    %v = cgc_pattern.view_chain(%x) {layers = []}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op chain layer 'cgc_op.squeeze' is not a registered cgc_op layer}}
    %v = cgc_pattern.view_chain(%x) {layers = ["cgc_op.transpose", "cgc_op.squeeze"]}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op chain layer 'transpose' is not a cgc_op layer: patterns match cgc_op layers only}}
    %v = cgc_pattern.view_chain(%x) {layers = ["transpose"]}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

// A binary layer reads two values: the chain could not tell which one it
// continues (cgc_op.gather, a selection, is the exception: the chain
// continues its data).
cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op chain layer 'cgc_op.add' does not have exactly one operand and one result}}
    %v = cgc_pattern.view_chain(%x) {layers = ["cgc_op.reshape", "cgc_op.add"]}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op chain layer 'cgc_op.split' does not have exactly one operand and one result}}
    %v = cgc_pattern.view_chain(%x) {layers = ["cgc_op.split"]}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    // expected-error @+1 {{'cgc_pattern.view_chain' op layers lists 'cgc_op.reshape' twice}}
    %v = cgc_pattern.view_chain(%x) {layers = ["cgc_op.reshape", "cgc_op.transpose", "cgc_op.reshape"]}
    %r = cgc_pattern.layer "cgc_op.relu"(%v)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %v = cgc_pattern.view_chain(%x) {max_length = 2}
    // expected-error @+1 {{'cgc_pattern.root' op the root names a view chain of an input that may match no layer: give it min_length >= 1, a pattern produces what it matches}}
    cgc_pattern.root %v
  }
}

// -----

//===----------------------------------------------------------------------===//
// cgc_pattern.constraint
//===----------------------------------------------------------------------===//

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.constraint' op must name a constraint}}
    cgc_pattern.constraint ""(%x)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{'cgc_pattern.constraint' op must constrain at least one value}}
    cgc_pattern.constraint "cgc.static_dims"()
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @p benefit(1) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %b = cgc_pattern.input {optional}
    %r = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b)
    // expected-error @+1 {{'cgc_pattern.constraint' op value #1 is an optional input, which a constraint cannot name: it may be absent}}
    cgc_pattern.constraint "cgc.same_element_type"(%x, %b)
    cgc_pattern.root %r
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @output_input benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    // expected-error @+1 {{output #0 must name a layer or chain result, not an input}}
    cgc_pattern.root %r outputs(%x)
  }
}

// -----

cgc.module {
  cgc_pattern.pattern @output_twice benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    %s = cgc_pattern.layer "cgc_op.relu"(%r)
    // expected-error @+1 {{output #1 names a value the root already names}}
    cgc_pattern.root %s outputs(%r, %r)
  }
}
