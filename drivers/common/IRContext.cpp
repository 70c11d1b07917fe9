//===- IRContext.cpp - reading CGC IR inside the driver --------------------===//

#include "IRContext.h"

#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/MemoryBufferRef.h"

namespace cgc::drivers {

IRContext::IRContext() {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  context = std::make_unique<mlir::MLIRContext>(registry,
                                                mlir::MLIRContext::Threading::DISABLED);
  handler = std::make_unique<mlir::ScopedDiagnosticHandler>(
      context.get(), [this](mlir::Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error)
          return mlir::success();
        if (!diagnostics.empty())
          diagnostics += "; ";
        diagnostics += diagnostic.str();
        return mlir::success();
      });
}

IRContext::~IRContext() {
  handler.reset();
  context.reset();
}

mlir::OwningOpRef<mlir::Operation *>
IRContext::readContainer(std::span<const uint8_t> bytes, const std::string &name,
                         interchange::Interface &interface) {
  llvm::StringRef text(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  // The API passes containers it checked and that the validator sealed, from
  // inside this process: no sandboxed pre-parse.
  return interchange::readContainer(llvm::MemoryBufferRef(text, name), context.get(),
                                    &interface, interchange::Trust::InProcess);
}

std::string IRContext::takeDiagnostics() {
  std::string taken;
  taken.swap(diagnostics);
  return taken;
}

} // namespace cgc::drivers
