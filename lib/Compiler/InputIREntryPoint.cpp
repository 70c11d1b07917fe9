//===- InputIREntryPoint.cpp - the entry point an Input IR rewrite takes --===//

#include "InputIREntryPoint.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

using namespace mlir;

namespace cgc::compiler {

FailureOr<EntryPointOp> getConvertibleEntryPoint(ModuleOp module, llvm::StringRef conversion) {
  SmallVector<EntryPointOp> entries;
  for (Operation &op : module.getBodyBlock()->getOperations()) {
    auto entry = dyn_cast<EntryPointOp>(op);
    if (!entry)
      return op.emitOpError() << "cannot be converted: " << conversion
                              << " takes Input IR (one cgc.entry_point and nothing else)";
    entries.push_back(entry);
  }
  if (entries.size() != 1)
    return module.emitError() << conversion
                              << " takes Input IR with exactly one cgc.entry_point, found "
                              << entries.size();
  if (entries.front().isExternal())
    return entries.front().emitOpError() << "has no body to convert";
  for (Operation &op : entries.front().getBody().front()) {
    bool isLayer = op.getDialect() && isa<op::CGCOpDialect>(op.getDialect());
    if (!isLayer && !isa<ConstantOp, ReturnOp>(op))
      return op.emitOpError() << "cannot be converted: an Input IR entry point holds only "
                                 "cgc.constant, cgc_op layers and cgc.return";
  }
  return entries.front();
}

} // namespace cgc::compiler
