//===- ChainCodegen.cpp - elementwise layers of a definition, inline ------===//
//
// A layer's statement applies its expression through an immediately called
// lambda whose parameters are named `x0`, `x1`, ..., as the expression
// expects: the arguments are the operands' locals, evaluated outside the
// lambda, so no local of the kernel can be shadowed, whatever its name.
//
//===----------------------------------------------------------------------===//

#include "ChainCodegen.h"

#include "DeviceCode.h"

#include "cgc/Dialect/CGCOp/IR/Broadcast.h"
#include "cgc/Dialect/CGCOp/IR/CGCOpOps.h"

#include "llvm/ADT/STLExtras.h"

#include <cstdlib>

namespace cgc::cuda {

//===----------------------------------------------------------------------===//
// ChainStatements
//===----------------------------------------------------------------------===//

void ChainStatements::bind(mlir::Value value, std::string local) {
  locals[value] = std::move(local);
}

llvm::StringRef ChainStatements::lookup(mlir::Value value) const {
  auto found = locals.find(value);
  return found == locals.end() ? llvm::StringRef() : llvm::StringRef(found->second);
}

llvm::Error ChainStatements::append(mlir::Operation *layer) {
  llvm::Expected<std::string> expression = getCheckedElementwiseExpression(layer);
  if (!expression)
    return expression.takeError();
  auto result = getTensorInfo(layer, layer->getResult(0));
  if (!result)
    return result.takeError();
  std::string parameters, arguments;
  for (auto [index, operand] : llvm::enumerate(layer->getOperands())) {
    llvm::StringRef local = lookup(operand);
    if (local.empty())
      return makeKernelError(layer, "operand " + llvm::Twine(index) +
                                        " is not computed before the layer");
    auto info = getTensorInfo(layer, operand);
    if (!info)
      return info.takeError();
    if (index) {
      parameters += ", ";
      arguments += ", ";
    }
    parameters += "const " + getComputeType(info->dtype) + " x" + std::to_string(index);
    arguments += local.str();
  }
  std::string value = "[](" + parameters + ") { return " + *expression + "; }(" + arguments + ")";
  // A cast to a 16-bit float rounds to it, as storing it would; other
  // values keep their compute type's precision between layers.
  if (llvm::isa<op::CastOp>(layer) &&
      (result->dtype == DType::F16 || result->dtype == DType::BF16))
    value = loadValue(result->dtype, storeValue(result->dtype, value));
  std::string local = prefix + std::to_string(next++);
  text += indent + "const " + getComputeType(result->dtype) + " " + local + " = " + value + ";\n";
  locals[layer->getResult(0)] = std::move(local);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// StridedReads
//===----------------------------------------------------------------------===//

void StridedReads::add(unsigned argument, DType dtype, llvm::ArrayRef<int64_t> operandShape) {
  if (contains(argument))
    return;
  arguments.push_back(argument);
  operands.push_back(broadcastOperand(dtype, operandShape, shape));
}

bool StridedReads::contains(unsigned argument) const {
  return llvm::is_contained(arguments, argument);
}

MergedLoops StridedReads::merge() const { return mergeStridedLoops(shape, operands); }

bool StridedReads::fitsInt32() const {
  constexpr int64_t kLimit = int64_t(1) << 30;
  if (getNumElements(shape) >= kLimit)
    return false;
  MergedLoops loops = merge();
  for (const Shape &strides : loops.strides) {
    int64_t reach = 0;
    for (auto [size, stride] : llvm::zip(loops.sizes, strides))
      reach += (size - 1) * std::abs(stride);
    if (reach >= kLimit)
      return false;
  }
  return true;
}

std::string StridedReads::getFields() const {
  size_t rank = std::max<size_t>(merge().sizes.size(), 1);
  size_t count = std::max<size_t>(operands.size(), 1);
  return "  long long " + field + "Sizes[" + std::to_string(rank) + "];\n  long long " + field +
         "Strides[" + std::to_string(count * rank) + "];\n";
}

void StridedReads::appendParams(std::vector<int64_t> &params) const {
  MergedLoops loops = merge();
  size_t rank = loops.sizes.size(), arrayRank = std::max<size_t>(rank, 1);
  for (size_t dim = 0; dim < arrayRank; ++dim)
    params.push_back(dim < rank ? loops.sizes[dim] : 1);
  for (size_t operand = 0; operand < std::max<size_t>(operands.size(), 1); ++operand)
    for (size_t dim = 0; dim < arrayRank; ++dim)
      params.push_back(operand < operands.size() && dim < rank ? loops.strides[operand][dim] : 0);
}

std::string StridedReads::getLoads(llvm::StringRef index, llvm::StringRef indent) const {
  size_t rank = merge().sizes.size(), arrayRank = std::max<size_t>(rank, 1);
  std::string text;
  auto line = [&](const std::string &statement) { text += indent.str() + statement + "\n"; };
  for (unsigned argument : arguments)
    line("cgc_index o" + std::to_string(argument) + " = 0;");
  if (rank > 0 && !arguments.empty()) {
    line("{");
    line("  cgc_index rest = " + index.str() + ", c;");
    for (size_t dim = rank; dim-- > 0;) {
      std::string at = std::to_string(dim);
      if (dim > 0)
        line("  c = rest % (cgc_index)p." + field + "Sizes[" + at + "]; rest /= (cgc_index)p." +
             field + "Sizes[" + at + "];");
      else
        line("  c = rest;");
      for (auto [slot, argument] : llvm::enumerate(arguments))
        line("  o" + std::to_string(argument) + " += c * (cgc_index)p." + field + "Strides[" +
             std::to_string(slot * arrayRank + dim) + "];");
    }
    line("}");
  }
  for (auto [argument, operand] : llvm::zip(arguments, operands)) {
    std::string name = std::to_string(argument);
    line("const " + getComputeType(operand.dtype) + " x" + name + " = " +
         loadValue(operand.dtype, "in" + name + "[o" + name + "]") + ";");
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (auto [index, size] : llvm::enumerate(shape))
    text += (index ? "x" : "") + std::to_string(size);
  return text;
}

llvm::Error checkBroadcastsTo(llvm::ArrayRef<mlir::Value> values, llvm::ArrayRef<int64_t> shape) {
  for (mlir::Value value : values) {
    auto type = llvm::dyn_cast<TensorType>(value.getType());
    if (type && op::broadcastsTo(type.getShape(), shape))
      continue;
    std::string what;
    if (auto argument = llvm::dyn_cast<mlir::BlockArgument>(value))
      what = "argument " + std::to_string(argument.getArgNumber());
    else
      what = value.getDefiningOp()->getName().getStringRef().str() + " result";
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        what + " of shape " + (type ? formatShape(type.getShape()) : std::string("?")) +
            " does not broadcast to the output shape " + formatShape(shape));
  }
  return llvm::Error::success();
}

} // namespace cgc::cuda
