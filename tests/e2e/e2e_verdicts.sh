# e2e_verdicts.sh - every format of `allocab compare` (table, markdown, json, csv, html, svg, gab)
# prints the interval its verdicts rest on (docs/methodology.md, "Reading the output", "Multiplicity:
# simultaneous intervals", "Equivalence"): on crafted results (mkbench, tests/e2e/lib.sh) with faster,
# slower, equivalent, both, undecided and too-few rows, tests/tools/verdict_check.py parses each output
# and checks that faster holds exactly when the printed interval lies above 1x, slower below, and
# equivalent within +-M% inside the margin; the family level is named and the per-comparison
# interval kept in json and csv; the claims check gives the equivalence reason in every format.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget
PY=$(command -v python3) || { skip "verdicts" "python3 is not installed"; exit 0; }

mkbench "$TMP/v.json" arms=system=1,a=0.8,b=1.1,c=1.002/0.004,d=0.985/0.004,e=1.0/0.3 rounds=12 reps=4
mkbench "$TMP/few.json" arms=system=1,a=0.8,b=1.1,c=1.002/0.004 rounds=6 reps=4
mkbench "$TMP/old.json" arms=system=1,a=0.8 rounds=10 spread=0.001
mkbench "$TMP/new.json" arms=system=1,a=0.79 rounds=10 spread=0.001

# agree NAME FILE ARGS...: compare FILE ARGS in every format, each output checked (the table as
# wide as it is: split to fit a terminal, an interval and its verdict can land in two parts).
agree() {
	local name=$1 f
	shift
	for f in table markdown json csv html svg gab; do
		if ! COLUMNS=1000 "$A" compare "$@" --format "$f" -o "$TMP/out.$f" 2>"$TMP/err"; then
			notok "$name: $f" "compare failed: $(head -c 300 "$TMP/err")"
			continue
		fi
		if "$PY" tests/tools/verdict_check.py "$f" "$TMP/out.$f" >"$TMP/check" 2>&1; then
			ok "$name: $f verdicts agree with the printed intervals ($(cat "$TMP/check"))"
		else
			notok "$name: $f verdicts agree with the printed intervals" "$(head -c 600 "$TMP/check")"
		fi
	done
}

agree "one file, both regimes" "$TMP/v.json"
agree "one file, margin 0.5%" "$TMP/v.json" --equivalence 0.5%
agree "one file, no equivalence" "$TMP/v.json" --equivalence 0
agree "too few rounds for the family level" "$TMP/few.json"
agree "two files" "$TMP/old.json" "$TMP/new.json"

# the rows' verdicts on the known answers, and the level named
"$A" compare "$TMP/v.json" --regime steady --format json -o "$TMP/v.cj" 2>/dev/null
verdict_of() { # CANDIDATE WORKLOAD: the steady verdict text
	local i=0 c w
	while c=$("$J" "$TMP/v.cj" "comparisons.$i.candidate" 2>/dev/null); do
		w=$("$J" "$TMP/v.cj" "comparisons.$i.workload")
		[ "$c:$w" = "$1:$2" ] && { "$J" "$TMP/v.cj" "comparisons.$i.verdict_text"; return; }
		i=$((i + 1))
	done
}
for want in "a:faster" "b:slower" "c:equivalent within ±2%" "d:faster, within ±2%" "e:no detectable difference"; do
	got=$(verdict_of "${want%%:*}" parquet_load)
	[ "$got" = "${want#*:}" ] && ok "known answer: ${want%%:*} is '${want#*:}'" || notok "known answer: ${want%%:*}" "got '$got'"
done
m=$("$J" "$TMP/v.cj" family_size) lv=$("$J" "$TMP/v.cj" family_level)
awk -v m="$m" -v l="$lv" 'BEGIN { exit !(m == 10 && l > 0.99499 && l < 0.99501) }' &&
	ok "json: the primary family of 10 comparisons (the totals) at 1 - 0.05/10" || notok "json: family" "$m $lv"
m=$("$J" "$TMP/v.cj" families.secondary.size) lv=$("$J" "$TMP/v.cj" families.secondary.level)
awk -v m="$m" -v l="$lv" 'BEGIN { exit !(m == 10 && l > 0.99499 && l < 0.99501) }' &&
	ok "json: the secondary family (pipeline's phase, the geometric means) of 10 at 1 - 0.05/10" || notok "json: secondary family" "$m $lv"
"$A" compare "$TMP/v.json" --regime steady --primary all --format json -o "$TMP/vall.cj" 2>/dev/null
m=$("$J" "$TMP/vall.cj" family_size) lv=$("$J" "$TMP/vall.cj" family_level)
awk -v m="$m" -v l="$lv" 'BEGIN { exit !(m == 20 && l > 0.99749 && l < 0.99751) }' &&
	[ "$("$J" "$TMP/vall.cj" families.secondary.size)" = 0 ] &&
	ok "json: --primary all: one family of 20 comparisons at 1 - 0.05/20" || notok "json: --primary all" "$m $lv"
"$J" "$TMP/v.cj" comparisons.0.ci_per_comparison.level | awk '{ exit !($1 >= 0.95 && $1 < 0.99) }' &&
	ok "json: the per-comparison 95% interval is kept" || notok "json: per-comparison interval" "$("$J" "$TMP/v.cj" comparisons.0.ci_per_comparison)"
COLUMNS=1000 "$A" compare "$TMP/v.json" --regime steady >"$TMP/t" 2>/dev/null
grep -q '^workload  *phase  *candidate  *steady speedup  *99.[5-9][0-9]*% CI' "$TMP/t" &&
	grep -q 'the 99.5% simultaneous interval for the 10 primary comparisons (each at 1 - 0.05/10, Bonferroni over the primary family), the 99.5% one for the 10 secondary comparisons' "$TMP/t" &&
	grep -q '^primary comparisons, the question' "$TMP/t" && grep -q '^secondary comparisons, a family of their own: 10' "$TMP/t" &&
	ok "table: the header and the rule name the family level" || notok "table: family level named" "$(head -12 "$TMP/t")"

# the margin from the file: bench --equivalence is recorded as config.equivalence_pct
sed 's/"equivalence_pct":null/"equivalence_pct":0.25/' "$TMP/v.json" >"$TMP/v01.json"
"$A" compare "$TMP/v01.json" --regime steady --format json -o "$TMP/v01.cj" 2>/dev/null
[ "$("$J" "$TMP/v01.cj" equivalence_pct)" = 0.25 ] && ok "the file's recorded margin is compare's default" ||
	notok "the file's recorded margin" "$("$J" "$TMP/v01.cj" equivalence_pct)"

# claims with equivalence: a claim of 10-25% against c (equivalent within 2%) is refuted, and every
# format says why
cat >"$TMP/claims.json" <<'EOF'
{"schema": "allocab-claims/1", "claims": [
 {"name": "c 10-25% faster", "allocator": "c", "speedup": [1.10, 1.25], "source": "hearsay",
  "targets": [{"workload": "parquet_load"}]},
 {"name": "b 10-25% faster", "allocator": "b", "speedup": [1.10, 1.25], "source": "hearsay",
  "targets": [{"workload": "parquet_load"}]}]}
EOF
for f in table markdown html; do
	"$A" compare "$TMP/v.json" --claims "$TMP/claims.json" --format "$f" -o "$TMP/cl.$f" 2>/dev/null
	grep -q 'refuted: equivalent within ±2%' "$TMP/cl.$f" && [ "$(grep -c 'refuted: equivalent' "$TMP/cl.$f")" = 1 ] &&
		ok "claims $f: refuted with the reason 'equivalent within ±2%', once" || notok "claims $f: reason" "$(grep -i refuted "$TMP/cl.$f" | head -3)"
done
"$A" compare "$TMP/v.json" --claims "$TMP/claims.json" --format json -o "$TMP/cl.json" 2>/dev/null
[ "$("$J" "$TMP/cl.json" claims.0.verdict)" = refuted ] && [ "$("$J" "$TMP/cl.json" claims.0.reason)" = "equivalent within ±2%" ] &&
	[ "$("$J" "$TMP/cl.json" claims.1.verdict)" = refuted ] && [ "$("$J" "$TMP/cl.json" claims.1.reason)" = null ] &&
	ok "claims json: the reason for c, none for b (slower, not equivalent)" || notok "claims json" "$("$J" "$TMP/cl.json" claims)"
"$A" compare "$TMP/v.json" --claims "$TMP/claims.json" --format csv -o "$TMP/cl.csv" 2>/dev/null
grep -q '^"c 10-25% faster",.*,"refuted","equivalent within ±2%"$' "$TMP/cl.csv" &&
	ok "claims csv: the reason column" || notok "claims csv" "$(cat "$TMP/cl.csv")"
"$A" compare "$TMP/v.json" --claims "$TMP/claims.json" --equivalence 0.1 --format json -o "$TMP/cl0.json" 2>/dev/null
[ "$("$J" "$TMP/cl0.json" claims.0.reason)" = null ] && ok "claims: a margin of 0.1% gives no equivalence reason" ||
	notok "claims: margin 0.1%" "$("$J" "$TMP/cl0.json" claims.0)"

# bad margins
expect_status "compare --equivalence 100 refused" 2 "$A" compare "$TMP/v.json" --equivalence 100
expect_err "compare --equivalence 100: one line" "^allocab: compare: --equivalence: 100 is out of range \\[0%, 100%\\)$"
exit $t_fail
