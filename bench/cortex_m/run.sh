#!/usr/bin/env bash
# Instructions per inference of the MLPerf Tiny models on Cortex-M
# (docs/benchmarks.md, "Cortex-M"), counted by a QEMU TCG plugin the script
# builds (insn_plugin.c): each model of tests/data compiled with
# `--target c --target-c-mcpu <core>` (int8: the QDQ model with
# `--io-dtype int8`; float32: the float model as it is), built with the
# tarball's firmware template (templates/firmware) for the Cortex-M55
# (mps3-an547, Helium) and the Cortex-M4 (mps2-an386, DSP) at -O2 and -Os,
# run once under qemu-system-arm. The plugin counts every executed
# instruction per translated block; the script gives each block to its
# function (the image's symbols) and counts as the inference everything but
# the firmware's own code (main.o, startup.o: start-up, the input pattern,
# printing the outputs). Code: the bytes of the image's functions (ELF
# FUNC symbols: generated code, runtime, C library), the firmware's own left
# out; constants and tables are not code.
# Before the models it checks the counter on a loop of known length
# (loop_check.c): two runs must differ by exactly the loop's instructions.
# Every build of a model must print the same outputs. Nothing here is a
# pass/fail threshold on a count.
#
# usage: bench/cortex_m/run.sh [--mlipc PATH] [--models "kws resnet8 ..."] [--opts "-O2 -Os"]
#                              [--dtype int8|float32] [--profile] [--layers] [--work DIR]
#   models: kws, resnet8, vww, autoencoder (default: all four)
#   --dtype    int8 (default) or float32
#   --profile  also print each build's ten costliest functions
#   --layers   also build each model at -O2 with every layer a function of its
#              own (-fno-inline-functions-called-once -fno-ipa-icf: GCC
#              otherwise inlines the float layers into the main function and
#              merges identical ones) and print its ten costliest functions
# Needs arm-none-eabi-gcc, qemu-system-arm, make, gcc and /usr/bin/python3
# (exit 77 when a tool is missing). ctest bench.cortex_m_short runs the
# autoencoder at -Os: that the script still runs, not figures to quote.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MLIPC=$ROOT/build/bin/mlipc
MODELS="kws resnet8 vww autoencoder"
OPTS="-O2 -Os"
DTYPE=int8
PROFILE=0
LAYERS=0
WORK=${TMPDIR:-/tmp}/mlipc-bench-cortex-m
while (($#)); do
  case $1 in
    --mlipc) MLIPC=$2; shift 2 ;;
    --models) MODELS=$2; shift 2 ;;
    --opts) OPTS=$2; shift 2 ;;
    --dtype) DTYPE=$2; shift 2 ;;
    --profile) PROFILE=1; shift ;;
    --layers) LAYERS=1; shift ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "usage: $0 [--mlipc PATH] [--models \"kws resnet8 vww autoencoder\"] [--opts \"-O2 -Os\"] [--dtype int8|float32] [--profile] [--layers] [--work DIR]" >&2; exit 2 ;;
  esac
done
for t in arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-readelf qemu-system-arm make gcc; do
  command -v $t >/dev/null || { echo "cortex_m bench: $t missing (scripts/setup.sh installs it)" >&2; exit 77; }
done
[ -x "$MLIPC" ] || { echo "cortex_m bench: no mlipc at $MLIPC (build it, or --mlipc PATH)" >&2; exit 1; }
case $DTYPE in
  int8) PREFIX=quant_qdq_ COMPILE_FLAGS="--io-dtype int8" ;;
  float32) PREFIX="" COMPILE_FLAGS="" ;;
  *) echo "cortex_m bench: --dtype is int8 or float32, not '$DTYPE'" >&2; exit 2 ;;
esac
PY=/usr/bin/python3
rm -rf "$WORK" && mkdir -p "$WORK"
PLUGIN=$WORK/libinsn.so
gcc -shared -fPIC -O2 -Wall -Wextra -Werror "$HERE/insn_plugin.c" -o "$PLUGIN"

board_cpu() { case $1 in mps3-an547) echo "cortex-m55" ;; mps2-an386) echo "cortex-m4" ;; esac; }
board_flags() {
  case $1 in
    mps3-an547) echo "-mcpu=cortex-m55 -mfloat-abi=hard" ;;
    mps2-an386) echo "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard" ;;
  esac
}
# run <board> <elf> <out>: the image under the plugin; the plugin's lines in <out>.
run() {
  timeout 1200 qemu-system-arm -M "$1" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -plugin "$PLUGIN" -d plugin -kernel "$2" >"$3" 2>&1
}

# The counter on a loop of known length: n = 1000 and 101000 iterations of
# two instructions differ by exactly 200000.
for board in mps3-an547 mps2-an386; do
  declare -A loop_count=()
  for n in 1000 101000; do
    d=$WORK/loop.$board.$n
    mkdir -p "$d"
    # shellcheck disable=SC2046
    arm-none-eabi-gcc -mthumb $(board_flags $board) -O2 -std=gnu99 -nostartfiles -DVARIANTS_CASES=$n \
      -T "$ROOT/tests/variants/cortexm.ld" "$ROOT/tests/variants/cortexm_start.c" "$HERE/loop_check.c" \
      -o "$d/loop.elf"
    run $board "$d/loop.elf" "$d/out.txt"
    loop_count[$n]=$(awk '/^insns /{print $2}' "$d/out.txt")
  done
  diff=$((loop_count[101000] - loop_count[1000]))
  if [ "$diff" -ne 200000 ]; then
    echo "cortex_m bench: the counter is wrong on $board: a loop of 100000 x 2 instructions counted $diff" >&2
    exit 1
  fi
  echo "counter check on $board: 100000 more iterations of a 2-instruction loop count $diff more instructions"
  unset loop_count
done

model_dir() {
  case $1 in
    kws) echo ${PREFIX}mlperf_tiny_kws_dscnn ;;
    resnet8) echo ${PREFIX}mlperf_tiny_ic_resnet8 ;;
    vww) echo ${PREFIX}mlperf_tiny_vww_mobilenet_v1_025 ;;
    autoencoder) echo ${PREFIX}mlperf_tiny_ad_fc_autoencoder ;;
    *) echo "cortex_m bench: unknown model '$1' (kws, resnet8, vww, autoencoder)" >&2; exit 2 ;;
  esac
}

echo
echo "$DTYPE:"
echo "| model | core | opt | instructions per inference | code bytes | outputs |"
echo "|---|---|---|---:|---:|---|"
for model in $MODELS; do
  dir=$(model_dir "$model")
  want=""
  for board in mps3-an547 mps2-an386; do
    cpu=$(board_cpu $board)
    d=$WORK/$model.$DTYPE.$cpu
    mkdir -p "$d"
    "$MLIPC" compile "$ROOT/tests/data/models/$dir/model.onnx" --target c $COMPILE_FLAGS --target-c-mcpu "$cpu" \
      -o "$d/model.tar" >/dev/null
    tar xf "$d/model.tar" -C "$d"
    builds=$OPTS
    [ $LAYERS = 1 ] && builds="$builds -O2/layers"
    for build in $builds; do
      opt=${build%/layers} extra="" show=$PROFILE
      if [ "$build" != "$opt" ]; then extra="-fno-inline-functions-called-once -fno-ipa-icf" show=1; fi
      (cd "$d/templates/firmware" && make -s clean >/dev/null &&
        make -s BOARD=$board OPT=$opt EXTRA_CFLAGS="$extra" >"$d/build$opt.log" 2>&1) ||
        { echo "cortex_m bench: $model $cpu $opt failed to build: $(head -c 1500 "$d/build$opt.log")" >&2; exit 1; }
      fw=$d/templates/firmware/build/$board
      run $board "$fw/firmware.elf" "$d/run$opt.txt"
      grep -q '^status 0$' "$d/run$opt.txt" || { echo "cortex_m bench: $model $cpu $opt did not run: $(head -c 600 "$d/run$opt.txt")" >&2; exit 1; }
      outputs=$(grep -v -e '^tb ' -e '^insns ' "$d/run$opt.txt" | md5sum | cut -c1-8)
      if [ -z "$want" ]; then want=$outputs; elif [ "$outputs" != "$want" ]; then
        echo "cortex_m bench: $model $cpu $build printed other outputs than its first build" >&2; exit 1
      fi
      arm-none-eabi-nm --defined-only "$fw/main.o" "$fw/startup.o" | awk 'NF==3{print $3}' >"$d/own.txt"
      arm-none-eabi-readelf -sW "$fw/firmware.elf" | awk '$4 == "FUNC" && $7 != "UND" {print $2, $3, $8}' >"$d/syms$opt.txt"
      $PY - "$d/run$opt.txt" "$d/syms$opt.txt" "$d/own.txt" "$model" "$cpu" "${build/\/layers/, layers apart}" "$outputs" "$show" <<'PY'
import bisect, sys
run, syms_path, own_path, model, cpu, opt, outputs, profile = sys.argv[1:]
own = set(open(own_path).read().split())
funcs = []
for line in open(syms_path):
    addr, size, name = line.split()
    funcs.append((int(addr, 16) & ~1, int(size), name))
funcs.sort()
starts = [f[0] for f in funcs]
per = {}
total = 0
for line in open(run):
    if not line.startswith("tb "):
        continue
    _, pc, n = line.split()
    pc, n = int(pc, 16) & ~1, int(n)
    total += n
    i = bisect.bisect_right(starts, pc) - 1
    name = funcs[i][2] if i >= 0 and pc < funcs[i][0] + funcs[i][1] else "?"
    per[name] = per.get(name, 0) + n
inference = sum(n for name, n in per.items() if name not in own)
code = sum(size for _, size, name in funcs if name not in own)
print(f"| {model} | {cpu} | {opt} | {inference:,} | {code:,} | {outputs} |")
if profile == "1":
    for name, n in sorted(per.items(), key=lambda kv: -kv[1])[:10]:
        print(f"|   | {name} |  | {n:,} ({100 * n / max(total, 1):.1f}%) |  | {'firmware' if name in own else ''} |")
PY
    done
  done
done
