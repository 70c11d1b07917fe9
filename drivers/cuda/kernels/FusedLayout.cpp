//===- FusedLayout.cpp - a float conversion and a transpose as one copy ---===//
//
// A cast between float32, float16 and bfloat16 next to a transpose
// (patterns/layout.mlir): a float32 model's NCHW input converted for a
// float16 computation and transposed to NHWC for its first convolution
// (ResNet-50, MobileNetV2), or a transpose before a conversion back. Run one
// by one they pass over the tensor twice (ResNet-50, float16, batch 256, on
// an H100: the cast 75 µs, the transpose 72 µs). Here they are one strided
// kernel (ElementwiseCodegen.h) that reads each element once through the
// transpose's strides, converts it as the cast layer converts it (through
// float) and writes it once: StridedCopy's interleave kernel for a
// transpose of few innermost elements (NCHW -> NHWC of 3 channels), the
// per-element kernel otherwise.
//
// A definition of exactly a cast and a transpose, one reading the other, is
// this family's; a cast to or from another type is an error naming the
// types there are.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseCodegen.h"
#include "FusedSupport.h"

#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

namespace cgc::cuda {

namespace {

constexpr const char *kFamily = "layout";

/// The cast and the transpose of a definition of this family.
struct CastTranspose {
  op::CastOp cast;
  op::TransposeOp transpose;
  /// Whether the cast reads the argument (and the transpose the cast).
  bool castFirst = true;
};

/// The definition's cast and transpose when it is exactly the two, one
/// reading the other's only use, the first reading the one argument and
/// the definition returning the second.
std::optional<CastTranspose> recognize(FunctionalDefinitionOp definition) {
  llvm::SmallVector<mlir::Operation *, 8> layers = getDefinitionLayers(definition);
  if (layers.size() != 2 || definition.getNumArguments() != 1)
    return std::nullopt;
  CastTranspose form;
  if (auto cast = llvm::dyn_cast<op::CastOp>(layers[0])) {
    form.cast = cast;
    form.transpose = llvm::dyn_cast<op::TransposeOp>(layers[1]);
  } else if (auto transpose = llvm::dyn_cast<op::TransposeOp>(layers[0])) {
    form.transpose = transpose;
    form.cast = llvm::dyn_cast<op::CastOp>(layers[1]);
    form.castFirst = false;
  }
  if (!form.cast || !form.transpose)
    return std::nullopt;
  mlir::Block &body = definition.getBody().front();
  mlir::Operation *first = layers[0], *second = layers[1];
  bool chained = first->getOperand(0) == body.getArgument(0) &&
                 second->getOperand(0) == first->getResult(0) &&
                 first->getResult(0).hasOneUse() &&
                 body.getTerminator()->getNumOperands() == 1 &&
                 body.getTerminator()->getOperand(0) == second->getResult(0);
  if (!chained)
    return std::nullopt;
  return form;
}

/// The definition's cast and transpose when it is this family's, an error
/// where the cast's types are not the kernel's, std::nullopt when it is not
/// this family's.
std::optional<llvm::Expected<CastTranspose>> read(FunctionalDefinitionOp definition) {
  std::optional<CastTranspose> form = recognize(definition);
  if (!form)
    return std::nullopt;
  for (mlir::Value value : {form->cast.getInput(), form->cast.getOutput()}) {
    llvm::Expected<TensorInfo> info = getTensorInfo(form->cast, value);
    if (!info)
      return makeFusedError(definition, kFamily, llvm::toString(info.takeError()));
    if (!isFloat32ComputedDType(info->dtype))
      return makeFusedError(definition, kFamily,
                            "cgc_op.cast with a transpose: element type " +
                                llvm::Twine(getDTypeName(info->dtype)) +
                                " is not implemented on the CUDA driver (float32, float16 and "
                                "bfloat16 to one another)");
  }
  return *form;
}

std::optional<llvm::Error> check(FunctionalDefinitionOp definition) {
  std::optional<llvm::Expected<CastTranspose>> form = read(definition);
  if (!form)
    return std::nullopt;
  if (!*form)
    return form->takeError();
  return llvm::Error::success();
}

std::optional<llvm::Expected<Kernel>> build(FunctionalDefinitionOp definition,
                                            KernelContext::Impl &context) {
  using Result = std::optional<llvm::Expected<Kernel>>;
  std::optional<llvm::Expected<CastTranspose>> found = read(definition);
  if (!found)
    return std::nullopt;
  if (!*found)
    return Result(found->takeError());
  CastTranspose form = **found;
  // The cast's types; the transpose's shapes (the cast keeps shapes).
  llvm::Expected<TensorInfo> input = getTensorInfo(form.cast, form.cast.getInput());
  llvm::Expected<TensorInfo> converted = getTensorInfo(form.cast, form.cast.getOutput());
  llvm::Expected<TensorInfo> unpermuted = getTensorInfo(form.transpose, form.transpose.getInput());
  llvm::Expected<TensorInfo> transposed =
      getTensorInfo(form.transpose, form.transpose.getOutput());
  for (llvm::Expected<TensorInfo> *info : {&input, &converted, &unpermuted, &transposed})
    if (!*info)
      return Result(makeFusedError(definition, kFamily, llvm::toString(info->takeError())));
  // out[i...] = convert(in[sum(i_d * strides_d)]): the transpose's strides
  // over the argument, whichever layer comes first.
  llvm::SmallVector<int64_t, 6> permutation = getTransposePermutation(form.transpose);
  Shape inputStrides = getStrides(unpermuted->shape);
  StridedOperand operand;
  operand.dtype = input->dtype;
  for (int64_t axis : permutation)
    operand.strides.push_back(inputStrides[axis]);
  StridedKernelSpec spec;
  spec.operands.push_back(std::move(operand));
  spec.outputType = converted->dtype;
  spec.outputShape = transposed->shape;
  // The cast layer's expression between float types (Elementwise.cpp).
  spec.expression = "(float)x0";
  llvm::Expected<Kernel> kernel = buildStridedKernel(form.cast, context, spec);
  if (!kernel)
    return Result(makeFusedError(definition, kFamily, llvm::toString(kernel.takeError())));
  return Result(std::move(*kernel));
}

} // namespace

const FusedFamily kFusedLayout = {kFamily, check, build};

} // namespace cgc::cuda
