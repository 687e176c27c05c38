#!/usr/bin/python3
"""Writes the seed streams of fuzz_serve (tests/fuzz/fuzz_serve.c): one
client's bytes each, in the remote-run protocol (serve/protocol.h). Run from
this folder: /usr/bin/python3 make_seeds.py"""
import struct


def frame(t, payload=b"", length=None):
    n = len(payload) if length is None else length
    return b"MLRX" + bytes([1, t, 0, 0]) + struct.pack("<I", n) + payload


HELLO, RUNNER, INPUT, OUTPUT, RUNS, START = 1, 2, 3, 4, 5, 6


def named(name, data=b""):
    return bytes([len(name)]) + name + data


good = (frame(HELLO) + frame(RUNNER, b"\x7fELF\x02\x01\x01\x00") + frame(INPUT, named(b"in0.bin", b"\0\0\x80?")) +
        frame(OUTPUT, b"out0.bin") + frame(RUNS, struct.pack("<II", 1, 1)) + frame(START))
seeds = {
    "good": good,
    "two_files": (frame(HELLO) + frame(RUNNER, b"#!x") + frame(INPUT, named(b"a", b"1")) + frame(INPUT, named(b"b")) +
                  frame(OUTPUT, b"c") + frame(OUTPUT, b"d") + frame(START)),
    "truncated": good[: len(good) // 2],
    # The name's length byte past the 64 the protocol allows (a server that
    # read it into its 65-byte buffer overflowed).
    "name_length_200": frame(HELLO) + frame(RUNNER, b"x") + frame(INPUT, named(b"a" * 200, b"abc")),
    "dotdot": frame(HELLO) + frame(RUNNER, b"x") + frame(INPUT, named(b"../x", b"abc")),
    "oversized": frame(HELLO) + frame(RUNNER, b"x" * 16, length=0xFFFFFFF0),
    "out_of_order": frame(HELLO) + frame(OUTPUT, b"o") + frame(RUNNER, b"x"),
    "bad_magic": b"GET / HTTP/1.0\r\n\r\n",
}
for name, data in seeds.items():
    with open(name + ".bin", "wb") as f:
        f.write(data)
