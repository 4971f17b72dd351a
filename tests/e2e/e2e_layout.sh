# e2e_layout.sh - how compare's report is shaped for its reader (docs/methodology.md, "Reading the
# output"), on crafted results (mkbench, tests/e2e/lib.sh): the table fits $COLUMNS, the terminal's
# width or 100 columns, prose wrapped and tables split into parts that repeat their key columns,
# every cell of the wide table still there once; markdown leads with a one-line summary and the
# tables and folds the method and warnings into <details>; json and csv do not change with the
# width; the per-arm table shows the processes and calls of probed runs; a replay names its trace
# and process, says it is the allocation stream only in every format, and predicts the program's
# speedup from the trace's duration or a --program bench; claims a file cannot measure say why.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget
PY=$(command -v python3) || { skip "layout" "python3 is not installed"; exit 0; }

mkbench "$TMP/w.json" arms=system=1,mimalloc=0.8,jemalloc=1.1,tcmalloc=1.0/0.3 rounds=12 reps=4 colds=system=1.3

# widest COLS FILE: ok when no line of FILE is wider than COLS characters.
widest() {
	local w
	w=$("$PY" -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' "$2")
	[ "$w" -le "$1" ] && ok "$3 (widest line $w)" || notok "$3" "a line of $w columns: $(awk -v c="$1" 'length > c' "$2" | head -1)"
}

# same_cells WIDE NARROW: every table of NARROW, split into parts, holds the cells of WIDE's
# tables: per table and line, each (column, cell) pair once, the key columns repeated.
cat >"$TMP/cells.py" <<'PY'
import re, sys

def tables(path):
    """Each table of the text as {key: {column: cell}}, columns split at two or more spaces: a
    header starts a table, unless it repeats the last table's key columns with none of its other
    columns (a part of a split table), and a line that is no row of it ends it."""
    out, cur, head, keys, lastrow = [], None, None, 0, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith(("workload  ", "claim  ")):
            cols = re.split(r"  +", line.strip())
            if cur is not None and last[:keys] == cols[:keys] and not set(cols[keys:]) & set(last[keys:]):
                last = last[:keys] + [c for c in last[keys:]] + cols[keys:]
            else:
                keys = 3 if "candidate" in cols[:3] else 2 if cols[1] == "arm" else 1
                cur, last = {}, cols
                out.append(cur)
            head = cols
            continue
        if head is None:
            continue
        m = re.match(r"^    ([^:]+): (.*)$", line)
        if m and cur is not None and lastrow is not None:
            # a group too wide for the width: its last cell under its row (docs: grid.c)
            if m.group(1) in lastrow:
                sys.exit("cell %s twice" % m.group(1))
            lastrow[m.group(1)] = m.group(2)
            continue
        cells = re.split(r"  +", line.strip())
        if not line.strip() or len(cells) != len(head):
            head = None
            continue
        row = cur.setdefault(tuple(cells[:keys]), {})
        lastrow = row
        for c, v in zip(head[keys:], cells[keys:]):
            if c in row:
                sys.exit("cell %s of %s twice: %s, %s" % (c, cells[:keys], row[c], v))
            row[c] = v
    # a cell under its row is left out when it is "-", and a line of a part with nothing but
    # "(... see there)" is counted in one line after the part (grid.c): so are both here
    def says(v):
        return v != "-" and not (v.startswith("(") and v.endswith("see there)"))
    tabs = [{k: {c: v for c, v in r.items() if says(v)} for k, r in t.items()} for t in out]
    return [{k: r for k, r in t.items() if r} for t in tabs]

wide, narrow = tables(sys.argv[1]), tables(sys.argv[2])
if wide != narrow:
    sys.exit("wide %d tables %s, narrow %d tables %s" % (len(wide), [len(t) for t in wide], len(narrow), [len(t) for t in narrow]))
print("%d tables, %d lines" % (len(wide), sum(len(t) for t in wide)))
PY
COLUMNS=1000 "$A" compare "$TMP/w.json" >"$TMP/wide.txt" 2>/dev/null
widest 1000 "$TMP/wide.txt" "COLUMNS=1000: nothing split"
[ "$(grep -c '^workload  ' "$TMP/wide.txt")" -eq 3 ] && ok "COLUMNS=1000: the primary and the secondary comparisons tables, one per-arm table" ||
	notok "COLUMNS=1000: two tables" "$(grep -c '^workload  ' "$TMP/wide.txt")"
for cols in 80 100 132; do
	COLUMNS=$cols "$A" compare "$TMP/w.json" >"$TMP/n$cols.txt" 2>/dev/null
	widest "$cols" "$TMP/n$cols.txt" "COLUMNS=$cols: every line fits"
	if out=$("$PY" "$TMP/cells.py" "$TMP/wide.txt" "$TMP/n$cols.txt" 2>&1); then
		ok "COLUMNS=$cols: the split tables hold every cell of the wide ones ($out)"
	else
		notok "COLUMNS=$cols: the split tables hold every cell of the wide ones" "$out"
	fi
done
# A column too wide beside the key columns (a claim's name and "no workload ... in the file") goes
# under its row rather than past the width.
COLUMNS=80 "$A" compare "$TMP/w.json" --claims docs/claims/mimalloc-ml.json >"$TMP/cl80.txt" 2>/dev/null
widest 80 "$TMP/cl80.txt" "COLUMNS=80 with claims: a column too wide beside the keys goes under its row"
grep -q '^    measured: no workload [a-z_]* in the file$' "$TMP/cl80.txt" &&
	ok "COLUMNS=80 with claims: the wide cell is kept, under its row" ||
	notok "COLUMNS=80 with claims: the wide cell under its row" "$(grep -m2 'no workload' "$TMP/cl80.txt")"
wide_else=$(grep -c 'see there)' "$TMP/wide.txt")
[ "$wide_else" -gt 1 ] && ! grep -Eq '^[a-z_]+ +[a-z_]+ +[a-z]+ +- +- +\((primary|secondary): see there\)$' "$TMP/n100.txt" &&
	grep -Eq '^[0-9]+ more lines? here: \((primary|secondary): see there\)$' "$TMP/n100.txt" &&
	ok "COLUMNS=100: a part's lines that only say \"(primary: see there)\" are left out and said once ($wide_else in the wide table)" ||
	notok "COLUMNS=100: repeated see-there lines" "$(grep -c 'see there' "$TMP/n100.txt") of $wide_else: $(grep -m2 'see there' "$TMP/n100.txt")"
grep -q '^workload  *phase  *candidate  *steady speedup  *steady 9[0-9.]*% CI  *steady verdict$' "$TMP/n100.txt" &&
	ok "COLUMNS=100: the steady speedup, interval and verdict stay together" ||
	notok "COLUMNS=100: steady group" "$(grep '^workload' "$TMP/n100.txt" | head -3)"
grep -q '^method: rounds paired;' "$TMP/n80.txt" && grep -q '^  Hodges-Lehmann\|^  exp(-HL' "$TMP/n80.txt" &&
	ok "COLUMNS=80: the method line wraps, its continuation indented" || notok "COLUMNS=80: the method wraps" "$(grep -A2 '^method' "$TMP/n80.txt")"
env -u COLUMNS "$A" compare "$TMP/w.json" >"$TMP/pipe.txt" 2>/dev/null
widest 100 "$TMP/pipe.txt" "no COLUMNS, not a terminal: 100 columns"
COLUMNS=junk "$A" compare "$TMP/w.json" >"$TMP/junk.txt" 2>/dev/null
cmp -s "$TMP/junk.txt" "$TMP/pipe.txt" && ok "COLUMNS that is no number: as if unset" || notok "COLUMNS=junk" "differs"
COLUMNS=90 "$A" compare "$TMP/w.json" -o "$TMP/o90.txt" 2>/dev/null
widest 90 "$TMP/o90.txt" "-o FILE follows COLUMNS too"
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
	env -u COLUMNS script -qec "stty cols 72 rows 40; $A compare $TMP/w.json" /dev/null | tr -d '\r' >"$TMP/tty.txt"
	widest 72 "$TMP/tty.txt" "no COLUMNS, a terminal of 72 columns: its width"
else
	skip "terminal width" "script(1) cannot give this test a terminal"
fi
for f in json csv; do
	COLUMNS=40 "$A" compare "$TMP/w.json" --format $f -o "$TMP/c40.$f" 2>/dev/null
	COLUMNS=1000 "$A" compare "$TMP/w.json" --format $f -o "$TMP/c1000.$f" 2>/dev/null
	cmp -s "$TMP/c40.$f" "$TMP/c1000.$f" && ok "$f: the width changes nothing" || notok "$f: the width changes nothing" "differs"
done

# --- markdown: a summary first, then the tables, the method and warnings folded -----------------
mkbench "$TMP/other.json" arms=system=1,mimalloc=0.8 rounds=12 reps=4 id=bbbb000000000002
COLUMNS=80 "$A" compare "$TMP/w.json" --format markdown -o "$TMP/w.md" 2>/dev/null
sed -n 3p "$TMP/w.md" | grep -q '^\*\*Summary:\*\* 24 comparisons: steady [0-9]* faster, .*Geometric mean, steady: mimalloc 1.250x \[[0-9.]*, [0-9.]*\] faster' &&
	ok "markdown: the summary line first, with the verdict counts and the geometric means" ||
	notok "markdown: summary line" "$(sed -n 1,4p "$TMP/w.md")"
t=$(grep -n '^| workload | phase |' "$TMP/w.md" | head -1 | cut -d: -f1)
d=$(grep -n '^<details><summary>Inputs, method\( and warnings\)\?</summary>$' "$TMP/w.md" | cut -d: -f1)
m=$(grep -n '^- method: rounds paired' "$TMP/w.md" | cut -d: -f1)
e=$(grep -n '^</details>$' "$TMP/w.md" | cut -d: -f1)
if [ -n "$t" ] && [ -n "$d" ] && [ -n "$m" ] && [ -n "$e" ] && [ "$t" -lt "$d" ] && [ "$d" -lt "$m" ] && [ "$m" -lt "$e" ]; then
	ok "markdown: the table before <details>, the method inside it"
else
	notok "markdown: table, then details" "table $t, details $d, method $m, end $e"
fi
awk -v d="$d" 'NR < d && /^- \*\*warning:\*\*/' "$TMP/w.md" | grep -q . && notok "markdown: warnings folded" "one before <details>" ||
	ok "markdown: ordinary warnings folded into <details>"
awk 'length > 200 && !/^\|/ && !/^- / && !/^\*\*Summary/' "$TMP/w.md" | grep -q . && notok "markdown: no long line outside tables and lists" "found" ||
	ok "markdown: no long line outside tables and lists"
"$A" compare "$TMP/w.json" "$TMP/other.json" --format markdown -o "$TMP/two.md" 2>/dev/null
a=$(grep -n '^> \[!WARNING\]' "$TMP/two.md" | head -1 | cut -d: -f1)
t=$(grep -n '^| workload | phase |' "$TMP/two.md" | head -1 | cut -d: -f1)
[ -n "$a" ] && [ -n "$t" ] && [ "$a" -lt "$t" ] && grep -q 'warnings\?, read them first' "$TMP/two.md" &&
	ok "markdown: a loud warning stays before the table, and the summary points to it" ||
	notok "markdown: loud warning" "alert $a, table $t"

# --- the per-arm table: processes and calls of probed runs ---------------------------------------
mkbench "$TMP/p.json" mode=commands arms=system=1,mimalloc=0.8 procs=42 calls=2800000 rounds=8
"$A" compare "$TMP/p.json" >"$TMP/p.txt" 2>/dev/null
grep -Eq '^workload +arm +ok rounds .* processes/run +calls/run$' "$TMP/p.txt" &&
	grep -Eq '^command +mimalloc +8/8 .* 42 +2\.80 M$' "$TMP/p.txt" &&
	ok "per arm: processes per run and calls per run of probed runs" || notok "per arm: processes and calls" "$(grep -A3 'per arm' "$TMP/p.txt")"
"$A" compare "$TMP/p.json" --format markdown -o "$TMP/p.md" 2>/dev/null
grep -q '| processes/run | calls/run |$' "$TMP/p.md" && grep -q '| 42 | 2.80 M |$' "$TMP/p.md" &&
	ok "per arm, markdown: processes and calls" || notok "per arm, markdown" "$(grep processes "$TMP/p.md")"
"$A" compare "$TMP/p.json" --format html -o "$TMP/p.html" 2>/dev/null
grep -q '<th>processes/run</th><th>calls/run</th>' "$TMP/p.html" && ok "per arm, html: processes and calls" || notok "per arm, html" "missing"
"$A" compare "$TMP/p.json" --format json -o "$TMP/p.cj" 2>/dev/null
[ "$("$J" "$TMP/p.cj" comparisons.0.processes_baseline)" = 42 ] && [ "$("$J" "$TMP/p.cj" comparisons.0.calls_candidate)" = 2800000 ] &&
	ok "json: processes and calls per side" || notok "json: processes and calls" "$("$J" "$TMP/p.cj" comparisons.0.processes_baseline)"
grep -q 'processes/run' "$TMP/wide.txt" && notok "per arm: no probed columns without probe data" "shown" ||
	ok "per arm: no probed columns without probe data"

# --- what a --cmd or --program file cannot do ------------------------------------------------------
expect_status "commands file --regime steady: exit 2" 2 "$A" compare "$TMP/p.json" --regime steady
expect_err "commands file --regime steady: says what such a bench can do, not --reps auto" \
	"no steady times to compare \(a --cmd or --program bench times each run's process once: use --regime cold, or have the program mark the phases it repeats"
expect_status "claims on a --program file" 0 "$A" compare "$TMP/p.json" --claims docs/claims/mimalloc-ml.json
n=$(grep -c 'no workload [a-z_]* in the file  *not measured$' "$TMP/out")
grep -q "^not measured: $n targets of these claims name workloads this file does not hold (.*parquet_load.*; it holds command): a claim is judged on the workloads it names" "$TMP/out" &&
	[ "$n" -ge 1 ] && [ "$(grep -c 'no geometric mean in the comparison  *not measured$' "$TMP/out")" -ge 1 ] &&
	ok "claims on a --program file: why once, and per claim briefly ($n targets)" || notok "claims on a --program file" "$(grep -i 'not measured' "$TMP/out" | head -4)"

# --- replays: what was replayed, the caveat, the prediction ----------------------------------------
mkbench "$TMP/rp.json" arms=system=1,mimalloc=0.8,jemalloc=1.1 wls=replay rounds=12 reps=4 replay=400000000
mkbench "$TMP/prog.json" mode=commands arms=system=1,mimalloc=0.9 base=1500000000 rounds=8
for f in table markdown json csv html svg gab; do
	"$A" compare "$TMP/rp.json" --format $f -o "$TMP/rpout.$f" 2>/dev/null
	grep -q 'allocation stream only' "$TMP/rpout.$f" && grep -q 'pid 4242' "$TMP/rpout.$f" && grep -q 'rec.trace' "$TMP/rpout.$f" &&
		ok "replay, $f: names the trace and the process, says it is the allocation stream only" ||
		notok "replay, $f: trace, process, caveat" "missing"
done
grep -q '^replay (workload replay): process 3 (pid 4242, /usr/bin/sort: sort -n big.txt) of trace rec.trace, 298 calls, 1 thread, 0.400 s while recorded, ended by exit$' "$TMP/rpout.table" &&
	ok "replay, table: the process replayed in one line" || notok "replay, table: the process" "$(grep '^replay' "$TMP/rpout.table")"
[ "$("$J" "$TMP/rpout.json" replays.0.prediction.program_from)" = trace ] && ok "replay: t_prog from the trace's duration" ||
	notok "replay: t_prog from the trace" "$("$J" "$TMP/rpout.json" replays.0.prediction)"
check_prediction() { # FILE T_PROG_NS: every candidate's prediction is t/(t - tb (1 - 1/s)), the interval around it
	"$PY" - "$1" "$2" <<'PY'
import json, benchfile, sys
d, t = benchfile.load(sys.argv[1]), float(sys.argv[2])
p = d["replays"][0]["prediction"]
assert abs(p["program_ns"] - t) < 1, p["program_ns"]
tb, rows = p["replay_baseline_ns"], {c["candidate"]: c for c in d["comparisons"]}
for c in p["candidates"]:
    s = c["replay_speedup"]
    want = t / (t - tb * (1 - 1 / s))
    assert abs(c["speedup"] - want) < 1e-9 * want, (c, want)
    assert c["ci"][0] <= c["speedup"] <= c["ci"][1], c
print(len(p["candidates"]), "predictions")
PY
}
if out=$(check_prediction "$TMP/rpout.json" 400000000 2>&1); then ok "replay: predictions follow the formula, inside their intervals ($out)"; else notok "replay: predictions" "$out"; fi
expect_status "replay --program-results" 0 "$A" compare "$TMP/rp.json" --program-results "$TMP/prog.json" --format json -o "$TMP/rpp.json"
t=$("$PY" -c '
import json, benchfile, statistics, sys
d = benchfile.load(sys.argv[1])
print(statistics.median(r["process"]["wall_ns"] for x in d["rounds"] if not x["warmup"] for r in x["runs"] if r["arm"] == "system"))' "$TMP/prog.json")
if out=$(check_prediction "$TMP/rpp.json" "$t" 2>&1); then ok "replay --program-results: t_prog is the program's median under system ($out)"; else notok "replay --program-results" "$out"; fi
[ "$("$J" "$TMP/rpp.json" replays.0.prediction.program_arm)" = system ] && ok "replay --program-results: the arm timed is named" || notok "replay: program arm" "$("$J" "$TMP/rpp.json" replays.0.prediction.program_arm)"
expect_status "replay --regime steady" 0 "$A" compare "$TMP/rp.json" --regime steady
grep -q '^predicted speedup of the whole program: cannot be computed: it rests on the cold regime' "$TMP/out" &&
	ok "replay --regime steady: says why there is no prediction" || notok "replay --regime steady" "$(grep predicted "$TMP/out")"
expect_status "--program-results with a drivers file: exit 2" 2 "$A" compare "$TMP/rp.json" --program-results "$TMP/w.json"
expect_err "--program-results with a drivers file: one line" 'is not a --program or --cmd bench'
expect_status "--program-results without a replay: exit 2" 2 "$A" compare "$TMP/w.json" --program-results "$TMP/prog.json"
expect_err "--program-results without a replay: one line" 'the comparison holds no replay'
exit $t_fail
