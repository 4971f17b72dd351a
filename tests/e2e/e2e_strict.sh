# e2e_strict.sh - readers that agree with JSON, and names that break no format
# (docs/results-format.md, "Reading files"). The reproducers of tests/fixtures/hostile/ each refused in one
# line: a member name twice (python and jq keep the last, cJSON the first), numbers out of range
# anywhere, bytes that are not UTF-8; names with markup and control characters escaped in every
# format; JSON and HTML output well-formed UTF-8 whatever the input; an arm label that looks
# like an option refused.
. tests/e2e/lib.sh

A=$BUILD/allocab
H=tests/fixtures/hostile

# bad NAME PATTERN CMD...: CMD exits 2 within 20 s with one stderr line `allocab: CMD: ...PATTERN`.
bad() {
	local name=$1 pattern=$2
	shift 2
	expect_status "$name: exit 2" 2 timeout 20 "$@"
	expect_err "$name: one line" "^allocab: [a-z]+: .*$pattern"
}

# utf8_json NAME FILE: Python loads FILE as JSON (it refuses bytes that are not UTF-8).
utf8_json() {
	if python3 -c 'import benchfile, sys; benchfile.load(sys.argv[1], encoding="utf-8")' "$2" 2>"$TMP/py"; then
		ok "$1"
	else
		notok "$1" "$(tail -1 "$TMP/py")"
	fi
}

# utf8_text NAME FILE: FILE decodes as UTF-8.
utf8_text() {
	if python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$2" 2>"$TMP/py"; then
		ok "$1"
	else
		notok "$1" "$(tail -1 "$TMP/py")"
	fi
}

# 1. A member name twice: refused wherever it is (the status before the rounds, config after them).
bad "dup_status_key.json: status twice" "dup_status_key.json: not JSON \(member 'status' appears twice in one object\)" \
	"$A" compare "$H/dup_status_key.json"
bad "dup_status_key.json: gate too" "member 'status' appears twice" \
	"$A" gate "$H/dup_status_key.json" --candidate mimalloc --min-speedup 1%
bad "dup_status_key.json: calibrate --from too" "member 'status' appears twice" \
	"$A" calibrate --from "$H/dup_status_key.json" -o "$TMP/cal.json"
bad "dup_config_member.json: config twice, the second after the rounds" "member 'config' appears twice in one object" \
	"$A" compare "$H/dup_config_member.json"
perl -pe 's/"rounds": 6,/"rounds": 6, "rounds": 6,/' "$H/dup_status_key.json" | perl -pe 's/"status": "interrupted", //' >"$TMP/dup-nested.json"
bad "a name twice in config" "member 'rounds' appears twice in one object" "$A" compare "$TMP/dup-nested.json"
printf '{"schema":"allocab-calibration/1","backend":"system","backend":"mimalloc","config":{"scale":"small","alpha":0.05,"power":0.8},"workloads":[]}\n' >"$TMP/cal-dup.json"
mkbench "$TMP/r.json" arms=system=1,mimalloc=0.8 wls=checkpoint_write rounds=6 warmup=1
bad "a calibration file with a name twice" "cal-dup.json: not JSON \(member 'backend' appears twice" \
	"$A" compare "$TMP/r.json" --calibration "$TMP/cal-dup.json"
printf '{"schema": "allocab-claims/1", "schema": "x", "claims": []}' >"$TMP/claims-dup.json"
bad "a claims file with a name twice" "claims-dup.json: not JSON \(member 'schema' appears twice" \
	"$A" compare "$TMP/r.json" --claims "$TMP/claims-dup.json"

# 2. Numbers out of range: refused everywhere, unknown members and config.seed included.
bad "nonfinite_unknown_member.json: 1e999 in a member no reader reads" "not JSON \(a number out of range at byte [0-9]+\)" \
	"$A" compare "$H/nonfinite_unknown_member.json"
bad "nonfinite_config_seed.json: config.seed 1e400" "nonfinite_config_seed.json: not JSON \(a number out of range at byte 302\)" \
	"$A" compare "$H/nonfinite_config_seed.json"
printf '{"schema": "allocab-claims/1", "claims": [], "x": -1e999}' >"$TMP/claims-inf.json"
bad "a claims file with -1e999" "claims-inf.json: not JSON \(a number out of range" \
	"$A" compare "$TMP/r.json" --claims "$TMP/claims-inf.json"

# 3. Bytes that are not UTF-8 in any string: 0xFF, overlong forms, encoded surrogates.
bad "badutf8_arm.json: 0xFF 0xFE in an arm name" "badutf8_arm.json: not JSON \(invalid UTF-8 at byte 250\)" \
	"$A" compare "$H/badutf8_arm.json"
for seq in 'c0af:an overlong slash' 'e080af:an overlong slash in 3 bytes' 'eda080:an encoded surrogate' 'f4908080:a code point above U+10FFFF'; do
	hex=${seq%%:*} what=${seq#*:}
	BYTES=$(printf "$(echo "$hex" | sed 's/../\\x&/g')") perl -pe 's/"cpu_model":"[^"]*"/"cpu_model":"Test$ENV{BYTES}CPU"/' "$TMP/r.json" >"$TMP/u.json"
	bad "$what in machine.cpu_model" "u.json: not JSON \(invalid UTF-8 at byte" "$A" compare "$TMP/u.json"
done

# 4. Names: a control character is refused in the results reader (allocab never writes one) ...
bad "evil_arm_name.json: a newline in an arm name" "evil_arm_name.json: config.arms\[1\]: not a name \(non-empty, without control characters\)" \
	"$A" compare "$H/evil_arm_name.json"
perl -pe 's/"phases":\["total"\]/"phases":["to\\u001btal"]/' "$TMP/r.json" >"$TMP/ph.json"
bad "an escape character in a phase name" "record.phases: not a list of names" "$A" compare "$TMP/ph.json"

# ... markup in a name passes into no format raw, and every JSON and HTML output is UTF-8.
perl -pe 's/\\n\|a\|/|a|/g' "$H/evil_arm_name.json" >"$TMP/evil.json"
expect_status "evil_arm_name.json without its newline: compare markdown" 0 "$A" compare "$TMP/evil.json" --format markdown
if grep -Eq '<script|<!--' "$TMP/out"; then notok "no raw <script> or <!-- in markdown" "$(grep -E '<script|<!--' "$TMP/out" | head -2)"; else ok "no raw <script> or <!-- in markdown"; fi
grep -q '&lt;script>alert(1)&lt;/script>' "$TMP/out" && ok "the name shown, its tags escaped" || notok "the name shown, its tags escaped" "$(grep -m1 script "$TMP/out")"
awk -F'|' '/^\| workload/ { want = NF } /^\| / && want && NF != want { bad++ } END { exit bad > 0 }' \
	<(sed 's/\\|//g' "$TMP/out") && ok "markdown tables keep their columns" || notok "markdown tables keep their columns" "$(grep '^|' "$TMP/out" | head -4)"
for fmt in json bmf gab; do
	expect_status "evil name: compare --format $fmt" 0 "$A" compare "$TMP/evil.json" --format "$fmt" -o "$TMP/evil-out.$fmt"
	utf8_json "evil name: $fmt output loads" "$TMP/evil-out.$fmt"
done
expect_status "evil name: compare --format html" 0 "$A" compare "$TMP/evil.json" --format html -o "$TMP/evil-out.html"
grep -q '<script>alert' "$TMP/evil-out.html" && notok "html escapes the name" "raw <script>" || ok "html escapes the name"

# Writers escape anyway: control characters in a failed run's signal and stderr tail.
mkbench "$TMP/crash.json" arms=system=1,mimalloc=0.8 wls=checkpoint_write fail=mimalloc:2 rounds=4
perl -pe 's/"signal":"SIGSEGV"/"signal":"SIG\\u001b[31mSEGV"/; s/segfault in arena\\n/segfault\\r\\u001b]0;pwned\\u0007 <!-- in arena\\n/' \
	"$TMP/crash.json" >"$TMP/ctl.json"
for fmt in table markdown; do
	expect_status "control characters in a failed run: $fmt" 0 "$A" compare "$TMP/ctl.json" --format "$fmt"
	if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$TMP/out"; then
		notok "$fmt: no raw control character" "$(LC_ALL=C grep -n "$(printf '[\001-\037]')" "$TMP/out" | cat -v | head -2)"
	else
		ok "$fmt: no raw control character"
	fi
	grep -q 'SIG\\x1b\[31mSEGV' "$TMP/out" && ok "$fmt: the signal shown, escaped" || notok "$fmt: the signal shown, escaped" "$(grep -m1 SIG "$TMP/out" | cat -v)"
done
grep -q '<!--' "$TMP/out" && notok "markdown: the stderr tail's <!-- escaped" "raw" || ok "markdown: the stderr tail's <!-- escaped"

# A path that is not UTF-8 (the one thing of the input no reader checks) in JSON and HTML output.
bad_path=$TMP/$(printf 'r\377\376').json
cp "$TMP/r.json" "$bad_path"
expect_status "a path that is not UTF-8: compare --format json" 0 "$A" compare "$bad_path" --format json -o "$TMP/p.json"
utf8_json "a path that is not UTF-8: the JSON loads" "$TMP/p.json"
expect_status "a path that is not UTF-8: compare --format html" 0 "$A" compare "$bad_path" --format html -o "$TMP/p.html"
utf8_text "a path that is not UTF-8: the HTML is UTF-8" "$TMP/p.html"
expect_status "exe_evil.trace: trace info --json" 0 "$A" trace info --json "$H/exe_evil.trace"
utf8_json "exe_evil.trace: an executable path that is not UTF-8, and the JSON loads" "$TMP/out"

# A command line that is not UTF-8: the bench's results file loads, and compare reads it.
expect_status "bench: a command line that is not UTF-8" 0 timeout 60 "$A" bench --cmd ok=true \
	--cmd "bad=true # $(printf 'x\377\376')" --rounds 1 --warmup 0 --quiet -o "$TMP/b.json"
utf8_json "bench: the results file loads" "$TMP/b.json"
grep -q "true # x$(printf '\357\277\275\357\277\275')" "$TMP/b.json" && ok "bench: the bad bytes written as U+FFFD" ||
	notok "bench: the bad bytes written as U+FFFD" "$(grep -m1 'true #' "$TMP/b.json" | cat -v)"
expect_status "bench: compare reads its own file" 0 "$A" compare "$TMP/b.json"

# 5. Claims: markup in names, sources, workloads and the title is escaped in markdown.
expect_status "claims_html_names.json: compare --claims, markdown" 0 "$A" compare "$TMP/r.json" --claims "$H/claims_html_names.json" --format markdown
if grep -Eq '<script|<img|<!--' "$TMP/out"; then notok "claims_html_names.json: no raw HTML in markdown" "$(grep -E '<script|<img' "$TMP/out" | head -2)"; else ok "claims_html_names.json: no raw HTML in markdown"; fi
grep -q '&lt;img src=x onerror=alert(2)>' "$TMP/out" && ok "claims_html_names.json: the source shown, escaped" || notok "claims_html_names.json: the source shown, escaped" "$(grep -m1 onerror "$TMP/out")"
expect_status "claims_html_names.json: html" 0 "$A" compare "$TMP/r.json" --claims "$H/claims_html_names.json" --format html -o "$TMP/c.html"
grep -Eq '<script>alert|<img src' "$TMP/c.html" && notok "claims_html_names.json: html escapes" "raw" || ok "claims_html_names.json: html escapes"

# 6. An arm label that looks like an option.
bad "--arm --help=system" "--arm: '--help=system' is not LABEL=BACKEND.*not starting with '-'" \
	"$A" bench --arm --help=system --rounds 1 --warmup 0 -o "$TMP/never.json"
[ ! -e "$TMP/never.json" ] && ok "--arm --help=system: nothing run" || notok "--arm --help=system: nothing run" "a results file"
exit $t_fail
