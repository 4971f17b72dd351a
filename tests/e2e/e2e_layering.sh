#!/usr/bin/env bash
# e2e_layering.sh - the structure of the tree (scripts/check_layers.sh, docs/architecture.md, "Layout") holds:
# includes keep to their layer, front-end modules reach each other only through their public
# header, and no call runs against the modules' order or in a circle. The checker catches crafted
# violations in a copy, naming FILE:LINE.
. "$(dirname "$0")/lib.sh"
checker=scripts/check_layers.sh

if out=$("$checker" . "$BUILD" 2>&1); then
	ok "layering: every include and every call of the front end keeps to its layer and module"
else
	notok "layering: the tree" "$out"
fi

# A tree of one violation of each kind (the real tree's files are checked above, so they need no
# copy): it must fail and name each file and line.
mkdir -p "$TMP/tree/src/driver" "$TMP/tree/src/common" "$TMP/tree/allocators" "$TMP/tree/workloads"
for m in stats engine cmd export compare; do mkdir -p "$TMP/tree/src/front/$m"; done
printf '#include "common/prng.h"\n#include "front/engine/engine.h"\n' >"$TMP/tree/src/driver/bad.c"
printf '#include "driver/workload.h"\n' >"$TMP/tree/src/common/bad.h"
printf '#include "front/engine/engine.h"\n' >"$TMP/tree/src/front/stats/bad.c"
printf '#include "front/cmd/commands.h"\n' >"$TMP/tree/src/front/engine/bad.c"
printf '#include "driver/params.h"\n' >"$TMP/tree/src/front/cmd/bad.c"
printf '#include "front/compare/cmpint.h"\n' >"$TMP/tree/src/front/export/bad.c"
printf '#include "front/export/export.h"\n' >"$TMP/tree/src/front/compare/bad.c"
printf '#include "common/prng.h"\n' >"$TMP/tree/allocators/bad.c"
printf '#include "wlutil.h"\n' >"$TMP/tree/workloads/bad.c"
mkdir -p "$TMP/tree/src/trace" && printf '#include "front/proc/proc.h"\n' >"$TMP/tree/src/trace/bad.c"
printf '#include "front/proc/proc.h"\n' >"$TMP/tree/src/trace/session.c"
mkdir -p "$TMP/tree/src/newprog" && : >"$TMP/tree/src/newprog/main.c"
mkdir -p "$TMP/tree/src/front/newmod" && : >"$TMP/tree/src/front/newmod/x.c"
"$checker" "$TMP/tree" >"$TMP/out" 2>&1
rc=$?
if [ $rc -eq 1 ]; then ok "layering: a crafted violation fails the check"; else notok "layering: crafted violation" "exit $rc"; fi
for want in "src/driver/bad.c:2:" "src/common/bad.h:1:" "src/front/stats/bad.c:1:" \
	"src/front/engine/bad.c:1:" "src/front/cmd/bad.c:1:" \
	"src/front/export/bad.c:1: #include \"front/compare/cmpint.h\" crosses layers" \
	"src/front/compare/bad.c:1:" "allocators/bad.c:1:" \
	"workloads/bad.c:1: #include \"wlutil.h\" does not name its layer" \
	"src/trace/bad.c:1: #include \"front/proc/proc.h\" crosses layers" "src/newprog/main.c:1: no layer rule" \
	"src/front/newmod/x.c:1: no layer rule"; do
	if grep -qF "$want" "$TMP/out"; then ok "layering: reports $want"; else notok "layering: reports $want" "$(cat "$TMP/out")"; fi
done
if grep -q "src/driver/bad.c:1:" "$TMP/out"; then notok "layering: allowed include" "src/driver/bad.c:1 (common/prng.h) reported"; else ok "layering: an allowed include is not reported"; fi
if grep -q "src/trace/session.c" "$TMP/out"; then notok "layering: the recording session may use proc's runner" "$(grep src/trace/session.c "$TMP/out")"; else ok "layering: the recording session may use proc's runner, no other file of the trace"; fi
[ $(wc -l <"$TMP/out") -eq 12 ] && ok "layering: one line per violation" || notok "layering: one line per violation" "$(cat "$TMP/out")"

# Calls: objects of a planted pair of files that call each other, and a call against the
# modules' order (stats calling into export), are reported from their symbols.
mkdir -p "$TMP/calls/src/front/stats" "$TMP/calls/src/front/export" "$TMP/calls/b/src/front/stats" \
	"$TMP/calls/b/src/front/export"
printf 'int b(void); int a(void) { return b(); }\n' >"$TMP/calls/src/front/stats/a.c"
printf 'int a(void); int b(void) { return a(); }\n' >"$TMP/calls/src/front/stats/b.c"
printf 'int e(void) { return 1; }\n' >"$TMP/calls/src/front/export/e.c"
printf 'int e(void); int u(void) { return e(); }\n' >"$TMP/calls/src/front/stats/u.c"
for f in stats/a stats/b stats/u export/e; do
	cc -c -o "$TMP/calls/b/src/front/$f.o" "$TMP/calls/src/front/$f.c"
done
(cd "$TMP/calls" && mkdir -p workloads allocators && "$OLDPWD/$checker" . b) >"$TMP/cout" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "layering: planted calls fail the check" || notok "layering: planted calls" "exit $rc: $(cat "$TMP/cout")"
grep -q "src/front/stats/u.c: calls into src/front/export/e.c: module stats does not use export" "$TMP/cout" &&
	ok "layering: a call against the modules' order is named" ||
	notok "layering: a call against the modules' order" "$(cat "$TMP/cout")"
grep -q "calls run in a circle among: .*src/front/stats/a.c" "$TMP/cout" &&
	ok "layering: files of a module that call each other in a circle are named" ||
	notok "layering: a call circle" "$(cat "$TMP/cout")"
exit $t_fail
