#!/usr/bin/env bash
# The whole test suite: unit (GoogleTest, cmocka), ONNX conformance, models
# end to end, command line. Prints the conformance counts at the end, and
# the suite's own count: ctest's "100% tests passed" line counts skipped
# tests as passed, so this script counts them apart, and the tests left to
# the full mode. Then the sanitizer step (scripts/sanitize.sh: ASan+UBSan
# build, its short subset, each fuzz target for 5 s; the short mode's build
# runs beside the suite at the lowest priority); MLIPC_SANITIZE=0 skips
# it, MLIPC_SANITIZE=full runs the whole suite under the sanitizers.
#
# Two modes (docs/architecture.md section 8):
#   default: every test checks each code path once: the MLIP bit-identity
#     sweeps compare three tile/placement configurations instead of eight,
#     the QEMU, MPI and PTQ tests run their short forms, report.chromium
#     opens two report pages (five in the full mode), and FULL_ONLY below
#     is left out; aimed at 15 minutes, sanitizer step included, from a
#     fresh clone on 2 cores (the measured times: docs/architecture.md).
#   In both, the single-operator tests (conformance cases, OpBatch, the
#     int8 MLIP-against-CPU comparisons of quantized_mlip_test.cpp) build
#     their generated C at -O1 (MLIPC_TEST_OP_OPT; tests/testlib/
#     model_runner.h says why the bits and paths are -O3's). In the
#     default mode so do the model tests that compare builds of ours
#     (tile sweeps, MLIP against CPU, requantization, PTQ;
#     test_build_flags(), -O3 in the full mode); what users run
#     (Models.MatchesOnnxruntime, the host bits of the cross and firmware
#     builds, the command line, the bench) stays at -O3. The vector-width
#     variants of unit.PackedWidths and unit.AttentionKernels: -O0 in the default
#     mode, -O3 in the full one (tests/testlib/model_runner.h).
#   MLIPC_TEST_FULL=1: every sweep at full width (MLIPC_QEMU_SWEEP=full,
#     MLIPC_MESH_FULL=1, MLIPC_PTQ_FULL=1 too) and every test.
# Each phase's time is printed in seconds and in CPU-seconds (user + system,
# scripts/cpu-times.sh), which the machine's load hardly moves; a test's own
# CPU-seconds: scripts/suite_cpu.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cpu-times.sh
t0=$(date +%s)
./scripts/setup.sh
t1=$(date +%s)
children_cpu
c1=$CHILDREN_CPU
BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
LOG="$BUILD_DIR/test-log.txt"

# Left to the full mode: instances of parametrized tests that take a path
# another instance of the same test already takes in the default run.
#   the TVM demo flow (QEMU): the MLIP build at -Os stays; the CPU-only
#     builds and -O2 repeat it (the same Makefile, the same CRT);
#   the firmware template (QEMU): the MLIP build on mps3-an547 and the
#     CPU-only one on mps2-an386 stay (both boards, both targets);
#   the AArch64 GNU cross build: the digits MLIP build stays;
#   the guide's lines: "mrvl, llvm" is "mrvl, c" under another name
#     (MlipCli.LlvmIsASynonymAndInspectShowsThePlan checks the synonym);
#   mpirun: the 4-PE pipeline stays (the 2-PE one is the same transport);
#   the tarball built by a plain cc without a heap: the digits CNN and
#     MobileNet (depthwise, the most kernels) stay;
#   the digits PTQ accuracy of minmax on "c": minmax on "mrvl, c" (whose
#     int8 regions give the CPU's int8 bits) and entropy on "c" stay;
#   the digits 4-bit build on "mrvl, c" (its layers stay on the CPU: the
#     4-bit build on "c" stays, and MlipSupport tests the reason).
FULL_ONLY='^e2e\.Digits/TvmDemo\.BuildsUnchangedAndGivesHostBits/(c_O2|c_Os|mrvl_O2)$'
FULL_ONLY+='|^e2e\.Digits/FirmwareTemplate\.PatternInputsGiveHostBits/(mps3_an547_c|mps2_an386_mrvl)$'
FULL_ONLY+='|^e2e\.Shared/XplatGnu\.Aarch64Gnu99O2WithoutContractFlagGivesHostBits/(digits_c|kws_dscnn_c)$'
FULL_ONLY+='|^e2e\.Targets/GuideLines\.[A-Za-z]+/mrvl_llvm$'
FULL_ONLY+='|^e2e\.Models/MeshMpi\.StreamUnderMpirunIsBitIdenticalToTheSinglePeBuild/kws_dscnn_2pes$'
FULL_ONLY+='|^e2e\.Shared/Tarball\.BuildsWithPlainCcAndNoHeap/(kws_dscnn|ic_resnet8|ad_fc_autoencoder)$'
FULL_ONLY+='|^e2e\.PtqDigits\.Int8AccuracyOnCWithinOnePointOfFp32$'
FULL_ONLY+='|^e2e\.PtqInt4\.DigitsOnMrvlRunsFourBitLayersOnTheMlip$'

full="${MLIPC_TEST_FULL:-0}"
select=()
if [ "$full" = 1 ]; then
  export MLIPC_TEST_FULL=1 MLIPC_QEMU_SWEEP=full MLIPC_MESH_FULL=1 MLIPC_PTQ_FULL=1
else
  select=(-E "$FULL_ONLY")
fi

# A fresh build folder has no test timings, and ctest would start the
# slowest tests (the calibrations, the QEMU builds, each a few CPU-seconds)
# last, one after another at the end: seed its cost file (name, runs,
# seconds; ctest starts the costliest first and keeps its own figures after
# the first run).
cost="$BUILD_DIR/Testing/Temporary/CTestCostData.txt"
if [ ! -f "$cost" ]; then
  mkdir -p "$(dirname "$cost")"
  printf '%s 1 %s\n' e2e.PtqCli.CompileSummaryInspectTableAndMetadata 19 \
    e2e.PtqDigits.Int8AccuracyOnMrvlWithinOnePointOfFp32 13 e2e.PtqDigits.Int8AccuracyOnCWithinOnePointOfFp32 12 \
    e2e.PtqMixedPrecision.LayersBelowTheThresholdAreFp16OnTheMlip 12 e2e.PtqDigits.EmittedQdqModelMatchesOnnxruntime 10 \
    tools.cortex_m_size 8 bench.short 8 report.chromium 9 runtime.kmath_xplat 6 e2e.QuantizedMlipResize.NearestEveryModeIsAnInt8CopyOnTheMlip 6 \
    e2e.Targets/GuideLines.CompileAndRunAsTyped/mrvl_c 5 e2e.Models/QemuSweep.OutputsAreTheHostBits/aarch64_mrvl 5 \
    e2e.Models/QemuSweep.OutputsAreTheHostBits/cortex_m55_mrvl 5 e2e.MlipResize.NearestAndBilinearEveryCoordinateMode 4 \
    > "$cost"
  echo "---" >> "$cost"
fi

# The sanitizer step's short-mode build runs beside the suite at the lowest
# priority: the suite leaves a quarter of the two cores idle (tests that
# wait on a child, a socket or a timeout, and its last long tests alone at
# the end: 1,273 CPU-s in 847 s at stop 45), which that build (465 CPU-s)
# fills instead of running after it; the step itself then finds its build
# done. Its log: $BUILD_DIR/sanitize-prebuild.txt (a failure there shows
# again in the step's own build).
san_mode="${MLIPC_SANITIZE:-short}"
prebuild=
if [ "$san_mode" = short ]; then
  MLIPC_SANITIZE=build nice -n 19 ./scripts/sanitize.sh >"$BUILD_DIR/sanitize-prebuild.txt" 2>&1 &
  prebuild=$!
fi
status=0
ctest --test-dir "$BUILD_DIR" -j"$(nproc)" --output-on-failure "${select[@]}" "$@" | tee "$LOG" || status=$?
t2=$(date +%s)
children_cpu
c2=$CHILDREN_CPU
# The summaries again, verbose, without re-running their fixtures.
ctest --test-dir "$BUILD_DIR" -R '\.summary$' -FA '.*' -V 2>/dev/null | grep -E '^[0-9]+: (ONNX|  )' | sed 's/^[0-9]*: //' || true
# One line per finished test: "  12/345 Test  #67: name ....   Passed    0.01 sec".
results='^ *[0-9]+/[0-9]+ Test +#[0-9]+: '
total=$(grep -cE "$results" "$LOG" || true)
passed=$(grep -E "$results" "$LOG" | grep -cE ' Passed +[0-9.]+ sec' || true)
skipped=$(grep -E "$results" "$LOG" | grep -cE '\*\*\*Skipped' || true)
left=0
if [ "$full" != 1 ]; then
  left=$(ctest --test-dir "$BUILD_DIR" -N -R "$FULL_ONLY" | sed -n 's/^Total Tests: //p')
fi
echo "tests: $passed passed, $((total - passed - skipped)) failed, $skipped skipped (of $total run by ctest);" \
     "$left left to the full mode (MLIPC_TEST_FULL=1)"
echo "times: setup and build $((t1 - t0)) s, tests $((t2 - t1)) s;" \
     "CPU-seconds (user + system): setup and build $c1, tests $((c2 - c1))"
if [ -n "$prebuild" ]; then
  wait "$prebuild" || true
  t3=$(date +%s)
  children_cpu
  echo "sanitizer build beside the suite: done $((t3 - t2)) s after it; CPU-seconds (user + system): $((CHILDREN_CPU - c2))"
fi
if [ "$san_mode" != 0 ]; then
  ./scripts/sanitize.sh || status=$?
fi
children_cpu
echo "total: $(($(date +%s) - t0)) s, $CHILDREN_CPU CPU-seconds"
exit $status
