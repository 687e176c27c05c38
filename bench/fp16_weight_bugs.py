#!/usr/bin/env python3
"""What a weight-rounding bug would do to the MLIP path's accuracy: prints,
per model, the worst error against the stored onnxruntime outputs (as a
fraction of max|ref|) of the correct fp16 build and of builds whose weights
(float initializers of rank 2 and up) were first rounded to bfloat16, moved
one binary16 ulp away from zero after correct rounding, or rounded to 6
significant bits. docs/user-guide.md ("Accuracy") tabulates it beside the
tests' bound. Usage: bench/fp16_weight_bugs.py [build/bin/mlipc]; needs
python3-numpy and python3-onnx; takes some minutes (it compiles and runs
each model four times)."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLIPC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/bin/mlipc")


def bf16(a):
    b = a.view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


def six_bits(a):
    b = a.view(np.uint32).astype(np.uint64)
    return ((b + 0x1FFFF + ((b >> 18) & 1)) & 0xFFFC0000).astype(np.uint32).view(np.float32)


def ulp_up(a):
    h = a.astype(np.float16)
    with np.errstate(over="ignore"):
        return np.where(h != 0, np.nextafter(h, np.copysign(np.float16(np.inf), h)), h).astype(np.float32)


BUGS = {"fp16 (correct)": None, "bf16 weights": bf16, "1 ulp up": ulp_up, "6-bit weights": six_bits}


def worst_errors(folder, bug, work):
    m = onnx.load(os.path.join(folder, "model.onnx"))
    if bug is not None:
        for t in m.graph.initializer:
            a = numpy_helper.to_array(t)
            if a.dtype == np.float32 and a.ndim >= 2:
                t.CopyFrom(numpy_helper.from_array(bug(a.copy()).astype(np.float32), t.name))
    inits = {t.name for t in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in inits]
    data = os.path.join(folder, "test_data_set_0")
    inputs = {n: numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f"input_{k}.pb"))) for k, n in enumerate(names)}
    onnx.save(m, os.path.join(work, "m.onnx"))
    np.savez(os.path.join(work, "in.npz"), **inputs)
    subprocess.run([MLIPC, "compile", os.path.join(work, "m.onnx"), "--target", "mrvl, c", "-o",
                    os.path.join(work, "m.tar")], check=True, capture_output=True)
    subprocess.run([MLIPC, "run", os.path.join(work, "m.tar"), "--inputs", os.path.join(work, "in.npz"), "--outputs",
                    os.path.join(work, "out.npz")], check=True, capture_output=True)
    out = np.load(os.path.join(work, "out.npz"))
    errors = []
    for k, o in enumerate(m.graph.output):
        ref = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f"output_{k}.pb"))).astype(np.float64)
        got = out[o.name].astype(np.float64)
        scale = np.max(np.abs(ref)) or 1.0
        errors.append(np.max(np.abs(got - ref)) / scale)
    return errors


def main():
    models = [("seed_digits_cnn", os.path.join(ROOT, "examples/digits"))]
    base = os.path.join(ROOT, "tests/data/models")
    models += [(n, os.path.join(base, n)) for n in sorted(os.listdir(base))
               if n.startswith(("mlperf_tiny_", "torch_")) and os.path.isdir(os.path.join(base, n))]
    print("| model | " + " | ".join(BUGS) + " |")
    print("|---|" + "---|" * len(BUGS))
    with tempfile.TemporaryDirectory() as work:
        for name, folder in models:
            cells = [" / ".join(f"{e:.2e}" for e in worst_errors(folder, bug, work)) for bug in BUGS.values()]
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
