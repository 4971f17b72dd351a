#!/usr/bin/env bash
# run.sh - runs the unit test binaries and every tests/e2e/e2e_*.sh, judges each on its own output and
# exit status, and ends with "N passed, N failed, N skipped". Usage:
#   tests/run.sh BUILD_DIR [UNIT_BINARY...]
# Environment: TEST_JOBS (2), how many programs run at once; TEST_START (seconds since the
# epoch), when the run began, for the closing "took" line (make test sets it before building).
#
# What is counted (every counted check is one line of this script's output that starts with
# "ok ", "not ok" or "SKIP "; nothing else does, so `grep -c` on the log agrees with the last line):
# - A unit binary or an e2e script: its own "ok", "not ok" and "SKIP - name: reason" lines, plus
#   one failure of its own when it prints no check at all, exits non-zero without a failed check,
#   is killed by a signal (the checks after a crash never ran), or prints a skip as "ok" (a line
#   "ok ... # SKIP ..."; a skip is never a pass: tests/e2e/lib.sh's skip, tests/unit/check.h's SKIP).
# - A sanitizer run, BUILD/SAN/PATH where BUILD/PATH is given too (e.g. build/asan/tests/test_x
#   beside build/tests/test_x): its checks are the plain run's again, so the run is one check of
#   its own, "SAN: NAME". It is clean when it exits 0, prints at least one check, no failed one
#   and no sanitizer report; otherwise its output follows behind "# ". A line per sanitizer,
#   "SAN: N of M binaries clean", precedes the closing lines. A binary under BUILD/SAN/ without a
#   plain twin (the fuzz corpus replays) is counted like a unit binary.
# Every program runs TEST_JOBS at a time, the longest first by the seconds of the last run
# (BUILD/test-times, which each run writes; without it tests/times.txt, a copy of one), the e2e
# scripts each in its own scratch directory (tests/e2e/lib.sh); each one's output is printed
# whole when it ends. Every program's
# header line "# NAME (N s)" gives its seconds; the slowest are listed before the closing lines:
# "slowest: ...", "took: ...", then "N passed, N failed, N skipped" as the last line.
set -u
build=${1:-build}
shift || true
jobs=${TEST_JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=2
work=$(mktemp -d "${TMPDIR:-/tmp}/allocab-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
t0=${TEST_START:-$(date +%s)}
tests_t0=$(date +%s)
passed=0
failed=0
skipped=0
declare -A given=() san_runs=() san_clean=()
sans=()
times=()

now_ms() { date +%s%3N; }

# "N.N" seconds from milliseconds.
secs() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# "exit status N", with the signal when the shell reports one (status above 128).
status_of() {
	local rc=$1
	printf 'exit status %s' "$rc"
	[ "$rc" -gt 128 ] && [ "$rc" -lt 193 ] || return 0
	printf ' (killed by SIG%s)' "$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
}

# Counts the checks of one program whose output is in file $3 and whose status is $2 ($1: its name).
count_checks() {
	local name=$1 rc=$2 log=$3 ok bad sk okskip
	ok=$(grep -c '^ok ' "$log")
	bad=$(grep -c '^not ok' "$log")
	sk=$(grep -c '^SKIP ' "$log")
	okskip=$(grep -ciE '^ok .*# *skip' "$log")
	passed=$((passed + ok - okskip))
	failed=$((failed + bad))
	skipped=$((skipped + sk + okskip))
	if [ "$okskip" -gt 0 ]; then
		echo "not ok - $name: $okskip skips printed as ok (print them as 'SKIP - name: reason')"
		failed=$((failed + 1))
	fi
	if [ $((ok + bad + sk)) -eq 0 ]; then
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

# The reasons a sanitizer run whose status is $1 and whose output is in file $2 is not clean, or
# "" if it is.
san_problems() {
	local rc=$1 log=$2 ok bad why=()
	ok=$(grep -c '^ok ' "$log")
	bad=$(grep -c '^not ok' "$log")
	[ "$rc" -eq 0 ] || why+=("$(status_of "$rc")")
	[ "$bad" -eq 0 ] || why+=("$bad failed checks")
	[ $((ok + bad)) -gt 0 ] || why+=("no check printed")
	grep -qE '^==[0-9]+==ERROR: |^SUMMARY: [A-Za-z]*Sanitizer|WARNING: ThreadSanitizer|runtime error: ' \
		"$log" && why+=("a sanitizer report")
	local IFS=';'
	echo "${why[*]}" | sed 's/;/, /g'
}

# Judges the run under sanitizer $1 of binary $2: status $3, output in file $4, $5 milliseconds.
report_sanitized() {
	local san=$1 bin=$2 rc=$3 log=$4 ms=$5 base why
	base=$(basename "$bin")
	if [ -z "${san_runs[$san]+x}" ]; then
		sans+=("$san")
		san_runs[$san]=0
		san_clean[$san]=0
	fi
	san_runs[$san]=$((san_runs[$san] + 1))
	why=$(san_problems "$rc" "$log")
	if [ -z "$why" ]; then
		echo "ok - $san: $base ($(grep -c "^ok " "$log") checks, clean, $(secs "$ms") s)"
		passed=$((passed + 1))
		san_clean[$san]=$((san_clean[$san] + 1))
	else
		echo "not ok - $san: $base: $why"
		sed 's/^/# /' "$log"
		failed=$((failed + 1))
	fi
}

# Job N in the background: its output, status and milliseconds in $work/job.N.*. An e2e script
# runs under bash with BUILD set, a binary as it is.
start_job() {
	local n=$1
	(
		start=$(now_ms)
		if [ "${kind[$n]}" = e2e ]; then
			env BUILD="$build" bash "${name[$n]}" >"$work/job.$n.out" 2>&1
		else
			"${name[$n]}" >"$work/job.$n.out" 2>&1
		fi
		rc=$?
		echo $(($(now_ms) - start)) >"$work/job.$n.ms"
		echo "$rc" >"$work/job.$n.rc.tmp" && mv "$work/job.$n.rc.tmp" "$work/job.$n.rc"
	) &
}

# Prints and counts every job that has ended and was not reported yet.
report_jobs() {
	local n ms rc log
	for n in "${!running[@]}"; do
		[ -e "$work/job.$n.rc" ] || continue
		ms=$(cat "$work/job.$n.ms")
		rc=$(cat "$work/job.$n.rc")
		log=$work/job.$n.out
		times+=("$ms ${name[$n]}")
		if [ "${kind[$n]}" = plain ] || [ "${kind[$n]}" = e2e ]; then
			echo "# ${name[$n]} ($(secs "$ms") s)"
			cat "$log"
			count_checks "${name[$n]}" "$rc" "$log"
		else
			report_sanitized "${kind[$n]}" "${name[$n]}" "$rc" "$log" "$ms"
		fi
		rm -f "$work/job.$n".*
		unset "running[$n]"
	done
}

# A test in the old flat place would never run: each is a failure of its own, naming where it
# belongs (the Makefile refuses to build while one is there).
for t in tests/test_*.c tests/e2e_*.sh; do
	[ -e "$t" ] || continue
	case $t in
	*.c) echo "not ok - $t: a unit test in the old flat place, never built: it belongs in tests/unit/MODULE/" ;;
	*) echo "not ok - $t: an e2e script in the old flat place, never run: it belongs in tests/e2e/" ;;
	esac
	failed=$((failed + 1))
done

# The jobs: the e2e scripts, then the binaries in the order given. kind[N] is
# e2e, plain (a unit binary, or a sanitizer binary without a plain twin: the fuzz replays), or the
# sanitizer's name (BUILD/SAN/PATH beside BUILD/PATH).
kind=()
name=()
for t in tests/e2e/e2e_*.sh; do
	[ -e "$t" ] || continue
	kind+=(e2e)
	name+=("$t")
done
for bin in "$@"; do
	given[$bin]=1
done
for bin in "$@"; do
	rel=${bin#"$build"/}
	san=${rel%%/*}
	if [ "$rel" != "$bin" ] && [ "$san" != "$rel" ] && [ -n "${given[$build/${rel#*/}]+x}" ]; then
		kind+=("$san")
	else
		kind+=(plain)
	fi
	name+=("$bin")
done
# Longest first, by the seconds of the last run here (BUILD/test-times) or else of the run
# tests/times.txt was copied from; a program in neither runs first. Two at a time, a long one
# started last would run alone at the end.
declare -A before=()
times_in=$build/test-times
[ -s "$times_in" ] || times_in=tests/times.txt
if [ -r "$times_in" ]; then
	while read -r ms key; do
		[[ $ms =~ ^[0-9]+$ ]] && before[$key]=$ms
	done <"$times_in"
fi
key_of() { printf '%s' "${1#"$build"/}"; }
order=$(for n in "${!name[@]}"; do
	k=$(key_of "${name[$n]}")
	printf '%s %s\n' "${before[$k]:-999999999}" "$n"
done | sort -k1,1nr -k2,2n | cut -d' ' -f2)
declare -A running=()
for n in $order; do
	while [ "${#running[@]}" -ge "$jobs" ]; do
		wait -n 2>/dev/null
		report_jobs
	done
	start_job "$n"
	running[$n]=1
done
while [ "${#running[@]}" -gt 0 ]; do
	wait -n 2>/dev/null || sleep 0.2
	report_jobs
done

for san in "${sans[@]}"; do
	echo "$san: ${san_clean[$san]} of ${san_runs[$san]} binaries clean"
done
if [ "${#times[@]}" -gt 0 ]; then
	printf '%s\n' "${times[@]}" | sort -rn | head -n 5 |
		while read -r ms name; do printf '%s (%s s)\n' "$name" "$(secs "$ms")"; done |
		paste -sd';' - | sed 's/;/, /g; s/^/slowest: /'
fi
if [ "${#times[@]}" -gt 0 ]; then
	printf '%s\n' "${times[@]}" | while read -r ms nm; do printf '%s %s\n' "$ms" "$(key_of "$nm")"; done |
		sort -k1,1nr >"$build/test-times.tmp" && mv -f "$build/test-times.tmp" "$build/test-times"
fi
end=$(date +%s)
echo "took: $(((end - t0) / 60)) min $(((end - t0) % 60)) s in all, the tests $(((end - tests_t0) / 60)) min $(((end - tests_t0) % 60)) s ($jobs programs at a time; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
