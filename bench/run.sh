#!/usr/bin/env bash
# Benchmarks that print comparable figures, each measured in this run, and
# write them as JSON (docs/benchmarks.md):
#   1. compile time, and the arena: before reuse (every tensor in a buffer of
#      its own, no fused epilogues: --arena-reuse off), after, the liveness
#      lower bound, per memory planner, with TVM v0.18's hill-climb arena;
#   2. latency of the generated C (host, -O3 -march=native, one thread)
#      against onnxruntime (onnxruntime-node from npm, one thread) on the same
#      model and input, the two alternated in rounds;
#   3. the MLIP target, fp16 and int8: estimated accelerator time (cycle
#      model) and the simulator's host throughput;
#   4. throughput of mlip/kmath.h's expf, tanhf, sigmoid and logf, and of
#      mlip/kmath_f.h's exp_f, erf_f, sigmoid_f and tanh_f, against the host
#      C library's (bench/kmath_bench.c).
# The models: the five shared ones (tests/data, examples) and, in the full
# mode, four 224x224 networks made by bench/make_models.py from torchvision's
# definitions and eight models of the families the CNNs leave out (an LSTM
# autoencoder, a bidirectional 2-layer GRU classifier, a CRNN with a
# bidirectional LSTM, a ConvTranspose decoder, a ViT-tiny, a keyword-spotting
# transformer, a ConvNeXt stage, a MobileViT block), all with random weights
# (Debian's python3-torch and python3-torchvision; kept in bench/.models,
# not checked in).
#
# usage: bench/run.sh [--short] [--json FILE]
#   --short      one repetition of everything on the digits CNN only, no
#                onnxruntime, no 224x224 networks, one tile count: that the
#                script still runs (ctest bench.short), not figures to quote
#   --json FILE  where the JSON goes (default bench/results.json)
# environment: BENCH_RUNS (repetitions, default 200), BENCH_NO_ORT=1 (skip the
# peer), BENCH_NO_224=1 (skip the torch-built models), BENCH_ONLY (an
# extended regular expression: only the models whose name it matches, and
# no MLIP step when it matches none of the shared ones), MLIPC (an mlipc binary to
# use instead of building one with scripts/setup.sh), MLIPC_CACHE_DIR (where
# mlipc run keeps its builds; default a fresh temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
SHORT=0
JSON=bench/results.json
while [ $# -gt 0 ]; do
  case "$1" in
    --short) SHORT=1 ;;
    --json) JSON=$2; shift ;;
    *) echo "usage: bench/run.sh [--short] [--json FILE]" >&2; exit 2 ;;
  esac
  shift
done

if [ -z "${MLIPC:-}" ]; then
  ./scripts/setup.sh
  MLIPC="$PWD/${MLIPC_BUILD_DIR:-build}/bin/mlipc"
fi
# Debian's python3 with python3-numpy writes the random inputs.
PY=/usr/bin/python3
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
"$PY" -c "import numpy" 2>/dev/null || {
  echo "bench: installing python3-numpy (to write random inputs)"
  $SUDO apt-get install -y -qq python3-numpy >/dev/null
}
RUNS="${BENCH_RUNS:-200}"
SIM_RUNS=20
TILE_COUNTS="1 8"
COMPILES=3
if [ "$SHORT" = 1 ]; then RUNS=1; SIM_RUNS=1; TILE_COUNTS="8"; COMPILES=1; fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export MLIPC_CACHE_DIR="${MLIPC_CACHE_DIR:-$WORK/cache}"
ROWS="$WORK/rows.tsv"  # one figure per line, turned into JSON at the end
: > "$ROWS"

ORT=""
if [ "$SHORT" = 0 ] && [ -z "${BENCH_NO_ORT:-}" ] && command -v node >/dev/null; then
  PEER="bench/.peer"
  if [ ! -d "$PEER/node_modules/onnxruntime-node" ]; then
    echo "bench: installing onnxruntime-node into $PEER (npm registry)"
    mkdir -p "$PEER" && (cd "$PEER" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node >/dev/null 2>&1) || true
  fi
  [ -d "$PEER/node_modules/onnxruntime-node" ] && ORT="$PWD/$PEER/node_modules/onnxruntime-node"
fi

declare -A TVM_HILL=( [seed_digits_cnn]=250880 [kws_dscnn]=112384 [vww_mobilenet_v1_025]=301120
                      [ic_resnet8]=205824 [ad_fc_autoencoder]=1184 )
source bench/models.sh
SHARED=("${BENCH_SHARED[@]}")
# The short mode runs every step on the first model only: the steps are
# the same code for each model.
if [ "$SHORT" = 1 ]; then SHARED=("${SHARED[0]}"); fi
MODELS=("${SHARED[@]}")
if [ "$SHORT" = 0 ] && [ -z "${BENCH_NO_224:-}" ]; then
  "$PY" -c "import torch, torchvision" 2>/dev/null || {
    echo "bench: installing python3-torch and python3-torchvision (the 224x224 networks' definitions)"
    $SUDO apt-get install -y -qq python3-torch python3-torchvision >/dev/null || true
  }
  bench_add_torch_models || echo "bench: no python3-torch: the 224x224 networks are skipped"
fi

if [ -n "${BENCH_ONLY:-}" ]; then
  only() { local out=() e; for e in "$@"; do [[ "${e%%:*}" =~ ^($BENCH_ONLY)$ ]] && out+=("$e"); done; echo "${out[@]}"; }
  read -r -a MODELS <<< "$(only "${MODELS[@]}")"
  read -r -a SHARED <<< "$(only "${SHARED[@]}")"
fi

field() { sed -n "s/.*$1 *\([0-9,]*\) bytes.*/\1/p" | head -1 | tr -d ,; }
now() { date +%s.%N; }

echo
echo "1. Compile time (best of $COMPILES) and arena (bytes): before reuse (own buffers, no fused epilogues), after, and the"
echo "   liveness lower bound after; the arena of each memory planner (* TVM v0.18 USMP hill_climb, not re-run here)"
printf "%-22s %9s %12s %12s %12s %12s %12s %12s %12s %10s\n" model "compile s" "before" "after" "lower bound" \
       greedy_size greedy_confl hill_climb linear "TVM hill*"
for entry in "${MODELS[@]}"; do
  name="${entry%%:*}"; dir="${entry#*:}"
  best=""
  for _ in $(seq "$COMPILES"); do  # the best: the machine may be busy
    t0=$(now)
    "$MLIPC" compile "$dir/model.onnx" --target c -o "$WORK/$name.tar" > "$WORK/$name.compile"
    t=$(echo "$(now) - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
  done
  lb=$(sed -n 's/.*lower bound \([0-9,]*\).*/\1/p' "$WORK/$name.compile" | tr -d ,)
  after=$(field arena < "$WORK/$name.compile")
  before=$("$MLIPC" compile "$dir/model.onnx" --target c --arena-reuse off -o "$WORK/p.tar" | field arena)
  row=()
  for p in greedy_by_size greedy_by_conflicts hill_climb linear; do
    a=$("$MLIPC" compile "$dir/model.onnx" --target c --memory-planner $p -o "$WORK/p.tar" | field arena)
    row+=("$a")
    printf "planner\t%s\t%s\t%s\n" "$name" "$p" "$a" >> "$ROWS"
  done
  tvm="${TVM_HILL[$name]:-}"
  printf "%-22s %9.2f %12s %12s %12s %12s %12s %12s %12s %10s\n" "$name" "$best" "$before" "$after" "$lb" "${row[@]}" "${tvm:--}"
  printf "compile\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$best" "$before" "$after" "$lb" "${tvm:-0}" >> "$ROWS"
done

echo
# C and onnxruntime alternate in ROUNDS rounds of RUNS / ROUNDS runs each, so
# that a change in the machine's speed during the step (another VM on the
# host, a frequency step: the same binary's median moved by a third from one
# run of this script to the next) weighs on both alike. Each side's figure is
# the median of its round medians; C / ORT the median of the rounds' ratios.
ROUNDS=$(( RUNS >= 5 * 5 ? 5 : 1 ))
PER_ROUND=$(( RUNS / ROUNDS ))
echo "2. Latency of one inference, $ROUNDS rounds of $PER_ROUND runs, C and onnxruntime alternated, one thread (us)"
printf "%-22s %14s %14s %10s\n" model "mlipc C (host)" "onnxruntime" "C / ORT"
# The median of the numbers on standard input.
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) printf "%.6g", v[(NR + 1) / 2]; else printf "%.6g", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for entry in "${MODELS[@]}"; do
  name="${entry%%:*}"; dir="${entry#*:}"
  read -r iname dims < <("$MLIPC" inspect "$WORK/$name.tar" | sed -n 's/^  input  \([^ ]*\) float32 \[\(.*\)\]$/\1 \2/p' | head -1)
  "$PY" -c "
import numpy as np
shape=[int(d) for d in '$dims'.split(',')]
x=np.random.default_rng(0).standard_normal(shape).astype(np.float32)
np.savez('$WORK/$name.npz', **{'$iname': x}); x.tofile('$WORK/$name.bin')"
  c_rounds=() o_rounds=() ratios=()
  for ((r = 0; r < ROUNDS; ++r)); do
    # --print-time (tvmc's): mean, median, max, min, std in ms of --repeat runs after a warm-up.
    c_r=$("$MLIPC" run "$WORK/$name.tar" --inputs "$WORK/$name.npz" --repeat "$PER_ROUND" --print-time |
          awk '/^Execution time summary/{getline; getline; printf "%.1f", $2 * 1000}')
    c_rounds+=("$c_r")
    if [ -n "$ORT" ]; then
      o_r=$(ORT_NODE="$ORT" node bench/ort_latency.js "$dir/model.onnx" "$WORK/$name.bin" "$dims" "$PER_ROUND" |
            "$PY" -c "import json,sys; print('%.1f' % json.load(sys.stdin)['median_us'])")
      o_rounds+=("$o_r")
      ratios+=("$(echo "$c_r / $o_r" | bc -l)")
    fi
  done
  c_us=$(printf '%s\n' "${c_rounds[@]}" | median)
  if [ -n "$ORT" ]; then
    o_us=$(printf '%s\n' "${o_rounds[@]}" | median)
    ratio=$(printf '%s\n' "${ratios[@]}" | median)
    printf "%-22s %14s %14s %10.2f\n" "$name" "$c_us" "$o_us" "$ratio"
  else
    o_us=0
    printf "%-22s %14s %14s %10s\n" "$name" "$c_us" "(skipped)" "-"
  fi
  printf "latency\t%s\t%s\t%s\t%s\n" "$name" "$c_us" "$o_us" "${ratio:-0}" >> "$ROWS"
done

echo
echo "3. MLIP target (cn10ka): estimated accelerator time from the cycle model, and simulator host time"
echo "   fp16: the fp32 models with -quantize=fp16; int8: their QDQ versions (tests/data) with -quantize=int8"
printf "%-22s %5s %6s %12s %12s %14s %14s\n" model dtype tiles "est. cycles" "est. us" "sim host us" "sim MMAC/s"
# One row: model name, dtype, tiles, the ONNX file, the run's input flags.
mlip_row() {
  local name=$1 dtype=$2 tiles=$3 onnx=$4; shift 4
  "$MLIPC" compile "$onnx" --target "mrvl, c" --target-mrvl-num_tiles=$tiles \
    --target-mrvl-mattr="sim -quantize=$dtype" -o "$WORK/m.tar" > /dev/null
  local out cycles est_us host_us macs mmacs
  out=$("$MLIPC" run "$WORK/m.tar" "$@" --profile --repeat "$SIM_RUNS" --print-time)
  cycles=$(echo "$out" | sed -n 's/^  total  *\([0-9,]*\) .*/\1/p' | tr -d ,)
  est_us=$(echo "$out" | sed -n 's/.*estimated MLIP time \([0-9.]*\) us.*/\1/p')
  host_us=$(echo "$out" | awk '/^Execution time summary/{getline; getline; printf "%.1f", $2 * 1000}')
  macs=$("$MLIPC" inspect "$WORK/m.tar" | awk '/^ +[0-9]+  (conv2d|fc) /{gsub(",","",$3); s+=$3} END{print s+0}')
  mmacs=$(echo "$macs / $host_us" | bc -l)
  printf "%-22s %5s %6s %12s %12s %14s %14.1f\n" "$name" "$dtype" "$tiles" "$cycles" "$est_us" "$host_us" "$mmacs"
  printf "mlip\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$tiles" "$cycles" "$est_us" "$host_us" "$mmacs" "$dtype" >> "$ROWS"
}
for entry in "${SHARED[@]}"; do
  name="${entry%%:*}"; dir="${entry#*:}"
  # the QDQ version tests/tools made of it (the same input names)
  qdir="tests/data/models/quant_qdq_$(basename "$dir")"
  [ "$dir" = examples/digits ] && qdir=tests/data/models/quant_qdq_seed_digits_cnn
  for tiles in $TILE_COUNTS; do
    mlip_row "$name" fp16 "$tiles" "$dir/model.onnx" --inputs "$WORK/$name.npz"
    mlip_row "$name" int8 "$tiles" "$qdir/model.onnx" --inputs "$WORK/$name.npz"
  done
done

echo
echo "4. Elementary functions: mlip/kmath.h and kmath_f.h (same bits on every target) against the host C library, ns per call (-O2)"
reps=""; [ "$SHORT" = 1 ] && reps="-DREPS=4"
cc -O2 -std=c99 $reps -Iinclude bench/kmath_bench.c -lm -o "$WORK/kmath_bench"
"$WORK/kmath_bench" | tee "$WORK/kmath.txt"
awk 'NR > 1 {printf "kmath\t%s\t%s\t%s\n", $1, $2, $3}' "$WORK/kmath.txt" >> "$ROWS"

"$PY" - "$ROWS" "$JSON" "$SHORT" "$RUNS" "$(nproc)" "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" <<'PY'
import json, sys, time
rows, out, short, runs, cores, cpu = sys.argv[1:7]
models, kmath = {}, {}
def model(name):
    return models.setdefault(name, {"name": name})
num = float
for line in open(rows):
    f = line.rstrip("\n").split("\t")
    if f[0] == "compile":
        m = model(f[1])
        m["compile_s"] = num(f[2])
        m["arena"] = {"before": int(f[3]), "after": int(f[4]), "lower_bound": int(f[5]),
                      "tvm_hill_climb": int(f[6]) or None, "planners": m.get("arena", {}).get("planners", {})}
    elif f[0] == "planner":
        model(f[1]).setdefault("arena", {}).setdefault("planners", {})[f[2]] = int(f[3])
    elif f[0] == "latency":
        m = model(f[1])
        c, o, ratio = num(f[2]), num(f[3]), num(f[4])
        m["latency_us"] = {"c": c, "onnxruntime": o or None, "ratio": ratio if o else None}
    elif f[0] == "mlip":
        model(f[1]).setdefault("mlip", []).append({"dtype": f[7], "tiles": int(f[2]), "est_cycles": int(f[3]),
                                                    "est_us": num(f[4]), "sim_host_us": num(f[5]),
                                                    "sim_mmac_per_s": num(f[6])})
    elif f[0] == "kmath":
        kmath[f[1]] = {"mlip_ns": num(f[2]), "libc_ns": num(f[3])}
doc = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "mode": "short" if short == "1" else "full",
       "runs": int(runs), "host": {"cpu": cpu, "cores": int(cores)}, "models": list(models.values()), "kmath": kmath}
with open(out, "w") as fh:
    json.dump(doc, fh, indent=1)
print(f"\nbench: figures written to {out}")
PY
