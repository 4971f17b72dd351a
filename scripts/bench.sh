#!/usr/bin/env bash
# bench.sh - what `make bench` runs: the default bench (every allocator, every workload) within
# BENCH_BUDGET seconds, the answer on stdout (`compare --format brief`: the summary, the primary
# comparisons and the verdicts on the claims of docs/claims/mimalloc-ml.json), and the reports
# beside the results: results/<stamp>.json, results/latest.json (a copy), results/<stamp>.txt (the
# full table: method, both families, per-arm figures, every warning), results/<stamp>.md (which
# links the chart), results/<stamp>.html (charts, table, claims) and results/<stamp>.svg (the
# forest plot).
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
claims=$(realpath --relative-to=. "$(dirname "$0")/../docs/claims/mimalloc-ml.json")
"$build/allocab" compare "$json" --claims "$claims" --format brief || exit $?

# again: runs a further compare of the same file, whose warnings were printed above: its stderr
# is shown only when it fails.
again() {
	local err rc
	err=$("$build/allocab" compare "$json" "$@" 2>&1 >/dev/null) && return 0
	rc=$?
	printf '%s\n' "$err" >&2
	return "$rc"
}
again --format table --claims "$claims" -o "$results/$stamp.txt" || exit $?
again --format svg -o "$results/$stamp.svg" || exit $?
again --format html --claims "$claims" -o "$results/$stamp.html" || exit $?
again --format markdown --claims "$claims" -o "$results/.$stamp.md.tmp" || exit $?
printf '\n![Speedup of each allocator over the baseline, with intervals](%s.svg)\n' "$stamp" \
	>>"$results/.$stamp.md.tmp" && mv "$results/.$stamp.md.tmp" "$results/$stamp.md" || exit 1
echo "allocab: bench: the full table in $results/$stamp.txt; reports in $results/$stamp.md and $results/$stamp.html" >&2
