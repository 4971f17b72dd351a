#!/usr/bin/env bash
# e2e_ci_user.sh - the workflow docs/ci/allocab.yml run end to end, as a user's repository would
# run it: tests/tools/ci_simulate.py executes its job step by step in a scratch "user repository"
# (tests/fixtures/ci_user: a small C program and its Makefile), installing allocab from this repository's
# HEAD as the workflow installs a pinned release. Three runs: a pull request from a fork with an
# empty cache (allocab is built and installed; the comment step is skipped, the job summary has
# the report); a pull request from the repository with the cache filled (nothing is built; the
# comment would be posted); and a program no preload can reach (a static build: the bench proves
# nothing, and the job fails with the gate); a program that marks an epoch, gated with PHASE=epoch,
# unchanged (green) and with its epochs alone regressed under mimalloc (red);
# and an ALLOCAB_REF that does not exist (the verdict names the install step). No local Actions runner is packaged in Debian
# (act is not), hence the simulation.
. tests/e2e/lib.sh
PY=/usr/bin/python3
root=$(pwd)
if ! "$PY" -c 'import yaml' 2>/dev/null; then
	skip "user workflow checks" "no python3-yaml for $PY (make deps installs it)"
	exit 0
fi
if ! git -C "$root" rev-parse --verify -q HEAD >/dev/null; then
	skip "user workflow checks" "not a git checkout (the workflow installs allocab from a git ref)"
	exit 0
fi

ws=$TMP/user
mkdir -p "$ws" "$TMP/state"
cp tests/fixtures/ci_user/churn.c tests/fixtures/ci_user/Makefile "$ws/"
# A build whose --program takes no --time yet runs the workflow with the bench's default time.
timeset=()
if "$BUILD/allocab" bench --program true --time cpu --rounds 1 -o "$TMP/t.json" 2>&1 | grep -q 'cannot be combined with --time'; then
	timeset=(--set ALLOCAB_TIME=)
	ok "user workflow: this build's --program takes no --time: ALLOCAB_TIME set empty for the runs"
fi
sim() { # sim NAME ARGS...: runs the job; its output in $TMP/NAME.out
	local name=$1
	shift
	"$PY" tests/tools/ci_simulate.py docs/ci/allocab.yml allocab "$ws" "$TMP/state" --no-apt \
		--set ALLOCAB_REPO="file://$root" --set ALLOCAB_REF=HEAD --set ALLOCAB_PREFIX="$TMP/prefix" \
		--set ALLOCAB_BUDGET=6 "${timeset[@]}" "$@" >"$TMP/$name.out" 2>&1
}
has() { grep -q -- "$2" "$TMP/$1.out"; }

sim fork --event pull_request --fork
rc=$?
[ "$rc" = 0 ] && has fork "^job: success" && ok "user workflow: a fork's pull request with an empty cache is green" ||
	notok "user workflow: fork, empty cache" "exit $rc: $(tail -15 "$TMP/fork.out")"
[ -x "$TMP/prefix/bin/allocab" ] && [ -x "$TMP/prefix/lib/allocab/deps.sh" ] && has fork "cache miss" &&
	ok "user workflow: the install step builds and installs allocab when the cache missed" ||
	notok "user workflow: install on a cache miss" "$(ls "$TMP/prefix" 2>&1)"
has fork "Comment on the pull request (not from forks): skipped" &&
	ok "user workflow: the comment step is skipped for a fork's pull request (no write permission there)" ||
	notok "user workflow: comment skipped on forks" "$(grep -i comment "$TMP/fork.out")"
grep -q "^### allocab gate" "$TMP/state/summary" && grep -q "allocab compare" "$TMP/state/summary" &&
	ok "user workflow: the job summary carries the gate lines and the report" ||
	notok "user workflow: job summary" "$(head -5 "$TMP/state/summary")"
has fork "Verdict: the gate's outcome is the job's: ran (exit 0)" && has fork "post: cache saved" &&
	ok "user workflow: the verdict step ran and the built allocab was saved to the cache" ||
	notok "user workflow: verdict and cache save" "$(tail -5 "$TMP/fork.out")"
[ -f "$ws/results/allocab.json" ] && grep -q '"verified":[[:space:]]*true' "$ws/results/allocab.json" &&
	ok "user workflow: the program's runs are proven (the probe verified them)" ||
	notok "user workflow: proof" "$(grep -o '"reason":[^,]*' "$ws/results/allocab.json" | head -2)"
! grep -q '"duet_cpus"' "$ws/results/allocab.json" && ! grep -q '"pinned_cpu":[0-9]' "$ws/results/allocab.json" &&
	grep -q '"gate_outcome"' "$ws/results/allocab.json" &&
	ok "user workflow: by default the arms run one after the other (no --one-cpu), and the bench ran the gate" ||
	notok "user workflow: solo by default, the bench gated" "$(grep -o '"duet[a-z_]*":[^,]*\|"gate_outcome":[^,]*' "$ws/results/allocab.json" | head -3)"

grep -Eq '^allocab: round [0-9]+ done' "$TMP/fork.out" &&
	ok "user workflow: the bench step's log has a progress line per round (no --quiet)" ||
	notok "user workflow: progress lines in the log" "$(grep -m3 'allocab' "$TMP/fork.out")"
[ "$("$BUILD/tests/jget" "$ws/results/allocab.json" config.workloads.0)" = command ] &&
	ok "user workflow: the workload is named WORKLOAD (command)" ||
	notok "user workflow: the workload is named WORKLOAD" "$("$BUILD/tests/jget" "$ws/results/allocab.json" config.workloads)"

rm -rf "$TMP/prefix" "$ws/results"
sim same --event pull_request
rc=$?
saved=$(ls -d "$TMP"/state/cache/*/bin/allocab 2>/dev/null | head -1)
[ "$rc" = 0 ] && has same "cache hit" && [ -n "$saved" ] &&
	[ "$(stat -c %Y "$TMP/prefix/bin/allocab")" = "$(stat -c %Y "$saved")" ] &&
	ok "user workflow: with the cache filled nothing is built (the restored allocab is the cached one)" ||
	notok "user workflow: cache hit" "exit $rc: $(grep -E 'cache' "$TMP/same.out" | head -5)"
has same "simulated: would comment with results/comment.md" &&
	ok "user workflow: a pull request from the repository gets the comment" ||
	notok "user workflow: comment on own pull requests" "$(grep -i comment "$TMP/same.out")"

rm -rf "$ws/results"
sim static --event push --set PROGRAM="./churn-static 300000" --set PROGRAM_BUILD="make churn-static"
rc=$?
[ "$rc" = 1 ] && has static "^job: failure" && has static "Verdict: the gate's outcome is the job's: ran (exit 1)" &&
	ok "user workflow: a program no preload reaches fails the job through the verdict step" ||
	notok "user workflow: unproven program" "exit $rc: $(tail -12 "$TMP/static.out")"

# A program that marks an epoch, gated on it: PHASE=epoch. Unchanged (its epochs do the same
# arithmetic under both allocators): green. With "slow" its epochs do twice the work under
# mimalloc and its total stays the same: the phase's regression alone turns the job red.
mkdir -p "$ws/phase"
cp phase/allocab_phase.h "$ws/phase/"
cp tests/fixtures/ci_user/epochs.c "$ws/"
# The budget holds a plan of rounds long enough to decide a 2x effect on a loaded machine (a plan
# of 6 rounds cannot decide at all); the bench stops as soon as the gate decides.
epoch_sim() { # epoch_sim NAME PROGRAM-ARGS
	rm -rf "$ws/results"
	sim "$1" --event push --set PHASE=epoch --set PROGRAM="./epochs $2" \
		--set PROGRAM_BUILD="cc -O2 -I. -o epochs epochs.c" --set ALLOCAB_BUDGET=30
}
epoch_sim epoch 6
rc=$?
gate_code=$(grep -o 'gate: [A-Z]*' "$ws/results/gate.txt" 2>/dev/null | head -1)
grep -Eq '^(PASS|INCONCLUSIVE) +command/epoch steady mimalloc vs system' "$ws/results/gate.txt" 2>/dev/null &&
	[ "$rc" = 0 ] && has epoch "^job: success" &&
	ok "user workflow: PHASE=epoch, unchanged epochs: the gate judges the epoch's steady state and the job is green ($gate_code)" ||
	notok "user workflow: PHASE=epoch, unchanged" "exit $rc: $(cat "$ws/results/gate.txt" 2>&1 | head -3)"
[ "$("$BUILD/tests/jget" "$ws/results/allocab.json" config.primary)" = epoch ] &&
	ok "user workflow: PHASE=epoch is the bench's question (config.primary epoch)" ||
	notok "user workflow: PHASE is the bench's primary" "$("$BUILD/tests/jget" "$ws/results/allocab.json" config.primary)"
epoch_sim epoch_slow "6 slow"
rc=$?
grep -Eq '^FAIL +command/epoch steady mimalloc vs system' "$ws/results/gate.txt" 2>/dev/null &&
	[ "$rc" = 1 ] && has epoch_slow "^job: failure" &&
	has epoch_slow "Verdict: the gate's outcome is the job's: ran (exit 1)" &&
	ok "user workflow: PHASE=epoch, epochs 2x slower under mimalloc (total unchanged): the job is red" ||
	notok "user workflow: PHASE=epoch, a regression of the phase" "exit $rc: $(cat "$ws/results/gate.txt" 2>&1 | head -3); $(tail -4 "$TMP/epoch_slow.out")"
[ "$("$BUILD/tests/jget" "$ws/results/allocab.json" status)" = decided ] &&
	ok "user workflow: the bench stopped when the gate decided the phase" ||
	notok "user workflow: the bench stopped on the gate's decision" "status $("$BUILD/tests/jget" "$ws/results/allocab.json" status)"

# An ALLOCAB_REF that does not exist: the verdict names the install step.
rm -rf "$ws/results" "$TMP/prefix" "$TMP/state/cache"
sim badref --event push --set ALLOCAB_REF=0000000000000000000000000000000000000000
rc=$?
[ "$rc" = 1 ] && has badref "not judged: the step 'Install allocab' failed" &&
	ok "user workflow: a pinned commit that does not exist fails the job, the verdict naming the install step" ||
	notok "user workflow: bad ALLOCAB_REF" "exit $rc: $(tail -8 "$TMP/badref.out")"
exit $t_fail
