"""benchgen.py - test tool: a bench file as allocab-bench/1 or /2, its rounds repeated.

    benchgen.py IN OUT --schema 1|2 [--rounds N]

IN is a bench file of either schema (scripts/benchfile.py reads it). OUT gets the same document:
with --schema 1 one document printed as cJSON_Print does (tabs, ":\\t"); with --schema 2 JSON
Lines as `allocab bench` writes them (docs/results-format.md, "allocab-bench/2"): the header
line, one line per round, one closing update line with what the document holds beyond the
header (status, updated_utc, gate_outcome, gate_decision, status_reason, facts, sessions,
config.sequential). --rounds N repeats IN's measured rounds, in order, until there are N rounds
in all (warm-up rounds kept once, indices renumbered): real runs, many rounds, for timing compare.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import benchfile  # noqa: E402

LATER = ("updated_utc", "status", "status_reason", "gate_outcome", "gate_decision", "facts", "sessions")


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--schema", choices=("1", "2"), required=True)
    ap.add_argument("--rounds", type=int, default=0)
    a = ap.parse_args()
    d = benchfile.load(a.inp)
    rounds = d.pop("rounds")
    if a.rounds:
        warm = [r for r in rounds if r.get("warmup")]
        meas = [r for r in rounds if not r.get("warmup")]
        if not meas:
            sys.exit("benchgen: no measured round to repeat")
        out = list(warm)
        while len(out) < a.rounds:
            out.append(meas[(len(out) - len(warm)) % len(meas)])
        rounds = out
    with open(a.out, "w", encoding="utf-8") as f:
        if a.schema == "1":
            d["schema"] = "allocab-bench/1"
            f.write("{")
            items = list(d.items())
            pos = [k for k, _ in items].index("task") + 1 if "task" in d else len(items)
            items.insert(pos, ("rounds", None))
            first = True
            for k, v in items:
                f.write("" if first else ",")
                first = False
                if k == "rounds":
                    f.write("\n\t\"rounds\":\t[")
                    for i, r in enumerate(rounds):
                        r = dict(r, index=i)
                        f.write(("" if i == 0 else ", ") + json.dumps(r, indent="\t", ensure_ascii=False).replace("\n", "\n\t\t"))
                    f.write("]")
                else:
                    f.write("\n\t%s:\t%s" % (json.dumps(k), json.dumps(v, indent="\t", ensure_ascii=False).replace("\n", "\n\t")))
            f.write("\n}")
            return
        head = {k: v for k, v in d.items() if k not in LATER or k == "updated_utc"}
        head["schema"] = "allocab-bench/2"
        head = {"schema": head.pop("schema"), **head}
        head["status"] = "running"
        seq = head.get("config", {}).pop("sequential", None)
        head["config"]["sequential"] = None
        f.write(compact(head) + "\n")
        for i, r in enumerate(rounds):
            r = dict(r, index=i)
            r = {"index": r.pop("index"), **r}
            f.write(compact(r) + "\n")
        up = {"updated_utc": d.get("updated_utc")}
        for k in LATER[1:]:
            if k in d:
                up[k] = d[k]
        if seq is not None:
            up["config"] = {"sequential": seq}
        f.write(compact(up) + "\n")


main()
