#!/usr/bin/env bash
# Builds a fresh seed corpus for the ONNX importer fuzzer, then runs the fuzzer on it.
#
# Usage: make-onnx-seed-corpus.sh <corpus-dir> <cgc-onnx-testgen> <onnx node test dir or ""> -- <fuzzer> [args]
#
# Seeds: every model of cgc-onnx-testgen (the lit tests' models, error cases included)
# and every 8th model of ONNX's node tests (a fixed subset across op types).
# The corpus is rebuilt on every run, so a run depends only on the sources and -seed.
set -euo pipefail

corpus=$1 testgen=$2 node_dir=$3
shift 3
[[ $# -gt 0 && $1 == -- ]] && shift
if [[ $# -eq 0 ]]; then
  echo "make-onnx-seed-corpus.sh: no fuzzer command after '--'" >&2
  exit 2
fi

rm -rf "$corpus" "$corpus.models"
mkdir -p "$corpus"
"$testgen" --all "$corpus.models"
generated=0
while IFS= read -r -d '' model; do
  generated=$((generated + 1))
  cp "$model" "$corpus/testgen-$(basename "$(dirname "$model")").onnx"
done < <(find "$corpus.models" -name model.onnx -print0 | sort -z)
rm -rf "$corpus.models"

node_seeds=0
if [[ -n $node_dir && -d $node_dir ]]; then
  index=0
  while IFS= read -r -d '' model; do
    if (( index % 8 == 0 )); then
      cp "$model" "$corpus/node-$(basename "$(dirname "$model")").onnx"
      node_seeds=$((node_seeds + 1))
    fi
    index=$((index + 1))
  done < <(find "$node_dir" -mindepth 2 -maxdepth 2 -name model.onnx -print0 | sort -z)
fi
echo "make-onnx-seed-corpus.sh: $generated generated and $node_seeds ONNX node test seeds"

exec bash "$(dirname "$0")/run-fuzzer.sh" "$corpus.log" "$corpus" "$@"
