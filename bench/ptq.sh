#!/usr/bin/env bash
# Post-training quantization's full figures (docs/user-guide.md,
# "Post-training quantization"): the suite's PTQ tests with MLIPC_PTQ_FULL=1,
# which adds every MLPerf Tiny and torch_* model of tests/data (calibrated
# on 32 random inputs, top-1 agreement with fp32 on 100 others, output
# SQNR) and the digits accuracy with the percentile and entropy methods to
# the two models and the minmax digits runs of the normal suite. About ten
# minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
cmake --build "$BUILD_DIR" -j2 --target mlipc mlipc_e2e_tests >/dev/null
MLIPC_PTQ_FULL=1 "$BUILD_DIR/tests/e2e/mlipc_e2e_tests" --gtest_filter='*Ptq*' | grep -E '^(digits|ptq) |FAILED|PASSED'
