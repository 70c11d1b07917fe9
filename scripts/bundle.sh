#!/usr/bin/env bash
# Builds OpenCGC with MLIR and LLVM linked statically and stages a self-contained
# bundle for a Linux machine that has no MLIR, LLVM, ONNX or protobuf installed
# (e.g. a GPU server):
#
#   bash scripts/bundle.sh DIR
#
# DIR/bin holds the tools, DIR/lib libcgc-api.so, the driver plugins in
# DIR/lib/cgc-drivers and the few shared libraries of Debian's that the tools
# need beyond glibc, libstdc++ and OpenSSL. Run the tools with
# LD_LIBRARY_PATH=DIR/lib.
set -euo pipefail
cd "$(dirname "$0")/.."

bundle=${1:?usage: bundle.sh DIR}
build_dir=build-static
if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -G Ninja -S . -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release -DCGC_LINK_MLIR_DYLIB=OFF -DCGC_ENABLE_FUZZERS=OFF \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld \
    -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
tools=(cgc-run cgc-compile cgc-import)
cmake --build "$build_dir" --parallel "$(nproc)" --target "${tools[@]}" cgc-api cgc-driver-cpu
# Parts built only where their dependencies exist (the CUDA driver and its
# tests need the CUDA toolkit), and the test programs worth running on the
# target machine: the device API conformance suite and the CUDA kernel tests.
# (The list is read whole first: `grep -q` on a pipe would end ninja early,
# which pipefail turns into a failure.)
all_targets=$(ninja -C "$build_dir" -t targets all 2>/dev/null)
has_target() { grep -q "^$1:" <<< "$all_targets"; }
optional=()
for target in cgc-driver-cuda CGCAPIConformanceTests CGCCUDAKernelTests cgc-onnx-conformance; do
  if has_target "$target"; then optional+=("$target"); fi
done
if ((${#optional[@]})); then
  cmake --build "$build_dir" --parallel "$(nproc)" --target "${optional[@]}"
fi

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib/cgc-drivers"
for tool in "${tools[@]}"; do
  install -m 755 -s "$build_dir/bin/$tool" "$bundle/bin/"
done
# libcgc-api.so under its SONAME (the name the tools ask for), and the link.
api_soname=$(readlink "$build_dir/lib/libcgc-api.so")
install -m 755 -s "$build_dir/lib/$api_soname" "$bundle/lib/"
ln -s "$api_soname" "$bundle/lib/libcgc-api.so"
install -m 755 -s "$build_dir"/lib/cgc-drivers/*.so "$bundle/lib/cgc-drivers/"
for target in "${optional[@]}"; do
  case $target in
    CGC*Tests) mkdir -p "$bundle/tests" && install -m 755 -s "$build_dir/unittests/$target" "$bundle/tests/" ;;
    cgc-onnx-conformance) install -m 755 -s "$build_dir/bin/$target" "$bundle/bin/" ;;
  esac
done

# Debian's shared libraries the tools load, except those every Linux has.
is_common() {
  case $(basename "$1") in
    libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | ld-linux* | libcrypto.so.* | libz.so.* | linux-vdso*) return 0 ;;
    # NVIDIA's libraries come with the GPU machine's CUDA installation.
    libcuda.so* | libcudart.so* | libcudnn*.so* | libcublas*.so* | libnvrtc*.so* | libnvJitLink*.so*) return 0 ;;
  esac
  return 1
}
for file in "$bundle"/bin/* "$bundle"/lib/*.so "$bundle"/lib/cgc-drivers/*.so "$bundle"/tests/*; do
  [[ -f $file ]] || continue
  ldd "$file" | awk '/=> \// {print $3}' | while read -r library; do
    [[ $library == "$PWD"/* ]] && continue
    is_common "$library" || cp -Ln "$library" "$bundle/lib/" 2>/dev/null || true
  done
done
du -sh "$bundle"
ls "$bundle/lib"
