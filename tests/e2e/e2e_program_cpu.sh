#!/usr/bin/env bash
# e2e_program_cpu.sh - CPU time for the user's programs and the phases they mark (docs/programs.md,
# "Which time"): --program and --cmd take --time; a run's "cpu" (wait4's rusage unless the run's
# cgroup counted it); the probe's per-process user and system time; CPU marks from the C and
# Python helpers; compare says which time each phase used; marks without CPU time still read, as
# wall time, and compare says so; each arm's CPU/wall ratio and the warnings it raises, on fixed
# files; auto's rule for commands. No timing is asserted.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget
F=$BUILD/tests/phase_fixture

# row_times FILE: "phase=time " for every row of compare --format json of FILE.
row_times() {
	local n k out=""
	"$A" compare "$1" --format json "${@:2}" >"$TMP/rows.json" 2>/dev/null
	n=$("$J" "$TMP/rows.json" comparisons.#)
	for ((k = 0; k < n; k++)); do
		out+="$("$J" "$TMP/rows.json" "comparisons.$k.phase")/$("$J" "$TMP/rows.json" "comparisons.$k.regime")=$("$J" "$TMP/rows.json" "comparisons.$k.time") "
	done
	echo "$out"
}

# ---- --program --time cpu: the C fixture, system against mimalloc ----
expect_status "--program --time cpu: exit 0" 0 "$A" bench --program "$F 4" -a system,mimalloc \
	--time cpu -w fixture --rounds 2 --warmup 0 -q -o "$TMP/p.json"
jeq "config.time is cpu" "$TMP/p.json" config.time cpu
jeq "config.arm_kinds: system is a program arm" "$TMP/p.json" config.arm_kinds.system program
jeq "config.arm_kinds: mimalloc is a program arm" "$TMP/p.json" config.arm_kinds.mimalloc program
r=$(run_of "$TMP/p.json" mimalloc)
jeq "the run is ok" "$TMP/p.json" "$r.status" ok
# the run's CPU: the cgroup's cpu.stat where the run was contained (root), else wait4's rusage
if [ -n "$("$J" "$TMP/p.json" "$r.containment.cgroup_cpu.user_ns")" ]; then src=cgroup obj=containment.cgroup_cpu; else src=wait4 obj=process; fi
jeq "run.cpu comes from $obj" "$TMP/p.json" "$r.cpu.source" "$src"
u=$("$J" "$TMP/p.json" "$r.cpu.user_ns")
s=$("$J" "$TMP/p.json" "$r.cpu.sys_ns")
t=$("$J" "$TMP/p.json" "$r.cpu.total_ns")
if [ -n "$u" ] && [ -n "$s" ] && [ "$((u + s))" = "$t" ] && [ "$u" = "$("$J" "$TMP/p.json" "$r.$obj.user_ns")" ]; then
	ok "run.cpu: user + sys = total, user from $obj"
else
	notok "run.cpu" "user $u sys $s total $t"
fi
# the fixture's own image (the shell that started it reports too: the probe writes an exit
# record at _exit)
k=0
while [ "$("$J" "$TMP/p.json" "$r.probe.processes.$k.exe")" != "$(realpath "$F")" ] && [ $k -lt 4 ]; do k=$((k + 1)); done
pu=$("$J" "$TMP/p.json" "$r.probe.processes.$k.user_ns")
ps_=$("$J" "$TMP/p.json" "$r.probe.processes.$k.sys_ns")
if [[ $pu =~ ^[0-9]+$ ]] && [[ $ps_ =~ ^[0-9]+$ ]] && [ "$((pu + ps_))" -gt 0 ]; then
	ok "the probe keeps the fixture's user and system time ($pu, $ps_)"
else
	notok "probe per-process CPU" "user '$pu' sys '$ps_'"
fi
# the probe's exit record holds user and system time once, in its rusage (docs/results-format.md,
# "allocab-probe/1"); its start record beside cpu_ns
: >"$TMP/records"
ALLOCAB_PROBE_FILE="$TMP/records" LD_PRELOAD="$(realpath "$BUILD/liballocab-probe.so")" "$F" >/dev/null 2>&1
if python3 - "$TMP/records" <<'PYEOF' >"$TMP/once" 2>&1; then ok "the probe's exit record: user and system time once, in rusage"; else notok "the probe's exit record: user and system time once" "$(cat "$TMP/once")"; fi
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ex = [r for r in recs if r["event"] == "exit"]
st = [r for r in recs if r["event"] == "start"]
assert ex and st, recs
for r in ex:
    assert "user_ns" not in r and "sys_ns" not in r, r
    assert isinstance(r["rusage"]["user_ns"], int) and isinstance(r["rusage"]["sys_ns"], int), r
for r in st:
    assert isinstance(r["user_ns"], int) and isinstance(r["sys_ns"], int), r
PYEOF
tu=$("$J" "$TMP/p.json" "$r.probe.cpu_total.user_ns")
ts=$("$J" "$TMP/p.json" "$r.probe.cpu_total.sys_ns")
ti=$("$J" "$TMP/p.json" "$r.probe.cpu_total.images")
want=$(python3 -c "
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
run = [x for x in d['rounds'][0]['runs'] if x['arm'] == 'mimalloc'][0]
p = [g for g in run['probe']['processes'] if g.get('user_ns') is not None]
print(sum(g['user_ns'] for g in p), sum(g['sys_ns'] for g in p), len(p))" "$TMP/p.json")
if [ "$tu $ts $ti" = "$want" ] && [ "$tu" -ge "$pu" ]; then
	ok "probe.cpu_total: the sum over the images that reported ($ti)"
else
	notok "probe.cpu_total" "$("$J" "$TMP/p.json" "$r.probe.cpu_total"), want $want"
fi
jeq "the C helper's marks carry CPU times: epoch has 4" "$TMP/p.json" "$r.phase_marks.phases.1.cpu_ns.#" 4
jeq "on CPU time, epoch's regimes are judged on its CPU times" "$TMP/p.json" "$r.phase_marks.phases.1.regimes_time" cpu
"$A" compare "$TMP/p.json" >"$TMP/cmp" 2>&1
if grep -q 'compared: CPU time;' "$TMP/cmp" && grep -Eq 'CPU/wall per run: system [0-9.]+, mimalloc [0-9.]+' "$TMP/cmp"; then
	ok "compare: compared: CPU time, and each arm's CPU/wall ratio"
else
	notok "compare text" "$(grep -A2 'compared' "$TMP/cmp" | head -5)"
fi
times=$(row_times "$TMP/p.json")
if [[ $times == *epoch/steady=cpu* ]] && [[ $times == *total/cold=cpu* ]] && [[ $times != *=wall* ]]; then
	ok "compare --format json: every row's time is cpu ($times)"
else
	notok "row times" "$times"
fi
q=$("$J" "$TMP/rows.json" inputs.0.cpu_wall_ratio.fixture.mimalloc)
if [[ $q =~ ^[0-9.e+-]+$ ]]; then ok "compare --format json: inputs[0].cpu_wall_ratio per arm ($q)"; else notok "cpu_wall_ratio" "'$q'"; fi
times=$(row_times "$TMP/p.json" --time wall)
if [[ $times != *=cpu* ]] && [[ -n $times ]]; then ok "compare --time wall: every row on wall time"; else notok "--time wall rows" "$times"; fi

# ---- --program --time wall, and the default for --cmd ----
expect_status "--program --time wall: exit 0" 0 "$A" bench --program "$F 2" -a system,mimalloc \
	--time wall --rounds 1 --warmup 0 -q -o "$TMP/w.json"
jeq "config.time is wall" "$TMP/w.json" config.time wall
jeq "on wall time, on its wall times" "$TMP/w.json" "$(run_of "$TMP/w.json" system).phase_marks.phases.1.regimes_time" wall
"$A" compare "$TMP/w.json" >"$TMP/cmp" 2>&1
if grep -q 'compared: wall time' "$TMP/cmp"; then ok "compare: compared: wall time"; else notok "wall compare" "$(grep compared "$TMP/cmp")"; fi
expect_status "--cmd with its default time: exit 0" 0 "$A" bench --cmd a="$F 2" --cmd b="$F 2" \
	--rounds 1 --warmup 0 -q -o "$TMP/d.json"
jeq "--cmd's default time is cpu" "$TMP/d.json" config.time cpu
jeq "config.arm_kinds: a --cmd arm is a command arm" "$TMP/d.json" config.arm_kinds.a command
expect_status "--time auto with --cmd: exit 0" 0 "$A" bench --cmd a="$F 2" --cmd b="$F 2" \
	--time auto --rounds 1 --warmup 0 -q -o "$TMP/auto.json"
jeq "config.time is auto" "$TMP/auto.json" config.time auto

# ---- the Python helper marks CPU time too ----
if python3 -c 'import time; time.process_time_ns' 2>/dev/null; then
	expect_status "Python fixture under --cmd: exit 0" 0 "$A" bench --cmd a="python3 tests/tools/phase_fixture.py 3" \
		--cmd b="python3 tests/tools/phase_fixture.py 3" --rounds 1 --warmup 0 -q -o "$TMP/py.json"
	r=$(run_of "$TMP/py.json" a)
	jeq "Python: epoch's three spans have CPU times" "$TMP/py.json" "$r.phase_marks.phases.1.cpu_ns.#" 3
	jeq "Python: import's one span has one" "$TMP/py.json" "$r.phase_marks.phases.0.cpu_ns.#" 1
else
	skip "python CPU marks" "python3 without time.process_time_ns"
fi

# ---- a fixed file: the same bench as if its marks were written by an older helper ----
python3 - "$TMP/p.json" "$TMP/old.json" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for rd in d["rounds"]:
    for run in rd["runs"]:
        for ph in (run.get("phase_marks") or {}).get("phases", []):
            ph.pop("cpu_ns", None)
json.dump(d, open(sys.argv[2], "w"))
PY
expect_status "marks without CPU times still read" 0 "$A" compare "$TMP/old.json"
if grep -q 'compared: CPU time (wall time for setup of fixture, epoch of fixture: their runs have no CPU time: a CPU figure missing or 0, or a mark written without one)' "$TMP/out" &&
	grep -Eq '^fixture +epoch \[wall time\] +mimalloc' "$TMP/out" && grep -Eq '^fixture +total +mimalloc' "$TMP/out"; then
	ok "compare says the old marks' phases were compared on wall time, the total on CPU"
else
	notok "old marks note" "$(grep -E 'compared|^fixture' "$TMP/out" | head -8)"
fi
times=$(row_times "$TMP/old.json")
if [[ $times == *epoch/steady=wall* ]] && [[ $times == *total/cold=cpu* ]]; then
	ok "compare --format json: the old epoch on wall, the total on cpu ($times)"
else
	notok "old row times" "$times"
fi

# ---- fixed files: a job that spins on 2.4 CPUs, and one off the CPU ----
# ratio FILE OUT A_RATIO B_RATIO: every ok run's CPU (user 80%, sys 20%) set to ratio x its wall.
ratio() {
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
want = {"system": float(sys.argv[3]), "mimalloc": float(sys.argv[4])}
for rd in d["rounds"]:
    for run in rd["runs"]:
        p = run["process"]
        cpu = int(p["wall_ns"] * want[run["arm"]])
        p["user_ns"], p["sys_ns"] = cpu * 4 // 5, cpu - cpu * 4 // 5
        run.pop("cpu", None)
        run.get("containment", {}).pop("cgroup_cpu", None)
json.dump(d, open(sys.argv[2], "w"))
PY
}
ratio "$TMP/p.json" "$TMP/spin.json" 1.0 2.4
expect_status "compare of the spinning file" 0 "$A" compare "$TMP/spin.json"
if grep -q 'WARNING: .*spin.json: fixture: CPU/wall 2.40 for mimalloc: its processes keep 2.4 CPUs busy at once' "$TMP/out" &&
	grep -q 'CPU/wall per run: system 1.00, mimalloc 2.40' "$TMP/out"; then
	ok "CPU/wall 2.4: the ratios printed, and a warning that CPU time counts spinning"
else
	notok "spin warning" "$(grep -iE 'cpu/wall' "$TMP/out" | head -4)"
fi
"$A" compare "$TMP/spin.json" --format json >"$TMP/spin.out" 2>/dev/null
q=$("$J" "$TMP/spin.out" inputs.0.cpu_wall_ratio.fixture.mimalloc)
if awk -v q="$q" 'BEGIN { exit !(q > 2.3999 && q < 2.4001) }'; then ok "cpu_wall_ratio of mimalloc is 2.4"; else notok "cpu_wall_ratio 2.4" "'$q'"; fi
if grep -q 'keep 2.4 CPUs busy' "$TMP/spin.out"; then ok "the warning is in the JSON's warnings"; else notok "json warning" "$("$J" "$TMP/spin.out" warnings)"; fi
ratio "$TMP/p.json" "$TMP/idle.json" 0.3 0.9
expect_status "compare of the waiting file" 0 "$A" compare "$TMP/idle.json"
if grep -q 'WARNING: .*idle.json: fixture: CPU/wall 0.30 for system: the job is off the CPU for most of its wall time' "$TMP/out" &&
	! grep -q 'CPUs busy at once' "$TMP/out"; then
	ok "CPU/wall 0.3: a warning that CPU time does not count the waiting"
else
	notok "idle warning" "$(grep -iE 'cpu/wall' "$TMP/out" | head -4)"
fi
ratio "$TMP/p.json" "$TMP/fine.json" 0.97 0.95
"$A" compare "$TMP/fine.json" >"$TMP/out" 2>&1
if ! grep -q 'WARNING: .*CPU/wall' "$TMP/out"; then ok "CPU/wall near 1: no warning"; else notok "no warning" "$(grep CPU/wall "$TMP/out")"; fi
"$A" compare "$TMP/spin.json" --time wall >"$TMP/out" 2>&1
if ! grep -q 'WARNING: .*CPU/wall' "$TMP/out"; then ok "compared on wall time: no CPU/wall warning"; else notok "wall: no warning" "$(grep CPU/wall "$TMP/out")"; fi

# ---- auto: CPU time for a command whose arms stay at CPU/wall <= 1.1, wall for the others ----
"$A" compare "$TMP/fine.json" --time auto >"$TMP/out" 2>&1
if grep -q 'compared: CPU time;' "$TMP/out"; then ok "auto on CPU/wall 0.97 and 0.95: CPU time"; else notok "auto fine" "$(grep compared "$TMP/out")"; fi
"$A" compare "$TMP/spin.json" --time auto >"$TMP/out" 2>&1
if grep -q 'compared: wall time' "$TMP/out"; then ok "auto on CPU/wall 2.4: wall time"; else notok "auto spin" "$(grep compared "$TMP/out")"; fi

# ---- the run's cgroup, when the run has one, is its CPU time ----
python3 - "$TMP/p.json" "$TMP/cg.json" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for rd in d["rounds"]:
    for run in rd["runs"]:
        w = run["process"]["wall_ns"]
        run["containment"] = {"cgroup_cpu": {"user_ns": w, "sys_ns": w if run["arm"] == "mimalloc" else 0}}
json.dump(d, open(sys.argv[2], "w"))
PY
"$A" compare "$TMP/cg.json" --format json >"$TMP/cg.out" 2>/dev/null
jeq "containment.cgroup_cpu is read before wait4's figures" "$TMP/cg.out" inputs.0.cpu_wall_ratio.fixture.mimalloc 2

exit $t_fail
