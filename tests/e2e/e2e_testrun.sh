#!/usr/bin/env bash
# e2e_testrun.sh - tests/run.sh counts honestly: run on fake test programs (one that fails a check
# and then crashes, one that crashes after passing checks, one that exits non-zero without a
# failed check, one that prints nothing, a clean one, one that skips (once as it should, once
# printed as ok), their sanitizer twins, a fuzz replay without a twin, five e2e scripts, two of
# which only pass when they run at the same time), its per-program lines, its order (the longest
# first, by the last run's seconds), its sanitizer summaries and its last line must come out as
# counted by hand.
. "$(dirname "$0")/lib.sh"
runner=$PWD/tests/run.sh

# fake PATH BODY: an executable shell script at $TMP/w/PATH running BODY.
fake() {
	mkdir -p "$(dirname "$TMP/w/$1")"
	printf '#!/usr/bin/env bash\nulimit -c 0\n%s\n' "$2" >"$TMP/w/$1"
	chmod +x "$TMP/w/$1"
}

fake b/tests/fail_crash 'echo "ok - a"; echo "ok - b"; echo "not ok - c: wrong"; kill -SEGV $$'
fake b/tests/crash_silent 'echo "ok - a"; kill -SEGV $$'
fake b/tests/exit_quiet 'echo "ok - a"; exit 3'
fake b/tests/silent 'exit 0'
fake b/tests/clean 'echo "ok - a"; echo "ok - b"; echo "ok - c"'
fake b/asan/tests/clean 'echo "ok - a"; echo "ok - b"'
fake b/asan/tests/fail_crash 'echo "ok - a"; echo "==7==ERROR: AddressSanitizer: heap-use-after-free" >&2; exit 1'
fake b/tsan/tests/clean 'echo "ok - a"'
fake b/tsan/tests/silent 'echo "ok - a"; echo "WARNING: ThreadSanitizer: data race (pid=7)" >&2'
fake b/asan/fuzz-replay-x 'echo "ok - corpus 1"; echo "ok - corpus 2"'
fake tests/e2e/e2e_fake_ok.sh 'echo "ok - e1"; echo "ok - e2"'
fake tests/e2e/e2e_fake_silent.sh 'exit 0'
fake b/tests/skips 'echo "ok - a"; echo "SKIP - b: no tool here"; echo "ok - c # SKIP no tool here"'
fake tests/e2e/e2e_fake_skip.sh 'echo "SKIP - e3: no tool here"'
# Two scripts that each wait for the other to have started: they pass only when run together.
for p in 1 2; do
	fake tests/e2e/e2e_fake_par$p.sh "touch par$p.started
for i in \$(seq 200); do [ -e par$((3 - p)).started ] && { echo 'ok - par$p: ran beside par$((3 - p))'; exit 0; }; sleep 0.05; done
echo 'not ok - par$p: ran alone'"
done

# Counted by hand: passed 2+1+1+0+3+1 (plain), 1 (asan clean), 1 (tsan clean), 2 (fuzz replay),
# 2+1+1 (e2e); failed 2 (fail_crash: its check and the crash), 1 each for crash_silent,
# exit_quiet, silent, skips (a skip printed as ok), asan fail_crash, tsan silent, e2e_fake_silent;
# skipped 2 (skips: SKIP and the one printed as ok), 1 (e2e_fake_skip).
(cd "$TMP/w" && TEST_JOBS=2 "$runner" b b/tests/fail_crash b/tests/crash_silent b/tests/exit_quiet \
	b/tests/silent b/tests/clean b/tests/skips b/asan/tests/clean b/asan/tests/fail_crash \
	b/tsan/tests/clean b/tsan/tests/silent b/asan/fuzz-replay-x) >"$TMP/log" 2>"$TMP/stderr"
rc=$?
[ "$rc" -ne 0 ] && ok "run.sh: failures give a non-zero status" || notok "run.sh: status" "0 with failures"
last=$(tail -n 1 "$TMP/log")
[ "$last" = "16 passed, 9 failed, 3 skipped" ] && ok "run.sh: last line 16 passed, 9 failed, 3 skipped" ||
	notok "run.sh: last line" "'$last', want '16 passed, 9 failed, 3 skipped'"
# CI reads the last line as 'N passed, N failed', optionally followed by ', N skipped'.
[[ $last =~ ^[0-9]+\ passed,\ [0-9]+\ failed(,\ [0-9]+\ skipped)?$ ]] &&
	ok "run.sh: the last line has the form CI reads" || notok "run.sh: last line form" "'$last'"
[ "$(grep -c '^ok ' "$TMP/log") $(grep -c '^not ok' "$TMP/log") $(grep -c '^SKIP ' "$TMP/log")" = "17 9 2" ] &&
	ok "run.sh: its ok / not ok / SKIP lines are the counted checks (and the one skip printed as ok)" ||
	notok "run.sh: lines" "$(grep -c '^ok ' "$TMP/log") ok, $(grep -c '^not ok' "$TMP/log") not ok, $(grep -c '^SKIP ' "$TMP/log") SKIP"

# expect_line NAME FIXED-STRING: the log holds a line equal to the string.
expect_line() {
	if grep -qxF -- "$2" "$TMP/log"; then ok "run.sh: $1"; else notok "run.sh: $1" "no line '$2'"; fi
}
expect_line "a failed check counts" "not ok - c: wrong"
expect_line "a crash after a failed check is a failure of its own" \
	"not ok - b/tests/fail_crash: exit status 139 (killed by SIGSEGV) after its failed checks; later checks did not run"
expect_line "a crash after an earlier program's failure still counts" \
	"not ok - b/tests/crash_silent: exit status 139 (killed by SIGSEGV) without a failed check"
expect_line "a non-zero exit without a failed check counts" \
	"not ok - b/tests/exit_quiet: exit status 3 without a failed check"
expect_line "a program that prints nothing counts" "not ok - b/tests/silent: no check printed, exit status 0"
expect_line "an e2e script that prints nothing counts" \
	"not ok - tests/e2e/e2e_fake_silent.sh: no check printed, exit status 0"
grep -qE '^ok - asan: clean \(2 checks, clean, [0-9]+\.[0-9] s\)$' "$TMP/log" &&
	ok "run.sh: a clean sanitizer run is one check, with its seconds" ||
	notok "run.sh: clean sanitizer run" "$(grep 'asan: clean' "$TMP/log")"
expect_line "a skip printed as ok is a failure" \
	"not ok - b/tests/skips: 1 skips printed as ok (print them as 'SKIP - name: reason')"
expect_line "a script that only skips is not a failure" "SKIP - e3: no tool here"
grep -q 'e2e_fake_skip.sh: no check printed' "$TMP/log" &&
	notok "run.sh: a script that only skips" "counted as printing nothing" || ok "run.sh: skips are checks printed"
expect_line "e2e scripts run two at a time" "ok - par1: ran beside par2"
expect_line "e2e scripts run two at a time (the other)" "ok - par2: ran beside par1"
[ "$(grep -cE '^# (b/|tests/e2e/e2e_fake_)[a-z_/0-9.-]+ \([0-9]+\.[0-9] s\)$' "$TMP/log")" = 12 ] &&
	ok "run.sh: every unit binary and e2e script's header gives its seconds" ||
	notok "run.sh: headers with seconds" "$(grep '^# [bt]' "$TMP/log")"
tail -n 3 "$TMP/log" | head -n 1 | grep -qE '^slowest: .+ \([0-9]+\.[0-9] s\)' &&
	tail -n 2 "$TMP/log" | head -n 1 | grep -qE '^took: [0-9]+ min [0-9]+ s in all' &&
	ok "run.sh: the slowest programs, then how long it took, before the last line" ||
	notok "run.sh: slowest and took" "$(tail -n 3 "$TMP/log")"
expect_line "a sanitizer run with a report and a bad status is one failure" \
	"not ok - asan: fail_crash: exit status 1, a sanitizer report"
expect_line "a sanitizer report fails a run that exits 0" "not ok - tsan: silent: a sanitizer report"
expect_line "asan summary" "asan: 1 of 2 binaries clean"
expect_line "tsan summary" "tsan: 1 of 2 binaries clean"
grep -qxF "# ==7==ERROR: AddressSanitizer: heap-use-after-free" "$TMP/log" &&
	ok "run.sh: an unclean sanitizer run's output follows behind '# '" ||
	notok "run.sh: unclean sanitizer output" "not shown"
[ "$(grep -c ' binaries clean$' "$TMP/log")" = 2 ] && [ "$(tail -n 5 "$TMP/log" | head -n 2 | grep -c 'binaries clean')" = 2 ] &&
	ok "run.sh: one summary per sanitizer, before the last line" ||
	notok "run.sh: summaries" "$(tail -n 4 "$TMP/log")"

# All clean, without e2e scripts: status 0.
mkdir -p "$TMP/clean"
cp -r "$TMP/w/b" "$TMP/clean/"
(cd "$TMP/clean" && "$runner" b b/tests/clean b/asan/tests/clean b/asan/fuzz-replay-x) >"$TMP/log" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ "$(tail -n 4 "$TMP/log" | head -n 1)" = "asan: 1 of 1 binaries clean" ] &&
	[ "$(tail -n 1 "$TMP/log")" = "6 passed, 0 failed, 0 skipped" ] &&
	ok "run.sh: a clean suite: 6 passed, 0 failed, 0 skipped, status 0" ||
	notok "run.sh: clean suite" "status $rc: $(tail -n 4 "$TMP/log")"
# The longest first, by the last run's seconds (BUILD/test-times, else tests/times.txt); a
# program in neither first of all. Each run writes BUILD/test-times.
mkdir -p "$TMP/order/tests"
for p in s1 s2 s3; do
	fake "../order/b/tests/$p" "echo 'ok - $p'"
done
printf '100 tests/s3\n50 tests/s1\n' >"$TMP/order/b/test-times"
printf '100 tests/s1\n50 tests/s2\n5 tests/s3\n' >"$TMP/order/tests/times.txt"
heads() { grep -oE '^# b/tests/s[0-9]' "$TMP/log" | cut -c11- | paste -sd' ' -; }
(cd "$TMP/order" && TEST_JOBS=1 "$runner" b b/tests/s1 b/tests/s2 b/tests/s3) >"$TMP/log" 2>&1
[ "$(heads)" = "s2 s3 s1" ] && ok "run.sh: the longest first by BUILD/test-times, an unknown program before them" ||
	notok "run.sh: order by BUILD/test-times" "ran $(heads), want s2 s3 s1"
[ "$(cut -d' ' -f2 "$TMP/order/b/test-times" | sort | paste -sd' ' -)" = "tests/s1 tests/s2 tests/s3" ] &&
	grep -qE '^[0-9]+ tests/s2$' "$TMP/order/b/test-times" &&
	ok "run.sh: the run writes BUILD/test-times, every program with its milliseconds" ||
	notok "run.sh: BUILD/test-times" "$(cat "$TMP/order/b/test-times")"
rm "$TMP/order/b/test-times"
(cd "$TMP/order" && TEST_JOBS=1 "$runner" b b/tests/s1 b/tests/s2 b/tests/s3) >"$TMP/log" 2>&1
[ "$(heads)" = "s1 s2 s3" ] && ok "run.sh: without BUILD/test-times, by tests/times.txt" ||
	notok "run.sh: order by tests/times.txt" "ran $(heads), want s1 s2 s3"

# A test in the old flat place (tests/test_*.c, tests/e2e_*.sh) never runs: run.sh counts a failure
# naming it and where it belongs, and the Makefile refuses to build, with one line per file.
mkdir -p "$TMP/flat/tests/e2e" "$TMP/mk/tests"
cp -r "$TMP/w/b" "$TMP/flat/"
printf 'echo "ok - old"\n' >"$TMP/flat/tests/e2e_old.sh"
: >"$TMP/flat/tests/test_old.c"
(cd "$TMP/flat" && "$runner" b b/tests/clean) >"$TMP/log" 2>&1
rc=$?
expect_line "an e2e script in the old flat place is a failure naming where it belongs" \
	"not ok - tests/e2e_old.sh: an e2e script in the old flat place, never run: it belongs in tests/e2e/"
expect_line "a unit test in the old flat place is a failure naming where it belongs" \
	"not ok - tests/test_old.c: a unit test in the old flat place, never built: it belongs in tests/unit/MODULE/"
[ "$rc" -ne 0 ] && [ "$(tail -n 1 "$TMP/log")" = "3 passed, 2 failed, 0 skipped" ] &&
	ok "run.sh: tests in the old flat place fail the run (3 passed, 2 failed)" ||
	notok "run.sh: old flat place" "status $rc: $(tail -n 1 "$TMP/log")"
cp Makefile "$TMP/mk/"
: >"$TMP/mk/tests/test_u64map.c"
: >"$TMP/mk/tests/e2e_new.sh"
make -C "$TMP/mk" -n build-all >"$TMP/mkout" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -qxF 'tests/test_u64map.c: a unit test in the old flat place, never built: it belongs in tests/unit/MODULE/ (docs/HACKING.md, "Layout")' "$TMP/mkout" &&
	grep -qxF 'tests/e2e_new.sh: an e2e script in the old flat place, never run: it belongs in tests/e2e/ (docs/HACKING.md, "Layout")' "$TMP/mkout" &&
	ok "make: refuses to build while a test is in the old flat place, one line per file" ||
	notok "make: old flat place" "status $rc: $(head -c 400 "$TMP/mkout")"
exit $t_fail
