#!/usr/bin/env bash
# The whole test suite: unit (GoogleTest, cmocka), ONNX conformance, models
# end to end, command line. Prints the conformance counts at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
status=0
ctest --test-dir "$BUILD_DIR" -j"$(nproc)" --output-on-failure "$@" || status=$?
# The summaries again, verbose, without re-running their fixtures.
ctest --test-dir "$BUILD_DIR" -R '\.summary$' -FA '.*' -V 2>/dev/null | grep -E '^[0-9]+: (ONNX|  )' | sed 's/^[0-9]*: //' || true
exit $status
