// A target whose fused convolutions are NHWC: its declaration asks for the
// compiler's channels-last form (cgc.preferred_layout), and its pattern takes
// a convolution with its private transposes and the relus after it.
cgc.module attributes {cgc.preferred_layout = "channels_last"} {
  cgc_pattern.pattern @conv_nhwc benefit(10) {
    %x = cgc_pattern.input {rank = 4}
    %w = cgc_pattern.input {rank = 4}
    %b = cgc_pattern.input {optional}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %wt = cgc_pattern.layer "cgc_op.transpose"(%w) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%xt, %wt, %b)
    %y = cgc_pattern.layer "cgc_op.transpose"(%conv) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %out = cgc_pattern.elementwise_chain(%y) {layers = ["cgc_op.add", "cgc_op.relu"], max_extra_inputs = 1}
    cgc_pattern.root %out
  }
}
