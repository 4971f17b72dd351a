# e2e_solo.sh - the solo anchor rounds of a shared-CPU bench (docs/methodology.md, "Solo anchor
# rounds"): `bench --one-cpu` runs a drawn share of its rounds one after the other and records
# each round's placement; compare checks the shared rounds against the solo ones and, where they
# disagree, reports the solo rounds' verdict, which the gate never turns into a PASS; --one-cpu
# refuses a program that starts threads unless --one-cpu-threads, and compare then says so.
. tests/e2e/lib.sh

A=$BUILD/allocab
wl=checkpoint_write

expect_status "bench --one-cpu, 4 rounds" 0 "$A" bench -a system,system_slow -w $wl --scale small \
	--rounds 4 --warmup 1 --one-cpu --quiet -o "$TMP/o.json"
if got=$(python3 - "$TMP/o.json" <<'PYEOF' 2>&1
import benchfile, sys
d = benchfile.load(sys.argv[1])
pl = [rd["placement"] for rd in d["rounds"]]
assert pl[0] == "solo", pl                       # the warm-up round runs alone
m = pl[1:]
assert m.count("solo") == 2 and m.count("shared") == 2, m   # one of every 2 measured rounds
for a, b in ((0, 1), (2, 3)):
    assert sorted((m[a], m[b])) == ["shared", "solo"], m
for rd in d["rounds"]:
    cpus = [r.get("cpu") for r in rd["runs"]]
    assert len(rd["runs"]) == 2 and all(r["status"] == "ok" for r in rd["runs"]), rd["runs"]
    if rd["placement"] == "solo":
        assert cpus == [None, None], cpus
    else:
        assert None not in cpus and cpus[0] == cpus[1], cpus
print(" ".join(pl))
PYEOF
); then ok "one CPU: every round records its placement, one measured round in 2 solo (no CPU), the others shared on one CPU ($got)"; else notok "one CPU: placements" "$got"; fi
"$A" compare "$TMP/o.json" >"$TMP/o.txt" 2>&1
grep -Eq "solo check: $wl total steady, system_slow vs system: shared rounds [0-9.]+x \(2\), solo rounds [0-9.]+x \(2\); shared/solo [0-9.]+ \[" "$TMP/o.txt" &&
	ok "compare prints the solo and shared estimates and their ratio" ||
	notok "compare: solo check line" "$(grep -i solo "$TMP/o.txt" | head -3)"
expect_status "bench --one-cpu --solo-share 0" 0 "$A" bench -a system,system_slow -w $wl --scale small \
	--rounds 2 --warmup 0 --one-cpu --solo-share 0 --quiet -o "$TMP/z.json"
jeq "--solo-share 0: every round shared" "$TMP/z.json" rounds.1.placement shared
"$A" compare "$TMP/z.json" >"$TMP/z.txt" 2>&1
grep -q "a shared-CPU bench (--one-cpu) without solo rounds: its estimates are not checked" "$TMP/z.txt" &&
	ok "compare warns of a shared-CPU bench without solo rounds" || notok "no solo rounds warning" "$(grep -i solo "$TMP/z.txt")"
expect_status "--solo-share without --one-cpu or --duet: exit 2" 2 "$A" bench -a system,system_slow \
	-w $wl --solo-share 0.3 -o "$TMP/x.json"
expect_err "... says what it needs" "^allocab: bench: --solo-share needs --duet or --one-cpu"
expect_status "--rounds 6 --one-cpu: runs" 0 "$A" bench -a system,system_slow -w $wl --scale small \
	--rounds 6 --warmup 0 --one-cpu -o "$TMP/w.json"
grep -q "cannot find a 10% disagreement between the shared and the solo rounds with 80% power; that needs 38 rounds" "$TMP/err" &&
	ok "too few rounds for the anchor: warned with the rounds it needs" || notok "anchor warning" "$(head -c 400 "$TMP/err")"

# A crafted file: the candidate equals the baseline in the shared rounds and is 25% faster in
# the solo ones (placement edited into a file the production writer made)
"$BUILD/tests/mkbench" "$TMP/c0.json" mode=commands arms=system=1,cand=1/0.01 rounds=16 \
	time=cpu || notok "mkbench" "exit $?"
craft() { # IN OUT FACTOR: solo rounds at odd measured indexes, the candidate's times x FACTOR there
	python3 - "$@" <<'PYEOF'
import benchfile, json, sys
d = benchfile.load(sys.argv[1])
f = float(sys.argv[3])
d["config"]["duet"] = True
d["config"]["duet_cpus"] = "shared"
m = 0
for rd in d["rounds"]:
    solo = rd["warmup"] or m % 2 == 1
    rd["placement"] = "solo" if solo else "shared"
    for r in rd["runs"]:
        if solo and r["arm"] == "cand" and not rd["warmup"]:
            for k in ("wall_ns", "user_ns", "sys_ns"):
                r["process"][k] = int(r["process"][k] * f)
            for k in ("user_ns", "sys_ns", "total_ns"):
                r["cpu"][k] = int(r["cpu"][k] * f)
    m += not rd["warmup"]
json.dump(d, open(sys.argv[2], "w"))
PYEOF
}
craft "$TMP/c0.json" "$TMP/dis.json" 0.8
craft "$TMP/c0.json" "$TMP/agree.json" 1
expect_status "compare a file whose solo rounds disagree" 0 "$A" compare "$TMP/dis.json" --candidate cand
cp "$TMP/out" "$TMP/dis.txt"
grep -Eq "WARNING: solo check: command total cold, cand vs system: shared rounds (0\.99|1\.0)[0-9]*x \(8\), solo rounds 1\.2[0-9]*x \(8\); shared/solo 0\.[78][0-9]* \[.*they disagree, so the verdict is the solo rounds': faster; likely mechanism: " "$TMP/out" &&
	ok "disagreement: named, with both estimates, the ratio and the mechanism" || notok "disagreement line" "$(grep -i solo "$TMP/out")"
grep -Eq "^command +total +cand +1\.2[0-9]*x .* faster " "$TMP/out" &&
	ok "disagreement: the row and its verdict are the solo rounds' (1.25x, faster)" || notok "solo verdict" "$(grep -A1 '^command' "$TMP/out" | head -4)"
"$A" compare "$TMP/agree.json" --candidate cand >"$TMP/a.txt" 2>&1
grep -Eq "solo check: command total cold, cand vs system: .*they agree" "$TMP/a.txt" && ! grep -q WARNING: "$TMP/a.txt" &&
	ok "agreement: said, no warning" || notok "agreement" "$(grep -i 'solo\|WARNING' "$TMP/a.txt")"
"$A" compare "$TMP/dis.json" --candidate cand --format json >"$TMP/dis.out" 2>/dev/null
if got=$(python3 - "$TMP/dis.out" <<'PYEOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
assert any("they disagree" in w for w in d["warnings"]), d["warnings"]
rows = [r for r in d["comparisons"] if r.get("solo_check")]
assert len(rows) == 1, rows
s, r = rows[0]["solo_check"], rows[0]
assert s["n_shared"] == 8 and s["n_solo"] == 8 and s["tested"] is True and s["disagree"] is True, s
assert 0.99 < s["speedup_shared"] < 1.01 and 1.24 < s["speedup_solo"] < 1.26, s
assert abs(s["ratio"] - s["speedup_shared"] / s["speedup_solo"]) < 0.01, s
assert s["verdict_solo"] == "faster" and r["verdict"] == "faster" and s["mechanism"], (s, r["verdict"])
assert abs(r["speedup"] - s["speedup_solo"]) < 1e-9, (r["speedup"], s)
print("%.3f" % s["ratio"])
PYEOF
); then ok "json: the row's solo_check (both estimates, the ratio $got, the disagreement), the row the solo rounds'"; else notok "json: solo check" "$got"; fi
expect_status "gate on agreeing rounds: PASS" 0 "$A" gate "$TMP/agree.json" --candidate cand --max-slowdown 5%
expect_status "gate on disagreeing rounds: never PASS (INCONCLUSIVE)" 3 "$A" gate "$TMP/dis.json" --candidate cand --max-slowdown 5%
grep -q "the shared-CPU rounds disagree with the solo rounds: judged on the solo rounds, and never PASS" "$TMP/out" &&
	ok "the gate says why" || notok "gate line" "$(head -c 600 "$TMP/out")"

# The crafted file's solo rounds also spent 20% less system time per run: named as the
# mechanism; a placement other than solo or shared is refused
grep -q "likely mechanism: cand: system time per rep [0-9]* ns shared, [0-9]* ns solo" "$TMP/dis.txt" &&
	ok "the mechanism: the system time per run that differs between the placements" ||
	notok "mechanism" "$(grep -o 'likely mechanism: .*' "$TMP/dis.txt")"
sed 's/"placement": *"solo"/"placement":"alone"/' "$TMP/dis.json" >"$TMP/bad.json"
expect_status "a placement other than solo or shared: exit 2" 2 "$A" compare "$TMP/bad.json"
expect_err "... one line naming it" 'rounds\[[0-9]+\]\.placement: want "solo" or "shared"$'

# Threads: refused after the first round that shows them, unless asked for; then said
T="$BUILD/tests/alloc_threads 2 2000 100"
expect_status "--one-cpu refuses a program that starts threads" 2 "$A" bench --program "$T" \
	-a system,mimalloc --one-cpu --rounds 2 --warmup 1 --quiet -o "$TMP/t.json"
expect_err "... with the reason" "^allocab: bench: --one-cpu: arm '(system|mimalloc)' started 2 threads on 'command' \(probe.thread_count\): on one CPU its threads take turns"
[ ! -e "$TMP/t.json" ] && ok "the refused bench writes nothing" || notok "refused bench" "t.json exists"
expect_status "--one-cpu-threads runs it" 0 "$A" bench --program "$T" -a system,mimalloc --one-cpu \
	--one-cpu-threads --rounds 2 --warmup 1 --quiet -o "$TMP/t2.json"
"$A" compare "$TMP/t2.json" >"$TMP/t2.txt" 2>&1
[ "$(grep -c "started 2 threads, serialised on one CPU in the shared rounds (--one-cpu-threads)" "$TMP/t2.txt")" = 2 ] &&
	ok "compare says both arms' threads were serialised" || notok "threads serialised" "$(grep -i thread "$TMP/t2.txt")"
"$A" compare "$TMP/t2.json" --format json 2>/dev/null | grep -q "serialised on one CPU" &&
	ok "... in the json format too" || notok "json: threads serialised" "absent"
# A program that starts one thread per CPU of its affinity: its solo rounds show more threads
# than its shared ones, pinned to one CPU (thread_count counts the threads it created)
M="$BUILD/tests/solo_mech threads 0 20000"
if [ "$(nproc)" -ge 2 ]; then
	"$A" bench --cmd system="$M" --cmd mimalloc="LD_PRELOAD=libmimalloc.so.2 $M" \
		--expect system=system --expect mimalloc=mimalloc --one-cpu --one-cpu-threads --rounds 2 \
		--warmup 1 --quiet -o "$TMP/af.json" 2>"$TMP/err"
	"$A" compare "$TMP/af.json" >"$TMP/af.txt" 2>&1
	grep -Eq "WARNING: .*: system started [0-9]+ threads in its solo rounds but [0-9]+ pinned to its CPU: it sizes its threads from its CPU affinity" "$TMP/af.txt" &&
		ok "a program that starts fewer threads pinned is named" || notok "fewer threads pinned" "$(grep -i thread "$TMP/af.txt" | head -3)"
else
	skip "fewer threads pinned" "one CPU here: the program starts one thread either way"
fi
expect_status "--one-cpu-threads without --one-cpu: exit 2" 2 "$A" bench --program "$T" -a system,mimalloc \
	--one-cpu-threads -o "$TMP/x.json"
exit $t_fail
