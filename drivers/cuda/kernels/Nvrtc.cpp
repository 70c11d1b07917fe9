//===- Nvrtc.cpp - compiling and loading generated CUDA C++ ---------------===//
//
// Generated sources include no headers: the preamble (DeviceCode.cpp)
// converts float16 and bfloat16 itself, so compiling needs neither the
// toolkit's include directory nor cuda_fp16.h on the machine that runs.
// Options: --fmad=false keeps a * b + c two roundings, as the CPU reference
// computes it; division and square root stay IEEE (NVRTC's defaults, no
// fast math).
//
// CGC_CUDA_DUMP_SOURCES=DIR writes each generated source to
// DIR/<kernel>-<hash>.cu before it is compiled, to read or profile it.
//
//===----------------------------------------------------------------------===//

#include "Nvrtc.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <vector>

namespace cgc::cuda {

DeviceModule::~DeviceModule() {
  if (library)
    (void)cudaLibraryUnload(library);
}

NvrtcCompiler::NvrtcCompiler(int computeMajor, int computeMinor, bool load)
    : computeMajor(computeMajor), computeMinor(computeMinor), load(load) {}

size_t NvrtcCompiler::getModuleCount() {
  std::lock_guard<std::mutex> lock(mutex);
  return load ? modules.size() : compiledOnly.size();
}

size_t NvrtcCompiler::getCompilationCount() {
  std::lock_guard<std::mutex> lock(mutex);
  return compilations;
}

static llvm::Error makeNvrtcError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The architecture option: the real architecture when this NVRTC can emit
/// its CUBIN, else the newest virtual architecture not newer than the
/// device (PTX the driver compiles).
static std::pair<std::string, bool> chooseArchitecture(int major, int minor) {
  int wanted = major * 10 + minor;
  int count = 0;
  std::vector<int> supported;
  if (nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    supported.resize(count);
    if (nvrtcGetSupportedArchs(supported.data()) != NVRTC_SUCCESS)
      supported.clear();
  }
  if (supported.empty() || llvm::is_contained(supported, wanted))
    return {"--gpu-architecture=sm_" + std::to_string(wanted), false};
  int best = supported.front();
  for (int arch : supported)
    if (arch <= wanted)
      best = std::max(best, arch);
  return {"--gpu-architecture=compute_" + std::to_string(best), true};
}

llvm::Expected<std::string> NvrtcCompiler::compile(const std::string &source,
                                                   bool archSpecific) {
  nvrtcProgram program = nullptr;
  nvrtcResult result =
      nvrtcCreateProgram(&program, source.c_str(), "cgc_generated.cu", 0, nullptr, nullptr);
  if (result != NVRTC_SUCCESS)
    return makeNvrtcError(llvm::Twine("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(result));
  llvm::scope_exit destroy([&] { nvrtcDestroyProgram(&program); });
  auto [architecture, isPtx] = chooseArchitecture(computeMajor, computeMinor);
  if (archSpecific) {
    if (isPtx)
      return makeNvrtcError("this NVRTC cannot compile for sm_" + std::to_string(computeMajor) +
                            std::to_string(computeMinor) + "a");
    architecture += "a";
  }
  const char *options[] = {architecture.c_str(), "--std=c++17", "--fmad=false"};
  result = nvrtcCompileProgram(program, static_cast<int>(std::size(options)), options);
  if (result != NVRTC_SUCCESS) {
    size_t logSize = 0;
    std::string log;
    if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS && logSize > 1) {
      log.resize(logSize);
      if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
        log.clear();
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
        log.pop_back();
    }
    return makeNvrtcError(llvm::Twine("NVRTC compilation failed (") + nvrtcGetErrorString(result) +
                          "):\n" + log + "\n--- source ---\n" + source);
  }
  size_t size = 0;
  std::string binary;
  if (isPtx) {
    result = nvrtcGetPTXSize(program, &size);
    if (result == NVRTC_SUCCESS) {
      binary.resize(size);
      result = nvrtcGetPTX(program, binary.data());
    }
  } else {
    result = nvrtcGetCUBINSize(program, &size);
    if (result == NVRTC_SUCCESS) {
      binary.resize(size);
      result = nvrtcGetCUBIN(program, binary.data());
    }
  }
  if (result != NVRTC_SUCCESS)
    return makeNvrtcError(llvm::Twine("reading NVRTC's output failed: ") +
                          nvrtcGetErrorString(result));
  return binary;
}

/// Writes `source` to $CGC_CUDA_DUMP_SOURCES/<name>-<hash>.cu when that is
/// set (best effort: a failed write only loses the copy).
static void dumpSource(const std::string &source, llvm::StringRef name) {
  const char *directory = std::getenv("CGC_CUDA_DUMP_SOURCES");
  if (!directory || !*directory)
    return;
  (void)llvm::sys::fs::create_directories(directory);
  std::string path = std::string(directory) + "/" + name.str() + "-" +
                     std::to_string(std::hash<std::string>{}(source) % 1000000007u) + ".cu";
  std::error_code error;
  llvm::raw_fd_ostream file(path, error);
  if (!error)
    file << source;
}

llvm::Expected<std::shared_ptr<DeviceModule>>
NvrtcCompiler::compileAndLoad(const std::string &source, llvm::StringRef name,
                              bool archSpecific) {
  dumpSource(source, name);
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++compilations;
  }
  llvm::Expected<std::string> binary = compile(source, archSpecific);
  if (!binary)
    return binary.takeError();
  if (!load)
    return std::shared_ptr<DeviceModule>();
  cudaLibrary_t library = nullptr;
  cudaError_t error =
      cudaLibraryLoadData(&library, binary->data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (error != cudaSuccess)
    return makeNvrtcError(llvm::Twine("cudaLibraryLoadData failed: ") + cudaGetErrorName(error) +
                          ": " + cudaGetErrorString(error));
  return std::make_shared<DeviceModule>(library);
}

llvm::Expected<DeviceFunction> NvrtcCompiler::getFunction(const std::string &source,
                                                          llvm::StringRef name,
                                                          bool archSpecific) {
  // A source compiles once per compiler: the first thread to want it
  // compiles it outside the lock (other layers keep building meanwhile),
  // and threads that want it meanwhile wait for that compilation (a
  // transformer's partitions, built at once, share their layers' sources).
  std::shared_ptr<DeviceModule> module;
  std::shared_ptr<Compilation> pending;
  std::promise<void> finished;
  bool compiles = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!load && compiledOnly.count(source))
      return DeviceFunction{};
    if (auto found = modules.find(source); found != modules.end()) {
      module = found->second;
    } else if (auto inFlight = compiling.find(source); inFlight != compiling.end()) {
      pending = inFlight->second;
    } else {
      pending = std::make_shared<Compilation>();
      pending->done = finished.get_future().share();
      compiling.emplace(source, pending);
      compiles = true;
    }
  }
  if (!module && compiles) {
    llvm::Expected<std::shared_ptr<DeviceModule>> built = compileAndLoad(source, name, archSpecific);
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (built) {
        pending->module = *built;
        if (load)
          modules.emplace(source, *built);
        else
          compiledOnly.emplace(source, true);
      } else {
        pending->error = llvm::toString(built.takeError());
      }
      compiling.erase(source);
    }
    finished.set_value();
  } else if (!module) {
    pending->done.wait();
  }
  if (pending) {
    if (!pending->error.empty())
      return makeNvrtcError(pending->error);
    if (!load)
      return DeviceFunction{};
    module = pending->module;
  }
  DeviceFunction function;
  function.module = module;
  std::string kernelName = name.str();
  cudaError_t error = cudaLibraryGetKernel(&function.kernel, module->get(), kernelName.c_str());
  if (error != cudaSuccess)
    return makeNvrtcError(llvm::Twine("cudaLibraryGetKernel(") + kernelName + ") failed: " +
                          cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
  // Load the kernel into the current device's context now: with lazy module
  // loading the first launch would load it, and that launch may be the one
  // a stream capture records.
  cudaFuncAttributes attributes;
  error = cudaFuncGetAttributes(&attributes, reinterpret_cast<const void *>(function.kernel));
  if (error != cudaSuccess)
    return makeNvrtcError(llvm::Twine("loading kernel ") + kernelName +
                          " failed: " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
  return function;
}

} // namespace cgc::cuda
