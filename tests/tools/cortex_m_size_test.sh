#!/usr/bin/env bash
# tools.cortex_m_size: scripts/cortex_m_size.py on the digits example for
# `c` and for "mrvl, c" (Cortex-M55 at -Os, and Cortex-M4F at -O2 for `c`):
# every runtime and generated file must build for the core, the `c` image
# must carry no simulator code or OCM, the MLIP image must, the constants and the
# arena must be what metadata.json says, and the stack depth must be bounded.
# usage: cortex_m_size_test.sh <repo root> <mlipc binary> <work dir>
set -euo pipefail
ROOT=$1 MLIPC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
model="$ROOT/examples/digits/model.onnx"
"$MLIPC" compile "$model" --target c -o c.tar >/dev/null
"$MLIPC" compile "$model" --target "mrvl, c" -o m.tar >/dev/null
python3 "$ROOT/scripts/cortex_m_size.py" c.tar --json c.json
python3 "$ROOT/scripts/cortex_m_size.py" m.tar --json m.json
python3 "$ROOT/scripts/cortex_m_size.py" c.tar --mcpu cortex-m4 --opt=-O2 --json c4.json >/dev/null
python3 - <<'PY'
import json, sys, tarfile
def meta(tar):
    with tarfile.open(tar) as t:
        member = next(n for n in t.getnames() if n.lstrip("./") == "metadata.json")
        m = json.load(t.extractfile(member))
    return m["modules"]["default"]["memory"]["functions"]["main"][0]
def count_constants(tar):
    with tarfile.open(tar) as t:
        return sum(t.extractfile(n).read().count(b"\nconst union {") for n in t.getnames() if n.endswith("_lib0.c"))
consts = {tar: count_constants(tar) for tar in ("c.tar", "m.tar")}
bad = []
for name, tar in (("c.json", "c.tar"), ("c4.json", "c.tar"), ("m.json", "m.tar")):
    r = json.load(open(name))
    s, md = r["sizes"], meta(tar)
    gen = s["generated code"]
    if gen["code"] <= 0: bad.append(f"{name}: no generated code")
    if gen["arena"] != md["workspace_size_bytes"]:
        bad.append(f"{name}: arena {gen['arena']} != workspace_size_bytes {md['workspace_size_bytes']}")
    # Each constant is 16-byte aligned: up to 15 bytes of padding before each.
    if not (0 <= gen["constants"] - md["constants_size_bytes"] < 16 * consts[tar]):
        bad.append(f"{name}: constants {gen['constants']} vs constants_size_bytes {md['constants_size_bytes']}")
    if r["stack_bytes"] is None or r["stack_bytes"] <= 0: bad.append(f"{name}: stack depth {r['stack_bytes']}")
    sim = s["simulator"]["code"]
    if name.startswith("c") and sim != 0: bad.append(f"{name}: {sim} bytes of simulator code in a CPU-only image")
    if name == "m.json" and sim <= 0: bad.append("m.json: no simulator code in an MLIP image")
    ocm = gen["ocm"]
    if name.startswith("c") and ocm != 0: bad.append(f"{name}: {ocm} bytes of simulator OCM in a CPU-only image")
    if name == "m.json" and ocm <= 0: bad.append("m.json: no OCM (.bss.noinit.mlip_ocm) in an MLIP image")
print("\n".join(bad) if bad else "size report checks: ok")
sys.exit(1 if bad else 0)
PY
