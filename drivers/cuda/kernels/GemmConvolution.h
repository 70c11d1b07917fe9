//===- GemmConvolution.h - channels-last convolutions as cuBLASLt GEMMs -*- C++ -*-===//
//
// The fused convolution family's channels-last form when the convolution
// is one matrix product. A pointwise convolution (1×1 window, stride 1, no
// padding, groups 1) over NHWC memory is exactly the row-major GEMM
//
//   Y[N·H·W, K] = X[N·H·W, C] · W[K, C]ᵀ
//
// (the KRSC weight is a K×C matrix). Measured on an H100, MobileNetV2 ran
// in 17 ms channels-last against 2.4 ms channels-first, because cuDNN's
// NHWC 1×1 convolutions with MobileNet's chains took 0.2 to 2.8 ms each; at
// batch 1 its convolutions take about 14 us each, a launch-bound cost a
// small GEMM does not have.
//
// Windows that do not overlap (stride at least the window's extent, no
// padding, groups 1) are one GEMM too once each window is a row: ViT's
// 16×16/16 patch embedding (3 → 768 channels, 72 us in cuDNN at batch 1)
// and ResNet's 1×1 stride-2 shortcuts. The input is gathered into an
// [N·P·Q, R·S·C] matrix in the workspace (one strided copy, StridedCopy.h;
// at most the input's size since windows do not overlap), whose column
// order (r, s, c) is the KRSC weight's, and then
//
//   Y[N·P·Q, K] = patches[N·P·Q, R·S·C] · W[K, R·S·C]ᵀ.
//
// Any other window (overlapping, padded, dilated; groups 1) is im2col:
// a generated gather writes each window as a row, zeros where it reads
// padding, the matrix R·S/(strides) times the input's size. That only pays
// on inputs of fewer than 8 channels, the models' first convolutions:
// cuDNN's NHWC engines want channels in 16-byte vectors and ran
// MobileNetV2's 3×3/2 3 → 32 in 546 us and ResNet-50's 7×7/2 3 → 64 in
// 191 us (H100, batch 32, float16), against about 20 and 60 us here. With
// 8 channels or more cuDNN's implicit GEMM reads the input in place, and
// the gathered matrix would be R·S times larger, so those stay cuDNN's. The
// matrix is capped at 256 MiB of workspace. Its rows are padded to
// K' = R·S·C rounded up to 8 elements with zero columns, and the weight to
// [K, K'] with zeros by the same launch, so that every leading dimension
// is 16-byte aligned and cuBLASLt keeps its fast algorithms:
//
//   Y[N·P·Q, K] = patches[N·P·Q, K'] · W'[K, K']ᵀ.
//
// cuBLASLt's epilogue computes act(alpha·A·B + beta·C + bias) in float32
// with one rounding; it takes what of the chain it computes exactly as the
// chain's layers do: the bias (the convolution's, or a per-channel add
// where the convolution has none), a residual add of a whole-result
// argument as its C (beta 1), both before any activation, and a relu right
// after them. The rest of the chain runs in place over the output as the
// family's generated epilogue (ConvolutionChain.h), starting where cuBLASLt
// stopped.
//
// FusedConvolution.cpp builds it for every definition it runs and, on a
// device, times it against the cuDNN path the family would take otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_GEMMCONVOLUTION_H
#define CGC_DRIVERS_CUDA_KERNELS_GEMMCONVOLUTION_H

#include "ConvolutionChain.h"
#include "CublasLtProduct.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// Input channels below which any window runs as im2col (see the file
/// comment).
inline constexpr int64_t kGeneralWindowChannelLimit = 8;
/// The most workspace the im2col matrix (and padded weight) may take.
inline constexpr uint64_t kGeneralWindowWorkspaceLimit = uint64_t(256) << 20;

/// Why the GEMM path does not run `shape`, std::nullopt when it does: the
/// channels-last form of a 2-D convolution with groups 1 whose input,
/// weight and bias have the result's type, and either windows that do not
/// overlap without padding (along each spatial dimension with more than
/// one output a stride at least the window's extent, dilation × (size - 1)
/// + 1), or fewer than kGeneralWindowChannelLimit input channels and an
/// im2col matrix within kGeneralWindowWorkspaceLimit.
std::optional<std::string> getGemmRefusal(const FusedConvolutionShape &shape);

/// The geometry of a channels-last convolution the GEMM path runs (NHWC
/// sizes, the weight's R×S window).
struct GemmGeometry : ChannelsLastGeometry {
  /// R·S·C: the product's inner dimension.
  int64_t getWindowElements() const { return kernelHeight * kernelWidth * channels; }
  /// R·S·C rounded up to a multiple of 8 elements (im2col's row length).
  int64_t getPaddedWindowElements() const { return (getWindowElements() + 7) / 8 * 8; }
  /// N·P·Q: the product's rows.
  int64_t getRows() const { return batch * outHeight * outWidth; }
};

/// The entry point of generateWindowGatherSource's kernel.
inline constexpr const char *kWindowGatherKernel = "cgc_gather_windows";

/// The im2col gather of `geometry` for `dtype` elements, with its sizes
/// compiled in: `cgc_gather_windows(in, weight, patches, paddedWeight)`
/// writes the [N·P·Q, K'] matrix to `patches` (zeros for padding and the
/// columns past R·S·C) and, when K' > R·S·C, the weight as [K, K'] with
/// zero columns to `paddedWeight`. Each thread writes 8 consecutive
/// elements of a row as one aligned group, consecutive threads consecutive
/// groups: both outputs must be 16-byte aligned. A grid-stride loop over
/// getWindowGatherGroups(geometry) groups; 32-bit indices when `narrow`.
std::string generateWindowGatherSource(const GemmGeometry &geometry, DType dtype, bool narrow);

/// How many 8-element groups the gather writes: the patches', then the
/// padded weight's (none when R·S·C is a multiple of 8).
int64_t getWindowGatherGroups(const GemmGeometry &geometry);

/// How the bias and the chain divide between cuBLASLt's epilogue and the
/// generated one.
struct GemmEpilogueSplit {
  /// What cuBLASLt applies: the bias and a relu.
  ProductEpilogue library;
  /// The definition argument cuBLASLt adds as its bias (library.bias).
  std::optional<unsigned> bias;
  /// The definition argument cuBLASLt adds as its C, with beta 1.
  std::optional<unsigned> residual;
  /// Where the generated epilogue starts.
  EpilogueStart start;
};

/// The split of `shape`'s epilogue (a shape getGemmRefusal accepts):
/// cuBLASLt takes the bias (or a per-channel add leading the chain when
/// the convolution has none) and a leading whole-result add when
/// `allowAdditions`, then a relu that follows everything it took when
/// `allowActivation`.
GemmEpilogueSplit splitGemmEpilogue(FunctionalDefinitionOp definition,
                                    const FusedConvolutionShape &shape, bool allowAdditions = true,
                                    bool allowActivation = true);

/// The kernel of `shape`, which getGemmRefusal must accept: inputs are the
/// definition's arguments, outputs[0] its result. The gather and the
/// generated epilogue compile before cuBLASLt is asked for anything (a
/// compile-only context then stops at cuBLASLt needing a device). When
/// cuBLASLt has no algorithm for the split's epilogue, the relu, then the
/// additions, are left to the generated epilogue instead. Reports the
/// split on stderr under CGC_CUDA_VERBOSE.
llvm::Expected<Kernel> buildGemmConvolution(FunctionalDefinitionOp definition,
                                            const FusedConvolutionShape &shape,
                                            KernelContext::Impl &context);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_GEMMCONVOLUTION_H
