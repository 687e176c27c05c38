#!/usr/bin/env bash
# Installs the Debian packages mlipc needs (only the missing ones, so it is
# cheap to run again) and builds everything into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config ninja-build
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libarchive-dev libdlpack-dev libfp16-dev
  libcli11-dev libfmt-dev libkainjow-mustache-dev zlib1g-dev libzip-dev libssl-dev
  libgtest-dev libcmocka-dev binutils
  # runtime.kmath_xplat: the same bits on AArch64 and Cortex-M, with gcc and clang
  clang gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  # the sanitizer and fuzz step (scripts/sanitize.sh): clang, its sanitizer
  # runtimes, libFuzzer, llvm-symbolizer for readable reports, lld (its links)
  clang-14 libclang-rt-14-dev libfuzzer-14-dev llvm-14 lld-14
  # rebuilds of a fresh clone come from the compiler cache
  ccache
  # the mesh pipeline's MPI transport (docs/mesh.md): mpicc and mpirun
  openmpi-bin libopenmpi-dev
  # mlipc report: Graphviz's layout library; its pages open in headless Chromium in a test
  libgraphviz-dev chromium
  # the Python module mlipc (python/, docs/python.md) and its tests
  pybind11-dev python3-dev python3-numpy python3-pytest python3-onnx
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
# Builds go through ccache (scripts/ccache-env.sh: shared by every clone).
source scripts/ccache-env.sh
source scripts/generator-env.sh
generator_for "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
quiet_build "$BUILD_DIR"
