#!/usr/bin/env bash
# e2e_mkbench.sh - the fixtures' writer (tests/tools/mkbench.c) writes through the real engine and
# the production writer with a fake runner: what it was told comes back through `allocab compare`
# (the file's layout is not looked at): its speedups, its rounds, its failed runs left out of the
# pairs, its CPU times, its machine's label (merge), its drivers mode; a bad spec gets one line and exit 2.
. tests/e2e/lib.sh
M=$BUILD/tests/mkbench
A=$BUILD/allocab

expect_status "mkbench: a two-arm bench is written" 0 "$M" "$TMP/a.json" arms=system=1,mimalloc=0.8/0.01 rounds=10
"$A" compare "$TMP/a.json" --format json -o "$TMP/a.cmp.json" 2>"$TMP/err" || notok "mkbench: compare reads it" "$(cat "$TMP/err")"
jeq "mkbench: compare sees 10 paired rounds" "$TMP/a.cmp.json" comparisons.0.n 10
jeq "mkbench: the candidate is faster" "$TMP/a.cmp.json" comparisons.0.verdict faster
s=$("$BUILD/tests/jget" "$TMP/a.cmp.json" comparisons.0.speedup)
awk -v s="$s" 'BEGIN { exit !(s > 1.22 && s < 1.28) }' && ok "mkbench: speedup 1/0.8 comes back ($s)" ||
	notok "mkbench: speedup" "$s, want about 1.25"

expect_status "mkbench: failed and killed runs" 0 "$M" "$TMP/f.json" arms=system=1,mimalloc=1 rounds=8 \
	fail=mimalloc:3:7 signal=system:5
"$A" compare "$TMP/f.json" --format json -o "$TMP/f.cmp.json" 2>"$TMP/err" || notok "mkbench: compare reads the failures" "$(cat "$TMP/err")"
jeq "mkbench: two rounds with a failed run leave the pairs" "$TMP/f.cmp.json" comparisons.0.n 6
jeq "mkbench: the equal arms are equivalent" "$TMP/f.cmp.json" comparisons.0.verdict equivalent

expect_status "mkbench: CPU time" 0 "$M" "$TMP/c.json" arms=old=1,new=0.5 rounds=6 cpu=0.5
"$A" compare "$TMP/c.json" >"$TMP/c.txt" 2>&1
grep -q 'CPU/wall per run: old 0.55, new 0.55' "$TMP/c.txt" && ok "mkbench: the runs' CPU time is recorded (user 0.5 + sys 0.05 of wall)" ||
	notok "mkbench: CPU time" "$(grep -m1 'CPU/wall' "$TMP/c.txt")"

# label=: the bench is one machine of a fleet; two of them merge.
"$M" "$TMP/m1.json" label=m1 arms=system=1,mimalloc=0.9/0.02 rounds=8 seed=1
"$M" "$TMP/m2.json" label=m2 arms=system=1,mimalloc=0.9/0.02 rounds=8 seed=2
expect_status "mkbench: two labelled benches merge into a fleet" 0 "$A" merge "$TMP/m1.json" "$TMP/m2.json"
grep -q 'm1' "$TMP/out" && grep -q 'm2' "$TMP/out" && ok "mkbench: the fleet names both machines" ||
	notok "mkbench: fleet machines" "$(head -c 300 "$TMP/out")"

# mode=drivers: each run answers with a record (reps: a cold one, steady ones); formula=cycle
# gives known times (lib.sh's mkbench); crash=, id= and the fake's telemetry.
expect_status "mkbench: a drivers bench with reps is written" 0 "$M" "$TMP/d.json" mode=drivers formula=cycle \
	arms=system=1,mimalloc=0.8 wls=parquet_load rounds=8 reps=4 colds=system=2 crash=mimalloc:3
"$A" compare "$TMP/d.json" --format json -o "$TMP/d.cmp.json" 2>"$TMP/err" || notok "mkbench: compare reads the drivers bench" "$(cat "$TMP/err")"
jeq "mkbench: the crashed round leaves the pairs" "$TMP/d.cmp.json" comparisons.0.n 7
[ "$("$BUILD/tests/jget" "$TMP/d.json" rounds.4.runs.#)" = 2 ] && grep -q '"arm":"mimalloc","workload":"parquet_load","pad_bytes":0,"status":"crashed"' "$TMP/d.json" &&
	ok "mkbench: crash=mimalloc:3 is a crashed run of measured round 3" || notok "mkbench: crash=" "$(grep -c crashed "$TMP/d.json")"
"$A" compare "$TMP/d.json" >"$TMP/d.txt" 2>&1
grep -Eq '^parquet_load +total +mimalloc +2\.(49|50)[0-9]x ' "$TMP/d.txt" && grep -Eq '^parquet_load +total +mimalloc +1\.2[45][0-9]x ' "$TMP/d.txt" &&
	ok "mkbench: cold 2/0.8 and steady 1/0.8 come back (within the 0.4% wobble)" || notok "mkbench: regimes" "$(grep parquet_load "$TMP/d.txt" | head -4)"
"$M" "$TMP/far.json" mode=drivers formula=cycle arms=system=1,mimalloc=0.8 id=elsewhere
"$A" compare "$TMP/d.json" "$TMP/far.json" >"$TMP/out" 2>&1
grep -q 'elsewhere' "$TMP/out" && ok "mkbench: id= is another machine" || notok "mkbench: id=" "$(grep -i machine "$TMP/out" | head -3)"
[ "$("$BUILD/tests/jget" "$TMP/far.json" rounds.0.runs.0.telemetry.runnable)" = 1 ] && ok "mkbench: the telemetry is the fake's" ||
	notok "mkbench: telemetry" "$("$BUILD/tests/jget" "$TMP/far.json" rounds.0.runs.0.telemetry)"

expect_status "mkbench: an arm named twice is refused" 2 "$M" "$TMP/x.json" arms=a=1,a=2
expect_err "mkbench: one line naming the arm" '^mkbench: an arm named twice: a$'
expect_status "mkbench: an unknown arm in fail= is refused" 2 "$M" "$TMP/x.json" fail=nope:1
[ -e "$TMP/x.json" ] && notok "mkbench: nothing written on a bad spec" "$TMP/x.json exists" || ok "mkbench: nothing written on a bad spec"
exit $t_fail
