// A target that fuses scaled dot-product attention written out as layers:
// softmax(q @ kT * scale) @ v, softmax over the last axis.
cgc.module {
  cgc_pattern.pattern @attention benefit(20) {
    %q = cgc_pattern.input {rank = 4}
    %kt = cgc_pattern.input {rank = 4}
    %scale = cgc_pattern.input {constant, element_types = [!cgc.float32, !cgc.float16]}
    %v = cgc_pattern.input {rank = 4}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%q, %kt)
    %scaled = cgc_pattern.layer "cgc_op.mul"(%scores, %scale)
    %probs = cgc_pattern.layer "cgc_op.softmax"(%scaled) {op_attributes = {axis = -1 : i64}}
    %out = cgc_pattern.layer "cgc_op.matmul"(%probs, %v)
    cgc_pattern.root %out
  }
}
