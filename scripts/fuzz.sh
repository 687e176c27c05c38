#!/usr/bin/env bash
# The long fuzz run (docs/security.md): each libFuzzer target for SECONDS
# (default 600, the documented 10 minutes), one after the other, on a
# sanitizer build of its own (build-fuzz/, made by scripts/sanitize.sh with
# the C++ at -O1), starting from
# the seed corpora plus whatever earlier runs added. Prints one row per
# target: executions, executions per second, the corpus at the end (units/bytes,
# as libFuzzer counts it), the inputs saved in corpus/<target>/ so far, peak
# RSS, findings.
# A finding leaves its input in build-fuzz/tests/fuzz/artifacts/ and makes the
# script exit non-zero.
#   scripts/fuzz.sh [SECONDS] [TARGET...]      targets: onnx npz tar cmdbuf calib pipeline serve
set -euo pipefail
cd "$(dirname "$0")/.."
# Its own build folder, the compiler at -O1 (more executions per second
# than the test step's -O0 build in build-san/).
SAN_DIR="${MLIPC_FUZZ_BUILD_DIR:-build-fuzz}"
SECONDS_EACH="${1:-600}"
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(onnx npz tar cmdbuf calib pipeline serve)
MLIPC_SANITIZE=build MLIPC_SAN_BUILD_DIR="$SAN_DIR" MLIPC_SAN_CXX_OPT=-O1 ./scripts/sanitize.sh
[ -d "$SAN_DIR/tests/fuzz/seeds/onnx" ] || ctest --test-dir "$SAN_DIR" -R '^fuzz\.seeds$' >/dev/null
work="$SAN_DIR/tests/fuzz"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
status=0
rows=()
for t in "${TARGETS[@]}"; do
  log="$work/long-$t.log"
  rc=0
  # fuzz_calib's entropy search takes seconds per input by design (tests/fuzz/CMakeLists.txt).
  timeout=20; [ "$t" = calib ] && timeout=60
  "$work/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout="$timeout" -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$t-" "$work/corpus/$t" "$work/seeds/$t" >"$log" 2>&1 || rc=$?
  # libFuzzer pads the stat lines with several spaces.
  libfuzzer_stat() { grep -oE "stat::$1:[[:space:]]*[0-9]+" "$log" | grep -oE '[0-9]+$' | tail -1; }
  execs=$(libfuzzer_stat number_of_executed_units)
  rate=$(libfuzzer_stat average_exec_per_sec)
  rss=$(libfuzzer_stat peak_rss_mb)
  # The whole corpus the run ended with (seeds it kept and what it added),
  # as libFuzzer counts it: units/bytes.
  corpus=$(grep -oE 'DONE .* corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | grep -oE '[0-9]+/[0-9]+[a-zA-Z]*$' | tail -1)
  added=$(ls "$work/corpus/$t" | wc -l)
  findings=0
  if [ "$rc" -ne 0 ]; then findings=1; status=1; fi
  rows+=("$(printf '%-8s %8ss %12s %10s %12s %10s %8s MB %9s' "$t" "$SECONDS_EACH" "${execs:-?}" "${rate:-?}" "${corpus:-?}" "$added" "${rss:-?}" "$findings")")
done
printf '%-8s %9s %12s %10s %12s %10s %11s %9s\n' target time execs exec/s corpus saved peak-rss findings
printf '%s\n' "${rows[@]}"
exit $status
