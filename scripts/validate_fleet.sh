#!/usr/bin/env bash
# validate_fleet.sh - the fleet part of `make validate` (scripts/validate.sh; alone:
# VALIDATE_ONLY=fleet make validate): synthetic fleets with known per-machine effects
# (tests/tools/mkfleet.c) merged by `allocab merge`, trial after trial, in three scenarios: machines
# that differ a little (coverage of the mean effect by the pooled interval, of a new machine's
# effect by the prediction interval, machines named by mistake), the same with one odd machine
# (coverage of the fleet's mean, how often the odd machine is named, and the others), and machines
# that agree while one is much noisier (the Hartung-Knapp-Sidik-Jonkman interval's weak case).
# Prints the markdown section on stdout, progress on stderr. docs/methodology.md, "A fleet of
# machines", quotes a run.
# Knobs (environment): VALIDATE_FLEET_TRIALS (200 per scenario), VALIDATE_FLEET_MACHINES (5),
# VALIDATE_FLEET_ROUNDS (12 per machine), VALIDATE_FLEET_MU (-0.05: ln(t_cand/t_base), 5% faster),
# VALIDATE_FLEET_TAU (0.02: sd of the machines' effects), VALIDATE_FLEET_SHIFT (0.2: the odd
# machine's distance), VALIDATE_FLEET_SIGMA (0.05: sd of a round's log ratio),
# VALIDATE_FLEET_NOISY (3: machine 1's noise, times SIGMA), VALIDATE_FLEET_SEED (1).
set -u
BUILD=${BUILD:-build}
TRIALS=${VALIDATE_FLEET_TRIALS:-200}
K=${VALIDATE_FLEET_MACHINES:-5}
N=${VALIDATE_FLEET_ROUNDS:-12}
MU=${VALIDATE_FLEET_MU:--0.05}
TAU=${VALIDATE_FLEET_TAU:-0.02}
SHIFT=${VALIDATE_FLEET_SHIFT:-0.2}
SIGMA=${VALIDATE_FLEET_SIGMA:-0.05}
NOISY=${VALIDATE_FLEET_NOISY:-3}
SEED=${VALIDATE_FLEET_SEED:-1}
A=$BUILD/allocab
MK=$BUILD/tests/mkfleet

for f in "$A" "$MK"; do
	[ -x "$f" ] || { echo "validate: $f is missing (make all test first)" >&2; exit 1; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-validate-fleet.XXXXXX")
trap 'rm -rf "$W"' EXIT
t_start=$(date +%s)
log() { printf '[validate fleet %4ds] %s\n' $(($(date +%s) - t_start)) "$*" >&2; }
rate() { awk -v k="$1" -v n="$2" 'BEGIN { z = 1.959964; if (n == 0) { print "-"; exit } p = k / n; d = 1 + z * z / n; c = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d; lo = c - h; if (lo < 0) lo = 0; hi = c + h; if (hi > 1) hi = 1; printf "%d/%d (%.1f-%.1f%%)", k, n, lo * 100, hi * 100 }'; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# One trial: the fleet, the merge as CSV, and one line of outcomes:
# covered(mean) covered(new machine) odd_named others_named odd_excludes others_excludes width_pp i2
trial() { # scenario tau shift seed
	local truth
	rm -f "$W"/m*.json
	truth=$("$MK" "$W" "$4" "$K" "$N" "$MU" "$2" "$3" "$SIGMA" "$NOISY") || return 1
	"$A" merge "$W"/m*.json --format csv -o "$W/f.csv" 2>/dev/null || return 1
	awk -F, -v truth="$truth" -v k="$K" -v odd="$3" '
		BEGIN { n = split(truth, t, " "); for (i = 1; i <= k; i++) bar += t[i] / k; new = t[k + 1] }
		$1 == "machine" { m = substr($7, 2) + 0; o[m] = ($18 == "true"); x[m] = ($19 == "true") }
		$1 == "pooled" { lo = $12; hi = $13; plo = $24; phi = $25; i2 = $23 }
		END {
			on = 0; xn = 0
			for (i = 1; i <= k; i++) if (!(odd != 0 && i == k)) { on += o[i]; xn += x[i] }
			cm = (lo <= exp(-bar) && exp(-bar) <= hi) ? 1 : 0
			cn = (plo != "" && plo <= exp(-new) && exp(-new) <= phi) ? 1 : 0
			no = (odd != 0 && o[k]) ? 1 : 0
			xo = (odd != 0 && x[k]) ? 1 : 0
			printf "%d %d %d %d %d %d %.4f %.4f\n", cm, cn, no, (on > 0) ? 1 : 0, xo,
				(xn > 0) ? 1 : 0, (hi - lo) * 100, i2
		}' "$W/f.csv"
}

run_scenario() { # name tau shift index
	log "$1: $TRIALS fleets of $K machines, $N rounds each (tau $2, odd shift $3)"
	for t in $(seq 1 "$TRIALS"); do
		trial "$1" "$2" "$3" $((SEED * 1000000 + $4 * 100000 + t)) || log "$1: trial $t failed"
	done >"$W/$1.tsv"
}

run_scenario spread "$TAU" 0 1
run_scenario odd "$TAU" "$SHIFT" 2
run_scenario agree 0 0 3
elapsed=$(($(date +%s) - t_start))

col() { awk -v c="$2" '{ s += $c } END { print s + 0 }' "$W/$1.tsv"; }
cnt() { wc -l <"$W/$1.tsv"; }
med() { awk -v c="$2" '{ print $c }' "$W/$1.tsv" | median; }

echo "## (e) A fleet of machines: the pooled interval on synthetic fleets, $TRIALS fleets per scenario"
echo
echo "Each fleet is $K machines written by \`tests/mkfleet\` (seed $SEED; $elapsed s for the three scenarios)"
echo "with known effects: machine i's true log ratio ln(t_cand/t_base) is theta_i = $MU + $TAU z_i,"
echo "and each of its $N rounds adds a symmetric, heavy-tailed error (normal, sd $SIGMA, in 9 rounds"
echo "of 10; sd $(awk -v s="$SIGMA" 'BEGIN { print 3 * s }') in the tenth) and a drift shared by both arms of the round; machine 1 is"
echo "$NOISY times noisier than the others. \`allocab merge\` pools them (DerSimonian-Laird,"
echo "Hartung-Knapp-Sidik-Jonkman, 95%). Rates with Wilson 95% intervals."
echo
echo "| scenario | mean effect covered | new machine covered (prediction interval) | odd machine named | another machine named odd | odd machine's interval excludes the pooled estimate | another machine's does | pooled interval width (median) | I^2 (median) |"
echo "|---|---|---|---|---|---|---|---|---|"
for s in spread odd agree; do
	n=$(cnt "$s")
	case $s in
	spread) what="machines differ (tau $TAU)" ;;
	odd) what="tau $TAU, machine $K odd by $SHIFT (target: the mean of the $K true effects)" ;;
	agree) what="machines agree (tau 0), machine 1 noisier" ;;
	esac
	new=$( [ "$s" = odd ] && echo "-" || rate "$(col "$s" 2)" "$n")
	oddn=$( [ "$s" = odd ] && rate "$(col "$s" 3)" "$n" || echo "-")
	oddx=$( [ "$s" = odd ] && rate "$(col "$s" 5)" "$n" || echo "-")
	echo "| $what | $(rate "$(col "$s" 1)" "$n") | $new | $oddn | $(rate "$(col "$s" 4)" "$n") | $oddx | $(rate "$(col "$s" 6)" "$n") | $(med "$s" 7 | awk '{ printf "%.1f", $1 }') pp | $(med "$s" 8 | awk '{ printf "%.2f", $1 }') |"
done
echo
echo "\"Another machine named odd\" and \"another machine's does\" count fleets in which at least one of the machines"
echo "that are not odd was named (odd: |studentized deleted residual| above t_{k-1, 1-0.05/(2k)}) or had its own"
echo "interval exclude the pooled estimate. The knobs: VALIDATE_FLEET_TRIALS, VALIDATE_FLEET_MACHINES,"
echo "VALIDATE_FLEET_ROUNDS, VALIDATE_FLEET_MU, VALIDATE_FLEET_TAU, VALIDATE_FLEET_SHIFT, VALIDATE_FLEET_SIGMA,"
echo "VALIDATE_FLEET_NOISY, VALIDATE_FLEET_SEED."
echo
log "done"
