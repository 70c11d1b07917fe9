// A matmul + relu whose relu feeds a second matmul + relu, the first relu
// also a result of the subgraph (cgc_pattern.root's outputs).
cgc.module {
  cgc_pattern.pattern @matmul_relu_pair benefit(5) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %c = cgc_pattern.input
    %m1 = cgc_pattern.layer "cgc_op.matmul"(%a, %b)
    %first = cgc_pattern.layer "cgc_op.relu"(%m1)
    %m2 = cgc_pattern.layer "cgc_op.matmul"(%first, %c)
    %second = cgc_pattern.layer "cgc_op.relu"(%m2)
    cgc_pattern.root %second outputs(%first)
  }
}
