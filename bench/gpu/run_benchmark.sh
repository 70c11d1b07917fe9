#!/usr/bin/env bash
# Runs the OpenCGC-vs-PyTorch GPU benchmark (bench/gpu/benchmark.py) from a
# bundle made by scripts/bundle.sh, one process per model and batch, all
# merged into one JSON and its markdown report in OUT:
#
#   bash bench/gpu/run_benchmark.sh BUNDLE OUT [MODELS] [BATCHES] [-- BENCHMARK_OPTIONS...]
#
# MODELS: comma-separated (default resnet50,mobilenet_v2,vit_b_16,bert_base);
# BATCHES: comma-separated (default 1,32; by default ResNet-50 also runs at
# batch 256, the large-batch throughput point). Options after `--` go to every
# benchmark.py call (e.g. --runs 200, --skip-compile, --only opencgc). The
# results file is OUT/<date>-<gpu>.json; the date is taken once, so that a run
# past midnight still merges into one file. A point that fails is recorded
# with its error and the others still run; the exit status is non-zero when
# a benchmark.py process failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: run_benchmark.sh BUNDLE OUT [MODELS] [BATCHES] [-- BENCHMARK_OPTIONS...]"
bundle=$(cd "${1:?$usage}" && pwd) || exit 1
out=${2:?$usage}
shift 2
models=resnet50,mobilenet_v2,vit_b_16,bert_base
batches=1,32
throughput_batch=256
if [[ $# -gt 0 && $1 != -- ]]; then models=$1; shift; fi
if [[ $# -gt 0 && $1 != -- ]]; then batches=$1; throughput_batch=; shift; fi
if [[ $# -gt 0 && $1 == -- ]]; then shift; fi
mkdir -p "$out"
date=$(date +%F)

nvidia-smi -L || true
status=0
for model in ${models//,/ }; do
  model_batches=$batches
  [[ $model == resnet50 && -n $throughput_batch ]] && model_batches+=",$throughput_batch"
  for batch in ${model_batches//,/ }; do
    echo "== $model batch $batch"
    python3 "$here/benchmark.py" --bundle "$bundle" --out "$out" --date "$date" --merge \
      --models "$model" --batches "$batch" "$@" || status=1
  done
done
# The report once more, from everything the JSON holds.
python3 "$here/benchmark.py" --report-only --out "$out" --date "$date" "$@" > /dev/null || status=1
for report in "$out/$date"-*.md; do
  [[ -f $report ]] && cat "$report"
done
exit $status
