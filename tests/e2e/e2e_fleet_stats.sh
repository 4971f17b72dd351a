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

# --- the meta-regression on the machines' facts --------------------------------------------------
# facts DIR NAME=START_NS[:END_NS][@BOOT]...: set machine NAME's fault cost at the bench's start
# and end (and its boot id: files of one boot id are sessions of one machine).
facts() {
	python3 -c 'import json, sys, benchfile
for a in sys.argv[2:]:
    name, v = a.split("=")
    v, boot = (v.split("@") + [None])[:2]
    ends = [float(x) for x in v.split(":")]
    p = "%s/%s.json" % (sys.argv[1], name)
    d = benchfile.load(p)
    d["schema"] = "allocab-bench/1"
    for k, f in zip(("start", "end"), ends * (3 - len(ends))):
        d["facts"][k]["fault_ns"] = {"median": f, "min": f, "max": f, "trials": 10}
    if boot:
        d["task"]["boot_id"] = boot
    json.dump(d, open(p, "w"), separators=(",", ":"))' "$@"
}
X=$TMP/x
mkdir -p "$X"
"$BUILD/tests/mkfleet" "$X" 3 8 20 -0.05 0.005 0 0.02 1 0.02 >/dev/null
facts "$X" m1=100000000000001 m2=100000000000002 m3=100000000000003 m4=100000000000004 \
	m5=100000000000005 m6=100000000000006 m7=100000000000007 m8=100000000000008
"$A" merge "$X"/m*.json --format json -o "$X/huge.json" 2>/dev/null
jeq "fault costs 1e14 + 1..8 ns: fitted, not called collinear with the vendor" "$X/huge.json" comparisons.0.explained.fitted true
jeq "... on both moderators" "$X/huge.json" comparisons.0.explained.moderators.# 2
python3 -c 'import sys, benchfile
e = benchfile.load(sys.argv[1])["comparisons"][0]["explained"]
ok = e["r2"] is None and e["r2_unsupported"] and 0 < e["qm_p"] <= 1 and all(m["se"] > 0 for m in e["moderators"])
print("" if ok else e)
sys.exit(0 if ok else 1)' "$X/huge.json" >"$TMP/o" &&
	ok "... no share explained claimed without a significant moderator (omnibus QM and its p, each moderator's SE)" ||
	notok "... r2 unsupported" "$(cat "$TMP/o")"
"$A" merge "$X"/m*.json 2>/dev/null | grep -E "^command cold cand: meta-regression" >"$TMP/line"
grep -qE "fault cost \(per us\) [-+][0-9.e+-]+ \(SE [0-9.e+-]+, p [0-9.e+-]+\) .*all moderators: QM [0-9.e+-]+ on 2 df, p [0-9.e+-]+ .*R\^2 not supported: " "$TMP/line" &&
	ok "... the text says each moderator's coefficient, SE and p, the omnibus test, and that R^2 is not supported" ||
	notok "... the text" "$(cat "$TMP/line")"

# the fault cost measured with error: start and end differ by 42% on m1
"$BUILD/tests/mkfleet" "$X" 3 8 20 -0.05 0.005 0 0.02 1 0.02 >/dev/null
facts "$X" m1=10300:14600
"$A" merge "$X"/m*.json --format json -o "$X/spread.json" 2>/dev/null
"$J" "$X/spread.json" comparisons.0.explained.fault_spread | grep -q "moved up to 42% within one bench (m1: 10.3 -> 14.6 us)" &&
	ok "the fault cost's start-to-end spread is reported (42% on m1)" || notok "fault spread" "$("$J" "$X/spread.json" comparisons.0.explained)"
python3 -c 'import sys, benchfile
e = benchfile.load(sys.argv[1])["comparisons"][0]["explained"]
sys.exit(0 if isinstance(e["r2"], float) and e["r2_unsupported"] is None and e["qm_p"] < 0.05 else 1)' "$X/spread.json" &&
	ok "a fleet whose fault cost does explain its effects: R^2 given, omnibus p < 0.05" ||
	notok "R^2 supported" "$("$J" "$X/spread.json" comparisons.0.explained)"

# a machine of two sessions enters with the mean of its sessions' fault costs, not its first's:
# sessions at 5 and 15 us fit as one machine at 10 us
"$BUILD/tests/mkfleet" "$X" 3 8 20 -0.05 0.005 0 0.02 1 0.02 >/dev/null
facts "$X" m7=5000@abc m8=15000@abc
"$A" merge "$X"/m*.json --format json -o "$X/two.json" 2>/dev/null
facts "$X" m7=10000@abc m8=10000@abc
"$A" merge "$X"/m*.json --format json -o "$X/ten.json" 2>/dev/null
a=$("$J" "$X/two.json" comparisons.0.explained.moderators.0.coef)
b=$("$J" "$X/ten.json" comparisons.0.explained.moderators.0.coef)
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$("$J" "$X/two.json" comparisons.0.units_pooled)" = 7 ] &&
	ok "sessions at 5 and 15 us fit as one machine at 10 us (slope $a both ways)" || notok "sessions' fault costs" "$a vs $b"

exit $t_fail
