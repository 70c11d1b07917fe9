// A convolution and the greedy elementwise chain after it, with at most one
// other operand per chain layer (the CUDA driver's conv_bias_activation).
cgc.module {
  cgc_pattern.pattern @conv_chain benefit(10) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w)
    %out = cgc_pattern.elementwise_chain(%conv) {layers = ["cgc_op.add", "cgc_op.relu"], max_extra_inputs = 1}
    cgc_pattern.root %out
  }
}
