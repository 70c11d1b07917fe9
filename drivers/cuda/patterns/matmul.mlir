// The CUDA driver's fused matmul patterns (kernels/FusedMatmul.cpp). Each
// pattern says exactly what the fused kernel implements.
//
// A product of float32, float16 or bfloat16 — matmul with numpy batching,
// or gemm (alpha, beta, transposes) — then an epilogue of elementwise layers
// that keep the product's shape and type, each of them one of the kernel's
// layers (FusedMatmul.cpp, isEpilogueLayer) with at most one other operand,
// a subgraph argument that broadcasts to the product's result. cuBLASLt's
// epilogue takes a bias along the last dimension and ReLU (or tanh GELU on
// 16-bit types); one generated kernel runs the rest (exact GELU, residual
// adds, ...). A product alone is the layer kernel's, so a pattern has at
// least one epilogue layer, or gemm's C (its bias).
//
// Benefit 10: above the elementwise patterns (a chain after a product
// belongs with it), below attention (whose first matmul and scale would
// otherwise start a matmul epilogue).
cgc.module {
  // matmul, then the greedy chain (BERT / ViT linear layers: x·W + bias,
  // then GELU or ReLU, or + residual; the bias may come first in the add).
  cgc_pattern.pattern @matmul_epilogue benefit(10) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %product = cgc_pattern.layer "cgc_op.matmul"(%x, %w) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %out = cgc_pattern.elementwise_chain(%product) {
      min_length = 1,
      layers = ["cgc_op.relu", "cgc_op.leaky_relu", "cgc_op.sigmoid", "cgc_op.tanh",
                "cgc_op.gelu", "cgc_op.erf", "cgc_op.exp", "cgc_op.log", "cgc_op.sqrt",
                "cgc_op.reciprocal", "cgc_op.neg", "cgc_op.abs", "cgc_op.clip",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish",
                "cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div", "cgc_op.pow",
                "cgc_op.max", "cgc_op.min"],
      max_extra_inputs = 1}
    cgc_pattern.constraint "cgc.same_element_type"(%x, %w, %product)
    cgc_pattern.root %out
  }

  // matmul and its bias alone: the candidate left when a pattern of higher
  // benefit takes a layer after the bias (a residual add that a
  // normalization pattern fuses with the layer_norm after it).
  cgc_pattern.pattern @matmul_bias benefit(9) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %product = cgc_pattern.layer "cgc_op.matmul"(%x, %w) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %out = cgc_pattern.elementwise_chain(%product) {
      min_length = 1, max_length = 1, layers = ["cgc_op.add"], max_extra_inputs = 1}
    cgc_pattern.constraint "cgc.same_element_type"(%x, %w, %product)
    cgc_pattern.root %out
  }

  // gemm without C, then the greedy chain.
  cgc_pattern.pattern @gemm_epilogue benefit(10) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %product = cgc_pattern.layer "cgc_op.gemm"(%a, %b) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %out = cgc_pattern.elementwise_chain(%product) {
      min_length = 1,
      layers = ["cgc_op.relu", "cgc_op.leaky_relu", "cgc_op.sigmoid", "cgc_op.tanh",
                "cgc_op.gelu", "cgc_op.erf", "cgc_op.exp", "cgc_op.log", "cgc_op.sqrt",
                "cgc_op.reciprocal", "cgc_op.neg", "cgc_op.abs", "cgc_op.clip",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish",
                "cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div", "cgc_op.pow",
                "cgc_op.max", "cgc_op.min"],
      max_extra_inputs = 1}
    cgc_pattern.constraint "cgc.same_element_type"(%a, %b, %product)
    cgc_pattern.root %out
  }

  // gemm with C (torch.onnx's Linear on 2-D input: Gemm(x, W, bias,
  // transB = 1), as in ViT's head), then the greedy chain, possibly empty:
  // a bias of N elements with beta = 1 is cuBLASLt's epilogue bias.
  cgc_pattern.pattern @gemm_bias_epilogue benefit(10) {
    %a = cgc_pattern.input
    %b = cgc_pattern.input
    %c = cgc_pattern.input
    %product = cgc_pattern.layer "cgc_op.gemm"(%a, %b, %c) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %out = cgc_pattern.elementwise_chain(%product) {
      layers = ["cgc_op.relu", "cgc_op.leaky_relu", "cgc_op.sigmoid", "cgc_op.tanh",
                "cgc_op.gelu", "cgc_op.erf", "cgc_op.exp", "cgc_op.log", "cgc_op.sqrt",
                "cgc_op.reciprocal", "cgc_op.neg", "cgc_op.abs", "cgc_op.clip",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish",
                "cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div", "cgc_op.pow",
                "cgc_op.max", "cgc_op.min"],
      max_extra_inputs = 1}
    cgc_pattern.constraint "cgc.same_element_type"(%a, %b, %c, %product)
    cgc_pattern.root %out
  }

  // matmul, the bias chain, then GELU as torch.onnx writes it before opset
  // 20 (BERT's and ViT's feed-forward): h · ((erf(h / √2) + 1)) · 0.5, h
  // used twice. The kernel evaluates the layers as written (the constants
  // are arguments), then any chain after them.
  cgc_pattern.pattern @matmul_gelu_erf_epilogue benefit(10) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %root2 = cgc_pattern.input
    %one = cgc_pattern.input
    %half = cgc_pattern.input
    %product = cgc_pattern.layer "cgc_op.matmul"(%x, %w) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %h = cgc_pattern.elementwise_chain(%product) {
      layers = ["cgc_op.add"], max_length = 1, max_extra_inputs = 1}
    %scaled = cgc_pattern.layer "cgc_op.div"(%h, %root2)
    %erf = cgc_pattern.layer "cgc_op.erf"(%scaled)
    %cdf = cgc_pattern.layer "cgc_op.add"(%erf, %one)
    %gated = cgc_pattern.layer "cgc_op.mul"(%h, %cdf)
    %gelu = cgc_pattern.layer "cgc_op.mul"(%gated, %half)
    %out = cgc_pattern.elementwise_chain(%gelu) {
      layers = ["cgc_op.relu", "cgc_op.leaky_relu", "cgc_op.sigmoid", "cgc_op.tanh",
                "cgc_op.gelu", "cgc_op.erf", "cgc_op.exp", "cgc_op.log", "cgc_op.sqrt",
                "cgc_op.reciprocal", "cgc_op.neg", "cgc_op.abs", "cgc_op.clip",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish",
                "cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div", "cgc_op.pow",
                "cgc_op.max", "cgc_op.min"],
      max_extra_inputs = 1}
    cgc_pattern.constraint "cgc.same_element_type"(%x, %w, %product, %root2, %one, %half)
    cgc_pattern.constraint "cgc.same_shape"(%h, %scaled, %cdf, %gated, %gelu)
    cgc_pattern.root %out
  }

  // The same GELU written x · 0.5 · (1 + erf(x / √2)): the half first.
  cgc_pattern.pattern @matmul_gelu_erf_half_first_epilogue benefit(10) {
    %x = cgc_pattern.input
    %w = cgc_pattern.input
    %root2 = cgc_pattern.input
    %one = cgc_pattern.input
    %half = cgc_pattern.input
    %product = cgc_pattern.layer "cgc_op.matmul"(%x, %w) {
      element_types = [!cgc.float32, !cgc.float16, !cgc.bfloat16]}
    %h = cgc_pattern.elementwise_chain(%product) {
      layers = ["cgc_op.add"], max_length = 1, max_extra_inputs = 1}
    %halved = cgc_pattern.layer "cgc_op.mul"(%h, %half)
    %scaled = cgc_pattern.layer "cgc_op.div"(%h, %root2)
    %erf = cgc_pattern.layer "cgc_op.erf"(%scaled)
    %cdf = cgc_pattern.layer "cgc_op.add"(%erf, %one)
    %gelu = cgc_pattern.layer "cgc_op.mul"(%halved, %cdf)
    %out = cgc_pattern.elementwise_chain(%gelu) {
      layers = ["cgc_op.relu", "cgc_op.leaky_relu", "cgc_op.sigmoid", "cgc_op.tanh",
                "cgc_op.gelu", "cgc_op.erf", "cgc_op.exp", "cgc_op.log", "cgc_op.sqrt",
                "cgc_op.reciprocal", "cgc_op.neg", "cgc_op.abs", "cgc_op.clip",
                "cgc_op.hard_sigmoid", "cgc_op.hard_swish",
                "cgc_op.add", "cgc_op.sub", "cgc_op.mul", "cgc_op.div", "cgc_op.pow",
                "cgc_op.max", "cgc_op.min"],
      max_extra_inputs = 1}
    cgc_pattern.constraint "cgc.same_element_type"(%x, %w, %product, %root2, %one, %half)
    cgc_pattern.constraint "cgc.same_shape"(%h, %scaled, %halved, %cdf, %gelu)
    cgc_pattern.root %out
  }
}
