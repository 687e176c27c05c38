#!/usr/bin/env bash
# The CPU-seconds (user + system, the test's processes and the compilers and
# programs they run) of each test ctest selects, one test at a time, the
# costliest first: where the suite's time goes, whatever the machine's load.
#   scripts/suite_cpu.sh [ctest selection...]   e.g. -R '^e2e\.Ptq'
# The build folder is MLIPC_BUILD_DIR (build). A test's first run may build
# models the build cache (BUILD_DIR/test-cache) then holds: as in a fresh
# suite, run it once on a fresh cache (remove test-cache) for the cold figure.
# The phases of the whole suite: scripts/test.sh prints their CPU-seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
out=$(mktemp)
trap 'rm -f "$out" "$out.t" "$out.log"' EXIT
ctest --test-dir "$BUILD_DIR" -N "$@" | sed -n 's/^ *Test *#[0-9]*: //p' | while read -r t; do
  re="^$(printf '%s' "$t" | sed 's/[].[^$*+?(){}|\\/]/\\&/g')\$"
  status=passed
  /usr/bin/time -o "$out.t" -f '%U %S' ctest --test-dir "$BUILD_DIR" -R "$re" >"$out.log" 2>&1 || status=FAILED
  awk -v t="$t" -v s="$status" '{printf "%8.2f  %s%s\n", $1 + $2, t, s == "passed" ? "" : "  (" s ")"}' "$out.t" >>"$out"
done
sort -rn "$out"
awk '{s += $1} END {printf "%8.2f  total (%d tests)\n", s, NR}' "$out"
