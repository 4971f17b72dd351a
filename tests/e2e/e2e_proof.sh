#!/usr/bin/env bash
# e2e_proof.sh - proof without gaps (docs/programs.md): processes started past the probe's exec
# wrappers (tests/fixtures/hostile/rawexec.c in every mode) make the run unverified while ptrace tracks the
# run, and the refused-ptrace fallback says so in the run, the document, the bench's stderr and
# compare's warnings; --expect on a command of shell builtins; a proof failure no later round can
# change stops the bench after its first round, one that can does not; a command of many processes
# (tests/fixtures/hostile/shim_chain.sh) keeps python3 listed with its own calls; settings that are
# requested but not in effect (jemalloc narenas=4096, mimalloc reserve_huge_os_pages without huge
# pages) are caught in programs and drivers.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget

# runs FILE: "arm status reason" per run of round 0.
runs() {
	local n k
	n=$("$J" "$1" rounds.0.runs.#)
	for ((k = 0; k < n; k++)); do
		echo "$("$J" "$1" "rounds.0.runs.$k.arm") $("$J" "$1" "rounds.0.runs.$k.status") $("$J" "$1" "rounds.0.runs.$k.reason")"
	done | sort
}

if ! gcc -O0 -o "$TMP/rawexec" tests/fixtures/hostile/rawexec.c 2>"$TMP/cc"; then
	notok "rawexec builds" "$(cat "$TMP/cc")"
	exit 1
fi
cd "$TMP" || exit 1
seq 1 20000 | awk '{ print ($1 * 7919) % 20011 }' >nums.txt
A=$OLDPWD/$A
J=$OLDPWD/$J

# ---- every way past the probe's wrappers ----
for m in raw fexecve execveat jemalloc system popen; do
	prog=/usr/bin/sort
	case $m in system | popen) prog=/usr/bin/dash ;; esac
	expect_status "rawexec $m: exit 1" 1 "$A" bench --program "./rawexec $m" -a system,mimalloc \
		--rounds 1 --warmup 0 -q -o "$m.json"
	cp "$TMP/err" "$m.err"
	got=$(runs "$m.json" | sed -E 's/pid [0-9]+/pid N/')
	want="mimalloc unverified $prog (pid N) sent no probe report
system unverified $prog (pid N) sent no probe report"
	[ "$got" = "$want" ] && ok "rawexec $m: both arms unverified, the image named with its pid" ||
		notok "rawexec $m: verdicts" "$got"
done
[ "$("$J" raw.json rounds.0.runs.0.probe.tracking)" = ptrace ] &&
	[ "$("$J" raw.json config.process_tracking)" = ptrace ] &&
	ok "raw: the run and the document say ptrace tracked the processes" ||
	notok "raw: tracking" "$("$J" raw.json config.process_tracking)"
grep -q "^allocab: bench: mimalloc: no verified successful run: unverified: /usr/bin/sort (pid [0-9]*) sent no probe report" raw.err &&
	ok "raw: bench names the arm, the executable and its pid" || notok "raw: message" "$(cat raw.err)"
expect_status "rawexec rawkeep (the environment kept): verified, exit 0" 0 \
	"$A" bench --program "./rawexec rawkeep" -a system,mimalloc --rounds 1 --warmup 0 -q -o keep.json
[ "$("$J" keep.json rounds.0.runs.0.probe.process_count)" = 2 ] &&
	[ "$("$J" keep.json rounds.0.runs.0.probe.image_count)" = 3 ] &&
	ok "rawkeep: 2 processes, 3 images (sh, rawexec, sort)" ||
	notok "rawkeep: counts" "$("$J" keep.json rounds.0.runs.0.probe)"

# ---- ptrace refused: the probe alone, and every reader is told ----
ALLOCAB_TEST_PTRACE_REFUSED=1 expect_status "ptrace refused (test hook): the probe alone, exit 0" 0 \
	"$A" bench --program "./rawexec raw" -a system,mimalloc --rounds 1 --warmup 0 -q -o refused.json
[ "$("$J" refused.json rounds.0.runs.0.probe.tracking)" = "probe only (ptrace: EPERM)" ] &&
	[ "$("$J" refused.json config.process_tracking)" = "probe only (ptrace: EPERM)" ] &&
	ok "refused: the run's probe and config.process_tracking say 'probe only (ptrace: EPERM)'" ||
	notok "refused: tracking" "$("$J" refused.json config.process_tracking)"
grep -q '^allocab: bench: WARNING: process tracking: probe only (ptrace: EPERM)' "$TMP/err" &&
	ok "refused: the bench warns on stderr, even with -q" || notok "refused: warning" "$(cat "$TMP/err")"
expect_status "refused: compare exits 0" 0 "$A" compare refused.json
grep -q '^WARNING: refused.json: process tracking: probe only (ptrace: EPERM)' "$TMP/out" &&
	ok "refused: compare's warnings say so" || notok "refused: compare" "$(head -c 600 "$TMP/out")"

# ---- drivers are not tracked ----
if [ -x "$OLDPWD/$BUILD/allocab-mimalloc" ]; then
	expect_status "drivers bench: exit 0" 0 "$A" bench -a system,mimalloc -w feature_extract \
		--scale small --reps 1 --rounds 1 --warmup 0 -q -o drv.json
	[ "$("$J" drv.json config.process_tracking)" = null ] && [ -z "$("$J" drv.json rounds.0.runs.0.probe)" ] &&
		ok "drivers: not probed, not tracked" || notok "drivers: tracking" "$("$J" drv.json config.process_tracking)"
else
	notok "drivers bench" "allocab-mimalloc not built (make test builds it)"
fi

# ---- --expect needs the program to report, not the bench's shell ----
expect_status "--expect on shell builtins alone: exit 1" 1 "$A" bench --cmd a=true --cmd b=true \
	--expect a=system --expect b=jemalloc --rounds 1 --warmup 0 -q -o builtin.json
[ "$(grep -c 'no verified successful run: unverified: the program sent no probe report' "$TMP/err")" = 2 ] &&
	ok "--expect on shell builtins: both arms 'the program sent no probe report'" ||
	notok "--expect on builtins: message" "$(cat "$TMP/err")"

# ---- a proof failure no later round can change stops the bench after its first round ----
expect_status "misspelled preload: exit 1 after the warm-up round" 1 "$A" bench \
	--cmd system="sort nums.txt >/dev/null" --cmd typo="LD_PRELOAD=libmimaloc.so.2 sort nums.txt >/dev/null" \
	--expect system=system --expect typo=mimalloc --rounds 20 -q -o typo.json
[ "$("$J" typo.json rounds.#)" = 1 ] && [ "$("$J" typo.json status)" = aborted ] &&
	[ "$("$J" typo.json rounds.0.runs.0.probe.deterministic)$("$J" typo.json rounds.0.runs.1.probe.deterministic)" != falsefalse ] &&
	ok "misspelled preload: one round written, status aborted, the failure deterministic" ||
	notok "misspelled preload: document" "rounds $("$J" typo.json rounds.#), status $("$J" typo.json status)"
grep -q "^allocab: bench: typo: no verified successful run: unverified: preload failed: .*libmimaloc.so.2" "$TMP/err" &&
	grep -q "^allocab: bench: stopped after the first round" "$TMP/err" &&
	! grep -q "^allocab: bench: system:" "$TMP/err" &&
	ok "misspelled preload: the arm and its reason, then why the bench stopped" ||
	notok "misspelled preload: message" "$(cat "$TMP/err")"
if gcc -static -o static "$OLDPWD/tests/fixtures/hostile/rawexec.c" 2>/dev/null; then
	expect_status "static executable: exit 1 after the first round (--warmup 0)" 1 "$A" bench \
		--program "./static rawkeep" -a system,mimalloc --rounds 20 --warmup 0 -q -o static.json
	[ "$("$J" static.json rounds.#)" = 1 ] && [ "$(grep -c 'unverified: static executable' "$TMP/err")" = 2 ] &&
		ok "static executable: stopped after one round, both arms named" ||
		notok "static executable: early stop" "$(cat "$TMP/err")"
fi
expect_status "a process past the probe (not deterministic): every round runs" 1 "$A" bench \
	--program "./rawexec raw" -a system,mimalloc --rounds 2 --warmup 0 -q -o nondet.json
[ "$("$J" nondet.json rounds.#)" = 2 ] && [ "$("$J" nondet.json status)" = complete ] &&
	[ "$("$J" nondet.json rounds.0.runs.0.probe.deterministic)" = false ] &&
	ok "not deterministic: both rounds ran" || notok "not deterministic" "rounds $("$J" nondet.json rounds.#)"

# ---- lines the probe did not write: a run with them is unverified ----
for forged in 'not json' '{"probe":"allocab-probe/1","event":"start","event":"exit"}'; do
	printf '#!/bin/sh\nprintf "%%s\\n" '"'%s'"' >>"$ALLOCAB_PROBE_FILE"\nexec sort </dev/null\n' "$forged" >forge.sh
	chmod +x forge.sh
	expect_status "a line the probe did not write ($forged): exit 1" 1 "$A" bench \
		--program ./forge.sh -a system,mimalloc --rounds 1 --warmup 0 -q -o forged.json
	grep -q "no verified successful run: unverified: 1 line of the probe records the probe did not write" "$TMP/err" &&
		ok "forged line ($forged): the run unverified, the reason named" || notok "forged line" "$(cat "$TMP/err")"
done

# ---- many processes: the one that did the work stays listed, with its own calls ----
cp "$OLDPWD/tests/fixtures/hostile/shim_chain.sh" .
expect_status "shim chain into python3 with --count-calls: exit 0" 0 "$A" bench \
	--program "PYTHONMALLOC=malloc sh shim_chain.sh" -a system,mimalloc --count-calls --rounds 1 \
	--warmup 0 -q -o shim.json
got=$(python3 -c '
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for r in d["rounds"][0]["runs"]:
    p = r["probe"]
    calls = {}
    for x in p["processes"]:
        if x["event"] == "start":
            calls[x["exe"].split("/")[-1]] = x.get("counts", {}).get("malloc", 0)
    py = [v for k, v in calls.items() if k.startswith("python3")]
    print(r["arm"], p["verified"], p["process_count"] > 40, p["processes_truncated"],
          p["processes_omitted"] == p["image_count"] - 64, len(py) == 1 and py[0] > 20000,
          0 < calls.get("bash", 0) < 5000, p["counts_total"]["malloc"] >= sum(calls.values()))
' shim.json | sort | tr '\n' ' ')
[ "$got" = "mimalloc True True True True True True True system True True True True True True True " ] &&
	ok "shim chain: >40 processes counted, the cut said, python3 listed with its calls, bash with its own" ||
	notok "shim chain: summary" "$got"

# ---- settings requested but not in effect ----
hp=$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages 2>/dev/null || echo 0)
expect_status "jemalloc narenas=4096 in a program: exit 1" 1 "$A" bench --program "sort nums.txt -o /dev/null" \
	-a system --arm 'je=jemalloc:narenas=4096' --rounds 1 --warmup 0 -q -o je.json
grep -q "je: no verified successful run: unverified: configuration not in force: narenas=4096 read back 4094 in sort" "$TMP/err" &&
	ok "jemalloc narenas=4096: read back 4094 (arenas.narenas), unverified" || notok "narenas=4096" "$(cat "$TMP/err")"
expect_status "jemalloc driver narenas=4096: exit 4" 4 "$OLDPWD/$BUILD/allocab-jemalloc" run checkpoint_write \
	--scale small --reps 1 --config narenas=4096 --out drv-je.json
grep -q "configuration not in force: narenas=4096 requested, 4094 in force" "$TMP/err" &&
	ok "jemalloc driver narenas=4096: 4094 in force" || notok "driver narenas" "$(cat "$TMP/err")"
if [ "${hp:-0}" -lt 64 ]; then
	expect_status "mimalloc reserve_huge_os_pages=64 without huge pages: exit 1" 1 "$A" bench \
		--program "sort nums.txt -o /dev/null" -a system --arm 'mi=mimalloc:reserve_huge_os_pages=64:large_os_pages=1' \
		--rounds 1 --warmup 0 -q -o mi.json
	grep -q "mi: no verified successful run: unverified: configuration not in force: reserve_huge_os_pages=64 read back 0 in sort" "$TMP/err" &&
		ok "reserve_huge_os_pages=64: 0 huge pages read back from smaps, unverified" ||
		notok "reserve_huge_os_pages" "$(cat "$TMP/err")"
	got=$(python3 -c '
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for r in d["rounds"][0]["runs"]:
    for p in r["probe"]["processes"]:
        c = (p.get("config") or {}).get("large_os_pages")
        if c: print(c.get("read_back"), "in_force" in c, c.get("unproven"))
' mi.json | sort -u)
	[ "$got" = "1 False requested, effect unproven" ] &&
		ok "large_os_pages: recorded 'requested, effect unproven', not in force" || notok "large_os_pages" "$got"
	expect_status "mimalloc driver reserve_huge_os_pages=64: exit 4" 4 "$OLDPWD/$BUILD/allocab-mimalloc" run \
		checkpoint_write --scale small --reps 1 --config reserve_huge_os_pages=64 --out drv-mi.json
	grep -q "reserve_huge_os_pages=64 requested, 0 in force" "$TMP/err" &&
		ok "mimalloc driver: 0 huge pages in force" || notok "driver huge pages" "$(cat "$TMP/err")"
else
	skip "reserve_huge_os_pages" "this host has 64 huge pages of 1 GiB"
fi
exit $t_fail
