# e2e_duet.sh - `allocab bench --duet` and `allocab calibrate --duet`: the two arms of a pair run
# at once, each on its own CPU, which arm gets which CPU is drawn per round from the shuffle seed,
# drivers, programs and commands alike (a program's runs probed, contained and marked as alone);
# `--one-cpu`: every arm at once on one CPU; refused where a duet cannot be fair. The benches
# whose runs are checked here run no solo rounds (--solo-share 0; e2e_solo.sh checks those).
. tests/e2e/lib.sh

A=$BUILD/allocab
jget=$BUILD/tests/jget
wl=checkpoint_write

expect_status "bench --duet, 2 rounds" 0 "$A" bench -a system,system_slow -w $wl --scale small \
	--rounds 2 --warmup 1 --duet --solo-share 0 --quiet -o "$TMP/d.json"
[ "$("$jget" "$TMP/d.json" config.duet)" = true ] && ok "config.duet recorded" ||
	notok "config.duet recorded" "$("$jget" "$TMP/d.json" config.duet)"
# cpu_of ROUND ARM: the CPU the arm's run of that round was pinned to.
cpu_of() {
	local i
	for i in 0 1; do
		[ "$("$jget" "$TMP/d.json" rounds.$1.runs.$i.arm)" = "$2" ] && "$jget" "$TMP/d.json" rounds.$1.runs.$i.cpu
	done
}
seen=""
distinct=1
for r in 0 1 2; do
	a=$(cpu_of $r system) b=$(cpu_of $r system_slow)
	{ [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]; } || distinct=0
	seen="$seen $a/$b"
done
# Which arm gets which CPU is drawn per round from the shuffle seed (test_duet checks the draw).
if [ "$distinct" = 1 ]; then
	ok "every run records its CPU; the arms of a round are on different CPUs (system/system_slow:$seen)"
else
	notok "every run records its CPU; the arms of a round are on different CPUs" "$seen"
fi
[ "$("$jget" "$TMP/d.json" rounds.2.runs.0.status)" = ok ] && [ "$("$jget" "$TMP/d.json" rounds.2.runs.1.status)" = ok ] &&
	[ -n "$("$jget" "$TMP/d.json" rounds.2.runs.1.record.checksum)" ] && ok "duet runs carry their records" ||
	notok "duet runs carry their records" "$("$jget" "$TMP/d.json" rounds.2.runs.1.status)"
expect_status "compare a duet bench" 0 "$A" compare "$TMP/d.json"

# duet runs are contained as sequential driver runs are (docs/programs.md, "Containment"): the
# same mechanism recorded on this host, a cgroup of each run's own whose CPU covers the driver's
expect_status "the same bench, sequential, 1 round" 0 "$A" bench -a system,system_slow -w $wl \
	--scale small --rounds 1 --warmup 0 --quiet -o "$TMP/s.json"
contained() { # FILE SEQUENTIAL: every run's containment as the sequential bench's runs have it
	python3 - "$1" "$2" <<'PYEOF'
import benchfile, sys
d, s = benchfile.load(sys.argv[1]), benchfile.load(sys.argv[2])
want = {r["containment"]["mechanism"] for rd in s["rounds"] for r in rd["runs"]}
assert len(want) == 1 and want <= {"cgroup+proc-connector", "cgroup", "proc-connector", "none"}, want
want = want.pop()
n = 0
for rd in d["rounds"]:
    for r in rd["runs"]:
        c = r.get("containment")
        assert c is not None, ("no containment", rd["index"], r["arm"])
        assert c["mechanism"] == want, (c, want)
        assert c["left_behind"] == 0, c
        if "cgroup" in want:
            own = r["record"]["rusage"]["user_ns"] + r["record"]["rusage"]["sys_ns"]
            cg = c["cgroup_cpu"]["user_ns"] + c["cgroup_cpu"]["sys_ns"]
            assert cg > 0 and own <= cg + 10e6, (own, cg)
        else:
            assert c["cgroup_cpu"] is None, c
        n += 1
assert n >= 2, n
print(want, n)
PYEOF
}
if got=$(contained "$TMP/d.json" "$TMP/s.json" 2>&1); then ok "every duet run records its containment, as a sequential run's ($got runs)"; else notok "duet runs are contained" "$got"; fi
expect_status "bench --duet without a cgroup (test hook)" 0 env ALLOCAB_TEST_NO_CGROUP=1 "$A" bench \
	-a system,system_slow -w $wl --scale small --rounds 1 --warmup 0 --duet --solo-share 0 --quiet -o "$TMP/dn.json"
expect_status "... sequential" 0 env ALLOCAB_TEST_NO_CGROUP=1 "$A" bench -a system,system_slow -w $wl \
	--scale small --rounds 1 --warmup 0 --quiet -o "$TMP/sn.json"
if got=$(contained "$TMP/dn.json" "$TMP/sn.json" 2>&1); then ok "without a cgroup, duet runs record what sequential ones do ($got runs)"; else notok "duet runs without a cgroup" "$got"; fi
[ "$("$jget" "$TMP/dn.json" rounds.0.runs.0.containment.missing)" = "$("$jget" "$TMP/sn.json" rounds.0.runs.0.containment.missing)" ] &&
	ok "... and say what is missing as they do" || notok "what is missing" "$("$jget" "$TMP/dn.json" rounds.0.runs.0.containment.missing)"

# --program and --cmd: each run proven, contained, its CPU time and its marks read, as alone
F=$BUILD/tests/phase_fixture
expect_status "bench --program --duet, 3 rounds" 0 "$A" bench --program "$F 3" -a system,mimalloc \
	--rounds 3 --warmup 1 --duet --solo-share 0 --quiet -o "$TMP/p.json"
if got=$(python3 - "$TMP/p.json" <<'PYEOF' 2>&1
import benchfile, sys
d = benchfile.load(sys.argv[1])
assert d["config"]["duet"] is True, d["config"]["duet"]
n = 0
for rd in d["rounds"]:
    runs = rd["runs"]
    assert sorted(r["arm"] for r in runs) == ["mimalloc", "system"], runs
    assert len({r["pinned_cpu"] for r in runs}) == 2, [r.get("pinned_cpu") for r in runs]
    for r in runs:
        assert r["status"] == "ok", (r["status"], r.get("reason"))
        p = r["probe"]
        assert p["verified"] is True and p["process_count"] >= 1, p
        assert r["cpu"]["total_ns"] > 0 and r["cpu"]["source"] in ("cgroup", "wait4"), r["cpu"]
        assert [s["name"] for s in r["phase_marks"]["phases"]] == ["setup", "epoch"], r["phase_marks"]
        n += 1
print(n)
PYEOF
); then ok "program duet: every run verified, on its own CPU, with its CPU time and its marks ($got runs)"; else notok "program duet runs" "$got"; fi
expect_status "compare a program duet" 0 "$A" compare "$TMP/p.json"
expect_status "bench --cmd --duet with --expect, one arm not on its allocator" 1 "$A" bench \
	--cmd "mi=LD_PRELOAD=libmimalloc.so.2 $F 2" --cmd "plain=$F 2" --expect mi=mimalloc \
	--expect plain=mimalloc --rounds 1 --warmup 0 --duet --solo-share 0 --quiet -o "$TMP/e.json"
[ "$("$jget" "$TMP/e.json" "$(run_of "$TMP/e.json" plain).status")" = unverified ] &&
	[ "$("$jget" "$TMP/e.json" "$(run_of "$TMP/e.json" mi).status")" = ok ] &&
	ok "command duet: the arm not on its expected allocator is unverified, the other proven" ||
	notok "command duet proof" "$("$jget" "$TMP/e.json" "$(run_of "$TMP/e.json" plain).reason")"

# --one-cpu: every arm of a workload at once on one CPU, drawn per round
expect_status "bench --program --one-cpu, 3 arms, 3 rounds" 0 "$A" bench --program "$F 3" \
	-a system,mimalloc,jemalloc --rounds 3 --warmup 1 --one-cpu --solo-share 0 --quiet -o "$TMP/o.json"
if got=$(python3 - "$TMP/o.json" <<'PYEOF' 2>&1
import benchfile, sys
d = benchfile.load(sys.argv[1])
assert d["config"]["duet"] is True and d["config"]["duet_cpus"] == "shared", d["config"]
cpus = []
for rd in d["rounds"]:
    runs = rd["runs"]
    assert sorted(r["arm"] for r in runs) == ["jemalloc", "mimalloc", "system"], runs
    assert len({r["pinned_cpu"] for r in runs}) == 1, [r["pinned_cpu"] for r in runs]
    cpus.append(runs[0]["pinned_cpu"])
    for r in runs:
        assert r["status"] == "ok" and r["probe"]["verified"] is True, (r["status"], r.get("reason"))
        assert r["cpu"]["total_ns"] > 0 and r["phase_marks"], r
print(" ".join(map(str, cpus)))
PYEOF
); then ok "one CPU: the arms of each round share one pinned CPU, every run verified and marked (CPUs by round: $got)"; else notok "one-CPU runs" "$got"; fi
expect_status "compare a one-CPU bench" 0 "$A" compare "$TMP/o.json"
# Three runs at once on one CPU, each on it 0.3 of its wall time: a full share, no warning; the
# same file without duet_cpus: off the CPU most of the time, warned
python3 - "$TMP/o.json" "$TMP/o3.json" "$TMP/o3seq.json" <<'PYEOF'
import benchfile, json, sys
d = benchfile.load(sys.argv[1])
for rd in d["rounds"]:
    for r in rd["runs"]:
        c = r["containment"]["cgroup_cpu"]
        r["process"]["wall_ns"] = int((c["user_ns"] + c["sys_ns"]) / 0.3)
json.dump(d, open(sys.argv[2], "w"))
d["config"]["duet_cpus"] = "two"
json.dump(d, open(sys.argv[3] + ".bad", "w"))
del d["config"]["duet_cpus"]
json.dump(d, open(sys.argv[3], "w"))
PYEOF
expect_status "config.duet_cpus other than \"shared\": refused" 2 "$A" compare "$TMP/o3seq.json.bad"
expect_err "... with one line" 'config.duet_cpus: want "shared" or none$'
"$A" compare "$TMP/o3.json" >"$TMP/o3.txt" 2>&1
"$A" compare "$TMP/o3seq.json" >"$TMP/o3seq.txt" 2>&1
! grep -q 'off the CPU' "$TMP/o3.txt" && grep -q 'CPU/wall 0.30 for .*: the job is off the CPU' "$TMP/o3seq.txt" &&
	ok "one CPU: CPU/wall is judged against a run's share of the CPU (1/3 each), not against a whole CPU" ||
	notok "one CPU: CPU/wall share" "$(grep -h 'CPU/wall' "$TMP/o3.txt" "$TMP/o3seq.txt")"
# adaptive allocation: the cells of a workload leave together, since its arms run at once
# (tcmalloc's start-up, about twice the fixture's run, is decided within the first rounds)
"$A" bench --program "$F 2" -a system,tcmalloc,mimalloc --rounds 12 --one-cpu --quiet -o "$TMP/oa.json" 2>/dev/null
if got=$(python3 - "$TMP/oa.json" <<'PYEOF' 2>&1
import benchfile, sys
d = benchfile.load(sys.argv[1])
assert d["config"]["allocation"] == "sequential", d["config"]["allocation"]
sizes = [len(rd["runs"]) for rd in d["rounds"]]
assert sizes and set(sizes) == {3}, sizes
print(len(sizes))
PYEOF
); then ok "one CPU with adaptive allocation: every round runs all three arms ($got rounds)"; else notok "one CPU allocation" "$got"; fi
expect_status "bench -a --one-cpu on a driver workload" 0 "$A" bench -a system,system_slow -w $wl \
	--scale small --rounds 1 --warmup 0 --one-cpu --solo-share 0 --quiet -o "$TMP/od.json"
[ "$("$jget" "$TMP/od.json" rounds.0.runs.0.cpu)" = "$("$jget" "$TMP/od.json" rounds.0.runs.1.cpu)" ] &&
	[ -n "$("$jget" "$TMP/od.json" rounds.0.runs.0.cpu)" ] && ok "one CPU: driver runs record the one CPU" ||
	notok "one CPU: driver runs" "$("$jget" "$TMP/od.json" rounds.0.runs.0.cpu) $("$jget" "$TMP/od.json" rounds.0.runs.1.cpu)"
expect_status "--one-cpu --time wall: exit 2" 2 "$A" bench --program "$F 2" --one-cpu --time wall -o "$TMP/x.json"
expect_err "--one-cpu --time wall says why" '^allocab: bench: --one-cpu compares CPU time, not --time wall: a run.s wall time there holds the other arms. turns on its CPU$'
expect_status "--one-cpu with --duet: exit 2" 2 "$A" bench --program "$F 2" --one-cpu --duet -o "$TMP/x.json"
expect_err "--one-cpu with --duet says why" '^allocab: bench: --one-cpu cannot be combined with --duet: --duet gives each of two arms its own CPU$'
expect_status "--one-cpu refuses a multi-threaded workload" 2 "$A" bench -a system,system_slow -w parquet_load --one-cpu -o "$TMP/x.json"
expect_err "--one-cpu names the workload" "^allocab: bench: --one-cpu: workload 'parquet_load' is not single-threaded"
expect_status "--resume of a one-CPU file without --one-cpu: exit 2" 2 "$A" bench --program "$F 3" \
	-a system,mimalloc,jemalloc --rounds 1 --quiet --resume "$TMP/o.json" -o "$TMP/x.json"
expect_err "... names the difference" 'config\.duet differs: true in the file, false in this bench'

expect_status "--duet refuses a multi-threaded workload" 2 "$A" bench -a system,system_slow -w parquet_load --duet -o "$TMP/x.json"
expect_err "--duet names the workload" "^allocab: bench: --duet: workload 'parquet_load' is not single-threaded"
expect_status "--duet refuses three allocators" 2 "$A" bench -a system,system_slow,mimalloc -w $wl --duet -o "$TMP/x.json"
expect_err "--duet wants two allocators" '^allocab: bench: --duet pairs exactly two allocators'
expect_status "--duet refuses three programs" 2 "$A" bench --program "$BUILD/tests/phase_fixture 2" \
	-a system,mimalloc,jemalloc --duet -o "$TMP/x.json"
expect_err "--duet with three programs says why" '^allocab: bench: --duet pairs exactly two allocators'
if command -v taskset >/dev/null; then
	expect_status "--duet on one CPU" 2 taskset -c 0 "$A" bench -a system,system_slow -w $wl --duet -o "$TMP/x.json"
	expect_err "--duet on one CPU says why" '^allocab: bench: --duet needs two CPUs; this process may run on 1$'
	expect_status "--one-cpu on one CPU" 0 taskset -c 0 "$A" bench -a system,system_slow -w $wl \
		--scale small --rounds 1 --warmup 0 --one-cpu --solo-share 0 --quiet -o "$TMP/o1.json"
	[ "$("$jget" "$TMP/o1.json" rounds.0.runs.0.cpu)$("$jget" "$TMP/o1.json" rounds.0.runs.1.cpu)" = 00 ] &&
		ok "--one-cpu on one CPU: both runs on it" ||
		notok "--one-cpu on one CPU" "$("$jget" "$TMP/o1.json" rounds.0.runs.0.cpu)"
else
	skip "--duet on one CPU" "no taskset(1) (util-linux)"
fi
[ ! -e "$TMP/x.json" ] && ok "refused duets write nothing" || notok "refused duets write nothing" "x.json exists"

expect_status "calibrate --duet, 2 rounds" 0 "$A" calibrate -w $wl --scale small --rounds 2 --duet --quiet -o "$TMP/c.json"
[ "$("$jget" "$TMP/c.json" config.duet)" = true ] && [ "$("$jget" "$TMP/c.json" workloads.0.rounds)" = 2 ] &&
	ok "the calibration records the duet" || notok "the calibration records the duet" "$("$jget" "$TMP/c.json" config)"
expect_status "calibrate --duet refuses batch_prep" 2 "$A" calibrate -w batch_prep --duet -o "$TMP/x.json"
expect_err "calibrate --duet says why" "^allocab: calibrate: --duet: workload 'batch_prep' is not single-threaded"
