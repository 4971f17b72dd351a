# e2e_phases.sh - phases a program marks itself (docs/programs.md, "Phases your program marks"):
# a C fixture (phase/allocab_phase.h) and a Python one (phase/allocab_phase.py) under --cmd and
# --program; their per-phase times, cold and steady, in the results, compare and gate; a program
# that marks nothing timed as a whole; every broken or hostile marks file makes its run invalid
# with one reason; a results file whose marks disagree is refused. No torch needed.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget
F=$BUILD/tests/phase_fixture

# ---- a C program marking setup once and epoch six times ----
expect_status "C fixture under --cmd: exit 0" 0 "$A" bench --cmd a="$F 6" --cmd b="$F 6" \
	-w fixture --rounds 2 --warmup 0 -q -o "$TMP/c.json"
r=$(run_of "$TMP/c.json" a)
jeq "the workload is named by -w" "$TMP/c.json" config.workloads.0 fixture
jeq "run ok" "$TMP/c.json" "$r.status" ok
jeq "setup marked first" "$TMP/c.json" "$r.phase_marks.phases.0.name" setup
jeq "epoch marked second" "$TMP/c.json" "$r.phase_marks.phases.1.name" epoch
jeq "six epoch spans" "$TMP/c.json" "$r.phase_marks.phases.1.wall_ns.#" 6
jeq "the first epoch is cold" "$TMP/c.json" "$r.phase_marks.phases.1.regimes.0" cold
jeq "the last epoch is steady" "$TMP/c.json" "$r.phase_marks.phases.1.regimes.5" steady
jeq "setup ran once: no steady time" "$TMP/c.json" "$r.phase_marks.phases.0.steady_ns" null
jeq "6 epochs: the second and third are warm-up" "$TMP/c.json" "$r.phase_marks.phases.1.regimes.2" warmup
jeq "6 epochs: the last 3 are steady, whatever their times" "$TMP/c.json" "$r.phase_marks.phases.1.regimes.3" steady
w3=$("$J" "$TMP/c.json" "$r.phase_marks.phases.1.wall_ns.3")
w4=$("$J" "$TMP/c.json" "$r.phase_marks.phases.1.wall_ns.4")
w5=$("$J" "$TMP/c.json" "$r.phase_marks.phases.1.wall_ns.5")
jeq "steady_ns: the mean of the 3 steady spans, rounded" "$TMP/c.json" "$r.phase_marks.phases.1.steady_ns" \
	"$(awk -v a="$w3" -v b="$w4" -v c="$w5" 'BEGIN { printf "%.0f", (a + b + c) / 3 }')"
jeq "14 lines read" "$TMP/c.json" "$r.phase_marks.lines" 14
"$A" compare "$TMP/c.json" --primary all >"$TMP/cmp" 2>&1
if grep -Eq '^fixture +total +b +- ' "$TMP/cmp" && grep -Eq '^fixture +setup +b +- ' "$TMP/cmp" &&
	grep -Eq '^fixture +epoch +b +[0-9.]+x' "$TMP/cmp"; then
	ok "compare: total and setup cold only, epoch steady and cold"
else
	notok "compare rows" "$(grep -E '^fixture' "$TMP/cmp")"
fi
# by default the total (cold: a process timed once) is the question, the phases secondary
"$A" compare "$TMP/c.json" >"$TMP/cmp" 2>&1
if sed -n '/^primary comparisons/,/^secondary comparisons/p' "$TMP/cmp" | grep -Eq '^fixture +total +b +[0-9.]+x' &&
	sed -n '/^secondary comparisons/,$p' "$TMP/cmp" | grep -Eq '^fixture +setup +b +- ' &&
	sed -n '/^secondary comparisons/,$p' "$TMP/cmp" | grep -Eq '^fixture +epoch +b +[0-9.]+x'; then
	ok "compare: the cold total primary, setup and epoch secondary"
else
	notok "compare: families of a program" "$(cat "$TMP/cmp")"
fi
expect_status "compare --phase epoch --regime steady" 0 "$A" compare "$TMP/c.json" --phase epoch --regime steady
expect_status "compare --phase setup --regime steady is refused" 2 "$A" compare "$TMP/c.json" --phase setup --regime steady
expect_err "... with one line naming the phase" "phase 'setup' has no steady times"
"$A" gate "$TMP/c.json" --candidate b --max-slowdown 50% --phase epoch >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -ne 2 ] && grep -q 'fixture/epoch steady b vs a' "$TMP/out"; then
	ok "gate --phase epoch judges the steady epoch (exit $rc)"
else
	notok "gate --phase epoch" "exit $rc: $(cat "$TMP/out" "$TMP/err" | head -c 400)"
fi
"$A" gate "$TMP/c.json" --candidate b --max-slowdown 50% >"$TMP/out" 2>"$TMP/err"
if grep -q 'fixture/total cold b vs a' "$TMP/out" && grep -q 'phase total has no steady times' "$TMP/err"; then
	ok "gate on the total falls back to its cold time and says so"
else
	notok "gate total" "$(cat "$TMP/out" "$TMP/err" | head -c 400)"
fi
"$A" compare "$TMP/c.json" --format json -o "$TMP/c.cmp.json"
jeq "compare json: epoch steady row" "$TMP/c.cmp.json" comparisons.2.phase epoch

# ---- a Python program under --program, every process proven ----
if [ -x /usr/bin/python3 ]; then
	expect_status "Python fixture under --program: exit 0" 0 "$A" bench \
		--program "/usr/bin/python3 tests/tools/phase_fixture.py 5" -a system,mimalloc \
		--rounds 1 --warmup 0 -q -o "$TMP/py.json"
	r=$(run_of "$TMP/py.json" mimalloc)
	jeq "python: verified on mimalloc" "$TMP/py.json" "$r.probe.verified" true
	jeq "python: import, epoch, eval" "$TMP/py.json" "$r.phase_marks.phases.2.name" eval
	jeq "python: five epochs" "$TMP/py.json" "$r.phase_marks.phases.1.wall_ns.#" 5
else
	skip "Python fixture" "/usr/bin/python3 is not installed"
fi

# ---- a program that marks nothing is timed as a whole ----
expect_status "unmarked program: exit 0" 0 "$A" bench --cmd a="$F 2 none" --cmd b="$F 2 none" \
	--rounds 1 --warmup 0 -q -o "$TMP/none.json"
r=$(run_of "$TMP/none.json" a)
jeq "unmarked: phase_marks null" "$TMP/none.json" "$r.phase_marks" null
jeq "unmarked: workload command" "$TMP/none.json" config.workloads.0 command
if "$A" compare "$TMP/none.json" 2>&1 | grep -Eq '^command +total +b'; then
	ok "unmarked: compare shows the total only"
else
	notok "unmarked compare" "$("$A" compare "$TMP/none.json" 2>&1 | tail -5)"
fi

# ---- broken or hostile marks: the run is invalid, with one reason ----
hostile() {
	local mode=$1 want=$2 r
	"$A" bench --cmd a="$F 2" --cmd b="$F 2 $mode" --rounds 1 --warmup 0 -q \
		-o "$TMP/$mode.json" >/dev/null 2>&1
	r=$(run_of "$TMP/$mode.json" b)
	if [ "$("$J" "$TMP/$mode.json" "$r.status")" = invalid ] &&
		"$J" "$TMP/$mode.json" "$r.reason" | grep -q "^phase marks: .*$want"; then
		ok "marks $mode: run invalid, '$want'"
	else
		notok "marks $mode" "$("$J" "$TMP/$mode.json" "$r.status") $("$J" "$TMP/$mode.json" "$r.reason")"
	fi
}
hostile unbalanced "'epoch' begun at line 5 never ended"
hostile garbage "line 7: not 'begin NAME NS \[PID \[CPU\]\]'"
hostile badname "'total' is not a phase name"
hostile realtime "outside the run"
hostile huge "exceed 1048576 bytes"
hostile cut "no newline"
expect_status "a bench whose every run of an arm is invalid exits 1" 1 "$A" bench \
	--cmd a="$F 2" --cmd b="$F 2 garbage" --rounds 1 --warmup 0 -q -o "$TMP/g2.json"
"$A" bench --cmd a="$F 2" --cmd b="$F 2 swap" --rounds 1 --warmup 0 -q -o "$TMP/swap.json" >/dev/null 2>&1
if [ "$(grep -c 'differ from those of the first ok run' "$TMP/swap.json")" = 1 ]; then
	ok "other phase names than the first ok run's: that run is invalid"
else
	notok "swap" "$(grep -o '"reason": "[^"]*"' "$TMP/swap.json")"
fi

# ---- a results file whose marks disagree is refused ----
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 - "$TMP/c.json" "$TMP/bad.json" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
d["rounds"][1]["runs"][0]["phase_marks"]["phases"].pop(0)
json.dump(d, open(sys.argv[2], "w"))
PY
	expect_status "a run marking other phases than the others: refused" 2 "$A" compare "$TMP/bad.json"
	expect_err "... with one line" "phase_marks.phases is not an array of the same phases"
	/usr/bin/python3 - "$TMP/c.json" "$TMP/bad2.json" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
d["rounds"][0]["runs"][0]["phase_marks"]["phases"][1]["regimes"][0] = "steady"
json.dump(d, open(sys.argv[2], "w"))
PY
	expect_status "a first span labelled steady: refused" 2 "$A" compare "$TMP/bad2.json"
	expect_err "... with one line" "regimes\[0\] of 'epoch' is not cold"
	# the same steady spans in both arms, a's 100, 200, 600 (median 200) against b's 300 x 3:
	# equal means, so the steady epoch is 1.000x (the medians would give 0.667x)
	/usr/bin/python3 - "$TMP/c.json" "$TMP/mean.json" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for rd in d["rounds"]:
    for run in rd["runs"]:
        ph = run["phase_marks"]["phases"][1]
        t = [1000, 500, 500] + ([100, 200, 600] if run["arm"] == "a" else [300, 300, 300])
        ph["wall_ns"] = t
        ph["cpu_ns"] = t
json.dump(d, open(sys.argv[2], "w"))
PY
	"$A" compare "$TMP/mean.json" --phase epoch --regime steady >"$TMP/mean.txt" 2>&1
	! grep -q 'marked it' "$TMP/mean.txt" && ok "compare: runs that marked a phase as often are not warned of" ||
		notok "compare: no span-count warning" "$(grep 'marked it' "$TMP/mean.txt")"
	/usr/bin/python3 - "$TMP/c.json" "$TMP/short.json" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
ph = d["rounds"][0]["runs"][0]["phase_marks"]["phases"][1]
for k in ("wall_ns", "cpu_ns", "regimes"):
    ph[k].pop()
json.dump(d, open(sys.argv[2], "w"))
PY
	"$A" compare "$TMP/short.json" --phase epoch --regime steady >"$TMP/short.txt" 2>&1
	grep -q "fixture/epoch: its runs marked it 5 to 6 times, so their steady halves are not the same spans" "$TMP/short.txt" &&
		ok "compare: a phase marked 5 times in one run and 6 in the others is warned of" ||
		notok "compare: span-count warning" "$(head -c 600 "$TMP/short.txt")"
	grep -Eq '^fixture +epoch +b +1\.000x' "$TMP/mean.txt" &&
		ok "compare: a steady time is the mean of the steady spans, not their median" ||
		notok "compare: the mean of the steady spans" "$(cat "$TMP/mean.txt")"
else
	skip "results files whose marks disagree" "/usr/bin/python3 is not installed"
fi
exit $t_fail
