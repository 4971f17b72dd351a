# e2e_export_program.sh - the HTML report of a program bench (tests/fixtures/data/export/program-phases.json:
# `bench --program 'phase_fixture 4' -a system,mimalloc,jemalloc -w train --rounds 7 --warmup 0`,
# a program that marks setup once and epoch four times). Every chart draws the program: its total
# has the cold regime only, so the charts take each phase's own regime, not the report's leading
# one; with --phase epoch they draw the epoch, steady, and say so; with --primary epoch the
# question (the epoch rows) comes first, set apart, the warnings under it, the charts draw the
# epoch and the forest plot gives each family's level; the page says how the runs were placed
# (one after the other, --duet, --one-cpu: edits of config); the table has the page's width.
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

# --primary epoch: the question set apart first, the warnings under it, the charts of the epoch.
expect_status "program --primary epoch: html written" 0 "$A" compare "$F" --primary epoch --max-slowdown 3% --format html -o "$TMP/q.html"
order=$(grep -o '<h2>[^<(]*' "$TMP/q.html" | sed 's/<h2>//; s/ *$//' | tr '\n' ';')
want='The question: primary comparisons;Warnings;Speedups;Speed against memory;Measured times;Rounds in run order;What the differences are made of;Secondary comparisons;Per arm;Inputs and method;'
[ "$order" = "$want" ] && ok "primary epoch: the question first, the warnings under it, the secondary rows after the charts" ||
	notok "primary epoch: section order" "$order"
section "The question: primary comparisons" "$TMP/q.html" | grep -q '<section class="question">\|primary comparisons, the question' &&
	[ "$(section "The question: primary comparisons" "$TMP/q.html" | grep -c '<td>epoch</td>')" = 2 ] &&
	! section "The question: primary comparisons" "$TMP/q.html" | grep -q '<td>setup</td>' &&
	ok "primary epoch: the question's table holds the two epoch rows only" ||
	notok "primary epoch: the question's table" "$(section "The question: primary comparisons" "$TMP/q.html" | head -5)"
grep -B1 '<h2>The question' "$TMP/q.html" | grep -q '<section class="question">' && ok "the question is a section of its own (set apart)" || notok "question section" "$(grep -B1 '<h2>The question' "$TMP/q.html")"
section "Warnings (4)" "$TMP/q.html" | grep -q '<li>.*never settled' && ! section "Inputs and method" "$TMP/q.html" | grep -q 'warning' &&
	ok "primary epoch: the warnings are listed under the question, not at the bottom" || notok "warnings placed" "$(section "Warnings (4)" "$TMP/q.html" | head -3)"
grep -q '<p class="placement">How the runs were placed: one run at a time: the arms of each round one after the other' "$TMP/q.html" &&
	ok "placement: one after the other, from config" || notok "placement: sequential" "$(grep -o '<p class="placement">[^/]*' "$TMP/q.html")"
grep -q 'class="title" text-anchor="start">Speedup over system (simultaneous intervals: primary rows 97.5%, secondary rows 99.17%; log scale)' "$TMP/q.html" &&
	ok "forest: the title gives each family's level" || notok "forest title levels" "$(grep -o 'class="title"[^>]*>Speedup over[^<]*' "$TMP/q.html")"
grep -q '>The question: primary rows (97.5%)<' "$TMP/q.html" && grep -q 'class="qband"' "$TMP/q.html" && grep -q '>Secondary rows (99.17%)<' "$TMP/q.html" &&
	ok "forest: the primary rows banded and headed apart from the secondary ones" || notok "forest: families apart" "missing"
y=$(grep -o '<text x="[0-9.]*" y="[0-9.]*" class="muted" text-anchor="start">gate margin' "$TMP/q.html" | sed 's/.* y="\([0-9.]*\)".*/\1/')
awk -v y="$y" 'BEGIN { exit !(y + 0 >= 40 + 16) }' && ok "forest: the gate margin's label clears the subtitle (y $y, subtitle at 40)" || notok "gate margin label" "y '$y'"
section "Measured times" "$TMP/q.html" | grep -q '>train/epoch (steady state; rings: cold start)<' &&
	section "Rounds in run order" "$TMP/q.html" | grep -q '>train/epoch (steady state)<' &&
	! section "Rounds in run order" "$TMP/q.html" | grep -q 'over system, steady state' &&
	ok "primary epoch: measured times and rounds draw the epoch, steady, and say so" ||
	notok "primary epoch: charts of the epoch" "$(grep -o 'class="title"[^<]*' "$TMP/q.html" | head -8)"
# The rounds chart of a plain program report is the cold total, and its title claims no regime.
section "Rounds in run order" "$TMP/p.html" | grep -q '>train/total (cold start)<' &&
	! section "Rounds in run order" "$TMP/p.html" | grep -q 'steady state' &&
	ok "rounds in run order: the cold total, headed as such" || notok "rounds chart heading" "$(section "Rounds in run order" "$TMP/p.html" | grep -o 'class="title"[^<]*')"
# The placement from config: --duet and --one-cpu.
python3 - "$F" "$TMP/duet.json" "$TMP/one.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["config"]["duet"] = True
json.dump(d, open(sys.argv[2], "w"))
d["config"]["duet_cpus"] = "shared"
d["config"]["time"] = "cpu"  # a one-CPU file compares CPU time only
json.dump(d, open(sys.argv[3], "w"))
PY
"$A" compare "$TMP/duet.json" --format html -o "$TMP/duet.html" 2>/dev/null
grep -q 'How the runs were placed: the two arms of a workload ran at the same time, each pinned to a CPU of its own.*--duet' "$TMP/duet.html" &&
	ok "placement: --duet" || notok "placement: --duet" "$(grep -o '<p class="placement">.*' "$TMP/duet.html")"
"$A" compare "$TMP/one.json" --format html -o "$TMP/one.html" 2>/dev/null
grep -q 'How the runs were placed: every arm of a workload ran at the same time, all 3 pinned to one CPU.*--one-cpu' "$TMP/one.html" &&
	ok "placement: --one-cpu" || notok "placement: --one-cpu" "$(grep -o '<p class="placement">.*' "$TMP/one.html")"

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
