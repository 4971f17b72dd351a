"""churn.py - a single-threaded job whose CPU time is the interpreter's allocations: per epoch it
builds records (dicts of strings and floats), groups and sorts them, and drops them, as a Python
data pipeline's feature step does. Standard library only; marks `load` and one `epoch` per epoch
with phase/allocab_phase.py (docs/programs.md). Deterministic from --seed; prints `checksum ...`.

    python3 examples/programs/churn.py --epochs 8 --rows 500000
"""
import argparse
import os
import random
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "phase"))
import allocab_phase as phase  # noqa: E402


def records(rng, n):
    keys = ["user%d" % rng.randrange(5000) for _ in range(n)]
    return [{"key": k, "value": rng.random(), "tags": [k[-2:], str(i % 7)]}
            for i, k in enumerate(keys)]


def epoch(rng, rows):
    recs = records(rng, rows)
    groups = {}
    for r in recs:
        groups.setdefault(r["key"], []).append(r["value"])
    means = sorted((sum(v) / len(v), k) for k, v in groups.items())
    text = ",".join("%s:%.6f" % (k, m) for m, k in means[:2000])
    return zlib.crc32(text.encode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--rows", type=int, default=500000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.epochs < 1 or a.rows < 1:
        ap.error("--epochs and --rows must be at least 1")
    with phase.phase("load"):
        rng = random.Random(a.seed)
        base = records(rng, a.rows // 4)
    crc = len(base)
    for _ in range(a.epochs):
        with phase.phase("epoch"):
            crc = zlib.crc32(str(epoch(rng, a.rows)).encode(), crc)
    print("checksum %08x" % crc)


if __name__ == "__main__":
    main()
