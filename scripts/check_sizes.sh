#!/usr/bin/env bash
# check_sizes.sh - "files under about 600 lines; split rather than grow" (docs/HACKING.md,
# "Conventions"): every code file (*.c, *.h, *.sh, *.py, *.js, *.rs under src, workloads,
# allocators, phase, tests, scripts and examples; not the fuzz corpus) has at most 600 lines,
# unless scripts/allow/sizes.txt lists it with the lines it had when it was listed: it may shrink,
# never grow. A list whose count line disagrees with its entries fails too; a listed file now at
# 600 lines or fewer, or gone, is a note ("remove it from the list").
# Usage: scripts/check_sizes.sh [--update]   (--update rewrites the list from the tree)
set -u
cd "$(dirname "$0")/.." || exit 2
max=600
allow=scripts/allow/sizes.txt
sizes() {
	find src workloads allocators phase tests scripts examples -type f \
		\( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' -o -name '*.js' -o -name '*.rs' \) \
		-not -path 'tests/fuzz/corpus/*' -print0 2>/dev/null | LC_ALL=C sort -z |
		xargs -0 awk 'FNR == 1 && NR > 1 { print prev, n } { prev = FILENAME; n = FNR } END { if (NR) print prev, n }'
}
if [ "${1:-}" = --update ]; then
	big=$(sizes | awk -v m=$max '$2 > m')
	{
		echo "# Code files over $max lines (scripts/check_sizes.sh), with their lines when listed: each"
		echo "# may shrink, never grow; split it rather. A new file over $max lines fails make test."
		echo "# count: $(printf '%s' "$big" | grep -c .)"
		[ -z "$big" ] || printf '%s\n' "$big"
	} >"$allow.tmp.$$" && mv "$allow.tmp.$$" "$allow"
	echo "check_sizes.sh: $allow: $(printf '%s' "$big" | grep -c .) files"
	exit 0
fi
[ -f "$allow" ] || { echo "check_sizes.sh: $allow is missing" >&2; exit 2; }
declare -A limit=()
n=0
while read -r f l; do
	case $f in '#'* | '') continue ;; esac
	limit[$f]=$l
	n=$((n + 1))
done <"$allow"
bad=0
want=$(sed -n 's/^# count: \([0-9][0-9]*\)$/\1/p' "$allow")
if [ "$want" != "$n" ]; then
	echo "$allow: its count line says ${want:-nothing}, it lists $n files"
	bad=1
fi
declare -A seen=()
while read -r f l; do
	seen[$f]=1
	if [ -n "${limit[$f]+x}" ]; then
		if [ "$l" -gt "${limit[$f]}" ]; then
			echo "$f: $l lines, more than the ${limit[$f]} it had when listed in $allow: split it rather than grow it"
			bad=1
		elif [ "$l" -le $max ]; then
			echo "# note: $f: $l lines now: remove it from $allow (and lower its count)"
		fi
	elif [ "$l" -gt $max ]; then
		echo "$f: $l lines, more than $max: split it"
		bad=1
	fi
done < <(sizes)
for f in "${!limit[@]}"; do
	[ -n "${seen[$f]+x}" ] || echo "# note: $f is gone: remove it from $allow (and lower its count)"
done
exit $bad
