//===- Convolution.cpp - convolution through cuDNN ------------------------===//
//
// 1-, 2- and 3-D convolutions (NCW as NC1W) with groups, strides and
// dilations run as cudnnConvolutionForward with an algorithm picked at build
// time by cudnnGetConvolutionForwardAlgorithm_v7. cuDNN pads symmetrically;
// asymmetric padding pads the input into the workspace first (a generated
// constant-pad kernel) and convolves that without padding. The bias is
// added by a generated broadcast kernel in place.
//
// float32 runs with CUDNN_FMA_MATH (no TF32) and an algorithm computing the
// direct sum (implicit GEMM, GEMM or direct; FFT and Winograd only when
// cuDNN offers nothing else), to stay close to the CPU reference; float16
// and bfloat16 accumulate in float32 and may use tensor cores.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseCodegen.h"
#include "LibraryHandles.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <limits>

namespace cgc::cuda {

namespace {
/// The most workspace a convolution algorithm may use.
constexpr size_t kMaxWorkspace = size_t(1) << 30;

/// The cuDNN objects of one convolution; destroyed with the kernel.
struct CudnnConvolution {
  std::shared_ptr<CudnnHandle> handle;
  cudnnTensorDescriptor_t input = nullptr, output = nullptr;
  cudnnFilterDescriptor_t weight = nullptr;
  cudnnConvolutionDescriptor_t convolution = nullptr;
  cudnnConvolutionFwdAlgo_t algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspaceSize = 0;
  ~CudnnConvolution() {
    if (input)
      cudnnDestroyTensorDescriptor(input);
    if (output)
      cudnnDestroyTensorDescriptor(output);
    if (weight)
      cudnnDestroyFilterDescriptor(weight);
    if (convolution)
      cudnnDestroyConvolutionDescriptor(convolution);
  }
};
} // namespace

static llvm::Error cudnnError(mlir::Operation *op, llvm::StringRef call, cudnnStatus_t status) {
  return makeKernelError(op, call + " failed: " + cudnnGetErrorString(status));
}

#define CGC_CUDNN_CHECK(call)                                                                      \
  do {                                                                                             \
    cudnnStatus_t status = (call);                                                                 \
    if (status != CUDNN_STATUS_SUCCESS)                                                            \
      return cudnnError(op, #call, status);                                                        \
  } while (false)

/// Whether `algorithm` sums products directly (as the CPU reference does).
static bool isDirectSum(cudnnConvolutionFwdAlgo_t algorithm) {
  return algorithm == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
         algorithm == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         algorithm == CUDNN_CONVOLUTION_FWD_ALGO_GEMM ||
         algorithm == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

/// Creates the descriptors and picks the algorithm (under the handle's lock).
static llvm::Error setUpConvolution(mlir::Operation *op, CudnnConvolution &convolution, DType dtype,
                                    llvm::ArrayRef<int> inputDims, llvm::ArrayRef<int> weightDims,
                                    llvm::ArrayRef<int> outputDims, llvm::ArrayRef<int> padding,
                                    llvm::ArrayRef<int> strides, llvm::ArrayRef<int> dilations,
                                    int groups) {
  bool isHalf = dtype == DType::F16 || dtype == DType::BF16;
  cudnnDataType_t dataType = dtype == DType::F16    ? CUDNN_DATA_HALF
                             : dtype == DType::BF16 ? CUDNN_DATA_BFLOAT16
                             : dtype == DType::F64  ? CUDNN_DATA_DOUBLE
                                                    : CUDNN_DATA_FLOAT;
  cudnnDataType_t computeType = dtype == DType::F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  int rank = static_cast<int>(inputDims.size());
  auto packedStrides = [](llvm::ArrayRef<int> dims) {
    llvm::SmallVector<int, 5> strides(dims.size(), 1);
    for (int dim = static_cast<int>(dims.size()) - 2; dim >= 0; --dim)
      strides[dim] = strides[dim + 1] * dims[dim + 1];
    return strides;
  };
  CGC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&convolution.input));
  CGC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&convolution.output));
  CGC_CUDNN_CHECK(cudnnCreateFilterDescriptor(&convolution.weight));
  CGC_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&convolution.convolution));
  CGC_CUDNN_CHECK(cudnnSetTensorNdDescriptor(convolution.input, dataType, rank, inputDims.data(),
                                             packedStrides(inputDims).data()));
  CGC_CUDNN_CHECK(cudnnSetTensorNdDescriptor(convolution.output, dataType, rank, outputDims.data(),
                                             packedStrides(outputDims).data()));
  CGC_CUDNN_CHECK(cudnnSetFilterNdDescriptor(convolution.weight, dataType, CUDNN_TENSOR_NCHW, rank,
                                             weightDims.data()));
  CGC_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(convolution.convolution, rank - 2, padding.data(),
                                                  strides.data(), dilations.data(),
                                                  CUDNN_CROSS_CORRELATION, computeType));
  CGC_CUDNN_CHECK(cudnnSetConvolutionGroupCount(convolution.convolution, groups));
  CGC_CUDNN_CHECK(cudnnSetConvolutionMathType(convolution.convolution,
                                              isHalf ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  llvm::SmallVector<int, 5> expected(rank);
  CGC_CUDNN_CHECK(cudnnGetConvolutionNdForwardOutputDim(convolution.convolution, convolution.input,
                                                        convolution.weight, rank, expected.data()));
  if (llvm::ArrayRef<int>(expected) != outputDims)
    return makeKernelError(op, "cuDNN computes another output shape for this convolution");

  std::lock_guard<std::mutex> lock(convolution.handle->mutex);
  cudnnHandle_t handle = convolution.handle->handle;
  cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  CGC_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
      handle, convolution.input, convolution.weight, convolution.convolution, convolution.output,
      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, results));
  // Heuristic order; float32/float64 first look for a direct sum without
  // tensor-op math, then for anything without tensor-op math.
  const cudnnConvolutionFwdAlgoPerf_t *chosen = nullptr;
  for (int pass = 0; pass < 2 && !chosen; ++pass) {
    for (int index = 0; index < returned && !chosen; ++index) {
      const cudnnConvolutionFwdAlgoPerf_t &result = results[index];
      if (result.status != CUDNN_STATUS_SUCCESS || result.memory > kMaxWorkspace)
        continue;
      bool tensorOps = result.mathType == CUDNN_TENSOR_OP_MATH ||
                       result.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
      if (!isHalf && (tensorOps || (pass == 0 && !isDirectSum(result.algo))))
        continue;
      chosen = &result;
    }
  }
  if (!chosen)
    return makeKernelError(op, "cuDNN offers no forward algorithm for this convolution");
  convolution.algorithm = chosen->algo;
  if (isHalf)
    CGC_CUDNN_CHECK(cudnnSetConvolutionMathType(convolution.convolution, chosen->mathType));
  CGC_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
      handle, convolution.input, convolution.weight, convolution.convolution, convolution.output,
      convolution.algorithm, &convolution.workspaceSize));
  convolution.workspaceSize = std::max(convolution.workspaceSize, chosen->memory);
  return llvm::Error::success();
}

llvm::Expected<Kernel> buildConvolutionKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto conv = llvm::cast<op::ConvolutionOp>(op);
  auto input = getTensorInfo(op, conv.getInput());
  if (!input)
    return input.takeError();
  auto weight = getTensorInfo(op, conv.getWeight());
  if (!weight)
    return weight.takeError();
  auto output = getTensorInfo(op, conv.getOutput());
  if (!output)
    return output.takeError();
  DType dtype = input->dtype;
  if (!isFloatDType(dtype))
    return unimplementedElementType(op, dtype);
  if (weight->dtype != dtype)
    return unimplementedElementType(op, weight->dtype);
  int64_t spatialRank = input->getRank() - 2;
  if (spatialRank < 1 || spatialRank > 3)
    return unimplementedFeature(op, llvm::Twine(spatialRank) + "-D convolution");
  Shape strides = getWindowList(conv.getStrides(), spatialRank, 1);
  Shape dilations = getWindowList(conv.getDilations(), spatialRank, 1);
  Shape startPadding = getWindowList(conv.getStartPadding(), spatialRank, 0);
  Shape endPadding = getWindowList(conv.getEndPadding(), spatialRank, 0);
  if (llvm::any_of(startPadding, [](int64_t p) { return p < 0; }) ||
      llvm::any_of(endPadding, [](int64_t p) { return p < 0; }))
    return unimplementedFeature(op, "negative padding");
  bool symmetric = startPadding == endPadding;
  auto fitsInt = [](int64_t value) { return value <= std::numeric_limits<int>::max(); };

  // cuDNN's view: a 1-D convolution is a 2-D one of height 1; asymmetric
  // padding is applied beforehand.
  Shape convolvedInput = input->shape;
  if (!symmetric)
    for (int64_t dim = 0; dim < spatialRank; ++dim)
      convolvedInput[dim + 2] += startPadding[dim] + endPadding[dim];
  auto toDims = [&](llvm::ArrayRef<int64_t> values, int64_t insertAt,
                    int64_t inserted) -> std::optional<llvm::SmallVector<int, 5>> {
    llvm::SmallVector<int, 5> dims;
    for (size_t index = 0; index < values.size(); ++index) {
      if (spatialRank == 1 && static_cast<int64_t>(index) == insertAt)
        dims.push_back(static_cast<int>(inserted));
      if (!fitsInt(values[index]))
        return std::nullopt;
      dims.push_back(static_cast<int>(values[index]));
    }
    if (spatialRank == 1 && insertAt == static_cast<int64_t>(values.size()))
      dims.push_back(static_cast<int>(inserted));
    return dims;
  };
  auto inputDims = toDims(convolvedInput, 2, 1);
  auto weightDims = toDims(weight->shape, 2, 1);
  auto outputDims = toDims(output->shape, 2, 1);
  auto paddingDims = toDims(symmetric ? startPadding : Shape(spatialRank, 0), 0, 0);
  auto strideDims = toDims(strides, 0, 1);
  auto dilationDims = toDims(dilations, 0, 1);
  if (!inputDims || !weightDims || !outputDims || !paddingDims || !strideDims || !dilationDims)
    return unimplementedFeature(op, "a dimension beyond 2^31");
  if (output->getNumElements() == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};

  // Generated helpers first: they compile without a device.
  std::optional<Kernel> pad, bias;
  uint64_t paddedBytes = 0;
  if (!symmetric) {
    // Batch and channel dimensions are not padded.
    auto wholeTensor = [](const Shape &spatial) {
      Shape padding{0, 0};
      padding.append(spatial.begin(), spatial.end());
      return padding;
    };
    auto padKernel = buildConstantPadKernel(op, context, dtype, input->shape,
                                            wholeTensor(startPadding), wholeTensor(endPadding),
                                            /*fillBits=*/0);
    if (!padKernel)
      return padKernel.takeError();
    pad = std::move(*padKernel);
    paddedBytes = alignWorkspace(getNumElements(convolvedInput) * getByteWidth(dtype));
  }
  if (conv.getBias()) {
    auto biasInfo = getTensorInfo(op, conv.getBias());
    if (!biasInfo)
      return biasInfo.takeError();
    if (biasInfo->dtype != dtype)
      return unimplementedElementType(op, biasInfo->dtype);
    Shape channelShape(spatialRank + 1, 1);
    channelShape[0] = biasInfo->getNumElements();
    StridedKernelSpec spec;
    spec.operands.push_back(broadcastOperand(dtype, output->shape, output->shape));
    spec.operands.push_back(broadcastOperand(dtype, channelShape, output->shape));
    spec.outputType = dtype;
    spec.outputShape = output->shape;
    spec.expression = "(x0 + x1)";
    auto biasKernel = buildStridedKernel(op, context, spec);
    if (!biasKernel)
      return biasKernel.takeError();
    bias = std::move(*biasKernel);
  }

  auto handle = context.getCudnn(op);
  if (!handle)
    return handle.takeError();
  auto convolution = std::make_shared<CudnnConvolution>();
  convolution->handle = *handle;
  if (llvm::Error error = setUpConvolution(op, *convolution, dtype, *inputDims, *weightDims,
                                           *outputDims, *paddingDims, *strideDims, *dilationDims,
                                           static_cast<int>(conv.getGroups())))
    return std::move(error);

  std::string opName = op->getName().getStringRef().str();
  bool isDouble = dtype == DType::F64;
  uint64_t workspaceSize = paddedBytes + convolution->workspaceSize;
  auto launch = [=](const LaunchArgs &args) -> std::string {
    const void *x = args.inputs[0];
    char *workspace = static_cast<char *>(args.workspace);
    if (pad) {
      void *padded[] = {workspace};
      std::string message =
          pad->launch(LaunchArgs{args.inputs.first(1), padded, nullptr, args.stream});
      if (!message.empty())
        return message;
      x = workspace;
    }
    double oneDouble = 1.0, zeroDouble = 0.0;
    float oneFloat = 1.0f, zeroFloat = 0.0f;
    const void *one = isDouble ? static_cast<const void *>(&oneDouble) : &oneFloat;
    const void *zero = isDouble ? static_cast<const void *>(&zeroDouble) : &zeroFloat;
    {
      std::lock_guard<std::mutex> lock(convolution->handle->mutex);
      cudnnHandle_t cudnn = convolution->handle->handle;
      cudnnStatus_t status = cudnnSetStream(cudnn, args.stream);
      if (status == CUDNN_STATUS_SUCCESS)
        status = cudnnConvolutionForward(
            cudnn, one, convolution->input, x, convolution->weight, args.inputs[1],
            convolution->convolution, convolution->algorithm,
            convolution->workspaceSize ? workspace + paddedBytes : nullptr,
            convolution->workspaceSize, zero, convolution->output, args.outputs[0]);
      if (status != CUDNN_STATUS_SUCCESS)
        return opName + ": cudnnConvolutionForward failed: " + cudnnGetErrorString(status);
    }
    if (bias) {
      const void *operands[] = {args.outputs[0], args.inputs[2]};
      return bias->launch(LaunchArgs{operands, args.outputs, nullptr, args.stream});
    }
    return "";
  };
  return Kernel{std::move(launch), alignWorkspace(workspaceSize)};
}

} // namespace cgc::cuda
