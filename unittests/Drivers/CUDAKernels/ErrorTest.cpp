//===- ErrorTest.cpp - what the CUDA kernels reject, and how they say it --===//
//
// Most of these run without a GPU: the op dispatch and the element-type
// checks need no device, and the compile-only context builds generated
// kernels with NVRTC alone.
//
//===----------------------------------------------------------------------===//

#include "CUDAKernelTestSupport.h"

using namespace cgc::cuda;
using namespace cgc::cuda::test;

namespace {

class ErrorTest : public CUDAKernelTest {
public:
  /// The message of building `opCase` with the compile-only context, or "".
  std::string compileOnlyError(const OpCase &opCase) {
    mlir::Operation *op = buildOp(opCase);
    if (!op)
      return "<no op>";
    llvm::Expected<Kernel> kernel = buildKernelForContext(op, getCompileOnlyContext());
    return kernel ? "" : llvm::toString(kernel.takeError());
  }
};

/// An op the CUDA driver has no kernel for: every cgc_op layer has one, so
/// the terminator of the entry point that buildOp parses stands in.
const OpCase kAdd = {"cgc_op.add", {tensor({2}, DType::F32), tensor({2}, DType::F32)}, ""};
const char kReturnUnimplemented[] = "cgc.return is not implemented on the CUDA driver";

TEST_F(ErrorTest, UnimplementedOpIsNamed) {
  mlir::Operation *add = buildOp(kAdd);
  ASSERT_NE(add, nullptr);
  EXPECT_FALSE(static_cast<bool>(checkOpImplemented(add)));
  mlir::Operation *terminator = add->getBlock()->getTerminator();
  ASSERT_NE(terminator, nullptr);
  EXPECT_EQ(llvm::toString(checkOpImplemented(terminator)), kReturnUnimplemented);
  llvm::Expected<Kernel> kernel = buildKernelForContext(terminator, getCompileOnlyContext());
  ASSERT_FALSE(static_cast<bool>(kernel));
  EXPECT_EQ(llvm::toString(kernel.takeError()), kReturnUnimplemented);
}

TEST_F(ErrorTest, UnimplementedElementTypeIsNamed) {
  EXPECT_EQ(compileOnlyError(
                {"cgc_op.gemm", {tensor({2, 3}, DType::I64), tensor({3, 4}, DType::I64)}, ""}),
            "cgc_op.gemm: element type int64 is not implemented on the CUDA driver");
}

TEST_F(ErrorTest, LibraryFamiliesNeedADevice) {
  std::string message = compileOnlyError(
      {"cgc_op.matmul", {tensor({2, 3}, DType::F32), tensor({3, 4}, DType::F32)}, ""});
  EXPECT_NE(message.find("cgc_op.matmul: cuBLASLt needs a device"), std::string::npos) << message;
}

TEST_F(ErrorTest, LayersOfOneShapeFamilyShareAModule) {
  // A context of its own: the shared one may have compiled these already.
  std::unique_ptr<KernelContext::Impl> fresh = KernelContext::Impl::createCompileOnly(9, 0);
  KernelContext::Impl &compileOnly = *fresh;
  auto build = [&](Dims lhs, Dims rhs) {
    mlir::Operation *op =
        buildOp({"cgc_op.sub", {tensor(lhs, DType::U16), tensor(rhs, DType::U16)}, ""});
    ASSERT_NE(op, nullptr);
    llvm::Expected<Kernel> kernel = buildKernelForContext(op, compileOnly);
    ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  };
  build({3, 4}, {3, 4});
  size_t modules = compileOnly.getCompiler().getModuleCount();
  // Other sizes, same merged rank and types: no new module.
  build({7, 9, 2}, {7, 9, 2});
  build({100}, {100});
  EXPECT_EQ(compileOnly.getCompiler().getModuleCount(), modules);
  // A broadcast needs two loop dimensions: a new module.
  build({7, 9}, {9});
  EXPECT_EQ(compileOnly.getCompiler().getModuleCount(), modules + 1);
}

TEST_F(ErrorTest, DeviceBuildNamesUnimplementedOp) {
  CGC_REQUIRE_CUDA_DEVICE();
  mlir::Operation *add = buildOp(kAdd);
  ASSERT_NE(add, nullptr);
  KernelContext *context = getDeviceContext();
  ASSERT_NE(context, nullptr);
  llvm::Expected<Kernel> kernel = buildKernel(add->getBlock()->getTerminator(), *context);
  ASSERT_FALSE(static_cast<bool>(kernel));
  EXPECT_EQ(llvm::toString(kernel.takeError()), kReturnUnimplemented);
}

TEST_F(ErrorTest, ContextCreationFailsCleanlyWithoutADevice) {
  if (hasCudaDevice())
    GTEST_SKIP() << "a CUDA device is present";
  auto context = KernelContext::create(0);
  ASSERT_FALSE(static_cast<bool>(context));
  std::string message = llvm::toString(context.takeError());
  EXPECT_NE(message.find("CUDA device 0: cudaSetDevice failed"), std::string::npos) << message;
}

} // namespace
