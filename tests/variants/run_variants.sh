#!/usr/bin/env bash
# The kernel-variants harness (variants.c) for one target: builds it, runs it
# (natively, under qemu-aarch64, or as a bare-metal image under
# qemu-system-arm with semihosting) and requires every kernel's variants to
# give the reference's bytes (docs/adding-an-operator.md, "Kernel variants").
#
# usage: run_variants.sh <repo root> <work dir> <host|aarch64|cortex-m55|cortex-m4>
#
# Short by default (500 random cases per kind per kernel, one build, about
# a second of QEMU); MLIPC_VARIANTS=long runs 20000 cases per kind on more
# builds (optimization levels, gcc and clang where they apply, the portable
# fallback); MLIPC_VARIANTS_SEED=<n> changes the cases (default 1).
#
# Besides "same bytes", it checks that each build tested the variants the
# target's instruction sets call for: for every kernel with a variants list
# in include/mlip (#define MLIP_<KERNEL>_VARIANTS(X)), the variants whose
# headers exist (#define MLIP_<KERNEL>_<ISA>(X) X(...)) for the target's
# instruction sets must all have run, and the dispatch must be the first of
# them; so a variant the compiler's macros silently leave out, or a kernel
# with variants that variants.c does not register, fails.
# Exit 77 (SKIP) when a tool is missing.
set -u
ROOT=$1
WORK=$2
TARGET=$3
HERE=$ROOT/tests/variants
INC=$ROOT/include
mkdir -p "$WORK"
cd "$WORK" || exit 1

if [ "${MLIPC_VARIANTS:-}" = long ]; then CASES=20000; LONG=1; else CASES=500; LONG=0; fi
SEED=${MLIPC_VARIANTS_SEED:-1}
WARN="-Wall -Wextra -Werror -pedantic -std=c99"
CLANG=$(command -v clang || command -v clang-14 || true)

need() {
  for t in "$@"; do
    command -v "$t" >/dev/null || { echo "SKIP: $t missing (scripts/setup.sh installs it)"; exit 77; }
  done
}

# The instruction sets each target has, best first (mlip/kisa.h's order).
case $TARGET in
  host)
    need gcc
    if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then ISAS="x86"; X86="-mavx2"; else ISAS=""; X86=""; fi
    # name | compiler | flags | runner. The short mode builds as `mlipc run`
    # does (-O3 -march=native): there GCC 12.2 once miscompiled an int8 dot
    # product with VNNI (mlip/kq8.h, mlip_kq8_product).
    BUILDS=("gcc -O3 -march=native|gcc|-O3 -march=native|native")
    if ((LONG)); then
      BUILDS+=("gcc -O2 $X86|gcc|-O2 $X86|native" "gcc -O0 $X86|gcc|-O0 $X86|native"
               "gcc -Os $X86|gcc|-Os $X86|native" "gcc -O2 portable|gcc|-O2 $X86 -DMLIP_KERNELS_PORTABLE|native"
               "gcc -O3 -march=native portable|gcc|-O3 -march=native -DMLIP_KERNELS_PORTABLE|native")
      [ -n "$CLANG" ] && BUILDS+=("clang -O2 $X86|$CLANG|-O2 $X86|native" "clang -O3 -march=native|$CLANG|-O3 -march=native|native")
    fi
    ;;
  aarch64)
    need aarch64-linux-gnu-gcc qemu-aarch64
    ISAS="neon"
    BUILDS=("aarch64 gcc -O2|aarch64-linux-gnu-gcc|-O2 -static|qemu-aarch64")
    if ((LONG)); then
      BUILDS+=("aarch64 gcc -O0|aarch64-linux-gnu-gcc|-O0 -static|qemu-aarch64"
               "aarch64 gcc -Os|aarch64-linux-gnu-gcc|-Os -static|qemu-aarch64"
               "aarch64 gcc -O3 neoverse-n2|aarch64-linux-gnu-gcc|-O3 -mcpu=neoverse-n2 -static|qemu-aarch64")
      [ -n "$CLANG" ] && BUILDS+=("aarch64 clang -O2|$CLANG|--target=aarch64-linux-gnu -O2 -static|qemu-aarch64")
    fi
    ;;
  cortex-m55)
    need arm-none-eabi-gcc qemu-system-arm
    ISAS="mve dsp"
    CPU="-mcpu=cortex-m55 -mfloat-abi=hard"
    BUILDS=("cortex-m55 gcc -Os|arm-none-eabi-gcc|$CPU -Os|mps3-an547")
    ((LONG)) && BUILDS+=("cortex-m55 gcc -O2|arm-none-eabi-gcc|$CPU -O2|mps3-an547"
                         "cortex-m55 gcc -O0|arm-none-eabi-gcc|$CPU -O0|mps3-an547")
    ;;
  cortex-m4)
    need arm-none-eabi-gcc qemu-system-arm
    ISAS="dsp"
    CPU="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
    BUILDS=("cortex-m4 gcc -O2|arm-none-eabi-gcc|$CPU -O2|mps2-an386")
    ((LONG)) && BUILDS+=("cortex-m4 gcc -Os|arm-none-eabi-gcc|$CPU -Os|mps2-an386"
                         "cortex-m4 gcc -O0|arm-none-eabi-gcc|$CPU -O0|mps2-an386")
    ;;
  *)
    echo "unknown target '$TARGET' (host, aarch64, cortex-m55, cortex-m4)"
    exit 2
    ;;
esac

# Every kernel with variants, and the instruction sets it has variants for.
mapfile -t KERNELS < <(grep -ho '^#define MLIP_[A-Z0-9_]*_VARIANTS(X)' "$INC"/mlip/*.h | sed 's/^#define //; s/_VARIANTS(X)$//' | sort -u)
if ((${#KERNELS[@]} == 0)); then
  echo "no kernel with variants in $INC/mlip"
  exit 1
fi

status=0
for i in "${!BUILDS[@]}"; do
  IFS='|' read -r name cc flags run <<<"${BUILDS[$i]}"
  exe="v$i"
  portable=0
  [[ $flags == *MLIP_KERNELS_PORTABLE* ]] && portable=1
  start=$(date +%s%N)
  case $run in
    native | qemu-aarch64)
      # shellcheck disable=SC2086
      if ! $cc $flags $WARN -I"$INC" "$HERE/variants.c" "$HERE/hosted_main.c" -o "$exe" >"log.$i" 2>&1; then
        echo "$name: FAILED to build: $(head -c 2000 "log.$i")"
        status=1
        continue
      fi
      if [ "$run" = native ]; then
        timeout 1200 "./$exe" "$CASES" "$SEED" >"out.$i" 2>&1
      else
        timeout 1200 qemu-aarch64 "./$exe" "$CASES" "$SEED" >"out.$i" 2>&1
      fi
      ;;
    *)
      # The start file (vector table, semihosting) is GNU C, outside -pedantic.
      # shellcheck disable=SC2086
      if ! { $cc -mthumb $flags -Wall -Wextra -Werror -std=gnu99 -c "$HERE/cortexm_start.c" \
               -DVARIANTS_CASES="$CASES" -DVARIANTS_SEED="$SEED" -o "$exe.start.o" &&
             $cc -mthumb $flags $WARN -I"$INC" -nostartfiles -T "$HERE/cortexm.ld" "$HERE/variants.c" \
               "$exe.start.o" -lc -lgcc -o "$exe.elf"; } >"log.$i" 2>&1; then
        echo "$name: FAILED to build: $(head -c 2000 "log.$i")"
        status=1
        continue
      fi
      # Semihosting writes to QEMU's stderr.
      timeout 1200 qemu-system-arm -M "$run" -nographic -monitor none -serial none \
        -semihosting-config enable=on,target=native -kernel "$exe.elf" >"out.$i" 2>&1
      ;;
  esac
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  verdict="same bytes"
  if [ $rc -ne 0 ] || ! grep -q '^variants: all same$' "out.$i"; then
    verdict="FAILED (exit $rc): $(grep -m1 -e '^FAIL' -e . "out.$i" | head -c 600)"
    status=1
  else
    for k in "${KERNELS[@]}"; do
      want=""
      if ((!portable)); then
        for isa in $ISAS; do
          grep -qh "^#define ${k}_${isa^^}(X) X(" "$INC"/mlip/*.h && want+=" $isa"
        done
      fi
      dispatch=${want# }
      dispatch=${dispatch%% *}
      expect="kernel $k dispatch ${dispatch:-ref} variants${want}"
      got=$(grep -m1 "^kernel $k " "out.$i")
      if [ -z "$got" ]; then
        verdict="FAILED: $k has variants (include/mlip) but tests/variants/variants.c does not register it"
        status=1
      elif [[ $got != "$expect cases "* ]]; then
        verdict="FAILED: wanted '$expect', ran '$got'"
        status=1
      fi
    done
  fi
  printf '%-34s %4d.%d s  %s\n' "$name" $((ms / 1000)) $((ms % 1000 / 100)) "$verdict"
  grep '^kernel ' "out.$i" | sed 's/^/    /'
done

# GCC 12.2's wrong code on Helium float masks (gcc_mve_float_mask.c: why
# templates/kernels/conv_tiled.c keeps lane-by-lane forms there): built and
# run at -O2 so that the reproducer stays one; it says whether this
# compiler still has the bug, which does not decide the test.
if [ "$TARGET" = cortex-m55 ]; then
  if arm-none-eabi-gcc -mthumb $CPU -O2 -std=gnu99 -Wall -Wextra -Werror -nostartfiles -T "$HERE/cortexm.ld" \
       "$HERE/cortexm_start.c" "$HERE/gcc_mve_float_mask.c" -o mask.elf >log.mask 2>&1 &&
     timeout 60 qemu-system-arm -M mps3-an547 -nographic -monitor none -serial none \
       -semihosting-config enable=on,target=native -kernel mask.elf >out.mask 2>&1 &&
     grep -q '^gcc_mve_float_mask: \(mis\)*compiled' out.mask; then
    grep '^gcc_mve_float_mask: [a-z]*compiled' out.mask
  else
    echo "gcc_mve_float_mask.c: FAILED to build or run: $(head -c 1000 log.mask out.mask 2>/dev/null)"
    status=1
  fi
fi
exit $status
