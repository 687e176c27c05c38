#!/usr/bin/env bash
# bench.cortex_m_short: bench/cortex_m/run.sh with the autoencoder at -Os
# (after the counter's check on a loop of known length) runs to the end and
# prints a row per core, so that the benchmark cannot rot. It checks no
# count. Exit 77 (skip) when a cross tool is missing.
# usage: bench_cortex_m_test.sh <repo root> <mlipc binary> <work dir>
set -uo pipefail
ROOT=$1 MLIPC=$2 WORK=$3
bash "$ROOT/bench/cortex_m/run.sh" --mlipc "$MLIPC" --models autoencoder --opts -Os --work "$WORK" >"$WORK.txt"
rc=$?
cat "$WORK.txt"
[ $rc -eq 0 ] || exit $rc
rows=$(grep -cE '^\| autoencoder \| cortex-m(55|4) \| -Os \| [0-9,]+ \| [0-9,]+ \| [0-9a-f]{8} \|$' "$WORK.txt")
[ "$rows" -eq 2 ] || { echo "bench.cortex_m_short: $rows rows for the autoencoder, not 2"; exit 1; }
