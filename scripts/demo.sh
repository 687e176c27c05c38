#!/usr/bin/env bash
# The default example: compile the digits CNN for the MLIP accelerator (4
# tiles, fp16, weights pinned in on-chip memory), run it in host emulation on
# one handwritten digit, and print the prediction and the per-layer profile.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR="${MLIPC_BUILD_DIR:-build}"
MLIPC="$BUILD_DIR/bin/mlipc"

"$MLIPC" compile examples/digits/model.onnx --target "mrvl, c" --target-mrvl-num_tiles=4 \
  --target-mrvl-mattr="sim -quantize=fp16 -wb_pin_ocm=1" -o "$BUILD_DIR/digits.tar"
"$MLIPC" run "$BUILD_DIR/digits.tar" --inputs examples/digits/digit.npz --print-top 3 --profile
echo "(examples/digits/digit.npz holds a handwritten 7: index 7 should be on top)"
