# e2e_limits.sh - limits on one driver run (docs/workloads.md, "Limits"): parameters inside their
# ranges that would take hours or weeks, or more memory than the machine can spare, are refused at
# once with one line and exit 2; feature_extract's chunks are large enough for the timer to vanish.
. tests/lib.sh

D=$BUILD/allocab-system

# bad NAME PATTERN ARGS...: `allocab-system run ARGS` exits 2 within 10 s, one line matching.
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
bad "feature_extract chunk_rows=1 (timer cost)" "--param chunk_rows: '1' is out of range 1024\\.\\." \
	feature_extract --param chunk_rows=1

# Memory: every buffer counted, and at most half of physical memory (the rest for the system, the
# front end and the allocator's own overhead). 16Mi rows of batch_prep need about 15 GB.
phys=$(awk '/^MemTotal:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo)
if [ "$phys" -lt 30000000000 ]; then
	bad "batch_prep rows=16777216 (15 GB) on this $((phys >> 30)) GiB machine" \
		"batch_prep: these parameters need up to [0-9]+ bytes \(1[45]\.[0-9] GiB\), more than 1/2 of the [0-9]+ bytes" \
		batch_prep --param rows=16777216
else
	ok "batch_prep rows=16777216: this machine has 30 GB or more # skip"
fi

# Within the limits: the large preset itself, and small runs, are accepted.
expect_status "feature_extract chunk_rows=1024 runs" 0 "$D" run feature_extract --scale small --param chunk_rows=1024 --out /dev/null
expect_status "pipeline at the small preset runs" 0 "$D" run pipeline --scale small --out /dev/null
exit $t_fail
