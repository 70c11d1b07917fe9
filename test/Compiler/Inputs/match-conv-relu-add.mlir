// A driver target that fuses the spec's conv -> relu -> add(relu, x), with
// constant weights and bias: the spec's "Driver-Target Subgraph".
cgc.module {
  cgc_pattern.pattern @conv_relu_add benefit(10) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input {constant}
    %b = cgc_pattern.input {constant}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b)
    %relu = cgc_pattern.layer "cgc_op.relu"(%conv)
    %add = cgc_pattern.layer "cgc_op.add"(%relu, %x)
    cgc_pattern.root %add
  }
}
