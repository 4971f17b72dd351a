#!/usr/bin/env bash
# validate_variance.sh - the variance part of `make validate` (scripts/validate.sh; alone:
# VALIDATE_ONLY=variance make validate): where this machine's variance is (docs/methodology.md,
# "Where the variance is, and where the budget goes"). A/A benches of glibc against itself
# (`allocab calibrate --reps N`) under four conditions: free (what a bench does), layout fixed
# (ASLR off for the bench and every driver it starts, `setarch -R`, and no environment padding),
# pinned (every run on one CPU, `taskset`) and both; the log times of each process's reps
# decomposed by build/tests/vardecomp into rep to rep, process to process and, of that, what
# neighbours in time share (moment to moment) and what is specific to a process, on wall and on
# CPU time, with the A/A check of a persistent-process design and the profile of the reps.
# Prints the markdown section on stdout, progress on stderr.
# Knobs (environment): VALIDATE_VAR_WORKLOADS (checkpoint_write,feature_extract),
# VALIDATE_VAR_REPS (10 reps per process), VALIDATE_VAR_FROM (4: the first rep decomposed, 0 being
# the cold one), VALIDATE_VAR_ROUNDS (20 per condition), VALIDATE_VAR_CPU (1: the CPU of the
# pinned conditions), VALIDATE_SCALE (small).
set -u
BUILD=${BUILD:-build}
SCALE=${VALIDATE_SCALE:-small}
WLS=${VALIDATE_VAR_WORKLOADS:-checkpoint_write,feature_extract}
REPS=${VALIDATE_VAR_REPS:-10}
FROM=${VALIDATE_VAR_FROM:-4}
ROUNDS=${VALIDATE_VAR_ROUNDS:-20}
CPU=${VALIDATE_VAR_CPU:-1}
A=$BUILD/allocab
VD=$BUILD/tests/vardecomp

for f in "$A" "$VD"; do
	[ -x "$f" ] || { echo "validate: $f is missing (make all test first)" >&2; exit 1; }
done
for t in setarch taskset; do
	command -v $t >/dev/null || { echo "validate: the variance part needs $t (util-linux)" >&2; exit 1; }
done
[ "$FROM" -ge 1 ] && [ "$REPS" -ge $((FROM + 2)) ] || {
	echo "validate: VALIDATE_VAR_REPS must be at least VALIDATE_VAR_FROM + 2, VALIDATE_VAR_FROM at least 1" >&2
	exit 2
}
W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-variance.XXXXXX")
trap 'rm -rf "$W"' EXIT
t_start=$(date +%s)
log() { printf '[validate %4ds] %s\n' $(($(date +%s) - t_start)) "$*" >&2; }
# The value of KEY=VALUE in a line of vardecomp.
kv() { sed -E "s/(^|.*[ \t])$1=([^ ]*).*/\2/"; }

# Conditions: label|prefix command|extra calibrate options|what it means.
CONDS=("free|||ASLR on, padding 0..4096 B, any CPU (what a bench does)"
	"layout fixed|setarch -R|--pad-max 0|ASLR off, no padding"
	"pinned|taskset -c $CPU||one CPU for every run"
	"both fixed|taskset -c $CPU setarch -R|--pad-max 0|ASLR off, no padding, one CPU")
: >"$W/d.tsv"
for i in "${!CONDS[@]}"; do
	IFS='|' read -r label prefix extra what <<<"${CONDS[$i]}"
	ld=$(cut -d' ' -f1 /proc/loadavg)
	log "variance: $label: A/A of $WLS, $ROUNDS rounds of $REPS reps per process (load $ld)"
	# shellcheck disable=SC2086 # prefix and extra are lists of words
	$prefix "$A" calibrate -a system -w "$WLS" --scale "$SCALE" --reps "$REPS" \
		--rounds "$ROUNDS" $extra --quiet -o "$W/d.json" >/dev/null || { log "calibrate failed"; continue; }
	for time in wall cpu; do
		flag=
		[ $time = cpu ] && flag=--cpu
		"$VD" $flag --from "$FROM" "$W/d-runs.json" | grep '^workload=' |
			sed "s/^/$label\t$time\t$ld\t/" >>"$W/d.tsv"
	done
	[ "$i" -eq 0 ] && "$VD" --cpu --from 0 "$W/d-runs.json" | grep '^profile' >"$W/profile.txt"
done

echo "## (f) Where the variance is: $ROUNDS A/A rounds of \`$WLS\`, $REPS reps per process, per condition"
echo
echo "\`allocab calibrate -a system --reps $REPS\` under each condition; the log times of reps $FROM to $((REPS - 1))"
echo "(0 is the cold one) decomposed by \`build/tests/vardecomp\`: **rep** to rep within a process (sd of a rep around"
echo "its process's mean); **process** to process (sd of process means beyond what the reps explain), split into"
echo "**moment** (the lag-1 autocovariance of the process means in run order: what processes that ran one after"
echo "the other share, the machine's load over seconds and minutes) and **specific** (the rest: layout, page"
echo "placement, CPU). **paired** and **unpaired**: the sd of the difference of the two arms' process means, paired"
echo "within a round and as if unpaired. **best reps**: the reps per process that minimise variance x cost."
echo "**persistent A/A**: pairs of processes of a round whose reps, paired rep by rep, give a 95% interval without"
echo "0: what one persistent process per arm taking turns rep by rep would conclude about two identical arms."
echo "Load: the 1-minute load average at the start of each condition. Took $(($(date +%s) - t_start)) s."
echo
echo "| condition | time | workload | load | rep sd | process sd | of it: moment | specific | paired sd | unpaired sd | best reps | persistent A/A |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
while IFS=$'\t' read -r label time ld line; do
	echo "| $label | $time | $(echo "$line" | kv workload) | $ld | $(echo "$line" | kv within_sd) | $(echo "$line" | kv between_sd) | $(echo "$line" | kv moment_sd) | $(echo "$line" | kv process_sd) | $(echo "$line" | kv paired_sd) | $(echo "$line" | kv unpaired_sd) | $(echo "$line" | kv best_reps) | $(echo "$line" | kv persistent_fp) |"
done <"$W/d.tsv"
echo
for c in "${CONDS[@]}"; do
	IFS='|' read -r label prefix extra what <<<"$c"
	echo "- $label: $what${prefix:+ (\`$prefix\`)}${extra:+, \`$extra\`}"
done
echo
echo "How far a process settles (condition free, CPU time): per rep, the mean of its log time minus the mean"
echo "of its process's last 3 reps:"
echo
echo '```'
cat "$W/profile.txt" 2>/dev/null
echo '```'
echo
