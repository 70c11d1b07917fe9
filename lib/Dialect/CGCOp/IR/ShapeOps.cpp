//===- ShapeOps.cpp - inference of data movement and resampling layers ----===//

#include "ShapeInference.h"

#include "cgc/Dialect/CGCOp/IR/TransposePermutation.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace cgc::op {

LogicalResult ConcatOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                         SmallVectorImpl<Type> &resultTypes) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitError() << "expects at least one input";
  auto firstType = getTensorType(inputs.front(), "input 0", emitError);
  if (failed(firstType))
    return failure();
  auto axis = normalizeAxis(adaptor.getAxis(), firstType->getRank(), "axis",
                            emitError);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(firstType->getShape());
  for (auto [index, input] : llvm::enumerate(inputs.drop_front())) {
    std::string name = "input " + std::to_string(index + 1);
    auto type = getTensorType(input, name, emitError);
    if (failed(type) ||
        failed(checkSameElementType(*type, name, *firstType, "input 0", emitError)))
      return failure();
    if (type->getRank() != firstType->getRank())
      return emitError() << name << " has rank " << type->getRank()
                         << " but input 0 has rank " << firstType->getRank();
    for (auto [dimension, size] : llvm::enumerate(type->getShape())) {
      if (static_cast<int64_t>(dimension) == *axis)
        shape[dimension] += size;
      else if (size != shape[dimension])
        return emitError() << name << " dimension " << dimension << " is " << size
                           << " but input 0 has " << shape[dimension]
                           << " (only axis " << *axis << " may differ)";
    }
  }
  resultTypes.push_back(getResultType(shape, firstType->getElementType()));
  return success();
}

LogicalResult SplitOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                        SmallVectorImpl<Type> &resultTypes) {
  auto inputType = getTensorType(adaptor.getInput(), "input", emitError);
  if (failed(inputType))
    return failure();
  auto axis = normalizeAxis(adaptor.getAxis(), inputType->getRank(), "axis",
                            emitError);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> sizes = adaptor.getSizes();
  if (sizes.empty())
    return emitError() << "sizes must not be empty";
  if (llvm::any_of(sizes, [](int64_t size) { return size < 0; }))
    return emitError() << "sizes must be non-negative, got [" << sizes << "]";
  int64_t total = 0;
  for (int64_t size : sizes)
    total += size;
  int64_t dimensionSize = inputType->getShape()[*axis];
  if (total != dimensionSize)
    return emitError() << "sizes [" << sizes << "] add up to " << total
                       << " but dimension " << *axis << " has size "
                       << dimensionSize;
  SmallVector<int64_t> shape(inputType->getShape());
  for (int64_t size : sizes) {
    shape[*axis] = size;
    resultTypes.push_back(getResultType(shape, inputType->getElementType()));
  }
  return success();
}

/// The number of elements ONNX Slice takes from a dimension of `size`:
/// negative bounds count from the back, then clamp to the dimension.
static int64_t getSliceSize(int64_t start, int64_t end, int64_t step,
                            int64_t size) {
  if (size == 0)
    return 0;
  if (start < 0)
    start += size;
  if (end < 0)
    end += size;
  // Unsigned arithmetic: the magnitude of any int64 step, INT64_MIN included.
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, 0, size);
    return end > start ? llvm::divideCeil(uint64_t(end - start), uint64_t(step)) : 0;
  }
  start = std::clamp<int64_t>(start, 0, size - 1);
  end = std::clamp<int64_t>(end, -1, size - 1);
  return start > end ? llvm::divideCeil(uint64_t(start - end), 0 - uint64_t(step))
                     : 0;
}

LogicalResult SliceOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                        SmallVectorImpl<Type> &resultTypes) {
  auto inputType = getTensorType(adaptor.getInput(), "input", emitError);
  if (failed(inputType))
    return failure();
  SmallVector<int64_t> starts = adaptor.getStarts();
  SmallVector<int64_t> ends = adaptor.getEnds();
  if (starts.size() != ends.size())
    return emitError() << "starts has " << starts.size() << " entries but ends has "
                       << ends.size();
  int64_t count = starts.size();
  constexpr StringLiteral kSliced = "sliced axis";
  SmallVector<int64_t> defaultAxes = llvm::to_vector(llvm::seq<int64_t>(0, count));
  SmallVector<int64_t> axesAttr = adaptor.getAxes();
  auto axes = getPerDimensionList(axesAttr.empty() ? defaultAxes : axesAttr, "axes",
                                  count, kSliced, 0,
                                  std::numeric_limits<int64_t>::min(), emitError);
  if (failed(axes))
    return failure();
  auto steps = getPerDimensionList(adaptor.getSteps(), "steps", count, kSliced, 1,
                                   std::numeric_limits<int64_t>::min(), emitError);
  if (failed(steps))
    return failure();

  int64_t rank = inputType->getRank();
  SmallVector<int64_t> shape(inputType->getShape());
  llvm::SmallBitVector sliced(rank);
  for (int64_t index = 0; index < count; ++index) {
    auto axis = normalizeAxis((*axes)[index], rank, "axes entry", emitError);
    if (failed(axis))
      return failure();
    if (sliced.test(*axis))
      return emitError() << "axes [" << *axes << "] name dimension " << *axis
                         << " more than once";
    sliced.set(*axis);
    int64_t step = (*steps)[index];
    if (step == 0)
      return emitError() << "steps must not be 0, got [" << *steps << "]";
    shape[*axis] = getSliceSize(starts[index], ends[index], step, shape[*axis]);
  }
  resultTypes.push_back(getResultType(shape, inputType->getElementType()));
  return success();
}

LogicalResult GatherOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                         SmallVectorImpl<Type> &resultTypes) {
  auto dataType = getTensorType(adaptor.getData(), "data", emitError);
  auto indicesType = getTensorType(adaptor.getIndices(), "indices", emitError);
  if (failed(dataType) || failed(indicesType) ||
      failed(checkMinRank(*dataType, "data", 1, "a tensor with dimensions",
                          emitError)))
    return failure();
  auto axis = normalizeAxis(adaptor.getAxis(), dataType->getRank(), "axis",
                            emitError);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> dataShape = dataType->getShape();
  SmallVector<int64_t> shape(dataShape.take_front(*axis));
  llvm::append_range(shape, indicesType->getShape());
  llvm::append_range(shape, dataShape.drop_front(*axis + 1));
  resultTypes.push_back(getResultType(shape, dataType->getElementType()));
  return success();
}

LogicalResult PadOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                      SmallVectorImpl<Type> &resultTypes) {
  auto inputType = getTensorType(adaptor.getInput(), "input", emitError);
  if (failed(inputType))
    return failure();
  StringRef mode = adaptor.getMode();
  if (failed(checkOneOf(mode, "mode", {"constant", "reflect", "edge"}, emitError)))
    return failure();
  int64_t rank = inputType->getRank();
  constexpr int64_t kAnyAmount = std::numeric_limits<int64_t>::min();
  auto startPadding = getPerDimensionList(adaptor.getStartPadding(), "start_padding",
                                          rank, "dimension", 0, kAnyAmount, emitError);
  if (failed(startPadding))
    return failure();
  auto endPadding = getPerDimensionList(adaptor.getEndPadding(), "end_padding", rank,
                                        "dimension", 0, kAnyAmount, emitError);
  if (failed(endPadding))
    return failure();

  SmallVector<int64_t> shape;
  for (auto [index, size] : llvm::enumerate(inputType->getShape())) {
    int64_t start = (*startPadding)[index];
    int64_t end = (*endPadding)[index];
    int64_t largest = std::max(start, end);
    if (mode == "reflect" && largest >= size)
      return emitError() << "reflect padding " << largest << " of dimension "
                         << index << " must be smaller than its size " << size;
    if (mode == "edge" && largest > 0 && size == 0)
      return emitError() << "edge padding of dimension " << index
                         << " needs a non-empty dimension";
    int64_t paddedSize = size + start + end;
    if (paddedSize < 0)
      return emitError() << "dimension " << index << " of size " << size
                         << " would have size " << paddedSize
                         << " after start_padding " << start << " and end_padding "
                         << end;
    shape.push_back(paddedSize);
  }
  resultTypes.push_back(getResultType(shape, inputType->getElementType()));
  return success();
}

LogicalResult ReshapeOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                          SmallVectorImpl<Type> &resultTypes) {
  auto inputType = getTensorType(adaptor.getInput(), "input", emitError);
  if (failed(inputType))
    return failure();
  SmallVector<int64_t> shape = adaptor.getShape();
  if (llvm::any_of(shape, [](int64_t size) { return size < 0; }))
    return emitError() << "shape must be fully resolved (no negative sizes), got ["
                       << shape << "]";
  int64_t count = 1;
  for (int64_t size : shape)
    if (llvm::MulOverflow(count, size, count))
      return emitError() << "shape [" << shape << "] holds more than 2^63 elements";
  if (count != inputType->getNumElements())
    return emitError() << "shape [" << shape << "] holds " << count
                       << " elements but the input [" << inputType->getShape()
                       << "] holds " << inputType->getNumElements();
  resultTypes.push_back(getResultType(shape, inputType->getElementType()));
  return success();
}

LogicalResult TransposeOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                            SmallVectorImpl<Type> &resultTypes) {
  auto inputType = getTensorType(adaptor.getInput(), "input", emitError);
  if (failed(inputType))
    return failure();
  int64_t rank = inputType->getRank();
  SmallVector<int64_t> permutation = getTransposePermutation(adaptor.getPermutation(), rank);
  llvm::SmallBitVector seen(rank);
  bool isPermutation = static_cast<int64_t>(permutation.size()) == rank;
  for (int64_t dimension : permutation) {
    isPermutation = isPermutation && dimension >= 0 && dimension < rank &&
                    !seen.test(dimension);
    if (!isPermutation)
      break;
    seen.set(dimension);
  }
  if (!isPermutation)
    return emitError() << "permutation [" << permutation
                       << "] is not a permutation of the " << rank
                       << " input dimensions";
  ArrayRef<int64_t> inputShape = inputType->getShape();
  SmallVector<int64_t> shape = llvm::map_to_vector(
      permutation, [&](int64_t dimension) { return inputShape[dimension]; });
  resultTypes.push_back(getResultType(shape, inputType->getElementType()));
  return success();
}

LogicalResult ExpandOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                         SmallVectorImpl<Type> &resultTypes) {
  auto inputType = getTensorType(adaptor.getInput(), "input", emitError);
  if (failed(inputType))
    return failure();
  SmallVector<int64_t> target = adaptor.getShape();
  if (llvm::any_of(target, [](int64_t size) { return size < 0; }))
    return emitError() << "shape must be non-negative, got [" << target << "]";
  auto shape = broadcastShapes(inputType->getShape(), "input", target, "target",
                               emitError);
  if (failed(shape))
    return failure();
  resultTypes.push_back(getResultType(*shape, inputType->getElementType()));
  return success();
}

LogicalResult UpsampleOp::inferResultTypes(Adaptor adaptor, EmitErrorFn emitError,
                                           SmallVectorImpl<Type> &resultTypes) {
  auto inputType = getTensorType(adaptor.getInput(), "input", emitError);
  if (failed(inputType) ||
      failed(checkOneOf(adaptor.getMode(), "mode", {"nearest", "linear", "cubic"},
                        emitError)) ||
      failed(checkOneOf(adaptor.getCoordinateTransformationMode(),
                        "coordinate_transformation_mode",
                        {"half_pixel", "asymmetric", "align_corners",
                         "pytorch_half_pixel", "half_pixel_symmetric",
                         "tf_half_pixel_for_nn", "tf_crop_and_resize"},
                        emitError)) ||
      failed(checkOneOf(adaptor.getNearestMode(), "nearest_mode",
                        {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
                        emitError)))
    return failure();
  if (adaptor.getMode() != "nearest" &&
      !isFloatElementType(inputType->getElementType()))
    return emitError() << "mode \"" << adaptor.getMode()
                       << "\" needs floating-point data, got "
                       << inputType->getElementType();
  SmallVector<double> roi = adaptor.getRoi();
  bool crops = adaptor.getCoordinateTransformationMode() == "tf_crop_and_resize";
  if (crops && static_cast<int64_t>(roi.size()) != 2 * inputType->getRank())
    return emitError() << "coordinate_transformation_mode \"tf_crop_and_resize\" needs a "
                          "roi of 2 x rank = "
                       << 2 * inputType->getRank() << " values, got " << roi.size();
  if (!crops && !roi.empty())
    return emitError() << "roi applies to coordinate_transformation_mode "
                          "\"tf_crop_and_resize\" only";
  if (llvm::any_of(roi, [](double value) { return !std::isfinite(value); }))
    return emitError() << "roi must be finite, got [" << roi << "]";

  SmallVector<double> scales = adaptor.getScales();
  SmallVector<int64_t> sizes = adaptor.getSizes();
  if (scales.empty() == sizes.empty())
    return emitError() << "expects exactly one of scales and sizes";
  int64_t rank = inputType->getRank();
  ArrayRef<int64_t> inputShape = inputType->getShape();
  SmallVector<int64_t> shape;
  if (!sizes.empty()) {
    auto outputSizes = getPerDimensionList(sizes, "sizes", rank, "dimension", 1, 1,
                                           emitError);
    if (failed(outputSizes))
      return failure();
    shape = std::move(*outputSizes);
  } else {
    if (static_cast<int64_t>(scales.size()) != rank)
      return emitError() << "scales must have one entry per dimension (" << rank
                         << "), got " << scales.size() << ": [" << scales << "]";
    for (auto [index, scale] : llvm::enumerate(scales)) {
      if (!(scale > 0.0) || !std::isfinite(scale))
        return emitError() << "scales must be positive and finite, got " << scale
                           << " for dimension " << index;
      auto size = static_cast<int64_t>(
          std::floor(static_cast<double>(inputShape[index]) * scale));
      if (size < 1)
        return emitError() << "scale " << scale << " turns dimension " << index
                           << " of size " << inputShape[index] << " into "
                           << size << " elements";
      shape.push_back(size);
    }
  }
  resultTypes.push_back(getResultType(shape, inputType->getElementType()));
  return success();
}

SmallVector<int64_t> getTransposePermutation(ArrayRef<int64_t> permutation, int64_t rank) {
  if (!permutation.empty())
    return SmallVector<int64_t>(permutation);
  return llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
}

SmallVector<int64_t> getTransposePermutation(TransposeOp transpose) {
  return getTransposePermutation(transpose.getPermutation(),
                                 cast<TensorType>(transpose.getInput().getType()).getRank());
}

} // namespace cgc::op
