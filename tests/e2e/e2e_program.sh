# e2e_program.sh - `allocab bench --program` and `--expect` on real Debian programs (coreutils sort,
# python3's json) under every allocator, with the probe's verdicts asserted, and the ways a proof
# fails: a misspelled preload, a library that is no allocator, a static executable, a program that
# links jemalloc itself; a bench or gate without verified runs exits 1. Small inputs, 1 round.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget
P=$BUILD/liballocab-probe.so

jeq() {
	local got
	got=$("$J" "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "$3 is '$got', want '$4'"; fi
}

# statuses FILE: "arm status verified ALLOCATORS" per run, ALLOCATORS the distinct allocators of
# its processes.
statuses() {
	local f=$1 nr n r k
	nr=$("$J" "$f" rounds.#)
	for ((r = 0; r < nr; r++)); do
		n=$("$J" "$f" "rounds.$r.runs.#")
		for ((k = 0; k < n; k++)); do
			local base="rounds.$r.runs.$k" np i allocs=""
			np=$("$J" "$f" "$base.probe.processes.#")
			for ((i = 0; i < np; i++)); do
				allocs+=$("$J" "$f" "$base.probe.processes.$i.allocator")$'\n'
			done
			allocs=$(printf '%s' "$allocs" | sort -u | tr '\n' ' ')
			echo "$("$J" "$f" "$base.arm") $("$J" "$f" "$base.status") $("$J" "$f" "$base.probe.verified") $allocs"
		done
	done
}

if [ ! -x /usr/bin/python3 ]; then
	notok "Debian's python3" "/usr/bin/python3 missing (apt-get install python3)"
fi
if [ ! -f "$P" ]; then
	notok "probe library built" "$P missing"
	exit 1
fi
ok "probe library built"

# ---- the probe alone ----
: >"$TMP/rec"
ALLOCAB_PROBE_FILE=$TMP/rec LD_PRELOAD="libjemalloc.so.2:$P" sh -c 'echo x | sort >/dev/null'
if grep -q '"event":"start".*"exe":"/usr/bin/sort".*"allocator":"jemalloc"' "$TMP/rec" &&
	grep -q '"event":"exec".*"path":"/usr/bin/sort"' "$TMP/rec" &&
	grep -q '"event":"fork"' "$TMP/rec"; then
	ok "probe: start, fork and exec records name jemalloc in sh and sort"
else
	notok "probe: records" "$(head -c 400 "$TMP/rec")"
fi
: >"$TMP/rec"
ALLOCAB_PROBE_FILE=$TMP/rec LD_PRELOAD="$P" sh -c 'LD_PRELOAD=libmimalloc.so.2 sort </dev/null >/dev/null'
if grep -q '"exe":"/usr/bin/sort".*"allocator":"mimalloc"' "$TMP/rec"; then
	ok "probe: an exec'ed program that sets its own LD_PRELOAD keeps the probe"
else
	notok "probe: exec keeps the probe" "$(head -c 400 "$TMP/rec")"
fi
if [ "$(python3 -c 'import json, benchfile,sys; [json.loads(l) for l in open(sys.argv[1])]; print("ok")' "$TMP/rec" 2>&1)" = ok ]; then
	ok "probe: every record is one JSON line"
else
	notok "probe: JSON lines" "$(head -c 400 "$TMP/rec")"
fi

# ---- real programs under every allocator ----
seq 1 20000 | awk '{ print ($1 * 7919) % 20011 }' >"$TMP/nums.txt"
expect_status "sort under all four allocators: exit 0" 0 \
	"$A" bench --program "sort -n $TMP/nums.txt >/dev/null" -a system,mimalloc,jemalloc,tcmalloc \
	--rounds 1 --warmup 0 -q -o "$TMP/sort.json"
st=$(statuses "$TMP/sort.json" | sort)
want=$'jemalloc ok true jemalloc \nmimalloc ok true mimalloc \nsystem ok true system \ntcmalloc ok true tcmalloc '
if [ "$st" = "$want" ]; then ok "sort: sh and sort proven on each arm's allocator"; else notok "sort: verdicts" "$st"; fi
jeq "sort: the mimalloc arm records its library" "$TMP/sort.json" config.proof.mimalloc.allocator mimalloc
jeq "sort: the jemalloc arm records its version" "$TMP/sort.json" config.proof.jemalloc.version 5.3.0
jeq "sort: program recorded" "$TMP/sort.json" config.program "sort -n $TMP/nums.txt >/dev/null"

cat >"$TMP/j.py" <<'PY'
import json, benchfile
data = [{"id": i, "name": "item%d" % i, "tags": ["a", "b", str(i)]} for i in range(20000)]
assert len(json.loads(json.dumps(data))) == 20000
PY
expect_status "python3 json with PYTHONMALLOC=malloc under all four: exit 0" 0 \
	"$A" bench --program "PYTHONMALLOC=malloc /usr/bin/python3 $TMP/j.py" --rounds 1 --warmup 0 -q \
	-o "$TMP/py.json"
st=$(statuses "$TMP/py.json" | sort)
want=$'jemalloc ok true jemalloc \nmimalloc ok true mimalloc \nsystem ok true system \ntcmalloc ok true tcmalloc '
if [ "$st" = "$want" ]; then ok "python3: proven on each arm's allocator"; else notok "python3: verdicts" "$st"; fi
expect_status "compare reads a --program document" 0 "$A" compare "$TMP/py.json"

expect_status "--count-calls: exit 0" 0 \
	"$A" bench --program "PYTHONMALLOC=malloc /usr/bin/python3 $TMP/j.py" -a system,mimalloc \
	--count-calls --rounds 1 --warmup 0 -q -o "$TMP/count.json"
counted=$(python3 -c '
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
for r in d["rounds"][0]["runs"]:
    for p in r["probe"]["processes"]:
        if p["exe"].startswith("/usr/bin/python3") and p["allocator"] == r["arm"]:
            print(r["arm"], p["counts"]["malloc"] > 20000 and p["counts"]["bytes"] > 0)
' "$TMP/count.json" | sort | tr '\n' ' ')
if [ "$counted" = "mimalloc True system True " ]; then
	ok "--count-calls: python3's malloc calls counted on each allocator"
else
	notok "--count-calls: counts" "$counted"
fi
jeq "--count-calls recorded" "$TMP/count.json" config.count_calls true
expect_status "compare a --count-calls bench" 0 "$A" compare "$TMP/count.json"
procs=$(python3 -c '
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
print(*[r["probe"]["process_count"] for r in d["rounds"][0]["runs"] if r["arm"] == "system"])' "$TMP/count.json")
if grep -Eq '^workload +arm +ok rounds .* processes/run +calls/run$' "$TMP/out" &&
	grep -Eq "^command +system +1/1 .* $procs +[0-9.]+ [kM]\$" "$TMP/out"; then
	ok "compare: processes per run ($procs) and calls per run in the per-arm table"
else
	notok "compare: processes and calls per arm" "$(grep -A3 '^workload  *arm' "$TMP/out")"
fi

# ---- proofs that fail ----
expect_status "misspelled preload in a --cmd arm: exit 1" 1 \
	"$A" bench --cmd system="sort $TMP/nums.txt >/dev/null" \
	--cmd typo="LD_PRELOAD=libmimaloc.so.2 sort $TMP/nums.txt >/dev/null" \
	--expect system=system --expect typo=mimalloc --rounds 1 --warmup 0 -q -o "$TMP/typo.json"
if grep -q "^allocab: bench: typo: no verified successful run: unverified: preload failed: .*libmimaloc.so.2.*cannot be preloaded" "$TMP/err" &&
	[ "$(grep -c 'no verified' "$TMP/err")" = 1 ]; then
	ok "misspelled preload: one line naming the arm and ld.so's message"
else
	notok "misspelled preload: message" "$(cat "$TMP/err")"
fi
expect_status "gate without verified rounds: exit 1" 1 \
	"$A" gate "$TMP/typo.json" --candidate typo --baseline system --min-speedup 0
if grep -q "^gate: FAIL: no verified rounds for typo: unverified: preload failed" "$TMP/out"; then
	ok "gate: one line naming the arm without verified rounds"
else
	notok "gate: message" "$(cat "$TMP/out")"
fi
expect_status "--expect with the right preload passes" 0 \
	"$A" bench --cmd system="sort $TMP/nums.txt >/dev/null" \
	--cmd mi="LD_PRELOAD=libmimalloc.so.2 sort $TMP/nums.txt >/dev/null" \
	--expect system=system --expect mi=mimalloc --rounds 1 --warmup 0 -q -o "$TMP/mi.json"

expect_status "libz.so.1 as an allocator: exit 1" 1 \
	"$A" bench --program "sort $TMP/nums.txt >/dev/null" -a system --preload zlib=libz.so.1 \
	--rounds 1 --warmup 0 -q -o "$TMP/z.json"
if grep -q "^allocab: bench: zlib: no verified successful run: unverified: other allocator serves malloc: libc.so.6 .*expected libz" "$TMP/err"; then
	ok "libz.so.1: other allocator serves malloc"
else
	notok "libz.so.1: message" "$(cat "$TMP/err")"
fi
expect_status "--preload of a missing library: exit 2" 2 \
	"$A" bench --program "true" -a system --preload x=libnothere.so.9 -o "$TMP/x.json"
expect_err "--preload of a missing library: ld.so's message" "^allocab: bench: --preload x: cannot load libnothere.so.9: .*cannot be preloaded"

printf '#include <stdlib.h>\nint main(void) { void *p = malloc(100); free(p); return p == 0; }\n' >"$TMP/m.c"
if gcc -static -o "$TMP/static" "$TMP/m.c" 2>/dev/null; then
	expect_status "static executable: exit 1" 1 \
		"$A" bench --program "$TMP/static" -a system,mimalloc --rounds 1 --warmup 0 -q -o "$TMP/s.json"
	if [ "$(grep -c "no verified successful run: unverified: static executable $TMP/static (pid [0-9]*) sent no probe report" "$TMP/err")" = 2 ]; then
		ok "static executable: both arms unverified, named"
	else
		notok "static executable: message" "$(cat "$TMP/err")"
	fi
else
	skip "static executable" "gcc -static failed (libc6-dev static libraries missing)"
fi
if gcc -o "$TMP/je" "$TMP/m.c" /usr/lib/x86_64-linux-gnu/libjemalloc.a -lpthread -ldl -lm 2>/dev/null; then
	expect_status "program linking jemalloc itself: exit 1" 1 \
		"$A" bench --program "$TMP/je" -a system,mimalloc --rounds 1 --warmup 0 -q -o "$TMP/je.json"
	if [ "$(grep -c "unverified: program links its own allocator (jemalloc): $TMP/je" "$TMP/err")" = 2 ]; then
		ok "program linking jemalloc: both arms unverified, named"
	else
		notok "program linking jemalloc: message" "$(cat "$TMP/err")"
	fi
	expect_status "--expect jemalloc on a program linking jemalloc: proof" 0 \
		"$A" bench --cmd a="$TMP/je" --cmd b="$TMP/je" --expect a=jemalloc --expect b=jemalloc \
		--rounds 1 --warmup 0 -q -o "$TMP/je2.json"
else
	notok "program linking jemalloc" "cannot link libjemalloc.a"
fi

# ---- a driver bench under a stray LD_PRELOAD ----
if [ -x "$BUILD/allocab-system" ] && [ -x "$BUILD/allocab-mimalloc" ]; then
	LD_PRELOAD=libtcmalloc_minimal.so.4 expect_status "driver bench under a stray LD_PRELOAD: exit 1" 1 \
		"$A" bench -a system,mimalloc -w feature_extract --scale small --rounds 1 --warmup 0 -q \
		-o "$TMP/d.json"
	if [ "$(grep -c "no verified successful run: unverified" "$TMP/err")" = 2 ]; then
		ok "stray LD_PRELOAD: one line per arm"
	else
		notok "stray LD_PRELOAD: message" "$(cat "$TMP/err")"
	fi
else
	notok "driver bench under a stray LD_PRELOAD" "allocab-system or allocab-mimalloc not built (make test builds them)"
fi

# ---- bad input ----
expect_status "--program with --cmd" 2 "$A" bench --program true --cmd a=true --cmd b=true
expect_err "--program with --cmd: one line" "^allocab: bench: --cmd cannot be combined with --program$"
expect_status "--expect without --cmd" 2 "$A" bench --expect a=mimalloc
expect_status "--expect of an unknown allocator" 2 "$A" bench --cmd a=true --cmd b=true --expect a=foo
expect_err "--expect unknown allocator: one line" "^allocab: bench: --expect a=foo: unknown allocator"
expect_status "-a unknown allocator with --program" 2 "$A" bench --program true -a system,foo
expect_err "-a unknown: one line" "^allocab: bench: -a: unknown allocator 'foo'"
exit $t_fail
