// A small model in CGC Input IR: y = relu(a · b), a 2x3, b 3x4, float32.
// run_model runs it through the runtime's Session, which compiles it for the
// device with its driver's patterns. It has no constants, so no weights file.

cgc.module {
  cgc.entry_point @main(%a: !cgc.tensor<2x3x!cgc.float32>, %b: !cgc.tensor<3x4x!cgc.float32>)
      -> !cgc.tensor<2x4x!cgc.float32> {
    %0 = cgc_op.matmul(%a, %b)
        : (!cgc.tensor<2x3x!cgc.float32>, !cgc.tensor<3x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<2x4x!cgc.float32>) -> !cgc.tensor<2x4x!cgc.float32>
    cgc.return %1 : !cgc.tensor<2x4x!cgc.float32>
  }
}
