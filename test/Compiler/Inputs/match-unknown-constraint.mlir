// A pattern naming a constraint this compiler does not evaluate.
cgc.module {
  cgc_pattern.pattern @mystery benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.constraint "cgc.tensor_cores"(%x)
    cgc_pattern.root %r
  }
}
