//===- ConvTranspose.cpp - transposed convolution through cuDNN -----------===//
//
// conv_transpose is the gradient of a convolution with respect to its
// input, which is what cuDNN's backward-data convolution computes
// (CudnnConvolution.h): the conv_transpose input is that convolution's
// output gradient, its weight the convolution's filter (C×M/groups×kernel
// is cuDNN's K×C/groups×kernel), its output the input gradient.
//
// cuDNN pads both ends alike and its result has the size of a forward
// input. Per spatial dimension the full transposed result has
//   F = stride × (D - 1) + dilation × (K - 1) + 1
// positions, and the layer's output is positions [start_padding,
// start_padding + O) of it, O = F + output_padding - start_padding -
// end_padding, where positions past F (output_padding) receive nothing.
// cuDNN computes positions [p, F - p + e) with p = min(start, end) (kept
// below F / 2) and e < stride the positions the output needs past F - p (a
// forward input that much longer has the same forward output size); when
// that is exactly the output it writes the output directly,
// otherwise it writes the workspace and a generated pad kernel crops and
// zero-extends it into the output. The bias is added in place by a
// generated broadcast kernel.
//
//===----------------------------------------------------------------------===//

#include "CudnnConvolution.h"
#include "ElementwiseCodegen.h"

#include <algorithm>

namespace cgc::cuda {

llvm::Expected<Kernel> buildConvTransposeKernel(mlir::Operation *op, KernelContext::Impl &context) {
  auto conv = llvm::cast<op::ConvTransposeOp>(op);
  auto input = getTensorInfo(op, conv.getInput());
  if (!input)
    return input.takeError();
  auto weight = getTensorInfo(op, conv.getWeight());
  if (!weight)
    return weight.takeError();
  auto output = getTensorInfo(op, conv.getOutput());
  if (!output)
    return output.takeError();
  DType dtype = input->dtype;
  // float64 too would be cuDNN's, but the CPU reference lacks it.
  if (!isFloat32ComputedDType(dtype))
    return unimplementedElementType(op, dtype);
  if (weight->dtype != dtype)
    return unimplementedElementType(op, weight->dtype);
  int64_t spatialRank = input->getRank() - 2;
  if (spatialRank < 1 || spatialRank > 3)
    return unimplementedFeature(op, llvm::Twine(spatialRank) + "-D transposed convolution");
  Shape strides = getWindowList(conv.getStrides(), spatialRank, 1);
  Shape dilations = getWindowList(conv.getDilations(), spatialRank, 1);
  Shape startPadding = getWindowList(conv.getStartPadding(), spatialRank, 0);
  Shape endPadding = getWindowList(conv.getEndPadding(), spatialRank, 0);
  if (llvm::any_of(startPadding, [](int64_t p) { return p < 0; }) ||
      llvm::any_of(endPadding, [](int64_t p) { return p < 0; }))
    return unimplementedFeature(op, "negative padding");
  if (output->getNumElements() == 0)
    return Kernel{[](const LaunchArgs &) { return std::string(); }, 0};
  if (input->getNumElements() == 0)
    return unimplementedFeature(op, "an empty input with a non-empty output");

  // What cuDNN computes: the input gradient of a forward convolution with
  // symmetric padding `padding`, of spatial size `computed`.
  Shape padding(spatialRank), computed(input->shape);
  computed[1] = output->shape[1];
  Shape cropStart{0, 0}, cropEnd{0, 0};
  bool direct = true;
  for (int64_t dim = 0; dim < spatialRank; ++dim) {
    int64_t full = strides[dim] * (input->shape[dim + 2] - 1) +
                   dilations[dim] * (weight->shape[dim + 2] - 1) + 1;
    padding[dim] = std::min({startPadding[dim], endPadding[dim], (full - 1) / 2});
    // A forward input up to stride - 1 positions longer has the same forward
    // output size, so cuDNN also computes the positions the symmetric
    // padding would cut at the end but the output keeps (output_padding, or
    // end padding smaller than the start's): those past F come out 0.
    int64_t neededEnd = startPadding[dim] + output->shape[dim + 2];
    int64_t extra = std::clamp<int64_t>(neededEnd - (full - padding[dim]), 0, strides[dim] - 1);
    computed[dim + 2] = full - 2 * padding[dim] + extra;
    // output[o] = computed[o + start - p]: a pad kernel with negative start
    // padding crops, positive end padding zero-extends.
    int64_t offset = startPadding[dim] - padding[dim];
    cropStart.push_back(-offset);
    cropEnd.push_back(output->shape[dim + 2] - computed[dim + 2] + offset);
    direct = direct && offset == 0 && computed[dim + 2] == output->shape[dim + 2];
  }

  // cuDNN's view, in forward terms: the forward input is what this layer
  // outputs (before cropping), the forward output is this layer's input.
  bool heightOne = spatialRank == 1;
  auto forwardInput = toCudnnDims(computed, heightOne, 2, 1);
  auto filter = toCudnnDims(weight->shape, heightOne, 2, 1);
  auto forwardOutput = toCudnnDims(input->shape, heightOne, 2, 1);
  auto paddingDims = toCudnnDims(padding, heightOne, 0, 0);
  auto strideDims = toCudnnDims(strides, heightOne, 0, 1);
  auto dilationDims = toCudnnDims(dilations, heightOne, 0, 1);
  if (!forwardInput || !filter || !forwardOutput || !paddingDims || !strideDims || !dilationDims)
    return unimplementedFeature(op, "a dimension beyond 2^31");
  CudnnConvolutionGeometry geometry;
  geometry.dtype = dtype;
  geometry.input = std::move(*forwardInput);
  geometry.weight = std::move(*filter);
  geometry.output = std::move(*forwardOutput);
  geometry.padding.assign(paddingDims->begin(), paddingDims->end());
  geometry.strides.assign(strideDims->begin(), strideDims->end());
  geometry.dilations.assign(dilationDims->begin(), dilationDims->end());
  geometry.groups = static_cast<int>(conv.getGroups());

  // Generated helpers first: they compile without a device.
  std::optional<Kernel> crop, bias;
  uint64_t computedBytes = 0;
  if (!direct) {
    auto cropKernel =
        buildConstantPadKernel(op, context, dtype, computed, cropStart, cropEnd, /*fillBits=*/0);
    if (!cropKernel)
      return cropKernel.takeError();
    crop = std::move(*cropKernel);
    computedBytes = alignWorkspace(getNumElements(computed) * getByteWidth(dtype));
  }
  if (conv.getBias()) {
    auto biasInfo = getTensorInfo(op, conv.getBias());
    if (!biasInfo)
      return biasInfo.takeError();
    if (biasInfo->dtype != dtype)
      return unimplementedElementType(op, biasInfo->dtype);
    Shape channelShape(spatialRank + 1, 1);
    channelShape[0] = biasInfo->getNumElements();
    StridedKernelSpec spec;
    spec.operands.push_back(broadcastOperand(dtype, output->shape, output->shape));
    spec.operands.push_back(broadcastOperand(dtype, channelShape, output->shape));
    spec.outputType = dtype;
    spec.outputShape = output->shape;
    spec.expression = "(x0 + x1)";
    auto biasKernel = buildStridedKernel(op, context, spec);
    if (!biasKernel)
      return biasKernel.takeError();
    bias = std::move(*biasKernel);
  }

  auto convolution =
      createCudnnConvolution(op, context, geometry, CudnnConvolutionDirection::BackwardData);
  if (!convolution)
    return convolution.takeError();
  std::shared_ptr<CudnnConvolution> cudnn = std::move(*convolution);
  std::string opName = op->getName().getStringRef().str();
  uint64_t workspaceSize = computedBytes + cudnn->workspaceSize;
  auto launch = [=](const LaunchArgs &args) -> std::string {
    char *workspace = static_cast<char *>(args.workspace);
    void *result = crop ? static_cast<void *>(workspace) : args.outputs[0];
    cudnnStatus_t status =
        cudnn->run(args.inputs[0], args.inputs[1], result, workspace + computedBytes, args.stream);
    if (status != CUDNN_STATUS_SUCCESS)
      return opName + ": " + cudnn->getCallName() + " failed: " + cudnnGetErrorString(status);
    if (crop) {
      const void *computedData[] = {workspace};
      std::string message =
          crop->launch(LaunchArgs{computedData, args.outputs, nullptr, args.stream});
      if (!message.empty())
        return message;
    }
    if (bias) {
      const void *operands[] = {args.outputs[0], args.inputs[2]};
      return bias->launch(LaunchArgs{operands, args.outputs, nullptr, args.stream});
    }
    return "";
  };
  return Kernel{std::move(launch), alignWorkspace(workspaceSize)};
}

} // namespace cgc::cuda
