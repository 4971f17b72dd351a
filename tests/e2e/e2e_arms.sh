#!/usr/bin/env bash
# e2e_arms.sh - configured arms (--arm LABEL=BACKEND:KEY=VALUE..., docs/tuning.md) end to end:
# bench runs them beside plain -a arms with every run's record carrying the requested and in-force
# configuration, compare shows the settings (text and JSON), gate judges a label, calibrate runs a
# configured backend against itself, and bad arms exit 2 with one line. Never asserts on speed.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
A=$BUILD/allocab
JGET=$BUILD/tests/jget
TUNED='glibc-tuned=system:mmap_threshold=32M:trim_threshold=256M'

expect_status "bench -a mimalloc --arm $TUNED" 0 "$A" bench -a mimalloc --arm "$TUNED" \
	-w checkpoint_write --scale small --rounds 2 --warmup 0 --quiet -o "$TMP/b.json"
f=$TMP/b.json
if [ "$("$JGET" "$f" config.arms)" = '["mimalloc","glibc-tuned"]' ]; then
	ok "arms: the -a arm, then the labelled one"
else
	notok "arms: the -a arm, then the labelled one" "$("$JGET" "$f" config.arms)"
fi
if [ "$("$JGET" "$f" config.arm_configs.glibc-tuned.allocator)" = system ] &&
	[ "$("$JGET" "$f" config.arm_configs.glibc-tuned.config)" = '["mmap_threshold=32M","trim_threshold=256M"]' ] &&
	[ "$("$JGET" "$f" config.arm_configs.#)" = 1 ]; then
	ok "config.arm_configs holds the configured arm only"
else
	notok "config.arm_configs" "$("$JGET" "$f" config.arm_configs)"
fi
found=0
for i in 0 1; do
	if [ "$("$JGET" "$f" "rounds.0.runs.$i.arm")" = glibc-tuned ]; then
		found=1
		r=rounds.0.runs.$i.record.configuration
		if [ "$("$JGET" "$f" "rounds.0.runs.$i.status")" = ok ] &&
			[ "$("$JGET" "$f" "$r.requested.mmap_threshold")" = 33554432 ] &&
			[ "$("$JGET" "$f" "$r.in_force.mmap_threshold")" = 33554432 ] &&
			[ "$("$JGET" "$f" "$r.proof.trim_threshold")" = accepted ] &&
			[ "$("$JGET" "$f" "$r.verified")" = true ]; then
			ok "a configured run records requested and in-force settings"
		else
			notok "a configured run records requested and in-force settings" "$("$JGET" "$f" "$r")"
		fi
	fi
done
[ $found = 1 ] || notok "a glibc-tuned run in round 0" "none"
c0=$("$JGET" "$f" rounds.0.runs.0.record.checksum)
c1=$("$JGET" "$f" rounds.0.runs.1.record.checksum)
[ -n "$c0" ] && [ "$c0" = "$c1" ] && ok "the same checksum in both arms" || notok "the same checksum in both arms" "$c0 $c1"

expect_status "compare shows the configured arm" 0 "$A" compare "$f" --baseline mimalloc
grep -q '^  glibc-tuned = system: mmap_threshold=32M trim_threshold=256M$' "$TMP/out" &&
	ok "compare text: the arm's settings" || notok "compare text: the arm's settings" "$(cat "$TMP/out")"
grep -q 'glibc-tuned' "$TMP/out" && grep -q 'peak RSS' "$TMP/out" &&
	ok "compare text: per-arm memory beside time" || notok "compare text: per-arm memory" "$(cat "$TMP/out")"
expect_status "compare --format json" 0 "$A" compare "$f" --baseline mimalloc --format json
[ "$("$JGET" "$TMP/out" inputs.0.arm_configs.glibc-tuned)" = "system: mmap_threshold=32M trim_threshold=256M" ] &&
	ok "compare json: inputs[].arm_configs" || notok "compare json: inputs[].arm_configs" "$(head -c 400 "$TMP/out")"

expect_status "compare --format html" 0 "$A" compare "$f" --baseline mimalloc --format html -o "$TMP/r.html"
grep -q 'configured arm <code>glibc-tuned</code> = system: mmap_threshold=32M trim_threshold=256M' "$TMP/r.html" &&
	ok "compare html: the arm's settings" || notok "compare html: the arm's settings" "$(grep -c configured "$TMP/r.html")"

# The gate judges the label; with 2 rounds it cannot decide, whatever the speeds.
"$A" gate "$f" --candidate glibc-tuned --baseline mimalloc --min-speedup 1% >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 1 ] || [ $rc -eq 3 ]; then
	ok "gate --candidate glibc-tuned judges the label (exit $rc)"
else
	notok "gate --candidate glibc-tuned" "exit $rc: $(cat "$TMP/err")"
fi
grep -q '^gate: ' "$TMP/out" && ok "gate prints its verdict" || notok "gate prints its verdict" "$(cat "$TMP/out")"
expect_status "bench --arm ... --gate --candidate LABEL" 3 "$A" bench -a mimalloc --arm "$TUNED" \
	-w checkpoint_write --scale small --rounds 1 --min-rounds 1 --warmup 0 --quiet -o "$TMP/g.json" \
	--gate --candidate glibc-tuned --baseline mimalloc --min-speedup 50%

# Two configured arms of the same backend, no -a.
expect_status "bench with --arm only" 0 "$A" bench --arm 'j2=jemalloc:narenas=2' \
	--arm 'jbg=jemalloc:background_thread=true:dirty_decay_ms=0' -w checkpoint_write --scale small \
	--rounds 1 --warmup 0 --quiet -o "$TMP/j.json"
[ "$("$JGET" "$TMP/j.json" config.arms)" = '["j2","jbg"]' ] && ok "--arm only: just those arms" ||
	notok "--arm only: just those arms" "$("$JGET" "$TMP/j.json" config.arms)"

expect_status "calibrate --arm" 0 "$A" calibrate --arm "$TUNED" -w checkpoint_write --scale small \
	--rounds 2 --warmup 0 --quiet -o "$TMP/cal.json"
[ "$("$JGET" "$TMP/cal-runs.json" config.arms)" = '["glibc-tuned.A","glibc-tuned.B"]' ] &&
	"$JGET" "$TMP/cal-runs.json" config.arm_configs | grep -q '"glibc-tuned.A":{"allocator":"system","config":\["mmap_threshold=32M"' &&
	ok "calibrate --arm: two configured arms" || notok "calibrate --arm" "$("$JGET" "$TMP/cal-runs.json" config)"

# A configuration the allocator does not put in force: every run of that arm is unverified
# (jemalloc raises narenas to the CPU count when percpu_arena is on), excluded from compare.
if [ "$(nproc)" -ge 2 ]; then
	"$A" bench -a system --arm 'je1=jemalloc:narenas=1:percpu_arena=percpu' -w checkpoint_write \
		--scale small --rounds 1 --warmup 0 --quiet -o "$TMP/u.json" >/dev/null 2>&1
	st=""
	for i in 0 1; do
		if [ "$("$JGET" "$TMP/u.json" "rounds.0.runs.$i.arm")" = je1 ]; then
			st=$("$JGET" "$TMP/u.json" "rounds.0.runs.$i.status"):$("$JGET" "$TMP/u.json" "rounds.0.runs.$i.record.configuration.verified")
		fi
	done
	[ "$st" = unverified:false ] && ok "a configuration not in force: the run is unverified, its record says why" ||
		notok "a configuration not in force: the run is unverified" "$st"
else
	skip "unverified configuration" "one CPU"
fi

# Program arms with a configuration: the settings reach the program through the library's
# environment interface (GLIBC_TUNABLES, MALLOC_CONF), the probe proves the allocator.
if [ -e "$BUILD/liballocab-probe.so" ]; then
	expect_status "bench --program with --arm" 0 "$A" bench \
		--program "echo \"MC=\$MALLOC_CONF GT=\$GLIBC_TUNABLES\" >> $TMP/envlog" -a system \
		--arm 'je2=jemalloc:narenas=2:thp=never' --arm 'gt=system:mmap_threshold=1M:tcache_count=0' \
		--rounds 1 --warmup 0 --quiet -o "$TMP/p.json"
	[ "$(sort "$TMP/envlog" | tr '\n' '|')" = 'MC= GT=|MC= GT=glibc.malloc.mmap_threshold=1048576:glibc.malloc.tcache_count=0|MC=narenas:2,thp:never GT=|' ] &&
		ok "program arms: each arm's settings in its environment" ||
		notok "program arms: each arm's settings in its environment" "$(cat "$TMP/envlog")"
	[ "$("$JGET" "$TMP/p.json" config.arm_configs.je2.allocator)" = jemalloc ] &&
		[ "$("$JGET" "$TMP/p.json" config.arms)" = '["system","je2","gt"]' ] &&
		ok "program arms: config.arm_configs" || notok "program arms: config.arm_configs" "$("$JGET" "$TMP/p.json" config)"
	ok_runs=0
	for i in 0 1 2; do
		[ "$("$JGET" "$TMP/p.json" "rounds.0.runs.$i.status")" = ok ] &&
			[ "$("$JGET" "$TMP/p.json" "rounds.0.runs.$i.probe.verified")" = true ] && ok_runs=$((ok_runs + 1))
	done
	[ $ok_runs = 3 ] && ok "program arms: every run ok and probed" || notok "program arms: every run ok and probed" "$ok_runs of 3"
	expect_status "program --arm with a bad setting: exit 2" 2 "$A" bench --program true -a system \
		--arm 'j=jemalloc:narenas=0' --rounds 1 --quiet -o "$TMP/pbad.json"
	expect_err "program --arm with a bad setting: one line" "bench: --arm j: allocab-jemalloc: --config narenas: 0 is out of range \\[1, "
	expect_status "program --arm of an unknown allocator: exit 2" 2 "$A" bench --program true -a system \
		--arm 'x=nosuch:a=1' --rounds 1 --quiet -o "$TMP/pbad.json"
	expect_err "program --arm of an unknown allocator: one line" "bench: --arm x: unknown allocator 'nosuch'"
else
	notok "program arms" "no $BUILD/liballocab-probe.so"
fi

# Bad arms: exit 2, one line, before any run.
bad() {
	local name=$1 pattern=$2
	shift 2
	expect_status "$name: exit 2" 2 "$A" bench -w checkpoint_write --scale small --rounds 1 --quiet -o "$TMP/bad.json" "$@"
	expect_err "$name: one line" "$pattern"
	[ ! -e "$TMP/bad.json" ] && ok "$name: nothing written" || notok "$name: nothing written" "$TMP/bad.json exists"
}
bad "unknown option" "^allocab: bench: --arm t: allocab-system: --config: system has no option 'nope'" -a mimalloc --arm t=system:nope=1
bad "out of range" "bench: --arm t: allocab-system: --config mmap_threshold: 2G is out of range \\[0, 2147483647\\]" -a mimalloc --arm t=system:mmap_threshold=2G
bad "bad value" "bench: --arm t: allocab-jemalloc: --config thp: 'x' is not one of" -a mimalloc --arm t=jemalloc:thp=x
bad "unknown backend" "bench: --arm t: unknown allocator 'nosuch'" -a mimalloc --arm t=nosuch:a=1
bad "no label" "bench: --arm: 'system' is not LABEL=BACKEND" -a mimalloc --arm system
bad "malformed item" "bench: --arm t: 'mmap_threshold' is not KEY=VALUE" -a mimalloc --arm t=system:mmap_threshold
bad "key twice" "bench: --arm t: tcache_count is given twice" -a mimalloc --arm t=system:tcache_count=1:tcache_count=2
bad "label of another arm" "bench: --arm mimalloc: the name of another arm" -a mimalloc --arm mimalloc=mimalloc:eager_commit=0
bad "one arm" "bench: --arm: a comparison needs at least two arms" --arm t=system:mxfast=0
bad "with --cmd" "bench: --cmd cannot be combined with" --cmd a=true --cmd b=true --arm t=system:mxfast=0

exit $t_fail
