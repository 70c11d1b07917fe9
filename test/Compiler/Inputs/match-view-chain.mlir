// A target whose product reads its operands and writes its result through
// strides, so that it absorbs the transposes and reshapes around it: at most
// two views into each operand (transposes and reshapes), any number of
// transposes after the product. Worth more, tanh fused with a transpose on
// either side, to take views away from the product. And a softmax whose
// result may be transposed before an elementwise epilogue.
cgc.module {
  cgc_pattern.pattern @scores benefit(10) {
    %q = cgc_pattern.input
    %k = cgc_pattern.input
    %qv = cgc_pattern.view_chain(%q) {max_length = 2}
    %kv = cgc_pattern.view_chain(%k) {max_length = 2}
    %s = cgc_pattern.layer "cgc_op.matmul"(%qv, %kv)
    %out = cgc_pattern.view_chain(%s) {layers = ["cgc_op.transpose"]}
    cgc_pattern.root %out
  }
  cgc_pattern.pattern @tanh_transpose benefit(20) {
    %x = cgc_pattern.input
    %h = cgc_pattern.layer "cgc_op.tanh"(%x)
    %t = cgc_pattern.layer "cgc_op.transpose"(%h)
    cgc_pattern.root %t
  }
  cgc_pattern.pattern @transpose_tanh benefit(20) {
    %x = cgc_pattern.input
    %t = cgc_pattern.layer "cgc_op.transpose"(%x)
    %h = cgc_pattern.layer "cgc_op.tanh"(%t)
    cgc_pattern.root %h
  }
  cgc_pattern.pattern @softmax_epilogue benefit(5) {
    %x = cgc_pattern.input
    %p = cgc_pattern.layer "cgc_op.softmax"(%x)
    %v = cgc_pattern.view_chain(%p) {layers = ["cgc_op.transpose"]}
    %e = cgc_pattern.elementwise_chain(%v) {min_length = 1}
    cgc_pattern.root %e
  }
}
