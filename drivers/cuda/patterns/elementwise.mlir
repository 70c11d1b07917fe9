// The CUDA driver's fused elementwise patterns (kernels/FusedElementwise.cpp). Each
// pattern says exactly what the fused kernel implements.
//
// Two or more connected elementwise layers of a floating-point type
// (float32, float16, bfloat16, float64): an anchor layer, then the greedy
// chain of elementwise layers after it (any layer with the Elementwise trait
// whose result keeps the anchor's type, so neither comparisons nor logic),
// each taking at most two other operands (where's condition and other
// value), subgraph arguments that broadcast to the anchor's result. The
// anchor's own operands may have any type and broadcast to its result (a
// cast of an integer mask, a binary layer with a broadcast operand). The
// kernel evaluates every layer of the subgraph per output element in
// registers, reading each argument once through broadcast strides.
//
// One pattern per anchor layer kind (arithmetic, where, cast, prelu and
// the activations; a chain starting at a rarer layer matches from its
// second layer on): among the matches of one chain the longest, anchored at
// its first layer, wins at equal benefit.
//
// Benefit 1: below every other family, whose epilogues and prologues take
// elementwise layers next to a convolution, product, attention or
// normalization first.
cgc.module {
  cgc_pattern.pattern @elementwise_add benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.add"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_sub benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.sub"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_mul benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.mul"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_div benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.div"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_pow benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.pow"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_max benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.max"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_min benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.min"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_prelu benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.prelu"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_where benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %c = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.where"(%a, %b, %c) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_cast benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.cast"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_relu benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.relu"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_leaky_relu benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.leaky_relu"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_sigmoid benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.sigmoid"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_tanh benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.tanh"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_gelu benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.gelu"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_erf benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.erf"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_exp benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.exp"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_log benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.log"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_sqrt benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.sqrt"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_reciprocal benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.reciprocal"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_neg benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.neg"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_abs benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.abs"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_clip benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.clip"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_hard_sigmoid benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.hard_sigmoid"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @elementwise_hard_swish benefit(1) {
    %a = cgc_pattern.input
    %anchor = cgc_pattern.layer "cgc_op.hard_swish"(%a) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16, !cgc.float64]}
    %out = cgc_pattern.elementwise_chain(%anchor) {min_length = 1, max_extra_inputs = 2}
    cgc_pattern.root %out
  }
}
