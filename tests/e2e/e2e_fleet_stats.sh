# e2e_fleet_stats.sh - what a fleet does with each machine's sequential plan and regimes
# (docs/fleet.md, "Machines that stopped on a sequential decision", "The gate on a fleet"): the
# gate on each machine judges a file by its own plan, the pooling weighs a machine that stopped
# on a decision by its sequential interval, and the fleet gate falls back to the cold regime as
# the one-file gate does. Crafted machines (tests/tools/mkbench.c, commands mode) and a program
# that marks its phases (tests/tools/phase_fixture.c).
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget
M=$BUILD/tests/mkbench
F=$TMP/fleet
mkdir -p "$F"
unset ALLOCAB_LABEL ALLOCAB_SHARD SLURM_ARRAY_TASK_ID SLURMD_NODENAME JOB_COMPLETION_INDEX

# plan IN OUT N: IN as one document whose bench had a plan of N rounds (first look 6) and
# stopped when it decided (status decided).
plan() {
	python3 -c 'import json, sys, benchfile
d = benchfile.load(sys.argv[1])
d["schema"] = "allocab-bench/1"
d["config"]["sequential"] = {"planned_rounds": int(sys.argv[3]), "first_look": 6}
d["status"] = "decided"
json.dump(d, open(sys.argv[2], "w"), separators=(",", ":"))' "$1" "$2" "$3"
}

# --- each machine by its own plan ---------------------------------------------------------------
# x: 10 rounds of a plan of 12, mimalloc about 9% faster with 6% wobble: its fixed-n 95.1%
# interval [1.058, 1.124] passes a 5% margin, its sequential 98.6% interval [1.052, 1.133] not.
"$M" "$F/x0.json" label=x arms=system=1,mimalloc=0.91/0.06 rounds=10
plan "$F/x0.json" "$F/x.json" 12
"$M" "$F/y.json" label=y arms=system=1,mimalloc=0.9/0.01 rounds=10 seed=3 id=other

expect_status "x alone: its own plan leaves it INCONCLUSIVE" 3 "$A" gate "$F/x.json" --candidate mimalloc --min-speedup 5%
grep -q "sequential 98.6% CI \[1.052, 1.133\] straddles" "$TMP/out" &&
	ok "x alone: on its sequential interval [1.052, 1.133]" || notok "x alone: its line" "$(head -1 "$TMP/out")"
expect_status "fleet, each machine: x is INCONCLUSIVE by its own plan, not PASS on fixed n" 3 \
	"$A" gate "$F/x.json" "$F/y.json" --candidate mimalloc --min-speedup 5% --on each-machine
grep -qE "^INCONCLUSIVE command cold mimalloc vs system on x: speedup 1.092x, sequential 98.6% CI \[1.052, 1.133\] straddles .*after round 10 of 12 planned \(its own plan\)" "$TMP/out" &&
	ok "fleet, each machine: x's line is its sequential interval and plan" || notok "fleet, each machine: x's line" "$(cat "$TMP/out")"
grep -qE "^PASS +command cold mimalloc vs system on y: .* 95.1% CI" "$TMP/out" &&
	ok "fleet, each machine: y, without a plan, on its fixed-n interval" || notok "fleet, each machine: y's line" "$(cat "$TMP/out")"
expect_status "fleet, each machine: without x's plan, x passes on its fixed-n interval" 0 \
	"$A" gate "$F/x0.json" "$F/y.json" --candidate mimalloc --min-speedup 5% --on each-machine

# the pooling weighs x by the standard error of its sequential interval
"$A" merge "$F/x.json" "$F/y.json" --format json -o "$F/m.json" 2>"$TMP/err"
se=$("$J" "$F/m.json" comparisons.0.machines.0.se)
sef=$("$J" "$F/m.json" comparisons.0.machines.0.se_fixed_n)
awk -v s="$se" -v f="$sef" 'BEGIN { r = s / f; exit !(r > 1.2 && r < 1.3) }' &&
	ok "merge: x is pooled with its sequential interval's standard error ($se, fixed n $sef)" ||
	notok "merge: x's standard error" "se $se, fixed n $sef"
# (1.133 - 1.052) in log speedup over 2 z at 1 - 0.05: the plan guarantees 95% over its looks
# (the printed ends are rounded to 0.001: within 3e-4)
want=$(awk 'BEGIN { printf "%.5f", (log(1.133) - log(1.052)) / (2 * 1.959964) }')
awk -v s="$se" -v w="$want" 'BEGIN { exit !(s - w < 0.0003 && w - s < 0.0003) }' &&
	ok "merge: that standard error is the width of x's sequential interval over 2 z_0.975 ($want)" ||
	notok "merge: x's sequential standard error" "se $se, want about $want"
[ "$("$J" "$F/m.json" comparisons.0.machines.1.se)" = "$("$J" "$F/m.json" comparisons.0.machines.1.se_fixed_n)" ] &&
	ok "merge: y, without a plan, keeps its fixed-n standard error" || notok "merge: y's standard error" "$("$J" "$F/m.json" comparisons.0.machines.1)"
"$J" "$F/m.json" warnings >"$TMP/w"
grep -q "x: its bench stopped on its sequential intervals .*the pooling weighs it by the standard error of its sequential interval (up to 1.2[0-9]x" "$TMP/w" &&
	ok "merge: the warning names x and how much wider" || notok "merge: the warning" "$(cat "$TMP/w")"

# --- the cold fallback, as for one file ---------------------------------------------------------
P=$BUILD/tests/phase_fixture
for m in pa pb; do
	"$A" bench --cmd system="$P 6" --cmd mimalloc="$P 6" -w fixture --rounds 3 --warmup 0 -q \
		--allocation none --label "$m" -o "$F/$m.json" 2>/dev/null || notok "bench $m" "exit $?"
done
# judged (PASS 0, FAIL 1 or INCONCLUSIVE 3: the times are real), never refused (2)
judged() {
	local name=$1 got
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	case $got in 0 | 1 | 3) ok "$name (exit $got)" ;; *) notok "$name" "exit $got; stderr: $(head -c 300 "$TMP/err")" ;; esac
}
judged "one program file: the gate judges its total on cold" "$A" gate "$F/pa.json" --candidate mimalloc --min-speedup 50%
grep -q "pa.json: phase total has no steady times (a program's total, or a phase it ran once): judging the cold regime" "$TMP/err" &&
	ok "one program file: with a warning" || notok "one program file: the warning" "$(cat "$TMP/err")"
for on in pooled each-machine geomean; do
	judged "a program fleet (--on $on): judged on cold, not refused" "$A" gate "$F/pa.json" "$F/pb.json" --candidate mimalloc --min-speedup 50% --on "$on"
	grep -q "pa.json: phase total has no steady times (a program's total, or a phase it ran once): judging the whole fleet on the cold regime" "$TMP/err" &&
		grep -q "cold regime)$" "$TMP/out" && ok "a program fleet (--on $on): the same warning, the cold regime judged" ||
		notok "a program fleet (--on $on): warning and regime" "$(cat "$TMP/err" "$TMP/out")"
done
expect_status "a program fleet with --regime steady is refused" 2 "$A" gate "$F/pa.json" "$F/pb.json" --candidate mimalloc --min-speedup 50% --regime steady

exit $t_fail
