//===- CublasLtTuning.h - timing cuBLASLt's candidate algorithms -*- C++ -*-===//
//
// cuBLASLt's heuristic ranks algorithms by a model of the device, and its
// first choice is not always the fastest, least reliably for the small and
// skinny products of inference (BERT-base at batch 1: 128×768×768 in
// float16 ran at ~29 TFLOPS on an H100 with it, far from peak). As TensorRT
// times its tactics for every layer, a product built on a device times up
// to kMaxTunedCandidates of the heuristic's algorithms on zeroed stand-in
// buffers of its real sizes and keeps the fastest.
//
// The cost is paid once per distinct product, at program creation (a cold
// compile): stand-in allocations, each candidate's first launch (which may
// load its kernel) and a few dozen timed launches, milliseconds to tens of
// milliseconds (CGC_CUDA_VERBOSE prints it per product). The choice is
// cached for the process by device and by everything that determines the
// algorithm, so a transformer's repeated layers time once and later
// programs with the same products time nothing. CGC_CUDA_MATMUL_TUNING=0
// keeps the heuristic's first choice (to compare, or for results that do
// not depend on timing noise: algorithms may round differently).
//
// What CublasLtProduct.cpp, which builds the descriptors, hands the tuner.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CUBLASLTTUNING_H
#define CGC_DRIVERS_CUDA_KERNELS_CUBLASLTTUNING_H

#include "CublasLtProduct.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace cgc::cuda {

/// The most heuristic results a product times.
constexpr int kMaxTunedCandidates = 8;
/// Products of fewer multiply-adds than this (a few microseconds on a
/// current GPU; MobileNetV2's pointwise convolutions at batch 1) time at
/// most kMaxSmallProductCandidates: each candidate's first launch loads
/// its kernel (milliseconds), which a cold compile pays for every
/// distinct product, against at most a microsecond or two won per run.
constexpr uint64_t kSmallProductMultiplyAdds = uint64_t(1) << 24;
constexpr int kMaxSmallProductCandidates = 3;
/// The most workspace a product's algorithm may use (bytes).
constexpr uint64_t kMaxProductWorkspace = 32ull << 20;

/// Whether `tuning` times candidates: On, or Default unless
/// CGC_CUDA_MATMUL_TUNING is "0".
bool isProductTuningEnabled(ProductTuning tuning);

/// The most candidates timed for a product of `multiplyAdds`:
/// CGC_CUDA_MATMUL_TUNING when it is a count from 1 to
/// kMaxRequestedCandidates (every product, to search wider at a slower
/// cold compile), otherwise kMaxTunedCandidates (kMaxSmallProductCandidates
/// below kSmallProductMultiplyAdds).
int getCandidateLimit(uint64_t multiplyAdds);
/// The most candidates any product asks cuBLASLt's heuristic for.
int getCandidateQueryCount();
constexpr int kMaxRequestedCandidates = 64;

/// What timing one product's candidates needs beyond its descriptors.
struct ProductTimingSetup {
  /// Everything that determines the product's algorithm but the device
  /// (the tuner adds the current one): types, sizes, transposes, leading
  /// dimensions, batch and strides, epilogue, alignment, scalar mode.
  std::string key;
  /// The product in CGC_CUDA_VERBOSE's report ("128x768x768 float16 ...").
  std::string description;
  /// Bytes cuBLASLt's A, B and D (C is D) span for one call at offset 0.
  uint64_t aBytes = 0, bBytes = 0, dBytes = 0;
  /// Bytes of the epilogue's bias vector; 0 without one.
  uint64_t biasBytes = 0;
  /// The launches read a C of their own (ProductEpilogue::readsC): the
  /// candidates are timed with a stand-in C of dBytes and beta = 1.
  bool readsC = false;
  /// M·N·K summed over the batch: the product's size, which bounds how
  /// many candidates are timed.
  uint64_t multiplyAdds = 0;
  /// alpha and beta are read from device memory (CUBLASLT_POINTER_MODE_DEVICE).
  bool deviceScalars = false;
  /// A matrix-vector product, or operands without 16-byte alignment: not
  /// tuned (CublasLtProduct.cpp says why).
  bool degenerate = false;
  /// The scale type is double (float otherwise).
  bool doubleScalars = false;
};

/// The algorithm chosen for one product configuration on one device.
struct TunedAlgorithm {
  cublasLtMatmulAlgo_t algorithm{};
  uint64_t workspaceSize = 0;
  /// How many candidates were timed to choose it.
  int timedCandidates = 0;
};

/// The choice cached for `setup.key` on the calling thread's current device.
std::optional<TunedAlgorithm> findTunedAlgorithm(const ProductTimingSetup &setup);

/// Times `candidates` (cuBLASLt's heuristic results for `product`'s
/// descriptors, its order) on the current device and caches the fastest
/// for `setup.key`, or returns the choice another thread cached meanwhile.
/// Takes getDeviceTimingMutex. Sets `product`'s bias pointer attribute to a
/// stand-in buffer, freed on return: the caller sets it again. Candidates
/// that fail to launch, or need more workspace than any product may use,
/// are skipped; std::nullopt (nothing cached) when none could be timed.
std::optional<TunedAlgorithm>
tuneAlgorithm(LtProduct &product, llvm::ArrayRef<cublasLtMatmulHeuristicResult_t> candidates,
              const ProductTimingSetup &setup);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CUBLASLTTUNING_H
