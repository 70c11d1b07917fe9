//===- ShapeOps.cpp - reshapes, slicing, gathering, padding, resizing -----===//
//
// Ops that move or select data. Their shape operands (Reshape's shape,
// Slice's starts, Expand's shape, ...) must be known at import: constants or
// results of folded shape computations. Shape, Size, ConstantOfShape, Range,
// EyeLike and Constant always produce known data.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "onnx/onnx_pb.h"

#include <cmath>
#include <numeric>

namespace cgc::importer {

using namespace cgc::op;

//===----------------------------------------------------------------------===//
// Shared shape rules
//===----------------------------------------------------------------------===//

namespace {

int64_t product(llvm::ArrayRef<int64_t> values) {
  return std::accumulate(values.begin(), values.end(), int64_t(1), std::multiplies<>());
}

llvm::Expected<std::vector<int64_t>> getReshapeShape(const NodeContext &node,
                                                     llvm::ArrayRef<int64_t> inputShape) {
  llvm::Expected<const Literal *> shapeLiteral = node.requireLiteral(1, "shape");
  if (!shapeLiteral)
    return shapeLiteral.takeError();
  if ((*shapeLiteral)->getShape().size() != 1)
    return node.error("shape must be 1-D, got " + formatShape((*shapeLiteral)->getShape()));
  llvm::Expected<int64_t> allowZero = node.getInt("allowzero", 0);
  if (!allowZero)
    return allowZero.takeError();
  std::vector<int64_t> shape = (*shapeLiteral)->getInts();
  std::optional<size_t> inferred;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !*allowZero) {
      if (i >= inputShape.size())
        return node.error("shape " + formatShape(shape) + " copies dimension " + llvm::Twine(i) +
                          " (0), which input " + formatShape(inputShape) + " does not have");
      shape[i] = inputShape[i];
    } else if (shape[i] == -1) {
      if (inferred)
        return node.error("shape " + formatShape(shape) + " has more than one -1");
      inferred = i;
    } else if (shape[i] < 0) {
      return node.error("shape has the invalid dimension " + llvm::Twine(shape[i]));
    }
  }
  std::optional<uint64_t> inputCount = getElementCount(inputShape);
  if (inferred) {
    shape[*inferred] = 1;
    std::optional<uint64_t> known = getElementCount(shape);
    if (!known || !inputCount || *known == 0 || *inputCount % *known)
      return node.error("cannot reshape " + formatShape(inputShape) + " to " +
                        formatShape(shape) + " with dimension " + llvm::Twine(*inferred) +
                        " inferred");
    shape[*inferred] = static_cast<int64_t>(*inputCount / *known);
  }
  std::optional<uint64_t> count = getElementCount(shape);
  if (!count || !inputCount || *count != *inputCount)
    return node.error("cannot reshape " + formatShape(inputShape) + " (" +
                      llvm::Twine(inputCount.value_or(0)) + " elements) to " + formatShape(shape));
  return shape;
}

} // namespace

llvm::Expected<std::vector<int64_t>> getReshapeResult(const NodeContext &node,
                                                      llvm::ArrayRef<int64_t> inputShape) {
  llvm::StringRef op = node.node.op_type();
  int64_t rank = inputShape.size();
  if (op == "Reshape")
    return getReshapeShape(node, inputShape);
  if (op == "Flatten") {
    llvm::Expected<int64_t> axisAttribute = node.getInt("axis", 1);
    if (!axisAttribute)
      return axisAttribute.takeError();
    int64_t axis = *axisAttribute < 0 ? *axisAttribute + rank : *axisAttribute;
    if (axis < 0 || axis > rank)
      return node.error("axis " + llvm::Twine(*axisAttribute) + " is out of range for rank " +
                        llvm::Twine(rank));
    return std::vector<int64_t>{product(inputShape.take_front(axis)),
                                product(inputShape.drop_front(axis))};
  }
  if (op == "Squeeze") {
    llvm::Expected<std::optional<std::vector<int64_t>>> axes = getAxesOperand(node, 13);
    if (!axes)
      return axes.takeError();
    std::vector<bool> squeezed(rank, false);
    if (!*axes) {
      for (int64_t i = 0; i < rank; ++i)
        squeezed[i] = inputShape[i] == 1;
    } else {
      for (int64_t axis : **axes) {
        llvm::Expected<int64_t> normalized = normalizeAxis(node, axis, rank);
        if (!normalized)
          return normalized.takeError();
        if (inputShape[*normalized] != 1)
          return node.error("cannot squeeze dimension " + llvm::Twine(*normalized) + " of " +
                            formatShape(inputShape) + ": it is not 1");
        squeezed[*normalized] = true;
      }
    }
    std::vector<int64_t> shape;
    for (int64_t i = 0; i < rank; ++i)
      if (!squeezed[i])
        shape.push_back(inputShape[i]);
    return shape;
  }
  if (op == "Unsqueeze") {
    llvm::Expected<std::optional<std::vector<int64_t>>> axes = getAxesOperand(node, 13);
    if (!axes)
      return axes.takeError();
    if (!*axes)
      return node.error("axes are missing");
    int64_t outputRank = rank + (*axes)->size();
    std::vector<bool> inserted(outputRank, false);
    for (int64_t axis : **axes) {
      llvm::Expected<int64_t> normalized = normalizeAxis(node, axis, outputRank);
      if (!normalized)
        return normalized.takeError();
      if (inserted[*normalized])
        return node.error("axis " + llvm::Twine(axis) + " is given twice");
      inserted[*normalized] = true;
    }
    std::vector<int64_t> shape;
    size_t next = 0;
    for (int64_t i = 0; i < outputRank; ++i)
      shape.push_back(inserted[i] ? 1 : inputShape[next++]);
    return shape;
  }
  return node.error("internal: not a reshaping op");
}

std::pair<int64_t, int64_t> resolveSliceDimension(int64_t dim, int64_t start, int64_t end,
                                                  int64_t step) {
  auto clamp = [&](int64_t value, int64_t low, int64_t high) {
    if (value < 0)
      value = value < -dim ? -dim - 1 : value + dim;
    if (value < 0 && low == 0)
      value = 0;
    return std::clamp(value, low, high);
  };
  if (step > 0) {
    int64_t first = clamp(start, 0, dim), last = clamp(end, 0, dim);
    return {first, last > first ? (last - first + step - 1) / step : 0};
  }
  int64_t first = clamp(start, -1, dim - 1), last = clamp(end, -1, dim - 1);
  return {first, first > last ? (first - last + (-step) - 1) / (-step) : 0};
}

llvm::Expected<SliceParameters> getSliceParameters(const NodeContext &node, int64_t rank) {
  std::vector<int64_t> starts, ends;
  std::optional<std::vector<int64_t>> axes, steps;
  if (node.opset < 10) {
    llvm::Expected<std::optional<std::vector<int64_t>>> startsAttribute = node.getInts("starts");
    if (!startsAttribute)
      return startsAttribute.takeError();
    llvm::Expected<std::optional<std::vector<int64_t>>> endsAttribute = node.getInts("ends");
    if (!endsAttribute)
      return endsAttribute.takeError();
    llvm::Expected<std::optional<std::vector<int64_t>>> axesAttribute = node.getInts("axes");
    if (!axesAttribute)
      return axesAttribute.takeError();
    if (!*startsAttribute || !*endsAttribute)
      return node.error("attributes 'starts' and 'ends' are required");
    starts = **startsAttribute;
    ends = **endsAttribute;
    axes = *axesAttribute;
  } else {
    const char *names[] = {"starts", "ends", "axes", "steps"};
    std::vector<int64_t> *lists[] = {&starts, &ends, nullptr, nullptr};
    for (unsigned i = 1; i <= 4; ++i) {
      if (!node.hasInput(i)) {
        if (i <= 2)
          return node.error(llvm::Twine(names[i - 1]) + " (input " + llvm::Twine(i) +
                            ") is missing");
        continue;
      }
      llvm::Expected<const Literal *> literal = node.requireLiteral(i, names[i - 1]);
      if (!literal)
        return literal.takeError();
      std::vector<int64_t> values = (*literal)->getInts();
      if (i <= 2)
        *lists[i - 1] = std::move(values);
      else
        (i == 3 ? axes : steps) = std::move(values);
    }
  }
  size_t count = starts.size();
  if (ends.size() != count || (axes && axes->size() != count) || (steps && steps->size() != count))
    return node.error("starts, ends, axes and steps must have the same length");
  SliceParameters parameters;
  parameters.starts = starts;
  parameters.ends = ends;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < count; ++i) {
    int64_t axis = axes ? (*axes)[i] : static_cast<int64_t>(i);
    llvm::Expected<int64_t> normalized = normalizeAxis(node, axis, rank);
    if (!normalized)
      return normalized.takeError();
    if (seen[*normalized])
      return node.error("axis " + llvm::Twine(axis) + " is sliced twice");
    seen[*normalized] = true;
    parameters.axes.push_back(*normalized);
    int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0)
      return node.error("steps must not be 0");
    parameters.steps.push_back(step);
  }
  return parameters;
}

namespace {

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

llvm::Error convertReshapeLike(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::Expected<std::vector<int64_t>> shape =
      getReshapeResult(node, getTensorType(input).getShape());
  if (!shape)
    return shape.takeError();
  return e.finish(0, e.emit<ReshapeOp>({input}, {node.namedI64s("shape", *shape)}));
}

llvm::Error convertTranspose(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::Expected<std::optional<std::vector<int64_t>>> perm = node.getInts("perm");
  if (!perm)
    return perm.takeError();
  std::vector<int64_t> permutation = perm->value_or(std::vector<int64_t>());
  if (permutation.empty()) {
    int64_t rank = getTensorType(input).getRank();
    for (int64_t i = rank - 1; i >= 0; --i)
      permutation.push_back(i);
  }
  // A permutation that only moves dimensions of size 1 keeps every element
  // where it is: it is a reshape, which costs nothing (torch's
  // MultiheadAttention swaps batch and sequence this way at batch 1).
  llvm::ArrayRef<int64_t> shape = getTensorType(input).getShape();
  if (permutation.size() == shape.size() &&
      llvm::all_of(permutation, [&](int64_t axis) {
        return axis >= 0 && axis < static_cast<int64_t>(shape.size());
      })) {
    std::vector<int64_t> permuted, permutedShape;
    for (int64_t axis : permutation) {
      permutedShape.push_back(shape[axis]);
      if (shape[axis] != 1)
        permuted.push_back(axis);
    }
    if (llvm::is_sorted(permuted) && llvm::all_of(shape, [](int64_t size) { return size >= 0; }))
      return e.finish(0, e.emit<ReshapeOp>({input}, {node.namedI64s("shape", permutedShape)}));
  }
  return e.finish(0, e.emit<TransposeOp>({input}, {node.namedI64s("permutation", permutation)}));
}

llvm::Error convertConcat(NodeContext &node) {
  llvm::Expected<std::optional<int64_t>> axis = node.getOptionalInt("axis");
  if (!axis)
    return axis.takeError();
  if (!*axis)
    return node.error("attribute 'axis' is missing");
  LayerEmitter e(node);
  llvm::SmallVector<mlir::Value> inputs;
  for (unsigned i = 0; i < node.getNumInputs(); ++i)
    if (node.hasInput(i))
      inputs.push_back(e.input(i));
  if (inputs.empty())
    return node.error("needs at least one input");
  return e.finish(0, e.emit<ConcatOp>(inputs, {node.namedI64("axis", **axis)}));
}

llvm::Error convertSplit(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::ArrayRef<int64_t> shape = getTensorType(input).getShape();
  llvm::Expected<int64_t> axisAttribute = node.getInt("axis", 0);
  if (!axisAttribute)
    return axisAttribute.takeError();
  llvm::Expected<int64_t> axis = normalizeAxis(node, *axisAttribute, shape.size());
  if (!axis)
    return axis.takeError();
  int64_t dim = shape[*axis];
  int64_t numOutputs = node.getNumOutputs();
  std::vector<int64_t> sizes;
  if (node.opset < 13) {
    llvm::Expected<std::optional<std::vector<int64_t>>> split = node.getInts("split");
    if (!split)
      return split.takeError();
    if (*split)
      sizes = **split;
  } else if (node.hasInput(1)) {
    llvm::Expected<const Literal *> split = node.requireLiteral(1, "split");
    if (!split)
      return split.takeError();
    sizes = (*split)->getInts();
  }
  if (sizes.empty()) {
    if (numOutputs == 0)
      return node.error("has no outputs");
    // Opset 18's num_outputs: equal parts, the last one smaller if needed.
    int64_t part = (dim + numOutputs - 1) / numOutputs;
    if (node.opset < 18 && dim % numOutputs)
      return node.error("cannot split dimension " + llvm::Twine(dim) + " into " +
                        llvm::Twine(numOutputs) + " equal parts");
    for (int64_t i = 0; i < numOutputs; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(part, dim - i * part)));
  }
  if (static_cast<int64_t>(sizes.size()) != numOutputs)
    return node.error("split has " + llvm::Twine(sizes.size()) + " sizes for " +
                      llvm::Twine(numOutputs) + " outputs");
  llvm::Expected<mlir::Operation *> op = node.createOperation<SplitOp>(
      {input}, {node.namedI64("axis", *axis), node.namedI64s("sizes", sizes)});
  if (!op)
    return op.takeError();
  for (unsigned i = 0; i < (*op)->getNumResults(); ++i)
    node.setOutput(i, (*op)->getResult(i));
  return llvm::Error::success();
}

llvm::Error convertSlice(NodeContext &node) {
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::Expected<SliceParameters> parameters =
      getSliceParameters(node, getTensorType(input).getRank());
  if (!parameters)
    return parameters.takeError();
  return e.finish(0, e.emit<SliceOp>({input}, {node.namedI64s("starts", parameters->starts),
                                               node.namedI64s("ends", parameters->ends),
                                               node.namedI64s("axes", parameters->axes),
                                               node.namedI64s("steps", parameters->steps)}));
}

llvm::Error convertGather(NodeContext &node) {
  llvm::Expected<int64_t> axis = node.getInt("axis", 0);
  if (!axis)
    return axis.takeError();
  // Constant indices are checked here: ONNX makes an index outside
  // [-dim, dim) an error, where cgc_op.gather's kernels would read zeros.
  const Literal *indices = node.getLiteral(1);
  std::vector<int64_t> shape = node.getInputShape(0);
  if (indices && !indices->isFloat() && !shape.empty()) {
    llvm::Expected<int64_t> normalized =
        normalizeAxis(node, *axis, static_cast<int64_t>(shape.size()));
    if (!normalized)
      return normalized.takeError();
    int64_t dim = shape[*normalized];
    for (int64_t position : indices->getInts())
      if (position < -dim || position >= dim)
        return node.error("index " + llvm::Twine(position) + " is out of range for dimension " +
                          llvm::Twine(dim) + " (axis " + llvm::Twine(*normalized) + ")");
  }
  LayerEmitter e(node);
  return e.finish(0, e.emit<GatherOp>({e.input(0), e.input(1)}, {node.namedI64("axis", *axis)}));
}

llvm::Error convertExpand(NodeContext &node) {
  llvm::Expected<const Literal *> shape = node.requireLiteral(1, "shape");
  if (!shape)
    return shape.takeError();
  LayerEmitter e(node);
  return e.finish(0, e.emit<ExpandOp>({e.input(0)}, {node.namedI64s("shape", (*shape)->getInts())}));
}

llvm::Error convertPad(NodeContext &node) {
  llvm::Expected<std::string> mode = node.getString("mode", "constant");
  if (!mode)
    return mode.takeError();
  if (*mode != "constant" && *mode != "reflect" && *mode != "edge")
    return node.error("mode='" + *mode + "' is not implemented (constant, reflect, edge are)");
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  int64_t rank = getTensorType(input).getRank();
  std::vector<int64_t> pads;
  double value = 0;
  std::optional<std::vector<int64_t>> axes;
  if (node.opset < 11) {
    llvm::Expected<std::optional<std::vector<int64_t>>> padsAttribute = node.getInts("pads");
    if (!padsAttribute)
      return padsAttribute.takeError();
    if (!*padsAttribute)
      return node.error("attribute 'pads' is missing");
    pads = **padsAttribute;
    llvm::Expected<double> valueAttribute = node.getFloat("value", 0.0f);
    if (!valueAttribute)
      return valueAttribute.takeError();
    value = *valueAttribute;
  } else {
    llvm::Expected<const Literal *> padsLiteral = node.requireLiteral(1, "pads");
    if (!padsLiteral)
      return padsLiteral.takeError();
    pads = (*padsLiteral)->getInts();
    if (node.hasInput(2)) {
      llvm::Expected<const Literal *> constant = node.requireLiteral(2, "constant_value");
      if (!constant)
        return constant.takeError();
      if ((*constant)->getNumElements() != 1)
        return node.error("constant_value must hold one value");
      value = (*constant)->getDouble(0);
    }
    if (node.hasInput(3)) {
      llvm::Expected<const Literal *> axesLiteral = node.requireLiteral(3, "axes");
      if (!axesLiteral)
        return axesLiteral.takeError();
      axes = (*axesLiteral)->getInts();
    }
  }
  std::vector<int64_t> startPadding(rank, 0), endPadding(rank, 0);
  size_t count = axes ? axes->size() : rank;
  if (pads.size() != 2 * count)
    return node.error("pads has " + llvm::Twine(pads.size()) + " entries, expected " +
                      llvm::Twine(2 * count));
  for (size_t i = 0; i < count; ++i) {
    int64_t axis = static_cast<int64_t>(i);
    if (axes) {
      llvm::Expected<int64_t> normalized = normalizeAxis(node, (*axes)[i], rank);
      if (!normalized)
        return normalized.takeError();
      axis = *normalized;
    }
    startPadding[axis] = pads[i];
    endPadding[axis] = pads[count + i];
  }
  return e.finish(0, e.emit<PadOp>({input}, {node.namedI64s("start_padding", startPadding),
                                             node.namedI64s("end_padding", endPadding),
                                             node.namedString("mode", *mode),
                                             node.namedF64("value", value)}));
}

/// Tile: x of shape d repeated r times is x viewed as [1, d0, 1, d1, ...],
/// expanded to [r0, d0, r1, d1, ...] and viewed as [r0*d0, r1*d1, ...].
llvm::Error convertTile(NodeContext &node) {
  llvm::Expected<const Literal *> repeatsLiteral = node.requireLiteral(1, "repeats");
  if (!repeatsLiteral)
    return repeatsLiteral.takeError();
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::ArrayRef<int64_t> shape = getTensorType(input).getShape();
  std::vector<int64_t> repeats = (*repeatsLiteral)->getInts();
  if (repeats.size() != shape.size())
    return node.error("repeats has " + llvm::Twine(repeats.size()) + " entries for rank " +
                      llvm::Twine(shape.size()));
  std::vector<int64_t> interleaved, expanded, result;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (repeats[i] < 0)
      return node.error("repeats must not be negative");
    interleaved.insert(interleaved.end(), {1, shape[i]});
    expanded.insert(expanded.end(), {repeats[i], shape[i]});
    result.push_back(repeats[i] * shape[i]);
  }
  mlir::Value view = e.reshape(input, interleaved);
  return e.finish(0, e.reshape(e.emit<ExpandOp>({view}, {node.namedI64s("shape", expanded)}), result));
}

/// DepthToSpace and SpaceToDepth: a reshape, a transpose and a reshape.
llvm::Error convertDepthSpace(NodeContext &node, bool toSpace) {
  llvm::Expected<std::optional<int64_t>> blockSize = node.getOptionalInt("blocksize");
  if (!blockSize)
    return blockSize.takeError();
  if (!*blockSize || **blockSize <= 0)
    return node.error("attribute 'blocksize' must be a positive int");
  llvm::Expected<std::string> mode = node.getString("mode", "DCR");
  if (!mode)
    return mode.takeError();
  if (*mode != "DCR" && *mode != "CRD")
    return node.error("mode='" + *mode + "' is not a DepthToSpace mode");
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::ArrayRef<int64_t> shape = getTensorType(input).getShape();
  if (shape.size() != 4)
    return node.error("expects an N×C×H×W input, got " + formatShape(shape));
  int64_t b = **blockSize, n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  std::vector<int64_t> view, permutation, result;
  if (toSpace) {
    if (c % (b * b))
      return node.error("channels " + llvm::Twine(c) + " are not a multiple of blocksize^2");
    if (*mode == "DCR") {
      view = {n, b, b, c / (b * b), h, w};
      permutation = {0, 3, 4, 1, 5, 2};
    } else {
      view = {n, c / (b * b), b, b, h, w};
      permutation = {0, 1, 4, 2, 5, 3};
    }
    result = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b || w % b)
      return node.error("spatial size " + formatShape(shape.drop_front(2)) +
                        " is not a multiple of blocksize");
    view = {n, c, h / b, b, w / b, b};
    permutation = {0, 3, 5, 1, 2, 4};
    result = {n, c * b * b, h / b, w / b};
  }
  mlir::Value transposed = e.emit<TransposeOp>({e.reshape(input, view)},
                                               {node.namedI64s("permutation", permutation)});
  return e.finish(0, e.reshape(transposed, result));
}

/// Resize (opsets 10+) and Upsample (7, 9).
llvm::Error convertResize(NodeContext &node) {
  bool isUpsample = node.node.op_type() == "Upsample";
  bool legacy = isUpsample || node.opset < 11;
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::ArrayRef<int64_t> shape = getTensorType(input).getShape();
  int64_t rank = shape.size();

  llvm::Expected<std::string> mode = node.getString("mode", "nearest");
  if (!mode)
    return mode.takeError();
  if (*mode == "bilinear" && isUpsample)
    *mode = "linear";
  if (*mode != "nearest" && *mode != "linear" && (*mode != "cubic" || legacy))
    return node.error("mode='" + *mode + "' is not a mode of " + node.node.op_type() +
                      "-" + llvm::Twine(node.opset) + " (nearest, linear" +
                      (legacy ? ")" : ", cubic)"));
  std::string coordinates = "asymmetric", nearest = "floor";
  std::vector<double> scales, roi;
  llvm::SmallVector<mlir::NamedAttribute> extraAttributes;
  std::vector<int64_t> sizes;
  if (legacy) {
    if (isUpsample && node.opset < 9) {
      llvm::Expected<std::optional<std::vector<double>>> attribute = node.getFloats("scales");
      if (!attribute)
        return attribute.takeError();
      if (!*attribute)
        return node.error("attribute 'scales' is missing");
      scales.assign((*attribute)->begin(), (*attribute)->end());
    } else {
      llvm::Expected<const Literal *> literal = node.requireLiteral(1, "scales");
      if (!literal)
        return literal.takeError();
      for (uint64_t i = 0; i < (*literal)->getNumElements(); ++i)
        scales.push_back((*literal)->getDouble(i));
    }
  } else {
    llvm::Expected<std::string> transform =
        node.getString("coordinate_transformation_mode", "half_pixel");
    if (!transform)
      return transform.takeError();
    llvm::Expected<std::string> nearestMode = node.getString("nearest_mode", "round_prefer_floor");
    if (!nearestMode)
      return nearestMode.takeError();
    llvm::Expected<int64_t> antialias = node.getInt("antialias", 0);
    if (!antialias)
      return antialias.takeError();
    llvm::Expected<std::string> policy = node.getString("keep_aspect_ratio_policy", "stretch");
    if (!policy)
      return policy.takeError();
    llvm::Expected<std::optional<std::vector<int64_t>>> axesAttribute = node.getInts("axes");
    if (!axesAttribute)
      return axesAttribute.takeError();
    llvm::Expected<double> cubicCoefficient = node.getFloat("cubic_coeff_a", -0.75);
    if (!cubicCoefficient)
      return cubicCoefficient.takeError();
    llvm::Expected<int64_t> excludeOutside = node.getInt("exclude_outside", 0);
    if (!excludeOutside)
      return excludeOutside.takeError();
    llvm::Expected<double> extrapolation = node.getFloat("extrapolation_value", 0.0);
    if (!extrapolation)
      return extrapolation.takeError();
    if (*mode == "cubic") {
      extraAttributes.push_back(node.namedF64("cubic_coeff_a", *cubicCoefficient));
      extraAttributes.push_back(
          node.getBuilder().getNamedAttr("exclude_outside",
                                         node.getBuilder().getBoolAttr(*excludeOutside != 0)));
    }
    if (*transform == "tf_crop_and_resize")
      extraAttributes.push_back(node.namedF64("extrapolation_value", *extrapolation));
    if (*antialias)
      return node.error("antialias=1 is not implemented");
    coordinates = *transform;
    nearest = *nearestMode;
    std::vector<int64_t> axes;
    if (*axesAttribute) {
      for (int64_t axis : **axesAttribute) {
        llvm::Expected<int64_t> normalized = normalizeAxis(node, axis, rank);
        if (!normalized)
          return normalized.takeError();
        axes.push_back(*normalized);
      }
    } else {
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
    }
    auto given = [&](unsigned i) {
      const Literal *literal = node.getLiteral(i);
      return node.hasInput(i) && !(literal && literal->getNumElements() == 0);
    };
    // The region of tf_crop_and_resize: starts, then ends, of `axes`.
    if (*transform == "tf_crop_and_resize") {
      llvm::Expected<const Literal *> literal = node.requireLiteral(1, "roi");
      if (!literal)
        return literal.takeError();
      if ((*literal)->getNumElements() != 2 * axes.size())
        return node.error("roi has " + llvm::Twine((*literal)->getNumElements()) +
                          " entries, expected " + llvm::Twine(2 * axes.size()));
      roi.assign(rank, 0.0);
      roi.resize(2 * rank, 1.0);
      for (size_t i = 0; i < axes.size(); ++i) {
        roi[axes[i]] = (*literal)->getDouble(i);
        roi[rank + axes[i]] = (*literal)->getDouble(axes.size() + i);
      }
    }
    if (given(2) == given(3))
      return node.error("exactly one of scales (input 2) and sizes (input 3) must be given");
    if (given(2)) {
      llvm::Expected<const Literal *> literal = node.requireLiteral(2, "scales");
      if (!literal)
        return literal.takeError();
      if ((*literal)->getNumElements() != axes.size())
        return node.error("scales has " + llvm::Twine((*literal)->getNumElements()) +
                          " entries, expected " + llvm::Twine(axes.size()));
      scales.assign(rank, 1.0);
      for (size_t i = 0; i < axes.size(); ++i)
        scales[axes[i]] = (*literal)->getDouble(i);
    } else {
      llvm::Expected<const Literal *> literal = node.requireLiteral(3, "sizes");
      if (!literal)
        return literal.takeError();
      if ((*literal)->getNumElements() != axes.size())
        return node.error("sizes has " + llvm::Twine((*literal)->getNumElements()) +
                          " entries, expected " + llvm::Twine(axes.size()));
      sizes = shape.vec();
      std::vector<int64_t> wanted = (*literal)->getInts();
      if (*policy != "stretch") {
        if (*policy != "not_larger" && *policy != "not_smaller")
          return node.error("keep_aspect_ratio_policy='" + *policy + "' is not a policy");
        double scale = *policy == "not_larger" ? INFINITY : 0.0;
        for (size_t i = 0; i < axes.size(); ++i) {
          double ratio = static_cast<double>(wanted[i]) / shape[axes[i]];
          scale = *policy == "not_larger" ? std::min(scale, ratio) : std::max(scale, ratio);
        }
        for (size_t i = 0; i < axes.size(); ++i)
          wanted[i] = static_cast<int64_t>(std::nearbyint(scale * shape[axes[i]]));
      }
      for (size_t i = 0; i < axes.size(); ++i)
        sizes[axes[i]] = wanted[i];
    }
  }
  if (!scales.empty() && static_cast<int64_t>(scales.size()) != rank)
    return node.error("scales has " + llvm::Twine(scales.size()) + " entries for rank " +
                      llvm::Twine(rank));
  llvm::SmallVector<mlir::NamedAttribute> attributes{
      node.namedString("mode", *mode), node.namedString("coordinate_transformation_mode", coordinates),
      node.namedString("nearest_mode", nearest)};
  if (!scales.empty())
    attributes.push_back(node.namedF64s("scales", scales));
  else
    attributes.push_back(node.namedI64s("sizes", sizes));
  if (!roi.empty())
    attributes.push_back(node.namedF64s("roi", roi));
  attributes.append(extraAttributes.begin(), extraAttributes.end());
  return e.finish(0, e.emit<UpsampleOp>({input}, attributes));
}

/// Trilu: where(mask, x, 0) over the last two dimensions.
llvm::Error convertTrilu(NodeContext &node) {
  llvm::Expected<int64_t> upper = node.getInt("upper", 1);
  if (!upper)
    return upper.takeError();
  int64_t k = 0;
  if (node.hasInput(1)) {
    llvm::Expected<const Literal *> literal = node.requireLiteral(1, "k");
    if (!literal)
      return literal.takeError();
    if ((*literal)->getNumElements() != 1)
      return node.error("k must hold one value");
    k = (*literal)->getInt(0);
  }
  LayerEmitter e(node);
  mlir::Value input = e.input(0);
  if (!input)
    return e.takeError();
  llvm::ArrayRef<int64_t> shape = getTensorType(input).getShape();
  if (shape.size() < 2)
    return node.error("expects an input of rank 2 or more");
  int64_t rows = shape[shape.size() - 2], columns = shape.back();
  std::optional<uint64_t> count = getElementCount({rows, columns});
  if (!count || *count > kMaxFoldedElements)
    return node.error("the " + formatShape({rows, columns}) + " mask is too large");
  std::vector<int64_t> mask(*count);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < columns; ++j)
      mask[i * columns + j] = *upper ? j - i >= k : j - i <= k;
  llvm::Expected<mlir::Value> maskValue =
      node.getConstant(Literal::fromInts(kBool, {rows, columns}, mask), "mask");
  if (!maskValue)
    return maskValue.takeError();
  return e.finish(0, e.emit<WhereOp>({*maskValue, input, e.scalarLike(input, 0.0)}));
}

//===----------------------------------------------------------------------===//
// Ops whose outputs are always known
//===----------------------------------------------------------------------===//

llvm::Error convertShape(NodeContext &node) {
  if (!node.hasInput(0))
    return node.error("input 0 is missing");
  std::vector<int64_t> shape = node.getInputShape(0);
  int64_t rank = shape.size();
  llvm::Expected<int64_t> startAttribute = node.getInt("start", 0);
  if (!startAttribute)
    return startAttribute.takeError();
  llvm::Expected<int64_t> endAttribute = node.getInt("end", rank);
  if (!endAttribute)
    return endAttribute.takeError();
  auto clampIndex = [&](int64_t value) {
    return std::clamp<int64_t>(value < 0 ? value + rank : value, 0, rank);
  };
  int64_t start = clampIndex(*startAttribute), end = clampIndex(*endAttribute);
  std::vector<int64_t> values(shape.begin() + start, shape.begin() + std::max(start, end));
  int64_t count = values.size();
  node.setOutput(0, Literal::fromInts(kInt64, {count}, values));
  return llvm::Error::success();
}

llvm::Error convertSize(NodeContext &node) {
  if (!node.hasInput(0))
    return node.error("input 0 is missing");
  std::optional<uint64_t> count = getElementCount(node.getInputShape(0));
  node.setOutput(0, Literal::fromInts(kInt64, {}, {static_cast<int64_t>(count.value_or(0))}));
  return llvm::Error::success();
}

llvm::Expected<Literal> getConstantAttribute(NodeContext &node) {
  if (node.node.attribute_size() != 1)
    return node.error("expects exactly one value attribute");
  const onnx::AttributeProto &attribute = node.node.attribute(0);
  const std::string &name = attribute.name();
  if (name == "value") {
    onnx::TensorProto tensor = attribute.t();
    return decodeTensor(tensor, "", node.describe() + ": attribute 'value'");
  }
  if (name == "value_float")
    return Literal::fromDoubles(kFloat, {}, {attribute.f()});
  if (name == "value_int")
    return Literal::fromInts(kInt64, {}, {attribute.i()});
  if (name == "value_floats") {
    std::vector<double> values(attribute.floats().begin(), attribute.floats().end());
    return Literal::fromDoubles(kFloat, {static_cast<int64_t>(values.size())}, values);
  }
  if (name == "value_ints") {
    std::vector<int64_t> values(attribute.ints().begin(), attribute.ints().end());
    return Literal::fromInts(kInt64, {static_cast<int64_t>(values.size())}, values);
  }
  if (name == "value_string" || name == "value_strings")
    return node.error("string constants are out of scope (string ops are not supported)");
  if (name == "sparse_value")
    return node.error("sparse constants are not supported");
  return node.error("unknown attribute '" + name + "'");
}

llvm::Error convertConstant(NodeContext &node) {
  llvm::Expected<Literal> literal = getConstantAttribute(node);
  if (!literal)
    return literal.takeError();
  node.setOutput(0, std::move(*literal));
  return llvm::Error::success();
}

llvm::Error convertConstantOfShape(NodeContext &node) {
  llvm::Expected<const Literal *> shapeLiteral = node.requireLiteral(0, "shape");
  if (!shapeLiteral)
    return shapeLiteral.takeError();
  std::vector<int64_t> shape = (*shapeLiteral)->getInts();
  std::optional<uint64_t> count = getElementCount(shape);
  if (!count)
    return node.error("invalid shape " + formatShape(shape));
  Literal value = Literal::fromDoubles(kFloat, {1}, {0.0});
  if (const onnx::AttributeProto *attribute = node.findAttribute("value")) {
    onnx::TensorProto tensor = attribute->t();
    llvm::Expected<Literal> decoded = decodeTensor(tensor, "", node.describe() + ": attribute 'value'");
    if (!decoded)
      return decoded.takeError();
    if (decoded->getNumElements() != 1)
      return node.error("attribute 'value' must hold one element");
    value = std::move(*decoded);
  }
  if (*count <= kMaxFoldedElements) {
    std::vector<std::byte> bytes;
    bytes.reserve(*count * value.getBytes().size());
    for (uint64_t i = 0; i < *count; ++i)
      bytes.insert(bytes.end(), value.getBytes().begin(), value.getBytes().end());
    node.setOutput(0, Literal(value.getType(), shape, std::move(bytes)));
    return llvm::Error::success();
  }
  // Too large to store: broadcast the value at run time.
  llvm::Expected<mlir::Value> scalar = node.getConstant(value.reshaped({}), "value");
  if (!scalar)
    return scalar.takeError();
  LayerEmitter e(node);
  return e.finish(0, e.emit<ExpandOp>({*scalar}, {node.namedI64s("shape", shape)}));
}

llvm::Error convertRange(NodeContext &node) {
  const Literal *inputs[3];
  const char *names[] = {"start", "limit", "delta"};
  for (unsigned i = 0; i < 3; ++i) {
    llvm::Expected<const Literal *> literal = node.requireLiteral(i, names[i]);
    if (!literal)
      return literal.takeError();
    if ((*literal)->getNumElements() != 1)
      return node.error(llvm::Twine(names[i]) + " must be a scalar");
    inputs[i] = *literal;
  }
  int32_t type = inputs[0]->getType();
  double start = inputs[0]->getDouble(0), limit = inputs[1]->getDouble(0),
         delta = inputs[2]->getDouble(0);
  if (delta == 0)
    return node.error("delta must not be 0");
  double steps = std::ceil((limit - start) / delta);
  if (!(steps <= static_cast<double>(kMaxFoldedElements)))
    return node.error("the range has more than " + llvm::Twine(kMaxFoldedElements) + " elements");
  int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
  if (isONNXFloatType(type)) {
    std::vector<double> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = start + i * delta;
    node.setOutput(0, Literal::fromDoubles(type, {count}, values));
  } else {
    std::vector<int64_t> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = inputs[0]->getInt(0) + i * inputs[2]->getInt(0);
    node.setOutput(0, Literal::fromInts(type, {count}, values));
  }
  return llvm::Error::success();
}

llvm::Error convertEyeLike(NodeContext &node) {
  if (!node.hasInput(0))
    return node.error("input 0 is missing");
  std::vector<int64_t> shape = node.getInputShape(0);
  if (shape.size() != 2)
    return node.error("expects a 2-D input, got " + formatShape(shape));
  llvm::Expected<int64_t> dtype = node.getInt("dtype", node.getInputType(0));
  if (!dtype)
    return dtype.takeError();
  llvm::Expected<int64_t> k = node.getInt("k", 0);
  if (!k)
    return k.takeError();
  std::optional<uint64_t> count = getElementCount(shape);
  if (!count || *count > kMaxFoldedElements)
    return node.error("the " + formatShape(shape) + " result is too large to fold");
  std::vector<int64_t> values(*count, 0);
  for (int64_t i = 0; i < shape[0]; ++i)
    if (i + *k >= 0 && i + *k < shape[1])
      values[i * shape[1] + i + *k] = 1;
  node.setOutput(0, Literal::fromInts(static_cast<int32_t>(*dtype), shape, values));
  return llvm::Error::success();
}

} // namespace

void registerShapeConverters(llvm::StringMap<Converter> &converters) {
  for (const char *op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"})
    converters[op] = convertReshapeLike;
  converters["Transpose"] = convertTranspose;
  converters["Concat"] = convertConcat;
  converters["Split"] = convertSplit;
  converters["Slice"] = convertSlice;
  converters["Gather"] = convertGather;
  converters["Expand"] = convertExpand;
  converters["Pad"] = convertPad;
  converters["Tile"] = convertTile;
  converters["DepthToSpace"] = [](NodeContext &node) { return convertDepthSpace(node, true); };
  converters["SpaceToDepth"] = [](NodeContext &node) { return convertDepthSpace(node, false); };
  converters["Resize"] = convertResize;
  converters["Upsample"] = convertResize;
  converters["Trilu"] = convertTrilu;
  converters["Shape"] = convertShape;
  converters["Size"] = convertSize;
  converters["Constant"] = convertConstant;
  converters["ConstantOfShape"] = convertConstantOfShape;
  converters["Range"] = convertRange;
  converters["EyeLike"] = convertEyeLike;
}

} // namespace cgc::importer
