//===- AttentionCodegen.cpp - what the generated attention kernels share --===//

#include "AttentionCodegen.h"
#include "DeviceCode.h"

#include "llvm/ADT/STLExtras.h"

namespace cgc::cuda {

std::string AttentionViewTable::read(size_t index, const std::string &row,
                                     const std::string &column) const {
  std::string at = std::to_string(index);
  std::string offset = "base[" + at + "] + (" + row + ") * p.views[" + at + "][" +
                       std::to_string(batchRank) + "] + (" + column + ") * p.views[" + at + "][" +
                       std::to_string(batchRank + 1) + "]";
  return loadValue(views[index]->dtype,
                   "in" + std::to_string(views[index]->input) + "[" + offset + "]");
}

void AttentionViewTable::appendViewParams(std::vector<int64_t> &params) const {
  for (const AttentionView *view : views) {
    // Plain matrices read their one batch dimension (of size 1) with stride 0.
    if (view->batchStrides.empty())
      params.push_back(0);
    params.insert(params.end(), view->batchStrides.begin(), view->batchStrides.end());
    params.push_back(view->rowStride);
    params.push_back(view->columnStride);
  }
}

std::string AttentionViewTable::generateBatchBases() const {
  std::string count = std::to_string(views.size());
  // A view through gathers starts where their indices, read here, select
  // (clamped into the tensor, so that a bad index reads no other memory).
  std::string starts;
  for (auto [index, view] : llvm::enumerate(views))
    for (const AttentionSelection &selection : view->selections) {
      std::string size = std::to_string(selection.size);
      starts += "    {\n"
                "      cgc_index selected = (cgc_index)in" + std::to_string(selection.input) +
                "[0];\n"
                "      if (selected < 0)\n"
                "        selected += " + size + ";\n"
                "      base[" + std::to_string(index) + "] += (selected < 0 ? 0 : selected >= " +
                size + " ? " + std::to_string(selection.size - 1) + " : selected) * " +
                std::to_string(selection.stride) + ";\n"
                "    }\n";
    }
  return "    cgc_index base[" + count + "];\n" +
         "    for (int v = 0; v < " + count + "; ++v)\n" +
         "      base[v] = 0;\n" + starts +
         "    cgc_index rest = batch;\n"
         "    for (int d = " + std::to_string(batchRank - 1) + "; d >= 0; --d) {\n" +
         "      const cgc_index coordinate = rest % p.batchSizes[d];\n"
         "      rest /= p.batchSizes[d];\n"
         "      for (int v = 0; v < " + count + "; ++v)\n" +
         "        base[v] += coordinate * p.views[v][d];\n"
         "    }\n";
}

bool isOneElement(const AttentionView &view) {
  // A view through a gather reads an element that only the kernel knows.
  return view.rowStride == 0 && view.columnStride == 0 && view.selections.empty() &&
         llvm::all_of(view.batchStrides, [](int64_t stride) { return stride == 0; });
}

std::string checkAttentionLaunchArgs(const LaunchArgs &args, size_t inputCount,
                                     const std::string &kernelName) {
  if (args.inputs.size() >= inputCount && !args.outputs.empty())
    return "";
  return kernelName + ": launched with " + std::to_string(args.inputs.size()) + " inputs and " +
         std::to_string(args.outputs.size()) + " outputs, expected " +
         std::to_string(inputCount) + " and 1";
}

Kernel makeAttentionKernelLaunch(DeviceFunction function, dim3 grid, dim3 block,
                                 size_t inputCount, std::vector<int64_t> params,
                                 std::string kernelName) {
  return Kernel{[function = std::move(function), grid, block, inputCount,
                 params = std::move(params),
                 kernelName = std::move(kernelName)](const LaunchArgs &args) -> std::string {
                  std::string wrong = checkAttentionLaunchArgs(args, inputCount, kernelName);
                  if (!wrong.empty())
                    return wrong;
                  llvm::SmallVector<const void *, 8> pointers(args.inputs.begin(),
                                                              args.inputs.begin() + inputCount);
                  void *output = args.outputs[0];
                  llvm::SmallVector<void *, 12> arguments;
                  for (const void *&pointer : pointers)
                    arguments.push_back(&pointer);
                  arguments.push_back(&output);
                  arguments.push_back(const_cast<int64_t *>(params.data()));
                  cudaError_t error =
                      function.launch(grid, block, arguments.data(), 0, args.stream);
                  return error == cudaSuccess
                             ? std::string()
                             : describeLaunchFailure(kernelName, "cudaLaunchKernel", error);
                },
                0};
}

void appendBatchSizeParams(const AttentionPlan &plan, std::vector<int64_t> &params) {
  if (plan.batch.empty())
    params.push_back(1);
  params.insert(params.end(), plan.batch.begin(), plan.batch.end());
}

std::string generateScoreStatements(const AttentionPlan &plan, const AttentionViewTable &table,
                                    llvm::ArrayRef<std::optional<size_t>> stepViews,
                                    bool applyScale, llvm::ArrayRef<std::string> stagedReads) {
  std::string code;
  if (applyScale && plan.scale)
    code += "          s = s * " + floatLiteral(*plan.scale, "float") + ";\n";
  for (auto [index, step] : llvm::enumerate(plan.steps)) {
    const std::optional<size_t> &view = stepViews[index];
    bool staged = index < stagedReads.size() && !stagedReads[index].empty();
    std::string read = !view ? "" : staged ? stagedReads[index] : table.read(*view, "query", "key");
    std::string x = view ? "(float)(" + read + ")" : "s";
    std::string lhs = step.scoreIsLhs ? "s" : x, rhs = step.scoreIsLhs ? x : "s";
    switch (step.kind) {
    case AttentionScoreStep::Kind::Add:
      code += "          s = " + lhs + " + " + rhs + ";\n";
      break;
    case AttentionScoreStep::Kind::Subtract:
      code += "          s = " + lhs + " - " + rhs + ";\n";
      break;
    case AttentionScoreStep::Kind::Multiply:
      code += "          s = " + lhs + " * " + rhs + ";\n";
      break;
    case AttentionScoreStep::Kind::Divide:
      code += "          s = " + lhs + " / " + rhs + ";\n";
      break;
    case AttentionScoreStep::Kind::KeepWhere:
      // The operand is bool: loadValue gives (x != 0).
      code += "          if (!" + read + ") s = negativeInfinity;\n";
      break;
    }
  }
  if (plan.causal)
    code += "          if (key > query) s = negativeInfinity;\n";
  return code;
}

} // namespace cgc::cuda
