# e2e_ci.sh - the CI workflow docs/ci/allocab.yml (quoted in docs/ci.md): parsed with PyYAML
# (python3-yaml, a test dependency from scripts/deps.sh), every allocab command line it runs
# dry-parsed against that command's --help, its gates run on crafted results (green when healthy,
# red on a real regression), and actionlint where it is installed.
. tests/e2e/lib.sh
A=$BUILD/allocab
WF=docs/ci/allocab.yml
PY=/usr/bin/python3

if ! "$PY" -c 'import yaml' 2>/dev/null; then
	skip "workflow checks" "no python3-yaml for $PY (make deps installs it)"
	exit 0
fi
"$PY" tests/tools/ci_workflow.py "$WF" docs/ci.md "$A" "$TMP/gates.sh" >"$TMP/checks" 2>&1
rc=$?
cat "$TMP/checks"
[ "$rc" = 0 ] || grep -q '^not ok' "$TMP/checks" || notok "workflow: tests/tools/ci_workflow.py" "exit $rc: $(tail -2 "$TMP/checks")"
grep -q '^not ok' "$TMP/checks" && t_fail=1

# The gates the workflow runs, on healthy and on regressed results of a program bench.
# Written by the real engine with a fake runner (tests/tools/mkbench.c).
"$BUILD/tests/mkbench" "$TMP/prog.json" arms=system=1,mimalloc=0.93/0.02 rounds=12
"$BUILD/tests/mkbench" "$TMP/prog-bad.json" arms=system=1,mimalloc=1.15/0.02 rounds=12
ngates=0
[ -s "$TMP/gates.sh" ] && . "$TMP/gates.sh"
# run_gate RESULTS [VAR=VALUE...]: the workflow's gate step, as its script stands, in a scratch
# checkout whose results/allocab.json is RESULTS, with the workflow's env (each VAR=VALUE replaces
# one); its exit code as the step writes it to GITHUB_OUTPUT in $TMP/code.
run_gate() {
	local res=$1 ws=$TMP/ws
	shift
	rm -rf "$ws"
	mkdir -p "$ws/results" "$TMP/bin"
	ln -sf "$(realpath "$A")" "$TMP/bin/allocab"
	cp "$res" "$ws/results/allocab.json"
	: >"$TMP/gh_out"
	(cd "$ws" && env WORKLOAD="$wf_WORKLOAD" PHASE="$wf_PHASE" "$@" GITHUB_OUTPUT="$TMP/gh_out" \
		PATH="$TMP/bin:$PATH" bash -eo pipefail -c "$gate_step") >"$TMP/gout" 2>&1
	sed -n 's/^code=//p' "$TMP/gh_out" >"$TMP/code"
}
code() { cat "$TMP/code"; }
[ -n "${gate_step:-}" ] && ok "workflow: the gate step found" || notok "workflow: the gate step found" "none"
run_gate "$TMP/prog.json"
[ "$(code)" = 0 ] && ok "workflow: the gate step is green on a healthy program (PHASE empty: the total)" ||
	notok "workflow: the gate step is green on a healthy program" "code '$(code)': $(cat "$TMP/gout")"
grep -q "command/total cold" "$TMP/gout" && ok "workflow: without PHASE it judges the total, cold" || notok "workflow: without PHASE it judges the total" "$(cat "$TMP/gout")"
run_gate "$TMP/prog-bad.json"
[ "$(code)" = 1 ] && ok "workflow: the gate step is red on a real regression" ||
	notok "workflow: the gate step is red on a real regression" "code '$(code)': $(cat "$TMP/gout")"
run_gate "$TMP/prog.json" WORKLOAD=train
[ "$(code)" = 2 ] && ok "workflow: a WORKLOAD the results do not hold cannot be judged (exit 2)" ||
	notok "workflow: a WORKLOAD the results do not hold" "code '$(code)': $(cat "$TMP/gout")"
F=$BUILD/tests/phase_fixture
if [ -x "$F" ] && [ -x "$BUILD/allocab-system" ]; then
	"$A" bench --program "$F 6" -w "$wf_WORKLOAD" -a system,mimalloc --rounds 8 --warmup 0 -q -o "$TMP/marked.json" 2>/dev/null
	run_gate "$TMP/marked.json" PHASE=epoch
	case $(code) in
	0 | 1 | 3) ok "workflow: PHASE=epoch judges a marking program (exit $(code))" ;;
	*) notok "workflow: PHASE=epoch judges a marking program" "code '$(code)': $(cat "$TMP/gout")" ;;
	esac
	grep -Eq "$wf_WORKLOAD/epoch steady mimalloc vs system" "$TMP/gout" && ! grep -q "/total" "$TMP/gout" &&
		ok "workflow: PHASE=epoch gates the epoch's steady state, not the total" ||
		notok "workflow: PHASE=epoch gates the epoch's steady state" "$(cat "$TMP/gout")"
else
	skip "workflow: PHASE=epoch" "phase_fixture or allocab-system not built"
fi

if command -v actionlint >/dev/null 2>&1; then
	actionlint "$WF" >"$TMP/lint" 2>&1 && ok "workflow: actionlint" || notok "workflow: actionlint" "$(head -c 600 "$TMP/lint")"
else
	skip "workflow: actionlint" "not installed (https://github.com/rhysd/actionlint)"
fi
exit $t_fail
