//===- GemmConvolution.cpp - channels-last convolutions as cuBLASLt GEMMs -===//
//
// One launch runs up to three steps on the stream: the gather of the
// windows into the workspace (not for a pointwise convolution, whose input
// already is the matrix), cuBLASLt's product with its epilogue into the
// output, and the generated epilogue over the output in place (when
// cuBLASLt did not apply the whole chain). The workspace holds the gathered
// matrix, the zero-padded weight when im2col pads the rows, then what the
// gather or cuBLASLt needs (they run one after the other, so they share
// it).
//
// The im2col gather pads the weight in the same launch rather than using
// cuBLASLt's element-aligned algorithm on the unpadded [K, R·S·C] weight:
// the copy is K·K' elements (at most 64 × 152 for ResNet's first layer,
// against N·P·Q·K' patch elements) and one launch, while an unaligned
// leading dimension leaves cuBLASLt's slower kernels for the whole
// product. Its sizes are compiled in (one module per geometry: the
// convolutions it takes are a model's first) so that the index divisions
// are by constants.
//
// The product computes in float32 (never TF32, CublasLtProduct.cpp) and
// rounds once to the output's type after its epilogue; the generated
// epilogue reads that value back and computes in float32 too.
//
//===----------------------------------------------------------------------===//

#include "GemmConvolution.h"

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <span>

namespace cgc::cuda {

/// The geometry of `shape`'s convolution, its weight read as OIHW.
static llvm::Expected<GemmGeometry> getGeometry(const FusedConvolutionShape &shape) {
  auto geometry = getChannelsLastGeometry(shape);
  if (!geometry)
    return geometry.takeError();
  GemmGeometry gemm;
  static_cast<ChannelsLastGeometry &>(gemm) = *geometry;
  return gemm;
}

/// What makes `shape`'s windows need im2col: "the convolution is padded",
/// "windows overlap along H (...)"; std::nullopt for windows that do not
/// overlap and read no padding, which a strided copy gathers. Along a
/// dimension with one output, there is one window.
static std::optional<std::string> describeGeneralWindows(const FusedConvolutionShape &shape,
                                                         const GemmGeometry &geometry) {
  op::ConvolutionOp conv = shape.conv;
  llvm::SmallVector<int64_t> startPadding = conv.getStartPadding(),
                             endPadding = conv.getEndPadding();
  auto nonzero = [](int64_t value) { return value != 0; };
  if (llvm::any_of(startPadding, nonzero) || llvm::any_of(endPadding, nonzero))
    return std::string("the convolution is padded");
  struct Dimension {
    const char *name;
    int64_t size, stride, dilation, outputs;
  };
  const Dimension dimensions[] = {
      {"H", geometry.kernelHeight, geometry.strideHeight, geometry.dilationHeight,
       geometry.outHeight},
      {"W", geometry.kernelWidth, geometry.strideWidth, geometry.dilationWidth, geometry.outWidth}};
  for (const Dimension &dimension : dimensions) {
    int64_t extent = dimension.dilation * (dimension.size - 1) + 1;
    if (dimension.outputs > 1 && dimension.stride < extent)
      return std::string("windows overlap along ") + dimension.name + " (stride " +
             std::to_string(dimension.stride) + ", window extent " + std::to_string(extent) + ")";
  }
  return std::nullopt;
}

/// The workspace bytes of the im2col matrix and the padded weight.
static uint64_t getGeneralWindowBytes(const GemmGeometry &geometry, DType dtype) {
  uint64_t columns = static_cast<uint64_t>(geometry.getPaddedWindowElements());
  uint64_t bytes = static_cast<uint64_t>(getByteWidth(dtype));
  uint64_t matrix = alignWorkspace(static_cast<uint64_t>(geometry.getRows()) * columns * bytes);
  if (geometry.getPaddedWindowElements() == geometry.getWindowElements())
    return matrix;
  return matrix + alignWorkspace(static_cast<uint64_t>(geometry.outChannels) * columns * bytes);
}

std::optional<std::string> getGemmRefusal(const FusedConvolutionShape &shape) {
  if (!shape.channelsLast)
    return std::string("the convolution is channels-first");
  const Shape &input = shape.plan.input.shape, &output = shape.plan.output.shape;
  if (input.size() != 4 || output.size() != 4)
    return std::string("the convolution is not 2-D");
  op::ConvolutionOp conv = shape.conv;
  if (conv.getGroups() != 1)
    return "groups = " + std::to_string(conv.getGroups()) + " (the GEMM needs 1)";
  DType dtype = shape.plan.output.dtype;
  llvm::SmallVector<mlir::Value, 3> operands = {conv.getInput(), conv.getWeight()};
  if (conv.getBias())
    operands.push_back(conv.getBias());
  for (mlir::Value operand : operands) {
    auto info = getTensorInfo(conv, operand);
    if (!info)
      return llvm::toString(info.takeError());
    if (info->dtype != dtype)
      return std::string("an operand of type ") + getDTypeName(info->dtype) + " with a " +
             getDTypeName(dtype) + " result";
  }
  auto geometry = getGeometry(shape);
  if (!geometry)
    return llvm::toString(geometry.takeError());
  if (geometry->getWindowElements() == 0)
    return std::string("the product's inner dimension is empty");
  std::optional<std::string> general = describeGeneralWindows(shape, *geometry);
  if (!general)
    return std::nullopt;
  // im2col writes each input element once per window reading it. With 8
  // channels or more cuDNN's implicit GEMM, which reads the input in place,
  // is the better path (the file comment of GemmConvolution.h has the
  // measurements).
  if (geometry->channels >= kGeneralWindowChannelLimit)
    return *general + " with " + std::to_string(geometry->channels) +
           " input channels (im2col only for fewer than " +
           std::to_string(kGeneralWindowChannelLimit) + ")";
  uint64_t bytes = getGeneralWindowBytes(*geometry, dtype);
  if (bytes > kGeneralWindowWorkspaceLimit)
    return *general + " and im2col would take " + std::to_string(bytes >> 20) +
           " MiB of workspace (at most " + std::to_string(kGeneralWindowWorkspaceLimit >> 20) + ")";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The epilogue's split
//===----------------------------------------------------------------------===//

GemmEpilogueSplit splitGemmEpilogue(FunctionalDefinitionOp definition,
                                    const FusedConvolutionShape &shape, bool allowAdditions,
                                    bool allowActivation) {
  GemmEpilogueSplit split;
  mlir::Block &body = definition.getBody().front();
  const Shape &output = shape.plan.output.shape;
  int64_t channels = output.back();
  // The NHWC shape a chain operand has; every operand broadcasts to the
  // result (analyzeFusedConvolution).
  auto argumentShape = [&](unsigned argument) {
    return llvm::cast<TensorType>(body.getArgument(argument).getType()).getShape();
  };
  // A per-channel operand is cuBLASLt's bias: one value per column of the
  // row-major result. A whole-result one (only leading 1s added) lies as
  // the result does: cuBLASLt's C.
  auto isPerChannel = [&](llvm::ArrayRef<int64_t> operand) {
    return getNumElements(operand) == channels &&
           (channels == 1 || (!operand.empty() && operand.back() == channels));
  };
  auto isWholeResult = [&](llvm::ArrayRef<int64_t> operand) {
    return getNumElements(operand) == getNumElements(output);
  };

  const std::vector<ChainStep> &steps = shape.steps;
  size_t next = 0;
  // Additions commute before an activation: cuBLASLt adds its bias and C in
  // float32 whatever their order in the chain. Only while everything
  // before is cuBLASLt's may it take more.
  bool allLibrary = true;
  if (shape.bias) {
    if (allowAdditions) {
      split.library.bias = true;
      split.bias = shape.bias;
      split.start.biasApplied = true;
    } else {
      allLibrary = false;
    }
  }
  while (allLibrary && allowAdditions && next < steps.size()) {
    const ChainStep &step = steps[next];
    if (step.kind != StepKind::Add || !step.argument)
      break;
    llvm::ArrayRef<int64_t> operand = argumentShape(*step.argument);
    if (!split.bias && isPerChannel(operand)) {
      split.library.bias = true;
      split.bias = step.argument;
    } else if (!split.residual && isWholeResult(operand)) {
      split.residual = step.argument;
      split.library.readsC = true;
    } else {
      break;
    }
    ++next;
  }
  if (allLibrary && allowActivation && next < steps.size() && steps[next].kind == StepKind::Relu) {
    split.library.activation = ProductEpilogue::Activation::Relu;
    ++next;
  }
  split.start.stepsApplied = next;
  return split;
}

/// Whether two splits give cuBLASLt the same work.
static bool isSameSplit(const GemmEpilogueSplit &a, const GemmEpilogueSplit &b) {
  // library.readsC follows residual.
  return a.library.bias == b.library.bias && a.library.activation == b.library.activation &&
         a.bias == b.bias && a.residual == b.residual;
}

/// "cuBLASLt's epilogue: bias, relu; generated epilogue: 1 chain layer" for
/// the reports.
static std::string describeSplit(const FusedConvolutionShape &shape,
                                 const GemmEpilogueSplit &split) {
  std::string library;
  auto add = [&](const char *part) {
    library += (library.empty() ? "" : ", ") + std::string(part);
  };
  if (split.library.bias)
    add("bias");
  if (split.residual)
    add("residual add");
  if (split.library.activation == ProductEpilogue::Activation::Relu)
    add("relu");
  std::string generated;
  if (shape.bias && !split.start.biasApplied)
    generated = "the bias, ";
  size_t layers = shape.steps.size() - std::min(split.start.stepsApplied, shape.steps.size());
  generated += std::to_string(layers) + (layers == 1 ? " chain layer" : " chain layers");
  return "cuBLASLt's epilogue: " + (library.empty() ? std::string("none") : library) +
         "; generated epilogue: " + generated;
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// The gather of `geometry`'s windows into the rows of the matrix: a copy
/// of the input to [N, P, Q, R, S, C] in row-major order, the
/// [N·P·Q, R·S·C] matrix. std::nullopt when the input already lies as that
/// matrix (a pointwise convolution, or a window as large as the image).
static std::optional<StridedKernelSpec> getGatherSpec(const GemmGeometry &geometry, DType dtype) {
  const GemmGeometry &g = geometry;
  int64_t row = g.width * g.channels;
  Shape outputShape = {g.batch, g.outHeight, g.outWidth, g.kernelHeight, g.kernelWidth, g.channels};
  Shape strides = {g.height * row,         g.strideHeight * row,         g.strideWidth * g.channels,
                   g.dilationHeight * row, g.dilationWidth * g.channels, 1};
  Shape dense = getStrides(outputShape);
  bool inPlace = true;
  for (size_t dim = 0; dim < outputShape.size(); ++dim)
    inPlace = inPlace && (outputShape[dim] == 1 || strides[dim] == dense[dim]);
  if (inPlace)
    return std::nullopt;
  StridedOperand input;
  input.dtype = dtype;
  input.strides = std::move(strides);
  input.raw = true;
  StridedKernelSpec spec;
  spec.operands.push_back(std::move(input));
  spec.outputType = dtype;
  spec.rawOutput = true;
  spec.outputShape = std::move(outputShape);
  spec.expression = "x0";
  return spec;
}

//===----------------------------------------------------------------------===//
// im2col
//===----------------------------------------------------------------------===//

/// Threads per block of the im2col gather.
static constexpr unsigned kGatherThreads = 256;

int64_t getWindowGatherGroups(const GemmGeometry &geometry) {
  int64_t groupsPerRow = geometry.getPaddedWindowElements() / 8;
  int64_t weightGroups = geometry.getPaddedWindowElements() == geometry.getWindowElements()
                             ? 0
                             : geometry.outChannels * groupsPerRow;
  return geometry.getRows() * groupsPerRow + weightGroups;
}

std::string generateWindowGatherSource(const GemmGeometry &geometry, DType dtype, bool narrow) {
  const GemmGeometry &g = geometry;
  int64_t groupsPerRow = g.getPaddedWindowElements() / 8;
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  // The gather moves bits: zero bits are +0 in every floating-point type.
  os << "typedef " << getBitsType(dtype) << " cgc_bits;\n"
     << getIndexTypedef(narrow)
     << "struct __align__(16) cgc_group {\n  cgc_bits v[8];\n};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(" << kGatherThreads << ") "
     << kWindowGatherKernel
     << "(const cgc_bits *__restrict__ in, const cgc_bits *__restrict__ weight,\n"
     << "    cgc_group *__restrict__ patches, cgc_group *__restrict__ paddedWeight) {\n";
  auto constant = [&](const char *name, int64_t value) {
    os << "  constexpr cgc_index " << name << " = " << value << (narrow ? "" : "LL") << ";\n";
  };
  constant("H", g.height);
  constant("W", g.width);
  constant("C", g.channels);
  constant("P", g.outHeight);
  constant("Q", g.outWidth);
  constant("S", g.kernelWidth);
  constant("strideH", g.strideHeight);
  constant("strideW", g.strideWidth);
  constant("dilationH", g.dilationHeight);
  constant("dilationW", g.dilationWidth);
  constant("padTop", g.padTop);
  constant("padLeft", g.padLeft);
  constant("K", g.getWindowElements());
  constant("groupsPerRow", groupsPerRow);
  constant("patchGroups", g.getRows() * groupsPerRow);
  constant("count", getWindowGatherGroups(g));
  os << R"cuda(  const cgc_index step = (cgc_index)gridDim.x * (cgc_index)blockDim.x;
  for (cgc_index i = (cgc_index)blockIdx.x * (cgc_index)blockDim.x + (cgc_index)threadIdx.x;
       i < count; i += step) {
    cgc_group group;
    if (i < patchGroups) {
      // Row (n, p, q) of the matrix, columns column .. column + 7 in
      // (r, s, c) order.
      cgc_index row = i / groupsPerRow;
      cgc_index column = (i - row * groupsPerRow) * 8;
      cgc_index q = row % Q, np = row / Q;
      cgc_index p = np % P, n = np / P;
      cgc_index c = column % C, rs = column / C;
      cgc_index s = rs % S, r = rs / S;
      cgc_index top = p * strideH - padTop, left = q * strideW - padLeft;
      const cgc_bits *image = in + n * (H * W * C);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        cgc_index h = top + r * dilationH, w = left + s * dilationW;
        bool inside = column + j < K && h >= 0 && h < H && w >= 0 && w < W;
        group.v[j] = inside ? image[(h * W + w) * C + c] : (cgc_bits)0;
        if (++c == C) {
          c = 0;
          if (++s == S) {
            s = 0;
            ++r;
          }
        }
      }
      patches[i] = group;
    } else {
      // Row o of the [K, K'] weight, zeros past its K columns.
      cgc_index index = i - patchGroups;
      cgc_index o = index / groupsPerRow;
      cgc_index column = (index - o * groupsPerRow) * 8;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        group.v[j] = column + j < K ? weight[o * K + column + j] : (cgc_bits)0;
      paddedWeight[index] = group;
    }
  }
}
)cuda";
  return source;
}

/// The im2col kernel of `geometry`: inputs {input, weight}, outputs
/// {patches, paddedWeight} (the latter unused when K' = R·S·C), both
/// 16-byte aligned.
static llvm::Expected<Kernel> buildWindowGather(mlir::Operation *op, KernelContext::Impl &context,
                                                const GemmGeometry &geometry, DType dtype) {
  // The matrix's indices fit in 32 bits under the workspace cap; the input's
  // are checked.
  constexpr int64_t kNarrowLimit = int64_t(1) << 30;
  int64_t inputElements = geometry.batch * geometry.height * geometry.width * geometry.channels;
  int64_t groups = getWindowGatherGroups(geometry);
  bool narrow = inputElements < kNarrowLimit && groups * 8 < kNarrowLimit;
  std::string source = generateWindowGatherSource(geometry, dtype, narrow);
  auto function = context.getFunction(op, source, kWindowGatherKernel);
  if (!function)
    return function.takeError();
  dim3 grid(context.getGridSize(groups, kGatherThreads)), block(kGatherThreads);
  std::string opName = op->getName().getStringRef().str();
  auto launch = [function = *function, grid, block, opName](const LaunchArgs &args) -> std::string {
    const void *in = args.inputs[0], *weight = args.inputs[1];
    void *patches = args.outputs[0], *paddedWeight = args.outputs[1];
    uintptr_t addresses =
        reinterpret_cast<uintptr_t>(patches) | reinterpret_cast<uintptr_t>(paddedWeight);
    if (addresses % 16 != 0)
      return opName + ": the im2col gather needs a 16-byte aligned workspace";
    void *arguments[] = {&in, &weight, &patches, &paddedWeight};
    cudaError_t error = function.launch(grid, block, arguments, 0, args.stream);
    return error == cudaSuccess ? std::string()
                                : describeLaunchFailure(opName, "cudaLaunchKernel", error);
  };
  return Kernel{std::move(launch), 0};
}

namespace {
/// What one launch runs.
struct GemmParts {
  /// The strided copy (inputs {input}, outputs {matrix}) or im2col (inputs
  /// {input, weight}, outputs {matrix, padded weight}).
  std::optional<Kernel> gather;
  bool im2col = false;
  uint64_t matrixBytes = 0;
  /// The zero-padded weight's bytes, 0 when the product reads the weight.
  uint64_t paddedWeightBytes = 0;
  ProductPlan plan;
  std::shared_ptr<LtProduct> product;
  GemmEpilogueSplit split;
  std::optional<EpilogueKernel> epilogue;
  unsigned input = 0, weight = 0;
};
} // namespace

/// The launch of `parts`: the gather into the workspace, the product with
/// its epilogue into the output, the generated epilogue over the output.
/// The workspace: the matrix, the padded weight, then the scratch the
/// gather or cuBLASLt needs.
static Kernel makeKernel(FunctionalDefinitionOp definition, GemmParts parts) {
  std::string name = ("@" + definition.getSymName() + ": fused convolution (GEMM)").str();
  uint64_t matrixRegion = parts.gather ? alignWorkspace(parts.matrixBytes) : 0;
  uint64_t weightRegion = alignWorkspace(parts.paddedWeightBytes);
  uint64_t scratch = std::max<uint64_t>(parts.gather ? parts.gather->workspaceSize : 0,
                                        parts.product->workspaceSize);
  uint64_t workspaceSize = alignWorkspace(matrixRegion + weightRegion + scratch);
  auto launch = [parts = std::move(parts), matrixRegion, weightRegion,
                 name](const LaunchArgs &args) -> std::string {
    const void *matrix = args.inputs[parts.input];
    const void *weight = args.inputs[parts.weight];
    char *workspace = static_cast<char *>(args.workspace);
    void *paddedWeight = parts.paddedWeightBytes ? workspace + matrixRegion : nullptr;
    void *scratch = workspace + matrixRegion + weightRegion;
    if (parts.gather) {
      const void *gatherInputs[] = {matrix, weight};
      void *gatherOutputs[] = {args.workspace, paddedWeight};
      size_t operandCount = parts.im2col ? 2 : 1;
      std::string message = parts.gather->launch(
          LaunchArgs{std::span<const void *const>(gatherInputs, operandCount),
                     std::span<void *const>(gatherOutputs, operandCount), scratch, args.stream});
      if (!message.empty())
        return message;
      matrix = args.workspace;
      if (paddedWeight)
        weight = paddedWeight;
    }
    ProductOperands operands;
    operands.lhs = matrix;
    operands.rhs = weight;
    operands.c = parts.split.residual ? args.inputs[*parts.split.residual] : nullptr;
    operands.output = args.outputs[0];
    operands.bias = parts.split.bias ? args.inputs[*parts.split.bias] : nullptr;
    std::string message = enqueueLtProduct(*parts.product, parts.plan, /*alpha=*/1.0,
                                           /*beta=*/parts.split.residual ? 1.0 : 0.0, operands,
                                           scratch, args.stream, name);
    if (!message.empty() || !parts.epilogue)
      return message;
    return parts.epilogue->launch(args);
  };
  return Kernel{std::move(launch), workspaceSize};
}

llvm::Expected<Kernel> buildGemmConvolution(FunctionalDefinitionOp definition,
                                            const FusedConvolutionShape &shape,
                                            KernelContext::Impl &context) {
  if (std::optional<std::string> refusal = getGemmRefusal(shape))
    return makeFusedError(definition, kConvolutionFamily,
                          "the cuBLASLt GEMM does not run this definition: " + *refusal);
  auto geometry = getGeometry(shape);
  if (!geometry)
    return inFusedConvolution(definition, geometry.takeError());
  DType dtype = shape.plan.output.dtype;
  GemmParts parts;
  parts.input = shape.input;
  parts.weight = shape.weight;
  parts.plan.dtype = dtype;
  parts.plan.m = geometry->batch * geometry->outHeight * geometry->outWidth;
  parts.plan.n = geometry->outChannels;
  parts.plan.k = geometry->getWindowElements();
  parts.plan.transB = true;

  // Generated code first: a compile-only context compiles it, then stops
  // at cuBLASLt.
  if (describeGeneralWindows(shape, *geometry)) {
    auto kernel = buildWindowGather(shape.conv, context, *geometry, dtype);
    if (!kernel)
      return inFusedConvolution(definition, kernel.takeError());
    parts.gather = std::move(*kernel);
    parts.im2col = true;
    parts.plan.k = geometry->getPaddedWindowElements();
    uint64_t width = getByteWidth(dtype);
    parts.matrixBytes = static_cast<uint64_t>(parts.plan.m * parts.plan.k) * width;
    if (parts.plan.k != geometry->getWindowElements())
      parts.paddedWeightBytes = static_cast<uint64_t>(parts.plan.n * parts.plan.k) * width;
  } else if (std::optional<StridedKernelSpec> gather = getGatherSpec(*geometry, dtype)) {
    auto kernel = buildStridedKernel(shape.conv, context, *gather);
    if (!kernel)
      return inFusedConvolution(definition, kernel.takeError());
    parts.gather = std::move(*kernel);
    parts.matrixBytes = static_cast<uint64_t>(parts.plan.m * parts.plan.k) * getByteWidth(dtype);
  }
  parts.split = splitGemmEpilogue(definition, shape);
  auto epilogue = buildEpilogueKernel(definition, shape, context, parts.split.start);
  if (!epilogue)
    return epilogue.takeError();
  auto handle = context.getCublasLt(shape.conv);
  if (!handle)
    return inFusedConvolution(definition, handle.takeError());

  // Less for cuBLASLt's epilogue each time it has no algorithm.
  const std::pair<bool, bool> splits[] = {{true, true}, {true, false}, {false, false}};
  for (auto [index, allowed] : llvm::enumerate(splits)) {
    if (index > 0) {
      GemmEpilogueSplit smaller =
          splitGemmEpilogue(definition, shape, allowed.first, allowed.second);
      if (isSameSplit(smaller, parts.split))
        continue;
      parts.split = smaller;
      epilogue = buildEpilogueKernel(definition, shape, context, parts.split.start);
      if (!epilogue)
        return epilogue.takeError();
    }
    auto product = createLtProduct(shape.conv, parts.plan, *handle, parts.split.library);
    if (!product) {
      bool libraryEpilogue = parts.split.library.bias ||
                             parts.split.library.activation != ProductEpilogue::Activation::None;
      if (!libraryEpilogue || index + 1 == std::size(splits))
        return inFusedConvolution(definition, product.takeError());
      llvm::consumeError(product.takeError());
      continue;
    }
    parts.product = std::move(*product);
    parts.epilogue = std::move(*epilogue);
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": cuBLASLt GEMM " << parts.plan.m
                   << "x" << parts.plan.n << "x" << parts.plan.k
                   << (parts.im2col   ? " on im2col's windows"
                       : parts.gather ? " on the gathered windows"
                                      : "")
                   << "; " << describeSplit(shape, parts.split) << "\n";
    return makeKernel(definition, std::move(parts));
  }
  return makeFusedError(definition, kConvolutionFamily, "no cuBLASLt configuration was tried");
}

} // namespace cgc::cuda
