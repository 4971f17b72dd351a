"""A Python program that marks its phases with phase/allocab_phase.py, for tests/e2e/e2e_phases.sh:
"import" once, then EPOCHS "epoch" spans of allocation work (the context manager), and one
"eval" span through begin/end. Usage: python3 phase_fixture.py [EPOCHS]."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "phase"))
import allocab_phase as phase  # noqa: E402

with phase.phase("import"):
    import json  # noqa: F401

epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 6
total = 0
for e in range(epochs):
    with phase.phase("epoch"):
        rows = [{"i": i, "s": str(i) * 3} for i in range(20000)]
        total += sum(len(r["s"]) for r in rows)
phase.begin("eval")
total += len(json.dumps(rows[:1000]))
phase.end("eval")
print("checksum", total)
