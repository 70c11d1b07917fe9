#!/usr/bin/env bash
# cgc-run end to end: the spec's 7-layer network with known weights runs on the
# CPU device and its .npy output matches the double-precision reference; bad
# invocations fail with clear messages.
#   cgc-run-spec-network.sh CGC_RUN FIXTURE WORK_DIR
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
expect_failure() { # PATTERN ARGS...: cgc-run ARGS fails and says PATTERN on stderr
  local pattern=$1
  shift
  if "$cgc_run" "$@" >"$work/stdout" 2>"$work/stderr"; then
    echo "FAIL: cgc-run $* succeeded" >&2
    exit 1
  fi
  expect_line "$work/stderr" "$pattern"
}

# One run, output written as .npy and checked against the reference.
"$cgc_run" "$work/model.mlir" --input "input0=$work/input.npy" --output-dir "$work/out" \
  >"$work/summary.txt"
"$fixture" compare "$work/expected.npy" "$work/out/output0.npy"
expect_line "$work/summary.txt" "^model +.*model.mlir \(Input IR, compiled with the device's patterns\)$"
expect_line "$work/summary.txt" "^input +input0 +float32 1x1x4x4 +<- .*input.npy$"
expect_line "$work/summary.txt" "^output +output0 +float32 1x1x8x8 +-> .*out/output0.npy$"
# conv + bias + relu + add twice, fused; the upsample on the fallback target.
expect_line "$work/summary.txt" "^compiler +[0-9]+ pattern\(s\) of 'cpu'; 7 layer\(s\): 2 pattern subgraph\(s\) \(2 offered, 0 rejected\), 1 on 'cpu.fallback'; 2 partition\(s\)"
expect_line "$work/summary.txt" "^schedule +2 dispatch\(es\), 1 barrier\(s\) between dependent ones \([0-9]+ range barrier\(s\), 0 global\)"

# The baseline compiler: one partition, one scratch slot per intermediate.
"$cgc_run" "$work/model.mlir" --compiler baseline --input "input0=$work/input.npy" \
  --output-dir "$work/baseline" >"$work/baseline.txt"
"$fixture" compare "$work/expected.npy" "$work/baseline/output0.npy"
expect_line "$work/baseline.txt" "^model +.*model.mlir \(Input IR, compiled by the baseline pipeline\)$"
expect_line "$work/baseline.txt" "^partition +@partition_0: 12 bind points, 1 dispatch"
expect_line "$work/baseline.txt" "^schedule +1 dispatch\(es\), 0 barrier\(s\)"
expect_line "$work/baseline.txt" "^memory +scratch 384 B, constants .* \(4 tensors\), device total "

# Compiler knobs: one partition per subgraph, the input in scratch.
"$cgc_run" "$work/model.mlir" --partition-mode per-subgraph --inputs-in-scratch --debug-layer \
  --input "input0=$work/input.npy" --output-dir "$work/knobs" >"$work/knobs.txt"
"$fixture" compare "$work/expected.npy" "$work/knobs/output0.npy"
expect_line "$work/knobs.txt" "; 3 partition\(s\); .*, 1 input\(s\) in scratch;"
expect_failure "--compiler.*fancy" "$work/model.mlir" --compiler fancy --random-inputs

# The spec's hand-written Output IR (two partitions, the second reading what the
# first wrote to the scratch buffer) computes the same with the same weights.
mkdir "$work/output-ir"
cp "$(dirname "$0")/../../test/Dialect/CGC/spec-output-ir.mlir" "$work/output-ir/model.mlir"
cp "$work/model.safetensors" "$work/output-ir/"
"$cgc_run" "$work/output-ir/model.mlir" --input "$work/input.npy" --output-dir "$work/output-ir/out" \
  >"$work/output-ir/summary.txt"
"$fixture" compare "$work/expected.npy" "$work/output-ir/out/output0.npy"
expect_line "$work/output-ir/summary.txt" "^model +.*\(Output IR\)$"
expect_line "$work/output-ir/summary.txt" "^partition +@driverPartition: 7 bind points"
expect_line "$work/output-ir/summary.txt" "^partition +@fallbackPartition: 2 bind points"
expect_line "$work/output-ir/summary.txt" "^schedule +2 dispatch\(es\), 1 barrier\(s\)"

# A positional input, and a benchmark (no TTY: no progress bar): end to end
# and device-resident (the dispatches alone; the CPU device has timestamp
# queries, so also on its clock), on the screen and as JSON.
"$cgc_run" "$work/model.mlir" --input "$work/input.npy" --benchmark 5 --benchmark-warmup 2 \
  --benchmark-json "$work/bench.json" >"$work/bench.txt"
latency="min [0-9.]+ (us|ms|s), median [0-9.]+ (us|ms|s), mean [0-9.]+ (us|ms|s), p90 [0-9.]+ (us|ms|s), p99 [0-9.]+ (us|ms|s)$"
expect_line "$work/bench.txt" "^benchmark +end to end \(upload, run, readback\), 5 runs after 2 warm-up: $latency"
expect_line "$work/bench.txt" "^benchmark +device-resident \(dispatches only, inputs on the device\), 5 runs after 2 warm-up: $latency"
expect_line "$work/bench.txt" "^benchmark +device-resident on the device's clock \(between two timestamps, as CUDA events time it\), 5 runs: $latency"
expect_line "$work/bench.txt" "not written; pass --output-dir"
python3 - "$work/bench.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["model"].endswith("model.mlir") and report["device"] == "cpu", report
assert report["driver"] == "cpu" and report["adapter"], report
assert report["load_seconds"] > 0 and report["compile_seconds"] > 0, report
assert report["import_seconds"] == 0 and report["dispatches"] == 2, report
# The spec network: 64-byte input, 256-byte output, scratch and constants.
assert report["device_bytes"] == 64 + 256 + report["scratch_bytes"] + report["constant_bytes"], report
assert report["inputs"][0]["shape"] == [1, 1, 4, 4], report
benchmark = report["benchmark"]
assert benchmark["warmup"] == 2, benchmark
for series in ("end_to_end", "device_resident", "device_resident_device_clock"):
    figures = benchmark[series]
    assert figures["runs"] == 5 and len(figures["samples"]) == 5, figures
    assert 0 < figures["min"] <= figures["median"] <= figures["p90"] <= figures["max"], figures
    assert figures["min"] <= figures["mean"] <= figures["max"], figures
    assert sorted(figures["samples"])[0] == figures["min"], figures
assert benchmark["device_resident"]["input_uploads"] == 0, benchmark
assert benchmark["device_resident_device_clock"]["input_uploads"] == 0, benchmark
PY
# An input in scratch is overwritten by the program: the device-resident
# series uploads it again before each execution, and says so.
"$cgc_run" "$work/model.mlir" --input "$work/input.npy" --inputs-in-scratch --benchmark 3 \
  >"$work/bench-scratch.txt"
expect_line "$work/bench-scratch.txt" "^benchmark +device-resident \(dispatches only, after uploading again 1 input\(s\) the program writes over\), 3 runs after 3 warm-up: "
# Without --benchmark the JSON holds the load figures alone.
"$cgc_run" "$work/model.mlir" --input "$work/input.npy" --benchmark-json "$work/load.json" \
  >"$work/load.txt"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["benchmark"] is None and r["device_bytes"] > 0, r' "$work/load.json"
if grep -q "^benchmark" "$work/load.txt"; then echo "FAIL: a benchmark without --benchmark" >&2; exit 1; fi

# Random inputs are reproducible for a seed.
"$cgc_run" "$work/model.mlir" --random-inputs --seed 3 --output-dir "$work/r1" >/dev/null
"$cgc_run" "$work/model.mlir" --random-inputs --seed 3 --output-dir "$work/r2" >/dev/null
cmp "$work/r1/output0.npy" "$work/r2/output0.npy"

# Errors.
expect_failure "no value for input0 \(float32 1x1x4x4\); pass --input input0=FILE.npy or --random-inputs" \
  "$work/model.mlir"
expect_failure "the model has no input 'x' \(inputs: input0 float32 1x1x4x4\)" \
  "$work/model.mlir" --input "x=$work/input.npy"
expect_failure "expected.npy: holds float32 1x1x8x8, but input0 is float32 1x1x4x4" \
  "$work/model.mlir" --input "$work/expected.npy"
expect_failure "device 'cuda:0': no such adapter" "$work/model.mlir" --device cuda:0 --random-inputs
expect_failure "model.mlir|File does not exist" "$work/missing.mlir"
expect_failure "--benchmark" "$work/model.mlir" --benchmark 0
expect_failure "--benchmark-json $work/no-such-dir/b.json: cannot open the file for writing" \
  "$work/model.mlir" --random-inputs --benchmark 1 --benchmark-json "$work/no-such-dir/b.json"
mkdir "$work/noweights" && cp "$work/model.mlir" "$work/noweights/"
expect_failure "noweights/model.safetensors.*No such file" "$work/noweights/model.mlir" --random-inputs
echo "cgc-run spec network: ok"
