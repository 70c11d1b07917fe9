// The CUDA driver's fused pooling patterns (kernels/FusedPooling.cpp). Each
// pattern says exactly what the fused kernel implements.
cgc.module {
  // A 2-D max_pool or average_pool in the compiler's channels-last form (its
  // cgc-channels-last pass; the driver's declaration asks for it with
  // cgc.preferred_layout): the NHWC input transposed to NCHW for the pool
  // alone, the pool, its result transposed back to NHWC. The kernel pools
  // the NHWC memory as it is, 16 bytes of channels per thread where the
  // channel count allows (ResNet's stem pool, between the stem convolution
  // and the first block's):
  // * float32, float16 and bfloat16 (maxima in float, sums in double);
  // * any kernel shape, strides, dilations and padding, ceil_mode and
  //   count_include_pad;
  // * only rank 4 and exactly these permutations; the transposes are
  //   private to the pool (the matcher keeps every value but the root inside
  //   the match).
  cgc_pattern.pattern @max_pool_nhwc benefit(12) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %pool = cgc_pattern.layer "cgc_op.max_pool"(%xt)
    %y = cgc_pattern.layer "cgc_op.transpose"(%pool) {op_attributes = {permutation = [0, 2, 3, 1]}}
    cgc_pattern.root %y
  }

  cgc_pattern.pattern @average_pool_nhwc benefit(12) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %pool = cgc_pattern.layer "cgc_op.average_pool"(%xt)
    %y = cgc_pattern.layer "cgc_op.transpose"(%pool) {op_attributes = {permutation = [0, 2, 3, 1]}}
    cgc_pattern.root %y
  }

  // A global_average_pool or global_max_pool of an NHWC tensor: the input
  // transposed to NCHW for the pool alone, then the pool, whose N×C×1×1
  // result is also N×1×1×C (the last convolution's output of ResNet-50 and
  // MobileNetV2, before the classifier). The kernel reduces the NHWC
  // memory as it is, 16 bytes of channels per thread where the channel
  // count allows:
  // * float32, float16 and bfloat16 (maxima in float, sums in double);
  // * planes of at most 256 pixels: a larger one is refused and runs as the
  //   transpose and the NCHW pool;
  // * only rank 4 and exactly this permutation, the transpose private to
  //   the pool.
  cgc_pattern.pattern @global_average_pool_nhwc benefit(12) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %pool = cgc_pattern.layer "cgc_op.global_average_pool"(%xt)
    cgc_pattern.root %pool
  }

  cgc_pattern.pattern @global_max_pool_nhwc benefit(12) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %xt = cgc_pattern.layer "cgc_op.transpose"(%x) {op_attributes = {permutation = [0, 3, 1, 2]}}
    %pool = cgc_pattern.layer "cgc_op.global_max_pool"(%xt)
    cgc_pattern.root %pool
  }
}
