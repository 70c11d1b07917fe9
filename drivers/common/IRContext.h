//===- IRContext.h - reading CGC IR inside the driver -----------*- C++ -*-===//
//
// Shared by the driver plugins. Each program compile and each MLIR exchange
// reads its container into an MLIRContext of its own: calls on several
// threads never share one, and no MLIR object outlives the call. The context
// starts no threads (a driver's threads are its own: thread pools, queues),
// and its diagnostics are collected as text for the error message.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_COMMON_IRCONTEXT_H
#define CGC_DRIVERS_COMMON_IRCONTEXT_H

#include "cgc/Interchange/Container.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace cgc::drivers {

/// One MLIRContext with every CGC dialect, threading off, errors collected.
class IRContext {
public:
  IRContext();
  ~IRContext();

  mlir::MLIRContext &get() { return *context; }

  /// Reads a container that the API has already checked (header, digest);
  /// null on failure, with the reasons in takeDiagnostics().
  mlir::OwningOpRef<mlir::Operation *> readContainer(std::span<const uint8_t> bytes,
                                                     const std::string &name,
                                                     interchange::Interface &interface);

  /// The error diagnostics emitted since the last call, joined by "; ".
  std::string takeDiagnostics();

private:
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;
  std::string diagnostics;
};

} // namespace cgc::drivers

#endif // CGC_DRIVERS_COMMON_IRCONTEXT_H
