//===- DataMovement.cpp - reshape, transpose, slice, expand, concat, ... --===//
//
// These layers only move elements, so they run on the element's width
// whatever its type. reshape is a device-to-device copy; transpose, slice
// and expand are one strided gather (ElementwiseCodegen.h: permuted,
// stepped or zero strides); concat and split copy 2-D blocks
// (cudaMemcpy2DAsync: one row per index before the axis); gather and pad
// have their own generated kernels, except that a gather of a single index
// is a strided copy whose start the index (read on the device) moves
// (StridedCopy.h).
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"
#include "ElementwiseCodegen.h"
#include "StridedCopy.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/TransposePermutation.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace cgc::cuda {

using namespace cgc::op;

bool isDataMovementOp(mlir::Operation *op) {
  return llvm::isa<ReshapeOp, TransposeOp, SliceOp, ExpandOp, ConcatOp, SplitOp, GatherOp, PadOp>(
      op);
}

/// A kernel that does nothing (empty tensors).
static Kernel makeEmptyKernel() {
  return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

static Kernel buildReshape(mlir::Operation *op, const TensorInfo &input) {
  uint64_t bytes = input.getByteSize();
  std::string opName = op->getName().getStringRef().str();
  return Kernel{[bytes, opName](const LaunchArgs &args) -> std::string {
                  if (bytes == 0 || args.inputs[0] == args.outputs[0])
                    return "";
                  cudaError_t error = cudaMemcpyAsync(args.outputs[0], args.inputs[0], bytes,
                                                      cudaMemcpyDeviceToDevice, args.stream);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(opName, "cudaMemcpyAsync", error);
                },
                0};
}

//===----------------------------------------------------------------------===//
// transpose, slice, expand: strided gathers
//===----------------------------------------------------------------------===//

/// out[i...] = in[start + sum(i_d * strides_d)], moving bits.
static llvm::Expected<Kernel> buildStridedCopy(mlir::Operation *op, KernelContext::Impl &context,
                                               DType dtype, llvm::ArrayRef<int64_t> outputShape,
                                               Shape strides, int64_t start) {
  StridedKernelSpec spec;
  StridedOperand operand;
  operand.dtype = dtype;
  operand.strides = std::move(strides);
  operand.start = start;
  operand.raw = true;
  spec.operands.push_back(std::move(operand));
  spec.outputType = dtype;
  spec.rawOutput = true;
  spec.outputShape = Shape(outputShape);
  spec.expression = "x0";
  return buildStridedKernel(op, context, spec);
}

static llvm::Expected<Kernel> buildSlice(SliceOp slice, KernelContext::Impl &context,
                                         const TensorInfo &input, const TensorInfo &output) {
  int64_t rank = input.getRank();
  Shape inputStrides = getStrides(input.shape);
  Shape strides = inputStrides;
  int64_t start = 0;
  llvm::SmallVector<int64_t> starts = slice.getStarts(), axes = slice.getAxes(),
                             steps = slice.getSteps();
  for (size_t index = 0; index < starts.size(); ++index) {
    int64_t axis = normalizeAxis(axes.empty() ? static_cast<int64_t>(index) : axes[index], rank);
    int64_t step = steps.empty() ? 1 : steps[index];
    int64_t size = input.shape[axis];
    int64_t first = starts[index];
    if (first < 0)
      first += size;
    first = step > 0 ? std::clamp<int64_t>(first, 0, size)
                     : std::clamp<int64_t>(first, 0, std::max<int64_t>(size - 1, 0));
    if (output.shape[axis] > 0)
      start += first * inputStrides[axis];
    strides[axis] = inputStrides[axis] * step;
  }
  return buildStridedCopy(slice, context, input.dtype, output.shape, std::move(strides), start);
}

static llvm::Expected<Kernel> buildTranspose(TransposeOp transpose, KernelContext::Impl &context,
                                             const TensorInfo &input, const TensorInfo &output) {
  llvm::SmallVector<int64_t> permutation = getTransposePermutation(transpose);
  int64_t rank = input.getRank();
  Shape inputStrides = getStrides(input.shape);
  Shape strides(rank);
  for (int64_t dim = 0; dim < rank; ++dim)
    strides[dim] = inputStrides[permutation[dim]];
  return buildStridedCopy(transpose, context, input.dtype, output.shape, std::move(strides), 0);
}

//===----------------------------------------------------------------------===//
// concat, split
//===----------------------------------------------------------------------===//

/// Concat (`join`) or split: pieces of `pieceShapes` along `axis` of
/// `whole`. Each piece is a block of `outer` rows: its slice of every index
/// before the axis.
static Kernel buildConcatOrSplit(mlir::Operation *op, const TensorInfo &whole,
                                 llvm::ArrayRef<Shape> pieceShapes, int64_t axis, bool join) {
  int64_t outer = getNumElements(llvm::ArrayRef(whole.shape).take_front(axis));
  int64_t inner = getNumElements(llvm::ArrayRef(whole.shape).drop_front(axis + 1));
  size_t width = getByteWidth(whole.dtype);
  std::vector<size_t> pieceBytes; // bytes of one row of each piece
  for (const Shape &shape : pieceShapes)
    pieceBytes.push_back(static_cast<size_t>(shape[axis] * inner) * width);
  size_t wholeBytes = static_cast<size_t>(whole.shape[axis] * inner) * width;
  std::string opName = op->getName().getStringRef().str();
  auto launch = [=](const LaunchArgs &args) -> std::string {
    if (outer == 0)
      return "";
    size_t position = 0;
    for (size_t piece = 0; piece < pieceBytes.size(); ++piece) {
      size_t bytes = pieceBytes[piece];
      if (bytes == 0)
        continue;
      char *wholeData = join ? static_cast<char *>(args.outputs[0])
                             : const_cast<char *>(static_cast<const char *>(args.inputs[0]));
      char *pieceData = join ? const_cast<char *>(static_cast<const char *>(args.inputs[piece]))
                             : static_cast<char *>(args.outputs[piece]);
      char *destination = join ? wholeData + position : pieceData;
      const char *source = join ? pieceData : wholeData + position;
      size_t destinationPitch = join ? wholeBytes : bytes;
      size_t sourcePitch = join ? bytes : wholeBytes;
      cudaError_t error;
      const char *call = "cudaMemcpy2DAsync";
      if (outer == 1) {
        call = "cudaMemcpyAsync";
        error = cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, args.stream);
      } else {
        error =
            cudaMemcpy2DAsync(destination, destinationPitch, source, sourcePitch, bytes,
                              static_cast<size_t>(outer), cudaMemcpyDeviceToDevice, args.stream);
      }
      if (error != cudaSuccess)
        return describeLaunchFailure(opName, call, error);
      position += bytes;
    }
    return "";
  };
  return Kernel{std::move(launch), 0};
}

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

static llvm::Expected<Kernel> buildGather(GatherOp gather, KernelContext::Impl &context,
                                          const TensorInfo &data, const TensorInfo &indices,
                                          const TensorInfo &output) {
  if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
    return unimplementedElementType(gather, indices.dtype);
  int64_t axis = normalizeAxis(static_cast<int64_t>(gather.getAxis()), data.getRank());
  int64_t inner = getNumElements(llvm::ArrayRef(data.shape).drop_front(axis + 1));
  int64_t axisSize = data.shape[axis];
  int64_t indexCount = indices.getNumElements();
  int64_t count = output.getNumElements();
  if (count == 0)
    return makeEmptyKernel();
  if (indexCount == 1) {
    // out[o..., j...] = data[o..., index, j...]: the copy of the slice at
    // index 0, moved by the index times the axis's stride.
    Shape dataStrides = getStrides(data.shape);
    StridedCopySpec copy;
    copy.dtype = data.dtype;
    copy.outputShape = output.shape;
    copy.strides.append(dataStrides.begin(), dataStrides.begin() + axis);
    copy.strides.append(indices.shape.size(), 0);
    copy.strides.append(dataStrides.begin() + axis + 1, dataStrides.end());
    copy.index = DeviceIndexedStart{indices.dtype, axisSize, dataStrides[axis]};
    if (auto kernel = buildSpecializedStridedCopy(gather, context, copy))
      return std::move(*kernel);
  }
  // Rows of `inner` elements are copied 16 bytes at a time where they
  // split into whole vectors (BERT's embeddings: rows of 768) and both
  // pointers are aligned (checked at launch; else element by element), in
  // 32-bit arithmetic where every offset fits (the divisions by runtime
  // sizes dominate such a copy otherwise).
  auto elementBytes = static_cast<int64_t>(getByteWidth(data.dtype));
  int64_t vector = 16 % elementBytes == 0 ? 16 / elementBytes : 1;
  if (inner % vector != 0)
    vector = 1;
  constexpr int64_t kNarrowLimit = int64_t(1) << 31;
  bool narrow = count < kNarrowLimit && data.getNumElements() < kNarrowLimit;
  auto generate = [&](int64_t width) {
    std::string element = width > 1 ? std::string("uint4") : getBitsType(data.dtype);
    std::string zero = width > 1 ? "make_uint4(0u, 0u, 0u, 0u)" : "0";
    std::string source = getDevicePreamble();
    source += getIndexTypedef(narrow);
    source += "extern \"C\" __global__ void __launch_bounds__(256) cgc_gather(const " + element +
              " *data, const " + getStorageType(indices.dtype) + " *indices, " + element +
              R"cuda( *out,
    long long count, long long indexCount, long long inner, long long axisSize) {
  // count and inner in elements of this kernel's width.
  const cgc_index n = (cgc_index)count, rowLength = (cgc_index)inner;
  const cgc_index positions = (cgc_index)indexCount, size = (cgc_index)axisSize;
  const cgc_index step = (cgc_index)gridDim.x * blockDim.x;
  for (cgc_index i = (cgc_index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    const cgc_index j = i % rowLength, rest = i / rowLength;
    const cgc_index position = rest % positions, o = rest / positions;
    long long index = (long long)indices[position];
    if (index < 0)
      index += axisSize;
    // Out-of-range indices (undefined in ONNX) read zeros, as on the CPU.
    out[i] = (index < 0 || index >= axisSize) ? )cuda" +
              zero + " : data[(o * size + (cgc_index)index) * rowLength + j];\n  }\n}\n";
    return context.getFunction(gather, source, "cgc_gather");
  };
  auto scalar = generate(1);
  if (!scalar)
    return scalar.takeError();
  std::optional<DeviceFunction> vectorized;
  if (vector > 1) {
    auto function = generate(vector);
    if (!function)
      return function.takeError();
    vectorized = *function;
  }
  std::string opName = gather->getName().getStringRef().str();
  unsigned scalarBlocks = context.getGridSize(count, 256);
  unsigned vectorBlocks = context.getGridSize(count / vector, 256);
  return Kernel{
      [scalar = *scalar, vectorized, vector, scalarBlocks, vectorBlocks, count, indexCount, inner,
       axisSize, opName](const LaunchArgs &args) -> std::string {
        const void *data = args.inputs[0], *indices = args.inputs[1];
        void *out = args.outputs[0];
        bool aligned = vectorized && ((reinterpret_cast<uintptr_t>(data) |
                                       reinterpret_cast<uintptr_t>(out)) & 15u) == 0;
        int64_t width = aligned ? vector : 1;
        long long values[] = {count / width, indexCount, inner / width, axisSize};
        unsigned blocks = aligned ? vectorBlocks : scalarBlocks;
        void *arguments[] = {&data, &indices, &out, &values[0], &values[1], &values[2], &values[3]};
        const DeviceFunction &function = aligned ? *vectorized : scalar;
        cudaError_t error = function.launch(dim3(blocks), dim3(256), arguments, 0, args.stream);
        return error == cudaSuccess ? std::string()
                                    : describeLaunchFailure(opName, "cudaLaunchKernel", error);
      },
      0};
}

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

/// A pad kernel of `mode` ("constant", "reflect", "edge").
static llvm::Expected<Kernel> buildPadKernel(mlir::Operation *op, KernelContext::Impl &context,
                                             DType dtype, llvm::ArrayRef<int64_t> inputShape,
                                             llvm::ArrayRef<int64_t> outputShape,
                                             llvm::ArrayRef<int64_t> startPadding,
                                             llvm::StringRef mode, uint64_t fillBits) {
  int64_t count = getNumElements(outputShape);
  if (count == 0)
    return makeEmptyKernel();
  size_t rank = inputShape.size();
  size_t arrayRank = std::max<size_t>(rank, 1);
  std::string bits = getBitsType(dtype);
  std::string coordinate;
  if (mode == "reflect")
    coordinate = "if (c < 0) c = -c;\n      if (c >= size) c = 2 * (size - 1) - c;";
  else if (mode == "edge")
    coordinate = "c = c < 0 ? 0 : (c >= size ? size - 1 : c);";
  else
    coordinate = "inside = inside && c >= 0 && c < size;";
  std::string source = getDevicePreamble();
  llvm::raw_string_ostream os(source);
  os << "#define CGC_RANK " << rank << "\n#define CGC_ARRAY_RANK " << arrayRank << "\n";
  os << "struct cgc_pad_params {\n  long long count;\n  long long outputSizes[CGC_ARRAY_RANK];\n"
     << "  long long inputSizes[CGC_ARRAY_RANK];\n  long long inputStrides[CGC_ARRAY_RANK];\n"
     << "  long long starts[CGC_ARRAY_RANK];\n  unsigned long long fill;\n};\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256) cgc_pad(const " << bits << " *in, "
     << bits << R"cuda( *out, cgc_pad_params p) {
  long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.count; i += step) {
    long long rest = i, offset = 0;
    bool inside = true;
#pragma unroll
    for (int d = CGC_RANK - 1; d >= 0; --d) {
      long long o = rest % p.outputSizes[d];
      rest /= p.outputSizes[d];
      long long c = o - p.starts[d], size = p.inputSizes[d];
      )cuda"
     << coordinate << R"cuda(
      offset += c * p.inputStrides[d];
    }
    out[i] = inside ? in[offset] : ()cuda"
     << bits << ")p.fill;\n  }\n}\n";
  auto function = context.getFunction(op, source, "cgc_pad");
  if (!function)
    return function.takeError();
  std::vector<int64_t> params;
  params.push_back(count);
  Shape inputStrides = getStrides(inputShape);
  for (size_t dim = 0; dim < arrayRank; ++dim)
    params.push_back(dim < rank ? outputShape[dim] : 1);
  for (size_t dim = 0; dim < arrayRank; ++dim)
    params.push_back(dim < rank ? inputShape[dim] : 1);
  for (size_t dim = 0; dim < arrayRank; ++dim)
    params.push_back(dim < rank ? inputStrides[dim] : 0);
  for (size_t dim = 0; dim < arrayRank; ++dim)
    params.push_back(dim < rank && !startPadding.empty() ? startPadding[dim] : 0);
  params.push_back(static_cast<int64_t>(fillBits));
  unsigned blocks = context.getGridSize(count, 256);
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

llvm::Expected<Kernel> buildConstantPadKernel(mlir::Operation *op, KernelContext::Impl &context,
                                              DType dtype, llvm::ArrayRef<int64_t> inputShape,
                                              llvm::ArrayRef<int64_t> startPadding,
                                              llvm::ArrayRef<int64_t> endPadding,
                                              uint64_t fillBits) {
  Shape outputShape(inputShape);
  for (size_t dim = 0; dim < outputShape.size(); ++dim)
    outputShape[dim] += startPadding[dim] + endPadding[dim];
  return buildPadKernel(op, context, dtype, inputShape, outputShape, startPadding, "constant",
                        fillBits);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

llvm::Expected<Kernel> buildDataMovementKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto input = getTensorInfo(op, op->getOperand(0));
  if (!input)
    return input.takeError();
  auto output = getTensorInfo(op, op->getResult(0));
  if (!output)
    return output.takeError();
  using R = llvm::Expected<Kernel>;
  return llvm::TypeSwitch<mlir::Operation *, R>(op)
      .Case([&](ReshapeOp) -> R { return buildReshape(op, *input); })
      .Case([&](TransposeOp transpose) -> R {
        return buildTranspose(transpose, context, *input, *output);
      })
      .Case([&](SliceOp slice) -> R { return buildSlice(slice, context, *input, *output); })
      .Case([&](ExpandOp) -> R {
        return buildStridedCopy(op, context, input->dtype, output->shape,
                                getBroadcastStrides(input->shape, output->shape), 0);
      })
      .Case([&](ConcatOp concat) -> R {
        llvm::SmallVector<Shape> pieces;
        for (mlir::Value value : concat.getInputs())
          pieces.push_back(Shape(llvm::cast<TensorType>(value.getType()).getShape()));
        int64_t axis = normalizeAxis(static_cast<int64_t>(concat.getAxis()), output->getRank());
        return buildConcatOrSplit(op, *output, pieces, axis, /*join=*/true);
      })
      .Case([&](SplitOp split) -> R {
        llvm::SmallVector<Shape> pieces;
        for (mlir::Value value : split.getOutputs())
          pieces.push_back(Shape(llvm::cast<TensorType>(value.getType()).getShape()));
        int64_t axis = normalizeAxis(static_cast<int64_t>(split.getAxis()), input->getRank());
        return buildConcatOrSplit(op, *input, pieces, axis, /*join=*/false);
      })
      .Case([&](GatherOp gather) -> R {
        auto indices = getTensorInfo(op, gather.getIndices());
        if (!indices)
          return indices.takeError();
        return buildGather(gather, context, *input, *indices, *output);
      })
      .Case([&](PadOp pad) -> R {
        llvm::StringRef mode = pad.getMode();
        if (mode != "constant" && mode != "reflect" && mode != "edge")
          return unimplementedFeature(op, "mode \"" + mode + "\"");
        uint64_t fill = encodeScalar(input->dtype, pad.getValue().convertToDouble());
        return buildPadKernel(op, context, input->dtype, input->shape, output->shape,
                              pad.getStartPadding(), mode, fill);
      })
      .Default([&](mlir::Operation *) -> R { return unimplementedOp(op); });
}

} // namespace cgc::cuda
