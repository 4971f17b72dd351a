# e2e_bench.sh - `allocab bench` end to end: real drivers at small scale, the user's own commands
# (crash, failure, hang, interrupt), scripted fake drivers for driver faults and a deterministic
# sequential gate, and every bad input. Asserts behaviour only, never speed.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget

# jeq NAME FILE PATH WANT: the JSON value at PATH equals WANT.
jeq() {
	local got
	got=$("$J" "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "$3 is '$got', want '$4'"; fi
}

# every_run FILE: checks every round holds each (arm, workload) pair exactly once and prints the
# statuses of all runs, one per line, as "arm workload status".
every_run() {
	local f=$1 nr na nw r k n pairs
	nr=$("$J" "$f" rounds.#)
	na=$("$J" "$f" config.arms.#)
	nw=$("$J" "$f" config.workloads.#)
	for ((r = 0; r < nr; r++)); do
		n=$("$J" "$f" "rounds.$r.runs.#")
		pairs=""
		for ((k = 0; k < n; k++)); do
			local arm wl st
			arm=$("$J" "$f" "rounds.$r.runs.$k.arm")
			wl=$("$J" "$f" "rounds.$r.runs.$k.workload")
			st=$("$J" "$f" "rounds.$r.runs.$k.status")
			pairs+="$arm/$wl"$'\n'
			echo "$arm $wl $st"
		done
		if [ "$n" -ne $((na * nw)) ] || [ "$(printf '%s' "$pairs" | sort -u | wc -l)" -ne "$n" ]; then
			echo "round $r: $n runs, not every pair once"
		fi
	done
}

# ---- real drivers ----
if [ -x "$BUILD/allocab-system" ] && [ -x "$BUILD/allocab-mimalloc" ]; then
	expect_status "drivers: bench system,mimalloc, 2 workloads, 3 rounds" 0 \
		"$A" bench -a system,mimalloc -w parquet_load,feature_extract --scale small --rounds 3 \
		--quiet -o "$TMP/drv.json"
	if [ -s "$TMP/out" ]; then notok "drivers: stdout stays empty" "$(head -c 200 "$TMP/out")"; else ok "drivers: stdout stays empty"; fi
	jeq "drivers: schema" "$TMP/drv.json" schema allocab-bench/2
	jeq "drivers: status complete" "$TMP/drv.json" status complete
	jeq "drivers: warm-up + 3 rounds" "$TMP/drv.json" rounds.# 4
	jeq "drivers: round 0 is warm-up" "$TMP/drv.json" rounds.0.warmup true
	jeq "drivers: round 1 is measured" "$TMP/drv.json" rounds.1.warmup false
	jeq "drivers: mode" "$TMP/drv.json" config.mode drivers
	jeq "drivers: scale recorded" "$TMP/drv.json" config.scale small
	every_run "$TMP/drv.json" >"$TMP/runs"
	if grep -q '^round' "$TMP/runs"; then notok "drivers: each round runs each pair once" "$(grep '^round' "$TMP/runs" | head -3)"; else ok "drivers: each round runs each pair once"; fi
	if [ "$(grep -vc ' ok$' "$TMP/runs")" -eq 0 ] && [ "$(wc -l <"$TMP/runs")" -eq 16 ]; then ok "drivers: all 16 runs ok"; else notok "drivers: all 16 runs ok" "$(grep -v ' ok$' "$TMP/runs" | head -3)"; fi
	arm=$("$J" "$TMP/drv.json" rounds.2.runs.1.arm)
	jeq "drivers: record is the arm's allocab-run/1" "$TMP/drv.json" rounds.2.runs.1.record.allocator.name "$arm"
	jeq "drivers: record verified" "$TMP/drv.json" rounds.2.runs.1.record.allocator.verified true
	pad=$("$J" "$TMP/drv.json" rounds.1.runs.0.pad_bytes)
	if [ "$pad" -ge 0 ] && [ "$pad" -le 4096 ]; then ok "drivers: pad_bytes in 0..4096"; else notok "drivers: pad_bytes in 0..4096" "$pad"; fi
	if [ -x "$A" ] && "$A" compare "$TMP/drv.json" >"$TMP/cmp" 2>&1; then ok "drivers: compare accepts the results"; else notok "drivers: compare accepts the results" "$(head -c 300 "$TMP/cmp")"; fi
else
	notok "drivers: bench system,mimalloc" "$BUILD/allocab-system or allocab-mimalloc not built"
fi

# ---- external commands ----
# An arm without a single successful run fails the bench (exit 1), one line per such arm.
expect_status "cmd: crash recorded, bench completes, exit 1" 1 \
	"$A" bench --cmd ok=true --cmd 'boom=echo about to crash >&2; kill -SEGV $$' --rounds 2 --quiet -o "$TMP/crash.json"
if [ "$(wc -l <"$TMP/err")" -eq 2 ] &&
	head -n 1 "$TMP/err" | grep -Eq 'allocab: bench: 3 of 6 runs did not succeed \(3 crashed\); results in ' &&
	tail -n 1 "$TMP/err" | grep -Eq '^allocab: bench: boom: no verified successful run: crashed, SIGSEGV: about to crash$'; then
	ok "cmd: failures counted on stderr, the arm without a successful run named"
else
	notok "cmd: failures counted on stderr, the arm without a successful run named" "$(cat "$TMP/err")"
fi
jeq "cmd: status complete" "$TMP/crash.json" status complete
jeq "cmd: mode commands" "$TMP/crash.json" config.mode commands
jeq "cmd: workload is 'command'" "$TMP/crash.json" config.workloads.0 command
every_run "$TMP/crash.json" >"$TMP/runs"
if [ "$(grep -c '^boom command crashed$' "$TMP/runs")" -eq 3 ] && [ "$(grep -c '^ok command ok$' "$TMP/runs")" -eq 3 ] && ! grep -q '^round' "$TMP/runs"; then
	ok "cmd: every boom run crashed, every ok run ok"
else
	notok "cmd: every boom run crashed, every ok run ok" "$(tr '\n' ';' <"$TMP/runs")"
fi
k=0
[ "$("$J" "$TMP/crash.json" rounds.1.runs.0.arm)" = boom ] || k=1
jeq "cmd: crash signal SIGSEGV" "$TMP/crash.json" "rounds.1.runs.$k.signal" SIGSEGV
jeq "cmd: crash has no exit status" "$TMP/crash.json" "rounds.1.runs.$k.exit_status" null
jeq "cmd: crash keeps the stderr tail" "$TMP/crash.json" "rounds.1.runs.$k.stderr_tail" "about to crash"
jeq "cmd: no record for commands" "$TMP/crash.json" "rounds.1.runs.$k.record" ""

expect_status "cmd: program killed under the shell" 1 \
	"$A" bench --cmd ok=true --cmd 'inner=sh -c "kill -SEGV \$\$"' --rounds 1 --warmup 0 --quiet -o "$TMP/inner.json"
k=0
[ "$("$J" "$TMP/inner.json" rounds.0.runs.0.arm)" = inner ] || k=1
jeq "cmd: shell status 139 recorded as crashed" "$TMP/inner.json" "rounds.0.runs.$k.status" crashed
jeq "cmd: ... with signal SIGSEGV" "$TMP/inner.json" "rounds.0.runs.$k.signal" SIGSEGV
jeq "cmd: ... and the shell's exit status" "$TMP/inner.json" "rounds.0.runs.$k.exit_status" 139

expect_status "cmd: non-zero exit recorded" 1 \
	"$A" bench --cmd ok=true --cmd 'bad=echo nope >&2; exit 3' --rounds 1 --warmup 0 --quiet -o "$TMP/fail.json"
k=0
[ "$("$J" "$TMP/fail.json" rounds.0.runs.0.arm)" = bad ] || k=1
jeq "cmd: status failed" "$TMP/fail.json" "rounds.0.runs.$k.status" failed
jeq "cmd: exit_status 3" "$TMP/fail.json" "rounds.0.runs.$k.exit_status" 3
jeq "cmd: failed stderr tail" "$TMP/fail.json" "rounds.0.runs.$k.stderr_tail" nope

expect_status "cmd: hanging command killed at --timeout" 1 \
	timeout 60 "$A" bench --cmd ok=true --cmd 'hang=sleep 30' --timeout 1 --rounds 1 --warmup 0 --quiet -o "$TMP/hang.json"
k=0
[ "$("$J" "$TMP/hang.json" rounds.0.runs.0.arm)" = hang ] || k=1
jeq "cmd: status timeout" "$TMP/hang.json" "rounds.0.runs.$k.status" timeout
jeq "cmd: timed-out run got SIGTERM" "$TMP/hang.json" "rounds.0.runs.$k.signal" SIGTERM
jeq "cmd: timeout recorded in config" "$TMP/hang.json" config.timeout_s 1

"$A" bench --cmd a=true --cmd b=true --rounds 2 --shuffle-seed 7 --quiet -o "$TMP/s1.json" 2>/dev/null
"$A" bench --cmd a=true --cmd b=true --rounds 2 --shuffle-seed 7 --quiet -o "$TMP/s2.json" 2>/dev/null
order() { for r in 0 1 2; do for k in 0 1; do printf '%s:%s ' "$("$J" "$1" "rounds.$r.runs.$k.arm")" "$("$J" "$1" "rounds.$r.runs.$k.pad_bytes")"; done; done; }
if [ "$(order "$TMP/s1.json")" = "$(order "$TMP/s2.json")" ]; then ok "cmd: same --shuffle-seed, same orders and paddings"; else notok "cmd: same --shuffle-seed, same orders and paddings" "$(order "$TMP/s1.json") vs $(order "$TMP/s2.json")"; fi
jeq "cmd: shuffle seed recorded" "$TMP/s1.json" config.shuffle_seed 7

mkdir -p "$TMP/res"
expect_status "cmd: --results-dir" 0 "$A" bench --cmd a=true --cmd b=true --rounds 1 --quiet --results-dir "$TMP/res"
stamped=$(ls "$TMP/res" | grep -v '^latest.json$' | grep -E '^[0-9]{8}T[0-9]{6}Z(-[0-9]+)?\.json$' | head -1)
if [ -n "$stamped" ] && cmp -s "$TMP/res/$stamped" "$TMP/res/latest.json"; then ok "cmd: <stamp>.json and latest.json identical"; else notok "cmd: <stamp>.json and latest.json identical" "$(ls "$TMP/res")"; fi
if ls -a "$TMP/res" | grep -q '^\.allocab'; then notok "cmd: no temporary files left" "$(ls -a "$TMP/res")"; else ok "cmd: no temporary files left"; fi

# A finished bench says what ran, apart, and the command that reads its results next (quoted for
# a shell when the path needs it).
mkdir -p "$TMP/with space"
expect_status "cmd: a finished bench" 0 "$A" bench --cmd a=true --cmd b=true --rounds 2 -o "$TMP/with space/n.json"
grep -v '^allocab: round [0-9]' "$TMP/err" >"$TMP/err2"
if grep -Eq '^allocab: bench: 2 measured rounds and 1 warm-up round in [0-9.]+ s; results in ' "$TMP/err2" &&
	[ "$(tail -n 1 "$TMP/err2")" = "allocab: bench: next: allocab compare '$TMP/with space/n.json'" ]; then
	ok "cmd: a finished bench counts measured and warm-up rounds apart and names the next command"
else
	notok "cmd: a finished bench counts measured and warm-up rounds apart and names the next command" "$(cat "$TMP/err2")"
fi

# Interrupt: SIGINT during a long run, after two rounds are written, keeps the finished rounds.
# The long sleep's length is unique to this test run ($$), so that pgrep sees only ours.
"$A" bench --cmd a="sleep 0.1; [ -e $TMP/long ] && sleep 30.$$" --cmd b='sleep 0.1' --rounds 100 --warmup 0 \
	-o "$TMP/int.json" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 300); do
	[ "$("$J" "$TMP/int.json" rounds.# 2>/dev/null || echo 0)" -ge 2 ] && break
	sleep 0.1
done
touch "$TMP/long"
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ]; then ok "interrupt: exit 130"; else notok "interrupt: exit 130" "exit $rc"; fi
jeq "interrupt: status interrupted" "$TMP/int.json" status interrupted
n=$("$J" "$TMP/int.json" rounds.#)
if [ "$n" -ge 2 ] && [ "$n" -lt 100 ]; then ok "interrupt: finished rounds kept ($n)"; else notok "interrupt: finished rounds kept" "rounds $n"; fi
grep -v '^allocab: round [0-9]' "$TMP/int.err" >"$TMP/int.err2" # the progress lines of a pipe
if grep -Eq "^allocab: bench: interrupted after $n measured rounds and 0 warm-up rounds; results in $TMP/int.json$" "$TMP/int.err2" &&
	grep -Eq "^allocab: bench: next: allocab compare $TMP/int.json$" "$TMP/int.err2" &&
	grep -Eq "^allocab: bench: to add rounds: allocab bench --cmd .* --resume $TMP/int.json$" "$TMP/int.err2" &&
	[ "$(wc -l <"$TMP/int.err2")" -eq 3 ]; then
	ok "interrupt: one line says what ran and where the results are, one the next command, one how to resume"
else
	notok "interrupt: one line says what ran and where the results are, one the next command, one how to resume" "$(head -c 300 "$TMP/int.err2")"
fi
if pgrep -f "sleep 30[.]$$\$" >/dev/null; then notok "interrupt: the running command is killed" "sleep 30.$$ still running"; else ok "interrupt: the running command is killed"; fi
if "$A" compare "$TMP/int.json" >"$TMP/cmp" 2>&1; then ok "interrupt: compare accepts the file"; else notok "interrupt: compare accepts the file" "$(head -c 300 "$TMP/cmp")"; fi

# ---- scripted fake drivers: faults and a deterministic gate ----
D=$TMP/drivers
mkdir -p "$D"
fake() { # fake NAME BODY-OF-run [DIR [FLAGS]]: FLAGS the backend's declared flags, a JSON array
	local dir=${3:-$D} flags=${4:-[]}
	mkdir -p "$dir"
	cat >"$dir/allocab-$1" <<EOF
#!/bin/sh
case "\$1" in
list) echo '{"schema":"allocab-list/1","allocator":{"name":"$1","flags":$flags},"workloads":[{"name":"w1","params":[{"name":"n"}]},{"name":"w2","params":[]}]}' ;;
run) $2 ;;
*) exit 2 ;;
esac
EOF
	chmod +x "$dir/allocab-$1"
}
rec='printf '"'"'{"schema":"allocab-run/1","allocator":{"name":"%s","verified":true},"workload":{"name":"%s","scale":"small","seed":42,"params":{}},"phases":["total"],"reps":[{"checksum":"00000000000000aa","phases":{"total":{"wall_ns":%s,"cpu_ns":%s}}}],"checksum":"00000000000000aa","argv":"%s"}'"'"
fake system "$rec \"system\" \"\$2\" 2000000 2000000 \"\$*\"" "$D" '["baseline"]'
fake fast "$rec \"fast\" \"\$2\" 1000000 1000000 \"\$*\""
fake liar 'echo "allocab-liar: allocator: malloc is served by libc.so.6" >&2; exit 4'
fake junk 'echo hello'
fake picky 'echo "allocab-picky: --param n: 0 is out of range [1, 9]" >&2; exit 2' "$TMP/picky"
fake system "$rec \"system\" \"\$2\" 2000000 2000000 \"\$*\"" "$TMP/picky" '["baseline"]'
fake system_slow "$rec \"system_slow\" \"\$2\" 1 1 \"\$*\"" "$D" '["calibration"]'


expect_status "fake: default arms from --driver-dir (liar, junk never succeed: exit 1)" 1 "$A" bench --driver-dir "$D" -w w1 --rounds 1 --warmup 0 --quiet -o "$TMP/all.json"
jeq "fake: the declared baseline first, then sorted, the calibration backend left out" "$TMP/all.json" config.arms '["system","fast","junk","liar"]'
expect_status "fake: ALLOCAB_DRIVER_DIR" 0 env ALLOCAB_DRIVER_DIR="$D" "$A" bench -a system,fast --rounds 1 --warmup 0 --quiet -o "$TMP/env.json"
jeq "fake: default workloads from list --json" "$TMP/env.json" config.workloads '["w1","w2"]'

expect_status "fake: unverified, invalid runs recorded, exit 1" 1 "$A" bench --driver-dir "$D" -a system,liar,junk -w w1 --rounds 1 --warmup 0 --quiet -o "$TMP/bad.json"
if grep -q '^allocab: bench: liar: no verified successful run: unverified' "$TMP/err" &&
	grep -q '^allocab: bench: junk: no verified successful run: invalid: stdout is not' "$TMP/err"; then
	ok "fake: one line per arm without a verified run"
else
	notok "fake: one line per arm without a verified run" "$(cat "$TMP/err")"
fi
every_run "$TMP/bad.json" >"$TMP/runs"
for want in "system w1 ok" "liar w1 unverified" "junk w1 invalid"; do
	if grep -qx "$want" "$TMP/runs"; then ok "fake: $want"; else notok "fake: $want" "$(tr '\n' ';' <"$TMP/runs")"; fi
done

expect_status "fake: --param goes to the workloads that have it" 0 "$A" bench --driver-dir "$D" -a system,fast --param n=5 --scale small --seed 7 --reps 2 --rounds 1 --warmup 0 --quiet -o "$TMP/par.json"
for k in 0 1 2 3; do
	w=$("$J" "$TMP/par.json" "rounds.0.runs.$k.workload")
	a=$("$J" "$TMP/par.json" "rounds.0.runs.$k.record.argv")
	case "$w:$a" in
	"w1:run w1 --scale small --seed 7 --reps 2 --steady-time cpu --param n=5 --out -" | "w2:run w2 --scale small --seed 7 --reps 2 --steady-time cpu --out -") ;;
	*) notok "fake: driver arguments" "$w: $a"; k=x; break ;;
	esac
done
[ "$k" = x ] || ok "fake: driver arguments"

expect_status "fake: sequential gate decides" 0 "$A" bench --driver-dir "$D" -a system,fast -w w1 --rounds 20 --quiet -o "$TMP/gate.json" --gate --candidate fast --min-speedup 10%
if grep -q '^gate: PASS' "$TMP/out"; then ok "fake: gate verdict on stdout"; else notok "fake: gate verdict on stdout" "$(head -c 300 "$TMP/out")"; fi
jeq "fake: status decided" "$TMP/gate.json" status decided
jeq "fake: stopped at the first look a plan of 20 rounds can decide at (warm-up + 11)" "$TMP/gate.json" rounds.# 12
jeq "fake: the plan is recorded" "$TMP/gate.json" config.sequential.planned_rounds 20
jeq "fake: the decision is recorded with its looks (rounds 6 to 11)" "$TMP/gate.json" gate_decision.looks 6
expect_status "fake: allocab gate on the file re-judges it sequentially, same verdict" 0 "$A" gate "$TMP/gate.json" --candidate fast --min-speedup 10%
grep -q '^PASS .*sequential [0-9.]*% CI .*after round 11 of 20 planned' "$TMP/out" && ok "fake: the gate line names the sequential interval and the look" ||
	notok "fake: the gate line names the sequential interval and the look" "$(head -c 400 "$TMP/out")"
jeq "fake: gate outcome recorded" "$TMP/gate.json" gate_outcome PASS
expect_status "--equivalence is recorded" 0 "$A" bench --cmd a=true --cmd b=true --rounds 2 --equivalence 3% --allocation none --quiet -o "$TMP/eq.json"
jeq "--equivalence is recorded as config.equivalence_pct" "$TMP/eq.json" config.equivalence_pct 3
jeq "without --gate or allocation no plan is recorded" "$TMP/eq.json" config.sequential null
jeq "--allocation none is recorded" "$TMP/eq.json" config.allocation null
expect_status "adaptive allocation, the default" 0 "$A" bench --cmd a=true --cmd b=true --rounds 4 --quiet -o "$TMP/alloc.json"
jeq "allocation: config.allocation sequential" "$TMP/alloc.json" config.allocation sequential
jeq "allocation: its plan is recorded at its first look" "$TMP/alloc.json" config.sequential.planned_rounds 4
jeq "fake: the time compared is recorded, CPU by default" "$TMP/par.json" config.time cpu
expect_status "fake: gate FAIL exits 1" 1 "$A" bench --driver-dir "$D" -a system,fast -w w1 --rounds 20 --quiet -o "$TMP/gate2.json" --gate --candidate system --baseline fast --min-speedup 10%

# ---- bad input: one line, documented status, no file ----
bad() { # bad NAME STATUS PATTERN ARGS...
	local name=$1 st=$2 pat=$3
	shift 3
	rm -f "$TMP/none.json"
	expect_status "bad input: $name: exit $st" "$st" "$A" bench "$@"
	expect_err "bad input: $name: one line" "^allocab: bench: $pat"
	if [ -e "$TMP/none.json" ]; then notok "bad input: $name: no file" "written"; else ok "bad input: $name: no file"; fi
}
O=(-o "$TMP/none.json" --quiet)
bad "unknown option" 2 "unknown option '--frob'" --frob "${O[@]}"
bad "missing value" 2 "--rounds needs a value" "${O[@]}" --rounds
bad "non-numeric rounds" 2 "--rounds: 'many' is not a whole number$" --rounds many "${O[@]}"
bad "zero rounds" 2 "--rounds: 0 is out of range \\[1, 100000\\]$" --rounds 0 "${O[@]}"
bad "bad budget" 2 "--budget" --budget -5 "${O[@]}"
bad "unknown scale" 2 "--scale" --scale enormous "${O[@]}"
bad "unknown time" 2 "--time: 'gpu' is not one of cpu, auto, wall$" --time gpu "${O[@]}"
bad "unknown allocation" 2 "--allocation: 'greedy' is not one of sequential, none$" --allocation greedy "${O[@]}"
bad "allocation and gate" 2 "--allocation sequential and --gate exclude each other" --cmd a=true --cmd b=true --allocation sequential "${O[@]}" --gate --candidate b --min-speedup 5%
bad "allocation without its baseline" 2 "--allocation sequential: no arm 'system'" --driver-dir "$D" -a fast,liar --allocation sequential "${O[@]}"
bad "unknown allocator" 2 "-a: unknown allocator 'nosuch'" --driver-dir "$D" -a system,nosuch "${O[@]}"
bad "one allocator" 2 "-a: a comparison needs at least two" --driver-dir "$D" -a system "${O[@]}"
bad "unknown workload" 2 "-w: unknown workload 'w9'" --driver-dir "$D" -a system,fast -w w9 "${O[@]}"
bad "parameter of no workload" 2 "--param zz: no selected workload" --driver-dir "$D" -a system,fast --param zz=1 "${O[@]}"
bad "driver rejects the arguments" 2 "allocab-picky rejected the arguments: allocab-picky: --param n" --driver-dir "$TMP/picky" -a system,picky -w w1 "${O[@]}"
bad "one --cmd" 2 "--cmd: a comparison needs at least two commands" --cmd a=true "${O[@]}"
bad "duplicate --cmd" 2 "--cmd: name 'a' is given twice" --cmd a=true --cmd a=false "${O[@]}"
bad "--cmd with -a" 2 "--cmd cannot be combined with --allocators" --cmd a=true --cmd b=true -a system "${O[@]}"
bad "bad --cmd name" 2 "--cmd: 'a/b=true' is not NAME=COMMAND" --cmd a/b=true --cmd c=true "${O[@]}"
bad "--cmd arm named like an option" 2 "--cmd: '--help=true' is not NAME=COMMAND .*not starting with '-'" --cmd --help=true --cmd c=true "${O[@]}"
bad "--cmd arm name starting with '-'" 2 "--cmd: '-x=true' is not NAME=COMMAND" --cmd=-x=true --cmd c=true "${O[@]}"
bad "--preload arm name starting with '-'" 2 "--preload: '-x=libx.so' is not NAME=LIBRARY .*not starting with '-'" --program true --preload=-x=libx.so "${O[@]}"
bad "gate: unknown candidate" 2 "" --cmd a=true --cmd b=true "${O[@]}" --gate --candidate zz --min-speedup 5%
bad "gate: bad margin" 2 "" --cmd a=true --cmd b=true "${O[@]}" --gate --candidate b --min-speedup lots
bad "bad --equivalence" 2 "--equivalence: 0 is out of range \\(0%, 100%\\)$" --cmd a=true --cmd b=true --equivalence 0 "${O[@]}"
bad "two equivalence margins" 2 "--equivalence 3% and the gate's --equivalence 2% differ" --cmd a=true --cmd b=true --equivalence 3 "${O[@]}" --gate --candidate b --max-slowdown 0 --equivalence 2
mkdir -p "$TMP/empty"
bad "no drivers" 1 "found no drivers in $TMP/empty" --driver-dir "$TMP/empty" "${O[@]}"
fake system "$rec" "$TMP/empty"
bad "only one driver" 1 "found only one driver in $TMP/empty" --driver-dir "$TMP/empty" "${O[@]}"
rm -rf "$TMP/empty"
bad "missing driver dir" 1 "driver directory $TMP/empty: No such file" --driver-dir "$TMP/empty" "${O[@]}"
bad "unwritable -o" 1 "cannot write $TMP/no/such/dir/x.json" --cmd a=true --cmd b=true -o "$TMP/no/such/dir/x.json" --quiet
touch "$TMP/afile"
bad "results dir is a file" 1 "cannot create $TMP/afile/sub" --cmd a=true --cmd b=true --results-dir "$TMP/afile/sub" --quiet

# ---- the rounds rule (docs/methodology.md, "Multiplicity") ----
# --allocation none: adaptive allocation may stop an A/A bench of `true` early, when its sequential
# interval decides (one CI run ended after 8 measured rounds: at round 8 only all 8 log ratios of
# one sign decide, a false faster or slower at the rule's error rate; docs/methodology.md,
# "Adaptive allocation"); this checks the rounds rule alone.
expect_status "rule: default rounds for one comparison" 0 "$A" bench --cmd a=true --cmd b=true --allocation none --quiet -o "$TMP/rule1.json"
jeq "rule: 1 comparison, no --rounds: max(10, 6 + 3) = 10 measured rounds (+1 warm-up)" "$TMP/rule1.json" rounds.# 11
if [ -s "$TMP/err" ]; then notok "rule: no warning without --rounds" "$(head -c 300 "$TMP/err")"; else ok "rule: no warning without --rounds"; fi
expect_status "rule: --budget alone runs the rule's minimum" 0 "$A" bench --cmd a=true --cmd b=true --budget 0.001 --quiet -o "$TMP/rule2.json"
jeq "rule: --budget 0.001 still gives 7 measured rounds (+1 warm-up): 6 for compare's interval, 7 for adaptive allocation's sequential plan to decide at all" "$TMP/rule2.json" rounds.# 8
expect_status "rule: --rounds below the minimum runs" 0 "$A" bench --cmd a=true --cmd b=true --cmd c=true --cmd d=true --rounds 3 -o "$TMP/rule3.json"
w='^allocab: bench: warning: --rounds 3 cannot give a verdict: the simultaneous intervals of 3 comparisons at alpha 0.05 need 7 paired rounds \(the smallest n with 2/2\^n <= alpha/3\)'
if [ "$(grep -Ec "$w" "$TMP/err")" = 1 ] && [ "$(grep -c warning "$TMP/err")" = 1 ]; then
	ok "rule: one warning at the start names the rounds needed"
else
	notok "rule: one warning at the start names the rounds needed" "$(head -c 400 "$TMP/err")"
fi
expect_status "rule: --quiet keeps the warning off stderr" 0 "$A" bench --cmd a=true --cmd b=true --rounds 2 --quiet -o "$TMP/rule4.json"
if [ -s "$TMP/err" ]; then notok "rule: --quiet: nothing on stderr" "$(head -c 300 "$TMP/err")"; else ok "rule: --quiet: nothing on stderr"; fi
"$A" compare "$TMP/rule3.json" >"$TMP/cmp3" 2>/dev/null
if [ "$(grep -c 'too few rounds for a verdict: need 7' "$TMP/cmp3")" = 3 ] && ! grep -q 'no detectable difference  ' "$TMP/cmp3"; then
	ok "rule: compare labels each row 'too few rounds for a verdict: need 7'"
else
	notok "rule: compare labels each row 'too few rounds for a verdict: need 7'" "$(grep '^command' "$TMP/cmp3")"
fi

exit $t_fail

