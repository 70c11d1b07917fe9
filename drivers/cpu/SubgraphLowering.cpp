//===- SubgraphLowering.cpp - a subgraph's kernels and scratch layout ------===//
//
// Scratch layout is first fit with liveness reuse: a value's block is taken
// when the layer producing it runs and given back after its last reader, so
// values whose lifetimes do not overlap share memory. A layer's outputs are
// placed before its dying inputs are released, because kernels assume that
// their inputs and outputs do not overlap.
//
//===----------------------------------------------------------------------===//

#include "SubgraphLowering.h"
#include "ScratchAllocator.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <string>

using namespace mlir;

namespace cgc::cpu {

namespace {

uint64_t getByteSize(Value value) { return cast<TensorType>(value.getType()).getByteSize(); }

llvm::Error makeError(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The fused convolution kernel over all arguments, writing result 0.
LoweredSubgraph lowerFused(FunctionalDefinitionOp definition, KernelFn kernel) {
  LoweredStep step;
  step.kernel = std::move(kernel);
  for (BlockArgument argument : definition.getArguments())
    step.inputs.push_back({DefinitionRef::Kind::Argument, argument.getArgNumber(), 0,
                           getByteSize(argument)});
  step.outputs.push_back({DefinitionRef::Kind::Result, 0, 0,
                          cast<TensorType>(definition.getResultTypes()[0]).getByteSize()});
  LoweredSubgraph lowered;
  lowered.steps.push_back(std::move(step));
  lowered.isFused = true;
  return lowered;
}

} // namespace

llvm::Expected<LoweredSubgraph> lowerSubgraph(SubgraphOp subgraph) {
  std::string context = ("subgraph @" + subgraph.getSymName()).str();
  FunctionalDefinitionOp definition = subgraph.getDefinition();
  if (!definition || definition.getBody().empty())
    return makeError(context + ": has no functional definition");
  Block &body = definition.getBody().front();
  auto terminator = cast<ReturnOp>(body.getTerminator());

  if (definition.getNumResults() == 1) {
    if (std::optional<llvm::Expected<KernelFn>> fused = buildFusedConvolution(definition)) {
      if (*fused)
        return lowerFused(definition, std::move(**fused));
      // The pattern matched but something in it has no fused kernel: the
      // layers may still have kernels of their own.
      llvm::consumeError(fused->takeError());
    }
  }

  // Where each value lives: arguments and returned values in the invocation's
  // memrefs, everything else in scratch.
  llvm::DenseMap<Value, DefinitionRef> location;
  for (BlockArgument argument : definition.getArguments())
    location[argument] = {DefinitionRef::Kind::Argument, argument.getArgNumber(), 0,
                          getByteSize(argument)};
  for (auto [index, value] : llvm::enumerate(terminator.getOperands()))
    if (isa<OpResult>(value) && !location.count(value))
      location[value] = {DefinitionRef::Kind::Result, static_cast<unsigned>(index), 0,
                         getByteSize(value)};

  llvm::DenseMap<Value, Operation *> lastReader;
  for (Operation &op : body.without_terminator())
    for (Value operand : op.getOperands())
      lastReader[operand] = &op;

  LoweredSubgraph lowered;
  drivers::ScratchAllocator scratch(kScratchAlignment);
  for (Operation &op : body.without_terminator()) {
    llvm::Expected<KernelFn> kernel = buildKernel(&op);
    if (!kernel)
      return makeError(context + ": " + llvm::toString(kernel.takeError()));

    LoweredStep step;
    step.kernel = std::move(*kernel);
    for (Value operand : op.getOperands())
      step.inputs.push_back(location.lookup(operand));
    for (Value result : op.getResults()) {
      auto [it, placed] = location.try_emplace(result);
      if (placed) {
        uint64_t size = getByteSize(result);
        it->second = {DefinitionRef::Kind::Scratch, 0, scratch.allocate(size), size};
      }
      step.outputs.push_back(it->second);
    }
    lowered.steps.push_back(std::move(step));

    // Release scratch that nothing reads any more: inputs read here for the
    // last time, and results nobody reads.
    llvm::DenseSet<Value> released;
    auto releaseIfDead = [&](Value value, bool dead) {
      const DefinitionRef &ref = location[value];
      if (dead && ref.kind == DefinitionRef::Kind::Scratch && released.insert(value).second)
        scratch.release(ref.offset, ref.size);
    };
    for (Value operand : op.getOperands())
      releaseIfDead(operand, lastReader.lookup(operand) == &op);
    for (Value result : op.getResults())
      releaseIfDead(result, !lastReader.count(result));
  }

  // Results that are not where their producer wrote them: an argument
  // returned as is, or a value returned more than once.
  for (auto [index, value] : llvm::enumerate(terminator.getOperands())) {
    const DefinitionRef &source = location[value];
    if (source.kind == DefinitionRef::Kind::Result && source.index == index)
      continue;
    LoweredStep copy;
    copy.isCopy = true;
    copy.inputs.push_back(source);
    copy.outputs.push_back({DefinitionRef::Kind::Result, static_cast<unsigned>(index), 0,
                            getByteSize(value)});
    lowered.steps.push_back(std::move(copy));
  }
  lowered.scratchSize = scratch.getPeak();
  return lowered;
}

} // namespace cgc::cpu
