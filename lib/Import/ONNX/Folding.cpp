//===- Folding.cpp - evaluate nodes whose inputs are all known -------------===//
//
// Exported PyTorch and transformers models compute shapes at run time:
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, masks from Range and
// Equal, and so on. With static shapes every such chain has known inputs, so
// the importer evaluates it here and the layers that consume the results see
// constants (Reshape's shape, Expand's shape, a precomputed mask).
//
// Folding is exact: integers compute in int64, floats in double and round
// once to the result type. A node that cannot be folded (an op without a rule
// here, a result over kMaxFoldedElements elements, an integer division by
// zero) is converted to layers instead.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "onnx/onnx_pb.h"

#include <cmath>
#include <cstring>

namespace cgc::importer {

namespace {

using FoldResult = llvm::Expected<std::optional<Literal>>;

/// Row-major strides of `shape`, with 0 for dimensions that broadcast to
/// `target` (aligned at the back).
std::vector<uint64_t> getBroadcastStrides(llvm::ArrayRef<int64_t> shape,
                                          llvm::ArrayRef<int64_t> target) {
  std::vector<uint64_t> strides(target.size(), 0);
  uint64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t dim = shape.size() - 1 - i;
    size_t targetDim = target.size() - 1 - i;
    strides[targetDim] = shape[dim] == 1 ? 0 : stride;
    stride *= shape[dim];
  }
  return strides;
}

/// Calls `body(outputIndex, multiIndex)` for every element of `shape` in
/// row-major order.
template <typename Body>
void forEachIndex(llvm::ArrayRef<int64_t> shape, Body body) {
  uint64_t count = getElementCount(shape).value_or(0);
  std::vector<int64_t> index(shape.size(), 0);
  for (uint64_t flat = 0; flat < count; ++flat) {
    body(flat, llvm::ArrayRef<int64_t>(index));
    for (size_t dim = shape.size(); dim-- > 0;) {
      if (++index[dim] < shape[dim])
        break;
      index[dim] = 0;
    }
  }
}

/// A literal of `shape` whose element i is `source`'s element `sourceIndex(multi-index)`.
template <typename SourceIndex>
Literal copyElements(const Literal &source, std::vector<int64_t> shape, SourceIndex sourceIndex) {
  unsigned width = getONNXTypeByteWidth(source.getType());
  std::vector<std::byte> bytes(getElementCount(shape).value_or(0) * width);
  const std::byte *in = source.getBytes().data();
  forEachIndex(shape, [&](uint64_t flat, llvm::ArrayRef<int64_t> index) {
    std::memcpy(bytes.data() + flat * width, in + sourceIndex(index) * width, width);
  });
  return Literal(source.getType(), std::move(shape), std::move(bytes));
}

bool fitsFolding(llvm::ArrayRef<int64_t> shape) {
  std::optional<uint64_t> count = getElementCount(shape);
  return count && *count <= kMaxFoldedElements;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

FoldResult foldUnary(NodeContext &node) {
  const Literal &x = *node.getLiteral(0);
  llvm::StringRef op = node.node.op_type();
  uint64_t count = x.getNumElements();
  if (op == "Identity")
    return x;
  if (op == "Not") {
    std::vector<int64_t> values(count);
    for (uint64_t i = 0; i < count; ++i)
      values[i] = x.getInt(i) == 0;
    return Literal::fromInts(x.getType(), x.getShape().vec(), values);
  }
  if (!x.isFloat()) {
    std::vector<int64_t> values(count);
    for (uint64_t i = 0; i < count; ++i) {
      int64_t v = x.getInt(i);
      if (op == "Neg") values[i] = -v;
      else if (op == "Abs") values[i] = v < 0 ? -v : v;
      else if (op == "Relu") values[i] = v < 0 ? 0 : v;
      else if (op == "Sign") values[i] = (v > 0) - (v < 0);
      else if (op == "Floor" || op == "Ceil" || op == "Round") values[i] = v;
      else return std::nullopt;
    }
    return Literal::fromInts(x.getType(), x.getShape().vec(), values);
  }
  std::vector<double> values(count);
  for (uint64_t i = 0; i < count; ++i) {
    double v = x.getDouble(i);
    if (op == "Neg") values[i] = -v;
    else if (op == "Abs") values[i] = std::fabs(v);
    else if (op == "Relu") values[i] = v < 0 ? 0 : v;
    else if (op == "Sign") values[i] = (v > 0) - (v < 0);
    else if (op == "Sqrt") values[i] = std::sqrt(v);
    else if (op == "Reciprocal") values[i] = 1 / v;
    else if (op == "Floor") values[i] = std::floor(v);
    else if (op == "Ceil") values[i] = std::ceil(v);
    else if (op == "Round") values[i] = std::nearbyint(v);
    else if (op == "Exp") values[i] = std::exp(v);
    else if (op == "Log") values[i] = std::log(v);
    else return std::nullopt;
  }
  return Literal::fromDoubles(x.getType(), x.getShape().vec(), values);
}

FoldResult foldCast(NodeContext &node, int32_t to) {
  const Literal &x = *node.getLiteral(0);
  if (getONNXTypeByteWidth(to) == 0)
    return std::nullopt;
  uint64_t count = x.getNumElements();
  if (x.isFloat() || isONNXFloatType(to)) {
    std::vector<double> values(count);
    for (uint64_t i = 0; i < count; ++i)
      values[i] = x.getDouble(i);
    return Literal::fromDoubles(to, x.getShape().vec(), values);
  }
  return Literal::fromInts(to, x.getShape().vec(), x.getInts());
}

enum class BinaryKind { Arithmetic, Comparison, Logical };

FoldResult foldBinary(NodeContext &node) {
  llvm::StringRef op = node.node.op_type();
  if (node.getNumInputs() != 2)
    return std::nullopt;
  const Literal &a = *node.getLiteral(0), &b = *node.getLiteral(1);
  std::optional<std::vector<int64_t>> shape = broadcastShapes(a.getShape(), b.getShape());
  if (!shape)
    return node.error("shapes " + formatShape(a.getShape()) + " and " + formatShape(b.getShape()) +
                      " do not broadcast");
  if (!fitsFolding(*shape))
    return std::nullopt;
  BinaryKind kind = BinaryKind::Arithmetic;
  if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
      op == "GreaterOrEqual")
    kind = BinaryKind::Comparison;
  else if (op == "And" || op == "Or" || op == "Xor")
    kind = BinaryKind::Logical;
  llvm::Expected<int64_t> fmod = node.getInt("fmod", 0);
  if (!fmod)
    return fmod.takeError();
  std::vector<uint64_t> aStrides = getBroadcastStrides(a.getShape(), *shape);
  std::vector<uint64_t> bStrides = getBroadcastStrides(b.getShape(), *shape);
  uint64_t count = getElementCount(*shape).value_or(0);
  bool isFloat = a.isFloat() || b.isFloat();
  std::vector<double> reals(isFloat ? count : 0);
  std::vector<int64_t> ints(isFloat ? 0 : count);
  bool foldable = true;
  forEachIndex(*shape, [&](uint64_t flat, llvm::ArrayRef<int64_t> index) {
    uint64_t ia = 0, ib = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      ia += index[d] * aStrides[d];
      ib += index[d] * bStrides[d];
    }
    if (isFloat) {
      double x = a.getDouble(ia), y = b.getDouble(ib), r = 0;
      if (op == "Add") r = x + y;
      else if (op == "Sub") r = x - y;
      else if (op == "Mul") r = x * y;
      else if (op == "Div") r = x / y;
      else if (op == "Pow") r = std::pow(x, y);
      else if (op == "Max") r = std::fmax(x, y);
      else if (op == "Min") r = std::fmin(x, y);
      else if (op == "Mod") r = std::fmod(x, y);
      else if (op == "Equal") r = x == y;
      else if (op == "Less") r = x < y;
      else if (op == "Greater") r = x > y;
      else if (op == "LessOrEqual") r = x <= y;
      else if (op == "GreaterOrEqual") r = x >= y;
      else foldable = false;
      reals[flat] = r;
      return;
    }
    int64_t x = a.getInt(ia), y = b.getInt(ib), r = 0;
    if (op == "Add") r = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
    else if (op == "Sub") r = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
    else if (op == "Mul") r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
    else if (op == "Div" || op == "Mod") {
      if (y == 0 || (x == INT64_MIN && y == -1)) {
        foldable = false;
        return;
      }
      if (op == "Div") {
        r = x / y;
      } else {
        r = x % y;
        // Without fmod the remainder takes the divisor's sign (Python's %).
        if (!*fmod && r != 0 && ((r < 0) != (y < 0)))
          r += y;
      }
    } else if (op == "Pow") {
      r = static_cast<int64_t>(std::pow(static_cast<double>(x), static_cast<double>(y)));
    } else if (op == "Max") r = std::max(x, y);
    else if (op == "Min") r = std::min(x, y);
    else if (op == "Equal") r = x == y;
    else if (op == "Less") r = x < y;
    else if (op == "Greater") r = x > y;
    else if (op == "LessOrEqual") r = x <= y;
    else if (op == "GreaterOrEqual") r = x >= y;
    else if (op == "And") r = x && y;
    else if (op == "Or") r = x || y;
    else if (op == "Xor") r = (x != 0) != (y != 0);
    else foldable = false;
    ints[flat] = r;
  });
  if (!foldable)
    return std::nullopt;
  int32_t type = kind == BinaryKind::Arithmetic ? a.getType() : kBool;
  if (kind == BinaryKind::Comparison && isFloat) {
    std::vector<int64_t> flags(reals.begin(), reals.end());
    return Literal::fromInts(kBool, *shape, flags);
  }
  return isFloat ? Literal::fromDoubles(type, *shape, reals) : Literal::fromInts(type, *shape, ints);
}

FoldResult foldWhere(NodeContext &node) {
  const Literal &condition = *node.getLiteral(0), &x = *node.getLiteral(1),
                &y = *node.getLiteral(2);
  if (x.getType() != y.getType())
    return node.error("x and y have different element types");
  std::optional<std::vector<int64_t>> partial = broadcastShapes(condition.getShape(), x.getShape());
  std::optional<std::vector<int64_t>> shape =
      partial ? broadcastShapes(*partial, y.getShape()) : std::nullopt;
  if (!shape)
    return node.error("condition, x and y do not broadcast together");
  if (!fitsFolding(*shape))
    return std::nullopt;
  std::vector<uint64_t> cStrides = getBroadcastStrides(condition.getShape(), *shape);
  std::vector<uint64_t> xStrides = getBroadcastStrides(x.getShape(), *shape);
  std::vector<uint64_t> yStrides = getBroadcastStrides(y.getShape(), *shape);
  unsigned width = getONNXTypeByteWidth(x.getType());
  std::vector<std::byte> bytes(getElementCount(*shape).value_or(0) * width);
  forEachIndex(*shape, [&](uint64_t flat, llvm::ArrayRef<int64_t> index) {
    uint64_t ic = 0, ix = 0, iy = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      ic += index[d] * cStrides[d];
      ix += index[d] * xStrides[d];
      iy += index[d] * yStrides[d];
    }
    const Literal &chosen = condition.getInt(ic) ? x : y;
    std::memcpy(bytes.data() + flat * width,
                chosen.getBytes().data() + (condition.getInt(ic) ? ix : iy) * width, width);
  });
  return Literal(x.getType(), *shape, std::move(bytes));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

FoldResult foldConcat(NodeContext &node) {
  llvm::Expected<std::optional<int64_t>> axisAttribute = node.getOptionalInt("axis");
  if (!axisAttribute)
    return axisAttribute.takeError();
  if (!*axisAttribute)
    return node.error("attribute 'axis' is missing");
  std::vector<const Literal *> inputs;
  for (unsigned i = 0; i < node.getNumInputs(); ++i)
    if (node.hasInput(i))
      inputs.push_back(node.getLiteral(i));
  if (inputs.empty())
    return node.error("needs at least one input");
  std::vector<int64_t> shape = inputs[0]->getShape().vec();
  int64_t rank = shape.size();
  llvm::Expected<int64_t> axis = normalizeAxis(node, **axisAttribute, rank);
  if (!axis)
    return axis.takeError();
  int32_t type = inputs[0]->getType();
  shape[*axis] = 0;
  for (const Literal *input : inputs) {
    if (input->getType() != type || static_cast<int64_t>(input->getShape().size()) != rank)
      return node.error("inputs differ in element type or rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && input->getShape()[d] != shape[d])
        return node.error("inputs " + formatShape(inputs[0]->getShape()) + " and " +
                          formatShape(input->getShape()) + " differ outside axis " +
                          llvm::Twine(*axis));
    shape[*axis] += input->getShape()[*axis];
  }
  if (!fitsFolding(shape))
    return std::nullopt;
  unsigned width = getONNXTypeByteWidth(type);
  uint64_t outer = getElementCount(llvm::ArrayRef(shape).take_front(*axis)).value_or(0);
  std::vector<std::byte> bytes;
  bytes.reserve(getElementCount(shape).value_or(0) * width);
  for (uint64_t o = 0; o < outer; ++o)
    for (const Literal *input : inputs) {
      uint64_t chunk =
          getElementCount(input->getShape().drop_front(*axis)).value_or(0) * width;
      const std::byte *begin = input->getBytes().data() + o * chunk;
      bytes.insert(bytes.end(), begin, begin + chunk);
    }
  return Literal(type, shape, std::move(bytes));
}

FoldResult foldGather(NodeContext &node) {
  const Literal &data = *node.getLiteral(0), &indices = *node.getLiteral(1);
  if (indices.isFloat())
    return node.error("indices must be integers");
  llvm::Expected<int64_t> axisAttribute = node.getInt("axis", 0);
  if (!axisAttribute)
    return axisAttribute.takeError();
  int64_t rank = data.getShape().size();
  if (rank == 0)
    return node.error("cannot gather from a scalar");
  llvm::Expected<int64_t> axis = normalizeAxis(node, *axisAttribute, rank);
  if (!axis)
    return axis.takeError();
  int64_t dim = data.getShape()[*axis];
  std::vector<int64_t> shape(data.getShape().begin(), data.getShape().begin() + *axis);
  shape.insert(shape.end(), indices.getShape().begin(), indices.getShape().end());
  shape.insert(shape.end(), data.getShape().begin() + *axis + 1, data.getShape().end());
  if (!fitsFolding(shape))
    return std::nullopt;
  std::vector<int64_t> positions = indices.getInts();
  for (int64_t &position : positions) {
    if (position < -dim || position >= dim)
      return node.error("index " + llvm::Twine(position) + " is out of range for dimension " +
                        llvm::Twine(dim));
    if (position < 0)
      position += dim;
  }
  std::vector<uint64_t> strides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * data.getShape()[d];
  size_t indexRank = indices.getShape().size();
  std::vector<uint64_t> indexStrides(indexRank, 1);
  for (size_t d = indexRank; d-- > 1;)
    indexStrides[d - 1] = indexStrides[d] * indices.getShape()[d];
  return copyElements(data, shape, [&](llvm::ArrayRef<int64_t> index) {
    uint64_t source = 0;
    for (int64_t d = 0; d < *axis; ++d)
      source += index[d] * strides[d];
    uint64_t flatIndex = 0;
    for (size_t d = 0; d < indexRank; ++d)
      flatIndex += index[*axis + d] * indexStrides[d];
    source += positions[flatIndex] * strides[*axis];
    for (int64_t d = *axis + 1; d < rank; ++d)
      source += index[d - 1 + indexRank] * strides[d];
    return source;
  });
}

FoldResult foldSlice(NodeContext &node) {
  const Literal &data = *node.getLiteral(0);
  int64_t rank = data.getShape().size();
  llvm::Expected<SliceParameters> parameters = getSliceParameters(node, rank);
  if (!parameters)
    return parameters.takeError();
  std::vector<int64_t> shape = data.getShape().vec(), starts(rank, 0), steps(rank, 1);
  for (size_t i = 0; i < parameters->axes.size(); ++i) {
    int64_t axis = parameters->axes[i];
    auto [start, size] = resolveSliceDimension(shape[axis], parameters->starts[i],
                                               parameters->ends[i], parameters->steps[i]);
    starts[axis] = start;
    steps[axis] = parameters->steps[i];
    shape[axis] = size;
  }
  std::vector<uint64_t> strides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * data.getShape()[d];
  return copyElements(data, shape, [&](llvm::ArrayRef<int64_t> index) {
    uint64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += (starts[d] + index[d] * steps[d]) * strides[d];
    return source;
  });
}

FoldResult foldTranspose(NodeContext &node) {
  const Literal &data = *node.getLiteral(0);
  int64_t rank = data.getShape().size();
  llvm::Expected<std::optional<std::vector<int64_t>>> perm = node.getInts("perm");
  if (!perm)
    return perm.takeError();
  std::vector<int64_t> permutation = perm->value_or(std::vector<int64_t>());
  if (permutation.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      permutation.push_back(i);
  if (static_cast<int64_t>(permutation.size()) != rank)
    return node.error("perm has " + llvm::Twine(permutation.size()) + " entries for rank " +
                      llvm::Twine(rank));
  std::vector<bool> seen(rank, false);
  for (int64_t p : permutation) {
    if (p < 0 || p >= rank || seen[p])
      return node.error("perm is not a permutation of 0.." + llvm::Twine(rank - 1));
    seen[p] = true;
  }
  std::vector<uint64_t> strides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * data.getShape()[d];
  std::vector<int64_t> shape(rank);
  for (int64_t d = 0; d < rank; ++d)
    shape[d] = data.getShape()[permutation[d]];
  return copyElements(data, shape, [&](llvm::ArrayRef<int64_t> index) {
    uint64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * strides[permutation[d]];
    return source;
  });
}

FoldResult foldExpand(NodeContext &node) {
  const Literal &data = *node.getLiteral(0);
  std::vector<int64_t> target = node.getLiteral(1)->getInts();
  std::optional<std::vector<int64_t>> shape = broadcastShapes(data.getShape(), target);
  if (!shape)
    return node.error("cannot expand " + formatShape(data.getShape()) + " to " +
                      formatShape(target));
  if (!fitsFolding(*shape))
    return std::nullopt;
  std::vector<uint64_t> strides = getBroadcastStrides(data.getShape(), *shape);
  return copyElements(data, *shape, [&](llvm::ArrayRef<int64_t> index) {
    uint64_t source = 0;
    for (size_t d = 0; d < index.size(); ++d)
      source += index[d] * strides[d];
    return source;
  });
}

FoldResult foldTile(NodeContext &node) {
  const Literal &data = *node.getLiteral(0);
  std::vector<int64_t> repeats = node.getLiteral(1)->getInts();
  int64_t rank = data.getShape().size();
  if (static_cast<int64_t>(repeats.size()) != rank)
    return node.error("repeats has " + llvm::Twine(repeats.size()) + " entries for rank " +
                      llvm::Twine(rank));
  std::vector<int64_t> shape(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (repeats[d] < 0)
      return node.error("repeats must not be negative");
    shape[d] = data.getShape()[d] * repeats[d];
  }
  if (!fitsFolding(shape))
    return std::nullopt;
  std::vector<uint64_t> strides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * data.getShape()[d];
  return copyElements(data, shape, [&](llvm::ArrayRef<int64_t> index) {
    uint64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += (index[d] % data.getShape()[d]) * strides[d];
    return source;
  });
}

FoldResult foldNonZero(NodeContext &node) {
  const Literal &data = *node.getLiteral(0);
  int64_t rank = data.getShape().size();
  std::vector<std::vector<int64_t>> found(std::max<int64_t>(rank, 1));
  forEachIndex(data.getShape(), [&](uint64_t flat, llvm::ArrayRef<int64_t> index) {
    bool nonZero = data.isFloat() ? data.getDouble(flat) != 0 : data.getInt(flat) != 0;
    if (!nonZero)
      return;
    if (rank == 0)
      found[0].push_back(0);
    for (int64_t d = 0; d < rank; ++d)
      found[d].push_back(index[d]);
  });
  int64_t count = found[0].size();
  std::vector<int64_t> values;
  for (int64_t d = 0; d < rank; ++d)
    values.insert(values.end(), found[d].begin(), found[d].end());
  return Literal::fromInts(kInt64, {rank, rank ? count : 0}, values);
}

/// Reductions over known data (ReduceProd of a slice of a shape, ...).
FoldResult foldReduction(NodeContext &node) {
  const Literal &data = *node.getLiteral(0);
  llvm::StringRef op = node.node.op_type();
  int64_t axesInputSince = op == "ReduceSum" ? 13 : 18;
  llvm::Expected<std::optional<std::vector<int64_t>>> axesOperand =
      getAxesOperand(node, axesInputSince);
  if (!axesOperand)
    return axesOperand.takeError();
  llvm::Expected<int64_t> keepDims = node.getInt("keepdims", 1);
  if (!keepDims)
    return keepDims.takeError();
  llvm::Expected<int64_t> noop = node.getInt("noop_with_empty_axes", 0);
  if (!noop)
    return noop.takeError();
  int64_t rank = data.getShape().size();
  std::vector<bool> reduced(rank, false);
  if (!*axesOperand || (*axesOperand)->empty()) {
    if (*noop)
      return data;
    reduced.assign(rank, true);
  } else {
    for (int64_t axis : **axesOperand) {
      llvm::Expected<int64_t> normalized = normalizeAxis(node, axis, rank);
      if (!normalized)
        return normalized.takeError();
      reduced[*normalized] = true;
    }
  }
  std::vector<int64_t> keptShape, outputShape;
  for (int64_t d = 0; d < rank; ++d) {
    keptShape.push_back(reduced[d] ? 1 : data.getShape()[d]);
    if (!reduced[d] || *keepDims)
      outputShape.push_back(keptShape.back());
  }
  uint64_t outputCount = getElementCount(keptShape).value_or(0);
  std::vector<double> accumulators(outputCount, op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<bool> started(outputCount, false);
  std::vector<uint64_t> counts(outputCount, 0);
  std::vector<uint64_t> strides = getBroadcastStrides(keptShape, data.getShape());
  // Strides of the kept shape (reduced dims contribute nothing).
  std::vector<uint64_t> keptStrides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    keptStrides[d - 1] = keptStrides[d] * keptShape[d];
  bool useInts = !data.isFloat();
  std::vector<int64_t> intAccumulators(outputCount, op == "ReduceProd" ? 1 : 0);
  forEachIndex(data.getShape(), [&](uint64_t flat, llvm::ArrayRef<int64_t> index) {
    uint64_t out = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        out += index[d] * keptStrides[d];
    double value = data.getDouble(flat);
    int64_t intValue = useInts ? data.getInt(flat) : 0;
    if (op == "ReduceSum" || op == "ReduceMean") {
      accumulators[out] += value;
      intAccumulators[out] += intValue;
    } else if (op == "ReduceProd") {
      accumulators[out] *= value;
      intAccumulators[out] *= intValue;
    } else if (op == "ReduceMax") {
      accumulators[out] = started[out] ? std::fmax(accumulators[out], value) : value;
      intAccumulators[out] = started[out] ? std::max(intAccumulators[out], intValue) : intValue;
    } else if (op == "ReduceMin") {
      accumulators[out] = started[out] ? std::fmin(accumulators[out], value) : value;
      intAccumulators[out] = started[out] ? std::min(intAccumulators[out], intValue) : intValue;
    }
    started[out] = true;
    ++counts[out];
  });
  (void)strides;
  if (op == "ReduceMean") {
    for (uint64_t i = 0; i < outputCount; ++i) {
      accumulators[i] /= static_cast<double>(std::max<uint64_t>(counts[i], 1));
      intAccumulators[i] /= static_cast<int64_t>(std::max<uint64_t>(counts[i], 1));
    }
  }
  if (useInts)
    return Literal::fromInts(data.getType(), outputShape, intAccumulators);
  return Literal::fromDoubles(data.getType(), outputShape, accumulators);
}

/// How many leading inputs `op`'s folding reads unconditionally (inputs
/// after them are optional and checked where they are read).
unsigned getRequiredFoldInputs(llvm::StringRef op) {
  if (op == "Where")
    return 3;
  if (op == "CastLike" || op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
      op == "Pow" || op == "Mod" || op == "Equal" || op == "Less" || op == "Greater" ||
      op == "LessOrEqual" || op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor" ||
      op == "Max" || op == "Min" || op == "Reshape" || op == "Gather" || op == "Expand" ||
      op == "Tile")
    return 2;
  return 1;
}

FoldResult foldNode(NodeContext &node) {
  llvm::StringRef op = node.node.op_type();
  // A required input left out (an empty name) is not folded: the op's
  // converter reports it.
  for (unsigned i = 0, e = getRequiredFoldInputs(op); i < e; ++i)
    if (!node.getLiteral(i))
      return std::nullopt;
  if (op == "Identity" || op == "Neg" || op == "Abs" || op == "Relu" || op == "Sign" ||
      op == "Sqrt" || op == "Reciprocal" || op == "Floor" || op == "Ceil" || op == "Round" ||
      op == "Exp" || op == "Log" || op == "Not")
    return foldUnary(node);
  if (op == "Cast") {
    llvm::Expected<int64_t> to = node.getInt("to", kUndefined);
    if (!to)
      return to.takeError();
    return foldCast(node, static_cast<int32_t>(*to));
  }
  if (op == "CastLike")
    return foldCast(node, node.getInputType(1));
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Mod" ||
      op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
      op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor" ||
      ((op == "Max" || op == "Min") && node.getNumInputs() == 2))
    return foldBinary(node);
  if (op == "Where")
    return foldWhere(node);
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    const Literal &data = *node.getLiteral(0);
    llvm::Expected<std::vector<int64_t>> shape = getReshapeResult(node, data.getShape());
    if (!shape)
      return shape.takeError();
    return data.reshaped(std::move(*shape));
  }
  if (op == "Concat")
    return foldConcat(node);
  if (op == "Gather")
    return foldGather(node);
  if (op == "Slice")
    return foldSlice(node);
  if (op == "Transpose")
    return foldTranspose(node);
  if (op == "Expand")
    return foldExpand(node);
  if (op == "Tile")
    return foldTile(node);
  if (op == "NonZero")
    return foldNonZero(node);
  if (op == "ReduceSum" || op == "ReduceProd" || op == "ReduceMax" || op == "ReduceMin" ||
      op == "ReduceMean")
    return foldReduction(node);
  return std::nullopt;
}

} // namespace

llvm::Expected<bool> tryFold(NodeContext &node) {
  if (node.getNumInputs() == 0 || !node.allInputsKnown() || node.getNumOutputs() != 1)
    return false;
  for (unsigned i = 0; i < node.getNumInputs(); ++i)
    if (node.hasInput(i) && getONNXTypeByteWidth(node.getInputType(i)) == 0)
      return false;
  FoldResult folded = foldNode(node);
  if (!folded)
    return folded.takeError();
  if (!*folded)
    return false;
  node.setOutput(0, std::move(**folded));
  return true;
}

} // namespace cgc::importer
