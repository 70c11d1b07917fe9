//===- PatternMatcher.cpp - a target's patterns against an entry point ----===//
//
// Each layer is tried as the root. Pattern values are bound to IR values
// backwards along use-def edges, from the root to the inputs; a value that
// several pattern layers use binds once, so it must be one IR value. An
// elementwise chain may take its value at any operand of a layer, and any
// chain may stop at any length, so reading the IR backwards as a chain can
// branch: the search copies the binding at each branch (patterns are small).
// A complete binding is then validated as a whole, since some rules only
// make sense for the full match: inputs come from outside it, constraints
// hold, every chain is the greedy longest one (downward from a matched
// anchor; upward, into the match, for a view chain of an input), only the
// root and the pattern's outputs are used outside (the outputs after the
// root, where the subgraph's call will be), and the match is convex.
//
// View chains of inputs may share layers (q, k and v read through one
// transpose of a fused projection): reading such a chain upward does not
// stop at a value with several users, a layer another such chain covers
// may join it, and the rule that only the root is used outside the match
// then keeps every shared layer's users inside it. Readings that the
// greedy rule would reject anyway (the chain could take one more layer,
// being its value's only reader) are not searched, which keeps the
// branches of three long chains few.
//
//===----------------------------------------------------------------------===//

#include "PatternMatcher.h"

#include "cgc/Dialect/CGCOp/IR/Broadcast.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpDialect.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpTraits.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>

using namespace mlir;

namespace cgc::compiler {
namespace {

bool isLayerOp(Operation *op) {
  return op && op->getDialect() && isa<op::CGCOpDialect>(op->getDialect());
}

/// Whether `value` is used, and only by `user` (possibly at several operands).
bool isUsedOnlyBy(Value value, Operation *user) {
  return !value.use_empty() &&
         llvm::all_of(value.getUsers(), [&](Operation *op) { return op == user; });
}


/// Whether `elementType` is one of `allowed` (absent: any).
bool isAllowedElementType(std::optional<ArrayAttr> allowed, Type elementType) {
  return !allowed || llvm::any_of(*allowed, [&](Attribute type) {
    return cast<TypeAttr>(type).getValue() == elementType;
  });
}

bool containsName(std::optional<ArrayAttr> names, StringRef name) {
  return names && llvm::any_of(*names, [&](Attribute attribute) {
    return cast<StringAttr>(attribute).getValue() == name;
  });
}

TensorType getTensorType(Value value) { return cast<TensorType>(value.getType()); }

/// Whether `op` is a selection: a gather whose indices are a constant of one
/// element (view_chain's description).
bool isSelection(Operation *op) {
  auto gather = dyn_cast<op::GatherOp>(op);
  if (!gather || !gather.getIndices().getDefiningOp<ConstantOp>())
    return false;
  TensorType indices = getTensorType(gather.getIndices());
  return indices.hasStaticShape() && indices.getNumElements() == 1;
}

/// Whether `chain` runs from an input into the match (chains of one match
/// that do may share layers).
bool isInputViewChain(Operation *chain) {
  auto view = dyn_cast_if_present<pattern::ViewChainOp>(chain);
  return view && view.isAnchoredOnInput();
}

/// One way to read an IR value backwards as a chain.
struct ChainReading {
  Value anchor;
  /// The chain's layers, the anchor's user first.
  SmallVector<Operation *> layers;
};

/// A binding of a pattern's values to IR values, grown from the root.
struct Binding {
  /// Pattern value -> IR value; null for an absent optional input.
  llvm::DenseMap<Value, Value> values;
  /// IR layer -> the pattern layer or chain that covers it.
  llvm::DenseMap<Operation *, Operation *> coveredBy;
  /// Pattern chain -> the IR layers it covers, the anchor's user first.
  llvm::MapVector<Operation *, SmallVector<Operation *>> chains;
  /// (pattern value, IR value) pairs still to match.
  SmallVector<std::pair<Value, Value>> pending;
};

/// The search for one pattern's matches.
class PatternSearch {
public:
  PatternSearch(pattern::PatternOp pattern,
                const llvm::DenseMap<Operation *, unsigned> &positions,
                const llvm::DenseSet<Operation *> *taken)
      : pattern(pattern), positions(positions), taken(taken) {}

  /// Extends `binding` in every consistent way; appends the complete ones.
  void search(Binding binding, SmallVectorImpl<Binding> &complete);

  /// The match a complete binding describes, if it is valid.
  std::optional<PatternMatch> validate(const Binding &binding, Value root);

private:
  bool bindInput(pattern::InputOp input, Value value, Binding &binding);
  bool bindLayer(pattern::LayerOp layer, Value value, Binding &binding);
  void searchChainReadings(Operation *chain, Value anchor, SmallVector<ChainReading> readings,
                           const Binding &binding, SmallVectorImpl<Binding> &complete);
  SmallVector<ChainReading> readChain(pattern::ElementwiseChainOp chain, Value value);
  bool isChainStep(pattern::ElementwiseChainOp chain, Value previous, Operation *op,
                   Type chainType);
  bool isGreedyChain(pattern::ElementwiseChainOp chain, const Binding &binding,
                     const llvm::DenseSet<Operation *> &matched);
  SmallVector<ChainReading> readViewChain(pattern::ViewChainOp chain, Value value);
  bool isViewStep(pattern::ViewChainOp chain, Operation *op);
  bool isGreedyViewChain(pattern::ViewChainOp chain, ArrayRef<Operation *> layers,
                         const Binding &binding, const llvm::DenseSet<Operation *> &matched);
  bool holds(pattern::ConstraintOp constraint, const Binding &binding,
             uint64_t &alignment);
  bool isConvex(ArrayRef<Value> inputs, const llvm::DenseSet<Operation *> &matched);

  bool isTaken(Operation *op) const { return taken && taken->contains(op); }

  pattern::PatternOp pattern;
  const llvm::DenseMap<Operation *, unsigned> &positions;
  /// Layers of accepted subgraphs (may be null): never matched, and a chain
  /// ends where one begins.
  const llvm::DenseSet<Operation *> *taken;
};

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

bool PatternSearch::bindInput(pattern::InputOp input, Value value, Binding &binding) {
  if (!value)
    return input.getOptional();
  TensorType type = getTensorType(value);
  if (input.getConstant() && !value.getDefiningOp<ConstantOp>())
    return false;
  if (!isAllowedElementType(input.getElementTypes(), type.getElementType()))
    return false;
  if (std::optional<uint64_t> rank = input.getRank();
      rank && type.getRank() != static_cast<int64_t>(*rank))
    return false;
  if (std::optional<ArrayAttr> shape = input.getShape()) {
    if (static_cast<int64_t>(shape->size()) != type.getRank())
      return false;
    for (auto [wanted, size] : llvm::zip(shape->getAsRange<IntegerAttr>(), type.getShape()))
      if (wanted.getInt() != -1 && wanted.getInt() != size)
        return false;
  }
  binding.values[input.getResult()] = value;
  return true;
}

bool PatternSearch::bindLayer(pattern::LayerOp layer, Value value, Binding &binding) {
  auto result = dyn_cast_if_present<OpResult>(value);
  if (!result)
    return false;
  Operation *op = result.getOwner();
  OperandRange patternOperands = layer.getOperands();
  // One IR layer is one pattern layer: two pattern layers over one IR layer
  // would describe a different subgraph.
  if (op->getName().getStringRef() != layer.getOpName() || op->getNumResults() != 1 ||
      op->getNumOperands() > patternOperands.size() || binding.coveredBy.contains(op))
    return false;
  if (std::optional<DictionaryAttr> attributes = layer.getOpAttributes())
    for (NamedAttribute attribute : *attributes)
      if (op->getAttr(attribute.getName()) != attribute.getValue())
        return false;
  if (!isAllowedElementType(layer.getElementTypes(), getTensorType(value).getElementType()))
    return false;
  binding.values[layer.getResult()] = value;
  binding.coveredBy[op] = layer;
  // A missing trailing operand binds to null, which only an optional input
  // accepts.
  for (auto [index, patternOperand] : llvm::enumerate(patternOperands))
    binding.pending.emplace_back(patternOperand,
                                 index < op->getNumOperands() ? op->getOperand(index) : Value());
  return true;
}

//===----------------------------------------------------------------------===//
// Elementwise chains
//===----------------------------------------------------------------------===//

bool PatternSearch::isChainStep(pattern::ElementwiseChainOp chain, Value previous,
                                Operation *op, Type chainType) {
  if (!isLayerOp(op) || op->getNumResults() != 1 ||
      !op->hasTrait<op::OpTrait::Elementwise>() || previous.getType() != chainType ||
      op->getResult(0).getType() != chainType || !isUsedOnlyBy(previous, op))
    return false;
  StringRef name = op->getName().getStringRef();
  if (chain.getLayers() && !containsName(chain.getLayers(), name))
    return false;
  if (containsName(chain.getValueFirstLayers(), name) && op->getOperand(0) != previous)
    return false;
  ArrayRef<int64_t> chainShape = cast<TensorType>(chainType).getShape();
  int64_t extraInputs = 0;
  for (Value operand : op->getOperands()) {
    if (operand == previous)
      continue;
    ++extraInputs;
    if (!op::broadcastsTo(getTensorType(operand).getShape(), chainShape))
      return false;
  }
  return extraInputs <= static_cast<int64_t>(chain.getMaxExtraInputs());
}

SmallVector<ChainReading> PatternSearch::readChain(pattern::ElementwiseChainOp chain,
                                                   Value value) {
  SmallVector<ChainReading> readings;
  auto minLength = static_cast<int64_t>(chain.getMinLength());
  auto maxLength = static_cast<int64_t>(chain.getMaxLength());
  SmallVector<Operation *> path; // the root side first
  std::function<void(Value)> walk = [&](Value current) {
    auto length = static_cast<int64_t>(path.size());
    if (length >= minLength)
      readings.push_back({current, llvm::to_vector(llvm::reverse(path))});
    if (maxLength != -1 && length >= maxLength)
      return;
    auto result = dyn_cast<OpResult>(current);
    if (!result)
      return;
    Operation *op = result.getOwner();
    // Any operand may be the chain's previous value (add(x, chain) as well as
    // add(chain, x)); each one that fits is a separate reading.
    llvm::SmallSetVector<Value, 4> operands(op->operand_begin(), op->operand_end());
    for (Value previous : operands) {
      if (!isChainStep(chain, previous, op, value.getType()))
        continue;
      path.push_back(op);
      walk(previous);
      path.pop_back();
    }
  };
  walk(value);
  return readings;
}

bool PatternSearch::isGreedyChain(pattern::ElementwiseChainOp chain, const Binding &binding,
                                  const llvm::DenseSet<Operation *> &matched) {
  Value current = binding.values.lookup(chain.getAnchor());
  Value end = binding.values.lookup(chain.getResult());
  auto maxLength = static_cast<int64_t>(chain.getMaxLength());
  Type chainType = current.getType();
  for (int64_t length = 0; maxLength == -1 || length < maxLength; ++length) {
    if (current.use_empty())
      break;
    Operation *user = *current.getUsers().begin();
    if (isTaken(user) || !isChainStep(chain, current, user, chainType))
      break;
    // The chain's other operands come from outside the match.
    if (llvm::any_of(user->getOperands(), [&](Value operand) {
          return operand != current && isa<OpResult>(operand) &&
                 matched.contains(operand.getDefiningOp());
        }))
      break;
    current = user->getResult(0);
  }
  return current == end;
}

//===----------------------------------------------------------------------===//
// View chains
//===----------------------------------------------------------------------===//

bool PatternSearch::isViewStep(pattern::ViewChainOp chain, Operation *op) {
  return isLayerOp(op) && op->getNumResults() == 1 &&
         (op->getNumOperands() == 1 || isSelection(op)) &&
         chain.allowsLayer(op->getName().getStringRef());
}

SmallVector<ChainReading> PatternSearch::readViewChain(pattern::ViewChainOp chain,
                                                       Value value) {
  SmallVector<ChainReading> readings;
  auto minLength = static_cast<int64_t>(chain.getMinLength());
  auto maxLength = static_cast<int64_t>(chain.getMaxLength());
  bool fromInput = chain.isAnchoredOnInput();
  SmallVector<Operation *> path; // the chain's value side first
  Value current = value;
  // One chained operand per layer (a selection's data): the readings
  // differ only in length.
  for (;;) {
    auto length = static_cast<int64_t>(path.size());
    bool atMaxLength = maxLength != -1 && length >= maxLength;
    Operation *op = current.getDefiningOp();
    bool canGrow = !atMaxLength && op && !isTaken(op) && isViewStep(chain, op);
    // The values before the chain's value are read by the next chain layer
    // only. So is a matched anchor (as in an elementwise chain). An input's
    // value lies outside the match and may have any users; the values
    // before it may have other users too where chains share layers (the
    // match must then hold every user).
    bool readOnlyByChain = path.empty() || isUsedOnlyBy(current, path.back());
    if (fromInput) {
      // A chain that could take the layer before its only reader's operand
      // is not the greedy one (isGreedyViewChain).
      bool soleReader = !current.use_empty() && llvm::all_equal(current.getUsers());
      if (length >= minLength && !(canGrow && soleReader))
        readings.push_back({current, llvm::to_vector(llvm::reverse(path))});
    } else {
      if (length >= minLength && readOnlyByChain)
        readings.push_back({current, llvm::to_vector(llvm::reverse(path))});
      if (!readOnlyByChain)
        break;
    }
    if (!canGrow)
      break;
    path.push_back(op);
    current = op->getOperand(0);
  }
  return readings;
}

bool PatternSearch::isGreedyViewChain(pattern::ViewChainOp chain, ArrayRef<Operation *> layers,
                                      const Binding &binding,
                                      const llvm::DenseSet<Operation *> &matched) {
  auto maxLength = static_cast<int64_t>(chain.getMaxLength());
  Value anchor = binding.values.lookup(chain.getAnchor());
  if (chain.isAnchoredOnInput()) {
    // Upward, into the match: the chain is the longest when it cannot also
    // take the layer producing the input's value.
    Operation *producer = anchor.getDefiningOp();
    auto canGrow = [&](pattern::ViewChainOp grown, size_t length) {
      auto grownMax = static_cast<int64_t>(grown.getMaxLength());
      return (grownMax == -1 || static_cast<int64_t>(length) < grownMax) &&
             isViewStep(grown, producer);
    };
    if (!producer || isTaken(producer) || !canGrow(chain, layers.size()))
      return true;
    // With no chain layer, taking the producer would make the input's value
    // one of the match: it would then have to be read only inside it.
    if (layers.empty())
      return llvm::any_of(anchor.getUsers(),
                          [&](Operation *user) { return !matched.contains(user); });
    // Otherwise every reader of the input's value would have to take the
    // producer too: each must be the first layer of a chain of an input
    // (this one, or another sharing the layers above) that can grow.
    return llvm::any_of(anchor.getUsers(), [&](Operation *user) {
      return llvm::none_of(binding.chains, [&](const auto &entry) {
        auto other = dyn_cast<pattern::ViewChainOp>(entry.first);
        return other && other.isAnchoredOnInput() && !entry.second.empty() &&
               entry.second.front() == user && canGrow(other, entry.second.size());
      });
    });
  }
  // Downward from a matched value, as an elementwise chain runs (into a
  // selection's data, not its indices).
  Value current = anchor;
  for (int64_t length = 0; maxLength == -1 || length < maxLength; ++length) {
    if (current.use_empty())
      break;
    Operation *user = *current.getUsers().begin();
    if (isTaken(user) || !isUsedOnlyBy(current, user) || !isViewStep(chain, user) ||
        user->getOperand(0) != current)
      break;
    current = user->getResult(0);
  }
  return current == binding.values.lookup(chain.getResult());
}

//===----------------------------------------------------------------------===//
// Search and validation
//===----------------------------------------------------------------------===//

void PatternSearch::searchChainReadings(Operation *chain, Value anchor,
                                        SmallVector<ChainReading> readings,
                                        const Binding &binding,
                                        SmallVectorImpl<Binding> &complete) {
  for (ChainReading &reading : readings) {
    // Only chains of inputs share layers, with each other.
    if (llvm::any_of(reading.layers, [&](Operation *op) {
          auto covering = binding.coveredBy.find(op);
          return covering != binding.coveredBy.end() &&
                 !(isInputViewChain(chain) && isInputViewChain(covering->second));
        }))
      continue;
    Binding branch = binding;
    for (Operation *op : reading.layers)
      branch.coveredBy.try_emplace(op, chain);
    branch.chains[chain] = std::move(reading.layers);
    branch.pending.emplace_back(anchor, reading.anchor);
    search(std::move(branch), complete);
  }
}

void PatternSearch::search(Binding binding, SmallVectorImpl<Binding> &complete) {
  while (!binding.pending.empty()) {
    auto [patternValue, value] = binding.pending.pop_back_val();
    if (auto bound = binding.values.find(patternValue); bound != binding.values.end()) {
      if (bound->second != value)
        return;
      continue;
    }
    Operation *definition = patternValue.getDefiningOp();
    if (auto input = dyn_cast<pattern::InputOp>(definition)) {
      if (!bindInput(input, value, binding))
        return;
      continue;
    }
    if (auto layer = dyn_cast<pattern::LayerOp>(definition)) {
      if (!bindLayer(layer, value, binding))
        return;
      continue;
    }
    if (!value)
      return;
    binding.values[patternValue] = value;
    if (auto view = dyn_cast<pattern::ViewChainOp>(definition)) {
      searchChainReadings(view, view.getAnchor(), readViewChain(view, value), binding,
                          complete);
      return;
    }
    auto chain = cast<pattern::ElementwiseChainOp>(definition);
    searchChainReadings(chain, chain.getAnchor(), readChain(chain, value), binding, complete);
    return;
  }
  complete.push_back(std::move(binding));
}

bool PatternSearch::holds(pattern::ConstraintOp constraint, const Binding &binding,
                          uint64_t &alignment) {
  SmallVector<TensorType> types;
  for (Value value : constraint.getValues()) {
    Value bound = binding.values.lookup(value);
    if (!bound)
      return false;
    types.push_back(getTensorType(bound));
  }
  auto parameter = [&](StringRef name) -> int64_t {
    DictionaryAttr params = constraint.getParamsAttr();
    auto value = params ? dyn_cast_or_null<IntegerAttr>(params.get(name)) : nullptr;
    return value ? value.getInt() : 0;
  };
  StringRef name = constraint.getConstraintName();
  if (name == "cgc.same_shape")
    return llvm::all_of(types, [&](TensorType type) {
      return type.getShape() == types.front().getShape();
    });
  if (name == "cgc.same_element_type")
    return llvm::all_of(types, [&](TensorType type) {
      return type.getElementType() == types.front().getElementType();
    });
  if (name == "cgc.static_dims")
    return llvm::all_of(types, [](TensorType type) {
      return llvm::none_of(type.getShape(), ShapedType::isDynamic);
    });
  if (name == "cgc.channels_multiple_of") {
    int64_t multiple = parameter("value");
    return multiple > 0 && llvm::all_of(types, [&](TensorType type) {
      return type.getRank() >= 2 && type.getShape()[1] % multiple == 0;
    });
  }
  if (name == "cgc.alignment") {
    // A request to memory planning, not a condition on the match.
    alignment = std::max<uint64_t>(alignment, parameter("bytes"));
    return true;
  }
  // Declarations are checked against the known constraints when read; one
  // this matcher cannot evaluate never matches.
  return false;
}

bool PatternSearch::isConvex(ArrayRef<Value> inputs,
                             const llvm::DenseSet<Operation *> &matched) {
  // Nothing before the first matched layer depends on the match.
  unsigned first = std::numeric_limits<unsigned>::max();
  for (Operation *op : matched)
    first = std::min(first, positions.lookup(op));
  llvm::DenseSet<Operation *> visited;
  SmallVector<Operation *> worklist;
  for (Value input : inputs)
    if (Operation *producer = input.getDefiningOp())
      worklist.push_back(producer);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (matched.contains(op))
      return false;
    if (positions.lookup(op) < first || !visited.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        worklist.push_back(producer);
  }
  return true;
}

std::optional<PatternMatch> PatternSearch::validate(const Binding &binding, Value root) {
  llvm::DenseSet<Operation *> matched;
  for (auto &covered : binding.coveredBy)
    matched.insert(covered.first);
  if (llvm::any_of(matched, [&](Operation *op) { return isTaken(op); }))
    return std::nullopt;
  auto isMatchedValue = [&](Value value) {
    return value && isa<OpResult>(value) && matched.contains(value.getDefiningOp());
  };
  for (auto input : pattern.getBodyBlock()->getOps<pattern::InputOp>())
    if (isMatchedValue(binding.values.lookup(input.getResult())))
      return std::nullopt;
  for (auto &[chain, layers] : binding.chains) {
    bool greedy = isa<pattern::ViewChainOp>(chain)
                      ? isGreedyViewChain(cast<pattern::ViewChainOp>(chain), layers, binding,
                                          matched)
                      : isGreedyChain(cast<pattern::ElementwiseChainOp>(chain), binding,
                                      matched);
    if (!greedy)
      return std::nullopt;
  }
  uint64_t alignment = 0;
  for (auto constraint : pattern.getBodyBlock()->getOps<pattern::ConstraintOp>())
    if (!holds(constraint, binding, alignment))
      return std::nullopt;
  // Only the root and the outputs leave the match; the outputs to layers
  // after the root, since the subgraph's call takes the root's place.
  SmallVector<Value> outputs;
  for (Value output : pattern.getOutputValues()) {
    Value value = binding.values.lookup(output);
    if (!isMatchedValue(value))
      return std::nullopt;
    outputs.push_back(value);
  }
  unsigned rootPosition = positions.lookup(root.getDefiningOp());
  for (Operation *op : matched)
    for (Value result : op->getResults()) {
      if (result == root)
        continue;
      bool isOutput = llvm::is_contained(outputs, result);
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !matched.contains(user) &&
                   (!isOutput || positions.lookup(user) < rootPosition);
          }))
        return std::nullopt;
    }

  PatternMatch match;
  match.layers.assign(matched.begin(), matched.end());
  llvm::sort(match.layers, [&](Operation *lhs, Operation *rhs) {
    return positions.lookup(lhs) < positions.lookup(rhs);
  });
  llvm::SetVector<Value> inputs;
  for (Operation *op : match.layers)
    for (Value operand : op->getOperands())
      if (!isMatchedValue(operand))
        inputs.insert(operand);
  match.inputs.assign(inputs.begin(), inputs.end());
  // Implied by the rule above for verified patterns (every matched layer
  // reaches the root inside the match, so a path leaving from the root cannot
  // come back without a cycle); checked because the rewrite's dominance
  // argument rests on it.
  if (!isConvex(match.inputs, matched))
    return std::nullopt;
  match.root = root;
  match.outputs = std::move(outputs);
  match.alignment = alignment;
  return match;
}

} // namespace

//===----------------------------------------------------------------------===//
// PatternMatcher
//===----------------------------------------------------------------------===//

PatternMatcher::PatternMatcher(EntryPointOp entry) : entry(entry) {
  for (auto [position, op] : llvm::enumerate(entry.getBody().front()))
    positions[&op] = position;
}

SmallVector<PatternMatch> PatternMatcher::match(pattern::PatternOp pattern,
                                                const Target &target,
                                                const llvm::DenseSet<Operation *> *taken) const {
  SmallVector<PatternMatch> matches;
  EntryPointOp entryPoint = entry;
  Value rootValue = pattern.getRootValue();
  if (!rootValue)
    return matches;
  auto rootLayer = rootValue.getDefiningOp<pattern::LayerOp>();
  PatternSearch search(pattern, positions, taken);
  for (Operation &op : entryPoint.getBody().front()) {
    if (!isLayerOp(&op) || op.getNumResults() != 1 ||
        (rootLayer && op.getName().getStringRef() != rootLayer.getOpName()) ||
        (taken && taken->contains(&op)))
      continue;
    Binding start;
    start.pending.emplace_back(rootValue, op.getResult(0));
    SmallVector<Binding> complete;
    search.search(std::move(start), complete);
    size_t firstOfRoot = matches.size();
    for (const Binding &binding : complete) {
      std::optional<PatternMatch> match = search.validate(binding, op.getResult(0));
      if (!match || llvm::any_of(llvm::drop_begin(matches, firstOfRoot),
                                 [&](const PatternMatch &other) {
                                   return other.layers == match->layers;
                                 }))
        continue;
      match->pattern = pattern;
      match->target = &target;
      match->benefit = static_cast<int64_t>(pattern.getBenefit());
      matches.push_back(std::move(*match));
    }
  }
  return matches;
}

} // namespace cgc::compiler
