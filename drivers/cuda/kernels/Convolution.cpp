//===- Convolution.cpp - convolution through cuDNN ------------------------===//
//
// 1-, 2- and 3-D convolutions (NCW as NC1W) with groups, strides and
// dilations run as cudnnConvolutionForward with an algorithm picked at build
// time (CudnnConvolution.h). cuDNN pads symmetrically; asymmetric padding
// pads the input into the workspace first (a generated constant-pad kernel)
// and convolves that without padding. The bias is added by a generated
// broadcast kernel in place.
//
//===----------------------------------------------------------------------===//

#include "CudnnConvolution.h"
#include "ElementwiseCodegen.h"

namespace cgc::cuda {

llvm::Expected<Kernel> buildConvolutionKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto conv = llvm::cast<op::ConvolutionOp>(op);
  auto plan = planCudnnConvolution(conv);
  if (!plan)
    return plan.takeError();
  if (plan->output.getNumElements() == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  DType dtype = plan->geometry.dtype;

  // Generated helpers first: they compile without a device.
  std::optional<Kernel> bias;
  if (conv.getBias()) {
    auto biasInfo = getTensorInfo(op, conv.getBias());
    if (!biasInfo)
      return biasInfo.takeError();
    if (biasInfo->dtype != dtype)
      return unimplementedElementType(op, biasInfo->dtype);
    const Shape &outputShape = plan->output.shape;
    Shape channelShape(outputShape.size() - 1, 1);
    channelShape[0] = biasInfo->getNumElements();
    StridedKernelSpec spec;
    spec.operands.push_back(broadcastOperand(dtype, outputShape, outputShape));
    spec.operands.push_back(broadcastOperand(dtype, channelShape, outputShape));
    spec.outputType = dtype;
    spec.outputShape = outputShape;
    spec.expression = "(x0 + x1)";
    auto biasKernel = buildStridedKernel(op, context, spec);
    if (!biasKernel)
      return biasKernel.takeError();
    bias = std::move(*biasKernel);
  }
  auto convolution = buildCudnnConvolutionKernel(conv, context, *plan);
  if (!convolution)
    return convolution.takeError();

  uint64_t workspaceSize = convolution->workspaceSize;
  auto launch = [convolution = std::move(*convolution),
                 bias = std::move(bias)](const LaunchArgs &args) -> std::string {
    std::string message = convolution.launch(
        LaunchArgs{args.inputs.first(2), args.outputs, args.workspace, args.stream});
    if (!message.empty() || !bias)
      return message;
    const void *operands[] = {args.outputs[0], args.inputs[2]};
    return bias->launch(LaunchArgs{operands, args.outputs, nullptr, args.stream});
  };
  return Kernel{std::move(launch), workspaceSize};
}

} // namespace cgc::cuda
