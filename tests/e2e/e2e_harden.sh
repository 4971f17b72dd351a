# e2e_harden.sh - what a program leaves behind or names cannot hang, slow down or blind the bench
# (docs/programs.md, "Limits"), and every message about a value from outside stays one line
# without terminal control sequences (README.md, "Exit status"). Inputs: tests/fixtures/harden/.
. tests/e2e/lib.sh

A=$PWD/$BUILD/allocab
J=$PWD/$BUILD/tests/jget
H=$PWD/tests/fixtures/harden

if ! gcc -O1 -o "$TMP/ev" "$H/ev.c" 2>"$TMP/cc"; then
	notok "build tests/fixtures/harden/ev.c" "$(head -c 300 "$TMP/cc")"
	exit 1
fi

# (hostile-3 reproducer exe-replaced-by-fifo)
# 1. An executable path that is a FIFO by judging time: the judge does not open it.
(
	cd "$TMP" || exit 1
	timeout -s KILL 60 "$A" bench --program 'rm -f ./tmpbin; cp ./ev ./tmpbin && ./tmpbin 1000 && rm -f ./tmpbin && mkfifo ./tmpbin' \
		-a system,mimalloc --rounds 1 --warmup 0 --timeout 10 -o fifo.json >/dev/null 2>fifo.err
	echo $? >fifo.rc
	rm -f tmpbin
)
if [ "$(cat "$TMP/fifo.rc")" = 0 ]; then ok "exe replaced by a FIFO: the bench ends (rc 0)"; else notok "exe replaced by a FIFO: the bench ends (rc 0)" "rc $(cat "$TMP/fifo.rc"): $(tail -c 300 "$TMP/fifo.err")"; fi
jeq "exe replaced by a FIFO: the run is verified" "$TMP/fifo.json" rounds.0.runs.1.probe.verified true

# (hostile-3 reproducer elf-section-bomb)
# 2. 100 symbol tables of 64 MiB each (a sparse file): refused from the section headers, without
#    reading them, and the run says why it is unverified.
(cd "$TMP" && python3 "$H/mkelf.py" 100 ev100 2>mkelf.err)
(
	cd "$TMP" || exit 1
	timeout -s KILL 60 "$A" bench --program './ev100 1000' -a system,mimalloc --rounds 1 --warmup 0 -o bomb.json >/dev/null 2>bomb.err
	echo $? >bomb.rc
)
if [ "$(cat "$TMP/bomb.rc")" = 1 ]; then ok "section bomb: the bench ends, nothing verified (rc 1)"; else notok "section bomb: the bench ends, nothing verified (rc 1)" "rc $(cat "$TMP/bomb.rc"): $(tail -c 300 "$TMP/bomb.err")"; fi
jeq "section bomb: the reason names the limit" "$TMP/bomb.json" rounds.0.runs.0.probe.reason \
	"cannot tell whether $TMP/ev100 links its own allocator: symbols not scanned: over 256 MiB of symbol tables"
jeq "section bomb: the run is unverified" "$TMP/bomb.json" rounds.0.runs.0.probe.verified false
(cd "$TMP" && python3 "$H/mkelf.py" 5 ev5 && python3 - ev5 <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<Q', b, 0x28)[0]
for i in range(5):  # five small symbol tables: over the count of tables, not the bytes
    struct.pack_into('<QQ', b, off + i * 64 + 24, 0, 64)
open(sys.argv[1], 'wb').write(b)
PY
)
(cd "$TMP" && timeout -s KILL 60 "$A" bench --program './ev5 1000' -a system,mimalloc --rounds 1 --warmup 0 -o five.json >/dev/null 2>&1)
jeq "five symbol tables: over the count" "$TMP/five.json" rounds.0.runs.0.probe.reason \
	"cannot tell whether $TMP/ev5 links its own allocator: symbols not scanned: more than 4 symbol tables"
(cd "$TMP" && timeout -s KILL 60 "$A" bench --program './ev 1000' -a system,mimalloc --rounds 1 --warmup 0 -o plain.json >/dev/null 2>&1)
jeq "a plain executable is scanned and verified" "$TMP/plain.json" rounds.0.runs.0.probe.verified true

# 3. What the recorded command puts in record's stream directory is removed with it, links not
#    followed: the files they name survive.
mkdir -p "$TMP/rt" "$TMP/keep"
echo precious >"$TMP/keep/file"
(
	cd "$TMP" || exit 1
	TMPDIR=$TMP/rt timeout -s KILL 60 "$A" record -o left.trace -- sh -c '
		d=$ALLOCAB_RECORD_DIR
		head -c 2000000 /dev/zero >"$d/s.99998.0.raw"; mkfifo "$d/fifo"; ln -s /dev/zero "$d/zero"
		ln -s "$1" "$d/up"; mkdir -p "$d/sub/deeper"; echo x >"$d/sub/deeper/f"; ln -s "$1/file" "$d/sub/l"
		mknod "$d/null" c 1 3 2>/dev/null || mkfifo "$d/null"
		echo "$d" >recdir' sh "$TMP/keep" >/dev/null 2>left.err
	echo $? >left.rc
)
if [ "$(cat "$TMP/left.rc")" = 0 ]; then ok "record with foreign files: rc 0"; else notok "record with foreign files: rc 0" "rc $(cat "$TMP/left.rc"): $(head -c 300 "$TMP/left.err")"; fi
if [ -n "$(cat "$TMP/recdir")" ] && [ ! -e "$(cat "$TMP/recdir")" ] && [ -z "$(ls -A "$TMP/rt")" ]; then ok "record with foreign files: the stream directory is gone"; else notok "record with foreign files: the stream directory is gone" "$(ls -lAR "$TMP/rt" | head -c 300)"; fi
if [ "$(cat "$TMP/keep/file" 2>/dev/null)" = precious ]; then ok "record with foreign files: what the links name is kept"; else notok "record with foreign files: what the links name is kept" "$(ls -la "$TMP/keep")"; fi
if [ "$(grep -c . "$TMP/left.err")" -ge 1 ] && grep -q "^allocab: record: warning: removed what the command left in $TMP/rt/allocab-record\.[0-9]*\.[A-Za-z0-9]*: 2 files (2\.0 MB), 2 directories, 3 symbolic links, 2 FIFOs, sockets or devices$" "$TMP/left.err" &&
	[ "$(grep -c 'removed what' "$TMP/left.err")" = 1 ]; then ok "record with foreign files: one warning says what was removed"; else notok "record with foreign files: one warning says what was removed" "$(head -c 400 "$TMP/left.err")"; fi

# (hostile-3 reproducer ctrl-chars-in-errors)
# 5. A refused value is shown with \xNN for its control characters: one line, no ESC.
esc=$(printf '\033')
# oneline NAME PATTERN: the last stderr is one line matching PATTERN (a fixed string) without ESC.
oneline() {
	if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF -- "$2" "$TMP/err" && ! grep -q "$esc" "$TMP/err"; then ok "$1"; else notok "$1" "$(head -c 300 "$TMP/err" | od -c | head -5)"; fi
}
expect_status "--label with a newline and ESC[31m: exit 2" 2 "$A" bench --program true --label "$(printf 'a\nb\033[31mc')"
oneline "--label: shown escaped" "--label 'a\x0ab\x1b[31mc': want 1 to"
expect_status "SLURMD_NODENAME with an OSC: exit 2" 2 env -u ALLOCAB_LABEL SLURMD_NODENAME="$(printf 'n\033]0;pwned\007')" "$A" bench --program true
oneline "SLURMD_NODENAME: shown escaped" "SLURMD_NODENAME='n\x1b]0;pwned\x07': a label is"
expect_status "ALLOCAB_LABEL with a newline: exit 2" 2 env ALLOCAB_LABEL="$(printf 'n\nx')" "$A" bench --program true
oneline "ALLOCAB_LABEL: shown escaped" "ALLOCAB_LABEL='n\x0ax': a label is"
expect_status "--rounds with ESC: exit 2" 2 "$A" bench --program true --rounds "$(printf '1\033[2J')"
oneline "--rounds: shown escaped" "--rounds: '1\x1b[2J' is not a whole number"
expect_status "an unknown command with ESC: exit 2" 2 "$A" "$(printf 'x\033[2J')"
oneline "unknown command: shown escaped" "unknown command 'x\x1b[2J'"
expect_status "compare of a missing file named with a newline: exit 2" 2 "$A" compare "$(printf '%s/x\ny.json' "$TMP")"
oneline "compare: the file name shown escaped" "x\x0ay.json: No such file"
if gcc -O1 -o "$TMP/rawname" "$H/rawname.c" 2>"$TMP/cc"; then
	(
		cd "$TMP" || exit 1
		cp /usr/bin/sort "$(printf 'evil\nso\033[31mrt')" && seq 2000 >nums.txt
		"$A" bench --program ./rawname -a system,mimalloc --rounds 1 --warmup 0 -o raw.json >/dev/null 2>raw.err
		echo $? >raw.rc
	)
	grep 'no verified successful run' "$TMP/raw.err" >"$TMP/err.lines"
	if [ "$(cat "$TMP/raw.rc")" = 1 ] && [ "$(wc -l <"$TMP/err.lines")" -eq 2 ] && ! grep -q "$esc" "$TMP/raw.err" &&
		[ "$(grep -cF "/evil\x0aso\x1b[31mrt (pid " "$TMP/err.lines")" = 2 ]; then ok "an exe path with a newline and ESC: one line per arm, escaped"; else notok "an exe path with a newline and ESC: one line per arm, escaped" "rc $(cat "$TMP/raw.rc"): $(od -c "$TMP/raw.err" | tail -8)"; fi
	expect_status "gate on those runs: FAIL (exit 1)" 1 "$A" gate "$TMP/raw.json" --candidate mimalloc --max-slowdown 5%
	if ! grep -q "$esc" "$TMP/out" "$TMP/err" && [ "$(grep -c 'no verified rounds' "$TMP/out")" = 1 ] &&
		grep -qF '/evil\x0aso\x1b[31mrt (pid' "$TMP/out"; then ok "gate: the reason shown escaped, one line"; else notok "gate: the reason shown escaped, one line" "$(od -c "$TMP/out" | head)"; fi
else
	notok "build tests/fixtures/harden/rawname.c" "$(head -c 300 "$TMP/cc")"
fi

# (hostile-3 reproducer csv-formula)
# 6. CSV: a text cell that a spreadsheet would evaluate gets a single quote; numbers stay numbers.
"$A" compare "$H/csv_formula.json" --format csv >"$TMP/inj.csv" 2>/dev/null
python3 - "$TMP/inj.csv" >"$TMP/csv.check" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
r = rows[0]
assert r['candidate'].startswith("'=HYPERLINK("), r['candidate']
assert float(r['improvement_pct']) < 0, r['improvement_pct']
raw = open(sys.argv[1]).read()
assert ',-28.' in raw and ',"\'=HYPERLINK(' in raw, raw[:600]
for row in rows:
    for k, v in row.items():
        assert not (v and v[0] in '=+@\t\r'), (k, v)
        assert not (v.startswith('-') and k in ('workload', 'phase', 'candidate', 'baseline', 'note')), (k, v)
print('fine')
PY
if [ "$(cat "$TMP/csv.check")" = fine ]; then ok "csv: the formula cell is quoted with a single quote, negative numbers kept"; else notok "csv: the formula cell is quoted with a single quote, negative numbers kept" "$(head -c 400 "$TMP/csv.check")"; fi
sed 's/"system"/"@system"/g; s/<svg onload=alert(2)>/-1+2/g' "$H/csv_formula.json" >"$TMP/inj2.json"
"$A" compare "$TMP/inj2.json" --format csv 2>/dev/null | sed -n 2p >"$TMP/inj2.csv"
if grep -qF "\"'-1+2\",total,cold,\"'=HYPERLINK(" "$TMP/inj2.csv" && grep -qF ",\"'@system\",3," "$TMP/inj2.csv"; then ok "csv: cells starting with - and @ are quoted too"; else notok "csv: cells starting with - and @ are quoted too" "$(head -c 400 "$TMP/inj2.csv")"; fi

# 7. Messages that say what is wrong.
expect_status "ALLOCAB_MAX_INPUT=2^64-1: exit 2" 2 env ALLOCAB_MAX_INPUT=18446744073709551615 "$A" compare "$H/csv_formula.json"
oneline "ALLOCAB_MAX_INPUT too large: says at most" "ALLOCAB_MAX_INPUT '18446744073709551615': want a byte count of at most 9223372036854775807"
expect_status "ALLOCAB_MAX_INPUT=12: exit 2" 2 env ALLOCAB_MAX_INPUT=12 "$A" compare "$H/csv_formula.json"
oneline "ALLOCAB_MAX_INPUT too small: says at least" "want a byte count of at least 1k"
mkdir -p "$TMP/lk"
ln -s "$TMP/lk/elsewhere" "$TMP/lk/.allocab-bench.$(cat /proc/sys/kernel/random/boot_id).lock"
expect_status "a symlink at the lock path: exit 1" 1 "$A" bench --program true -a system,mimalloc --rounds 1 --warmup 0 -o "$TMP/lk/out.json"
if grep -qF "cannot lock $TMP/lk/.allocab-bench." "$TMP/err" && grep -qF "it is a symbolic link, and a link is refused as the lock" "$TMP/err" && [ ! -e "$TMP/lk/elsewhere" ]; then ok "a symlink at the lock path: named as such, its target not created"; else notok "a symlink at the lock path: named as such, its target not created" "$(head -c 300 "$TMP/err")"; fi

# 8. The gate's "not FAIL" with an equivalence margin says that only one end of the interval lies
#    within it (fixed data: 1.8% slower, t_cand/t_base [1.017, 1.021] against a margin of 1.020).
mkbench "$TMP/eq.json" arms=system=1,mimalloc=1.018/0.01 rounds=20 warmup=1 wls=parquet_load
expect_status "gate straddling the equivalence margin: INCONCLUSIVE (exit 3)" 3 "$A" gate "$TMP/eq.json" --candidate mimalloc --max-slowdown 0% --equivalence 2%
if grep -qF "(t_cand/t_base 1.018 [1.017, 1.021] vs 1.000), n 20; not FAIL: only the interval's lower end (t_cand/t_base 1.017) lies within the ±2% equivalence margin, its upper end (1.021) beyond: FAIL needs all of it beyond 1.020" "$TMP/out" &&
	! grep -q "not FAIL: within the" "$TMP/out"; then ok "gate: not FAIL names the end within the margin"; else notok "gate: not FAIL names the end within the margin" "$(head -c 500 "$TMP/out")"; fi
mkbench "$TMP/eq2.json" arms=system=1,mimalloc=1.015/0.01 rounds=20 warmup=1 wls=parquet_load
expect_status "gate wholly within the equivalence margin: PASS" 0 "$A" gate "$TMP/eq2.json" --candidate mimalloc --max-slowdown 0% --equivalence 2%

# 8. unsettled_* per phase: both runs of each arm have a marked 'epoch' that never settled and a
#    one-span 'setup' (settled null): only the epoch rows count them.
"$A" compare "$H/unsettled_phases.json" --format csv 2>/dev/null | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin): print(r["phase"], r["regime"], r["unsettled_baseline"], r["unsettled_candidate"])' >"$TMP/unsettled"
if [ "$(tr '\n' ';' <"$TMP/unsettled")" = "total cold 0 0;setup cold 0 0;epoch steady 2 2;epoch cold 2 2;" ]; then ok "unsettled counted per phase"; else notok "unsettled counted per phase" "$(tr '\n' ';' <"$TMP/unsettled")"; fi
"$A" compare "$H/unsettled_phases.json" >"$TMP/out" 2>&1
grep -q "b on fx: 2 of 2 runs never settled, more than noise explains (a repeated phase's steady spans still trend" "$TMP/out" &&
	ok "2 of 2 runs never settled: warned" || notok "2 of 2 runs never settled: warned" "$(cat "$TMP/out")"
#    The same runs ten times over, settled but for 2 of a's 10 and 5 of b's: noise explains 2 of
#    10 (binomial, 3% a run, 1% level), not 5.
python3 - "$H/unsettled_phases.json" "$TMP/ten.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
rounds = [copy.deepcopy(d["rounds"][i % 2]) for i in range(10)]
for i, r in enumerate(rounds):
    r["index"] = i
    for run in r["runs"]:
        bad = i < (2 if run["arm"] == "a" else 5)
        for ph in run["phase_marks"]["phases"]:
            if ph["settled"] is not None:
                ph["settled"] = not bad
d["rounds"], d["config"]["rounds"] = rounds, 10
json.dump(d, open(sys.argv[2], "w"))
PY
"$A" compare "$TMP/ten.json" >"$TMP/out" 2>&1
if grep -q "b on fx: 5 of 10 runs never settled" "$TMP/out" && ! grep -q "a on fx: .* never settled" "$TMP/out"; then
	ok "never settled: 5 of 10 warned, 2 of 10 (within noise) not"
else notok "never settled: 5 of 10 warned, 2 of 10 (within noise) not" "$(grep -i settled "$TMP/out")"; fi
#    Spans labelled by their place (8 epochs, the last 4 steady) are judged again on read: a's
#    flat but noisy epochs that say settled false count as settled, b's falling ones that say
#    true count as unsettled.
python3 - "$TMP/ten.json" "$TMP/rejudged.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
flat = [3000000, 1100000, 900000, 1050000, 950000, 1120000, 910000, 1040000]
falling = [3000000, 2000000, 1800000, 1600000, 1400000, 1250000, 1120000, 1000000]
for r in d["rounds"]:
    for run in r["runs"]:
        for ph in run["phase_marks"]["phases"]:
            if ph["name"] == "epoch":
                ph["wall_ns"] = flat if run["arm"] == "a" else falling
                ph["cpu_ns"] = None
                ph["regimes"] = ["cold"] + ["warmup"] * 3 + ["steady"] * 4
                ph["settled"] = run["arm"] == "b"
                ph["cold_ns"], ph["steady_ns"] = ph["wall_ns"][0], sum(ph["wall_ns"][4:]) // 4
json.dump(d, open(sys.argv[2], "w"))
PY
"$A" compare "$TMP/rejudged.json" --format csv 2>/dev/null | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["phase"] == "epoch" and r["regime"] == "steady": print(r["unsettled_baseline"], r["unsettled_candidate"])' >"$TMP/unsettled"
if [ "$(cat "$TMP/unsettled")" = "0 10" ]; then ok "settled judged again on read: flat epochs settled (0 of 10), falling ones not (10 of 10)"
else notok "settled judged again on read" "$(cat "$TMP/unsettled")"; fi

# 8. A cell that left the rounds as faster (adaptive allocation) cannot reach a 5% gate's margin:
#    the gate's INCONCLUSIVE line gets a note that says so.
mkbench "$TMP/l.json" arms=system=1,mimalloc=0.95/0.06 rounds=20 warmup=1 wls=parquet_load
python3 "$H/mkleft.py" "$TMP/l.json" "$TMP/left.json" 13 mimalloc
expect_status "gate on a cell that left: INCONCLUSIVE (exit 3)" 3 "$A" gate "$TMP/left.json" --candidate mimalloc --min-speedup 5%
if grep -q '^INCONCLUSIVE parquet_load/total cold mimalloc vs system: .*straddles 1.053x' "$TMP/out" &&
	grep -qF "note: parquet_load/total cold mimalloc: its cell left the rounds from measured round 13 (adaptive allocation decided it faster, slower or equivalent against 1x, not against this margin)" "$TMP/out"; then ok "gate: the note says the cell left and no round will come"; else notok "gate: the note says the cell left and no round will come" "$(head -c 600 "$TMP/out")"; fi
expect_status "the same file without left cells: no such note" 3 "$A" gate "$TMP/l.json" --candidate mimalloc --min-speedup 5%
if ! grep -q "left the rounds" "$TMP/out"; then ok "gate: no left note when no cell left"; else notok "gate: no left note when no cell left" "$(head -c 300 "$TMP/out")"; fi
