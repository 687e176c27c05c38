"""compile() from a path, bytes and a ModelProto; run() against `mlipc run`'s
bits; inspect() against `mlipc inspect --json`; profile(); export and load."""

import json

import numpy as np
import pytest

import mlipc
from conftest import DIGIT, DIGITS, run_cli


def test_path_bytes_and_modelproto_give_the_same_tarball(tmp_path, digits_mrvl):
    onnx = pytest.importorskip("onnx")
    from_bytes = mlipc.compile(DIGITS.read_bytes(), target="mrvl, c", num_tiles=4)
    from_proto = mlipc.compile(onnx.load(str(DIGITS)), target="mrvl, c", num_tiles=4)
    tars = []
    for i, m in enumerate([digits_mrvl, from_bytes, from_proto]):
        m.export(tmp_path / f"{i}.tar")
        tars.append((tmp_path / f"{i}.tar").read_bytes())
    # The model's name is the same (the graph's); the files are too.
    assert tars[0] == tars[1] == tars[2]
    assert digits_mrvl.summary.startswith("mlipc: compiled")


def test_run_predicts_the_seven_with_the_bits_of_mlipc_run(tmp_path, mlipc_bin, digits_mrvl, digit):
    out = digits_mrvl.run({"Input3": digit})
    assert list(out) == digits_mrvl.output_names
    scores = out[digits_mrvl.output_names[0]]
    assert scores.dtype == np.float32 and scores.shape == (1, 10)
    assert int(scores.argmax()) == 7
    tar = tmp_path / "digits.tar"
    digits_mrvl.export(tar)
    run_cli(mlipc_bin, "run", tar, "--inputs", DIGIT, "--outputs", tmp_path / "out.npz")
    cli = np.load(tmp_path / "out.npz")
    assert list(cli.keys()) == list(out)
    for name, v in out.items():
        assert v.tobytes() == cli[name].tobytes(), name
    # Positional arrays, in input order, give the same.
    assert digits_mrvl.run([digit])[digits_mrvl.output_names[0]].tobytes() == scores.tobytes()


def test_inspect_is_mlipc_inspect_json(tmp_path, mlipc_bin, digits_mrvl):
    tar = tmp_path / "digits.tar"
    digits_mrvl.export(tar)
    loaded = mlipc.load(tar)  # named by its path, as the command line names it
    assert loaded.inspect() == json.loads(run_cli(mlipc_bin, "inspect", "--json", tar))
    d = digits_mrvl.inspect()
    assert d["mlip"]["options"]["num_tiles"] == 4
    assert d["kind"] == "model" and d["schedule"] and d["memory"]["buffers"]


def test_profile_rows_are_those_of_run_profile(mlipc_bin, tmp_path, digits_mrvl, digit):
    rows = digits_mrvl.profile({"Input3": digit})
    tar = tmp_path / "digits.tar"
    digits_mrvl.export(tar)
    text = run_cli(mlipc_bin, "run", tar, "--inputs", DIGIT, "--profile")
    table = text[text.index("profile"):].splitlines()[2:]
    cli_rows = [l.split()[:2] for l in table if not l.lstrip().startswith(("total", "estimated", "MACs"))]
    assert [[r.region, r.layer] for r in rows] == cli_rows
    mlip = [r for r in rows if r.region != "cpu"]
    assert mlip and all(r.cycles and r.cycles > 0 for r in mlip)
    assert sum(r.macs or 0 for r in rows) > 0


def test_export_and_load_round_trip(tmp_path, digits_mrvl, digit):
    tar = tmp_path / "m.tar"
    digits_mrvl.export(tar)
    back = mlipc.load(str(tar))
    assert back.input_names == ["Input3"]
    a = digits_mrvl.run({"Input3": digit})
    b = back.run({"Input3": digit})
    assert all(a[k].tobytes() == b[k].tobytes() for k in a)
    assert not any(p.name.startswith(".mlipc-") for p in tmp_path.iterdir())  # export's temporary file is gone
