#!/usr/bin/env bash
# e2e_leftovers.sh - nothing left behind (docs/programs.md, "Nothing left behind"): the runs of a
# SIGKILLed bench die with it (its guard kills their cgroups; the run's first process and the duet
# helpers die by their parent-death signal), its temporary directories go; when the guard is
# killed too, the next bench kills and removes what the dead one left and names it; a run that
# makes cgroups of its own (a child, a frozen one, 200 nested, its own frozen) leaves none; a
# bench started with SIGCHLD ignored does not hang; a SIGTERMed bench whose run double-forked a
# daemon leaves nothing; names a run plants in TMPDIR like a dead bench's are removed without
# following a link, a live pid's and one a live process claims (another PID namespace's bench) are
# kept; a SIGKILLed `allocab record`'s stream directory is removed and named by the next one. A
# program that stops the bench, its guard or a duet helper hangs nothing. Every wait is bounded;
# no check is of speed.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
BUILD=$(cd "$BUILD" && pwd)
A=$BUILD/allocab
JGET=$BUILD/tests/jget
F=$PWD/tests/fixtures/life
KILL_AFTER=120
mnt=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
base=$mnt${own%/}
cd "$TMP" || exit 1

# start_bench NAME ARGS...: a bench in the background; $bp its pid, stderr in $TMP/NAME.err.
start_bench() {
	local name=$1
	shift
	timeout -s KILL "$KILL_AFTER" "$A" bench "$@" --warmup 0 --quiet >/dev/null 2>"$TMP/$name.err" &
	tp=$!
	until_true 10 pgrep -P "$tp" -x allocab >/dev/null # timeout's child is the bench
	bp=$(pgrep -P "$tp" -x allocab)
}
# until_true SECONDS CMD...: polls CMD every 0.1 s; its status at the end.
until_true() {
	local n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
cgroups_of() { find "$base" -maxdepth 1 -name "allocab-run.$1.*" 2>/dev/null; }
dirs_of() { find "$TMPDIR" -maxdepth 1 -name "allocab-*.$1.*" 2>/dev/null; }
# run_pids PID: the processes in the cgroups of bench PID's runs.
run_pids() { cat $(cgroups_of "$1" | sed 's|$|/cgroup.procs|') 2>/dev/null; }
# has_run_procs PID N: its runs hold at least N processes.
has_run_procs() { [ "$(run_pids "$1" | wc -l)" -ge "$2" ]; }
# none_alive FILE: no pid listed in FILE is a live process (a zombie counts as dead).
none_alive() {
	local p s
	while read -r p; do
		s=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
		[ -n "$s" ] && [ "$s" != Z ] && return 1
	done <"$1"
	return 0
}
nothing_of() { [ -z "$(cgroups_of "$1")" ] && [ -z "$(dirs_of "$1")" ]; }

cgroup_ok=0
if [ "$(id -u)" = 0 ] && [ -n "$mnt" ] && [ -w "$base" ]; then cgroup_ok=1; fi
# This script's benches run in a cgroup of its own: a bench running beside it (make test) sweeps
# the dead benches of its own cgroup, never the ones this script kills and looks for.
top=$base
if [ "$cgroup_ok" = 1 ] && mkdir "$top/allocab-e2e.$$" && echo $$ >"$top/allocab-e2e.$$/cgroup.procs"; then
	trap 'echo $$ >"$top/cgroup.procs"; rmdir "$top/allocab-e2e.$$"; rm -rf "$TMP"' EXIT
	base=$top/allocab-e2e.$$
fi

# ---- SIGCHLD ignored: no hang in the fault-cost measurement (sigchld-ignored-hang) ----
timeout -s KILL "$KILL_AFTER" python3 "$F/ign.py" "$A" bench --program /bin/true -a system,mimalloc \
	--rounds 1 --warmup 0 --quiet -o "$TMP/ign.json" >/dev/null 2>"$TMP/ign.err"
rc=$?
fault=$("$JGET" "$TMP/ign.json" facts.start.fault_ns.trials 2>/dev/null)
[ "$rc" = 0 ] && [ "${fault:-0}" -gt 0 ] &&
	ok "SIGCHLD ignored by the parent: the bench ends (rc 0) and measured the fault cost ($fault trials)" ||
	notok "SIGCHLD ignored" "rc $rc, fault_ns.trials '$fault': $(head -c 300 "$TMP/ign.err")"
timeout -s KILL "$KILL_AFTER" python3 "$F/ign.py" "$A" record -o "$TMP/ign.trace" -- /bin/true \
	>/dev/null 2>"$TMP/ign.err"
rc=$?
[ "$rc" = 0 ] && [ -s "$TMP/ign.trace" ] && ok "SIGCHLD ignored: record ends (rc 0) with its trace" ||
	notok "SIGCHLD ignored: record" "rc $rc: $(head -c 300 "$TMP/ign.err")"

# ---- SIGKILL without a cgroup: the run's process dies with the bench, the guard removes the
# temporary directories ----
ALLOCAB_TEST_NO_CGROUP=1 start_bench nocg --program 'exec sleep 1000' -a system,mimalloc \
	--rounds 3 --timeout 600 -o "$TMP/nocg.json"
until_true 30 pgrep -P "$bp" -x sleep >/dev/null
pgrep -P "$bp" -x sleep >"$TMP/nocg.pids"
{ kill -KILL "$bp"; wait "$tp"; } 2>/dev/null
if [ -s "$TMP/nocg.pids" ] && until_true 10 none_alive "$TMP/nocg.pids" && until_true 10 nothing_of "$bp"; then
	ok "SIGKILL, no cgroup: the run's process died with the bench, its temporary directories removed"
else
	notok "SIGKILL, no cgroup" "pids $(tr '\n' ' ' <"$TMP/nocg.pids"), left: $(dirs_of "$bp"); $(head -c 300 "$TMP/nocg.err")"
fi

# ---- a program that stops its tracer: the bench, its guard, a duet helper ----
stop_bench() {
	local name=$1
	shift
	timeout -s KILL "$KILL_AFTER" "$A" bench "$@" -a system,mimalloc --warmup 0 --quiet \
		-o "$TMP/$name.json" >/dev/null 2>"$TMP/$name.err"
	echo $? >"$TMP/rc"
}
stop_bench stop --program 'kill -STOP $PPID; exit 0' --rounds 1 --timeout 2
st=$("$JGET" "$TMP/stop.json" rounds.0.runs.0.status 2>/dev/null)
[ "$(cat "$TMP/rc")" = 1 ] && [ "$st" = timeout ] &&
	grep -q "timeout, exit 0: allocab: the bench was stopped by a signal during the run and resumed by its guard past the run's time limit" "$TMP/stop.err" &&
	ok "a run that SIGSTOPs the bench: resumed by the guard past the time limit, the runs are timeouts (rc 1)" ||
	notok "SIGSTOP of the bench" "rc $(cat "$TMP/rc"), status '$st': $(head -c 300 "$TMP/stop.err")"
stop_bench stopg --program 'kill -STOP $(pgrep -P $PPID -x allocab-guard); sleep 2; kill -STOP $PPID; exit 0' \
	--rounds 1 --timeout 4
st=$("$JGET" "$TMP/stopg.json" rounds.0.runs.0.status 2>/dev/null)
[ "$(cat "$TMP/rc")" = 1 ] && [ "$st" = timeout ] &&
	ok "a run that SIGSTOPs the guard, then the bench: the bench resumed its guard, the guard the bench" ||
	notok "SIGSTOP of guard and bench" "rc $(cat "$TMP/rc"), status '$st': $(head -c 300 "$TMP/stopg.err")"
stop_bench stopd --program 'kill -STOP $PPID; sleep 1' --rounds 2 --timeout 5 --one-cpu
[ "$(cat "$TMP/rc")" = 1 ] &&
	grep -q "^allocab: bench: the duet helper for CPU [0-9]* (the tracer of its run) was stopped by a signal during the round: resumed, but its runs are no measurement$" "$TMP/stopd.err" &&
	ok "a run that SIGSTOPs its duet helper: resumed, the bench stops with the reason (rc 1)" ||
	notok "SIGSTOP of a duet helper" "rc $(cat "$TMP/rc"): $(head -c 300 "$TMP/stopd.err")"

# ---- own: names planted in TMPDIR like a dead bench's ----
mkdir -p "$TMP/outside"
echo precious >"$TMP/outside/file"
sh -c 'exit 0' &
deadpid=$!
wait "$deadpid"
timeout -s KILL "$KILL_AFTER" "$A" bench --program "$F/decoys.sh $deadpid $TMP/outside" -a system,mimalloc \
	--rounds 1 --warmup 0 --quiet -o "$TMP/decoy.json" >/dev/null 2>&1
# a bench of another PID namespace: its pid is free here, but it holds its directory's claim
mkdir "$TMPDIR/allocab-probe.$deadpid.held"
flock -s "$TMPDIR/allocab-probe.$deadpid.held" sleep 120 &
holder=$!
sleep 0.5
timeout -s KILL "$KILL_AFTER" "$A" bench --program /bin/true -a system,mimalloc --rounds 1 --warmup 0 \
	--quiet -o "$TMP/decoy2.json" >/dev/null 2>"$TMP/decoy.err"
[ -d "$TMPDIR/allocab-probe.$deadpid.held" ] && ! grep -q "allocab-probe.$deadpid.held" "$TMP/decoy.err" &&
	ok "a dead pid's directory that a live process claims (flock) is kept" ||
	notok "claimed directory" "$(ls "$TMPDIR"); $(head -c 300 "$TMP/decoy.err")"
pkill -P "$holder"
wait "$holder" 2>/dev/null
if [ ! -e "$TMPDIR/allocab-phases.$deadpid.decoy" ] && [ "$(cat "$TMP/outside/file")" = precious ] &&
	[ -L "$TMPDIR/allocab-probe.$deadpid.link" ] && [ -d "$TMPDIR/allocab-probe.1.alive" ] &&
	grep -q "removed $TMPDIR/allocab-phases.$deadpid.decoy, left by allocab pid $deadpid, which died: 1 symbolic link" "$TMP/decoy.err"; then
	ok "planted names: a dead pid's directory removed and named, its link not followed; a link and a live pid's directory kept"
else
	notok "planted names" "$(ls -la "$TMPDIR" "$TMP/outside" | head -c 400); $(head -c 300 "$TMP/decoy.err")"
fi
rm -rf "$TMPDIR/allocab-probe.1.alive" "$TMPDIR/allocab-probe.$deadpid.link" "$TMPDIR/allocab-probe.$deadpid.held"

# ---- allocab record: the next one removes a killed one's stream directory and names it ----
"$A" record -o "$TMP/r.trace" -- sh -c 'while :; do ls / >/dev/null; done' >/dev/null 2>&1 &
rp=$!
until_true 30 test -n "$(find "$TMPDIR" -maxdepth 1 -name "allocab-record.$rp.*")"
kill -KILL "$rp"
wait "$rp" 2>/dev/null
mkdir "$TMPDIR/allocab-record.$deadpid.held"
flock -s "$TMPDIR/allocab-record.$deadpid.held" sleep 120 &
holder=$!
sleep 0.5
"$A" record -o "$TMP/r2.trace" -- /bin/true >/dev/null 2>"$TMP/rec.err"
[ -d "$TMPDIR/allocab-record.$deadpid.held" ] && ok "record: a dead pid's stream directory that a live process claims is kept" ||
	notok "record: claimed directory" "$(ls "$TMPDIR")"
pkill -P "$holder"
wait "$holder" 2>/dev/null
if [ -z "$(find "$TMPDIR" -maxdepth 1 -name "allocab-record.$rp.*")" ] &&
	grep -q "^allocab: record: removed $TMPDIR/allocab-record\.$rp\.[^ ]*, left by allocab pid $rp, which died$" "$TMP/rec.err"; then
	ok "record: the next one removed a SIGKILLed recorder's stream directory at once and named it"
else
	notok "record: stream directory" "$(ls "$TMPDIR"); $(head -c 300 "$TMP/rec.err")"
fi
if [ "$cgroup_ok" = 0 ]; then
	skip "leftovers in cgroups" "not root or no writable cgroup2 directory"
	exit $t_fail
fi

# ---- SIGKILL mid-run: the guard kills the run, a daemon of its own session included
# (sigkill-leftovers) ----
start_bench kill --program "$F/spin.sh" -a system,mimalloc --rounds 3 --timeout 600 -o "$TMP/kill.json"
until_true 30 has_run_procs "$bp" 2
run_pids "$bp" >"$TMP/kill.pids"
{ kill -KILL "$bp"; wait "$tp"; } 2>/dev/null
if until_true 10 none_alive "$TMP/kill.pids" && until_true 10 nothing_of "$bp"; then
	ok "SIGKILL: no process of the run survives ($(wc -l <"$TMP/kill.pids") processes), nor its cgroup or temporary directories"
else
	notok "SIGKILL" "alive: $(tr '\n' ' ' <"$TMP/kill.pids"); left: $(cgroups_of "$bp") $(dirs_of "$bp")"
fi
grep -q "^allocab: bench: removed the cgroup $base/allocab-run\.$bp\.$bp\.[0-9]*, left by allocab pid $bp, which died; killed the processes still in it$" "$TMP/kill.err" &&
	grep -q "^allocab: bench: removed $TMPDIR/allocab-probe\.$bp\.[^ ]*, left by allocab pid $bp, which died" "$TMP/kill.err" &&
	ok "SIGKILL: the guard names what it killed and removed" ||
	notok "SIGKILL: the guard's lines" "$(head -c 600 "$TMP/kill.err")"

# ---- the guard killed too: the next bench kills and removes, and names ----
start_bench kill2 --program "$F/spin.sh" -a system,mimalloc --rounds 3 --timeout 600 -o "$TMP/kill2.json"
until_true 30 has_run_procs "$bp" 2
run_pids "$bp" >"$TMP/kill2.pids"
g=$(pgrep -P "$bp" -x allocab-guard)
[ -n "$g" ] && kill -KILL "$g"
{ kill -KILL "$bp"; wait "$tp"; } 2>/dev/null
sleep 1
if [ -n "$g" ] && [ -n "$(cgroups_of "$bp")" ] && ! none_alive "$TMP/kill2.pids"; then
	ok "bench and guard SIGKILLed: the daemon runs on in the dead bench's cgroup"
else
	notok "bench and guard SIGKILLed" "guard '$g', cgroups '$(cgroups_of "$bp")'"
fi
dead=$bp
timeout -s KILL "$KILL_AFTER" "$A" bench --program /bin/true -a system,mimalloc --rounds 1 --warmup 0 \
	--quiet -o "$TMP/after.json" >/dev/null 2>"$TMP/after.err"
rc=$?
if [ "$rc" = 0 ] && until_true 10 none_alive "$TMP/kill2.pids" && nothing_of "$dead"; then
	ok "the next bench killed the dead bench's run and removed its cgroup and directories (rc 0)"
else
	notok "the next bench" "rc $rc; alive: $(tr '\n' ' ' <"$TMP/kill2.pids"); left: $(cgroups_of "$dead") $(dirs_of "$dead")"
fi
grep -q "^allocab: bench: removed the cgroup $base/allocab-run\.$dead\.$dead\.[0-9]*, left by allocab pid $dead, which died; killed the processes still in it$" "$TMP/after.err" &&
	grep -q "^allocab: bench: removed $TMPDIR/allocab-phases\.$dead\.[^ ]*, left by allocab pid $dead, which died" "$TMP/after.err" &&
	ok "the next bench names each thing it removed" || notok "the next bench's lines" "$(head -c 600 "$TMP/after.err")"

# ---- --one-cpu: the helpers and their runs die with the bench ----
start_bench onecpu --program "$F/spin.sh" -a system,mimalloc --rounds 3 --timeout 600 --one-cpu \
	-o "$TMP/onecpu.json"
until_true 30 has_run_procs "$bp" 4
{ run_pids "$bp"; pgrep -P "$bp" -x allocab; } >"$TMP/onecpu.pids"
{ kill -KILL "$bp"; wait "$tp"; } 2>/dev/null
if until_true 10 none_alive "$TMP/onecpu.pids" && until_true 10 nothing_of "$bp"; then
	ok "SIGKILL under --one-cpu: no helper and no process of a run survives ($(wc -l <"$TMP/onecpu.pids") processes)"
else
	notok "SIGKILL under --one-cpu" "alive: $(tr '\n' ' ' <"$TMP/onecpu.pids"); left: $(cgroups_of "$bp")"
fi

# ---- a run's own cgroups (child-cgroup-leak) ----
for mode in child freezechild nest freeze; do
	start_bench "sub$mode" --program "$F/sub.sh $mode" -a system,mimalloc --rounds 1 --timeout 3 \
		-o "$TMP/sub$mode.json"
	wait "$tp" 2>/dev/null
	if [ -z "$(cgroups_of "$bp")" ] && ! grep -q "cannot remove" "$TMP/sub$mode.err"; then
		ok "a run's cgroups ($mode): none left, no warning"
	else
		notok "a run's cgroups ($mode)" "left: $(cgroups_of "$bp"); $(head -c 300 "$TMP/sub$mode.err")"
	fi
done

# ---- own: SIGTERM while the run's double-forked daemon runs: nothing left, the guard silent ----
start_bench term --program "$F/spin.sh" -a system,mimalloc --rounds 3 --timeout 600 -o "$TMP/term.json"
until_true 30 has_run_procs "$bp" 2
run_pids "$bp" >"$TMP/term.pids"
kill -TERM "$bp"
if until_true 20 none_alive "$TMP/term.pids" && until_true 10 nothing_of "$bp" &&
	! grep -q "removed" "$TMP/term.err"; then
	ok "SIGTERM: the bench itself killed its run and its daemon and removed everything; the guard said nothing"
else
	notok "SIGTERM" "alive: $(tr '\n' ' ' <"$TMP/term.pids"); left: $(cgroups_of "$bp") $(dirs_of "$bp"); $(head -c 300 "$TMP/term.err")"
fi

exit $t_fail
