#!/usr/bin/env bash
# validate_seq.sh - the sequential part of `make validate` (scripts/validate.sh; alone with
# VALIDATE_ONLY=seq): the real `allocab bench --gate` on a synthetic command, two arms that run
# build/tests/jsleep (a sleep of VALIDATE_SEQ_MS ms with log-normal jitter of sd VALIDATE_SEQ_SD),
# gated after every round with --max-slowdown 0%:
#   (d1) A/A exactly at the bound, plans of VALIDATE_SEQ_ROUNDS rounds: wrong decisions each way;
#   (d2) a true VALIDATE_SEQ_EFFECT% slowdown, plans of VALIDATE_SEQ_MAX rounds: power;
# today's procedure (the fixed-n 95% interval after every round) is replayed on the same rounds
# (tests/tools/seqsim.c, replay: its decisions depend only on the rounds so far, and the sequential
# interval contains the fixed-n one, so a bench that stopped early holds every round today's
# procedure needed). The budget at which today's procedure catches the effect in 90% of trials is
# then given to the sequential gate as its plan in (d3), when it is shorter than VALIDATE_SEQ_MAX.
# Writes the markdown section to $1. Environment: BUILD, VALIDATE_SEQ_TRIALS (200),
# VALIDATE_SEQ_ROUNDS (40), VALIDATE_SEQ_MAX (80), VALIDATE_SEQ_MS (4), VALIDATE_SEQ_SD (0.1),
# VALIDATE_SEQ_EFFECT (5).
set -u
BUILD=${BUILD:-build}
OUT=$1
TRIALS=${VALIDATE_SEQ_TRIALS:-200}
ROUNDS=${VALIDATE_SEQ_ROUNDS:-40}
MAX=${VALIDATE_SEQ_MAX:-80}
MS=${VALIDATE_SEQ_MS:-4}
SD=${VALIDATE_SEQ_SD:-0.1}
EFFECT=${VALIDATE_SEQ_EFFECT:-5}

A=$BUILD/allocab
J=$BUILD/tests/jget
SIM=$BUILD/tests/seqsim
SLEEP=$(cd "$(dirname "$BUILD/tests/jsleep")" && pwd)/jsleep
for f in "$A" "$J" "$SIM" "$SLEEP"; do
	[ -x "$f" ] || { echo "validate: $f is missing (make all test first)" >&2; exit 1; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-validate-seq.XXXXXX")
trap 'rm -rf "$W"' EXIT
t_start=$(date +%s)
log() { printf '[validate seq %4ds] %s\n' $(($(date +%s) - t_start)) "$*" >&2; }
rate() { awk -v k="$1" -v n="$2" 'BEGIN { z = 1.959964; p = k / n; d = 1 + z * z / n; c = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d; lo = c - h; if (lo < 0) lo = 0; hi = c + h; if (hi > 1) hi = 1; printf "%d/%d = %.1f%% (%.1f-%.1f%%)", k, n, 100 * p, lo * 100, hi * 100 }'; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# The candidate's sleep: the pilot's median process time T of an arm, so that the candidate's
# whole process takes EFFECT% longer: MS + EFFECT/100 x T.
log "pilot: two identical arms, 20 rounds"
"$A" bench --cmd a="exec $SLEEP $MS $SD" --cmd b="exec $SLEEP $MS $SD" --rounds 20 --quiet -o "$W/pilot.json" ||
	{ echo "validate: the pilot bench failed" >&2; exit 1; }
"$A" compare "$W/pilot.json" --baseline a --format json -o "$W/pilot.cj" 2>/dev/null
t_med=$("$J" "$W/pilot.cj" comparisons.0.median_ns_baseline)
MS_C=$(awk -v m="$MS" -v e="$EFFECT" -v t="$t_med" 'BEGIN { printf "%.4f", m + e / 100 * t / 1e6 }')
log "pilot: median process ${t_med} ns; the candidate sleeps $MS_C ms"

# One trial: bench --gate with a plan of $2 rounds, the candidate sleeping $1 ms. Appends
# "new_outcome new_rounds today_outcome today_rounds estimate sd" to $3.
trial() {
	local st
	"$A" bench --cmd a="exec $SLEEP $MS $SD" --cmd b="exec $SLEEP $1 $SD" --rounds "$2" --quiet \
		-o "$W/t.json" --gate --candidate b --baseline a --max-slowdown 0% >/dev/null 2>"$W/t.err"
	st=$?
	case $st in 0) o=PASS ;; 1) o=FAIL ;; 3) o=NONE ;; *) log "bench exit $st: $(head -c 200 "$W/t.err")"; return ;; esac
	"$A" compare "$W/t.json" --baseline a --format json -o "$W/t.cj" 2>/dev/null
	printf '%s %s %s %s %s\n' "$o" "$("$J" "$W/t.json" gate_decision.rounds)" "$("$SIM" replay "$W/t.json" b a 0)" \
		"$("$J" "$W/t.cj" comparisons.0.ci.log_ratio)" "$("$J" "$W/t.cj" comparisons.0.sd_log_ratio)" >>"$3"
}

log "(d1) A/A at the bound: $TRIALS trials, plans of $ROUNDS rounds"
: >"$W/aa.txt"
for t in $(seq 1 "$TRIALS"); do trial "$MS" "$ROUNDS" "$W/aa.txt"; done
log "(d2) $EFFECT% slower: $TRIALS trials, plans of $MAX rounds"
: >"$W/eff.txt"
for t in $(seq 1 "$TRIALS"); do trial "$MS_C" "$MAX" "$W/eff.txt"; done

# Today's catch rate within budget b: FAIL by round b in the replay.
today_caught() { awk -v b="$1" '$3 == "FAIL" && $4 <= b' "$W/eff.txt" | wc -l; }
n_eff=$(wc -l <"$W/eff.txt")
b_today=
for b in $(seq 10 10 "$MAX"); do
	if [ $((100 * $(today_caught "$b"))) -ge $((90 * n_eff)) ]; then b_today=$b; break; fi
done
if [ -n "$b_today" ] && [ "$b_today" -lt "$MAX" ]; then
	log "(d3) today's procedure catches $EFFECT% in 90% within $b_today rounds: $TRIALS trials with that plan"
	: >"$W/eff_b.txt"
	for t in $(seq 1 "$TRIALS"); do trial "$MS_C" "$b_today" "$W/eff_b.txt"; done
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
sd_aa=$(awk '{ print $6 }' "$W/aa.txt" | median | awk '{ printf "%.3f", $1 }')
true_eff=$(awk '{ print $5 }' "$W/eff.txt" | median)
plan=$("$SIM" plan "$sd_aa" "$EFFECT" 0.9)
elapsed=$(($(date +%s) - t_start))

count() { awk -v c="$2" -v o="$3" '$c == o' "$1" | wc -l; }
{
	echo "## (d) Sequential gating: \`allocab bench --gate\` judged after every round"
	echo
	echo "Written in $((elapsed / 60)) min $((elapsed % 60)) s; load average (1, 5, 15 min) $load_start at the start, $load_end at the end."
	echo "Arms: \`--cmd a='exec jsleep $MS $SD' --cmd b='exec jsleep MS_B $SD'\` (build/tests/jsleep: a sleep of MS_B ms times"
	echo "exp($SD Z)), each run one process timed whole; gate \`--candidate b --baseline a --max-slowdown 0%\`, looks after every"
	echo "round from round 6 (--min-rounds). Pilot: median process time $(awk -v t="$t_med" 'BEGIN { printf "%.2f", t / 1e6 }') ms; for a $EFFECT% slowdown b sleeps $MS_C ms."
	echo "Median sd of the per-round log ratios over the A/A trials: $sd_aa; median estimated effect of the $EFFECT% trials:"
	echo "$(awk -v x="$true_eff" 'BEGIN { if (x == "nan" || x == "") print "-"; else printf "%+.2f%%", (exp(x) - 1) * 100 }')."
	echo "\"today\": the fixed-n 95% interval after every round (the gate before sequential intervals), replayed on the same"
	echo "rounds; \"sequential\": the real bench's gate. Rates with Wilson 95% intervals."
	echo
	echo "| test | plan | procedure | wrong PASS | wrong FAIL | wrong, both ways | caught (FAIL) |"
	echo "|---|---|---|---|---|---|---|"
	n=$(wc -l <"$W/aa.txt")
	echo "| A/A at the bound | $ROUNDS | today | $(rate "$(count "$W/aa.txt" 3 PASS)" "$n") | $(rate "$(count "$W/aa.txt" 3 FAIL)" "$n") | $(rate "$(($(count "$W/aa.txt" 3 PASS) + $(count "$W/aa.txt" 3 FAIL)))" "$n") | - |"
	echo "| A/A at the bound | $ROUNDS | sequential | $(rate "$(count "$W/aa.txt" 1 PASS)" "$n") | $(rate "$(count "$W/aa.txt" 1 FAIL)" "$n") | $(rate "$(($(count "$W/aa.txt" 1 PASS) + $(count "$W/aa.txt" 1 FAIL)))" "$n") | - |"
	for b in $(seq 10 10 "$MAX"); do
		echo "| $EFFECT% slower | $b | today (replayed on the $MAX-round benches) | $(rate "$(awk -v b="$b" '$3 == "PASS" && $4 <= b' "$W/eff.txt" | wc -l)" "$n_eff") | - | - | $(rate "$(today_caught "$b")" "$n_eff") |"
	done
	echo "| $EFFECT% slower | $MAX | sequential | $(rate "$(count "$W/eff.txt" 1 PASS)" "$n_eff") | - | - | $(rate "$(count "$W/eff.txt" 1 FAIL)" "$n_eff") |"
	if [ -s "$W/eff_b.txt" ]; then
		nb=$(wc -l <"$W/eff_b.txt")
		echo "| $EFFECT% slower | $b_today | sequential | $(rate "$(count "$W/eff_b.txt" 1 PASS)" "$nb") | - | - | $(rate "$(count "$W/eff_b.txt" 1 FAIL)" "$nb") |"
	fi
	echo
	if [ -n "$b_today" ]; then
		echo "Today's procedure catches the $EFFECT% slowdown in at least 90% of trials within $b_today rounds."
	else
		echo "Today's procedure does not catch the $EFFECT% slowdown in 90% of trials within $MAX rounds here."
	fi
	echo "Plans for 90% power at this noise (sd $sd_aa, docs/methodology.md, \"Sequential decisions\"): $plan rounds."
	echo "Mean rounds run, sequential: A/A $(awk '{ s += $2 } END { printf "%.1f", s / NR }' "$W/aa.txt"), $EFFECT% slower $(awk '{ s += $2 } END { printf "%.1f", s / NR }' "$W/eff.txt") (plan $MAX)."
	echo
	echo "<details><summary>per trial (sequential outcome, rounds; today's outcome, rounds; estimate; sd)</summary>"
	echo
	for f in aa eff eff_b; do
		[ -s "$W/$f.txt" ] || continue
		echo "$f:"
		echo
		echo '```'
		cat "$W/$f.txt"
		echo '```'
	done
	echo
	echo "</details>"
} >"$OUT"
log "written"
