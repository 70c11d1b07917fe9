#!/usr/bin/env bash
# Runs a libFuzzer command on a corpus with its output kept in a log file.
#
# Usage: run-fuzzer.sh <log-file> <corpus-dir> <fuzzer> [args]
#
# A passing run prints the fuzzer's final status line. A failing run prints,
# first (test logs are often read from their start): the fuzzer's report
# (the lines from the first "==" sanitizer line or "ERROR:" on, else the
# last 80 lines), then the input it names as the cause (crash-, leak-,
# timeout-, oom-, slow-unit-) in base64, so that it can be rebuilt and
# replayed:
#   base64 -d > input <<< '...'; <fuzzer> input
set -uo pipefail

log=$1 corpus=$2
shift 2
if [[ $# -eq 0 ]]; then
  echo "run-fuzzer.sh: no fuzzer command" >&2
  exit 2
fi

artifacts=$(mktemp -d)
"$@" -artifact_prefix="$artifacts/" "$corpus" > "$log" 2>&1
status=$?
if (( status == 0 )); then
  grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1
  echo "run-fuzzer.sh: passed; log in $log"
  rm -rf "$artifacts"
  exit 0
fi

echo "run-fuzzer.sh: the fuzzer failed (exit status $status); its report (full log in $log):"
report=$(grep -n -m 1 -E '^==[0-9]+==|^ERROR: |^INFO: a leak|^ALARM: ' "$log" | cut -d: -f1)
if [[ -n $report ]]; then
  tail -n +"$report" "$log" | grep -v -E '^#[0-9]+[[:space:]]' | head -n 200
else
  tail -n 80 "$log"
fi
# The input the fuzzer names ("Test unit written to ..."). Other files in
# the artifact folder come from sandboxed children that died on purpose
# (the container fuzzer's reader runs in one): only counted.
named=0
while IFS= read -r artifact; do
  [[ -f $artifact ]] || continue
  named=$((named + 1))
  echo "run-fuzzer.sh: artifact $(basename "$artifact") ($(stat -c %s "$artifact") bytes), base64:"
  base64 -w 0 "$artifact"
  echo
  cp "$artifact" "$(dirname "$log")/" 2>/dev/null || true
done < <(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$log")
others=$(find "$artifacts" -type f | wc -l)
echo "run-fuzzer.sh: $named input(s) named by the fuzzer; $((others - named)) other file(s) in its artifact folder"
rm -rf "$artifacts"
exit "$status"
