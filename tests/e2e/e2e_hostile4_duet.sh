#!/usr/bin/env bash
# e2e_hostile4_duet.sh - no number from the program (docs/programs.md, "What a program can still
# do"): under --one-cpu and --duet a program cannot write its helper's report (the channel is a
# socket that /proc cannot reopen, the helpers are not dumpable; as root, where it can take the
# socket with pidfd_getfd, what it writes makes its run unverified with a fixed reason and its own
# text appears nowhere); a run that leaves its CPU with sched_setaffinity is unverified; compare
# refuses wall time on a one-CPU file and the reader a one-CPU file whose time is not cpu; a
# marked phase's CPU time is bounded by the kernel's. The programs are in
# tests/fixtures/hostile4/, built here.
. tests/e2e/lib.sh

A=$BUILD/allocab
AABS=$(realpath "$A")
SRC=$PWD/tests/fixtures/hostile4
W=$TMP/w
mkdir -p "$W"
for p in duetforge duetmsg; do
	gcc -O1 -Isrc -o "$W/$p" "$SRC/$p.c" || { notok "build $p" "gcc failed"; exit 1; }
done
for p in duetsteal escape_cpu cpulie; do
	gcc -O1 -fno-builtin-malloc -fno-builtin-free -o "$W/$p" "$SRC/$p.c" ||
		{ notok "build $p" "gcc failed"; exit 1; }
done

# runs FILE: "arm status reason" of every run, one a line.
runs() {
	python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    for r in json.loads(line).get("runs", []):
        print(r["arm"], r["status"], r.get("reason") or "")
PY
}
# bench OUT ARGS...: a bench of a few runs; "$TMP/rc" its exit status, stderr in $TMP/err.
bench() {
	local out=$1
	shift
	timeout -s KILL 300 "$A" bench "$@" --warmup 0 --quiet -o "$out" >"$TMP/out" 2>"$TMP/err"
	echo $? >"$TMP/rc"
}

# (hostile-4 reproducer duet-pipe-forgery)
# 1. The reproducer: the program looks for a pipe of its helper's to write its own report into.
for mode in one-cpu duet; do
	bench "$TMP/forge-$mode.json" --program "$W/duetforge" -a system,mimalloc --$mode --solo-share 0 --rounds 2
	r=$(runs "$TMP/forge-$mode.json")
	if [ "$(cat "$TMP/rc")" = 1 ] && ! grep -q ' ok ' <<<"$r" &&
		! grep -q '"exe":"/usr/bin/forged"' "$TMP/forge-$mode.json"; then
		ok "--$mode: the program finds no pipe of its helper's to forge a report into; its runs are its own (unverified: its raw exec)"
	else
		notok "--$mode: duet pipe forgery" "rc $(cat "$TMP/rc"): $r $(head -c 300 "$TMP/err")"
	fi
done
ERRMSG='all runs verified: mimalloc 9.9x faster' bench "$TMP/msg.json" --program "$W/duetmsg" \
	-a system,mimalloc --one-cpu --solo-share 0 --rounds 1
if ! grep -q "9.9x" "$TMP/err" && [ -s "$TMP/msg.json" ] && ! grep -q "9.9x" "$TMP/msg.json"; then
	ok "--one-cpu: a program cannot end the bench with a message of its own (results written, its text nowhere)"
else
	notok "--one-cpu: the program's message" "$(head -c 300 "$TMP/err")"
fi

# 2. As root, the program takes its helper's socket with pidfd_getfd(2) and writes a report of
# its own (a mechanism none of the reproducers uses): refused, its text nowhere.
if [ "$(id -u)" = 0 ]; then
	FORGE_TEXT=PWNED-BY-PROGRAM DUETSTEAL_LOG=$TMP/steal.log bench "$TMP/steal.json" \
		--program "$W/duetsteal" -a system,mimalloc --one-cpu --solo-share 0 --rounds 1
	r=$(runs "$TMP/steal.json")
	if grep -q "open ENXIO" "$TMP/steal.log" && ! grep -q "open ok" "$TMP/steal.log"; then
		ok "root: open(2) of the helper's channel through /proc/PID/fd fails with ENXIO (a socket)"
	else
		notok "root: /proc reopen of the channel" "$(cat "$TMP/steal.log")"
	fi
	if [ "$(cat "$TMP/rc")" = 1 ] && grep -q "getfd ok wrote [1-9]" "$TMP/steal.log" &&
		[ "$(grep -c ' unverified duet report refused: ' <<<"$r")" = 2 ] &&
		! grep -q PWNED "$TMP/err" "$TMP/steal.json"; then
		ok "root: a report written through a descriptor taken with pidfd_getfd makes both runs unverified with a fixed reason"
	else
		notok "root: pidfd_getfd forgery" "rc $(cat "$TMP/rc"): $r $(cat "$TMP/steal.log") $(head -c 300 "$TMP/err")"
	fi
else
	skip "root: pidfd_getfd forgery" "not root"
fi

# 3. As a user: the helpers are not dumpable, so neither /proc/PID/fd nor pidfd_getfd reach
# them, and the runs are traced and verified as usual.
U=$TMP/u
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir -p "$U" && chmod 755 "$TMP" && chmod 777 "$U" && cp "$W/duetsteal" "$U/" && chmod 755 "$U/duetsteal"
	(cd "$U" && FORGE_TEXT=PWNED DUETSTEAL_LOG=$U/steal.log TMPDIR=$U timeout -s KILL 300 \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$AABS" bench \
		--program "$U/duetsteal" -a system,mimalloc --one-cpu --solo-share 0 --rounds 1 --warmup 0 --quiet \
		-o "$U/s.json" >"$TMP/out" 2>"$TMP/err")
	rc=$?
	r=$(runs "$U/s.json" 2>&1)
	if [ "$rc" = 0 ] && [ "$(grep -c ' ok ' <<<"$r")" = 2 ] &&
		[ "$(grep -c "open EACCES getfd EPERM wrote 0" "$U/steal.log")" = 2 ] &&
		grep -q '"tracking":"ptrace' "$U/s.json"; then
		ok "user: the program can neither open nor take its helper's descriptors (EACCES, EPERM); its runs traced and verified"
	else
		notok "user: helper not reachable" "rc $rc: $r $(cat "$U/steal.log" 2>&1) $(head -c 300 "$TMP/err")"
	fi
else
	skip "user: helper not reachable" "needs root, setpriv and the user nobody to run as a user"
fi

# (hostile-4 reproducer onecpu-affinity-escape)
# 4. A run that leaves its CPU (sched_setaffinity under mimalloc only): unverified, and where.
bench "$TMP/esc.json" --program "$W/escape_cpu mi" -a system,mimalloc --one-cpu --solo-share 0 --rounds 1
r=$(runs "$TMP/esc.json")
if [ "$(cat "$TMP/rc")" = 1 ] && grep -Eq "^mimalloc unverified process [0-9]+ could run on CPUs [0-9,-]+ at its exit or exec, not only on CPU [0-9]+" <<<"$r" &&
	grep -q "^system ok" <<<"$r" && grep -Eq '"left_cpu":\{"pid":[0-9]+,"cpus":"[0-9,-]+"\}' "$TMP/esc.json"; then
	ok "--one-cpu: a run that left its CPU is unverified, probe.left_cpu says where it could run"
else
	notok "--one-cpu: affinity escape" "rc $(cat "$TMP/rc"): $r"
fi
bench "$TMP/stay.json" --program "$W/escape_cpu none" -a system,mimalloc --one-cpu --solo-share 0 --rounds 1
r=$(runs "$TMP/stay.json")
[ "$(cat "$TMP/rc")" = 0 ] && [ "$(grep -c ' ok ' <<<"$r")" = 2 ] && ! grep -q left_cpu "$TMP/stay.json" &&
	ok "--one-cpu: runs that stay on their CPU are verified" ||
	notok "--one-cpu: runs that stay" "rc $(cat "$TMP/rc"): $r"

# (hostile-4 reproducer onecpu-wall-compare)
# 5. Wall time on a one-CPU file.
expect_status "compare --time wall on a one-CPU file: refused" 2 "$A" compare "$TMP/stay.json" --time wall
expect_err "... with one line" 'stay\.json ran its arms at once on one CPU \(config\.duet_cpus "shared"\): it compares on CPU time only, not wall time$'
expect_status "compare --time cpu on it" 0 "$A" compare "$TMP/stay.json" --time cpu
bench "$TMP/seqwall.json" --program "$W/escape_cpu none" -a system,mimalloc --time wall --rounds 1
expect_status "a one-CPU file against a wall-time file, without --time: refused" 2 "$A" compare "$TMP/stay.json" "$TMP/seqwall.json"
expect_err "... with one line" 'not wall time \(the time of the two files differs; --time cpu\)$'
expect_status "... and compared with --time cpu" 0 "$A" compare "$TMP/stay.json" "$TMP/seqwall.json" --time cpu
{ cat "$TMP/stay.json"; echo '{"updated_utc":"2026-12-07T20:00:00Z","config":{"time":"wall"}}'; } >"$TMP/wall.json"
expect_status "a one-CPU file whose update line sets time wall: refused" 2 "$A" compare "$TMP/wall.json"
expect_err "... with one line" 'config\.time: "wall" with config\.duet_cpus "shared"'

# (hostile-4 reproducer phase-cpu-unbounded)
# 6. A mark's CPU field beyond what the kernel gave (cpulie: FACTOR times its real CPU clock
# under glibc): the run is invalid; a file carrying such spans is refused.
bench "$TMP/lie.json" --program "$W/cpulie 8 1000000" -a system,mimalloc --rounds 1
r=$(runs "$TMP/lie.json")
[ "$(cat "$TMP/rc")" = 1 ] && grep -Eq "^system invalid phase marks: span 1 of 'epoch' holds [0-9]+ ns of CPU time in [0-9]+ ns of wall time on [0-9]+ CPUs$" <<<"$r" &&
	grep -q "^mimalloc ok" <<<"$r" && ok "a span claiming more CPU time than its wall time on every CPU: the run invalid" ||
	notok "phase CPU beyond the span's wall time" "rc $(cat "$TMP/rc"): $r"
bench "$TMP/lie2.json" --program "$W/cpulie 8 1.5" -a system,mimalloc --rounds 1
r=$(runs "$TMP/lie2.json")
grep -Eq "^system invalid phase marks: the spans of 'epoch' hold [0-9]+ ns of CPU time, more than the [0-9]+ ns the kernel counted for the whole run$" <<<"$r" &&
	ok "spans claiming more CPU time together than the kernel counted for the run: the run invalid" ||
	notok "phase CPU beyond the run's" "$r"
bench "$TMP/true.json" --program "$W/cpulie 8 1" -a system,mimalloc --rounds 1
r=$(runs "$TMP/true.json")
[ "$(cat "$TMP/rc")" = 0 ] && [ "$(grep -c ' ok ' <<<"$r")" = 2 ] && ok "true CPU fields: the runs ok" ||
	notok "true phase CPU" "rc $(cat "$TMP/rc"): $r"
python3 - "$TMP/true.json" "$TMP/inflated.json" <<'PY'
import json, sys
out = []
for line in open(sys.argv[1]):
    d = json.loads(line)
    for r in d.get("runs", []):
        for ph in (r.get("phase_marks") or {}).get("phases", []):
            if ph.get("cpu_ns"):
                ph["cpu_ns"] = [c * 50 for c in ph["cpu_ns"]]
    out.append(json.dumps(d, separators=(",", ":")))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
expect_status "a file whose marked spans hold more CPU time than their run: refused" 2 "$A" compare "$TMP/inflated.json"
expect_err "... with one line" "inflated\.json: rounds\[0\]\.runs\[[01]\]: phase_marks: the spans of 'epoch' hold [0-9]+ ns of CPU time, more than the [0-9]+ ns the kernel counted for the whole run$"
exit $t_fail
