# e2e_pools.sh - pools and gates that refuse what is not comparable (docs/fleet.md, "One machine,
# several files", "Comparable or set apart", "Which standard error", "A fleet that explains
# itself"; docs/ci.md, "Failed runs"), on the inputs of the third hostile round kept in
# tests/fixtures/data/hostile3/: one file copied under new labels, commands benches of other programs, CPU
# time pooled with wall time, 520 copies, a crashing candidate, a run "ok" whose proof failed, an
# edited machine fingerprint; sessions of one machine; the meta-regression on mkfleet's facts.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget
D=tests/fixtures/data/hostile3
P=$TMP/pools
PY=/usr/bin/python3
mkdir -p "$P"

# relabel SRC DST LABEL [BOOT]: a copy of SRC with another task.label (and boot id)
relabel() {
	"$PY" -c 'import json, benchfile, sys
d = benchfile.load(sys.argv[1]); d["task"]["label"] = sys.argv[3]
if len(sys.argv) > 4: d["task"]["boot_id"] = sys.argv[4]
json.dump(d, open(sys.argv[2], "w"))' "$@"
}

# (hostile-3 reproducer gate-pooled-copies)
# --- one file copied under new labels -------------------------------------------------------------
expect_status "copies: one file alone is INCONCLUSIVE" 3 "$A" gate "$D/copies-A.json" --candidate mimalloc --max-slowdown 50%
for i in 1 2 3; do relabel "$D/copies-A.json" "$P/Y$i.json" "Y$i"; done
expect_status "copies: three copies under new labels stay INCONCLUSIVE (were PASS)" 3 "$A" gate "$P"/Y{1,2,3}.json --candidate mimalloc --max-slowdown 50%
grep -q '0.898, 0.898' "$TMP/out" && notok "copies: no zero-width pooled interval" "$(cat "$TMP/out")" || ok "copies: no zero-width pooled interval"
grep -q "2 files repeating another's measurements counted once" "$TMP/out" && ok "copies: the gate line says the copies count once" || notok "copies: gate line" "$(cat "$TMP/out")"
n=$(grep -c "repeat the measurements of Y1" "$TMP/err")
[ "$n" = 1 ] && ok "copies: one warning line names them" || notok "copies: one warning line" "$n: $(cat "$TMP/err")"
for i in 1 2 3; do relabel "$D/copies-A.json" "$P/X$i.json" "X$i" "0000000$i-0000-0000-0000-000000000000"; done
expect_status "copies: with the boot ids edited too, still one machine" 3 "$A" gate "$P"/X{1,2,3}.json --candidate mimalloc --max-slowdown 50%

# (hostile-3 reproducer merge-quadratic-warnings)
# --- 520 copies: one line per problem ------------------------------------------------------------
"$PY" -c 'import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for i in range(520):
    d["task"]["label"] = "M%03d" % i; json.dump(d, open("%s/M%03d.json" % (sys.argv[2], i), "w"))' "$D/copies-A.json" "$P"
"$A" merge "$P"/M*.json >"$P/m520.out" 2>"$P/m520.err"
rc=$?
[ "$rc" = 0 ] && ok "520 copies: merge exits 0" || notok "520 copies: merge" "exit $rc"
n=$(cat "$P/m520.out" "$P/m520.err" | grep -c "WARNING")
[ "$n" -le 3 ] && ok "520 copies: $n warning lines (were 134,940)" || notok "520 copies: warning lines" "$n"
grep -q "M001, M002, M003 (516 more) repeat the measurements of M000" "$P/m520.out" &&
	ok "520 copies: the line names three and counts the rest" || notok "520 copies: names" "$(grep WARNING "$P/m520.out" | head -3)"
grep -qE "POOLED .* 1 of 1 " "$P/m520.out" && ok "520 copies: the pool holds one machine" || notok "520 copies: pool" "$(grep POOLED "$P/m520.out")"

# (hostile-3 reproducer merge-different-programs, merge-mixed-time)
# --- comparable or set apart --------------------------------------------------------------------
expect_status "programs: merge of work 20000 and sleep 0.05 exits 0" 0 "$A" merge "$D/copies-A.json" "$D/programs-B.json" "$D/programs-D.json"
grep -qE "command +total +cold +mimalloc +D .*not pooled: ran other commands than A: \"sleep 0.05\", not \"/srv/repro/work 20000\"" "$TMP/out" &&
	ok "programs: the machine that ran another program is set apart, with the reason" || notok "programs: set apart" "$(grep -E ' D ' "$TMP/out")"
n=$(grep -c "D (tests/fixtures/data/hostile3/programs-D.json): no comparison: ran other commands" "$TMP/out"); [ "$n" = 1 ] && ok "programs: one warning line says so" || notok "programs: warning" "$(cat "$TMP/err")"
expect_status "programs: the gate is not PASS (was PASS)" 3 "$A" gate "$D/copies-A.json" "$D/programs-B.json" "$D/programs-D.json" --candidate mimalloc --max-slowdown 50%
expect_status "time: merge of CPU and wall time exits 0" 0 "$A" merge "$D/time-T1.json" "$D/time-T2.json"
grep -qE "T2 .*not pooled: feature_extract compared wall time here, CPU time on T1" "$TMP/out" &&
	ok "time: wall time is not pooled with CPU time" || notok "time: not pooled" "$(grep -E 'T2' "$TMP/out" | head -5)"
grep -qE "^T1 .*compared: CPU time" "$TMP/out" && grep -qE "^T2 .*compared: wall time" "$TMP/out" &&
	ok "time: the machines table says which time each machine compared" || notok "time: machines table" "$(grep -E '^T[12] ' "$TMP/out")"
"$A" merge "$D/time-T1.json" "$D/time-T2.json" --format json -o "$P/t.json" 2>/dev/null
jeq "time: json machines[].compared" "$P/t.json" machines.1.compared "wall time"

# (hostile-3 reproducer gate-pass-crashing-candidate)
# --- the gate and failed runs ---------------------------------------------------------------------
expect_status "crashes: a candidate that crashed in 6 of 12 rounds is FAIL (was PASS 19.2x)" 1 "$A" gate "$D/flaky.json" --candidate mimalloc --max-slowdown 50%
grep -q "failed runs: mimalloc 6 of 12 (first: crashed SIGSEGV), system 0 of 12: the candidate fails more often" "$TMP/out" &&
	ok "crashes: the gate says how many runs crashed" || notok "crashes: line" "$(cat "$TMP/out")"
relabel "$D/flaky.json" "$P/fl1.json" fl1 b1
"$PY" -c 'import json, benchfile, sys
d = benchfile.load(sys.argv[1]); d["task"]["label"] = "fl2"; d["task"]["boot_id"] = "b2"
for r in d["rounds"]:
    for run in r["runs"]:
        if run["status"] == "ok": run["process"]["wall_ns"] += 1000
json.dump(d, open(sys.argv[2], "w"))' "$D/flaky.json" "$P/fl2.json"
expect_status "crashes: a fleet with that machine is FAIL on the pooled estimate" 1 "$A" gate "$P/fl1.json" "$P/fl2.json" --candidate mimalloc --max-slowdown 50%
grep -q "failed runs: mimalloc 12 of 24 (first: crashed SIGSEGV), system 0 of 24" "$TMP/out" && ok "crashes: the pooled line counts the fleet's failed runs" || notok "crashes: pooled line" "$(cat "$TMP/out")"
expect_status "crashes: and FAIL on each machine" 1 "$A" gate "$P/fl1.json" "$P/fl2.json" --candidate mimalloc --max-slowdown 50% --on each-machine

# (hostile-3 reproducer crafted-ok-unverified)
# --- the reader's cross-checks --------------------------------------------------------------------
expect_status "ok with probe.verified false: refused" 2 "$A" compare "$D/ok-unverified.json"
expect_err "ok with probe.verified false: one line" 'rounds\[0\]\.runs\[[0-9]+\]: status "ok" with probe.verified false'
"$PY" -c 'import json, benchfile, sys
d = benchfile.load(sys.argv[1]); d["machine"]["cpu_model"] = "Intel(R) Xeon(R) Platinum 8480+"
json.dump(d, open(sys.argv[2], "w"))
d = benchfile.load(sys.argv[1]); d["machine"]["id"] = "0000000000000000"; d["task"]["label"] = "Z"
json.dump(d, open(sys.argv[3], "w"))' "$D/copies-A.json" "$P/fp_cpu.json" "$P/fp_id.json"
"$A" compare "$D/copies-A.json" "$P/fp_cpu.json" >"$P/fp1.out" 2>&1
grep -q "machine fingerprints differ" "$P/fp1.out" && ok "fingerprint: an edited CPU model under the old id is another machine" ||
	notok "fingerprint: edited fields" "$(head -5 "$P/fp1.out")"
"$A" compare "$D/copies-A.json" "$P/fp_id.json" >"$P/fp2.out" 2>&1
grep -q "machine fingerprints differ" "$P/fp2.out" && notok "fingerprint: a forged id with the same fields" "$(grep fingerprints "$P/fp2.out")" ||
	ok "fingerprint: a forged id with the same fields is the same machine"
"$A" merge "$P/Y1.json" "$P/fp_id.json" >"$P/fp3.err" 2>&1
grep -q "fp_id.json: machine.id 0000000000000000 does not match its fields (9f0644e9a3a393a4): the recomputed id is used" "$P/fp3.err" &&
	ok "fingerprint: merge says the stored id does not match" || notok "fingerprint: merge warning" "$(cat "$P/fp3.err")"

# --- sessions of one machine ----------------------------------------------------------------------
expect_status "sessions: two sessions of one machine merge" 0 "$A" merge "$D/copies-A.json" "$D/programs-B.json" --format json -o "$P/s.json"
jeq "sessions: the pool is of sessions of A" "$P/s.json" comparisons.0.sessions_of A
jeq "sessions: two sessions pooled" "$P/s.json" comparisons.0.units_pooled 2
"$J" "$P/s.json" warnings | grep -q "A, B ran on one machine (boot id d8d9111c-cf1c-4e60-932f-cd3251fb8f5f): 2 sessions of one machine" &&
	ok "sessions: one line says so" || notok "sessions: line" "$(cat "$TMP/err")"
"$BUILD/tests/mkfleet" "$P" 5 4 12 -0.05 0.02 0 0.05 1 >/dev/null
"$PY" -c 'import json, benchfile, sys
for i, b in ((1, "aa"), (2, "aa"), (3, "bb"), (4, "cc")):
    p = "%s/m%d.json" % (sys.argv[1], i); d = benchfile.load(p); d["task"]["boot_id"] = b; json.dump(d, open(p, "w"))' "$P"
"$A" merge "$P"/m{1,2,3,4}.json --format json -o "$P/ms.json" 2>"$P/ms.err"
jeq "sessions: four files, two of them sessions of one machine, pool as 3 machines" "$P/ms.json" comparisons.0.units_pooled 3
jeq "sessions: all four files enter" "$P/ms.json" comparisons.0.machines_pooled 4

# --- a fleet that explains itself ---------------------------------------------------------------
rm -f "$P"/m*.json
"$BUILD/tests/mkfleet" "$P" 3 8 20 -0.05 0.005 0 0.02 1 0.02 >/dev/null
"$A" merge "$P"/m*.json --format json -o "$P/x.json" 2>/dev/null
jeq "explain: eight machines with facts are fitted" "$P/x.json" comparisons.0.explained.fitted true
jeq "explain: on the fault cost and the vendor" "$P/x.json" comparisons.0.explained.moderators.# 2
"$PY" -c 'import json, benchfile, sys
e = benchfile.load(sys.argv[1])["comparisons"][0]["explained"]
f = e["moderators"][0]
sys.exit(0 if e["tau2_residual"] < e["tau2"] / 10 and f["lo"] < 0.02 < f["hi"] else 1)' "$P/x.json" &&
	ok "explain: the fault cost's slope (0.02 per us) is found and the residual tau^2 is a tenth of the plain one" ||
	notok "explain: fit" "$("$J" "$P/x.json" comparisons.0.explained)"
"$A" merge "$P"/m*.json 2>/dev/null | grep -qE "^command cold cand: meta-regression on 8 machines: fault cost \(per us\) \+0\.0[0-9]+ .*residual tau\^2 .* against .* without" &&
	ok "explain: the text report says it in one line" || notok "explain: text" "$("$A" merge "$P"/m*.json 2>/dev/null | tail -3)"
rm -f "$P"/m*.json
"$BUILD/tests/mkfleet" "$P" 3 3 20 -0.05 0.005 0 0.02 1 0.02 >/dev/null
"$A" merge "$P"/m*.json --format json -o "$P/x3.json" 2>/dev/null
"$J" "$P/x3.json" comparisons.0.explained.note | grep -q "too few machines: 3 for 2 coefficients" &&
	ok "explain: three machines are too few, and it says so" || notok "explain: too few" "$("$J" "$P/x3.json" comparisons.0.explained)"
rm -f "$P"/m*.json
"$BUILD/tests/mkfleet" "$P" 3 5 20 -0.05 0.02 0.3 0.02 1 >/dev/null
"$A" merge "$P"/m*.json --format json -o "$P/x5.json" 2>/dev/null
"$J" "$P/x5.json" comparisons.0.explained.note | grep -q "fault cost unknown on 5 of 5 machines" &&
	ok "explain: files without facts: nothing fitted, and why" || notok "explain: no facts" "$("$J" "$P/x5.json" comparisons.0.explained)"
"$J" "$P/x5.json" comparisons.0.explained.odd | grep -q "^m5: " && ok "explain: the odd machine is named with what its facts say" ||
	notok "explain: odd" "$("$J" "$P/x5.json" comparisons.0.explained.odd)"
# (hostile-4 reproducer merge-mixed-time-commands)
# --- command workloads measured on CPU time on one machine and wall time on another ---------------
# (the time check once applied only to workloads with parameters: a command has none)
mkdir -p "$P/mt" "$P/mt2"
"$BUILD/tests/mkfleet" "$P/mt" 1 2 12 -0.4 0.02 0 0.05 1 >/dev/null
expect_status "mixed time, commands: the unmixed fleet passes the gate" 0 "$A" gate "$P/mt/m1.json" "$P/mt/m2.json" --candidate cand --max-slowdown 50%
"$PY" - "$P/mt/m2.json" "$P/mt2/m2.json" <<'PYEOF'
import json, sys
lines = open(sys.argv[1]).read().rstrip('\n').split('\n')
h = json.loads(lines[0]); h['config']['time'] = 'cpu'; lines[0] = json.dumps(h, separators=(',', ':'))
open(sys.argv[2], 'w').write('\n'.join(lines) + '\n')
PYEOF
expect_status "mixed time, commands: merge exits 0" 0 "$A" merge "$P/mt/m1.json" "$P/mt2/m2.json"
grep -qE "command +total +cold +cand +m2 .*not pooled: command compared CPU time here, wall time on m1: not one measure" "$TMP/out" &&
	ok "mixed time, commands: the CPU-time machine is not pooled with the wall-time one" || notok "mixed time, commands: merge" "$(grep -E 'm2|POOLED' "$TMP/out")"
expect_status "mixed time, commands: the gate is not PASS (was PASS)" 3 "$A" gate "$P/mt/m1.json" "$P/mt2/m2.json" --candidate cand --max-slowdown 50%
exit $t_fail
