# e2e_phase_named.sh - a phase named before any run (bench --gate --phase, bench --primary,
# benchmark_mimalloc.sh --phase) is checked once runs have timed the phases: a bench --gate on a
# phase the program marks runs and judges it; a name no ok run times stops the bench after its
# first round with one line and exit 2, instead of answering with the total; compare of a file
# whose recorded primary names no phase says the primary is missing.
. tests/e2e/lib.sh
A=$BUILD/allocab
F=$(realpath "$BUILD")/tests/phase_fixture
S=$PWD/scripts/benchmark_mimalloc.sh
if [ ! -x "$F" ] || [ ! -x "$BUILD/allocab-system" ]; then
	skip "named phases" "phase_fixture or allocab-system not built"
	exit 0
fi

# bench --gate --phase epoch: the empty file before the first round knows no phase; the gate runs.
"$A" bench --program "$F 4" -a system,mimalloc --rounds 7 --warmup 0 -q -o "$TMP/g.json" \
	--gate --phase epoch --candidate mimalloc --max-slowdown 50% >"$TMP/out" 2>"$TMP/err"
rc=$?
case $rc in
0 | 1 | 3) ok "bench --gate --phase epoch runs (exit $rc, not 2 before the first round)" ;;
*) notok "bench --gate --phase epoch runs" "exit $rc: $(head -c 300 "$TMP/err")" ;;
esac
grep -Eq '^(PASS|FAIL|INCONCLUSIVE) +command/epoch steady mimalloc vs system: .*sequential' "$TMP/out" &&
	ok "bench --gate --phase epoch: the gate judges the epoch's steady state, sequentially" ||
	notok "bench --gate --phase epoch: the epoch judged" "$(head -c 400 "$TMP/out")"
jeq "bench --gate --phase epoch: the gate's phase is the results' primary" "$TMP/g.json" config.primary epoch

# A phase the program does not mark: one line after the first round, exit 2, the file aborted.
expect_status "bench --gate --phase nosuch: exit 2" 2 "$A" bench --program "$F 4" -a system,mimalloc \
	--rounds 7 --warmup 0 -q -o "$TMP/n.json" --gate --phase nosuch --candidate mimalloc --max-slowdown 3%
expect_err "bench --gate --phase nosuch: one line naming the phases it marks" \
	"^allocab: bench: --gate --phase nosuch: no ok run times a phase 'nosuch' \(command: setup, epoch\)"
jeq "bench --gate --phase nosuch: stopped after the first round" "$TMP/n.json" rounds.# 1
jeq "bench --gate --phase nosuch: the file says aborted" "$TMP/n.json" status aborted

# --primary epoch for a program that marks nothing (the hostile "primary-missing-phase").
expect_status "bench --primary epoch, no phase marked: exit 2" 2 "$A" bench --program "$F 4 none" \
	-a system,mimalloc --rounds 6 --warmup 0 -q -o "$TMP/p.json" --primary epoch
expect_err "bench --primary epoch, no phase marked: one line" \
	"^allocab: bench: --primary epoch: no ok run times a phase 'epoch' \(command: its total alone, no phase marked\)"
"$A" compare "$TMP/p.json" >"$TMP/cmp" 2>&1
grep -q "p.json: its primary (bench --primary epoch) is missing: no run times a phase 'epoch'" "$TMP/cmp" &&
	ok "compare of that file: the primary is missing, said" ||
	notok "compare: the primary is missing" "$(grep -i primary "$TMP/cmp" | head -3)"
"$A" compare "$TMP/g.json" >"$TMP/cmp" 2>&1
! grep -q "is missing" "$TMP/cmp" && ok "compare: no such warning when the primary phase is there" ||
	notok "compare: no false missing-primary warning" "$(grep 'is missing' "$TMP/cmp")"
# A built-in workload's phases come from its records: the same check.
expect_status "bench -w checkpoint_write --primary nosuch: exit 2" 2 "$A" bench -w checkpoint_write \
	--scale small -a system,mimalloc --rounds 6 --warmup 0 -q -o "$TMP/d.json" --primary nosuch
expect_err "drivers --primary nosuch: one line with the workload's phases" \
	"^allocab: bench: --primary nosuch: no ok run times a phase 'nosuch' \(checkpoint_write: [a-z_, ]+\)"

# The script: no summary of another row than the one asked for.
expect_status "benchmark_mimalloc.sh --phase epoch, no phase marked: exit 2" 2 env ALLOCAB_BUILD="$(realpath "$BUILD")" \
	"$S" --phase epoch --gate 0 --rounds 6 --warmup 0 -q -o "$TMP/s.json" "$F 4 none"
[ ! -s "$TMP/out" ] && grep -Eq "^allocab: bench: (--primary|--gate --phase) epoch: no ok run times a phase 'epoch'" "$TMP/err" &&
	ok "benchmark_mimalloc.sh --phase epoch, no phase marked: the reason, no verdict on the total" ||
	notok "benchmark_mimalloc.sh --phase epoch, no phase marked" "$(head -c 300 "$TMP/out") / $(head -c 300 "$TMP/err")"
exit $t_fail
