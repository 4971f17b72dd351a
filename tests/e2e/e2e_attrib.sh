# e2e_attrib.sh - resource counts, attribution and machine facts on a small real bench: every rep's
# phases carry getrusage deltas that agree with its CPU time, the bench file carries "facts" at
# its start and end with sane values, compare's JSON has an attribution per comparison whose
# parts sum to its parts_sum_ns, the table prints the machine line, and a probed program's
# processes carry their rusage at exit. Asserts fields and consistency, never speed.
. tests/e2e/lib.sh

A=$BUILD/allocab

expect_status "bench: small checkpoint_write, 3 rounds" 0 \
	"$A" bench -a system,mimalloc -w checkpoint_write --scale small --rounds 3 --warmup 0 \
	-q -o "$TMP/b.json"

py() { python3 - "$@"; }

if py "$TMP/b.json" "$(uname -r)" <<'PYEOF' >"$TMP/facts" 2>&1; then ok "facts: start and end, shape and values"; else notok "facts: start and end, shape and values" "$(cat "$TMP/facts")"; fi
import json, benchfile, re, sys
d = benchfile.load(sys.argv[1])
f = d["facts"]
assert set(f) == {"start", "end"}, f.keys()
thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
thp = re.search(r"\[(\w+)\]", thp).group(1)
for w in ("start", "end"):
    x = f[w]
    assert set(x) == {"fault_ns", "hypervisor", "cpu_vendor", "cpu_model", "kernel", "thp"}, x
    fn = x["fault_ns"]
    assert set(fn) == {"median", "min", "max", "trials"}, fn
    assert fn["trials"] == 10, fn
    assert 0 < fn["min"] <= fn["median"] <= fn["max"], fn
    assert x["kernel"] == sys.argv[2], x["kernel"]
    assert x["thp"] == thp, x["thp"]
    assert x["cpu_vendor"] and x["cpu_model"], x
    assert x["hypervisor"] is None or isinstance(x["hypervisor"], str) and x["hypervisor"]
assert "facts" not in d["machine"], "facts stay out of the fingerprint"
PYEOF

if py "$TMP/b.json" <<'PYEOF' >"$TMP/reps" 2>&1; then ok "reps: every phase has its counts, consistent with its CPU time"; else notok "reps: every phase has its counts, consistent with its CPU time" "$(cat "$TMP/reps")"; fi
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
keys = ("user_ns", "sys_ns", "minflt", "majflt", "nvcsw", "nivcsw")
n = 0
for rnd in d["rounds"]:
    for run in rnd["runs"]:
        rec = run["record"]
        for rep in rec["reps"]:
            ph = rep["phases"]
            for name, t in ph.items():
                for k in keys:
                    assert isinstance(t[k], int) and t[k] >= 0, (name, k, t)
            tot = ph["total"]
            cpu = tot["user_ns"] + tot["sys_ns"]
            assert abs(cpu - tot["cpu_ns"]) <= 0.1 * tot["cpu_ns"] + 2e6, tot
            for k in ("minflt", "user_ns", "sys_ns"):
                assert sum(t[k] for p, t in ph.items() if p != "total") <= tot[k] + 1e6, (k, ph)
            n += 1
        assert rec["reps"][0]["phases"]["total"]["minflt"] > 0, "the cold rep faults"
assert n >= 6, n
PYEOF

python3 - "$TMP/b.json" "$TMP/bad.json" <<'PYEOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
rounds = [i for i, l in enumerate(lines) if l.startswith('{"index"')]
r = json.loads(lines[rounds[1]])
r["runs"][0]["record"]["reps"][0]["phases"]["total"]["minflt"] = -5
lines[rounds[1]] = json.dumps(r, separators=(",", ":"))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PYEOF
expect_status "a rep's count out of range: compare refuses the file" 2 "$A" compare "$TMP/bad.json"
expect_err "... naming the round, the run, the rep, the phase and the count" \
	'rounds\[1\]\.runs\[0\]: reps\[0\]\.phases\.total\.minflt is not an integer in 0\.\.'

# a warm-up rep (regime "warmup", in neither compared regime): its counts are not used, but a
# malformed one is refused as in any other rep (docs/results-format.md, "Resource counts")
warm() { # VALUE OUT: b.json with VALUE as minflt of the first warm-up rep's total; prints where
	python3 - "$TMP/b.json" "$2" "$1" <<'PYEOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for li, l in enumerate(lines):
    if not l.startswith('{"index"'):
        continue
    r = json.loads(l)
    for ri, run in enumerate(r["runs"]):
        for pi, rep in enumerate(run["record"]["reps"]):
            if rep["regime"] == "warmup":
                rep["phases"]["total"]["minflt"] = json.loads(sys.argv[3])
                lines[li] = json.dumps(r, separators=(",", ":"))
                open(sys.argv[2], "w").write("\n".join(lines) + "\n")
                print("rounds\\[%d\\]\\.runs\\[%d\\]: reps\\[%d\\]" % (r["index"], ri, pi))
                sys.exit(0)
sys.exit("no warm-up rep")
PYEOF
}
for v in -5 1.5 1e19; do
	where=$(warm "$v" "$TMP/warm.json") || notok "a warm-up rep in the bench" "$where"
	expect_status "a warm-up rep's count $v: compare refuses the file" 2 "$A" compare "$TMP/warm.json"
	expect_err "... naming that rep's count" "$where\.phases\.total\.minflt is not an integer in 0\.\."
done
warm 123456789012 "$TMP/warm.json" >/dev/null
"$A" compare "$TMP/b.json" --format json >"$TMP/c0.json" 2>"$TMP/err"
expect_status "a warm-up rep's well-formed count: compare reads the file" 0 "$A" compare "$TMP/warm.json" --format json
if python3 - "$TMP/c0.json" "$TMP/out" <<'PYEOF' >"$TMP/same" 2>&1; then ok "... and uses no warm-up count (comparisons unchanged)"; else notok "... and uses no warm-up count" "$(cat "$TMP/same")"; fi
import json, sys
a, b = (json.load(open(f))["comparisons"] for f in sys.argv[1:])
assert a == b, "the comparisons differ"
PYEOF


expect_status "compare --format json" 0 "$A" compare "$TMP/b.json" --format json
if py "$TMP/out" <<'PYEOF' >"$TMP/att" 2>&1; then ok "compare json: an attribution per comparison, parts sum to parts_sum_ns"; else notok "compare json: an attribution per comparison, parts sum to parts_sum_ns" "$(cat "$TMP/att")"; fi
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
rows = [r for r in d["comparisons"] if r["workload"]]
assert rows
for r in rows:
    a = r["attribution"]
    assert a is not None, r
    assert a["n"] == 3 and a["time"] == "cpu", a
    s = sum(a["parts_ns"][k]["est"] for k in ("user", "sys", "rest"))
    assert abs(s - a["parts_sum_ns"]) < 1, (s, a["parts_sum_ns"])
    assert isinstance(a["adds_up"], bool)
    assert a["adds_up"] == (a["total_ns"]["lo"] <= a["parts_sum_ns"] <= a["total_ns"]["hi"]), a
    if r["regime"] == "cold":
        assert a["minflt"]["baseline"] > 0 and a["minflt"]["candidate"] > 0, a["minflt"]
    assert a["minflt"]["lo"] <= a["minflt"]["est"] <= a["minflt"]["hi"], a["minflt"]
assert d["facts"][0]["start"]["fault_ns"]["trials"] == 10
assert d["facts_differ"] == []
PYEOF

expect_status "compare: table" 0 "$A" compare "$TMP/b.json"
if grep -q "^machine: .*kernel $(uname -r).*a fault$" "$TMP/out" || grep -Eq "^machine: .*kernel $(uname -r), THP [a-z]+, a fault costs [0-9.]+ µs \[[0-9.]+–[0-9.]+\] at the start" "$TMP/out"; then ok "compare: the machine line"; else notok "compare: the machine line" "$(grep -A2 machine "$TMP/out")"; fi
expect_status "compare --format csv" 0 "$A" compare "$TMP/b.json" --format csv
if head -1 "$TMP/out" | grep -q "diff_sys_ns" && [ "$(head -1 "$TMP/out" | tr ',' '\n' | wc -l)" = "$(sed -n 2p "$TMP/out" | tr ',' '\n' | wc -l)" ]; then ok "compare csv: attribution columns, as many as the header"; else notok "compare csv: attribution columns, as many as the header" "$(head -2 "$TMP/out")"; fi

expect_status "bench: probed --cmd arms" 0 \
	"$A" bench --cmd a='sort /etc/services >/dev/null' --cmd b='sort /etc/services >/dev/null' \
	--expect a=system --expect b=system --rounds 2 --warmup 0 -q -o "$TMP/c.json"
if py "$TMP/c.json" <<'PYEOF' >"$TMP/pr" 2>&1; then ok "probe: each exited process's rusage, and their sum"; else notok "probe: each exited process's rusage, and their sum" "$(cat "$TMP/pr")"; fi
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for rnd in d["rounds"]:
    for run in rnd["runs"]:
        p = run["probe"]
        t = p["rusage_total"]
        us = [x["rusage"] for x in p["processes"] if "rusage" in x]
        assert us and t["processes"] == len(us), p
        for k in ("minflt", "majflt", "nvcsw", "nivcsw", "user_ns", "sys_ns"):
            assert t[k] == sum(u[k] for u in us), k
        assert t["minflt"] > 0, t
PYEOF
exit $t_fail
