#!/usr/bin/env bash
# The bench's models built for AArch64 (the Neoverse cores beside the MLIP)
# give the host build's bits: each model of bench/run.sh's list is compiled
# twice with --target c, once for the host and once cross-built for
# aarch64-linux-gnu -mcpu=neoverse-n2 with aarch64-linux-gnu-gcc, and both
# are run by `mlipc run` (the cross build under qemu-aarch64) on the same
# inputs (--fill-mode random: a fixed seed); the two output files must be
# equal byte for byte. Prints one line per model; exits 1 if any differs.
# The suite checks the same on every model of tests/data in its full mode
# (e2e QemuSweep aarch64_c with MLIPC_QEMU_SWEEP=full); this covers the
# 224x224 networks bench/make_models.py builds, which tests/data does not
# hold.
#
# usage: bench/aarch64_bits.sh
# environment: MLIPC (an mlipc binary instead of building one with
# scripts/setup.sh), BENCH_ONLY (an extended regular expression of whole
# model names), BENCH_NO_224=1 (only the five shared models).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "aarch64_bits: $tool missing (scripts/setup.sh installs it)" >&2; exit 2; }
done
if [ -z "${MLIPC:-}" ]; then
  ./scripts/setup.sh
  MLIPC="$PWD/${MLIPC_BUILD_DIR:-build}/bin/mlipc"
fi
PY=/usr/bin/python3
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export MLIPC_CACHE_DIR="${MLIPC_CACHE_DIR:-$WORK/cache}"

source bench/models.sh
MODELS=("${BENCH_SHARED[@]}")
if [ -z "${BENCH_NO_224:-}" ]; then
  bench_add_torch_models || echo "aarch64_bits: no python3-torch: only the five shared models" >&2
fi
if [ -n "${BENCH_ONLY:-}" ]; then
  kept=()
  for e in "${MODELS[@]}"; do [[ "${e%%:*}" =~ ^($BENCH_ONLY)$ ]] && kept+=("$e"); done
  MODELS=("${kept[@]}")
fi
((${#MODELS[@]})) || { echo "aarch64_bits: no model selected" >&2; exit 2; }

printf "%-22s %10s %12s  %s\n" model outputs "qemu run s" "AArch64 -mcpu=neoverse-n2 against the host"
status=0
same=0
for entry in "${MODELS[@]}"; do
  name="${entry%%:*}"; dir="${entry#*:}"
  "$MLIPC" compile "$dir/model.onnx" --target c -o "$WORK/$name.host.tar" > /dev/null
  "$MLIPC" compile "$dir/model.onnx" --target c -o "$WORK/$name.a64.tar" --target-llvm-mtriple=aarch64-linux-gnu \
    --target-llvm-mcpu=neoverse-n2 --cross-compiler aarch64-linux-gnu-gcc > /dev/null
  "$MLIPC" run "$WORK/$name.host.tar" --fill-mode random -o "$WORK/$name.host.npz" > /dev/null
  t0=$(date +%s.%N)
  "$MLIPC" run "$WORK/$name.a64.tar" --fill-mode random -o "$WORK/$name.a64.npz" > /dev/null
  t=$(echo "$(date +%s.%N) - $t0" | bc -l)
  bytes=$(stat -c %s "$WORK/$name.host.npz")
  if cmp -s "$WORK/$name.host.npz" "$WORK/$name.a64.npz"; then
    verdict="same bytes"; same=$((same + 1))
  else
    verdict="DIFFERENT"; status=1
  fi
  printf "%-22s %10s %12.1f  %s\n" "$name" "$bytes B" "$t" "$verdict"
done
echo "aarch64_bits: $same of ${#MODELS[@]} models give the host's bytes"
exit $status
