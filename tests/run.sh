#!/usr/bin/env bash
# run.sh - runs the unit test binaries and every tests/e2e_*.sh, judges each on its own output and
# exit status, and ends with "N passed, N failed". Usage: tests/run.sh BUILD_DIR [UNIT_BINARY...]
#
# What is counted (every counted check is one line of this script's output that starts with
# "ok " or "not ok"; nothing else does, so `grep -c` on the log agrees with the last line):
# - A unit binary or an e2e script: its own "ok" and "not ok" lines, plus one failure of its own
#   when it prints no check at all, exits non-zero without a failed check, or is killed by a
#   signal (the checks after a crash never ran).
# - A sanitizer run, BUILD/SAN/PATH where BUILD/PATH is given too (e.g. build/asan/tests/test_x
#   beside build/tests/test_x): its checks are the plain run's again, so the run is one check of
#   its own, "SAN: NAME". It is clean when it exits 0, prints at least one check, no failed one
#   and no sanitizer report; otherwise its output follows behind "# ". A line per sanitizer,
#   "SAN: N of M binaries clean", precedes the last line. A binary under BUILD/SAN/ without a
#   plain twin (the fuzz corpus replays) is counted like a unit binary.
set -u
build=${1:-build}
shift || true
out=$(mktemp)
trap 'rm -f "$out"' EXIT
passed=0
failed=0
declare -A given=() san_runs=() san_clean=()
sans=()

# "exit status N", with the signal when the shell reports one (status above 128).
status_of() {
	local rc=$1
	printf 'exit status %s' "$rc"
	[ "$rc" -gt 128 ] && [ "$rc" -lt 193 ] || return 0
	printf ' (killed by SIG%s)' "$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
}

# Counts the checks of one program whose output is in $out and whose status is $2 ($1: its name).
count_checks() {
	local name=$1 rc=$2 ok bad
	ok=$(grep -c '^ok ' "$out")
	bad=$(grep -c '^not ok' "$out")
	passed=$((passed + ok))
	failed=$((failed + bad))
	if [ $((ok + bad)) -eq 0 ]; then
		echo "not ok - $name: no check printed, $(status_of "$rc")"
	elif [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		echo "not ok - $name: $(status_of "$rc") without a failed check"
	elif [ "$rc" -gt 128 ]; then
		echo "not ok - $name: $(status_of "$rc") after its failed checks; later checks did not run"
	else
		return 0
	fi
	failed=$((failed + 1))
}

run_counted() {
	local name=$1 rc
	shift
	echo "# $name"
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	count_checks "$name" "$rc"
}

# The reasons a sanitizer run in $out with status $1 is not clean, or "" if it is.
san_problems() {
	local rc=$1 ok bad why=()
	ok=$(grep -c '^ok ' "$out")
	bad=$(grep -c '^not ok' "$out")
	[ "$rc" -eq 0 ] || why+=("$(status_of "$rc")")
	[ "$bad" -eq 0 ] || why+=("$bad failed checks")
	[ $((ok + bad)) -gt 0 ] || why+=("no check printed")
	grep -qE '^==[0-9]+==ERROR: |^SUMMARY: [A-Za-z]*Sanitizer|WARNING: ThreadSanitizer|runtime error: ' \
		"$out" && why+=("a sanitizer report")
	local IFS=';'
	echo "${why[*]}" | sed 's/;/, /g'
}

run_sanitized() {
	local san=$1 bin=$2 name rc why
	name=$(basename "$bin")
	if [ -z "${san_runs[$san]+x}" ]; then
		sans+=("$san")
		san_runs[$san]=0
		san_clean[$san]=0
	fi
	san_runs[$san]=$((san_runs[$san] + 1))
	"$bin" >"$out" 2>&1
	rc=$?
	why=$(san_problems "$rc")
	if [ -z "$why" ]; then
		echo "ok - $san: $name ($(grep -c "^ok " "$out") checks, clean)"
		passed=$((passed + 1))
		san_clean[$san]=$((san_clean[$san] + 1))
	else
		echo "not ok - $san: $name: $why"
		sed 's/^/# /' "$out"
		failed=$((failed + 1))
	fi
}

for bin in "$@"; do
	given[$bin]=1
done
for bin in "$@"; do
	rel=${bin#"$build"/}
	san=${rel%%/*}
	if [ "$rel" != "$bin" ] && [ "$san" != "$rel" ] && [ -n "${given[$build/${rel#*/}]+x}" ]; then
		run_sanitized "$san" "$bin"
	else
		run_counted "$bin" "$bin"
	fi
done
for t in tests/e2e_*.sh; do
	[ -e "$t" ] || continue
	run_counted "$t" env BUILD="$build" bash "$t"
done

for san in "${sans[@]}"; do
	echo "$san: ${san_clean[$san]} of ${san_runs[$san]} binaries clean"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
