#!/usr/bin/env bash
# validate_family.sh - the family part of `make validate` (scripts/validate.sh; alone with
# VALIDATE_ONLY=family): whether the primary family of a report (docs/methodology.md,
# "Multiplicity: the question and the rest") keeps its error rates, and what it buys in
# half-width:
#   (g0) the Bonferroni quantiles and the exact signed-rank interval's width, primary family
#        against one family over every row (tests/tools/famsim.c, quantiles);
#   (g1) simulated documents through the real `allocab compare` (famsim gen: 3 workloads, both
#        regimes, A/A candidates a and b, candidate c VALIDATE_FAM_EFFECT% slower; normal noise of
#        sd VALIDATE_FAM_SD per run): the primary family's and the secondary family's A/A
#        false positives, coverage of the known effect, simultaneous coverage, half-widths;
#   (g2) the real `allocab bench --program` of tests/tools/phase_fixture.c (it marks a setup phase and
#        8 epochs), four arms of the same allocator (system and --arm sN=system: A/A, proven in
#        every process), VALIDATE_FAM_ROUNDS rounds, --allocation none: false positives of the
#        default primary rows (the 3 totals, cold) and of --primary epoch (the 3 steady epochs),
#        and the half-width of those rows against the one family of earlier versions;
#   (g3) the benches of (g2) with --one-cpu: the four arms of a round at once on one CPU.
# Rates with Clopper-Pearson 95% intervals. Writes the markdown section to $1. Environment:
# BUILD, VALIDATE_FAM_SIM_TRIALS (500), VALIDATE_FAM_TRIALS (120), VALIDATE_FAM_ROUNDS (10),
# VALIDATE_FAM_SIM_ROUNDS (12), VALIDATE_FAM_EFFECT (5), VALIDATE_FAM_SD (0.1).
set -u
BUILD=${BUILD:-build}
OUT=$1
SIM_TRIALS=${VALIDATE_FAM_SIM_TRIALS:-500}
TRIALS=${VALIDATE_FAM_TRIALS:-120}
ROUNDS=${VALIDATE_FAM_ROUNDS:-10}
SIM_ROUNDS=${VALIDATE_FAM_SIM_ROUNDS:-12}
EFFECT=${VALIDATE_FAM_EFFECT:-5}
SD=${VALIDATE_FAM_SD:-0.1}

A=$(cd "$BUILD" && pwd)/allocab
SIM=$BUILD/tests/famsim
FIX=$(cd "$(dirname "$BUILD/tests/phase_fixture")" && pwd)/phase_fixture
for f in "$A" "$SIM" "$FIX"; do
	[ -x "$f" ] || { echo "validate: $f is missing (make all test first)" >&2; exit 1; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-validate-family.XXXXXX")
trap 'rm -rf "$W"' EXIT
t_start=$(date +%s)
log() { printf '[validate family %4ds] %s\n' $(($(date +%s) - t_start)) "$*" >&2; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# rate K N: "K/N = P% (CP interval)"
rate() { printf '%s/%s = %s%% (%s)' "$1" "$2" "$(awk -v k="$1" -v n="$2" 'BEGIN { printf "%.1f", n ? 100 * k / n : 0 }')" "$("$SIM" cp "$1" "$2")"; }
# col FILE TAG FIELD: the FIELDth column of the lines tagged TAG, summed
sumcol() { awk -v t="$2" -v f="$3" '$1 == t { s += $f } END { print s + 0 }' "$1"; }
medcol() { awk -v t="$2" -v f="$3" '$1 == t { print $f }' "$1" | median; }
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)

log "(g0) quantiles"
"$SIM" quantiles >"$W/q.txt" || exit 1

log "(g1) $SIM_TRIALS simulated documents of $SIM_ROUNDS rounds"
: >"$W/sim.txt"
: >"$W/sim_all.txt"
for t in $(seq 1 "$SIM_TRIALS"); do
	"$SIM" gen "$t" "$SIM_ROUNDS" "$EFFECT" "$SD" "$W/s.json" || exit 1
	"$A" compare "$W/s.json" --format json -o "$W/s.cj" 2>/dev/null || { log "compare failed"; exit 1; }
	"$SIM" score "$W/s.cj" c "$EFFECT" total:steady >>"$W/sim.txt"
	"$A" compare "$W/s.json" --primary all --format json -o "$W/sa.cj" 2>/dev/null || exit 1
	"$SIM" score "$W/sa.cj" c "$EFFECT" total:steady | sed 's/^/all_/' >>"$W/sim_all.txt"
done
load_mid=$(cut -d' ' -f1-3 /proc/loadavg)

# aa_benches TAG FLAG...: TRIALS A/A program benches with the bench flags FLAG (none: one run
# after the other), scored into $W/TAG.{aa,all,ep,epall}.txt; $W/TAG.ok their number.
aa_benches() {
	local tag=$1 t ok=0
	shift
	: >"$W/$tag.aa.txt"
	: >"$W/$tag.all.txt"
	: >"$W/$tag.ep.txt"
	: >"$W/$tag.epall.txt"
	for t in $(seq 1 "$TRIALS"); do
		(cd "$W" && "$A" bench --program "$FIX 8" -a system --arm s2=system --arm s3=system \
			--arm s4=system --rounds "$ROUNDS" --allocation none "$@" --quiet -o "$W/t.json" \
			>/dev/null 2>"$W/t.err") ||
			{ log "bench failed: $(head -c 200 "$W/t.err")"; continue; }
		"$A" compare "$W/t.json" --format json -o "$W/t.cj" 2>/dev/null || continue
		"$A" compare "$W/t.json" --primary all --format json -o "$W/ta.cj" 2>/dev/null || continue
		"$A" compare "$W/t.json" --primary epoch --format json -o "$W/te.cj" 2>/dev/null || continue
		"$SIM" score "$W/t.cj" none 0 total:cold >>"$W/$tag.aa.txt"
		"$SIM" score "$W/ta.cj" none 0 total:cold | sed 's/^/all_/' >>"$W/$tag.all.txt"
		"$SIM" score "$W/te.cj" none 0 epoch:steady >>"$W/$tag.ep.txt"
		"$SIM" score "$W/ta.cj" none 0 epoch:steady | sed 's/^/all_/' >>"$W/$tag.epall.txt"
		ok=$((ok + 1))
	done
	echo "$ok" >"$W/$tag.ok"
}

# aa_table TAG: the table of aa_benches TAG.
aa_table() {
	local aa=$W/$1.aa.txt all=$W/$1.all.txt ep=$W/$1.ep.txt epall=$W/$1.epall.txt n
	n=$(cat "$W/$1.ok")
	echo "| primary rows | rows per trial | rows decided | trials with any primary row decided | median half-width, own family | the same rows in one family |"
	echo "|---|---|---|---|---|---|"
	echo "| default: the totals (cold) | $(awk '$1 == "primary" { print $2; exit }' "$aa") | $(rate "$(sumcol "$aa" primary 3)" "$(sumcol "$aa" primary 2)") | $(rate "$(sumcol "$aa" primary 4)" "$n") | $(medcol "$aa" selected 8 | awk '{ printf "%.1f%%", $1 }') | $(medcol "$all" all_selected 8 | awk '{ printf "%.1f%%", $1 }') |"
	echo "| \`--primary epoch\` (steady) | $(awk '$1 == "primary" { print $2; exit }' "$ep") | $(rate "$(sumcol "$ep" primary 3)" "$(sumcol "$ep" primary 2)") | $(rate "$(sumcol "$ep" primary 4)" "$n") | $(medcol "$ep" selected 8 | awk '{ printf "%.1f%%", $1 }') | $(medcol "$epall" all_selected 8 | awk '{ printf "%.1f%%", $1 }') |"
	echo "| secondary (default) | $(awk '$1 == "secondary" { print $2; exit }' "$aa") | $(rate "$(sumcol "$aa" secondary 3)" "$(sumcol "$aa" secondary 2)") | $(rate "$(sumcol "$aa" secondary 4)" "$n") | $(medcol "$aa" secondary 8 | awk '{ printf "%.1f%%", $1 }') | - |"
	echo "| one family (\`--primary all\`) | $(awk '$1 == "all_primary" { print $2; exit }' "$all") | $(rate "$(sumcol "$all" all_primary 3)" "$(sumcol "$all" all_primary 2)") | $(rate "$(sumcol "$all" all_primary 4)" "$n") | - | $(medcol "$all" all_primary 8 | awk '{ printf "%.1f%%", $1 }') |"
}

log "(g2) $TRIALS A/A program benches of $ROUNDS rounds"
aa_benches seq
load_g2=$(cut -d' ' -f1-3 /proc/loadavg)
log "(g3) $TRIALS A/A program benches of $ROUNDS rounds, --one-cpu"
aa_benches one --one-cpu
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(($(date +%s) - t_start))
log "done in ${elapsed}s"

{
	echo "## (g) The primary family: error rates and half-width"
	echo
	echo "Run of $(date -u +%Y-%m-%d), $elapsed s on $cpu ($(nproc) CPUs); load average (1, 5, 15 min) $load_start at the start, $load_mid after (g1), $load_end at the end."
	echo
	echo "**(g0) What a smaller family buys** (the normal quantile z_{1-alpha/(2m)} and the mean width of the exact signed-rank interval of normal data, 20,000 draws; a ratio below 1 is narrower):"
	echo
	echo "| $(head -1 "$W/q.txt") |"
	echo "|---|---|---|---|---|---|---|---|---|"
	tail -n +2 "$W/q.txt" | sed 's/^/| /; s/$/ |/'
	echo
	n=$(grep -c '^primary' "$W/sim.txt")
	echo "**(g1) Simulated documents through \`allocab compare\`** ($n trials, $SIM_ROUNDS rounds, sd $SD per run, candidate c $EFFECT% slower, a and b A/A):"
	echo
	echo "| family | rows per trial | A/A rows decided | trials with any A/A row decided | rows of c covering +$EFFECT% | trials with every row covered | median half-width |"
	echo "|---|---|---|---|---|---|---|"
	for fam in primary secondary; do
		rows=$(awk -v t="$fam" '$1 == t { print $2 + $5; exit }' "$W/sim.txt")
		echo "| $fam | $rows | $(rate "$(sumcol "$W/sim.txt" "$fam" 3)" "$(sumcol "$W/sim.txt" "$fam" 2)") | $(rate "$(sumcol "$W/sim.txt" "$fam" 4)" "$n") | $(rate "$(sumcol "$W/sim.txt" "$fam" 6)" "$(sumcol "$W/sim.txt" "$fam" 5)") | $(rate "$(sumcol "$W/sim.txt" "$fam" 7)" "$n") | $(medcol "$W/sim.txt" "$fam" 8 | awk '{ printf "%.2f%%", $1 }') |"
	done
	echo "| one family (\`--primary all\`) | $(awk '$1 == "all_primary" { print $2 + $5; exit }' "$W/sim_all.txt") | $(rate "$(sumcol "$W/sim_all.txt" all_primary 3)" "$(sumcol "$W/sim_all.txt" all_primary 2)") | $(rate "$(sumcol "$W/sim_all.txt" all_primary 4)" "$n") | $(rate "$(sumcol "$W/sim_all.txt" all_primary 6)" "$(sumcol "$W/sim_all.txt" all_primary 5)") | $(rate "$(sumcol "$W/sim_all.txt" all_primary 7)" "$n") | $(medcol "$W/sim_all.txt" all_primary 8 | awk '{ printf "%.2f%%", $1 }') |"
	echo
	echo "The steady totals (the primary rows), median half-width per trial: $(medcol "$W/sim.txt" selected 8 | awk '{ printf "%.2f%%", $1 }') in their own family against $(medcol "$W/sim_all.txt" all_selected 8 | awk '{ printf "%.2f%%", $1 }') in one family over every row; coverage of c's totals $(rate "$(sumcol "$W/sim.txt" selected 6)" "$(sumcol "$W/sim.txt" selected 5)")."
	echo
	echo "**(g2) A/A program benches** ($(cat "$W/seq.ok") of $TRIALS benches ran; \`allocab bench --program 'phase_fixture 8'\`, four arms of system, $ROUNDS rounds, \`--allocation none\`; every decided row is a false positive):"
	echo
	aa_table seq
	echo
	echo "**(g3) The same A/A program benches with \`--one-cpu\`** ($(cat "$W/one.ok") of $TRIALS benches ran; the four arms of a round at once on one CPU; load average $load_g2 before them):"
	echo
	aa_table one
} >"$OUT"
