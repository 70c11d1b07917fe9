//===- Kernels.h - CPU kernels for cgc_op layers ----------------*- C++ -*-===//
//
// The CPU driver's kernel library: every cgc_op layer as a portable C++
// kernel (its fallback), plus fused kernels for the patterns it declares.
// A kernel is built once, at program creation, from the op's types and
// attributes; running it needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CPU_KERNELS_H
#define CGC_DRIVERS_CPU_KERNELS_H

#include "ThreadPool.h"

#include "DType.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

namespace cgc {
class FunctionalDefinitionOp;
} // namespace cgc

namespace cgc::cpu {

/// Element types the kernels store (shared by the drivers: DType.h).
using drivers::DType;
using drivers::getByteWidth;
using drivers::toDType;

/// Runs one kernel: `inputs` are the operands in op (or definition argument)
/// order, `outputs` the results; each points at dense row-major data of the
/// type the kernel was built for. Inputs and outputs never overlap unless the
/// kernel was built as in-place-safe.
using KernelFn = std::function<void(std::span<const void *const> inputs,
                                    std::span<void *const> outputs, ThreadPool &pool)>;

/// Builds the kernel of one cgc_op layer. An op, element type or attribute
/// value the CPU driver does not implement is an llvm::Error naming the op
/// and what is missing ("cgc_op.gelu: element type int32 is not implemented").
llvm::Expected<KernelFn> buildKernel(mlir::Operation *op);

/// The fused pattern of the CPU driver: a definition whose body is one
/// cgc_op.convolution (optional bias) followed by a chain of elementwise ops,
/// each taking the previous value and at most one other operand (a
/// definition argument or constant, broadcastable to the convolution's
/// result), whose last result is returned. Returns std::nullopt when the
/// definition is not of that shape; otherwise the fused kernel (inputs: the
/// definition's arguments; outputs: its result), or an error.
std::optional<llvm::Expected<KernelFn>> buildFusedConvolution(FunctionalDefinitionOp definition);

} // namespace cgc::cpu

#endif // CGC_DRIVERS_CPU_KERNELS_H
