//===- FusedSupport.h - the fused kernel families -------------*- C++ -*-===//
//
// One source file per family of fused kernels (../FusedKernels.h); the
// registry (FusedRegistry.cpp) asks them in order. A family's `check`
// recognizes its shape without a GPU; its `build` builds the kernel. Both
// answer std::nullopt for a definition that is not the family's shape, so
// families must recognize disjoint shapes (or the earlier one wins).
//
// Helpers every family uses to read a definition are here too, and the
// timing that families with two ways to run a definition choose by.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_FUSEDSUPPORT_H
#define CGC_DRIVERS_CUDA_KERNELS_FUSEDSUPPORT_H

#include "../FusedKernels.h"
#include "KernelContextImpl.h"
#include "KernelSupport.h"

#include "cgc/Dialect/CGCOp/IR/TransposePermutation.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace cgc::cuda {

struct FusedFamily {
  const char *name;
  std::optional<llvm::Error> (*check)(FunctionalDefinitionOp definition);
  std::optional<llvm::Expected<Kernel>> (*build)(FunctionalDefinitionOp definition,
                                                 KernelContext::Impl &context);
};

/// The families, in the order the registry asks them. Each is defined in its
/// own file (FusedConvolutionPair.cpp, FusedConvolution.cpp, FusedMatmul.cpp, FusedAttention.cpp,
/// FusedNormalization.cpp, FusedElementwise.cpp, FusedPooling.cpp,
/// FusedLayout.cpp).
extern const FusedFamily kFusedConvolutionPair;
extern const FusedFamily kFusedConvolution;
extern const FusedFamily kFusedMatmul;
extern const FusedFamily kFusedAttention;
extern const FusedFamily kFusedNormalization;
extern const FusedFamily kFusedElementwise;
extern const FusedFamily kFusedPooling;
extern const FusedFamily kFusedLayout;

/// The layers of `definition` in order (its body without the terminator).
llvm::SmallVector<mlir::Operation *, 8> getDefinitionLayers(FunctionalDefinitionOp definition);

/// "fused <family>: <message>" under the definition's symbol, with
/// std::errc::not_supported (what the compile reports as UNSUPPORTED).
llvm::Error makeFusedError(FunctionalDefinitionOp definition, const char *family,
                           const llvm::Twine &message);

//===----------------------------------------------------------------------===//
// Choosing between two ways to run a definition (FusedSupport.cpp)
//===----------------------------------------------------------------------===//

/// Whether CGC_CUDA_VERBOSE (set, and not "0") asks for build-time reports
/// on stderr: which way each fused kernel runs and why.
bool isVerbose();

/// Milliseconds one launch of `kernel` takes on zeroed device buffers of
/// `inputBytes` and `outputBytes` and a workspace of its size (the median of
/// 3 timed launches after one warm-up), or std::nullopt when it cannot be
/// timed (no memory, a failed launch). Families that can run a definition
/// two ways time both once, when the program is created (as TensorRT picks
/// its tactics), and keep the faster.
std::optional<float> timeKernelLaunch(const Kernel &kernel, llvm::ArrayRef<uint64_t> inputBytes,
                                      llvm::ArrayRef<uint64_t> outputBytes);

/// timeKernelLaunch of each of `kernels`, one after another on the same
/// buffers (a workspace of the largest size); std::nullopt for each that
/// cannot be timed.
std::vector<std::optional<float>> timeKernelLaunches(llvm::ArrayRef<const Kernel *> kernels,
                                                    llvm::ArrayRef<uint64_t> inputBytes,
                                                    llvm::ArrayRef<uint64_t> outputBytes);

/// "[a, b, ...]" for messages.
std::string formatIndexList(llvm::ArrayRef<int64_t> values);

/// timeKernelLaunch on buffers of `definition`'s argument and result sizes.
std::optional<float> timeLaunch(FunctionalDefinitionOp definition, const Kernel &kernel);

/// timeKernelLaunches on buffers of `definition`'s argument and result
/// sizes.
std::vector<std::optional<float>> timeLaunches(FunctionalDefinitionOp definition,
                                               llvm::ArrayRef<const Kernel *> kernels);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_FUSEDSUPPORT_H
