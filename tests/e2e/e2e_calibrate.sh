# e2e_calibrate.sh - the slow backend really injects on every allocator call (counted, not timed),
# does the same work as glibc, refuses a bad ALLOCAB_INJECT_NS; `allocab calibrate` end to end.
. tests/e2e/lib.sh

probe=$BUILD/tests/inject_probe
slow=$BUILD/allocab-system_slow
sys=$BUILD/allocab-system
jget=$BUILD/tests/jget

# The probe's own checks (exact counter deltas for known calls, libc's calls included) at both
# settings: counting must not depend on the injected cost.
for ns in 0 250; do
	ALLOCAB_INJECT_NS=$ns "$probe" count 5000 >"$TMP/probe" 2>&1
	rc=$?
	sed -E "s/^(not ok|ok) - /\1 - inject_probe at $ns ns: /" "$TMP/probe"
	[ $rc = 0 ] && grep -q '^ok' "$TMP/probe" || notok "inject_probe count at $ns ns" "exit $rc"
done

for bad in abc -5 1.5 2000000 '12 '; do
	ALLOCAB_INJECT_NS=$bad expect_status "ALLOCAB_INJECT_NS='$bad' is a usage error" 2 "$slow" info
	expect_err "ALLOCAB_INJECT_NS='$bad' says why" '^allocab-system_slow: ALLOCAB_INJECT_NS: '
done

expect_status "system_slow info --json" 0 "$slow" info --json
cp "$TMP/out" "$TMP/info.json"
v=$("$jget" "$TMP/info.json" allocator.verified)
[ "$v" = true ] && ok "system_slow verifies that the executable serves malloc" ||
	notok "system_slow verifies that the executable serves malloc" "verified=$v"

if nm -D --defined-only "$slow" | grep -Eq ' T (malloc|free)$' &&
	[ "$(nm -D --defined-only "$slow" | grep -Ec ' T (malloc|free|calloc|realloc|posix_memalign|aligned_alloc|memalign|valloc|pvalloc)$')" = 9 ]; then
	ok "system_slow exports the whole malloc family dynamically"
else
	notok "system_slow exports the whole malloc family dynamically" "$(nm -D --defined-only "$slow" | grep -E 'alloc|free')"
fi

# Same work as glibc; the counted calls do not depend on the injected cost (single-threaded workload).
wl=checkpoint_write
for ns in 0 300; do
	ALLOCAB_INJECT_NS=$ns expect_status "system_slow run $wl at $ns ns" 0 \
		"$slow" run $wl --scale small --seed 7 --reps 1 --out "$TMP/slow$ns.json"
done
expect_status "system run $wl" 0 "$sys" run $wl --scale small --seed 7 --out "$TMP/sys.json"
c_sys=$("$jget" "$TMP/sys.json" checksum)
c0=$("$jget" "$TMP/slow0.json" checksum)
c300=$("$jget" "$TMP/slow300.json" checksum)
[ -n "$c_sys" ] && [ "$c0" = "$c_sys" ] && [ "$c300" = "$c_sys" ] &&
	ok "system_slow computes the checksum of system ($c_sys)" ||
	notok "system_slow computes the checksum of system" "system=$c_sys slow0=$c0 slow300=$c300"
n0=$("$jget" "$TMP/slow0.json" counters.injected_calls)
n300=$("$jget" "$TMP/slow300.json" counters.injected_calls)
case $n0 in '' | *[!0-9]*) n0=0 ;; esac
[ "$n0" -gt 1000 ] && [ "$n0" = "$n300" ] &&
	ok "injected calls are counted at 0 ns and at 300 ns alike ($n0)" ||
	notok "injected calls are counted at 0 ns and at 300 ns alike" "0 ns: $n0, 300 ns: $n300"
s300=$("$jget" "$TMP/slow300.json" counters.injected_spin_ns)
s0=$("$jget" "$TMP/slow0.json" counters.injected_spin_ns)
ns300=$("$jget" "$TMP/slow300.json" counters.inject_ns)
awk -v s="$s300" -v n="$n300" -v s0="$s0" -v k="$ns300" 'BEGIN { exit !(k == 300 && s0 == 0 && s >= n * 300) }' &&
	ok "every counted call spun at least inject_ns" ||
	notok "every counted call spun at least inject_ns" "inject_ns=$ns300 spin=$s300 calls=$n300 spin_at_0=$s0"

# ---- allocab calibrate end to end: the A/A bench through the bench engine, a valid file ----
A=$BUILD/allocab
cal=$TMP/cal.json
expect_status "calibrate 3 rounds" 0 "$A" calibrate -a system -w $wl --scale small --rounds 3 \
	--warmup 1 --shuffle-seed 5 --block 6 --effect 5% --for-rounds 12 --for-budget 60 --quiet -o "$cal"
cp "$TMP/out" "$TMP/cal.out"
[ "$("$jget" "$cal" schema)" = allocab-calibration/1 ] && ok "calibration schema" ||
	notok "calibration schema" "$(head -c 200 "$cal")"
[ "$("$jget" "$cal" backend)" = system ] && [ "$("$jget" "$cal" arms)" = '["system.A","system.B"]' ] &&
	[ "$("$jget" "$cal" runs_file)" = "$TMP/cal-runs.json" ] && ok "backend, arms and runs file recorded" ||
	notok "backend, arms and runs file recorded" "$("$jget" "$cal" arms) $("$jget" "$cal" runs_file)"
[ "$("$jget" "$cal" workloads.0.workload)" = $wl ] && [ "$("$jget" "$cal" workloads.0.rounds)" = 3 ] &&
	[ "$("$jget" "$cal" workloads.0.log_ratios.#)" = 3 ] && ok "3 paired log ratios of $wl" ||
	notok "3 paired log ratios of $wl" "$("$jget" "$cal" workloads.0)"
# Recompute the sd from the stored ratios: the file is self-contained.
"$jget" "$cal" workloads.0.log_ratios | tr -d '[]' | tr ',' '\n' >"$TMP/d.txt"
awk -v sd="$("$jget" "$cal" workloads.0.sd)" '{ x[NR] = $1; s += $1 } END { m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2; v = sqrt(v / (NR - 1)); exit !(NR == 3 && (v - sd) ^ 2 < 1e-18) }' "$TMP/d.txt" &&
	ok "sd recomputes from the stored log ratios" || notok "sd recomputes from the stored log ratios" "$(cat "$TMP/d.txt")"
[ "$("$jget" "$cal" workloads.0.mde.0.pct)" = null ] && [ "$("$jget" "$cal" workloads.0.mde.1.rounds)" = 12 ] &&
	[ "$("$jget" "$cal" workloads.0.mde.2.budget_s)" = 60 ] &&
	[ "$("$jget" "$cal" workloads.0.rounds_needed.0.effect_pct)" = 5 ] &&
	ok "MDE rows: none at 3 rounds, 12 rounds, 60 s; rounds for 5%" ||
	notok "MDE rows" "$("$jget" "$cal" workloads.0.mde) $("$jget" "$cal" workloads.0.rounds_needed)"
[ "$("$jget" "$TMP/cal-runs.json" schema)" = allocab-bench/2 ] &&
	[ "$("$jget" "$TMP/cal-runs.json" rounds.#)" = 4 ] && ok "the A/A runs are an allocab-bench/2 file (1 warm-up + 3)" ||
	notok "the A/A runs are an allocab-bench/2 file" "$("$jget" "$TMP/cal-runs.json" rounds.#)"
grep -q "^$wl (total): 3 paired rounds" "$TMP/cal.out" && grep -q "MDE (80% power) .*3 rounds none | 12 rounds" "$TMP/cal.out" &&
	ok "calibrate prints the noise floor" || notok "calibrate prints the noise floor" "$(head -c 400 "$TMP/cal.out")"

expect_status "calibrate --from the runs file" 0 "$A" calibrate --from "$TMP/cal-runs.json" --block 6 -o "$TMP/cal2.json"
[ "$("$jget" "$TMP/cal2.json" workloads.0.sd)" = "$("$jget" "$cal" workloads.0.sd)" ] &&
	ok "--from recomputes the same sd" || notok "--from recomputes the same sd" "$("$jget" "$TMP/cal2.json" workloads.0.sd)"

# compare prints the noise floor beside the speedups; gate warns about a margin below the MDE.
expect_status "compare with --calibration" 0 "$A" compare "$TMP/cal-runs.json" --baseline system.A --calibration "$cal"
grep -q "noise floor" "$TMP/out" && grep -Eq "^$wl +total +system.B .* (none yet|[0-9.]+%)$" "$TMP/out" &&
	ok "compare shows the noise floor column" || notok "compare shows the noise floor column" "$(cat "$TMP/out")"
expect_status "compare --format json with --calibration" 0 "$A" compare "$TMP/cal-runs.json" --baseline system.A --calibration "$cal" --format json
cp "$TMP/out" "$TMP/cmp.json"
[ "$("$jget" "$TMP/cmp.json" comparisons.0.noise_floor_pct)" = null ] && "$jget" "$TMP/cmp.json" calibration | grep -q "$cal" &&
	ok "json: noise_floor_pct (null: 3 rounds cannot detect anything) and calibration" ||
	notok "json: noise floor" "$("$jget" "$TMP/cmp.json" comparisons.0.noise_floor_pct)"
expect_status "compare --format csv with --calibration" 0 "$A" compare "$TMP/cal-runs.json" --baseline system.A --calibration "$cal" --format csv
head -1 "$TMP/out" | grep -q ",noise_floor_pct," && ok "csv: noise_floor_pct column" || notok "csv: noise_floor_pct column" "$(head -2 "$TMP/out")"
# Without --calibration, compare looks for results/calibration.json in the working directory.
abs_a=$(cd "$(dirname "$A")" && pwd)/allocab
mkdir -p "$TMP/wd/results"
(cd "$TMP/wd" && "$abs_a" compare ../cal-runs.json --baseline system.A) >"$TMP/out" 2>&1
grep -q "^checkpoint_write" "$TMP/out" && ! grep -q "noise floor" "$TMP/out" &&
	ok "no results/calibration.json: no noise floor" || notok "no results/calibration.json: no noise floor" "$(head -c 600 "$TMP/out")"
cp "$cal" "$TMP/wd/results/calibration.json"
(cd "$TMP/wd" && "$abs_a" compare ../cal-runs.json --baseline system.A) >"$TMP/out" 2>&1
grep -q "noise floor: .* from results/calibration.json" "$TMP/out" &&
	ok "results/calibration.json is used by default" || notok "results/calibration.json is used by default" "$(head -c 600 "$TMP/out")"
expect_status "compare --calibration missing file" 2 "$A" compare "$TMP/cal-runs.json" --baseline system.A --calibration "$TMP/nope.json"
expect_err "compare --calibration missing file says so" '^allocab: compare: .*nope.json: No such file'
echo '{"schema": "allocab-calibration/1"}' >"$TMP/bad.json"
expect_status "compare --calibration invalid file" 2 "$A" compare "$TMP/cal-runs.json" --baseline system.A --calibration "$TMP/bad.json"
expect_err "compare --calibration invalid file says why" '^allocab: compare: .*bad.json: backend missing or not a string'
# Three A/A rounds cannot reach 95%: the gate says so on the line, and prints no distance note.
expect_status "gate on 3 rounds INCONCLUSIVE" 3 "$A" gate "$TMP/cal-runs.json" --baseline system.A --candidate system.B --max-slowdown 1%
grep -q 'reaches only 75% confidence, below the 95% asked' "$TMP/out" && ! grep -q '^note:' "$TMP/out" &&
	ok "gate names the level reached; no note without a level" || notok "gate on 3 rounds" "$(cat "$TMP/err" "$TMP/out")"

# Bad input: one line, exit 2, nothing written.
expect_status "calibrate --alpha 2" 2 "$A" calibrate --alpha 2 -o "$TMP/x.json"
expect_err "calibrate --alpha 2 says why" '^allocab: calibrate: --alpha: 2 is out of range \[1e-06, 0.5\)$'
expect_status "calibrate unknown backend" 2 "$A" calibrate -a nosuch -o "$TMP/x.json"
expect_err "calibrate unknown backend says why" "^allocab: calibrate: -a: unknown allocator 'nosuch' \(drivers in "
expect_status "calibrate unknown workload" 2 "$A" calibrate -w nosuch -o "$TMP/x.json"
expect_err "calibrate unknown workload says why" "^allocab: calibrate: -w: unknown workload 'nosuch'"
expect_status "calibrate --cmd" 2 "$A" calibrate --cmd a=true -o "$TMP/x.json"
expect_err "calibrate --cmd is unknown" "^allocab: calibrate: unknown option '--cmd'"
expect_status "calibrate --from a non-A/A file" 2 "$A" calibrate --from "$TMP/cal-runs.json" --arms system.A,nosuch -o "$TMP/x.json"
expect_err "calibrate --from with an unknown arm says why" "arm nosuch has no run record"
expect_status "calibrate --from with --rounds" 2 "$A" calibrate --from "$TMP/cal-runs.json" --rounds 3 -o "$TMP/x.json"
[ ! -e "$TMP/x.json" ] && ok "no calibration file written on bad input" || notok "no calibration file written on bad input" "x.json exists"
expect_status "calibrate --help" 0 "$A" calibrate --help
grep -q "^usage: allocab calibrate" "$TMP/out" && ok "calibrate --help on stdout" || notok "calibrate --help on stdout" "$(head -2 "$TMP/out")"

# -o decides what its path names before anything runs, as bench's -o (docs/results-format.md,
# "Writing files"): /dev/stdout is the descriptor, a device is refused before the A/A bench
expect_status "calibrate --from -o /dev/stdout" 0 "$A" calibrate --from "$TMP/cal-runs.json" -o /dev/stdout
grep -q '"schema":.*"allocab-calibration/1"' "$TMP/out" && ok "calibrate -o /dev/stdout: the calibration on stdout" ||
	notok "calibrate -o /dev/stdout" "$(head -c 200 "$TMP/out")"
expect_status "calibrate -o /dev/stdout: its runs file would be made in /dev, refused before the run" 1 \
	"$A" calibrate -a system -w $wl --scale small --rounds 2 -q -o /dev/stdout
expect_err "... with one line" "/dev/stdout-runs.json: allocab creates and replaces no file in /dev"
if mknod "$TMP/zero" c 1 8 2>/dev/null; then # a node of /dev/random: not one written in place
	expect_status "calibrate -o a character device: refused before the run" 1 \
		"$A" calibrate -a system -w $wl --scale small --rounds 2 -q -o "$TMP/zero"
	expect_err "... with one line" "zero: a device: -o writes a file"
	[ -c "$TMP/zero" ] && [ ! -e "$TMP/zero-runs.json" ] && ok "calibrate -o a device: no run, the device kept" ||
		notok "calibrate -o a device" "$(ls -l "$TMP")"
	expect_status "calibrate --from -o a character device: refused" 1 \
		"$A" calibrate --from "$TMP/cal-runs.json" -o "$TMP/zero"
	[ -c "$TMP/zero" ] && ok "calibrate --from -o a device: the device kept" || notok "device kept" "$(ls -l "$TMP/zero")"
else
	skip "calibrate -o a character device" "needs root (mknod)"
fi
