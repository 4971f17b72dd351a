#!/usr/bin/env bash
# e2e_trace_same.sh - the trace's outputs stay byte for byte what they were (docs/trace-format.md):
# `allocab trace info` (text, --all and --json, exit status and stderr) on fixed traces (the
# committed corpus and traces tests/tools/mktrace.c writes), and `allocab record` of a fixed program
# (tests/tools/alloc_threads.c) followed by `trace info --json`, against the outputs in
# tests/fixtures/data/trace_same/ written by the build before the trace became one module. A recording also
# holds the C library's own allocations (pthread_create's TLS block), so the recorded part holds
# only with the C library named in tests/fixtures/data/trace_same/libc (else SKIP). The pid, parent pid,
# executable path, arguments, trace path and durations of a recording vary from run to run and
# are left out of its comparison. GOLDEN_WRITE=1 rewrites the expected outputs with this build.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
B=$(cd "$BUILD" && pwd)
A=$B/allocab
MK=$B/tests/mktrace
PROG=$B/tests/alloc_threads
G=$PWD/tests/fixtures/data/trace_same
CORPUS=$PWD/tests/fuzz/corpus/trace
write=${GOLDEN_WRITE:-0}

for x in "$A" "$MK" "$PROG"; do
	[ -x "$x" ] || { notok "$x exists" "build it first (make test builds it)"; exit 1; }
done

# same NAME FILE: FILE is byte for byte the expected output NAME.
same() {
	if [ "$write" = 1 ]; then
		cp "$2" "$G/$1"
	elif cmp -s "$2" "$G/$1"; then
		ok "$1: byte-identical"
	else
		notok "$1" "differs from tests/fixtures/data/trace_same/$1: $(diff "$G/$1" "$2" | head -c 300)"
	fi
}

# info NAME TRACE: trace info (text, --all, --json) of TRACE, run in its folder under its base
# name so that the path it prints is the same everywhere; status and stderr kept with stdout.
info() {
	local name=$1 dir base mode st
	dir=$(dirname "$2")
	base=$(basename "$2")
	for mode in text all json; do
		case $mode in
		text) (cd "$dir" && "$A" trace info "$base") >"$TMP/o" 2>"$TMP/e" ;;
		all) (cd "$dir" && "$A" trace info --all "$base") >"$TMP/o" 2>"$TMP/e" ;;
		json) (cd "$dir" && "$A" trace info --json "$base") >"$TMP/o" 2>"$TMP/e" ;;
		esac
		st=$?
		{ echo "exit $st"; echo "--- stderr"; cat "$TMP/e"; echo "--- stdout"; cat "$TMP/o"; } >"$TMP/r"
		same "$name.$mode" "$TMP/r"
	done
}

mkdir -p "$TMP/c"
for t in echo marks marks-overlap v2 torn magic-only; do
	cp "$CORPUS/$t.trace" "$TMP/c/$t.trace"
	info "$t" "$TMP/c/$t.trace"
done
cp "$CORPUS/raw-stream.ats" "$TMP/c/raw-stream.ats"
info raw-stream "$TMP/c/raw-stream.ats"
"$MK" "$TMP/c/pairs.trace" 300 48 1000
info mk-pairs "$TMP/c/pairs.trace"
"$MK" "$TMP/c/chain.trace" 40 100000 50 realloc marks=4
info mk-chain-marks "$TMP/c/chain.trace"

# --- record + trace info of a fixed program -----------------------------------------------------
libc=$(ldd --version 2>&1 | head -1)
if [ "$write" = 1 ]; then echo "$libc" >"$G/libc"; fi
if [ "$libc" != "$(cat "$G/libc" 2>/dev/null)" ]; then
	skip "record of alloc_threads: byte-identical" "C library '$libc', the expected output was recorded with '$(cat "$G/libc" 2>/dev/null)'"
else
	(cd "$TMP" && "$A" record -o r.trace -- "$PROG" 1 64 32) >"$TMP/o" 2>"$TMP/e"
	echo "exit $?" >"$TMP/r"
	sed -E 's|-> r.trace .*|-> r.trace|' "$TMP/e" >>"$TMP/r"
	cat "$TMP/o" >>"$TMP/r"
	same record.out "$TMP/r"
	(cd "$TMP" && "$A" trace info --json r.trace) >"$TMP/j" 2>&1
	python3 - "$TMP/j" >"$TMP/jn" 2>&1 <<'PY'
import json, sys
drop = {"pid", "ppid", "exe", "args", "duration_ns"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in drop}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
print(json.dumps(clean(json.load(open(sys.argv[1]))), indent=1, sort_keys=False))
PY
	same record.json "$TMP/jn"
fi
exit $t_fail
