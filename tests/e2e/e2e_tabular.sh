# e2e_tabular.sh - the pandas and scikit-learn example (examples/programs/tabular.py,
# docs/programs.md, "A program nobody tuned to: pandas and scikit-learn"), run tiny under a 2-arm
# bench of 2 rounds: every run ok and proven, its phases import, load, features and epoch marked
# with CPU time, the epoch once per epoch, one checksum under both allocators, and compare's epoch
# row on CPU time. Skipped, with a SKIP line, where Debian's python3-pandas or python3-sklearn is
# not installed: the example is optional and `make test` never needs them. First, without them:
# Python's ctypes.util.find_library (threadpoolctl's way to find libc) runs /sbin/ldconfig, a
# static executable, and the run is unverified. No timing is asserted.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget

if [ -x /sbin/ldconfig ] && command -v readelf >/dev/null && ! readelf -l /sbin/ldconfig 2>/dev/null | grep -q INTERP; then
	expect_status "find_library: a static /sbin/ldconfig in the run: exit 1" 1 "$A" bench \
		--program "/usr/bin/python3 -c 'import ctypes.util; ctypes.util.find_library(\"c\")'" \
		-a system,mimalloc --rounds 2 --warmup 0 -q -o "$TMP/fl.json"
	if grep -q 'unverified: static executable /sbin/ldconfig (pid [0-9]*) sent no probe report' "$TMP/err" &&
		grep -q 'stopped after the first round' "$TMP/err"; then
		ok "find_library: ... unverified, /sbin/ldconfig named, stopped after the first round"
	else
		notok "find_library: message" "$(head -c 400 "$TMP/err")"
	fi
else
	skip "find_library runs a static ldconfig" "/sbin/ldconfig is not a static executable here"
fi

if ! /usr/bin/python3 -c 'import pandas, sklearn' >/dev/null 2>&1; then
	skip "tabular example" "pandas or scikit-learn is not installed (apt-get install python3-pandas python3-sklearn)"
	exit 0
fi

"$A" bench -w tabular --program "/usr/bin/python3 examples/programs/tabular.py --rows 2000 --epochs 2 >>$TMP/tab.out" \
	-a system,mimalloc --primary epoch --rounds 2 --warmup 0 -q -o "$TMP/tab.json" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ "$st" = 0 ]; then ok "bench of the example, 2 arms and 2 rounds: exit 0"; else
	notok "bench of the example" "exit $st: $(head -c 400 "$TMP/err")"
fi
jeq "two measured rounds" "$TMP/tab.json" rounds.# 2

runs=0 good=0 marked=0 bad=""
for r in 0 1; do
	n=$("$J" "$TMP/tab.json" "rounds.$r.runs.#" 2>/dev/null || echo 0)
	for ((k = 0; k < n; k++)); do
		p="rounds.$r.runs.$k"
		runs=$((runs + 1))
		s="$("$J" "$TMP/tab.json" "$p.status") $("$J" "$TMP/tab.json" "$p.probe.verified")"
		if [ "$s" = "ok true" ]; then good=$((good + 1)); else bad+=" $p: $s;"; fi
		names="" cpu=1
		for ((q = 0; q < 4; q++)); do
			names+="$("$J" "$TMP/tab.json" "$p.phase_marks.phases.$q.name" 2>/dev/null) "
			c=$("$J" "$TMP/tab.json" "$p.phase_marks.phases.$q.cpu_ns.#" 2>/dev/null)
			w=$("$J" "$TMP/tab.json" "$p.phase_marks.phases.$q.wall_ns.#" 2>/dev/null)
			[ -n "$c" ] && [ "$c" = "$w" ] && [ "$c" -ge 1 ] || cpu=0
		done
		spans=$("$J" "$TMP/tab.json" "$p.phase_marks.phases.3.cpu_ns.#" 2>/dev/null)
		if [ "$names" = "import load features epoch " ] && [ "$cpu" = 1 ] && [ "$spans" = 2 ] &&
			[ "$("$J" "$TMP/tab.json" "$p.phase_marks.phases.#")" = 4 ]; then
			marked=$((marked + 1))
		else
			bad+=" $p: phases '$names', CPU times in every span $cpu, epoch spans '$spans';"
		fi
	done
done
if [ "$runs" = 4 ] && [ "$good" = 4 ]; then ok "all 4 runs ok and verified by the probe"; else
	notok "runs verified" "$good of $runs ok and verified:$bad"
fi
if [ "$runs" = 4 ] && [ "$marked" = 4 ]; then
	ok "every run marks import, load, features and 2 epochs, each span with its CPU time"
else
	notok "phases marked" "$marked of $runs runs:$bad"
fi

sums=$(sort -u "$TMP/tab.out" 2>/dev/null)
if [ "$(wc -l <"$TMP/tab.out" 2>/dev/null)" = 4 ] && [ "$(printf '%s\n' "$sums" | wc -l)" = 1 ] &&
	[[ $sums == "checksum rows=2000 epochs=2 "* ]]; then
	ok "one checksum under glibc and mimalloc in all 4 runs"
else
	notok "checksums" "'$sums'"
fi

"$A" compare "$TMP/tab.json" --phase epoch --format json >"$TMP/cmp.json" 2>"$TMP/err"
n=$("$J" "$TMP/cmp.json" comparisons.# 2>/dev/null || echo 0)
row=""
for ((k = 0; k < n; k++)); do
	row+="$("$J" "$TMP/cmp.json" "comparisons.$k.phase")/$("$J" "$TMP/cmp.json" "comparisons.$k.candidate")/$("$J" "$TMP/cmp.json" "comparisons.$k.time") "
done
if [[ $row == *"epoch/mimalloc/cpu "* ]]; then ok "compare --phase epoch: the epoch of mimalloc compared on CPU time"; else
	notok "compare's epoch row" "rows '$row': $(head -c 300 "$TMP/err")"
fi
exit $t_fail
