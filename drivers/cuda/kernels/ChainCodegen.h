//===- ChainCodegen.h - elementwise layers of a definition, inline -*- C++ -*-===//
//
// The generated fused kernels (FusedElementwise.cpp, FusedNormalization.cpp)
// evaluate the elementwise layers of a functional definition for one output
// element at a time, in registers: each layer becomes a local of its
// result's compute type, computed by the expression its layer kernel uses
// (Elementwise.cpp) from its operands' locals, so a value used twice is
// computed once. Definition arguments are read at each element through
// broadcast strides.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CHAINCODEGEN_H
#define CGC_DRIVERS_CUDA_KERNELS_CHAINCODEGEN_H

#include "ElementwiseCodegen.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace cgc::cuda {

/// The statements of elementwise layers evaluated inline, one local each.
class ChainStatements {
public:
  /// `prefix` names the locals (`<prefix>0`, ...); `indent` starts each
  /// statement.
  ChainStatements(std::string prefix, std::string indent)
      : prefix(std::move(prefix)), indent(std::move(indent)) {}

  /// Names `value` as the existing local `local` (a read argument, a
  /// normalized value) of its compute type.
  void bind(mlir::Value value, std::string local);
  /// The local of `value`, or empty when it has none.
  llvm::StringRef lookup(mlir::Value value) const;
  /// Appends the statement of the elementwise layer `layer`, whose operands
  /// are bound, and binds its result. An error names the layer and what the
  /// CUDA driver does not implement.
  llvm::Error append(mlir::Operation *layer);
  /// The statements appended so far.
  const std::string &getText() const { return text; }

private:
  std::string prefix, indent;
  llvm::DenseMap<mlir::Value, std::string> locals;
  std::string text;
  unsigned next = 0;
};

/// Reads of definition arguments at the row-major indices of one shape
/// through broadcast strides: argument `k` (pointer `in<k>`) becomes the
/// local `x<k>` of its compute type. Sizes and strides are kernel
/// parameters, so shapes that merge alike share one source.
class StridedReads {
public:
  /// `field` prefixes the parameter arrays (`<field>Sizes`,
  /// `<field>Strides`); `shape` is the shape indexed.
  StridedReads(std::string field, llvm::ArrayRef<int64_t> shape)
      : field(std::move(field)), shape(shape) {}

  /// Reads argument `argument` (of `dtype` and `operandShape`, which
  /// broadcasts to the shape) once; later calls for it do nothing.
  void add(unsigned argument, DType dtype, llvm::ArrayRef<int64_t> operandShape);
  bool contains(unsigned argument) const;
  /// Whether every offset fits in 31 bits.
  bool fitsInt32() const;
  /// Declarations of the parameter arrays (64-bit fields).
  std::string getFields() const;
  /// Appends the parameter arrays' values, in getFields' order.
  void appendParams(std::vector<int64_t> &params) const;
  /// Statements (each starting with `indent`) that define every read
  /// argument's local at row-major index `index` (a cgc_index), given the
  /// parameter struct `p`.
  std::string getLoads(llvm::StringRef index, llvm::StringRef indent) const;

private:
  MergedLoops merge() const;

  std::string field;
  Shape shape;
  llvm::SmallVector<unsigned, 4> arguments;
  llvm::SmallVector<StridedOperand, 4> operands;
};

/// Checks that every value in `values` broadcasts (numpy rules, one way) to
/// `shape`, the shape a fused kernel evaluates them at; an error names the
/// first that does not (a layer's result or a definition argument).
llvm::Error checkBroadcastsTo(llvm::ArrayRef<mlir::Value> values, llvm::ArrayRef<int64_t> shape);

/// "AxBxC" (or "scalar") for messages.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CHAINCODEGEN_H
