#!/usr/bin/env python3
"""Cortex-M size report of an mlipc tarball (docs/user-guide.md, "Firmware size").

Builds the tarball's C (the generated code, with the MLIP simulator an MLIP
module carries, and the runtime core) with arm-none-eabi-gcc for one Cortex-M core at -Os, links it
with a main that calls tvmgen_<m>_run (--gc-sections: only what the entry
point reaches stays), and prints, per part, the code, the other read-only
data, the constants (.rodata.tvm), the arena (.bss.noinit.tvm), the
simulator's on-chip memory (.bss.noinit.mlip_ocm) and the other
zero-initialized or initialized data, from the linker's map. Then the
worst stack depth from the entry point, from GCC's call graph with each
function's frame (-fcallgraph-info=su): at a call through a pointer (the
simulator's opcode table) the deepest function of the program is assumed,
so the figure is an upper bound. Nothing is run.

usage: cortex_m_size.py MODEL.tar [--mcpu cortex-m55] [--cc arm-none-eabi-gcc] [--opt=-Os] [--json FILE]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

PARTS = ["runtime core", "simulator", "generated code", "main", "C library"]
KINDS = ["code", "rodata", "constants", "arena", "ocm", "data"]


def fail(msg):
    print(f"cortex_m_size: {msg}", file=sys.stderr)
    sys.exit(1)


def extract(tar_path, dest):
    try:
        with tarfile.open(tar_path) as tar:
            for m in tar.getmembers():
                name = os.path.normpath(m.name)
                if name.startswith(("/", "..")) or not (m.isfile() or m.isdir()):
                    fail(f"{tar_path}: member '{m.name}' is not a plain file inside the archive")
                if m.isfile():
                    out = os.path.join(dest, name)
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with tar.extractfile(m) as src, open(out, "wb") as dst:
                        dst.write(src.read())
    except (tarfile.TarError, OSError) as e:
        fail(f"{tar_path}: {e}")


def part_of(obj):
    if "/runtime/src/core/" in obj or obj.startswith("core_"):
        return "runtime core"
    if "/runtime/src/sim/" in obj or obj.startswith("sim_"):
        return "simulator"
    if obj.startswith("gen_"):
        return "generated code"
    if obj.startswith("main"):
        return "main"
    return "C library"


def kind_of(section):
    if section.startswith(".text"):
        return "code"
    if section == ".rodata.tvm" or section.startswith(".rodata.tvm."):  # not .rodata.tvmgen_<m>_...
        return "constants"
    if section.startswith((".rodata", ".ARM.extab", ".ARM.exidx", ".init_array", ".fini_array")):
        return "rodata"
    if section == ".bss.noinit.tvm" or section.startswith(".bss.noinit.tvm."):
        return "arena"
    if section == ".bss.noinit.mlip_ocm":  # the simulator's on-chip memory (mlip/region.h)
        return "ocm"
    if section.startswith((".bss", ".data", "COMMON", ".tbss", ".tdata")):
        return "data"
    return None


def parse_map(path):
    """Sizes of the input sections the link kept, per part and kind."""
    sizes = {p: {k: 0 for k in KINDS} for p in PARTS}
    with open(path) as f:
        lines = f.read().split("\n")
    try:
        start = lines.index("Linker script and memory map")
    except ValueError:
        fail(f"{path}: not a GNU ld map file")
    pending = None
    entry = re.compile(r"^ (\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+\.o|\S+\.a\(\S+\))$")
    for line in lines[start:]:
        if re.match(r"^ [.A-Z]\S*$", line):  # a long section name, its address on the next line
            pending = line.strip()
            continue
        m = entry.match(line)
        if m:
            section = m.group(1) or pending
            pending = None
            size = int(m.group(3), 16)
            kind = kind_of(section or "")
            if kind and size:
                sizes[part_of(os.path.basename(m.group(4)) if ".a(" not in m.group(4) else "lib")][kind] += size
        else:
            pending = None
    return sizes


def parse_callgraph(files):
    """Frames (bytes) and callees of every function, from .ci files."""
    frames, calls = {}, {}
    node = re.compile(r'^node: \{ title: "([^"]+)" label: "[^"]*?(?:\\n(\d+) bytes \((?:static|dynamic|dynamic,bounded)\))?" ')
    edge = re.compile(r'^edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
    for f in files:
        with open(f) as h:
            for line in h:
                m = node.match(line)
                if m and m.group(2) is not None:
                    frames[m.group(1)] = int(m.group(2))
                m = edge.match(line)
                if m:
                    calls.setdefault(m.group(1), []).append(m.group(2))
    return frames, calls


def worst_stack(entry, frames, calls):
    """The deepest chain of frames from `entry`, or None on recursion. A call
    through a pointer may reach any function that nothing calls directly
    (the simulator's opcode table holds such functions): the deepest of
    those is assumed."""
    called = {t for ts in calls.values() for t in ts}
    by_pointer = [f for f in frames if f not in called and f not in (entry, "main")]
    memo, unknown = {}, set()

    def depth(fn, path):
        if fn in path:
            return None
        if fn in memo:
            return memo[fn]
        if fn == "__indirect_call":
            targets, own = by_pointer, 0
        elif fn in frames:
            targets, own = calls.get(fn, []), frames[fn]
        else:
            unknown.add(fn)
            return 0
        best = 0
        for callee in targets:
            d = depth(callee, path | {fn})
            if d is None:
                if fn == "__indirect_call":
                    continue  # a dispatcher is not a target of its own table
                return None
            best = max(best, d)
        memo[fn] = own + best
        return memo[fn]

    return depth(entry, frozenset()), sorted(unknown)


def main():
    ap = argparse.ArgumentParser(description="Cortex-M size report of an mlipc tarball")
    ap.add_argument("tarball")
    ap.add_argument("--mcpu", default="cortex-m55")
    ap.add_argument("--cc", default="arm-none-eabi-gcc")
    ap.add_argument("--opt", default="-Os")
    ap.add_argument("--float-abi", choices=["hard", "soft", "softfp"],
                    help="default: hard on cores with an FPU (M4, M7, M33, M55, M85), else soft")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()
    if a.float_abi is None:
        a.float_abi = "hard" if a.mcpu in ("cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55", "cortex-m85") else "soft"
    if not os.path.isfile(a.tarball):
        fail(f"{a.tarball}: no such file")
    with tempfile.TemporaryDirectory(prefix="mlipc-size-") as work:
        extract(a.tarball, work)
        try:
            with open(os.path.join(work, "metadata.json")) as f:
                module = next(iter(json.load(f)["modules"]))
        except (OSError, ValueError, KeyError, StopIteration, TypeError):
            fail(f"{a.tarball}: not an mlipc model library (no readable metadata.json)")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", module):
            fail(f"{a.tarball}: module name '{module}' is not a C identifier")
        with open(os.path.join(work, "main.c"), "w") as f:
            f.write(f'#include "tvmgen_{module}.h"\n'
                    f"static struct tvmgen_{module}_inputs in;\n"
                    f"static struct tvmgen_{module}_outputs out;\n"
                    f"int main(void) {{ return (int)tvmgen_{module}_run(&in, &out); }}\n")
        arch = [f"-mcpu={a.mcpu}", "-mthumb", f"-mfloat-abi={a.float_abi}"]
        flags = arch + [a.opt, "-std=c99", "-ffp-contract=off", "-ffunction-sections",
                 "-fdata-sections", "-fcallgraph-info=su", "-Icodegen/host/include", "-Iruntime/include"]
        # What every build of a tarball compiles: the runtime core, the
        # simulator of an MLIP module (runtime/src/sim: one file, one
        # translation unit) and codegen/host/src.
        sources = [("main", "main.c")]
        for sub, prefix in (("runtime/src/core", "core_"), ("runtime/src/sim", "sim_"), ("codegen/host/src", "gen_")):
            d = os.path.join(work, sub)
            if os.path.isdir(d):
                for s in sorted(os.listdir(d)):
                    if s.endswith(".c"):
                        sources.append((prefix + os.path.splitext(s)[0], os.path.join(sub, s)))
        objects = []
        for name, src in sources:
            r = subprocess.run([a.cc] + flags + ["-c", src, "-o", name + ".o"], cwd=work, capture_output=True, text=True)
            if r.returncode != 0:
                first = next((l for l in r.stderr.splitlines() if "error" in l.lower()), r.stderr.strip()[:300])
                fail(f"{a.cc} {a.opt} -mcpu={a.mcpu} could not build {src}: {first}")
            objects.append(name + ".o")
        r = subprocess.run([a.cc] + arch + ["-nostartfiles", "--specs=nosys.specs", "-Wl,--gc-sections",
                            "-Wl,-e,main", "-Wl,-Map=model.map", "-o", "model.elf"] + objects + ["-lm"],
                           cwd=work, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"linking for {a.mcpu} failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
        sizes = parse_map(os.path.join(work, "model.map"))
        frames, calls = parse_callgraph([os.path.join(work, n[:-2] + ".ci") for n in objects])
        stack, unknown = worst_stack(f"tvmgen_{module}_run", frames, calls)

    print(f"Cortex-M size of {a.tarball} ({a.cc} -mcpu={a.mcpu} -mfloat-abi={a.float_abi} {a.opt}, linked with --gc-sections), bytes:")
    print(f"  {'part':<16}" + "".join(f"{k:>12}" for k in KINDS))
    for p in PARTS:
        print(f"  {p:<16}" + "".join(f"{sizes[p][k]:>12,}" for k in KINDS))
    total = {k: sum(sizes[p][k] for p in PARTS) for k in KINDS}
    print(f"  {'total':<16}" + "".join(f"{total[k]:>12,}" for k in KINDS))
    if stack is None:
        print(f"  worst stack depth from tvmgen_{module}_run: unbounded (recursion)")
    else:
        note = f" (library calls counted as 0: {', '.join(unknown)})" if unknown else ""
        print(f"  worst stack depth from tvmgen_{module}_run: {stack:,} bytes{note}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"mcpu": a.mcpu, "float_abi": a.float_abi, "opt": a.opt, "sizes": sizes, "total": total, "stack_bytes": stack,
                       "uncounted_calls": unknown}, f, indent=1)


if __name__ == "__main__":
    main()
