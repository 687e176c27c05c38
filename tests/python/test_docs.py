"""docs/python.md's code blocks run as written: the guide's flow on the
digits example, then the accuracy over the test split."""

import contextlib
import io
import os
import re

import pytest

from conftest import SOURCE

PAGE = SOURCE / "docs" / "python.md"


def blocks():
    return re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)


def test_the_pages_blocks_run_as_written(tmp_path, monkeypatch):
    pytest.importorskip("onnx")
    code = blocks()
    assert len(code) == 2, "docs/python.md: the flow and the accuracy block"
    # Run "from the repository's root": its examples/ and tests/data, and
    # what the blocks write in a folder of their own.
    os.symlink(SOURCE / "examples", tmp_path / "examples")
    (tmp_path / "tests").mkdir()
    os.symlink(SOURCE / "tests" / "data", tmp_path / "tests" / "data")
    monkeypatch.chdir(tmp_path)
    scope = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in code:
            exec(compile(block, str(PAGE), "exec"), scope)
    text = out.getvalue()
    assert "predicted digit: 7" in text
    assert (tmp_path / "digits.tar").is_file()
    # Within a point of the fp32 model's 388 of 397 (the page says so).
    assert abs(scope["correct"] - 388) * 100 / 397 <= 1.0, text
    assert re.search(r"accuracy: \d+/397 = \d+\.\d%", text)
