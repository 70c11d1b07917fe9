//===- WgmmaGemm.h - Hopper GEMM with a bias and exact GELU -----*- C++ -*-===//
//
// A row-major float16 or bfloat16 product D[M, N] = act(A[M, K] · B[K, N] +
// bias[N]) for sm_90a (H100/H200), whose epilogue applies what cuBLASLt's
// epilogues cannot: the exact (erf) GELU of BERT's and ViT's feed-forward
// layers, before the one store, where cuBLASLt needs a second pass over the
// M×N activations.
//
// The kernel is persistent and warp-specialized: as many blocks as the
// multiprocessors hold take the BM×BN tiles (BM = 128, BN = 128 or 256) in
// turn. In a block, one warp has one thread issue tensor-memory-accelerator
// (TMA) copies of A's 128×64 and B's 64×BN tiles into a ring of `stages`
// shared-memory slots, 128-byte swizzled, each slot's arrival counted by an
// mbarrier; it runs ahead into the next tile while the others store. Two
// warpgroups each multiply 64 of the tile's rows with m64nBNk16 warpgroup
// MMAs (wgmma; A K-major, B N-major as it lies in memory, so the weights
// need no transposed copy), float32 accumulators in registers, keeping one
// group of MMAs queued while the previous one completes, and free each slot
// through a second mbarrier. Then each thread adds the bias (read before
// the products), applies the activation and stores its 16-bit pairs. TMA
// reads past M, N or K as zeros and the stores check M and N, so any sizes
// with K and N multiples of 8 (16-byte rows) run; A and B must be 16-byte
// aligned, the bias 4-byte aligned.
//
// Two blocks a multiprocessor run the same steps at the same time, so their
// epilogues (the GELU of 64 values a thread, then the stores) leave the
// tensor cores idle together. The ping-pong form (CUTLASS's name) gives
// each warpgroup whole 128×128 tiles of its own instead (two m64n128k16
// MMAs a step, 128 accumulators a thread) in one block a multiprocessor:
// the warpgroups take the block's tiles in turn, a pair of mbarriers
// ordering their main loops, so that one's epilogue runs while the other
// multiplies, and the ring's slots are consumed in the order the copies
// fill them (each full barrier is waited on at most one phase ahead).
// Either form may stage its epilogue through shared memory (`staged`,
// below); the output must then be 16-byte aligned.
//
// The generated source is the kernel only: it uses the device preamble's
// conversions and cgc_gelu16 (DeviceCode.h). The host side encodes the two
// tensor maps (cuTensorMapEncodeTiled, found through the runtime's driver
// entry point so that nothing links libcuda).
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_WGMMAGEMM_H
#define CGC_DRIVERS_CUDA_KERNELS_WGMMAGEMM_H

#include <cstdint>
#include <string>

namespace cgc::cuda {

/// One generated Hopper GEMM: sizes, types and tile.
struct WgmmaGemmSpec {
  bool bfloat16 = false;
  int64_t m = 0, n = 0, k = 0;
  /// A bias of N elements added to every row.
  bool bias = false;
  enum class Activation { None, GeluErf } activation = Activation::None;
  /// The tile's columns: 128 or 256.
  int blockN = 256;
  /// Shared-memory slots of the copy ring (each 16 KiB + BN·128 bytes).
  int stages = 4;
  /// Ping-pong (128 columns, one block a multiprocessor): each computing
  /// warpgroup takes whole tiles of its own, every other one of the
  /// block's, so that one's epilogue runs while the other's products do.
  /// Otherwise both take 64 rows of each tile.
  bool pingPong = false;
  /// The epilogue through shared memory: each computing warpgroup writes
  /// its rows of the tile (the bias added, rounded to the element type, as
  /// cuBLASLt's output is) into a buffer of its own, then reads back 8
  /// contiguous values a thread, applies the activation and stores them 16
  /// bytes at a time. In place, its accumulators fill the registers, which
  /// leaves ptxas little to interleave: the GELU ran as one dependent chain
  /// (Nsight Compute: 47% of the epilogue's samples waiting on a fixed
  /// latency) and its 4-byte stores cover 8 rows a warp.
  bool staged = false;
  /// The device's multiprocessors (the persistent grid's size).
  int multiprocessors = 132;
};

/// The kernel's name in the generated source.
inline constexpr const char *kWgmmaGemmKernelName = "cgc_wgmma_gemm";
/// Threads of one block: two computing warpgroups and a copying warp.
inline constexpr int kWgmmaGemmThreads = 288;
/// The tile's rows and the K step of one slot.
inline constexpr int kWgmmaGemmBlockM = 128;
inline constexpr int kWgmmaGemmBlockK = 64;

/// Whether a product of M×N is worth timing the Hopper GEMM's default tile
/// for when nothing asks for it: at least two 128×128 tiles for each of the
/// device's `multiprocessors` (batch 1's feed-forward products, BERT-base's
/// 24 tiles and ViT-B/16's 48, gained little: a block per tile with one
/// warpgroup working, 14.5 against 15.1 µs at BERT-base's on an H100; and
/// compiling the kernel took a cold compile past 3 s on a fresh H200).
bool isWgmmaGemmWorthTiming(int64_t m, int64_t n, int multiprocessors);

/// Whether `spec` is one the kernel runs: 16-bit sizes with K and N
/// multiples of 8 and positive, M positive, a known tile.
bool isWgmmaGemmSupported(const WgmmaGemmSpec &spec);

/// The kernel's source, without the device preamble. Its parameters: the
/// tensor maps of A and B (128-byte structs, by value), then `unsigned
/// short *out` and `const unsigned short *bias` (null without a bias).
std::string generateWgmmaGemmSource(const WgmmaGemmSpec &spec);

/// Dynamic shared memory one block takes (the slots, the staging buffers,
/// 1 KiB of alignment and the mbarriers).
size_t getWgmmaGemmSharedBytes(const WgmmaGemmSpec &spec);

/// Blocks one multiprocessor runs at once (2 where two 128-column tiles'
/// slots fit in shared memory, so that one block's epilogue overlaps the
/// other's products).
int getWgmmaGemmBlocksPerMultiprocessor(const WgmmaGemmSpec &spec);

/// The persistent grid (along x): a block per tile, at most as many as the
/// device's multiprocessors hold at once.
unsigned getWgmmaGemmGrid(const WgmmaGemmSpec &spec);

/// The 128-byte tensor maps of A and B at the given device addresses, in
/// `mapA` and `mapB` (each 64-byte aligned, 128 bytes). An empty string on
/// success, else why not (no driver entry point, an encoding error).
std::string encodeWgmmaGemmTensorMaps(const WgmmaGemmSpec &spec, const void *a, const void *b,
                                      void *mapA, void *mapB);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_WGMMAGEMM_H
