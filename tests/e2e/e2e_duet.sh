# e2e_duet.sh - `allocab bench --duet` and `allocab calibrate --duet`: the two arms of a pair run
# at once, each on its own CPU, which arm gets which CPU is drawn per round
# from the shuffle seed; refused where a duet cannot be fair.
. tests/e2e/lib.sh

A=$BUILD/allocab
jget=$BUILD/tests/jget
wl=checkpoint_write

expect_status "bench --duet, 2 rounds" 0 "$A" bench -a system,system_slow -w $wl --scale small \
	--rounds 2 --warmup 1 --duet --quiet -o "$TMP/d.json"
[ "$("$jget" "$TMP/d.json" config.duet)" = true ] && ok "config.duet recorded" ||
	notok "config.duet recorded" "$("$jget" "$TMP/d.json" config.duet)"
# cpu_of ROUND ARM: the CPU the arm's run of that round was pinned to.
cpu_of() {
	local i
	for i in 0 1; do
		[ "$("$jget" "$TMP/d.json" rounds.$1.runs.$i.arm)" = "$2" ] && "$jget" "$TMP/d.json" rounds.$1.runs.$i.cpu
	done
}
seen=""
distinct=1
for r in 0 1 2; do
	a=$(cpu_of $r system) b=$(cpu_of $r system_slow)
	{ [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]; } || distinct=0
	seen="$seen $a/$b"
done
# Which arm gets which CPU is drawn per round from the shuffle seed (test_duet checks the draw).
if [ "$distinct" = 1 ]; then
	ok "every run records its CPU; the arms of a round are on different CPUs (system/system_slow:$seen)"
else
	notok "every run records its CPU; the arms of a round are on different CPUs" "$seen"
fi
[ "$("$jget" "$TMP/d.json" rounds.2.runs.0.status)" = ok ] && [ "$("$jget" "$TMP/d.json" rounds.2.runs.1.status)" = ok ] &&
	[ -n "$("$jget" "$TMP/d.json" rounds.2.runs.1.record.checksum)" ] && ok "duet runs carry their records" ||
	notok "duet runs carry their records" "$("$jget" "$TMP/d.json" rounds.2.runs.1.status)"
expect_status "compare a duet bench" 0 "$A" compare "$TMP/d.json"

expect_status "--duet refuses a multi-threaded workload" 2 "$A" bench -a system,system_slow -w parquet_load --duet -o "$TMP/x.json"
expect_err "--duet names the workload" "^allocab: bench: --duet: workload 'parquet_load' is not single-threaded"
expect_status "--duet refuses three allocators" 2 "$A" bench -a system,system_slow,mimalloc -w $wl --duet -o "$TMP/x.json"
expect_err "--duet wants two allocators" '^allocab: bench: --duet pairs exactly two allocators'
expect_status "--duet refuses --cmd" 2 "$A" bench --cmd a=true --cmd b=true --duet -o "$TMP/x.json"
expect_err "--duet with --cmd says why" '^allocab: bench: --duet cannot be combined with --cmd: it pairs driver runs$'
if command -v taskset >/dev/null; then
	expect_status "--duet on one CPU" 2 taskset -c 0 "$A" bench -a system,system_slow -w $wl --duet -o "$TMP/x.json"
	expect_err "--duet on one CPU says why" '^allocab: bench: --duet needs two CPUs; this process may run on 1$'
else
	skip "--duet on one CPU" "no taskset(1) (util-linux)"
fi
[ ! -e "$TMP/x.json" ] && ok "refused duets write nothing" || notok "refused duets write nothing" "x.json exists"

expect_status "calibrate --duet, 2 rounds" 0 "$A" calibrate -w $wl --scale small --rounds 2 --duet --quiet -o "$TMP/c.json"
[ "$("$jget" "$TMP/c.json" config.duet)" = true ] && [ "$("$jget" "$TMP/c.json" workloads.0.rounds)" = 2 ] &&
	ok "the calibration records the duet" || notok "the calibration records the duet" "$("$jget" "$TMP/c.json" config)"
expect_status "calibrate --duet refuses batch_prep" 2 "$A" calibrate -w batch_prep --duet -o "$TMP/x.json"
expect_err "calibrate --duet says why" "^allocab: calibrate: --duet: workload 'batch_prep' is not single-threaded"
