#!/usr/bin/env bash
# e2e_ci_user.sh - the workflow docs/ci/allocab.yml run end to end, as a user's repository would
# run it: tests/ci_simulate.py executes its job step by step in a scratch "user repository"
# (tests/ci_user: a small C program and its Makefile), installing allocab from this repository's
# HEAD as the workflow installs a pinned release. Three runs: a pull request from a fork with an
# empty cache (allocab is built and installed; the comment step is skipped, the job summary has
# the report); a pull request from the repository with the cache filled (nothing is built; the
# comment would be posted); and a program no preload can reach (a static build: the bench proves
# nothing, and the job fails with the gate). No local Actions runner is packaged in Debian
# (act is not), hence the simulation.
. tests/lib.sh
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
cp tests/ci_user/churn.c tests/ci_user/Makefile "$ws/"
sim() { # sim NAME ARGS...: runs the job; its output in $TMP/NAME.out
	local name=$1
	shift
	"$PY" tests/ci_simulate.py docs/ci/allocab.yml allocab "$ws" "$TMP/state" --no-apt \
		--set ALLOCAB_REPO="file://$root" --set ALLOCAB_REF=HEAD --set ALLOCAB_PREFIX="$TMP/prefix" \
		--set ALLOCAB_BUDGET=6 "$@" >"$TMP/$name.out" 2>&1
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
exit $t_fail
