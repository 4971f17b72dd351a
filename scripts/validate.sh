#!/usr/bin/env bash
# validate.sh - `make validate`: measures on this machine whether allocab keeps its promises, and
# writes its report into docs/validation.md, "The last `make validate` on this machine": (a) A/A false positives of allocab's method next to a naive one,
# (b) injected slowdowns of known size (system_slow): estimate, interval, coverage, detection rate,
# (c) duet and one CPU against sequential interleaving at equal wall-clock budget, (d) the sequential gate of
# bench --gate on a synthetic command: A/A wrong decisions and power against today's procedure
# (scripts/validate_seq.sh), (e) the pooled interval of a fleet of machines on synthetic fleets
# (scripts/validate_fleet.sh), (f) where this machine's variance is (scripts/validate_variance.sh),
# (g) the primary family's error rates and half-width (scripts/validate_family.sh), (h) how well
# sessions of this machine agree (scripts/validate_sessions.sh), (i) one CPU against its solo
# rounds on programs of known mechanism (scripts/validate_solo.sh).
# Not part of `make test`.
# Knobs (environment): VALIDATE_ONLY (all; machine: (a) to (c); seq: (d) alone; fleet: (e)
# alone; variance: (f) alone, knobs in scripts/validate_variance.sh; sessions: (h) alone, knobs in
# scripts/validate_sessions.sh; family: (g) alone, knobs in scripts/validate_family.sh; solo: (i)
# alone, knobs in scripts/validate_solo.sh),
# VALIDATE_SCALE (small), VALIDATE_WORKLOAD (checkpoint_write), VALIDATE_TRIALS (20),
# VALIDATE_ROUNDS (10, the bench default), VALIDATE_ROUNDS_LONG (30), VALIDATE_DUET_TRIALS (10),
# VALIDATE_DUET_BUDGET (15 s), VALIDATE_DUET_MODES ("sequential duet one-cpu": (c)'s modes), VALIDATE_OUT (unset: the report goes between the BEGIN and END
# lines of docs/validation.md, its headings one level down; a file: the report alone, there); (d): VALIDATE_SEQ_TRIALS
# (200), VALIDATE_SEQ_ROUNDS (40), VALIDATE_SEQ_MAX (80), VALIDATE_SEQ_MS (4), VALIDATE_SEQ_SD
# (0.1), VALIDATE_SEQ_EFFECT (5).
set -u
BUILD=${BUILD:-build}
SCALE=${VALIDATE_SCALE:-small}
WL=${VALIDATE_WORKLOAD:-checkpoint_write}
TRIALS=${VALIDATE_TRIALS:-20}
ROUNDS=${VALIDATE_ROUNDS:-10}
ROUNDS_LONG=${VALIDATE_ROUNDS_LONG:-30}
DUET_TRIALS=${VALIDATE_DUET_TRIALS:-10}
DUET_BUDGET=${VALIDATE_DUET_BUDGET:-15}
DUET_MODES=${VALIDATE_DUET_MODES:-sequential duet one-cpu}
OUT=${VALIDATE_OUT:-}
DOC=docs/validation.md
ONLY=${VALIDATE_ONLY:-all}
EFFECTS="2 5 10"

case "$ONLY" in all | machine | seq | fleet | variance | sessions | family | solo) ;; *)
	echo "validate: VALIDATE_ONLY must be all, machine, seq, fleet, variance, sessions, family or solo" >&2
	exit 2 ;;
esac
[ -z "$OUT" ] || mkdir -p "$(dirname "$OUT")"
machine_line() {
	echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, kernel $(uname -r);"
}
# publish REPORT: the report to VALIDATE_OUT, or into docs/validation.md between its markers (its
# first heading dropped, the others one level down), atomically either way.
publish() {
	local rep=$1 dest=${OUT:-$DOC} begin='<!-- BEGIN make validate' end='<!-- END make validate -->'
	if [ -n "$OUT" ]; then
		cp "$rep" "$OUT.tmp.$$" && mv "$OUT.tmp.$$" "$OUT" || { rm -f "$OUT.tmp.$$"; return 1; }
	else
		[ "$(grep -c "^$begin" "$DOC")" = 1 ] && [ "$(grep -cxF -- "$end" "$DOC")" = 1 ] ||
			{ echo "validate: $DOC needs one '$begin ...' line and one '$end' line" >&2; return 1; }
		awk -v b="$begin" -v e="$end" -v r="$rep" '
			index($0, b) == 1 {
				print
				first = 1
				while ((getline l < r) > 0) {
					if (first && l ~ /^# /) { first = 0; getline l < r; if (l != "") print l; continue }
					first = 0
					if (l ~ /^#+ /) l = "#" l
					print l
				}
				skip = 1
				next
			}
			$0 == e { skip = 0 }
			!skip' "$DOC" >"$DOC.tmp.$$" && mv "$DOC.tmp.$$" "$DOC" || { rm -f "$DOC.tmp.$$"; return 1; }
	fi
	echo "validate: written $dest" >&2
}
# One part alone: its section under the file's heading.
only_part() {
	local rep
	rep=$(mktemp "${TMPDIR:-/tmp}/allocab-validate.XXXXXX") || exit 1
	{
		echo "# allocab validation on this machine"
		echo
		echo "Written by \`VALIDATE_ONLY=$ONLY make validate\` on $(date -u +%Y-%m-%dT%H:%M:%SZ)."
		machine_line
		echo "load average (1, 5, 15 min) $(cut -d' ' -f1-3 /proc/loadavg) at the start."
		echo
		"$@" || { rm -f "$rep"; exit 1; }
	} >"$rep"
	publish "$rep" || { rm -f "$rep"; exit 1; }
	rm -f "$rep"
	exit 0
}
seq_part() {
	local rc=0
	BUILD=$BUILD scripts/validate_seq.sh "$OUT.seq.$$" && cat "$OUT.seq.$$" || rc=1
	rm -f "$OUT.seq.$$"
	return $rc
}
[ "$ONLY" = seq ] && only_part seq_part
[ "$ONLY" = variance ] && only_part env BUILD="$BUILD" scripts/validate_variance.sh
[ "$ONLY" = sessions ] && only_part env BUILD="$BUILD" scripts/validate_sessions.sh
[ "$ONLY" = solo ] && only_part env BUILD="$BUILD" scripts/validate_solo.sh
family_part() {
	local rc=0
	BUILD=$BUILD scripts/validate_family.sh "$OUT.family.$$" && cat "$OUT.family.$$" || rc=1
	rm -f "$OUT.family.$$"
	return $rc
}
[ "$ONLY" = family ] && only_part family_part
if [ "$ONLY" = fleet ]; then
	only_part env BUILD="$BUILD" scripts/validate_fleet.sh
	exit 0
fi

A=$BUILD/allocab
J=$BUILD/tests/jget
NAIVE=$BUILD/tests/naive
PROBE=$BUILD/tests/inject_probe
SYS=$BUILD/allocab-system
SLOW=$BUILD/allocab-system_slow

for f in "$A" "$J" "$NAIVE" "$PROBE" "$SYS" "$SLOW"; do
	[ -x "$f" ] || { echo "validate: $f is missing (make all test first)" >&2; exit 1; }
done
case "$WL" in feature_extract | checkpoint_write) ;; *)
	echo "validate: VALIDATE_WORKLOAD must be single-threaded (duet): feature_extract or checkpoint_write" >&2
	exit 2 ;;
esac
W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-validate.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$(dirname "$OUT")"
t_start=$(date +%s)
log() { printf '[validate %4ds] %s\n' $(($(date +%s) - t_start)) "$*" >&2; }

# Values of one comparison of `allocab compare --format json` (the first, the workload's total).
cmp_json() { "$A" compare "$1" --baseline "$2" --candidate "$3" --workload "$WL" --format json 2>/dev/null >"$W/cmp.json"; }
cget() { "$J" "$W/cmp.json" "comparisons.0.$1"; }

# awk helpers over a column of numbers on stdin
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# Wilson 95% interval of k successes in n, as "k/n (lo-hi%)".
rate() { awk -v k="$1" -v n="$2" 'BEGIN { z = 1.959964; p = k / n; d = 1 + z * z / n; c = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d; lo = c - h; if (lo < 0) lo = 0; hi = c + h; if (hi > 1) hi = 1; printf "%d/%d (%.0f-%.0f%%)", k, n, lo * 100, hi * 100 }'; }
pct() { awk -v x="$1" 'BEGIN { if (x == "nan" || x == "") print "-"; else printf "%+.2f%%", (exp(x) - 1) * 100 }'; }

# ---- the machine and the workload ----
log "pilot: $WL at scale $SCALE"
"$SLOW" run "$WL" --scale "$SCALE" --reps 1 --out "$W/r1.json" &&
	"$SLOW" run "$WL" --scale "$SCALE" --reps 2 --out "$W/r2.json" || { echo "validate: pilot run failed" >&2; exit 1; }
calls_total=$("$J" "$W/r1.json" counters.injected_calls)
calls_rep=$(($("$J" "$W/r2.json" counters.injected_calls) - calls_total))
for i in 1 2 3 4 5 6 7; do
	"$SYS" run "$WL" --scale "$SCALE" --out "$W/p.json" && "$J" "$W/p.json" reps.0.phases.total.wall_ns
done >"$W/pilot.txt"
t_base=$(median <"$W/pilot.txt")
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
log "pilot: $calls_rep allocator calls per rep, median time $t_base ns"

# Cost of N ns of injection per call beyond the spin counter (first clock read, call): from the
# probe, at the N in question, quiet loop.
probe_cost() { ALLOCAB_INJECT_NS=$1 "$PROBE" cost 100000 | sed -E 's/.*extra_ns_per_call=([0-9.]+).*spun_ns_per_call=([0-9.]+).*/\1 \2/'; }
declare -A NS EXTRA SPUN
for e in $EFFECTS; do
	n=$(awk -v p="$e" -v t="$t_base" -v c="$calls_rep" 'BEGIN { n = p / 100 * t / c - 55; printf "%d", n < 1 ? 1 : n }')
	NS[$e]=$n
	read -r EXTRA[$e] SPUN[$e] < <(probe_cost "$n")
	log "effect $e%: ALLOCAB_INJECT_NS=$n (probe: ${EXTRA[$e]} ns extra per call, ${SPUN[$e]} in the spin counter)"
done

# True effect of one injected bench, as a log ratio: the spin measured in the slow runs, scaled to
# the calls of one rep, plus the probe's cost outside the spin counter, over the baseline median.
# A run's counters cover all its reps (as many as the steady rule took) and its setup: its spin per
# rep is its spin times calls_rep over its calls (calls_total for the first rep with the setup,
# calls_rep for each further one). The baseline is the median of the compared row (its regime and
# time: CPU time by default).
spin_per_rep() { # bench.json
	PYTHONPATH="${0%/*}" python3 - "$1" "$calls_total" "$calls_rep" <<'PY'
import benchfile, statistics, sys
d, ct, cr = benchfile.load(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
v = [run["record"]["counters"]["injected_spin_ns"] * cr / (ct + (len(run["record"]["reps"]) - 1) * cr)
     for rnd in d["rounds"] for run in rnd["runs"]
     if run.get("record") and run["record"].get("counters", {}).get("injected_spin_ns")]
print(statistics.median(v) if v else 0)
PY
}
# With --one-cpu the spin counter also holds the time a run waited for its CPU inside a spin (the
# spin reads the monotonic clock), so the spin is the pilot's, measured alone: SPUN per call.
true_log() { # bench.json effect [mode]
	local spin over
	if [ "${3:-}" = one-cpu ]; then
		spin=$(awk -v s="${SPUN[$2]}" -v cr="$calls_rep" 'BEGIN { print s * cr }')
	else
		spin=$(spin_per_rep "$1")
	fi
	over=$(awk -v x="${EXTRA[$2]}" -v s="${SPUN[$2]}" 'BEGIN { print x - s }')
	awk -v s="$spin" -v cr="$calls_rep" -v o="$over" -v b="$(cget median_ns_baseline)" \
		'BEGIN { d = s + cr * o; print log(1 + d / b) }'
}

# ---- (a) A/A false positives ----
log "(a) $TRIALS A/A comparisons of $ROUNDS rounds each"
: >"$W/a.tsv"
for t in $(seq 1 "$TRIALS"); do
	"$A" calibrate -a system -w "$WL" --scale "$SCALE" --rounds "$ROUNDS" --quiet -o "$W/a.json" >/dev/null || { log "calibrate failed"; continue; }
	cmp_json "$W/a-runs.json" system.A system.B
	est=$(cget ci.log_ratio) lo=$(cget ci.log_lo) hi=$(cget ci.log_hi) v=$(cget verdict)
	ni=$("$NAIVE" "$W/a-runs.json:system.A:$WL" "$W/a-runs.json:system.B:$WL")
	for half in 1 2; do
		for i in $(seq 1 "$ROUNDS"); do
			"$SYS" run "$WL" --scale "$SCALE" --out "$W/s.json" && "$J" "$W/s.json" reps.0.phases.total.wall_ns
		done >"$W/seq$half.txt"
	done
	ns=$("$NAIVE" "$W/seq1.txt" "$W/seq2.txt")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$est" "$lo" "$hi" "$v" "$ni" "$ns" >>"$W/a.tsv"
done

# ---- (b) injected slowdowns ----
: >"$W/b.tsv"
for e in $EFFECTS; do
	for r in "$ROUNDS" "$ROUNDS_LONG"; do
		log "(b) $e% injected, $TRIALS trials of $r rounds"
		for t in $(seq 1 "$TRIALS"); do
			ALLOCAB_INJECT_NS=${NS[$e]} "$A" bench -a system,system_slow -w "$WL" --scale "$SCALE" \
				--rounds "$r" --quiet -o "$W/b.json" || continue
			cmp_json "$W/b.json" system system_slow
			tl=$(true_log "$W/b.json" "$e")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$e" "$r" "$t" "$tl" "$(cget ci.log_ratio)" \
				"$(cget ci.log_lo)" "$(cget ci.log_hi)" "$(cget verdict)" >>"$W/b.tsv"
		done
	done
done

# ---- (c) duet against sequential interleaving, equal budget ----
: >"$W/c.tsv"
for t in $(seq 1 "$DUET_TRIALS"); do
	for mode in $DUET_MODES; do
		flag=
		[ $mode = duet ] && flag=--duet
		[ $mode = one-cpu ] && flag=--one-cpu
		log "(c) trial $t: $mode, A/A and 5% injected, ${DUET_BUDGET} s each"
		"$A" calibrate -a system -w "$WL" --scale "$SCALE" --budget "$DUET_BUDGET" $flag --quiet -o "$W/c.json" >/dev/null &&
			cmp_json "$W/c-runs.json" system.A system.B &&
			printf '%s\t%s\tA/A\t0\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$t" "$(cget n)" "$(cget ci.log_ratio)" \
				"$(cget ci.log_lo)" "$(cget ci.log_hi)" "$(cget verdict)" >>"$W/c.tsv"
		ALLOCAB_INJECT_NS=${NS[5]} "$A" bench -a system,system_slow -w "$WL" --scale "$SCALE" \
			--budget "$DUET_BUDGET" $flag --quiet -o "$W/cb.json" &&
			cmp_json "$W/cb.json" system system_slow &&
			printf '%s\t%s\t5%%\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$t" "$(true_log "$W/cb.json" 5 "$mode")" "$(cget n)" \
				"$(cget ci.log_ratio)" "$(cget ci.log_lo)" "$(cget ci.log_hi)" "$(cget verdict)" >>"$W/c.tsv"
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(($(date +%s) - t_start))

# ---- the report ----
{
	echo "# allocab validation on this machine"
	echo
	echo "Written by \`make validate\` (scripts/validate.sh) on $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((elapsed / 60)) min $((elapsed % 60)) s."
	machine_line
	echo "load average (1, 5, 15 min) $load_start at the start, $load_end at the end."
	echo "Workload \`$WL\` at scale \`$SCALE\`: $calls_rep allocator calls per run, median $(awk -v t="$t_base" 'BEGIN { printf "%.1f", t / 1e6 }') ms under glibc (pilot of 7 runs)."
	echo "Decisions use alpha = 0.05: allocab's verdict is \`allocab compare\`'s (its printed signed-rank interval, simultaneous"
	echo "over the regimes compared: 97.5% each for steady and cold, excludes 1; an interval within ±2% is \"equivalent\", no"
	echo "false positive); the naive verdict is Welch's t test on the raw times (p < 0.05)."
	echo
	echo "## (a) A/A: the same allocator against itself, $TRIALS comparisons of $ROUNDS rounds"
	echo
	echo "- allocab: \`allocab calibrate -a system\` (two identical arms, shuffled, padded, 1 warm-up round), then \`allocab compare\`."
	echo "- naive, same runs: the same two arms' times, unpaired: ratio of means, Welch t test."
	echo "- naive, sequential: $ROUNDS runs of the driver, then $ROUNDS more (no shuffling, no padding), ratio of means, Welch t test."
	echo
	fa=$(awk -F'\t' '$5 == "faster" || $5 == "slower"' "$W/a.tsv" | wc -l)
	fi=$(awk -F'\t' '$6 ~ /verdict=different/' "$W/a.tsv" | wc -l)
	fs=$(awk -F'\t' '$7 ~ /verdict=different/' "$W/a.tsv" | wc -l)
	na=$(wc -l <"$W/a.tsv")
	echo "| method | false positives at alpha 0.05 (Wilson 95% interval) |"
	echo "|---|---|"
	echo "| allocab (paired rounds, signed-rank) | $(rate "$fa" "$na") |"
	echo "| naive on the same interleaved runs | $(rate "$fi" "$na") |"
	echo "| naive, sequential (all A runs, then all B runs) | $(rate "$fs" "$na") |"
	echo
	echo "<details><summary>per trial</summary>"
	echo
	echo "| trial | allocab estimate [printed interval] | verdict | naive same runs: ratio, p | naive sequential: ratio, p |"
	echo "|---|---|---|---|---|"
	while IFS=$'\t' read -r t est lo hi v ni ns; do
		echo "| $t | $(pct "$est") [$(pct "$lo"), $(pct "$hi")] | $v | $(echo "$ni" | sed -E 's/.*ratio=([0-9.]+).* p=([0-9.e-]+).*/\1, \2/') | $(echo "$ns" | sed -E 's/.*ratio=([0-9.]+).* p=([0-9.e-]+).*/\1, \2/') |"
	done <"$W/a.tsv"
	echo
	echo "</details>"
	echo
	echo "## (b) Injected slowdowns (system_slow against system), $TRIALS trials each"
	echo
	echo "\`ALLOCAB_INJECT_NS\` per call chosen for the nominal effect from the pilot; the true effect of each trial is"
	echo "measured: the spin time the slow runs' counters report (scaled to one rep) plus the probe's cost per call"
	echo "outside the spin, over the trial's glibc median. Covered: the printed interval contains the true effect."
	echo "Detected: \`allocab compare\` says slower."
	echo
	echo "| nominal | ALLOCAB_INJECT_NS | rounds | true effect (median) | estimate (median) | interval width (median) | coverage | detection |"
	echo "|---|---|---|---|---|---|---|---|"
	for e in $EFFECTS; do
		for r in "$ROUNDS" "$ROUNDS_LONG"; do
			awk -F'\t' -v e="$e" -v r="$r" '$1 == e && $2 == r' "$W/b.tsv" >"$W/bsel.tsv"
			n=$(wc -l <"$W/bsel.tsv")
			[ "$n" -gt 0 ] || continue
			cov=$(awk -F'\t' '$6 <= $4 && $4 <= $7' "$W/bsel.tsv" | wc -l)
			det=$(awk -F'\t' '$8 == "slower"' "$W/bsel.tsv" | wc -l)
			echo "| $e% | ${NS[$e]} | $r | $(pct "$(cut -f4 "$W/bsel.tsv" | median)") | $(pct "$(cut -f5 "$W/bsel.tsv" | median)") | $(awk -F'\t' '{ printf "%.2f\n", (exp($7) - exp($6)) * 100 }' "$W/bsel.tsv" | median | awk '{ printf "%.2f", $1 }') pp | $(rate "$cov" "$n") | $(rate "$det" "$n") |"
		done
	done
	echo
	echo "<details><summary>per trial</summary>"
	echo
	echo "| nominal | rounds | trial | true | estimate [printed interval] | verdict |"
	echo "|---|---|---|---|---|---|"
	while IFS=$'\t' read -r e r t tl est lo hi v; do
		echo "| $e% | $r | $t | $(pct "$tl") | $(pct "$est") [$(pct "$lo"), $(pct "$hi")] | $v |"
	done <"$W/b.tsv"
	echo
	echo "</details>"
	echo
	echo "## (c) Duet and one CPU against sequential interleaving, ${DUET_BUDGET} s budget each, $DUET_TRIALS trials"
	echo
	echo "Same workload, same wall-clock budget (warm-up included). Sequential: the two runs of a round one after"
	echo "the other; duet: at the same time, pinned to CPUs 0 and 1, swapped every round; one-cpu: at the same"
	echo "time on one CPU, which the kernel shares between them, drawn every round."
	echo
	echo "| mode | test | rounds in budget (median) | interval width (median) | false positives / detection | coverage |"
	echo "|---|---|---|---|---|---|"
	for mode in $DUET_MODES; do
		for kind in A/A 5%; do
			awk -F'\t' -v m="$mode" -v k="$kind" '$1 == m && $3 == k' "$W/c.tsv" >"$W/csel.tsv"
			n=$(wc -l <"$W/csel.tsv")
			[ "$n" -gt 0 ] || continue
			if [ "$kind" = A/A ]; then
				k=$(awk -F'\t' '$9 == "faster" || $9 == "slower"' "$W/csel.tsv" | wc -l)
				cov="-"
			else
				k=$(awk -F'\t' '$9 == "slower"' "$W/csel.tsv" | wc -l)
				cov=$(rate "$(awk -F'\t' '$7 <= $4 && $4 <= $8' "$W/csel.tsv" | wc -l)" "$n")
			fi
			echo "| $mode | $kind | $(cut -f5 "$W/csel.tsv" | median) | $(awk -F'\t' '{ printf "%.2f\n", (exp($8) - exp($7)) * 100 }' "$W/csel.tsv" | median | awk '{ printf "%.2f", $1 }') pp | $(rate "$k" "$n") | $cov |"
		done
	done
	echo
	echo "<details><summary>per trial</summary>"
	echo
	echo "| mode | trial | test | true | rounds | estimate [printed interval] | verdict |"
	echo "|---|---|---|---|---|---|---|"
	while IFS=$'\t' read -r m t k tl n est lo hi v; do
		echo "| $m | $t | $k | $(pct "$tl") | $n | $(pct "$est") [$(pct "$lo"), $(pct "$hi")] | $v |"
	done <"$W/c.tsv"
	echo
	echo "</details>"
	echo
	[ "$ONLY" = machine ] || BUILD=$BUILD scripts/validate_fleet.sh
} >"$W/validation.md"
if [ "$ONLY" = all ]; then
	log "(d) sequential gating"
	BUILD=$BUILD scripts/validate_seq.sh "$W/seq.md" && { echo; cat "$W/seq.md"; } >>"$W/validation.md"
	log "(f) where the variance is"
	BUILD=$BUILD scripts/validate_variance.sh >"$W/variance.md" &&
		{ echo; cat "$W/variance.md"; } >>"$W/validation.md"
	log "(h) sessions of this machine"
	BUILD=$BUILD scripts/validate_sessions.sh >"$W/sessions.md" &&
		{ echo; cat "$W/sessions.md"; } >>"$W/validation.md"
	log "(g) the primary family"
	BUILD=$BUILD scripts/validate_family.sh "$W/family.md" &&
		{ echo; cat "$W/family.md"; } >>"$W/validation.md"
	log "(i) one CPU against its solo rounds"
	BUILD=$BUILD scripts/validate_solo.sh >"$W/solo.md" &&
		{ echo; cat "$W/solo.md"; } >>"$W/validation.md"
fi
publish "$W/validation.md" || exit 1
