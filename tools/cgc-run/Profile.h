//===- Profile.h - cgc-run's --profile trace and --summary table -*- C++ -*-===//
//
// A profile as a Chrome trace ("traceEvents" JSON, which chrome://tracing and
// Perfetto open): the host process with one lane per thread (creating the
// session phase by phase, the threads that compiled state objects, the
// runs), and the device with the profiled run's commands as the device's
// timestamps measured them. The summary ranks partitions by device time
// with the subgraphs they run, as nsys or TensorRT's per-layer profile do.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_TOOLS_CGC_RUN_PROFILE_H
#define CGC_TOOLS_CGC_RUN_PROFILE_H

#include "cgc/Runtime/Session.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace cgc::run {

/// A span of host time that cgc-run measured itself (an ONNX import, a run).
struct HostSpan {
  std::string name;
  std::string category;
  std::chrono::steady_clock::time_point begin, end;
};

/// What a trace shows.
struct TraceInput {
  /// Time 0 of the trace: when cgc-run started.
  std::chrono::steady_clock::time_point origin;
  std::string modelPath;
  std::string device; ///< "cpu", "cuda:0"
  const runtime::SessionStats *stats = nullptr;
  const std::vector<runtime::PartitionInfo> *partitions = nullptr;
  const runtime::RunProfile *profile = nullptr;
  /// cgc-run's own spans, on the main thread.
  std::vector<HostSpan> spans;
};

/// The trace as JSON.
nlohmann::json makeTrace(const TraceInput &input);

/// One partition's share of a profiled run.
struct PartitionTime {
  unsigned partition; ///< index into the session's partitions
  unsigned numDispatches = 0;
  int64_t deviceNs = 0;
};

/// The partitions of `profile` by device time, longest first (ties: in
/// partition order); partitions never dispatched are left out.
std::vector<PartitionTime> rankPartitions(const runtime::RunProfile &profile);

/// What partitions run, with their summed device time.
struct KindTime {
  /// The patterns of the partition's subgraphs, and its fallback layers in
  /// parentheses, sorted and joined with " + ".
  std::string name;
  unsigned numDispatches = 0;
  int64_t deviceNs = 0;
};

/// The kind of `partition`: "attention_4d + (transpose)".
std::string describeKind(const runtime::PartitionInfo &partition);

/// `ranked` (rankPartitions) summed by kind, longest first.
std::vector<KindTime> rankKinds(const std::vector<runtime::PartitionInfo> &partitions,
                                const std::vector<PartitionTime> &ranked);

/// Prints the summary: device totals by kind of command, then the `top`
/// partitions by device time with their share and subgraphs, then the `top`
/// kinds of partition (rankKinds).
void printSummary(std::FILE *out, const std::vector<runtime::PartitionInfo> &partitions,
                  const runtime::RunProfile &profile, unsigned top);

} // namespace cgc::run

#endif // CGC_TOOLS_CGC_RUN_PROFILE_H
