# e2e_resume.sh - `allocab bench --resume FILE` end to end: a bench interrupted after its first
# measured round and continued from the command line it prints, the rounds numbered on, a new
# session with its own warm-up and shuffle seed, every reader accepting the file; every refusal
# (another configuration, --gate, a decided, foreign, spent or bad file) with its status and line;
# the strict reader on "sessions". Asserts behaviour only, never speed.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget

# edit FILE OUT PYTHON: OUT is FILE with the Python statement applied to its document d.
edit() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent="\t")
EOF
}

# ---- interrupted after its first measured round, then resumed ----
# The command of arm a sleeps long once $TMP/long exists ($$ makes it ours for pgrep).
CA="sleep 0.3; [ -e $TMP/long ] && sleep 30.$$; true"
CB='sleep 0.05'
CMD=(--cmd a="$CA" --cmd b="$CB" --rounds 4 --allocation none -o "$TMP/r.json")
"$A" bench "${CMD[@]}" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 300); do
	[ "$("$J" "$TMP/r.json" rounds.# 2>/dev/null || echo 0)" -ge 2 ] && break
	sleep 0.1
done
touch "$TMP/long"
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
rm -f "$TMP/long"
if [ "$rc" -eq 130 ]; then ok "interrupt: exit 130"; else notok "interrupt: exit 130" "exit $rc"; fi
n0=$("$J" "$TMP/r.json" rounds.#)
m0=$((n0 - 1))
jeq "interrupt: status interrupted" "$TMP/r.json" status interrupted
hint=$(grep '^allocab: bench: to add rounds: ' "$TMP/int.err" | sed 's/^allocab: bench: to add rounds: allocab //')
case $hint in
*" --resume $TMP/r.json") ok "interrupt: the line that resumes it ends with --resume FILE" ;;
*) notok "interrupt: the line that resumes it ends with --resume FILE" "$(head -c 400 "$TMP/int.err")" ;;
esac
sum0=$(sha256sum <"$TMP/r.json")
cp "$TMP/r.json" "$TMP/before.json"

# the printed command, run as it is (its quotes are a shell's)
eval "set -- $hint"
"$A" "$@" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ]; then ok "resume: the printed command continues the bench (exit 0)"; else notok "resume: the printed command continues the bench (exit 0)" "exit $rc: $(head -c 300 "$TMP/err")"; fi
n=$("$J" "$TMP/r.json" rounds.#)
if [ "$n" -eq $((n0 + 5)) ]; then ok "resume: 4 more measured rounds and a warm-up round ($n0 + 5)"; else notok "resume: 4 more measured rounds and a warm-up round" "rounds $n, before $n0"; fi
bad=""
for ((i = 0; i < n; i++)); do [ "$("$J" "$TMP/r.json" "rounds.$i.index")" = "$i" ] || bad+=" $i"; done
if [ -z "$bad" ]; then ok "resume: round indices run on 0..$((n - 1))"; else notok "resume: round indices run on" "wrong at$bad"; fi
jeq "resume: the new session begins with a warm-up round" "$TMP/r.json" "rounds.$n0.warmup" true
jeq "resume: the round after it is measured" "$TMP/r.json" "rounds.$((n0 + 1)).warmup" false
jeq "resume: the first session's rounds are kept" "$TMP/r.json" "rounds.1.started_utc" "$("$J" "$TMP/before.json" rounds.1.started_utc)"
jeq "resume: two sessions" "$TMP/r.json" sessions.# 2
jeq "resume: session 0 begins at round 0" "$TMP/r.json" sessions.0.first_round 0
jeq "resume: session 0 keeps its status" "$TMP/r.json" sessions.0.status interrupted
jeq "resume: session 1 begins after the file's rounds" "$TMP/r.json" sessions.1.first_round "$n0"
jeq "resume: session 1 ended complete" "$TMP/r.json" sessions.1.status complete
jeq "resume: the final status is the last session's" "$TMP/r.json" status complete
s0=$("$J" "$TMP/r.json" sessions.0.shuffle_seed)
s1=$("$J" "$TMP/r.json" sessions.1.shuffle_seed)
if [ "$s0" = "$("$J" "$TMP/r.json" config.shuffle_seed)" ] && [ "$s0" != "$s1" ]; then
	ok "resume: session 1 draws its own shuffle seed"
else
	notok "resume: session 1 draws its own shuffle seed" "$s0 $s1"
fi
if grep -q -- '"--resume"' <("$J" "$TMP/r.json" sessions.1.argv); then ok "resume: session 1 records its command line"; else notok "resume: session 1 records its command line" "$("$J" "$TMP/r.json" sessions.1.argv)"; fi
grep -v '^allocab: round [0-9]' "$TMP/err" >"$TMP/err2"
if grep -Eq "^allocab: bench: 4 measured rounds and 1 warm-up round \($((m0 + 4)) measured rounds in all\) in [0-9.]+ s; results in $TMP/r.json$" "$TMP/err2"; then
	ok "resume: the summary counts this session's rounds and all"
else
	notok "resume: the summary counts this session's rounds and all" "$(head -c 400 "$TMP/err2")"
fi
if "$A" compare "$TMP/r.json" >"$TMP/cmp" 2>&1 &&
	grep -q "status complete): $((m0 + 4)) measured rounds, 2 warm-up rounds discarded" "$TMP/cmp"; then
	ok "resume: compare uses every measured round of both sessions"
else
	notok "resume: compare uses every measured round of both sessions" "$(head -c 400 "$TMP/cmp")"
fi
tr -d '\n' <"$TMP/cmp" | sed 's/  */ /g' | grep -q "; 2 sessions (bench --resume)" &&
	ok "resume: compare names the sessions" || notok "resume: compare names the sessions" "$(head -c 400 "$TMP/cmp")"
if "$A" compare "$TMP/r.json" --format json -o "$TMP/cmp.json" 2>"$TMP/err" &&
	"$A" compare "$TMP/r.json" --format html -o "$TMP/cmp.html" 2>>"$TMP/err"; then
	ok "resume: exports accept the file"
else
	notok "resume: exports accept the file" "$(head -c 300 "$TMP/err")"
fi
"$A" gate "$TMP/r.json" --candidate b --max-slowdown 50% >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -ne 2 ]; then ok "resume: gate reads the file (exit $rc)"; else notok "resume: gate reads the file" "$(head -c 300 "$TMP/err")"; fi
if pgrep -f "sleep 30[.]$$\$" >/dev/null; then notok "interrupt: the running command is killed" "still running"; else ok "interrupt: the running command is killed"; fi

# -o elsewhere: FILE is left alone, the continued document goes to -o
cp "$TMP/r.json" "$TMP/keep.json"
sum=$(sha256sum <"$TMP/keep.json")
expect_status "resume -o OTHER: exit 0" 0 "$A" bench --cmd a="$CA" --cmd b="$CB" \
	--allocation none --rounds 1 -q --resume "$TMP/keep.json" -o "$TMP/other.json"
edit "$TMP/other.json" "$TMP/other2.json" 'd["task"]["label"] = "other"'
edit "$TMP/r.json" "$TMP/r2.json" 'd["task"]["label"] = "one"'
if "$A" merge "$TMP/r2.json" "$TMP/other2.json" >"$TMP/out" 2>"$TMP/err"; then ok "resume: merge reads resumed files"; else notok "resume: merge reads resumed files" "$(head -c 300 "$TMP/err")"; fi
if [ "$(sha256sum <"$TMP/keep.json")" = "$sum" ] && [ "$("$J" "$TMP/other.json" sessions.#)" = 3 ]; then
	ok "resume -o OTHER: FILE unchanged, OTHER holds the three sessions"
else
	notok "resume -o OTHER: FILE unchanged, OTHER holds the three sessions" "$("$J" "$TMP/other.json" sessions.#)"
fi

# ---- refusals: one line, exit 2, FILE untouched ----
R=(--cmd a="$CA" --cmd b="$CB" --allocation none --rounds 1 -q)
cp "$TMP/keep.json" "$TMP/f.json"
sum=$(sha256sum <"$TMP/f.json")
refuse() { # refuse NAME PATTERN ARGS...
	local name=$1 pat=$2
	shift 2
	expect_status "refused: $name (exit 2)" 2 "$A" bench "$@"
	expect_err "refused: $name (one line)" "$pat"
}
refuse "another arm" "^allocab: bench: $TMP/f.json: config.arms differs: \[\"a\",\"b\"\] in the file, \[\"a\",\"c\"\] in this bench" \
	--cmd a="$CA" --cmd c="$CB" --allocation none --rounds 1 -q --resume "$TMP/f.json"
refuse "another command" "config.commands differs" \
	--cmd a="$CA" --cmd b='sleep 0.06' --allocation none --rounds 1 -q --resume "$TMP/f.json"
refuse "another workload" "config.workloads differs: \[\"command\"\] in the file, \[\"train\"\] in this bench" \
	"${R[@]}" -w train --resume "$TMP/f.json"
refuse "another allocation" "config.allocation differs" \
	--cmd a="$CA" --cmd b="$CB" --rounds 1 -q --resume "$TMP/f.json"
refuse "another warm-up" "config.warmup differs" "${R[@]}" --warmup 2 --resume "$TMP/f.json"
refuse "--gate" "^allocab: bench: --resume cannot be combined with --gate: a sequential gate's plan is fixed at its first look" \
	"${R[@]}" --resume "$TMP/f.json" --gate --max-slowdown 5%
refuse "--results-dir" "^allocab: bench: --results-dir cannot be combined with --resume: --resume rewrites the file it continues \\(or -o\\)$" "${R[@]}" --resume "$TMP/f.json" --results-dir "$TMP/rd"
refuse "a missing file" "^allocab: bench: $TMP/none.json: " "${R[@]}" --resume "$TMP/none.json"
printf '{"schema": "allocab-bench/1", "status": "complete", "config": {}, "rounds": [' >"$TMP/bad.json"
refuse "a bad file" "^allocab: bench: $TMP/bad.json: " "${R[@]}" --resume "$TMP/bad.json"
edit "$TMP/f.json" "$TMP/idx.json" 'd["rounds"][1]["index"] = 7'
refuse "a round that does not load" "^allocab: bench: $TMP/idx.json: rounds\[1\]: index 7" "${R[@]}" --resume "$TMP/idx.json"
edit "$TMP/f.json" "$TMP/dec.json" 'd["status"] = "decided"'
refuse "a decided file" "^allocab: bench: $TMP/dec.json: status decided" "${R[@]}" --resume "$TMP/dec.json"
edit "$TMP/f.json" "$TMP/gate.json" 'd["config"]["gate"] = ["--max-slowdown", "5%"]'
refuse "a file of a --gate bench" "^allocab: bench: $TMP/gate.json: a bench with --gate cannot be resumed" "${R[@]}" --resume "$TMP/gate.json"
edit "$TMP/f.json" "$TMP/far.json" 'd["machine"]["cpu_model"] = "Another CPU 9000"'
refuse "another machine" "^allocab: bench: $TMP/far.json: measured on another machine" "${R[@]}" --resume "$TMP/far.json"
edit "$TMP/f.json" "$TMP/old.json" 'd["tool"]["version"] = "0.0.1"'
refuse "another version" "^allocab: bench: $TMP/old.json: written by allocab 0.0.1" "${R[@]}" --resume "$TMP/old.json"
seed=$("$J" "$TMP/f.json" sessions.1.shuffle_seed)
refuse "a shuffle seed a session used" "the seed of a session it holds" "${R[@]}" --shuffle-seed "$seed" --resume "$TMP/f.json"
if [ "$(sha256sum <"$TMP/f.json")" = "$sum" ]; then ok "refused: FILE untouched"; else notok "refused: FILE untouched" "changed"; fi

# adaptive allocation: a plan fixed and spent is extended (its next stage, docs/methodology.md,
# "Sequential decisions"), unless it spent all of alpha (no alpha_share: it cannot be); one not
# fixed yet is fixed by the continuation
"$A" bench --cmd a='sleep 0.01' --cmd b='sleep 0.02' --rounds 3 -q -o "$TMP/plan.json" 2>/dev/null
jeq "a plan of 3 spends 0.8 of alpha" "$TMP/plan.json" config.sequential.alpha_share 0.80000000000000004
edit "$TMP/plan.json" "$TMP/allplan.json" 'del d["config"]["sequential"]["alpha_share"]'
refuse "a spent sequential plan that spent all of alpha" "^allocab: bench: $TMP/allplan.json: its sequential plan of 3 rounds is spent: .* --allocation none" \
	--cmd a='sleep 0.01' --cmd b='sleep 0.02' --rounds 3 -q --resume "$TMP/allplan.json"
cp "$TMP/plan.json" "$TMP/plan0.json"
expect_status "a spent extendable plan: resumed for 3 more rounds (exit 0)" 0 \
	"$A" bench --cmd a='sleep 0.01' --cmd b='sleep 0.02' --rounds 3 -q --resume "$TMP/plan.json"
jeq "a spent extendable plan: its next stage, twice the horizon" "$TMP/plan.json" config.sequential.planned_rounds 6
jeq "a spent extendable plan: the next stage spends 0.16 of alpha (0.8 x 0.2, written exactly)" "$TMP/plan.json" config.sequential.alpha_share 0.15999999999999998
n=$(python3 -c "import json, benchfile,sys; print(sum(1 for r in benchfile.load(sys.argv[1])['rounds'] if not r['warmup']))" "$TMP/plan.json")
[ "$n" = 6 ] && ok "a spent extendable plan: --rounds 3 gave 3 more measured rounds (6)" || notok "a spent extendable plan: --rounds 3 more" "$n"
jeq "a spent extendable plan: status complete, not budget" "$TMP/plan.json" status complete
edit "$TMP/plan0.json" "$TMP/noplan.json" 'd["rounds"] = d["rounds"][:2]; d["status"] = "interrupted"; d["config"]["sequential"] = None'
expect_status "resume: adaptive allocation before its first look continues (exit 0)" 0 \
	"$A" bench --cmd a='sleep 0.01' --cmd b='sleep 0.02' --rounds 3 -q --resume "$TMP/noplan.json"
jeq "resume: its plan counts the file's measured rounds" "$TMP/noplan.json" config.sequential.planned_rounds 4

# ---- the strict reader on "sessions" ----
for c in 'd["sessions"] = {}' 'd["sessions"] = []' 'd["sessions"][1]["first_round"] = 99' \
	'd["sessions"][0]["first_round"] = 1' 'd["sessions"][1]["shuffle_seed"] = -1' \
	'd["sessions"][1]["status"] = "paused"' 'd["sessions"][1]["argv"] = "allocab bench"' \
	'del d["sessions"][1]["started_utc"]'; do
	edit "$TMP/f.json" "$TMP/s.json" "$c"
	"$A" compare "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^allocab: compare: $TMP/s.json: sessions" "$TMP/err"; then
		ok "strict: $c refused"
	else
		notok "strict: $c refused" "exit $rc: $(head -c 300 "$TMP/err")"
	fi
done
edit "$TMP/f.json" "$TMP/s.json" 'del d["sessions"]'
check "strict: a file without sessions is read" "$A" compare "$TMP/s.json"
check "strict: a file with sessions is read" "$A" compare "$TMP/f.json"

# ---- real drivers: the checksums of both sessions agree, and scale and arms must match ----
if [ -x "$BUILD/allocab-system" ] && [ -x "$BUILD/allocab-mimalloc" ]; then
	DR=(-a system,mimalloc -w parquet_load --scale small --allocation none -q -o "$TMP/d.json")
	expect_status "drivers: a bench of 1 round" 0 "$A" bench "${DR[@]}" --rounds 1
	expect_status "drivers: resumed for 1 more" 0 "$A" bench "${DR[@]}" --rounds 1 --resume "$TMP/d.json"
	sums=$(for i in 0 1 2 3; do for k in 0 1; do "$J" "$TMP/d.json" "rounds.$i.runs.$k.record.checksum"; done; done | sort -u)
	if [ "$(printf '%s\n' "$sums" | wc -l)" -eq 1 ] && [ -n "$sums" ]; then ok "drivers: every run of both sessions has one checksum"; else notok "drivers: every run of both sessions has one checksum" "$sums"; fi
	check "drivers: compare reads the resumed file" "$A" compare "$TMP/d.json"
	refuse "drivers: another scale" "config.scale differs: \"small\" in the file, \"default\" in this bench" \
		-a system,mimalloc -w parquet_load --scale default --allocation none -q --resume "$TMP/d.json"
	refuse "drivers: another arm" "config.arms differs" \
		-a system,jemalloc -w parquet_load --scale small --allocation none -q --resume "$TMP/d.json"
	refuse "drivers: another workload" "config.workloads differs" \
		-a system,mimalloc -w feature_extract --scale small --allocation none -q --resume "$TMP/d.json"
	refuse "drivers: another seed" "config.seed differs" \
		-a system,mimalloc -w parquet_load --scale small --seed 7 --allocation none -q --resume "$TMP/d.json"
else
	notok "drivers" "allocab-system or allocab-mimalloc not built (make test builds them)"
fi
exit $t_fail
