//===- Profile.cpp - cgc-run's --profile trace and --summary table --------===//
//
// Trace times are microseconds since cgc-run started (`ts`, `dur`, as the
// trace format has them). Device commands sit on the host's timeline at the
// time the profiled list was submitted plus their device time since the
// list's first timestamp: exact relative to one another, placed to within
// the submission latency.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>

using namespace cgc::runtime;
using nlohmann::json;

namespace cgc::run {

namespace {

constexpr int kHostProcess = 1;
constexpr int kDeviceProcess = 2;

double toMicroseconds(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration<double, std::micro>(duration).count();
}

json processName(int pid, const std::string &name, int sortIndex) {
  return json::array({{{"name", "process_name"},
                       {"ph", "M"},
                       {"pid", pid},
                       {"tid", 0},
                       {"args", {{"name", name}}}},
                      {{"name", "process_sort_index"},
                       {"ph", "M"},
                       {"pid", pid},
                       {"tid", 0},
                       {"args", {{"sort_index", sortIndex}}}}});
}

json threadName(int pid, unsigned tid, const std::string &name) {
  return {
      {"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

/// A complete ("X") event.
json completeEvent(const std::string &name, const std::string &category, double begin,
                   double duration, int pid, unsigned tid) {
  return {{"name", name},
          {"cat", category},
          {"ph", "X"},
          {"ts", begin},
          {"dur", std::max(duration, 0.0)},
          {"pid", pid},
          {"tid", tid}};
}

const char *getKindName(ProfiledCommand::Kind kind) {
  switch (kind) {
  case ProfiledCommand::Kind::Upload:
    return "upload";
  case ProfiledCommand::Kind::Dispatch:
    return "dispatch";
  case ProfiledCommand::Kind::Readback:
    return "readback";
  }
  return "command";
}

/// "convReluAdd x2 (pattern conv_relu_add, on cpu): convolution, relu, add".
std::string describeSubgraph(const SubgraphInfo &subgraph) {
  std::string text = subgraph.name;
  if (subgraph.numInvocations != 1)
    text += fmt::format(" x{}", subgraph.numInvocations);
  std::string where;
  if (!subgraph.pattern.empty())
    where = "pattern " + subgraph.pattern;
  if (!subgraph.origin.empty())
    where += (where.empty() ? "on " : ", on ") + subgraph.origin;
  if (!where.empty())
    text += " (" + where + ")";
  for (size_t index = 0; index < subgraph.layers.size(); ++index) {
    std::string_view layer = subgraph.layers[index];
    if (layer.starts_with("cgc_op."))
      layer.remove_prefix(7);
    text += (index ? ", " : ": ") + std::string(layer);
  }
  return text;
}

std::string formatNanoseconds(int64_t nanoseconds) {
  double value = static_cast<double>(nanoseconds);
  if (std::abs(value) < 1e3)
    return fmt::format("{} ns", nanoseconds);
  if (std::abs(value) < 1e6)
    return fmt::format("{:.1f} us", value / 1e3);
  if (std::abs(value) < 1e9)
    return fmt::format("{:.3f} ms", value / 1e6);
  return fmt::format("{:.3f} s", value / 1e9);
}

} // namespace

json makeTrace(const TraceInput &input) {
  json events = json::array();
  auto append = [&](json more) {
    if (more.is_array())
      for (json &event : more)
        events.push_back(std::move(event));
    else
      events.push_back(std::move(more));
  };
  append(processName(kHostProcess, "cgc-run (host): " + input.modelPath, 0));
  append(threadName(kHostProcess, 0, "main thread"));

  std::set<unsigned> compileThreads;
  if (input.stats)
    for (const PhaseTiming &phase : input.stats->phases) {
      if (phase.thread != 0 && compileThreads.insert(phase.thread).second)
        append(threadName(kHostProcess, phase.thread,
                          fmt::format("state-object compile thread {}", phase.thread)));
      append(completeEvent(phase.name, phase.category, toMicroseconds(phase.begin - input.origin),
                           toMicroseconds(phase.end - phase.begin), kHostProcess, phase.thread));
    }
  for (const HostSpan &span : input.spans)
    append(completeEvent(span.name, span.category, toMicroseconds(span.begin - input.origin),
                         toMicroseconds(span.end - span.begin), kHostProcess, 0));

  if (const RunProfile *profile = input.profile) {
    std::string adapter = input.stats ? input.stats->adapterName : std::string();
    append(processName(kDeviceProcess,
                       "device " + input.device + (adapter.empty() ? "" : " (" + adapter + ")"),
                       1));
    append(threadName(kDeviceProcess, 0, "queue (timestamp queries)"));
    append(completeEvent("profiled run: submit to fence wait", "run",
                         toMicroseconds(profile->submitted - input.origin),
                         toMicroseconds(profile->completed - profile->submitted), kHostProcess, 0));
    double submitted = toMicroseconds(profile->submitted - input.origin);
    for (const ProfiledCommand &command : profile->commands) {
      bool isDispatch = command.kind == ProfiledCommand::Kind::Dispatch;
      std::string name = isDispatch ? "@" + command.name
                                    : std::string(getKindName(command.kind)) + " " + command.name;
      int64_t deviceNs = command.deviceEndNs - command.deviceBeginNs;
      json event =
          completeEvent(name, getKindName(command.kind), submitted + command.deviceBeginNs / 1e3,
                        deviceNs / 1e3, kDeviceProcess, 0);
      json args = {{"device_ns", deviceNs}};
      if (isDispatch) {
        args["partition"] = command.name;
        args["invocation"] = command.invocation;
        if (input.partitions && command.partition < input.partitions->size()) {
          json subgraphs = json::array();
          for (const SubgraphInfo &subgraph : (*input.partitions)[command.partition].subgraphs)
            subgraphs.push_back(describeSubgraph(subgraph));
          args["subgraphs"] = std::move(subgraphs);
        }
      } else {
        args["bytes"] = command.sizeInBytes;
      }
      event["args"] = std::move(args);
      append(std::move(event));
    }
  }

  json other = {{"model", input.modelPath},
                {"device", input.device},
                {"time_origin", "cgc-run start"},
                {"device_times", "device timestamps since the profiled list's first, placed at "
                                 "the host time the list was submitted"}};
  if (input.stats) {
    other["adapter"] = input.stats->adapterName;
    other["driver"] = input.stats->driverName;
  }
  if (input.profile)
    other["timestamp_frequency"] = input.profile->timestampFrequency;
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", std::move(other)}};
}

std::vector<PartitionTime> rankPartitions(const RunProfile &profile) {
  std::map<unsigned, PartitionTime> byPartition;
  for (const ProfiledCommand &command : profile.commands) {
    if (command.kind != ProfiledCommand::Kind::Dispatch)
      continue;
    PartitionTime &time =
        byPartition.try_emplace(command.partition, command.partition).first->second;
    ++time.numDispatches;
    time.deviceNs += command.deviceEndNs - command.deviceBeginNs;
  }
  std::vector<PartitionTime> ranked;
  for (const auto &[partition, time] : byPartition)
    ranked.push_back(time);
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const PartitionTime &a, const PartitionTime &b) { return a.deviceNs > b.deviceNs; });
  return ranked;
}

void printSummary(std::FILE *out, const std::vector<PartitionInfo> &partitions,
                  const RunProfile &profile, unsigned top) {
  struct KindTotal {
    unsigned count = 0;
    int64_t deviceNs = 0;
  };
  std::map<ProfiledCommand::Kind, KindTotal> totals;
  int64_t first = 0, last = 0;
  for (const ProfiledCommand &command : profile.commands) {
    KindTotal &total = totals[command.kind];
    ++total.count;
    total.deviceNs += command.deviceEndNs - command.deviceBeginNs;
    first = std::min(first, command.deviceBeginNs);
    last = std::max(last, command.deviceEndNs);
  }
  std::string byKind;
  for (ProfiledCommand::Kind kind : {ProfiledCommand::Kind::Dispatch, ProfiledCommand::Kind::Upload,
                                     ProfiledCommand::Kind::Readback}) {
    const KindTotal &total = totals[kind];
    byKind +=
        fmt::format("{}{} {}{} {}", byKind.empty() ? "" : ", ", total.count, getKindName(kind),
                    kind == ProfiledCommand::Kind::Dispatch ? "(es)" : "(s)",
                    formatNanoseconds(total.deviceNs));
  }
  fmt::print(out,
             "profile     device {} from first to last timestamp: {}; host {} from submit "
             "to fence wait\n",
             formatNanoseconds(last - first), byKind,
             formatNanoseconds(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   profile.completed - profile.submitted)
                                   .count()));

  std::vector<PartitionTime> ranked = rankPartitions(profile);
  int64_t dispatchNs = totals[ProfiledCommand::Kind::Dispatch].deviceNs;
  size_t shown = std::min<size_t>(top, ranked.size());
  fmt::print(out, "partitions by device time (top {} of {}):\n", shown, ranked.size());
  fmt::print(out, "  {:>4}  {:>11}  {:>6}  {:>10}  {:>11}  {}\n", "rank", "device", "share",
             "dispatches", "mean", "partition: subgraphs");
  for (size_t rank = 0; rank < shown; ++rank) {
    const PartitionTime &time = ranked[rank];
    double share = dispatchNs > 0 ? 100.0 * double(time.deviceNs) / double(dispatchNs) : 0.0;
    std::string name = time.partition < partitions.size()
                           ? "@" + partitions[time.partition].name
                           : fmt::format("partition #{}", time.partition);
    fmt::print(out, "  {:>4}  {:>11}  {:>5.1f}%  {:>10}  {:>11}  {}\n", rank + 1,
               formatNanoseconds(time.deviceNs), share, time.numDispatches,
               formatNanoseconds(time.deviceNs / std::max(time.numDispatches, 1u)), name);
    if (time.partition < partitions.size())
      for (const SubgraphInfo &subgraph : partitions[time.partition].subgraphs)
        fmt::print(out, "  {:>50}  {}\n", "", describeSubgraph(subgraph));
  }
  if (shown < ranked.size()) {
    int64_t rest = 0;
    for (size_t rank = shown; rank < ranked.size(); ++rank)
      rest += ranked[rank].deviceNs;
    fmt::print(out, "  ({} more partition(s): {}, {:.1f}%)\n", ranked.size() - shown,
               formatNanoseconds(rest),
               dispatchNs > 0 ? 100.0 * double(rest) / double(dispatchNs) : 0.0);
  }

  // The same time by what the partitions run: a pattern's subgraphs add up
  // across the layers of a model (per-subgraph partitions give one kind
  // each; a partition of several kinds counts under their combination).
  std::vector<KindTime> kinds = rankKinds(partitions, ranked);
  shown = std::min<size_t>(top, kinds.size());
  fmt::print(out, "kinds by device time (top {} of {}):\n", shown, kinds.size());
  fmt::print(out, "  {:>4}  {:>11}  {:>6}  {:>10}  {:>11}  {}\n", "rank", "device", "share",
             "dispatches", "mean", "patterns and fallback layers");
  for (size_t rank = 0; rank < shown; ++rank) {
    const KindTime &kind = kinds[rank];
    double share = dispatchNs > 0 ? 100.0 * double(kind.deviceNs) / double(dispatchNs) : 0.0;
    fmt::print(out, "  {:>4}  {:>11}  {:>5.1f}%  {:>10}  {:>11}  {}\n", rank + 1,
               formatNanoseconds(kind.deviceNs), share, kind.numDispatches,
               formatNanoseconds(kind.deviceNs / std::max(kind.numDispatches, 1u)), kind.name);
  }
}

std::string describeKind(const PartitionInfo &partition) {
  std::set<std::string> names;
  for (const SubgraphInfo &subgraph : partition.subgraphs) {
    if (!subgraph.pattern.empty()) {
      names.insert(subgraph.pattern);
      continue;
    }
    std::string layers;
    for (std::string_view layer : subgraph.layers) {
      if (layer.starts_with("cgc_op."))
        layer.remove_prefix(7);
      layers += (layers.empty() ? "" : ", ") + std::string(layer);
    }
    names.insert("(" + layers + ")");
  }
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : " + ") + name;
  return text;
}

std::vector<KindTime> rankKinds(const std::vector<PartitionInfo> &partitions,
                                const std::vector<PartitionTime> &ranked) {
  std::map<std::string, KindTime> byName;
  for (const PartitionTime &time : ranked) {
    std::string name = time.partition < partitions.size()
                           ? describeKind(partitions[time.partition])
                           : fmt::format("partition #{}", time.partition);
    KindTime &kind = byName[name];
    kind.name = name;
    kind.numDispatches += time.numDispatches;
    kind.deviceNs += time.deviceNs;
  }
  std::vector<KindTime> kinds;
  for (auto &[name, kind] : byName)
    kinds.push_back(std::move(kind));
  std::stable_sort(kinds.begin(), kinds.end(), [](const KindTime &a, const KindTime &b) {
    return a.deviceNs > b.deviceNs;
  });
  return kinds;
}

} // namespace cgc::run
