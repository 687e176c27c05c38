#!/usr/bin/env bash
# bench.short: bench/run.sh --short (one repetition, no peer, the digits
# CNN only) runs every step to the end and writes JSON with every figure,
# so that the benchmark cannot rot. It checks no timing.
# usage: bench_short_test.sh <repo root> <mlipc binary> <work dir>
set -euo pipefail
ROOT=$1 MLIPC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
# mlipc run's builds are kept between runs beside the work folder.
mkdir -p "$WORK.cache" && chmod 700 "$WORK.cache"
MLIPC="$MLIPC" MLIPC_CACHE_DIR="$WORK.cache" "$ROOT/bench/run.sh" --short --json "$WORK/bench.json" > "$WORK/out.txt"
python3 - "$WORK/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "short" and d["runs"] == 1, d["mode"]
names = [m["name"] for m in d["models"]]
assert names == ["seed_digits_cnn"], names
for m in d["models"]:
    a = m["arena"]
    assert m["compile_s"] > 0, m
    assert 0 < a["lower_bound"] <= a["after"] <= a["before"], (m["name"], a)
    assert sorted(a["planners"]) == ["greedy_by_conflicts", "greedy_by_size", "hill_climb", "linear"], a
    assert a["planners"]["hill_climb"] == a["after"], a
    assert m["latency_us"]["c"] > 0 and m["latency_us"]["onnxruntime"] is None, m
    assert [(x["dtype"], x["tiles"]) for x in m["mlip"]] == [("fp16", 8), ("int8", 8)], m
    assert all(x["est_cycles"] > 0 and x["sim_mmac_per_s"] > 0 for x in m["mlip"]), m
assert sorted(d["kmath"]) == ["erf_f", "exp_f", "expf", "logf", "sigmoid", "sigmoid_f", "tanh_f", "tanhf"], d["kmath"]
print("bench.short: ok")
PY
