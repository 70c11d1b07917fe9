// One pattern per kind of condition, each on its own layer kind so that the
// patterns never compete.
cgc.module {
  // Element types of an input.
  cgc_pattern.pattern @half_relu benefit(1) {
    %x = cgc_pattern.input {element_types = [!cgc.float16, !cgc.bfloat16]}
    %r = cgc_pattern.layer "cgc_op.relu"(%x)
    cgc_pattern.root %r
  }
  // Element types of a layer's result.
  cgc_pattern.pattern @int_neg benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.neg"(%x) {element_types = [!cgc.int32]}
    cgc_pattern.root %r
  }
  // Rank of an input.
  cgc_pattern.pattern @rank4_sigmoid benefit(1) {
    %x = cgc_pattern.input {rank = 4}
    %r = cgc_pattern.layer "cgc_op.sigmoid"(%x)
    cgc_pattern.root %r
  }
  // Shape of an input: any batch, 8 features.
  cgc_pattern.pattern @features8_tanh benefit(1) {
    %x = cgc_pattern.input {shape = [-1, 8]}
    %r = cgc_pattern.layer "cgc_op.tanh"(%x)
    cgc_pattern.root %r
  }
  // An attribute value of the layer.
  cgc_pattern.pattern @axis1_softmax benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.softmax"(%x) {op_attributes = {axis = 1 : i64}}
    cgc_pattern.root %r
  }
  // Channels a multiple of 8 (and static dimensions, always true today).
  cgc_pattern.pattern @channels8_conv benefit(1) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input {constant}
    %c = cgc_pattern.layer "cgc_op.convolution"(%x, %w)
    cgc_pattern.constraint "cgc.channels_multiple_of"(%x) {params = {value = 8 : i64}}
    cgc_pattern.constraint "cgc.static_dims"(%x, %c)
    cgc_pattern.root %c
  }
  // Operands of one shape: no broadcasting.
  cgc_pattern.pattern @same_shape_add benefit(1) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.add"(%a, %b)
    cgc_pattern.constraint "cgc.same_shape"(%a, %b, %r)
    cgc_pattern.root %r
  }
  // A cast that keeps the element type.
  cgc_pattern.pattern @identity_cast benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.cast"(%x)
    cgc_pattern.constraint "cgc.same_element_type"(%x, %r)
    cgc_pattern.root %r
  }
  // An alignment request: always matches, recorded on the subgraph.
  cgc_pattern.pattern @aligned_exp benefit(1) {
    %x = cgc_pattern.input
    %r = cgc_pattern.layer "cgc_op.exp"(%x)
    cgc_pattern.constraint "cgc.alignment"(%x) {params = {bytes = 128 : i64}}
    cgc_pattern.constraint "cgc.alignment"(%r) {params = {bytes = 256 : i64}}
    cgc_pattern.root %r
  }
}
