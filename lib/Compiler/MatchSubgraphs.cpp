//===- MatchSubgraphs.cpp - stage 1: target patterns -> subgraph calls ----===//
//
// Input IR -> the matched stage. PatternMatcher finds the candidates of every
// pattern of every target; selection is greedy over layers not yet taken, in
// the order (benefit, layers, root position), and runs in rounds: each round
// offers the newly selected candidates to their targets, one
// CGC_SUBGRAPH_SPECIALIZATION_REQUEST per target, and the rejected ones free
// their layers for the next round, until a round rejects nothing. Accepted
// candidates stay selected, so a later round only fills the gaps. A round
// offers one benefit, the highest left; after a round that accepted
// something, the patterns are matched again around the accepted subgraphs,
// whose layers a chain may now end at, before a lower benefit gets its turn:
// ResNet's shortcut convolution reads, on its own, as a chain running into
// the residual add that the main branch's convolution took, so only this
// second look finds it as a convolution alone, at its pattern's benefit.
// Accepted
// matches become pattern subgraphs, every other live layer a one-layer
// subgraph of the fallback target, and the entry point calls them; last,
// structurally identical subgraphs of one origin become one symbol.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Compiler.h"
#include "cgc/Compiler/Passes.h"

#include "PatternMatcher.h"

#include "cgc/Dialect/CGCPattern/IR/KnownConstraints.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace cgc {
#define GEN_PASS_DEF_MATCHSUBGRAPHS
#include "cgc/Compiler/Passes.h.inc"
} // namespace cgc

using namespace mlir;

namespace cgc::compiler {
namespace {

/// The discardable subgraph attribute recording a pattern's `cgc.alignment`
/// request (bytes) for memory planning.
constexpr llvm::StringLiteral kAlignmentAttr = "cgc.alignment";

bool isLayerOp(Operation *op) {
  return op->getDialect() && isa<op::CGCOpDialect>(op->getDialect());
}

/// What one subgraph computes and who implements it.
struct SubgraphContents {
  Location loc;
  StringRef origin;
  /// The pattern it matched; empty for a fallback subgraph.
  StringRef patternName;
  uint64_t alignment = 0;
  /// The definition's arguments (values outside `layers`), its layers in
  /// program order and the values it returns.
  ArrayRef<Value> arguments;
  ArrayRef<Operation *> layers;
  ArrayRef<Value> results;
};

StringRef getPatternName(const PatternMatch &match) {
  return pattern::PatternOp(match.pattern).getSymName();
}

/// The values a match's subgraph returns: the root, then the outputs.
SmallVector<Value> getResults(const PatternMatch &match) {
  SmallVector<Value> results{match.root};
  llvm::append_range(results, match.outputs);
  return results;
}

/// What a match's subgraph holds; `results` must outlive it.
SubgraphContents getContents(const PatternMatch &match, ArrayRef<Value> results) {
  return {match.root.getLoc(), match.target->name, getPatternName(match),
          match.alignment, match.inputs, match.layers, results};
}

/// Builds `cgc.subgraph @name` at `builder`'s insertion point, with one
/// `cgc.functional_definition private @<name>_functional` made of clones of
/// the layers.
SubgraphOp buildSubgraph(OpBuilder &builder, StringRef name, const SubgraphContents &contents) {
  OpBuilder::InsertionGuard guard(builder);
  auto subgraph = SubgraphOp::create(builder, contents.loc, builder.getStringAttr(name),
                                     builder.getStringAttr(contents.origin));
  if (!contents.patternName.empty())
    subgraph->setAttr(kPatternAttr, builder.getStringAttr(contents.patternName));
  if (contents.alignment)
    subgraph->setAttr(kAlignmentAttr,
                      builder.getI64IntegerAttr(static_cast<int64_t>(contents.alignment)));
  builder.setInsertionPointToStart(&subgraph.getBody().emplaceBlock());
  auto typesOf = [](ArrayRef<Value> values) {
    return llvm::map_to_vector(values, [](Value value) { return value.getType(); });
  };
  auto definition = FunctionalDefinitionOp::create(
      builder, contents.loc, (name + "_functional").str(),
      builder.getFunctionType(typesOf(contents.arguments), typesOf(contents.results)));
  definition.setPrivate();
  builder.setInsertionPointToStart(&definition.getBody().front());
  IRMapping mapping;
  mapping.map(contents.arguments, definition.getArguments());
  for (Operation *layer : contents.layers)
    builder.clone(*layer, mapping);
  SmallVector<Value> results =
      llvm::map_to_vector(contents.results, [&](Value value) { return mapping.lookup(value); });
  ReturnOp::create(builder, contents.loc, results);
  return subgraph;
}

/// Whether two subgraphs are one: same origin, pattern and alignment, and
/// definitions equal up to value and symbol names.
bool areIdentical(SubgraphOp lhs, SubgraphOp rhs) {
  FunctionalDefinitionOp lhsDefinition = lhs.getDefinition();
  FunctionalDefinitionOp rhsDefinition = rhs.getDefinition();
  return lhs.getOrigin() == rhs.getOrigin() &&
         lhs->getAttr(kPatternAttr) == rhs->getAttr(kPatternAttr) &&
         lhs->getAttr(kAlignmentAttr) == rhs->getAttr(kAlignmentAttr) &&
         lhsDefinition.getFunctionType() == rhsDefinition.getFunctionType() &&
         lhsDefinition.getArgAttrsAttr() == rhsDefinition.getArgAttrsAttr() &&
         lhsDefinition.getResAttrsAttr() == rhsDefinition.getResAttrsAttr() &&
         OperationEquivalence::isRegionEquivalentTo(&lhsDefinition.getBody(),
                                                    &rhsDefinition.getBody(),
                                                    OperationEquivalence::IgnoreLocations);
}

/// Matches one entry point; holds the candidates and their fate across the
/// selection rounds.
class SubgraphMatching {
public:
  SubgraphMatching(ModuleOp module, EntryPointOp entry, ArrayRef<const Target *> targets,
                   const MatchOptions &options, MatchReport &report)
      : module(module), entry(entry), targets(targets), options(options), report(report),
        builder(module.getContext()) {}

  LogicalResult run();

private:
  enum class Decision { Open, Accepted, Rejected };

  void dropDeadLayers();
  /// Appends the matches not yet among the candidates, avoiding `taken`.
  /// Returns how many were added.
  unsigned findCandidates(const llvm::DenseSet<Operation *> *taken = nullptr);
  llvm::DenseSet<Operation *> getAcceptedLayers() const;
  LogicalResult selectAndSpecialize();
  SmallVector<unsigned> selectRound() const;
  LogicalResult offer(const Target &target, ArrayRef<unsigned> indices);
  void rewrite();
  void rewriteMatch(PatternMatch &match);
  void rewriteFallback(Operation *layer);
  void deduplicate();
  std::string uniqueName(StringRef stem);

  ModuleOp module;
  EntryPointOp entry;
  ArrayRef<const Target *> targets;
  const MatchOptions &options;
  MatchReport &report;
  OpBuilder builder;

  /// Every candidate of every pattern, in selection order.
  SmallVector<PatternMatch> candidates;
  SmallVector<Decision> decisions;
  llvm::StringSet<> usedNames;
  /// The subgraphs created, in order.
  SmallVector<SubgraphOp> subgraphs;
};

void SubgraphMatching::dropDeadLayers() {
  Block &body = entry.getBody().front();
  llvm::DenseSet<Value> live(body.getTerminator()->operand_begin(),
                             body.getTerminator()->operand_end());
  SmallVector<Operation *> dead;
  // Layers are in dataflow order, so one backward sweep finds every live one.
  for (Operation &op : llvm::reverse(body)) {
    if (!isLayerOp(&op))
      continue;
    if (llvm::none_of(op.getResults(), [&](Value result) { return live.contains(result); })) {
      dead.push_back(&op);
      continue;
    }
    ++report.numLayers;
    live.insert(op.operand_begin(), op.operand_end());
  }
  // Users first: `dead` is in reverse program order.
  for (Operation *op : dead)
    op->erase();
}

unsigned SubgraphMatching::findCandidates(const llvm::DenseSet<Operation *> *taken) {
  PatternMatcher matcher(entry);
  SmallVector<PatternMatch> found;
  for (const Target *target : targets) {
    if (!target->declaration)
      continue;
    for (auto pattern : target->declaration.get().getBodyBlock()->getOps<pattern::PatternOp>())
      for (PatternMatch &match : matcher.match(pattern, *target, taken))
        if (llvm::none_of(candidates, [&](const PatternMatch &known) {
              return known.pattern == match.pattern && known.layers == match.layers;
            }))
          found.push_back(std::move(match));
  }
  // Among equals, the order of targets, then of their patterns.
  SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, found.size()));
  llvm::sort(order, [&](unsigned lhsIndex, unsigned rhsIndex) {
    const PatternMatch &lhs = found[lhsIndex], &rhs = found[rhsIndex];
    if (lhs.benefit != rhs.benefit)
      return lhs.benefit > rhs.benefit;
    if (lhs.layers.size() != rhs.layers.size())
      return lhs.layers.size() > rhs.layers.size();
    unsigned lhsRoot = matcher.getPosition(lhs.root.getDefiningOp());
    unsigned rhsRoot = matcher.getPosition(rhs.root.getDefiningOp());
    return lhsRoot != rhsRoot ? lhsRoot < rhsRoot : lhsIndex < rhsIndex;
  });
  for (unsigned index : order)
    candidates.push_back(std::move(found[index]));
  decisions.resize(candidates.size(), Decision::Open);
  report.numCandidates = candidates.size();
  return found.size();
}

llvm::DenseSet<Operation *> SubgraphMatching::getAcceptedLayers() const {
  llvm::DenseSet<Operation *> taken;
  for (auto [match, decision] : llvm::zip(candidates, decisions))
    if (decision == Decision::Accepted)
      taken.insert(match.layers.begin(), match.layers.end());
  return taken;
}

SmallVector<unsigned> SubgraphMatching::selectRound() const {
  llvm::DenseSet<Operation *> taken = getAcceptedLayers();
  auto isOpen = [&](unsigned index) {
    return decisions[index] == Decision::Open &&
           llvm::none_of(candidates[index].layers,
                         [&](Operation *op) { return taken.contains(op); });
  };
  // One benefit per round, the highest left: what it accepts is matched
  // around before a lower benefit gets its turn.
  std::optional<int64_t> tier;
  for (unsigned index : llvm::seq<unsigned>(0, candidates.size()))
    if (isOpen(index) && (!tier || candidates[index].benefit > *tier))
      tier = candidates[index].benefit;
  SmallVector<unsigned> selected;
  for (unsigned index : llvm::seq<unsigned>(0, candidates.size())) {
    if (candidates[index].benefit != tier || !isOpen(index))
      continue;
    const PatternMatch &match = candidates[index];
    taken.insert(match.layers.begin(), match.layers.end());
    selected.push_back(index);
  }
  return selected;
}

LogicalResult SubgraphMatching::offer(const Target &target, ArrayRef<unsigned> indices) {
  OpBuilder requestBuilder(module.getContext());
  OwningOpRef<ModuleOp> request(ModuleOp::create(requestBuilder, entry.getLoc()));
  requestBuilder.setInsertionPointToEnd(request->getBodyBlock());
  SmallVector<std::pair<std::string, unsigned>> offered;
  for (unsigned index : indices) {
    const PatternMatch &match = candidates[index];
    std::string name = (getPatternName(match) + "_" + Twine(index)).str();
    SmallVector<Value> results = getResults(match);
    buildSubgraph(requestBuilder, name, getContents(match, results));
    offered.emplace_back(std::move(name), index);
  }
  report.numOffered += indices.size();
  if (failed(verify(*request)) ||
      failed(interchange::verifyInterface(
          *request, interchange::Interface::SubgraphSpecializationRequest)))
    return module.emitError() << "the specialization request for target '" << target.name
                              << "' is not a valid CGC_SUBGRAPH_SPECIALIZATION_REQUEST";

  llvm::StringSet<> accepted;
  if (target.specialize) {
    FailureOr<llvm::StringSet<>> reply = target.specialize(*request);
    if (failed(reply))
      return module.emitError() << "target '" << target.name
                                << "' failed to answer the specialization request for "
                                << indices.size() << " subgraph(s)";
    accepted = std::move(*reply);
  } else {
    for (auto &[name, index] : offered)
      accepted.insert(name);
  }
  for (const auto &name : accepted)
    if (llvm::none_of(offered, [&](const auto &offer) { return offer.first == name.getKey(); }))
      return module.emitError() << "target '" << target.name << "' accepted '@"
                                << name.getKey()
                                << "', which its specialization request did not offer";
  for (auto &[name, index] : offered) {
    bool isAccepted = accepted.contains(name);
    decisions[index] = isAccepted ? Decision::Accepted : Decision::Rejected;
    report.numRejected += !isAccepted;
  }
  return success();
}

LogicalResult SubgraphMatching::selectAndSpecialize() {
  for (;;) {
    SmallVector<unsigned> selected = selectRound();
    if (selected.empty())
      return success();
    unsigned acceptedBefore = llvm::count(decisions, Decision::Accepted);
    for (const Target *target : targets) {
      SmallVector<unsigned> ofTarget = llvm::filter_to_vector(
          selected, [&](unsigned index) { return candidates[index].target == target; });
      if (!ofTarget.empty() && failed(offer(*target, ofTarget)))
        return failure();
    }
    // Look again around what this round accepted: chains may now end where
    // an accepted subgraph begins.
    if (static_cast<unsigned>(llvm::count(decisions, Decision::Accepted)) != acceptedBefore) {
      llvm::DenseSet<Operation *> taken = getAcceptedLayers();
      findCandidates(&taken);
    }
  }
}

std::string SubgraphMatching::uniqueName(StringRef stem) {
  unsigned number = subgraphs.size();
  std::string name = (stem + "_" + Twine(number)).str();
  for (unsigned suffix = 1; !usedNames.insert(name).second; ++suffix)
    name = (stem + "_" + Twine(number) + "_" + Twine(suffix)).str();
  return name;
}

void SubgraphMatching::rewriteMatch(PatternMatch &match) {
  // Earlier rewrites replaced some inputs by call results: read them again.
  llvm::DenseSet<Operation *> matched(match.layers.begin(), match.layers.end());
  llvm::SetVector<Value> inputs;
  for (Operation *layer : match.layers)
    for (Value operand : layer->getOperands())
      if (!matched.contains(operand.getDefiningOp()))
        inputs.insert(operand);
  match.inputs.assign(inputs.begin(), inputs.end());
  std::string name = uniqueName(getPatternName(match));
  builder.setInsertionPoint(entry);
  SmallVector<Value> results = getResults(match);
  SubgraphOp subgraph = buildSubgraph(builder, name, getContents(match, results));
  subgraphs.push_back(subgraph);
  Operation *rootOp = match.root.getDefiningOp();
  builder.setInsertionPoint(rootOp);
  // Valid at the root's position: the match is convex, so its inputs are
  // defined before the root, and only the root and the outputs are used
  // outside, the outputs after the root.
  auto call = CallOp::create(
      builder, rootOp->getLoc(),
      llvm::map_to_vector(results, [](Value result) { return result.getType(); }),
      FlatSymbolRefAttr::get(subgraph.getSymNameAttr()), match.inputs);
  for (auto [result, replacement] : llvm::zip(results, call.getResults()))
    result.replaceAllUsesWith(replacement);
  for (Operation *layer : llvm::reverse(match.layers))
    layer->erase();
  ++report.numPatternSubgraphs;
  report.numLayersInPatterns += match.layers.size();
}

void SubgraphMatching::rewriteFallback(Operation *layer) {
  llvm::SetVector<Value> operands(layer->operand_begin(), layer->operand_end());
  SmallVector<Value> results;
  for (Value result : layer->getResults())
    if (!result.use_empty())
      results.push_back(result);
  std::string name = uniqueName(layer->getName().stripDialect());
  builder.setInsertionPoint(entry);
  SubgraphOp subgraph = buildSubgraph(builder, name,
                                      {layer->getLoc(), options.fallbackTarget, {}, 0,
                                       operands.getArrayRef(), layer, results});
  subgraphs.push_back(subgraph);
  builder.setInsertionPoint(layer);
  auto call = CallOp::create(
      builder, layer->getLoc(),
      llvm::map_to_vector(results, [](Value result) { return result.getType(); }),
      FlatSymbolRefAttr::get(subgraph.getSymNameAttr()), operands.getArrayRef());
  for (auto [result, replacement] : llvm::zip(results, call.getResults()))
    result.replaceAllUsesWith(replacement);
  layer->erase();
  ++report.numFallbackSubgraphs;
}

void SubgraphMatching::rewrite() {
  llvm::DenseMap<Operation *, PatternMatch *> matchOfRoot;
  llvm::DenseSet<Operation *> inMatch;
  for (auto [match, decision] : llvm::zip(candidates, decisions)) {
    if (decision != Decision::Accepted)
      continue;
    matchOfRoot[match.root.getDefiningOp()] = &match;
    inMatch.insert(match.layers.begin(), match.layers.end());
  }
  SmallVector<Operation *> layers;
  for (Operation &op : entry.getBody().front())
    if (isLayerOp(&op))
      layers.push_back(&op);
  // In program order, so that subgraph numbers follow the calls. A match's
  // other layers precede its root and are erased with it.
  for (Operation *layer : layers) {
    if (PatternMatch *match = matchOfRoot.lookup(layer))
      rewriteMatch(*match);
    else if (!inMatch.contains(layer))
      rewriteFallback(layer);
  }
}

void SubgraphMatching::deduplicate() {
  if (!options.deduplicate) {
    report.numSymbols = subgraphs.size();
    return;
  }
  // Only subgraphs of one origin and signature can be identical.
  llvm::DenseMap<std::pair<Attribute, Type>, SmallVector<SubgraphOp>> kept;
  llvm::DenseMap<StringAttr, StringAttr> replacement;
  for (SubgraphOp subgraph : subgraphs) {
    SmallVector<SubgraphOp> &similar =
        kept[{subgraph.getOriginAttr(), subgraph.getDefinition().getFunctionType()}];
    auto *same = llvm::find_if(
        similar, [&](SubgraphOp other) { return areIdentical(other, subgraph); });
    if (same == similar.end()) {
      similar.push_back(subgraph);
      ++report.numSymbols;
      continue;
    }
    replacement[subgraph.getSymNameAttr()] = same->getSymNameAttr();
    subgraph.erase();
  }
  for (auto call : entry.getBody().front().getOps<CallOp>())
    if (StringAttr first = replacement.lookup(call.getCalleeAttr().getAttr()))
      call.setCalleeAttr(FlatSymbolRefAttr::get(first));
}

LogicalResult SubgraphMatching::run() {
  for (Operation &op : module.getBodyBlock()->getOperations())
    usedNames.insert(SymbolTable::getSymbolName(&op).getValue());
  dropDeadLayers();
  findCandidates();
  if (failed(selectAndSpecialize()))
    return failure();
  rewrite();
  deduplicate();
  return success();
}

/// Checks that `module` is Input IR and `targets` are usable: named, distinct,
/// not the fallback target, with declarations this matcher can evaluate.
FailureOr<EntryPointOp> verifyMatchInputs(ModuleOp module, ArrayRef<const Target *> targets,
                                          const MatchOptions &options) {
  SmallVector<EntryPointOp> entries;
  for (Operation &op : module.getBodyBlock()->getOperations()) {
    auto entry = dyn_cast<EntryPointOp>(op);
    if (!entry)
      return op.emitOpError() << "cannot be matched: matching takes Input IR (one "
                                 "cgc.entry_point and nothing else)";
    entries.push_back(entry);
  }
  if (entries.size() != 1)
    return module.emitError() << "matching takes Input IR with exactly one cgc.entry_point, found "
                              << entries.size();
  EntryPointOp entry = entries.front();
  if (entry.isExternal())
    return entry.emitOpError() << "has no body to match";
  if (options.fallbackTarget.empty())
    return module.emitError() << "matching needs a name for the fallback target";
  llvm::StringSet<> names;
  for (const Target *target : targets) {
    if (target->name.empty())
      return module.emitError() << "a target without a name cannot implement subgraphs";
    if (target->name == options.fallbackTarget)
      return module.emitError() << "target '" << target->name
                                << "' declares patterns but is also the fallback target";
    if (!names.insert(target->name).second)
      return module.emitError() << "two targets are named '" << target->name << "'";
    if (target->declaration && failed(pattern::verifyKnownConstraints(*target->declaration)))
      return module.emitError() << "target '" << target->name
                                << "' declares a pattern this compiler cannot evaluate";
  }
  return entry;
}

} // namespace

LogicalResult matchSubgraphs(ModuleOp module, ArrayRef<const Target *> targets,
                             const MatchOptions &options, MatchReport *report) {
  FailureOr<EntryPointOp> entry = verifyMatchInputs(module, targets, options);
  if (failed(entry))
    return failure();
  MatchReport local;
  MatchReport &out = report ? *report : local;
  out = MatchReport();
  return SubgraphMatching(module, *entry, targets, options, out).run();
}

} // namespace cgc::compiler

namespace cgc {
namespace {
struct MatchSubgraphsPass : impl::MatchSubgraphsBase<MatchSubgraphsPass> {
  using MatchSubgraphsBase::MatchSubgraphsBase;
  void runOnOperation() override;
};

void MatchSubgraphsPass::runOnOperation() {
  ModuleOp module = getOperation();
  // The targets of `cgc-opt`: declarations from files, and an answer to
  // specialization that rejects exactly the patterns named in `reject`.
  llvm::StringSet<> rejectedPatterns;
  for (const std::string &name : reject)
    rejectedPatterns.insert(name);
  auto specialize = [rejectedPatterns](ModuleOp request) -> FailureOr<llvm::StringSet<>> {
    llvm::StringSet<> accepted;
    for (auto subgraph : request.getBodyBlock()->getOps<SubgraphOp>()) {
      auto patternName = subgraph->getAttrOfType<StringAttr>(compiler::kPatternAttr);
      if (!patternName || !rejectedPatterns.contains(patternName.getValue()))
        accepted.insert(subgraph.getSymName());
    }
    return accepted;
  };
  std::vector<compiler::Target> targets;
  for (const std::string &spec : declarations) {
    FailureOr<compiler::Target> target =
        compiler::loadDeclarationFile(&getContext(), spec, module.getLoc());
    if (failed(target))
      return signalPassFailure();
    target->specialize = specialize;
    targets.push_back(std::move(*target));
  }
  // A misspelled name would silently reject nothing.
  for (const auto &name : rejectedPatterns) {
    bool declared = llvm::any_of(targets, [&](const compiler::Target &target) {
      return SymbolTable::lookupSymbolIn(*target.declaration, name.getKey()) != nullptr;
    });
    if (!declared) {
      module.emitError() << "reject names '" << name.getKey()
                         << "', which is not a pattern of any declared target";
      return signalPassFailure();
    }
  }

  SmallVector<const compiler::Target *> targetPointers = llvm::map_to_vector(
      targets, [](const compiler::Target &target) { return &target; });
  compiler::MatchOptions options;
  options.fallbackTarget = fallbackTarget;
  options.deduplicate = deduplicate;
  if (failed(compiler::matchSubgraphs(module, targetPointers, options)))
    return signalPassFailure();
}
} // namespace
} // namespace cgc
