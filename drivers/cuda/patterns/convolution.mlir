// The CUDA driver's fused convolution patterns (kernels/FusedConvolution.cpp). Each
// pattern says exactly what the fused kernel implements.
cgc.module {
  // Convolution, optional bias, then a chain of elementwise layers, run as one
  // cuDNN operation graph (or cuDNN's convolution and one generated epilogue
  // kernel when cuDNN has no plan for the graph): ResNet's conv → add(residual)
  // → relu, MobileNet's conv → clip(0, 6), depthwise ones included.
  // * float32, float16 and bfloat16 (computed in float32, no TF32); weights
  //   and bias need not be constant;
  // * 1-, 2- and 3-D convolutions (cuDNN's; higher ranks are refused when the
  //   driver is asked to specialize the match);
  // * the chain: add and mul (residuals, per-channel shifts and scales) and
  //   the activations relu, leaky_relu, clip, sigmoid, tanh, gelu,
  //   hard_sigmoid, hard_swish;
  // * each chain layer takes at most one other operand, a subgraph argument
  //   that broadcasts to the convolution's result.
  cgc_pattern.pattern @conv_bias_activation benefit(10) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %w = cgc_pattern.input
    %b = cgc_pattern.input {optional}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%x, %w, %b)
    %out = cgc_pattern.elementwise_chain(%conv) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    cgc_pattern.root %out
  }

  // The same in the compiler's channels-last form (its cgc-channels-last
  // pass; the driver's declaration asks for it with cgc.preferred_layout):
  // the NHWC input and the OHWI weight transposed to NCHW and OIHW for the
  // convolution alone, its result transposed back to NHWC, and the chain on
  // NHWC values. The kernel runs it on the NHWC memory without transposing
  // (cuDNN's tensor-core layout). Beyond conv_bias_activation's terms:
  // * only 2-D convolutions (rank 4) and exactly these permutations; the
  //   transposes are private to the convolution (the matcher keeps every
  //   value but the root inside the match);
  // * the chain's other operands broadcast to the NHWC result.
  cgc_pattern.pattern @conv_nhwc_bias_activation benefit(12) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %w = cgc_pattern.input {rank = 4}
    %b = cgc_pattern.input {optional}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %wt = cgc_pattern.layer "cgc_op.transpose"(%w) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%xt, %wt, %b)
    %y = cgc_pattern.layer "cgc_op.transpose"(%conv) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %out = cgc_pattern.elementwise_chain(%y) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    cgc_pattern.root %out
  }

  // conv_nhwc_bias_activation followed by a max pool of its result, in the
  // compiler's channels-last form (the pool's NHWC input transposed to NCHW
  // for the pool alone, its result transposed back): ResNet's first layer,
  // relu and 3×3 stride-2 pool. One generated kernel keeps the
  // convolution's rows on chip and writes only the pool's result.
  // * float16 and bfloat16; at most 8 input channels (a model's first
  //   layer), a multiple of 8 output channels up to 64, undilated, stride ×
  //   channels even;
  // * chain operands that vary along channels only (no residual);
  // * pools of at most 3×3, undilated, strides at most the window.
  // Anything else is refused when the driver is asked to specialize the
  // match, and the convolution and the pool match apart.
  cgc_pattern.pattern @conv_nhwc_bias_activation_max_pool benefit(13) {
    %x = cgc_pattern.input {element_types = [!cgc.float16, !cgc.bfloat16], rank = 4}
    %w = cgc_pattern.input {rank = 4}
    %b = cgc_pattern.input {optional}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %wt = cgc_pattern.layer "cgc_op.transpose"(%w) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%xt, %wt, %b)
    %y = cgc_pattern.layer "cgc_op.transpose"(%conv) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %out = cgc_pattern.elementwise_chain(%y) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    %pt = cgc_pattern.layer "cgc_op.transpose"(%out) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %pool = cgc_pattern.layer "cgc_op.max_pool"(%pt)
    %z = cgc_pattern.layer "cgc_op.transpose"(%pool) {op_attributes = {permutation = [0, 2, 3, 1]}}
    cgc_pattern.root %z
  }

  // conv_nhwc_bias_activation_max_pool reading a float32 NCHW image: the
  // image cast to the computation's type and transposed to NHWC (a float32
  // model run in float16 or bfloat16, the compiler's channels-last form),
  // the kernel converting each element as the cast does while it copies the
  // image's rows, so that neither the converted image nor its transpose
  // reaches memory (ResNet's input). Beyond that pattern's terms:
  // * a cast from float32 to float16 or bfloat16, private to its transpose
  //   NCHW → NHWC, private to the convolution's input transpose.
  cgc_pattern.pattern @cast_conv_nhwc_bias_activation_max_pool benefit(14) {
    %x = cgc_pattern.input {element_types = [!cgc.float32], rank = 4}
    %w = cgc_pattern.input {rank = 4}
    %b = cgc_pattern.input {optional}
    %c = cgc_pattern.layer "cgc_op.cast"(%x) {element_types = [!cgc.float16, !cgc.bfloat16]}
    %xn = cgc_pattern.layer "cgc_op.transpose"(%c) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%xn) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %wt = cgc_pattern.layer "cgc_op.transpose"(%w) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %conv = cgc_pattern.layer "cgc_op.convolution"(%xt, %wt, %b)
    %y = cgc_pattern.layer "cgc_op.transpose"(%conv) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %out = cgc_pattern.elementwise_chain(%y) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    %pt = cgc_pattern.layer "cgc_op.transpose"(%out) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %pool = cgc_pattern.layer "cgc_op.max_pool"(%pt)
    %z = cgc_pattern.layer "cgc_op.transpose"(%pool) {op_attributes = {permutation = [0, 2, 3, 1]}}
    cgc_pattern.root %z
  }
}
