#!/usr/bin/python3
"""Fingerprints of every file mlipc writes into a tarball, for every model of
tests/data and the examples, to prove a refactoring changed none of them
(or to list exactly what it changed).

    tests/tools/build_fingerprint.py MLIPC OUT.txt [--keep=DIR] [--only=SUBSTRING]

compiles, with the mlipc binary MLIPC, examples/digits/model.onnx and every
tests/data/models/*/model.onnx for
  - --target c,
  - --target "mrvl, c" with 8 tiles and with 2 tiles and pinned weights,
    -quantize=int8 for the quantized models (quant_*, int8_*), fp16 otherwise,
and the digits CNN quantized by calibration (tests/data/ptq) for both targets,
and writes one line per file of the tarball, sorted:
  <case> <config> <file> sha256:<digest>
(metadata.json without its export time; runtime/ and templates/ are left out:
they are the repository's own files, embedded). Run it at two commits and
diff the files. With --keep=DIR every fingerprinted file is also written under
DIR/<case>/<config>/, so that a difference can be read with diff -r.

tests/tools/mlip_fingerprint.py covers the ONNX node tests and the outputs
of `mlipc run`; this one covers the generated C of the suite's models.
"""
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def models():
    out = [("digits", ROOT / "examples/digits/model.onnx"), ("digits_ptq", ROOT / "examples/digits/model.onnx")]
    for d in sorted((ROOT / "tests/data/models").iterdir()):
        if (d / "model.onnx").exists():
            out.append((d.name, d / "model.onnx"))
    return out


def configs(case):
    q = "int8" if case.startswith(("quant_", "int8_")) else "fp16"
    if case == "digits_ptq":  # post-training quantization of the fp32 digits CNN
        calib = ["--calibration", str(ROOT / "tests/data/ptq/digits_calib200.npz")]
        return [("c", ["--target", "c", "--quantize", "int8", *calib]),
                ("mrvl-t4p1", ["--target", "mrvl, c", "--target-mrvl-num_tiles=4",
                               "--target-mrvl-mattr=sim -quantize=int8 -wb_pin_ocm=1", *calib])]
    return [("c", ["--target", "c"]),
            ("mrvl-t8p0", ["--target", "mrvl, c", "--target-mrvl-num_tiles=8",
                           f"--target-mrvl-mattr=sim -quantize={q} -wb_pin_ocm=0"]),
            ("mrvl-t2p1", ["--target", "mrvl, c", "--target-mrvl-num_tiles=2",
                           f"--target-mrvl-mattr=sim -quantize={q} -wb_pin_ocm=1"])]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    mlipc, out_path = os.path.abspath(args[0]), args[1]
    keep = next((a[len("--keep="):] for a in sys.argv if a.startswith("--keep=")), None)
    only = next((a[len("--only="):] for a in sys.argv if a.startswith("--only=")), None)
    lines = []
    n_files = n_builds = n_failed = 0
    with tempfile.TemporaryDirectory(prefix="mlipc-bfp-") as tmpdir:
        tar = Path(tmpdir) / "model.tar"
        for case, model in models():
            if only and only not in case:
                continue
            for config, opts in configs(case):
                r = subprocess.run([mlipc, "compile", str(model), *opts, "-o", str(tar)],
                                   capture_output=True, text=True)
                n_builds += 1
                if r.returncode != 0:
                    n_failed += 1
                    digest = hashlib.sha256(r.stderr.encode()).hexdigest()
                    lines.append(f"{case} {config} compile-failed sha256:{digest}")
                    continue
                with tarfile.open(tar) as tf:
                    for m in tf.getmembers():
                        if not m.isfile():
                            continue
                        name = m.name.lstrip("./")
                        if name.startswith(("runtime/", "templates/")):
                            continue
                        data = tf.extractfile(m).read()
                        if name == "metadata.json":
                            md = json.loads(data)
                            md.pop("export_datetime", None)
                            for mod in md.get("modules", {}).values():
                                mod.pop("export_datetime", None)
                            data = json.dumps(md, sort_keys=True, indent=1).encode()
                        if keep:
                            p = Path(keep) / case / config / name
                            p.parent.mkdir(parents=True, exist_ok=True)
                            p.write_bytes(data)
                        lines.append(f"{case} {config} {name} sha256:{hashlib.sha256(data).hexdigest()}")
                        n_files += 1
    lines.sort()
    lines.append(f"# builds {n_builds}, failed {n_failed}, files {n_files}")
    Path(out_path).write_text("\n".join(lines) + "\n")
    print(lines[-1])


if __name__ == "__main__":
    main()
