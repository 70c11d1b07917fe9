// The CUDA driver's convolution pair pattern (kernels/FusedConvolutionPair.cpp,
// ConvolutionPair.h): declared unless CGC_CUDA_CONVOLUTION_PAIR is 0
// (FusedTarget.cpp).
cgc.module {
  // Two channels-last pointwise convolutions in a row, each with its chain:
  // the first's result (Y: ResNet's block output after its residual add and
  // relu) is the second's input (the next block's first convolution) and a
  // result too, for its other readers (the next residual add, a
  // downsampling convolution). One generated kernel keeps Y's chunks on
  // chip between the two products and writes Y once, instead of writing
  // it and reading it back (ConvolutionPair.h).
  // * float16 and bfloat16; 1×1 weights, stride 1, unpadded, one group;
  // * input channels a multiple of 16 up to 128, Y's a multiple of 64, the
  //   second's output channels a multiple of 32 up to 128;
  // * first-chain operands per channel, plus at most one residual of Y's
  //   shape; second-chain operands per channel.
  // Anything else is refused when the driver is asked to specialize the
  // match, and the compiler matches the two convolutions apart.
  //
  // The family times the kernel against the two convolutions run apart
  // once on the device and keeps the faster: on an H100 (ResNet-50
  // float16, batch 256) the kernel takes a 56×56 join in 407 µs against
  // 502 µs apart, a 28×28 join in 323 µs against 269 µs apart.
  cgc_pattern.pattern @conv_nhwc_pair benefit(14) {
    %x = cgc_pattern.input {element_types = [!cgc.float16, !cgc.bfloat16], rank = 4}
    %w1 = cgc_pattern.input {rank = 4, shape = [-1, 1, 1, -1]}
    %b1 = cgc_pattern.input {optional}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %w1t = cgc_pattern.layer "cgc_op.transpose"(%w1) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %c1 = cgc_pattern.layer "cgc_op.convolution"(%xt, %w1t, %b1)
    %y1 = cgc_pattern.layer "cgc_op.transpose"(%c1) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %first = cgc_pattern.elementwise_chain(%y1) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    %w2 = cgc_pattern.input {rank = 4, shape = [-1, 1, 1, -1]}
    %b2 = cgc_pattern.input {optional}
    %ft = cgc_pattern.layer "cgc_op.transpose"(%first) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %w2t = cgc_pattern.layer "cgc_op.transpose"(%w2) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %c2 = cgc_pattern.layer "cgc_op.convolution"(%ft, %w2t, %b2)
    %y2 = cgc_pattern.layer "cgc_op.transpose"(%c2) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %second = cgc_pattern.elementwise_chain(%y2) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    cgc_pattern.root %second outputs(%first)
  }

  // The same join where the residual is a projection: a stage's first
  // block adds a pointwise convolution of the block's input (the
  // downsampling convolution, stride 1 in ResNet's first stage) instead of
  // the input itself. The kernel computes it in the first product (the two
  // inputs side by side along its depth, the two weights likewise), so the
  // projection's result never reaches memory and Y's first product reads
  // the projection's input instead of its 4× larger result.
  // * the projection: float16 or bfloat16, 1×1, stride 1, unpadded, one
  //   group, of the first convolution's pixels and output channels, its
  //   bias optional and no chain; the two inputs' channels together a
  //   multiple of 16 up to 128;
  // * the add of the two convolutions is the first layer after the first's
  //   bias; the rest as conv_nhwc_pair.
  // The family runs a matched projection only as the kernel (nothing to
  // time it against without a buffer for the projection's result);
  // anything the kernel does not take (a strided projection, more
  // channels) is refused, and the compiler matches conv_nhwc_pair and the
  // projection apart.
  cgc_pattern.pattern @conv_nhwc_pair_projection benefit(15) {
    %x = cgc_pattern.input {element_types = [!cgc.float16, !cgc.bfloat16], rank = 4}
    %w1 = cgc_pattern.input {rank = 4, shape = [-1, 1, 1, -1]}
    %b1 = cgc_pattern.input {optional}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %w1t = cgc_pattern.layer "cgc_op.transpose"(%w1) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %c1 = cgc_pattern.layer "cgc_op.convolution"(%xt, %w1t, %b1)
    %y1 = cgc_pattern.layer "cgc_op.transpose"(%c1) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %p = cgc_pattern.input {element_types = [!cgc.float16, !cgc.bfloat16], rank = 4}
    %wp = cgc_pattern.input {rank = 4, shape = [-1, 1, 1, -1]}
    %bp = cgc_pattern.input {optional}
    %pt = cgc_pattern.layer "cgc_op.transpose"(%p) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %wpt = cgc_pattern.layer "cgc_op.transpose"(%wp) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %cp = cgc_pattern.layer "cgc_op.convolution"(%pt, %wpt, %bp)
    %yp = cgc_pattern.layer "cgc_op.transpose"(%cp) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %sum = cgc_pattern.layer "cgc_op.add"(%y1, %yp)
    %first = cgc_pattern.elementwise_chain(%sum) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    %w2 = cgc_pattern.input {rank = 4, shape = [-1, 1, 1, -1]}
    %b2 = cgc_pattern.input {optional}
    %ft = cgc_pattern.layer "cgc_op.transpose"(%first) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %w2t = cgc_pattern.layer "cgc_op.transpose"(%w2) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %c2 = cgc_pattern.layer "cgc_op.convolution"(%ft, %w2t, %b2)
    %y2 = cgc_pattern.layer "cgc_op.transpose"(%c2) {op_attributes = {permutation = [0, 2, 3, 1]}}
    %second = cgc_pattern.elementwise_chain(%y2) {
      layers = ["cgc_op.add", "cgc_op.mul", "cgc_op.relu", "cgc_op.leaky_relu",
                "cgc_op.clip", "cgc_op.sigmoid", "cgc_op.tanh", "cgc_op.gelu",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish"],
      max_extra_inputs = 1}
    cgc_pattern.root %second outputs(%first)
  }
}
