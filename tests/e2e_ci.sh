# e2e_ci.sh - the CI workflow docs/ci/allocab.yml (quoted in docs/ci.md): parsed with PyYAML
# (python3-yaml, a test dependency from scripts/deps.sh), every allocab command line it runs
# dry-parsed against that command's --help, its gates run on crafted results (green when healthy,
# red on a real regression), and actionlint where it is installed.
. tests/lib.sh
A=$BUILD/allocab
WF=docs/ci/allocab.yml
PY=/usr/bin/python3

if ! "$PY" -c 'import yaml' 2>/dev/null; then
	skip "workflow checks" "no python3-yaml for $PY (make deps installs it)"
	exit 0
fi
"$PY" tests/ci_workflow.py "$WF" docs/ci.md "$A" "$TMP/gates.sh" >"$TMP/checks" 2>&1
rc=$?
cat "$TMP/checks"
[ "$rc" = 0 ] || grep -q '^not ok' "$TMP/checks" || notok "workflow: tests/ci_workflow.py" "exit $rc: $(tail -2 "$TMP/checks")"
grep -q '^not ok' "$TMP/checks" && t_fail=1

# The gates the workflow runs, on healthy and on regressed results of a program bench.
mkbench "$TMP/prog.json" mode=commands arms=system=1,mimalloc=0.93/0.02 rounds=12
mkbench "$TMP/prog-bad.json" mode=commands arms=system=1,mimalloc=1.15/0.02 rounds=12
ngates=0
[ -s "$TMP/gates.sh" ] && . "$TMP/gates.sh"
# run_gate I RESULTS: gate I of the workflow with its results file replaced.
run_gate() {
	local -n g=gate_$1
	local args=("${g[@]}")
	args=("${args[@]//results\/allocab.json/$2}")
	"$A" gate "${args[@]}" >"$TMP/gout" 2>&1
}
for ((i = 0; i < ngates; i++)); do
	local_name="${gate_job[$i]} gate $((i + 1))"
	eval "desc=\"\${gate_$i[*]}\""
	run_gate "$i" "$TMP/prog.json"
	rc=$?
	[ "$rc" = 0 ] && ok "workflow: $local_name is green on a healthy program ($desc)" ||
		notok "workflow: $local_name is green on a healthy program" "exit $rc: $(cat "$TMP/gout")"
	run_gate "$i" "$TMP/prog-bad.json"
	rc=$?
	[ "$rc" = 1 ] && ok "workflow: $local_name is red on a real regression" ||
		notok "workflow: $local_name is red on a real regression" "exit $rc: $(cat "$TMP/gout")"
done
[ "$ngates" -ge 1 ] && ok "workflow: $ngates gate checked" || notok "workflow: gates checked" "$ngates"

if command -v actionlint >/dev/null 2>&1; then
	actionlint "$WF" >"$TMP/lint" 2>&1 && ok "workflow: actionlint" || notok "workflow: actionlint" "$(head -c 600 "$TMP/lint")"
else
	skip "workflow: actionlint" "not installed (https://github.com/rhysd/actionlint)"
fi
exit $t_fail
