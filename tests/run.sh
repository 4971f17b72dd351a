#!/usr/bin/env bash
# run.sh - runs every unit test binary and every tests/e2e_*.sh, counts "ok"/"not ok" lines and ends
# with "N passed, N failed". Usage: tests/run.sh BUILD_DIR [UNIT_BINARY...]
set -u
build=${1:-build}
shift || true
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

run_one() {
	local name=$1
	shift
	echo "# $name"
	"$@" 2>&1 | tee -a "$log"
	local rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$log"; then
		echo "not ok - $name exited $rc without a failed check" | tee -a "$log"
	fi
	[ "$rc" -eq 0 ] || status=1
}

for bin in "$@"; do
	run_one "$bin" "$bin"
done
for t in tests/e2e_*.sh; do
	[ -e "$t" ] || continue
	run_one "$t" env BUILD="$build" bash "$t"
done

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
