# e2e_mimalloc_script.sh - scripts/benchmark_mimalloc.sh end to end: its four summary lines with
# their labels and intervals, the verdict line, agreement with allocab compare, the user's own
# commands (one through --program, two as given with --expect), the gate's status, and bad usage. Never asserts
# which allocator is faster.
. tests/e2e/lib.sh
S=$PWD/scripts/benchmark_mimalloc.sh
J=$BUILD/tests/jget
export ALLOCAB_BUILD
ALLOCAB_BUILD=$(cd "$BUILD" && pwd)
unset BENCH_BUDGET BENCH_SCALE LD_PRELOAD

NUM='-?[0-9]+\.[0-9]+'
CI='[0-9]+(\.[0-9])?% CI'
LINE1="^System Allocator Duration: [0-9]+\.[0-9]{3}s \(median of [0-9]+ runs; intervals are of the paired ratios below\)$"
LINE2="^Mimalloc Duration: [0-9]+\.[0-9]{3}s \(median of [0-9]+ runs; ratio of the medians $NUM; paired time ratio to glibc $NUM, $CI \[$NUM, $NUM\]\)$"
LINE3="^Performance Improvement: $NUM% \($CI \[$NUM%, $NUM%\]\)$"
LINE4="^Speedup Ratio: ${NUM}x \($CI \[${NUM}x, ${NUM}x\]\)$"
VERDICT='^Verdict: ((mimalloc is faster|mimalloc is slower)(, within ±[0-9.]+%)?|mimalloc and glibc are equivalent within ±[0-9.]+%|no detectable difference|too few rounds for a verdict: need [0-9]+) \(p (=|<) [0-9.e-]+, [0-9]+ paired rounds\)$'

STEADY='^Regime: steady state \(median of each process.s steady repetitions: training loops, services\)$'
COLD='^Regime: cold start \(first repetition of each process: CLI tools, serverless\)$'

# summary NAME FILE ROUNDS [REGIMES]: FILE (stdout) holds, per regime (default "steady cold"; a
# command has "cold" only), a Regime line, the four lines in order and the verdict over ROUNDS
# paired rounds; then a Results line.
summary() {
	local name=$1 f=$2 i=1 re g res=()
	for g in ${4:-steady cold}; do
		if [ "$g" = steady ]; then res+=("$STEADY"); else res+=("$COLD"); fi
		res+=("$LINE1" "$LINE2" "$LINE3" "$LINE4" "$VERDICT")
	done
	for re in "${res[@]}" '^Results: .+\.json$'; do
		if sed -n "${i}p" "$f" | grep -Eq "$re"; then ok "$name: line $i"; else notok "$name: line $i" "'$(sed -n "${i}p" "$f")' does not match $re"; fi
		i=$((i + 1))
	done
	if grep -q "^Verdict: .*, $3 paired rounds" "$f"; then ok "$name: $3 paired rounds"; else notok "$name: $3 paired rounds" "$(grep '^Verdict' "$f")"; fi
}

# jeq NAME FILE PATH WANT: the JSON value at PATH equals WANT.
jeq() {
	local got
	got=$("$J" "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "$3 is '$got', want '$4'"; fi
}

# near NAME GOT WANT TOL: |GOT - WANT| <= TOL.
near() {
	if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; exit !(g != "" && (d < 0 ? -d : d) <= t) }'; then ok "$1"; else notok "$1" "got '$2', want $3 +- $4"; fi
}

# ---- allocab's drivers: pipeline at small scale ----
expect_status "drivers: exit 0" 0 "$S" --scale small --rounds 3 -q -o "$TMP/d.json"
cp "$TMP/out" "$TMP/d.out"
summary "drivers" "$TMP/d.out" 3
jeq "drivers: results are allocab-bench/2" "$TMP/d.json" schema allocab-bench/2
jeq "drivers: arms system, mimalloc" "$TMP/d.json" config.arms '["system","mimalloc"]'
jeq "drivers: pipeline by default" "$TMP/d.json" config.workloads '["pipeline"]'
jeq "drivers: --scale passed" "$TMP/d.json" config.scale small
jeq "drivers: warm-up + 3 rounds" "$TMP/d.json" rounds.# 4
if grep -q "^Results: $TMP/d.json$" "$TMP/d.out"; then ok "drivers: Results names -o FILE"; else notok "drivers: Results names -o FILE" "$(grep '^Results' "$TMP/d.out")"; fi
if grep -Eq '^Claims: claims from .*mimalloc-ml.json \(mimalloc in ML training pipelines\): [0-9]+ confirmed' "$TMP/d.out" &&
	grep -Eq '^Claims: (overall 10-25% faster +pipeline/total \((steady|cold)\) +mimalloc +1.100x-1.250x .*(confirmed|partly|refuted)|[0-9]+ not measured by this bench \(the list: .* --claims .*\))$' "$TMP/d.out" &&
	! grep -q '  not measured$' "$TMP/d.out"; then
	ok "drivers: the shipped claims judged after the results"
else
	notok "drivers: the shipped claims judged after the results" "$(grep '^Claims' "$TMP/d.out" | head -3)"
fi

# The printed numbers are allocab compare's (read by column name), converted as documented.
# The first block is the steady state's.
if "$BUILD/allocab" compare "$TMP/d.json" --workload pipeline --phase total --candidate mimalloc \
	--regime steady --format json -o "$TMP/d.cmp" 2>/dev/null; then
	c=comparisons.0
	s=$("$J" "$TMP/d.cmp" $c.speedup) lo=$("$J" "$TMP/d.cmp" $c.ci.speedup_lo) hi=$("$J" "$TMP/d.cmp" $c.ci.speedup_hi)
	line=$(grep -m1 '^Speedup Ratio' "$TMP/d.out")
	near "drivers: speedup is compare's" "$(echo "$line" | sed -E 's/^Speedup Ratio: ([0-9.]+)x.*/\1/')" "$s" 0.0011
	near "drivers: speedup CI low is compare's" "$(echo "$line" | sed -E 's/.*\[([0-9.]+)x, .*/\1/')" "$lo" 0.0011
	near "drivers: speedup CI high is compare's" "$(echo "$line" | sed -E 's/.*, ([0-9.]+)x\]\)$/\1/')" "$hi" 0.0011
	line=$(grep -m1 '^Performance Improvement' "$TMP/d.out")
	near "drivers: improvement is compare's" "$(echo "$line" | sed -E 's/^Performance Improvement: (-?[0-9.]+)%.*/\1/')" "$("$J" "$TMP/d.cmp" $c.improvement_pct)" 0.051
	near "drivers: improvement CI low = (1 - 1/speedup_lo) x 100" "$(echo "$line" | sed -E 's/.*\[(-?[0-9.]+)%, .*/\1/')" "$(awk -v x="$lo" 'BEGIN { print 100 * (1 - 1 / x) }')" 0.051
	near "drivers: improvement CI high = (1 - 1/speedup_hi) x 100" "$(echo "$line" | sed -E 's/.*, (-?[0-9.]+)%\]\)$/\1/')" "$(awk -v x="$hi" 'BEGIN { print 100 * (1 - 1 / x) }')" 0.051
	line=$(grep -m1 '^Mimalloc Duration' "$TMP/d.out")
	near "drivers: time ratio CI low = 1/speedup_hi" "$(echo "$line" | sed -E 's/.*\[([0-9.]+), .*/\1/')" "$(awk -v x="$hi" 'BEGIN { print 1 / x }')" 0.0011
	near "drivers: time ratio CI high = 1/speedup_lo" "$(echo "$line" | sed -E 's/.*, ([0-9.]+)\]\)$/\1/')" "$(awk -v x="$lo" 'BEGIN { print 1 / x }')" 0.0011
	near "drivers: mimalloc duration is compare's median" "$(echo "$line" | sed -E 's/^Mimalloc Duration: ([0-9.]+)s.*/\1/')" "$(awk -v x="$("$J" "$TMP/d.cmp" $c.median_ns_candidate)" 'BEGIN { print x / 1e9 }')" 0.0011
	line=$(grep -m1 '^System Allocator Duration' "$TMP/d.out")
	near "drivers: glibc duration is compare's median" "$(echo "$line" | sed -E 's/^System Allocator Duration: ([0-9.]+)s.*/\1/')" "$(awk -v x="$("$J" "$TMP/d.cmp" $c.median_ns_baseline)" 'BEGIN { print x / 1e9 }')" 0.0011
else
	notok "drivers: allocab compare reads the results" "$(head -c 300 "$TMP/err")"
fi

# The ratio of the two medians printed is theirs; the paired ratio beside it is labelled as such.
line=$(grep -m1 '^Mimalloc Duration' "$TMP/d.out")
mb=$(grep -m1 '^System Allocator Duration' "$TMP/d.out" | sed -E 's/^System Allocator Duration: ([0-9.]+)s.*/\1/')
mc=$(echo "$line" | sed -E 's/^Mimalloc Duration: ([0-9.]+)s.*/\1/')
near "drivers: the ratio of the medians is mimalloc's median over glibc's" \
	"$(echo "$line" | sed -E 's/.*ratio of the medians ([0-9.]+);.*/\1/')" "$(awk -v a="$mc" -v b="$mb" 'BEGIN { print a / b }')" \
	"$(awk -v a="$mc" -v b="$mb" 'BEGIN { print 0.0011 + 0.0006 * a / b / (b < a ? b : a) }')"

# ---- the user's commands ----
# Two commands: each must prove its allocator, so the second one preloads mimalloc itself, and
# each must run a program (a shell builtin proves nothing: docs/programs.md).
MI='LD_PRELOAD=libmimalloc.so.2 sleep 0.001'
expect_status "two commands: exit 0" 0 "$S" --rounds 3 -q -o "$TMP/c.json" -- /bin/true "$MI"
summary "two commands" "$TMP/out" 3 cold
jeq "two commands: mode commands" "$TMP/c.json" config.mode commands
jeq "two commands: glibc arm as given" "$TMP/c.json" config.commands.system /bin/true
jeq "two commands: mimalloc arm as given" "$TMP/c.json" config.commands.mimalloc "$MI"
jeq "two commands: the mimalloc arm must prove mimalloc" "$TMP/c.json" config.proof.mimalloc.allocator mimalloc
expect_status "two commands, the second not on mimalloc: exit 1" 1 "$S" --rounds 2 -q -o "$TMP/c2.json" -- /bin/true 'sleep 0.001'
if grep -q '^allocab: bench: mimalloc: no verified successful run: unverified: other allocator serves malloc' "$TMP/err"; then
	ok "two commands, the second not on mimalloc: allocab bench says why"
else
	notok "two commands, the second not on mimalloc: allocab bench says why" "$(cat "$TMP/err")"
fi

expect_status "--cmd/--cmd-mimalloc: exit 0" 0 "$S" --rounds 3 -q -o "$TMP/n.json" --cmd /bin/true --cmd-mimalloc "$MI"
summary "--cmd/--cmd-mimalloc" "$TMP/out" 3 cold
if grep -q '^Claims' "$TMP/out"; then notok "commands: no claims unless asked" "$(grep '^Claims' "$TMP/out" | head -1)"; else ok "commands: no claims unless asked"; fi
jeq "--cmd/--cmd-mimalloc: same arms as positional" "$TMP/n.json" config.commands "$("$J" "$TMP/c.json" config.commands)"

expect_status "one command: exit 0" 0 "$S" --rounds 3 -q -o "$TMP/p.json" "echo \"\${LD_PRELOAD:-none}\" >>'$TMP/seen'"
summary "one command" "$TMP/out" 3 cold
jeq "one command: the workload is named after its program, not 'command'" "$TMP/p.json" config.workloads '["echo"]'
if [ "$(grep -c 'libmimalloc' "$TMP/seen")" -eq 4 ] && [ "$(grep -vc 'libmimalloc' "$TMP/seen")" -eq 4 ]; then
	ok "one command: mimalloc arm runs it with LD_PRELOAD=libmimalloc.so.2, glibc arm without"
else
	notok "one command: mimalloc arm runs it with LD_PRELOAD=libmimalloc.so.2, glibc arm without" "$(sort "$TMP/seen" | uniq -c | tr '\n' ';')"
fi

# The driver refuses (exit 4) when malloc is not its allocator: every mimalloc run fails.
expect_status "one command whose preloaded arm fails: exit 1" 1 "$S" --rounds 2 -q -o "$TMP/f.json" "'$BUILD/allocab-system' info >/dev/null"
# allocab bench names the arm without a successful run and the script stops with its status.
if [ "$(grep -c '^allocab: bench: mimalloc: no verified successful run: failed, exit 4' "$TMP/err")" -eq 1 ]; then
	ok "one command whose preloaded arm fails: one line says why"
else
	notok "one command whose preloaded arm fails: one line says why" "$(cat "$TMP/err")"
fi
if [ -s "$TMP/out" ]; then notok "failed arm: no summary lines" "$(head -c 200 "$TMP/out")"; else ok "failed arm: no summary lines"; fi

"$S" --rounds 6 -q -o "$TMP/g.json" --gate 0 true >"$TMP/g.out" 2>/dev/null
st=$?
case "$st:$(grep -E '^gate: ' "$TMP/g.out" | cut -d' ' -f2)" in
0:PASS | 1:FAIL | 3:INCONCLUSIVE) ok "--gate: exit status $st matches the gate line" ;;
*) notok "--gate: exit status matches the gate line" "exit $st, $(grep '^gate: ' "$TMP/g.out")" ;;
esac
"$BUILD/allocab" gate "$TMP/g.json" --candidate mimalloc --min-speedup 0 >/dev/null 2>&1
want=$?
if [ "$st" = "$want" ]; then ok "--gate: status is allocab gate's on the same file"; else notok "--gate: status is allocab gate's on the same file" "$st, allocab gate says $want"; fi
summary "--gate" "$TMP/g.out" 6 cold
[ -n "$("$J" "$TMP/g.json" config.sequential.planned_rounds 2>/dev/null)" ] && [ "$("$J" "$TMP/g.json" status)" != running ] &&
	ok "--gate: the bench stopped on the gate's own sequential rule (its plan recorded)" ||
	notok "--gate: bench --gate" "config.sequential: $("$J" "$TMP/g.json" config.sequential 2>&1)"

# Without -o: results/<stamp>.json in the current directory and a copy results/latest.json.
mkdir "$TMP/r"
(cd "$TMP/r" && "$S" --rounds 2 -q true >"$TMP/r.out" 2>"$TMP/r.err")
f=$(sed -n 's/^Results: //p' "$TMP/r.out")
if [[ $f =~ ^results/[0-9]{8}T[0-9]{6}Z\.json$ ]] && cmp -s "$TMP/r/$f" "$TMP/r/results/latest.json"; then
	ok "default output: results/<stamp>.json and results/latest.json"
else
	notok "default output: results/<stamp>.json and results/latest.json" "Results '$f'; $(cat "$TMP/r.err")"
fi

# Ctrl-C (SIGINT to the process group) once a few rounds are in: the summary of the finished
# rounds, exit 130.
setsid bash "$S" -q -o "$TMP/i.json" -- 'sleep 0.02' >"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
for _ in $(seq 100); do
	[ "$("$J" "$TMP/i.json" rounds.# 2>/dev/null || echo 0)" -ge 4 ] && break
	sleep 0.1
done
kill -INT -- "-$pid"
wait "$pid"
st=$?
if [ "$st" -eq 130 ]; then ok "interrupt: exit 130"; else notok "interrupt: exit 130" "exit $st; $(head -c 300 "$TMP/i.err")"; fi
jeq "interrupt: results status interrupted" "$TMP/i.json" status interrupted
summary "interrupt" "$TMP/i.out" "$(($("$J" "$TMP/i.json" rounds.#) - 1))" cold

# ---- bad usage: one line, exit 2, nothing run ----
mkdir "$TMP/u"
bad() {
	local name=$1
	shift
	(cd "$TMP/u" && expect_status "usage: $name: exit 2" 2 "$S" "$@")
	expect_err "usage: $name: one line" '^benchmark_mimalloc: .+ \(see --help\)$'
}
bad "unknown option" --frobnicate
bad "missing value" --rounds
bad "rounds not a number" --rounds x
bad "three commands" true true true
bad "--cmd-mimalloc without --cmd" --cmd-mimalloc true
bad "--cmd and positional" --cmd true true
bad "--scale with commands" --scale small true
bad "gate not a percentage" --gate abc
bad "gate 100%" --gate 100%
bad "budget 0" --budget 0
bad "empty command" ''
bad "--phase without commands" --phase epoch
bad "--phase not a phase name" --phase 'a b' true
bad "--time not a time" --time fast true
bad "-o with an option as its value (no file named --format=html)" -o --format=html true
bad "--phase with an option as its value" --phase --gate 0 true
if [ -z "$(ls -A "$TMP/u")" ]; then ok "usage: nothing written"; else notok "usage: nothing written" "$(ls -A "$TMP/u")"; fi
expect_status "LD_PRELOAD already set, one command: exit 0" 0 env LD_PRELOAD=libtcmalloc_minimal.so.4 "$S" --rounds 2 -q -o "$TMP/l.json" true
jeq "LD_PRELOAD already set: the glibc arm is still proven glibc" "$TMP/l.json" config.proof.system.allocator system
expect_status "--preload that ld.so cannot load: exit 1" 1 "$S" --preload libnot-a-library.so.9 -o "$TMP/x.json" true
expect_err "--preload that ld.so cannot load: one line" '^benchmark_mimalloc: --preload libnot-a-library.so.9: '
expect_status "ALLOCAB_BUILD without allocab: exit 1" 1 env ALLOCAB_BUILD="$TMP/u" "$S" true
expect_err "ALLOCAB_BUILD without allocab: one line" '^benchmark_mimalloc: ALLOCAB_BUILD='
expect_status "--help: exit 0" 0 "$S" --help
if grep -q '^usage: ' "$TMP/out" && grep -q -- '--cmd-mimalloc' "$TMP/out" && [ ! -s "$TMP/err" ]; then ok "--help: usage on stdout"; else notok "--help: usage on stdout" "$(head -c 200 "$TMP/out")"; fi
# A command that marks phases: each phase it marked is shown, its repeated epoch with its steady
# state, not only the cold total its warnings would talk about.
if [ -x "$BUILD/tests/phase_fixture" ] && [ -x "$BUILD/allocab-system" ]; then
	"$S" --rounds 4 --warmup 0 -q -o "$TMP/ph.json" -- "$(realpath "$BUILD")/tests/phase_fixture 4" >"$TMP/ph.out" 2>"$TMP/ph.err"
	grep -qx 'Phase: total (the whole process, start-up included)' "$TMP/ph.out" &&
		grep -q '^Phase: epoch (marked by the program' "$TMP/ph.out" && grep -q '^Phase: setup ' "$TMP/ph.out" &&
		[ "$(sed -n '/^Phase: epoch/,/^Phase: /p' "$TMP/ph.out" | grep -c '^Regime: steady state')" = 1 ] &&
		ok "marked command: its phases are shown, the epoch with its steady state" ||
		notok "marked command: its phases are shown" "$(head -c 600 "$TMP/ph.out") $(head -c 300 "$TMP/ph.err")"
	sed -n '/^Phase: epoch/,/^Phase: /p' "$TMP/ph.out" |
		grep -qx "Regime: steady state (mean of the last half of each process's spans of the phase: training loops, services)" &&
		ok "marked command: the epoch's steady value is named as computed (the mean of the last half of its spans)" ||
		notok "marked command: the steady value's name" "$(grep '^Regime: steady' "$TMP/ph.out")"
	jeq "marked command: the workload is named after the program" "$TMP/ph.json" config.workloads '["phase_fixture"]'
	# the epoch as the question and what the gate judges, both arms on one CPU
	"$S" --rounds 4 --warmup 0 -q --one-cpu --time cpu --phase epoch --gate 0 -o "$TMP/pe.json" \
		-- "$(realpath "$BUILD")/tests/phase_fixture 4" >"$TMP/pe.out" 2>"$TMP/pe.err"
	st=$?
	jeq "--phase epoch: the bench's question is the epoch (config.primary)" "$TMP/pe.json" config.primary epoch
	jeq "--one-cpu: the arms of a round shared one CPU" "$TMP/pe.json" config.duet_cpus shared
	jeq "--time cpu: passed to the bench" "$TMP/pe.json" config.time cpu
	grep -q '^[A-Z]* phase_fixture/epoch steady mimalloc vs system: ' "$TMP/pe.out" &&
		case "$st:$(grep -E '^gate: ' "$TMP/pe.out" | cut -d' ' -f2)" in 0:PASS | 1:FAIL | 3:INCONCLUSIVE) true ;; *) false ;; esac &&
		ok "--phase epoch --gate 0: the gate judges the epoch's steady state, its status the script's" ||
		notok "--phase epoch --gate" "exit $st: $(grep -E 'gate|epoch' "$TMP/pe.out" | head -3)"
else
	skip "marked command" "phase_fixture or allocab-system not built"
fi
exit "$t_fail"
