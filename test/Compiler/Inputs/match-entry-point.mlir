// Input IR where a declaration belongs: no patterns.
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    cgc.return %x : !cgc.tensor<4x!cgc.float32>
  }
}
