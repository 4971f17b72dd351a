# e2e_warnings.sh - what `make bench` prints (scripts/bench.sh: bench, compare table, markdown
# report): each warning once, none for a bench that ended on its budget as asked.
. tests/e2e/lib.sh
export BUILD

# warnings_once NAME FILE: every warning line of FILE appears once.
warnings_once() {
	local dup
	dup=$(grep -i 'warning' "$2" | sed 's/^allocab: [a-z]*: //' | sort | uniq -d)
	if [ -z "$dup" ]; then ok "$1"; else notok "$1" "repeated: $(printf '%s' "$dup" | head -c 300)"; fi
}

RESULTS=$TMP/res BENCH_BUDGET=0.001 scripts/bench.sh --cmd a=true --cmd b=true >"$TMP/all" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "bench.sh on a budget: exit 0" || notok "bench.sh on a budget: exit 0" "exit $rc: $(tail -3 "$TMP/all")"
# The budget is extended to the rounds a verdict needs, estimated from the first round: when later
# rounds are slower (a loaded machine), the plan's rounds end the bench before the budget does; two
# runs of `true` can also be decided (equivalent) by the sequential rule before either.
grep -Eq 'status (budget|complete|decided)' "$TMP/all" && ok "bench.sh: the bench ended on its budget, its plan or its decisions" ||
	notok "bench.sh: the bench ended on its budget, its plan or its decisions" "$(grep -v 'round [0-9]' "$TMP/all" | head -3)"
if grep -i 'warning' "$TMP/all" | grep -q "status 'budget'"; then
	notok "no warning for a bench that ended on its budget as asked" "$(grep -i warning "$TMP/all" | head -3)"
else
	ok "no warning for a bench that ended on its budget as asked"
fi
warnings_once "bench.sh on a budget: each warning once" "$TMP/all"

RESULTS=$TMP/res2 BENCH_BUDGET=60 scripts/bench.sh --cmd a=true --cmd b=true --cmd c=true --rounds 3 >"$TMP/all2" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "bench.sh --rounds 3: exit 0" || notok "bench.sh --rounds 3: exit 0" "exit $rc: $(tail -3 "$TMP/all2")"
[ "$(grep -c 'cannot give a verdict' "$TMP/all2")" = 1 ] && [ "$(grep -c 'too few rounds for a verdict (n = 3)' "$TMP/all2")" = 1 ] &&
	ok "bench.sh --rounds 3: the rounds warning of bench and the one of compare, once each" ||
	notok "bench.sh --rounds 3: each warning once" "$(grep -i warning "$TMP/all2" | head -5)"
warnings_once "bench.sh --rounds 3: no warning repeated" "$TMP/all2"
md=$(ls "$TMP"/res2/*.md 2>/dev/null | head -1)
[ -n "$md" ] && grep -q 'too few rounds for a verdict (n = 3)' "$md" &&
	ok "bench.sh: the markdown report carries the warning" || notok "bench.sh: the markdown report carries the warning" "${md:-no report}"

exit $t_fail
