#!/usr/bin/env bash
# e2e_options.sh - the declarative option rows (src/common/opt.h) from the command line: a type,
# range, value-list, needs or excludes mistake is one line on stderr in one form and exit 2, for
# every command; the same mistake gets the same message in every command that takes the option
# (--time, --conf, --regime, --min-speedup, --equivalence, --rounds through calibrate); and
# --help shows each default from its row.
. tests/e2e/lib.sh
A=$BUILD/allocab

# refuse NAME PATTERN CMD ARGS...: exit 2, one line "allocab: CMD: " + the extended regex.
refuse() {
	local name=$1 pat=$2 cmd=$3
	shift 3
	expect_status "$name: exit 2" 2 timeout 20 "$A" "$cmd" "$@"
	expect_err "$name: one line" "^allocab: $cmd: $pat\$"
}
# same NAME CMD1 ARGS1... -- CMD2 ARGS2...: both refused with the same text after "CMD: ".
same() {
	local name=$1 a=() b=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	"$A" "${a[@]}" 2>"$TMP/a" >/dev/null
	"$A" "${b[@]}" 2>"$TMP/b" >/dev/null
	local ma mb
	ma=$(sed -E 's/^allocab: [a-z]+: //' "$TMP/a")
	mb=$(sed -E 's/^allocab: [a-z]+: //' "$TMP/b")
	if [ -n "$ma" ] && [ "$ma" = "$mb" ]; then ok "$name: one message ($ma)"; else notok "$name" "'$ma' against '$mb'"; fi
}
O=(-o "$TMP/none.json" --quiet)

# Types and ranges, one form each.
refuse "bench --rounds 0" "--rounds: 0 is out of range \[1, 100000\]" bench --rounds 0 "${O[@]}"
refuse "bench --rounds x" "--rounds: 'x' is not a whole number" bench --rounds x "${O[@]}"
refuse "bench --timeout 0" "--timeout: 0 is out of range \[0.001, 10000000\]" bench --timeout 0 "${O[@]}"
refuse "bench --budget 10x" "--budget: '10x' is not a time \(90, 90s, 10m or 1.5h\)" bench --budget 10x "${O[@]}"
refuse "calibrate --for-budget 1d" "--for-budget: '1d' is not a time \(90, 90s, 10m or 1.5h\)" calibrate --for-budget 1d
"$A" bench --cmd a=true --cmd b=true --budget 10m --rounds 2 --warmup 0 -q -o "$TMP/m.json" 2>"$TMP/err"
[ "$("$BUILD/tests/jget" "$TMP/m.json" config.budget_s 2>&1)" = 600 ] && ok "bench --budget 10m: 600 s recorded" ||
	notok "bench --budget 10m: 600 s recorded" "$("$BUILD/tests/jget" "$TMP/m.json" config.budget_s 2>&1); $(head -c 300 "$TMP/err")"
refuse "bench --pad-max big" "--pad-max: 65537 is out of range \[0, 65536\]" bench --pad-max 65537 "${O[@]}"
refuse "bench --scale" "--scale: 'huge' is not one of small, default, large" bench --scale huge "${O[@]}"
refuse "bench --allocation" "--allocation: 'x' is not one of sequential, none" bench --allocation x "${O[@]}"
refuse "bench --results-dir ''" "--results-dir: empty value" bench --results-dir ''
refuse "calibrate --block 5" "--block: 5 is out of range \[6, 100000\]" calibrate --block 5
refuse "calibrate --effect 0" "--effect: 0 is out of range \(0%, 1000%\)" calibrate --effect 0
refuse "calibrate --rounds 0 (bench's row)" "--rounds: 0 is out of range \[1, 100000\]" calibrate --rounds 0
refuse "compare --bootstrap 5" "--bootstrap: 5 is out of range \[10000, 100000\]" compare x.json --bootstrap 5
refuse "merge --conf 2" "--conf: 2 is out of range \[0.5, 1\)" merge a.json b.json --conf 2
refuse "gate --min-speedup 100" "--min-speedup: 100 is out of range \[0%, 100%\)" gate x.json --candidate a --min-speedup 100
refuse "record --wait 4000" "--wait: 4000 is out of range \[0, 3600\]" record --wait 4000 true

# needs and excludes, one form each.
refuse "bench --preload needs --program" "--preload needs --program" bench --preload a=b "${O[@]}"
refuse "bench --count-calls needs" "--count-calls needs --program or --expect" bench --count-calls "${O[@]}"
refuse "bench --cmd excludes --scale" "--cmd cannot be combined with --scale" bench --cmd a=true --cmd b=true --scale small "${O[@]}"
refuse "bench --results-dir excludes --resume, with why" "--results-dir cannot be combined with --resume: --resume rewrites the file it continues \(or -o\)" bench --results-dir d --resume x.json --quiet
refuse "bench -o excludes --results-dir" "--output cannot be combined with --results-dir" bench -o x --results-dir d
refuse "calibrate --arms needs --from" "--arms needs --from" calibrate --arms a,b
# --min-rounds above the rounds names --rounds when given, else the default the command ran with
# (bench's 10, calibrate's 20), never an option the user did not give.
refuse "bench --min-rounds above --rounds" "--min-rounds 5 is more than --rounds 3" bench --rounds 3 --min-rounds 5 "${O[@]}"
refuse "bench --min-rounds above the default" "--min-rounds 12 is more than the default of 10 rounds \(--rounds\)" bench --min-rounds 12 "${O[@]}"
refuse "calibrate --min-rounds above its default" "--min-rounds 25 is more than the default of 20 rounds \(--rounds\)" calibrate --min-rounds 25 -o "$TMP/cal.json"
refuse "calibrate --min-rounds above --rounds" "--min-rounds 12 is more than --rounds 10" calibrate --rounds 10 --min-rounds 12 -o "$TMP/cal.json"
refuse "calibrate --min-rounds 12 within its default 20: the next check speaks" "-a: unknown allocator 'nosuch' .*" calibrate --min-rounds 12 -a nosuch -o "$TMP/cal.json"
refuse "calibrate --from excludes bench options" "--from cannot be combined with --seed: it analyses a file and runs nothing" calibrate --from x.json --seed 3
refuse "compare --phases excludes --phase" "--phases cannot be combined with --phase" compare x.json --phase p --phases all
refuse "merge the two margins" "--max-slowdown cannot be combined with --min-speedup" merge a.json b.json --min-speedup 5 --max-slowdown 5
refuse "gate --against excludes --baseline" "--against cannot be combined with --baseline: with --against every arm is judged against itself in OLD" gate x.json --against y.json --baseline a --max-slowdown 5
refuse "gate --on twice" "--on: give one of each or geomean" gate x.json --candidate a --min-speedup 5 --on each --on geomean

# One mistake, one message, in every command that takes the option.
same "--time gpu" bench --time gpu "${O[@]}" -- compare x.json --time gpu
refuse "bench --time gpu" "--time: 'gpu' is not one of cpu, auto, wall" bench --time gpu "${O[@]}"
refuse "compare --time gpu" "--time: 'gpu' is not one of cpu, auto, wall" compare x.json --time gpu
same "--conf 0.2" compare x.json --conf 0.2 -- merge a.json b.json --conf 0.2
same "--conf 0.2, gate" compare x.json --conf 0.2 -- gate x.json --candidate a --min-speedup 5 --conf 0.2
same "--regime hot" compare x.json --regime hot -- merge a.json b.json --regime hot
same "--min-speedup five" compare x.json --min-speedup five -- gate x.json --candidate a --min-speedup five
same "--equivalence 100" compare x.json --equivalence 100 -- gate x.json --candidate a --max-slowdown 5 --equivalence 100
same "--rounds 0" bench --rounds 0 "${O[@]}" -- calibrate --rounds 0
same "--format xml" compare x.json --format xml -- merge a.json b.json --format xml

# --help prints each default from its row.
help_has() { # help_has NAME CMD TEXT: CMD --help (lines joined) contains TEXT
	if "$A" "$2" --help | tr -s ' \n' ' ' | grep -qF -- "$3"; then ok "$1"; else notok "$1" "no '$3' in $2 --help"; fi
}
help_has "bench --help: --rounds default and range" bench "measured rounds, in [1, 100000] (default: 10;"
help_has "bench --help: --warmup default" bench "(default: 1)"
help_has "bench --help: --time default" bench "(default: cpu)"
help_has "bench --help: --pad-max default" bench "in [0, 65536] (default: 4096)"
help_has "bench --help: --timeout default" bench "(default: 120)"
help_has "calibrate --help: its --rounds default" calibrate "measured rounds, in [1, 100000] (default: 20;"
help_has "calibrate --help: --block default" calibrate "in [6, 100000] (default: 10)"
help_has "compare --help: --conf default" compare "(default: 0.95)"
help_has "compare --help: --format default" compare "(default: table), one of:"
help_has "merge --help: --regime default" merge "(default: both)"
help_has "gate --help: --regime default" gate "(default: steady;"
help_has "record --help: --wait default" record "in [0, 3600] (default: 10)"
# compare, merge and gate share their rows: the same help text for --conf in all three.
conf_help() { "$A" "$1" --help | awk '/^  --conf /{p=1} p&&/^  --/&&!/^  --conf /{exit} p' | tr -s ' \n' ' '; }
c=$(conf_help compare)
if [ -n "$c" ] && [ "$c" = "$(conf_help merge)" ] && [ "$c" = "$(conf_help gate)" ]; then
	ok "--conf: one help text in compare, merge and gate"
else
	notok "--conf: one help text in compare, merge and gate" "$c"
fi
exit $t_fail
