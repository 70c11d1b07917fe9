// The CUDA driver's fused normalization patterns (kernels/FusedNormalization.cpp). Each
// pattern says exactly what the fused kernel implements.
//
// One layer_norm (scale and optional bias subgraph arguments) or softmax
// (any axis), of any float type, with elementwise neighbours evaluated in
// the same kernel:
// * a prologue producing its input: an anchor layer (add: a residual or
//   attention mask; sub, mul, div: a scaling; cast: a precision change)
//   and the greedy chain after it, up to the normalization;
// * an epilogue: the greedy chain of elementwise layers after it (possibly
//   empty, so that a lone layer_norm or softmax also runs here, with float
//   accumulation and its row kept on chip).
// Chain layers keep the normalized tensor's type and take at most two other
// operands, subgraph arguments that broadcast to it.
//
// Benefit 5: above the elementwise chains (a residual add belongs with the
// layer_norm after it), below matmul epilogues (a bias and residual add
// after a product belong with it) and attention (whose softmax and mask add
// it takes whole).
cgc.module {
  cgc_pattern.pattern @add_layer_norm benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %scale = cgc_pattern.input
    %bias = cgc_pattern.input {optional}
    %first = cgc_pattern.layer "cgc_op.add"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.layer_norm"(%input, %scale, %bias)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @sub_layer_norm benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %scale = cgc_pattern.input
    %bias = cgc_pattern.input {optional}
    %first = cgc_pattern.layer "cgc_op.sub"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.layer_norm"(%input, %scale, %bias)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @mul_layer_norm benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %scale = cgc_pattern.input
    %bias = cgc_pattern.input {optional}
    %first = cgc_pattern.layer "cgc_op.mul"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.layer_norm"(%input, %scale, %bias)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @div_layer_norm benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %scale = cgc_pattern.input
    %bias = cgc_pattern.input {optional}
    %first = cgc_pattern.layer "cgc_op.div"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.layer_norm"(%input, %scale, %bias)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @cast_layer_norm benefit(5) {
    %a = cgc_pattern.input
    %scale = cgc_pattern.input
    %bias = cgc_pattern.input {optional}
    %first = cgc_pattern.layer "cgc_op.cast"(%a)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.layer_norm"(%input, %scale, %bias)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @layer_norm benefit(5) {
    %x = cgc_pattern.input
    %scale = cgc_pattern.input
    %bias = cgc_pattern.input {optional}
    %normalized = cgc_pattern.layer "cgc_op.layer_norm"(%x, %scale, %bias)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @add_softmax benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %first = cgc_pattern.layer "cgc_op.add"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.softmax"(%input)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @sub_softmax benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %first = cgc_pattern.layer "cgc_op.sub"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.softmax"(%input)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @mul_softmax benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %first = cgc_pattern.layer "cgc_op.mul"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.softmax"(%input)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @div_softmax benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %first = cgc_pattern.layer "cgc_op.div"(%a, %b)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.softmax"(%input)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @cast_softmax benefit(5) {
    %a = cgc_pattern.input
    %first = cgc_pattern.layer "cgc_op.cast"(%a)
    %input = cgc_pattern.elementwise_chain(%first) {max_extra_inputs = 2}
    %normalized = cgc_pattern.layer "cgc_op.softmax"(%input)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @softmax benefit(5) {
    %x = cgc_pattern.input
    %normalized = cgc_pattern.layer "cgc_op.softmax"(%x)
    %out = cgc_pattern.elementwise_chain(%normalized) {max_extra_inputs = 2}
    cgc_pattern.root %out
  }
}
