// A matmul with an epilogue of one or two elementwise layers of any kind
// (no `layers` list) that take no other operand; and, worth more, a lone cos.
cgc.module {
  cgc_pattern.pattern @matmul_short_epilogue benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %mm = cgc_pattern.layer "cgc_op.matmul"(%a, %b)
    %out = cgc_pattern.elementwise_chain(%mm) {min_length = 1, max_length = 2, max_extra_inputs = 0}
    cgc_pattern.root %out
  }
  cgc_pattern.pattern @lone_cos benefit(5) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.cos"(%x)
    cgc_pattern.root %r
  }
}
