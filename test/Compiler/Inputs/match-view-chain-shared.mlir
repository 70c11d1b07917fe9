// A target whose attention reads q, kT and v through strides, selections
// included: chains of transposes, reshapes and gathers of one constant
// index into each operand (the chains of one match may share layers), q
// and kT scaled on their way in, and transposes and reshapes after the
// product. The CUDA driver's `attention_4d_scaled_inputs_views`, smaller.
cgc.module {
  cgc_pattern.pattern @heads benefit(10) {
    %q = cgc_pattern.input
    %a = cgc_pattern.input
    %kt = cgc_pattern.input
    %b = cgc_pattern.input
    %v = cgc_pattern.input
    %qh = cgc_pattern.view_chain(%q) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %kth = cgc_pattern.view_chain(%kt) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %vh = cgc_pattern.view_chain(%v) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %qs = cgc_pattern.layer "cgc_op.mul"(%qh, %a)
    %kts = cgc_pattern.layer "cgc_op.mul"(%kth, %b)
    %s = cgc_pattern.layer "cgc_op.matmul"(%qs, %kts)
    %p = cgc_pattern.layer "cgc_op.softmax"(%s)
    %o = cgc_pattern.layer "cgc_op.matmul"(%p, %vh)
    %out = cgc_pattern.view_chain(%o) {max_length = 6}
    cgc_pattern.root %out
  }
}
