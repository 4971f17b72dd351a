#!/usr/bin/env bash
# bench.sh - what `make bench` runs: the default bench (every allocator, every workload) within
# BENCH_BUDGET seconds, the comparison table on stdout, and a markdown report beside the results:
# results/<stamp>.json, results/latest.json (a copy) and results/<stamp>.md.
# Usage: scripts/bench.sh [ALLOCAB-BENCH-OPTIONS...] (added to the bench, e.g. --scale small)
# Environment: BUILD (default build), BENCH_BUDGET (seconds, default 270), RESULTS (default results).
set -u
build=${BUILD:-build}
results=${RESULTS:-results}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
json=$results/$stamp.json

mkdir -p "$results" || exit 1
"$build/allocab" bench --budget "${BENCH_BUDGET:-270}" -o "$json" "$@"
status=$?
[ -f "$json" ] || exit "$status"
cp "$json" "$results/.latest.json.tmp" && mv "$results/.latest.json.tmp" "$results/latest.json"
[ "$status" -eq 0 ] || exit "$status"
"$build/allocab" compare "$json" || exit $?
"$build/allocab" compare "$json" --format markdown -o "$results/$stamp.md" || exit $?
echo "allocab: bench: report in $results/$stamp.md" >&2
