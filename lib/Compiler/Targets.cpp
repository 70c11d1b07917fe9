//===- Targets.cpp - compile targets and their declarations ----------------===//

#include "cgc/Compiler/Compiler.h"

#include "cgc/Dialect/CGCPattern/IR/KnownConstraints.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace cgc::compiler {

std::string getFallbackTargetName(llvm::StringRef driverTarget) {
  return (driverTarget + ".fallback").str();
}

FailureOr<Target> loadDeclarationFile(MLIRContext *context, llvm::StringRef spec,
                                      Location loc) {
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return emitError(loc) << "target declaration '" << spec
                          << "' must be target=path (a file of cgc_pattern.pattern ops)";
  std::string text;
  {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return emitError(loc) << "target '" << name << "': cannot read " << path << ": "
                            << buffer.getError().message();
    text = (*buffer)->getBuffer().str();
  }
  ParserConfig config(context);
  OwningOpRef<Operation *> op = parseSourceString(text, config, path);
  if (!op)
    return emitError(loc) << "target '" << name << "': " << path << " does not parse";
  auto module = dyn_cast<ModuleOp>(*op);
  if (!module)
    return emitError(loc) << "target '" << name << "': " << path
                          << " must hold a cgc.module of patterns, found '" << op->getName()
                          << "'";
  if (failed(verify(module)) ||
      failed(interchange::verifyInterface(module, interchange::Interface::SubgraphDeclaration)))
    return emitError(loc) << "target '" << name << "': " << path
                          << " is not a valid CGC_SUBGRAPH_DECLARATION";
  op.release();
  Target target;
  target.name = name.str();
  target.declaration = OwningOpRef<ModuleOp>(module);
  return target;
}

FailureOr<std::pair<std::string, uint64_t>> parseTargetAlignment(llvm::StringRef spec,
                                                                 Location loc) {
  auto [name, bytesText] = spec.split('=');
  uint64_t bytes = 0;
  if (name.empty() || bytesText.getAsInteger(10, bytes) || bytes == 0 ||
      (bytes & (bytes - 1)) != 0)
    return emitError(loc) << "target alignment '" << spec
                          << "' must be target=bytes with bytes a power of two";
  return std::pair{name.str(), bytes};
}

} // namespace cgc::compiler
