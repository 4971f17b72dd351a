#!/usr/bin/env python3
"""A version 3 trace of one process: T threads, each making PAIRS malloc(64)+free pairs on objects
of its own, one event every 10 ns on a shared timeline, and SPANS back-to-back spans of the phase
"step" over the whole of it. Usage: gen_marks_trace.py T PAIRS SPANS OUT. Measures what passing a
phase boundary costs the replay in every thread (docs/workloads.md, replay, "Marked phases")."""
import sys; import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkt import *
T, PAIRS, SPANS, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
blocks = [process()]
for t in range(T):
    evs = []
    for k in range(PAIRS):
        obj = t * PAIRS + k + 1
        evs.append(('malloc', 10 if k else 10, obj, 64))
        evs.append(('free', 10, obj))
    for i in range(0, len(evs), 4096):
        chunk = evs[i:i + 4096]
        first = list(chunk[0]); first[1] = 10 * (i + 1); chunk[0] = tuple(first)
        blocks.append(events(t, chunk))
n = 2 * PAIRS
blocks.append(marks([(b'step', [(10 * (1 + n * i // SPANS), 10 * (1 + n * (i + 1) // SPANS))
                                for i in range(SPANS)])]))
blocks.append(end((0, T, 0, 0, 0, 0, 0, 0, 1)))
open(out, 'wb').write(bundle(blocks, version=3))
