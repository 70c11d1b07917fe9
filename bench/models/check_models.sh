#!/usr/bin/env bash
# Exports the reference models (ResNet-50, MobileNetV2, ViT-B/16, BERT-base at
# sequence 128; random weights, fixed seed) with PyTorch, compiles each with
# cgc-compile (its report: subgraphs, partitions, memory plan, barriers), runs
# it through cgc-run on the CPU driver, compares with PyTorch's outputs, and
# compares the compiler's outputs with the baseline pipeline's.
#
#   bash bench/models/check_models.sh BUNDLE RESULTS [MODELS] [DEVICE]
#
# BUNDLE is a directory made by scripts/bundle.sh (the tools and their
# libraries); RESULTS receives results.jsonl (one compare_outputs.py line per
# model, then one "vs baseline" line) and each model's cgc-compile report
# and cgc-run summaries. Needs python3 with torch,
# torchvision, transformers and numpy; no network.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "${1:?usage: check_models.sh BUNDLE RESULTS [MODELS] [DEVICE]}" && pwd)
results=${2:?usage: check_models.sh BUNDLE RESULTS [MODELS] [DEVICE]}
models=${3:-resnet50,mobilenet_v2,vit_b_16,bert_base}
device=${4:-cpu}
mkdir -p "$results"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

python3 "$here/export_models.py" --out "$work/models" --models "$models" | tee "$results/export.txt"
status=0
for model in ${models//,/ }; do
  directory="$work/models/$model"
  inputs=()
  while IFS='=' read -r name file; do
    inputs+=(--input "$name=$directory/$file")
  done < "$directory/inputs.txt"
  if ! "$bundle/bin/cgc-run" "$directory/model.onnx" "${inputs[@]}" --device "$device" \
      --output-dir "$work/out/$model" --benchmark 20 > "$results/$model.txt" 2>&1; then
    echo "{\"model\": \"$model\", \"pass\": false, \"error\": \"cgc-run failed: $(tail -1 "$results/$model.txt" | tr '"' "'")\"}" \
      >> "$results/results.jsonl"
    status=1
    continue
  fi
  python3 "$here/compare_outputs.py" "$directory" "$work/out/$model" --name "$model" \
    >> "$results/results.jsonl" || status=1
  # The compiler's report, and for comparison the same model with more
  # concurrency (no reuse across independent invocations).
  "$bundle/bin/cgc-compile" "$directory/model.onnx" -o "$work/$model.cgc" --report --device "$device" \
    > "$results/$model.compile.txt" 2>&1 || status=1
  "$bundle/bin/cgc-compile" "$directory/model.onnx" -o "$work/$model.concurrent.cgc" --report --device "$device" \
    --concurrency > "$results/$model.compile-concurrency.txt" 2>&1 || status=1
  # The reference: the baseline pipeline's outputs must equal the compiler's.
  if "$bundle/bin/cgc-run" "$directory/model.onnx" "${inputs[@]}" --compiler baseline --device "$device" \
      --output-dir "$work/baseline/$model" --benchmark 20 > "$results/$model.baseline.txt" 2>&1; then
    python3 - "$work/baseline/$model" "$work/out/$model" "$model" >> "$results/results.jsonl" <<'PY' || status=1
import glob, json, os, sys
import numpy as np
baseline, compiled, name = sys.argv[1:]
worst = 0.0
for path in sorted(glob.glob(os.path.join(baseline, "*.npy"))):
    b = np.load(path).astype(np.float64)
    c = np.load(os.path.join(compiled, os.path.basename(path))).astype(np.float64)
    worst = max(worst, float(np.max(np.abs(b - c)) / max(float(np.max(np.abs(b))), 1e-30)))
print(json.dumps({"model": name, "vs": "baseline", "relative_error": worst, "pass": worst <= 1e-5}))
sys.exit(0 if worst <= 1e-5 else 1)
PY
  else
    echo "{\"model\": \"$model\", \"vs\": \"baseline\", \"pass\": false}" >> "$results/results.jsonl"
    status=1
  fi
done
for model in ${models//,/ }; do
  echo "== $model"; cat "$results/$model.compile.txt"
done
cat "$results/results.jsonl"
exit $status
