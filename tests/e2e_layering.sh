#!/usr/bin/env bash
# e2e_layering.sh - the include layering (scripts/check_layers.sh, README.md "Layout") holds on
# the tree, and the checker catches crafted violations in a copy, naming FILE:LINE.
. "$(dirname "$0")/lib.sh"
checker=scripts/check_layers.sh

if out=$("$checker" 2>&1); then
	ok "layering: every include of src/, workloads/ and allocators/ keeps to its layer"
else
	notok "layering: the tree" "$out"
fi

# A copy with one violation of each kind: it must fail and name each file and line.
mkdir -p "$TMP/tree"
cp -r src workloads allocators "$TMP/tree/"
printf '#include "common/prng.h"\n#include "front/run/bench.h"\n' >"$TMP/tree/src/driver/bad.c"
printf '#include "driver/workload.h"\n' >"$TMP/tree/src/common/bad.h"
printf '#include "front/run/runner.h"\n' >"$TMP/tree/src/front/analysis/bad.c"
printf '#include "front/cmd/commands.h"\n' >"$TMP/tree/src/front/run/bad.c"
printf '#include "driver/params.h"\n' >"$TMP/tree/src/front/cmd/bad.c"
printf '#include "common/prng.h"\n' >"$TMP/tree/allocators/bad.c"
printf '#include "wlutil.h"\n' >"$TMP/tree/workloads/bad.c"
mkdir -p "$TMP/tree/src/newprog" && : >"$TMP/tree/src/newprog/main.c"
"$checker" "$TMP/tree" >"$TMP/out" 2>&1
rc=$?
if [ $rc -eq 1 ]; then ok "layering: a crafted violation fails the check"; else notok "layering: crafted violation" "exit $rc"; fi
for want in "src/driver/bad.c:2:" "src/common/bad.h:1:" "src/front/analysis/bad.c:1:" \
	"src/front/run/bad.c:1:" "src/front/cmd/bad.c:1:" "allocators/bad.c:1:" \
	"workloads/bad.c:1: #include \"wlutil.h\" does not name its layer" "src/newprog/main.c:1: no layer rule"; do
	if grep -qF "$want" "$TMP/out"; then ok "layering: reports $want"; else notok "layering: reports $want" "$(cat "$TMP/out")"; fi
done
if grep -q "src/driver/bad.c:1:" "$TMP/out"; then notok "layering: allowed include" "src/driver/bad.c:1 (common/prng.h) reported"; else ok "layering: an allowed include is not reported"; fi
[ $(wc -l <"$TMP/out") -eq 8 ] && ok "layering: one line per violation" || notok "layering: one line per violation" "$(cat "$TMP/out")"
exit $t_fail
