# e2e_harden.sh - what a program leaves behind or names cannot hang, slow down or blind the bench
# (docs/programs.md, "Limits"), and every message about a value from outside stays one line
# without terminal control sequences (README.md, "Exit status"). Inputs: tests/harden/.
. tests/lib.sh

A=$PWD/$BUILD/allocab
J=$PWD/$BUILD/tests/jget
H=$PWD/tests/harden

if ! gcc -O1 -o "$TMP/ev" "$H/ev.c" 2>"$TMP/cc"; then
	notok "build tests/harden/ev.c" "$(head -c 300 "$TMP/cc")"
	exit 1
fi

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
