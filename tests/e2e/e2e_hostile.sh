# e2e_hostile.sh - the readers against hostile and huge inputs (docs/results-format.md, "Reading
# files"): non-regular files, size and grid limits, repeated rounds, numbers out of range, one strict
# behaviour for results and calibration files, messages that say what is wrong, log ratios whose
# ties are decided on the integer times, and the streamed reader. Every file is crafted here; no benchmark runs.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget

# mkpairs FILE VAR=VALUE...: two arms, every round's times given. Variables:
#   pairs="100:110 200:220"  base:candidate nanoseconds per measured round (workload w: times w)
#   wls=parquet_load  arms=system,mimalloc  names=system,mimalloc (allocator.name of each arm)
#   vers=1.0,1.0 (allocator.version of each arm)
mkpairs() {
	local out=$1
	shift
	awk -v pairs="100:110" -v wls=parquet_load -v arms=system,mimalloc -v names=system,mimalloc \
		-v vers=1.0,1.0 "${@/#/-v}" 'BEGIN {
	nr = split(pairs, pr, " "); nw = split(wls, wl, ","); split(arms, an, ","); split(names, nn, ",")
	split(vers, vv, ",")
	printf "{\"schema\":\"allocab-bench/1\",\"status\":\"complete\",\"config\":{\"mode\":\"drivers\","
	printf "\"arms\":[\"%s\",\"%s\"],\"workloads\":[", an[1], an[2]
	for (w = 1; w <= nw; w++) printf "%s\"%s\"", (w > 1 ? "," : ""), wl[w]
	printf "],\"scale\":\"small\"},\"machine\":{\"id\":\"aaaa000000000001\"},\"rounds\":["
	for (r = 1; r <= nr; r++) {
		split(pr[r], t, ":")
		printf "%s{\"index\":%d,\"warmup\":false,\"runs\":[", (r > 1 ? "," : ""), r - 1
		for (w = 1; w <= nw; w++) for (a = 1; a <= 2; a++) {
			ns = t[a] * w
			printf "%s{\"arm\":\"%s\",\"workload\":\"%s\",\"status\":\"ok\",", (w + a > 2 ? "," : ""), an[a], wl[w]
			printf "\"process\":{\"wall_ns\":%d},\"record\":{\"schema\":\"allocab-run/1\",", ns
			printf "\"allocator\":{\"name\":\"%s\",\"version\":\"%s\"},", nn[a], vv[a]
			printf "\"workload\":{\"name\":\"%s\",\"scale\":\"small\",\"seed\":1,\"params\":{}},", wl[w]
			printf "\"phases\":[\"total\"],\"reps\":[{\"phases\":{\"total\":{\"wall_ns\":%d}}}],", ns
			printf "\"checksum\":\"00000000000000aa\"}}"
		}
		printf "]}"
	}
	printf "]}\n"
}' >"$out"
}

# bad NAME PATTERN CMD...: CMD exits 2 within 20 s with one stderr line `allocab: CMD: ...PATTERN`.
bad() {
	local name=$1 pattern=$2
	shift 2
	expect_status "$name: exit 2" 2 timeout 20 "$@"
	expect_err "$name: one line" "^allocab: [a-z]+: .*$pattern"
}

# sub FROM TO IN OUT: the first FROM (a perl regex) in IN replaced by TO.
sub() { perl -pe "s/$1/$2/" "$3" >"$4"; }

mkbench "$TMP/r.json" arms=system=1,mimalloc=0.8 rounds=4 warmup=1
expect_status "the crafted file compares" 0 "$A" compare "$TMP/r.json"

# 1. Round indices: each round once, in file order. Before, the same rounds repeated under the same
#    indices were counted again and turned INCONCLUSIVE into PASS.
mkbench "$TMP/three.json" arms=system=1,mimalloc=0.9/0.3 rounds=3 warmup=0
onedoc "$TMP/three.json" "$TMP/rep.json" 4
bad "rounds repeated under the same indices" 'rounds\[3\]: index 0 where 3 was due' "$A" gate "$TMP/rep.json" --candidate mimalloc --min-speedup 1%
perl -ne 'if (/^\{"index":/) { push @r, $_ } else { print @r, @r, @r if @r && !$done++; print }' "$TMP/three.json" >"$TMP/rep2.json"
bad "allocab-bench/2: round lines repeated under the same indices" 'index 0 where 3 was due' "$A" gate "$TMP/rep2.json" --candidate mimalloc --min-speedup 1%
sub '"index":2' '"index":1' "$TMP/three.json" "$TMP/dup.json"
bad "a duplicate round index" 'rounds\[2\]: index 1 where 2 was due' "$A" compare "$TMP/dup.json"

# 2. Non-regular files refused at once, input size capped.
mkfifo "$TMP/fifo"
bad "a FIFO with no writer" 'fifo: a FIFO, not a regular file: refused' "$A" compare "$TMP/fifo"
bad "compare /dev/zero" '/dev/zero: a character device, not a regular file' "$A" compare /dev/zero
bad "a directory" 'a directory, not a regular file' "$A" compare "$TMP"
bad "gate on a FIFO" 'a FIFO' "$A" gate "$TMP/fifo" --candidate mimalloc --min-speedup 1
bad "calibrate --from a FIFO" 'a FIFO' "$A" calibrate --from "$TMP/fifo" -o "$TMP/cal.json"
bad "--calibration FIFO" 'a FIFO' "$A" compare "$TMP/r.json" --calibration "$TMP/fifo"
mkdir -p "$TMP/cwd/results"
mkfifo "$TMP/cwd/results/calibration.json"
Aabs=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")
cd "$TMP/cwd" && expect_status "the default calibration file a FIFO: compare does not hang" 0 timeout 20 "$Aabs" compare "$TMP/r.json"
cd "$OLDPWD" || exit 1
grep -q 'calibration ignored: .*a FIFO' "$TMP/err" && ok "the FIFO named in a warning" || notok "the FIFO named in a warning" "$(cat "$TMP/err")"
ALLOCAB_MAX_INPUT=1k expect_status "ALLOCAB_MAX_INPUT=1k: a larger file refused" 2 "$A" compare "$TMP/r.json"
expect_err "the size cap named" 'larger than the 1024-byte input limit \(set ALLOCAB_MAX_INPUT to raise it\)'
ALLOCAB_MAX_INPUT=1M expect_status "ALLOCAB_MAX_INPUT=1M: it fits" 0 "$A" compare "$TMP/r.json"
ALLOCAB_MAX_INPUT=lots expect_status "ALLOCAB_MAX_INPUT malformed" 2 "$A" compare "$TMP/r.json"
expect_err "ALLOCAB_MAX_INPUT malformed: one line" "ALLOCAB_MAX_INPUT 'lots': want a byte count"
awk 'BEGIN { printf "["; for (i = 0; i < 40000; i++) printf "0,"; print "0]" }' >"$TMP/nodes.json"
ALLOCAB_MAX_INPUT=96k expect_status "more values than the cap allows" 2 "$A" compare "$TMP/nodes.json"
expect_err "value count named" 'more than 12288 JSON values, the limit for a 98304-byte input limit'

# 3. Absurd grids refused in one line, fast; the bootstrap's cost bounded.
awk 'BEGIN { printf "{\"schema\":\"allocab-bench/1\",\"status\":\"complete\",\"config\":{\"mode\":\"drivers\",\"arms\":[";
	for (i = 0; i < 1000; i++) printf "%s\"a%d\"", (i ? "," : ""), i; printf "],\"workloads\":[";
	for (i = 0; i < 1000; i++) printf "%s\"w%d\"", (i ? "," : ""), i; print "]},\"rounds\":[]}" }' >"$TMP/grid.json"
bad "a 1000 x 1000 grid" 'config: 1000 arms x 1000 workloads exceed the limit of 10000' "$A" compare "$TMP/grid.json"
awk 'BEGIN { printf "{\"schema\":\"allocab-bench/1\",\"status\":\"complete\",\"config\":{\"mode\":\"drivers\",\"arms\":[";
	for (i = 0; i < 100000; i++) printf "%s\"arm%d\"", (i ? "," : ""), i; print "],\"workloads\":[\"w\"]},\"rounds\":[]}" }' >"$TMP/arms.json"
bad "100,000 arms" 'config: 100000 arms x 1 workloads exceed' "$A" compare "$TMP/arms.json"
awk 'BEGIN { printf "{\"schema\":\"allocab-bench/1\",\"status\":\"complete\",\"config\":{\"mode\":\"drivers\",\"arms\":[";
	for (i = 0; i < 100; i++) printf "%s\"a%d\"", (i ? "," : ""), i; printf "],\"workloads\":[";
	for (i = 0; i < 100; i++) printf "%s\"w%d\"", (i ? "," : ""), i; printf "]},\"rounds\":[";
	for (i = 0; i < 2000; i++) printf "%s{\"index\":%d,\"warmup\":false,\"runs\":[]}", (i ? "," : ""), i; print "]}" }' >"$TMP/empty.json"
bad "2000 empty rounds of 10,000 pairs" 'rounds: 2 rounds of 100 arms x 100 workloads, but only 0 runs in them' "$A" compare "$TMP/empty.json"
awk 'BEGIN { printf "{\"schema\":\"allocab-bench/1\",\"status\":\"complete\",\"config\":{\"mode\":\"drivers\",\"arms\":[";
	for (i = 0; i < 5000; i++) printf "%s\"arm%d\"", (i ? "," : ""), i; print ",\"arm17\"],\"workloads\":[\"w\"]},\"rounds\":[]}" }' >"$TMP/twice.json"
bad "a repeated arm among 5001" "config.arms: 'arm17' listed twice" "$A" compare "$TMP/twice.json"
bad "--bootstrap 10000000" "--bootstrap: 10000000 is out of range \\[10000, 100000\\]" "$A" compare "$TMP/r.json" --bootstrap 10000000
mkbench "$TMP/long.json" arms=system=1,mimalloc=0.8 rounds=1001 warmup=0 wls=parquet_load
bad "--bootstrap cost bound" '--bootstrap 10000 over 1001 rounds: resamples x rounds exceeds 1e\+07' "$A" compare "$TMP/long.json" --bootstrap 10000

# 4. Numbers range-checked before any conversion.
sub '"index":1,' '"index":1e300,' "$TMP/r.json" "$TMP/i300.json"
bad "index 1e300" 'rounds\[1\]: index is not an integer' "$A" compare "$TMP/i300.json"
sub '"index":1,' '"index":1e999,' "$TMP/r.json" "$TMP/iinf.json"
bad "index inf" 'iinf.json: not JSON \(a number out of range at byte [0-9]+\)' "$A" compare "$TMP/iinf.json"
mkbench "$TMP/crash.json" arms=system=1,mimalloc=0.8 fail=mimalloc:2 rounds=4
sub '"exit_status":null' '"exit_status":1e300' "$TMP/crash.json" "$TMP/es.json"
bad "exit_status 1e300" 'exit_status is not null or an integer in 0..255' "$A" compare "$TMP/es.json"
sub '"clock_ticks_per_s":100' '"clock_ticks_per_s":-1e300' "$TMP/r.json" "$TMP/hz.json"
bad "clock_ticks_per_s -1e300" 'config.clock_ticks_per_s is not a number' "$A" compare "$TMP/hz.json"

# 5. One strict reader: the same refusals in results and calibration files.
sub '"total":\{"wall_ns":\d+' '"total":{"wall_ns":1e308' "$TMP/r.json" "$TMP/huge.json"
bad "wall_ns 1e308" 'wall_ns missing or not a positive integer of at most 1000000000000000' "$A" compare "$TMP/huge.json"
sub '"total":\{"wall_ns":\d+' '"total":{"wall_ns":1.5' "$TMP/r.json" "$TMP/frac.json"
bad "wall_ns not an integer" 'wall_ns missing or not a positive integer' "$A" compare "$TMP/frac.json"
sub '"reps":\[\{"phases"' '"reps":[{"checksum":"00000000000000bb","phases"' "$TMP/r.json" "$TMP/repsum.json"
bad "a rep's checksum differs from the record's" "reps\[0\].checksum '00000000000000bb' differs from record.checksum 00000000000000aa" "$A" compare "$TMP/repsum.json"
sub '"warmup":false' '"warmup":"no"' "$TMP/r.json" "$TMP/wu.json"
bad "warmup not a boolean" 'rounds\[1\].warmup: not true or false' "$A" compare "$TMP/wu.json"
sub '"status":"complete"' '"status":"bogus"' "$TMP/r.json" "$TMP/st.json"
bad "unknown bench status" "status 'bogus' is not a bench status" "$A" compare "$TMP/st.json"
printf '%s xyz\n' "$(cat "$TMP/r.json")" >"$TMP/trail.json"
bad "results: trailing garbage" 'trail.json: not JSON \(parse error at byte' "$A" compare "$TMP/trail.json"
bad "a hex float for a percentage" "--min-speedup: '0x1p-3' is not a percentage" "$A" gate "$TMP/r.json" --candidate mimalloc --min-speedup 0x1p-3
bad "--baseline twice" '--baseline is given twice' "$A" compare "$TMP/r.json" --baseline system --baseline mimalloc
bad "--candidate twice" '--candidate is given twice' "$A" compare "$TMP/r.json" --candidate mimalloc --candidate system

cal() { # cal FILE [TAIL] [ALPHA POWER] [ENTRY...]: a calibration file
	local f=$1 tail=${2-} power=${3-0.8}
	shift 3 2>/dev/null || shift $#
	local e=${*:-'{"workload":"parquet_load","phase":"total","rounds":10,"sd":0.01}'}
	printf '{"schema":"allocab-calibration/1","backend":"system","config":{"scale":"small","alpha":0.05,"power":%s},"machine":{"id":"aaaa000000000001"},"workloads":[%s]}%s\n' \
		"$power" "$(echo "$e" | tr ' ' ',')" "$tail" >"$f"
}
cal "$TMP/c-ok.json"
expect_status "a good calibration applies" 0 "$A" compare "$TMP/r.json" --calibration "$TMP/c-ok.json"
cal "$TMP/c-trail.json" ' garbage'
bad "calibration: trailing garbage" 'c-trail.json: not JSON \(parse error at byte' "$A" compare "$TMP/r.json" --calibration "$TMP/c-trail.json"
cal "$TMP/c-inf.json" '' 0.8 '{"workload":"parquet_load","phase":"total","rounds":10,"sd":1e999}'
bad "calibration: infinite sd" 'c-inf.json: not JSON \(a number out of range at byte [0-9]+\)' "$A" compare "$TMP/r.json" --calibration "$TMP/c-inf.json"
cal "$TMP/c-pow.json" '' 1e-320
bad "calibration: power 1e-320" 'config.power missing or not a number in \[0.01, 1\)' "$A" compare "$TMP/r.json" --calibration "$TMP/c-pow.json"
cal "$TMP/c-dup.json" '' 0.8 '{"workload":"parquet_load","phase":"total","rounds":10,"sd":0.01}' '{"workload":"parquet_load","phase":"total","rounds":12,"sd":0.02}'
bad "calibration: a workload twice" 'workloads: parquet_load, phase total, calibrated twice' "$A" compare "$TMP/r.json" --calibration "$TMP/c-dup.json"
cal "$TMP/c-rounds.json" '' 0.8 '{"workload":"parquet_load","phase":"total","rounds":1e300,"sd":0.01}'
bad "calibration: rounds 1e300" 'workloads\[0\]: want workload, phase and rounds' "$A" compare "$TMP/r.json" --calibration "$TMP/c-rounds.json"
mkpairs "$TMP/aa.json" arms=A,B names=system,system pairs="100:101 102:100 100:100 103:101"
sub '"scale":"small"\}' '"scale":5}' "$TMP/aa.json" "$TMP/aa-scale.json"
bad "calibrate --from: config.scale not a string" 'config.scale is not a preset name' "$A" calibrate --from "$TMP/aa-scale.json" -o "$TMP/cal-bad.json"
[ ! -e "$TMP/cal-bad.json" ] && ok "nothing written that compare would refuse" || notok "nothing written" "$(cat "$TMP/cal-bad.json")"
expect_status "calibrate --from a good A/A file" 0 "$A" calibrate --from "$TMP/aa.json" -o "$TMP/cal-good.json"
expect_status "compare reads what calibrate wrote" 0 "$A" compare "$TMP/aa.json" --baseline A --calibration "$TMP/cal-good.json"

# 6. Messages that say what is wrong.
head -c 3000 /dev/urandom >"$TMP/random.json"
bad "random bytes" 'random.json: not JSON \(binary data: byte 0x[0-9a-f]{2} at offset [0-9]+\)' "$A" compare "$TMP/random.json"
printf '{"a":1}\0{"b":2}' >"$TMP/nul.json"
bad "a NUL byte" 'not JSON \(binary data: byte 0x00 at offset 7\)' "$A" compare "$TMP/nul.json"
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%s{\"phases\":{\"total\":{\"wall_ns\":5}}}", (i ? "," : "") }' >"$TMP/reps"
RF=$TMP/reps perl -pe 'BEGIN { open F, "<", $ENV{RF}; $r = <F> } s/"reps":\[[^\]]*\]/"reps":[$r]/' "$TMP/r.json" >"$TMP/reps.json"
bad "5000 reps" 'record.reps holds 5000 reps, more than the 4096 a record may hold' "$A" compare "$TMP/reps.json"
sub '"index":1,' '"index":-1,' "$TMP/r.json" "$TMP/neg.json"
bad "index -1" 'rounds\[1\]: index must be >= 0' "$A" compare "$TMP/neg.json"
mkpairs "$TMP/vers.json" arms=A,B names=system,system vers=2.36,2.37 pairs="100:101 102:100 100:100"
bad "differing allocator versions" 'ran different allocators \(system 2.36, system 2.37\)' "$A" calibrate --from "$TMP/vers.json" -o "$TMP/cal-v.json"
bad "calibrate -o ''" '--output: empty value' "$A" calibrate --from "$TMP/aa.json" -o ''

# 10. The streamed reader (src/common/jsonstream.h): the same document compact, indented (windows
#     of the file fall elsewhere), with config and machine after the rounds, gives the same
#     comparison; a second "rounds" is refused, as any name twice in one object is.
mkbench "$TMP/long.json" arms=system=1,mimalloc=0.9/0.05 wls=parquet_load,pipeline rounds=1500 warmup=2 reps=4
mkdir -p "$TMP/compact" "$TMP/indented" "$TMP/reordered"
cp "$TMP/long.json" "$TMP/compact/r.json"
python3 -c 'import json, benchfile, sys; json.dump(benchfile.load(sys.argv[1]), open(sys.argv[2], "w"), indent=1)' \
	"$TMP/long.json" "$TMP/indented/r.json"
python3 -c 'import json, benchfile, sys
d = benchfile.load(sys.argv[1])
json.dump({"rounds": d.pop("rounds"), **d}, open(sys.argv[2], "w"), separators=(",", ":"))' \
	"$TMP/long.json" "$TMP/reordered/r.json"
for v in compact indented reordered; do
	(cd "$TMP/$v" && "$OLDPWD/$A" compare r.json --format json >out.json 2>err.txt; echo $? >rc)
done
size=$(stat -c %s "$TMP/indented/r.json")
[ "$size" -gt 2097152 ] && ok "the indented file spans more than two read windows ($size bytes)" ||
	notok "the indented file spans more than two read windows" "$size bytes"
[ "$(cat "$TMP/compact/rc")" = 0 ] && cmp -s "$TMP/compact/out.json" "$TMP/indented/out.json" &&
	ok "compact and indented: the same comparison" ||
	notok "compact and indented: the same comparison" "$(diff "$TMP/compact/out.json" "$TMP/indented/out.json" | head -5)"
cmp -s "$TMP/compact/out.json" "$TMP/reordered/out.json" && ok "config and machine after the rounds: the same comparison" ||
	notok "config and machine after the rounds: the same comparison" "$(head -c 300 "$TMP/reordered/err.txt")"
onedoc "$TMP/r.json" "$TMP/r1.json"
perl -pe 's/\}$/,"rounds":[]}/' "$TMP/r1.json" >"$TMP/tworounds.json"
bad "a second rounds member" "not JSON \\(member 'rounds' appears twice in one object\\)" "$A" compare "$TMP/tworounds.json"

# 9. Ties decided on integer times: 110/100 and 100/110 are exact negatives, so the nine |d| tie
#    and the tie-corrected test applies (p 0.023; the exact test on rounding noise said 0.095).
mkpairs "$TMP/tie.json" pairs="100:110 110:100 220:200 330:300 440:400 550:500 660:600 770:700 880:800"
expect_status "compare the tie file" 0 "$A" compare "$TMP/tie.json" --format json
p=$("$J" "$TMP/out" comparisons.0.p)
awk -v p="$p" 'BEGIN { exit !(p > 0.0230 && p < 0.0240) }' && ok "tied ratios: tie-corrected p ($p)" || notok "tied ratios: tie-corrected p" "p $p, want 0.0234"
mkpairs "$TMP/const.json" wls=parquet_load,batch_prep pairs="1000:1100 1230:1353 4560:5016 7000:7700 1110:1221 990:1089 3000:3300 2020:2222"
expect_status "compare constant ratios" 0 "$A" compare "$TMP/const.json" --format json
[ "$("$J" "$TMP/out" comparisons.2.workload)" = geomean ] && [ "$("$J" "$TMP/out" comparisons.2.sd_log_ratio)" = 0 ] &&
	[ "$("$J" "$TMP/out" comparisons.2.drift.rho)" = 0 ] && ok "geomean of constant ratios: sd 0, no drift" ||
	notok "geomean of constant ratios: sd 0, no drift" "$("$J" "$TMP/out" comparisons.2)"
exit $t_fail
