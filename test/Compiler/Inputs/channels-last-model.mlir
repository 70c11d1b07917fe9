// A ResNet block with a shortcut convolution, then a max pool.
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<1x4x8x8x!cgc.float32> {cgc.name = "x"}) -> (!cgc.tensor<1x6x2x2x!cgc.float32> {cgc.name = "y"}) {
    %w1 = cgc.constant("w1") : !cgc.tensor<constant 6x4x3x3x!cgc.float32>
    %b1 = cgc.constant("b1") : !cgc.tensor<constant 6x!cgc.float32>
    %w2 = cgc.constant("w2") : !cgc.tensor<constant 6x6x3x3x!cgc.float32>
    %ws = cgc.constant("ws") : !cgc.tensor<constant 6x4x1x1x!cgc.float32>
    %0 = cgc_op.convolution(%x, %w1, %b1) {start_padding = [1, 1], end_padding = [1, 1], strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 6x4x3x3x!cgc.float32>, !cgc.tensor<constant 6x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %1 = cgc_op.relu(%0) : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %2 = cgc_op.convolution(%1, %w2) {start_padding = [1, 1], end_padding = [1, 1]} : (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<constant 6x6x3x3x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %3 = cgc_op.convolution(%x, %ws) {strides = [2, 2]} : (!cgc.tensor<1x4x8x8x!cgc.float32>, !cgc.tensor<constant 6x4x1x1x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %4 = cgc_op.add(%2, %3) : (!cgc.tensor<1x6x4x4x!cgc.float32>, !cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %5 = cgc_op.relu(%4) : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x4x4x!cgc.float32>
    %6 = cgc_op.max_pool(%5) {kernel_shape = [2, 2], strides = [2, 2]} : (!cgc.tensor<1x6x4x4x!cgc.float32>) -> !cgc.tensor<1x6x2x2x!cgc.float32>
    cgc.return %6 : !cgc.tensor<1x6x2x2x!cgc.float32>
  }
}
