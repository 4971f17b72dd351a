# e2e_export_program.sh - the HTML report of a program bench (tests/fixtures/data/export/program-phases.json:
# `bench --program 'phase_fixture 4' -a system,mimalloc,jemalloc -w train --rounds 7 --warmup 0`,
# a program that marks setup once and epoch four times). Every chart draws the program: its total
# has the cold regime only, so the charts take each phase's own regime, not the report's leading
# one; with --phase epoch they draw the epoch, steady, and say so; the table has the page's width.
# Asserts on the HTML text, never speed (tests/e2e/e2e_render.sh lays a report out in Chromium).
. tests/e2e/lib.sh
A=$BUILD/allocab
F=tests/fixtures/data/export/program-phases.json

# section NAME FILE: the HTML from the h2 NAME to the next h2.
section() { awk -v h="<h2>$1</h2>" 'index($0, h) { on = 1; next } on && /<h2/ { exit } on' "$2"; }

expect_status "program: html written" 0 "$A" compare "$F" --format html -o "$TMP/p.html"
grep -q 'no ok runs' "$TMP/p.html" && notok "program: no arm reads 'no ok runs' (7/7 ok each)" "$(grep -o '[^>]*no ok runs' "$TMP/p.html" | head -3)" ||
	ok "program: no arm reads 'no ok runs' (7/7 ok each)"
n=$(section "Measured times" "$TMP/p.html" | grep -c 'class="pt"')
[ "$n" -ge 21 ] && ok "program: measured times draw every arm's 7 rounds ($n dots)" || notok "program: measured times draw every round" "$n dots"
section "Measured times" "$TMP/p.html" | grep -q '>train/total (cold start)<' &&
	ok "program: the total's panel says it is cold only" || notok "program: the total's panel" "$(section "Measured times" "$TMP/p.html" | grep -o 'title[^<]*' | head -3)"
n=$(section "Rounds in run order" "$TMP/p.html" | grep -c '<polyline')
[ "$n" = 2 ] && ok "program: rounds in run order draw both candidates" || notok "program: rounds in run order" "$n polylines"
n=$(section "Speed against memory" "$TMP/p.html" | grep -Ec '<title>train (mimalloc|jemalloc): [0-9.]+x, peak RSS ratio')
[ "$n" = 2 ] && ok "program: speed against memory marks both candidates" || notok "program: speed against memory" "$n marks"

expect_status "program --phase epoch: html written" 0 "$A" compare "$F" --phase epoch --format html -o "$TMP/e.html"
section "Measured times" "$TMP/e.html" | grep -q '>train/epoch (steady state; rings: cold start)<' &&
	section "Measured times" "$TMP/e.html" | grep -q "time of the workload&#39;s epoch phase" &&
	! grep -q 'total phase' "$TMP/e.html" &&
	ok "program --phase epoch: the chart draws the epoch, steady, and its caption names it" ||
	notok "program --phase epoch: the chart draws the epoch" "$(section "Measured times" "$TMP/e.html" | grep -o 'class="\(title\|muted\)"[^<]*' | head -5)"
n=$(section "Measured times" "$TMP/e.html" | grep -c 'class="pt"')
[ "$n" -ge 21 ] && ok "program --phase epoch: every arm's epoch times drawn ($n dots)" || notok "program --phase epoch: epoch times drawn" "$n"
n=$(section "Rounds in run order" "$TMP/e.html" | grep -c '<polyline')
[ "$n" = 2 ] && ok "program --phase epoch: rounds in run order draw the epoch" || notok "program --phase epoch: rounds in run order" "$n"
n=$(section "Speed against memory" "$TMP/e.html" | grep -Ec '<title>train (mimalloc|jemalloc): ')
[ "$n" = 2 ] && ok "program --phase epoch: speed against memory draws the epoch" || notok "program --phase epoch: speed against memory" "$n"

# The table: as wide as a 1400 px page allows, its cells never wrapped.
grep -Eq 'body \{[^}]*max-width: (1[4-9][0-9]{2}|[2-9][0-9]{3})px' "$TMP/p.html" &&
	ok "table: the page is at least 1400 px wide where the window is" || notok "table: page width" "$(grep -o 'body {[^}]*' "$TMP/p.html")"
grep -Eq 'th, td \{[^}]*white-space: nowrap' "$TMP/p.html" && ok "table: cells do not wrap (the table scrolls instead)" ||
	notok "table: cells do not wrap" "$(grep -o 'th, td {[^}]*' "$TMP/p.html")"
# At 80 columns each comparison keeps its speedup, interval and verdict together: a group too
# wide for the width puts its verdict under its row.
COLUMNS=80 "$A" compare "$F" >"$TMP/c80.txt" 2>/dev/null
awk 'length > 80 { bad = 1 } END { exit bad }' "$TMP/c80.txt" && ok "80 columns: every line fits" || notok "80 columns: every line fits" "$(awk 'length > 80' "$TMP/c80.txt" | head -1)"
grep -A1 '^train     epoch  mimalloc  .*0.136x  *\[0.043, 6.039\]' "$TMP/c80.txt" | grep -q '^    steady verdict: too few rounds for a verdict: need 8$' &&
	ok "80 columns: the epoch's steady verdict sits under its speedup and interval" ||
	notok "80 columns: verdict with its interval" "$(sed -n '/^workload  phase/,+12p' "$TMP/c80.txt")"
# each family's table in as few parts as the width allows: the primary one (cold only) in 2
# (speedup with verdict, counts), the secondary one in 3 (steady, cold, counts)
p=$(sed -n '/^primary comparisons/,/^secondary comparisons/p' "$TMP/c80.txt" | grep -c '^workload  phase  candidate')
s=$(sed -n '/^secondary comparisons/,/^per arm/p' "$TMP/c80.txt" | grep -c '^workload  phase  candidate')
[ "$p" = 2 ] && [ "$s" = 3 ] && ok "80 columns: the primary family in 2 parts, the secondary in 3 (steady, cold, counts)" ||
	notok "80 columns: parts" "primary $p, secondary $s"
exit $t_fail
