//===- Plan.cpp - launching a compiled partition ---------------------------===//

#include "Plan.h"
#include "CudaSupport.h"

#include <cassert>

namespace cgc::cuda {

bool BufferRef::overlaps(const BufferRef &other) const {
  if (base != other.base || (base == Base::BindPoint && bindPoint != other.bindPoint))
    return false;
  if (size == 0 || other.size == 0)
    return false;
  return offset < other.offset + other.size && other.offset < offset + size;
}

size_t Plan::getNumOperands() const {
  size_t count = 0;
  for (const PlanStep &step : steps)
    count += step.inputs.size() + step.outputs.size() + 1;
  return count;
}

void Plan::resolve(std::span<const CgcDeviceAddress> bindPointAddresses, CgcDeviceAddress temporary,
                   std::vector<void *> &out) const {
  out.reserve(out.size() + getNumOperands());
  auto address = [&](const BufferRef &ref) -> void * {
    CgcDeviceAddress base =
        ref.base == BufferRef::Base::BindPoint ? bindPointAddresses[ref.bindPoint] : temporary;
    return reinterpret_cast<void *>(static_cast<uintptr_t>(base + ref.offset));
  };
  for (const PlanStep &step : steps) {
    for (const BufferRef &ref : step.inputs)
      out.push_back(address(ref));
    for (const BufferRef &ref : step.outputs)
      out.push_back(address(ref));
    out.push_back(step.workspace.size ? address(step.workspace) : nullptr);
  }
}

std::string Plan::launch(std::span<void *const> operands, cudaStream_t stream) const {
  assert(operands.size() == getNumOperands() && "operands come from resolve");
  size_t next = 0;
  for (auto [index, step] : llvm::enumerate(steps)) {
    void *const *inputs = operands.data() + next;
    void *const *outputs = inputs + step.inputs.size();
    void *workspace = outputs[step.outputs.size()];
    next += step.inputs.size() + step.outputs.size() + 1;
    if (step.kind == PlanStep::Kind::Copy) {
      uint64_t size = step.outputs[0].size;
      // The same memory bound to two bind points copies onto itself.
      if (size == 0 || outputs[0] == inputs[0])
        continue;
      if (cudaError_t error = cudaMemcpyAsync(outputs[0], inputs[0], static_cast<size_t>(size),
                                              cudaMemcpyDefault, stream))
        return "step " + std::to_string(index) +
               " (a copy): " + describeCudaError("cudaMemcpyAsync", error);
      continue;
    }
    // `void *const *` to `const void *const *` adds const at every level.
    LaunchArgs args;
    args.inputs = std::span<const void *const>(reinterpret_cast<const void *const *>(inputs),
                                               step.inputs.size());
    args.outputs = std::span<void *const>(outputs, step.outputs.size());
    args.workspace = workspace;
    args.stream = stream;
    std::string error = step.kernel->launch(args);
    if (!error.empty())
      return "step " + std::to_string(index) + ": " + error;
  }
  return {};
}

} // namespace cgc::cuda
