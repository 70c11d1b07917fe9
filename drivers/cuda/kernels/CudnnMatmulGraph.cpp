//===- CudnnMatmulGraph.cpp - a product and its activation as one cuDNN graph ===//

#include "CudnnMatmulGraph.h"

#include "CudnnConvolution.h"

#include <algorithm>

namespace cgc::cuda {

GraphKernelPlan createMatmulGraph(const MatmulGraphSpec &spec,
                                  std::shared_ptr<CudnnHandle> handle,
                                  const CudnnPlanSearch &search, std::string &reason) {
  CudnnGraphBuilder builder;
  GraphKernelPlan result;
  cudnnDataType_t dataType = getCudnnDataType(spec.dtype);
  int64_t m = spec.m, k = spec.k, n = spec.n;
  // uids: argument + 1 for arguments, then the output and the virtual
  // tensors.
  int64_t nextUid = std::max({spec.lhs, spec.rhs, spec.bias.value_or(0)}) + 2;
  auto argument = [&](unsigned index, llvm::ArrayRef<int64_t> dims,
                      llvm::ArrayRef<int64_t> strides) {
    int64_t uid = index + 1;
    result.uids.push_back(uid);
    result.arguments.push_back(static_cast<int>(index));
    return builder.createTensor(uid, dataType, dims, strides, kGraphAlignment,
                                /*isVirtual=*/false);
  };
  auto intermediate = [&]() {
    return builder.createTensor(nextUid++, CUDNN_DATA_FLOAT, {1, m, n}, {m * n, n, 1},
                                kGraphAlignment, /*isVirtual=*/true);
  };
  cudnnBackendDescriptor_t a = argument(spec.lhs, {1, m, k}, {m * k, k, 1});
  cudnnBackendDescriptor_t b = argument(spec.rhs, {1, k, n}, {k * n, n, 1});
  cudnnBackendDescriptor_t bias =
      spec.bias ? argument(*spec.bias, {1, 1, n}, {n, n, 1}) : nullptr;
  int64_t outputUid = nextUid++;
  result.uids.push_back(outputUid);
  result.arguments.push_back(-1);
  cudnnBackendDescriptor_t output =
      builder.createTensor(outputUid, dataType, {1, m, n}, {m * n, n, 1}, kGraphAlignment,
                           /*isVirtual=*/false);

  llvm::SmallVector<cudnnBackendDescriptor_t, 3> operations;
  cudnnBackendDescriptor_t matmul = builder.create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  builder.setDataType(matmul, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT,
                      "matmul compute type");
  builder.finalize(matmul, "matmul");
  cudnnBackendDescriptor_t product = intermediate();
  cudnnBackendDescriptor_t matmulOperation =
      builder.create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  builder.setDescriptor(matmulOperation, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a, "matmul a");
  builder.setDescriptor(matmulOperation, CUDNN_ATTR_OPERATION_MATMUL_BDESC, b, "matmul b");
  builder.setDescriptor(matmulOperation, CUDNN_ATTR_OPERATION_MATMUL_CDESC, product, "matmul c");
  builder.setDescriptor(matmulOperation, CUDNN_ATTR_OPERATION_MATMUL_DESC, matmul,
                        "matmul descriptor");
  builder.finalize(matmulOperation, "matmul operation");
  operations.push_back(matmulOperation);

  auto pointwise = [&](cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
                       cudnnBackendDescriptor_t other, cudnnBackendDescriptor_t y) {
    cudnnBackendDescriptor_t descriptor = builder.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    builder.set(descriptor, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode,
                "pointwise mode");
    builder.setDataType(descriptor, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_DATA_FLOAT,
                        "pointwise precision");
    builder.finalize(descriptor, "pointwise");
    cudnnBackendDescriptor_t operation =
        builder.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, descriptor,
                          "pointwise descriptor");
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x, "pointwise x");
    if (other)
      builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, other,
                            "pointwise b");
    builder.setDescriptor(operation, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y, "pointwise y");
    builder.finalize(operation, "pointwise operation");
    operations.push_back(operation);
  };
  cudnnBackendDescriptor_t value = product;
  if (bias) {
    cudnnBackendDescriptor_t biased = intermediate();
    pointwise(CUDNN_POINTWISE_ADD, value, bias, biased);
    value = biased;
  }
  pointwise(spec.activation, value, nullptr, output);
  if (builder.hasFailed()) {
    reason = builder.getError();
    return {};
  }
  CudnnEngineFilter filter;
  for (std::unique_ptr<CudnnPlan> &plan :
       createCudnnPlans(std::move(handle), builder, operations, filter, search, reason))
    result.plans.push_back(std::move(plan));
  return result;
}

} // namespace cgc::cuda
