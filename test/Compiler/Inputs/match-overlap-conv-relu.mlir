// Target "a": convolution then relu, benefit 5.
cgc.module {
  cgc_pattern.pattern @conv_relu benefit(5) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w)
    %relu = cgc_pattern.layer "cgc_op.relu"(%conv)
    cgc_pattern.root %relu
  }
}
