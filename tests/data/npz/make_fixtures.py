#!/usr/bin/env python3
"""Regenerates the .npz/.npy fixtures of tests/unit/io/npz_test.cpp.

Run once with numpy (1.24 made the committed files); the C++ tests only read
the results and do not need Python.
"""
import io
import pathlib
import zipfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def arrays():
    return {
        "f32": np.array([[1.5, -2.0, 3.25]], dtype=np.float32),
        "f64": np.array([[1.0, 2.5], [-3.0, 1e300]], dtype=np.float64),
        "f16": np.array([0.5, -1.0, 65504.0], dtype=np.float16),
        "i8": np.array([-128, -1, 0, 127], dtype=np.int8),
        "i16": np.array([-32768, 32767], dtype=np.int16),
        "i32": np.array([-2147483648, 7], dtype=np.int32),
        "i64": np.array([-(2**63), 2**62], dtype=np.int64),
        "u8": np.array([0, 255, 7], dtype=np.uint8),
        "u16": np.array([65535], dtype=np.uint16),
        "u32": np.array([4294967295, 1], dtype=np.uint32),
        "u64": np.array([2**64 - 1], dtype=np.uint64),
        "b1": np.array([[True, False], [False, True]]),
        "scalar": np.array(7.5, dtype=np.float32),  # 0-d
        "one_d": np.arange(3, dtype=np.int32),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }


def npy_bytes(a, version=None):
    f = io.BytesIO()
    np.lib.format.write_array(f, a, version=version)
    return f.getvalue()


def raw_zip(name, members):
    with zipfile.ZipFile(HERE / name, "w") as z:
        for k, v in members.items():
            z.writestr(k, v)


def main():
    np.savez(HERE / "stored.npz", **arrays())
    np.savez_compressed(HERE / "compressed.npz", **arrays())
    np.save(HERE / "f32_1x3.npy", arrays()["f32"])
    np.save(HERE / "i64_scalar.npy", np.array(-5, dtype=np.int64))
    np.save(HERE / "u8_3.npy", arrays()["u8"])
    np.save(HERE / "b1_2x2.npy", arrays()["b1"])
    np.save(HERE / "f16_0x3.npy", np.zeros((0, 3), dtype=np.float16))
    raw_zip("versions.npz", {
        "v2.npy": npy_bytes(np.arange(4, dtype=np.int16).reshape(2, 2), (2, 0)),
        "v3.npy": npy_bytes(np.arange(3, dtype=np.float64), (3, 0)),
    })
    np.savez(HERE / "big_endian.npz", x=np.arange(3, dtype=">f4"))
    np.savez(HERE / "complex.npz", x=np.array([1 + 2j], dtype="<c8"))
    np.savez(HERE / "object.npz", x=np.array([1, "a"], dtype=object))
    np.savez(HERE / "fortran.npz", x=np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    raw_zip("bad_magic.npz", {"x.npy": b"hello, this is not an array"})
    short = npy_bytes(np.arange(10, dtype=np.float32))[:-32]
    raw_zip("short_data.npz", {"x.npy": short})
    raw_zip("not_npy_member.npz", {"x.npy": npy_bytes(np.arange(2, dtype=np.int8)), "readme.txt": b"hi"})
    # Two members of one name (issue 26, item 12: the round-two review's reproducer, written here).
    with zipfile.ZipFile(HERE / "duplicate_member.npz", "w") as z:
        z.writestr("x.npy", npy_bytes(np.zeros(3, np.float32)))
        z.writestr("x.npy", npy_bytes(np.full(3, 7, np.float32)))
    (HERE / "not_a_zip.npz").write_bytes(b"this is a text file, not a zip archive\n")
    stored = (HERE / "stored.npz").read_bytes()
    (HERE / "truncated.npz").write_bytes(stored[: len(stored) // 2])


if __name__ == "__main__":
    main()
