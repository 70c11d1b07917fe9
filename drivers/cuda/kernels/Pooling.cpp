//===- Pooling.cpp - max and average pooling over windows -----------------===//
//
// One thread per output element, as the CPU kernel computes it: per
// spatial dimension the range of kernel offsets that land inside the input
// (and, for count_include_pad, inside the padded input), then a walk over
// that box. Maxima propagate NaN; averages sum in double. ONNX's ceil_mode
// needs nothing here: it only changes the output size, and windows that
// run past the end padding do not count the overhang. The window range is
// PoolingCodegen.h's, which the channels-last kernel (FusedPooling.cpp)
// shares. The global pools are reductions (Reduction.cpp).
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"
#include "KernelContextImpl.h"
#include "PoolingCodegen.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include <cmath>
#include <limits>

namespace cgc::cuda {

using namespace cgc::op;

namespace {
/// The kernel parameters: per spatial dimension the input and output
/// sizes, kernel, stride, dilation and both paddings (all 64-bit).
enum PoolField { kInput, kOutput, kKernel, kStride, kDilation, kStart, kEnd, kFieldCount };
} // namespace

/// The source of `cgc_pool` over `rank` spatial dimensions.
static std::string generatePoolSource(DType dtype, size_t rank, bool isMax, bool countIncludePad) {
  std::string c = getComputeType(dtype);
  std::string initial;
  if (isFloatDType(dtype))
    initial = floatLiteral(-INFINITY, c);
  else if (isSignedIntegerDType(dtype))
    initial = signedLiteral(dtype == DType::I64   ? std::numeric_limits<int64_t>::min()
                            : dtype == DType::I32 ? std::numeric_limits<int32_t>::min()
                            : dtype == DType::I16 ? std::numeric_limits<int16_t>::min()
                                                  : std::numeric_limits<int8_t>::min(),
                            c);
  else
    initial = unsignedLiteral(0, c);
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  std::string storage = getStorageType(dtype);
  os << "struct cgc_pool_params {\n  long long planes, inputPositions, outputPositions;\n"
     << "  long long g[" << rank * kFieldCount << "];\n};\n";
  os << "#define CGC_G(field, dim) p.g[(field) * " << rank << " + (dim)]\n";
  os << getKernelRangeSource();
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_pool(const " << storage << " *in, "
     << storage << R"cuda( *out, cgc_pool_params p) {
  long long count = p.planes * p.outputPositions;
  long long step = (long long)gridDim.x * blockDim.x;
  for (long long element = (long long)blockIdx.x * blockDim.x + threadIdx.x; element < count;
       element += step) {
    long long plane = element / p.outputPositions, rest = element % p.outputPositions;
    long long inside = 1, padded = 1;
)cuda";
  for (size_t dim = 0; dim < rank; ++dim)
    os << "    long long origin" << dim << ", first" << dim << ", last" << dim << ", stride" << dim
       << ";\n";
  os << "    long long padFirst, padLast, o;\n";
  for (size_t dim = rank; dim-- > 0;) {
    os << "    o = rest % CGC_G(" << kOutput << ", " << dim << "); rest /= CGC_G(" << kOutput
       << ", " << dim << ");\n";
    os << "    origin" << dim << " = o * CGC_G(" << kStride << ", " << dim << ") - CGC_G(" << kStart
       << ", " << dim << ");\n";
    os << "    cgc_kernel_range(origin" << dim << ", CGC_G(" << kDilation << ", " << dim
       << "), CGC_G(" << kKernel << ", " << dim << "), 0, CGC_G(" << kInput << ", " << dim
       << "), first" << dim << ", last" << dim << ");\n";
    os << "    inside *= last" << dim << " - first" << dim << ";\n";
    os << "    cgc_kernel_range(origin" << dim << ", CGC_G(" << kDilation << ", " << dim
       << "), CGC_G(" << kKernel << ", " << dim << "), -CGC_G(" << kStart << ", " << dim
       << "), CGC_G(" << kInput << ", " << dim << ") + CGC_G(" << kEnd << ", " << dim
       << "), padFirst, padLast);\n";
    os << "    padded *= padLast - padFirst;\n";
  }
  // Input strides of the spatial dimensions (row-major within a plane).
  os << "    stride" << rank - 1 << " = 1;\n";
  for (size_t dim = rank - 1; dim-- > 0;)
    os << "    stride" << dim << " = stride" << dim + 1 << " * CGC_G(" << kInput << ", " << dim + 1
       << ");\n";
  os << "    const " << storage << " *source = in + plane * p.inputPositions;\n";
  if (isMax)
    os << "    " << c << " best = " << initial << ";\n";
  else
    os << "    double sum = 0.0;\n";
  std::string offset;
  for (size_t dim = 0; dim < rank; ++dim) {
    os << std::string(4 + 2 * dim, ' ') << "for (long long k" << dim << " = first" << dim << "; k"
       << dim << " < last" << dim << "; ++k" << dim << ") {\n";
    offset += (dim ? " + " : "") + ("(origin" + std::to_string(dim) + " + k" + std::to_string(dim) +
                                    " * CGC_G(" + std::to_string(kDilation) + ", " +
                                    std::to_string(dim) + ")) * stride" + std::to_string(dim));
  }
  std::string indent(4 + 2 * rank, ' ');
  std::string value = loadValue(dtype, "source[" + offset + "]");
  if (isMax)
    os << indent << "best = cgc_max(best, (" << c << ")" << value << ");\n";
  else
    os << indent << "sum += (double)" << value << ";\n";
  for (size_t dim = rank; dim-- > 0;)
    os << std::string(4 + 2 * dim, ' ') << "}\n";
  if (isMax)
    os << "    out[element] = " << storeValue(dtype, "best") << ";\n";
  else
    os << "    out[element] = "
       << storeValue(dtype,
                     "(" + c + ")(sum / (double)" + (countIncludePad ? "padded" : "inside") + ")")
       << ";\n";
  os << "  }\n}\n";
  return source;
}

llvm::Expected<Kernel> buildWindowPoolKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto input = getTensorInfo(op, op->getOperand(0));
  if (!input)
    return input.takeError();
  auto output = getTensorInfo(op, op->getResult(0));
  if (!output)
    return output.takeError();
  DType dtype = input->dtype;
  bool isMax = llvm::isa<MaxPoolOp>(op);
  // max_pool takes any numeric type, average_pool floats.
  if (dtype == DType::Bool || (!isMax && !isFloatDType(dtype)))
    return unimplementedElementType(op, dtype);
  int64_t rank = input->getRank() - 2;
  if (rank < 1)
    return unimplementedFeature(op, "pooling without spatial dimensions");
  Shape kernel, strides, dilations, startPadding, endPadding;
  bool countIncludePad = false;
  auto read = [&](auto pool) {
    kernel = Shape(pool.getKernelShape());
    strides = getWindowList(pool.getStrides(), rank, 1);
    dilations = getWindowList(pool.getDilations(), rank, 1);
    startPadding = getWindowList(pool.getStartPadding(), rank, 0);
    endPadding = getWindowList(pool.getEndPadding(), rank, 0);
  };
  if (auto maxPool = llvm::dyn_cast<MaxPoolOp>(op)) {
    read(maxPool);
  } else {
    auto averagePool = llvm::cast<AveragePoolOp>(op);
    read(averagePool);
    countIncludePad = averagePool.getCountIncludePad();
  }
  int64_t planes = input->shape[0] * input->shape[1];
  llvm::ArrayRef<int64_t> inputSpatial = llvm::ArrayRef(input->shape).drop_front(2);
  llvm::ArrayRef<int64_t> outputSpatial = llvm::ArrayRef(output->shape).drop_front(2);
  int64_t outputPositions = getNumElements(outputSpatial);
  if (planes * outputPositions == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};

  std::string source = generatePoolSource(dtype, rank, isMax, countIncludePad);
  auto function = context.getFunction(op, source, "cgc_pool");
  if (!function)
    return function.takeError();
  std::vector<int64_t> params = {planes, getNumElements(inputSpatial), outputPositions};
  for (llvm::ArrayRef<int64_t> field :
       {inputSpatial, outputSpatial, llvm::ArrayRef<int64_t>(kernel),
        llvm::ArrayRef<int64_t>(strides), llvm::ArrayRef<int64_t>(dilations),
        llvm::ArrayRef<int64_t>(startPadding), llvm::ArrayRef<int64_t>(endPadding)})
    params.insert(params.end(), field.begin(), field.end());
  unsigned blocks = context.getGridSize(planes * outputPositions, 256);
  std::string opName = op->getName().getStringRef().str();
  return Kernel{[function = *function, params = std::move(params), blocks,
                 opName](const LaunchArgs &args) -> std::string {
                  const void *in = args.inputs[0];
                  void *out = args.outputs[0];
                  void *arguments[] = {&in, &out, const_cast<int64_t *>(params.data())};
                  cudaError_t error =
                      function.launch(dim3(blocks), dim3(256), arguments, 0, args.stream);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaLaunchKernel", error);
                },
                0};
}

} // namespace cgc::cuda
