//===- ProgramPlan.cpp - Output IR -> the runtime's plan -------------------===//

#include "ProgramPlan.h"

#include "CompileModel.h"
#include "Files.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"
#include "cgc/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>

using namespace mlir;

namespace cgc::runtime {

namespace {

std::optional<DType> toDType(Type type) {
  return llvm::TypeSwitch<Type, std::optional<DType>>(type)
      .Case([](Float32Type) { return DType::Float32; })
      .Case([](Float16Type) { return DType::Float16; })
      .Case([](BFloat16Type) { return DType::BFloat16; })
      .Case([](Int8Type) { return DType::Int8; })
      .Case([](UInt8Type) { return DType::UInt8; })
      .Case([](Int16Type) { return DType::Int16; })
      .Case([](Int32Type) { return DType::Int32; })
      .Case([](Int64Type) { return DType::Int64; })
      .Case([](BoolType) { return DType::Bool; })
      .Case([](Float64Type) { return DType::Float64; })
      .Case([](UInt16Type) { return DType::UInt16; })
      .Case([](UInt32Type) { return DType::UInt32; })
      .Case([](UInt64Type) { return DType::UInt64; })
      .Default([](Type) { return std::nullopt; });
}

/// Collects MLIR diagnostics as text for an Error.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : stream(text), handler(sourceMgr, context, stream) {}
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }
  Error error(const std::string &what) {
    std::string details = llvm::StringRef(text).trim().str();
    return Error{what + (details.empty() ? "" : ":\n" + details)};
  }

private:
  std::string text;
  llvm::raw_string_ostream stream;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler;
};

/// Records the phase `name` of `plan` from `begin` to now.
void addPhase(ProgramPlan &plan, std::string name, std::chrono::steady_clock::time_point begin) {
  plan.phases.push_back({std::move(name), "load", begin, std::chrono::steady_clock::now()});
}

/// The subgraphs `partition` invokes, in order of first invocation.
std::vector<SubgraphInfo> describeSubgraphs(PartitionOp partition, SymbolTable &symbols) {
  std::vector<SubgraphInfo> subgraphs;
  partition.walk([&](InvokeOp invoke) {
    auto known = llvm::find_if(subgraphs, [&](const SubgraphInfo &info) {
      return info.name == invoke.getCallee();
    });
    if (known != subgraphs.end()) {
      ++known->numInvocations;
      return;
    }
    SubgraphInfo info{invoke.getCallee().str(), "", "", {}, 1};
    if (auto subgraph = symbols.lookup<SubgraphOp>(invoke.getCallee())) {
      info.origin = subgraph.getOrigin().str();
      if (auto pattern = subgraph->getAttrOfType<StringAttr>(compiler::kPatternAttr))
        info.pattern = pattern.str();
      if (FunctionalDefinitionOp definition = subgraph.getDefinition())
        definition.walk([&](Operation *op) {
          if (op != definition && !op->hasTrait<OpTrait::IsTerminator>())
            info.layers.push_back(op->getName().getStringRef().str());
        });
    }
    subgraphs.push_back(std::move(info));
  });
  return subgraphs;
}

/// Where a program value lives: an argument or constant plus a byte offset.
struct ValueLocation {
  PlanBinding::Source source;
  unsigned index;
  uint64_t offset;
};

class Planner {
public:
  Planner(cgc::ModuleOp module, ProgramOp program, ProgramPlan &plan)
      : module(module), program(program), plan(plan) {}
  Result<bool> run();

private:
  /// Each argument's `cgc.scratch_offset`, checked against the scratch
  /// argument (the program's last, `!cgc.memref<Nx!cgc.int8>`), which
  /// becomes `plan.scratchArgument` when any input is placed there.
  Result<llvm::SmallVector<std::optional<uint64_t>>> readScratchOffsets(const std::string &where);

  cgc::ModuleOp module;
  ProgramOp program;
  ProgramPlan &plan;
};

Result<llvm::SmallVector<std::optional<uint64_t>>>
Planner::readScratchOffsets(const std::string &where) {
  llvm::SmallVector<std::optional<uint64_t>> offsets(program.getNumArguments());
  unsigned last = program.getNumArguments() - 1;
  for (BlockArgument argument : program.getArguments()) {
    unsigned index = argument.getArgNumber();
    Attribute attr = program.getArgAttr(index, compiler::kScratchOffsetAttr);
    if (!attr)
      continue;
    std::string what = where + ": argument #" + std::to_string(index) + " (" +
                       compiler::kScratchOffsetAttr.str() + ")";
    auto offset = dyn_cast<IntegerAttr>(attr);
    if (!offset || offset.getValue().isNegative())
      return Error{what + ": expected a non-negative integer offset"};
    auto scratchType = cast<MemRefType>(program.getArgument(last).getType());
    if (index == last || scratchType.getRank() != 1 ||
        !isa<Int8Type>(scratchType.getElementType()) ||
        program.getArgAttr(last, compiler::kScratchOffsetAttr))
      return Error{what + ": an input placed in scratch needs the program's last argument to be "
                          "the scratch buffer (!cgc.memref<Nx!cgc.int8>)"};
    uint64_t begin = offset.getValue().getZExtValue();
    uint64_t size = cast<MemRefType>(argument.getType()).getByteSize();
    if (begin > scratchType.getByteSize() || size > scratchType.getByteSize() - begin)
      return Error{what + ": bytes [" + std::to_string(begin) + ", " +
                   std::to_string(begin + size) + ") lie outside the " +
                   std::to_string(scratchType.getByteSize()) + "-byte scratch buffer"};
    offsets[index] = begin;
    plan.scratchArgument = last;
  }
  return offsets;
}

Result<bool> Planner::run() {
  std::string where = "cgc.program @" + program.getName().str();
  plan.programName = program.getName().str();
  llvm::DenseMap<Value, ValueLocation> locations;
  // One PlanConstant (one device buffer) per name, permutation and element type.
  llvm::DenseMap<std::tuple<mlir::Attribute, mlir::Attribute, mlir::Type>, unsigned>
      constantIndex;

  // Program arguments: directly bound and written -> output; viewed -> scratch.
  llvm::SmallVector<bool> viewed(program.getNumArguments()), bound(program.getNumArguments()),
      written(program.getNumArguments());
  SymbolTable symbols(module);
  Result<llvm::SmallVector<std::optional<uint64_t>>> scratchOffsets = readScratchOffsets(where);
  if (!scratchOffsets)
    return scratchOffsets.error();
  for (BlockArgument argument : program.getArguments()) {
    unsigned index = argument.getArgNumber();
    // An input placed in scratch lives there: every use resolves to it.
    if (std::optional<uint64_t> offset = (*scratchOffsets)[index])
      locations[argument] = {PlanBinding::Source::Argument, *plan.scratchArgument, *offset};
    else
      locations[argument] = {PlanBinding::Source::Argument, index, 0};
  }

  for (Operation &op : program.getBody().front()) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto type = cast<MemRefType>(constant.getType());
      auto [it, inserted] = constantIndex.try_emplace(
          {constant.getNameAttr(), constant.getPermutationAttr(), type.getElementType()},
          plan.constants.size());
      if (inserted) {
        std::optional<DType> dtype = toDType(type.getElementType());
        if (!dtype)
          return Error{where + ": constant \"" + constant.getName().str() +
                       "\" has an element type the runtime does not know"};
        PlanConstant planConstant{constant.getName().str(), *dtype, type.getShape().vec(),
                                  type.getByteSize()};
        llvm::SmallVector<int64_t> permutation = constant.getPermutationList();
        planConstant.permutation.assign(permutation.begin(), permutation.end());
        llvm::SmallVector<int64_t> storedShape = constant.getStoredShape();
        planConstant.storedShape.assign(storedShape.begin(), storedShape.end());
        plan.constants.push_back(std::move(planConstant));
      }
      locations[constant.getResult()] = {PlanBinding::Source::Constant, it->second, 0};
    } else if (auto view = dyn_cast<ViewMemRefOp>(op)) {
      ValueLocation source = locations.lookup(view.getSource());
      if (auto argument = dyn_cast<BlockArgument>(view.getSource()))
        viewed[argument.getArgNumber()] = true;
      source.offset += view.getOffset();
      locations[view.getResult()] = source;
    } else if (auto invoke = dyn_cast<InvokeOp>(op)) {
      auto partition = symbols.lookup<PartitionOp>(invoke.getCallee());
      if (!partition)
        return Error{where + ": invokes @" + invoke.getCallee().str() + ", which is not a partition"};
      auto partitionIt = llvm::find_if(plan.partitions, [&](const PlanPartition &candidate) {
        return candidate.name == invoke.getCallee();
      });
      unsigned partitionIndex = partitionIt - plan.partitions.begin();
      if (partitionIt == plan.partitions.end())
        plan.partitions.push_back({invoke.getCallee().str(),
                                   static_cast<unsigned>(partition.getNumArguments()),
                                   {},
                                   describeSubgraphs(partition, symbols)});
      PlanInvocation invocation{partitionIndex, {}};
      for (auto [bindPoint, operand] : llvm::enumerate(invoke.getOperands())) {
        auto type = cast<MemRefType>(operand.getType());
        bool isWritten = partition.isBindPointWritten(bindPoint);
        ValueLocation location = locations.lookup(operand);
        if (auto argument = dyn_cast<BlockArgument>(operand)) {
          bound[argument.getArgNumber()] = true;
          written[argument.getArgNumber()] = written[argument.getArgNumber()] || isWritten;
        }
        invocation.bindings.push_back({location.source, location.index, location.offset,
                                       type.getByteSize(), type.getAlignment(), isWritten});
      }
      plan.invocations.push_back(std::move(invocation));
    }
  }

  for (BlockArgument argument : program.getArguments()) {
    unsigned index = argument.getArgNumber();
    auto type = cast<MemRefType>(argument.getType());
    std::optional<DType> dtype = toDType(type.getElementType());
    if (!dtype)
      return Error{where + ": argument #" + std::to_string(index) +
                   " has an element type the runtime does not know"};
    // An input placed in scratch stays an input whatever its uses say: the
    // role decides what each run uploads.
    std::optional<uint64_t> scratchOffset = (*scratchOffsets)[index];
    if (viewed[index] && bound[index] && !scratchOffset)
      return Error{where + ": argument #" + std::to_string(index) +
                   " is both viewed (cgc.view_memref) and bound directly; the runtime "
                   "takes each argument as either a scratch buffer or an input/output"};
    PlanArgument::Role role = PlanArgument::Role::Input;
    if (!scratchOffset) {
      if (viewed[index])
        role = PlanArgument::Role::Scratch;
      else if (written[index])
        role = PlanArgument::Role::Output;
      else if (!bound[index] && index + 1 == program.getNumArguments() && type.getRank() == 1 &&
               isa<Int8Type>(type.getElementType()))
        role = PlanArgument::Role::Scratch; // an unused (e.g. empty) trailing scratch buffer
    }
    std::string name;
    if (auto attr = program.getArgAttrOfType<StringAttr>(index, kArgumentNameAttr))
      name = attr.str();
    plan.arguments.push_back({role, *dtype, type.getShape().vec(), type.getByteSize(),
                              std::move(name), scratchOffset});
  }
  if (plan.scratchArgument &&
      plan.arguments[*plan.scratchArgument].role != PlanArgument::Role::Scratch)
    return Error{where + ": argument #" + std::to_string(*plan.scratchArgument) +
                 " holds inputs placed in scratch but the program binds it directly"};

  // Seal each partition as the driver will see it.
  auto sealBegin = std::chrono::steady_clock::now();
  for (PlanPartition &partition : plan.partitions) {
    FailureOr<OwningOpRef<cgc::ModuleOp>> isolated = isolatePartition(module, partition.name);
    if (failed(isolated))
      return Error{"partition @" + partition.name + ": cannot be isolated"};
    std::string bytes;
    llvm::raw_string_ostream stream(bytes);
    if (failed(interchange::writeContainer(**isolated, interchange::Interface::SubgraphPartition,
                                           stream)))
      return Error{"partition @" + partition.name +
                   ": its Partition IR does not validate as CGC_SUBGRAPH_PARTITION"};
    partition.container.assign(bytes.begin(), bytes.end());
  }
  addPhase(plan, "seal partitions", sealBegin);
  return true;
}

} // namespace

Result<ProgramPlan> loadProgramPlan(const std::string &path, const CompileRequest &request) {
  auto begin = std::chrono::steady_clock::now();
  Result<std::vector<std::byte>> bytes = readFile(path);
  if (!bytes)
    return Error{"model: " + bytes.error().message};
  auto end = std::chrono::steady_clock::now();
  Result<ProgramPlan> plan = loadProgramPlan(*bytes, path, request);
  if (plan)
    plan->phases.insert(plan->phases.begin(), {"read model file", "load", begin, end});
  return plan;
}

Result<ProgramPlan> loadProgramPlan(std::span<const std::byte> bytes, const std::string &path,
                                    const CompileRequest &request) {
  ProgramPlan plan;
  auto begin = std::chrono::steady_clock::now();
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.disableMultithreading();
  context.loadAllAvailableDialects();
  DiagnosticCollector diagnostics(&context);

  llvm::StringRef text(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  OwningOpRef<Operation *> op;
  if (interchange::looksLikeContainer(
          std::span(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()))) {
    interchange::Interface interface;
    op = interchange::readContainer(llvm::MemoryBufferRef(text, path), &context, &interface);
    if (!op)
      return diagnostics.error(path + ": not a valid CGC container");
    if (interface != interchange::Interface::Input && interface != interchange::Interface::Output)
      return Error{path + ": a " + std::string(interchange::getInterfaceName(interface)) +
                   " container is not a model; expected CGC_INPUT or CGC_OUTPUT"};
  } else {
    diagnostics.getSourceMgr().AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, path),
                                                  llvm::SMLoc());
    ParserConfig config(&context);
    op = parseSourceFile<Operation *>(diagnostics.getSourceMgr(), config);
    if (!op)
      return diagnostics.error(path + ": cannot parse the model");
  }
  auto module = dyn_cast<cgc::ModuleOp>(*op);
  if (!module)
    return Error{path + ": the top-level op is '" + op->getName().getStringRef().str() +
                 "', expected cgc.module"};
  addPhase(plan, "parse model", begin);

  if (!module.getBody().getOps<EntryPointOp>().empty()) {
    if (failed(compileModel(module, request, plan.compile)))
      return diagnostics.error(path + ": compiling Input IR for the '" +
                               request.target.driverName + "' device failed (" +
                               plan.compile.compiler + " compiler)");
    plan.loweredFromInputIR = true;
    plan.phases.insert(plan.phases.end(), plan.compile.stages.begin(), plan.compile.stages.end());
  }
  begin = std::chrono::steady_clock::now();
  if (failed(verify(module)) ||
      failed(interchange::verifyInterface(module, interchange::Interface::Output)))
    return diagnostics.error(path + ": not valid CGC Output IR");
  addPhase(plan, "verify Output IR", begin);

  begin = std::chrono::steady_clock::now();
  auto programs = module.getBody().getOps<ProgramOp>();
  Result<bool> planned = Planner(module, *programs.begin(), plan).run();
  if (!planned)
    return Error{path + ": " + planned.error().message};
  // The program's reading, less the sealing it ends with (its own phase).
  plan.phases.insert(plan.phases.end() - 1,
                     {"read the program", "load", begin, plan.phases.back().begin});
  return plan;
}

} // namespace cgc::runtime
