#!/usr/bin/env bash
# Benchmarks that print comparable figures, each measured in this run:
#   1. compile time and arena size against the liveness lower bound, per model
#      and memory planner (TVM v0.18's published hill-climb arena beside it);
#   2. latency of the generated C (host, -O3, one thread) against onnxruntime
#      (onnxruntime-node from npm, one thread) on the same model and input;
#   3. the MLIP target: estimated accelerator time (cycle model) and the
#      simulator's host throughput;
#   4. throughput of mlip/kmath.h's expf, tanhf, sigmoid and logf against the
#      host C library's (bench/kmath_bench.c).
# Optional peer: set BENCH_NO_ORT=1 to skip onnxruntime (no network needed).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# Debian's python3 with python3-numpy writes the random inputs.
PY=/usr/bin/python3
"$PY" -c "import numpy" 2>/dev/null || {
  echo "bench: installing python3-numpy (to write random inputs)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y -qq python3-numpy >/dev/null
}
BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
MLIPC="$PWD/$BUILD_DIR/bin/mlipc"
RUNS="${BENCH_RUNS:-200}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export MLIPC_CACHE_DIR="$WORK/cache"

ORT=""
if [ -z "${BENCH_NO_ORT:-}" ] && command -v node >/dev/null; then
  PEER="bench/.peer"
  if [ ! -d "$PEER/node_modules/onnxruntime-node" ]; then
    echo "bench: installing onnxruntime-node into $PEER (npm registry)"
    mkdir -p "$PEER" && (cd "$PEER" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node >/dev/null 2>&1) || true
  fi
  [ -d "$PEER/node_modules/onnxruntime-node" ] && ORT="$PWD/$PEER/node_modules/onnxruntime-node"
fi

declare -A TVM_HILL=( [seed_digits_cnn]=250880 [kws_dscnn]=112384 [vww_mobilenet_v1_025]=301120
                      [ic_resnet8]=205824 [ad_fc_autoencoder]=1184 )
MODELS=("seed_digits_cnn:examples/digits" "kws_dscnn:tests/data/models/mlperf_tiny_kws_dscnn"
        "vww_mobilenet_v1_025:tests/data/models/mlperf_tiny_vww_mobilenet_v1_025"
        "ic_resnet8:tests/data/models/mlperf_tiny_ic_resnet8"
        "ad_fc_autoencoder:tests/data/models/mlperf_tiny_ad_fc_autoencoder")


field() { sed -n "s/.*$1 *\([0-9,]*\) bytes.*/\1/p" | head -1 | tr -d ,; }

echo
echo "1. Compile time (best of 3) and arena (bytes) per memory planner; lower bound = most bytes live at once"
printf "%-22s %9s %12s %12s %12s %12s %12s %10s\n" model "compile s" "lower bound" greedy_size greedy_confl hill_climb linear "TVM hill*"
for entry in "${MODELS[@]}"; do
  name="${entry%%:*}"; dir="${entry#*:}"
  best=""
  for _ in 1 2 3; do  # best of three: the machine may be busy
    t0=$(date +%s.%N)
    "$MLIPC" compile "$dir/model.onnx" --target c -o "$WORK/$name.tar" > "$WORK/$name.compile"
    t1=$(date +%s.%N)
    t=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
  done
  lb=$(sed -n 's/.*lower bound \([0-9,]*\).*/\1/p' "$WORK/$name.compile" | tr -d ,)
  row=()
  for p in greedy_by_size greedy_by_conflicts hill_climb linear; do
    row+=("$("$MLIPC" compile "$dir/model.onnx" --target c --memory-planner $p -o "$WORK/p.tar" | field arena)")
  done
  printf "%-22s %9.2f %12s %12s %12s %12s %12s %10s\n" "$name" "$best" "$lb" "${row[@]}" "${TVM_HILL[$name]}"
done
echo "(* TVM v0.18 USMP hill_climb workspace bytes for these models, measured on a machine of this kind and recorded in docs/benchmarks.md; TVM is not re-run here)"

echo
echo "2. Latency of one inference, median of $RUNS runs, one thread (us)"
printf "%-22s %14s %14s %10s\n" model "mlipc C (host)" "onnxruntime" "C / ORT"
for entry in "${MODELS[@]}"; do
  name="${entry%%:*}"; dir="${entry#*:}"
  read -r iname dims < <("$MLIPC" inspect "$WORK/$name.tar" | sed -n 's/^  input  \([^ ]*\) float32 \[\(.*\)\]$/\1 \2/p' | head -1)
  "$PY" -c "
import numpy as np, sys
shape=[int(d) for d in '$dims'.split(',')]
x=np.random.default_rng(0).standard_normal(shape).astype(np.float32)
np.savez('$WORK/$name.npz', **{'$iname': x}); x.tofile('$WORK/$name.bin')"
  # --print-time (tvmc's): mean, median, max, min, std in ms of --repeat runs after a warm-up.
  c_us=$("$MLIPC" run "$WORK/$name.tar" --inputs "$WORK/$name.npz" --repeat "$RUNS" --print-time |
         awk '/^Execution time summary/{getline; getline; printf "%.1f", $2 * 1000}')
  if [ -n "$ORT" ]; then
    o_us=$(ORT_NODE="$ORT" node bench/ort_latency.js "$dir/model.onnx" "$WORK/$name.bin" "$dims" "$RUNS" |
           "$PY" -c "import json,sys; print('%.1f' % json.load(sys.stdin)['median_us'])")
    ratio=$(echo "$c_us / $o_us" | bc -l)
    printf "%-22s %14s %14s %10.2f\n" "$name" "$c_us" "$o_us" "$ratio"
  else
    printf "%-22s %14s %14s %10s\n" "$name" "$c_us" "(skipped)" "-"
  fi
done

echo
echo "3. MLIP target (cn10ka, fp16): estimated accelerator time from the cycle model, and simulator host time"
printf "%-22s %6s %12s %12s %14s %14s\n" model tiles "est. cycles" "est. us" "sim host us" "sim MMAC/s"
for entry in "${MODELS[@]}"; do
  name="${entry%%:*}"; dir="${entry#*:}"
  for tiles in 1 8; do
    "$MLIPC" compile "$dir/model.onnx" --target "mrvl, c" --target-mrvl-num_tiles=$tiles -o "$WORK/m.tar" > /dev/null
    out=$("$MLIPC" run "$WORK/m.tar" --inputs "$WORK/$name.npz" --profile --repeat 20 --print-time)
    cycles=$(echo "$out" | sed -n 's/^  total  *\([0-9,]*\) .*/\1/p' | tr -d ,)
    est_us=$(echo "$out" | sed -n 's/.*estimated MLIP time \([0-9.]*\) us.*/\1/p')
    host_us=$(echo "$out" | awk '/^Execution time summary/{getline; getline; printf "%.1f", $2 * 1000}')
    macs=$("$MLIPC" inspect "$WORK/m.tar" | awk '/^ +[0-9]+  (conv2d|fc) /{gsub(",","",$3); s+=$3} END{print s+0}')
    printf "%-22s %6s %12s %12s %14s %14.1f\n" "$name" "$tiles" "$cycles" "$est_us" "$host_us" "$(echo "$macs / $host_us" | bc -l)"
  done
done

echo
echo "4. Elementary functions: mlip/kmath.h (same bits on every target) against the host C library, ns per call (-O2)"
cc -O2 -std=c99 -Iinclude bench/kmath_bench.c -lm -o "$WORK/kmath_bench"
"$WORK/kmath_bench"
