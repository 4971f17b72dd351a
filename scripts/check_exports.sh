#!/usr/bin/env bash
# check_exports.sh - "static unless exported" (docs/HACKING.md, "Conventions"): from the symbols of
# the built objects of both programs (BUILD/src, BUILD/workloads, BUILD/allocators; the preload
# libraries' exports are interposers for the dynamic linker and are not judged), every global
# symbol one object defines and no other object references is an offender: it should be static,
# or used elsewhere. The existing ones are listed in scripts/allow/exports.txt with their count;
# an offender not listed fails, and so does a list whose count line disagrees with its entries.
# A listed symbol that is no longer an offender is reported as a note ("make it leave the list").
# An object whose source (the same path under the tree, .c) no longer exists is left out.
# Usage: scripts/check_exports.sh [BUILD] [--update]   (--update rewrites the list from the objects)
set -u
cd "$(dirname "$0")/.." || exit 2
build=build
update=0
for a in "$@"; do
	case $a in --update) update=1 ;; *) build=$a ;; esac
done
allow=scripts/allow/exports.txt
# Only objects whose source file exists: the object of a deleted source stays in BUILD until make
# clean and must not be judged (nor count as a reference).
objs=$(find "$build/src" "$build/workloads" "$build/allocators" -name '*.o' 2>/dev/null | sort |
	while read -r o; do
		s=${o#"$build"/}
		[ -f "${s%.o}.c" ] && printf '%s\n' "$o"
	done)
[ -n "$objs" ] || { echo "check_exports.sh: no objects under $build (run make build-all first)" >&2; exit 2; }
tmp=$(mktemp "${TMPDIR:-/tmp}/allocab-exports.XXXXXX")
trap 'rm -f "$tmp" "$tmp.found" "$tmp.allowed"' EXIT
# one nm per kind over every object: "OBJECT:ADDRESS TYPE NAME" and "OBJECT: U NAME"
{
	nm -A --defined-only -g $objs | awk '{ o = $1; sub(/:.*/, "", o) } $(NF - 1) ~ /^[TDBRVWGS]$/ { print "D", $NF, o }'
	nm -A -u $objs | awk '{ print "U", $NF }'
} >"$tmp" || exit 2
awk -v b="$build/" '
	$1 == "D" { if (!($2 in def)) { def[$2] = $3 } }
	$1 == "U" { ref[$2] = 1 }
	END {
		for (s in def) if (!(s in ref) && s != "main") {
			f = def[s]; sub("^" b, "", f); sub(/\.o$/, ".c", f); print s, f
		}
	}' "$tmp" | LC_ALL=C sort >"$tmp.found"
if [ $update -eq 1 ]; then
	{
		echo "# Global symbols that one object defines and no other references (scripts/check_exports.sh):"
		echo "# allowed until they are made static or used elsewhere; a new one fails make test."
		echo "# count: $(wc -l <"$tmp.found")"
		cat "$tmp.found"
	} >"$allow.tmp.$$" && mv "$allow.tmp.$$" "$allow"
	echo "check_exports.sh: $allow: $(wc -l <"$tmp.found") symbols"
	exit 0
fi
[ -f "$allow" ] || { echo "check_exports.sh: $allow is missing" >&2; exit 2; }
grep -v '^#' "$allow" | sed '/^$/d' | LC_ALL=C sort >"$tmp.allowed"
bad=0
want=$(sed -n 's/^# count: \([0-9][0-9]*\)$/\1/p' "$allow")
have=$(wc -l <"$tmp.allowed")
if [ "$want" != "$have" ]; then
	echo "$allow: its count line says ${want:-nothing}, it lists $have symbols"
	bad=1
fi
while read -r s f; do
	echo "$f: $s is exported but no other file uses it: make it static (or use it elsewhere)"
	bad=1
done < <(LC_ALL=C comm -23 "$tmp.found" "$tmp.allowed")
LC_ALL=C comm -13 "$tmp.found" "$tmp.allowed" | while read -r s f; do
	echo "# note: $f: $s is used elsewhere or gone now: remove it from $allow (and lower its count)"
done
exit $bad
