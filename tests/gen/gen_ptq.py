"""Post-training quantization (issue 12): the data tests/e2e/ptq_test.cpp reads.

- tests/data/ptq/digits_calib200.npz: Input3 [200, 1, 28, 28], the first 200
  images of the train split of the digits data set (images28, train_idx),
  the calibration set of seed_digits_cnn (examples/digits).
- tests/data/ptq/digits_test397.npz: Input3 [397, 1, 28, 28] and labels
  [397], the whole test split (test_idx): the accuracy test scores on it.
- tests/data/ptq/digits_qdq_ort.npz: Input3 [64, 1, 28, 28] (the first 64
  test images) and output [64, 1, 10], onnxruntime-node's outputs of the QDQ
  model `mlipc compile --quantize int8 --calibration digits_calib200.npz
  --emit-qdq` writes (mlipc from build/bin: build it first).

The digits data set is tests/data/digits/digits.npz (UCI handwritten
digits as scikit-learn ships them; its README gives the arrays), or
$DIGITS_NPZ."""
import os
import subprocess
import tempfile

import numpy as np

from refs import ROOT, ort_run

OUT = os.path.join(ROOT, "tests", "data", "ptq")
MLIPC = os.path.join(ROOT, "build", "bin", "mlipc")
DIGITS = os.environ.get("DIGITS_NPZ", os.path.join(ROOT, "tests", "data", "digits", "digits.npz"))


def main():
    os.makedirs(OUT, exist_ok=True)
    calib = os.path.join(OUT, "digits_calib200.npz")
    test = os.path.join(OUT, "digits_test397.npz")
    d = np.load(DIGITS)
    np.savez_compressed(calib, Input3=d["images28"][d["train_idx"][:200]])
    np.savez_compressed(test, Input3=d["images28"][d["test_idx"]], labels=d["labels"][d["test_idx"]])
    tmp = tempfile.mkdtemp()
    qdq = os.path.join(tmp, "digits_qdq.onnx")
    subprocess.run([MLIPC, "compile", os.path.join(ROOT, "examples", "digits", "model.onnx"), "--target", "c",
                    "--quantize", "int8", "--calibration", calib, "--emit-qdq", qdq, "-o",
                    os.path.join(tmp, "m.tar")], check=True, stdout=subprocess.DEVNULL)
    images = np.load(test)["Input3"][:64]
    outs = [ort_run(qdq, {"Input3": images[i:i + 1]})[0][1] for i in range(len(images))]
    np.savez_compressed(os.path.join(OUT, "digits_qdq_ort.npz"), Input3=images, output=np.stack(outs))


main()
