# e2e_usage.sh - one source for every command's options (src/common/opt.h): `CMD --help`, the
# man page's option entries and bash completion all come from the option tables, and these checks
# fail when any two disagree: the committed docs/allocab.1 is what `make man` writes; every
# command has its entries there; each command's options are the same in its --help, in the man
# page and in what completion offers (bench's after --gate: the gate's); no --help and no text of
# the page names an option that no table has; the completion script names none itself; --help
# and the rendered page fit 80 columns, and the page renders without troff's defects (words run
# together by macro arguments, stray font escapes or control characters, groff warnings).
. tests/e2e/lib.sh
A=$BUILD/allocab
D=$BUILD/allocab-system
MAN=docs/allocab.1
COMP=scripts/completion/allocab.bash

# complete WORDS...: what the completion script offers for the last word, one a line.
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _allocab
		[ ${#COMPREPLY[@]} = 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@" | sort -u
}
# usage_opts: the options a --help on stdin lists (its lines "  -x, --name ARG   help", up to
# the help; names-only lines too).
usage_opts() {
	grep -E '^  -' | sed -E 's/^  //; s/  .*//' | grep -oE '(^|[ ,(])--?[A-Za-z][A-Za-z0-9-]*' |
		sed -E 's/^[ ,(]//' | sort -u
}
# man_opts SECTION: the options of the generated entries of one BEGIN OPTIONS section (the line
# after each .TP of an entry, and the entries of options listed by name).
man_opts() {
	SEC=".\\\" BEGIN OPTIONS $1" awk '
		$0 == ENVIRON["SEC"] { on = 1; next }
		on && $0 == ".\\\" END OPTIONS" { exit }
		on && /^\.\\" \{/ { gen = 1; names = ($0 ~ /\.\.\.$/); next }
		on && /^\.\\" \}/ { gen = 0; next }
		on && gen && (tag || names) { print }
		{ tag = on && gen && $0 == ".TP" }' "$MAN" |
		sed 's/\\-/-/g' | grep -oE '\\fB--?[A-Za-z][A-Za-z0-9-]*' | sed 's/\\fB//' | sort -u
}
# long_opts: the long options a text on stdin names (spans in `backquotes` left out).
long_opts() {
	sed -E 's/`[^`]*`//g' | grep -oE '(^|[^A-Za-z0-9_/-])--[a-z][a-z0-9-]*' | sed -E 's/^[^-]*//' |
		sed -E 's/-+$//' | sort -u
}
same() { # same NAME FILE1 FILE2
	if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "$(diff "$2" "$3" | grep '^[<>]' | tr '\n' ' ')"; fi
}

# The committed page is what `make man` writes.
scripts/manopts.sh "$BUILD" "$MAN" >"$TMP/man.1" 2>"$TMP/manerr"
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$TMP/manerr" ] && cmp -s "$TMP/man.1" "$MAN"; then
	ok "docs/allocab.1 holds the option entries generated from the tables (make man)"
else
	notok "docs/allocab.1 is current (run make man)" \
		"exit $rc: $(head -c 300 "$TMP/manerr") $(diff "$MAN" "$TMP/man.1" | head -12 | tr '\n' ' ')"
fi

# Each command: --help, the man page and completion list the same options.
"$A" help --complete "" | sed 1d | grep -vE '^(help|-.*)$' >"$TMP/commands"
[ "$(wc -l <"$TMP/commands")" -ge 6 ] && ok "help --complete lists the commands ($(tr '\n' ' ' <"$TMP/commands"))" ||
	notok "help --complete lists the commands" "$(cat "$TMP/commands")"
"$A" help --complete - | sed 1d >"$TMP/known"
while read -r cmd; do
	if ! grep -qxF ".\\\" BEGIN OPTIONS allocab help --man $cmd" "$MAN"; then
		notok "$cmd: the man page has its generated option entries" "no BEGIN OPTIONS allocab help --man $cmd"
		continue
	fi
	"$A" "$cmd" --help >"$TMP/help" 2>&1
	usage_opts <"$TMP/help" >"$TMP/u"
	man_opts "allocab help --man $cmd" >"$TMP/m"
	complete_words "$A" "$cmd" - >"$TMP/c"
	same "$cmd: --help and the man page list the same options" "$TMP/u" "$TMP/m"
	same "$cmd: completion offers the options --help lists" "$TMP/u" "$TMP/c"
	[ -s "$TMP/u" ] || notok "$cmd: options found" "none in $cmd --help"
	cat "$TMP/c" >>"$TMP/known"
	long_opts <"$TMP/help" >>"$TMP/mentioned"
	w=$(wc -L <"$TMP/help")
	[ "$w" -le 79 ] && ok "$cmd --help fits 79 columns" || notok "$cmd --help fits 79 columns" "$w: $(awk 'length > 79' "$TMP/help" | head -2)"
done <"$TMP/commands"

# bench --gate: the rest of the line is the gate's, in completion and in bench --help.
complete_words "$A" bench --gate - >"$TMP/c"
complete_words "$A" gate - >"$TMP/g"
same "bench --gate: completion offers the gate's options after it" "$TMP/g" "$TMP/c"
"$A" bench --help | awk '/options of `allocab gate`:/ { on = 1; sub(/.*`:/, ""); print; next }
	on && /^                         / { print; next } { on = 0 }' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$TMP/b"
grep -- '^--' "$TMP/g" >"$TMP/gl"
same "bench --help names the gate's options after --gate" "$TMP/gl" "$TMP/b"

# The drivers: --help and the man page's DRIVERS entries.
"$D" --help >"$TMP/help" 2>&1
usage_opts <"$TMP/help" >"$TMP/u"
man_opts "allocab-system help --man" >"$TMP/m"
same "allocab-BACKEND: --help and the man page list the same options" "$TMP/u" "$TMP/m"
cat "$TMP/u" >>"$TMP/known"
long_opts <"$TMP/help" >>"$TMP/mentioned"
w=$(wc -L <"$TMP/help")
[ "$w" -le 79 ] && ok "allocab-BACKEND --help fits 79 columns" || notok "allocab-BACKEND --help fits 79 columns" "$w"

# No text names an option that no table has: every --help, and the page outside its examples
# (.EX, where a user's program has its own options).
awk '/^\.EX/ { ex = 1 } /^\.EE/ { ex = 0; next } !ex && !/^\.\\"/' "$MAN" | sed 's/\\-/-/g' | long_opts >>"$TMP/mentioned"
sort -u "$TMP/mentioned" >"$TMP/ment"
sort -u "$TMP/known" >"$TMP/kn"
stray=$(comm -23 "$TMP/ment" "$TMP/kn" | tr '\n' ' ')
[ -z "$stray" ] && ok "--help texts and the man page name only options of the tables" ||
	notok "--help texts and the man page name only options of the tables" "unknown: $stray"

# The completion script lists nothing of its own, and offers what the tables list.
own=$(grep -v '^#' "$COMP" | grep -oE -- '--[a-z][a-z-]*' | grep -vx -- '--complete' | tr '\n' ' ')
[ -z "$own" ] && ok "the completion script names no option itself" || notok "the completion script names no option itself" "$own"
got=$(complete_words "$A" compare r.json --format "" | tr '\n' ' ')
[ "$got" = "bmf brief csv gab html json markdown svg table " ] && ok "completion: --format offers every export format" ||
	notok "completion: --format offers every export format" "$got"
got=$(complete_words "$A" compare r.json --format = js | tr '\n' ' ')
[ "$got" = "json " ] && ok "completion: --format=js completes to json" || notok "completion: --format=js" "$got"
got=$(complete_words "$A" compare r.json --format=js | tr '\n' ' ')
[ "$got" = "--format=json " ] && ok "completion: --format=js completes without = in COMP_WORDBREAKS" ||
	notok "completion: --format=js without = in COMP_WORDBREAKS" "$got"
got=$(complete_words "$A" gate r.json --regime "" | tr '\n' ' ')
[ "$got" = "cold steady " ] && ok "completion: gate --regime offers cold and steady" || notok "completion: gate --regime" "$got"
got=$(complete_words "$A" bench -a system,mi | tr '\n' ' ')
[ "$got" = "system,mimalloc " ] && ok "completion: -a completes the last item of a list" || notok "completion: -a list" "$got"
got=$(complete_words "$A" bench -w pipe | tr '\n' ' ')
[ "$got" = "pipeline " ] && ok "completion: -w offers the drivers' workloads" || notok "completion: -w offers the drivers' workloads" "$got"
got=$(complete_words "$A" bench --rounds "" | tr '\n' ' ')
[ -z "$got" ] && ok "completion: a number offers nothing" || notok "completion: a number offers nothing" "$got"

# The rendered page: 80 columns, no groff warning, no words run together, no stray escapes.
# page_defects PAGE: one line per defect.
page_defects() {
	LC_ALL=C grep -n '[[:cntrl:]]' "$1" | sed 's/$/: a control character in the source/' | cat -v | head -2
	groff -t -man -Tutf8 -ww -z "$1" 2>&1 | head -2
	groff -t -man -Tutf8 -P-cbou -rLL=80n "$1" 2>/dev/null >"$TMP/page"
	LC_ALL=C.UTF-8 grep -nE '^.{81}' "$TMP/page" | head -2
	grep -nE '[a-z]{16,}|[a-z](IB|BI|IR|RI|BR|RB)+\b|\\f|[[:cntrl:]]' "$TMP/page" | cat -v | head -5
}
if command -v groff >/dev/null 2>&1; then
	bad=$(page_defects "$MAN")
	[ -z "$bad" ] && ok "the man page renders in 80 columns without warnings, run-together words or stray escapes" ||
		notok "the man page renders cleanly" "$bad"
	# The defects the page had (tests/fixtures/data/man_defects.1) are caught.
	page_defects tests/fixtures/data/man_defects.1 >"$TMP/defects"
	grep -q 'table wider than line width' "$TMP/defects" && grep -q 'comparewouldthensay' "$TMP/defects" &&
		grep -q 'a control character in the source' "$TMP/defects" && ok "the page checks catch a wide table, run-together words and escapes as text" ||
		notok "the page checks catch the old defects" "$(cat "$TMP/defects")"
else
	skip "man page rendering checks" "no groff (apt-get install groff-base)"
fi
# --help anywhere among a command's options is found by its rows (cmdopt_help, opt_seen): after
# an unknown option too, but not as another option's value.
for a in "compare --bogus --help" "merge a.json --help" "gate --nope -h" "trace info --help"; do
	# shellcheck disable=SC2086
	expect_status "$a: the usage, exit 0" 0 "$A" $a
	grep -q "^usage: allocab ${a%% *} " "$TMP/out" && [ ! -s "$TMP/err" ] && ok "$a: the usage on stdout" ||
		notok "$a: the usage on stdout" "$(head -c 200 "$TMP/out") $(head -c 200 "$TMP/err")"
done
expect_status "compare --baseline --help: the value of --baseline, not help" 2 "$A" compare --baseline --help
expect_err "compare --baseline --help: one line" "^allocab: compare: give a results file$"
expect_status "bench --gate --help: the gate's options have no --help" 2 "$A" bench --gate --help
expect_err "bench --gate --help: one line" "unknown option '--help'"
# allocab help reads --man and --complete by its rows.
expect_status "help --man without a command: exit 2" 2 "$A" help --man
expect_err "help --man without a command: one line" "^allocab: help: give the COMMAND \(allocab --help lists them\)$"
expect_status "help: an unknown option: exit 2" 2 "$A" help -x
expect_err "help: an unknown option: one line" "^allocab: help: unknown option '-x'$"
expect_status "help --man: an extra operand: exit 2" 2 "$A" help --man gate x
expect_err "help --man: an extra operand: one line" "^allocab: help: unexpected argument 'x'$"
expect_status "help COMMAND --man: the entries, exit 0" 0 "$A" help gate --man
cmp -s "$TMP/out" <("$A" help --man gate) && ok "help COMMAND --man: the same entries as help --man COMMAND" ||
	notok "help COMMAND --man: the same entries as help --man COMMAND" "$(head -c 200 "$TMP/out")"
exit $t_fail
