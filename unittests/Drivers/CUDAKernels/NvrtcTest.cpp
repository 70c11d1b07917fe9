//===- NvrtcTest.cpp - the generated sources' compiler and its cache ------===//
//
// Compile-only compilers: these run anywhere NVRTC loads.
//
//===----------------------------------------------------------------------===//

#include "drivers/cuda/kernels/KernelContextImpl.h"
#include "drivers/cuda/kernels/Nvrtc.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace cgc::cuda;

namespace {

const char kSource[] = R"cuda(
extern "C" __global__ void cgc_test_scale(float *data, float factor) {
  data[threadIdx.x] *= factor;
}
)cuda";

/// `threads` threads asking `compiler` for `source`'s kernel at once; the
/// error text of each ("" where it got the function).
std::vector<std::string> requestConcurrently(NvrtcCompiler &compiler, const std::string &source,
                                             size_t threads) {
  std::vector<std::string> errors(threads);
  std::vector<std::thread> workers;
  for (size_t index = 0; index < threads; ++index)
    workers.emplace_back([&, index] {
      llvm::Expected<DeviceFunction> function = compiler.getFunction(source, "cgc_test_scale");
      if (!function)
        errors[index] = llvm::toString(function.takeError());
    });
  for (std::thread &worker : workers)
    worker.join();
  return errors;
}

TEST(NvrtcTest, ConcurrentRequestsForOneSourceCompileItOnce) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  NvrtcCompiler &compiler = context->getCompiler();
  for (const std::string &error : requestConcurrently(compiler, kSource, 8))
    EXPECT_EQ(error, "");
  EXPECT_EQ(compiler.getCompilationCount(), 1u);
  EXPECT_EQ(compiler.getModuleCount(), 1u);
  // Later requests hit the cache.
  ASSERT_TRUE(static_cast<bool>(compiler.getFunction(kSource, "cgc_test_scale")));
  EXPECT_EQ(compiler.getCompilationCount(), 1u);
}

TEST(NvrtcTest, ThreadsWaitingOnAFailedCompilationGetItsError) {
  std::unique_ptr<KernelContext::Impl> context = KernelContext::Impl::createCompileOnly(9, 0);
  NvrtcCompiler &compiler = context->getCompiler();
  std::string broken = std::string(kSource) + "this is not CUDA;\n";
  std::vector<std::string> errors = requestConcurrently(compiler, broken, 6);
  // A waiting thread gets the compiling thread's log; one that asks after
  // the failure was published compiles again (failures are not cached) and
  // fails alike.
  for (const std::string &error : errors) {
    EXPECT_NE(error.find("NVRTC compilation failed"), std::string::npos) << error;
    EXPECT_NE(error.find("this is not CUDA"), std::string::npos) << error;
  }
  EXPECT_GE(compiler.getCompilationCount(), 1u);
  EXPECT_EQ(compiler.getModuleCount(), 0u);
}

} // namespace
