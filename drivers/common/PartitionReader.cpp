//===- PartitionReader.cpp - a partition container as a driver sees it -----===//

#include "PartitionReader.h"
#include "IRContext.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace cgc::drivers {

namespace {

/// The bind point range a partition memref value stands for.
BindPointRange resolveInvokeOperand(Value value) {
  uint64_t size = cast<MemRefType>(value.getType()).getByteSize();
  uint64_t offset = 0;
  while (auto view = value.getDefiningOp<ViewMemRefOp>()) {
    offset += static_cast<uint64_t>(view.getOffset());
    value = view.getSource();
  }
  // The partition verifier admits only bind points and views as operands.
  auto bindPoint = cast<BlockArgument>(value);
  return {bindPoint.getArgNumber(), offset, size};
}

} // namespace

CompileFailure readPartition(std::span<const uint8_t> container, const std::string &programName,
                             std::vector<CgcBindPointDesc> &bindPoints, InvocationVisitor visit) {
  IRContext context;
  interchange::Interface interface;
  OwningOpRef<Operation *> top = context.readContainer(container, programName, interface);
  if (!top)
    return {CGC_ERROR_INVALID_ARGUMENT,
            "cannot read the partition container: " + context.takeDiagnostics()};
  if (interface != interchange::Interface::SubgraphPartition)
    return {CGC_ERROR_INVALID_ARGUMENT, "expected a CGC_SUBGRAPH_PARTITION container, got " +
                                            std::string(interchange::getInterfaceName(interface))};

  // The reader checked the interface's rules: one partition, its subgraphs.
  auto module = cast<ModuleOp>(*top);
  PartitionOp partition = *module.getBodyBlock()->getOps<PartitionOp>().begin();
  std::string where = ("partition '" + partition.getSymName() + "'").str();

  for (auto [index, type] : llvm::enumerate(partition.getArgumentTypes())) {
    auto memref = cast<MemRefType>(type);
    CgcBindPointDesc desc{};
    desc.sizeInBytes = memref.getByteSize();
    // The element alignment: the runtime binds values at offsets into shared
    // buffers, and kernels cope with element-aligned operands.
    desc.alignment = memref.getAlignment();
    desc.flags = CGC_BIND_POINT_FLAG_NONE;
    if (memref.getIsConstant())
      desc.flags |= CGC_BIND_POINT_FLAG_CONSTANT;
    if (partition.isBindPointWritten(static_cast<unsigned>(index)))
      desc.flags |= CGC_BIND_POINT_FLAG_WRITTEN;
    bindPoints.push_back(desc);
  }

  SymbolTable symbols(module);
  std::vector<BindPointRange> operands;
  for (InvokeOp invoke : partition.getBody().getOps<InvokeOp>()) {
    auto subgraph = symbols.lookup<SubgraphOp>(invoke.getCallee());
    if (!subgraph)
      return {CGC_ERROR_INVALID_ARGUMENT,
              where + ": invokes @" + invoke.getCallee().str() + ", which is not a subgraph"};
    operands.clear();
    for (Value operand : invoke.getOperands())
      operands.push_back(resolveInvokeOperand(operand));
    if (CompileFailure failure = visit(where, subgraph, operands); failure.status != CGC_OK)
      return failure;
  }
  return {};
}

} // namespace cgc::drivers
