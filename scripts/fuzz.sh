#!/usr/bin/env bash
# fuzz.sh - make fuzz: runs each reader's libFuzzer target for SECONDS, starting from its committed
# corpus (tests/fuzz/corpus/NAME), keeping new inputs in BUILD/fuzz/corpus-NAME and crashes in
# BUILD/fuzz/crash-NAME-*. Usage: scripts/fuzz.sh BUILD SECONDS NAME...
# A crash: minimise it (BUILD/fuzz/fuzz-NAME -minimize_crash=1 CRASH), fix the reader, and commit
# the input to tests/fuzz/corpus/NAME so that `make test` replays it from then on.
set -u
build=$1 seconds=$2
shift 2
status=0
for t in "$@"; do
	work=$build/fuzz/corpus-$t
	mkdir -p "$work"
	echo "fuzz: $t for ${seconds}s (corpus tests/fuzz/corpus/$t, new inputs in $work)"
	"$build/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$build/fuzz/crash-$t-" \
		"$work" "tests/fuzz/corpus/$t" >"$build/fuzz/log-$t" 2>&1
	rc=$?
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$build/fuzz/log-$t" |
		sed "s/^/fuzz: $t: /"
	if [ $rc -ne 0 ]; then
		echo "fuzz: $t FAILED (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY' "$build/fuzz/log-$t")"
		ls "$build/fuzz/crash-$t-"* 2>/dev/null | sed 's/^/fuzz: input: /'
		status=1
	fi
done
exit $status
