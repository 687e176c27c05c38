#!/usr/bin/env bash
# Bit-identity of mlip/kmath.h across targets: builds kmath_hash.c natively
# (gcc and clang, -O0..-O3/-Os, -std=c99 and -std=gnu99, default contraction,
# and gcc -march=haswell where GCC could fuse into FMA), for AArch64 (gcc and
# clang, run under qemu-aarch64) and for Cortex-M55, M4F and M3 soft-float
# (arm-none-eabi-gcc, run under qemu-system-arm with semihosting), and
# requires every build to print the same hashes. Also prints the Cortex-M55
# -Os code size of the functions. Exit 77 (SKIP) when a tool is missing.
# The suite's default run builds eight of the variants (below); every one
# with MLIPC_TEST_FULL=1.
# usage: run_xplat.sh <repo root> <work dir>
set -u
ROOT=$1
WORK=$2
HERE=$ROOT/tests/runtime/kmath_xplat
INC=$ROOT/include
mkdir -p "$WORK"
cd "$WORK" || exit 1

CLANG=$(command -v clang || command -v clang-14 || true)
missing=()
for t in gcc aarch64-linux-gnu-gcc qemu-aarch64 arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm; do
  command -v "$t" >/dev/null || missing+=("$t")
done
[ -n "$CLANG" ] || missing+=(clang)
if ((${#missing[@]})); then
  echo "SKIP: missing ${missing[*]} (scripts/setup.sh installs them)"
  exit 77
fi

WARN="-Wall -Wextra -Werror -pedantic"
SRC="$HERE/kmath_hash.c"
HOSTED="$HERE/hosted_main.c"
# name | compiler | flags | how to run
VARIANTS=(
  "x86-64 gcc -O0 c99|gcc|-O0 -std=c99|native"
  "x86-64 gcc -O2 c99|gcc|-O2 -std=c99|native"
  "x86-64 gcc -O2 gnu99|gcc|-O2 -std=gnu99|native"
  "x86-64 gcc -O3 gnu99|gcc|-O3 -std=gnu99|native"
  "x86-64 gcc -Os c99|gcc|-Os -std=c99|native"
  "x86-64 clang -O0 gnu99|$CLANG|-O0 -std=gnu99|native"
  "x86-64 clang -O2 c99|$CLANG|-O2 -std=c99|native"
  "x86-64 clang -O3 gnu99|$CLANG|-O3 -std=gnu99|native"
  "aarch64 gcc -O0 c99|aarch64-linux-gnu-gcc|-O0 -std=c99 -static|qemu-aarch64"
  "aarch64 gcc -O2 gnu99|aarch64-linux-gnu-gcc|-O2 -std=gnu99 -static|qemu-aarch64"
  "aarch64 gcc -O3 gnu99|aarch64-linux-gnu-gcc|-O3 -std=gnu99 -static|qemu-aarch64"
  "aarch64 gcc -Os c99|aarch64-linux-gnu-gcc|-Os -std=c99 -static|qemu-aarch64"
  "aarch64 clang -O2 gnu99|$CLANG|--target=aarch64-linux-gnu -O2 -std=gnu99 -static|qemu-aarch64"
  "cortex-m55 gcc -O2 gnu99|arm-none-eabi-gcc|-mcpu=cortex-m55 -mfloat-abi=hard -O2 -std=gnu99|mps3-an547"
  "cortex-m55 gcc -Os gnu99|arm-none-eabi-gcc|-mcpu=cortex-m55 -mfloat-abi=hard -Os -std=gnu99|mps3-an547"
  "cortex-m55 gcc -O0 c99|arm-none-eabi-gcc|-mcpu=cortex-m55 -mfloat-abi=hard -O0 -std=c99|mps3-an547"
  "cortex-m4f gcc -O2 gnu99|arm-none-eabi-gcc|-mcpu=cortex-m4 -mfloat-abi=hard -O2 -std=gnu99|mps2-an386"
  "cortex-m3 gcc -Os gnu99|arm-none-eabi-gcc|-mcpu=cortex-m3 -mfloat-abi=soft -Os -std=gnu99|mps2-an385"
  "cortex-m3 gcc -O2 c99|arm-none-eabi-gcc|-mcpu=cortex-m3 -mfloat-abi=soft -O2 -std=c99|mps2-an385"
)
if grep -qw fma /proc/cpuinfo 2>/dev/null; then
  VARIANTS+=("x86-64 gcc -O2 gnu99 -march=haswell|gcc|-O2 -std=gnu99 -march=haswell|native")
fi
# Not supported (clang's explicit -ffp-contract=fast overrides the pragma): shown, not required.
CONTROL="aarch64 clang -O2 -ffp-contract=fast (unsupported)|$CLANG|--target=aarch64-linux-gnu -O2 -std=gnu99 -static -ffp-contract=fast|qemu-aarch64"
ALL=("${VARIANTS[@]}" "$CONTROL")
# The suite's default run (MLIPC_TEST_FULL unset): one build per compiler
# and floating-point unit (x86-64 gcc and clang, the FMA-capable build,
# AArch64 gcc and clang, Cortex-M55, M4F and soft-float M3), at the
# optimization level where contraction or library calls would show; the
# other optimization levels and language modes, and the control, with
# MLIPC_TEST_FULL=1.
if [ "${MLIPC_TEST_FULL:-0}" != 1 ]; then
  short=()
  for v in "${VARIANTS[@]}"; do
    case "${v%%|*}" in
      "x86-64 gcc -O2 c99" | "x86-64 clang -O2 c99" | "x86-64 gcc -O2 gnu99 -march=haswell" | \
      "aarch64 gcc -O2 gnu99" | "aarch64 clang -O2 gnu99" | "cortex-m55 gcc -Os gnu99" | \
      "cortex-m4f gcc -O2 gnu99" | "cortex-m3 gcc -Os gnu99") short+=("$v") ;;
    esac
  done
  VARIANTS=("${short[@]}")
  ALL=("${VARIANTS[@]}")
fi

build_and_run() {  # index, variant line -> out.<index> (what it printed), log.<index>
  local i=$1 name cc flags run
  IFS='|' read -r name cc flags run <<<"$2"
  local exe="v$i.elf"
  case $run in
    native|qemu-aarch64)
      # shellcheck disable=SC2086
      $cc $flags $WARN -I"$INC" "$SRC" "$HOSTED" -lm -o "$exe" >"log.$i" 2>&1 || return 1
      if [ "$run" = native ]; then
        timeout 60 "./$exe" >"out.$i" 2>>"log.$i"
      else
        timeout 120 qemu-aarch64 "./$exe" >"out.$i" 2>>"log.$i"
      fi
      ;;
    *)
      # The start file (vector table, semihosting) is GNU C, outside -pedantic.
      # shellcheck disable=SC2086
      { $cc -mthumb $flags -Wall -Wextra -Werror -std=gnu99 -c "$HERE/cortexm_start.c" -o "v$i.start.o" &&
          $cc -mthumb $flags $WARN -I"$INC" -nostartfiles -T "$HERE/cortexm.ld" "$SRC" "v$i.start.o" \
            -lm -lc -lgcc -o "$exe"; } >"log.$i" 2>&1 || return 1
      # Semihosting writes to QEMU's stderr.
      timeout 120 qemu-system-arm -M "$run" -nographic -monitor none -serial none \
        -semihosting-config enable=on,target=native -kernel "$exe" >"out.$i" 2>&1
      ;;
  esac
}

rm -f out.* log.*
pids=()
for i in "${!ALL[@]}"; do
  build_and_run "$i" "${ALL[$i]}" &
  pids+=($!)
  if ((${#pids[@]} >= 2)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait

# Float results ("all" and one line per function) must be the same on every
# build. The double internals ("d:") and the platform's own double arithmetic
# ("arith") must be the same too, with one exception that is reported, not
# hidden: where double arithmetic is emulated in software (Cortex-M3/M4F,
# libgcc under QEMU) and "arith" itself differs from IEEE hardware, the
# internals may differ by what the emulation gets wrong.
status=0
ref=out.0
soft_note=0
printf '%-52s %-18s %s\n' "build" "float results" "vs ${ALL[0]%%|*}"
for i in "${!ALL[@]}"; do
  name=${ALL[$i]%%|*}
  hash=$(awk '$1=="all"{print $2}' "out.$i" 2>/dev/null)
  required=$((i < ${#VARIANTS[@]}))
  if [ -z "$hash" ] || [ "$(grep -c . "out.$i")" -ne "$(grep -c . $ref)" ]; then
    verdict="FAILED to build or run: $(head -c 300 "log.$i" "out.$i" 2>/dev/null | tr '\n' ' ')"
    ((required)) && status=1
  else
    fdiff=$(diff <(grep -v -e '^d:' -e '^arith' $ref) <(grep -v -e '^d:' -e '^arith' "out.$i") | awk '/^>/{printf "%s ", $2}')
    ddiff=$(diff <(grep '^d:' $ref) <(grep '^d:' "out.$i") | awk '/^>/{printf "%s ", $2}')
    adiff=$(diff <(grep '^arith' $ref) <(grep '^arith' "out.$i") | awk '/^>/{printf "%s ", $2}')
    if [ -n "$fdiff" ]; then
      verdict="DIFFERENT float results: $fdiff"
      ((required)) && status=1
    elif [ -z "$ddiff$adiff" ]; then
      verdict="same"
    elif [[ $name == cortex-m3* || $name == cortex-m4f* ]] && [ -n "$adiff" ]; then
      verdict="same float results; libgcc soft-double differs from IEEE (arith), internals: ${ddiff:-same}"
      soft_note=1
    else
      verdict="DIFFERENT internals: $ddiff$adiff"
      ((required)) && status=1
    fi
  fi
  printf '%-52s %-18s %s\n' "$name" "${hash:--}" "$verdict"
done
if ((soft_note)); then
  echo "note: libgcc's soft-double __adddf3 keeps a single exact guard bit when the exponents differ"
  echo "      by 33; a subtraction that then normalizes by one bit rounds from its sticky bit"
  echo "      (1.0 - 0x1.d5818dcfba487p-33 gives 0x1.fffffffe2a7e8p-1, IEEE 0x1.fffffffe2a7e7p-1)."
  echo "      See docs/runtime.md, Elementary functions."
fi
echo "reference hashes:"
cat "$ref"

# Code size of all functions on Cortex-M55 at -Os (one wrapper each).
{
  echo '#include "mlip/kmath.h"'
  for f in expf expm1f logf log1pf tanhf sigmoidf erff sinf cosf tanf asinf acosf atanf sinhf coshf asinhf acoshf atanhf; do
    echo "float k_$f(float x) { return mlip_$f(x); }"
  done
  echo 'float k_powf(float x, float y) { return mlip_powf(x, y); }'
} >all_fns.c
if arm-none-eabi-gcc -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -Os -std=c99 $WARN -I"$INC" -c all_fns.c -o all_fns.o; then
  echo "Cortex-M55 -Os, all 19 functions (text+rodata, data, bss; sqrt and soft-float helpers come from the C library/libgcc):"
  arm-none-eabi-size all_fns.o
fi
exit $status
