#!/usr/bin/env bash
# e2e_record.sh - `allocab record` and `allocab trace info` end to end: a program with a known
# allocation stream on several threads (tests/tools/alloc_threads.c) is recorded and counted exactly,
# a Debian program (sort) is recorded, and corrupt, truncated and hostile traces are refused
# with one line and exit 2.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
JGET=$BUILD/tests/jget
A=$BUILD/allocab
PROG=$BUILD/tests/alloc_threads

if [ ! -x "$A" ] || [ ! -x "$PROG" ] || [ ! -f "$BUILD/liballocab-record.so" ]; then
	notok "allocab, alloc_threads and the recorder exist" "build them first"
	exit 1
fi

# --- a known stream: 3 workers x (100 malloc, 50 calloc, 25 realloc, 25 posix_memalign) -------
T=3 N=100 M=50
expect_status "record alloc_threads exits with its status (0)" 0 "$A" record -o "$TMP/t.trace" -- "$PROG" $T $N $M
expect_status "trace info --json exits 0" 0 "$A" trace info --json "$TMP/t.trace"
cp "$TMP/out" "$TMP/t.json"
j() { "$JGET" "$TMP/t.json" "$1"; }
want_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else notok "$1" "got $2, want $3"; fi; }
want_eq "processes" "$(j processes)" 1
want_eq "threads" "$(j process.0.threads)" $((T + 1))
# main: the objs and thread arrays and M mallocs; workers: N each
want_eq "malloc calls" "$(j process.0.ops.malloc)" $((T * N + M + 2))
want_eq "realloc calls" "$(j process.0.ops.realloc)" $((T * N / 4))
want_eq "posix_memalign calls" "$(j process.0.ops.posix_memalign)" $((T * N / 4))
# glibc's pthread_create callocs each thread's TLS block: at least the program's own
calloc=$(j process.0.ops.calloc)
if [ "$calloc" -ge $((T * N / 2)) ] && [ "$calloc" -le $((T * N / 2 + 2 * T)) ]; then
	ok "calloc calls: the program's $((T * N / 2)) and the thread libraries' ($calloc)"
else
	notok "calloc calls" "got $calloc, want $((T * N / 2)) + up to $((2 * T))"
fi
want_eq "cross-thread frees" "$(j process.0.cross_thread_releases)" $((T * (N + N / 2 + N / 4)))
want_eq "frees of unknown objects" "$(j process.0.unmatched_releases)" 0
want_eq "process complete" "$(j process.0.complete)" true
want_eq "recorder foreign frees" "$(j process.0.recorder.foreign_frees)" 0
want_eq "recorder dropped events" "$(j process.0.recorder.dropped_events)" 0
expect_status "trace info (text) exits 0" 0 "$A" trace info "$TMP/t.trace"
if grep -q 'cross-thread frees' "$TMP/out"; then ok "text report names cross-thread frees"; else notok "text report" "$(head -c 300 "$TMP/out")"; fi

# --- exit status, fork and exec ----------------------------------------------------------------
expect_status "record returns the command's exit status" 3 "$A" record -o "$TMP/s.trace" -- sh -c 'exit 3'
expect_status "record of a missing command exits 127" 127 "$A" record -o "$TMP/m.trace" -- /nonexistent/prog
expect_err "record of a missing command: one line" "^allocab: record: /nonexistent/prog: No such file"
expect_status "record: fork and exec give one stream per process" 0 "$A" record -o "$TMP/f.trace" -- sh -c "$PROG 2 8 4; $PROG 1 8 4"
"$A" trace info --json "$TMP/f.trace" >"$TMP/f.json" 2>/dev/null
np=$("$JGET" "$TMP/f.json" processes)
if [ "${np:-0}" -ge 3 ]; then ok "sh + 2 children recorded as $np process streams"; else notok "process streams" "got ${np:-none}"; fi

# --- a killed process leaves a readable trace: its stream up to its last block, no end block -------
expect_status "record of a shell killed by SIGKILL exits 137" 137 "$A" record -o "$TMP/k.trace" -- sh -c "$PROG 1 8 4; kill -KILL \$\$"
expect_status "trace info reads the killed run's trace" 0 "$A" trace info --json "$TMP/k.trace"
cp "$TMP/out" "$TMP/k.json"
nk=$("$JGET" "$TMP/k.json" processes)
done_k=0
for ((i = 1; i < ${nk:-0}; i++)); do
	[ "$("$JGET" "$TMP/k.json" "process.$i.complete")" = true ] && done_k=1
done
if [ "$("$JGET" "$TMP/k.json" process.0.complete)" = false ] && [ "$done_k" = 1 ]; then
	ok "the killed shell is marked incomplete, its finished child complete"
else
	notok "killed process" "$(head -c 300 "$TMP/k.json")"
fi

# --- a real Debian program -----------------------------------------------------------------------
seq 1 20000 | sort -R >"$TMP/in.txt" 2>/dev/null || seq 1 20000 >"$TMP/in.txt"
expect_status "record sort" 0 "$A" record -o "$TMP/sort.trace" -- sort -n "$TMP/in.txt" -o "$TMP/sorted.txt"
if cmp -s "$TMP/sorted.txt" <(seq 1 20000); then ok "sort output unchanged under the recorder"; else notok "sort output" "differs"; fi
expect_status "trace info sort.trace" 0 "$A" trace info --json "$TMP/sort.trace"

# --- replay under every driver: same checksum, cross-thread frees wait, never deadlock ---------
sum0=""
for d in "$BUILD"/allocab-system "$BUILD"/allocab-mimalloc "$BUILD"/allocab-jemalloc "$BUILD"/allocab-tcmalloc; do
	b=${d##*/allocab-}
	expect_status "$b: replay alloc_threads (2 reps, every touch mode)" 0 timeout 60 "$d" run replay --param trace="$TMP/t.trace" --reps 2
	sum=$("$JGET" "$TMP/out" checksum 2>/dev/null)
	[ -z "$sum0" ] && sum0=$sum
	if [ -n "$sum" ] && [ "$sum" = "$sum0" ]; then ok "$b: replay checksum $sum"; else notok "$b: replay checksum" "got '$sum', want '$sum0'"; fi
	expect_status "$b: replay sort with touch=3" 0 timeout 60 "$d" run replay --param trace="$TMP/sort.trace" --param touch=3
	cp "$TMP/out" "$TMP/sort.$b.json"
done
for m in 0 1; do
	expect_status "replay touch=$m exits 0" 0 timeout 60 "$BUILD/allocab-system" run replay --param trace="$TMP/t.trace" --param touch=$m
done
expect_status "replay with gaps=100 exits 0" 0 timeout 60 "$BUILD/allocab-system" run replay --param trace="$TMP/t.trace" --param gaps=100
if [ "$("$JGET" "$TMP/out" workload.params.trace)" = "$TMP/t.trace" ]; then ok "run record names the trace (a string parameter)"; else notok "string parameter in the record" "$("$JGET" "$TMP/out" workload.params)"; fi
if [ "$("$JGET" "$TMP/sort.system.json" checksum)" = "$("$JGET" "$TMP/sort.tcmalloc.json" checksum)" ]; then ok "sort replay: same checksum under system and tcmalloc"; else notok "sort replay checksum" "differs"; fi
expect_status "replay pid of another process: exit 2" 2 "$BUILD/allocab-system" run replay --param trace="$TMP/t.trace" --param pid=1
expect_err "replay pid of another process: one line" "no process with pid 1"
expect_status "replay without a trace: exit 2" 2 "$BUILD/allocab-system" run replay
expect_err "replay without a trace: one line" "give the trace"
expect_status "bench -w replay --param trace=FILE" 0 timeout 120 "$A" bench -a system,mimalloc -w replay --param trace="$TMP/t.trace" --rounds 2 -o "$TMP/bench.json"
if [ "$("$JGET" "$TMP/bench.json" rounds.#)" = 3 ]; then ok "bench ran replay in 2 rounds (+1 warm-up)"; else notok "bench replay rounds" "$("$JGET" "$TMP/bench.json" rounds.#)"; fi
# The records name the process replayed, and compare says what the replay is.
pid=$("$JGET" "$TMP/bench.json" rounds.1.runs.0.record.workload.input.pid)
dur=$("$JGET" "$TMP/bench.json" rounds.1.runs.0.record.workload.input.duration_ns)
exe=$("$JGET" "$TMP/bench.json" rounds.1.runs.0.record.workload.input.exe)
if [ "${pid:-0}" -gt 0 ] && [ "${dur:-0}" -gt 0 ] && [ -n "$exe" ] && [ "$exe" != null ]; then
	ok "replay records name the recorded process (pid $pid, $exe, $dur ns)"
else
	notok "replay records name the recorded process" "pid $pid, exe $exe, duration $dur"
fi
expect_status "compare the replay bench" 0 "$A" compare "$TMP/bench.json"
grep -q "^replay (workload replay): process [0-9]* (pid $pid, " "$TMP/out" && grep -q "of trace $TMP/t.trace" "$TMP/out" &&
	grep -q '^replay: the allocation stream only' "$TMP/out" && grep -q '^predicted speedup of the whole program' "$TMP/out" &&
	ok "compare names the trace and the process replayed, the caveat and the prediction" ||
	notok "compare of a replay" "$(grep -i 'replay\|predicted' "$TMP/out" | head -5)"

bad() {
	expect_status "$1: exit 2" 2 "$A" trace info "$2"
	expect_err "$1: one line" "^allocab: trace: .*$3"
}
# --- bad input: one line, exit 2 -------------------------------------------------------------------
sz=$(stat -c %s "$TMP/t.trace")
head -c $((sz - 7)) "$TMP/t.trace" >"$TMP/trunc1"
bad "truncated in the trailer" "$TMP/trunc1" "truncated"
head -c $((sz / 2)) "$TMP/t.trace" >"$TMP/trunc2"
bad "truncated mid-block" "$TMP/trunc2" "truncated"
expect_status "replay of a truncated trace: exit 2" 2 "$BUILD/allocab-system" run replay --param trace="$TMP/trunc2"
expect_err "replay of a truncated trace: one line" "truncated"
head -c 16 "$TMP/t.trace" >"$TMP/trunc3"
bad "header only" "$TMP/trunc3" "truncated"
cp "$TMP/t.trace" "$TMP/flip"
printf '\x55' | dd of="$TMP/flip" bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
bad "a flipped byte" "$TMP/flip" "corrupt"
: >"$TMP/empty"
bad "empty file" "$TMP/empty" "not an allocab trace"
head -c 4096 /dev/urandom >"$TMP/random"
bad "random bytes" "$TMP/random" "not an allocab trace"
{ printf 'ALLOCTRC\x09\x00\x00\x00\x00\x00\x00\x00'; } >"$TMP/v9"
bad "future version" "$TMP/v9" "version 9"
# a block header that declares a 4 GiB payload: refused before anything is allocated
{ printf 'ALLOCTRC\x01\x00\x00\x00\x00\x00\x00\x00'; head -c 64 /dev/zero; } >"$TMP/hdr0"
bad "zeroed block header" "$TMP/hdr0" "corrupt"
bad "a directory" "$TMP" "not a regular file"
bad "a missing file" "$TMP/nope" "No such file"
expect_status "trace without subcommand: exit 2" 2 "$A" trace
expect_status "record without a command: exit 2" 2 "$A" record -o "$TMP/x.trace"
expect_status "record with an unknown option: exit 2" 2 "$A" record --bogus -- true
exit $t_fail
