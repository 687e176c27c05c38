#!/usr/bin/env bash
# report.chromium: mlipc report's pages open in headless Chromium (Debian
# chromium) with no console message (no error, no blocked request), the
# page's script ran to its end (it writes data-report-ok="<boxes>" on
# <body>), the DOM has one graph box per ONNX node (those that run in the
# graph, the others under "Folded at compile time") and one
# rectangle per arena buffer (counted from the tarball's metadata.json, not
# from the report's own data), no URL but the SVG namespace and the CSP
# that forbids every request; a screenshot of each page goes to the work
# folder. By default two pages (the digits model for "mrvl, c" and c);
# MLIPC_TEST_FULL=1 adds int8 PTQ, a 2-PE mesh and ResNet-18 (224x224,
# exported by bench/make_models.py with PyTorch into the work folder).
# Exit 77 (skipped) when chromium is not installed, or, in the full mode,
# when PyTorch is missing for the 224x224 case (after the other pages).
# usage: report_browser_test.sh <repo root> <mlipc binary> <work dir>
set -uo pipefail
ROOT=$1 MLIPC=$2 WORK=$3
PY=/usr/bin/python3
if ! command -v chromium >/dev/null 2>&1; then
  echo "report.chromium: SKIPPED: chromium is not installed (Debian package chromium, scripts/setup.sh)"
  exit 77
fi
mkdir -p "$WORK"
cd "$WORK" || exit 1
DIGITS="$ROOT/examples/digits/model.onnx"
fails=0 skipped=""
fail() { echo "report.chromium: $1: FAIL: $2"; fails=$((fails + 1)); }

# One graph box per ONNX node that runs, per module (a mesh draws each
# stage): the layers' source nodes (metadata.json) and the compiled graph's
# (src/<module>.graph "from" lines: views too); one per node of the model
# that folded away (metadata.json's onnx_node_names less those that run);
# the buffers of every memory
# plan.
expected() {
  "$PY" - "$1" <<'PYEOF'
import json, sys, tarfile
boxes = buffers = 0
running, every = set(), []
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        if not m.name.endswith("metadata.json"):
            continue
        for key, mod in json.load(t.extractfile(m))["modules"].items():
            graph = m.name[: -len("metadata.json")] + "src/" + key + ".graph"
            names = set(line[9:] for line in t.extractfile(graph).read().decode().splitlines()
                        if line.startswith("    from "))
            for l in mod["mlipc"]["layers"]:
                names.update(l.get("onnx_nodes", []))
            for r in (mod.get("mlip") or {}).get("regions", []):
                for l in r["layers"]:
                    names.update(l["onnx_nodes"])
            boxes += len(names)
            running |= names
            every = every or mod["mlipc"].get("onnx_node_names", [])
            buffers += len(mod["mlipc"].get("memory_plan", []))
# The nodes that folded at compile time: one box each, once per page.
boxes += len(set(every) - running)
print(boxes, buffers)
PYEOF
}

# check <case> <tarball>
check() {
  local name=$1 tar=$2 page="$1.html"
  rm -f "$page" "$name.png" "$name.dom" "$name.log"
  "$MLIPC" report "$tar" -o "$page" >/dev/null || { fail "$name" "mlipc report failed"; return; }
  grep -q "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"" "$page" ||
    fail "$name" "no Content-Security-Policy forbidding requests"
  local urls
  urls=$(grep -oE 'https?://[^" <]*' "$page" | grep -vx 'http://www.w3.org/2000/svg' | head -3)
  [ -z "$urls" ] || fail "$name" "URLs in the page: $urls"
  read -r want_boxes want_buffers < <(expected "$tar")
  timeout 180 chromium --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --user-data-dir="$WORK/profile" --dump-dom "file://$WORK/$page" >"$name.dom" 2>"$name.log"
  local console
  console=$(grep -E 'CONSOLE|Uncaught' "$name.log" | head -3)
  [ -z "$console" ] || fail "$name" "console: $console"
  grep -q ' data-report-error="' "$name.dom" && fail "$name" "the page's script reported an error"
  local ok boxes rects
  ok=$(grep -oE 'data-report-ok="[0-9]+"' "$name.dom" | grep -oE '[0-9]+')
  boxes=$(grep -oE '<g class="node [^"]*" data-node=' "$name.dom" | wc -l)
  rects=$(grep -oE '<rect class="buf"' "$name.dom" | wc -l)
  [ "$ok" = "$want_boxes" ] || fail "$name" "the script counted ${ok:-no} boxes (it did not finish?), want $want_boxes"
  [ "$boxes" = "$want_boxes" ] || fail "$name" "$boxes graph boxes in the DOM, want $want_boxes (one per ONNX node)"
  [ "$rects" = "$want_buffers" ] || fail "$name" "$rects buffer rectangles in the DOM, want $want_buffers"
  timeout 180 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$WORK/profile" \
    --window-size=1280,1600 --screenshot="$WORK/$name.png" "file://$WORK/$page" >/dev/null 2>&1
  [ "$(head -c 4 "$name.png" 2>/dev/null | tail -c 3)" = "PNG" ] || fail "$name" "no screenshot"
  echo "report.chromium: $name: $boxes boxes, $rects buffers, $(wc -c <"$page") bytes, screenshot $WORK/$name.png"
}

compile() {  # compile <tarball> <args...>
  local out=$1
  shift
  "$MLIPC" compile "$@" -o "$out" >/dev/null || { fail "$out" "mlipc compile failed"; return 1; }
}

compile digits_mrvl.tar "$DIGITS" --target "mrvl, c" && check digits_mrvl digits_mrvl.tar
compile digits_c.tar "$DIGITS" --target c && check digits_c digits_c.tar
if [ "${MLIPC_TEST_FULL:-0}" = 1 ]; then
  # 16 calibration samples: the report is the subject, not the accuracy.
  "$PY" -c "
import numpy as np, sys
d = np.load(sys.argv[1]); np.savez('calib16.npz', **{k: d[k][:16] for k in d.files})" \
    "$ROOT/tests/data/ptq/digits_calib200.npz" || fail digits_ptq "no calibration samples"
  [ -f calib16.npz ] && compile digits_ptq.tar "$DIGITS" --target "mrvl, c" --target-mrvl-mattr="sim -quantize=int8" \
      --calibration calib16.npz --io-dtype int8 && check digits_ptq digits_ptq.tar
  compile digits_mesh.tar "$DIGITS" --target "mrvl, c" --pes 2 && check digits_mesh digits_mesh.tar
  if "$PY" -c "import torch, torchvision" 2>/dev/null; then
    "$PY" "$ROOT/bench/make_models.py" "$WORK/models" resnet18 >/dev/null || fail resnet18 "the export failed"
    [ -f "$WORK/models/resnet18/model.onnx" ] && compile resnet18.tar "$WORK/models/resnet18/model.onnx" --target "mrvl, c" && check resnet18 resnet18.tar
  else
    skipped="resnet18 (PyTorch is not installed: Debian python3-torch, python3-torchvision)"
  fi
fi
rm -rf "$WORK/profile"
[ "$fails" -eq 0 ] || exit 1
if [ -n "$skipped" ]; then
  echo "report.chromium: SKIPPED: $skipped"
  exit 77
fi
echo "report.chromium: every page passed"
