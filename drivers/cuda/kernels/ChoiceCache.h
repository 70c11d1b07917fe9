//===- ChoiceCache.h - choices timed once per process -----------*- C++ -*-===//
//
// Kernels that time candidates on the device (cuBLASLt's algorithms,
// cuDNN's graph plans and convolution algorithms, the attention's paths)
// keep what they chose for the rest of the process, under a key that names
// the device and everything the choice depends on, so that a model's
// repeated layers are timed once. Programs build on many threads at once:
// the cache is thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_CHOICECACHE_H
#define CGC_DRIVERS_CUDA_KERNELS_CHOICECACHE_H

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace cgc::cuda {

/// Choices by key; one static instance per kind of choice.
template <typename Choice>
class ChoiceCache {
public:
  /// The choice kept for `key`, or std::nullopt.
  std::optional<Choice> lookup(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = choices.find(key);
    if (found == choices.end())
      return std::nullopt;
    return found->second;
  }
  /// Keeps `choice` for `key`. Two threads that timed one key at once keep
  /// the later choice; either was timed.
  void store(const std::string &key, Choice choice) {
    std::lock_guard<std::mutex> lock(mutex);
    choices.insert_or_assign(key, std::move(choice));
  }

private:
  std::mutex mutex;
  std::map<std::string, Choice> choices;
};

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_CHOICECACHE_H
