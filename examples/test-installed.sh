#!/usr/bin/env bash
# What a user of an installed OpenCGC does: install the build into a fresh
# prefix, check what went where, build examples/ against the prefix once
# through the CMake package (find_package(OpenCGC)) and once with pkg-config
# (c-api/Makefile), and run the examples on the CPU device. Nothing may come
# from the build tree: no LD_LIBRARY_PATH, no CGC_DRIVER_PATH, and no RPATH
# into the build directory.
#
#   test-installed.sh BUILD_DIR WORK_DIR C_COMPILER CXX_COMPILER
set -euo pipefail
build=$(cd "$1" && pwd -P) work=$2 cc=$3 cxx=$4
examples=$(cd "$(dirname "$0")" && pwd)
unset LD_LIBRARY_PATH CGC_DRIVER_PATH
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd -P)
prefix=$work/prefix

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cmake --install "$build" --prefix "$prefix" >"$work/install.log"

# The layout: tools, headers, the device API with its SONAME, the CPU driver
# plugin where the API looks for it, the CMake package and pkg-config file.
api_soname=$(objdump -p "$prefix/lib/libcgc-api.so" | awk '$1 == "SONAME" {print $2}')
[[ $api_soname == libcgc-api.so.* ]] || fail "libcgc-api.so has no versioned SONAME ('$api_soname')"
for file in bin/cgc-opt bin/cgc-import bin/cgc-compile bin/cgc-run \
  include/cgc/api.h include/cgc/ddi.h include/cgc/interfaces.h \
  "lib/$api_soname" lib/cgc-drivers/libcgc-driver-cpu.so \
  lib/cmake/OpenCGC/OpenCGCConfig.cmake lib/cmake/OpenCGC/OpenCGCConfigVersion.cmake \
  lib/cmake/OpenCGC/OpenCGCTargets.cmake lib/pkgconfig/opencgc.pc; do
  [[ -e $prefix/$file ]] || fail "$prefix/$file was not installed"
done
# Tests, fuzzers and test drivers stay in the build tree.
if find "$prefix" -name '*Tests' -o -name '*fuzz*' -o -name 'libcgc-driver-mock*' | grep -q .; then
  fail "test binaries were installed: $(find "$prefix" -name '*Tests' -o -name '*fuzz*')"
fi
# No installed binary or library looks into the build tree.
while read -r elf; do
  if objdump -p "$elf" | grep -E '^ *(RPATH|RUNPATH)' | grep -qF "$build"; then
    fail "$elf has an RPATH into the build tree: $(objdump -p "$elf" | grep -E 'RPATH|RUNPATH')"
  fi
done < <(find "$prefix/bin" "$prefix/lib" -type f \( -perm -u+x -o -name '*.so*' \))
# The installed tools run as they are.
"$prefix/bin/cgc-opt" --version >/dev/null || fail "the installed cgc-opt does not run"
"$prefix/bin/cgc-run" --help >/dev/null || fail "the installed cgc-run does not run"

# Prints the file an executable loads for library NAME (libcgc-api.so...).
resolved() {
  local path
  path=$(ldd "$1" | awk -v name="$2" 'index($1, name) == 1 {print $3}')
  [[ -n $path ]] && readlink -f "$path"
}

# 1. The CMake package.
cmake -S "$examples" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" \
  >"$work/cmake-configure.log" || { cat "$work/cmake-configure.log" >&2; fail "configuring examples/"; }
grep -q "OpenCGC_DIR:PATH=$prefix/lib/cmake/OpenCGC" "$work/cmake/CMakeCache.txt" ||
  fail "find_package(OpenCGC) did not find the package in $prefix"
cmake --build "$work/cmake" >"$work/cmake-build.log" 2>&1 ||
  { cat "$work/cmake-build.log" >&2; fail "building examples/ with find_package(OpenCGC)"; }
for program in run_program run_model; do
  [[ -x $work/cmake/$program ]] || fail "examples/ built no $program"
done
[[ $(resolved "$work/cmake/run_program" libcgc-api.so) == "$prefix/lib/"* ]] ||
  fail "run_program does not load the installed libcgc-api: $(ldd "$work/cmake/run_program")"
[[ $(resolved "$work/cmake/run_model" libcgc-runtime.so) == "$prefix/lib/"* ]] ||
  fail "run_model does not load the installed libcgc-runtime: $(ldd "$work/cmake/run_model")"
ctest --test-dir "$work/cmake" --output-on-failure >"$work/cmake-test.log" 2>&1 ||
  { cat "$work/cmake-test.log" >&2; fail "the examples built with find_package(OpenCGC)"; }
grep -q "100% tests passed, 0 tests failed out of 2" "$work/cmake-test.log" ||
  { cat "$work/cmake-test.log" >&2; fail "expected 2 examples to pass"; }

# 2. pkg-config, through the example's Makefile.
mkdir "$work/pkgconfig"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -C "$work/pkgconfig" -f "$examples/c-api/Makefile" \
  CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$work/make.log" 2>&1 ||
  { cat "$work/make.log" >&2; fail "building c-api/ with pkg-config"; }
[[ $(resolved "$work/pkgconfig/run_program" libcgc-api.so) == "$prefix/lib/"* ]] ||
  fail "run_program (pkg-config) does not load the installed libcgc-api"
# (LD_DEBUG=files also says which driver plugin the installed API loaded.)
(cd "$work/pkgconfig" && LD_DEBUG=files ./run_program dense.cgc) >"$work/pkgconfig/run.log" 2>&1 ||
  { cat "$work/pkgconfig/run.log" >&2; fail "run_program built with pkg-config"; }
grep -q "file=$prefix/lib/cgc-drivers/libcgc-driver-cpu.so .*dynamically loaded by $prefix/lib/libcgc-api" \
  "$work/pkgconfig/run.log" || fail "the installed libcgc-api did not load the installed CPU driver"
grep -q "^adapter .*(driver 'cpu')$" "$work/pkgconfig/run.log" ||
  fail "run_program did not use the CPU driver: $(cat "$work/pkgconfig/run.log")"
grep -q "^run_program: ok$" "$work/pkgconfig/run.log" || fail "run_program did not say ok"

# 3. A failure is reported with the API's message, naming the call.
if "$work/cmake/run_program" "$examples/c-api/dense.mlir" >"$work/bad.log" 2>&1; then
  fail "run_program accepted MLIR text as a container"
fi
grep -q "cgcCreateStateObject(.*) failed with CGC_ERROR_INVALID_ARGUMENT: " "$work/bad.log" ||
  fail "run_program's error does not name the call and status: $(cat "$work/bad.log")"
echo "installed OpenCGC: examples built with find_package and pkg-config pass"
