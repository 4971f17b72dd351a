#!/usr/bin/env bash
# e2e_containment.sh - containment of program runs (docs/programs.md, "Containment"): a cgroup per
# run and the proc connector see every process, so that a child made with CLONE_UNTRACED, a daemon,
# a second allocator loaded with RTLD_DEEPBIND, a mislabelled --preload, a configured arm that
# exits without a read-back, forged probe records, a PID namespace and a replaced record file each
# end as documented. The programs are the hostile-3 reproducers in tests/fixtures/hostile3/, built here.
# Every bench runs under `timeout -s KILL`: finishing before it is the behaviour checked (no hang),
# never a speed. Needs root (ptrace, a cgroup, CAP_NET_ADMIN for the connector): skipped without.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
BUILD=$(cd "$BUILD" && pwd)
# every bench of this script through a wrapper that notes its pid (the name of its runs'
# cgroups): other tests may run benches at the same time
A=$TMP/allocab
printf '#!/bin/sh\necho $$ >>"%s/bench.pids"\nexec "%s" "$@"\n' "$TMP" "$BUILD/allocab" >"$A"
chmod +x "$A"
JGET=$BUILD/tests/jget
SRC=$PWD/tests/fixtures/hostile3
KILL_AFTER=120

if [ "$(id -u)" != 0 ]; then
	skip containment "not root: no cgroup, no proc connector"
	exit 0
fi
W=$TMP/w
mkdir -p "$W"
cp "$SRC"/*.c "$SRC"/flood.py "$SRC"/pidns.sh "$W"/
cd "$W" || exit 1
for p in ev untraced esc esc2 daemon evx forge rawexit mover; do
	gcc -O1 -o "$p" "$p.c" || { notok "build $p" "gcc failed"; exit 1; }
done
gcc -O1 -shared -fPIC -o libwork_tc.so libwork.c -l:libtcmalloc_minimal.so.4 &&
	gcc -O1 -o deeptc deeptc.c -ldl || { notok "build deeptc" "gcc failed"; exit 1; }
seq 200000 >nums.txt

# bench NAME OUT ARGS...: one bench under the kill timeout; "$TMP/rc" holds its exit status.
bench() {
	local name=$1 out=$2
	shift 2
	timeout -s KILL "$KILL_AFTER" "$A" bench "$@" --rounds 1 --warmup 0 --quiet -o "$out" \
		>"$TMP/out" 2>"$TMP/err"
	echo $? >"$TMP/rc"
	if [ "$(cat "$TMP/rc")" = 137 ]; then
		notok "$name: finished before the kill timeout" "killed after ${KILL_AFTER}s"
	fi
}
rc() { cat "$TMP/rc"; }
# reasons FILE: "ARM STATUS REASON" per run of round 0.
reasons() {
	local i n
	n=$("$JGET" "$1" "rounds.0.runs.#")
	for ((i = 0; i < n; i++)); do
		echo "$("$JGET" "$1" "rounds.0.runs.$i.arm") $("$JGET" "$1" "rounds.0.runs.$i.status") $("$JGET" "$1" "rounds.0.runs.$i.reason")"
	done
}
# reasons_all FILE: the same for every round.
reasons_all() {
	local i n r nr
	nr=$("$JGET" "$1" "rounds.#")
	for ((r = 0; r < nr; r++)); do
		n=$("$JGET" "$1" "rounds.$r.runs.#")
		for ((i = 0; i < n; i++)); do
			echo "$("$JGET" "$1" "rounds.$r.runs.$i.arm") $("$JGET" "$1" "rounds.$r.runs.$i.status") $("$JGET" "$1" "rounds.$r.runs.$i.reason")"
		done
	done
}
# all_unverified NAME FILE PATTERN: rc 1, every run unverified with a reason matching PATTERN.
all_unverified() {
	local lines bad
	lines=$(reasons "$2")
	bad=$(echo "$lines" | grep -Evc " unverified .*$3")
	if [ "$(rc)" = 1 ] && [ -n "$lines" ] && [ "$bad" = 0 ]; then
		ok "$1"
	else
		notok "$1" "rc $(rc); runs: $lines"
	fi
}

bench "probe" "$TMP/c.json" --program './ev 1000' -a system,mimalloc
mech=$("$JGET" "$TMP/c.json" config.containment.mechanism 2>/dev/null)
if [ "$mech" != "cgroup+proc-connector" ]; then
	skip containment "this machine gives '$mech' ($(head -c 200 "$TMP/err"))"
	exit 0
fi
jeq "a contained run: its mechanism" "$TMP/c.json" rounds.0.runs.0.containment.mechanism \
	cgroup+proc-connector
jeq "a contained run: escapes excluded" "$TMP/c.json" \
	rounds.0.runs.0.containment.escapes_excluded true
jeq "a contained run: nothing left behind" "$TMP/c.json" rounds.0.runs.0.containment.left_behind 0
u=$("$JGET" "$TMP/c.json" rounds.0.runs.0.containment.cgroup_cpu.user_ns)
s=$("$JGET" "$TMP/c.json" rounds.0.runs.0.containment.cgroup_cpu.sys_ns)
[[ $u =~ ^[0-9]+$ && $s =~ ^[0-9]+$ ]] && [ $((u + s)) -gt 0 ] &&
	ok "containment.cgroup_cpu: user_ns and sys_ns of the cgroup ($u, $s)" ||
	notok "containment.cgroup_cpu" "user_ns '$u' sys_ns '$s'"
jeq "verified when nothing escapes" "$TMP/c.json" rounds.0.runs.0.status ok

# ---- clone-untraced: raw clone, clone3 and CLONE_PARENT with CLONE_UNTRACED ----
bench "clone untraced" "$TMP/u.json" --program './untraced 30000' -a system,mimalloc
all_unverified "clone(CLONE_UNTRACED) child: unverified, named" "$TMP/u.json" \
	"$W/ev \(pid [0-9]+\) escaped process tracking \(CLONE_UNTRACED\)"
bench "clone3 untraced" "$TMP/u3.json" --program './esc clone3_untraced' -a system,mimalloc
all_unverified "clone3(CLONE_UNTRACED) child: unverified" "$TMP/u3.json" \
	"/usr/bin/sort \(pid [0-9]+\) escaped process tracking"
bench "clone parent untraced" "$TMP/u4.json" --program './esc2' -a system,mimalloc
all_unverified "clone(CLONE_PARENT|CLONE_UNTRACED), a sibling of the run: unverified" \
	"$TMP/u4.json" "/usr/bin/sort \(pid [0-9]+\) escaped process tracking"
# the same escapes with --duet: each run is tracked and judged by its own helper
bench "duet: clone untraced" "$TMP/du.json" --program './untraced 30000' -a system,mimalloc --duet
all_unverified "duet: clone(CLONE_UNTRACED) child: unverified, named" "$TMP/du.json" \
	"$W/ev \(pid [0-9]+\) escaped process tracking \(CLONE_UNTRACED\)"
bench "duet: clone parent untraced" "$TMP/du4.json" --program './esc2' -a system,mimalloc --duet
all_unverified "duet: clone(CLONE_PARENT|CLONE_UNTRACED): unverified" \
	"$TMP/du4.json" "/usr/bin/sort \(pid [0-9]+\) escaped process tracking"
ALLOCAB_TEST_PTRACE_REFUSED=1 bench "refused" "$TMP/u5.json" --program './untraced 30000' \
	-a system,mimalloc
all_unverified "without ptrace the connector's exec still needs a probe report" "$TMP/u5.json" \
	"$W/ev \(pid [0-9]+\) sent no probe report"
timeout -s KILL "$KILL_AFTER" "$A" bench --program './untraced 3000' -a system,mimalloc --rounds 1 \
	--warmup 0 -o "$TMP/u6.json" >"$TMP/u6.out" 2>&1
grep -q "no verified successful run: unverified: .*escaped process tracking" "$TMP/u6.out" &&
	ok "bench names the escape on stderr" || notok "bench stderr" "$(tail -c 300 "$TMP/u6.out")"

# ---- without the connector: verified on ptrace's evidence, and every reader is told ----
ALLOCAB_TEST_NO_CONNECTOR=1 bench "no connector" "$TMP/n.json" --program './untraced 3000' \
	-a system,mimalloc
jeq "no connector: config.containment.mechanism" "$TMP/n.json" config.containment.mechanism cgroup
case $("$JGET" "$TMP/n.json" config.process_tracking) in
"ptrace, escapes not excluded (proc connector: EPERM (test hook))") ok "no connector: config.process_tracking says escapes are not excluded" ;;
*) notok "no connector: process_tracking" "$("$JGET" "$TMP/n.json" config.process_tracking)" ;;
esac
jeq "no connector: the run says escapes_excluded false" "$TMP/n.json" \
	rounds.0.runs.0.containment.escapes_excluded false
"$A" compare "$TMP/n.json" >"$TMP/cmp" 2>&1
grep -q "WARNING: .*process tracking: ptrace, escapes not excluded" "$TMP/cmp" &&
	ok "no connector: compare warns" || notok "no connector: compare" "$(head -c 300 "$TMP/cmp")"
ALLOCAB_TEST_NO_CGROUP=1 ALLOCAB_TEST_NO_CONNECTOR=1 bench "none" "$TMP/n2.json" \
	--program './ev 1000' -a system,mimalloc
jeq "no cgroup, no connector: mechanism none" "$TMP/n2.json" config.containment.mechanism none
jeq "no cgroup: no cgroup_cpu" "$TMP/n2.json" rounds.0.runs.0.containment.cgroup_cpu null

# ---- daemon-server: a double-forked daemon is killed with its run and serves no later run ----
rm -f srv.sock server.log
timeout -s KILL "$KILL_AFTER" "$A" bench --program "$W/daemon" -a system,mimalloc --rounds 2 \
	--warmup 1 --quiet -o "$TMP/d.json" >"$TMP/out" 2>"$TMP/err"
echo $? >"$TMP/rc"
case $(rc) in 0 | 1) ok "daemon: the bench ends (rc $(rc))" ;; *) notok "daemon: rc" "$(rc): $(head -c 300 "$TMP/err")" ;; esac
jeq "daemon: the run that started it left it behind" "$TMP/d.json" \
	rounds.0.runs.0.containment.left_behind 1
left=$("$JGET" "$TMP/d.json" rounds.0.runs.0.containment.left_behind_pids.0)
alive=0
for r in 0 1 2; do
	for i in 0 1; do
		p=$("$JGET" "$TMP/d.json" "rounds.$r.runs.$i.containment.left_behind_pids.0" 2>/dev/null)
		# a killed daemon may stay a zombie until its new parent (init) reaps it
		[[ $p =~ ^[0-9]+$ ]] && [ -e "/proc/$p/stat" ] &&
			[ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ] && alive=$((alive + 1))
	done
done
[[ $left =~ ^[0-9]+$ ]] && [ "$alive" = 0 ] && ok "daemon: no daemon of the bench is still running" ||
	notok "daemon: still running" "$alive alive (first pid '$left')"
[ ! -e server.log ] && ok "daemon: the daemon never served a run (no server.log)" ||
	notok "daemon served" "$(cat server.log)"
# A run is verified when it did its own work; one whose daemon was killed in the middle of its
# exec (before the probe's first record) is unverified, as any image that never reported.
n_ok=$(reasons_all "$TMP/d.json" | grep -c ' ok ')
n_bad=$(reasons_all "$TMP/d.json" | grep -Evc ' ok | unverified (/proc/self/exe|'"$W"'/daemon) \(pid [0-9]+\) sent no probe report')
[ "$n_ok" -ge 1 ] && [ "$n_bad" = 0 ] &&
	ok "daemon: each run did its own work on its arm: verified ($n_ok of 6), or its daemon's killed image unproven" ||
	notok "daemon: runs" "$(reasons_all "$TMP/d.json")"

rm -f srv.sock server.log
timeout -s KILL "$KILL_AFTER" "$A" bench --program "$W/daemon" -a system,mimalloc --rounds 2 \
	--warmup 1 --duet --quiet -o "$TMP/dd.json" >"$TMP/out" 2>"$TMP/err"
echo $? >"$TMP/rc"
case $(rc) in 0 | 1) ok "duet: daemon: the bench ends (rc $(rc))" ;; *) notok "duet: daemon: rc" "$(rc): $(head -c 300 "$TMP/err")" ;; esac
[ ! -e server.log ] && ok "duet: daemon: the daemon never served a run (no server.log)" ||
	notok "duet: daemon served" "$(cat server.log)"
[ "$("$JGET" "$TMP/dd.json" rounds.0.runs.0.containment.left_behind)$("$JGET" "$TMP/dd.json" rounds.0.runs.1.containment.left_behind)" = 11 ] &&
	! pgrep -f "^$W/daemon" >/dev/null && ok "duet: daemon: each run of the first round left its daemon behind, and it was killed" ||
	notok "duet: daemon: left behind" "$("$JGET" "$TMP/dd.json" rounds.0.runs.0.containment)"

# ---- a process that moves itself out of the run's cgroup (root can) ----
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
bench "mover" "$TMP/mv.json" --program "./mover $mnt${own%/}/cgroup.procs" -a system,mimalloc
all_unverified "a process that left the run's cgroup: killed, unverified" "$TMP/mv.json" \
	"1 process of the run left its cgroup \(killed at the end of the run\)"
[ -z "$(ps -eo stat,args | awk '$1 !~ /^Z/ && $2 == "./mover"')" ] &&
	ok "the process that left the cgroup is not running" || notok "mover still running" "$(ps -eo pid,stat,args | grep '[.]/mover')"

# ---- dlopen-deepbind: a second allocator in a process ----
bench "deepbind" "$TMP/t.json" --program "$W/deeptc 30000" -a system,mimalloc
all_unverified "RTLD_DEEPBIND library linked to tcmalloc: unverified in both arms" "$TMP/t.json" \
	"second allocator loaded: libtcmalloc_minimal.so.4[.0-9]* in $W/deeptc \(pid [0-9]+\)"

# ---- preload-mislabel ----
expect_status "--preload jemalloc=libmimalloc: refused with exit 2" 2 "$A" bench \
	--program './ev 1000' --preload jemalloc=/usr/lib/x86_64-linux-gnu/libmimalloc.so.2 \
	-a system,jemalloc --rounds 1 --warmup 0 -o "$TMP/m.json"
expect_err "--preload jemalloc=libmimalloc: one line naming the library's allocator" \
	"preload jemalloc=.*libmimalloc.so.2: the library is mimalloc, not jemalloc"
[ ! -e "$TMP/m.json" ] && ok "--preload mislabel: no results file" || notok "mislabel" "file written"

# ---- config-exit-unchecked ----
bench "config _exit" "$TMP/x.json" --program 'MALLOC_CONF=narenas:1 ./evx 10000 _exit' \
	-a system --arm je4=jemalloc:narenas=4
case $(reasons "$TMP/x.json" | grep '^je4 ') in
"je4 unverified configuration not in force: narenas=4 read back 1 in evx (pid "*) ok "_exit: the probe reads the configuration back, found not in force" ;;
*) notok "_exit read-back" "$(reasons "$TMP/x.json")" ;;
esac
bench "config raw exit" "$TMP/x2.json" --program './rawexit' -a system --arm je4=jemalloc:narenas=4
case $(reasons "$TMP/x2.json" | grep '^je4 ') in
"je4 unverified configuration unchecked: $W/rawexit (pid "*") ended without a read-back") ok "exit system call: configuration unchecked, unverified" ;;
*) notok "raw exit unchecked" "$(reasons "$TMP/x2.json")" ;;
esac
[ "$(rc)" = 1 ] && ok "exit system call: bench rc 1 (no verified run of je4)" || notok "raw exit rc" "$(rc)"
bench "config ok" "$TMP/x3.json" --program './evx 10000 _exit' -a system --arm je4=jemalloc:narenas=4
[ "$(reasons "$TMP/x3.json" | grep -c ' ok ')" = 2 ] &&
	ok "_exit with the setting in force: verified" || notok "_exit in force" "$(reasons "$TMP/x3.json")"

# ---- forged-probe-record ----
bench "forge" "$TMP/f.json" --program "$W/forge" -a system,mimalloc
all_unverified "a start record written before the exec is not the image's" "$TMP/f.json" \
	"/usr/bin/sort \(pid [0-9]+\) sent no probe report"
bench "flood" "$TMP/f2.json" --program "/usr/bin/python3 flood.py" -a system,mimalloc
all_unverified "records of pids the run never started: unverified" "$TMP/f2.json" \
	"[0-9]+ probe records name processes the run did not start \(pid 100000 first\)"

# ---- pidns-false-unverified ----
if unshare -fp true 2>/dev/null; then
	bench "pidns" "$TMP/p.json" --program 'unshare -fp ./pidns.sh' -a system,mimalloc
	[ "$(rc)" = 0 ] && [ "$(reasons "$TMP/p.json" | grep -c ' ok ')" = 2 ] &&
		grep -q '"pid":2,' pidns_records.txt &&
		ok "a PID namespace: the images reported with namespace pids, verified" ||
		notok "pidns" "rc $(rc): $(reasons "$TMP/p.json")"
else
	skip pidns "unshare -fp is not permitted here"
fi

# ---- probe-file-replaced: never an unbounded read or a hang, nothing left in TMPDIR ----
mkdir -p "$TMP/tmpdir" "$TMP/keep"
echo kept >"$TMP/keep/file"
for c in 'ln -s /dev/zero "$ALLOCAB_PROBE_FILE"|a symbolic link' \
	'mkfifo "$ALLOCAB_PROBE_FILE"|a FIFO' 'mknod "$ALLOCAB_PROBE_FILE" c 1 5|a device' \
	'mkdir -p "$ALLOCAB_PROBE_FILE/d"; ln -s '"$TMP/keep"' "$ALLOCAB_PROBE_FILE/d/l"; head -c 1M /dev/zero >"$ALLOCAB_PROBE_FILE/d/f"|a directory'; do
	cmd=${c%|*}
	what=${c##*|}
	TMPDIR=$TMP/tmpdir bench "replaced by $what" "$TMP/z.json" \
		--program "rm -f \"\$ALLOCAB_PROBE_FILE\"; $cmd; true" -a system,mimalloc --timeout 5
	all_unverified "record file replaced by $what: unverified, no hang" "$TMP/z.json" \
		"the program replaced its probe record file \(now $what\)"
done
TMPDIR=$TMP/tmpdir bench "leftovers" "$TMP/z2.json" -a system,mimalloc --program \
	'd=$(dirname "$ALLOCAB_PROBE_FILE"); mkfifo "$d/fifo"; ln -s '"$TMP/keep"' "$d/link"; mkdir -p "$d/x/y"; true'
[ -z "$(ls -A "$TMP/tmpdir")" ] && ok "temporary directories removed whatever the programs left" ||
	notok "leftovers" "$(ls -AR "$TMP/tmpdir" | head -c 300)"
[ "$(cat "$TMP/keep/file")" = kept ] && ok "nothing outside the probe directory destroyed" ||
	notok "outside destroyed" "keep/file gone"

# ---- no cgroup of a run is left ----
left=""
while read -r p; do
	left+=$(find "$mnt${own%/}" -maxdepth 1 -name "allocab-run.$p.*" 2>/dev/null | head -1)
done <"$TMP/bench.pids"
[ -s "$TMP/bench.pids" ] && [ -z "$left" ] && ok "every run's cgroup was removed" || notok "cgroups left" "${left:-no bench ran}"

# ---- a program that uses ptrace itself (docs/programs.md) ----
if command -v strace >/dev/null; then
	bench "strace" "$TMP/s.json" --program 'strace -f -o /dev/null ./ev 1000' -a system,mimalloc
	[ "$(rc)" = 1 ] && [ "$(reasons "$TMP/s.json" | grep -c ' ok ')" = 0 ] &&
		ok "strace inside a tracked run: no run succeeds, the bench fails (rc 1)" ||
		notok "strace" "rc $(rc): $(reasons "$TMP/s.json")"
else
	skip strace "not installed"
fi
exit $t_fail
