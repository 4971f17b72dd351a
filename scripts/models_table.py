#!/usr/bin/env python3
"""models_table.py - the table of `make bench-models` (docs/models.md) from the files
scripts/bench_models.sh leaves in OUT: per model and allocator the whole program (cold: one
process), the steady epoch, the replay of the recorded allocation stream (steady), and the
verdicts of docs/claims/models.json; with the machine and its load while each bench ran.
Usage: scripts/models_table.py OUT MODEL..."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchfile  # noqa: E402


def load(path):
    try:
        return benchfile.load(path)
    except (OSError, ValueError):
        return None


def cell(cmp, workload, phase, regime, cand):
    for r in (cmp or {}).get("comparisons", []):
        if (r["workload"], r["phase"], r["regime"], r["candidate"]) == (workload, phase, regime,
                                                                        cand):
            if r["speedup"] is None:
                return "n/a"
            ci = r["ci"]
            return f"{r['speedup']:.3f}x [{ci['speedup_lo']:.3f}, {ci['speedup_hi']:.3f}]"
    return "-"


def bench_facts(bench):
    loads = [run["telemetry"]["loadavg_1m"] for rnd in bench.get("rounds", [])
             for run in rnd["runs"] if run.get("telemetry", {}).get("loadavg_1m") is not None]
    m = bench.get("machine") or {}
    rounds = sum(1 for rnd in bench.get("rounds", []) if not rnd.get("warmup"))
    return (f"{m.get('cpu_model')}, {m.get('online_cpus')} CPUs",
            f"{min(loads):.1f}-{max(loads):.1f} (median {statistics.median(loads):.1f})"
            if loads else "unknown", rounds, bench.get("created_utc", "?"))


def main():
    out, models = sys.argv[1], sys.argv[2:]
    print("| model | allocator | whole program (cold) | steady epoch | replay (steady) "
          "| claims: verdict | rounds | load average (1 min) |")
    print("|---|---|---|---|---|---|---|---|")
    machine, families = None, set()
    for m in models:
        bench = load(os.path.join(out, f"{m}.json"))
        cmp = load(os.path.join(out, f"{m}.compare.json"))
        rep = load(os.path.join(out, f"{m}-replay.compare.json"))
        if not bench or not cmp:
            print(f"| {m} | - | not measured | | | | | |")
            continue
        machine, loads, rounds, when = bench_facts(bench)
        for c in (cmp, rep):
            if c and c.get("family_size"):
                families.add((c["family_size"], c["family_level"]))
        base = cmp.get("baseline")
        for cand in [a for a in bench["config"]["arms"] if a != base]:
            claims = "; ".join(f"{c['claim']}: {c['verdict']}"
                               for c in cmp.get("claims", [])
                               if c["workload"] == m and c["allocator"] == cand)
            print(f"| {m} | {cand} vs {base} | {cell(cmp, m, 'total', 'cold', cand)} "
                  f"| {cell(cmp, m, 'epoch', 'steady', cand)} "
                  f"| {cell(rep, 'replay', 'total', 'steady', cand)} | {claims or '-'} "
                  f"| {rounds} | {loads} |")
    if machine:
        each = ", ".join(f"{n} ({100 * lv:.2f}% each)" for n, lv in sorted(families))
        print(f"\nmachine: {machine}; speedup = t_{{baseline}} / t_{{candidate}} with the "
              "interval allocab compare prints: simultaneous 95% over the comparisons of its "
              f"bench (Bonferroni; comparisons per bench: {each})")


main()
