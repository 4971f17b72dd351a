# e2e_progress.sh - bench progress on stderr: one plain line per finished round when stderr is a
# pipe, nothing with --quiet, and under a pseudo-terminal of 80 columns one line rewritten in place
# that never exceeds the width (util-linux `script` provides the terminal; skipped without it).
. tests/e2e/lib.sh
A=$BUILD/allocab
long=$(printf 'x%.0s' $(seq 1 30))
arms=(--cmd "${long}1=true" --cmd "${long}2=true" --cmd "${long}3=true" --cmd "${long}4=true")

"$A" bench --cmd a=true --cmd b=true --rounds 3 -o "$TMP/p.json" 2>"$TMP/err" | cat
n=$(grep -Ec '^allocab: round [1-4]/4( \(warm-up\))? done, [0-9]+:[0-9]{2} elapsed' "$TMP/err")
[ "$n" = 4 ] && ok "pipe: one plain line per finished round (4 with the warm-up)" ||
	notok "pipe: one plain line per finished round" "$n lines: $(head -c 400 "$TMP/err")"
grep -q "$(printf '\r')\|$(printf '\033')" "$TMP/err" && notok "pipe: no carriage returns or escape sequences" "$(od -c "$TMP/err" | head -3)" ||
	ok "pipe: no carriage returns or escape sequences"
grep -q '^allocab: round 4/4 done, .* | median CPU: a [0-9.]* m\?s, b [0-9.]* m\?s$' "$TMP/err" &&
	ok "pipe: the round line has the medians so far, of the CPU time compared" || notok "pipe: the round line has the medians so far" "$(grep 'round 4/4' "$TMP/err")"
# The medians are of the time the bench compares: a sleep's CPU time, its wall time with --time wall
# (the line showed the wall time of a bench compared on CPU time).
"$A" bench --cmd a='sleep 0.5' --cmd b='sleep 0.5' --rounds 1 --warmup 0 -o "$TMP/s.json" 2>"$TMP/err" | cat
grep -q '^allocab: round 1/1 done, .* | median CPU: a [0-9]* ms, b [0-9]* ms$' "$TMP/err" &&
	[ "$(sed -n 's/.* median CPU: a \([0-9]*\) ms,.*/\1/p' "$TMP/err")" -lt 400 ] &&
	ok "pipe: a bench on CPU time shows the CPU time of 'sleep 0.5', not its wall time" ||
	notok "pipe: CPU medians" "$(grep 'round 1/1' "$TMP/err")"
"$A" bench --cmd a='sleep 0.5' --cmd b='sleep 0.5' --time wall --rounds 1 --warmup 0 -o "$TMP/s.json" 2>"$TMP/err" | cat
grep -q '^allocab: round 1/1 done, .* | median wall: a [0-9]* ms, b [0-9]* ms$' "$TMP/err" &&
	[ "$(sed -n 's/.* median wall: a \([0-9]*\) ms,.*/\1/p' "$TMP/err")" -ge 500 ] &&
	ok "pipe: --time wall shows the wall time, labelled wall" ||
	notok "pipe: wall medians" "$(grep 'round 1/1' "$TMP/err")"
# A budget extended to the rounds a verdict needs: the time left covers them (it said ~0:00 left
# for every round past the budget).
"$A" bench --cmd a='sleep 0.3' --cmd b='sleep 0.3' --budget 1 -o "$TMP/x.json" 2>"$TMP/err" | cat
l=$(grep '^allocab: round 2 done, ' "$TMP/err")
if grep -q 'the budget is extended to them' "$TMP/err" && [[ $l == *" left | "* ]] && [[ $l != *"~0:00 left"* ]]; then
	ok "pipe: a budget extended to the rounds a verdict needs: the time left counts them"
else
	notok "pipe: extended budget" "$(grep -E 'extended|round 2 ' "$TMP/err" | head -c 400)"
fi
"$A" bench --cmd a=true --cmd b=true --rounds 3 --quiet -o "$TMP/q.json" 2>"$TMP/err" | cat
[ ! -s "$TMP/err" ] && ok "--quiet: nothing on stderr" || notok "--quiet: nothing on stderr" "$(head -c 300 "$TMP/err")"

if ! command -v script >/dev/null 2>&1; then
	skip "pseudo-terminal checks" "no script(1) (util-linux)"
	exit $t_fail
fi
# pty_bench OUT [VAR=VALUE...]: the bench with four long arm names in an 80-column pseudo-terminal.
pty_bench() {
	local out=$1
	shift
	script -qec "stty cols 80 rows 24; env $* $A bench ${arms[*]} --rounds 2 -o $TMP/t.json" /dev/null </dev/null >"$out" 2>&1
}
pty_bench "$TMP/tty" TERM=xterm NO_COLOR=1
grep -q "$(printf '\033')\[K" "$TMP/tty" && ok "pty: the line is rewritten in place" || notok "pty: the line is rewritten in place" "$(od -c "$TMP/tty" | head -5)"
# Progress segments: what follows each carriage return + clear-line, up to the next one.
tr '\r' '\n' <"$TMP/tty" | sed "s/$(printf '\033')\[K//g" | grep '^round ' >"$TMP/seg"
max=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/seg")
long_seen=$(grep -c '\.\.\.$' "$TMP/seg")
if [ -s "$TMP/seg" ] && [ "$max" -le 79 ] && [ "$long_seen" -gt 0 ]; then
	ok "pty 80 columns: every progress line fits in 79 columns (longest $max; long ones cut with ...)"
else
	notok "pty 80 columns: every progress line fits" "longest $max, cut $long_seen: $(head -3 "$TMP/seg")"
fi
grep -q "$(printf '\033')\[[0-9;]*m" "$TMP/tty" && notok "pty: no colour escapes" "found some" || ok "pty: no colour escapes"
pty_bench "$TMP/dumb" TERM=dumb
n=$(tr -d '\r' <"$TMP/dumb" | grep -Ec '^allocab: round [1-3]/3( \(warm-up\))? done')
grep -q "$(printf '\033')" "$TMP/dumb" && notok "TERM=dumb: no escape sequences" "$(od -c "$TMP/dumb" | head -3)" ||
	ok "TERM=dumb: no escape sequences"
[ "$n" = 3 ] && ok "TERM=dumb: one plain line per round" || notok "TERM=dumb: one plain line per round" "$n: $(head -c 300 "$TMP/dumb")"
exit $t_fail
