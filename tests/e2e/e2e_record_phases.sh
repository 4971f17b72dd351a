#!/usr/bin/env bash
# e2e_record_phases.sh - the phases a program marks, under `allocab record` (docs/programs.md,
# "Recording the phases"; docs/trace-format.md, "What is recorded"): the C fixture recorded with
# its marks, given to its own process (not the shell that started it) and removed with the
# streams; trace info shows them with the calls in each span; a replay bench reports them in
# compare, cold and steady; a hostile marks file leaves a trace without marks and one line on
# stderr; traces of versions 1 and 2 still read and replay; a phase without a call is stated,
# not timed.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget
F=$BUILD/tests/phase_fixture
SYS=$BUILD/allocab-system

jeq() {
	local got
	got=$("$J" "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "$3 is '$got', want '$4'"; fi
}

# within NAME VALUE LO HI: LO <= VALUE <= HI.
within() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1 ($2)"; else notok "$1" "got '$2', want $3..$4"; fi
}

# ---- the C fixture: setup once, epoch 4 times, each span its own allocation calls ----
mkdir -p "$TMP/tmpdir"
TMPDIR=$TMP/tmpdir "$A" record -o "$TMP/c.trace" -- "$F" 4 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 0 ] && grep -q '^allocab: record: phase marks: 5 spans of 2 phases in 1 process$' "$TMP/err"; then
	ok "record of the C fixture: exit 0, 5 spans of 2 phases in 1 process"
else
	notok "record of the C fixture" "exit $rc: $(head -c 400 "$TMP/err")"
fi
if [ -z "$(ls -A "$TMP/tmpdir")" ]; then ok "the stream directory and its marks file are gone"; else notok "stream directory" "$(ls -AR "$TMP/tmpdir" | head -5)"; fi
expect_status "trace info --json of it" 0 "$A" trace info --json "$TMP/c.trace"
cp "$TMP/out" "$TMP/c.json"
jeq "format version 3" "$TMP/c.json" format_version 3
jeq "setup marked first" "$TMP/c.json" process.0.phase_marks.phases.0.name setup
jeq "epoch second" "$TMP/c.json" process.0.phase_marks.phases.1.name epoch
jeq "four epoch spans" "$TMP/c.json" process.0.phase_marks.phases.1.spans.# 4
# each epoch mallocs and frees 40000 blocks; the clocks agree to well under the microsecond
# between a mark and the first call after it (docs/trace-format.md, "Time and order")
within "calls in setup's span" "$("$J" "$TMP/c.json" process.0.phase_marks.phases.0.spans.0.events)" 39990 40000
for k in 0 3; do
	within "calls in epoch span $k" "$("$J" "$TMP/c.json" "process.0.phase_marks.phases.1.spans.$k.events")" 79990 80000
done
b=$("$J" "$TMP/c.json" process.0.phase_marks.phases.1.spans.1.begin_ns)
e=$("$J" "$TMP/c.json" process.0.phase_marks.phases.1.spans.0.end_ns)
d=$("$J" "$TMP/c.json" process.0.duration_ns)
if [ -n "$b" ] && [ -n "$d" ] && [ "$b" -ge "$e" ] && [ "$b" -lt "$d" ]; then
	ok "spans in the process's own time: in order, within its duration"
else
	notok "span times" "epoch 1 ends $e, epoch 2 begins $b, duration $d"
fi
expect_status "trace info (text)" 0 "$A" trace info "$TMP/c.trace"
if grep -Eq '^  phase epoch: 4 spans, [0-9.]+ s, [0-9]+ events; per span [0-9]+, [0-9]+, [0-9]+, [0-9]+$' "$TMP/out"; then
	ok "the text report lists each phase and the calls of its spans"
else
	notok "text report" "$(grep phase "$TMP/out")"
fi

# ---- given to the process that marked them, not the shell that started it ----
expect_status "record of sh -c 'fixture'" 0 "$A" record -o "$TMP/sh.trace" -- sh -c "$F 2 && true"
"$A" trace info --json "$TMP/sh.trace" >"$TMP/sh.json" 2>/dev/null
n=$("$J" "$TMP/sh.json" processes)
marked=""
for ((i = 0; i < ${n:-0}; i++)); do
	[ "$("$J" "$TMP/sh.json" "process.$i.phase_marks")" != null ] && marked="$marked $("$J" "$TMP/sh.json" "process.$i.exe")"
done
if [ "$marked" = " $(readlink -f "$F")" ]; then ok "the marks belong to the fixture alone, not to sh"; else notok "marks of sh -c" "marked:$marked"; fi

# ---- a replay bench reports the marked phases, cold and steady ----
expect_status "replay bench of the marked trace" 0 "$A" bench -w replay --param trace="$TMP/c.trace" \
	-a system,mimalloc --rounds 2 --warmup 0 -q -o "$TMP/b.json"
jeq "the run record keeps epoch's calls per span" "$TMP/b.json" rounds.0.runs.0.record.phase_marks.phases.1.calls.# 4
jeq "rep 0's first epoch is cold" "$TMP/b.json" rounds.0.runs.0.record.phase_marks.phases.1.regimes.0 cold
jeq "the replay is compared on CPU time, and epoch's settled is judged on its CPU times" "$TMP/b.json" rounds.0.runs.0.record.phase_marks.phases.1.regimes_time cpu
expect_status "replay bench on wall time" 0 "$A" bench -w replay --param trace="$TMP/c.trace" \
	-a system,mimalloc --rounds 1 --warmup 0 --time wall -q -o "$TMP/bw.json"
jeq "... on wall time, epoch's settled is judged on its wall times" "$TMP/bw.json" rounds.0.runs.0.record.phase_marks.phases.1.regimes_time wall
"$A" compare "$TMP/b.json" >"$TMP/cmp" 2>&1
if grep -Eq '^replay +total +mimalloc +[0-9.]+x' "$TMP/cmp" && grep -Eq '^replay +setup +mimalloc +- ' "$TMP/cmp" &&
	grep -Eq '^replay +epoch +mimalloc +[0-9.]+x .* [0-9.]+x ' "$TMP/cmp"; then
	ok "compare: total, setup (cold only) and epoch (steady and cold)"
else
	notok "compare rows" "$(grep -E '^replay' "$TMP/cmp")"
fi
if grep -Eq 'compared: CPU time($|;)' "$TMP/cmp" && ! grep -q 'wall time' "$TMP/cmp"; then
	ok "a replay with marked phases compares CPU time, its phases too (the replay stamps the CPU clock)"
else
	notok "marked replay's time" "$(grep -i 'compared\|wall time' "$TMP/cmp")"
fi
jeq "the record keeps epoch's CPU time per span" "$TMP/b.json" rounds.0.runs.0.record.phase_marks.phases.1.cpu_ns.# 4
"$A" compare "$TMP/b.json" --format json >"$TMP/cmp.json" 2>/dev/null
n=$("$J" "$TMP/cmp.json" comparisons.#)
times=""
for ((k = 0; k < n; k++)); do times+="$("$J" "$TMP/cmp.json" "comparisons.$k.phase")=$("$J" "$TMP/cmp.json" "comparisons.$k.time") "; done
case "$times" in
*epoch=cpu*) if [[ $times != *=wall* ]]; then ok "compare --format json: every row's time is cpu ($times)"; else notok "row times" "$times"; fi ;;
*) notok "row times" "$times" ;;
esac
expect_status "compare --phase epoch --regime steady" 0 "$A" compare "$TMP/b.json" --phase epoch --regime steady
expect_status "compare --phase setup --regime steady is refused" 2 "$A" compare "$TMP/b.json" --phase setup --regime steady
expect_status "replay with --param marks=ignore" 0 "$SYS" run replay --param trace="$TMP/c.trace" --param marks=ignore --reps 1
cp "$TMP/out" "$TMP/ign.json"
expect_status "replay with the marks" 0 "$SYS" run replay --param trace="$TMP/c.trace" --reps 1
jeq "marks=ignore: no phase_marks" "$TMP/ign.json" phase_marks ""
jeq "... and the same checksum" "$TMP/ign.json" checksum "$("$J" "$TMP/out" checksum)"

# ---- a results file whose replay marks disagree with the record is refused ----
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 - "$TMP/b.json" "$TMP/clash.json" "$TMP/lack.json" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for r in d["rounds"]:
    for run in r["runs"]:
        rec = run["record"]
        rec["phases"].append("epoch")
        for rep in rec["reps"]:
            rep["phases"]["epoch"] = {"wall_ns": 5, "cpu_ns": 5}
json.dump(d, open(sys.argv[2], "w"))
d = benchfile.load(sys.argv[1])
d["rounds"][1]["runs"][0]["record"]["phase_marks"]["phases"].pop(0)
json.dump(d, open(sys.argv[3], "w"))
PY
	expect_status "a marked phase named like a phase of the record: refused" 2 "$A" compare "$TMP/clash.json"
	expect_err "... with one line" "phase_marks: 'epoch' is a phase the run times itself"
	expect_status "a replay run marking fewer phases than the others: refused" 2 "$A" compare "$TMP/lack.json"
	expect_err "... with one line" "phase_marks.phases is not an array of the same phases"
else
	skip "replay marks that disagree with the record" "/usr/bin/python3 is not installed"
fi

# ---- a hostile marks file: the trace without marks, one line on stderr ----
"$A" record -o "$TMP/h.trace" -- "$F" 2 garbage >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc = 0 ] && [ "$(grep -c 'phase marks' "$TMP/err")" = 1 ] &&
	grep -q "^allocab: record: warning: phase marks left out of the trace: line 7: not 'begin NAME NS \[PID \[CPU\]\]'" "$TMP/err"; then
	ok "hostile marks: exit 0 and one line saying why they are left out"
else
	notok "hostile marks" "exit $rc: $(cat "$TMP/err")"
fi
expect_status "... the trace is written" 0 "$A" trace info --json "$TMP/h.trace"
jeq "... without marks" "$TMP/out" process.0.phase_marks null
within "... with every call (the fixture's and stdio's mallocs)" "$("$J" "$TMP/out" process.0.ops.malloc)" 100001 100010
"$A" record -o "$TMP/h2.trace" -- "$F" 2 huge >/dev/null 2>"$TMP/err"
if grep -q 'phase marks left out of the trace: the marks exceed 1048576 bytes' "$TMP/err" && [ -s "$TMP/h2.trace" ]; then
	ok "marks over 1 MiB: left out, trace written"
else
	notok "huge marks" "$(cat "$TMP/err")"
fi

# ---- traces of versions 1 and 2 still read and replay ----
for v in 1 2; do
	f=tests/fuzz/corpus/replay_load/alloc_threads_v$v.trace
	expect_status "trace info of a version $v trace" 0 "$A" trace info --json "$f"
	jeq "... format version $v, no marks" "$TMP/out" process.0.phase_marks null
	expect_status "replay of a version $v trace" 0 "$SYS" run replay --param trace="$f" --reps 1
	jeq "... without phase_marks" "$TMP/out" phase_marks ""
done

# ---- a phase whose spans hold no call is stated, not timed ----
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 - "$TMP/u.trace" <<'PY'
import sys
sys.path.insert(0, "tests/fixtures/hostile")
from mkt import *
b = [process(), events(0, [("malloc", 100, 1, 16), ("free", 10, 1)]),
     marks([(b"work", [(90, 120)]), (b"idle", [(500, 600)])]), end((0, 1, 0, 0, 0, 0, 0, 0, 1))]
open(sys.argv[1], "wb").write(bundle(b, version=3))
PY
	expect_status "replay of a trace with a phase without calls" 0 "$SYS" run replay --param trace="$TMP/u.trace" --reps 1
	jeq "work is timed" "$TMP/out" phase_marks.phases.0.name work
	jeq "idle is stated, not timed" "$TMP/out" phase_marks_untimed.0.name idle
	jeq "... with its reason" "$TMP/out" phase_marks_untimed.0.reason "its first span holds no call of this process"
else
	skip "a phase without calls" "/usr/bin/python3 is not installed"
fi

# ---- the Python fixture: its marks recorded with its own pid ----
if [ -x /usr/bin/python3 ]; then
	expect_status "record of the Python fixture" 0 "$A" record -o "$TMP/py.trace" -- /usr/bin/python3 tests/tools/phase_fixture.py 3
	expect_status "trace info of it" 0 "$A" trace info --json "$TMP/py.trace"
	jeq "python: import, epoch, eval" "$TMP/out" process.0.phase_marks.phases.2.name eval
	jeq "python: three epochs" "$TMP/out" process.0.phase_marks.phases.1.spans.# 3
else
	skip "Python fixture" "/usr/bin/python3 is not installed"
fi
exit $t_fail
