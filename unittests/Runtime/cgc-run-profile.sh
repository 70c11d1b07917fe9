#!/usr/bin/env bash
# cgc-run --profile and --summary on the spec network (CPU device): the trace
# is Chrome-trace JSON with a device event per upload, dispatch and readback
# and a host event per phase of loading and compiling; the summary ranks the
# partitions with their subgraphs; the profiled run leaves the outputs right.
#   cgc-run-profile.sh CGC_RUN FIXTURE WORK_DIR
set -euo pipefail
cgc_run=$1 fixture=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$fixture" write "$work"

expect_line() { # FILE PATTERN: FILE has a line matching the extended regex PATTERN
  if ! grep -qE -- "$2" "$1"; then
    echo "FAIL: no line matching '$2' in $1:" >&2
    cat "$1" >&2
    exit 1
  fi
}

"$cgc_run" "$work/model.mlir" --input "$work/input.npy" --output-dir "$work/out" \
  --profile "$work/trace.json" --summary >"$work/summary.txt"
"$fixture" compare "$work/expected.npy" "$work/out/output0.npy"
time_pattern="[0-9.]+ (ns|us|ms|s)"
expect_line "$work/summary.txt" "^profile +device $time_pattern from first to last timestamp: 2 dispatch\(es\) $time_pattern, 1 upload\(s\) $time_pattern, 1 readback\(s\) $time_pattern; host $time_pattern from submit to fence wait$"
expect_line "$work/summary.txt" "^partitions by device time \(top 2 of 2\):$"
expect_line "$work/summary.txt" "^ +1 +$time_pattern +[0-9.]+% +1 +$time_pattern +@partition"
expect_line "$work/summary.txt" "^ +2 +$time_pattern +[0-9.]+% +1 +$time_pattern +@partition"
# The fused subgraph runs twice per dispatch, matched by a pattern of the
# driver; the upsample is the fallback target's.
expect_line "$work/summary.txt" "^ +[A-Za-z_0-9]+ x2 \(pattern [A-Za-z_0-9]+, on cpu\): convolution, .*add$"
expect_line "$work/summary.txt" "^ +[A-Za-z_0-9]+ \(on cpu.fallback\): upsample$"
expect_line "$work/summary.txt" "^profile +.*trace.json \(4 device command\(s\), [0-9]+ phase\(s\) of loading\)$"

python3 - "$work/trace.json" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
complete = [e for e in events if e["ph"] == "X"]
assert all(e["ph"] in ("X", "M") for e in events), events
for e in complete:
    assert e["ts"] >= 0 and e["dur"] >= 0, e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
# Metadata names both processes and their threads.
named = {(e["pid"], e.get("tid"), e["name"]): e["args"] for e in events if e["ph"] == "M"}
assert named[(1, 0, "process_name")]["name"].startswith("cgc-run (host): "), named
assert named[(2, 0, "process_name")]["name"].startswith("device cpu (CPU"), named
assert (1, 0, "thread_name") in named and (2, 0, "thread_name") in named, named
# The device: one upload, two dispatches with their subgraphs, one readback,
# in that order and one after another.
device = sorted((e for e in complete if e["pid"] == 2), key=lambda e: e["ts"])
assert [e["cat"] for e in device] == ["upload", "dispatch", "dispatch", "readback"], device
assert device[0]["name"] == "upload input0" and device[0]["args"]["bytes"] == 64, device[0]
assert device[-1]["name"] == "readback output0" and device[-1]["args"]["bytes"] == 256, device[-1]
for before, after in zip(device, device[1:]):
    assert before["ts"] + before["dur"] <= after["ts"] + 1e-3, (before, after)
for dispatch in device[1:3]:
    args = dispatch["args"]
    assert dispatch["name"] == "@" + args["partition"], dispatch
    assert args["subgraphs"] and args["device_ns"] >= 0, dispatch
assert [d["args"]["invocation"] for d in device[1:3]] == [0, 1], device
# The host: every phase of loading and compiling, the compiler's stages in
# order, a state object per partition, the runs.
host = [e for e in complete if e["pid"] == 1]
names = [e["name"] for e in host]
for name in ["open the device", "parse model", "compile: match", "compile: partition",
             "compile: plan-memory", "compile: schedule", "compile state objects",
             "record the run list", "first run", "profiled run: submit to fence wait"]:
    assert name in names, (name, names)
stages = [next(e for e in host if e["name"] == "compile: " + s)
          for s in ("match", "partition", "plan-memory", "schedule")]
for before, after in zip(stages, stages[1:]):
    assert before["ts"] + before["dur"] <= after["ts"] + 1e-3, (before, after)
partitions = {d["args"]["partition"] for d in device[1:3]}
state_objects = {e["name"] for e in host if e["cat"] == "state-object"}
assert {"state object @" + p for p in partitions} <= state_objects, (partitions, state_objects)
assert any(e["cat"] == "constants" and e["name"].startswith("constants: upload ") for e in host)
# The profiled run's device commands lie inside its host span.
run = next(e for e in host if e["name"] == "profiled run: submit to fence wait")
assert run["ts"] <= device[0]["ts"], (run, device[0])
assert trace["otherData"]["timestamp_frequency"] == 1000000000, trace["otherData"]
assert trace["otherData"]["driver"] == "cpu", trace["otherData"]
PY

# --summary alone, a longer list cut short, and one profile of Output IR.
"$cgc_run" "$work/model.mlir" --random-inputs --partition-mode per-subgraph --summary \
  --summary-top 1 >"$work/top1.txt"
expect_line "$work/top1.txt" "^partitions by device time \(top 1 of 3\):$"
expect_line "$work/top1.txt" "^  \(2 more partition\(s\): $time_pattern, [0-9.]+%\)$"
if grep -q "trace.json" "$work/top1.txt"; then echo "FAIL: a trace without --profile" >&2; exit 1; fi

# An unwritable trace fails before any work.
if "$cgc_run" "$work/model.mlir" --random-inputs --profile "$work/no-such-dir/t.json" \
  >"$work/stdout" 2>"$work/stderr"; then
  echo "FAIL: --profile into a missing directory succeeded" >&2
  exit 1
fi
expect_line "$work/stderr" "--profile $work/no-such-dir/t.json: cannot open the file for writing"
echo "cgc-run profile: ok"
