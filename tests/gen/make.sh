#!/usr/bin/env bash
# Regenerates the generated part of tests/data: runs every tests/gen/gen_*.py
# (or the ones named: tests/gen/make.sh gen_cpu_models.py). Installs what the
# generators need: Debian's python3-onnx, python3-numpy, python3-torch and
# python3-torchvision, and onnxruntime-node from the npm registry into
# tests/gen/.peer (not committed). The test suite itself needs none of this.
set -euo pipefail
cd "$(dirname "$0")/../.."
PACKAGES=(python3-onnx python3-numpy python3-torch python3-torchvision nodejs npm)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A machine may have node and npm without Debian's packages.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
missing=($(printf '%s\n' "${missing[@]}" | sed '/^$/d'))
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
PEER=tests/gen/.peer
if [ ! -d "$PEER/node_modules/onnxruntime-node" ]; then
  mkdir -p "$PEER"
  (cd "$PEER" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 >/dev/null)
fi
export ORT_NODE="$PWD/$PEER/node_modules/onnxruntime-node"
# Debian's interpreter: its python3-torch and python3-onnx, whatever python3 is first on PATH.
PY=/usr/bin/python3
if (($#)); then gens=("$@"); else gens=($(cd tests/gen && ls gen_*.py)); fi
for g in "${gens[@]}"; do
  echo "== $g"
  PYTHONPATH=tests/gen "$PY" "tests/gen/$g"
done
