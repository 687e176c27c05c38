#!/usr/bin/env bash
# package.cmake_host and package.cmake_cortex_m55: `cmake --install` of the
# build into a fresh prefix, then examples/cmake configured with
# find_package(mlipc) from that prefix, built and run, its output bits
# compared with `mlipc run` of the tarball mlipc_add_model wrote, on the same
# input (examples/digits/digit.npz).
#   host:        also the installed files (the runtime and templates are a
#                tarball's, the package and pkg-config files), the same
#                program built by examples/cmake/pkg-config.mk through
#                mlipc.pc (the same bits), and the CMake build's dependencies:
#                nothing rebuilds when nothing changed, a touched .onnx and
#                a changed option compile the model and the library again.
#   cortex_m55:  arm-none-eabi-gcc with examples/cmake's toolchain file, the
#                image run under qemu-system-arm (mps3-an547); exit 77 (skip)
#                when a tool is missing.
# usage: cmake_package_test.sh host|cortex_m55 <repo root> <build dir> <work dir>
set -euo pipefail
MODE=$1 ROOT=$2 BUILD=$3 WORK=$4
PY=/usr/bin/python3
fail() { echo "$MODE: $*" >&2; exit 1; }

if [ "$MODE" = cortex_m55 ]; then
  for tool in arm-none-eabi-gcc qemu-system-arm; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool missing (scripts/setup.sh installs it)"; exit 77; }
  done
fi

rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
PREFIX=$WORK/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >install.log
MLIPC=$PREFIX/bin/mlipc
[ -x "$MLIPC" ] || fail "no bin/mlipc in the install"
# The example's model is a copy, so the test can touch it.
cp "$ROOT/examples/digits/model.onnx" model.onnx
cp "$ROOT/examples/digits/digit.npz" digit.npz

# The output block of the example's text ("output 0 ..." and its words) for
# an .npz of `mlipc run`: the lines digits_app.c and the firmware template write.
expected() {
  "$PY" - "$1" <<'PY'
import sys, numpy as np
a = np.load(sys.argv[1])["Plus214_Output_0"]
b = a.astype("<f4").tobytes()
words = ["%08x" % int.from_bytes(b[i:i + 4], "little") for i in range(0, len(b), 4)]
print("output 0 Plus214_Output_0 float32 %d" % len(b))
for i in range(0, len(words), 8):
    print(" ".join(words[i:i + 8]))
PY
}
# The same block of a program's output.
block() { sed -n '/^output 0 /,/^top class /p' "$1" | grep -v '^top class '; }
same_bits() {  # <name> <tarball> <program output>
  "$MLIPC" run "$2" --inputs digit.npz --outputs "$1.run.npz" >"$1.run.txt"
  expected "$1.run.npz" >"$1.expected.txt"
  block "$3" >"$1.got.txt"
  [ -s "$1.got.txt" ] || fail "no output block in $3: $(cat "$3")"
  diff "$1.expected.txt" "$1.got.txt" || fail "the outputs of $3 are not the bits of mlipc run of $2"
  grep -q '^top class 7$' "$3" || fail "the digit 7 is not the top class in $3"
}
configure() {  # <dir> <cmake arguments...>
  local dir=$1
  shift
  cmake -S "$ROOT/examples/cmake" -B "$dir" -DCMAKE_PREFIX_PATH="$PREFIX" -DDIGITS_MODEL="$WORK/model.onnx" \
    -DDIGITS_INPUT="$WORK/digit.npz" "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; fail "configure failed"; }
}
build() {  # <dir> <log>
  cmake --build "$1" -j2 >"$2" 2>&1 || { cat "$2"; fail "build of $1 failed"; }
}

if [ "$MODE" = cortex_m55 ]; then
  configure m55 -DCMAKE_TOOLCHAIN_FILE="$ROOT/examples/cmake/arm-none-eabi-cortex-m55.cmake" -DCMAKE_BUILD_TYPE=MinSizeRel
  build m55 m55.build.log
  timeout 120 qemu-system-arm -M mps3-an547 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel m55/digits_m55.elf >m55.out.txt 2>&1 ||
    fail "the image failed under qemu-system-arm: $(cat m55.out.txt)"
  same_bits m55 m55/digits.mlipc/default.tar m55.out.txt
  cat m55.out.txt
  echo "cortex_m55: the image's outputs are the bits of mlipc run"
  exit 0
fi

# The install: the runtime and templates are a tarball's, byte for byte.
for f in lib/cmake/mlipc/mlipcConfig.cmake lib/cmake/mlipc/mlipcConfigVersion.cmake lib/pkgconfig/mlipc.pc \
         include/mlipc/mlip/status.h include/mlipc/dlpack/dlpack.h share/mlipc/runtime/src/sim/mlip_sim.c; do
  [ -f "$PREFIX/$f" ] || fail "no $f in the install"
done
"$MLIPC" compile model.onnx --target "mrvl, c" -o t.tar >/dev/null
mkdir t && tar xf t.tar -C t
diff -r t/runtime/include "$PREFIX/include/mlipc" || fail "include/mlipc is not the tarball's runtime/include"
diff -r t/runtime/src "$PREFIX/share/mlipc/runtime/src" || fail "share/mlipc/runtime/src is not the tarball's runtime/src"
rm t/templates/firmware/main.c
diff -r t/templates "$PREFIX/share/mlipc/templates" || fail "share/mlipc/templates is not the tarball's templates"

# pkg-config: the same program built by a plain Makefile through mlipc.pc
# (examples/cmake/pkg-config.mk), the same bits.
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
[ "$(pkg-config --modversion mlipc)" = "$("$MLIPC" --version | grep -o '[0-9][0-9.]*' | head -1)" ] ||
  fail "mlipc.pc's version is not mlipc's"
make -f "$ROOT/examples/cmake/pkg-config.mk" BUILD="$WORK/make" MODEL="$WORK/model.onnx" INPUT="$WORK/digit.npz" \
  CFLAGS="-O2 -Wall -Wextra -Werror -pedantic" >make.log 2>&1 || { cat make.log; fail "pkg-config.mk failed"; }
make/digits_host >make.out.txt || fail "the Makefile's digits_host failed: $(cat make.out.txt)"
same_bits make make/model.tar make.out.txt

configure host -DCMAKE_BUILD_TYPE=Release
build host host.build.log
host/digits_host >host.out.txt || fail "digits_host failed: $(cat host.out.txt)"
same_bits host host/digits.mlipc/default.tar host.out.txt

lib=host/libdigits.a
stamp() { stat -c %Y.%y "$lib" host/digits.mlipc/default.tar host/digits_host; }
# Nothing changed (configured again with the same arguments): nothing
# runs, nothing is written.
before=$(stamp)
configure host -DCMAKE_BUILD_TYPE=Release
build host host.noop.log
if grep -E 'mlipc: compiling|Building C object|Linking' host.noop.log; then fail "a build with nothing changed did work"; fi
[ "$(stamp)" = "$before" ] || fail "a build with nothing changed wrote the library, tarball or program"
# A touched .onnx: the model is compiled again and the library rebuilt.
sleep 1
touch model.onnx
build host host.touch.log
grep -q 'mlipc: compiling' host.touch.log || fail "a touched .onnx did not compile the model again"
[ "$lib" -nt model.onnx ] || fail "a touched .onnx did not rebuild the library"
host/digits_host >host.out2.txt && cmp host.out.txt host.out2.txt || fail "the rebuilt program's output changed"
# A changed option: the same.
before=$(stamp)
sleep 1
configure host -DDIGITS_NUM_TILES=2
build host host.option.log
grep -q 'mlipc: compiling' host.option.log || fail "a changed NUM_TILES did not compile the model again"
grep -qx -- '--target-mrvl-num_tiles=2' host/digits.mlipc/args.txt || fail "NUM_TILES 2 is not in the arguments"
[ "$(stamp)" != "$before" ] || fail "a changed NUM_TILES did not rebuild the library"
cat host.out.txt
echo "host: install, pkg-config, find_package, same bits as mlipc run, rebuilds as the inputs change"
