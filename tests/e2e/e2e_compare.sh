# e2e_compare.sh - `allocab compare` and `allocab gate` on crafted allocab-bench/1 files: formats,
# the convention line, gate exit codes 0/1/3/2, two-file mode, failures, and every bad input.
# The files are generated here (mkbench) with deterministic times: no benchmark runs.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget
CONV='speedup 1.12x means the candidate takes 1/1.12 of the baseline'"'"'s time; improvement % = (1 - t_candidate/t_baseline) x 100'


# bad NAME PATTERN CMD...: CMD exits 2 with one stderr line `allocab: compare|gate: ...PATTERN`.
bad() {
	local name=$1 pattern=$2
	shift 2
	expect_status "$name: exit 2" 2 "$@"
	expect_err "$name: one line" "^allocab: (compare|gate): .*$pattern"
}

mkbench "$TMP/r.json" arms=system=1,mimalloc=0.8,jemalloc=1.1,tcmalloc=0.95/0.08 rounds=12
mkbench "$TMP/new.json" arms=system=1.1,mimalloc=0.8 rounds=8 spread=0.001
mkbench "$TMP/same.json" arms=system=1,mimalloc=0.8 rounds=8 spread=0.001
mkbench "$TMP/far.json" arms=system=1,mimalloc=0.8 rounds=8 spread=0.001 id=bbbb000000000002
mkbench "$TMP/crash.json" arms=system=1,mimalloc=0.8 fail=mimalloc:2
mkbench "$TMP/one.json" arms=system=1,mimalloc=0.8 rounds=1
mkbench "$TMP/cmd.json" arms=old=1,new=0.7 mode=commands
mkbench "$TMP/sum.json" arms=system=1,mimalloc=0.8 sum=mimalloc
mkbench "$TMP/other.json" arms=hoard=1
mkbench "$TMP/otherwl.json" arms=system=1 wls=batch_prep
mkbench "$TMP/schema.json" schema=allocab-bench/9
check "fixtures are JSON" "$J" "$TMP/r.json" schema

# compare: formats and the convention
expect_status "compare table" 0 "$A" compare "$TMP/r.json"
if grep -qF "$CONV" "$TMP/out" && grep -q 'simultaneous' "$TMP/out" && grep -Eq '[0-9.]+% CI' "$TMP/out"; then
	ok "table states the convention and its columns"
else
	notok "table states the convention and its columns" "$(head -c 400 "$TMP/out")"
fi
grep -Eq '^parquet_load +total +mimalloc +1\.25[0-9]x .*faster' "$TMP/out" &&
	ok "table: mimalloc 1/0.8 faster" || notok "table: mimalloc 1/0.8 faster" "$(grep mimalloc "$TMP/out" | head -2)"
grep -Eq '^geomean +total +jemalloc .*slower' "$TMP/out" &&
	ok "table: geomean jemalloc slower" || notok "table: geomean jemalloc slower" "$(grep geomean "$TMP/out")"
grep -Eq '^pipeline +read +mimalloc' "$TMP/out" &&
	ok "table: pipeline phases by default" || notok "table: pipeline phases by default" "no read row"

expect_status "compare markdown" 0 "$A" compare "$TMP/r.json" --format markdown
grep -q '^| workload | phase | candidate | cold speedup |' "$TMP/out" && grep -qF "$CONV" "$TMP/out" &&
	ok "markdown table and convention" || notok "markdown table and convention" "$(head -c 300 "$TMP/out")"

expect_status "compare json -o" 0 "$A" compare "$TMP/r.json" --format json -o "$TMP/c.json"
[ "$("$J" "$TMP/c.json" schema)" = allocab-compare/1 ] && ok "json schema" || notok "json schema" "$(head -c 200 "$TMP/c.json")"
[ "$("$J" "$TMP/c.json" convention)" = "$CONV" ] && ok "json convention" || notok "json convention" "missing"
[ "$("$J" "$TMP/c.json" comparisons.0.candidate)" = mimalloc ] &&
	[ "$("$J" "$TMP/c.json" comparisons.0.verdict)" = faster ] &&
	[ "$("$J" "$TMP/c.json" comparisons.0.n)" = 12 ] && ok "json first comparison" ||
	notok "json first comparison" "$("$J" "$TMP/c.json" comparisons.0)"
[ ! -s "$TMP/out" ] && ok "-o leaves stdout empty" || notok "-o leaves stdout empty" "$(head -c 100 "$TMP/out")"
ls -a "$TMP" | grep -q '^\.allocab-tmp' && notok "-o leaves no temporary file" "found one" || ok "-o leaves no temporary file"

expect_status "compare csv" 0 "$A" compare "$TMP/r.json" --format csv
head -1 "$TMP/out" | grep -q '^workload,phase,regime,candidate,baseline,n,.*,rounds_needed,mode,conf,.*,equivalence_pct,processes_baseline,processes_candidate,calls_baseline,calls_candidate,diff_ns,.*,diff_minflt_hi,note$' &&
	! grep -q '^#' "$TMP/out" && ok "csv: the header is the first line, no comment lines" ||
	notok "csv: the header is the first line, no comment lines" "$(head -2 "$TMP/out")"
if command -v /usr/bin/python3 >/dev/null 2>&1; then
	/usr/bin/python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["workload"] for r in rows), "no rows"
for r in rows:
    int(r["n"]); float(r["speedup"])
    if r["workload"] == "geomean":
        continue
    float(r["median_ns_baseline"])
    assert "e" not in r["median_ns_baseline"], r["median_ns_baseline"]
    assert r["mode"] == "paired", r["mode"]
' "$TMP/out" 2>"$TMP/pyerr" && ok "csv: Python csv.DictReader reads it as is; integers are integers" ||
		notok "csv: Python csv.DictReader reads it as is" "$(tail -1 "$TMP/pyerr")"
else
	skip "csv: Python csv reader check" "no /usr/bin/python3"
fi

expect_status "compare --bootstrap" 0 "$A" compare "$TMP/r.json" --format json --bootstrap 10000 --seed 7
[ "$("$J" "$TMP/out" interval)" = bootstrap ] && [ "$("$J" "$TMP/out" bootstrap.seed)" = 7 ] &&
	ok "bootstrap recorded" || notok "bootstrap recorded" "$("$J" "$TMP/out" bootstrap)"
cp "$TMP/out" "$TMP/boot1"
"$A" compare "$TMP/r.json" --format json --bootstrap 10000 --seed 7 >"$TMP/boot2" 2>/dev/null
cmp -s "$TMP/boot1" "$TMP/boot2" && ok "bootstrap output identical for a fixed seed" || notok "bootstrap reproducible" "differs"

# failures and insufficient data
expect_status "compare with a crashed run" 0 "$A" compare "$TMP/crash.json"
grep -q 'round 3: mimalloc on parquet_load: crashed by SIGSEGV: segfault in arena' "$TMP/out" &&
	grep -q 'mimalloc 2/16' "$TMP/out" && ok "failed run named with round, status, signal, stderr" ||
	notok "failed run named" "$(grep -i fail -A2 "$TMP/out")"
grep -Eq '^parquet_load +total +mimalloc .* 7 ' "$TMP/out" && ok "crashed round not paired (n 7)" ||
	notok "crashed round not paired" "$(grep '^parquet_load' "$TMP/out")"
expect_status "compare one round" 0 "$A" compare "$TMP/one.json"
grep -Eq '^parquet_load +total +mimalloc +- .*insufficient data +1 ' "$TMP/out" &&
	ok "one round: insufficient data, n 1" || notok "one round: insufficient data" "$(grep '^parquet' "$TMP/out")"

# commands mode: the first arm is the baseline
expect_status "compare commands" 0 "$A" compare "$TMP/cmd.json" --format json
[ "$("$J" "$TMP/out" baseline)" = old ] && [ "$("$J" "$TMP/out" comparisons.0.candidate)" = new ] &&
	ok "commands: first arm is the baseline" || notok "commands baseline" "$("$J" "$TMP/out" comparisons.0)"

# two files
expect_status "compare two files" 0 "$A" compare "$TMP/r.json" "$TMP/new.json" --format json
[ "$("$J" "$TMP/out" mode)" = two-sample ] && [ "$("$J" "$TMP/out" 'comparisons.#')" -ge 2 ] &&
	ok "two files: two-sample comparisons of common arms" || notok "two files" "$("$J" "$TMP/out" mode)"
expect_status "compare two machines" 0 "$A" compare "$TMP/same.json" "$TMP/far.json"
[ ! -s "$TMP/err" ] && [ "$(grep -c 'WARNING: machine fingerprints differ' "$TMP/out")" = 1 ] &&
	ok "different machines: the loud warning once, in the report" || notok "machine warning once" "$(cat "$TMP/err" "$TMP/out")"
expect_status "compare two machines, csv" 0 "$A" compare "$TMP/same.json" "$TMP/far.json" --format csv
[ "$(grep -c 'WARNING: machine fingerprints differ' "$TMP/err")" = 1 ] && ! grep -q WARNING "$TMP/out" &&
	ok "csv: the warning once, on stderr" || notok "csv: the warning once, on stderr" "$(cat "$TMP/err")"

# regimes: cold and steady side by side, --regime selects, the gate names its regime
mkbench "$TMP/reg.json" arms=system=1,mimalloc=0.8 reps=5 colds=system=2,mimalloc=1 unsettled=mimalloc rounds=8
expect_status "compare both regimes" 0 "$A" compare "$TMP/reg.json" --workload parquet_load --primary all
grep -q 'steady speedup' "$TMP/out" && grep -q 'cold speedup' "$TMP/out" &&
	grep -Eq '^parquet_load +total +mimalloc +1\.25[0-9]x .* 2\.5[0-9]*x ' "$TMP/out" &&
	ok "table: steady 1.25x and cold 2.5x side by side" || notok "table: both regimes" "$(cat "$TMP/out")"
# by default the steady total is the question and the cold one secondary: two tables
expect_status "compare both regimes, two families" 0 "$A" compare "$TMP/reg.json" --workload parquet_load
sed -n '/^primary comparisons/,/^secondary comparisons/p' "$TMP/out" | grep -Eq '^parquet_load +total +mimalloc +1\.25[0-9]x ' &&
	sed -n '/^secondary comparisons/,/^per arm/p' "$TMP/out" | grep -Eq '^parquet_load +total +mimalloc +2\.5[0-9]*x ' &&
	ok "table: the steady total primary, the cold total secondary, each in its table" || notok "table: two families" "$(cat "$TMP/out")"
grep -q 'measured cold and steady' "$TMP/out" && ok "table: the file measured both regimes" ||
	notok "table: regimes measured" "$(head -3 "$TMP/out")"
grep -q 'mimalloc on parquet_load: 8 of 8 runs never settled (the steady rule did not hold within their reps' "$TMP/out" &&
	ok "runs that never settled are flagged" || notok "unsettled runs flagged" "$(cat "$TMP/out")"
grep -Eq '^parquet_load +mimalloc +8/8 .* 8 .*\+0\.2 MiB$' "$TMP/out" &&
	ok "per arm: unsettled count and RSS growth" || notok "per arm: unsettled and growth" "$(grep -A4 'per arm' "$TMP/out")"
expect_status "compare --regime cold" 0 "$A" compare "$TMP/reg.json" --workload parquet_load --regime cold
grep -Eq '^parquet_load +total +mimalloc +2\.5[0-9]*x' "$TMP/out" && ! grep -q 'steady speedup' "$TMP/out" &&
	grep -q 'cold speedup' "$TMP/out" && ok "--regime cold: only cold" || notok "--regime cold" "$(cat "$TMP/out")"
expect_status "compare --regime steady json" 0 "$A" compare "$TMP/reg.json" --regime steady --format json -o "$TMP/reg-c.json"
[ "$("$J" "$TMP/reg-c.json" regime)" = steady ] && [ "$("$J" "$TMP/reg-c.json" comparisons.0.regime)" = steady ] &&
	[ "$("$J" "$TMP/reg-c.json" comparisons.0.rss_growth_bytes_baseline)" = 262144 ] &&
	[ "$("$J" "$TMP/reg-c.json" comparisons.0.unsettled_candidate)" = 8 ] &&
	[ "$("$J" "$TMP/reg-c.json" inputs.0.regimes.1)" = steady ] &&
	ok "json: regime, RSS growth, unsettled runs, regimes measured" || notok "json regime fields" "$(head -c 600 "$TMP/reg-c.json")"
expect_status "compare json both" 0 "$A" compare "$TMP/reg.json" --format json -o "$TMP/reg-b.json"
[ "$("$J" "$TMP/reg-b.json" comparisons.0.regime)" = steady ] && [ "$("$J" "$TMP/reg-b.json" comparisons.1.regime)" = cold ] &&
	ok "json both: steady then cold" || notok "json both" "$("$J" "$TMP/reg-b.json" regimes_compared)"
expect_status "compare csv both" 0 "$A" compare "$TMP/reg.json" --format csv --workload parquet_load
[ "$(grep -c '^parquet_load,total,steady,mimalloc' "$TMP/out")" = 1 ] && [ "$(grep -c '^parquet_load,total,cold,mimalloc' "$TMP/out")" = 1 ] &&
	ok "csv: one row per regime" || notok "csv rows per regime" "$(cat "$TMP/out")"
expect_status "compare markdown both" 0 "$A" compare "$TMP/reg.json" --format markdown
grep -Eq '^\| workload \| phase \| candidate \| steady speedup \| steady [0-9.]+% CI \| steady verdict \| cold speedup \|' "$TMP/out" &&
	ok "markdown: both regimes side by side" || notok "markdown both" "$(grep '^| workload' "$TMP/out")"
expect_status "gate default regime is steady" 0 "$A" gate "$TMP/reg.json" --candidate mimalloc --min-speedup 15% --workload parquet_load
grep -q '^PASS  *parquet_load/total steady mimalloc vs system' "$TMP/out" && tail -1 "$TMP/out" | grep -q 'steady regime)$' &&
	ok "gate verdict lines name the steady regime" || notok "gate steady lines" "$(cat "$TMP/out")"
expect_status "gate --regime cold" 0 "$A" gate "$TMP/reg.json" --candidate mimalloc --min-speedup 50% --regime cold --workload parquet_load
grep -q '^PASS  *parquet_load/total cold mimalloc vs system' "$TMP/out" && tail -1 "$TMP/out" | grep -q 'cold regime)$' &&
	ok "gate --regime cold judges and names cold" || notok "gate cold lines" "$(cat "$TMP/out")"
expect_status "gate --regime steady on the same margin FAILs" 1 "$A" gate "$TMP/reg.json" --candidate mimalloc --min-speedup 50% --workload parquet_load
# an old file of one rep per run: loads, says cold only; the gate judges cold with a warning
expect_status "compare on a one-rep file" 0 "$A" compare "$TMP/same.json"
grep -q 'measured cold only (one repetition per run)' "$TMP/out" && grep -q 'regime: cold only' "$TMP/out" &&
	ok "a one-rep file says cold only" || notok "one-rep file: cold only" "$(head -8 "$TMP/out")"
expect_status "gate on a one-rep file" 0 "$A" gate "$TMP/same.json" --candidate mimalloc --min-speedup 5%
grep -q 'measured cold only (one repetition per run): judging the cold regime' "$TMP/err" &&
	grep -q '^PASS  *parquet_load/total cold mimalloc' "$TMP/out" &&
	ok "gate on a one-rep file judges cold and says so" || notok "gate one-rep fallback" "$(cat "$TMP/err" "$TMP/out")"
bad "gate --regime steady on a one-rep file" "measured cold only .*: no steady times to compare" "$A" gate "$TMP/same.json" --candidate mimalloc --min-speedup 5% --regime steady
bad "compare --regime steady on a one-rep file" "measured cold only .*: no steady times" "$A" compare "$TMP/same.json" --regime steady
bad "compare --regime bad" "--regime: 'hot' is not one of both, cold, steady$" "$A" compare "$TMP/reg.json" --regime hot
bad "compare --time bad" "--time: 'gpu' is not one of cpu, auto, wall$" "$A" compare "$TMP/reg.json" --time gpu
bad "gate --regime both" "--regime: 'both' is not one of steady, cold$" "$A" gate "$TMP/reg.json" --candidate mimalloc --min-speedup 5% --regime both

# gate: the three outcomes and their exit codes
expect_status "gate PASS exit 0" 0 "$A" gate "$TMP/r.json" --candidate mimalloc --min-speedup 5%
tail -1 "$TMP/out" | grep -q '^gate: PASS' && grep -q '^PASS  *parquet_load/total cold mimalloc vs system' "$TMP/out" &&
	ok "gate PASS lines" || notok "gate PASS lines" "$(cat "$TMP/out")"
expect_status "gate FAIL exit 1" 1 "$A" gate "$TMP/r.json" --candidate jemalloc --min-speedup 5
tail -1 "$TMP/out" | grep -q '^gate: FAIL' && ok "gate FAIL line" || notok "gate FAIL line" "$(cat "$TMP/out")"
expect_status "gate INCONCLUSIVE exit 3" 3 "$A" gate "$TMP/r.json" --candidate tcmalloc --min-speedup 5%
tail -1 "$TMP/out" | grep -q '^gate: INCONCLUSIVE' && ok "gate INCONCLUSIVE line" || notok "gate INCONCLUSIVE line" "$(cat "$TMP/out")"
expect_status "gate --on geomean" 0 "$A" gate "$TMP/r.json" --candidate mimalloc --min-speedup 2.5% --on geomean
[ "$(grep -c '^PASS' "$TMP/out")" = 1 ] && grep -q 'geomean/total' "$TMP/out" && ok "geomean: one verdict" ||
	notok "geomean: one verdict" "$(cat "$TMP/out")"
expect_status "gate --max-slowdown" 0 "$A" gate "$TMP/r.json" --candidate mimalloc --max-slowdown 3% --phase read
expect_status "gate --against slower FAIL" 1 "$A" gate "$TMP/new.json" --against "$TMP/same.json" --max-slowdown 3% --candidate system
expect_status "gate --against same PASS" 0 "$A" gate "$TMP/same.json" --against "$TMP/same.json" --max-slowdown 3%
expect_status "gate one round INCONCLUSIVE" 3 "$A" gate "$TMP/one.json" --candidate mimalloc --min-speedup 5%
grep -q 'insufficient data' "$TMP/out" && ok "gate names insufficient data" || notok "gate insufficient" "$(cat "$TMP/out")"
# 4 rounds, mimalloc 20% faster in every one: the exact interval cannot reach 95% (at best
# 1 - 2/16 = 87.5%), so the gate must not PASS on it.
mkbench "$TMP/four.json" arms=system=1,mimalloc=0.8 rounds=4
expect_status "gate on an interval below the level INCONCLUSIVE" 3 "$A" gate "$TMP/four.json" --candidate mimalloc --min-speedup 5%
grep -q '87.5% CI .*reaches only 87.5% confidence, below the 95% asked' "$TMP/out" &&
	ok "gate names the achieved level" || notok "gate names the achieved level" "$(cat "$TMP/out")"
expect_status "compare of 4 rounds" 0 "$A" compare "$TMP/four.json" --candidate mimalloc
grep -q '^parquet_load .*\] (87.5%)' "$TMP/out" &&
	ok "a CI below the level asked shows the level it reaches" ||
	notok "a CI below the level asked shows the level it reaches" "$(cat "$TMP/out")"
# One scale: the gate line and the compare table print the same speedup interval for a row.
"$A" gate "$TMP/r.json" --candidate mimalloc --min-speedup 5% --workload parquet_load >"$TMP/g1" 2>/dev/null
"$A" compare "$TMP/r.json" --candidate mimalloc --workload parquet_load >"$TMP/c1" 2>/dev/null
gci=$(grep -o 'speedup [0-9.]*x, [0-9.]*% CI \[[0-9.]*, [0-9.]*\]' "$TMP/g1" | grep -o '\[.*\]')
cci=$(grep '^parquet_load ' "$TMP/c1" | grep -o '\[[0-9.]*, [0-9.]*\]')
[ -n "$gci" ] && [ "$gci" = "$cci" ] && grep -q '>= 1.053x (t_cand/t_base ' "$TMP/g1" &&
	ok "gate and compare print the same speedup interval ($gci); the ratio follows in parentheses" ||
	notok "gate and compare print the same speedup interval" "gate '$gci' compare '$cci': $(cat "$TMP/g1")"
# The distance note: only on INCONCLUSIVE lines, once each, on stdout only.
"$A" gate "$TMP/r.json" --candidate mimalloc --min-speedup 5% >"$TMP/g2" 2>"$TMP/e2"
[ "$(grep -c '^note:' "$TMP/g2")" = 0 ] && ! grep -q 'note\|detectable' "$TMP/e2" &&
	ok "no note on a clear PASS" || notok "no note on a clear PASS" "$(cat "$TMP/g2" "$TMP/e2")"
mkbench "$TMP/near.json" arms=system=1,tcmalloc=0.955/0.04 rounds=8 wls=parquet_load,pipeline
"$A" gate "$TMP/near.json" --candidate tcmalloc --min-speedup 5% >"$TMP/g3" 2>"$TMP/e3"
[ "$(grep -c '^INCONCLUSIVE' "$TMP/g3")" = 2 ] && [ "$(grep -c '^note:' "$TMP/g3")" = 2 ] &&
	grep -q '^note: parquet_load/total cold tcmalloc: the estimate lies [0-9.]*% from the margin; 8 rounds resolve about [0-9.]*%' "$TMP/g3" &&
	! grep -q 'note\|detectable' "$TMP/e3" &&
	ok "one distance note per INCONCLUSIVE line, on stdout only" ||
	notok "one distance note per INCONCLUSIVE line, on stdout only" "$(cat "$TMP/g3" "$TMP/e3")"
# FAIL is multiplicity-safe with --on each: Bonferroni over the workloads gated.
mkbench "$TMP/bonf.json" arms=system=1,x=0.984/0.03 rounds=8 wls=parquet_load,pipeline,batch_prep,feature_extract
expect_status "each: beyond the margin at 95% but not at the family level: INCONCLUSIVE" 3 "$A" gate "$TMP/bonf.json" --candidate x --min-speedup 3%
grep -q '^INCONCLUSIVE parquet_load/total cold x vs system: .*; not FAIL: with 4 comparisons gated FAIL needs the whole 98.75% interval (Bonferroni) below 1.031x' "$TMP/out" &&
	grep -q 'FAIL the whole family interval of one beyond it (98.75%, Bonferroni over 4)' "$TMP/out" &&
	ok "each: the line and the summary say why it is not FAIL" || notok "each: why not FAIL" "$(cat "$TMP/out")"
expect_status "each: the same workload gated alone FAILs" 1 "$A" gate "$TMP/bonf.json" --candidate x --min-speedup 3% --workload parquet_load
grep -q '^FAIL  *parquet_load/total cold x vs system: speedup 1.019x, 9[0-9.]*% CI \[[0-9.]*, [0-9.]*\] < 1.031x' "$TMP/out" &&
	ok "a FAIL line prints the speedup interval it decided on" || notok "FAIL line" "$(cat "$TMP/out")"
sed '0,/"total":{"wall_ns":[0-9]*/s//"total":{"wall_ns":1e999/' "$TMP/four.json" >"$TMP/inf.json"
bad "compare: infinite time" "inf.json: not JSON \\(a number out of range at byte [0-9]+\\)" "$A" compare "$TMP/inf.json"

# bad input: exit 2 and one line
bad "missing file" "nope.json: No such file or directory" "$A" compare "$TMP/nope.json"
head -c 300 "$TMP/r.json" >"$TMP/trunc.json"
bad "truncated file" "trunc.json: the header line has no newline at its end: not a bench file yet" "$A" compare "$TMP/trunc.json"
echo 'hello' >"$TMP/text.json"
bad "non-JSON" "text.json: not JSON" "$A" compare "$TMP/text.json"
bad "wrong schema" "schema 'allocab-bench/9' is not allocab-bench/2 or allocab-bench/1" "$A" compare "$TMP/schema.json"
echo '{"schema":"allocab-bench/1","status":"complete","rounds":[]}' >"$TMP/noconfig.json"
bad "structurally invalid" "noconfig.json: config: missing" "$A" compare "$TMP/noconfig.json"
bad "no common arm" "share no arm" "$A" compare "$TMP/r.json" "$TMP/other.json"
bad "no common workload" "share no workload" "$A" compare "$TMP/r.json" "$TMP/otherwl.json"
bad "checksums differ" "pipeline: checksum differs between mimalloc \(00000000000000bb\) and system \(00000000000000aa\): not the same work" "$A" compare "$TMP/sum.json"
bad "unknown baseline" "baseline 'foo' is not in the file" "$A" compare "$TMP/r.json" --baseline foo
bad "unknown candidate" "unknown candidate 'foo'" "$A" compare "$TMP/r.json" --candidate foo
bad "unknown workload" "unknown workload 'foo'" "$A" compare "$TMP/r.json" --workload foo
bad "unknown phase" "unknown phase 'foo'" "$A" compare "$TMP/r.json" --phase foo
bad "unknown format" "--format: 'xml' is not one of" "$A" compare "$TMP/r.json" --format xml
bad "bad --conf" "--conf: 'x' is not a number$" "$A" compare "$TMP/r.json" --conf x
bad "small --bootstrap" "--bootstrap: 100 is out of range \\[10000, 100000\\]$" "$A" compare "$TMP/r.json" --bootstrap 100
bad "gate: missing file" "nope.json: No such file" "$A" gate "$TMP/nope.json" --candidate mimalloc --min-speedup 5
bad "gate: unknown candidate" "unknown candidate 'foo'" "$A" gate "$TMP/r.json" --candidate foo --min-speedup 5
bad "gate: negative percentage" "--min-speedup: '-5%' is not a percentage" "$A" gate "$TMP/r.json" --candidate mimalloc --min-speedup -5%
bad "gate: not a percentage" "--max-slowdown: 'five' is not a percentage" "$A" gate "$TMP/r.json" --candidate mimalloc --max-slowdown five
bad "gate: 100% speedup" "--min-speedup: 100% is out of range \\[0%, 100%\\)$" "$A" gate "$TMP/r.json" --candidate mimalloc --min-speedup 100%
bad "gate: no margin" "give --min-speedup" "$A" gate "$TMP/r.json" --candidate mimalloc
bad "gate: no candidate" "give --candidate" "$A" gate "$TMP/r.json" --min-speedup 5
bad "gate: --against mismatched" "share no arm" "$A" gate "$TMP/other.json" --against "$TMP/r.json" --max-slowdown 3

expect_status "compare --help" 0 "$A" compare --help
grep -q '^usage: allocab compare' "$TMP/out" && ok "compare --help on stdout" || notok "compare --help" "$(head -2 "$TMP/out")"
expect_status "gate --help" 0 "$A" gate --help
grep -q 'Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 bad input' "$TMP/out" && ok "gate --help documents exit codes" ||
	notok "gate --help" "$(head -3 "$TMP/out")"

# ---- cells that left the rounds: the arm table counts the rounds they ran ----
expect_status "compare of a file whose cells left" 0 "$A" compare tests/fuzz/corpus/results/left-cpu.json
grep -Eq '^pipeline +mimalloc +2/2 \(left\) ' "$TMP/out" && grep -Eq '^parquet_load +mimalloc +3/3 ' "$TMP/out" &&
	ok "ok rounds: over the rounds a cell ran, '(left)' when it left" || notok "ok rounds of left cells" "$(grep -E '^(pipeline|parquet_load) ' "$TMP/out")"
# ---- a bench that ended decided: the warning names both ways a bench stops on its decisions ----
python3 -c "
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
d['status'] = 'decided'
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/data/export/program-phases.json "$TMP/decided.json"
expect_status "compare of a file that ended decided" 0 "$A" compare "$TMP/decided.json"
tr '\n' ' ' <"$TMP/out" | sed 's/  */ /g' | grep -q 'its bench stopped when its sequential intervals decided (bench --gate, or adaptive allocation with no cell left)' &&
	ok "decided: the warning says a gate or adaptive allocation stopped the bench" ||
	notok "decided warning" "$(grep -A2 'stopped' "$TMP/out")"
exit $t_fail
