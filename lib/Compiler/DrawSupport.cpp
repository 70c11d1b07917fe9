//===- DrawSupport.cpp - what both pictures of a program share ------------===//

#include "DrawSupport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace cgc::compiler::draw {

namespace {

constexpr llvm::StringLiteral kNameAttr = "cgc.name";

/// Fill, tint and stroke; targets with patterns take cool colors (the spec
/// draws subgraphs blue), fallback targets warm ones.
constexpr const char *kPatternColors[][3] = {
    {"#66bbff", "#eaf5ff", "#2b7bbf"},
    {"#a99cff", "#f1eeff", "#6a5acd"},
    {"#5fd3c4", "#e7f8f5", "#2a9d8f"},
    {"#8fb8ff", "#eef4ff", "#3d6fc9"},
};
constexpr const char *kFallbackColors[][3] = {
    {"#ffb366", "#fff3e6", "#d9822b"},
    {"#ff9a9a", "#fff0f0", "#c94a4a"},
    {"#f5cf5b", "#fff9e5", "#b8941f"},
};

} // namespace

SmallVector<ProgramArgument> classifyArguments(const ProgramAccesses &accesses) {
  ProgramOp program = accesses.program;
  llvm::DenseSet<Value> written;
  for (const SubgraphStep &step : accesses.steps)
    for (const Access &access : step.operands)
      if (access.written)
        written.insert(access.value);
  SmallVector<ProgramArgument> arguments;
  unsigned numInputs = 0, numOutputs = 0;
  for (BlockArgument argument : program.getArguments()) {
    ProgramArgument &entry = arguments.emplace_back();
    entry.argument = argument;
    if (auto memref = dyn_cast<MemRefType>(argument.getType()))
      entry.bytes = memref.getByteSize();
    unsigned number = argument.getArgNumber();
    if (argument == accesses.scratch) {
      entry.role = ArgumentRole::Scratch;
      entry.label = "scratch";
      continue;
    }
    entry.role = written.contains(argument) ? ArgumentRole::Output : ArgumentRole::Input;
    unsigned &count = entry.role == ArgumentRole::Output ? numOutputs : numInputs;
    if (auto name = program.getArgAttrOfType<StringAttr>(number, kNameAttr);
        name && !name.getValue().empty())
      entry.label = name.getValue().str();
    else
      entry.label =
          (entry.role == ArgumentRole::Output ? "output" : "input") + std::to_string(count);
    ++count;
    if (auto offset = program.getArgAttrOfType<IntegerAttr>(number, kScratchOffsetAttr);
        offset && accesses.scratch && offset.getInt() >= 0)
      entry.scratchOffset = offset.getInt();
  }
  return arguments;
}

ValueNames::ValueNames(ModuleOp module, ArrayRef<ProgramArgument> arguments) : state(module) {
  for (const ProgramArgument &argument : arguments)
    labels[argument.argument] = argument.label;
}

std::string ValueNames::getSSAName(Value value) {
  std::string name;
  llvm::raw_string_ostream os(name);
  value.printAsOperand(os, state);
  return name;
}

std::string ValueNames::getLabel(Value value) {
  auto it = labels.find(value);
  if (it != labels.end())
    return it->second;
  if (auto constant = value.getDefiningOp<ConstantOp>())
    return constant.getName().str();
  return getSSAName(value);
}

std::map<std::string, TargetStyle> assignTargetStyles(const ProgramAccesses &accesses) {
  std::map<std::string, TargetStyle> styles;
  std::map<std::string, bool> hasPattern;
  for (const SubgraphStep &step : accesses.steps) {
    SubgraphOp subgraph = step.subgraph;
    std::string origin = subgraph.getOrigin().str();
    ++styles[origin].numInvocations;
    hasPattern[origin] |= !getPatternName(subgraph).empty();
  }
  unsigned numPatternTargets = 0, numFallbackTargets = 0;
  for (auto &[origin, style] : styles) {
    style.fallback = !hasPattern[origin];
    const char *const *colors =
        style.fallback ? kFallbackColors[numFallbackTargets++ % std::size(kFallbackColors)]
                       : kPatternColors[numPatternTargets++ % std::size(kPatternColors)];
    style.fill = colors[0];
    style.tint = colors[1];
    style.stroke = colors[2];
  }
  return styles;
}

llvm::StringRef getPatternName(SubgraphOp subgraph) {
  if (auto pattern = subgraph->getAttrOfType<StringAttr>(kPatternAttr))
    return pattern.getValue();
  return "";
}

std::string describeLayers(SubgraphOp subgraph) {
  FunctionalDefinitionOp definition = subgraph.getDefinition();
  if (!definition || definition.isExternal())
    return "";
  std::string layers;
  for (Operation &op : definition.getBody().front()) {
    if (isa<ReturnOp>(op))
      continue;
    if (!layers.empty())
      layers += '+';
    layers += op.getName().stripDialect().str();
  }
  return layers;
}

std::string formatCount(size_t number, llvm::StringRef singular, llvm::StringRef plural) {
  return std::to_string(number) + " " + (number == 1 ? singular : plural).str();
}

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = bytes;
  unsigned unit = 0;
  for (value /= 1024; value >= 1024 && unit + 1 < std::size(units); value /= 1024)
    ++unit;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format(value < 10    ? "%.2f"
                     : value < 100 ? "%.1f"
                                   : "%.0f",
                     value)
     << ' ' << units[unit];
  return text;
}

std::string formatType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

FailureOr<std::optional<SmallVector<unsigned>>> getDependsOn(const ProgramAccesses &accesses,
                                                             unsigned index) {
  InvokeOp invoke = accesses.invocations[index].invoke;
  Attribute attribute = invoke->getAttr(kDependsOnAttr);
  if (!attribute)
    return std::optional<SmallVector<unsigned>>();
  auto positions = dyn_cast<DenseI64ArrayAttr>(attribute);
  if (!positions)
    return invoke.emitOpError() << "has '" << kDependsOnAttr
                                << "' that is not an array<i64> of invocation positions";
  SmallVector<unsigned> dependsOn;
  for (int64_t position : positions.asArrayRef()) {
    if (position < 0 || position >= static_cast<int64_t>(index))
      return invoke.emitOpError() << "(program invocation #" << index << ") has '" << kDependsOnAttr
                                  << "' naming invocation #" << position
                                  << ", which is not an earlier one";
    dependsOn.push_back(position);
  }
  return std::optional<SmallVector<unsigned>>(std::move(dependsOn));
}

} // namespace cgc::compiler::draw
