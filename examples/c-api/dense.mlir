// One dense layer, y = relu(x · W + b), as a CGC_SUBGRAPH_PARTITION: the unit
// of work a driver compiles into a state object. run_program dispatches it
// twice, with two sets of weights, to make a two-layer network.
//
// The partition's arguments are its bind points, in order: 0 x (4x8), 1 W
// (8x8), 2 b (8), 3 y (4x8), all float32. W and b are constant (weights).
// Sealed into a container by `cgc-opt dense.mlir --emit-container=partition`.

cgc.module {
  cgc.subgraph @denseRelu attributes {origin = "cpu"} {
    cgc.functional_definition private @denseReluFunctional(
        %x: !cgc.tensor<4x8x!cgc.float32>,
        %w: !cgc.tensor<constant 8x8x!cgc.float32>,
        %b: !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<4x8x!cgc.float32> {
      %0 = cgc_op.matmul(%x, %w)
          : (!cgc.tensor<4x8x!cgc.float32>, !cgc.tensor<constant 8x8x!cgc.float32>) -> !cgc.tensor<4x8x!cgc.float32>
      %1 = cgc_op.add(%0, %b)
          : (!cgc.tensor<4x8x!cgc.float32>, !cgc.tensor<constant 8x!cgc.float32>) -> !cgc.tensor<4x8x!cgc.float32>
      %2 = cgc_op.relu(%1) : (!cgc.tensor<4x8x!cgc.float32>) -> !cgc.tensor<4x8x!cgc.float32>
      cgc.return %2 : !cgc.tensor<4x8x!cgc.float32>
    }
  }

  cgc.partition @dense(
      %x: !cgc.memref<4x8x!cgc.float32>,
      %w: !cgc.memref<constant 8x8x!cgc.float32>,
      %b: !cgc.memref<constant 8x!cgc.float32>,
      %y: !cgc.memref<4x8x!cgc.float32>) {
    cgc.invoke @denseRelu(%x, %w, %b, %y)
        : (!cgc.memref<4x8x!cgc.float32>, !cgc.memref<constant 8x8x!cgc.float32>, !cgc.memref<constant 8x!cgc.float32>, !cgc.memref<4x8x!cgc.float32>)
    cgc.return
  }
}
