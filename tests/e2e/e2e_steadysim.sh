# e2e_steadysim.sh - the A/A simulation of program benches on CPU time (tests/tools/steadysim.c,
# `make steady-sim`; docs/validation.md, "A/A program benches on CPU time, simulated") on a
# template written by one real bench of the phase fixture: every simulated run's marks pass the
# bench's judgement and the reader (as many runs and rows as the template times the trials), the
# A/A settings keep the rates of the exact signed-rank intervals, the positive control (a
# first-of-round excess in a fixed order) is seen, and a file that is not a template is refused.
# Statistics of a fixed seed, no timing asserted.
. tests/e2e/lib.sh
A=$BUILD/allocab
S=$BUILD/tests/steadysim
F=$BUILD/tests/phase_fixture

expect_status "template: a real A/A program bench of 4 arms, 10 rounds: exit 0" 0 "$A" bench \
	--program "$F 8" -a system --arm s2=system --arm s3=system --arm s4=system --rounds 10 \
	--warmup 0 --allocation none --quiet -o "$TMP/t.json"

expect_status "steadysim: 300 benches of iid and of fixed-order: exit 0" 0 "$S" "$TMP/t.json" 300 7 \
	iid fixed-order
cp "$TMP/out" "$TMP/sim"

# field F of the line "SETTING REPORT FAMILY ..."
field() { awk -v s="$1" -v r="$2" -v f="$3" -v k="$4" '$1 == s && $2 == r && $3 == f { print $k }' "$TMP/sim"; }

if [ "$(field iid primary-epoch primary 4)" = 900 ] && [ "$(field iid primary-all primary 4)" = 3600 ] &&
	[ "$(field iid default secondary 4)" = 2700 ] && [ "$(field iid default primary 9)" = 12000 ]; then
	ok "every run simulated and read: 12000 runs, 3 primary epoch rows, 12 rows in one family, 9 secondary per bench"
else
	notok "rows and runs" "$(head -8 "$TMP/sim")"
fi
s=$(field iid default primary 8)
# flat noisy epochs: the steady half rarely trends (about 1% of runs by chance)
if [ -n "$s" ] && [ "$s" -gt 11000 ] && [ "$s" -lt 12000 ]; then
	ok "the marks' settled flags are read: nearly every flat run settles, a few never do ($s of 12000 settled)"
else
	notok "settled runs" "$s"
fi
e=$(field iid primary-epoch primary 7)
a=$(field iid primary-all primary 7)
# exact per-row levels at 10 rounds: 14/1024 (family of 3), 4/1024 (family of 12); Bonferroni
# bounds 4.1% and 4.7% of 300 benches, 12 and 14; 24 is far above either
if [ -n "$e" ] && [ -n "$a" ] && [ "$e" -le 24 ] && [ "$a" -le 24 ]; then
	ok "A/A: benches with a decided row stay near the nominal rate (--primary epoch $e/300, one family $a/300)"
else
	notok "A/A rates" "--primary epoch $e/300, one family $a/300"
fi
c=$(field fixed-order primary-epoch primary 7)
if [ -n "$c" ] && [ "$c" -ge 30 ]; then
	ok "positive control: a 10% first-of-round excess on a fixed order is seen ($c/300 benches)"
else
	notok "positive control" "$c/300"
fi
grep -q '^# iid: median half-width of the steady epochs, --primary epoch: [0-9.]*%$' "$TMP/sim" &&
	ok "the steady epochs' median half-width is printed" || notok "half-width line" "$(grep half "$TMP/sim")"

printf '{"schema": "allocab-bench/1"}\n' >"$TMP/bad.json"
expect_status "not a template: exit 2" 2 "$S" "$TMP/bad.json" 1 1 iid
expect_err "not a template: one line on stderr" '^steadysim: .*'
exit $t_fail
