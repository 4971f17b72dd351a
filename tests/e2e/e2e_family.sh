# e2e_family.sh - the two families of a report (docs/methodology.md, "Multiplicity: the question
# and the rest") as `allocab compare` prints them on crafted results (mkbench, tests/e2e/lib.sh): the
# table and markdown print a table per family under a heading naming its size and level, json
# and csv carry each row's family and level; --primary names the primary rows or refuses rows
# that are not there; bench --primary is checked and recorded as config.primary, which compare
# then takes as its default; the gate keeps its own family.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget

# two workloads (pipeline with its phase read), three candidates, both regimes: 4 steady totals
# primary; cold totals, read in both regimes and the geometric means secondary (4 + 4 + 4)
mkbench "$TMP/f.json" arms=system=1,a=0.8,b=1.1 rounds=12 reps=4

expect_status "table: exit 0" 0 env COLUMNS=1000 "$A" compare "$TMP/f.json"
head1=$(grep -n '^primary comparisons, the question' "$TMP/out" | cut -d: -f1)
head2=$(grep -n '^secondary comparisons, a family of their own' "$TMP/out" | cut -d: -f1)
[ -n "$head1" ] && [ -n "$head2" ] && [ "$head1" -lt "$head2" ] &&
	grep -q '^primary comparisons.*: 4, simultaneous at 98.75% (each at 1 - 0.05/4' "$TMP/out" &&
	grep -q '^secondary comparisons, a family of their own: 12, simultaneous at 99.58% among themselves (each at 1 - 0.05/12)' "$TMP/out" &&
	ok "table: the primary table (4 at 98.75%) above the secondary one (12 at 99.58%)" ||
	notok "table: two tables" "$(head -30 "$TMP/out")"
prim=$(sed -n "${head1},${head2}p" "$TMP/out")
sec=$(sed -n "${head2},/^per arm/p" "$TMP/out")
printf '%s\n' "$prim" | grep -Eq '^parquet_load +total +a +1\.2[0-9]*x ' &&
	! printf '%s\n' "$prim" | grep -Eq '^(geomean|pipeline +read)' &&
	printf '%s\n' "$sec" | grep -Eq '^geomean +total +a ' && printf '%s\n' "$sec" | grep -Eq '^pipeline +read +a ' &&
	printf '%s\n' "$sec" | grep -Eq '^parquet_load +total +a +- +- +\(primary: see there\)' &&
	ok "table: totals primary (steady), phases and geometric means secondary; a secondary line points to its primary twin" ||
	notok "table: rows in their tables" "$(cat "$TMP/out")"
grep -q 'verdict: read off the printed interval, the 98.75% simultaneous interval for the 4 primary comparisons (each at 1 - 0.05/4, Bonferroni over the primary family), the 99.58% one for the 12 secondary comparisons' "$TMP/out" &&
	ok "table: the verdict rule names both families' levels" || notok "table: rule" "$(grep verdict: "$TMP/out")"

expect_status "markdown: exit 0" 0 "$A" compare "$TMP/f.json" --format markdown
grep -q '^#### Primary comparisons$' "$TMP/out" && grep -q '^#### Secondary comparisons$' "$TMP/out" &&
	ok "markdown: a heading per family" || notok "markdown: headings" "$(head -20 "$TMP/out")"

expect_status "json: exit 0" 0 "$A" compare "$TMP/f.json" --format json -o "$TMP/f.cj"
np=0 ns=0 bad=0 i=0
while f=$("$J" "$TMP/f.cj" "comparisons.$i.family" 2>/dev/null); do
	w=$("$J" "$TMP/f.cj" "comparisons.$i.workload") p=$("$J" "$TMP/f.cj" "comparisons.$i.phase")
	g=$("$J" "$TMP/f.cj" "comparisons.$i.regime") lv=$("$J" "$TMP/f.cj" "comparisons.$i.family_level")
	want=secondary
	[ "$w" != geomean ] && [ "$p" = total ] && [ "$g" = steady ] && want=primary
	[ "$f" = "$want" ] || bad=$((bad + 1))
	case $f in
	primary) np=$((np + 1)); awk -v l="$lv" 'BEGIN { exit !(l > 0.98749 && l < 0.98751) }' || bad=$((bad + 1)) ;;
	secondary) ns=$((ns + 1)); awk -v l="$lv" 'BEGIN { exit !(l > 0.99583 && l < 0.99584) }' || bad=$((bad + 1)) ;;
	esac
	i=$((i + 1))
done
[ "$np" = 4 ] && [ "$ns" = 12 ] && [ "$bad" = 0 ] &&
	ok "json: each comparison's family (primary: the steady totals) and its family_level" ||
	notok "json: families" "$np primary, $ns secondary, $bad wrong"
[ "$("$J" "$TMP/f.cj" families.primary.size)" = 4 ] && [ "$("$J" "$TMP/f.cj" families.secondary.size)" = 12 ] &&
	[ "$("$J" "$TMP/f.cj" family_size)" = 4 ] &&
	[ "$("$J" "$TMP/f.cj" primary)" = "each workload's total, steady where it has steady times, else cold" ] &&
	ok "json: families.primary/secondary sizes, family_size the primary one, what is primary" ||
	notok "json: families" "$("$J" "$TMP/f.cj" families)"

expect_status "csv: exit 0" 0 "$A" compare "$TMP/f.json" --format csv
[ "$(grep -c ',0.9875,primary,4,' "$TMP/out")" = 4 ] && [ "$(grep -c ',secondary,12,' "$TMP/out")" = 12 ] &&
	grep -q '^parquet_load,total,steady,a,system,.*,0.9875,primary,4,' "$TMP/out" &&
	head -1 "$TMP/out" | grep -q ',family_level,family,family_size,' &&
	ok "csv: family_level, family and family_size per row" || notok "csv: families" "$(head -3 "$TMP/out")"

# --primary
expect_status "--primary read:cold" 0 "$A" compare "$TMP/f.json" --primary read:cold --format json -o "$TMP/r.cj"
[ "$("$J" "$TMP/r.cj" families.primary.size)" = 2 ] && [ "$("$J" "$TMP/r.cj" families.secondary.size)" = 14 ] &&
	[ "$("$J" "$TMP/r.cj" primary)" = "each workload's read, cold regime" ] &&
	ok "--primary read:cold: the 2 cold read rows primary, 14 secondary" || notok "--primary read:cold" "$("$J" "$TMP/r.cj" families)"
expect_status "--primary all" 0 env COLUMNS=1000 "$A" compare "$TMP/f.json" --primary all
! grep -q '^secondary comparisons' "$TMP/out" && grep -q 'Bonferroni over the 16 comparisons of this report' "$TMP/out" &&
	ok "--primary all: one table, one family of 16" || notok "--primary all" "$(head -12 "$TMP/out")"
expect_status "--primary epoch: refused" 2 "$A" compare "$TMP/f.json" --primary epoch
expect_err "--primary epoch: one line" "^allocab: compare: --primary: no comparison of this report is each workload's epoch"
expect_status "--primary total:warm: refused" 2 "$A" compare "$TMP/f.json" --primary total:warm
expect_err "--primary total:warm: one line" "^allocab: compare: --primary 'total:warm': the regime is cold or steady"

# config.primary, as bench --primary records it
sed 's/"primary":null/"primary":"read"/' "$TMP/f.json" >"$TMP/fr.json"
expect_status "config.primary read" 0 "$A" compare "$TMP/fr.json" --format json -o "$TMP/fr.cj"
[ "$("$J" "$TMP/fr.cj" families.primary.size)" = 2 ] &&
	ok "config.primary: compare's default primary rows" || notok "config.primary" "$("$J" "$TMP/fr.cj" families)"
sed 's/"primary":null/"primary":7/' "$TMP/f.json" >"$TMP/fbad.json"
expect_status "config.primary not a string: refused" 2 "$A" compare "$TMP/fbad.json"

# bench --primary: checked before anything runs, recorded
expect_status "bench --primary total:warm: refused" 2 "$A" bench --cmd a=true --cmd b=true --primary total:warm --rounds 2 -o "$TMP/b.json"
[ ! -e "$TMP/b.json" ] && ok "bench --primary refused: no file" || notok "bench --primary refused: no file" "written"
expect_status "bench --primary all" 0 "$A" bench --cmd a=true --cmd b=true --primary all --rounds 6 --quiet -o "$TMP/b.json"
[ "$("$J" "$TMP/b.json" config.primary)" = all ] && ok "bench --primary: config.primary recorded" ||
	notok "bench --primary recorded" "$("$J" "$TMP/b.json" config.primary)"
expect_status "bench without --primary" 0 "$A" bench --cmd a=true --cmd b=true --rounds 6 --quiet -o "$TMP/b0.json"
[ "$("$J" "$TMP/b0.json" config.primary)" = null ] && ok "bench: config.primary null when not given" ||
	notok "bench: config.primary null" "$("$J" "$TMP/b0.json" config.primary)"

# the gate: its family is its gated comparisons (2 workloads), whatever compare's primary rows
expect_status "gate" 0 "$A" gate "$TMP/f.json" --candidate a --min-speedup 5%
grep -q '(97.5%, Bonferroni over 2)' "$TMP/out" && ok "gate: FAIL's family is its 2 gated comparisons" ||
	notok "gate: its own family" "$(tail -1 "$TMP/out")"
expect_status "gate, config.primary read" 0 "$A" gate "$TMP/fr.json" --candidate a --min-speedup 5%
grep -q '(97.5%, Bonferroni over 2)' "$TMP/out" && ok "gate: config.primary does not change the gate's family" ||
	notok "gate: config.primary" "$(tail -1 "$TMP/out")"
exit $t_fail
