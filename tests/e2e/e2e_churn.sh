#!/usr/bin/env bash
# e2e_churn.sh - the standard-library job docs/ci.md measures the workflow's budget with
# (examples/programs/churn.py), run tiny under a 2-arm bench of 2 rounds: every run ok and proven,
# its phases load and epoch marked with CPU time, the epoch once per epoch, one checksum under
# both allocators; and its own refusal of a bad argument. No timing is asserted.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget
PY=/usr/bin/python3
[ -x "$PY" ] || { skip "churn example" "/usr/bin/python3 is not installed"; exit 0; }

"$A" bench -w churn --program "$PY examples/programs/churn.py --rows 3000 --epochs 3 >>$TMP/c.out" \
	-a system,mimalloc --primary epoch --rounds 2 --warmup 0 -q -o "$TMP/c.json" >"$TMP/out" 2>"$TMP/err"
st=$?
[ "$st" = 0 ] && ok "bench of the example, 2 arms and 2 rounds: exit 0" ||
	notok "bench of the example" "exit $st: $(head -c 400 "$TMP/err")"
runs=0 good=0 marked=0 bad=""
for r in 0 1; do
	n=$("$J" "$TMP/c.json" "rounds.$r.runs.#" 2>/dev/null || echo 0)
	for ((k = 0; k < n; k++)); do
		p="rounds.$r.runs.$k"
		runs=$((runs + 1))
		s="$("$J" "$TMP/c.json" "$p.status") $("$J" "$TMP/c.json" "$p.probe.verified")"
		[ "$s" = "ok true" ] && good=$((good + 1)) || bad+=" $p: $s;"
		names="$("$J" "$TMP/c.json" "$p.phase_marks.phases.0.name" 2>/dev/null) $("$J" "$TMP/c.json" "$p.phase_marks.phases.1.name" 2>/dev/null)"
		spans=$("$J" "$TMP/c.json" "$p.phase_marks.phases.1.cpu_ns.#" 2>/dev/null)
		walls=$("$J" "$TMP/c.json" "$p.phase_marks.phases.1.wall_ns.#" 2>/dev/null)
		[ "$names" = "load epoch" ] && [ "$spans" = 3 ] && [ "$walls" = 3 ] && marked=$((marked + 1)) ||
			bad+=" $p: phases '$names', epoch spans '$spans'/'$walls';"
	done
done
[ "$runs" = 4 ] && [ "$good" = 4 ] && ok "all 4 runs ok and verified by the probe" ||
	notok "runs verified" "$good of $runs ok and verified:$bad"
[ "$runs" = 4 ] && [ "$marked" = 4 ] && ok "every run marks load and 3 epochs, each span with its CPU time" ||
	notok "phases marked" "$marked of $runs runs:$bad"
sums=$(sort -u "$TMP/c.out" 2>/dev/null)
[ "$(wc -l <"$TMP/c.out" 2>/dev/null)" = 4 ] && [ "$(printf '%s\n' "$sums" | wc -l)" = 1 ] &&
	[[ $sums == "checksum "* ]] && ok "one checksum under glibc and mimalloc in all 4 runs" ||
	notok "checksums" "'$sums'"
"$PY" examples/programs/churn.py --epochs 0 >"$TMP/o" 2>"$TMP/e"
st=$?
[ "$st" = 2 ] && grep -q -- '--epochs and --rows must be at least 1' "$TMP/e" &&
	ok "churn.py --epochs 0: exit 2 with the reason" || notok "churn.py --epochs 0" "exit $st: $(cat "$TMP/e")"
exit $t_fail
