#!/usr/bin/env bash
# Installs what OpenCGC needs on Debian 12, builds it into ./build, then runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build ccache make pkgconf
  clang-22 lld-22 libclang-rt-22-dev
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libfmt-dev libssl-dev nlohmann-json3-dev libzstd-dev zlib1g-dev
  python3
)

install_packages() {
  local missing=()
  local package
  for package in "${packages[@]}"; do
    if [[ $(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null) != installed ]]; then
      missing+=("$package")
    fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup: all ${#packages[@]} packages already installed"
    return
  fi
  echo "setup: installing ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${packages[@]}"
}

# The main job on the embedded CPU default: a small ResNet-style ONNX model (made by
# the test generator, random weights) imported, compiled and run end to end by cgc-run
# on the CPU driver, with its outputs written as .npy and a short latency benchmark.
run_main_job() {
  local work=build/main-job
  rm -rf "$work"
  mkdir -p "$work"
  build/bin/cgc-onnx-testgen mini-resnet "$work/mini-resnet.onnx"
  build/bin/cgc-run "$work/mini-resnet.onnx" --device cpu --random-inputs --seed 0 \
    --output-dir "$work/out" --benchmark 20
}

install_packages
bash scripts/build.sh
run_main_job
