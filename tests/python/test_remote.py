"""module.run(..., remote="host:port"): the digits example cross-built by
compile(cross_compiler=...) runs on the AArch64 mlipc-serve (under
qemu-aarch64 on 127.0.0.1, as e2e.Remote does) and gives the bits of the
host build; a module without a cross build is a RunError naming what to do.
"""

import os
import re
import subprocess
import time

import numpy as np
import pytest

import mlipc
from conftest import DIGITS


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    exe = os.environ.get("MLIPC_SERVE_AARCH64")
    if not exe or not os.path.exists(exe):
        pytest.fail("MLIPC_SERVE_AARCH64 names no server (ctest sets it; CMake builds it with aarch64-linux-gnu-gcc)")
    work = tmp_path_factory.mktemp("serve")
    p = subprocess.Popen(["qemu-aarch64", exe, "--port", "0", "--workdir", str(work), "--exec-wrapper", "qemu-aarch64",
                          "--exec-wrapper-arg", "-L", "--exec-wrapper-arg", "/usr/aarch64-linux-gnu"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()  # "mlipc-serve-aarch64: listening on 127.0.0.1 port N"
    m = re.search(r" port (\d+)", line)
    assert m, line
    yield f"127.0.0.1:{m.group(1)}", work
    p.terminate()
    p.wait(timeout=30)


@pytest.mark.parametrize("target", ["c", "mrvl, c"])
def test_remote_run_gives_the_host_bits(server, digit, target):
    endpoint, work = server
    cross = mlipc.compile(DIGITS, target=target, cross_compiler="aarch64-linux-gnu-gcc")
    host = mlipc.compile(DIGITS, target=target)
    got = cross.run({"Input3": digit}, remote=endpoint)
    want = host.run({"Input3": digit})
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype and got[k].tobytes() == want[k].tobytes(), k
    assert int(np.argmax(got["Plus214_Output_0"])) == 7
    # The server removes the job folder as the connection ends, just after the client returns.
    for _ in range(200):
        if not any(work.iterdir()):
            break
        time.sleep(0.05)
    assert not any(work.iterdir()), "the server left files in its working folder"


def test_remote_without_a_cross_build_is_a_run_error(server, digit):
    endpoint, _ = server
    with pytest.raises(mlipc.RunError, match="has no cross build to run on .*compile it with --cross-compiler"):
        mlipc.compile(DIGITS, target="c").run({"Input3": digit}, remote=endpoint)
