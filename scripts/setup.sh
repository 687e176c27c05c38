#!/usr/bin/env bash
# Installs the Debian packages mlipc needs (only the missing ones, so it is
# cheap to run again) and builds everything into build/.
#
# The packages come in two sets: what the build itself reads (compilers,
# libraries, headers, the ONNX test data whose cases the conformance
# programs list when they are built), installed first; and what only the
# tests and the sanitizer step run (cross and bare-metal toolchains, QEMU,
# clang's sanitizer runtimes, MPI, Chromium, pytest), which apt installs
# in the background while the build runs: the download and unpacking wait
# on the network and the disk, the build on the two cores. The script
# returns when both are done; a failed install fails it, with apt's log
# ($BUILD_DIR/setup-apt-tests.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_PACKAGES=(
  build-essential cmake pkg-config ninja-build binutils
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libarchive-dev libdlpack-dev libfp16-dev
  libcli11-dev libfmt-dev libkainjow-mustache-dev zlib1g-dev libzip-dev libssl-dev
  libgtest-dev libcmocka-dev
  # mlipc-serve-aarch64 (serve/): the AArch64 cross compiler
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  # rebuilds of a fresh clone come from the compiler cache
  ccache
  # mlipc report: Graphviz's layout library
  libgraphviz-dev
  # the Python module mlipc (python/, docs/python.md)
  pybind11-dev python3-dev python3-numpy
)
TEST_PACKAGES=(
  # runtime.kmath_xplat: the same bits on AArch64 and Cortex-M, with gcc and clang
  clang qemu-user gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  # the sanitizer and fuzz step (scripts/sanitize.sh): clang, its sanitizer
  # runtimes, libFuzzer, llvm-symbolizer for readable reports, lld (its links)
  clang-14 libclang-rt-14-dev libfuzzer-14-dev llvm-14 lld-14
  # the mesh pipeline's MPI transport (docs/mesh.md): mpicc and mpirun
  openmpi-bin libopenmpi-dev
  # the report's pages open in headless Chromium in a test
  chromium
  # the Python module's tests
  python3-pytest python3-onnx
)

missing_of() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
apt_install() {
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
mapfile -t missing_build < <(missing_of "${BUILD_PACKAGES[@]}")
mapfile -t missing_test < <(missing_of "${TEST_PACKAGES[@]}")
if ((${#missing_build[@]} + ${#missing_test[@]})); then $SUDO apt-get update -qq; fi
if ((${#missing_build[@]})); then
  echo "setup: installing ${missing_build[*]}"
  apt_install "${missing_build[@]}" >/dev/null
fi
mkdir -p "$BUILD_DIR"
apt_log="$BUILD_DIR/setup-apt-tests.txt"
installer=
if ((${#missing_test[@]})); then
  echo "setup: installing ${missing_test[*]} (beside the build)"
  apt_install "${missing_test[@]}" >"$apt_log" 2>&1 &
  installer=$!
fi

# Builds go through ccache (scripts/ccache-env.sh: shared by every clone).
source scripts/ccache-env.sh
source scripts/generator-env.sh
generator_for "$BUILD_DIR"
build_status=0
{ cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null &&
  quiet_build "$BUILD_DIR"; } || build_status=$?
if [ -n "$installer" ] && ! wait "$installer"; then
  echo "setup: installing the test packages failed ($apt_log):" >&2
  tail -n 20 "$apt_log" >&2
  exit 1
fi
exit "$build_status"
