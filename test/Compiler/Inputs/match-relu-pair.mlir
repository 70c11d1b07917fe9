// Two relus in a row.
cgc.module {
  cgc_pattern.pattern @relu_pair benefit(1) {
    %x = cgc_pattern.input
    %first = cgc_pattern.layer "cgc_op.relu"(%x)
    %second = cgc_pattern.layer "cgc_op.relu"(%first)
    cgc_pattern.root %second
  }
}
