#!/usr/bin/env bash
# benchmark_mimalloc.sh - drop-in replacement for the old one-shot "glibc once, mimalloc once under
# `time`" script. It prints the same four summary lines, now from interleaved paired rounds measured
# by `allocab bench` and analysed by `allocab compare`, each with its confidence interval, plus a
# verdict line. Run with --help for the interface; docs/methodology.md for the method.
set -u
export LC_ALL=C

prog=benchmark_mimalloc
budget_default=120

usage() {
	cat <<EOF
usage: scripts/benchmark_mimalloc.sh [options]
       scripts/benchmark_mimalloc.sh [options] [--] COMMAND [MIMALLOC_COMMAND]
       scripts/benchmark_mimalloc.sh [options] --cmd COMMAND [--cmd-mimalloc MIMALLOC_COMMAND]

Is mimalloc faster than glibc malloc? Without a command: allocab's own drivers run a workload
(default pipeline) with each allocator. With commands: your program, run through /bin/sh -c.
One COMMAND: allocab bench --program runs it as is for glibc and with libmimalloc.so.2 in
LD_PRELOAD for mimalloc, so every program it starts preloads mimalloc (how teams usually switch).
Two: the first runs as is for glibc, the second for mimalloc (e.g. a build linking mimalloc).
Either way every process of every run is probed: a run whose processes did not all use the
arm's allocator (a failed preload, a static or setuid program, a program linking its own
allocator) is unverified and never compared, and an arm without a verified run fails the script
with allocab bench's one-line reason (docs/programs.md).

Both arms run in interleaved rounds (allocab bench: in each round each arm runs once, each in a
fresh process, in a shuffled order; the first --warmup rounds are discarded) until the budget is
spent, then allocab compare pairs them round by round. A round runs the job twice, and at least
--min-rounds measured rounds plus the warm-up run whatever the budget: for a long job, shorten it
(fewer steps) rather than the rounds. The arms are named system and mimalloc in the results.

  -w, --workload NAME    allocab workload to run (default: pipeline; not with commands)
  --scale S              small, default or large (default: \$BENCH_SCALE, else default)
  --budget SECONDS       wall-clock budget, warm-up included (default: \$BENCH_BUDGET, else
                         $budget_default unless --rounds is given)
  --rounds N             at most N measured rounds (default: as many as the budget allows)
  --min-rounds N         measured rounds run whatever the budget (default: the fewest whose
                         comparisons can give a verdict, counted by allocab bench after its first
                         round, which extends the budget to them and says so; never more than
                         --rounds)
  --warmup N             warm-up rounds, run and discarded (default: 1)
  --timeout SECONDS      per run, then the run is killed and recorded as timed out
                         (default: 120 for a workload, 3600 for commands)
  --preload LIB          what one COMMAND's mimalloc arm preloads (default: libmimalloc.so.2)
  --cmd COMMAND          the same as a first positional COMMAND
  --cmd-mimalloc COMMAND the same as a second positional COMMAND
  --gate PCT             is mimalloc at least PCT% faster (0 <= PCT < 100; 0: not slower) in
                         steady state (commands: cold, or --phase's steady state)? The bench
                         stops as soon as the gate decides (allocab bench --gate), then
                         allocab gate's lines follow; exit with its status
  --phase NAME           commands: the phase the program marks (docs/programs.md) that is the
                         question: the bench's primary row (--primary NAME) and what --gate
                         judges, in steady state (default: the whole process, total)
  --time T               the time compared: cpu, wall or auto (allocab bench --time; default:
                         allocab bench's)
  --one-cpu              both arms of each round at once, pinned to one CPU drawn per round
                         (allocab bench --one-cpu, docs/methodology.md, "Runs on one CPU"): on
                         a shared machine, the steadiest CPU times; CPU time only
  --claims FILE          check the quoted speedups of this allocab-claims/1 file against the
                         intervals (default for a workload: docs/claims/mimalloc-ml.json;
                         for commands: none)
  -o, --output FILE      results file (default: results/<UTC stamp>.json and a copy
                         results/latest.json, like allocab bench)
  -q, --quiet            no progress or summary from allocab bench on stderr
  -h, --help             this text

Output (stdout), for each regime measured, steady state first (a workload's driver runs its
first repetition cold, then repeats until steady; a command is one cold process), and for a
command that marks phases (docs/programs.md) a "Phase: NAME" line before each of its phases
(the total first, then each phase it marked, repeated ones with their steady state):
  Regime: steady state (...) | cold start (...)
  System Allocator Duration: median time of the glibc runs
  Mimalloc Duration: median time of the mimalloc runs, its ratio to glibc's median, and
                     the paired time ratio t_mimalloc/t_glibc with its confidence interval
  Performance Improvement: (1 - t_mimalloc/t_glibc) x 100, with its confidence interval
  Speedup Ratio: t_glibc/t_mimalloc, with its confidence interval
  Verdict: mimalloc is faster | mimalloc is slower (", within ±M%" when also equivalent) |
           mimalloc and glibc are equivalent within ±M% | no detectable difference
           (p Bonferroni-adjusted over the regimes compared, paired rounds)
  Results: the allocab-bench/1 file, to rerun allocab compare or allocab gate on
  Claims: the verdicts on the quoted figures for mimalloc (docs/claims.md): confirmed,
          partly or refuted, each with the measured interval; the claims this bench did not
          measure are counted in one line
Durations are medians over each arm's runs (a workload's total phase; a command's whole
process, start-up included; a marked phase's steady value is the mean of the last half of its
spans in each process) and carry no interval of their own: the machine's speed drifts between
rounds, and pairing the two arms within each round cancels that drift, so the intervals are of
the paired ratios, and the paired time ratio can differ from the ratio of the two medians (which
ignores the pairing): the paired one is the answer, the Hodges-Lehmann estimate of the
per-round log ratios with the Wilcoxon signed-rank interval,
simultaneous over the regimes compared (97.5% each for two, 95% for one; the level each line
names). The verdict is read off that interval: faster or slower when it excludes 1,
equivalent when it lies within allocab compare's equivalence margin (2% by default).

A command's workload is named after its program (python3 train.py: train; ./churn: churn):
allocab bench -w NAME, so that compare, gate and the results name it.

Binaries: \$ALLOCAB_BUILD/allocab, else build/allocab of this repository, else the allocab
installed next to this script (make install: allocab-benchmark-mimalloc), else allocab on PATH.
Exit status: 0 measured (whatever the verdict); 1 runtime failure (allocab missing, a bench or
compare failure, an arm without a verified successful run, fewer than 2 rounds in which both
arms succeeded); 2 bad usage; 130
interrupted (the summary of the finished rounds is still printed). With --gate: the gate's
0 PASS, 1 FAIL, 3 INCONCLUSIVE.

Examples:
  scripts/benchmark_mimalloc.sh                        # pipeline workload, 120 s
  scripts/benchmark_mimalloc.sh --scale small --budget 60
  scripts/benchmark_mimalloc.sh --budget 1800 'python train.py --steps 200'
  scripts/benchmark_mimalloc.sh -- './train' './train-mimalloc'   # second build links mimalloc
  scripts/benchmark_mimalloc.sh -q --gate 5            # CI: 0 PASS, 1 FAIL, 3 INCONCLUSIVE
  scripts/benchmark_mimalloc.sh --phase epoch --gate 0 '/usr/bin/python3 train.py'
EOF
}

die() { # die STATUS MESSAGE
	printf '%s: %s\n' "$prog" "$2" >&2
	exit "$1"
}
bad() { die 2 "$1 (see --help)"; }
# program_name COMMAND: the workload's name for a command: its program's file name (the script an
# interpreter runs: python3 train.py is train), its extension dropped, characters other than
# letters, digits and _ as _; "command" when nothing is left.
program_name() {
	local -a w
	local i=0 j n
	read -r -a w <<<"$1"
	while [ "$i" -lt ${#w[@]} ] && [[ ${w[$i]} == *=* || ${w[$i]} == env || ${w[$i]} == exec ]]; do
		i=$((i + 1))
	done
	n=${w[$i]:-}
	n=${n##*/}
	case $n in
	python* | sh | bash | dash | node | ruby | perl* | Rscript | julia | uv | pypy*)
		for ((j = i + 1; j < ${#w[@]}; j++)); do
			[[ ${w[$j]} == -* ]] || { n=${w[$j]##*/}; break; }
		done
		;;
	esac
	n=${n%.*}
	n=$(printf '%s' "$n" | tr -c 'A-Za-z0-9_' '_' | cut -c1-40)
	[[ $n =~ [A-Za-z0-9] ]] || n=command
	printf '%s\n' "$n"
}
is_count() { [[ $1 =~ ^[0-9]+$ ]] && [ "${#1}" -le 6 ]; }
is_seconds() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v s="$1" 'BEGIN { exit !(s > 0) }'; }

workload='' scale='' budget='' rounds='' min_rounds='' warmup='' timeout='' gate='' out='' quiet=''
phase='' time='' one_cpu=''
preload=libmimalloc.so.2
cmds=()
named_cmd='' named_cmd_mi='' claims=''
while [ $# -gt 0 ]; do
	opt=$1 val='' has_val=0
	case $opt in
	--*=*) val=${opt#*=} opt=${opt%%=*} has_val=1 ;;
	esac
	case $opt in
	-w | --workload | --scale | --budget | --rounds | --min-rounds | --warmup | --timeout | \
		--preload | --cmd | --cmd-mimalloc | --gate | -o | --output | --claims | --phase | --time)
		if [ "$has_val" = 0 ]; then
			[ $# -ge 2 ] || bad "$opt needs a value"
			val=$2
			# an option where a value belongs (-o --format=html) is a slip, never a file name
			[[ $val != -?* ]] || bad "$opt needs a value, not the option '$val' (give $opt=$val if you mean it)"
			shift
		fi
		;;
	-h | --help | -q | --quiet | --one-cpu | --)
		[ "$has_val" = 0 ] || bad "$opt takes no value"
		;;
	-?*) bad "unknown option '$opt'" ;;
	esac
	case $opt in
	-w | --workload) workload=$val ;;
	--scale) scale=$val ;;
	--budget) budget=$val ;;
	--rounds) rounds=$val ;;
	--min-rounds) min_rounds=$val ;;
	--warmup) warmup=$val ;;
	--timeout) timeout=$val ;;
	--preload) preload=$val ;;
	--cmd) named_cmd=$val ;;
	--cmd-mimalloc) named_cmd_mi=$val ;;
	--gate) gate=$val ;;
	--claims) claims=$val ;;
	--phase) phase=$val ;;
	--time) time=$val ;;
	--one-cpu) one_cpu=1 ;;
	-o | --output) out=$val ;;
	-q | --quiet) quiet=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		cmds+=("$@")
		break
		;;
	*) cmds+=("$opt") ;;
	esac
	shift
done

if [ -n "$named_cmd$named_cmd_mi" ]; then
	[ ${#cmds[@]} -eq 0 ] || bad "give the commands either with --cmd/--cmd-mimalloc or as arguments, not both"
	[ -n "$named_cmd" ] || bad "--cmd-mimalloc needs --cmd (the glibc command)"
	cmds=("$named_cmd")
	[ -z "$named_cmd_mi" ] || cmds+=("$named_cmd_mi")
fi
[ ${#cmds[@]} -le 2 ] || bad "at most two commands (glibc, then mimalloc), got ${#cmds[@]}"
for c in "${cmds[@]}"; do
	[[ $c =~ [^[:space:]] ]] || bad "empty command"
done
if [ ${#cmds[@]} -gt 0 ]; then
	[ -z "$workload" ] || bad "--workload runs allocab's drivers; it cannot be combined with commands"
	[ -z "$scale" ] || bad "--scale runs allocab's drivers; it cannot be combined with commands"
else
	workload=${workload:-pipeline}
	[[ $workload =~ ^[A-Za-z0-9_]+$ ]] || bad "--workload: '$workload' is not one workload name"
	scale=${scale:-${BENCH_SCALE:-default}}
	[ -z "$phase" ] || bad "--phase names a phase your program marks; it needs commands"
fi
[ -z "$phase" ] || [[ $phase =~ ^[A-Za-z0-9_.-]+$ ]] || bad "--phase: '$phase' is not a phase name"
case $time in '' | cpu | wall | auto) ;; *) bad "--time: '$time' is not cpu, wall or auto" ;; esac
[ -z "$rounds" ] || { is_count "$rounds" && [ "$rounds" -ge 1 ]; } || bad "--rounds: '$rounds' is not a whole number >= 1"
[ -z "$min_rounds" ] || { is_count "$min_rounds" && [ "$min_rounds" -ge 1 ]; } || bad "--min-rounds: '$min_rounds' is not a whole number >= 1"
[ -z "$warmup" ] || is_count "$warmup" || bad "--warmup: '$warmup' is not a whole number"
[ -z "$timeout" ] || is_seconds "$timeout" || bad "--timeout: '$timeout' is not a number of seconds > 0"
budget=${budget:-${BENCH_BUDGET:-}}
[ -n "$budget" ] || [ -n "$rounds" ] || budget=$budget_default
[ -z "$budget" ] || is_seconds "$budget" || bad "--budget (or BENCH_BUDGET): '$budget' is not a number of seconds > 0"
if [ -n "$gate" ]; then
	if ! [[ $gate =~ ^[0-9]+(\.[0-9]+)?%?$ ]] || ! awk -v p="${gate%\%}" 'BEGIN { exit !(p < 100) }'; then
		bad "--gate: '$gate' is not a percentage in 0..100 (e.g. 5 or 2.5%)"
	fi
fi
[ -z "$out" ] || [ "$out" != - ] || bad "-o: needs a file name"
if [ -z "$preload" ] || [[ $preload =~ [[:space:]\'\"\\\$\`] ]]; then
	bad "--preload: '$preload' is not a library name or path"
fi

if [ -n "${ALLOCAB_BUILD:-}" ]; then
	allocab=$ALLOCAB_BUILD/allocab
	[ -x "$allocab" ] || die 1 "ALLOCAB_BUILD=$ALLOCAB_BUILD: no executable allocab there"
elif root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) && [ -x "$root/build/allocab" ]; then
	allocab=$root/build/allocab
elif [ -x "$(dirname "${BASH_SOURCE[0]}")/allocab" ]; then
	allocab=$(dirname "${BASH_SOURCE[0]}")/allocab # installed: allocab-benchmark-mimalloc
elif allocab=$(command -v allocab); then
	:
else
	die 1 "cannot find allocab: run make, set ALLOCAB_BUILD, or put allocab on PATH"
fi

bench=("$allocab" bench)
if [ ${#cmds[@]} -eq 0 ]; then
	bench+=(-a "system,mimalloc" -w "$workload" --scale "$scale")
	phase_workload=$workload
else
	if [ ${#cmds[@]} -eq 1 ]; then
		# A library ld.so cannot open is skipped with a warning and the arm silently runs glibc.
		case $(LD_PRELOAD=$preload /bin/true 2>&1) in
		*"cannot be preloaded"*) die 1 "--preload $preload: the dynamic linker cannot preload it (Debian: apt-get install libmimalloc2.0, or give its path)" ;;
		esac
		# allocab preloads the library in the mimalloc arm and proves every process of both arms.
		bench+=(--program "${cmds[0]}" -a system,mimalloc --preload "mimalloc=$preload")
	else
		# Two builds: each must prove its allocator (the second links or preloads mimalloc).
		bench+=(--cmd "system=${cmds[0]}" --cmd "mimalloc=${cmds[1]}" --expect system=system
			--expect mimalloc=mimalloc)
	fi
	bench+=(--timeout "${timeout:-3600}")
	timeout=
	# the one workload of a commands-mode bench, named after the program
	phase_workload=$(program_name "${cmds[0]}")
	bench+=(-w "$phase_workload")
fi
[ -z "$budget" ] || bench+=(--budget "$budget")
[ -z "$rounds" ] || bench+=(--rounds "$rounds")
# Without --min-rounds allocab bench counts the rounds its comparisons need for a verdict and
# extends the budget to them (docs/methodology.md, "Multiplicity").
if [ -n "$min_rounds" ]; then
	[ -z "$rounds" ] || [ "$min_rounds" -le "$rounds" ] || min_rounds=$rounds
	bench+=(--min-rounds "$min_rounds")
fi
[ -z "$warmup" ] || bench+=(--warmup "$warmup")
[ -z "$timeout" ] || bench+=(--timeout "$timeout")
[ -z "$quiet" ] || bench+=(--quiet)
[ -z "$time" ] || bench+=(--time "$time")
[ -z "$one_cpu" ] || bench+=(--one-cpu)
[ -z "$phase" ] || bench+=(--primary "$phase")

latest=
if [ -z "$out" ]; then
	mkdir -p results || die 1 "cannot create the results directory"
	out=results/$(date -u +%Y%m%dT%H%M%SZ).json
	latest=results/latest.json
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchmark_mimalloc.XXXXXX") || die 1 "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
only=(--baseline system --candidate mimalloc --workload "$phase_workload" --phase "${phase:-total}")
bench+=(-o "$out")
if [ -n "$gate" ]; then
	# The bench stops as soon as the gate decides (bench --gate: sequential intervals of a plan),
	# so that its stop is the gate's question, never a decision against 1x; allocab gate on the
	# file below prints the verdict again and gives the exit status.
	"${bench[@]}" --gate "${only[@]}" --min-speedup "$gate" >"$tmp/gate"
	status=$?
	if { [ "$status" = 1 ] || [ "$status" = 3 ]; } && grep -q '^gate: ' "$tmp/gate"; then
		status=0
	fi
else
	"${bench[@]}"
	status=$?
fi
case $status in
0 | 130) ;;
1 | 2) exit "$status" ;; # allocab bench has said why, in one line
*) die 1 "allocab bench failed (exit $status)" ;;
esac
# From here on an interrupted bench still exits 130, whatever else fails.
fail=1
[ "$status" -eq 0 ] || fail=$status
[ -f "$out" ] || die "$fail" "allocab bench wrote no results file"
if [ -n "$latest" ]; then
	if ! cp "$out" "$latest.tmp" || ! mv "$latest.tmp" "$latest"; then
		die "$fail" "cannot write $latest"
	fi
fi

# A workload's total; a command's total and every phase it marked (docs/programs.md).
show=("${only[@]}")
[ ${#cmds[@]} -eq 0 ] || show=(--baseline system --candidate mimalloc --workload "$phase_workload")
if ! "$allocab" compare "$out" "${show[@]}" --format csv -o "$tmp/csv" 2>"$tmp/warnings"; then
	cat "$tmp/warnings" >&2
	exit "$fail"
fi

# The columns by name (docs/results-format.md, allocab-compare/1 csv), in this order; one row per
# phase and regime, steady first (a command or a one-rep bench has cold only; a command's marked
# phases follow its total).
fields=$(awk -F, '
	/^#/ { next }
	!head { for (i = 1; i <= NF; i++) col[$i] = i; head = 1
		split("phase regime n n_baseline n_candidate speedup ci_lo ci_hi ci_level improvement_pct p_bonferroni verdict median_ns_baseline median_ns_candidate rounds_needed equivalent equivalence_pct", want, " ")
		for (k = 1; k in want; k++) if (!(want[k] in col)) { print "no column " want[k]; exit 1 }
		next }
	{ rows++; line = ""
	  for (k = 1; k in want; k++) line = line (k > 1 ? "\037" : "") $col[want[k]]
	  print line }
	END { if (rows < 1) { print "no rows"; exit 1 } }' "$tmp/csv") ||
	die "$fail" "allocab compare --format csv: unexpected output: $fields"

# The five summary lines of one regime from the fields read above.
summary() {
	awk -v n="$n" -v nb="$n_base" -v nc="$n_cand" -v s="$speedup" -v lo="$lo" -v hi="$hi" \
		-v level="$level" -v imp="$improvement" -v p="$p" -v verdict="$verdict" \
		-v mb="$med_base" -v mc="$med_cand" -v need="$need" -v eq="$equivalent" -v eqp="$eq_pct" 'BEGIN {
	ci = sprintf("%.3g%% CI", 100 * level)
	printf "System Allocator Duration: %.3fs (median of %d runs; intervals are of the paired ratios below)\n", mb / 1e9, nb
	# Two ratios that differ: the medians of each arm taken apart, and the estimate of the paired
	# rounds (Hodges-Lehmann of the per-round log ratios), which cancels the drift between rounds
	# and is what the interval, the improvement, the speedup and the verdict are of.
	printf "Mimalloc Duration: %.3fs (median of %d runs; ratio of the medians %.3f; paired time ratio to glibc %.3f, %s [%.3f, %.3f])\n", mc / 1e9, nc, mc / mb, 1 / s, ci, 1 / hi, 1 / lo
	printf "Performance Improvement: %.1f%% (%s [%.1f%%, %.1f%%])\n", imp, ci, 100 * (1 - 1 / lo), 100 * (1 - 1 / hi)
	printf "Speedup Ratio: %.3fx (%s [%.3fx, %.3fx])\n", s, ci, lo, hi
	what = verdict == "faster" || verdict == "slower" ? "mimalloc is " verdict : verdict
	if (verdict == "equivalent") what = "mimalloc and glibc are equivalent within ±" eqp "%"
	else if (eq == "true") what = what ", within ±" eqp "%"
	# With n <= 5 the exact two-sided signed-rank p is at least 2/2^5 > 0.05 (docs/methodology.md).
	if (need != "") what = what ": need " need
	printf "Verdict: %s (%s, %d paired rounds)\n", what, p < 0.001 ? "p < 0.001" : sprintf("p = %.2g", p), n
}'
}

usable=0 ok_base='' ok_cand=''
while IFS=$'\037' read -r phase regime n n_base n_cand speedup lo hi level improvement p verdict med_base med_cand need equivalent eq_pct; do
	[ -z "$speedup" ] || [ -z "$lo" ] || [ -z "$hi" ] || usable=1
	ok_base=$n_base ok_cand=$n_cand
done <<<"$fields"
if [ "$usable" = 0 ]; then
	[ "$fail" != 130 ] || die 130 "interrupted before 2 rounds with both arms ok; the finished rounds are in $out"
	die 1 "no comparison possible: fewer than 2 rounds in which both arms succeeded (ok runs: glibc $ok_base, mimalloc $ok_cand); see the failed runs with: allocab compare $out"
fi
nphases=$(cut -d$'\037' -f1 <<<"$fields" | sort -u | wc -l)
cat "$tmp/warnings" >&2 # too few rounds, drift, telemetry spikes: to be read with the numbers

while IFS=$'\037' read -r phase regime n n_base n_cand speedup lo hi level improvement p verdict med_base med_cand need equivalent eq_pct; do
	if [ "$nphases" -gt 1 ] && [ "$phase" != "${last_phase:-}" ]; then
		if [ "$phase" = total ]; then
			echo "Phase: total (the whole process, start-up included)"
		else
			echo "Phase: $phase (marked by the program: its spans, docs/programs.md)"
		fi
		last_phase=$phase
	fi
	if [ "$regime" = steady ] && [ ${#cmds[@]} -gt 0 ]; then
		echo "Regime: steady state (mean of the last half of each process's spans of the phase: training loops, services)"
	elif [ "$regime" = steady ]; then
		echo "Regime: steady state (median of each process's steady repetitions: training loops, services)"
	else
		echo "Regime: cold start (first repetition of each process: CLI tools, serverless)"
	fi
	if [ -z "$speedup" ] || [ -z "$lo" ] || [ -z "$hi" ]; then
		echo "Verdict: insufficient data (fewer than 2 rounds with both arms ok in this regime)"
		continue
	fi
	summary
done <<<"$fields"

echo "Results: $out"
# The quoted figures for mimalloc checked against these intervals (docs/claims.md): by default for
# allocab's own workloads, which the shipped claims describe; for a command only when asked.
if [ -z "$claims" ] && [ ${#cmds[@]} -eq 0 ]; then
	here=$(dirname "${BASH_SOURCE[0]}")
	for c in "$here/../docs/claims/mimalloc-ml.json" \
		"$here/../share/doc/allocab/claims/mimalloc-ml.json"; do
		[ -f "$c" ] && claims=$c && break
	done
fi
if [ -n "$claims" ]; then
	COLUMNS=1000 "$allocab" compare "$out" --baseline system --candidate mimalloc --workload "$phase_workload" \
		--claims "$claims" >"$tmp/claims" 2>"$tmp/claims.err" || {
		cat "$tmp/claims.err" >&2
		exit "$fail"
	}
	# The claims this bench measured; the others only counted (compare --claims lists them all).
	awk -v cmd="$allocab compare $out --claims $claims" '
		/^claims from / { on = 1; print; next }
		!on { next }
		/^source: / { done = 1 }
		done { next }
		/^claim  / { table = 1; print; next }
		!table { next }
		/ not in the comparison / { next }
		/not measured$/ { skipped++; next }
		{ print }
		END { if (skipped) printf "%d not measured by this bench (the list: %s)\n", skipped, cmd }' \
		"$tmp/claims" | sed 's/^/Claims: /'
fi

if [ -n "$gate" ]; then
	"$allocab" gate "$out" "${only[@]}" --min-speedup "$gate"
	gate_status=$?
fi
[ "$status" -eq 0 ] || exit "$status"
[ -z "$gate" ] || exit "$gate_status"
exit 0
