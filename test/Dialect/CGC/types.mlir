// Every cgc element type, tensors and memrefs (ranked, rank 0, zero-sized,
// constant, a permuted constant) print back as they were written.
// RUN: cgc-opt %s | FileCheck %s
// RUN: cgc-opt %s | cgc-opt | FileCheck %s

// CHECK-LABEL: cgc.entry_point @element_types(
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.float32>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.float16>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.bfloat16>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.int8>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.uint8>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.int16>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.int32>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.int64>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.bool>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.float64>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.uint16>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.uint32>
// CHECK-SAME: %{{.*}}: !cgc.tensor<2x!cgc.uint64>
// CHECK-SAME: -> !cgc.tensor<2x!cgc.bool>
// CHECK-LABEL: cgc.entry_point @shapes(
// CHECK-SAME: %{{.*}}: !cgc.tensor<!cgc.int64>
// CHECK-SAME: %{{.*}}: !cgc.tensor<0x3x!cgc.float32>
// CHECK-SAME: %{{.*}}: !cgc.tensor<1x3x224x224x!cgc.float16>
// CHECK: cgc.constant("w") : !cgc.tensor<constant 1x1x3x3x!cgc.float32>
// CHECK-LABEL: cgc.program @memrefs(
// CHECK-SAME: %{{.*}}: !cgc.memref<!cgc.bfloat16>
// CHECK-SAME: %{{.*}}: !cgc.memref<128x!cgc.int8>
// CHECK-SAME: %{{.*}}: !cgc.memref<3x!cgc.float64>
// CHECK: cgc.constant("w") : !cgc.memref<constant 1x1x3x3x!cgc.float32>
// CHECK: cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.memref<constant 1x3x3x1x!cgc.float32>

cgc.module {
  cgc.entry_point @element_types(%f32: !cgc.tensor<2x!cgc.float32>, %f16: !cgc.tensor<2x!cgc.float16>,
      %bf16: !cgc.tensor<2x!cgc.bfloat16>, %i8: !cgc.tensor<2x!cgc.int8>, %u8: !cgc.tensor<2x!cgc.uint8>,
      %i16: !cgc.tensor<2x!cgc.int16>, %i32: !cgc.tensor<2x!cgc.int32>, %i64: !cgc.tensor<2x!cgc.int64>,
      %b: !cgc.tensor<2x!cgc.bool>, %f64: !cgc.tensor<2x!cgc.float64>, %u16: !cgc.tensor<2x!cgc.uint16>,
      %u32: !cgc.tensor<2x!cgc.uint32>, %u64: !cgc.tensor<2x!cgc.uint64>) -> !cgc.tensor<2x!cgc.bool> {
    cgc.return %b : !cgc.tensor<2x!cgc.bool>
  }
  cgc.entry_point @shapes(%scalar: !cgc.tensor<!cgc.int64>, %empty: !cgc.tensor<0x3x!cgc.float32>,
      %image: !cgc.tensor<1x3x224x224x!cgc.float16>) -> !cgc.tensor<constant 1x1x3x3x!cgc.float32> {
    %w = cgc.constant("w") : !cgc.tensor<constant 1x1x3x3x!cgc.float32>
    cgc.return %w : !cgc.tensor<constant 1x1x3x3x!cgc.float32>
  }
  cgc.partition @nothing(%x: !cgc.memref<128x!cgc.int8>) {
    cgc.return
  }
  cgc.program @memrefs(%scalar: !cgc.memref<!cgc.bfloat16>, %scratch: !cgc.memref<128x!cgc.int8>,
      %doubles: !cgc.memref<3x!cgc.float64>) {
    %w = cgc.constant("w") : !cgc.memref<constant 1x1x3x3x!cgc.float32>
    %wt = cgc.constant("w") {permutation = [0, 2, 3, 1]} : !cgc.memref<constant 1x3x3x1x!cgc.float32>
    cgc.invoke @nothing(%scratch) : (!cgc.memref<128x!cgc.int8>)
    cgc.return
  }
}
