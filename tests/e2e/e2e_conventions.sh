#!/usr/bin/env bash
# e2e_conventions.sh - the conventions of docs/HACKING.md, "Conventions", hold on the tree, and each
# check fails on a planted violation: exported symbols no other file uses (scripts/check_exports.sh,
# from the built objects), files over 600 lines (scripts/check_sizes.sh), the programs' files,
# headers and functions over their limits (scripts/check_limits.py), citations of doc
# sections and headers that do not resolve (scripts/check_cites.py), the README's length, and the
# generated layout table of docs/architecture.md (scripts/layout_doc.sh --check).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

# ---- the tree ----
scripts/check_exports.sh "$BUILD" >"$TMP/out" 2>&1 && ok "exports: no new symbol exported and used in one file only" ||
	notok "exports: the tree" "$(grep -v '^# note' "$TMP/out" | head -c 600)"
scripts/check_sizes.sh >"$TMP/out" 2>&1 && ok "sizes: no code file over 600 lines beyond its allowance" ||
	notok "sizes: the tree" "$(grep -v '^# note' "$TMP/out" | head -c 600)"
if [ -x "$PY" ]; then
	"$PY" scripts/check_cites.py >"$TMP/out" 2>&1 && ok "cites: every cited doc section and header resolves" ||
		notok "cites: the tree" "$(grep -v '^# note' "$TMP/out" | head -c 600)"
else
	skip "cites: the tree" "/usr/bin/python3 is not installed"
fi
if [ -x "$PY" ]; then
	"$PY" scripts/check_limits.py >"$TMP/out" 2>&1 && ok "limits: no C file over 500 lines, header over 400, function over 60 lines or 6 parameters beyond docs/HACKING.md's exceptions" ||
		notok "limits: the tree" "$(grep -v '^# note' "$TMP/out" | head -c 900)"
else
	skip "limits: the tree" "/usr/bin/python3 is not installed"
fi
n=$(wc -l <README.md)
[ "$n" -le 150 ] && ok "readme: a front page of at most 150 lines ($n)" || notok "readme: at most 150 lines" "$n lines"
scripts/layout_doc.sh --check >"$TMP/out" 2>&1 && ok "layout: docs/architecture.md's table is what scripts/check_layers.sh generates" ||
	notok "layout: the table" "$(head -c 600 "$TMP/out")"

# ---- planted violations, each in a tree of its own with the check's script copied in ----
tree() { # NAME: $TMP/NAME with scripts/ holding the checks and an empty allow/
	mkdir -p "$TMP/$1/scripts/allow" "$TMP/$1/src" "$TMP/$1/docs"
	cp scripts/check_exports.sh scripts/check_sizes.sh "$TMP/$1/scripts/"
}
tree x
cat >"$TMP/x/src/a.c" <<'C'
int ex_used(void) { return 1; }
int ex_lonely(void) { return 2; }
C
printf 'int ex_used(void);\nint b_main(void) { return ex_used(); }\n' >"$TMP/x/src/b.c"
mkdir -p "$TMP/x/build/src"
for f in a b; do cc -c -o "$TMP/x/build/src/$f.o" "$TMP/x/src/$f.c"; done
printf '# count: 0\n' >"$TMP/x/scripts/allow/exports.txt"
(cd "$TMP/x" && scripts/check_exports.sh build) >"$TMP/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^src/a.c: ex_lonely is exported but no other file uses it' "$TMP/out" && ! grep -q 'ex_used' "$TMP/out" &&
	ok "exports: a symbol no other object uses fails, one used elsewhere does not" || notok "exports: planted" "exit $rc: $(cat "$TMP/out")"
(cd "$TMP/x" && scripts/check_exports.sh build --update) >/dev/null 2>&1
grep -qx 'ex_lonely src/a.c' "$TMP/x/scripts/allow/exports.txt" && grep -qx '# count: 2' "$TMP/x/scripts/allow/exports.txt" &&
	(cd "$TMP/x" && scripts/check_exports.sh build) >/dev/null 2>&1 &&
	ok "exports: --update lists the offenders with their count, and then the check passes" ||
	notok "exports: --update" "$(cat "$TMP/x/scripts/allow/exports.txt")"
sed -i 's/^# count: 2$/# count: 3/' "$TMP/x/scripts/allow/exports.txt"
(cd "$TMP/x" && scripts/check_exports.sh build) >"$TMP/out" 2>&1
[ $? = 1 ] && grep -q 'its count line says 3, it lists 2 symbols' "$TMP/out" &&
	ok "exports: a count line that disagrees with the list fails" || notok "exports: count" "$(cat "$TMP/out")"
# A stale object: its source was deleted, its .o is still in the build directory (until make
# clean). It is not judged, in the planted tree and in a copy of this tree's objects.
printf 'int ex_stale(void) { return 3; }\n' >"$TMP/x/src/gone.c"
cc -c -o "$TMP/x/build/src/gone.o" "$TMP/x/src/gone.c"
rm "$TMP/x/src/gone.c"
sed -i 's/^# count: 3$/# count: 2/' "$TMP/x/scripts/allow/exports.txt"
(cd "$TMP/x" && scripts/check_exports.sh build) >"$TMP/out" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q 'ex_stale' "$TMP/out" &&
	ok "exports: the object of a deleted source is not judged" || notok "exports: stale object" "exit $rc: $(cat "$TMP/out")"
mkdir -p "$TMP/objs"
cp -r "$BUILD/src" "$BUILD/workloads" "$BUILD/allocators" "$TMP/objs/" 2>/dev/null
printf 'int ex_stale_here(void) { return 4; }\n' >"$TMP/stale_here.c"
cc -c -o "$TMP/objs/src/common/stale_here.o" "$TMP/stale_here.c"
scripts/check_exports.sh "$TMP/objs" >"$TMP/out" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q 'stale_here' "$TMP/out" &&
	ok "exports: a stale object planted in a copy of the build directory is not reported" ||
	notok "exports: stale object in the build copy" "exit $rc: $(grep -v '^# note' "$TMP/out" | head -c 600)"

# check_limits.py: a tree of its own with a docs/HACKING.md holding the exceptions table.
if [ -x "$PY" ]; then
	mkdir -p "$TMP/l/scripts" "$TMP/l/src" "$TMP/l/docs"
	cp scripts/check_limits.py "$TMP/l/scripts/"
	{
		printf 'static int f(int a, int b, int c, int d, int e, int g, int h)\n{\n'
		seq 59 | sed 's|^|\ta += 1; /* x { */|'
		printf '\treturn a;\n}\n'
	} >"$TMP/l/src/long.c"
	printf '# H\n\n### Exceptions to the limits\n\n| file | name | lines | params | why |\n|---|---|---|---|---|\n' >"$TMP/l/docs/HACKING.md"
	(cd "$TMP/l" && "$PY" scripts/check_limits.py) >"$TMP/out" 2>&1
	[ $? = 1 ] && grep -q '^src/long.c: f(): 62 lines, 7 parameters, over the limits' "$TMP/out" &&
		ok "limits: a function of 62 lines and 7 parameters fails (braces in comments are not counted)" ||
		notok "limits: planted function" "$(cat "$TMP/out")"
	cp "$TMP/l/docs/HACKING.md" "$TMP/l/h"
	printf '| `src/long.c` | `f` | 62 | 7 | |\n' >>"$TMP/l/docs/HACKING.md"
	(cd "$TMP/l" && "$PY" scripts/check_limits.py) >"$TMP/out" 2>&1
	[ $? = 1 ] && grep -q 'listed in docs/HACKING.md without a reason' "$TMP/out" &&
		ok "limits: an exception without a reason fails" || notok "limits: no reason" "$(cat "$TMP/out")"
	cp "$TMP/l/h" "$TMP/l/docs/HACKING.md"
	printf '| `src/long.c` | `f` | 62 | 7 | a planted case |\n' >>"$TMP/l/docs/HACKING.md"
	(cd "$TMP/l" && "$PY" scripts/check_limits.py) >"$TMP/out" 2>&1 &&
		ok "limits: a listed exception with its reason passes" || notok "limits: listed" "$(cat "$TMP/out")"
	sed -i 's|^\treturn a;|\ta += 2;\n\treturn a;|' "$TMP/l/src/long.c"
	(cd "$TMP/l" && "$PY" scripts/check_limits.py) >"$TMP/out" 2>&1
	[ $? = 1 ] && grep -q 'more than the 62 and 7 it had when listed' "$TMP/out" &&
		ok "limits: a listed function that grows fails" || notok "limits: grown" "$(cat "$TMP/out")"
	seq 401 | sed 's|^|// |' >"$TMP/l/src/big.h"
	printf 'int g(void)\n{\n\treturn 0;\n}\n' >"$TMP/l/src/long.c"
	(cd "$TMP/l" && "$PY" scripts/check_limits.py) >"$TMP/out" 2>&1
	[ $? = 1 ] && grep -q '^src/big.h: the file: 401 lines' "$TMP/out" &&
		grep -q '^# note: src/long.c f is within the limits now' "$TMP/out" &&
		ok "limits: a header of 401 lines fails; a listed function now short is a note" ||
		notok "limits: header" "$(cat "$TMP/out")"
else
	skip "limits: planted violations" "/usr/bin/python3 is not installed"
fi

tree s
seq 601 | sed 's|^|// |' >"$TMP/s/src/big.c"
printf '# count: 0\n' >"$TMP/s/scripts/allow/sizes.txt"
(cd "$TMP/s" && scripts/check_sizes.sh) >"$TMP/out" 2>&1
[ $? = 1 ] && grep -q '^src/big.c: 601 lines, more than 600: split it' "$TMP/out" &&
	ok "sizes: a new file of 601 lines fails" || notok "sizes: planted" "$(cat "$TMP/out")"
printf '# count: 1\nsrc/big.c 601\n' >"$TMP/s/scripts/allow/sizes.txt"
(cd "$TMP/s" && scripts/check_sizes.sh) >/dev/null 2>&1 && ok "sizes: a listed file at its listed size passes" ||
	notok "sizes: listed" "fails"
echo '// one more' >>"$TMP/s/src/big.c"
(cd "$TMP/s" && scripts/check_sizes.sh) >"$TMP/out" 2>&1
[ $? = 1 ] && grep -q 'src/big.c: 602 lines, more than the 601 it had when listed' "$TMP/out" &&
	ok "sizes: a listed file that grows fails" || notok "sizes: grown" "$(cat "$TMP/out")"

# The planted tree's citations are spelled through $d and $c here, so that this file cites nothing.
d=docs/a
n=none
c=common/
if [ -x "$PY" ]; then
	mkdir -p "$TMP/c/scripts/allow" "$TMP/c/src/common" "$TMP/c/docs"
	printf '# A\n\n## Reading files: what is read\n\n```\n## not a heading\n```\n' >"$TMP/c/$d.md"
	: >"$TMP/c/src/${c}here.h"
	cat >"$TMP/c/src/x.c" <<C
/* Good: $d.md, "Reading files"; ${c}here.h; wrapped: ($d.md, "Reading
 * files: what is read"). */
static const char *h = "see ($d.md, \\"Reading "
                       "files\\")";
/* Bad: $d.md, "Missing section"; $d.md, "not a heading"; ${c}gone.h; docs/$n.md. */
C
	"$PY" scripts/check_cites.py "$TMP/c" >"$TMP/out" 2>&1
	rc=$?
	[ $rc = 1 ] && [ "$(grep -c . "$TMP/out")" = 4 ] &&
		grep -q "^src/x.c:5: $d.md has no heading \"Missing section\"" "$TMP/out" &&
		grep -q "^src/x.c:5: $d.md has no heading \"not a heading\"" "$TMP/out" &&
		grep -q "^src/x.c:5: ${c}gone.h: no such header" "$TMP/out" &&
		grep -q "^src/x.c:5: docs/$n.md: no such file" "$TMP/out" &&
		ok "cites: a missing section, a heading inside a code block, a missing header and doc fail; the rest, wrapped or not, resolves" ||
		notok "cites: planted" "exit $rc: $(cat "$TMP/out"; head -5 "$TMP/c/src/x.c")"
	("$PY" scripts/check_cites.py "$TMP/c" --update && "$PY" scripts/check_cites.py "$TMP/c") >"$TMP/out" 2>&1 &&
		grep -qx '# count: 4' "$TMP/c/scripts/allow/cites.txt" &&
		ok "cites: --update lists the unresolved ones, and then the check passes" || notok "cites: --update" "$(cat "$TMP/out")"
else
	skip "cites: planted" "/usr/bin/python3 is not installed"
fi

cp docs/architecture.md "$TMP/arch.md"
sed -i 's/^| `src\/front\/stats\/` | front end `allocab` |/| `src\/front\/stats\/` | edited by hand |/' "$TMP/arch.md"
scripts/layout_doc.sh --check "$TMP/arch.md" >"$TMP/out" 2>&1
[ $? = 1 ] && grep -q 'is not current: run make layout' "$TMP/out" &&
	ok "layout: a table edited by hand fails --check" || notok "layout: planted" "$(tail -3 "$TMP/out")"
scripts/layout_doc.sh "$TMP/arch.md" && cmp -s "$TMP/arch.md" docs/architecture.md &&
	ok "layout: layout_doc.sh rewrites it to the generated table" || notok "layout: rewrite" "differs"
exit $t_fail
