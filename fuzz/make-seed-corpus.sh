#!/usr/bin/env bash
# Builds a fresh seed corpus for the container fuzzer, then runs the fuzzer on it.
#
# Usage: make-seed-corpus.sh <corpus-dir> <seed-tool> <cgc-opt or ""> <ir-dir>... -- <fuzzer> [args]
#
# Seeds: the synthetic containers of <seed-tool> (every interface around small payloads),
# then every .mlir file under the <ir-dir>s (the lit suites: this is where new test files
# become seeds without further wiring) that cgc-opt seals as some interface.
# The corpus is rebuilt on every run, so a run depends only on the sources and -seed.
set -euo pipefail

corpus=$1 seed_tool=$2 cgc_opt=$3
shift 3
ir_dirs=()
while [[ $# -gt 0 && $1 != -- ]]; do
  ir_dirs+=("$1")
  shift
done
[[ $# -gt 0 ]] && shift # the '--'
if [[ $# -eq 0 ]]; then
  echo "make-seed-corpus.sh: no fuzzer command after '--'" >&2
  exit 2
fi

rm -rf "$corpus"
mkdir -p "$corpus"
"$seed_tool" "$corpus"

interfaces=(input output partition declaration-request declaration specialization-request
            specialization)
ir_seeds=0 ir_files=0
if [[ -n $cgc_opt && -x $cgc_opt && ${#ir_dirs[@]} -gt 0 ]]; then
  while IFS= read -r -d '' file; do
    ir_files=$((ir_files + 1))
    # Files with several cases (split-input-file) or invalid IR seal as nothing; skip them.
    for interface in "${interfaces[@]}"; do
      seed="$corpus/ir-$ir_files-$(basename "$file" .mlir)-$interface"
      if "$cgc_opt" "$file" --emit-container="$interface" -o "$seed" >/dev/null 2>&1; then
        ir_seeds=$((ir_seeds + 1))
        break
      fi
      rm -f "$seed"
    done
  done < <(find "${ir_dirs[@]}" -name '*.mlir' -print0 2>/dev/null | sort -z)
  echo "make-seed-corpus.sh: $ir_seeds of $ir_files .mlir files sealed into seeds by cgc-opt"
else
  echo "make-seed-corpus.sh: no cgc-opt given; synthetic seeds only"
fi

exec bash "$(dirname "$0")/run-fuzzer.sh" "$corpus.log" "$corpus" "$@"
