// The CUDA driver's fused attention patterns (kernels/FusedAttention.cpp). Each
// pattern says exactly what the fused kernel implements.
//
// Scaled-dot-product attention written out as layers, one kernel
// (kernels/AttentionKernel.h):
//   matmul(q, kT) -> score layers -> softmax(last axis) -> matmul(., v)
// * kT is the matmul's right operand [..., E, S] as it is laid out (an
//   exporter's transpose of k stays outside, or is folded into k's producer);
// * the score layers: up to 8 of add, sub, mul, div, each with one other
//   operand that broadcasts to the scores (BERT's division by sqrt(E) and
//   its additive mask);
// * float32, float16 or bfloat16, computed in float32.
// The kernel also needs head dimensions of at most 128, which no constraint
// can say: a larger one is rejected at specialization and runs layer by
// layer.
//
// The importer writes softmax's axis as a non-negative number, so each rank
// has its pattern; axis -1 (IR written by hand) takes any rank. The
// `_scaled_inputs` variants also take the exporter's
// q' = mul(q, a), kT' = mul(kT, b) of torch's scaled_dot_product_attention
// (scale split as sqrt(scale) on each side), read in one pass by the
// kernel; `cgc.same_shape` keeps a mul that broadcasts q or kT out.
//
// The `_views` variants (benefit 21, so they are offered first) also take
// the transposes and reshapes around the 4-D forms: exporters split
// [batch, tokens, heads * E] into heads on the way in (BERT:
// reshape + transpose [0,2,1,3], kT by [0,2,3,1]; torchvision's ViT:
// reshape, transpose [1,0,2], reshape) and put the heads back on the way
// out. The chains of q, kT and v also take gathers of one constant index
// (selections): nn.MultiheadAttention (torchvision's ViT) splits q, k and
// v out of one projection [S, B, 3 * H * E] by two reshapes, a transpose
// [3,1,2,0,4] and a reshape shared by the three chains, then a gather of
// index 0, 1 or 2 each: with the heads' reshape, transpose and reshape
// (and kT's transpose) up to 9 layers, hence max_length 12. The kernel
// reads q, kT and v through the composed strides (a selection's index read
// on the device) and writes its result where the output chain (transposes
// and reshapes, at most 6) puts it, so none of them is copied. A chain
// whose reshapes are not strides of the input is rejected at
// specialization, and the plain pattern takes the layers in the next round.
cgc.module {
  cgc_pattern.pattern @attention_4d benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%q, %kt)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %out = cgc_pattern.layer "cgc_op.matmul"(%probs, %v)
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_3d benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 3}
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 3}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 3}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%q, %kt)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 2 : i64}}
    %out = cgc_pattern.layer "cgc_op.matmul"(%probs, %v)
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_last_axis benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%q, %kt)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = -1 : i64}}
    %out = cgc_pattern.layer "cgc_op.matmul"(%probs, %v)
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_4d_scaled_inputs benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %a = cgc_pattern.input
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %b = cgc_pattern.input
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %qs = cgc_pattern.layer "cgc_op.mul"(%q, %a)
    %kts = cgc_pattern.layer "cgc_op.mul"(%kt, %b)
    cgc_pattern.constraint "cgc.same_shape"(%q, %qs)
    cgc_pattern.constraint "cgc.same_shape"(%kt, %kts)
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qs, %kts)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %out = cgc_pattern.layer "cgc_op.matmul"(%probs, %v)
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_3d_scaled_inputs benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 3}
    %a = cgc_pattern.input
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 3}
    %b = cgc_pattern.input
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 3}
    %qs = cgc_pattern.layer "cgc_op.mul"(%q, %a)
    %kts = cgc_pattern.layer "cgc_op.mul"(%kt, %b)
    cgc_pattern.constraint "cgc.same_shape"(%q, %qs)
    cgc_pattern.constraint "cgc.same_shape"(%kt, %kts)
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qs, %kts)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 2 : i64}}
    %out = cgc_pattern.layer "cgc_op.matmul"(%probs, %v)
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_last_axis_scaled_inputs benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %a = cgc_pattern.input
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %b = cgc_pattern.input
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %qs = cgc_pattern.layer "cgc_op.mul"(%q, %a)
    %kts = cgc_pattern.layer "cgc_op.mul"(%kt, %b)
    cgc_pattern.constraint "cgc.same_shape"(%q, %qs)
    cgc_pattern.constraint "cgc.same_shape"(%kt, %kts)
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qs, %kts)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = -1 : i64}}
    %out = cgc_pattern.layer "cgc_op.matmul"(%probs, %v)
    cgc_pattern.root %out
  }

  // The same with torch's NaN guard on the probabilities (BERT's export):
  // where(p != p, r, p) with a one-element r.
  cgc_pattern.pattern @attention_4d_nan_guard benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %r = cgc_pattern.input {shape = [1]}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%q, %kt)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %isnan = cgc_pattern.layer "cgc_op.not_equal"(%probs, %probs)
    %guarded = cgc_pattern.layer "cgc_op.where"(%isnan, %r, %probs)
    %out = cgc_pattern.layer "cgc_op.matmul"(%guarded, %v)
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_4d_scaled_inputs_nan_guard benefit(20) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %a = cgc_pattern.input
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %b = cgc_pattern.input
    %r = cgc_pattern.input {shape = [1]}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16], rank = 4}
    %qs = cgc_pattern.layer "cgc_op.mul"(%q, %a)
    %kts = cgc_pattern.layer "cgc_op.mul"(%kt, %b)
    cgc_pattern.constraint "cgc.same_shape"(%q, %qs)
    cgc_pattern.constraint "cgc.same_shape"(%kt, %kts)
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qs, %kts)
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %isnan = cgc_pattern.layer "cgc_op.not_equal"(%probs, %probs)
    %guarded = cgc_pattern.layer "cgc_op.where"(%isnan, %r, %probs)
    %out = cgc_pattern.layer "cgc_op.matmul"(%guarded, %v)
    cgc_pattern.root %out
  }

  // The 4-D forms with the exporters' transposes and reshapes (see above).
  cgc_pattern.pattern @attention_4d_views benefit(21) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %qh = cgc_pattern.view_chain(%q) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %kth = cgc_pattern.view_chain(%kt) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %vh = cgc_pattern.view_chain(%v) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qh, %kth) {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %heads = cgc_pattern.layer "cgc_op.matmul"(%probs, %vh)
    %out = cgc_pattern.view_chain(%heads) {max_length = 6}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_4d_scaled_inputs_views benefit(21) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %a = cgc_pattern.input
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %b = cgc_pattern.input
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %qh = cgc_pattern.view_chain(%q) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %kth = cgc_pattern.view_chain(%kt) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %vh = cgc_pattern.view_chain(%v) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %qs = cgc_pattern.layer "cgc_op.mul"(%qh, %a)
    %kts = cgc_pattern.layer "cgc_op.mul"(%kth, %b)
    cgc_pattern.constraint "cgc.same_shape"(%qh, %qs)
    cgc_pattern.constraint "cgc.same_shape"(%kth, %kts)
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qs, %kts) {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %heads = cgc_pattern.layer "cgc_op.matmul"(%probs, %vh)
    %out = cgc_pattern.view_chain(%heads) {max_length = 6}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_4d_nan_guard_views benefit(21) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %r = cgc_pattern.input {shape = [1]}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %qh = cgc_pattern.view_chain(%q) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %kth = cgc_pattern.view_chain(%kt) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %vh = cgc_pattern.view_chain(%v) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qh, %kth) {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %isnan = cgc_pattern.layer "cgc_op.not_equal"(%probs, %probs)
    %guarded = cgc_pattern.layer "cgc_op.where"(%isnan, %r, %probs)
    %heads = cgc_pattern.layer "cgc_op.matmul"(%guarded, %vh)
    %out = cgc_pattern.view_chain(%heads) {max_length = 6}
    cgc_pattern.root %out
  }

  cgc_pattern.pattern @attention_4d_scaled_inputs_nan_guard_views benefit(21) {
    %q = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %a = cgc_pattern.input
    %kt = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %b = cgc_pattern.input
    %r = cgc_pattern.input {shape = [1]}
    %v = cgc_pattern.input {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %qh = cgc_pattern.view_chain(%q) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %kth = cgc_pattern.view_chain(%kt) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %vh = cgc_pattern.view_chain(%v) {layers = ["cgc_op.transpose", "cgc_op.reshape", "cgc_op.gather"], max_length = 12}
    %qs = cgc_pattern.layer "cgc_op.mul"(%qh, %a)
    %kts = cgc_pattern.layer "cgc_op.mul"(%kth, %b)
    cgc_pattern.constraint "cgc.same_shape"(%qh, %qs)
    cgc_pattern.constraint "cgc.same_shape"(%kth, %kts)
    %scores = cgc_pattern.layer "cgc_op.matmul"(%qs, %kts) {element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %adjusted = cgc_pattern.elementwise_chain(%scores) {
      layers = ["cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div"], max_length = 8}
    %probs = cgc_pattern.layer "cgc_op.softmax"(%adjusted) {op_attributes = {axis = 3 : i64}}
    %isnan = cgc_pattern.layer "cgc_op.not_equal"(%probs, %probs)
    %guarded = cgc_pattern.layer "cgc_op.where"(%isnan, %r, %probs)
    %heads = cgc_pattern.layer "cgc_op.matmul"(%guarded, %vh)
    %out = cgc_pattern.view_chain(%heads) {max_length = 6}
    cgc_pattern.root %out
  }
}
