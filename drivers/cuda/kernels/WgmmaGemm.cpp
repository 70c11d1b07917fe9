//===- WgmmaGemm.cpp - Hopper GEMM with a bias and exact GELU -------------===//
//
// Shared memory of one slot: A's 128 rows of 64 K (128 bytes each), then
// B's BN/64 boxes of 64 K-rows × 64 columns (128 bytes each), each box
// 128-byte swizzled by TMA as wgmma's canonical layouts want them: A
// K-major (8-row groups 1024 bytes apart), B N-major (8-row groups along K
// 1024 bytes apart, 64-column boxes 8192 bytes apart). A k16 step moves A's
// descriptor 32 bytes along the swizzled row and B's 16 rows (2048 bytes).
//
// Accumulator fragment of m64nNk16 (PTX ISA, wgmma D for .f32): thread t of
// the warpgroup holds rows 16·(t/32) + (t%32)/4 and 8 more, value 4j + 2h +
// e at row + 8h, column 8j + 2·(t%4) + e.
//
//===----------------------------------------------------------------------===//

#include "WgmmaGemm.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>

namespace cgc::cuda {

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t getStageBytes(const WgmmaGemmSpec &spec) {
  return int64_t(kWgmmaGemmBlockM) * kWgmmaGemmBlockK * 2 + int64_t(kWgmmaGemmBlockK) * spec.blockN * 2;
}

bool isWgmmaGemmWorthTiming(int64_t m, int64_t n, int multiprocessors) {
  return ceilDiv(m, 128) * ceilDiv(n, 128) >= 2 * int64_t(multiprocessors);
}

bool isWgmmaGemmSupported(const WgmmaGemmSpec &spec) {
  return spec.m > 0 && spec.n > 0 && spec.k > 0 && spec.n % 8 == 0 && spec.k % 8 == 0 &&
         (spec.blockN == 128 || spec.blockN == 256) && (!spec.pingPong || spec.blockN == 128) &&
         spec.stages >= 2 &&
         getWgmmaGemmSharedBytes(spec) <= 227 * 1024 && spec.m <= (int64_t(1) << 31) - 1 &&
         spec.n <= (int64_t(1) << 31) - 1 && spec.k <= (int64_t(1) << 31) - 1;
}

/// Elements of one staged row: the tile's columns and 8 of padding, so that
/// the 8 rows of a warp's fragment pairs fall in distinct banks.
static int64_t getStagedRow(const WgmmaGemmSpec &spec) { return spec.blockN + 8; }

/// Bytes of one warpgroup's staging buffer (its rows of the tile).
static int64_t getStagingBytes(const WgmmaGemmSpec &spec) {
  if (!spec.staged)
    return 0;
  int64_t rows = spec.pingPong ? kWgmmaGemmBlockM : kWgmmaGemmBlockM / 2;
  return rows * getStagedRow(spec) * 2;
}

int getWgmmaGemmBlocksPerMultiprocessor(const WgmmaGemmSpec &spec) {
  return !spec.pingPong && spec.blockN == 128 &&
                 2 * getWgmmaGemmSharedBytes(spec) <= 228 * 1024 - 2048
             ? 2
             : 1;
}

size_t getWgmmaGemmSharedBytes(const WgmmaGemmSpec &spec) {
  return size_t(spec.stages * getStageBytes(spec)) + 2 * size_t(getStagingBytes(spec)) + 1024 +
         16 * size_t(spec.stages) + (spec.pingPong ? 16 : 0);
}

unsigned getWgmmaGemmGrid(const WgmmaGemmSpec &spec) {
  int64_t tiles = ceilDiv(spec.m, kWgmmaGemmBlockM) * ceilDiv(spec.n, spec.blockN);
  int64_t resident = int64_t(spec.multiprocessors) * getWgmmaGemmBlocksPerMultiprocessor(spec);
  return unsigned(std::max<int64_t>(1, std::min(tiles, resident)));
}

static const char kHelpers[] = R"cuda(
struct __align__(64) cgc_tensor_map {
  unsigned long long words[16];
};
CGC_DEVICE void cgc_mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Arrives once and expects `bytes` of asynchronous copies.
CGC_DEVICE void cgc_mbar_expect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
CGC_DEVICE void cgc_mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Waits for the completion of the barrier's phase of parity `parity`.
CGC_DEVICE void cgc_mbar_wait(unsigned bar, unsigned parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "cgc_wait:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra cgc_wait;\n"
               "}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}
// A 2-D box of the tensor map at element coordinates (inner, outer), its
// bytes counted on `bar`.
CGC_DEVICE void cgc_tma_load(unsigned to, const cgc_tensor_map *map, unsigned bar, int inner,
                             int outer) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(to),
               "l"((unsigned long long)map), "r"(inner), "r"(outer), "r"(bar)
               : "memory");
}
// Gives a slot back: one arrival per warpgroup on its empty barrier.
CGC_DEVICE void cgc_release(unsigned bar) {
  if (threadIdx.x % 128 == 0)
    cgc_mbar_arrive(bar);
}
// A shared-memory matrix descriptor of a 128-byte swizzled operand.
CGC_DEVICE unsigned long long cgc_wgmma_desc(unsigned address, unsigned leading,
                                             unsigned stride) {
  return (unsigned long long)((address & 0x3FFFFu) >> 4) |
         ((unsigned long long)(leading >> 4) << 16) | ((unsigned long long)(stride >> 4) << 32) |
         (1ull << 62);
}
)cuda";

/// The wgmma of `spec`'s tile: acc = A(desc a) · B(desc b) + (accumulate ?
/// acc : 0), B N-major. The first step's scale-d of 0 stands for zeroing
/// the accumulators: zeros written before it made ptxas wait for each MMA
/// before the next of a ping-pong step (two accumulator sets).
static std::string generateMma(const WgmmaGemmSpec &spec) {
  int count = spec.blockN / 2;
  std::string type = spec.bfloat16 ? "bf16" : "f16";
  std::string text = "CGC_DEVICE void cgc_wgmma(float (&acc)[" + std::to_string(count) +
                     "], unsigned long long a, unsigned long long b, int accumulate) {\n"
                     "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" +
                     std::to_string(count + 2) +
                     ", 0;\\n\"\n               \"wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(spec.blockN) + "k16.f32." + type + "." + type + " {";
  for (int i = 0; i < count; ++i)
    text += (i ? ", %" : "%") + std::to_string(i);
  text += "}, %" + std::to_string(count) + ", %" + std::to_string(count + 1) +
          ", p, 1, 1, 0, 1;\\n}\\n\"\n               : ";
  for (int i = 0; i < count; ++i)
    text += std::string(i ? ", " : "") + "\"+f\"(acc[" + std::to_string(i) + "])";
  text += "\n               : \"l\"(a), \"l\"(b), \"r\"(accumulate));\n}\n";
  return text;
}

std::string generateWgmmaGemmSource(const WgmmaGemmSpec &spec) {
  auto str = [](int64_t value) { return std::to_string(value); };
  int64_t stageBytes = getStageBytes(spec);
  int64_t aBytes = int64_t(kWgmmaGemmBlockM) * kWgmmaGemmBlockK * 2;
  int64_t mTiles = ceilDiv(spec.m, kWgmmaGemmBlockM);
  int64_t nTiles = ceilDiv(spec.n, spec.blockN);
  std::string load = spec.bfloat16 ? "cgc_bf16_to_float" : "cgc_f16_to_float";
  std::string store = spec.bfloat16 ? "cgc_float_to_bf16" : "cgc_float_to_f16";
  std::string activation =
      spec.activation == WgmmaGemmSpec::Activation::GeluErf ? "cgc_gelu16" : "";

  std::string source = "#define CGC_M " + str(spec.m) + "\n#define CGC_N " + str(spec.n) +
            "\n#define CGC_K_TILES " + str(ceilDiv(spec.k, kWgmmaGemmBlockK)) +
            "\n#define CGC_N_TILES " + str(nTiles) + "\n#define CGC_TILES " +
            str(mTiles * nTiles) + "\n#define CGC_BN " + str(spec.blockN) +
            "\n#define CGC_STAGES " + str(spec.stages) + "\n#define CGC_STAGE_BYTES " +
            str(stageBytes) + "u\n#define CGC_A_BYTES " + str(aBytes) +
            "u\n#define CGC_B_LEADING 8192u\n#define CGC_B_STRIDE 1024u\n#define CGC_MIN_BLOCKS " +
            str(getWgmmaGemmBlocksPerMultiprocessor(spec)) + "\n#define CGC_BIAS " + str(spec.bias ? 1 : 0) +
            "\n#define CGC_LOAD " + load + "\n#define CGC_STORE " + store +
            "\n#define CGC_ACTIVATION " + activation + "\n#define CGC_PING_PONG " +
            str(spec.pingPong ? 1 : 0) + "\n#define CGC_STAGED " + str(spec.staged ? 1 : 0) +
            "\n#define CGC_STAGING_BYTES " + str(getStagingBytes(spec)) +
            "u\n#define CGC_STAGED_ROW " + str(getStagedRow(spec)) + "\n";
  source += kHelpers;
  source += generateMma(spec);
  source += R"cuda(
// Two values rounded to the element type as one 32-bit pair, the first low.
CGC_DEVICE unsigned cgc_pack_pair(float low, float high) {
  return (unsigned)CGC_STORE(low) | ((unsigned)CGC_STORE(high) << 16);
}
// The bias pair of columns col and col + 1 (zeros past N, or without one).
CGC_DEVICE unsigned cgc_bias_pair(const unsigned short *bias, int col) {
  return CGC_BIAS && col < CGC_N ? *(const unsigned *)(bias + col) : 0u;
}
// Persistent: block b computes tiles b, b + gridDim, ... (row-major over
// the tiles). Warps 0-7: two computing warpgroups (rows 0-63 and 64-127 of
// a tile; ping-pong: whole tiles, every other one of the block's); warp 8:
// the copies, which run ahead into the next tile while the others store.
extern "C" __global__ void __launch_bounds__(288, CGC_MIN_BLOCKS)
cgc_wgmma_gemm(const __grid_constant__ cgc_tensor_map mapA,
               const __grid_constant__ cgc_tensor_map mapB, unsigned short *__restrict__ out,
               const unsigned short *__restrict__ bias) {
  extern __shared__ unsigned char cgc_shared[];
  const unsigned base = ((unsigned)__cvta_generic_to_shared(cgc_shared) + 1023u) & ~1023u;
  // The slots, then each computing warpgroup's staging buffer, then the
  // mbarriers: full[s] at barriers + 8s (the copies arrived), empty[s] at
  // barriers + 8 (STAGES + s) (both computing warpgroups, or the ping-pong
  // one that read it, are done with slot s).
  const unsigned barriers = base + CGC_STAGES * CGC_STAGE_BYTES + 2 * CGC_STAGING_BYTES;
  const int warpgroup = threadIdx.x / 128;
  // Ping-pong: order[w] at barriers + 8 (2 STAGES + w), warpgroup w's
  // turn to run its main loop.
  const unsigned order = barriers + 16 * CGC_STAGES;
  if (threadIdx.x == 256) {
    for (int s = 0; s < CGC_STAGES; ++s) {
      cgc_mbar_init(barriers + 8 * s, 1);
      cgc_mbar_init(barriers + 8 * (CGC_STAGES + s), CGC_PING_PONG ? 1 : 2);
    }
    if (CGC_PING_PONG) {
      cgc_mbar_init(order, 1);
      cgc_mbar_init(order + 8, 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (warpgroup == 2) {
    if (threadIdx.x == 256) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)&mapA) : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)&mapB) : "memory");
      int it = 0;
      for (int tile = blockIdx.x; tile < CGC_TILES; tile += gridDim.x) {
        const int m0 = (tile / CGC_N_TILES) * 128, n0 = (tile % CGC_N_TILES) * CGC_BN;
        for (int kt = 0; kt < CGC_K_TILES; ++kt, ++it) {
          const int s = it % CGC_STAGES;
          if (it >= CGC_STAGES)
            cgc_mbar_wait(barriers + 8 * (CGC_STAGES + s), ((it / CGC_STAGES) - 1) & 1);
          const unsigned full = barriers + 8 * s;
          const unsigned slot = base + s * CGC_STAGE_BYTES;
          cgc_mbar_expect(full, CGC_STAGE_BYTES);
          cgc_tma_load(slot, &mapA, full, kt * 64, m0);
          for (int j = 0; j < CGC_BN / 64; ++j)
            cgc_tma_load(slot + CGC_A_BYTES + j * 8192, &mapB, full, n0 + 64 * j, kt * 64);
        }
      }
    }
    return;
  }
  const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
  // Cooperative: both warpgroups take every tile of the block, 64 rows
  // each (one accumulator set). Ping-pong: warpgroup w takes the block's
  // tiles w, w + 2, ... (ring steps (w + 2j) · K_TILES on), all 128 rows
  // (two sets); its j-th main loop waits for the other's previous one to
  // be issued (order[w], phase j - 1 for warpgroup 0).
  constexpr int halves = CGC_PING_PONG ? 2 : 1;
  const unsigned rows = CGC_PING_PONG ? 0u : warpgroup * 8192u;
  const int tileStep = (CGC_PING_PONG ? 2 : 1) * gridDim.x;
  int it = CGC_PING_PONG ? warpgroup * CGC_K_TILES : 0;
  int turn = 0;
  for (int tile = blockIdx.x + (CGC_PING_PONG ? warpgroup * gridDim.x : 0); tile < CGC_TILES;
       tile += tileStep, ++turn) {
    const int m0 = (tile / CGC_N_TILES) * 128, n0 = (tile % CGC_N_TILES) * CGC_BN;
    // The first of the warpgroup's rows of the tile.
    const int firstRow = m0 + (CGC_PING_PONG ? 0 : warpgroup * 64);
#if !CGC_STAGED
    // This thread's bias pairs, read before the products hide the wait.
    // (Staged, each is read as its pair is staged: held across the main
    // loop beside 128 accumulators, they spilled.)
    unsigned biasPairs[CGC_BN / 8];
#pragma unroll
    for (int j = 0; j < CGC_BN / 8; ++j)
      biasPairs[j] = cgc_bias_pair(bias, n0 + j * 8 + (lane % 4) * 2);
#endif
    // Rows 64h.. of the warpgroup's (the first step overwrites them).
    float acc[halves][CGC_BN / 2];
    if (CGC_PING_PONG && warpgroup == 1)
      cgc_mbar_wait(order + 8, turn & 1);
    else if (CGC_PING_PONG && turn > 0)
      cgc_mbar_wait(order, (turn - 1) & 1);
    // Step kt's products are issued before step kt - 1's are waited for,
    // so the tensor cores always have the next group queued; then kt - 1's
    // slot is given back.
    for (int kt = 0; kt < CGC_K_TILES; ++kt, ++it) {
      const int s = it % CGC_STAGES;
      cgc_mbar_wait(barriers + 8 * s, (it / CGC_STAGES) & 1);
      const unsigned slot = base + s * CGC_STAGE_BYTES;
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const unsigned long long b =
            cgc_wgmma_desc(slot + CGC_A_BYTES + kk * 2048, CGC_B_LEADING, CGC_B_STRIDE);
#pragma unroll
        for (int half = 0; half < halves; ++half)
          cgc_wgmma(acc[half], cgc_wgmma_desc(slot + rows + half * 8192u + kk * 32, 16, 1024),
                    b, kt | kk);
      }
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      if (CGC_PING_PONG && kt == CGC_K_TILES - 1 && threadIdx.x % 128 == 0)
        cgc_mbar_arrive(warpgroup == 0 ? order + 8 : order);
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
      if (kt > 0)
        cgc_release(barriers + 8 * (CGC_STAGES + (it - 1) % CGC_STAGES));
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    cgc_release(barriers + 8 * (CGC_STAGES + (it - 1) % CGC_STAGES));
#if CGC_STAGED
    // The warpgroup's rows (acc + bias, rounded) into its buffer once every
    // thread of it has read the previous tile's, then 8 contiguous values
    // a thread: the activation, one 16-byte store.
    const unsigned staging = base + CGC_STAGES * CGC_STAGE_BYTES + warpgroup * CGC_STAGING_BYTES;
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + warpgroup) : "memory");
#pragma unroll
    for (int half = 0; half < halves; ++half)
#pragma unroll
      for (int j = 0; j < CGC_BN / 8; ++j) {
        const unsigned biasPair = cgc_bias_pair(bias, n0 + j * 8 + (lane % 4) * 2);
        const float b0 = CGC_LOAD((unsigned short)(biasPair & 0xffffu));
        const float b1 = CGC_LOAD((unsigned short)(biasPair >> 16));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = 64 * half + 16 * warp + lane / 4 + 8 * h;
          const unsigned pair =
              cgc_pack_pair(acc[half][4 * j + 2 * h] + b0, acc[half][4 * j + 2 * h + 1] + b1);
          asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(
                           staging + 2u * (r * CGC_STAGED_ROW + j * 8 + (lane % 4) * 2)),
                       "r"(pair)
                       : "memory");
        }
      }
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + warpgroup) : "memory");
    // Thread t takes chunk t % (BN/8) of rows t / (BN/8), then every
    // 128 / (BN/8)-th row after it.
    constexpr int chunksPerRow = CGC_BN / 8, rowStep = 128 / chunksPerRow;
    const int chunk = threadIdx.x % chunksPerRow, col = n0 + chunk * 8;
#pragma unroll 4
    for (int r = (threadIdx.x % 128) / chunksPerRow; r < 64 * halves; r += rowStep) {
      unsigned w[4];
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                   : "r"(staging + 2u * (r * CGC_STAGED_ROW + chunk * 8))
                   : "memory");
      if (firstRow + r < CGC_M && col < CGC_N) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          w[e] = cgc_pack_pair(CGC_ACTIVATION(CGC_LOAD((unsigned short)(w[e] & 0xffffu))),
                               CGC_ACTIVATION(CGC_LOAD((unsigned short)(w[e] >> 16))));
        cgc_store_16(out + (long long)(firstRow + r) * CGC_N + col, w[0], w[1], w[2], w[3]);
      }
    }
#else
    const int row = firstRow + warp * 16 + lane / 4;
#pragma unroll
    for (int half = 0; half < halves; ++half)
#pragma unroll
      for (int j = 0; j < CGC_BN / 8; ++j) {
        const int col = n0 + j * 8 + (lane % 4) * 2;
        if (col < CGC_N) {
          const float b0 = CGC_LOAD((unsigned short)(biasPairs[j] & 0xffffu));
          const float b1 = CGC_LOAD((unsigned short)(biasPairs[j] >> 16));
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int r = row + 64 * half + 8 * h;
            if (r < CGC_M)
              *(unsigned *)(out + (long long)r * CGC_N + col) =
                  cgc_pack_pair(CGC_ACTIVATION(acc[half][4 * j + 2 * h] + b0),
                                CGC_ACTIVATION(acc[half][4 * j + 2 * h + 1] + b1));
          }
        }
      }
#endif
    // Ping-pong: past the other warpgroup's tile's steps.
    if (CGC_PING_PONG)
      it += CGC_K_TILES;
  }
}
)cuda";
  return source;
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

/// cuTensorMapEncodeTiled through the runtime (nothing links libcuda), or
/// null with `error` set.
static EncodeTiled getEncodeTiled(std::string &error) {
  static std::once_flag once;
  static EncodeTiled function = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    void *pointer = nullptr;
    cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
    cudaError_t status = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &pointer,
                                                          12000, cudaEnableDefault, &query);
    if (status != cudaSuccess || query != cudaDriverEntryPointSuccess || !pointer)
      failure = std::string("the CUDA driver has no cuTensorMapEncodeTiled (") +
                cudaGetErrorString(status) + ")";
    else
      function = reinterpret_cast<EncodeTiled>(pointer);
  });
  error = failure;
  return function;
}

std::string encodeWgmmaGemmTensorMaps(const WgmmaGemmSpec &spec, const void *a, const void *b,
                                      void *mapA, void *mapB) {
  std::string error;
  EncodeTiled encode = getEncodeTiled(error);
  if (!encode)
    return error;
  CUtensorMapDataType type =
      spec.bfloat16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  cuuint32_t elementStrides[2] = {1, 1};
  auto encodeOne = [&](void *map, const void *address, cuuint64_t inner, cuuint64_t outer,
                       cuuint32_t boxOuter, const char *name) -> std::string {
    cuuint64_t sizes[2] = {inner, outer};
    cuuint64_t strides[1] = {inner * 2};
    cuuint32_t box[2] = {64, boxOuter};
    CUresult result = encode(static_cast<CUtensorMap *>(map), type, 2, const_cast<void *>(address),
                             sizes, strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS)
      return std::string("cuTensorMapEncodeTiled failed for ") + name + " (CUresult " +
             std::to_string(int(result)) + ")";
    return {};
  };
  std::string message = encodeOne(mapA, a, cuuint64_t(spec.k), cuuint64_t(spec.m),
                                  kWgmmaGemmBlockM, "the product's lhs");
  if (message.empty())
    message = encodeOne(mapB, b, cuuint64_t(spec.n), cuuint64_t(spec.k), kWgmmaGemmBlockK,
                        "the product's rhs");
  return message;
}

} // namespace cgc::cuda
