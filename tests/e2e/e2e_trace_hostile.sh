#!/usr/bin/env bash
# e2e_trace_hostile.sh - hostile traces against `allocab trace info` and the replay workload, one
# reproducer file of tests/fixtures/hostile/ each (tests/fixtures/hostile/README.md): no crash, no hang, no
# unbounded memory or time; bad input gets one line and exit 2, a failed replay one line and
# exit 1.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
JGET=$BUILD/tests/jget
A=$BUILD/allocab
S=$BUILD/allocab-system
H=tests/fixtures/hostile

# replay NAME WANT ARGS...: `allocab-system run replay ARGS` exits WANT within 20 s.
replay() {
	local name=$1 want=$2
	shift 2
	expect_status "$name: replay exits $want" "$want" timeout 20 "$S" run replay --reps 1 --out /dev/null "$@"
}
# info NAME WANT FILE: `allocab trace info --json FILE` exits WANT within 20 s.
info() { expect_status "$1: trace info exits $2" "$2" timeout 20 "$A" trace info --json "$3"; }

# --- thread index 0xffffffff: the end of the old thread list, read as no thread at all -----------
replay "thread_max.trace" 0 --param trace=$H/thread_max.trace
info "thread_max.trace" 0 $H/thread_max.trace
[ "$("$JGET" "$TMP/out" process.0.threads)" = 1 ] && ok "thread_max.trace: 1 thread" || notok "thread_max.trace threads" "$(head -c 200 "$TMP/out")"
info "thread_max_then0.trace" 0 $H/thread_max_then0.trace
[ "$("$JGET" "$TMP/out" process.0.threads)" = 2 ] && ok "thread_max_then0.trace: threads 0xffffffff and 0 stay 2 threads" || notok "thread_max_then0.trace threads" "$(head -c 200 "$TMP/out")"
replay "thread_max_then0.trace" 0 --param trace=$H/thread_max_then0.trace

# --- a failed thread never leaves the others waiting --------------------------------------------
replay "oom_then_wait.trace (a 2^64-64 byte malloc)" 2 --param trace=$H/oom_then_wait.trace
expect_err "oom_then_wait.trace: one line" "corrupt: a malloc of 18446744073709551552 bytes succeeded, more than any address space holds"
( ulimit -v 600000 && exec timeout 20 "$S" run replay --reps 1 --out /dev/null --param trace=$H/oom_then_wait_1g.trace ) >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 1 ]; then ok "oom_then_wait_1g.trace under ulimit -v: the failed 1 GiB malloc ends the replay (exit 1), thread 1 does not wait forever"; else notok "oom_then_wait_1g.trace" "exit $rc: $(cat "$TMP/err")"; fi
expect_err "oom_then_wait_1g.trace: one line" "^allocab-system: replay: out of memory allocating 1073741824 bytes for a malloc$"
replay "threads400_wait.trace (401 threads)" 0 --param trace=$H/threads400_wait.trace
( ulimit -v 400000 && exec timeout 20 "$S" run replay --reps 1 --out /dev/null --param trace=$H/threads400_wait.trace ) >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 1 ]; then ok "threads400_wait.trace under ulimit -v: a thread that cannot start ends the replay (exit 1)"; else notok "threads400_wait.trace under ulimit -v" "exit $rc: $(cat "$TMP/err")"; fi
expect_err "threads400_wait.trace: one line" "^allocab-system: replay: cannot start replay thread [0-9]+ of 401: "

# --- a FIFO is refused before a byte is read (it would block) ----------------------------------
mkfifo "$TMP/p.trace"
expect_status "a FIFO as a trace: trace info exits 2 at once" 2 timeout 5 "$A" trace info "$TMP/p.trace"
expect_err "a FIFO as a trace: one line" "^allocab: trace: .*p.trace: a FIFO, not a regular file: refused$"
replay "a FIFO as a trace" 2 --param trace="$TMP/p.trace"
expect_err "a FIFO as a replay's trace: one line" "a FIFO, not a regular file: refused$"

# --- zstd bombs: refused at their first block, before it is decompressed -------------------------
for b in zstd_bomb_1proc_14KB zstd_bomb_3proc_41KB; do
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -q -f '%M' -o "$TMP/rss" timeout 10 "$A" trace info $H/$b.trace >"$TMP/out" 2>"$TMP/err"
	else
		echo 0 >"$TMP/rss"
		timeout 10 "$A" trace info $H/$b.trace >"$TMP/out" 2>"$TMP/err"
	fi
	rc=$?
	if [ $rc = 2 ] && [ "$(cat "$TMP/rss")" -lt 100000 ]; then ok "$b.trace: trace info exits 2 in under 100 MB"; else notok "$b.trace: trace info" "exit $rc, max RSS $(cat "$TMP/rss") KiB"; fi
	grep -q 'more than 64x (a compression bomb' "$TMP/err" && ok "$b.trace: named a compression bomb" || notok "$b.trace message" "$(cat "$TMP/err")"
	replay "$b.trace" 2 --param trace=$H/$b.trace
done

# --- 100,000 threads: trace info is near-linear; a replay refuses more than 1024 threads --------
if python3 $H/gen_threads_trace.py 100000 "$TMP/t100k.trace" 2>/dev/null; then
	info "gen_threads_trace.py 100000 (100k threads)" 0 "$TMP/t100k.trace"
	[ "$("$JGET" "$TMP/out" process.0.threads)" = 100000 ] && ok "100k threads counted" || notok "100k threads" "$(head -c 200 "$TMP/out")"
	replay "100k threads" 2 --param trace="$TMP/t100k.trace"
	expect_err "100k threads: one line" "100000 threads, more than the 1024 a replay starts$"
else
	skip "gen_threads_trace.py" "python3 is missing"
fi

# --- sizes near 2^64 cannot wrap the footprint: refused as corrupt -------------------------------
for f in size_max size_wrap2; do
	replay "$f.trace" 2 --param trace=$H/$f.trace
	expect_err "$f.trace: replay says why" "more than any address space holds \(2\^56\)$"
	info "$f.trace" 2 $H/$f.trace
	if grep -q '0 bytes requested' "$TMP/out"; then notok "$f.trace" "trace info printed 0 bytes requested"; else ok "$f.trace: trace info says why, not '0 bytes requested'"; fi
done

# --- 50 busy threads' gaps share the CPUs: the estimate is their sum over the CPUs -----------------
expect_status "spin50.trace gaps=100 on 1 CPU: refused at once" 2 timeout 20 taskset -c 0 "$S" run replay --reps 1 --out /dev/null --param trace=$H/spin50.trace --param gaps=100
expect_err "spin50.trace: the spun time is 50 threads' gaps on 1 CPU" "gaps=100 spins 4\.5e\+04 s \(50 threads on 1 CPU\)"

# --- aligned calls whose alignment no allocator must accept: said so, not "out of memory" ----------
replay "memalign0.trace (posix_memalign, alignment 0)" 2 --param trace=$H/memalign0.trace
expect_err "memalign0.trace: named" "thread 0 calls posix_memalign with alignment 0, not a power of two multiple of 8$"
replay "memalign3.trace (aligned_alloc, alignment 3)" 2 --param trace=$H/memalign3.trace
expect_err "memalign3.trace: named" "thread 0 calls aligned_alloc with alignment 3, not a power of two$"

# --- names that are not UTF-8 or hold control bytes are printed as valid text --------------------
info "exe_evil.trace" 0 $H/exe_evil.trace
if python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' "$TMP/out" 2>/dev/null; then ok "exe_evil.trace: trace info --json is valid UTF-8 JSON"; else notok "exe_evil.trace" "invalid JSON or UTF-8"; fi
# --- every small crafted trace of gen1.py: the status trace info and a replay give it, one line --
G=$TMP/gen1
python3 $H/gen1.py "$G" >/dev/null 2>&1 || notok "gen1.py" "could not write the traces"
# name, trace info's status, replay's status
while read -r name want_info want_replay; do
	info "gen1 $name" "$want_info" "$G/$name.trace"
	[ "$want_info" = 0 ] || expect_err "gen1 $name: trace info's one line" "^allocab: trace: .*: corrupt: "
	replay "gen1 $name" "$want_replay" --param trace="$G/$name.trace"
	[ "$want_replay" = 0 ] || expect_err "gen1 $name: replay's one line" "^allocab-system: replay: "
done <<'TABLE'
valid 0 0
xthread 0 0
cycle 0 2
cycle3 0 2
selfwait 0 2
thread_max 0 0
thread_max_then0 0 0
size_max 2 2
size_2_63 2 2
size_wrap2 2 2
hugefail_wait 2 2
calloc_max 2 2
realloc_huge 2 2
unknown_free 0 0
double_alloc 2 2
double_free 0 2
align0 0 2
align3 0 2
align_2_30 0 0
align_2_31 2 2
count_lie 2 2
dup_pid 0 0
empty_bundle 0 2
end_badn 2 2
events_first 2 2
factor0 2 2
gaps 2 2
noevents 0 2
proc_badlen 2 2
realloc_after_free 0 2
realloc_self 0 2
trailing 2 2
TABLE
[ "$(ls "$G" | wc -l)" = 32 ] && ok "gen1.py: 32 traces, every one in the table" || notok "gen1.py traces" "$(ls "$G" | wc -l)"

exit $t_fail
