#!/usr/bin/env bash
# e2e_accounting.sh - accounting closure of program runs (docs/programs.md, "Accounting"): a run
# is verified only when the CPU time the kernel charged to it (its cgroup's usage, else wait4's)
# and the CPU clocks of the processes the tracker saw agree within the stated tolerance. Each way
# of tests/tools/acct_hide.c to hide 300 ms of CPU time makes every run unverified, named: a
# thread made with CLONE_THREAD | CLONE_UNTRACED that raw-execs a program with a clean
# environment (sequential and --one-cpu), a CLONE_UNTRACED child that never execs nor reports,
# work moved to the parent cgroup and back, and (without a cgroup) work in a grandchild nobody
# waits for; the honest program stays verified with both charges. With the proc connector the
# untraced thread's exec and the untraced child are also named as escapes, first: the accounting
# is checked on them with the connector off. Every bench runs under
# `timeout -s KILL`: finishing before it is the behaviour checked, never a speed. The tolerance is
# a few milliseconds and every hidden amount is 300 ms, so a loaded machine changes nothing.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
BUILD=$(cd "$BUILD" && pwd)
A=$BUILD/allocab
JGET=$BUILD/tests/jget
H=$BUILD/tests/acct_hide
KILL_AFTER=120

if [ ! -x "$A" ] || [ ! -x "$H" ] || [ ! -x "$JGET" ]; then
	notok "tools" "build/allocab, build/tests/acct_hide or build/tests/jget missing"
	exit 1
fi

# bench OUT ARGS...: one round of system and mimalloc; "$TMP/rc" holds its exit status.
bench() {
	local out=$1
	shift
	timeout -s KILL "$KILL_AFTER" "$A" bench -a system,mimalloc --rounds 1 --warmup 0 --quiet \
		-o "$out" "$@" >"$TMP/out" 2>"$TMP/err"
	echo $? >"$TMP/rc"
}
rc() { cat "$TMP/rc"; }
# runs FILE: "STATUS REASON" per run of round 0.
runs() {
	local i n
	n=$("$JGET" "$1" "rounds.0.runs.#" 2>/dev/null || echo 0)
	for ((i = 0; i < n; i++)); do
		echo "$("$JGET" "$1" "rounds.0.runs.$i.status") $("$JGET" "$1" "rounds.0.runs.$i.reason")"
	done
}
# all_unverified NAME FILE PATTERN: rc 1, two runs, each unverified with a reason matching PATTERN.
all_unverified() {
	local lines bad
	lines=$(runs "$2")
	bad=$(echo "$lines" | grep -Evc "^unverified .*$3")
	if [ "$(rc)" = 1 ] && [ "$(echo "$lines" | grep -c .)" = 2 ] && [ "$bad" = 0 ]; then
		ok "$1"
	else
		notok "$1" "rc $(rc); runs: $lines; stderr: $(head -c 300 "$TMP/err")"
	fi
}
# closed NAME FILE BY: rc 0, every run ok, charged by BY, |unaccounted_ns| <= tolerance_ns.
closed() {
	local i lines bad=0 by u tol
	lines=$(runs "$2")
	for i in 0 1; do
		by=$("$JGET" "$2" "rounds.0.runs.$i.probe.accounting.charged_by")
		u=$("$JGET" "$2" "rounds.0.runs.$i.probe.accounting.unaccounted_ns")
		tol=$("$JGET" "$2" "rounds.0.runs.$i.probe.accounting.tolerance_ns")
		u=${u#-}
		{ [ "$by" = "$3" ] && [[ $u =~ ^[0-9]+$ && $tol =~ ^[0-9]+$ ]] && [ "$u" -le "$tol" ]; } ||
			bad=1
	done
	if [ "$(rc)" = 0 ] && [ "$bad" = 0 ] && ! echo "$lines" | grep -qv "^ok "; then
		ok "$1"
	else
		notok "$1" "rc $(rc); runs: $lines; accounting: $("$JGET" "$2" rounds.0.runs.0.probe.accounting)"
	fi
}

bench "$TMP/p.json" --program "$H spin 300"
if [ "$("$JGET" "$TMP/p.json" rounds.0.runs.0.probe.tracking 2>/dev/null)" != ptrace ]; then
	skip accounting "no process tracking here ($(head -c 200 "$TMP/err"))"
	exit 0
fi
mech=$("$JGET" "$TMP/p.json" config.containment.mechanism)
if [ "$mech" = "cgroup+proc-connector" ] || [ "$mech" = cgroup ]; then
	closed "the honest program: verified, the cgroup's charge closed by the tracked clocks" \
		"$TMP/p.json" cgroup

	# ---- untraced thread that execs: the new image runs on no probe, in no tracked process ----
	if [ "$mech" = "cgroup+proc-connector" ]; then
		bench "$TMP/tc.json" --program "$H thread_exec 300"
		all_unverified "the untraced thread's exec: the connector sees it, the tracker does not" \
			"$TMP/tc.json" "$H \(pid [0-9]+\) escaped process tracking"
		bench "$TMP/t1.json" --program "$H thread_exec 300" --one-cpu
		all_unverified "--one-cpu: the untraced thread that execs: unverified" "$TMP/t1.json" \
			"escaped process tracking"
	fi
	ALLOCAB_TEST_NO_CONNECTOR=1 bench "$TMP/t.json" --program "$H thread_exec 300"
	all_unverified "CLONE_THREAD|CLONE_UNTRACED thread raw-execs a clean program: unverified" \
		"$TMP/t.json" "[0-9.]+ ms of the run's CPU time \(cgroup: [0-9.]+ ms\) belongs to no process the tracker proved .*work hidden from process tracking"
	jeq "the thread's process was never read by the tracer" "$TMP/t.json" \
		rounds.0.runs.0.probe.accounting.unread 1
	u=$("$JGET" "$TMP/t.json" rounds.0.runs.0.probe.accounting.unaccounted_ns)
	[[ $u =~ ^[0-9]+$ ]] && [ "$u" -ge 250000000 ] &&
		ok "probe.accounting.unaccounted_ns holds the hidden work ($u)" ||
		notok "unaccounted_ns" "'$u', want >= 250 ms"
	grep -q "no verified successful run: unverified: .*work hidden from process tracking" "$TMP/err" &&
		ok "bench names the hidden work on stderr" || notok "bench stderr" "$(head -c 300 "$TMP/err")"
	ALLOCAB_TEST_NO_CONNECTOR=1 bench "$TMP/t2.json" --program "$H thread_exec 300" --one-cpu
	all_unverified "--one-cpu, no connector: the untraced thread that execs: unverified" \
		"$TMP/t2.json" "work hidden from process tracking"

	# ---- a CLONE_UNTRACED child that never execs, never allocates, never reports ----
	if [ "$mech" = "cgroup+proc-connector" ]; then
		bench "$TMP/fc.json" --program "$H untraced_fork 300"
		all_unverified "CLONE_UNTRACED child without exec: the connector saw it join the run" \
			"$TMP/fc.json" "process [0-9]+ of the run escaped process tracking"
	fi
	ALLOCAB_TEST_NO_CONNECTOR=1 bench "$TMP/f.json" --program "$H untraced_fork 300"
	all_unverified "CLONE_UNTRACED child without exec or record: unverified" "$TMP/f.json" \
		"belongs to no process the tracker proved \(theirs: [0-9.]+ ms over 2 processes\): work hidden"

	# ---- cgroup-hop-cpu: out to the parent cgroup for the work, back before the exit ----
	bench "$TMP/h.json" --program "$H hop 300"
	if grep -q "cannot leave" "$TMP/err" "$TMP/out" 2>/dev/null ||
		[ "$(runs "$TMP/h.json" | grep -c "exit 8")" != 0 ]; then
		skip "cgroup hop" "the run may not move itself to the parent cgroup here"
	else
		all_unverified "work moved to the parent cgroup and back: unverified" "$TMP/h.json" \
			"the run's processes used [0-9.]+ ms of CPU time, cgroup counted [0-9.]+ ms: [0-9.]+ ms of work moved out of the run's cgroup"
	fi

	# ---- a grandchild nobody waits for: the cgroup counts it, so the run is verified ----
	bench "$TMP/w.json" --program "$H unwaited 300"
	closed "an unwaited grandchild in the cgroup: counted, verified" "$TMP/w.json" cgroup
else
	skip "accounting with a cgroup" "containment here: '$mech'"
fi

# ---- without a cgroup (nor the connector, as for an unprivileged user) the charge is wait4's ----
export ALLOCAB_TEST_NO_CGROUP=1 ALLOCAB_TEST_NO_CONNECTOR=1
bench "$TMP/p2.json" --program "$H spin 300"
closed "no cgroup: the honest program verified, wait4's charge closed" "$TMP/p2.json" wait4
bench "$TMP/w2.json" --program "$H unwaited 300"
all_unverified "no cgroup: work in a grandchild nobody waits for: unverified" "$TMP/w2.json" \
	"the run's processes used [0-9.]+ ms of CPU time, wait4 counted [0-9.]+ ms: [0-9.]+ ms of work done in processes the run never waited for"
bench "$TMP/t3.json" --program "$H thread_exec 300"
all_unverified "no cgroup: the untraced thread that execs: unverified" "$TMP/t3.json" \
	"\(wait4: [0-9.]+ ms\) belongs to no process the tracker proved"
unset ALLOCAB_TEST_NO_CGROUP ALLOCAB_TEST_NO_CONNECTOR

# ---- without ptrace nothing is accounted, and the record says so ----
ALLOCAB_TEST_PTRACE_REFUSED=1 bench "$TMP/r.json" --program "$H spin 30"
jeq "not tracked: probe.accounting is null" "$TMP/r.json" rounds.0.runs.0.probe.accounting null
exit $t_fail
