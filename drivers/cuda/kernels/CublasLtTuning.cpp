//===- CublasLtTuning.cpp - timing cuBLASLt's candidate algorithms --------===//
//
// Launches are timed with CUDA events on a private stream that a host
// function holds shut until all the launches of a measurement are
// enqueued: a product of a few microseconds takes about as long to enqueue
// as to run, so events around launches as they are enqueued would time the
// host. Each candidate launches once untimed (its first launch may load its
// kernel), once timed to size the samples (enough launches per sample that
// the events' ~0.5 us resolution does not matter), then kSamples times;
// the median sample counts.
//
//===----------------------------------------------------------------------===//

#include "CublasLtTuning.h"
#include "ChoiceCache.h"

#include "FusedSupport.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace cgc::cuda {

namespace {
/// Timed samples per candidate; their median is its time.
constexpr int kSamples = 5;
/// What one sample should last at least (milliseconds).
constexpr float kSampleMilliseconds = 0.05f;
/// At most this many launches per sample: all samples of a candidate are
/// enqueued behind the gate at once, and a stream whose queue fills makes
/// the enqueueing thread wait for the gate it holds (measured on an H100:
/// with 32, tunings of 5 us products waited out kGateTimeout up to 4 times).
constexpr int kMaxLaunchesPerSample = 8;
/// A candidate whose first timed launch takes this many times the fastest
/// time so far is not sampled further: it cannot win, and slow candidates
/// are most of a large product's tuning time.
constexpr float kHopelessFactor = 2.0f;
/// The longest a gate holds its stream (StreamGate).
constexpr std::chrono::milliseconds kGateTimeout{200};

/// The choices of this process, by device and configuration
/// (ProductTimingSetup::key).
ChoiceCache<TunedAlgorithm> &getChoiceCache() {
  static ChoiceCache<TunedAlgorithm> cache;
  return cache;
}

std::atomic<uint64_t> timedProductCount{0};

/// Holds a stream shut (a host function that waits) until opened, so that
/// the work enqueued behind it runs back to back. It also opens by itself
/// after kGateTimeout: enqueueing blocks when a stream's queue is full, and
/// then the thread that would open the gate waits for it.
class StreamGate {
public:
  /// Enqueues the wait on `stream`; false (and open) when that fails.
  bool shut(cudaStream_t stream) {
    isOpen.store(false, std::memory_order_release);
    if (cudaLaunchHostFunc(stream, &wait, this) == cudaSuccess)
      return true;
    isOpen.store(true, std::memory_order_release);
    cudaGetLastError();
    return false;
  }
  void open() { isOpen.store(true, std::memory_order_release); }

private:
  static void CUDART_CB wait(void *userData) {
    auto *gate = static_cast<StreamGate *>(userData);
    auto deadline = std::chrono::steady_clock::now() + kGateTimeout;
    while (!gate->isOpen.load(std::memory_order_acquire) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  }
  std::atomic<bool> isOpen{true};
};

/// What one tuning creates: the gate and the timing scratch (stream,
/// events, zeroed stand-in buffers). The gate opens before the scratch
/// waits for its stream.
struct TimingResources {
  StreamGate gate;
  TimingScratch scratch;
  ~TimingResources() { gate.open(); }
};
} // namespace

bool isProductTuningEnabled(ProductTuning tuning) {
  static const bool switchedOff = [] {
    const char *value = std::getenv("CGC_CUDA_MATMUL_TUNING");
    return value && llvm::StringRef(value) == "0";
  }();
  switch (tuning) {
  case ProductTuning::On:
    return true;
  case ProductTuning::Off:
    return false;
  case ProductTuning::Default:
    break;
  }
  return !switchedOff;
}

/// CGC_CUDA_MATMUL_TUNING as a candidate count, or std::nullopt.
static std::optional<int> getRequestedCandidates() {
  static const std::optional<int> requested = []() -> std::optional<int> {
    const char *value = std::getenv("CGC_CUDA_MATMUL_TUNING");
    int count = 0;
    if (!value || llvm::StringRef(value).getAsInteger(10, count) || count < 1 ||
        count > kMaxRequestedCandidates)
      return std::nullopt;
    return count;
  }();
  return requested;
}

int getCandidateLimit(uint64_t multiplyAdds) {
  if (std::optional<int> requested = getRequestedCandidates())
    return *requested;
  return multiplyAdds < kSmallProductMultiplyAdds ? kMaxSmallProductCandidates
                                                  : kMaxTunedCandidates;
}

int getCandidateQueryCount() { return getRequestedCandidates().value_or(kMaxTunedCandidates); }

uint64_t getTimedProductCount() { return timedProductCount.load(); }

/// `setup.key` on the calling thread's current device; std::nullopt
/// without one.
static std::optional<std::string> getDeviceKey(const ProductTimingSetup &setup) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return std::to_string(device) + ":" + setup.key;
}

std::optional<TunedAlgorithm> findTunedAlgorithm(const ProductTimingSetup &setup) {
  std::optional<std::string> key = getDeviceKey(setup);
  if (!key)
    return std::nullopt;
  return getChoiceCache().lookup(*key);
}

/// Enqueues `groups` groups of `launchesPerGroup` launches behind the
/// shut gate, an event between groups, and returns each group's
/// milliseconds per launch; std::nullopt when a launch or the device
/// fails. The stream is idle again on return.
static std::optional<llvm::SmallVector<float, kSamples>>
timeGroups(TimingResources &resources, int groups, int launchesPerGroup,
           llvm::function_ref<bool()> launch) {
  cudaStream_t stream = resources.scratch.getStream();
  if (!resources.gate.shut(stream))
    return std::nullopt;
  bool enqueued = cudaEventRecord(resources.scratch.getEvent(0), stream) == cudaSuccess;
  for (int group = 0; group < groups && enqueued; ++group) {
    for (int index = 0; index < launchesPerGroup && enqueued; ++index)
      enqueued = launch();
    enqueued = enqueued &&
               cudaEventRecord(resources.scratch.getEvent(group + 1), stream) == cudaSuccess;
  }
  resources.gate.open();
  bool finished = cudaStreamSynchronize(stream) == cudaSuccess;
  if (!enqueued || !finished) {
    cudaGetLastError();
    return std::nullopt;
  }
  llvm::SmallVector<float, kSamples> times;
  for (int group = 0; group < groups; ++group) {
    float milliseconds = 0.0f;
    if (cudaEventElapsedTime(&milliseconds, resources.scratch.getEvent(group),
                             resources.scratch.getEvent(group + 1)) != cudaSuccess) {
      cudaGetLastError();
      return std::nullopt;
    }
    times.push_back(milliseconds / static_cast<float>(launchesPerGroup));
  }
  return times;
}

/// Milliseconds of one launch: the median of kSamples samples after an
/// untimed warm-up, or only the first timed launch when that is already
/// kHopelessFactor times `fastest`. std::nullopt when it fails.
static std::optional<float> timeCandidate(TimingResources &resources,
                                          llvm::function_ref<bool()> launch,
                                          std::optional<float> fastest) {
  if (!launch() || cudaStreamSynchronize(resources.scratch.getStream()) != cudaSuccess) {
    cudaStreamSynchronize(resources.scratch.getStream());
    cudaGetLastError();
    return std::nullopt;
  }
  std::optional<llvm::SmallVector<float, kSamples>> first = timeGroups(resources, 1, 1, launch);
  if (!first)
    return std::nullopt;
  float estimate = first->front();
  if (fastest && estimate >= kHopelessFactor * *fastest)
    return estimate;
  int launches = static_cast<int>(std::ceil(kSampleMilliseconds / std::max(estimate, 1e-4f)));
  launches = std::clamp(launches, 1, kMaxLaunchesPerSample);
  std::optional<llvm::SmallVector<float, kSamples>> samples =
      timeGroups(resources, kSamples, launches, launch);
  if (!samples)
    return std::nullopt;
  std::sort(samples->begin(), samples->end());
  return (*samples)[kSamples / 2];
}

static bool isUsable(const cublasLtMatmulHeuristicResult_t &candidate) {
  return candidate.state == CUBLAS_STATUS_SUCCESS &&
         candidate.workspaceSize <= kMaxProductWorkspace;
}

std::optional<TunedAlgorithm>
tuneAlgorithm(LtProduct &product, llvm::ArrayRef<cublasLtMatmulHeuristicResult_t> candidates,
              const ProductTimingSetup &setup) {
  std::optional<std::string> key = getDeviceKey(setup);
  if (!key)
    return std::nullopt;
  auto reportUntimed = [&](const char *why) {
    if (isVerbose())
      llvm::errs() << "cgc cuda: cuBLASLt " << setup.description << ": not timed (" << why
                   << "), the heuristic's first algorithm kept\n";
    return std::nullopt;
  };
  // Taken before `resources`, released after it: held until the stand-ins
  // are freed and the stream is idle. Another thread may have timed the
  // same product while this one waited.
  std::lock_guard<std::mutex> timing(getDeviceTimingMutex());
  if (std::optional<TunedAlgorithm> cached = getChoiceCache().lookup(*key))
    return cached;
  auto started = std::chrono::steady_clock::now();

  uint64_t workspaceSize = 0;
  for (const cublasLtMatmulHeuristicResult_t &candidate : candidates)
    if (isUsable(candidate))
      workspaceSize = std::max<uint64_t>(workspaceSize, candidate.workspaceSize);
  // alpha = 1, beta = 0 (1 when the launches read a C) in the scale type,
  // from the host or the device.
  const float floatScalars[2] = {1.0f, setup.readsC ? 1.0f : 0.0f};
  const double doubleScalars[2] = {1.0, setup.readsC ? 1.0 : 0.0};
  const void *hostScalars =
      setup.doubleScalars ? static_cast<const void *>(doubleScalars) : floatScalars;
  size_t scalarWidth = setup.doubleScalars ? sizeof(double) : sizeof(float);

  TimingResources resources;
  if (!resources.scratch.create(kSamples + 1))
    return reportUntimed("no stream");
  void *a = resources.scratch.allocate(setup.aBytes);
  void *b = resources.scratch.allocate(setup.bBytes);
  void *d = resources.scratch.allocate(setup.dBytes);
  // A C of its own, as the launches pass: C = D could be read and written
  // by one pass in place, which the real launches do not get.
  void *c = setup.readsC ? resources.scratch.allocate(setup.dBytes) : d;
  void *bias = setup.biasBytes ? resources.scratch.allocate(setup.biasBytes) : nullptr;
  void *workspace = workspaceSize ? resources.scratch.allocate(workspaceSize) : nullptr;
  if (!a || !b || !d || !c || (setup.biasBytes && !bias) || (workspaceSize && !workspace)) {
    cudaGetLastError();
    return reportUntimed("no memory for the stand-in operands");
  }
  cudaStream_t stream = resources.scratch.getStream();
  const void *alpha = hostScalars;
  const void *beta = static_cast<const char *>(hostScalars) + scalarWidth;
  if (setup.deviceScalars) {
    void *scalars = resources.scratch.allocate(2 * scalarWidth);
    if (!scalars || cudaMemcpyAsync(scalars, hostScalars, 2 * scalarWidth,
                                    cudaMemcpyHostToDevice, stream) != cudaSuccess) {
      cudaGetLastError();
      return reportUntimed("no memory for alpha and beta");
    }
    alpha = scalars;
    beta = static_cast<const char *>(scalars) + scalarWidth;
  }
  if (bias && cublasLtMatmulDescSetAttribute(product.operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                             &bias, sizeof(bias)) != CUBLAS_STATUS_SUCCESS)
    return reportUntimed("the bias pointer cannot be set");

  std::optional<size_t> fastestIndex;
  std::optional<float> fastest, firstTime;
  int timed = 0;
  int limit = getCandidateLimit(setup.multiplyAdds);
  for (size_t index = 0; index < candidates.size() && timed < limit; ++index) {
    const cublasLtMatmulHeuristicResult_t &candidate = candidates[index];
    if (!isUsable(candidate))
      continue;
    auto launch = [&] {
      return cublasLtMatmul(product.handle->handle, product.operation, alpha, a, product.a, b,
                            product.b, beta, c, product.c, d, product.c, &candidate.algo,
                            workspace, workspaceSize, stream) == CUBLAS_STATUS_SUCCESS;
    };
    std::optional<float> time = timeCandidate(resources, launch, fastest);
    if (!time)
      continue;
    ++timed;
    if (index == 0)
      firstTime = time;
    if (!fastest || *time < *fastest) {
      fastest = time;
      fastestIndex = index;
    }
  }
  if (!fastestIndex)
    return reportUntimed("no candidate launched");

  const cublasLtMatmulHeuristicResult_t &chosen = candidates[*fastestIndex];
  TunedAlgorithm choice{chosen.algo, chosen.workspaceSize, timed};
  getChoiceCache().store(*key, choice);
  ++timedProductCount;
  if (isVerbose()) {
    std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - started;
    llvm::errs() << "cgc cuda: cuBLASLt " << setup.description << ": " << timed << " of "
                 << candidates.size() << " candidates timed, the heuristic's #"
                 << *fastestIndex + 1 << " kept: " << llvm::format("%.4f", *fastest)
                 << " ms, its first ";
    if (firstTime)
      llvm::errs() << llvm::format("%.4f", *firstTime) << " ms";
    else
      llvm::errs() << "not timed";
    llvm::errs() << " (tuning took " << llvm::format("%.1f", took.count()) << " ms)\n";
  }
  return choice;
}

} // namespace cgc::cuda
