#!/usr/bin/env bash
# The default example: compile the digits CNN, run it in host emulation on
# one handwritten digit, print the prediction and a per-layer profile.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
MLIPC="$BUILD_DIR/bin/mlipc"

"$MLIPC" compile examples/digits/model.onnx --target c -o "$BUILD_DIR/digits.tar"
"$MLIPC" run "$BUILD_DIR/digits.tar" --inputs examples/digits/digit.npz --print-top 3 --profile
echo "(the image in examples/digits/digit.npz is a handwritten 7: index 7 should be on top)"
