// Target "b": relu then an add of its result, benefit 7.
cgc.module {
  cgc_pattern.pattern @relu_add benefit(7) {
    %x = cgc_pattern.input
    %y = cgc_pattern.input
    %relu = cgc_pattern.layer "cgc_op.relu"(%x)
    %add = cgc_pattern.layer "cgc_op.add"(%relu, %y)
    cgc_pattern.root %add
  }
}
