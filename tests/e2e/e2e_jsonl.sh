# e2e_jsonl.sh - allocab-bench/2, JSON Lines (docs/results-format.md, "allocab-bench/2"): a real
# bench's file is a header line, a line per round and update lines; a torn last line (no newline,
# or JSON cut short) is reported in one line naming the file, the byte and the rounds read, and
# compare, merge and gate read the rounds before it; bench --resume cuts it off and goes on; every
# strictness rule of allocab-bench/1 holds on the lines; and the same bench through /1 and /2
# gives identical compare text and JSON, merge and gate outputs.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget
G="python3 tests/tools/benchgen.py"
B=(bench --cmd a=true --cmd b='true x' --warmup 1 --allocation none -q)

"$A" "${B[@]}" --rounds 6 --label m1 -o "$TMP/f.json" 2>"$TMP/err" && ok "a bench of 6 rounds" || notok "a bench of 6 rounds" "$(cat "$TMP/err")"
"$A" "${B[@]}" --rounds 6 --label m2 -o "$TMP/g.json" 2>"$TMP/err" && ok "another, labelled m2" || notok "another, labelled m2" "$(cat "$TMP/err")"
head -c 28 "$TMP/f.json" | grep -q '^{"schema":"allocab-bench/2"' && ok "the header line starts with the schema" || notok "the header line starts with the schema" "$(head -c 60 "$TMP/f.json")"
n=$(grep -c '^{"index":' "$TMP/f.json")
[ "$n" = 7 ] && ok "one line per round (7, the warm-up one included)" || notok "one line per round" "$n"
tail -1 "$TMP/f.json" | grep -q '^{"updated_utc":.*"status":"complete"' && ok "the last line is the closing update, status complete" || notok "the closing update" "$(tail -1 "$TMP/f.json" | head -c 200)"
[ "$(tail -c 1 "$TMP/f.json" | od -An -c | tr -d ' ')" = '\n' ] && ok "the file ends with a newline" || notok "the file ends with a newline" "no"
jeq "jget reads the equivalent document: status" "$TMP/f.json" status complete
jeq "jget reads the equivalent document: rounds" "$TMP/f.json" 'rounds.#' 7
jeq "jget: facts.end from the closing line" "$TMP/f.json" facts.end.cpu_vendor "$("$J" "$TMP/f.json" facts.start.cpu_vendor)"

# the same bench as /1 and as /2 (tests/tools/benchgen.py), same file name in two directories
mkdir -p "$TMP/v1" "$TMP/v2"
$G "$TMP/f.json" "$TMP/v1/x.json" --schema 1 && $G "$TMP/v1/x.json" "$TMP/v2/x.json" --schema 2 || notok "benchgen" "failed"
$G "$TMP/g.json" "$TMP/v1/y.json" --schema 1 && $G "$TMP/v1/y.json" "$TMP/v2/y.json" --schema 2 || notok "benchgen" "failed"
head -c 30 "$TMP/v1/x.json" | grep -q 'allocab-bench/1' && ok "benchgen wrote /1" || notok "benchgen wrote /1" "$(head -c 40 "$TMP/v1/x.json")"
same() { # NAME ARGS...: the command's stdout and exit status identical in v1 and v2
	local name=$1 r1 r2
	shift
	(cd "$TMP/v1" && "$OLDPWD/$A" "$@" >"$TMP/o1" 2>"$TMP/e1"); r1=$?
	(cd "$TMP/v2" && "$OLDPWD/$A" "$@" >"$TMP/o2" 2>"$TMP/e2"); r2=$?
	if [ "$r1" = "$r2" ] && [ -s "$TMP/o1" ] && cmp -s "$TMP/o1" "$TMP/o2" && cmp -s "$TMP/e1" "$TMP/e2"; then ok "$name"; else notok "$name" "exit $r1/$r2; $(diff "$TMP/o1" "$TMP/o2" | head -5)"; fi
}
same "/1 and /2: identical compare text" compare x.json
same "/1 and /2: identical compare JSON" compare x.json --format json
same "/1 and /2: identical compare markdown" compare x.json --format markdown
same "/1 and /2: identical merge JSON" merge x.json y.json --format json
same "/1 and /2: identical merge text" merge x.json y.json
same "/1 and /2: identical gate" gate x.json --candidate b --max-slowdown 50%
same "/1 and /2: identical gate --on pooled" gate x.json y.json --on pooled --candidate b --max-slowdown 50%
same "/1 and /2: identical compare of the real file too" compare "$TMP/f.json" --format json
cmp -s <("$A" compare "$TMP/f.json" --format json) <(cd "$TMP/v1" && "$OLDPWD/$A" compare x.json --format json | sed "s|x.json|$TMP/f.json|g") &&
	ok "the bench's own /2 file and its /1 copy: identical compare JSON" || notok "the bench's own /2 file and its /1 copy" "differ"

# a torn last line: no newline at its end (a round cut in the middle)
head -n 5 "$TMP/f.json" >"$TMP/cut.json"
keep=$(wc -c <"$TMP/cut.json")
sed -n 6p "$TMP/f.json" | head -c 100 >>"$TMP/cut.json"
head -n 5 "$TMP/f.json" >"$TMP/whole.json"
expect_status "torn (no newline): compare exit 0" 0 "$A" compare "$TMP/cut.json"
grep -q "^allocab: warning: $TMP/cut.json: torn last line at byte $keep (no newline at its end): ignored; the file is read as interrupted, with the 4 rounds before it$" "$TMP/err" &&
	[ "$(wc -l <"$TMP/err")" = 1 ] && ok "torn: one line, the file, the byte, the rounds read" || notok "torn: one line" "$(cat "$TMP/err")"
grep -q "status running): 3 measured rounds" "$TMP/out" && ok "torn: compare judges the 3 measured rounds before it, status running" || notok "torn: compare's rounds" "$(head -3 "$TMP/out")"
cmp -s <("$A" compare "$TMP/cut.json" --format json 2>/dev/null | sed 's/cut.json/F/g') <("$A" compare "$TMP/whole.json" --format json | sed 's/whole.json/F/g') &&
	ok "torn: the same comparison as the file without the torn line" || notok "torn: the same comparison" "differ"
expect_status "torn: merge exit 0" 0 "$A" merge "$TMP/cut.json" "$TMP/g.json"
grep -q "torn last line at byte $keep" "$TMP/err" && ok "torn: merge says so" || notok "torn: merge says so" "$(cat "$TMP/err")"
"$A" gate "$TMP/cut.json" --candidate b --max-slowdown 90% >"$TMP/out" 2>"$TMP/err"
rc=$?
"$A" gate "$TMP/whole.json" --candidate b --max-slowdown 90% >"$TMP/out2" 2>/dev/null
[ "$rc" = $? ] && cmp -s <(sed 's/cut.json/F/g' "$TMP/out") <(sed 's/whole.json/F/g' "$TMP/out2") && ok "torn: gate judges the rounds before it (exit $rc, as without the line)" || notok "torn: gate judges the rounds before it" "exit $rc; $(head -3 "$TMP/out")"
grep -q "torn last line at byte $keep" "$TMP/err" && ok "torn: gate says so" || notok "torn: gate says so" "$(cat "$TMP/err")"
jeq "torn: jget leaves it out" "$TMP/cut.json" 'rounds.#' 4
# JSON cut short, with a newline
{ head -n 5 "$TMP/f.json"; printf '{"index":5,"warmup":false,"runs":[\n'; } >"$TMP/short.json"
expect_status "truncated JSON on the last line: compare exit 0" 0 "$A" compare "$TMP/short.json"
grep -q "torn last line at byte $keep (truncated JSON)" "$TMP/err" && ok "truncated JSON: reported as torn" || notok "truncated JSON: reported as torn" "$(cat "$TMP/err")"
# cut short on a line that is not the last: refused
{ head -n 5 "$TMP/f.json"; printf '{"index":5,"warmup":false,"runs":[\n'; tail -1 "$TMP/f.json"; } >"$TMP/mid.json"
expect_status "truncated JSON before the last line: exit 2" 2 "$A" compare "$TMP/mid.json"
expect_err "truncated JSON before the last line: one line" "mid.json: truncated JSON \(the line at byte $keep\)"

# a bench killed in the middle of an append (the test-only fault hook writes half the line)
( ALLOCAB_FAULT_WRITES=kill:3 "$A" "${B[@]}" --rounds 6 -o "$TMP/k.json" >/dev/null 2>&1 ) 2>/dev/null
[ "$(tail -c 1 "$TMP/k.json" | od -An -c | tr -d ' ')" != '\n' ] && ok "killed mid-append: the last line is torn" || notok "killed mid-append: torn" "$(tail -c 50 "$TMP/k.json")"
good=$(grep -c '^{"index":.*}$' "$TMP/k.json")
expect_status "killed: compare reads it" 0 "$A" compare "$TMP/k.json"
grep -q "torn last line .*with the $((good)) rounds before it" "$TMP/err" && ok "killed: the rounds before the torn line ($good)" || notok "killed: rounds before" "$(cat "$TMP/err")"
expect_status "killed: --resume goes on" 0 "$A" "${B[@]}" --rounds 2 --resume "$TMP/k.json"
[ "$(tail -c 1 "$TMP/k.json" | od -An -c | tr -d ' ')" = '\n' ] && ! grep -qv '^{' "$TMP/k.json" && ok "resumed: the torn line is cut off, every line whole" || notok "resumed: torn line cut off" "$(grep -v '^{' "$TMP/k.json" | head -c 100)"
jeq "resumed: the rounds before it plus the new ones" "$TMP/k.json" 'rounds.#' "$((good + 3))"
jeq "resumed: status complete" "$TMP/k.json" status complete
expect_status "resumed: compare reads it without a warning" 0 "$A" compare "$TMP/k.json"
[ ! -s "$TMP/err" ] && ok "resumed: nothing on stderr" || notok "resumed: nothing on stderr" "$(cat "$TMP/err")"
( ALLOCAB_FAULT_WRITES=kill:3 "$A" "${B[@]}" --rounds 6 -o "$TMP/k2.json" >/dev/null 2>&1 ) 2>/dev/null
"$A" bench --cmd a=true --cmd b='true x' --warmup 1 --allocation none --rounds 1 --resume "$TMP/k2.json" >/dev/null 2>"$TMP/err"
grep -q "^allocab: bench: --resume: $TMP/k2.json: torn last line at byte [0-9]* (no newline at its end).*cut off" "$TMP/err" && ok "resume says it cuts the torn line off" || notok "resume says it cuts the torn line off" "$(cat "$TMP/err")"

# every strictness rule of allocab-bench/1 on /2 lines
line() { # N FILE: line N
	sed -n "$1p" "$2"
}
bad() { # NAME PATTERN FILE
	expect_status "$1: exit 2" 2 "$A" compare "$3"
	expect_err "$1: one line" "$2"
}
{ line 1 "$TMP/f.json"; line 2 "$TMP/f.json" | sed 's/^{"index":\([0-9]*\),/{"index":\1,"index":\1,/'; tail -n +3 "$TMP/f.json"; } >"$TMP/dup.json"
bad "/2: a name twice in a round line" "dup.json: not JSON \(member 'index' appears twice in one object\)" "$TMP/dup.json"
{ line 1 "$TMP/f.json" | sed 's/"status":"running"/"status":"running","status":"running"/'; tail -n +2 "$TMP/f.json"; } >"$TMP/duph.json"
bad "/2: a name twice in the header" "duph.json: not JSON \(member 'status' appears twice" "$TMP/duph.json"
{ line 1 "$TMP/f.json"; line 2 "$TMP/f.json" | sed 's/"wall_ns":\([0-9]*\)/"wall_ns":1e999/'; tail -n +3 "$TMP/f.json"; } >"$TMP/inf.json"
bad "/2: 1e999 in a round line" "inf.json: not JSON \(a number out of range at byte [0-9]+\)" "$TMP/inf.json"
{ line 1 "$TMP/f.json"; printf '{"updated_utc":"x","junk":-1e999}\n'; tail -n +2 "$TMP/f.json"; } >"$TMP/infu.json"
bad "/2: -1e999 in an update line" "infu.json: not JSON \(a number out of range" "$TMP/infu.json"
{ line 1 "$TMP/f.json" | sed 's/"arms":\["a"/"arms":["a\xff\xfe"/'; tail -n +2 "$TMP/f.json"; } >"$TMP/utf.json"
bad "/2: invalid UTF-8 in the header" "utf.json: not JSON \(invalid UTF-8 at byte [0-9]+\)" "$TMP/utf.json"
{ line 1 "$TMP/f.json"; line 2 "$TMP/f.json" | sed 's/"pad_bytes":[0-9]*/"pad_bytes":"\xc3"/'; tail -n +3 "$TMP/f.json"; } >"$TMP/utfr.json"
bad "/2: invalid UTF-8 in a round line" "utfr.json: not JSON \(invalid UTF-8 at byte [0-9]+\)" "$TMP/utfr.json"
deep=$(python3 -c 'print("[" * 1000 + "]" * 1000)')
{ line 1 "$TMP/f.json"; printf '{"updated_utc":"x","deep":%s}\n' "$deep"; tail -n +2 "$TMP/f.json"; } >"$TMP/deep.json"
bad "/2: nesting deeper than 1000" "deep.json: not JSON \(nest" "$TMP/deep.json"
{ line 1 "$TMP/f.json"; printf '{"index":0,"deep":%s}\n' "$(python3 -c 'print("[" * 998 + "]" * 998)')"; } >"$TMP/deepr.json"
bad "/2: a round line counts its depth inside the document (two levels down)" "deepr.json: not JSON \(nest" "$TMP/deepr.json"
{ line 1 "$TMP/f.json"; printf '{"updated_utc":"x"}\x01\n'; } >"$TMP/bin.json"
bad "/2: a control character" "bin.json: not JSON \(binary data: byte 0x01 at offset [0-9]+\)" "$TMP/bin.json"
expect_status "/2: over ALLOCAB_MAX_INPUT: exit 2" 2 env ALLOCAB_MAX_INPUT=2k "$A" compare "$TMP/f.json"
expect_err "/2: over ALLOCAB_MAX_INPUT: one line" "f.json: .*(larger|limit|over)"
{ line 1 "$TMP/f.json"; printf '\n'; tail -n +2 "$TMP/f.json"; } >"$TMP/empty.json"
bad "/2: an empty line" "empty.json: empty line at byte [0-9]+" "$TMP/empty.json"
{ line 1 "$TMP/f.json"; printf '{"status":"complete"}\n'; tail -n +2 "$TMP/f.json"; } >"$TMP/kind.json"
bad "/2: a line neither a round nor an update" "kind.json: the line at byte [0-9]+ is neither a round" "$TMP/kind.json"
{ line 1 "$TMP/f.json"; printf '{"updated_utc":"x","schema":"allocab-bench/1"}\n'; tail -n +2 "$TMP/f.json"; } >"$TMP/sch.json"
bad "/2: an update that sets the schema" "sch.json: the update line at byte [0-9]+ sets 'schema'" "$TMP/sch.json"
{ line 1 "$TMP/f.json" | sed 's,"allocab-bench/2","allocab-bench/9",'; tail -n +2 "$TMP/f.json"; } >"$TMP/sch9.json"
bad "/2 lines, an unknown schema in the header" "sch9.json: schema 'allocab-bench/9' is not allocab-bench/2 or allocab-bench/1\$" "$TMP/sch9.json"
expect_status "an unknown schema, bench --resume: exit 2" 2 "$A" bench --resume "$TMP/sch9.json" -q
expect_err "an unknown schema, bench --resume: one line naming it" "sch9.json: schema 'allocab-bench/9' is not allocab-bench/2 or allocab-bench/1\$"
line 1 "$TMP/sch9.json" >"$TMP/sch9one.json"
bad "one compact line, an unknown schema" "sch9one.json: schema 'allocab-bench/9' is not allocab-bench/2 or allocab-bench/1\$" "$TMP/sch9one.json"
sed 's,"allocab-bench/1","allocab-bench/9",' "$TMP/v1/x.json" >"$TMP/sch9doc.json"
bad "a /1-shaped document, an unknown schema" "sch9doc.json: schema 'allocab-bench/9' is not allocab-bench/2 or allocab-bench/1\$" "$TMP/sch9doc.json"
line 1 "$TMP/f.json" | head -c 200 >"$TMP/nohead.json"
bad "/2: a header without its newline" "nohead.json: the header line has no newline" "$TMP/nohead.json"
{ line 1 "$TMP/f.json"; line 3 "$TMP/f.json"; } >"$TMP/idx.json"
bad "/2: a round line out of order" "idx.json: rounds\[0\]: index 1" "$TMP/idx.json"

exit $t_fail
