//===- Shape.cpp - concat, split, slice, gather, pad, reshape, transpose, expand ===//
//
// These layers only move elements, so they run on the element's width (1,
// 2, 4 or 8 bytes) whatever its type. Slice, transpose and expand are one
// strided gather: the result read row by row from the input through
// per-dimension strides (negative for reversed slices, 0 for broadcast).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/TransposePermutation.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

namespace cgc::cpu {

using namespace cgc::op;

/// Calls `fn(U{})` with the unsigned integer type of `dtype`'s width.
template <typename Fn> static KernelFn visitWidth(DType dtype, Fn &&fn) {
  switch (getByteWidth(dtype)) {
  case 1:
    return fn(uint8_t{});
  case 2:
    return fn(uint16_t{});
  case 4:
    return fn(uint32_t{});
  default:
    return fn(uint64_t{});
  }
}

namespace {
/// out[i...] = in[start + sum(i_d * strides_d)] over `shape`.
struct StridedGather {
  Shape shape, strides;
  int64_t start = 0;
};
} // namespace

template <typename U>
static void runStridedGather(const StridedGather &gather, const U *in, U *out,
                             ThreadPool &pool) {
  int64_t count = getNumElements(gather.shape);
  if (count == 0)
    return;
  int64_t rank = static_cast<int64_t>(gather.shape.size());
  int64_t inner = rank ? gather.shape.back() : 1;
  int64_t innerStride = rank ? gather.strides.back() : 0;
  int64_t rows = count / inner;
  pool.parallelFor(rows, std::max<int64_t>(1, 16384 / inner), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = gather.start, rest = row;
      for (int64_t dim = rank - 2; dim >= 0; --dim) {
        offset += (rest % gather.shape[dim]) * gather.strides[dim];
        rest /= gather.shape[dim];
      }
      U *o = out + row * inner;
      const U *i = in + offset;
      if (innerStride == 1) {
        std::memcpy(o, i, inner * sizeof(U));
      } else {
        for (int64_t index = 0; index < inner; ++index)
          o[index] = i[index * innerStride];
      }
    }
  });
}

static KernelFn makeStridedGather(DType dtype, StridedGather gather) {
  auto shared = std::make_shared<StridedGather>(std::move(gather));
  return visitWidth(dtype, [&](auto tag) -> KernelFn {
    using U = decltype(tag);
    return [shared](std::span<const void *const> inputs, std::span<void *const> outputs,
                    ThreadPool &pool) {
      runStridedGather(*shared, static_cast<const U *>(inputs[0]), static_cast<U *>(outputs[0]),
                       pool);
    };
  });
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

static KernelFn buildSlice(SliceOp slice, const TensorInfo &input, const TensorInfo &output) {
  int64_t rank = input.getRank();
  Shape inputStrides = getStrides(input.shape);
  StridedGather gather{output.shape, inputStrides, 0};
  llvm::SmallVector<int64_t> starts = slice.getStarts(), axes = slice.getAxes(),
                             steps = slice.getSteps();
  for (size_t index = 0; index < starts.size(); ++index) {
    int64_t axis = normalizeAxis(axes.empty() ? static_cast<int64_t>(index) : axes[index], rank);
    int64_t step = steps.empty() ? 1 : steps[index];
    int64_t size = input.shape[axis];
    int64_t start = starts[index];
    if (start < 0)
      start += size;
    start = step > 0 ? std::clamp<int64_t>(start, 0, size) : std::clamp<int64_t>(start, 0, size - 1);
    if (output.shape[axis] > 0)
      gather.start += start * inputStrides[axis];
    gather.strides[axis] = inputStrides[axis] * step;
  }
  return makeStridedGather(input.dtype, std::move(gather));
}

static KernelFn buildTranspose(TransposeOp transpose, const TensorInfo &input,
                               const TensorInfo &output) {
  llvm::SmallVector<int64_t> permutation = getTransposePermutation(transpose);
  int64_t rank = input.getRank();
  Shape inputStrides = getStrides(input.shape);
  StridedGather gather{output.shape, Shape(rank), 0};
  for (int64_t dim = 0; dim < rank; ++dim)
    gather.strides[dim] = inputStrides[permutation[dim]];
  return makeStridedGather(input.dtype, std::move(gather));
}

static KernelFn buildExpand(const TensorInfo &input, const TensorInfo &output) {
  int64_t rank = output.getRank();
  int64_t leading = rank - input.getRank();
  Shape inputStrides = getStrides(input.shape);
  StridedGather gather{output.shape, Shape(rank, 0), 0};
  for (int64_t dim = leading; dim < rank; ++dim)
    if (input.shape[dim - leading] != 1)
      gather.strides[dim] = inputStrides[dim - leading];
  return makeStridedGather(input.dtype, std::move(gather));
}

static KernelFn buildReshape(const TensorInfo &input) {
  size_t bytes = static_cast<size_t>(input.getNumElements()) * getByteWidth(input.dtype);
  return [bytes](std::span<const void *const> inputs, std::span<void *const> outputs,
                 ThreadPool &) {
    if (bytes && inputs[0] != outputs[0])
      std::memmove(outputs[0], inputs[0], bytes);
  };
}

/// Concat (`join`) or split: pieces of `pieceShapes` along `axis` of `whole`.
static KernelFn buildConcatOrSplit(const TensorInfo &whole, llvm::ArrayRef<Shape> pieceShapes,
                                   int64_t axis, bool join) {
  int64_t outer = getNumElements(llvm::ArrayRef(whole.shape).take_front(axis));
  int64_t inner = getNumElements(llvm::ArrayRef(whole.shape).drop_front(axis + 1));
  size_t width = getByteWidth(whole.dtype);
  std::vector<int64_t> pieceBytes; // bytes of one outer slice of each piece
  for (const Shape &shape : pieceShapes)
    pieceBytes.push_back(shape[axis] * inner * static_cast<int64_t>(width));
  int64_t wholeBytes = whole.shape[axis] * inner * static_cast<int64_t>(width);
  return [=](std::span<const void *const> inputs, std::span<void *const> outputs,
             ThreadPool &pool) {
    pool.parallelFor(outer, std::max<int64_t>(1, 65536 / std::max<int64_t>(wholeBytes, 1)),
                     [&](int64_t begin, int64_t end) {
                       for (int64_t o = begin; o < end; ++o) {
                         int64_t position = o * wholeBytes;
                         for (size_t piece = 0; piece < pieceBytes.size(); ++piece) {
                           int64_t bytes = pieceBytes[piece];
                           if (bytes == 0)
                             continue;
                           if (join)
                             std::memcpy(static_cast<char *>(outputs[0]) + position,
                                         static_cast<const char *>(inputs[piece]) + o * bytes,
                                         bytes);
                           else
                             std::memcpy(static_cast<char *>(outputs[piece]) + o * bytes,
                                         static_cast<const char *>(inputs[0]) + position, bytes);
                           position += bytes;
                         }
                       }
                     });
  };
}

static llvm::Expected<KernelFn> buildGather(GatherOp gather, const TensorInfo &data,
                                            const TensorInfo &indices) {
  if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
    return unimplementedElementType(gather, indices.dtype);
  int64_t axis = normalizeAxis(static_cast<int64_t>(gather.getAxis()), data.getRank());
  int64_t outer = getNumElements(llvm::ArrayRef(data.shape).take_front(axis));
  int64_t inner = getNumElements(llvm::ArrayRef(data.shape).drop_front(axis + 1));
  int64_t axisSize = data.shape[axis];
  int64_t indexCount = indices.getNumElements();
  bool wideIndices = indices.dtype == DType::I64;
  size_t width = getByteWidth(data.dtype);
  return KernelFn([=](std::span<const void *const> inputs, std::span<void *const> outputs,
                      ThreadPool &pool) {
    const char *source = static_cast<const char *>(inputs[0]);
    char *out = static_cast<char *>(outputs[0]);
    size_t blockBytes = inner * width;
    pool.parallelFor(outer * indexCount,
                     std::max<int64_t>(1, 65536 / std::max<int64_t>(blockBytes, 1)),
                     [&](int64_t begin, int64_t end) {
                       for (int64_t task = begin; task < end; ++task) {
                         int64_t o = task / indexCount, i = task % indexCount;
                         int64_t index = wideIndices ? static_cast<const int64_t *>(inputs[1])[i]
                                                     : static_cast<const int32_t *>(inputs[1])[i];
                         if (index < 0)
                           index += axisSize;
                         char *destination = out + task * blockBytes;
                         // Out-of-range indices (undefined in ONNX) read zeros.
                         if (index < 0 || index >= axisSize)
                           std::memset(destination, 0, blockBytes);
                         else
                           std::memcpy(destination,
                                       source + ((o * axisSize + index) * inner) * width,
                                       blockBytes);
                       }
                     });
  });
}

static KernelFn buildPad(PadOp pad, const TensorInfo &input, const TensorInfo &output) {
  int64_t rank = input.getRank();
  llvm::SmallVector<int64_t> startPadding = pad.getStartPadding();
  llvm::StringRef mode = pad.getMode();
  // map[d][o]: the input index output index o of dimension d reads, or -1
  // for the constant value.
  auto maps = std::make_shared<std::vector<std::vector<int64_t>>>(rank);
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t size = input.shape[dim];
    int64_t start = startPadding.empty() ? 0 : startPadding[dim];
    for (int64_t o = 0; o < output.shape[dim]; ++o) {
      int64_t coordinate = o - start;
      if (mode == "reflect") {
        if (coordinate < 0)
          coordinate = -coordinate;
        if (coordinate >= size)
          coordinate = 2 * (size - 1) - coordinate;
      } else if (mode == "edge") {
        coordinate = std::clamp<int64_t>(coordinate, 0, size - 1);
      } else if (coordinate < 0 || coordinate >= size) {
        coordinate = -1;
      }
      (*maps)[dim].push_back(coordinate);
    }
  }
  Shape inputStrides = getStrides(input.shape);
  Shape outputShape = output.shape;
  double value = pad.getValue().convertToDouble();
  return visitDType(input.dtype, [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    T fill = castElement<T>(value);
    return [=](std::span<const void *const> inputs, std::span<void *const> outputs,
               ThreadPool &pool) {
      const T *in = static_cast<const T *>(inputs[0]);
      T *out = static_cast<T *>(outputs[0]);
      int64_t count = getNumElements(outputShape);
      if (count == 0)
        return;
      int64_t inner = rank ? outputShape.back() : 1;
      const std::vector<int64_t> *innerMap = rank ? &(*maps)[rank - 1] : nullptr;
      pool.parallelFor(count / inner, std::max<int64_t>(1, 16384 / inner),
                       [&](int64_t begin, int64_t end) {
                         for (int64_t row = begin; row < end; ++row) {
                           int64_t offset = 0, rest = row;
                           bool inside = true;
                           for (int64_t dim = rank - 2; dim >= 0; --dim) {
                             int64_t coordinate = (*maps)[dim][rest % outputShape[dim]];
                             rest /= outputShape[dim];
                             inside = inside && coordinate >= 0;
                             offset += coordinate * inputStrides[dim];
                           }
                           T *o = out + row * inner;
                           if (!inside) {
                             std::fill(o, o + inner, fill);
                             continue;
                           }
                           if (!innerMap) {
                             o[0] = in[0];
                             continue;
                           }
                           for (int64_t index = 0; index < inner; ++index) {
                             int64_t coordinate = (*innerMap)[index];
                             o[index] = coordinate < 0 ? fill : in[offset + coordinate];
                           }
                         }
                       });
    };
  });
}

llvm::Expected<KernelFn> buildShapeKernel(mlir::Operation *op) {
  auto input = getTensorInfo(op, op->getOperand(0));
  if (!input)
    return input.takeError();
  auto output = getTensorInfo(op, op->getResult(0));
  if (!output)
    return output.takeError();
  using R = llvm::Expected<KernelFn>;
  return llvm::TypeSwitch<mlir::Operation *, R>(op)
      .Case([&](SliceOp slice) -> R { return buildSlice(slice, *input, *output); })
      .Case([&](TransposeOp transpose) -> R { return buildTranspose(transpose, *input, *output); })
      .Case([&](ExpandOp) -> R { return buildExpand(*input, *output); })
      .Case([&](ReshapeOp) -> R { return buildReshape(*input); })
      .Case([&](PadOp pad) -> R { return buildPad(pad, *input, *output); })
      .Case([&](GatherOp gather) -> R {
        auto indices = getTensorInfo(op, gather.getIndices());
        if (!indices)
          return indices.takeError();
        return buildGather(gather, *input, *indices);
      })
      .Case([&](ConcatOp concat) -> R {
        llvm::SmallVector<Shape> pieces;
        for (mlir::Value value : concat.getInputs())
          pieces.push_back(Shape(llvm::cast<TensorType>(value.getType()).getShape()));
        int64_t axis = normalizeAxis(static_cast<int64_t>(concat.getAxis()), output->getRank());
        return buildConcatOrSplit(*output, pieces, axis, /*join=*/true);
      })
      .Case([&](SplitOp split) -> R {
        llvm::SmallVector<Shape> pieces;
        for (mlir::Value value : split.getOutputs())
          pieces.push_back(Shape(llvm::cast<TensorType>(value.getType()).getShape()));
        int64_t axis = normalizeAxis(static_cast<int64_t>(split.getAxis()), input->getRank());
        return buildConcatOrSplit(*input, pieces, axis, /*join=*/false);
      })
      .Default([&](mlir::Operation *) -> R { return makeKernelError(op, "is not a shape layer"); });
}

} // namespace cgc::cpu
