# e2e_limits.sh - limits on one driver run (docs/workloads.md, "Limits"): parameters inside their
# ranges that would take hours or weeks, or more memory than the machine can spare, are refused at
# once with one line and exit 2; so are replay traces (made by tests/tools/mktrace.c) whose estimated
# work or memory is beyond the same limits; feature_extract's chunks are large enough for the timer
# to vanish.
. tests/e2e/lib.sh

D=$BUILD/allocab-system

# bad NAME PATTERN ARGS...: `allocab-system run ARGS` exits 2 within 10 s, one line matching. The
# inputs that do run get 120 s, a guard against a hang and not a time: touch=0 of the 4 TiB trace
# took 3.8 s idle and 9.7 s at a load of 8 on 2 vCPUs.
bad() {
	local name=$1 pattern=$2
	shift 2
	expect_status "$name: exit 2" 2 timeout 10 "$D" run "$@" --out /dev/null
	expect_err "$name: one line" "^allocab-system: $pattern"
}

work='the work of one run at --scale large, more than the 100x allowed$'
bad "pipeline steps=100000 (about 9 h)" "pipeline: these parameters with --reps auto \(at least 4 reps\) are about .*x $work" \
	pipeline --param steps=100000
bad "pipeline steps=100000 at small data" "pipeline: .*$work" pipeline --scale small --param steps=100000
bad "parquet_load of 100000 row groups of 64Mi rows (weeks)" "parquet_load: .*$work" \
	parquet_load --param row_groups=100000 --param group_rows=67108864
bad "checkpoint_write 1000 checkpoints x 1000 reps (about 11 h)" \
	"checkpoint_write: these parameters with --reps 1000 are about .*x $work" \
	checkpoint_write --param checkpoints=1000 --reps 1000
bad "batch_prep 1000 epochs" "batch_prep: .*$work" batch_prep --param epochs=1000 --param rows=1048576
bad "feature_extract chunk_rows=1 (timer cost)" "--param chunk_rows: 1 is out of range \\[1024, " \
	feature_extract --param chunk_rows=1

# Memory: every buffer counted, and at most half of physical memory (the rest for the system, the
# front end and the allocator's own overhead). 16Mi rows of batch_prep need about 15 GB.
phys=$(awk '/^MemTotal:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo)
if [ "$phys" -lt 30000000000 ]; then
	bad "batch_prep rows=16777216 (15 GB) on this $((phys >> 30)) GiB machine" \
		"batch_prep: these parameters need up to [0-9]+ bytes \(1[45]\.[0-9] GiB\), more than 1/2 of the [0-9]+ bytes" \
		batch_prep --param rows=16777216
else
	skip "batch_prep rows=16777216" "this machine has 30 GB or more"
fi

# Replay: the trace decides the work, estimated once it is loaded (seconds against 100 runs of 10 s).
MK=$BUILD/tests/mktrace
# names WHAT TEXT: the last refusal's line contains TEXT
names() { if grep -qF -- "$2" "$TMP/err"; then ok "$1"; else notok "$1" "no '$2' in: $(cat "$TMP/err")"; fi; }
if [ -x "$MK" ]; then
	rwork='is about [0-9.e+]+x the work of a 10 s run \(estimated .*\), more than the 100x allowed$'
	# 4 events, 1 s apart: gaps=10000 spins 3 x 100 s per rep, 4 reps at least
	"$MK" "$TMP/gap.trace" 2 16 1000000000
	bad "replay gaps=10000 of 1 s gaps (20 min)" \
		"replay: this input with --reps auto \(at least 4 reps\) $rwork" \
		replay --param trace="$TMP/gap.trace" --param gaps=10000
	names "replay refusal: the estimate and the spun time" "(estimated 20 min: per rep 4 calls"
	names "replay refusal: the spun time" "gaps=10000 spins 300 s"
	bad "replay gaps=100 --reps 1000 (50 min)" "replay: this input with --reps 1000 $rwork" \
		replay --param trace="$TMP/gap.trace" --param gaps=100 --reps 1000
	expect_status "replay of the same trace without gaps runs" 0 timeout 120 "$D" run replay --param trace="$TMP/gap.trace" --out /dev/null
	expect_status "replay of the same trace with gaps=1, 2 reps, runs" 0 timeout 120 "$D" run replay --param trace="$TMP/gap.trace" --param gaps=1 --reps 2 --out /dev/null
	# 16384 blocks of 256 MiB, one live at a time: 4 TiB touched per rep
	"$MK" "$TMP/big.trace" 16384 268435456 0
	bad "replay touch=3 of 4 TiB allocated (30 min a rep)" "replay: this input with --reps 1 $rwork" \
		replay --param trace="$TMP/big.trace" --param touch=3 --reps 1
	names "replay refusal: the bytes touch=3 writes" "touch=3 4.4e+12 bytes (1.07e+09 fresh pages)"
	bad "replay touch=2 of 4 TiB allocated (page faults)" "replay: this input with --reps 1 $rwork" \
		replay --param trace="$TMP/big.trace" --reps 1
	names "replay refusal: the pages touch=2 writes" "touch=2 1.07e+09 pages (1.07e+09 fresh)"
	expect_status "replay of the same trace with touch=0 runs" 0 timeout 120 "$D" run replay --param trace="$TMP/big.trace" --param touch=0 --reps 1 --out /dev/null
	# a 1 GiB block reallocated 62 times: an allocator may move it each time
	"$MK" "$TMP/realloc.trace" 32 1073741824 0 realloc
	bad "replay of 62 moves of 1 GiB, 1000 reps" "replay: this input with --reps 1000 $rwork" \
		replay --param trace="$TMP/realloc.trace" --param touch=0 --reps 1000
	names "replay refusal: the bytes realloc may move" "realloc moves 6.66e+10 bytes"
	# 1 TiB live at once
	"$MK" "$TMP/tib.trace" 1 1099511627776 0
	bad "replay of a 1 TiB block (memory)" \
		"replay: this input needs up to [0-9]+ bytes \(1024\.0 GiB: 1024\.0 GiB live at the recorded peak, 0\.0 GiB of replay tables\), more than 1/2 of the [0-9]+ bytes" \
		replay --param trace="$TMP/tib.trace"
else
	notok "replay limits" "$MK is missing (make test builds it)"
fi

# Within the limits: the large preset itself, and small runs, are accepted.
expect_status "feature_extract chunk_rows=1024 runs" 0 "$D" run feature_extract --scale small --param chunk_rows=1024 --out /dev/null
expect_status "pipeline at the small preset runs" 0 "$D" run pipeline --scale small --out /dev/null
exit $t_fail
