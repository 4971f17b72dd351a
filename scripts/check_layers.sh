#!/usr/bin/env bash
# check_layers.sh - the layering of the tree (README.md, "Layout"): every #include "..." of the C
# code under ROOT (default: the repository) must name its layer and point down or sideways, never
# up or across programs. Prints each offending FILE:LINE and exits 1; exits 0 when all hold.
# Usage: scripts/check_layers.sh [ROOT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# What each folder may include, by path prefix of the included file. The first rule whose folder
# is a prefix of the file's path applies; a C file under no rule is an error (give its folder one).
rules=(
	"src/common/|common/"
	"src/driver/|common/ driver/"
	"workloads/|common/ driver/ workloads/"
	"allocators/|driver/backend.h common/hugetlb.h"
	"src/preload/|common/trace_format.h common/allocknown.h common/hugetlb.h preload/"
	"src/front/analysis/|common/ front/analysis/"
	"src/front/export/|common/ front/analysis/ front/export/"
	"src/front/run/|common/ front/analysis/ front/run/"
	"src/front/cmd/|common/ front/"
	"src/front/|common/ front/cmd/"
)

bad=0
while IFS= read -r file; do
	allowed=
	for r in "${rules[@]}"; do
		if [[ $file == "${r%%|*}"* ]]; then
			allowed=${r#*|}
			break
		fi
	done
	if [ -z "$allowed" ]; then
		echo "$file:1: no layer rule for this folder (scripts/check_layers.sh)"
		bad=1
		continue
	fi
	while IFS=: read -r line inc; do
		ok=0
		for a in $allowed; do
			[[ $inc == "$a"* ]] && ok=1
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
exit $bad
