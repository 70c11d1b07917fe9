//===- RuntimeC.cpp - the C API of the runtime (include/cgc/runtime.h) ----===//

#include "cgc/runtime.h"

#include "cgc/Runtime/Session.h"

#include <cstring>

using namespace cgc::runtime;

struct CgcSession_T {
  std::unique_ptr<Session> session;
};

namespace {
thread_local std::string lastErrorMessage;

CgcStatus fail(CgcStatus status, std::string message) {
  lastErrorMessage = std::move(message);
  return status;
}

static_assert(static_cast<int>(DType::Float32) == CGC_DATA_TYPE_FLOAT32 &&
              static_cast<int>(DType::BFloat16) == CGC_DATA_TYPE_BFLOAT16 &&
              static_cast<int>(DType::Bool) == CGC_DATA_TYPE_BOOL &&
              static_cast<int>(DType::Float64) == CGC_DATA_TYPE_FLOAT64 &&
              static_cast<int>(DType::UInt64) == CGC_DATA_TYPE_UINT64);

CgcStatus describe(const std::vector<TensorInfo> &infos, uint32_t index, const char *call,
                   CgcTensor *out_desc) {
  if (!out_desc)
    return fail(CGC_ERROR_INVALID_ARGUMENT, std::string(call) + ": out_desc is null");
  if (index >= infos.size())
    return fail(CGC_ERROR_INVALID_ARGUMENT, std::string(call) + ": index " +
                                                std::to_string(index) + " is past the last (" +
                                                std::to_string(infos.size()) + ")");
  const TensorInfo &info = infos[index];
  *out_desc = {static_cast<CgcDataType>(info.dtype), static_cast<uint32_t>(info.shape.size()),
               info.shape.data(), nullptr, info.sizeInBytes};
  return CGC_OK;
}
} // namespace

extern "C" const char *cgcRuntimeGetLastErrorMessage(void) { return lastErrorMessage.c_str(); }

extern "C" CgcStatus cgcCreateSession(const CgcSessionDesc *desc, CgcSession *out_session) {
  if (!desc || !out_session)
    return fail(CGC_ERROR_INVALID_ARGUMENT, "cgcCreateSession: desc and out_session are required");
  if (desc->version != CGC_RUNTIME_VERSION)
    return fail(CGC_ERROR_INCOMPATIBLE_VERSION,
                "cgcCreateSession: desc->version is " + std::to_string(desc->version) +
                    ", this runtime is version " + std::to_string(CGC_RUNTIME_VERSION));
  if (!desc->modelPath)
    return fail(CGC_ERROR_INVALID_ARGUMENT, "cgcCreateSession: desc->modelPath is null");
  constexpr uint32_t kKnownFlags =
      CGC_SESSION_FLAG_DEBUG_LAYER | CGC_SESSION_FLAG_BASELINE_COMPILER |
      CGC_SESSION_FLAG_INPUTS_IN_SCRATCH | CGC_SESSION_FLAG_PARTITION_PER_SUBGRAPH;
  if (desc->flags & ~kKnownFlags)
    return fail(CGC_ERROR_INVALID_ARGUMENT, "cgcCreateSession: desc->flags has unknown bits " +
                                                std::to_string(desc->flags & ~kKnownFlags));
  SessionOptions options;
  options.modelPath = desc->modelPath;
  if (desc->weightsPath)
    options.weightsPath = desc->weightsPath;
  if (desc->device)
    options.device = desc->device;
  options.debugLayer = desc->flags & CGC_SESSION_FLAG_DEBUG_LAYER;
  if (desc->flags & CGC_SESSION_FLAG_BASELINE_COMPILER)
    options.compiler.compiler = CompilerOptions::Compiler::Baseline;
  options.compiler.inputsInScratch = desc->flags & CGC_SESSION_FLAG_INPUTS_IN_SCRATCH;
  if (desc->flags & CGC_SESSION_FLAG_PARTITION_PER_SUBGRAPH)
    options.compiler.partitionMode = CompilerOptions::PartitionMode::PerSubgraph;
  Result<std::unique_ptr<Session>> session = Session::create(options);
  if (!session)
    return fail(CGC_ERROR_INVALID_ARGUMENT, "cgcCreateSession: " + session.error().message);
  *out_session = new CgcSession_T{std::move(*session)};
  return CGC_OK;
}

extern "C" void cgcReleaseSession(CgcSession session) { delete session; }

extern "C" uint32_t cgcSessionGetInputCount(CgcSession session) {
  return session ? session->session->getInputs().size() : 0;
}

extern "C" uint32_t cgcSessionGetOutputCount(CgcSession session) {
  return session ? session->session->getOutputs().size() : 0;
}

extern "C" CgcStatus cgcSessionGetInputDesc(CgcSession session, uint32_t index,
                                            CgcTensor *out_desc) {
  if (!session)
    return fail(CGC_ERROR_INVALID_ARGUMENT, "cgcSessionGetInputDesc: session is null");
  return describe(session->session->getInputs(), index, "cgcSessionGetInputDesc", out_desc);
}

extern "C" CgcStatus cgcSessionGetOutputDesc(CgcSession session, uint32_t index,
                                             CgcTensor *out_desc) {
  if (!session)
    return fail(CGC_ERROR_INVALID_ARGUMENT, "cgcSessionGetOutputDesc: session is null");
  return describe(session->session->getOutputs(), index, "cgcSessionGetOutputDesc", out_desc);
}

extern "C" CgcStatus cgcSessionRun(CgcSession session, uint32_t numInputs, const CgcTensor *inputs,
                                   uint32_t numOutputs, const CgcTensor *outputs) {
  constexpr const char *kCall = "cgcSessionRun: ";
  if (!session)
    return fail(CGC_ERROR_INVALID_ARGUMENT, std::string(kCall) + "session is null");
  const std::vector<TensorInfo> &outputInfos = session->session->getOutputs();
  if (numOutputs != outputInfos.size() || (numOutputs && !outputs))
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall + std::string("the model has ") +
                                                std::to_string(outputInfos.size()) +
                                                " output(s), got " + std::to_string(numOutputs));
  if (numInputs && !inputs)
    return fail(CGC_ERROR_INVALID_ARGUMENT, std::string(kCall) + "inputs is null");
  for (uint32_t index = 0; index < numOutputs; ++index) {
    const CgcTensor &output = outputs[index];
    const TensorInfo &info = outputInfos[index];
    if (static_cast<DType>(output.dataType) != info.dtype || output.rank != info.shape.size() ||
        (output.rank && !output.shape) ||
        !std::equal(info.shape.begin(), info.shape.end(), output.shape) ||
        output.sizeInBytes != info.sizeInBytes || (info.sizeInBytes && !output.data))
      return fail(CGC_ERROR_INVALID_ARGUMENT,
                  kCall + std::string("output #") + std::to_string(index) + " (" + info.name +
                      ") must be a " + std::to_string(info.sizeInBytes) + "-byte " +
                      std::string(getName(info.dtype)) + " " + formatShape(info.shape) +
                      " tensor with data");
  }
  std::vector<HostTensor> hostInputs;
  for (uint32_t index = 0; index < numInputs; ++index) {
    const CgcTensor &input = inputs[index];
    if (static_cast<uint32_t>(input.dataType) > CGC_DATA_TYPE_UINT64 ||
        (input.rank && !input.shape) || (input.sizeInBytes && !input.data))
      return fail(CGC_ERROR_INVALID_ARGUMENT, kCall + std::string("input #") +
                                                  std::to_string(index) + " is malformed");
    HostTensor tensor{static_cast<DType>(input.dataType),
                      std::vector<int64_t>(input.shape, input.shape + input.rank), {}};
    tensor.data.resize(input.sizeInBytes);
    if (input.sizeInBytes)
      std::memcpy(tensor.data.data(), input.data, input.sizeInBytes);
    hostInputs.push_back(std::move(tensor));
  }
  Result<std::vector<HostTensor>> results = session->session->run(hostInputs);
  if (!results)
    return fail(CGC_ERROR_INVALID_ARGUMENT, kCall + results.error().message);
  for (uint32_t index = 0; index < numOutputs; ++index)
    if (!(*results)[index].data.empty())
      std::memcpy(outputs[index].data, (*results)[index].data.data(), (*results)[index].data.size());
  return CGC_OK;
}
