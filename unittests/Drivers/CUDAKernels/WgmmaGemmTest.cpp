//===- WgmmaGemmTest.cpp - the generated Hopper GEMM without a device -----===//
//
// The sources NVRTC compiles for sm_90a (every tile, type, bias and
// activation, sizes that fill no tile), what the generator refuses, and
// the kernel builder's refusal of other architectures. Its results against
// the CPU driver are FusedMatmulTest's ExactGeluHopperGemmMatchesCpu (on a
// device of compute capability 9.0).
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

#include "drivers/cuda/kernels/DeviceCode.h"
#include "drivers/cuda/kernels/WgmmaGemmKernel.h"

using namespace cgc::cuda;

namespace {

WgmmaGemmSpec makeSpec(int64_t m, int64_t n, int64_t k, int blockN, int stages,
                       bool pingPong = false, bool staged = false) {
  WgmmaGemmSpec spec;
  spec.pingPong = pingPong;
  spec.staged = staged;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.blockN = blockN;
  spec.stages = stages;
  return spec;
}

TEST(WgmmaGemmTest, SourcesCompileForSm90a) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  struct Tile {
    int blockN, stages;
    bool pingPong, staged;
  };
  for (auto [blockN, stages, pingPong, staged] :
       {Tile{128, 3, false, false}, Tile{128, 4, false, false}, Tile{256, 4, false, false},
        Tile{128, 6, true, false}, Tile{128, 4, true, true}, Tile{128, 5, false, true},
        Tile{256, 3, false, true}})
    for (bool bfloat16 : {false, true})
      for (bool bias : {false, true})
        for (auto activation :
             {WgmmaGemmSpec::Activation::None, WgmmaGemmSpec::Activation::GeluErf}) {
          WgmmaGemmSpec spec = makeSpec(300, 200, 136, blockN, stages, pingPong, staged);
          spec.bfloat16 = bfloat16;
          spec.bias = bias;
          spec.activation = activation;
          ASSERT_TRUE(isWgmmaGemmSupported(spec));
          std::string source = std::string(getDevicePreamble()) + generateWgmmaGemmSource(spec);
          llvm::Expected<DeviceFunction> function = context->getCompiler().getFunction(
              source, kWgmmaGemmKernelName, /*archSpecific=*/true);
          EXPECT_TRUE(static_cast<bool>(function))
              << "tile 128x" << blockN << ", " << stages << " slots"
              << (pingPong ? ", ping-pong, " : ", ") << (staged ? "staged, " : "")
              << (bfloat16 ? "bfloat16" : "float16") << (bias ? ", bias" : "") << ": "
              << (function ? "" : llvm::toString(function.takeError()));
        }
  // Each distinct source compiled once.
  EXPECT_EQ(context->getCompiler().getModuleCount(), 56u);
}

TEST(WgmmaGemmTest, RefusesWhatItDoesNotRun) {
  EXPECT_TRUE(isWgmmaGemmSupported(makeSpec(1, 8, 8, 128, 3)));
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(128, 3072, 770, 128, 3))) << "K not a multiple of 8";
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(128, 3074, 768, 128, 3))) << "N not a multiple of 8";
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(0, 3072, 768, 128, 3))) << "no rows";
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(128, 3072, 768, 64, 3))) << "no 64-column tile";
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(128, 3072, 768, 256, 5)))
      << "five 48 KiB slots exceed shared memory";
  EXPECT_TRUE(isWgmmaGemmSupported(makeSpec(4096, 3072, 768, 128, 7, /*pingPong=*/true)));
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(4096, 3072, 768, 256, 4, /*pingPong=*/true)))
      << "ping-pong tiles have 128 columns";
  EXPECT_TRUE(isWgmmaGemmSupported(makeSpec(4096, 3072, 768, 128, 4, true, /*staged=*/true)));
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(4096, 3072, 768, 128, 5, true, /*staged=*/true)))
      << "five slots and two 128-row staging buffers exceed shared memory";
  EXPECT_FALSE(isWgmmaGemmSupported(makeSpec(4096, 3072, 768, 256, 4, false, /*staged=*/true)))
      << "four 48 KiB slots and two 64x264 staging buffers exceed shared memory";
}

TEST(WgmmaGemmTest, TimedUnaskedWhereEveryMultiprocessorGetsTwoTiles) {
  // BERT-base's and ViT-B/16's feed-forward products on 132 multiprocessors.
  EXPECT_TRUE(isWgmmaGemmWorthTiming(32 * 128, 3072, 132)) << "768 tiles";
  EXPECT_TRUE(isWgmmaGemmWorthTiming(32 * 197, 3072, 132)) << "1200 tiles";
  EXPECT_FALSE(isWgmmaGemmWorthTiming(128, 3072, 132)) << "24 tiles";
  EXPECT_FALSE(isWgmmaGemmWorthTiming(197, 3072, 132)) << "48 tiles";
  // 11 x 24 = 264 tiles, two for each of 132 (partial tiles count); a row
  // of tiles fewer is 240.
  EXPECT_TRUE(isWgmmaGemmWorthTiming(10 * 128 + 1, 2945, 132));
  EXPECT_FALSE(isWgmmaGemmWorthTiming(10 * 128, 3072, 132));
}

TEST(WgmmaGemmTest, PersistentGridAndSharedMemory) {
  WgmmaGemmSpec twoBlocks = makeSpec(4096, 3072, 768, 128, 3);
  EXPECT_EQ(getWgmmaGemmBlocksPerMultiprocessor(twoBlocks), 2);
  EXPECT_EQ(getWgmmaGemmSharedBytes(twoBlocks), 3u * 32768 + 1024 + 48);
  // 32 x 24 tiles, at most two blocks on each of 132 multiprocessors.
  EXPECT_EQ(getWgmmaGemmGrid(twoBlocks), 264u);
  WgmmaGemmSpec oneBlock = makeSpec(128, 3072, 768, 128, 4);
  EXPECT_EQ(getWgmmaGemmBlocksPerMultiprocessor(oneBlock), 1);
  EXPECT_EQ(getWgmmaGemmGrid(oneBlock), 24u);
  // Ping-pong: one block a multiprocessor, its two warpgroups' turns
  // ordered by two more mbarriers.
  WgmmaGemmSpec pingPong = makeSpec(4096, 3072, 768, 128, 6, /*pingPong=*/true);
  EXPECT_EQ(getWgmmaGemmBlocksPerMultiprocessor(pingPong), 1);
  EXPECT_EQ(getWgmmaGemmSharedBytes(pingPong), 6u * 32768 + 1024 + 96 + 16);
  EXPECT_EQ(getWgmmaGemmGrid(pingPong), 132u);
  // Staged: a buffer per computing warpgroup, its rows of the tile with 8
  // elements of padding each (128 rows ping-pong, 64 otherwise).
  WgmmaGemmSpec stagedPingPong = makeSpec(4096, 3072, 768, 128, 4, true, /*staged=*/true);
  EXPECT_EQ(getWgmmaGemmSharedBytes(stagedPingPong),
            4u * 32768 + 2 * 128 * 136 * 2 + 1024 + 64 + 16);
  WgmmaGemmSpec stagedWide = makeSpec(4096, 3072, 768, 256, 3, false, /*staged=*/true);
  EXPECT_EQ(getWgmmaGemmSharedBytes(stagedWide), 3u * 49152 + 2 * 64 * 264 * 2 + 1024 + 48);
  EXPECT_EQ(getWgmmaGemmBlocksPerMultiprocessor(makeSpec(4096, 3072, 768, 128, 3, false, true)), 1)
      << "two blocks' slots and staging buffers exceed shared memory";
  EXPECT_EQ(getWgmmaGemmGrid(stagedWide), 132u);
}

TEST(WgmmaGemmTest, OtherArchitecturesAreRefused) {
  std::unique_ptr<KernelContext::Impl> ampere = KernelContext::Impl::createCompileOnly(8, 0);
  std::optional<std::string> refusal = getWgmmaGemmRefusal(*ampere);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_NE(refusal->find("needs compute capability 9.0 (sm_90a), not 8.0"), std::string::npos)
      << *refusal;
  llvm::Expected<Kernel> kernel = buildWgmmaGemmKernel(makeSpec(128, 256, 64, 128, 3), 0, 1,
                                                       std::nullopt, Kernel{}, *ampere, "@f");
  ASSERT_FALSE(static_cast<bool>(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("@f: the Hopper GEMM needs compute capability 9.0"), std::string::npos)
      << message;
  std::unique_ptr<KernelContext::Impl> hopper = KernelContext::Impl::createCompileOnly(9, 0);
  EXPECT_FALSE(getWgmmaGemmRefusal(*hopper).has_value());
}

} // namespace
