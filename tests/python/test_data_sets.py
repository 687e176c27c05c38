"""run_many() over the digits test split (the accuracy tests/e2e/ptq_test.cpp
asserts), quantization with a calibration dict, a two-PE pipeline."""

import numpy as np
import pytest

import mlipc
from conftest import DATA, DIGITS

# tests/e2e/ptq_test.cpp (PtqDigits): the fp32 model classifies 388 of the
# 397 test images right (97.7%, onnxruntime's figure).
FP32_CORRECT = 388


def correct(module, images, labels):
    outs = module.run_many([{"Input3": images[i : i + 1]} for i in range(len(images))])
    assert len(outs) == len(images)
    name = module.output_names[0]
    return sum(int(o[name].argmax()) == int(l) for o, l in zip(outs, labels))


@pytest.fixture(scope="module")
def test397():
    d = np.load(DATA / "ptq" / "digits_test397.npz")
    return d["Input3"], d["labels"]


def test_run_many_scores_the_397_test_images_as_the_e2e_test(test397):
    images, labels = test397
    assert images.shape == (397, 1, 28, 28)
    m = mlipc.compile(DIGITS, target="c")
    assert correct(m, images, labels) == FP32_CORRECT


def test_run_many_gives_each_run_bits_and_names_a_bad_sample(test397):
    images, _ = test397
    for target in ("c", "mrvl, c"):
        m = mlipc.compile(DIGITS, target=target)
        batch = [{"Input3": images[i : i + 1]} for i in range(5)]
        many = m.run_many(batch)
        assert len(many) == 5
        for b, o in zip(batch, many):
            want = m.run(b)
            assert list(o) == list(want) and all(o[k].tobytes() == want[k].tobytes() for k in want), target
        assert m.run_many([]) == []
        bad = batch[:2] + [{"Input3": images[:2]}] + batch[3:]
        with pytest.raises(mlipc.RunError, match="sample 2") as e:
            m.run_many(bad)
        assert "Input3" in str(e.value)


def test_quantize_with_a_calibration_dict(tmp_path):
    # 40 of the 200 calibration images: what is compared here is the three
    # ways of passing them, and each calibration costs its samples' runs
    # (tests/e2e/ptq_test.cpp scores the 200).
    calib = np.load(DATA / "ptq" / "digits_calib200.npz")["Input3"][:40]
    path = tmp_path / "calib40.npz"
    np.savez(path, Input3=calib)
    m = mlipc.compile(DIGITS, target="c", quantize="int8", calibration={"Input3": calib})
    q = m.inspect()["quantization"]
    assert q["samples"] == 40 and all(l["precision"] == "int8" for l in q["layers"])
    # The arrays in memory and a list of samples are the .npz file: the same
    # tarball.
    from_file = mlipc.compile(DIGITS, target="c", quantize="int8", calibration=path)
    from_list = mlipc.compile(DIGITS, target="c", quantize="int8", calibration={"Input3": list(calib)})
    tars = []
    for i, module in enumerate([m, from_file, from_list]):
        module.export(tmp_path / f"{i}.tar")
        tars.append((tmp_path / f"{i}.tar").read_bytes())
    assert tars[0] == tars[1] == tars[2]


def test_calibration_dict_is_checked_as_the_file(test397):
    calib = np.load(DATA / "ptq" / "digits_calib200.npz")["Input3"]
    with pytest.raises(mlipc.CompileError, match="calibration") as e:
        mlipc.compile(DIGITS, target="c", quantize="int8", calibration={"x": calib})
    assert "Input3" in str(e.value)


def test_a_two_pe_pipeline_runs(test397):
    m = mlipc.compile(DIGITS, target="c", pes=2)
    assert m.is_pipeline and m.inspect()["kind"] == "mesh"
    images, labels = test397
    one = mlipc.compile(DIGITS, target="c")
    a = m.run({"Input3": images[:1]})
    b = one.run({"Input3": images[:1]})
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes(), k
    # Several samples stream through one pipeline run.
    many = m.run_many([{"Input3": images[i : i + 1]} for i in range(8)])
    for i, o in enumerate(many):
        want = one.run({"Input3": images[i : i + 1]})
        assert all(o[k].tobytes() == want[k].tobytes() for k in want)
