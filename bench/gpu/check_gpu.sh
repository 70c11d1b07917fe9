#!/usr/bin/env bash
# Runs OpenCGC's GPU-side checks on a machine with an NVIDIA GPU, from a
# bundle made by scripts/bundle.sh on a machine with the CUDA toolkit:
#
#   bash bench/gpu/check_gpu.sh BUNDLE RESULTS [ONNX_TEST_DATA]
#
# 1. the device API conformance suite on the "cuda" driver;
# 2. the CUDA kernel tests (every implemented op against the CPU kernels);
# 3. compute-sanitizer memcheck over the conformance suite, when installed;
# 4. ONNX's backend tests on the CUDA device (ONNX_TEST_DATA: the data/
#    directory of libonnx-testdata), written as RESULTS/conformance-cuda.md.
# Each step's output goes to RESULTS/<step>.txt; the exit status is non-zero
# when a step fails.
set -uo pipefail
bundle=$(cd "${1:?usage: check_gpu.sh BUNDLE RESULTS [ONNX_TEST_DATA]}" && pwd)
results=${2:?usage: check_gpu.sh BUNDLE RESULTS [ONNX_TEST_DATA]}
data=${3:-}
mkdir -p "$results"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CGC_DRIVER_PATH="$bundle/lib/cgc-drivers"
status=0
step() {
  local name=$1
  shift
  echo "== $name: $*"
  if "$@" > "$results/$name.txt" 2>&1; then
    echo "   ok ($(tail -1 "$results/$name.txt"))"
  else
    echo "   FAILED (exit $?); last lines:"
    tail -15 "$results/$name.txt" | sed 's/^/   | /'
    status=1
  fi
}

nvidia-smi -L > "$results/gpu.txt" 2>&1 || true
cat "$results/gpu.txt"
if [[ -x $bundle/tests/CGCAPIConformanceTests ]]; then
  step api-conformance "$bundle/tests/CGCAPIConformanceTests" --gtest_filter='*/cuda*'
fi
if [[ -x $bundle/tests/CGCCUDAKernelTests ]]; then
  step cuda-kernels "$bundle/tests/CGCCUDAKernelTests"
fi
if command -v compute-sanitizer > /dev/null && [[ -x $bundle/tests/CGCAPIConformanceTests ]]; then
  step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$bundle/tests/CGCAPIConformanceTests" --gtest_filter='*/cuda*'
fi
if [[ -n $data && -x $bundle/bin/cgc-onnx-conformance ]]; then
  step onnx-conformance-cuda "$bundle/bin/cgc-onnx-conformance" --device cuda --data "$data" \
    --jobs 4 --markdown "$results/conformance-cuda.md" --json "$results/conformance-cuda.json"
fi
exit $status
