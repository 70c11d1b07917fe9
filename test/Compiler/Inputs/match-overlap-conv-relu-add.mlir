// Target "c": convolution, relu, add, benefit 5 like target "a"'s pattern but
// one layer larger.
cgc.module {
  cgc_pattern.pattern @conv_relu_add benefit(5) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %y = cgc_pattern.input
    %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w)
    %relu = cgc_pattern.layer "cgc_op.relu"(%conv)
    %add = cgc_pattern.layer "cgc_op.add"(%relu, %y)
    cgc_pattern.root %add
  }
}
