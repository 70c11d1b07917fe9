//===- FusedConvolution.cpp - convolution and its epilogue as one kernel --===//
//
// The definition is read as ConvolutionChain.cpp does: a convolution,
// NCHW or in the compiler's channels-last form, then an elementwise chain.
//
// The channels-last form runs without its transposes: they only say how
// the arguments and the result lie in memory, which is what cuDNN's
// tensor-core engines want: the input N×H×W×C, the weight K×R×S×C/groups,
// the result and the chain's operands N×P×Q×K (broadcasting as they do in
// the IR).
//
// The cuDNN graph describes every tensor as memory lays it out, with the
// logical N×C×spatial dimensions cuDNN expects: NCHW (NCDHW) with packed
// strides, or channels-last with NHWC (KRSC) strides; a 1-D convolution as
// a 2-D one of height 1, broadcast operands with size-1 dimensions.
// Intermediate values are virtual float32 tensors, so float16 and bfloat16
// round once, at the end; float32 refuses tensor-core engines (TF32) by
// their numerical notes. The epilogue path computes in float32 too: cuDNN's
// convolution (NCHW or NHWC descriptors, the fastest direct-sum algorithm
// timed once per geometry) stores its result in the output, and one
// generated kernel reads it back, applies the bias and the chain (each
// layer by its layer kernel's own expression) over the output as it lies in
// memory, and writes the output in place. A channels-last depthwise
// convolution also has the generated depthwise kernel
// (DepthwiseConvolution.cpp), which applies the same chain code to its
// float32 sums before its only store; one that is a single matrix product
// (pointwise, unpadded windows that do not overlap, or any window over
// fewer than 8 input channels gathered by im2col) has cuBLASLt's GEMM
// (GemmConvolution.cpp), whose epilogue takes the bias, a residual and a
// relu and leaves the rest of the chain to the same epilogue kernel.
//
//===----------------------------------------------------------------------===//

#include "FusedConvolution.h"

#include "ConvolutionChain.h"
#include "ConvolutionPool.h"
#include "CudnnConvolution.h"
#include "CudnnGraph.h"
#include "CudnnGraphKernel.h"
#include "DepthwiseConvolution.h"
#include "GemmConvolution.h"
#include "ImplicitGemmConvolution.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <vector>

namespace cgc::cuda {

//===----------------------------------------------------------------------===//
// The epilogue path
//===----------------------------------------------------------------------===//

/// The epilogue path: cuDNN's convolution into the output, then the
/// epilogue in place. The epilogue compiles before cuDNN is asked for
/// anything. cuDNN's algorithm is its heuristics' first: timing every
/// algorithm (cudnnFindConvolutionForwardAlgorithmEx) was measured on an
/// H100 to make MobileNetV2 slower (batch 32 float16: 2.9 against 2.4 ms)
/// and its program creation 2 s longer.
static llvm::Expected<Kernel> buildEpiloguePath(FunctionalDefinitionOp definition,
                                                const FusedConvolutionShape &shape,
                                                KernelContext::Impl &context) {
  auto epilogue = buildEpilogueKernel(definition, shape, context);
  if (!epilogue)
    return epilogue.takeError();
  auto convolution = buildCudnnConvolutionKernel(shape.conv, context, shape.plan,
                                                 CudnnAlgorithmSearch::Heuristic);
  if (!convolution)
    return inFusedConvolution(definition, convolution.takeError());
  uint64_t workspaceSize = convolution->workspaceSize;
  unsigned input = shape.input, weight = shape.weight;
  auto launch = [convolution = std::move(*convolution), epilogue = std::move(*epilogue), input,
                 weight](const LaunchArgs &args) -> std::string {
    const void *convolutionInputs[] = {args.inputs[input], args.inputs[weight]};
    std::string message = convolution.launch(
        LaunchArgs{convolutionInputs, args.outputs, args.workspace, args.stream});
    if (!message.empty() || !epilogue)
      return message;
    return epilogue->launch(args);
  };
  return Kernel{std::move(launch), workspaceSize};
}

//===----------------------------------------------------------------------===//
// The cuDNN graph path
//===----------------------------------------------------------------------===//

namespace {
/// One pointwise node of the graph.
struct PointwiseNode {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_ADD;
  std::optional<double> upperClip, lowerClipSlope;
  /// Binary nodes: the argument of the second operand (none: the value
  /// itself) and the shape it is described with.
  bool binary = false;
  std::optional<unsigned> argument;
  Shape argumentShape;
};

} // namespace

/// Packed (row-major) strides of `dims`, size-0 dimensions counted as 1.
static llvm::SmallVector<int64_t, 5> getPackedStrides(llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<int64_t, 5> strides(dims.size(), 1);
  for (int64_t dim = static_cast<int64_t>(dims.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * std::max<int64_t>(dims[dim + 1], 1);
  return strides;
}

/// The pointwise node of `step`, or std::nullopt when cuDNN has no mode for
/// it.
static std::optional<PointwiseNode> getPointwiseNode(const ChainStep &step, mlir::Block &body) {
  PointwiseNode node;
  switch (step.kind) {
  case StepKind::Add:
  case StepKind::Mul:
    node.mode = step.kind == StepKind::Add ? CUDNN_POINTWISE_ADD : CUDNN_POINTWISE_MUL;
    node.binary = true;
    node.argument = step.argument;
    if (step.argument)
      node.argumentShape =
          Shape(llvm::cast<TensorType>(body.getArgument(*step.argument).getType()).getShape());
    return node;
  case StepKind::Relu:
    node.mode = CUDNN_POINTWISE_RELU_FWD;
    return node;
  case StepKind::LeakyRelu:
    node.mode = CUDNN_POINTWISE_RELU_FWD;
    node.lowerClipSlope = step.alpha;
    return node;
  case StepKind::Clip:
    // clip(0, max) is ReLU with an upper clip (relu6); other bounds are not
    // ReLU's.
    if (step.alpha != 0.0 || std::isnan(step.beta) || step.beta < 0.0)
      return std::nullopt;
    node.mode = CUDNN_POINTWISE_RELU_FWD;
    if (std::isfinite(step.beta))
      node.upperClip = step.beta;
    return node;
  case StepKind::Sigmoid:
    node.mode = CUDNN_POINTWISE_SIGMOID_FWD;
    return node;
  case StepKind::Tanh:
    node.mode = CUDNN_POINTWISE_TANH_FWD;
    return node;
  case StepKind::Gelu:
    node.mode = CUDNN_POINTWISE_GELU_FWD;
    return node;
  case StepKind::GeluTanh:
    node.mode = CUDNN_POINTWISE_GELU_APPROX_TANH_FWD;
    return node;
  case StepKind::HardSigmoid:
  case StepKind::HardSwish:
    return std::nullopt;
  }
  return std::nullopt;
}

/// The plan of `shape` as one cuDNN graph, or a null plan with the reason.
static GraphKernelPlan createGraphPlan(FunctionalDefinitionOp definition,
                                       const FusedConvolutionShape &shape,
                                       std::shared_ptr<CudnnHandle> handle,
                                       const CudnnPlanSearch &search, std::string &reason) {
  mlir::Block &body = definition.getBody().front();
  op::ConvolutionOp conv = shape.conv;
  const Shape &outputShape = shape.plan.output.shape;
  DType dtype = shape.plan.output.dtype;
  size_t rank = outputShape.size();
  int64_t spatialRank = static_cast<int64_t>(rank) - 2;
  bool heightOne = spatialRank == 1;

  // The nodes: bias, then each chain layer.
  std::vector<PointwiseNode> nodes;
  if (shape.bias) {
    PointwiseNode bias;
    bias.binary = true;
    bias.argument = shape.bias;
    bias.argumentShape =
        getBiasShape(llvm::cast<TensorType>(conv.getBias().getType()).getNumElements(), rank,
                     shape.channelsLast);
    nodes.push_back(std::move(bias));
  }
  for (const ChainStep &step : shape.steps) {
    std::optional<PointwiseNode> node = getPointwiseNode(step, body);
    if (!node) {
      reason = (step.op->getName().getStringRef() + " has no cuDNN pointwise mode").str();
      return {};
    }
    // Channels-last: cuDNN's runtime-fusion engines computed wrong results
    // (H100, cuDNN 9.14, float16) for an operand broadcast over rows of the
    // N×H×W×C memory (a W×C operand); the graph takes the shapes models have
    // (one element, one per channel, the whole result) and leaves the rest
    // to cuDNN's convolution and the generated epilogue.
    if (shape.channelsLast && node->binary && node->argument) {
      llvm::ArrayRef<int64_t> memory = node->argumentShape;
      int64_t elements = 1;
      for (int64_t dim : memory)
        elements *= dim;
      bool perChannel = !memory.empty() && memory.back() == outputShape.back() &&
                        elements == outputShape.back();
      bool whole = memory.size() == rank &&
                   llvm::equal(memory.drop_front(), llvm::ArrayRef(outputShape).drop_front());
      if (elements != 1 && !perChannel && !whole) {
        reason = (step.op->getName().getStringRef() +
                  "'s other operand broadcasts over rows of the channels-last result")
                     .str();
        return {};
      }
    }
    nodes.push_back(std::move(*node));
  }

  // Tensors as cuDNN sees them: rank padded to the output's, height 1
  // inserted for a 1-D convolution; channels-last tensors (N×H×W×C in
  // memory) as N×C×H×W with the strides of their memory.
  struct Described {
    llvm::SmallVector<int64_t, 5> dims, strides;
    bool operator==(const Described &other) const {
      return dims == other.dims && strides == other.strides;
    }
  };
  auto describe = [&](llvm::ArrayRef<int64_t> memoryShape) {
    llvm::SmallVector<int64_t, 5> dims(rank - memoryShape.size(), 1);
    dims.append(memoryShape.begin(), memoryShape.end());
    if (heightOne)
      dims.insert(dims.begin() + 2, 1);
    llvm::SmallVector<int64_t, 5> strides = getPackedStrides(dims);
    if (!shape.channelsLast)
      return Described{std::move(dims), std::move(strides)};
    return Described{{dims[0], dims[3], dims[1], dims[2]},
                     {strides[0], strides[3], strides[1], strides[2]}};
  };
  auto window = [&](llvm::ArrayRef<int64_t> values, int64_t fallback, int64_t inserted) {
    llvm::SmallVector<int64_t, 3> list(getWindowList(values, spatialRank, fallback));
    if (heightOne)
      list.insert(list.begin(), inserted);
    return list;
  };

  CudnnGraphBuilder builder;
  cudnnDataType_t dataType = getCudnnDataType(dtype);
  int64_t argumentCount = static_cast<int64_t>(body.getNumArguments());
  GraphKernelPlan result;
  std::map<unsigned, std::pair<Described, cudnnBackendDescriptor_t>> tensors;
  auto argumentTensor = [&](unsigned argument,
                            llvm::ArrayRef<int64_t> memoryShape) -> cudnnBackendDescriptor_t {
    Described described = describe(memoryShape);
    auto found = tensors.find(argument);
    if (found != tensors.end()) {
      if (!(found->second.first == described))
        builder.fail("argument " + std::to_string(argument) + " is read with two shapes");
      return found->second.second;
    }
    int64_t uid = argument + 1;
    cudnnBackendDescriptor_t tensor = builder.createTensor(
        uid, dataType, described.dims, described.strides, kGraphAlignment, /*isVirtual=*/false);
    tensors.emplace(argument, std::make_pair(described, tensor));
    result.uids.push_back(uid);
    result.arguments.push_back(static_cast<int>(argument));
    return tensor;
  };
  int64_t outputUid = argumentCount + 1;
  int64_t nextVirtualUid = argumentCount + 2;
  Described valueLayout = describe(outputShape);
  auto valueTensor = [&](bool isOutput) {
    if (isOutput) {
      result.uids.push_back(outputUid);
      result.arguments.push_back(-1);
      return builder.createTensor(outputUid, dataType, valueLayout.dims, valueLayout.strides,
                                  kGraphAlignment, /*isVirtual=*/false);
    }
    return builder.createTensor(nextVirtualUid++, CUDNN_DATA_FLOAT, valueLayout.dims,
                                valueLayout.strides, kGraphAlignment, /*isVirtual=*/true);
  };
  auto argumentShape = [&](unsigned argument) {
    return llvm::cast<TensorType>(body.getArgument(argument).getType()).getShape();
  };

  cudnnBackendDescriptor_t x = argumentTensor(shape.input, argumentShape(shape.input));
  cudnnBackendDescriptor_t w = argumentTensor(shape.weight, argumentShape(shape.weight));
  cudnnBackendDescriptor_t value = valueTensor(nodes.empty());

  cudnnBackendDescriptor_t convolution = builder.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  int64_t spatialDims = heightOne ? 2 : spatialRank;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  builder.setDataType(convolution, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT,
                      "convolution compute type");
  builder.set(convolution, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode,
              "convolution mode");
  builder.setInt64(convolution, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, spatialDims,
                   "convolution spatial dimensions");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
                    window(conv.getStrides(), 1, 1), "convolution strides");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_DILATIONS,
                    window(conv.getDilations(), 1, 1), "convolution dilations");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
                    window(conv.getStartPadding(), 0, 0), "convolution pre-paddings");
  builder.setInt64s(convolution, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
                    window(conv.getEndPadding(), 0, 0), "convolution post-paddings");
  builder.finalize(convolution, "convolution");

  llvm::SmallVector<cudnnBackendDescriptor_t, 8> operations;
  cudnnBackendDescriptor_t forward =
      builder.create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x, "convolution x");
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w, "convolution w");
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, value,
                        "convolution y");
  builder.setDescriptor(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, convolution,
                        "convolution descriptor");
  builder.setFloat(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 1.0f,
                   "convolution alpha");
  builder.setFloat(forward, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, 0.0f,
                   "convolution beta");
  builder.finalize(forward, "convolution operation");
  operations.push_back(forward);

  for (auto [index, node] : llvm::enumerate(nodes)) {
    cudnnBackendDescriptor_t pointwise = builder.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    builder.set(pointwise, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &node.mode,
                "pointwise mode");
    builder.setDataType(pointwise, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_DATA_FLOAT,
                        "pointwise precision");
    if (node.upperClip)
      builder.set(pointwise, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1,
                  &*node.upperClip, "relu upper clip");
    if (node.lowerClipSlope)
      builder.set(pointwise, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, 1,
                  &*node.lowerClipSlope, "relu lower clip slope");
    builder.finalize(pointwise, "pointwise");

    cudnnBackendDescriptor_t next = valueTensor(index + 1 == nodes.size());
    cudnnBackendDescriptor_t operation =
        builder.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pointwise,
                          "pointwise descriptor");
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, value, "pointwise x");
    if (node.binary) {
      cudnnBackendDescriptor_t other =
          node.argument ? argumentTensor(*node.argument, node.argumentShape) : value;
      builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, other, "pointwise b");
    }
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, next, "pointwise y");
    builder.finalize(operation, "pointwise operation");
    operations.push_back(operation);
    value = next;
  }
  if (builder.hasFailed()) {
    reason = builder.getError();
    return {};
  }
  CudnnEngineFilter filter;
  filter.rejectTensorCores = dtype == DType::F32;
  for (std::unique_ptr<CudnnPlan> &plan :
       createCudnnPlans(std::move(handle), builder, operations, filter, search, reason))
    result.plans.push_back(std::move(plan));
  return result;
}

/// The graph path's kernel, std::nullopt (with the reason) when cuDNN has no
/// plan for the graph.
static llvm::Expected<std::optional<Kernel>> buildGraphPath(FunctionalDefinitionOp definition,
                                                            const FusedConvolutionShape &shape,
                                                            KernelContext::Impl &context,
                                                            std::string &reason, GraphPlanChoice &choice) {
  auto handle = context.getCudnn(shape.conv);
  if (!handle)
    return inFusedConvolution(definition, handle.takeError());
  return buildGraphKernel(
      definition, context,
      [&](const CudnnPlanSearch &search) {
        return createGraphPlan(definition, shape, *handle, search, reason);
      },
      "fused convolution", choice);
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

const char *getFusedConvolutionPathName(FusedConvolutionPath path) {
  switch (path) {
  case FusedConvolutionPath::CudnnGraph:
    return "cuDNN graph";
  case FusedConvolutionPath::ConvolutionThenEpilogue:
    return "cuDNN convolution + generated epilogue";
  case FusedConvolutionPath::DepthwiseKernel:
    return "generated depthwise kernel";
  case FusedConvolutionPath::Gemm:
    return "cuBLASLt GEMM";
  case FusedConvolutionPath::ImplicitGemm:
    return "generated implicit-GEMM kernel";
  case FusedConvolutionPath::ConvolutionPool:
    return "generated convolution + max pool kernel";
  }
  return "unknown";
}

std::optional<FusedConvolutionPath> parseFusedConvolutionPath(llvm::StringRef name) {
  if (name == "graph")
    return FusedConvolutionPath::CudnnGraph;
  if (name == "library")
    return FusedConvolutionPath::ConvolutionThenEpilogue;
  if (name == "gemm")
    return FusedConvolutionPath::Gemm;
  if (name == "implicit")
    return FusedConvolutionPath::ImplicitGemm;
  return std::nullopt;
}

/// The path CGC_CUDA_CONVOLUTION forces; none for "auto" or unset: the
/// family chooses.
static std::optional<FusedConvolutionPath> getForcedPath() {
  static const std::optional<FusedConvolutionPath> forced = []() {
    const char *value = std::getenv("CGC_CUDA_CONVOLUTION");
    return parseFusedConvolutionPath(value ? value : "");
  }();
  return forced;
}

/// The cuDNN paths: `path` (graph or library) when given; otherwise the
/// graph where cuDNN has a plan, timed against the library path in NCHW,
/// else the library path. `choice` gets the graph's plan.
static llvm::Expected<FusedConvolutionKernel>
buildCudnnPaths(FunctionalDefinitionOp definition, const FusedConvolutionShape &shape,
                KernelContext::Impl &context, std::optional<FusedConvolutionPath> path,
                GraphPlanChoice &choice) {
  FusedConvolutionKernel result;
  bool tryGraph = path ? *path == FusedConvolutionPath::CudnnGraph : context.hasDevice();
  if (!tryGraph && !path)
    result.graphRefusal = "the kernel context has no device";
  if (tryGraph) {
    auto kernel = buildGraphPath(definition, shape, context, result.graphRefusal, choice);
    if (!kernel)
      return kernel.takeError();
    // Channels-last with a graph plan: the graph is kept without timing the
    // library path. Measured on an H100 (ResNet-50 batch 32 float16), cuDNN's
    // runtime-fusion graphs ran the model in 2.0 ms and its NHWC convolutions
    // + epilogues in 8.2 ms, and searching the latter's algorithms doubled
    // the program's creation time.
    if (*kernel && !path && !shape.channelsLast) {
      // Both paths run the definition: keep the faster on this device. A
      // library path that cannot be built leaves the graph.
      auto library = buildEpiloguePath(definition, shape, context);
      if (!library) {
        std::string refusal = llvm::toString(library.takeError());
        if (isVerbose())
          llvm::errs() << "cgc cuda: @" << definition.getSymName()
                       << ": cuDNN convolution + epilogue: " << refusal << "\n";
      } else {
        std::optional<float> graphTime = timeLaunch(definition, **kernel);
        std::optional<float> libraryTime = timeLaunch(definition, *library);
        if (isVerbose())
          llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": cuDNN graph "
                       << formatTime(graphTime) << " ms, cuDNN convolution + epilogue "
                       << formatTime(libraryTime) << " ms\n";
        if (graphTime && libraryTime && *libraryTime < *graphTime) {
          result.kernel = std::move(*library);
          result.path = FusedConvolutionPath::ConvolutionThenEpilogue;
          result.graphRefusal = "cuDNN's convolution and the epilogue were faster";
          return result;
        }
      }
    }
    if (*kernel) {
      result.kernel = std::move(**kernel);
      result.path = FusedConvolutionPath::CudnnGraph;
      result.graphRefusal.clear();
    } else if (path) {
      return makeFusedError(definition, kConvolutionFamily,
                            "the cuDNN graph does not run this definition: " + result.graphRefusal);
    }
  }
  if (result.path != FusedConvolutionPath::CudnnGraph) {
    auto kernel = buildEpiloguePath(definition, shape, context);
    if (!kernel)
      return kernel.takeError();
    result.kernel = std::move(*kernel);
    result.path = FusedConvolutionPath::ConvolutionThenEpilogue;
  }
  return result;
}

/// `candidate`, a generated or library kernel built for `shape`, against the
/// cuDNN path the family takes otherwise (the graph where cuDNN has a plan,
/// else its convolution + epilogue), each timed once on this device, the
/// faster kept. Where cuDNN builds nothing the candidate runs; a candidate
/// that cannot be timed failed to launch and leaves cuDNN.
static llvm::Expected<FusedConvolutionKernel>
keepFasterThanCudnn(FunctionalDefinitionOp definition, const FusedConvolutionShape &shape,
                    KernelContext::Impl &context, FusedConvolutionKernel candidate,
                    GraphPlanChoice &choice) {
  auto cudnn = buildCudnnPaths(definition, shape, context, std::nullopt, choice);
  if (!cudnn) {
    candidate.graphRefusal = llvm::toString(cudnn.takeError());
    return candidate;
  }
  const char *name = getFusedConvolutionPathName(candidate.path);
  std::optional<float> candidateTime = timeLaunch(definition, candidate.kernel);
  std::optional<float> cudnnTime = timeLaunch(definition, cudnn->kernel);
  if (isVerbose())
    llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": " << name << " "
                 << formatTime(candidateTime) << " ms, " << getFusedConvolutionPathName(cudnn->path)
                 << " " << formatTime(cudnnTime) << " ms\n";
  if (!candidateTime || (cudnnTime && *cudnnTime < *candidateTime))
    return std::move(*cudnn);
  std::string faster = std::string("the ") + name + " was faster";
  candidate.graphRefusal =
      cudnn->path == FusedConvolutionPath::CudnnGraph
          ? faster
          : cudnn->graphRefusal + "; " + faster + " than cuDNN's convolution + epilogue";
  return candidate;
}

/// The channels-last depthwise convolution: the generated depthwise kernel
/// against the cuDNN path, the faster kept (keepFasterThanCudnn). The
/// depthwise kernel runs without a device; when it cannot be built, cuDNN
/// runs it.
static llvm::Expected<FusedConvolutionKernel> chooseDepthwise(FunctionalDefinitionOp definition,
                                                              const FusedConvolutionShape &shape,
                                                              KernelContext::Impl &context,
                                                              GraphPlanChoice &choice) {
  auto depthwise = buildDepthwiseConvolution(definition, shape, context);
  if (!depthwise) {
    std::string refusal = llvm::toString(depthwise.takeError());
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": depthwise kernel: " << refusal
                   << "\n";
    return buildCudnnPaths(definition, shape, context, std::nullopt, choice);
  }
  FusedConvolutionKernel result;
  result.kernel = std::move(*depthwise);
  result.path = FusedConvolutionPath::DepthwiseKernel;
  if (!context.hasDevice()) {
    result.graphRefusal = "the kernel context has no device";
    return result;
  }
  return keepFasterThanCudnn(definition, shape, context, std::move(result), choice);
}

/// The channels-last convolution the GEMM path runs: cuBLASLt's GEMM
/// against the cuDNN path, the faster kept (keepFasterThanCudnn). Without a
/// device the GEMM is not built (cuBLASLt needs one): the cuDNN paths
/// compile their epilogue and stop where cuDNN needs one, as for any
/// convolution. When the GEMM cannot be built, cuDNN runs it.
static llvm::Expected<FusedConvolutionKernel> chooseGemm(FunctionalDefinitionOp definition,
                                                         const FusedConvolutionShape &shape,
                                                         KernelContext::Impl &context,
                                                         GraphPlanChoice &choice) {
  if (!context.hasDevice())
    return buildCudnnPaths(definition, shape, context, std::nullopt, choice);
  auto gemm = buildGemmConvolution(definition, shape, context);
  if (!gemm) {
    std::string refusal = llvm::toString(gemm.takeError());
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": cuBLASLt GEMM: " << refusal
                   << "\n";
    return buildCudnnPaths(definition, shape, context, std::nullopt, choice);
  }
  FusedConvolutionKernel result;
  result.kernel = std::move(*gemm);
  result.path = FusedConvolutionPath::Gemm;
  return keepFasterThanCudnn(definition, shape, context, std::move(result), choice);
}

/// A channels-last convolution of few input channels: the implicit-GEMM
/// kernel against what runs it otherwise (the GEMM or cuDNN, chooseGemm),
/// each timed once, the faster kept. Without a device the kernel (which
/// needs no library) runs it; where it cannot be built, the other choice.
static llvm::Expected<FusedConvolutionKernel>
chooseImplicitGemm(FunctionalDefinitionOp definition, const FusedConvolutionShape &shape,
                   KernelContext::Impl &context, bool gemmRuns, GraphPlanChoice &choice) {
  auto chooseOther = [&]() {
    return gemmRuns ? chooseGemm(definition, shape, context, choice)
                    : buildCudnnPaths(definition, shape, context, std::nullopt, choice);
  };
  auto implicit = buildImplicitGemmConvolution(definition, shape, context);
  if (!implicit) {
    std::string refusal = llvm::toString(implicit.takeError());
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName()
                   << ": implicit-GEMM kernel: " << refusal << "\n";
    return chooseOther();
  }
  FusedConvolutionKernel result;
  result.kernel = std::move(*implicit);
  result.path = FusedConvolutionPath::ImplicitGemm;
  if (!context.hasDevice()) {
    result.graphRefusal = "the kernel context has no device";
    return result;
  }
  auto other = chooseOther();
  if (!other) {
    result.graphRefusal = llvm::toString(other.takeError());
    return result;
  }
  const Kernel *kernels[] = {&result.kernel, &other->kernel};
  std::vector<std::optional<float>> times = timeLaunches(definition, kernels);
  if (isVerbose())
    llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": implicit-GEMM kernel "
                 << formatTime(times[0]) << " ms, " << getFusedConvolutionPathName(other->path)
                 << " " << formatTime(times[1]) << " ms\n";
  if (!times[0] || (times[1] && *times[1] < *times[0]))
    return other;
  result.graphRefusal = "the implicit-GEMM kernel was faster";
  return result;
}

llvm::Expected<FusedConvolutionKernel>
buildFusedConvolution(FunctionalDefinitionOp definition, KernelContext::Impl &context,
                      std::optional<FusedConvolutionPath> path) {
  bool forcedByEnvironment = !path && getForcedPath();
  if (!path)
    path = getForcedPath();
  std::optional<llvm::Expected<FusedConvolutionShape>> analyzed =
      analyzeFusedConvolution(definition);
  if (!analyzed)
    return makeFusedError(definition, kConvolutionFamily,
                          "the definition is not a convolution followed by an elementwise chain");
  if (!*analyzed)
    return analyzed->takeError();
  const FusedConvolutionShape &shape = **analyzed;
  FusedConvolutionKernel result;
  // A max pool after the chain: only the convolution + max pool kernel runs
  // the definition (its result is the pool's), whatever path is asked for.
  if (shape.pool) {
    auto kernel = buildConvolutionPool(definition, shape, context);
    if (!kernel)
      return kernel.takeError();
    result.kernel = std::move(*kernel);
    result.path = FusedConvolutionPath::ConvolutionPool;
    result.graphRefusal = "a max pool follows the convolution";
    if (isVerbose())
      llvm::errs() << "cgc cuda: @" << definition.getSymName()
                   << ": fused channels-last convolution runs as "
                   << getFusedConvolutionPathName(result.path) << "\n";
    return result;
  }
  if (shape.plan.output.getNumElements() == 0) {
    result.kernel = Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
    result.graphRefusal = "the output is empty";
    return result;
  }
  // CGC_CUDA_CONVOLUTION=gemm applies to a whole program: convolutions the
  // GEMM does not run are chosen as usual.
  std::optional<std::string> gemmRefusal = getGemmRefusal(shape);
  if (forcedByEnvironment && path == FusedConvolutionPath::Gemm && gemmRefusal)
    path.reset();
  if (forcedByEnvironment && path == FusedConvolutionPath::ImplicitGemm &&
      getImplicitGemmRefusal(shape, context.getComputeMajor()))
    path.reset();

  GraphPlanChoice choice;
  auto buildPath = [&]() -> llvm::Expected<FusedConvolutionKernel> {
    if (path == FusedConvolutionPath::DepthwiseKernel || path == FusedConvolutionPath::Gemm ||
        path == FusedConvolutionPath::ImplicitGemm) {
      auto kernel = path == FusedConvolutionPath::DepthwiseKernel
                        ? buildDepthwiseConvolution(definition, shape, context)
                    : path == FusedConvolutionPath::Gemm
                        ? buildGemmConvolution(definition, shape, context)
                        : buildImplicitGemmConvolution(definition, shape, context);
      if (!kernel)
        return kernel.takeError();
      result.kernel = std::move(*kernel);
      result.path = *path;
      result.graphRefusal =
          std::string("the ") + getFusedConvolutionPathName(*path) + " was asked for";
      return std::move(result);
    }
    // Left to choose: the depthwise kernel, else the implicit-GEMM kernel
    // (against the GEMM or cuDNN), else the GEMM, each against cuDNN. All
    // take only channels-last convolutions, and the depthwise kernel and
    // another the same one only when it has one channel (groups = channels
    // = 1): the depthwise kernel is asked first.
    if (!path && !getDepthwiseRefusal(shape))
      return chooseDepthwise(definition, shape, context, choice);
    if (!path && !getImplicitGemmRefusal(shape, context.getComputeMajor()))
      return chooseImplicitGemm(definition, shape, context, !gemmRefusal, choice);
    if (!path && !gemmRefusal)
      return chooseGemm(definition, shape, context, choice);
    return buildCudnnPaths(definition, shape, context, path, choice);
  };
  llvm::Expected<FusedConvolutionKernel> built = buildPath();
  if (!built)
    return built.takeError();
  if (built->path == FusedConvolutionPath::CudnnGraph) {
    built->engine = choice.engine;
    built->timedPlans = choice.timedPlans;
  }
  if (isVerbose()) {
    llvm::errs() << "cgc cuda: @" << definition.getSymName() << ": fused "
                 << (shape.channelsLast ? "channels-last " : "") << "convolution runs as "
                 << getFusedConvolutionPathName(built->path);
    if (built->path == FusedConvolutionPath::CudnnGraph)
      llvm::errs() << " (engine " << choice.engine << ")";
    else
      llvm::errs() << " (cuDNN graph: " << built->graphRefusal << ")";
    llvm::errs() << "\n";
  }
  return built;
}

namespace {

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<FusedConvolutionShape>> analyzed =
      analyzeFusedConvolution(definition);
  if (!analyzed)
    return std::nullopt;
  if (!*analyzed)
    return analyzed->takeError();
  // With a max pool, the one kernel that runs it must take the definition
  // (otherwise the compiler matches the convolution and the pool apart).
  if ((*analyzed)->pool)
    if (std::optional<llvm::Error> refused = checkConvolutionPool(definition, **analyzed))
      return std::move(*refused);
  return llvm::Error::success();
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  std::optional<llvm::Error> recognized = check(definition);
  if (!recognized)
    return std::nullopt;
  if (*recognized)
    return llvm::Expected<Kernel>(std::move(*recognized));
  auto fused = buildFusedConvolution(definition, context);
  if (!fused)
    return llvm::Expected<Kernel>(fused.takeError());
  return llvm::Expected<Kernel>(std::move(fused->kernel));
}

} // namespace

const FusedFamily kFusedConvolution = {"convolution", check, build};

} // namespace cgc::cuda
