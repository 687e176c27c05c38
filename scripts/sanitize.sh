#!/usr/bin/env bash
# The sanitizer step of the test suite (run by scripts/test.sh; docs/security.md):
# builds the compiler, the runtime, the tests and the libFuzzer targets with
# clang-14, AddressSanitizer and UBSan (any report aborts, leaks included) in
# build-san/; `mlipc run` in that build also compiles the generated code and
# the runtime it builds with the same sanitizers. Then it runs
#   short (default; fits CI): every unit test but the operator kernels'
#     generated-C sweeps (unit.<Op>.GeneratedC*), every runtime test; every end-to-end
#     test (the digits example compiled for "mrvl, c", the robustness cases,
#     every shared and generated model on both targets) except the MLIP bit-identity sweep
#     over tile counts and weight placements (the same code, 8 more compiles
#     per model) and the tests whose sanitized run checks nothing more (SHORT_EXCLUDE);
#     the ONNX conformance cases, on "mrvl, c", of the operators
#     the MLIP runs (SANITIZE_CONFORMANCE below: the MLIP lowering, encoder
#     and simulator and the CPU kernels around them); each fuzz target for
#     MLIPC_FUZZ_SECONDS (10) seconds;
#   full (MLIPC_SANITIZE=full): the whole suite, every conformance case;
#   build (MLIPC_SANITIZE=build): only the build (scripts/fuzz.sh uses it).
# Extra arguments go to ctest. docs/security.md gives the times.
set -euo pipefail
cd "$(dirname "$0")/.."
SAN_DIR="${MLIPC_SAN_BUILD_DIR:-build-san}"
MODE="${MLIPC_SANITIZE:-short}"
FUZZ_SECONDS="${MLIPC_FUZZ_SECONDS:-10}"
# Conformance cases on the MLIP target of the operators it offloads.
SANITIZE_CONFORMANCE='conformance\.mrvl\.node_test_(conv|maxpool|averagepool|globalaveragepool|globalmaxpool|gemm|matmul|add|relu|clip|softmax|pad)(_|$)'
# Left to the full mode: the MLIP bit-identity sweep; the operator kernels'
# generated-C sweeps (unit.<Op>.GeneratedC*, Resize's every-mode sweeps, the
# random data-movement sweeps: a third of the short mode's time; the same
# kernels run sanitized in the e2e and conformance tests); and what the
# sanitizers do not reach: the tarball built with the plain system compiler,
# the cross builds under QEMU (runtime.kmath_xplat, e2e XplatGnu and the
# Marvell guide's cross-compiled lines), and the runs killed by a signal (no
# exit, so no leak check).
SHORT_EXCLUDE='^e2e\.(Shared/MlipModels|Generated/MlipGeneratedModels)\.BitIdenticalForEveryTileCountAndWeightPlacement/'
SHORT_EXCLUDE+='|^unit\.[A-Za-z0-9_]+\.GeneratedC|^unit\.Resize\.(Nearest|LinearAndCubic)Every|^unit\.(Seeds/)?DatamoveRandom'
# The int8 bit-identity sweep (8 builds per model) keeps five of its twenty
# models, the QDQ residual SE block (int8 conv, depthwise conv, pools, add)
# and the four small QDQ models of the other int8 commands (FC, average pool,
# Mul and Concat, the tables); the others repeat those commands on larger maps.
SHORT_EXCLUDE+='|^e2e\.Models/QuantizedMlip\.[A-Za-z0-9]+/quant_(qop_|qdq_mlperf_|qdq_seed_)'
SHORT_EXCLUDE+='|^e2e\.Shared/Tarball\.BuildsWithPlainCcAndNoHeap/|^runtime\.kmath_xplat$|^e2e\.Signals/Interrupt\.'
SHORT_EXCLUDE+='|^e2e\.Shared/XplatGnu\.|^e2e\.Targets/GuideLines\.'
# Firmware and cross builds under QEMU (the TVM demo flow, the firmware
# template, the per-model sweep), the vector kmath's cc/clang/QEMU builds and
# the MPI runs: the sanitizers reach none of that code (the threads transport
# of the mesh stays).
SHORT_EXCLUDE+='|^e2e\.(Digits/TvmDemo|TvmDemoErrors|FirmwarePlatformTemplate|Digits/FirmwareTemplate|FirmwareTemplateMemory|Models/QemuSweep|Models/MeshMpi)\.|^unit\.KmathN\.'
# The tiled kernels' random generated-C sweeps (as unit.<Op>.GeneratedC*);
# of the int8 sweep's newer models the upsampling decoder (int8 RESIZE)
# stays, the Pad and ConvTranspose models repeat CONV2D on the MLIP; of
# post-training quantization the CPU digits run, the CLI and the errors stay
# (the MLIP run and the mixed-precision model repeat the same calibration).
SHORT_EXCLUDE+='|^unit\.TiledKernels\.Random|^e2e\.Models/QuantizedMlip\.[A-Za-z0-9]+/quant_qdq_(mlip_pad|unet_up)$'
SHORT_EXCLUDE+='|^e2e\.PtqDigits\.Int8AccuracyOnMrvl|^e2e\.PtqMixedPrecision\.'

source scripts/ccache-env.sh
start=$(date +%s)
cmake -S . -B "$SAN_DIR" -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_FLAGS_SANITIZE="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" \
  -DMLIPC_ASAN=ON -DMLIPC_FUZZ=ON -DMLIPC_FUZZ_SECONDS="$FUZZ_SECONDS" "${launcher[@]}" >/dev/null
cmake --build "$SAN_DIR" -j"$(nproc)" >/dev/null
built=$(date +%s)
if [ "$MODE" = build ]; then exit 0; fi

# Leaks count as findings; UBSan and ASan stop at the first report. The
# cache of built models is the build folder's own.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export MLIPC_CACHE_DIR="$PWD/$SAN_DIR/mlipc-cache"
mkdir -p "$MLIPC_CACHE_DIR" && chmod 700 "$MLIPC_CACHE_DIR"
# A fresh build folder has no test timings, and ctest then starts the
# slowest sanitized tests (the PTQ calibrations, 1 to 2.5 minutes each under
# ASan) last, one after another at the end: seed its cost file (name, runs,
# seconds; ctest starts the costliest first and keeps its own figures after).
cost="$SAN_DIR/Testing/Temporary/CTestCostData.txt"
if [ ! -f "$cost" ]; then
  mkdir -p "$(dirname "$cost")"
  printf '%s 1 %s\n' e2e.PtqCli.CompileSummaryInspectTableAndMetadata 150 \
    e2e.PtqDigits.Int8AccuracyOnCWithinOnePointOfFp32 100 e2e.PtqDigits.EmittedQdqModelMatchesOnnxruntime 70 \
    e2e.MlipResize.NearestAndBilinearEveryCoordinateMode 70 e2e.QuantizedMlipResize.NearestEveryModeIsAnInt8CopyOnTheMlip 60 \
    e2e.MlipPools.CeilModeAsymmetricPadsAndCountIncludePad 45 e2e.MlipGenerated.SimulatorCyclesEqualCompilerEstimates 36 \
    e2e.MlipPools.Dilations 30 > "$cost"
  echo "---" >> "$cost"
fi
status=0
if [ "$MODE" = full ]; then
  ctest --test-dir "$SAN_DIR" -j"$(nproc)" --output-on-failure "$@" || status=$?
else
  ctest --test-dir "$SAN_DIR" -j"$(nproc)" --output-on-failure \
    -R "^(unit\.|runtime\.|e2e\.|fuzz\.)|^${SANITIZE_CONFORMANCE}" -E "$SHORT_EXCLUDE" "$@" || status=$?
fi
end=$(date +%s)
echo "sanitizer step ($MODE): build $((built - start)) s, tests $((end - built)) s"
exit $status
