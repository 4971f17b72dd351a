# e2e_budget.sh - a budget that can decide, known after the first round (docs/methodology.md,
# "Multiplicity"): the rounds rule is counted again with the phases a program marks (3 candidates,
# a total, a phase marked once and one marked 4 times: 12 comparisons), the budget is extended to
# the rounds a verdict needs and says so in one note, and a budget that may not be extended
# (--min-rounds given) says it cannot decide and which --budget can. Asserts behaviour only.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget
F=$BUILD/tests/phase_fixture

if [ -x "$BUILD/allocab-system" ] && [ -x "$F" ]; then
	# a budget shorter than any round, so that on every machine it holds none and is extended
	"$A" bench --program "$F 4" -a system,mimalloc,jemalloc,tcmalloc --budget 0.01 -o "$TMP/p.json" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 0 ] && ok "marked program, budget 0.01 s: exit 0" || notok "marked program, budget 0.01 s: exit 0" "exit $rc: $(head -c 300 "$TMP/err")"
	grep -Eq '^allocab: bench: note: a budget of 0.01 s holds about 0 measured rounds \([0-9.]+ s a round\); a verdict on its 3 comparisons needs at least ([0-9]+): the budget is extended to them, about [0-9]+ s \(give --budget [0-9]+ or more' "$TMP/err" &&
		ok "marked program: one note counts the 3 primary comparisons (each candidate's total) and extends the budget" ||
		notok "marked program: the note" "$(grep -v 'round [0-9]' "$TMP/err" | head -c 400)"
	need=$(sed -n 's/.*needs at least \([0-9]*\): .*/\1/p' "$TMP/err")
	measured=$(python3 -c "import json, benchfile,sys; d=benchfile.load(sys.argv[1]); print(sum(1 for r in d['rounds'] if not r['warmup']))" "$TMP/p.json")
	[ -n "$need" ] && [ "$measured" -ge "$need" ] && ok "marked program: it ran the $need measured rounds a verdict needs ($measured)" ||
		notok "marked program: it ran the rounds a verdict needs" "need '$need', measured $measured"
	"$A" compare "$TMP/p.json" --format json >"$TMP/cmp" 2>&1
	few=$(python3 -c "import json, benchfile,sys; d=benchfile.load(sys.argv[1]); print(sum(1 for r in d['comparisons'] if r['family'] == 'primary' and r['verdict'].startswith('too few')))" "$TMP/cmp" 2>&1)
	[ "$few" = 0 ] && ok "marked program: no primary comparison has too few rounds for a verdict" ||
		notok "marked program: compare can give verdicts" "$few"
	if grep -q '^what the budget bought' "$TMP/err"; then
		nsec=$(python3 -c "import json, benchfile,sys; d=benchfile.load(sys.argv[1]); print(sum(1 for r in d['comparisons'] if r['family'] == 'secondary'))" "$TMP/cmp" 2>&1)
		yrows=$(sed -n '/^comparison  /,/^and /p' "$TMP/err")
		[ "$(printf '%s\n' "$yrows" | grep -c ' primary  ')" = 3 ] && ! printf '%s\n' "$yrows" | grep -q ' secondary  ' &&
			grep -q "^and $nsec secondary comparisons, not shown: their intervals are in compare's secondary table$" "$TMP/err" &&
			ok "the budget's yield: the 3 primary comparisons, the $nsec secondary ones counted in one line" ||
			notok "the budget's yield: primary rows only" "$yrows"
	else
		skip "the budget's yield: primary rows only" "this bench ended without printing its yield"
	fi
	planned=$("$J" "$TMP/p.json" config.sequential.planned_rounds)
	[ "$planned" -ge "$need" ] && ok "marked program: the sequential plan covers them ($planned)" || notok "marked program: the sequential plan covers them" "planned $planned, need $need"
else
	skip "marked program" "allocab-system or phase_fixture not built"
fi

"$A" bench --cmd a='sleep 0.1' --cmd b='sleep 0.1' --budget 1 --min-rounds 2 -o "$TMP/c.json" >"$TMP/out" 2>"$TMP/err"
grep -Eq '^allocab: bench: WARNING: a budget of 1 s holds about [0-9]+ measured rounds? .*; a verdict on its 1 comparison needs at least 7: this budget cannot decide: give --budget [0-9]+ or more' "$TMP/err" &&
	ok "--min-rounds: the budget is kept, and a warning says it cannot decide and by how much" ||
	notok "--min-rounds: the warning" "$(grep -v 'round [0-9]' "$TMP/err" | head -c 400)"
measured=$(python3 -c "import json, benchfile,sys; d=benchfile.load(sys.argv[1]); print(sum(1 for r in d['rounds'] if not r['warmup']))" "$TMP/c.json")
[ "$measured" -lt 7 ] && ok "--min-rounds: the budget stops it ($measured rounds)" || notok "--min-rounds: the budget stops it" "$measured"
# A budget far above what the rounds need on any machine (a round of two `true` runs takes well
# under 3 s even under a heavy load), the rounds capped so that the test stays short.
"$A" bench --cmd a=true --cmd b=true --budget 60 --rounds 8 -o "$TMP/d.json" >"$TMP/out" 2>"$TMP/err"
grep -q 'a budget of' "$TMP/err" && notok "a budget that holds the rounds: no note" "$(grep 'a budget of' "$TMP/err")" || ok "a budget that holds the rounds: no note"
# --rounds too few once the program's phases are counted, and on resume with the file's rounds
if [ -x "$BUILD/allocab-system" ] && [ -x "$F" ]; then
	P=(--program "$F 4" -a system,mimalloc,jemalloc --warmup 0 --allocation none --primary all)
	"$A" bench "${P[@]}" --rounds 2 -o "$TMP/w.json" >"$TMP/out" 2>"$TMP/err"
	grep -q '^allocab: bench: WARNING: --rounds 2 gives 2 measured rounds in all; a verdict on its 8 comparisons (the phases the program marked counted) needs at least 9: give --rounds 9 or more' "$TMP/err" &&
		ok "--rounds: the phases the program marked are counted after its first round" || notok "--rounds: phases counted" "$(grep -i warning "$TMP/err")"
	"$A" bench "${P[@]}" --rounds 3 --resume "$TMP/w.json" >"$TMP/out" 2>"$TMP/err"
	grep -q '^allocab: bench: WARNING: --rounds 3 gives 5 measured rounds in all (2 in the file); a verdict on its 8 comparisons .* needs at least 9: give --rounds 7 or more' "$TMP/err" &&
		! grep -q 'cannot give a verdict: the simultaneous intervals of 2 comparisons' "$TMP/err" &&
		ok "--rounds on resume: the file's rounds and phases counted, one warning" || notok "--rounds on resume: the warning" "$(grep -i warning "$TMP/err")"
else
	skip "--rounds warnings" "allocab-system or phase_fixture not built"
fi
exit $t_fail
