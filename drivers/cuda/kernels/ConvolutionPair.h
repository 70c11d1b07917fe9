//===- ConvolutionPair.h - two pointwise convolutions as one kernel -*- C++ -*-===//
//
// The convolution pair family (patterns/convolution.mlir's
// conv_nhwc_pair): a channels-last pointwise convolution and its chain
// (bias, residual add, activation: the first result, Y), then a second
// pointwise convolution of Y and its chain (the root, Z), both results of
// the definition. ResNet's bottleneck joins: one block's last convolution,
// its residual add and relu, and the next block's first convolution, which
// without the pair reads Y back from memory.
//
// One generated kernel runs it (float16 or bfloat16, compute capability
// 8.0 or later). Its blocks are persistent, one a multiprocessor, 8 warps,
// and take 128-row tiles of the N·H·W pixel rows in turn. A tile's rows of
// the input X stay in shared memory while Y's channels go by in chunks of
// 64: for each chunk, the tensor cores (mma.sync) form the first product
// from X and the chunk's rows of the first weight, the first chain applies
// (the residual's chunk read from shared memory), Y's chunk is stored once
// and kept in shared memory, and the second product accumulates the chunk
// times the second weight's matching columns in registers. After the last
// chunk the second chain applies and Z is stored. The next chunks'
// residual (and the weights' chunks, where both weights do not stay in
// shared memory for the whole kernel), and at a tile's last chunk the next
// tile's X, are copied by cp.async while a chunk computes.
//
// It takes: 1×1 convolutions, stride 1, unpadded, one group; input
// channels a multiple of 16 up to 128; Y's channels a multiple of 64; Z's
// a multiple of 32 up to 128; first-chain operands that vary along
// channels only, plus at most one of Y's whole shape (the residual);
// second-chain operands that vary along channels only. The family's check
// refuses anything else with the reason, and the compiler then matches the
// two convolutions apart.
//
// conv_nhwc_pair_projection: the first chain's residual is a pointwise
// convolution of another input P (ResNet's projection shortcut). The
// kernel computes it in the first product, P's channels after X's along
// the depth and its weight after the first's, and adds its bias where the
// residual was added: the projection's result is never written or read.
// It takes a 1×1, stride-1, unpadded projection of the first's pixels to
// Y's channels, without a chain, added right after the first's bias, X's
// and P's channels multiples of 8 adding up to a multiple of 16 up to 128.
// A matched projection runs only as the kernel.
//
// On compute capability 9.0, where both weights stay in shared memory,
// the products may be wgmma (each warpgroup 64 rows; X and the weights as
// core matrices; the second product's A the first chain's packed results
// in registers): by default where the first product is at least 128
// deep (CGC_CUDA_CONVOLUTION_WGMMA, ConvolutionChain.h).
//
// Where the kernel's products are slower than the libraries' (many
// channels), reading Y back costs less than the pair saves: with a device,
// the family times the kernel once against the two convolutions run apart
// as the convolution family builds them, one after the other, and keeps the
// faster (CGC_CUDA_CONVOLUTION_PAIR: unset or 1 declares the pattern and
// times; 0 leaves the pattern undeclared; kernel declares it and always
// runs the kernel).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONPAIR_H
#define CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONPAIR_H

#include "ConvolutionChain.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// The family's name in messages ("fused convolution pair: ...").
inline constexpr const char *kConvolutionPairFamily = "convolution pair";

/// What CGC_CUDA_CONVOLUTION_PAIR asks for (read at each call).
enum class ConvolutionPairMode {
  /// "0": the driver does not declare the pattern.
  Off,
  /// Unset, "1" or anything else: declared; the kernel and the
  /// convolutions apart are timed, the faster kept.
  Timed,
  /// "kernel": declared; the kernel always runs a matched pair.
  Kernel,
};
ConvolutionPairMode getConvolutionPairMode();

/// A definition the family implements, read as two fused convolutions:
/// `first` computes Y (the definition's second result) from the
/// definition's arguments; `second` computes Z (its first result) from the
/// same arguments and Y, an extra last argument. Argument numbers in both
/// shapes are the definition's.
struct ConvolutionPairShape {
  /// Holds the halves' definitions, which the shapes point into.
  mlir::OwningOpRef<mlir::ModuleOp> halves;
  FunctionalDefinitionOp firstDefinition, secondDefinition;
  FusedConvolutionShape first, second;
  /// conv_nhwc_pair_projection: the convolution whose result the first
  /// chain adds (its own definition, returning that result), which the
  /// first half reads as an extra last argument, number
  /// `projectionArgument` (the definition's argument count).
  FunctionalDefinitionOp projectionDefinition;
  std::optional<FusedConvolutionShape> projection;
  unsigned projectionArgument = 0;
};

/// The family's reading of `definition`: std::nullopt when it is not two
/// channels-last convolutions with their chains, the first's result the
/// second's input and both results of the definition (the first chain's
/// residual possibly a third, the projection); an error when it is but a
/// half lacks something on the CUDA driver.
std::optional<llvm::Expected<ConvolutionPairShape>>
analyzeConvolutionPair(FunctionalDefinitionOp definition);

/// Why the generated kernel does not run `shape`, or std::nullopt.
std::optional<std::string> getConvolutionPairRefusal(const ConvolutionPairShape &shape);

/// The generated kernel of `shape` (which it must take); compute capability
/// below 8.0 is an error.
llvm::Expected<Kernel> buildConvolutionPair(FunctionalDefinitionOp definition,
                                            const ConvolutionPairShape &shape,
                                            KernelContext::Impl &context);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CONVOLUTIONPAIR_H
