//===- CudnnConvolution.cpp - convolutions through cuDNN's legacy API -----===//
//
// Algorithms come from cuDNN's heuristics (the _v7 queries) unless the
// caller asks for the fastest: the layer kernels build without scratch
// memory and make the same choice every time; the fused convolution, which
// already times its two paths when it is built, times cuDNN's direct-sum
// algorithms too (cudnnFindConvolutionForwardAlgorithmEx), once per device
// and geometry. Asymmetric forward padding pads the input into the
// workspace with a generated constant-pad kernel and convolves that without
// padding.
//
//===----------------------------------------------------------------------===//

#include "CudnnConvolution.h"
#include "ChoiceCache.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <vector>

namespace cgc::cuda {

namespace {
/// The most workspace a convolution algorithm may use.
constexpr size_t kMaxWorkspace = size_t(1) << 30;

/// A forward algorithm chosen for one geometry.
struct ForwardChoice {
  cudnnConvolutionFwdAlgo_t algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t mathType = CUDNN_FMA_MATH;
  size_t memory = 0;
};

/// The timed choices of this process, by device and geometry
/// (getSearchKey): a model's repeated convolutions are timed once.
ChoiceCache<ForwardChoice> &getForwardChoiceCache() {
  static ChoiceCache<ForwardChoice> cache;
  return cache;
}

/// cudaMalloc'd scratch of an algorithm search, freed when it ends.
class SearchMemory {
public:
  SearchMemory() = default;
  SearchMemory(const SearchMemory &) = delete;
  SearchMemory &operator=(const SearchMemory &) = delete;
  ~SearchMemory() {
    for (void *pointer : pointers)
      cudaFree(pointer);
    // A failure here must not surface in a later, unrelated call.
    cudaGetLastError();
  }
  /// `bytes` zeroed bytes (at least one), or null.
  void *allocate(size_t bytes) {
    void *pointer = nullptr;
    if (cudaMalloc(&pointer, std::max<size_t>(bytes, 1)) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    pointers.push_back(pointer);
    return cudaMemset(pointer, 0, std::max<size_t>(bytes, 1)) == cudaSuccess ? pointer : nullptr;
  }

private:
  std::vector<void *> pointers;
};
} // namespace

cudnnDataType_t getCudnnDataType(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return CUDNN_DATA_HALF;
  case DType::BF16:
    return CUDNN_DATA_BFLOAT16;
  case DType::F64:
    return CUDNN_DATA_DOUBLE;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

llvm::Error cudnnCallError(mlir::Operation *op, llvm::StringRef call, cudnnStatus_t status) {
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string message = (call + " failed: " + cudnnGetErrorString(status)).str();
  if (detail[0])
    message += std::string(" (") + detail + ")";
  return makeKernelError(op, message);
}

#define CGC_CUDNN_CHECK(call)                                                                      \
  do {                                                                                             \
    cudnnStatus_t status = (call);                                                                 \
    if (status != CUDNN_STATUS_SUCCESS)                                                            \
      return cudnnCallError(op, #call, status);                                                    \
  } while (false)

CudnnConvolution::~CudnnConvolution() {
  if (input)
    cudnnDestroyTensorDescriptor(input);
  if (output)
    cudnnDestroyTensorDescriptor(output);
  if (weight)
    cudnnDestroyFilterDescriptor(weight);
  if (convolution)
    cudnnDestroyConvolutionDescriptor(convolution);
}

const char *CudnnConvolution::getCallName() const {
  return direction == CudnnConvolutionDirection::Forward ? "cudnnConvolutionForward"
                                                         : "cudnnConvolutionBackwardData";
}

cudnnStatus_t CudnnConvolution::run(const void *source, const void *weightData, void *result,
                                    void *workspace, cudaStream_t stream) const {
  double oneDouble = 1.0, zeroDouble = 0.0;
  float oneFloat = 1.0f, zeroFloat = 0.0f;
  const void *one = isDouble ? static_cast<const void *>(&oneDouble) : &oneFloat;
  const void *zero = isDouble ? static_cast<const void *>(&zeroDouble) : &zeroFloat;
  void *scratch = workspaceSize ? workspace : nullptr;
  std::lock_guard<std::mutex> lock(handle->mutex);
  cudnnStatus_t status = cudnnSetStream(handle->handle, stream);
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  if (direction == CudnnConvolutionDirection::Forward)
    return cudnnConvolutionForward(handle->handle, one, input, source, weight, weightData,
                                   convolution, forwardAlgorithm, scratch, workspaceSize, zero,
                                   output, result);
  return cudnnConvolutionBackwardData(handle->handle, one, weight, weightData, output, source,
                                      convolution, backwardDataAlgorithm, scratch, workspaceSize,
                                      zero, input, result);
}

/// Whether `algorithm` sums products directly (as the CPU reference does).
static bool isDirectSum(cudnnConvolutionFwdAlgo_t algorithm) {
  return algorithm == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
         algorithm == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         algorithm == CUDNN_CONVOLUTION_FWD_ALGO_GEMM ||
         algorithm == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}
static bool isDirectSum(cudnnConvolutionBwdDataAlgo_t algorithm) {
  return algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 ||
         algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
}

/// The first usable result in heuristic order: float32/float64 first look
/// for a direct sum without tensor-op math, then for anything without
/// tensor-op math; float16/bfloat16 take the first that runs.
template <typename Perf>
static const Perf *chooseAlgorithm(llvm::ArrayRef<Perf> results, bool isHalf) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const Perf &result : results) {
      if (result.status != CUDNN_STATUS_SUCCESS || result.memory > kMaxWorkspace)
        continue;
      bool tensorOps = result.mathType == CUDNN_TENSOR_OP_MATH ||
                       result.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
      if (!isHalf && (tensorOps || (pass == 0 && !isDirectSum(result.algo))))
        continue;
      return &result;
    }
  }
  return nullptr;
}

/// The key of `geometry` on `device` in the cache of timed choices.
static std::string getSearchKey(int device, const CudnnConvolutionGeometry &geometry) {
  std::string key = std::to_string(device) + ":" + getDTypeName(geometry.dtype) +
                    (geometry.channelsLast ? ":nhwc" : ":nchw") + ":g" +
                    std::to_string(geometry.groups);
  auto append = [&](char tag, llvm::ArrayRef<int> values) {
    key += ':';
    key += tag;
    for (int value : values)
      key += "," + std::to_string(value);
  };
  append('x', geometry.input);
  append('w', geometry.weight);
  append('y', geometry.output);
  append('p', geometry.padding);
  append('s', geometry.strides);
  append('d', geometry.dilations);
  return key;
}

/// Bytes of a packed tensor of `dims` of `dtype`.
static size_t getByteSize(llvm::ArrayRef<int> dims, DType dtype) {
  size_t bytes = getByteWidth(dtype);
  for (int dim : dims)
    bytes *= static_cast<size_t>(std::max(dim, 0));
  return bytes;
}

/// The fastest forward algorithm of `c` that computes the direct sum (and,
/// for float32 and float64, without tensor-op math), timed by cuDNN on
/// zeroed scratch buffers with as much workspace as the largest algorithm of
/// `heuristics` asks for; std::nullopt when nothing could be timed. The
/// caller holds the handle's lock.
static std::optional<ForwardChoice>
findFastestForward(const CudnnConvolution &c, const CudnnConvolutionGeometry &geometry,
                   llvm::ArrayRef<cudnnConvolutionFwdAlgoPerf_t> heuristics, bool isHalf) {
  size_t workspaceSize = 0;
  for (const cudnnConvolutionFwdAlgoPerf_t &result : heuristics)
    if (result.status == CUDNN_STATUS_SUCCESS && result.memory <= kMaxWorkspace)
      workspaceSize = std::max(workspaceSize, result.memory);
  SearchMemory memory;
  void *x = memory.allocate(getByteSize(geometry.input, geometry.dtype));
  void *w = memory.allocate(getByteSize(geometry.weight, geometry.dtype));
  void *y = memory.allocate(getByteSize(geometry.output, geometry.dtype));
  void *workspace = workspaceSize ? memory.allocate(workspaceSize) : nullptr;
  if (!x || !w || !y || (workspaceSize && !workspace))
    return std::nullopt;
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  cudnnHandle_t cudnn = c.handle->handle;
  cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  cudnnStatus_t status = cudnnSetStream(cudnn, stream);
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnFindConvolutionForwardAlgorithmEx(
        cudnn, c.input, x, c.weight, w, c.convolution, c.output, y,
        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, results, workspace, workspaceSize);
  cudaStreamSynchronize(stream);
  // Every launch sets the handle's stream again; this one is destroyed.
  cudnnSetStream(cudnn, nullptr);
  cudaStreamDestroy(stream);
  cudaGetLastError();
  if (status != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  // Fastest first.
  for (const cudnnConvolutionFwdAlgoPerf_t &result : llvm::ArrayRef(results, returned)) {
    if (result.status != CUDNN_STATUS_SUCCESS || result.memory > workspaceSize ||
        !isDirectSum(result.algo))
      continue;
    bool tensorOps = result.mathType == CUDNN_TENSOR_OP_MATH ||
                     result.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (!isHalf && tensorOps)
      continue;
    return ForwardChoice{result.algo, result.mathType, result.memory};
  }
  return std::nullopt;
}

/// Packed (row-major) strides of `dims`.
static llvm::SmallVector<int, 5> getPackedStrides(llvm::ArrayRef<int> dims) {
  llvm::SmallVector<int, 5> strides(dims.size(), 1);
  for (int dim = static_cast<int>(dims.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * dims[dim + 1];
  return strides;
}

llvm::Expected<std::shared_ptr<CudnnConvolution>>
createCudnnConvolution(mlir::Operation *op, KernelContext::Impl &context,
                       const CudnnConvolutionGeometry &geometry,
                       CudnnConvolutionDirection direction, CudnnAlgorithmSearch search) {
  auto handle = context.getCudnn(op);
  if (!handle)
    return handle.takeError();
  auto convolution = std::make_shared<CudnnConvolution>();
  convolution->handle = *handle;
  convolution->direction = direction;
  DType dtype = geometry.dtype;
  bool isHalf = dtype == DType::F16 || dtype == DType::BF16;
  convolution->isDouble = dtype == DType::F64;
  cudnnDataType_t dataType = getCudnnDataType(dtype);
  cudnnDataType_t computeType = dtype == DType::F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  int rank = static_cast<int>(geometry.input.size());
  CudnnConvolution &c = *convolution;
  CGC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&c.input));
  CGC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&c.output));
  CGC_CUDNN_CHECK(cudnnCreateFilterDescriptor(&c.weight));
  CGC_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&c.convolution));
  if (geometry.channelsLast) {
    if (rank != 4)
      return makeKernelError(op, "a channels-last convolution must be 2-D");
    CGC_CUDNN_CHECK(cudnnSetTensorNdDescriptorEx(c.input, CUDNN_TENSOR_NHWC, dataType, rank,
                                                 geometry.input.data()));
    CGC_CUDNN_CHECK(cudnnSetTensorNdDescriptorEx(c.output, CUDNN_TENSOR_NHWC, dataType, rank,
                                                 geometry.output.data()));
  } else {
    CGC_CUDNN_CHECK(cudnnSetTensorNdDescriptor(c.input, dataType, rank, geometry.input.data(),
                                               getPackedStrides(geometry.input).data()));
    CGC_CUDNN_CHECK(cudnnSetTensorNdDescriptor(c.output, dataType, rank, geometry.output.data(),
                                               getPackedStrides(geometry.output).data()));
  }
  // A channels-last filter is KRSC (cuDNN's NHWC filter format).
  CGC_CUDNN_CHECK(cudnnSetFilterNdDescriptor(
      c.weight, dataType, geometry.channelsLast ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, rank,
      geometry.weight.data()));
  CGC_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(
      c.convolution, rank - 2, geometry.padding.data(), geometry.strides.data(),
      geometry.dilations.data(), CUDNN_CROSS_CORRELATION, computeType));
  CGC_CUDNN_CHECK(cudnnSetConvolutionGroupCount(c.convolution, geometry.groups));
  CGC_CUDNN_CHECK(
      cudnnSetConvolutionMathType(c.convolution, isHalf ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  llvm::SmallVector<int, 5> expected(rank);
  CGC_CUDNN_CHECK(cudnnGetConvolutionNdForwardOutputDim(c.convolution, c.input, c.weight, rank,
                                                        expected.data()));
  if (llvm::ArrayRef<int>(expected) != llvm::ArrayRef<int>(geometry.output))
    return makeKernelError(op, "cuDNN computes another output shape for this convolution");

  // Algorithms are timed one program at a time (getDeviceTimingMutex),
  // taken before the handle's lock.
  std::unique_lock<std::mutex> timing;
  if (direction == CudnnConvolutionDirection::Forward && search == CudnnAlgorithmSearch::Fastest)
    timing = std::unique_lock<std::mutex>(getDeviceTimingMutex());
  std::lock_guard<std::mutex> lock(c.handle->mutex);
  cudnnHandle_t cudnn = c.handle->handle;
  cudnnMathType_t mathType = CUDNN_FMA_MATH;
  size_t algorithmMemory = 0;
  if (direction == CudnnConvolutionDirection::Forward) {
    bool timed = search == CudnnAlgorithmSearch::Fastest;
    std::string key = timed ? getSearchKey(context.getDevice(), geometry) : std::string();
    std::optional<ForwardChoice> choice;
    if (timed)
      choice = getForwardChoiceCache().lookup(key);
    if (!choice) {
      cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      int returned = 0;
      CGC_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
          cudnn, c.input, c.weight, c.convolution, c.output, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
          &returned, results));
      llvm::ArrayRef<cudnnConvolutionFwdAlgoPerf_t> ranked(results, returned);
      const cudnnConvolutionFwdAlgoPerf_t *chosen = chooseAlgorithm(ranked, isHalf);
      if (!chosen)
        return makeKernelError(op, "cuDNN offers no forward algorithm for this convolution");
      choice = ForwardChoice{chosen->algo, chosen->mathType, chosen->memory};
      if (timed) {
        if (std::optional<ForwardChoice> fastest =
                findFastestForward(c, geometry, ranked, isHalf))
          choice = fastest;
        getForwardChoiceCache().store(key, *choice);
      }
    }
    c.forwardAlgorithm = choice->algorithm;
    mathType = choice->mathType;
    algorithmMemory = choice->memory;
  } else {
    cudnnConvolutionBwdDataAlgoPerf_t results[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int returned = 0;
    CGC_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        cudnn, c.weight, c.output, c.convolution, c.input, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
        &returned, results));
    const cudnnConvolutionBwdDataAlgoPerf_t *chosen =
        chooseAlgorithm(llvm::ArrayRef(results, returned), isHalf);
    if (!chosen)
      return makeKernelError(op, "cuDNN offers no backward-data algorithm for this convolution");
    c.backwardDataAlgorithm = chosen->algo;
    mathType = chosen->mathType;
    algorithmMemory = chosen->memory;
  }
  if (isHalf)
    CGC_CUDNN_CHECK(cudnnSetConvolutionMathType(c.convolution, mathType));
  if (direction == CudnnConvolutionDirection::Forward)
    CGC_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
        cudnn, c.input, c.weight, c.convolution, c.output, c.forwardAlgorithm, &c.workspaceSize));
  else
    CGC_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
        cudnn, c.weight, c.output, c.convolution, c.input, c.backwardDataAlgorithm,
        &c.workspaceSize));
  c.workspaceSize = std::max(c.workspaceSize, algorithmMemory);
  return convolution;
}

std::optional<llvm::SmallVector<int, 5>> toCudnnDims(llvm::ArrayRef<int64_t> values, bool heightOne,
                                                     size_t insertAt, int inserted) {
  llvm::SmallVector<int, 5> dims;
  for (size_t index = 0; index <= values.size(); ++index) {
    if (heightOne && index == insertAt)
      dims.push_back(inserted);
    if (index == values.size())
      break;
    if (values[index] < 0 || values[index] > std::numeric_limits<int>::max())
      return std::nullopt;
    dims.push_back(static_cast<int>(values[index]));
  }
  return dims;
}

llvm::Expected<CudnnConvolutionPlan> planCudnnConvolution(op::ConvolutionOp conv) {
  mlir::Operation *op = conv;
  CudnnConvolutionPlan plan;
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

  // cuDNN's view: a 1-D convolution is a 2-D one of height 1; asymmetric
  // padding is applied beforehand.
  Shape convolvedInput = input->shape;
  if (!symmetric) {
    // Batch and channel dimensions are not padded.
    Shape start{0, 0}, end{0, 0};
    start.append(startPadding.begin(), startPadding.end());
    end.append(endPadding.begin(), endPadding.end());
    for (int64_t dim = 0; dim < spatialRank; ++dim)
      convolvedInput[dim + 2] += startPadding[dim] + endPadding[dim];
    plan.startPadding = std::move(start);
    plan.endPadding = std::move(end);
  }
  bool heightOne = spatialRank == 1;
  auto inputDims = toCudnnDims(convolvedInput, heightOne, 2, 1);
  auto weightDims = toCudnnDims(weight->shape, heightOne, 2, 1);
  auto outputDims = toCudnnDims(output->shape, heightOne, 2, 1);
  auto paddingDims = toCudnnDims(symmetric ? startPadding : Shape(spatialRank, 0), heightOne, 0, 0);
  auto strideDims = toCudnnDims(strides, heightOne, 0, 1);
  auto dilationDims = toCudnnDims(dilations, heightOne, 0, 1);
  if (!inputDims || !weightDims || !outputDims || !paddingDims || !strideDims || !dilationDims)
    return unimplementedFeature(op, "a dimension beyond 2^31");
  plan.geometry.dtype = dtype;
  plan.geometry.input = std::move(*inputDims);
  plan.geometry.weight = std::move(*weightDims);
  plan.geometry.output = std::move(*outputDims);
  plan.geometry.padding.assign(paddingDims->begin(), paddingDims->end());
  plan.geometry.strides.assign(strideDims->begin(), strideDims->end());
  plan.geometry.dilations.assign(dilationDims->begin(), dilationDims->end());
  plan.geometry.groups = static_cast<int>(conv.getGroups());
  plan.input = std::move(*input);
  plan.output = std::move(*output);
  return plan;
}

void makeChannelsLast(CudnnConvolutionPlan &plan) {
  auto toNhwc = [](Shape &shape) {
    if (shape.size() == 4)
      shape = Shape{shape[0], shape[2], shape[3], shape[1]};
  };
  plan.geometry.channelsLast = true;
  toNhwc(plan.input.shape);
  toNhwc(plan.output.shape);
  if (plan.startPadding) {
    toNhwc(*plan.startPadding);
    toNhwc(*plan.endPadding);
  }
}

llvm::Expected<Kernel> buildCudnnConvolutionKernel(op::ConvolutionOp conv,
                                                   KernelContext::Impl &context,
                                                   const CudnnConvolutionPlan &plan,
                                                   CudnnAlgorithmSearch search) {
  mlir::Operation *op = conv;
  if (plan.output.getNumElements() == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  DType dtype = plan.geometry.dtype;
  std::optional<Kernel> pad;
  uint64_t paddedBytes = 0;
  if (plan.startPadding) {
    auto padKernel = buildConstantPadKernel(op, context, dtype, plan.input.shape,
                                            *plan.startPadding, *plan.endPadding,
                                            /*fillBits=*/0);
    if (!padKernel)
      return padKernel.takeError();
    pad = std::move(*padKernel);
    Shape padded = plan.input.shape;
    for (size_t dim = 0; dim < padded.size(); ++dim)
      padded[dim] += (*plan.startPadding)[dim] + (*plan.endPadding)[dim];
    paddedBytes = alignWorkspace(getNumElements(padded) * getByteWidth(dtype));
  }
  auto convolution = createCudnnConvolution(op, context, plan.geometry,
                                            CudnnConvolutionDirection::Forward, search);
  if (!convolution)
    return convolution.takeError();

  std::string opName = op->getName().getStringRef().str();
  std::shared_ptr<CudnnConvolution> cudnn = std::move(*convolution);
  uint64_t workspaceSize = paddedBytes + cudnn->workspaceSize;
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
    cudnnStatus_t status =
        cudnn->run(x, args.inputs[1], args.outputs[0], workspace + paddedBytes, args.stream);
    if (status != CUDNN_STATUS_SUCCESS)
      return opName + ": " + cudnn->getCallName() + " failed: " + cudnnGetErrorString(status);
    return "";
  };
  return Kernel{std::move(launch), alignWorkspace(workspaceSize)};
}

} // namespace cgc::cuda
