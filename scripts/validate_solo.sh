#!/usr/bin/env bash
# validate_solo.sh - the solo anchor part of `make validate` (scripts/validate.sh, part (i);
# alone: VALIDATE_ONLY=solo make validate): does a shared-CPU bench's check against its solo
# rounds (docs/methodology.md, "Solo anchor rounds") find the mechanisms by which runs on one CPU
# measure another program, and stay quiet on an A/A bench? Programs of known mechanism
# (tests/tools/solo_mech.c): a cache-footprint difference (pointer walks over 256 KiB and 4 MiB),
# a wall-clock timer (the program's own release of its pool after 25 ms, against the same at
# 10 s; mimalloc's decommit_delay at 25 ms and at 10 s against glibc, when libmimalloc is there),
# and a multi-threaded allocation-heavy program (2 threads, and one thread per CPU of its
# affinity, against glibc under mimalloc, probed). Each case is TRIALS `bench --one-cpu` benches;
# per case the medians of the shared estimate, the solo one and their ratio (speedup shared /
# speedup solo), and how many benches were flagged (the check's disagreement on the primary row,
# a thread warning, or --one-cpu's refusal of a threaded program, which is then benched again with
# --one-cpu-threads to be checked). Prints the markdown section on stdout, progress on stderr.
# Knobs (environment): VALIDATE_SOLO_TRIALS (10 per case), VALIDATE_SOLO_AA_TRIALS (40),
# VALIDATE_SOLO_ROUNDS (unset: the bench's own rounds rule, 38 for one comparison at the default
# --solo-share), VALIDATE_SOLO_CASES (all: cache timer timer-off mimalloc mimalloc-off threads
# threads-affinity aa), VALIDATE_SOLO_WORK (1: the programs' work per run, a factor). A tiny run:
# VALIDATE_SOLO_TRIALS=1 VALIDATE_SOLO_AA_TRIALS=1 VALIDATE_SOLO_ROUNDS=4.
set -u
BUILD=${BUILD:-build}
TRIALS=${VALIDATE_SOLO_TRIALS:-10}
AA_TRIALS=${VALIDATE_SOLO_AA_TRIALS:-40}
ROUNDS=${VALIDATE_SOLO_ROUNDS:-}
CASES=${VALIDATE_SOLO_CASES:-cache timer timer-off mimalloc mimalloc-off threads threads-affinity aa}
WORK=${VALIDATE_SOLO_WORK:-1}
A=$BUILD/allocab
S=$BUILD/tests/solo_mech
PY=/usr/bin/python3
MI=/usr/lib/x86_64-linux-gnu/libmimalloc.so.2

for f in "$A" "$S"; do
	[ -x "$f" ] || { echo "validate: $f is missing (make all test first)" >&2; exit 1; }
done
[ -x "$PY" ] || { echo "validate: solo: python3 is missing (make deps installs it)" >&2; exit 1; }
for v in "$TRIALS" "$AA_TRIALS" "$WORK" ${ROUNDS:+"$ROUNDS"}; do
	[[ $v =~ ^[0-9]+$ ]] && [ "$v" -ge 1 ] ||
		{ echo "validate: VALIDATE_SOLO_TRIALS, _AA_TRIALS, _ROUNDS and _WORK are integers >= 1" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-validate-solo.XXXXXX")
trap 'rm -rf "$W"' EXIT
t_start=$(date +%s)
log() { printf '[validate solo %4ds] %s\n' $(($(date +%s) - t_start)) "$*" >&2; }

steps=$((4000000 * WORK))
loops=$((12 * WORK))
iters=$((400000 * WORK))
# case: label | mechanism | expected | the bench's arms
case_of() {
	case $1 in
	cache) echo "cache footprint|caches shared: walks over 256 KiB and 4 MiB|flagged|--cmd small=$S walk 256 $steps|--cmd big=$S walk 4096 $steps" ;;
	timer) echo "own timer, 25 ms|a wall-clock timer: the pool released after 25 ms of wall time|flagged|--cmd off=$S timer $loops 15000 0|--cmd on=$S timer $loops 15000 25" ;;
	timer-off) echo "own timer, 10 s|the same timer at 10 s: never fires|agree|--cmd off=$S timer $loops 15000 0|--cmd on=$S timer $loops 15000 10000" ;;
	mimalloc) echo "mimalloc, decommit 25 ms|mimalloc's decommit_delay (25 ms, its default) against glibc|flagged|--cmd system=$S timer $loops 15000 0|--cmd mimalloc=LD_PRELOAD=$MI MIMALLOC_DECOMMIT_DELAY=25 $S timer $loops 15000 0" ;;
	mimalloc-off) echo "mimalloc, decommit 10 s|the same at decommit_delay 10 s|agree|--cmd system=$S timer $loops 15000 0|--cmd mimalloc=LD_PRELOAD=$MI MIMALLOC_DECOMMIT_DELAY=10000 $S timer $loops 15000 0" ;;
	threads) echo "2 threads|threads serialised: 2 malloc-heavy threads, mimalloc against glibc|flagged|--cmd system=$S threads 2 $iters|--cmd mimalloc=LD_PRELOAD=$MI $S threads 2 $iters|--expect|system=system|--expect|mimalloc=mimalloc" ;;
	threads-affinity) echo "threads from the affinity|one thread per CPU of its affinity: one when pinned|flagged|--cmd system=$S threads 0 $iters|--cmd mimalloc=LD_PRELOAD=$MI $S threads 0 $iters|--expect|system=system|--expect|mimalloc=mimalloc" ;;
	aa) echo "A/A|none: the same walk twice|agree|--cmd a=$S walk 256 $steps|--cmd b=$S walk 256 $steps" ;;
	*) return 1 ;;
	esac
}

# One bench of the arms (the words after the third |), --one-cpu, then its compare as JSON; a
# refusal of threads is recorded and the bench run again with --one-cpu-threads. Appends a line
# to $W/CASE.tsv: refused(0/1), then what summary.py reads of the compare.
trial() {
	local c=$1 t=$2 spec args=() refused=0 f="$W/$1.$2.json"
	spec=$(case_of "$c")
	IFS='|' read -r -a parts <<<"$spec"
	for ((k = 3; k < ${#parts[@]}; k++)); do
		case ${parts[$k]} in
		--cmd\ *) args+=(--cmd "${parts[$k]#--cmd }") ;;
		*) args+=("${parts[$k]}") ;;
		esac
	done
	"$A" bench "${args[@]}" --one-cpu ${ROUNDS:+--rounds "$ROUNDS"} --warmup 1 --quiet \
		-o "$f" 2>"$W/err" >/dev/null
	if [ ! -s "$f" ] && grep -q "started .* thread" "$W/err"; then
		refused=1
		"$A" bench "${args[@]}" --one-cpu --one-cpu-threads ${ROUNDS:+--rounds "$ROUNDS"} \
			--warmup 1 --quiet -o "$f" 2>"$W/err" >/dev/null
	fi
	[ -s "$f" ] || { log "$c trial $t: the bench failed: $(head -c 200 "$W/err")"; return 1; }
	"$A" compare "$f" --format json -o "$W/c.json" 2>/dev/null ||
		{ log "$c trial $t: compare failed"; return 1; }
	"$PY" - "$W/c.json" "$refused" >>"$W/$c.tsv" <<'PYEOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
pat = re.compile(r"solo check: \S+ \S+ (\S+), \S+ vs \S+: shared rounds ([0-9.]+)x \((\d+)\), "
                 r"solo rounds ([0-9.]+)x \((\d+)\); shared/solo ([0-9.]+) \[([0-9.]+), ([0-9.]+)\] "
                 r"at [0-9.]+%: (they agree|they disagree|too few)")
rows = [m.groups() for m in (pat.search(w) for w in d["warnings"]) if m]
# the primary row: steady where there is one, else cold
rows.sort(key=lambda r: r[0] != "steady")
threads = any("threads" in w and ("serialised" in w or "affinity" in w) for w in d["warnings"])
if rows:
    g, sh, nsh, so, nso, ratio, lo, hi, verdict = rows[0]
    print("\t".join([sys.argv[2], sh, so, ratio, nsh, nso, "1" if verdict == "they disagree" else "0",
                     "1" if threads else "0", "1" if verdict == "too few" else "0"]))
else:
    print("\t".join([sys.argv[2], "nan", "nan", "nan", "0", "0", "0", "1" if threads else "0", "1"]))
PYEOF
}

echo "### (i) One CPU against its solo rounds"
echo
echo "\`bench --one-cpu\` of programs of known mechanism (tests/tools/solo_mech.c), each compared"
echo "with its solo anchor rounds (docs/methodology.md, \"Solo anchor rounds\"); rounds per bench:"
rule="the bench's rule"
echo "${ROUNDS:-$rule}; work factor $WORK. Flagged: the check's disagreement on the primary"
echo "row, a thread warning, or --one-cpu's refusal of a threaded program (then benched with"
echo "--one-cpu-threads). Estimates are medians over the trials; shared/solo = speedup on one CPU"
echo "over the speedup one after the other."
echo
echo "| case | mechanism | expected | trials | shared | solo | shared/solo | refused | flagged | untested |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in $CASES; do
	spec=$(case_of "$c") || { echo "validate: solo: unknown case '$c'" >&2; exit 2; }
	IFS='|' read -r label mech expect _ <<<"$spec"
	if [[ $c == mimalloc* || $c == threads* ]] && [ ! -e "$MI" ]; then
		echo "| $label | $mech | $expect | 0 (no $MI) | | | | | | |"
		continue
	fi
	n=$TRIALS
	[ "$c" = aa ] && n=$AA_TRIALS
	: >"$W/$c.tsv"
	for t in $(seq 1 "$n"); do
		log "$c: trial $t of $n (load $(cut -d' ' -f1 /proc/loadavg))"
		trial "$c" "$t"
	done
	"$PY" - "$W/$c.tsv" "$label" "$mech" "$expect" <<'PYEOF'
import math, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
def med(k):
    v = [float(r[k]) for r in rows if not math.isnan(float(r[k]))]
    return "%.3f" % statistics.median(v) if v else "-"
n = len(rows)
refused = sum(r[0] == "1" for r in rows)
flagged = sum(r[0] == "1" or r[6] == "1" or r[7] == "1" for r in rows)
untested = sum(r[8] == "1" for r in rows)
print("| %s | %s | %s | %d | %s | %s | %s | %d/%d | %d/%d | %d |" % (
    sys.argv[2], sys.argv[3], sys.argv[4], n, med(1), med(2), med(3), refused, n, flagged, n, untested))
PYEOF
done
echo
echo "The A/A row's flagged share is the check's false-alarm rate (target at most 5%); untested:"
echo "benches whose rounds left the check short of its level (too few solo rounds)."
