//===- CommandList.cpp - recording command lists and building their graph -===//

#include "CommandList.h"
#include "Buffer.h"
#include "CudaSupport.h"
#include "Device.h"
#include "Program.h"
#include "QueryHeap.h"
#include "kernels/KernelSupport.h"

#include "ScratchAllocator.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>

namespace cgc::cuda {

namespace {
std::string describeBindPoint(const Program &program, uint32_t index) {
  return "program '" + program.getName() + "', bind point " + std::to_string(index);
}
} // namespace

CgcStatus Device::createCommandList(CommandList *&out) {
  out = commandLists.add(std::make_unique<CommandList>(*this));
  return CGC_OK;
}

CommandList::~CommandList() {
  releaseResources();
  if (captureStream) {
    ScopedCurrentDevice current(device.getOrdinal());
    (void)cudaStreamDestroy(captureStream);
    (void)cudaGetLastError();
  }
}

void CommandList::releaseResources() {
  if (!executable && cpuBindingData.empty())
    return;
  ScopedCurrentDevice current(device.getOrdinal());
  // The API never resets or destroys a list that is executing.
  if (executable)
    (void)cudaGraphExecDestroy(executable);
  executable = nullptr;
  for (void *data : cpuBindingData)
    (void)cudaFree(data);
  cpuBindingData.clear();
  (void)cudaGetLastError();
}

CgcStatus CommandList::checkOpen(const char *command) {
  if (!closed)
    return CGC_OK;
  return device.fail(CGC_ERROR_INVALID_STATE, std::string("cannot record ") + command +
                                                  ": the command list is closed (reset it first)");
}

CgcStatus CommandList::reset() {
  releaseResources();
  commands.clear();
  program = nullptr;
  temporaryResource = {};
  persistentResource = {};
  closed = false;
  return CGC_OK;
}

CgcStatus CommandList::close() {
  if (closed)
    return device.fail(CGC_ERROR_INVALID_STATE, "the command list is already closed");
  // A list that fails to close stays open, as the API sees it.
  if (CgcStatus status = buildGraph())
    return status;
  closed = true;
  return CGC_OK;
}

//===----------------------------------------------------------------------===//
// Recording
//===----------------------------------------------------------------------===//

CgcStatus CommandList::recordSetProgram(Program *newProgram, const CgcSetProgramDesc &desc) {
  if (CgcStatus status = checkOpen("SetProgram"))
    return status;
  if (!newProgram)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT, "SetProgram needs a program");
  const std::string where = "program '" + newProgram->getName() + "'";
  uint64_t needed = newProgram->getPlan().temporaryResourceSize;
  if (needed > 0 &&
      (desc.temporaryResource.address == 0 || desc.temporaryResource.sizeInBytes < needed))
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       where + " needs a temporary resource of " + std::to_string(needed) +
                           " bytes, but SetProgram binds " +
                           (desc.temporaryResource.address == 0
                                ? std::string("none")
                                : std::to_string(desc.temporaryResource.sizeInBytes) + " bytes"));
  // Kernel workspaces and internal values are laid out at kAlignment
  // offsets from its start (a DEFAULT buffer's address always is).
  if (needed > 0 && desc.temporaryResource.address % kAlignment != 0)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       where + " needs its temporary resource aligned to " +
                           std::to_string(kAlignment) + " bytes on the CUDA driver");
  program = newProgram;
  temporaryResource = desc.temporaryResource;
  persistentResource = desc.persistentResource;
  return CGC_OK;
}

CgcStatus CommandList::recordDispatchGraph(uint32_t numBindings,
                                           const CgcProgramBinding *bindings) {
  if (CgcStatus status = checkOpen("DispatchGraph"))
    return status;
  if (!program)
    return device.fail(CGC_ERROR_INVALID_STATE,
                       "DispatchGraph without a program: record SetProgram first");
  const Plan &plan = program->getPlan();
  if (numBindings != plan.bindPoints.size())
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "program '" + program->getName() + "' has " +
                           std::to_string(plan.bindPoints.size()) + " bind points but " +
                           std::to_string(numBindings) + " bindings were given");

  Dispatch dispatch{program, {}, {}};
  std::vector<CgcDeviceAddress> addresses(numBindings);
  // Set before the first CPU-binding copy, and kept until the copies are
  // freed or owned by the list.
  std::optional<ScopedCurrentDevice> current;
  // CPU-binding copies made so far; freed again unless the dispatch is
  // recorded.
  struct PendingCopies {
    std::vector<void *> pointers;
    ~PendingCopies() {
      for (void *pointer : pointers)
        (void)cudaFree(pointer);
    }
  } copies;
  copies.pointers.reserve(numBindings);
  for (uint32_t index = 0; index < numBindings; ++index) {
    const CgcProgramBinding &binding = bindings[index];
    const CgcBindPointDesc &bindPoint = plan.bindPoints[index];
    if (binding.bindPointIndex != index)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         "binding " + std::to_string(index) + " is for bind point " +
                             std::to_string(binding.bindPointIndex) +
                             ": bindings must be sorted, one per bind point");
    if (binding.type == CGC_BINDING_TYPE_GPU) {
      if (bindPoint.sizeInBytes > 0 && binding.gpu.address == 0)
        return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                           describeBindPoint(*program, index) + ": null device address");
      if (binding.gpu.sizeInBytes < bindPoint.sizeInBytes)
        return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                           describeBindPoint(*program, index) + " needs " +
                               std::to_string(bindPoint.sizeInBytes) + " bytes but " +
                               std::to_string(binding.gpu.sizeInBytes) + " are bound");
      if (bindPoint.alignment > 1 && binding.gpu.address % bindPoint.alignment != 0)
        return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                           describeBindPoint(*program, index) + " needs " +
                               std::to_string(bindPoint.alignment) +
                               "-byte alignment; the bound address is not aligned");
      addresses[index] = binding.gpu.address;
      if (binding.gpu.sizeInBytes > 0)
        dispatch.touched.push_back(
            AddressRange::ofSize(binding.gpu.address, binding.gpu.sizeInBytes));
      continue;
    }
    if (binding.type != CGC_BINDING_TYPE_CPU)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         describeBindPoint(*program, index) + ": unknown binding type " +
                             std::to_string(static_cast<int>(binding.type)));
    // The copy is read by every execution of the list; output written into
    // it would reach nobody and change what later executions read.
    if (bindPoint.flags & CGC_BIND_POINT_FLAG_WRITTEN)
      return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                         describeBindPoint(*program, index) +
                             " is written by the program: a CPU binding cannot receive "
                             "output; bind a device address range");
    if (binding.cpu.sizeInBytes < bindPoint.sizeInBytes ||
        (bindPoint.sizeInBytes > 0 && !binding.cpu.data))
      return device.fail(
          CGC_ERROR_INVALID_ARGUMENT,
          describeBindPoint(*program, index) + " needs " + std::to_string(bindPoint.sizeInBytes) +
              " bytes but the CPU binding holds " + std::to_string(binding.cpu.sizeInBytes));
    // A private device copy: no other command touches it, so it needs no
    // place among the barrier ranges.
    if (!current) {
      current.emplace(device.getOrdinal());
      if (current->getError() != cudaSuccess)
        return device.fail(toStatus(current->getError()),
                           describeCudaError("cudaSetDevice", current->getError()));
    }
    void *copy = nullptr;
    uint64_t rounded = drivers::alignTo(std::max<uint64_t>(bindPoint.sizeInBytes, 1), kAlignment);
    if (cudaError_t error = cudaMalloc(&copy, static_cast<size_t>(rounded)))
      return device.fail(toStatus(error), describeBindPoint(*program, index) +
                                              ": copying the CPU binding: " +
                                              describeCudaError("cudaMalloc", error));
    copies.pointers.push_back(copy);
    if (cudaError_t error = device.uploadAndWait(copy, binding.cpu.data, bindPoint.sizeInBytes))
      return device.fail(toStatus(error), describeBindPoint(*program, index) +
                                              ": copying the CPU binding: " +
                                              describeCudaError("cudaMemcpyAsync", error));
    addresses[index] = static_cast<CgcDeviceAddress>(reinterpret_cast<uintptr_t>(copy));
  }

  for (const CgcDeviceAddressRange &resource : {temporaryResource, persistentResource})
    if (resource.address != 0 && resource.sizeInBytes > 0)
      dispatch.touched.push_back(AddressRange::ofSize(resource.address, resource.sizeInBytes));
  plan.resolve(addresses, temporaryResource.address, dispatch.operands);
  cpuBindingData.reserve(cpuBindingData.size() + copies.pointers.size());
  commands.emplace_back(std::move(dispatch));
  cpuBindingData.insert(cpuBindingData.end(), copies.pointers.begin(), copies.pointers.end());
  copies.pointers.clear();
  return CGC_OK;
}

CgcStatus CommandList::recordBarrier(const CgcBarrierDesc &desc) {
  if (CgcStatus status = checkOpen("a barrier"))
    return status;
  if (desc.type != CGC_BARRIER_TYPE_GLOBAL && desc.type != CGC_BARRIER_TYPE_BUFFER_RANGE)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "unknown barrier type " + std::to_string(static_cast<int>(desc.type)));
  Barrier barrier{desc.type, {}};
  if (desc.type == CGC_BARRIER_TYPE_BUFFER_RANGE)
    barrier.range = AddressRange::ofSize(desc.range.address, desc.range.sizeInBytes);
  commands.emplace_back(barrier);
  return CGC_OK;
}

CgcStatus CommandList::recordCopy(CgcDeviceAddress destination, CgcDeviceAddress source,
                                  uint64_t sizeInBytes) {
  if (CgcStatus status = checkOpen("a copy"))
    return status;
  if (sizeInBytes > 0 && (destination == 0 || source == 0))
    return device.fail(CGC_ERROR_INVALID_ARGUMENT, "copy with a null device address");
  commands.emplace_back(Copy{destination, source, sizeInBytes});
  return CGC_OK;
}

CgcStatus CommandList::recordEndQuery(QueryHeap &heap, uint32_t index) {
  if (CgcStatus status = checkOpen("EndQuery"))
    return status;
  if (index >= heap.getCount())
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "query " + std::to_string(index) + " is outside the heap's " +
                           std::to_string(heap.getCount()) + " queries");
  // Loaded when the heap was created: this only fetches it.
  if (!timestampKernel)
    if (CgcStatus status = device.getTimestampKernel(timestampKernel))
      return status;
  commands.emplace_back(Timestamp{&heap, index});
  return CGC_OK;
}

CgcStatus CommandList::recordResolveQueryData(QueryHeap &heap, uint32_t startIndex,
                                              uint32_t numQueries, CgcDeviceAddress destination) {
  if (CgcStatus status = checkOpen("ResolveQueryData"))
    return status;
  if (startIndex > heap.getCount() || numQueries > heap.getCount() - startIndex)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT,
                       "queries [" + std::to_string(startIndex) + ", " +
                           std::to_string(uint64_t(startIndex) + numQueries) +
                           ") are outside the heap's " + std::to_string(heap.getCount()) +
                           " queries");
  if (numQueries > 0 && destination == 0)
    return device.fail(CGC_ERROR_INVALID_ARGUMENT, "resolve to a null device address");
  commands.emplace_back(Resolve{&heap, startIndex, numQueries, destination});
  return CGC_OK;
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

CgcStatus CommandList::addCapturedNode(const std::string &what,
                                       const std::function<std::string(cudaStream_t)> &enqueue,
                                       cudaGraph_t graph,
                                       const std::vector<cudaGraphNode_t> &predecessors,
                                       cudaGraphNode_t &node) {
  if (!captureStream)
    if (cudaError_t error = cudaStreamCreateWithFlags(&captureStream, cudaStreamNonBlocking))
      return device.failCuda(what, "cudaStreamCreateWithFlags", error);

  // Thread-local capture: other threads' CUDA calls (other lists closing,
  // queues launching) neither join nor invalidate this capture. Kernels
  // being timed on other threads (programs building: cuBLASLt candidates,
  // fused kernels' ways) allocate, free and synchronize; with them beside
  // captures, cuDNN's convolutions failed to capture (ONNX conformance on
  // an H100, 8 jobs in one process), so captures wait for the timings.
  std::lock_guard<std::mutex> noTimings(getDeviceTimingMutex());
  if (cudaError_t error = cudaStreamBeginCapture(captureStream, cudaStreamCaptureModeThreadLocal))
    return device.failCuda(what, "cudaStreamBeginCapture", error);
  std::string launchError = enqueue(captureStream);
  cudaGraph_t child = nullptr;
  cudaError_t endError = cudaStreamEndCapture(captureStream, &child);
  if (!launchError.empty()) {
    if (child)
      (void)cudaGraphDestroy(child);
    (void)cudaGetLastError();
    return device.fail(CGC_ERROR_INTERNAL, what + ": " + launchError);
  }
  if (endError != cudaSuccess)
    return device.failCuda(what + " (did a kernel make a call that cannot be captured?)",
                           "cudaStreamEndCapture", endError);

  // Nothing launched (a program without kernels) is an empty node: ordering
  // only.
  size_t numNodes = 0;
  cudaError_t error = cudaGraphGetNodes(child, nullptr, &numNodes);
  const char *call = "cudaGraphGetNodes";
  if (error == cudaSuccess) {
    call = numNodes ? "cudaGraphAddChildGraphNode" : "cudaGraphAddEmptyNode";
    error = numNodes
                ? cudaGraphAddChildGraphNode(&node, graph, predecessors.data(), predecessors.size(),
                                             child)
                : cudaGraphAddEmptyNode(&node, graph, predecessors.data(), predecessors.size());
  }
  // The child node holds a copy of the captured graph.
  (void)cudaGraphDestroy(child);
  if (error != cudaSuccess)
    return device.failCuda(what, call, error);
  return CGC_OK;
}

CgcStatus CommandList::buildGraph() {
  DependencyBuilder dependencies;
  for (auto [index, command] : llvm::enumerate(commands)) {
    auto commandIndex = static_cast<uint32_t>(index);
    if (const auto *dispatch = std::get_if<Dispatch>(&command)) {
      dependencies.addCommand(commandIndex, dispatch->touched);
    } else if (const auto *copy = std::get_if<Copy>(&command)) {
      AddressRange touched[] = {AddressRange::ofSize(copy->destination, copy->sizeInBytes),
                                AddressRange::ofSize(copy->source, copy->sizeInBytes)};
      dependencies.addCommand(commandIndex, touched);
    } else if (std::holds_alternative<Timestamp>(command)) {
      dependencies.addOrderedCommand(commandIndex);
    } else if (const auto *resolve = std::get_if<Resolve>(&command)) {
      // After every earlier EndQuery already: each is a join (Dependencies.h).
      AddressRange touched[] = {
          AddressRange::ofSize(resolve->destination, uint64_t(resolve->numQueries) * 8)};
      dependencies.addCommand(commandIndex, touched);
    } else {
      const Barrier &barrier = std::get<Barrier>(command);
      if (barrier.type == CGC_BARRIER_TYPE_GLOBAL)
        dependencies.addGlobalBarrier();
      else
        dependencies.addRangeBarrier(barrier.range);
    }
  }
  const std::vector<DependencyNode> &nodes = dependencies.getNodes();
  if (nodes.empty())
    return CGC_OK; // Nothing to run: the queue skips the list.

  ScopedCurrentDevice current(device.getOrdinal());
  if (current.getError() != cudaSuccess)
    return device.failCuda("closing the command list", "cudaSetDevice", current.getError());
  cudaGraph_t graph = nullptr;
  if (cudaError_t error = cudaGraphCreate(&graph, 0))
    return device.failCuda("closing the command list", "cudaGraphCreate", error);

  std::vector<cudaGraphNode_t> graphNodes(nodes.size());
  std::vector<cudaGraphNode_t> predecessors;
  CgcStatus status = CGC_OK;
  for (size_t id = 0; id < nodes.size() && status == CGC_OK; ++id) {
    const DependencyNode &node = nodes[id];
    predecessors.clear();
    for (uint32_t predecessor : node.predecessors)
      predecessors.push_back(graphNodes[predecessor]);
    cudaGraphNode_t &created = graphNodes[id];
    if (node.command == DependencyNode::kJoin) {
      if (cudaError_t error =
              cudaGraphAddEmptyNode(&created, graph, predecessors.data(), predecessors.size()))
        status = device.failCuda("closing the command list: a global barrier",
                                 "cudaGraphAddEmptyNode", error);
      continue;
    }
    const Command &command = commands[node.command];
    const std::string where = "command " + std::to_string(node.command);
    if (const auto *dispatch = std::get_if<Dispatch>(&command)) {
      status = addCapturedNode(
          where + " (DispatchGraph of program '" + dispatch->program->getName() + "')",
          [&](cudaStream_t stream) {
            return dispatch->program->getPlan().launch(dispatch->operands, stream);
          },
          graph, predecessors, created);
      continue;
    }
    if (const auto *timestamp = std::get_if<Timestamp>(&command)) {
      status = addCapturedNode(
          where + " (EndQuery of query " + std::to_string(timestamp->index) + ")",
          [&](cudaStream_t stream) -> std::string {
            cudaError_t error =
                timestampKernel->launch(timestamp->heap->getSlot(timestamp->index), stream);
            return error == cudaSuccess ? std::string()
                                        : describeCudaError("cudaLaunchKernel", error);
          },
          graph, predecessors, created);
      continue;
    }
    if (const auto *resolve = std::get_if<Resolve>(&command)) {
      cudaError_t error =
          resolve->numQueries == 0
              ? cudaGraphAddEmptyNode(&created, graph, predecessors.data(), predecessors.size())
              : cudaGraphAddMemcpyNode1D(
                    &created, graph, predecessors.data(), predecessors.size(),
                    toPointer(resolve->destination), resolve->heap->getSlot(resolve->startIndex),
                    static_cast<size_t>(resolve->numQueries) * sizeof(uint64_t), cudaMemcpyDefault);
      if (error != cudaSuccess)
        status = device.failCuda(where + " (ResolveQueryData of " +
                                     std::to_string(resolve->numQueries) + " queries)",
                                 "cudaGraphAddMemcpyNode1D", error);
      continue;
    }
    const Copy &copy = std::get<Copy>(command);
    const std::string what = "command " + std::to_string(node.command) + " (a copy of " +
                             std::to_string(copy.sizeInBytes) + " bytes)";
    cudaError_t error =
        copy.sizeInBytes == 0
            ? cudaGraphAddEmptyNode(&created, graph, predecessors.data(), predecessors.size())
            : cudaGraphAddMemcpyNode1D(&created, graph, predecessors.data(), predecessors.size(),
                                       toPointer(copy.destination), toPointer(copy.source),
                                       static_cast<size_t>(copy.sizeInBytes), cudaMemcpyDefault);
    if (error != cudaSuccess)
      status = device.failCuda(what, "cudaGraphAddMemcpyNode1D", error);
  }
  if (status == CGC_OK)
    if (cudaError_t error = cudaGraphInstantiate(&executable, graph, 0)) {
      executable = nullptr;
      status = device.failCuda("closing the command list", "cudaGraphInstantiate", error);
    }
  // The executable graph is independent of the graph it was made from.
  (void)cudaGraphDestroy(graph);
  return status;
}

} // namespace cgc::cuda
