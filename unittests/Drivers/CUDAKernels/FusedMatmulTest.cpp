//===- FusedMatmulTest.cpp - fused matmul/gemm epilogues against the CPU --===//
//
// The transformer shapes (BERT-base's and ViT-B/16's linear layers, a
// classifier head, batched products) with their epilogues, in float32,
// float16 and bfloat16, against the CPU driver's kernels run layer by layer;
// then what the family rejects, and how the work splits between cuBLASLt's
// epilogue and the generated kernel (checked without a device through the
// modules a compile-only build compiles).
//
//===----------------------------------------------------------------------===//

#include "FusedTestSupport.h"

#include "drivers/cuda/kernels/FusedSupport.h"
#include "drivers/cuda/kernels/WgmmaGemmKernel.h"

#include <cmath>
#include <map>

using namespace cgc::cuda;
using namespace cgc::cuda::test;
using cgc::FunctionalDefinitionOp;

namespace {

class FusedMatmulTest : public FusedKernelTest {
public:
  /// Builds `definitionCase` with a fresh compile-only context: the message
  /// (empty on success) and how many generated modules it compiled.
  std::pair<std::string, size_t> buildCompileOnly(const DefinitionCase &definitionCase) {
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    if (!definition)
      return {"<no definition>", 0};
    std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
    std::optional<llvm::Expected<Kernel>> kernel = kFusedMatmul.build(definition, *context);
    if (!kernel)
      return {"<not recognized>", context->getCompiler().getModuleCount()};
    std::string message = *kernel ? "" : llvm::toString(kernel->takeError());
    return {message, context->getCompiler().getModuleCount()};
  }
};

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

/// A definition written layer by layer, the types written out.
class DefinitionBuilder {
public:
  explicit DefinitionBuilder(DType dtype) : dtype(dtype) {}

  /// An argument of `shape` (the builder's element type unless given);
  /// weights and biases are `constant`, as the models' are.
  std::string argument(const std::string &name, const Dims &shape, double low, double high,
                       bool constant = false, std::optional<DType> type = std::nullopt) {
    DType elementType = type.value_or(dtype);
    std::string text = tensorType(shape, elementType);
    if (constant)
      text.insert(text.find('<') + 1, "constant ");
    std::string value = "%" + name;
    types[value] = text;
    arguments.push_back(value + ": " + text);
    operands.push_back(tensor(shape, elementType, low, high));
    return value;
  }
  /// `%vN = op(operands) attributes` with a result of `shape`.
  std::string layer(const std::string &op, const std::vector<std::string> &inputs,
                    const Dims &shape, const std::string &attributes = "",
                    std::optional<DType> type = std::nullopt) {
    std::string value = "%v" + std::to_string(types.size());
    std::string result = tensorType(shape, type.value_or(dtype));
    std::string line = "    " + value + " = " + op + "(";
    std::string inputTypes;
    for (size_t index = 0; index < inputs.size(); ++index) {
      line += (index ? ", " : "") + inputs[index];
      inputTypes += (index ? ", " : "") + types.at(inputs[index]);
    }
    line += ") " + attributes + " : (" + inputTypes + ") -> " + result + "\n";
    body += line;
    types[value] = result;
    return value;
  }
  /// The case returning `results` (the last layer, normally).
  DefinitionCase finish(const std::string &name, const std::vector<std::string> &results) {
    std::string resultTypes, resultValues;
    for (size_t index = 0; index < results.size(); ++index) {
      resultTypes += (index ? ", " : "") + types.at(results[index]);
      resultValues += (index ? ", " : "") + results[index];
    }
    std::string text = "cgc.functional_definition private @" + name + "(";
    for (size_t index = 0; index < arguments.size(); ++index)
      text += (index ? ", " : "") + arguments[index];
    text += ") -> " + (results.size() == 1 ? resultTypes : "(" + resultTypes + ")") + " {\n" +
            body + "    cgc.return " + resultValues + " : " + resultTypes + "\n  }";
    // The reference rounds every intermediate (the product, the biased
    // product, each epilogue layer) to the storage type; the fused kernel
    // rounds once. In bfloat16 (8 significant bits) that is a few units in
    // the last place: 2e-2 relative.
    Tolerance tolerance = reductionTolerance(dtype);
    if (dtype == DType::BF16)
      tolerance.rtol = 2e-2;
    return DefinitionCase{text, operands, tolerance};
  }
  DefinitionCase finish(const std::string &name, const std::string &result) {
    return finish(name, std::vector<std::string>{result});
  }

  DType dtype;

private:
  std::map<std::string, std::string> types;
  std::vector<std::string> arguments;
  std::vector<OperandSpec> operands;
  std::string body;
};

/// Weights scaled so that products of K terms stay near 1 (float16 and
/// bfloat16 round the product before the epilogue on the CPU).
double weightRange(int64_t k) { return 1.5 / std::sqrt(static_cast<double>(k)); }

/// x[shape..., K] · W[K, N] (+ bias, first or second), the common prefix.
struct Linear {
  DefinitionBuilder builder;
  std::string product, biased;
};

Linear linear(DType dtype, const Dims &xShape, int64_t n, bool biasFirst = true,
              bool withBias = true) {
  Linear l{DefinitionBuilder(dtype), "", ""};
  int64_t k = xShape.back();
  std::string x = l.builder.argument("x", xShape, -1, 1);
  std::string w = l.builder.argument("w", {k, n}, -weightRange(k), weightRange(k), true);
  std::string b;
  if (withBias)
    b = l.builder.argument("b", {n}, -1, 1, true);
  Dims outShape = xShape;
  outShape.back() = n;
  l.product = l.builder.layer("cgc_op.matmul", {x, w}, outShape);
  l.biased = !withBias   ? l.product
             : biasFirst ? l.builder.layer("cgc_op.add", {b, l.product}, outShape)
                         : l.builder.layer("cgc_op.add", {l.product, b}, outShape);
  return l;
}

//===----------------------------------------------------------------------===//
// BERT-base / ViT-B/16 linear layers
//===----------------------------------------------------------------------===//

std::vector<DefinitionCase> transformerCases() {
  std::vector<DefinitionCase> cases;
  const Dims tokens = {1, 128, 768};
  for (DType dtype : kFloatTypes) {
    // Feed-forward in: bias (first, as torch.onnx writes Linear) then exact
    // GELU (erf): cuBLASLt's bias, GELU in the generated kernel.
    {
      Linear l = linear(dtype, tokens, 3072);
      std::string gelu = l.builder.layer("cgc_op.gelu", {l.biased}, {1, 128, 3072});
      cases.push_back(l.builder.finish("bert_intermediate_gelu", gelu));
    }
    // Attention projections: bias only (second operand of the add).
    {
      Linear l = linear(dtype, tokens, 768, /*biasFirst=*/false);
      cases.push_back(l.builder.finish("bert_projection", l.biased));
    }
    // Attention output / feed-forward out: bias, then the residual add.
    {
      Linear l = linear(dtype, tokens, 768);
      std::string residual = l.builder.argument("residual", tokens, -1, 1);
      std::string sum = l.builder.layer("cgc_op.add", {l.biased, residual}, tokens);
      cases.push_back(l.builder.finish("bert_output_residual", sum));
    }
    // A residual add, then ReLU: bias, C and RELU all cuBLASLt's.
    {
      Linear l = linear(dtype, tokens, 768);
      std::string residual = l.builder.argument("residual", tokens, -1, 1);
      std::string sum = l.builder.layer("cgc_op.add", {residual, l.biased}, tokens);
      std::string relu = l.builder.layer("cgc_op.relu", {sum}, tokens);
      cases.push_back(l.builder.finish("residual_relu", relu));
    }
    // ReLU: cuBLASLt's RELU_BIAS.
    {
      Linear l = linear(dtype, tokens, 768);
      std::string relu = l.builder.layer("cgc_op.relu", {l.biased}, tokens);
      cases.push_back(l.builder.finish("linear_relu", relu));
    }
    // tanh GELU: cuBLASLt's GELU_BIAS on 16-bit types, generated on float32.
    {
      Linear l = linear(dtype, tokens, 768);
      std::string gelu =
          l.builder.layer("cgc_op.gelu", {l.biased}, tokens, "{approximate = \"tanh\"}");
      cases.push_back(l.builder.finish("linear_gelu_tanh", gelu));
    }
    // GELU as torch.onnx writes it before opset 20 (BERT's and ViT's
    // feed-forward): h * (erf(h / sqrt2) + 1) * 0.5, h used twice.
    {
      Linear l = linear(dtype, {1, 64, 768}, 256);
      DefinitionBuilder &b = l.builder;
      Dims shape = {1, 64, 256};
      std::string root2 = b.argument("root2", {}, 0, 0, true);
      std::string one = b.argument("one", {}, 0, 0, true);
      std::string half = b.argument("half", {}, 0, 0, true);
      std::string scaled = b.layer("cgc_op.div", {l.biased, root2}, shape);
      std::string erf = b.layer("cgc_op.erf", {scaled}, shape);
      std::string cdf = b.layer("cgc_op.add", {erf, one}, shape);
      std::string gated = b.layer("cgc_op.mul", {l.biased, cdf}, shape);
      std::string gelu = b.layer("cgc_op.mul", {gated, half}, shape);
      DefinitionCase definitionCase = b.finish("vit_mlp_gelu_erf", gelu);
      definitionCase.operands[3] = values({}, dtype, {std::sqrt(2.0)});
      definitionCase.operands[4] = values({}, dtype, {1.0});
      definitionCase.operands[5] = values({}, dtype, {0.5});
      cases.push_back(definitionCase);
    }
  }
  return cases;
}
CGC_FUSED_KERNEL_CASES(FusedMatmulTest, Transformer, transformerCases)

//===----------------------------------------------------------------------===//
// gemm: classifier heads
//===----------------------------------------------------------------------===//

std::vector<DefinitionCase> gemmCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : kFloatTypes) {
    double range = weightRange(768);
    // ViT's head: Gemm(x, W, bias, transB = 1), nothing after it.
    {
      DefinitionBuilder b(dtype);
      std::string x = b.argument("x", {1, 768}, -1, 1);
      std::string w = b.argument("w", {1000, 768}, -range, range, true);
      std::string c = b.argument("c", {1000}, -1, 1, true);
      std::string head = b.layer("cgc_op.gemm", {x, w, c}, {1, 1000}, "{trans_b = true}");
      cases.push_back(b.finish("vit_head", head));
    }
    // A head with an activation: C as the bias of RELU_BIAS.
    {
      DefinitionBuilder b(dtype);
      std::string x = b.argument("x", {4, 768}, -1, 1);
      std::string w = b.argument("w", {1000, 768}, -range, range, true);
      std::string c = b.argument("c", {1000}, -1, 1, true);
      std::string head = b.layer("cgc_op.gemm", {x, w, c}, {4, 1000}, "{trans_b = true}");
      std::string relu = b.layer("cgc_op.relu", {head}, {4, 1000});
      cases.push_back(b.finish("head_relu", relu));
    }
    // alpha and beta with a per-column C: C added (times beta) by the
    // generated kernel, with the tanh after it.
    {
      DefinitionBuilder b(dtype);
      std::string a = b.argument("a", {96, 24}, -1, 1);
      std::string w = b.argument("w", {96, 40}, -0.3, 0.3, true);
      std::string c = b.argument("c", {40}, -1, 1, true);
      std::string g =
          b.layer("cgc_op.gemm", {a, w, c}, {24, 40}, "{trans_a = true, alpha = 0.5, beta = 2.0}");
      std::string tanh = b.layer("cgc_op.tanh", {g}, {24, 40});
      cases.push_back(b.finish("gemm_alpha_beta_tanh", tanh));
    }
    // A full M×N C: cuBLASLt's C, then a bias add from the chain.
    {
      DefinitionBuilder b(dtype);
      std::string a = b.argument("a", {24, 96}, -1, 1);
      std::string w = b.argument("w", {40, 96}, -0.3, 0.3, true);
      std::string c = b.argument("c", {24, 40}, -1, 1);
      std::string bias = b.argument("bias", {40}, -1, 1, true);
      std::string g = b.layer("cgc_op.gemm", {a, w, c}, {24, 40}, "{trans_b = true, beta = 0.5}");
      std::string biased = b.layer("cgc_op.add", {g, bias}, {24, 40});
      std::string relu = b.layer("cgc_op.relu", {biased}, {24, 40});
      cases.push_back(b.finish("gemm_full_c_bias_relu", relu));
    }
    // A C along rows (M×1) and no C at all.
    {
      DefinitionBuilder b(dtype);
      std::string a = b.argument("a", {24, 96}, -1, 1);
      std::string w = b.argument("w", {96, 40}, -0.3, 0.3, true);
      std::string c = b.argument("c", {24, 1}, -1, 1);
      std::string g = b.layer("cgc_op.gemm", {a, w, c}, {24, 40});
      cases.push_back(b.finish("gemm_row_c", g));
    }
    {
      DefinitionBuilder b(dtype);
      std::string a = b.argument("a", {24, 96}, -1, 1);
      std::string w = b.argument("w", {40, 96}, -0.3, 0.3, true);
      std::string bias = b.argument("bias", {40}, -1, 1, true);
      std::string g = b.layer("cgc_op.gemm", {a, w}, {24, 40}, "{trans_b = true}");
      std::string biased = b.layer("cgc_op.add", {bias, g}, {24, 40});
      std::string sigmoid = b.layer("cgc_op.sigmoid", {biased}, {24, 40});
      cases.push_back(b.finish("gemm_bias_sigmoid", sigmoid));
    }
  }
  return cases;
}
CGC_FUSED_KERNEL_CASES(FusedMatmulTest, Gemm, gemmCases)

//===----------------------------------------------------------------------===//
// Batches and odd shapes
//===----------------------------------------------------------------------===//

std::vector<DefinitionCase> batchedCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : kFloatTypes) {
    // A batch of 32 sequences against one weight: one tall product.
    {
      Linear l = linear(dtype, {32, 16, 64}, 48);
      std::string gelu = l.builder.layer("cgc_op.gelu", {l.biased}, {32, 16, 48});
      cases.push_back(l.builder.finish("batch32_linear_gelu", gelu));
    }
    // Batched on both sides (attention scores): scale and an additive mask
    // over the batch, all generated.
    {
      DefinitionBuilder b(dtype);
      std::string q = b.argument("q", {32, 8, 16}, -1, 1);
      std::string k = b.argument("k", {32, 16, 8}, -1, 1);
      std::string scale = b.argument("scale", {}, 0.25, 0.25, true);
      std::string mask = b.argument("mask", {32, 1, 8}, -1, 0);
      std::string scores = b.layer("cgc_op.matmul", {q, k}, {32, 8, 8});
      std::string scaled = b.layer("cgc_op.mul", {scores, scale}, {32, 8, 8});
      std::string masked = b.layer("cgc_op.add", {scaled, mask}, {32, 8, 8});
      cases.push_back(b.finish("batch32_scores_scale_mask", masked));
    }
    // An outer batch dimension looped over, the inner one cuBLASLt's strided
    // batch, the bias shared by every call.
    {
      DefinitionBuilder b(dtype);
      std::string x = b.argument("x", {2, 3, 8, 16}, -1, 1);
      std::string w = b.argument("w", {3, 16, 8}, -0.4, 0.4);
      std::string bias = b.argument("bias", {1, 8}, -1, 1, true);
      std::string product = b.layer("cgc_op.matmul", {x, w}, {2, 3, 8, 8});
      std::string biased = b.layer("cgc_op.add", {bias, product}, {2, 3, 8, 8});
      std::string relu = b.layer("cgc_op.relu", {biased}, {2, 3, 8, 8});
      cases.push_back(b.finish("outer_batch_bias_relu", relu));
    }
    // Odd sizes (operands only element-aligned) and a bias along rows.
    {
      DefinitionBuilder b(dtype);
      std::string x = b.argument("x", {3, 7, 13}, -1, 1);
      std::string w = b.argument("w", {13, 5}, -0.5, 0.5, true);
      std::string bias = b.argument("bias", {5}, -1, 1, true);
      std::string rows = b.argument("rows", {7, 1}, -1, 1, true);
      std::string product = b.layer("cgc_op.matmul", {x, w}, {3, 7, 5});
      std::string biased = b.layer("cgc_op.add", {product, bias}, {3, 7, 5});
      std::string shifted = b.layer("cgc_op.sub", {biased, rows}, {3, 7, 5});
      std::string clipped = b.layer("cgc_op.clip", {shifted}, {3, 7, 5}, "{min = -1.0, max = 1.5}");
      cases.push_back(b.finish("odd_bias_rows_clip", clipped));
    }
    // A 1-D rhs: the result's last dimension is M, so the bias is the
    // generated kernel's.
    {
      DefinitionBuilder b(dtype);
      std::string x = b.argument("x", {4, 6, 16}, -1, 1);
      std::string w = b.argument("w", {16}, -0.5, 0.5, true);
      std::string bias = b.argument("bias", {6}, -1, 1, true);
      std::string product = b.layer("cgc_op.matmul", {x, w}, {4, 6});
      std::string biased = b.layer("cgc_op.add", {product, bias}, {4, 6});
      cases.push_back(b.finish("vector_rhs_bias", biased));
    }
    // An outer batch looped over with a residual: cuBLASLt's C read at
    // each call's output offset.
    {
      DefinitionBuilder b(dtype);
      std::string x = b.argument("x", {2, 3, 8, 16}, -1, 1);
      std::string w = b.argument("w", {3, 16, 8}, -0.4, 0.4);
      std::string residual = b.argument("residual", {2, 3, 8, 8}, -1, 1);
      std::string product = b.layer("cgc_op.matmul", {x, w}, {2, 3, 8, 8});
      std::string sum = b.layer("cgc_op.add", {product, residual}, {2, 3, 8, 8});
      cases.push_back(b.finish("outer_batch_residual", sum));
    }
    // No bias: ReLU alone in cuBLASLt's epilogue.
    {
      Linear l = linear(dtype, {4, 32}, 24, true, /*withBias=*/false);
      std::string relu = l.builder.layer("cgc_op.relu", {l.product}, {4, 24});
      cases.push_back(l.builder.finish("matmul_relu", relu));
    }
  }
  return cases;
}
CGC_FUSED_KERNEL_CASES(FusedMatmulTest, Batched, batchedCases)

//===----------------------------------------------------------------------===//
// Recognition without a device
//===----------------------------------------------------------------------===//

TEST_F(FusedMatmulTest, OtherShapesAreNotThisFamily) {
  // A product alone is the layer kernel's.
  {
    Linear l = linear(DType::F32, {4, 16}, 8, true, /*withBias=*/false);
    expectFusedRejected(l.builder.finish("matmul_alone", l.product));
  }
  {
    DefinitionBuilder b(DType::F32);
    std::string a = b.argument("a", {4, 16}, -1, 1);
    std::string w = b.argument("w", {16, 8}, -1, 1);
    expectFusedRejected(b.finish("gemm_alone", b.layer("cgc_op.gemm", {a, w}, {4, 8})));
  }
  // softmax after the product: attention's shape, not an epilogue.
  {
    Linear l = linear(DType::F32, {4, 16}, 8);
    std::string softmax = l.builder.layer("cgc_op.softmax", {l.biased}, {4, 8});
    DefinitionCase definitionCase = l.builder.finish("matmul_softmax", softmax);
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    EXPECT_FALSE(kFusedMatmul.check(definition).has_value());
  }
  // Layers before a product are not this family's either.
  {
    DefinitionBuilder b(DType::F32);
    std::string x = b.argument("x", {4, 16}, -1, 1);
    std::string w = b.argument("w", {16, 8}, -1, 1);
    std::string relu = b.layer("cgc_op.relu", {x}, {4, 16});
    std::string product = b.layer("cgc_op.matmul", {relu, w}, {4, 8});
    DefinitionCase definitionCase = b.finish("relu_matmul", product);
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    ASSERT_TRUE(definition);
    EXPECT_FALSE(kFusedMatmul.check(definition).has_value());
  }
}

TEST_F(FusedMatmulTest, UnimplementedDetailsAreNamed) {
  // float64.
  {
    Linear l = linear(DType::F64, {4, 16}, 8);
    expectFusedRejected(l.builder.finish("float64", l.biased),
                        "@float64: fused matmul: cgc_op.matmul of element type float64 is not "
                        "implemented on the CUDA driver");
  }
  // An elementwise layer outside the kernel's list.
  {
    Linear l = linear(DType::F32, {4, 16}, 8);
    std::string sin = l.builder.layer("cgc_op.sin", {l.biased}, {4, 8});
    expectFusedRejected(l.builder.finish("sine", sin),
                        "fused matmul: epilogue layer cgc_op.sin is not implemented on the CUDA "
                        "driver");
  }
  {
    Linear l = linear(DType::F32, {4, 16}, 8);
    std::string cast =
        l.builder.layer("cgc_op.cast", {l.biased}, {4, 8}, "{to = !cgc.float16}", DType::F16);
    expectFusedRejected(l.builder.finish("cast", cast),
                        "epilogue layer cgc_op.cast is not implemented on the CUDA driver");
  }
  // An epilogue that broadcasts the product to a larger shape.
  {
    Linear l = linear(DType::F32, {4, 16}, 8);
    std::string big = l.builder.argument("big", {3, 4, 8}, -1, 1);
    std::string sum = l.builder.layer("cgc_op.add", {l.biased, big}, {3, 4, 8});
    expectFusedRejected(l.builder.finish("broadcast_up", sum),
                        "epilogue layer cgc_op.add changing the product's shape or element type "
                        "is not implemented on the CUDA driver");
  }
  // An intermediate value returned too.
  {
    Linear l = linear(DType::F32, {4, 16}, 8);
    std::string relu = l.builder.layer("cgc_op.relu", {l.biased}, {4, 8});
    expectFusedRejected(l.builder.finish("two_results", std::vector<std::string>{relu, l.biased}),
                        "a definition whose result is not its last layer's is not implemented "
                        "on the CUDA driver");
  }
  // An empty inner dimension.
  {
    DefinitionBuilder b(DType::F32);
    std::string x = b.argument("x", {4, 0}, -1, 1);
    std::string w = b.argument("w", {0, 8}, -1, 1);
    std::string product = b.layer("cgc_op.matmul", {x, w}, {4, 8});
    std::string relu = b.layer("cgc_op.relu", {product}, {4, 8});
    expectFusedRejected(b.finish("empty_k", relu),
                        "a product with an empty inner dimension (K = 0) is not implemented");
  }
}

TEST_F(FusedMatmulTest, RecognizedAsTheMatmulFamily) {
  Linear l = linear(DType::F16, {2, 8, 16}, 8);
  std::string gelu = l.builder.layer("cgc_op.gelu", {l.biased}, {2, 8, 8});
  FunctionalDefinitionOp definition = buildDefinition(l.builder.finish("named", gelu));
  ASSERT_TRUE(definition);
  EXPECT_EQ(getFusedFamilyName(definition), "matmul");
}

//===----------------------------------------------------------------------===//
// The split between cuBLASLt and the generated kernel
//===----------------------------------------------------------------------===//

/// Without a device the build compiles the generated part of the full split
/// (bias and activation in cuBLASLt where it can), then stops at cuBLASLt:
/// the modules it compiled show whether anything was left to the generated
/// kernel, and prove that it compiles.
TEST_F(FusedMatmulTest, EpilogueSplitsBetweenCublasLtAndOneGeneratedKernel) {
  auto expectSplit = [&](const DefinitionCase &definitionCase, size_t generatedModules) {
    SCOPED_TRACE(definitionCase.describe());
    auto [message, modules] = buildCompileOnly(definitionCase);
    EXPECT_NE(message.find("fused matmul: cgc_op."), std::string::npos) << message;
    EXPECT_NE(message.find(": cuBLASLt needs a device"), std::string::npos) << message;
    EXPECT_EQ(modules, generatedModules);
  };
  for (DType dtype : kFloatTypes) {
    bool isFloat32 = dtype == DType::F32;
    // Bias (either operand order), ReLU: all cuBLASLt.
    for (bool biasFirst : {true, false}) {
      Linear l = linear(dtype, {2, 8, 16}, 8, biasFirst);
      expectSplit(l.builder.finish("bias", l.biased), 0);
      Linear r = linear(dtype, {2, 8, 16}, 8, biasFirst);
      std::string relu = r.builder.layer("cgc_op.relu", {r.biased}, {2, 8, 8});
      expectSplit(r.builder.finish("bias_relu", relu), 0);
    }
    // Exact GELU is generated; tanh GELU is cuBLASLt's on 16-bit types.
    {
      Linear l = linear(dtype, {2, 8, 16}, 8);
      std::string gelu = l.builder.layer("cgc_op.gelu", {l.biased}, {2, 8, 8});
      expectSplit(l.builder.finish("gelu", gelu), 1);
      Linear t = linear(dtype, {2, 8, 16}, 8);
      std::string tanhGelu =
          t.builder.layer("cgc_op.gelu", {t.biased}, {2, 8, 8}, "{approximate = \"tanh\"}");
      expectSplit(t.builder.finish("gelu_tanh", tanhGelu), isFloat32 ? 1 : 0);
    }
    // A residual after the bias (then ReLU) is cuBLASLt's C; a residual
    // after the activation, or one that broadcasts, and a bias along rows
    // are generated.
    {
      Linear l = linear(dtype, {2, 8, 16}, 8);
      std::string residual = l.builder.argument("residual", {2, 8, 8}, -1, 1);
      std::string sum = l.builder.layer("cgc_op.add", {residual, l.biased}, {2, 8, 8});
      expectSplit(l.builder.finish("residual", sum), 0);
      Linear r = linear(dtype, {2, 8, 16}, 8);
      std::string residual2 = r.builder.argument("residual", {2, 8, 8}, -1, 1);
      std::string sum2 = r.builder.layer("cgc_op.add", {r.biased, residual2}, {2, 8, 8});
      std::string relu = r.builder.layer("cgc_op.relu", {sum2}, {2, 8, 8});
      expectSplit(r.builder.finish("residual_relu", relu), 0);
      Linear a = linear(dtype, {2, 8, 16}, 8);
      std::string activated = a.builder.layer("cgc_op.relu", {a.biased}, {2, 8, 8});
      std::string residual3 = a.builder.argument("residual", {2, 8, 8}, -1, 1);
      std::string late = a.builder.layer("cgc_op.add", {activated, residual3}, {2, 8, 8});
      expectSplit(a.builder.finish("relu_residual", late), 1);
      Linear s = linear(dtype, {2, 8, 16}, 8);
      std::string shared = s.builder.argument("shared", {8, 8}, -1, 1);
      std::string broadcast = s.builder.layer("cgc_op.add", {s.biased, shared}, {2, 8, 8});
      expectSplit(s.builder.finish("broadcast_residual", broadcast), 1);
      DefinitionBuilder b(dtype);
      std::string x = b.argument("x", {2, 8, 16}, -1, 1);
      std::string w = b.argument("w", {16, 8}, -1, 1);
      std::string rows = b.argument("rows", {8, 1}, -1, 1);
      std::string product = b.layer("cgc_op.matmul", {x, w}, {2, 8, 8});
      expectSplit(b.finish("rows", b.layer("cgc_op.add", {product, rows}, {2, 8, 8})), 1);
    }
    // gemm: C of N elements with beta 1 is the bias; with beta 2 or along
    // rows it is generated; a full C is cuBLASLt's C.
    for (auto [cShape, attributes, generated] : std::vector<std::tuple<Dims, std::string, size_t>>{
             {{8}, "{trans_b = true}", 0},
             {{1, 8}, "{trans_b = true, alpha = 3.0}", 0},
             {{8}, "{trans_b = true, beta = 2.0}", 1},
             {{4, 1}, "{trans_b = true}", 1},
             {{4, 8}, "{trans_b = true, beta = 0.5}", 0}}) {
      DefinitionBuilder b(dtype);
      std::string a = b.argument("a", {4, 16}, -1, 1);
      std::string w = b.argument("w", {8, 16}, -1, 1);
      std::string c = b.argument("c", cShape, -1, 1);
      std::string g = b.layer("cgc_op.gemm", {a, w, c}, {4, 8}, attributes);
      expectSplit(b.finish("gemm_c", g), generated);
    }
    // The GELU torch.onnx writes (opset < 20), one generated kernel.
    {
      Linear l = linear(dtype, {2, 8, 16}, 8);
      DefinitionBuilder &b = l.builder;
      std::string root2 = b.argument("root2", {}, 1.5, 1.5, true);
      std::string one = b.argument("one", {}, 1, 1, true);
      std::string half = b.argument("half", {}, 0.5, 0.5, true);
      std::string halved = b.layer("cgc_op.mul", {l.biased, half}, {2, 8, 8});
      std::string scaled = b.layer("cgc_op.div", {l.biased, root2}, {2, 8, 8});
      std::string erf = b.layer("cgc_op.erf", {scaled}, {2, 8, 8});
      std::string cdf = b.layer("cgc_op.add", {erf, one}, {2, 8, 8});
      std::string gelu = b.layer("cgc_op.mul", {halved, cdf}, {2, 8, 8});
      expectSplit(b.finish("gelu_erf_half_first", gelu), 1);
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// The cuDNN graph of a product with an exact GELU
//===----------------------------------------------------------------------===//

/// Forces the product's path (for a ScopedEnvironment's scope).
constexpr const char *kMatmulPath = "CGC_CUDA_MATMUL";

/// The products with a bias (or none) and an exact GELU that the graph
/// runs: BERT's feed-forward, ViT's token count, a batch of rows that
/// fills no tile.
std::vector<DefinitionCase> geluGraphCases() {
  std::vector<DefinitionCase> cases;
  for (DType dtype : {DType::F16, DType::BF16}) {
    for (auto [shape, n, withBias] : std::vector<std::tuple<Dims, int64_t, bool>>{
             {{1, 128, 768}, 3072, true}, {{2, 197, 64}, 256, true}, {{3, 37, 32}, 48, false}}) {
      Linear l = linear(dtype, shape, n, /*biasFirst=*/true, withBias);
      Dims out = shape;
      out.back() = n;
      std::string gelu = l.builder.layer("cgc_op.gelu", {l.biased}, out);
      cases.push_back(l.builder.finish("gelu_graph", gelu));
    }
  }
  return cases;
}

TEST_F(FusedMatmulTest, ExactGeluGraphMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  ScopedEnvironment forced(kMatmulPath, "graph");
  for (const DefinitionCase &definitionCase : geluGraphCases())
    expectFusedMatchesCpu(definitionCase);
}

/// Forced on a definition it does not run, the graph is an error that says
/// what it takes; the library path still runs the definition.
TEST_F(FusedMatmulTest, ForcedGraphNamesWhatItTakes) {
  CGC_REQUIRE_CUDA_DEVICE();
  Linear l = linear(DType::F16, {2, 8, 16}, 8);
  std::string relu = l.builder.layer("cgc_op.relu", {l.biased}, {2, 8, 8});
  DefinitionCase relued = l.builder.finish("relu", relu);
  {
    ScopedEnvironment forced(kMatmulPath, "graph");
    FunctionalDefinitionOp definition = buildDefinition(relued);
    ASSERT_TRUE(definition);
    KernelContext *context = getDeviceContext();
    ASSERT_NE(context, nullptr);
    std::optional<llvm::Expected<Kernel>> kernel = buildFusedKernel(definition, *context);
    ASSERT_TRUE(kernel.has_value());
    ASSERT_FALSE(static_cast<bool>(*kernel));
    std::string message = llvm::toString(kernel->takeError());
    EXPECT_NE(message.find("CGC_CUDA_MATMUL=graph: the cuDNN graph does not run this "
                           "definition: not implemented: only a float16 or bfloat16 product"),
              std::string::npos)
        << message;
  }
  ScopedEnvironment forced(kMatmulPath, "library");
  for (const DefinitionCase &definitionCase : geluGraphCases())
    expectFusedMatchesCpu(definitionCase);
}

//===----------------------------------------------------------------------===//
// The Hopper GEMM of a product with an exact GELU
//===----------------------------------------------------------------------===//

namespace {

/// Forces the Hopper GEMM's tile (for a ScopedEnvironment's scope).
constexpr const char *kWgmmaTile = "CGC_CUDA_WGMMA_TILE";

} // namespace

/// Each tile on the graph's cases and on a product of more tiles than the
/// persistent grid has blocks (320 tiles of 128x128; each block takes
/// several), in float16 and bfloat16; the ping-pong form with two slots
/// too (its warpgroups' main loops then wait on each other's every step),
/// and each form with its epilogue staged through shared memory.
TEST_F(FusedMatmulTest, ExactGeluHopperGemmMatchesCpu) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *context = getDeviceContext();
  ASSERT_NE(context, nullptr);
  if (std::optional<std::string> refusal = getWgmmaGemmRefusal(context->getImpl()))
    GTEST_SKIP() << *refusal;
  std::vector<DefinitionCase> cases = geluGraphCases();
  for (DType dtype : {DType::F16, DType::BF16}) {
    Linear l = linear(dtype, {1, 2560, 64}, 2048, /*biasFirst=*/true, /*withBias=*/true);
    std::string gelu = l.builder.layer("cgc_op.gelu", {l.biased}, {1, 2560, 2048});
    cases.push_back(l.builder.finish("gelu_wgmma_many_tiles", gelu));
  }
  ScopedEnvironment forced(kMatmulPath, "wgmma");
  for (const char *tile :
       {"128x3", "128x4", "128x6p", "128x2p", "128x4ps", "128x5s", "256x3s", "128x2ps"}) {
    SCOPED_TRACE(tile);
    ScopedEnvironment only(kWgmmaTile, tile);
    for (const DefinitionCase &definitionCase : cases)
      expectFusedMatchesCpu(definitionCase);
  }
}

/// Forced where it cannot run, the Hopper GEMM is an error that says why:
/// another epilogue, an unknown tile, a device other than compute
/// capability 9.0.
TEST_F(FusedMatmulTest, ForcedHopperGemmNamesWhatItTakes) {
  CGC_REQUIRE_CUDA_DEVICE();
  KernelContext *context = getDeviceContext();
  ASSERT_NE(context, nullptr);
  auto buildMessage = [&](const DefinitionCase &definitionCase) {
    FunctionalDefinitionOp definition = buildDefinition(definitionCase);
    EXPECT_TRUE(definition);
    if (!definition)
      return std::string();
    std::optional<llvm::Expected<Kernel>> kernel = buildFusedKernel(definition, *context);
    EXPECT_TRUE(kernel.has_value());
    if (!kernel || *kernel)
      return std::string();
    return llvm::toString(kernel->takeError());
  };
  ScopedEnvironment forced(kMatmulPath, "wgmma");
  Linear l = linear(DType::F16, {2, 8, 16}, 8);
  std::string relu = l.builder.layer("cgc_op.relu", {l.biased}, {2, 8, 8});
  std::string message = buildMessage(l.builder.finish("relu", relu));
  EXPECT_NE(message.find("CGC_CUDA_MATMUL=wgmma: the Hopper GEMM does not run this definition: "
                         "not implemented: only a float16 or bfloat16 product"),
            std::string::npos)
      << message;
  std::optional<std::string> refusal = getWgmmaGemmRefusal(context->getImpl());
  Linear g = linear(DType::F16, {2, 8, 16}, 8);
  std::string gelu = g.builder.layer("cgc_op.gelu", {g.biased}, {2, 8, 8});
  DefinitionCase geluCase = g.builder.finish("gelu", gelu);
  if (refusal) {
    message = buildMessage(geluCase);
    EXPECT_NE(message.find("needs compute capability 9.0"), std::string::npos) << message;
    return;
  }
  for (const char *tile : {"64x2", "256x4p"}) {
    ScopedEnvironment unknown(kWgmmaTile, tile);
    message = buildMessage(geluCase);
    EXPECT_NE(message.find("CGC_CUDA_WGMMA_TILE=" + std::string(tile) +
                           " names no tile of the Hopper GEMM"),
              std::string::npos)
        << message;
  }
}
