#!/usr/bin/env bash
# e2e_program_config.sh - the probe's read-back of a configured program arm (docs/tuning.md,
# "Programs"): `env --probe` writes the spec, the probe's exit records show every requested
# setting with the value the allocator reports in force (or why it cannot be read), a setting
# read back with another value makes the runs unverified, and unreadable ones do not. Fast: `sort`
# on a small file, one round. Never asserts on speed.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
A=$BUILD/allocab
JGET=$BUILD/tests/jget

if [ ! -e "$BUILD/liballocab-probe.so" ]; then
	notok "program config" "no $BUILD/liballocab-probe.so"
	exit 1
fi

# ---- the driver's spec ----
out=$("$BUILD/allocab-jemalloc" env --probe --config narenas=2 --config thp=never 2>&1)
[ "$out" = 'MALLOC_CONF=narenas:2,thp:never
ALLOCAB_PROBE_CONFIG=narenas=je_narenas:arenas.narenas:2;thp=requested_je_string:opt.thp:never' ] &&
	ok "env --probe: the read-back spec after the environment" || notok "env --probe" "$out"
out=$("$BUILD/allocab-system" env --probe --config mmap_threshold=1M 2>&1)
[ "$out" = 'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576
ALLOCAB_PROBE_CONFIG=mmap_threshold=none::1048576' ] &&
	ok "env --probe: glibc has no reader" || notok "env --probe glibc" "$out"
expect_status "env --probe with a stray argument: exit 2" 2 "$BUILD/allocab-jemalloc" env --probe x
expect_err "env --probe with a stray argument: one line" "unexpected argument 'x'"

# ---- the probe alone: a malformed spec is reported, never a crash ----
: >"$TMP/rec"
ALLOCAB_PROBE_FILE=$TMP/rec ALLOCAB_PROBE_CONFIG='a;=;b=je_bool:x;c=nosuch:k:1;d=none::"' \
	LD_PRELOAD="$BUILD/liballocab-probe.so" /bin/true
if grep -q '"event":"exit".*"config":{"a":{"requested":null,"unreadable":"malformed' "$TMP/rec" &&
	[ "$(grep -o '"unreadable"' "$TMP/rec" | wc -l)" = 5 ]; then
	ok "probe: malformed spec items are unreadable"
else
	notok "probe: malformed spec" "$(head -c 600 "$TMP/rec")"
fi

# ---- a bench of configured program arms ----
seq 1 3000 | sort -R --random-source=/dev/zero >"$TMP/in.txt"
expect_status "bench --program with configured arms" 0 "$A" bench --program "sort $TMP/in.txt" \
	--arm 'je=jemalloc:dirty_decay_ms=5000:background_thread=true' \
	--arm 'mi=mimalloc:eager_commit=0:reserve_os_memory=1M' \
	--arm 'gt=system:mmap_threshold=1M:trim_threshold=64M' \
	--rounds 1 --warmup 0 --quiet -o "$TMP/p.json"
# "ARM KEY requested in_force|unreadable-or-empty" for the exit records of sort.
readback() {
	local arm i p np k
	for i in 0 1 2; do
		arm=$("$JGET" "$TMP/p.json" "rounds.0.runs.$i.arm")
		np=$("$JGET" "$TMP/p.json" "rounds.0.runs.$i.probe.processes.#")
		for ((p = 0; p < np; p++)); do
			b="rounds.0.runs.$i.probe.processes.$p.config"
			[ -n "$("$JGET" "$TMP/p.json" "$b")" ] || continue
			for k in dirty_decay_ms background_thread eager_commit reserve_os_memory \
				mmap_threshold trim_threshold; do
				[ -n "$("$JGET" "$TMP/p.json" "$b.$k")" ] || continue
				echo "$arm $k $("$JGET" "$TMP/p.json" "$b.$k.requested") $("$JGET" "$TMP/p.json" "$b.$k.in_force")$("$JGET" "$TMP/p.json" "$b.$k.read_back")$("$JGET" "$TMP/p.json" "$b.$k.unreadable" | cut -c1-8)$("$JGET" "$TMP/p.json" "$b.$k.unproven" | cut -c11-)"
			done
		done
	done | sort -u
}
got=$(readback)
want='gt mmap_threshold 1048576 the libr
gt trim_threshold 67108864 the libr
je background_thread true true
je dirty_decay_ms 5000 5000
mi eager_commit 0 0
mi reserve_os_memory 1048576 1048576 effect unproven'
[ "$got" = "$want" ] && ok "program config: jemalloc and mimalloc settings read back in force, glibc's unreadable, mimalloc's reserve_os_memory taken but unproven" ||
	notok "program config: read-back" "$got"
ok_runs=0
for i in 0 1 2; do
	[ "$("$JGET" "$TMP/p.json" "rounds.0.runs.$i.status")" = ok ] &&
		[ "$("$JGET" "$TMP/p.json" "rounds.0.runs.$i.probe.verified")" = true ] && ok_runs=$((ok_runs + 1))
done
[ $ok_runs = 3 ] && ok "program config: every run verified (unreadable settings do not fail)" ||
	notok "program config: every run verified" "$ok_runs of 3"

# ---- a setting that is not in force: with percpu_arena jemalloc makes one arena per CPU ----
if [ "$(nproc)" -ge 2 ]; then
	n=$(nproc)
	expect_status "program config: a setting not in force: exit 1" 1 "$A" bench \
		--program "sort $TMP/in.txt" -a system --arm 'je1=jemalloc:narenas=1:percpu_arena=percpu' \
		--rounds 1 --warmup 0 --quiet -o "$TMP/u.json"
	if [ "$(grep -c "je1: no verified successful run: unverified: configuration not in force: narenas=1 read back $n in sort" "$TMP/err")" = 1 ]; then
		ok "program config: the reason in one line"
	else
		notok "program config: the reason" "$(head -c 600 "$TMP/err")"
	fi
	st=$("$JGET" "$TMP/u.json" rounds.0.runs.0.status)$("$JGET" "$TMP/u.json" rounds.0.runs.1.status)
	case $st in
	okunverified | unverifiedok) ok "program config: the configured arm's run is unverified" ;;
	*) notok "program config: unverified run" "$st" ;;
	esac
else
	skip "setting not in force" "one CPU"
fi
exit $t_fail
