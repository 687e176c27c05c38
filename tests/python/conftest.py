"""Shared fixtures of the Python module's tests (ctest runs each file: tests/CMakeLists.txt).

They read only examples/ and tests/data and write in pytest's temporary
folders; the host builds go to the build cache MLIPC_CACHE_DIR names (the
test suite's, as for the C++ tests).
"""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import mlipc

# Tarballs compared byte for byte carry the same export time (mlf/archive.h).
os.environ.setdefault("SOURCE_DATE_EPOCH", "1704067200")

SOURCE = pathlib.Path(os.environ.get("MLIPC_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DIGITS = SOURCE / "examples" / "digits" / "model.onnx"
DIGIT = SOURCE / "examples" / "digits" / "digit.npz"
DATA = SOURCE / "tests" / "data"


@pytest.fixture(scope="session")
def mlipc_bin() -> str:
    """The mlipc binary of the same build, to compare against."""
    path = os.environ.get("MLIPC_BIN")
    if not path:
        pytest.fail("MLIPC_BIN is not set (ctest sets it: tests/CMakeLists.txt)")
    return path


def run_cli(mlipc_bin, *args):
    r = subprocess.run([mlipc_bin, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="session")
def digit():
    return np.load(DIGIT)["Input3"]


@pytest.fixture(scope="session")
def digits_mrvl():
    """The digits example compiled for "mrvl, c" on 4 tiles, once per file."""
    return mlipc.compile(DIGITS, target="mrvl, c", num_tiles=4)
