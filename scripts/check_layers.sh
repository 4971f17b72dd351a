#!/usr/bin/env bash
# check_layers.sh - the structure of the tree (README.md, "Layout"; docs/architecture.md).
#
# Includes: every #include "..." of the C code under ROOT (default: the repository) must name its
# layer and point down or sideways, never up or across programs. The front end's modules
# (src/front/M/) follow one convention: a module's public header is front/M/M.h; every other
# header of its folder is private to it; a module includes its own folder, common/, and the
# public headers of the modules it uses (MODULES below), nothing else.
#
# Calls (with BUILD, the build directory of a `make build-all`): from the objects' symbols, no
# front-end file calls into a module it does not use, and the files of one module do not call
# each other in a circle.
#
# Prints each offending FILE:LINE (or FILE: for calls) and exits 1; exits 0 when all hold.
# Usage: scripts/check_layers.sh [ROOT [BUILD]]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
build=${2:-}
cd "$root" || exit 2

# The front end's modules and the modules each may use; the order is bottom to top.
modules=(
	"stats|"
	"results|stats"
	"compare|stats results"
	"fleet|stats results compare"
	"claims|stats results compare"
	"calib|stats results compare"
	"gate|stats results compare calib fleet"
	"tracestat|"
	"export|stats results compare claims fleet"
	"arms|"
	"run|stats results compare gate arms"
	"cmd|stats results compare fleet claims calib gate tracestat export arms run"
)

# What the other folders may include, by path prefix of the included file. The first rule whose
# folder is a prefix of the file's path applies; a C file under no rule is an error.
rules=(
	"src/common/|common/"
	"src/driver/|common/ driver/"
	"workloads/|common/ driver/ workloads/"
	"allocators/|driver/backend.h common/hugetlb.h"
	"src/preload/|common/trace_format.h common/allocknown.h common/hugetlb.h preload/"
	"src/front/allocab.c|common/ front/cmd/commands.h"
)

uses_of() {
	local m
	for m in "${modules[@]}"; do
		[ "${m%%|*}" = "$1" ] && { echo "${m#*|}"; return 0; }
	done
	return 1
}

allowed_for() {
	local file=$1 r mod uses u
	if [[ $file == src/front/*/* ]]; then
		mod=${file#src/front/}
		mod=${mod%%/*}
		uses=$(uses_of "$mod") || return 1
		echo -n "common/ front/$mod/"
		for u in $uses; do echo -n " front/$u/$u.h"; done
		echo
		return 0
	fi
	for r in "${rules[@]}"; do
		if [[ $file == "${r%%|*}"* ]]; then
			echo "${r#*|}"
			return 0
		fi
	done
	return 1
}

bad=0
while IFS= read -r file; do
	if ! allowed=$(allowed_for "$file"); then
		echo "$file:1: no layer rule for this folder (scripts/check_layers.sh)"
		bad=1
		continue
	fi
	while IFS=: read -r line inc; do
		ok=0
		for a in $allowed; do
			if [[ $a == */ ]]; then [[ $inc == "$a"* ]] && ok=1; else [[ $inc == "$a" ]] && ok=1; fi
		done
		if [[ $inc != */* ]]; then
			echo "$file:$line: #include \"$inc\" does not name its layer (e.g. \"common/prng.h\")"
			bad=1
		elif [ $ok -eq 0 ]; then
			echo "$file:$line: #include \"$inc\" crosses layers: ${file%/*}/ may include only $allowed"
			bad=1
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
		sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
done < <(find src workloads allocators -name '*.[ch]' 2>/dev/null | sort)

# Calls between the front end's files, from the symbols of their objects.
if [ -n "$build" ]; then
	declare -A owner
	srcs=$(find src/front -mindepth 2 -name '*.c' | sort)
	for c in $srcs; do
		o=$build/${c%.c}.o
		if [ ! -f "$o" ]; then
			echo "$c: no object $o (run make build-all first)"
			bad=1
			continue
		fi
		for s in $(nm --defined-only -g "$o" | awk '$2 ~ /[TDBR]/ {print $3}'); do owner[$s]=$c; done
	done
	edges=$(for c in $srcs; do
		o=$build/${c%.c}.o
		[ -f "$o" ] || continue
		for s in $(nm -u "$o" | awk '{print $2}'); do
			t=${owner[$s]:-}
			[ -n "$t" ] && [ "$t" != "$c" ] && echo "$c $t"
		done
	done | sort -u)
	while read -r from to; do
		[ -n "$from" ] || continue
		fm=${from#src/front/}; fm=${fm%%/*}
		tm=${to#src/front/}; tm=${tm%%/*}
		[ "$fm" = "$tm" ] && continue
		if ! [[ " $(uses_of "$fm") " == *" $tm "* ]]; then
			echo "$from: calls into $to: module $fm does not use $tm"
			bad=1
		fi
	done <<<"$edges"
	# Circles among the files of one module: tsort reports them.
	cyc=$(awk '{split($1, a, "/"); split($2, b, "/"); if (a[3] == b[3]) print $1, $2}' <<<"$edges" |
		tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //')
	if [ -n "$cyc" ]; then
		echo "calls run in a circle among: $(echo $cyc | tr '\n' ' ')"
		bad=1
	fi
fi
exit $bad
