//===- FusedMatmul.cpp - matmul/gemm with its epilogue as one kernel ------===//
//
// A definition whose first layer is a product (matmul with numpy batching,
// or gemm) and whose other layers are elementwise layers over its result,
// ending in one value of the product's shape and type: the linear layers of
// transformers (x·W + bias, then GELU or ReLU, or a residual add) and
// classifier heads (gemm with its bias).
//
// The product is one cuBLASLt call (CublasLtProduct.h) that also applies
// what its epilogues can: a bias along the result's last dimension (the
// product's own gemm C, or the argument of an add of the product), then
// ReLU, or GELU where the tanh approximation is the layer's semantics
// (`approximate = "tanh"`, float16/bfloat16 only: cuBLASLt's GELU may use
// hardware tanh approximations that miss float32's tolerance). A residual
// add of a result-shaped argument before any activation is cuBLASLt's C
// (beta 1), so the transformers' projections with their skip connection
// are one library call. Exact GELU
// (erf), other activations, later adds and everything else after those
// run in ONE generated kernel (ElementwiseCodegen.h, ChainCodegen.h) that
// reads the product in place in the output and evaluates the remaining
// layers as a DAG, each as its layer kernel computes it, in float32 for
// float16/bfloat16 storage.
// A gemm C that is neither a per-column bias nor a full M×N matrix is added
// (times beta) by that kernel too.
//
// When cuBLASLt has no algorithm for an epilogue, the build drops the
// activation, then the bias, from the library's part and leaves them to
// the generated kernel.
//
// A float16 or bfloat16 product whose epilogue is a bias and an exact GELU
// (BERT's and ViT's feed-forward) also has a cuDNN graph (matmul, bias and
// GELU_FWD nodes, CudnnMatmulGraph.h), which applies the GELU before the
// one store, and on an H100 or H200 (compute capability 9.0) a generated
// Hopper GEMM (WgmmaGemm.h) that adds the bias and applies the GELU in its
// epilogue. Unasked, the Hopper GEMM's default tile is timed against the
// library path once per distinct product and the faster kept;
// CGC_CUDA_MATMUL=library|graph|wgmma forces one, =timed times them all
// (CGC_CUDA_VERBOSE=1 prints the times).
//
//===----------------------------------------------------------------------===//

#include "ChainCodegen.h"
#include "ChoiceCache.h"
#include "CublasLtProduct.h"
#include "CudnnMatmulGraph.h"
#include "DeviceCode.h"
#include "ElementwiseCodegen.h"
#include "FusedSupport.h"
#include "WgmmaGemmKernel.h"

#include "cgc/Dialect/CGCOp/IR/Broadcast.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <cstdlib>

namespace cgc::cuda {

using namespace cgc::op;

namespace {

constexpr const char *kFamily = "matmul";

/// A definition read as a product and its epilogue.
struct FusedProduct {
  FunctionalDefinitionOp definition;
  /// The matmul or gemm: the first layer.
  mlir::Operation *product = nullptr;
  /// The other layers, in definition order (a topological order).
  llvm::SmallVector<mlir::Operation *, 8> epilogue;
  /// The product's result, whose shape and type every epilogue value has.
  TensorInfo output;
  /// The product planned for cuBLASLt.
  ProductPlan plan;
  /// Whether the result's last dimension is the product's N (not so for a
  /// matmul with a 1-D rhs), so that cuBLASLt's bias runs along it.
  bool lastDimensionIsN = true;
};

/// How the work is split between cuBLASLt and the generated kernel.
struct EpiloguePlan {
  ProductEpilogue library;
  /// The definition argument read as cuBLASLt's bias (library.bias).
  mlir::Value bias;
  /// The gemm's C passed as cuBLASLt's C (read with beta).
  mlir::Value directC;
  /// The gemm's C added, times beta, by the generated kernel.
  mlir::Value generatedC;
  double alpha = 1.0, beta = 0.0;
  /// The value the output holds after cuBLASLt.
  mlir::Value libraryResult;
  /// The layers the generated kernel evaluates, in order.
  llvm::SmallVector<mlir::Operation *, 8> generated;
};

} // namespace

//===----------------------------------------------------------------------===//
// Recognition
//===----------------------------------------------------------------------===//

/// The epilogue layers the kernel evaluates (patterns/matmul.mlir lists the
/// same): activations and arithmetic that keep the product's type.
static bool isEpilogueLayer(mlir::Operation *op) {
  return llvm::isa<ReluOp, LeakyReluOp, SigmoidOp, TanhOp, GeluOp, ErfOp, ExpOp, LogOp, SqrtOp,
                   ReciprocalOp, NegOp, AbsOp, ClipOp, HardSigmoidOp, HardSwishOp, AddOp, SubOp,
                   MulOp, DivOp, PowOp, MaxOp, MinOp>(op);
}

/// Whether `value` is an argument of `definition`.
static bool isDefinitionArgument(FunctionalDefinitionOp definition, mlir::Value value) {
  auto argument = llvm::dyn_cast<mlir::BlockArgument>(value);
  return argument && argument.getOwner() == &definition.getBody().front();
}

static unsigned getArgumentIndex(mlir::Value value) {
  return llvm::cast<mlir::BlockArgument>(value).getArgNumber();
}

/// Reads `definition` as a product and its epilogue. std::nullopt: not this
/// family's shape; an Error: this family's shape with a detail the kernel
/// does not implement; success: `fused` is filled in.
static std::optional<llvm::Error> readDefinition(FunctionalDefinitionOp definition,
                                                 FusedProduct &fused) {
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  if (layers.empty() || !llvm::isa<MatmulOp, GemmOp>(layers.front()))
    return std::nullopt;
  mlir::Operation *product = layers.front();
  auto gemm = llvm::dyn_cast<GemmOp>(product);
  // A product alone is the layer kernel's, except a gemm with C (its bias
  // then comes with the product).
  if (layers.size() == 1 && !(gemm && gemm.getC()))
    return std::nullopt;
  // Layers other than elementwise ones (softmax, a second product) make
  // another family's shape (attention).
  for (mlir::Operation *op : llvm::drop_begin(layers))
    if (!op->hasTrait<OpTrait::Elementwise>())
      return std::nullopt;

  auto fail = [&](const llvm::Twine &message) -> std::optional<llvm::Error> {
    return makeFusedError(definition, kFamily, message);
  };
  fused.definition = definition;
  fused.product = product;
  fused.epilogue.assign(layers.begin() + 1, layers.end());
  mlir::Operation *root = layers.back();
  mlir::Operation *terminator = definition.getBody().front().getTerminator();
  if (terminator->getNumOperands() != 1 || terminator->getOperand(0) != root->getResult(0))
    return fail("a definition whose result is not its last layer's is not implemented on the "
                "CUDA driver");
  for (mlir::Operation *op : layers) {
    if (op->getNumResults() != 1)
      return fail(op->getName().getStringRef() + " with several results is not implemented on "
                                                 "the CUDA driver");
    if (op->getResult(0).use_empty())
      return fail(op->getName().getStringRef() + " whose result is unused is not implemented on "
                                                 "the CUDA driver");
  }

  // The product: both operands (and gemm's C) definition arguments of one
  // float type.
  auto output = getTensorInfo(product, product->getResult(0));
  if (!output)
    return fail(llvm::toString(output.takeError()));
  fused.output = *output;
  DType dtype = output->dtype;
  if (!isFloat32ComputedDType(dtype))
    return fail(product->getName().getStringRef() + " of element type " + getDTypeName(dtype) +
                " is not implemented on the CUDA driver");
  for (mlir::Value operand : product->getOperands()) {
    if (!isDefinitionArgument(definition, operand))
      return std::nullopt;
    auto info = getTensorInfo(product, operand);
    if (!info)
      return fail(llvm::toString(info.takeError()));
    if (info->dtype != dtype)
      return fail(product->getName().getStringRef() + " with operands of element types " +
                  getDTypeName(info->dtype) + " and " + getDTypeName(dtype) +
                  " is not implemented on the CUDA driver");
  }
  auto lhs = getTensorInfo(product, product->getOperand(0));
  auto rhs = getTensorInfo(product, product->getOperand(1));
  if (!lhs || !rhs) {
    llvm::Error error = llvm::joinErrors(lhs.takeError(), rhs.takeError());
    return fail(llvm::toString(std::move(error)));
  }
  if (gemm) {
    fused.plan.dtype = dtype;
    fused.plan.transA = gemm.getTransA();
    fused.plan.transB = gemm.getTransB();
    fused.plan.m = output->shape[0];
    fused.plan.n = output->shape[1];
    fused.plan.k = fused.plan.transA ? lhs->shape[0] : lhs->shape[1];
  } else {
    fused.plan = planMatmul(dtype, lhs->shape, rhs->shape);
    fused.lastDimensionIsN = rhs->getRank() >= 2;
  }
  if (fused.plan.k == 0)
    return fail("a product with an empty inner dimension (K = 0) is not implemented on the CUDA "
                "driver");

  // The epilogue: layers the generated kernel knows, each keeping the
  // product's shape and type, reading values of the match or arguments.
  llvm::DenseSet<mlir::Value> matched = {product->getResult(0)};
  for (mlir::Operation *op : fused.epilogue) {
    llvm::StringRef name = op->getName().getStringRef();
    if (!isEpilogueLayer(op))
      return fail("epilogue layer " + name + " is not implemented on the CUDA driver");
    if (!getElementwiseExpression(op, dtype)) {
      if (auto gelu = llvm::dyn_cast<GeluOp>(op))
        return fail("epilogue layer " + name + " with approximate \"" + gelu.getApproximate() +
                    "\" is not implemented on the CUDA driver");
      return fail("epilogue layer " + name + " on " + getDTypeName(dtype) +
                  " is not implemented on the CUDA driver");
    }
    auto result = getTensorInfo(op, op->getResult(0));
    if (!result)
      return fail(llvm::toString(result.takeError()));
    if (result->dtype != dtype || result->shape != output->shape)
      return fail("epilogue layer " + name +
                  " changing the product's shape or element type is not implemented on the "
                  "CUDA driver");
    for (mlir::Value operand : op->getOperands()) {
      if (matched.contains(operand))
        continue;
      if (!isDefinitionArgument(definition, operand))
        return fail("epilogue layer " + name +
                    " reading a value computed outside the epilogue is not implemented on the "
                    "CUDA driver");
      auto info = getTensorInfo(op, operand);
      if (!info)
        return fail(llvm::toString(info.takeError()));
      if (info->dtype != dtype || !op::broadcastsTo(info->shape, output->shape))
        return fail("epilogue layer " + name +
                    " with an operand that does not broadcast to the product's shape and type "
                    "is not implemented on the CUDA driver");
    }
    matched.insert(op->getResult(0));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Splitting the epilogue between cuBLASLt and the generated kernel
//===----------------------------------------------------------------------===//

/// Whether an argument of `shape` is a bias cuBLASLt adds: N elements along
/// the result's last dimension.
static bool isColumnBias(const FusedProduct &fused, llvm::ArrayRef<int64_t> shape) {
  int64_t n = fused.plan.n;
  if (!fused.lastDimensionIsN || getNumElements(shape) != n ||
      !op::broadcastsTo(shape, fused.output.shape))
    return false;
  return n == 1 || (!shape.empty() && shape.back() == n);
}

static llvm::ArrayRef<int64_t> getShape(mlir::Value value) {
  return llvm::cast<TensorType>(value.getType()).getShape();
}

/// The split of `fused`'s epilogue, cuBLASLt taking the bias and the
/// activation where allowed and able.
static EpiloguePlan planEpilogue(const FusedProduct &fused, bool allowBias, bool allowActivation) {
  EpiloguePlan plan;
  mlir::Value current = fused.product->getResult(0);
  llvm::DenseSet<mlir::Operation *> folded;
  bool foldMore = true;
  if (auto gemm = llvm::dyn_cast<GemmOp>(fused.product)) {
    plan.alpha = gemm.getAlpha().convertToDouble();
    double beta = gemm.getBeta().convertToDouble();
    if (mlir::Value c = gemm.getC(); c && beta != 0.0) {
      if (allowBias && beta == 1.0 && isColumnBias(fused, getShape(c))) {
        plan.library.bias = true;
        plan.bias = c;
      } else if (getShape(c) == llvm::ArrayRef<int64_t>(fused.output.shape)) {
        plan.directC = c;
        plan.library.readsC = true;
        plan.beta = beta;
      } else {
        // Added after the product, so nothing after it may join cuBLASLt.
        plan.generatedC = c;
        plan.beta = beta;
        foldMore = false;
      }
    }
  }
  auto onlyUser = [](mlir::Value value) -> mlir::Operation * {
    return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
  };
  if (foldMore && allowBias && !plan.library.bias)
    if (auto add = llvm::dyn_cast_if_present<AddOp>(onlyUser(current))) {
      mlir::Value other = add.getLhs() == current ? add.getRhs() : add.getLhs();
      if (isDefinitionArgument(fused.definition, other) && isColumnBias(fused, getShape(other))) {
        plan.library.bias = true;
        plan.bias = other;
        folded.insert(add);
        current = add.getResult();
      }
    }
  // A residual add of a full result-shaped argument becomes cuBLASLt's C
  // (beta 1): D = act(alpha·A·B + C + bias) in float32 with one rounding,
  // instead of a second pass over the output that rereads it. It must come
  // before any activation, which cuBLASLt applies last.
  if (foldMore && allowBias && !plan.directC)
    if (auto add = llvm::dyn_cast_if_present<AddOp>(onlyUser(current))) {
      mlir::Value other = add.getLhs() == current ? add.getRhs() : add.getLhs();
      if (other != current && isDefinitionArgument(fused.definition, other) &&
          getShape(other) == llvm::ArrayRef<int64_t>(fused.output.shape)) {
        plan.directC = other;
        plan.library.readsC = true;
        plan.beta = 1.0;
        folded.insert(add);
        current = add.getResult();
      }
    }
  if (foldMore && allowActivation) {
    mlir::Operation *user = onlyUser(current);
    auto gelu = llvm::dyn_cast_if_present<GeluOp>(user);
    if (llvm::isa_and_present<ReluOp>(user)) {
      plan.library.activation = ProductEpilogue::Activation::Relu;
    } else if (gelu && gelu.getApproximate() == "tanh" && fused.output.dtype != DType::F32) {
      plan.library.activation = ProductEpilogue::Activation::GeluTanh;
    } else {
      user = nullptr;
    }
    if (user) {
      folded.insert(user);
      current = user->getResult(0);
    }
  }
  plan.libraryResult = current;
  for (mlir::Operation *op : fused.epilogue)
    if (!folded.contains(op))
      plan.generated.push_back(op);
  return plan;
}

//===----------------------------------------------------------------------===//
// The generated kernel
//===----------------------------------------------------------------------===//

namespace {
/// The generated part of a fused kernel: the kernel and the definition
/// arguments it reads after the output (operands 1, 2, ...).
struct GeneratedEpilogue {
  Kernel kernel;
  llvm::SmallVector<unsigned, 4> argumentIndices;
};
} // namespace

/// The kernel evaluating `plan.generated` (and gemm's generated C) in place
/// over the output, or std::nullopt when nothing is left to it.
static llvm::Expected<std::optional<GeneratedEpilogue>>
buildGeneratedEpilogue(const FusedProduct &fused, const EpiloguePlan &plan,
                       KernelContext::Impl &context) {
  if (plan.generated.empty() && !plan.generatedC)
    return std::nullopt;
  DType dtype = fused.output.dtype;
  std::string type = getComputeType(dtype);
  StridedKernelSpec spec;
  spec.outputType = dtype;
  spec.outputShape = fused.output.shape;
  spec.operands.push_back(broadcastOperand(dtype, fused.output.shape, fused.output.shape));

  // Operand k > 0 of the kernel is the k-th distinct argument read.
  llvm::SetVector<mlir::Value> arguments;
  if (plan.generatedC)
    arguments.insert(plan.generatedC);
  for (mlir::Operation *op : plan.generated)
    for (mlir::Value operand : op->getOperands())
      if (isDefinitionArgument(fused.definition, operand))
        arguments.insert(operand);

  // One expression: a lambda binding the output's value and the arguments
  // read, then evaluating the layers in order (ChainCodegen.h), so that
  // values used twice are computed once.
  GeneratedEpilogue generated;
  ChainStatements statements("v", "      ");
  std::string expression = "[&]() -> " + type + " {\n";
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    std::string name = "e" + std::to_string(index);
    expression += "      const " + type + " " + name + " = x" + std::to_string(index + 1) + ";\n";
    statements.bind(argument, name);
    spec.operands.push_back(broadcastOperand(dtype, getShape(argument), fused.output.shape));
    generated.argumentIndices.push_back(getArgumentIndex(argument));
  }
  expression += "      const " + type + " d = x0";
  if (plan.generatedC)
    expression +=
        " + " + floatLiteral(plan.beta, type) + " * " + statements.lookup(plan.generatedC).str();
  expression += ";\n";
  statements.bind(plan.libraryResult, "d");
  for (mlir::Operation *op : plan.generated)
    if (llvm::Error error = statements.append(op))
      return makeFusedError(fused.definition, kFamily, llvm::toString(std::move(error)));
  // Every layer reaches the root, so with layers left to this kernel the
  // root is one of them.
  mlir::Value root =
      fused.epilogue.empty() ? plan.libraryResult : fused.epilogue.back()->getResult(0);
  llvm::StringRef rootName = statements.lookup(root);
  if (rootName.empty())
    return makeFusedError(fused.definition, kFamily,
                          "the cuBLASLt epilogue consumed the definition's result");
  expression += statements.getText() + "      return " + rootName.str() + ";\n    }()";
  spec.expression = expression;
  auto kernel = buildStridedKernel(fused.product, context, spec);
  if (!kernel)
    return makeFusedError(fused.definition, kFamily, llvm::toString(kernel.takeError()));
  generated.kernel = std::move(*kernel);
  return std::optional<GeneratedEpilogue>(std::move(generated));
}

//===----------------------------------------------------------------------===//
// The family
//===----------------------------------------------------------------------===//

/// The launch: cuBLASLt with its epilogue into the output, then the
/// generated kernel over the output.
static Kernel makeFusedKernel(const FusedProduct &fused, const EpiloguePlan &plan,
                              std::shared_ptr<LtProduct> product,
                              std::optional<GeneratedEpilogue> generated) {
  FunctionalDefinitionOp definition = fused.definition;
  std::string name = ("@" + definition.getSymName() + ": fused matmul").str();
  auto indexOf = [](mlir::Value value) -> int {
    return value ? static_cast<int>(getArgumentIndex(value)) : -1;
  };
  unsigned lhsIndex = getArgumentIndex(fused.product->getOperand(0));
  unsigned rhsIndex = getArgumentIndex(fused.product->getOperand(1));
  int directCIndex = indexOf(plan.directC), biasIndex = indexOf(plan.bias);
  ProductPlan productPlan = fused.plan;
  double alpha = plan.alpha, beta = plan.directC ? plan.beta : 0.0;
  uint64_t workspaceSize = product->workspaceSize;
  auto launch = [=](const LaunchArgs &args) -> std::string {
    ProductOperands operands;
    operands.lhs = args.inputs[lhsIndex];
    operands.rhs = args.inputs[rhsIndex];
    operands.c = directCIndex >= 0 ? args.inputs[directCIndex] : nullptr;
    operands.output = args.outputs[0];
    operands.bias = biasIndex >= 0 ? args.inputs[biasIndex] : nullptr;
    std::string message = enqueueLtProduct(*product, productPlan, alpha, beta, operands,
                                           args.workspace, args.stream, name);
    if (!message.empty() || !generated)
      return message;
    llvm::SmallVector<const void *, 6> pointers = {args.outputs[0]};
    for (unsigned index : generated->argumentIndices)
      pointers.push_back(args.inputs[index]);
    return generated->kernel.launch(LaunchArgs{pointers, args.outputs, nullptr, args.stream});
  };
  return Kernel{std::move(launch), alignWorkspace(workspaceSize)};
}

//===----------------------------------------------------------------------===//
// The cuDNN graph: the product with an exact GELU
//===----------------------------------------------------------------------===//

/// The graph of a product whose epilogue is a bias (cuBLASLt's, in `plan`)
/// and then an exact GELU, which cuBLASLt's epilogues cannot apply: float16
/// or bfloat16 row-major [M, K] · [K, N] of one call, K and N multiples of 8
/// (16-byte rows); std::nullopt for any other definition.
static std::optional<MatmulGraphSpec> getGraphSpec(const FusedProduct &fused,
                                                   const EpiloguePlan &plan) {
  const ProductPlan &product = fused.plan;
  DType dtype = fused.output.dtype;
  if (!llvm::isa<MatmulOp>(fused.product) || (dtype != DType::F16 && dtype != DType::BF16) ||
      product.batch != 1 || product.transA || product.transB ||
      product.lhsOffsets.size() != 1 || product.k % 8 != 0 || product.n % 8 != 0 ||
      !fused.lastDimensionIsN)
    return std::nullopt;
  if (plan.directC || plan.generatedC || plan.alpha != 1.0 ||
      plan.library.activation != ProductEpilogue::Activation::None ||
      plan.generated.size() != 1)
    return std::nullopt;
  auto gelu = llvm::dyn_cast<GeluOp>(plan.generated.front());
  if (!gelu || gelu.getApproximate() != "none" || gelu.getInput() != plan.libraryResult)
    return std::nullopt;
  MatmulGraphSpec spec;
  spec.dtype = dtype;
  spec.m = product.m;
  spec.k = product.k;
  spec.n = product.n;
  spec.lhs = getArgumentIndex(fused.product->getOperand(0));
  spec.rhs = getArgumentIndex(fused.product->getOperand(1));
  if (plan.library.bias)
    spec.bias = getArgumentIndex(plan.bias);
  spec.activation = CUDNN_POINTWISE_GELU_FWD;
  return spec;
}

/// What CGC_CUDA_MATMUL asks of a path other than cuBLASLt and the
/// generated epilogue (the cuDNN graph, the Hopper GEMM), read at each
/// build so that tests can set it.
enum class PathUse {
  /// Left out ("library", another path's name; unset for the graph).
  Never,
  /// Run, or an error saying why it cannot (the path's name).
  Forced,
  /// Timed against the others where it runs, the fastest kept ("timed").
  Timed,
  /// Unset, for the Hopper GEMM: its default tile alone timed against the
  /// library path where it runs, the faster kept.
  Default,
};

/// The use CGC_CUDA_MATMUL asks of the path it forces with `forcedName`;
/// `unset` when it is not set.
static PathUse getPathUse(llvm::StringRef forcedName, PathUse unset = PathUse::Never) {
  const char *value = std::getenv("CGC_CUDA_MATMUL");
  if (!value)
    return unset;
  llvm::StringRef name = value;
  if (name == forcedName)
    return PathUse::Forced;
  if (name == "timed")
    return PathUse::Timed;
  return PathUse::Never;
}

/// `library` (cuBLASLt and the generated epilogue), or the cuDNN graph of
/// the same definition as CGC_CUDA_MATMUL asks: forced (an error where it
/// cannot run the definition), or timed against `library` on a device and
/// kept when faster. Unasked, the library path runs: on an H100 the graph
/// (cuDNN 9.14's one engine for it) was slower at every feed-forward
/// product of BERT-base and ViT-B/16 measured (batch 32: 72 against 60 µs
/// and 99 against 79 µs), and building it compiles code at runtime, about
/// a second per model.
static llvm::Expected<Kernel> keepFasterGraph(const FusedProduct &fused, const EpiloguePlan &plan,
                                              Kernel library, KernelContext::Impl &context) {
  FunctionalDefinitionOp definition = fused.definition;
  PathUse use = getPathUse("graph");
  bool forced = use == PathUse::Forced;
  std::optional<MatmulGraphSpec> spec = getGraphSpec(fused, plan);
  if (use == PathUse::Never || (!forced && (!spec || !context.hasDevice())))
    return std::move(library);
  auto refuse = [&](const std::string &reason) -> llvm::Expected<Kernel> {
    if (forced)
      return makeFusedError(definition, kFamily,
                            "CGC_CUDA_MATMUL=graph: the cuDNN graph does not run this "
                            "definition: " + reason);
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName()
                   << ": fused matmul: runs as cuBLASLt + generated epilogue (cuDNN graph: "
                   << reason << ")\n";
    return std::move(library);
  };
  if (!spec)
    return refuse("not implemented: only a float16 or bfloat16 product of one call with K and "
                  "N multiples of 8, then a bias and an exact GELU, runs as a graph");
  auto handle = context.getCudnn(fused.product);
  if (!handle)
    return refuse(llvm::toString(handle.takeError()));
  std::string reason;
  GraphPlanChoice choice;
  std::optional<Kernel> graph = buildGraphKernel(
      definition, context,
      [&](const CudnnPlanSearch &search) {
        return createMatmulGraph(*spec, *handle, search, reason);
      },
      "fused matmul (cuDNN graph)", choice);
  if (!graph)
    return refuse("cuDNN has no plan: " + reason);
  if (forced)
    return std::move(*graph);
  std::vector<std::optional<float>> times = timeLaunches(definition, {&library, &*graph});
  bool graphFaster = times[1] && (!times[0] || *times[1] < *times[0]);
  if (isVerbose())
    llvm::errs() << "cgc cuda: @" << definition.getSymName()
                 << ": fused matmul: cuBLASLt + generated epilogue " << formatTime(times[0])
                 << " ms, cuDNN graph (engine " << choice.engine << ") "
                 << formatTime(times[1]) << " ms: runs as "
                 << (graphFaster ? "the cuDNN graph" : "cuBLASLt + generated epilogue") << "\n";
  return graphFaster ? std::move(*graph) : std::move(library);
}

//===----------------------------------------------------------------------===//
// The Hopper GEMM: the product with its bias and exact GELU in one kernel
//===----------------------------------------------------------------------===//

/// The tiles CGC_CUDA_MATMUL=timed times, each with the staged epilogue:
/// the ping-pong form with four slots (one block whose warpgroups take
/// 128x128 tiles in turn), both warpgroups on each 128x128 tile with five
/// slots, and on each 128x256 tile with three. On an H100, BERT-base's
/// batch-32 feed-forward product with its GELU took 46.3, 46.2 and 47.2 µs
/// (cuBLASLt + the GELU pass 52.5), ViT-B/16's 70.6, 72.2 and 73.9 µs
/// (75.4); the in-place forms took 49.6-58.8 µs at BERT's. Once the staged
/// tiles read their bias as they stage it (no spill), the first took 41.8
/// and 64.3 µs.
/// Unset, the first alone is timed against the library path.
struct WgmmaTile {
  int columns = 128, stages = 3;
  bool pingPong = false;
  bool staged = false;
};
static constexpr WgmmaTile kWgmmaTiles[] = {
    {128, 4, true, true}, {128, 5, false, true}, {256, 3, false, true}};

/// `current` (cuBLASLt and the generated epilogue, or the cuDNN graph), or
/// the Hopper GEMM of the same definition as CGC_CUDA_MATMUL asks: forced
/// (an error where it cannot run the definition), or timed against
/// `current` on a device of compute capability 9.0 and kept when faster.
/// Unasked (CGC_CUDA_MATMUL unset), its default tile is timed against
/// `current` on such a device where the product has at least two 128x128
/// tiles for each multiprocessor: one more runtime compilation, a few
/// tenths of a second of a cold compile.
static llvm::Expected<Kernel> keepFasterWgmma(const FusedProduct &fused, const EpiloguePlan &plan,
                                              Kernel current, KernelContext::Impl &context) {
  FunctionalDefinitionOp definition = fused.definition;
  PathUse use = getPathUse("wgmma", PathUse::Default);
  bool forced = use == PathUse::Forced;
  std::optional<MatmulGraphSpec> spec = getGraphSpec(fused, plan);
  std::optional<std::string> deviceRefusal = getWgmmaGemmRefusal(context);
  if (use == PathUse::Never ||
      (!forced && (!spec || !context.hasDevice() || deviceRefusal)))
    return std::move(current);
  auto refuse = [&](const std::string &reason) -> llvm::Expected<Kernel> {
    if (forced)
      return makeFusedError(definition, kFamily,
                            "CGC_CUDA_MATMUL=wgmma: the Hopper GEMM does not run this "
                            "definition: " + reason);
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName()
                   << ": fused matmul: the Hopper GEMM is left out: " << reason << "\n";
    return std::move(current);
  };
  if (!spec)
    return refuse("not implemented: only a float16 or bfloat16 product of one call with K and "
                  "N multiples of 8, then a bias and an exact GELU, runs as the Hopper GEMM");
  if (deviceRefusal)
    return refuse(*deviceRefusal);
  // Unasked, a small product keeps the library path (WgmmaGemm.h).
  if (use == PathUse::Default &&
      !isWgmmaGemmWorthTiming(spec->m, spec->n, context.getMultiprocessorCount()))
    return refuse("unasked, and fewer than two 128x128 tiles for each multiprocessor");
  std::string name = ("@" + definition.getSymName() + ": fused matmul (Hopper GEMM)").str();
  // CGC_CUDA_WGMMA_TILE=<columns>x<slots>[p][s] builds that tile alone
  // (tests run each).
  const char *tileValue = std::getenv("CGC_CUDA_WGMMA_TILE");
  llvm::StringRef onlyTile = tileValue ? tileValue : "";
  std::vector<WgmmaTile> tiles(std::begin(kWgmmaTiles),
                               use == PathUse::Default ? std::begin(kWgmmaTiles) + 1
                                                       : std::end(kWgmmaTiles));
  if (!onlyTile.empty()) {
    auto [columnText, stageText] = onlyTile.split('x');
    bool staged = stageText.consume_back("s");
    bool pingPong = stageText.consume_back("p");
    int columns = 0, stages = 0;
    tiles.clear();
    if (!columnText.getAsInteger(10, columns) && !stageText.getAsInteger(10, stages) &&
        (columns == 128 || (columns == 256 && !pingPong)) && stages >= 2 && stages <= 8)
      tiles.push_back({columns, stages, pingPong, staged});
  }
  std::vector<Kernel> candidates;
  std::vector<std::string> labels;
  for (auto [columns, stages, pingPong, staged] : tiles) {
    WgmmaGemmSpec gemm;
    gemm.bfloat16 = spec->dtype == DType::BF16;
    gemm.m = spec->m;
    gemm.n = spec->n;
    gemm.k = spec->k;
    gemm.activation = WgmmaGemmSpec::Activation::GeluErf;
    gemm.blockN = columns;
    gemm.stages = stages;
    gemm.pingPong = pingPong;
    gemm.staged = staged;
    auto kernel =
        buildWgmmaGemmKernel(gemm, spec->lhs, spec->rhs, spec->bias, current, context, name);
    if (!kernel)
      return refuse(llvm::toString(kernel.takeError()));
    candidates.push_back(std::move(*kernel));
    labels.push_back("128x" + std::to_string(columns) + " tile, " + std::to_string(stages) +
                     " slots" + (pingPong ? ", ping-pong" : "") +
                     (staged ? ", staged epilogue" : ""));
  }
  if (candidates.empty())
    return refuse("CGC_CUDA_WGMMA_TILE=" + onlyTile.str() +
                  " names no tile of the Hopper GEMM (<columns>x<slots>[p][s]: 128 or 256 "
                  "columns, 2 to 8 slots, p for ping-pong warpgroups with 128 columns, s for "
                  "the epilogue staged through shared memory)");
  if (!context.hasDevice())
    return std::move(candidates.front());
  // A model's repeated layers are timed once.
  static ChoiceCache<size_t> choices;
  std::string key = std::to_string(context.getDevice()) + ":" + getDTypeName(spec->dtype) + ":" +
                    std::to_string(spec->m) + "x" + std::to_string(spec->k) + "x" +
                    std::to_string(spec->n) + (spec->bias ? ":bias" : "") + ":" +
                    onlyTile.str() + ":" + (std::getenv("CGC_CUDA_MATMUL") ? std::getenv("CGC_CUDA_MATMUL") : "");
  if (std::optional<size_t> kept = choices.lookup(key))
    return *kept == 0 ? std::move(current) : std::move(candidates[*kept - 1]);
  std::vector<const Kernel *> timed = {&current};
  for (const Kernel &candidate : candidates)
    timed.push_back(&candidate);
  std::vector<std::optional<float>> times = timeLaunches(definition, timed);
  // Index 0 is `current`, which a forced build does not keep.
  size_t best = forced ? 1 : 0;
  for (size_t index = 1; index < times.size(); ++index)
    if (times[index] && (!times[best] || *times[index] < *times[best]))
      best = index;
  if (isVerbose()) {
    llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": fused matmul: "
                 << formatTime(times[0]) << " ms as before";
    for (size_t index = 1; index < times.size(); ++index)
      llvm::errs() << ", Hopper GEMM (" << labels[index - 1] << ") " << formatTime(times[index])
                   << " ms";
    llvm::errs() << ": runs as "
                 << (best == 0 ? std::string("before") : "the Hopper GEMM, " + labels[best - 1])
                 << "\n";
  }
  choices.store(key, best);
  return best == 0 ? std::move(current) : std::move(candidates[best - 1]);
}

namespace {

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  FusedProduct fused;
  return readDefinition(definition, fused);
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  using Result = std::optional<llvm::Expected<Kernel>>;
  FusedProduct fused;
  std::optional<llvm::Error> recognized = readDefinition(definition, fused);
  if (!recognized)
    return std::nullopt;
  if (*recognized)
    return Result(std::move(*recognized));
  if (fused.output.getNumElements() == 0)
    return Result(Kernel{[](const LaunchArgs &) { return std::string(); }, 0});

  // The generated part of the full split compiles before cuBLASLt is asked
  // (a compile-only context checks it without a device).
  EpiloguePlan plan = planEpilogue(fused, /*allowBias=*/true, /*allowActivation=*/true);
  auto generated = buildGeneratedEpilogue(fused, plan, context);
  if (!generated)
    return Result(generated.takeError());
  auto handle = context.getCublasLt(fused.product);
  if (!handle)
    return Result(makeFusedError(definition, kFamily, llvm::toString(handle.takeError())));
  // Less for cuBLASLt's epilogue each time it has no algorithm.
  const std::pair<bool, bool> splits[] = {{true, true}, {true, false}, {false, false}};
  for (auto [index, split] : llvm::enumerate(splits)) {
    if (index > 0) {
      EpiloguePlan smaller = planEpilogue(fused, split.first, split.second);
      if (smaller.library.bias == plan.library.bias &&
          smaller.library.activation == plan.library.activation &&
          smaller.library.readsC == plan.library.readsC)
        continue;
      plan = std::move(smaller);
      generated = buildGeneratedEpilogue(fused, plan, context);
      if (!generated)
        return Result(generated.takeError());
    }
    auto product = createLtProduct(fused.product, fused.plan, *handle, plan.library);
    if (product) {
      auto kernel = keepFasterGraph(
          fused, plan, makeFusedKernel(fused, plan, std::move(*product), std::move(*generated)),
          context);
      if (!kernel)
        return Result(kernel.takeError());
      return Result(keepFasterWgmma(fused, plan, std::move(*kernel), context));
    }
    bool libraryEpilogue =
        plan.library.bias || plan.library.activation != ProductEpilogue::Activation::None;
    if (!libraryEpilogue || index + 1 == std::size(splits))
      return Result(makeFusedError(definition, kFamily, llvm::toString(product.takeError())));
    llvm::consumeError(product.takeError());
  }
  return Result(makeFusedError(definition, kFamily, "no cuBLASLt configuration was tried"));
}

} // namespace

const FusedFamily kFusedMatmul = {"matmul", check, build};

} // namespace cgc::cuda
