#!/usr/bin/env bash
# bench_compare.sh BUILD [ROUNDS] [RUNS] [REPS] - times `allocab compare` end to end on a generated
# results file of ROUNDS measured rounds (default 100000, the scale allocab supports; two arms, the
# pipeline workload with two phases, written by the bench engine with a fake runner:
# tests/e2e/lib.sh's mkbench), RUNS times (default 3), and prints
# each run's wall time, CPU time and peak RSS. REPS 1 (default): one rep per run, compared with
# --regime cold; REPS 4 or more: records with a cold rep and steady ones, compared in both
# regimes. Not a test (`make bench-compare`); the figures are in docs/statistics.md, "Cost on
# long benches". Needs about 1.6 KB of free space in TMPDIR per round (2.4 KB with 4 reps), and
# as much in /dev/shm while the file is written.
set -eu
BUILD=${1:-build}
ROUNDS=${2:-100000}
RUNS=${3:-3}
REPS=${4:-1}
. tests/e2e/lib.sh
FILE=$TMP/rounds.json
echo "bench-compare: writing $ROUNDS rounds to $FILE"
mkbench "$FILE" arms=system=1,mimalloc=0.8/0.05 wls=pipeline rounds="$ROUNDS" warmup=0 reps="$REPS"
BYTES=$(stat -c %s "$FILE")
REGIME=$([ "$REPS" = 1 ] && echo cold || echo both)
echo "bench-compare: $BYTES bytes; allocab compare --regime $REGIME, $RUNS runs"
for i in $(seq "$RUNS"); do
	ALLOCAB_MAX_INPUT=$((BYTES + 1024)) python3 - "$BUILD/allocab" "$FILE" "$REGIME" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
r = subprocess.run([sys.argv[1], "compare", sys.argv[2], "--regime", sys.argv[3]],
                   stdout=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"exit {r.returncode}  wall {wall:.2f} s  cpu {ru.ru_utime + ru.ru_stime:.2f} s  "
      f"peak RSS {ru.ru_maxrss / 1024:.0f} MB")
PY
done
echo "bench-compare: load average $(cut -d' ' -f1-3 /proc/loadavg)"
