#!/usr/bin/env bash
# The sanitizer step of the test suite (run by scripts/test.sh; docs/security.md):
# builds with clang-14, AddressSanitizer and UBSan (any report aborts, leaks
# included) in build-san/; `mlipc run` in that build also compiles the
# generated code and the runtime it builds with the same sanitizers. Then it
# runs
#   short (default; fits CI): what only the sanitizers find, on the code that
#     reads untrusted input or runs compiled buffers: every runtime test (the
#     validator, the simulator, the command-buffer fuzz tests); each libFuzzer
#     target for MLIPC_FUZZ_SECONDS (5) seconds and its regression inputs
#     (the compiler, the .npz reader, the tarball reader, the command-buffer
#     validator and simulator on hostile bytes); the command line on hostile
#     files (e2e Robust, Cli, MlipCli, Mesh and the error tests; the HTML
#     report on hostile names and bad input, and on a mesh, whose second
#     Graphviz layout once read freed memory); and the
#     generated C and the simulator end to end on the shared models (both
#     targets), the MLIP networks of every fp16 layer kind, and the int8 MLIP
#     models of every int8 command (SANITIZE_SHORT below). It builds only
#     what these need (the CMake target mlipc_sanitize_short), not the unit
#     and conformance programs.
#   full (MLIPC_SANITIZE=full): the whole suite under the sanitizers, every
#     conformance case (builds everything);
#   build (MLIPC_SANITIZE=build): only the short mode's build (scripts/fuzz.sh
#     uses it).
# Extra arguments go to ctest. docs/security.md gives the times.
set -euo pipefail
cd "$(dirname "$0")/.."
SAN_DIR="${MLIPC_SAN_BUILD_DIR:-build-san}"
MODE="${MLIPC_SANITIZE:-short}"
FUZZ_SECONDS="${MLIPC_FUZZ_SECONDS:-5}"

# The short mode's tests. The command line and the pipeline runner on
# hostile input: Robust, Cli, MlipCli, the error tests, and of Mesh the
# manifest that no longer matches its stages (runtime/pipeline) and the bad
# options. The generated C and the simulator: the shared models on "c"
# (MobileNet's kernels are KWS's and the others', in a 32 s run under the
# sanitizers) and on "mrvl, c" (fp16), the seven MLIP networks of
# tests/gen (every fp16 layer kind: convolutions, pools, dense, the
# activations and elementwise layers, resize, concat, channel slice and
# shuffle), and the six small int8 MLIP models whose commands together are
# every int8 layer kind (conv, depthwise conv, pools, add: the residual SE
# block; FC; average pool; Mul and Concat; the tables; resize), each against
# its CPU build over tilings() (tests/e2e/models.h).
SHORT_TESTS=('^runtime\.' '^fuzz\.')
for suite in Robust Cli MlipCli QuantizedMlipErrors QuantizedIoErrors PtqErrors; do SHORT_TESTS+=("^e2e\.$suite\."); done
SHORT_TESTS+=('^e2e\.Report\.(HostileNamesAreEscaped|BadInputGivesOneLineAndNoPage|MeshStagesAndTheirGraphs)$'
  '^e2e\.Mesh\.(AManifestThatDoesNotMatchItsStagesIsRejected|BadMeshOptionsAreOneLineAndWriteNothing|AMemoryLimitTooSmallForALayerIsOneLineNamingTheOnnxNode)$'
  '^e2e\.Shared/Models\.MatchesOnnxruntime/(seed_digits_cnn|kws_dscnn|ic_resnet8|ad_fc_autoencoder)$'
  '^e2e\.Shared/MlipModels\.MatchesOnnxruntimeWithinFp16Tolerance/'
  '^e2e\.Generated/MlipGeneratedModels\.MatchesOnnxruntimeWithinFp16Tolerance/torch_mlip_'
  '^e2e\.Models/QuantizedMlip\.[A-Za-z0-9]+/quant_qdq_(dw_se_residual_block|mlip_dense|mlip_avgpool|mlip_mul|mlip_tables|mlip_upsample)$')
SANITIZE_SHORT=$(IFS='|'; echo "${SHORT_TESTS[*]}")
# The files those e2e suites are in (tests/e2e/<name>_test.cpp): the short
# mode's build compiles only them (MLIPC_E2E_ONLY), and a suite above that is
# in no file here runs no test, which the count check below catches.
SHORT_E2E_FILES='robustness;cli_errors;mlip;quantized_mlip;quantized_io;ptq;report;mesh;models'
# Of those, what the sanitizers do not reach: the QEMU cross builds of the
# kmath (runtime.kmath_xplat); and what repeats a path the others take under
# them: Robust.FoldedConstantsAreBoundedInAll folds 128 MB of constants
# before the refusal it checks (a third of a minute at -O0 under ASan), where
# the folding code runs on every model here and the bound is one comparison,
# checked in the main suite.
SHORT_EXCLUDE='^runtime\.kmath_xplat$|^e2e\.Robust\.FoldedConstantsAreBoundedInAll$'

# The C++ (the compiler, the tests, the readers' fuzz targets) is built at
# -O0: clang compiles it with the sanitizers in a quarter of -O1's time (the
# operator library's largest unity batch: 5.6 against 22.7 CPU-seconds),
# and it runs a few times slower, which the short mode's tests, mostly C
# builds and the C runtime, hardly see. The C (the runtime, the simulator,
# the command-buffer fuzz target) keeps -O1. scripts/fuzz.sh, whose long
# runs want executions per second, builds at -O1 in a folder of its own
# (MLIPC_SAN_CXX_OPT=-O1).
CXX_OPT="${MLIPC_SAN_CXX_OPT:--O0}"

source scripts/ccache-env.sh
source scripts/generator-env.sh
source scripts/cpu-times.sh
generator_for "$SAN_DIR"
start=$(date +%s)
cmake -S . -B "$SAN_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_FLAGS_SANITIZE="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_SANITIZE="$CXX_OPT -gline-tables-only" \
  -DMLIPC_ASAN=ON -DMLIPC_FUZZ=ON -DMLIPC_FUZZ_SECONDS="$FUZZ_SECONDS" "${launcher[@]}" \
  -DMLIPC_E2E_ONLY="$([ "$MODE" = full ] || echo "$SHORT_E2E_FILES")" >/dev/null
if [ "$MODE" = short ] || [ "$MODE" = build ]; then
  quiet_build "$SAN_DIR" --target mlipc_sanitize_short
else
  quiet_build "$SAN_DIR"
fi
built=$(date +%s)
children_cpu
built_cpu=$CHILDREN_CPU
if [ "$MODE" = build ]; then exit 0; fi

# Leaks count as findings; UBSan and ASan stop at the first report. The
# cache of built models is the build folder's own.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# Graphviz's own leaks (mlipc report), listed there: not mlipc's.
export LSAN_OPTIONS="suppressions=$PWD/tests/tools/lsan.supp:print_suppressions=0"
export MLIPC_CACHE_DIR="$PWD/$SAN_DIR/mlipc-cache"
mkdir -p "$MLIPC_CACHE_DIR" && chmod 700 "$MLIPC_CACHE_DIR"
# A fresh build folder has no test timings: ctest would start the slowest
# tests last. Seed its cost file (name, runs, seconds; ctest starts the
# costliest first and keeps its own figures after) with the slowest ones.
cost="$SAN_DIR/Testing/Temporary/CTestCostData.txt"
if [ ! -f "$cost" ]; then
  mkdir -p "$(dirname "$cost")"
  printf '%s 1 %s\n' e2e.Mesh.AManifestThatDoesNotMatchItsStagesIsRejected 40 \
    e2e.Robust.DamagedMetadataJsonGivesOneLineAndNoPartialOutput 21 \
    e2e.Shared/MlipModels.MatchesOnnxruntimeWithinFp16Tolerance/seed_digits_cnn 20 \
    e2e.Shared/Models.MatchesOnnxruntime/ic_resnet8 17 fuzz.onnx 15 fuzz.tar 11 fuzz.cmdbuf 11 fuzz.npz 11 \
    e2e.PtqErrors.BadCalibrationDataIsRefusedInOneLine 11 e2e.Shared/Models.MatchesOnnxruntime/kws_dscnn 11 \
    e2e.Robust.BuildCacheMustBePrivateToTheUser 11 > "$cost"
  echo "---" >> "$cost"
fi
status=0
if [ "$MODE" = full ]; then
  ctest --test-dir "$SAN_DIR" -j"$(nproc)" --output-on-failure "$@" || status=$?
else
  # Every pattern must name tests of this build: one that matches none (a
  # renamed test, a file missing from SHORT_E2E_FILES) fails the step.
  for t in "${SHORT_TESTS[@]}"; do
    if [ "$(ctest --test-dir "$SAN_DIR" -N -R "$t" | sed -n 's/^Total Tests: //p')" = 0 ]; then
      echo "sanitize.sh: no test of $SAN_DIR matches '$t'"
      status=1
    fi
  done
  ctest --test-dir "$SAN_DIR" -j"$(nproc)" --output-on-failure -R "$SANITIZE_SHORT" -E "$SHORT_EXCLUDE" "$@" ||
    status=$?
fi
end=$(date +%s)
children_cpu
echo "sanitizer step ($MODE): build $((built - start)) s, tests $((end - built)) s;" \
     "CPU-seconds (user + system): build $built_cpu, tests $((CHILDREN_CPU - built_cpu))"
exit $status
