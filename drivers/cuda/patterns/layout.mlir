// The CUDA driver's fused layout patterns (kernels/FusedLayout.cpp). Each
// pattern says exactly what the fused kernel implements.
cgc.module {
  // A cast between float32, float16 and bfloat16 and a transpose, in either
  // order, the first private to the second: a float32 model's NCHW input
  // converted for a float16 computation and transposed to NHWC for the
  // first convolution (ResNet-50, MobileNetV2). One strided kernel reads
  // each element once through the transpose's strides, converts it as the
  // cast does (through float) and writes it once; an NCHW -> NHWC transpose
  // of fewer than 16 channels has each thread write one pixel's channels
  // side by side.
  // * any rank and permutation;
  // * only float32, float16 and bfloat16 on both sides of the cast.
  //
  // Benefit 2: above the elementwise chains (1), so that the cast goes with
  // its transpose, below every family whose prologue or epilogue would take
  // either layer.
  cgc_pattern.pattern @cast_transpose benefit(2) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %c = cgc_pattern.layer "cgc_op.cast"(%x) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %t = cgc_pattern.layer "cgc_op.transpose"(%c)
    cgc_pattern.root %t
  }

  cgc_pattern.pattern @transpose_cast benefit(2) {
    %x = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %t = cgc_pattern.layer "cgc_op.transpose"(%x)
    %c = cgc_pattern.layer "cgc_op.cast"(%t) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    cgc_pattern.root %c
  }
}
