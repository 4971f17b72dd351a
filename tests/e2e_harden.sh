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
