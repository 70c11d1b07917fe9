// The spec's A-E diamond (spec 000, "Memory planning") as Input IR: all
// tensors 64 bytes, every layer elementwise.
//
//   in --> A --a--> B --b--> D --d--> E --> out
//              a--> C --c----------> E
!t = !cgc.tensor<16x!cgc.float32>
cgc.module {
  cgc.entry_point @main(%in: !t) -> !t {
    %a = cgc_op.relu(%in) : (!t) -> !t
    %b = cgc_op.sigmoid(%a) : (!t) -> !t
    %c = cgc_op.tanh(%a) : (!t) -> !t
    %d = cgc_op.exp(%b) : (!t) -> !t
    %e = cgc_op.add(%d, %c) : (!t, !t) -> !t
    cgc.return %e : !t
  }
}
