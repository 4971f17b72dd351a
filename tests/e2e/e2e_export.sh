# e2e_export.sh - `allocab compare --format html|svg|bmf|gab` and `--claims` on crafted results
# (mkbench, tests/e2e/lib.sh): well-formed markup with the expected charts, the shapes the Bencher and
# github-action-benchmark consumers read, claim verdicts in every format, bad claims files, and a
# headless Chromium rendering where Chromium is installed.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget

# well_formed NAME FILE: xmllint, or Python's XML parser, accepts FILE.
well_formed() {
	if command -v xmllint >/dev/null 2>&1; then
		check "$1" xmllint --noout "$2"
	elif command -v python3 >/dev/null 2>&1; then
		check "$1" python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$2"
	else
		skip "$1" "neither xmllint nor python3 is installed"
	fi
}

# count FILE PATTERN: occurrences of the fixed string PATTERN in FILE.
count() { grep -o -F -- "$2" "$1" | wc -l; }

mkbench "$TMP/r.json" arms=system=1,mimalloc=0.8,jemalloc=1.1,tcmalloc=0.95/0.08 rounds=12 reps=4
mkbench "$TMP/cold.json" arms=system=1,mimalloc=0.8 rounds=8
mkbench "$TMP/two.json" arms=system=1.1,mimalloc=0.8 rounds=8 spread=0.001
mkbench "$TMP/base.json" arms=system=1,mimalloc=0.8 rounds=8 spread=0.001

# --- html ------------------------------------------------------------------------------------
expect_status "html: exit 0" 0 "$A" compare "$TMP/r.json" --format html -o "$TMP/r.html" --min-speedup 5%
well_formed "html: well-formed" "$TMP/r.html"
h=$TMP/r.html
[ "$(count "$h" '<svg ')" -eq 4 ] && ok "html: four charts" || notok "html: four charts" "$(count "$h" '<svg ') svg elements"
for t in 'Speedup of each allocator over the baseline' 'Speed against memory' 'Measured times per allocator' 'Per-round speedup in run order'; do
	grep -q "<title>$t" "$h" && ok "html: chart '$t'" || notok "html: chart '$t'" "no title"
done
grep -q 'gate margin 1.053x' "$h" && ok "html: gate margin drawn" || notok "html: gate margin drawn" "missing"
grep -q "speedup 1.12x means the candidate takes 1/1.12" "$h" && ok "html: convention sentence" || notok "html: convention sentence" "missing"
[ "$(count "$h" 'class="est-')" -ge 10 ] && ok "html: forest has a dot per comparison" || notok "html: forest has a dot per comparison" "$(count "$h" 'class="est-')"
grep -q 'class="est-faster"' "$h" && ok "html: faster rows coloured as faster" || notok "html: faster rows coloured as faster" "none"
grep -q 'prefers-color-scheme: dark' "$h" && ok "html: dark scheme" || notok "html: dark scheme" "missing"
grep -q '<polyline class="series' "$h" && ok "html: per-round lines" || notok "html: per-round lines" "missing"
grep -q '<circle [^>]*class="pt-warm"><title>[a-z]*, cold first repetition' "$h" && ok "html: cold repetitions drawn apart from steady times" || notok "html: cold repetitions drawn apart from steady times" "no rings"
grep -q 'class="pt-warm" style="stroke-width:2.5"><title>[a-z]*, warm-up round (not compared)' "$h" && ok "html: warm-up rounds drawn, marked as not compared" || notok "html: warm-up rounds drawn, marked as not compared" "no crosses"
grep -q 'parquet_load  mimalloc  (cold)' "$h" && grep -q 'parquet_load  mimalloc  (steady)' "$h" &&
	ok "html: forest rows name their regime" || notok "html: forest rows name their regime" "missing"
grep -q 'axis\|speedup (x, log scale)' "$h" && grep -q 'peak RSS, candidate / baseline' "$h" &&
	ok "html: axis labels" || notok "html: axis labels" "missing"
if grep -Eqi '<script|<link |src="|href="http|url\(http|@import' "$h"; then
	notok "html: self-contained" "$(grep -Eoi '<script|<link |src="|href="http|url\(http|@import' "$h" | head -1)"
else
	ok "html: self-contained"
fi
# The issues a reader of the rendered page found (docs/methodology.md, "Reading the output").
grep -o '<circle [^>]*class="pt"><title>[a-z]*: [0-9.]* ms</title>' "$h" | grep -q ': 0.000 ms' &&
	notok "html: steady dots' tooltips in ms" "$(grep -o 'class="pt"><title>[^<]*' "$h" | head -1)" ||
	ok "html: steady dots' tooltips in ms"
v=$(grep -o 'class="pt"><title>system: [0-9.]* ms' "$h" | head -1 | grep -o '[0-9.]* ms')
case $v in 1[0-9][0-9].*' ms') ok "html: a steady dot's tooltip states its time ($v)" ;; *) notok "html: a steady dot's tooltip states its time" "$v" ;; esac
vis=$(sed 's|<desc>[^<]*</desc>||g' "$h" | grep -o 'takes 1/1.12 of' | wc -l)
[ "$vis" -eq 1 ] && ok "html: the convention is stated once" || notok "html: the convention is stated once" "$vis times"
grep -q 'the interval reaches less than the requested level' "$h" &&
	notok "html: no footnote without a starred interval" "printed" || ok "html: no footnote without a starred interval"
grep -q '<th>steady 99.[0-9]*% CI</th>' "$h" && grep -q '<th>cold verdict</th>' "$h" &&
	ok "html: the comparisons table has the table format's columns" || notok "html: the comparisons table has the table format's columns" "$(grep -o '<thead>.*</thead>' "$h" | head -1)"
grep -q '<h2>Per arm</h2>' "$h" && grep -q '<th>steady time</th>' "$h" &&
	ok "html: a per-arm table" || notok "html: a per-arm table" "missing"
grep -q 'No p-values beside the intervals' "$h" && grep -q 'p-value (and its interval at the per-comparison level) is in' "$h" &&
	ok "html: says where the p-values are and why not here" || notok "html: says where the p-values are and why not here" "missing"
grep -q '<strong>[0-9]* comparisons: steady .*faster' "$h" && ok "html: a summary line first" || notok "html: a summary line first" "$(grep -o '<strong>[^<]*' "$h" | head -1)"
rounds_svg=$(sed -n '/<title>Per-round speedup/,/<\/svg>/p' "$h")
nt=$(printf '%s\n' "$rounds_svg" | grep -c 'class="tick" text-anchor="middle">[0-9]*<')
[ "$nt" -ge 4 ] && ok "html: the rounds chart has round ticks ($nt)" || notok "html: the rounds chart has round ticks" "$nt"
# A warm-up round whose cold repetition is ten times the rest: not drawn, so not on the axis.
mkbench "$TMP/warm.json" arms=system=1,mimalloc=0.8 wls=feature_extract rounds=8 reps=4 warmcold=10
"$A" compare "$TMP/warm.json" --format html -o "$TMP/warm.html"
top=$(sed -n '/<title>Measured times per allocator/,/<\/svg>/p' "$TMP/warm.html" | grep -o 'class="tick" text-anchor="middle">[0-9.]*<' | grep -o '[0-9.]*<' | tr -d '<' | sort -n | tail -1)
[ "${top%.*}" -lt 200 ] && ok "html: the time axis covers what is drawn, not an undrawn warm-up cold rep ($top ms)" ||
	notok "html: the time axis covers what is drawn, not an undrawn warm-up cold rep" "last tick $top ms"
# Too few rounds for the family level: the star in the chart, the level in the table, one note
# (5 rounds reach 93.75%, below the 95% of the one primary comparison).
mkbench "$TMP/few.json" arms=system=1,mimalloc=0.8 wls=parquet_load rounds=5 reps=4
"$A" compare "$TMP/few.json" --format html -o "$TMP/few.html"
grep -q '\] \*</text>' "$TMP/few.html" && grep -q "\* the interval reaches less than its family&#39;s requested level" "$TMP/few.html" &&
	grep -q 'A level in parentheses after an interval (marked \* in the chart)' "$TMP/few.html" &&
	grep -q '<td class="num">\[[0-9.]*, [0-9.]*\] ([0-9.]*%)</td>' "$TMP/few.html" &&
	ok "html: a starred interval, its footnote and its level in the table" || notok "html: a starred interval, its footnote and its level in the table" "missing"
expect_status "html: two files" 0 "$A" compare "$TMP/base.json" "$TMP/two.json" --format html -o "$TMP/two.html"
well_formed "html: two files well-formed" "$TMP/two.html"
grep -q 'rounds are not paired' "$TMP/two.html" && ok "html: two files say rounds are unpaired" || notok "html: two files say rounds are unpaired" "missing"

# --- svg -------------------------------------------------------------------------------------
expect_status "svg: exit 0" 0 "$A" compare "$TMP/r.json" --format svg -o "$TMP/r.svg"
well_formed "svg: well-formed" "$TMP/r.svg"
head -c 200 "$TMP/r.svg" | grep -q '^<?xml' && ok "svg: XML prolog" || notok "svg: XML prolog" "$(head -c 80 "$TMP/r.svg")"
[ "$(count "$TMP/r.svg" '<svg ')" -eq 1 ] && grep -q '<style>' "$TMP/r.svg" &&
	ok "svg: the forest plot alone, styled" || notok "svg: the forest plot alone, styled" "shape"
grep -q 'gate margin' "$TMP/r.svg" && notok "svg: no margin unless asked" "drawn" || ok "svg: no margin unless asked"

# --- bmf -------------------------------------------------------------------------------------
expect_status "bmf: exit 0" 0 "$A" compare "$TMP/r.json" --format bmf -o "$TMP/r.bmf"
b=$TMP/r.bmf
v=$("$J" "$b" "parquet_load/total/steady/mimalloc.latency.value")
lo=$("$J" "$b" "parquet_load/total/steady/mimalloc.latency.lower_value")
hi=$("$J" "$b" "parquet_load/total/steady/mimalloc.latency.upper_value")
awk -v v="$v" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l <= v && v <= h && v > 0) }' &&
	ok "bmf: latency value inside its bounds" || notok "bmf: latency value inside its bounds" "$lo $v $hi"
s=$("$J" "$b" "parquet_load/total/steady/mimalloc.speedup.value")
awk -v s="$s" 'BEGIN { exit !(s > 1.2 && s < 1.3) }' && ok "bmf: mimalloc speedup 1.25x" || notok "bmf: mimalloc speedup 1.25x" "$s"
"$J" "$b" "parquet_load/total/steady/system.speedup" >/dev/null 2>&1 && notok "bmf: baseline has no speedup" "present" || ok "bmf: baseline has no speedup"
"$J" "$b" "parquet_load/total/steady/system.peak-rss.value" >/dev/null && ok "bmf: peak RSS measure" || notok "bmf: peak RSS measure" "missing"
"$J" "$b" "geomean/total/steady/mimalloc.speedup.lower_value" >/dev/null && ok "bmf: geomean speedup" || notok "bmf: geomean speedup" "missing"
"$J" "$b" "pipeline/read/steady/tcmalloc.latency.value" >/dev/null && ok "bmf: pipeline phases" || notok "bmf: pipeline phases" "missing"
"$J" "$b" "parquet_load/total/cold/mimalloc.speedup.value" >/dev/null && ok "bmf: the cold regime too" || notok "bmf: the cold regime too" "missing"

# --- gab -------------------------------------------------------------------------------------
expect_status "gab: exit 0" 0 "$A" compare "$TMP/r.json" --format gab -o "$TMP/r.gab"
g=$TMP/r.gab
n=$("$J" "$g" "#")
[ "$n" -ge 8 ] && ok "gab: an array of entries" || notok "gab: an array of entries" "$n"
bad_entry=""
i=0
while [ "$i" -lt "$n" ]; do
	[ "$("$J" "$g" "$i.unit")" = ns ] || bad_entry="$i unit"
	"$J" "$g" "$i.value" | grep -Eq '^[0-9.e+]+$' || bad_entry="$i value"
	"$J" "$g" "$i.range" | grep -q '^± ' || bad_entry="$i range"
	"$J" "$g" "$i.name" | grep -q '/' || bad_entry="$i name"
	"$J" "$g" "$i.extra" | grep -q 'median of' || bad_entry="$i extra"
	i=$((i + 1))
done
[ -z "$bad_entry" ] && ok "gab: name, unit, value, range, extra on every entry" || notok "gab: name, unit, value, range, extra on every entry" "$bad_entry"
"$J" "$g" "1.extra" | grep -q 'speedup over system' && ok "gab: candidates carry their speedup" || notok "gab: candidates carry their speedup" "$("$J" "$g" 1.extra)"

# --- claims ----------------------------------------------------------------------------------
cat >"$TMP/claims.json" <<'J'
{"schema": "allocab-claims/1", "title": "test claims", "claims": [
 {"name": "inside", "allocator": "mimalloc", "speedup": [1.1, 1.4], "source": "test",
  "targets": [{"workload": "parquet_load"}, {"workload": "pipeline", "phase": "read"}]},
 {"name": "outside", "allocator": "mimalloc", "improvement_pct": [40, 50], "source": "test",
  "targets": [{"workload": "geomean"}]},
 {"name": "overlap", "allocator": "tcmalloc", "speedup": [1.0, 1.05], "source": "test",
  "targets": [{"workload": "parquet_load"}]},
 {"name": "cold start", "allocator": "mimalloc", "regime": "cold", "speedup": [1.2, 1.3], "source": "test",
  "targets": [{"workload": "parquet_load"}]},
 {"name": "absent", "allocator": "hoard", "speedup": [1.0, 2.0], "source": "test",
  "targets": [{"workload": "parquet_load"}]}
]}
J
expect_status "claims: table exit 0" 0 "$A" compare "$TMP/r.json" --claims "$TMP/claims.json"
grep -q '3 confirmed, 1 partly, 1 refuted, 1 not measured' "$TMP/out" && ok "claims: verdict counts" || notok "claims: verdict counts" "$(grep claims "$TMP/out")"
grep -E '^inside +parquet_load/total \(steady\) +mimalloc .*confirmed' "$TMP/out" >/dev/null && ok "claims: confirmed line with the measured interval" || notok "claims: confirmed line with the measured interval" "$(grep inside "$TMP/out")"
grep -E '^outside +geomean \(steady\) .*refuted' "$TMP/out" >/dev/null && ok "claims: improvement_pct refuted" || notok "claims: improvement_pct refuted" "$(grep outside "$TMP/out")"
grep -E '^absent .*no arm hoard in the file +not measured' "$TMP/out" >/dev/null && ok "claims: not measured, and why" || notok "claims: not measured" "$(grep absent "$TMP/out")"
grep -E '^cold start +parquet_load/total \(cold\) +mimalloc .*confirmed' "$TMP/out" >/dev/null && ok "claims: a claim on the cold regime" || notok "claims: a claim on the cold regime" "$(grep 'cold start' "$TMP/out")"
expect_status "claims: cold-only file" 0 "$A" compare "$TMP/cold.json" --claims "$TMP/claims.json"
grep -E '^inside +parquet_load/total \(cold\) .*confirmed' "$TMP/out" >/dev/null && ok "claims: a cold-only file is judged on cold" || notok "claims: a cold-only file is judged on cold" "$(grep inside "$TMP/out")"
printf '{"schema": "allocab-claims/1", "claims": [{"name": "x", "allocator": "m", "regime": "warm", "speedup": [1, 2], "source": "s", "targets": [{"workload": "w"}]}]}' >"$TMP/badregime.json"
expect_status "claims: bad regime: exit 2" 2 "$A" compare "$TMP/r.json" --claims "$TMP/badregime.json"
expect_err "claims: bad regime: one line" 'claim 1: "regime" must be "cold" or "steady"'
expect_status "claims: json exit 0" 0 "$A" compare "$TMP/r.json" --claims "$TMP/claims.json" --format json -o "$TMP/c.json"
[ "$("$J" "$TMP/c.json" claims.0.verdict)" = confirmed ] && [ "$("$J" "$TMP/c.json" claims.2.verdict)" = refuted ] &&
	[ "$("$J" "$TMP/c.json" claims.3.verdict)" = partly ] && ok "claims: json verdicts" || notok "claims: json verdicts" "$("$J" "$TMP/c.json" claims)"
"$J" "$TMP/c.json" comparisons.0.speedup >/dev/null && ok "claims: json keeps the comparisons" || notok "claims: json keeps the comparisons" "missing"
"$J" "$TMP/c.json" claims.0.measured_interval.1 >/dev/null && ok "claims: json measured interval" || notok "claims: json measured interval" "missing"
expect_status "claims: markdown exit 0" 0 "$A" compare "$TMP/r.json" --claims "$TMP/claims.json" --format markdown
grep -q '^## Claims' "$TMP/out" && grep -q '| outside | geomean (steady) | mimalloc |' "$TMP/out" && ok "claims: markdown section" || notok "claims: markdown section" "missing"
expect_status "claims: csv exit 0" 0 "$A" compare "$TMP/r.json" --claims "$TMP/claims.json" --format csv
[ "$(head -1 "$TMP/out")" = "claim,source,allocator,workload,phase,regime,claimed_lo,claimed_hi,speedup,measured_lo,measured_hi,level,verdict,reason" ] &&
	[ "$(wc -l <"$TMP/out")" -eq 7 ] && ok "claims: csv header and rows" || notok "claims: csv header and rows" "$(head -2 "$TMP/out")"
expect_status "claims: html exit 0" 0 "$A" compare "$TMP/r.json" --claims "$TMP/claims.json" --format html -o "$TMP/c.html"
grep -q '<h2>Claims</h2>' "$TMP/c.html" && ok "claims: html section" || notok "claims: html section" "missing"
expect_status "claims: shipped file" 0 "$A" compare "$TMP/r.json" --claims docs/claims/mimalloc-ml.json
grep -q 'claims from docs/claims/mimalloc-ml.json' "$TMP/out" && ok "claims: shipped file judged" || notok "claims: shipped file judged" "$(tail -3 "$TMP/out")"

# bad_claims NAME PATTERN: compare with $TMP/bad.json exits 2 with one line.
bad_claims() {
	expect_status "claims: $1: exit 2" 2 timeout 10 "$A" compare "$TMP/r.json" --claims "$TMP/bad.json"
	expect_err "claims: $1: one line" "^allocab: compare: .*$2"
}
printf '{"schema": "allocab-claims/2", "claims": []}' >"$TMP/bad.json"
bad_claims "wrong schema" 'not an allocab-claims/1 document'
printf '{"schema": "allocab-claims/1", "claims": [{"name": "x", "allocator": "m", "speedup": [2, 1], "source": "s", "targets": [{"workload": "w"}]}]}' >"$TMP/bad.json"
bad_claims "reversed range" 'claim 1: "speedup" wants 0 < low <= high'
printf '{"schema": "allocab-claims/1", "claims": [{"name": "x", "allocator": "m", "speedup": [1, 2], "improvement_pct": [1, 2], "source": "s", "targets": [{"workload": "w"}]}]}' >"$TMP/bad.json"
bad_claims "two ranges" 'give one of "speedup" or "improvement_pct"'
printf '{"schema": "allocab-claims/1", "claims": [{"name": "x", "allocator": "m", "speedup": [1, 2], "source": "s", "targets": []}]}' >"$TMP/bad.json"
bad_claims "no targets" '"targets" must be an array of 1 to 16'
printf '{"schema": "allocab-claims/1", "claims": [{"name": "x", "allocator": "m", "speedup": [1, 2], "source": "s", "targets": [{"workload": "w"}]}]} trailing' >"$TMP/bad.json"
bad_claims "trailing garbage" 'bad.json: not JSON \(parse error at byte [0-9]+\)'
printf '\001\002binary' >"$TMP/bad.json"
bad_claims "random bytes" 'bad.json: not JSON \(binary data: byte 0x01 at offset 0\)'
rm -f "$TMP/bad.json"
mkfifo "$TMP/bad.json"
bad_claims "a FIFO without a writer" 'not a regular file'
rm -f "$TMP/bad.json"
head -c 1100000 /dev/zero | tr '\0' ' ' >"$TMP/bad.json"
bad_claims "over the size cap" 'larger than 1048576 bytes'
expect_status "claims: missing file: exit 2" 2 "$A" compare "$TMP/r.json" --claims "$TMP/none.json"
expect_err "claims: missing file: one line" 'none.json: No such file'
expect_status "format: unknown" 2 "$A" compare "$TMP/r.json" --format pdf
expect_err "format: unknown: one line" "compare: --format: 'pdf' is not one of table, brief, markdown, json, csv, html, svg, bmf, gab"
expect_status "margin: bad" 2 "$A" compare "$TMP/r.json" --min-speedup 120%
expect_err "margin: bad: one line" 'compare: --min-speedup: 120% is out of range \[0%, 100%\)'

# --- rendering -------------------------------------------------------------------------------
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	skip "html renders in Chromium" "Chromium is not installed (apt-get install chromium)"
elif ! command -v python3 >/dev/null 2>&1; then
	skip "html renders in Chromium" "python3 is needed to read the PNG"
else
	timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1000,2400 --screenshot="$TMP/r.png" "file://$TMP/r.html" >/dev/null 2>&1
	if colours=$(python3 tests/tools/pngstat.py "$TMP/r.png" 2>&1) && [ "$colours" -ge 8 ]; then
		ok "html renders in Chromium ($colours colours)"
	else
		notok "html renders in Chromium" "$colours"
	fi
fi
# --format brief: the answer alone (what `make bench` prints); the rest is named, not printed.
COLUMNS=100 "$A" compare "$TMP/r.json" --format brief --claims docs/claims/mimalloc-ml.json >"$TMP/brief" 2>"$TMP/brief.err"
rc=$?
COLUMNS=100 "$A" compare "$TMP/r.json" --format table --claims docs/claims/mimalloc-ml.json >"$TMP/full" 2>/dev/null
rows=$(grep -cE '^(parquet_load|pipeline) +total +(mimalloc|jemalloc|tcmalloc) ' "$TMP/brief")
[ $rc = 0 ] && [ ! -s "$TMP/brief.err" ] && head -1 "$TMP/brief" | grep -q '^allocab compare: [0-9]* comparisons' &&
	ok "brief: exit 0, nothing on stderr, the summary first" || notok "brief: summary" "rc $rc: $(head -3 "$TMP/brief") / $(cat "$TMP/brief.err")"
[ "$rows" = 6 ] && grep -q '^primary comparisons, the question' "$TMP/brief" && ! grep -q '^secondary comparisons' "$TMP/brief" &&
	! grep -q 'peak RSS ratio\|^per arm' "$TMP/brief" &&
	ok "brief: the primary rows (6, each once), no secondary family, no RSS or per-arm figures" ||
	notok "brief: primary only" "rows $rows: $(cat "$TMP/brief")"
grep -q "^claims from docs/claims/mimalloc-ml.json" "$TMP/brief" &&
	[ "$(grep -cE ' (confirmed|refuted|partly|not measured)$' "$TMP/brief")" = "$(grep -c '^ *verdict: ' "$TMP/full")" ] &&
	ok "brief: one verdict line per claim" || notok "brief: claims" "$(sed -n '/^claims from/,$p' "$TMP/brief")"
[ "$(grep -c '^warning: ' "$TMP/brief")" = "$(grep -c '^warning: ' "$TMP/full")" ] &&
	grep -q "^$(grep -m1 ' (drivers, status ' "$TMP/full" | sed 's/[][\.*^$/]/\\&/g')$" "$TMP/brief" &&
	ok "brief: what was compared (the file, its status and rounds) and every warning the table has" ||
	notok "brief: head and warnings" "$(head -6 "$TMP/brief")"
tr '\n' ' ' <"$TMP/brief" | sed 's/  */ /g' | grep -q "the per-arm figures: allocab compare $TMP/r.json --format table" &&
	[ "$(wc -l <"$TMP/brief")" -lt "$(wc -l <"$TMP/full")" ] &&
	ok "brief: names the command of the full table, and is shorter" ||
	notok "brief: the rest" "$(tail -3 "$TMP/brief")"
"$A" merge "$TMP/two.json" "$TMP/base.json" --format brief >"$TMP/mb" 2>&1
"$A" merge "$TMP/two.json" "$TMP/base.json" --format table >"$TMP/mt" 2>&1
[ -s "$TMP/mb" ] && cmp -s "$TMP/mb" "$TMP/mt" && ok "brief: a fleet's brief answer is its table (merge)" ||
	notok "brief: merge" "$(diff "$TMP/mb" "$TMP/mt" | head -5)"
exit $t_fail
