#!/usr/bin/env bash
# e2e_record_life.sh - what `allocab record` does around the recording: it never replaces a device
# or FIFO it writes to, passes signals on (a terminal's Ctrl-C reaches the command, which reads
# record's stdin and gets the environment record gives it and nothing else) and cleans up on every
# way out (even SIGKILL, at the next record), waits for and reports what the command leaves
# running, flushes every process image before exec and _exit, keeps a static program's exit
# status, and says with numbers what a full TMPDIR cost; `trace info` shows the busiest process
# first and each stream's end, and the replay refuses an incomplete process unless told (tests/fixtures/hostile/README.md lists the inputs).
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
JGET=$BUILD/tests/jget
A=$BUILD/allocab
S=$BUILD/allocab-system
H=tests/fixtures/hostile
export TMPDIR=$TMP/tmp
mkdir -p "$TMPDIR"
gcc -O2 -o "$TMP/churn" $H/churn.c || notok "churn.c builds" "gcc failed"
gcc -O0 -fno-builtin -o "$TMP/execloop" $H/execloop.c || notok "execloop.c builds" "gcc failed"
left() { find "$TMPDIR" -maxdepth 1 -name 'allocab-record.*' | wc -l; }
j() { "$JGET" "$1" "$2"; }

# --- output onto a device node or a FIFO: written in place, never replaced ----------------------
if mknod "$TMP/mynull" c 1 3 2>/dev/null && mknod "$TMP/myfull" c 1 7 2>/dev/null; then
	expect_status "record -o a null device node: exit 0" 0 "$A" record -o "$TMP/mynull" -- "$TMP/churn" 1000
	[ -c "$TMP/mynull" ] && ok "the null device node is still a device" || notok "null device node" "$(ls -l "$TMP/mynull")"
	expect_status "record -o a full device node: exit 1" 1 "$A" record -o "$TMP/myfull" -- "$TMP/churn" 1000
	expect_err "record -o a full device node: one line" "^allocab: record: .*myfull: No space left on device$"
	[ -c "$TMP/myfull" ] && ok "the full device node is still a device" || notok "full device node" "$(ls -l "$TMP/myfull")"
else
	skip "device nodes" "mknod is not permitted here"
fi
mkfifo "$TMP/out.fifo"
cat "$TMP/out.fifo" >"$TMP/fifo.trace" &
expect_status "record -o a FIFO with a reader: exit 0" 0 timeout 20 "$A" record -o "$TMP/out.fifo" -- "$TMP/churn" 1000
wait
[ -p "$TMP/out.fifo" ] && ok "the FIFO is still a FIFO" || notok "FIFO" "$(ls -l "$TMP/out.fifo")"
expect_status "what went through the FIFO is a whole trace" 0 "$A" trace info "$TMP/fifo.trace"

# --- exec without fork: every image flushed before its exec, the chain is no loss -----------------
expect_status "record execloop 50 keeps its exit status (5)" 5 "$A" record -o "$TMP/e.trace" -- "$TMP/execloop" 50
if [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q '51 process images (50 ended in an exec)' "$TMP/err"; then ok "execloop: 51 images, 50 exec'd, and no warning"; else notok "execloop report" "$(cat "$TMP/err")"; fi
"$A" trace info --json "$TMP/e.trace" >"$TMP/e.json"
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for p in d["process"] if p["ops"]["malloc"] >= 1), sum(1 for p in d["process"] if p["complete"]), sum(1 for p in d["process"] if p["recorder"]["how"] == "exec"))' "$TMP/e.json")
[ "$n" = "51 51 50" ] && ok "execloop: every image's malloc is in the trace, all complete, 50 ended in an exec" || notok "execloop trace" "$n"
expect_status "trace info of 51 processes" 0 "$A" trace info "$TMP/e.trace"
if sed -n 2p "$TMP/out" | grep -q 'ended: exit' && grep -q '^\.\.\. and 46 more processes with 46 events' "$TMP/out" && [ "$(grep -c '^process ' "$TMP/out")" = 5 ]; then ok "trace info: the busiest process first, 5 shown, the rest in one line"; else notok "trace info order" "$(head -c 400 "$TMP/out")"; fi
expect_status "trace info --all" 0 "$A" trace info --all "$TMP/e.trace"
[ "$(grep -c '^process ' "$TMP/out")" = 51 ] && ok "trace info --all shows all 51" || notok "trace info --all" "$(grep -c '^process ' "$TMP/out")"

# --- _exit: flushed too -----------------------------------------------------------------------------
expect_status "record of python3 os._exit(3): exit 3" 3 "$A" record -o "$TMP/x.trace" -- python3 -c 'import os; x = [str(i) for i in range(1000)]; os._exit(3)'
"$A" trace info --json "$TMP/x.trace" >"$TMP/x.json"
n=$(python3 -c 'import json,sys; p=[p for p in json.load(open(sys.argv[1]))["process"] if "_exit(3)" in p["args"]][-1]; print(p["recorder"]["how"], p["complete"], p["ops"]["malloc"] > 1000)' "$TMP/x.json")
[ "$n" = "_exit True True" ] && ok "a process that called _exit is complete, its mallocs in the trace" || notok "_exit" "$n"

# --- background processes: waited for, or reported ------------------------------------------------
expect_status "record of a command that leaves a subshell running for 1 s" 0 "$A" record -o "$TMP/bg.trace" -- sh -c '(sleep 1; /bin/true) &'
np=$("$A" trace info --json "$TMP/bg.trace" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["processes"], sum(p["complete"] for p in d["process"]))')
[ "$np" = "4 4" ] && ok "all 4 processes waited for and complete (sh, subshell, sleep, true)" || notok "background processes" "$np"
[ "$(left)" = 0 ] && ok "no stream directory left" || notok "stream directory left" "$(ls "$TMPDIR")"
expect_status "record --wait 1 of a command that leaves sleep 3 running" 0 "$A" record --wait 1 -o "$TMP/bg2.trace" -- sh -c 'sleep 3 &'
grep -q 'warning: 1 process COMMAND left in the background still runs after 1 s (pid [0-9]* sleep): its stream is cut here' "$TMP/err" && ok "what still runs is named" || notok "background report" "$(cat "$TMP/err")"
"$A" trace info --json "$TMP/bg2.trace" | grep -q '"how":	"running"' && ok "its stream is marked running in the trace" || notok "running stream" "not marked"
expect_status "record --wait 3601: exit 2" 2 "$A" record --wait 3601 -- true

# --- signals: passed on to the command; clean-up on every way out -----------------------------------
"$A" record -o "$TMP/term.trace" -- "$TMP/churn" >/dev/null 2>"$TMP/err" &
rp=$!
sleep 1
kill -TERM $rp
wait $rp
rc=$?
[ $rc = 143 ] && ok "SIGTERM to record: the command gets it, record exits 143" || notok "SIGTERM to record" "exit $rc: $(cat "$TMP/err")"
sleep 0.2
pgrep -f "^$TMP/churn\$" >/dev/null && notok "SIGTERM to record" "churn still runs" || ok "SIGTERM to record: no churn left running"
[ "$(left)" = 0 ] && ok "SIGTERM to record: no stream directory left" || notok "SIGTERM: stream directory left" "$(ls "$TMPDIR")"
"$A" trace info --json "$TMP/term.trace" >"$TMP/term.json" 2>/dev/null
[ "$(j "$TMP/term.json" process.0.recorder.how):$(j "$TMP/term.json" process.0.complete)" = "killed:false" ] && ok "the killed command is in the trace as killed, incomplete" || notok "killed command" "$(head -c 300 "$TMP/term.json")"
expect_status "replay of the killed process: exit 2" 2 "$S" run replay --param trace="$TMP/term.trace" --reps 1 --out /dev/null
expect_err "replay of the killed process: says why and how to allow it" "is incomplete: killed or crashed: .*; replay it anyway with --param incomplete=allow$"
expect_status "replay of the killed process with incomplete=allow" 0 timeout 120 "$S" run replay --param trace="$TMP/term.trace" --param incomplete=allow --param touch=0 --reps 1 --out /dev/null
expect_status "replay incomplete=maybe: exit 2" 2 "$S" run replay --param trace="$TMP/term.trace" --param incomplete=maybe --out /dev/null
# Ctrl-C on a terminal reaches COMMAND, which shares record's process group; record outlives it.
python3 - "$A" "$TMP/int.trace" >"$TMP/pty.out" 2>&1 <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "record", "-o", sys.argv[2], "--", "sh", "-c",
                           "trap 'echo got INT; exit 7' INT; echo ready; while :; do sleep 0.1; done"])
out, end = b"", time.time() + 60
while time.time() < end and b"ready" not in out:
    if select.select([fd], [], [], 0.5)[0]:
        out += os.read(fd, 4096)
os.write(fd, b"\x03")
while time.time() < end:
    if select.select([fd], [], [], 0.5)[0]:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
print(out.decode(errors="replace"))
print("status", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PY
if grep -q 'got INT' "$TMP/pty.out" && grep -q '^status 7$' "$TMP/pty.out" && grep -q 'process image' "$TMP/pty.out"; then ok "Ctrl-C on a terminal: the command gets SIGINT, record writes the trace and exits 7"; else notok "Ctrl-C on a terminal" "$(tr '\r' ' ' <"$TMP/pty.out" | head -c 400)"; fi
[ "$(left)" = 0 ] && ok "Ctrl-C: no stream directory left" || notok "Ctrl-C: stream directory left" "$(ls "$TMPDIR")"
echo hello | "$A" record -o "$TMP/cat.trace" -- cat >"$TMP/cat.out" 2>"$TMP/err"
[ "$(cat "$TMP/cat.out")" = hello ] && ok "the command reads record's stdin and writes its stdout" || notok "stdin and stdout" "$(cat "$TMP/cat.out" "$TMP/err")"
env -i PATH="$PATH" TMPDIR="$TMPDIR" LD_PRELOAD=libm.so.6 AB_AFTER=1 "$A" record -o "$TMP/env.trace" -- env >"$TMP/env.out" 2>"$TMP/err"
if [ "$(sed 's/=.*//' "$TMP/env.out" | tr '\n' ' ')" = "PATH TMPDIR LD_PRELOAD AB_AFTER ALLOCAB_RECORD_DIR ALLOCAB_PHASE_FILE " ] && grep -q '^LD_PRELOAD=.*liballocab-record.so:libm.so.6$' "$TMP/env.out"; then ok "the command's environment: the recorder before the user's LD_PRELOAD, in its place, nothing else added"; else notok "the command's environment" "$(cat "$TMP/env.out")"; fi
(
	"$A" record -o "$TMP/kill.trace" -- "$TMP/churn" >/dev/null 2>&1 &
	rp=$!
	sleep 1
	kill -KILL $rp
	wait $rp
) 2>/dev/null
sleep 0.3
pgrep -f "^$TMP/churn\$" >/dev/null && notok "SIGKILL to record" "churn still runs" || ok "SIGKILL to record: the command got SIGTERM from the kernel (no churn left)"
[ "$(left)" = 1 ] && ok "SIGKILL to record leaves its stream directory" || notok "SIGKILL: stream directory" "$(ls "$TMPDIR")"
touch -d '2 minutes ago' "$TMPDIR"/allocab-record.*
expect_status "the next record" 0 "$A" record -o "$TMP/t.trace" -- "$TMP/churn" 10
[ "$(left)" = 0 ] && ok "the next record removed the dead recorder's stream directory" || notok "stale directory" "$(ls "$TMPDIR")"

# --- a full TMPDIR: losses said with numbers, exit 1 ---------------------------------------------
full_tmpdir() {
	expect_status "$1: exit 1" 1 "$A" record -o "$TMP/full.trace" -- "$TMP/churn" 300000
	grep -Eq 'warning: 1 process lost events: its stream could not be written \(No space left on device\): [0-9]+ of 600003 events dropped' "$TMP/err" && ok "$1: the loss with its numbers" || notok "$1: message" "$(cat "$TMP/err")"
	"$A" trace info --json "$TMP/full.trace" >"$TMP/full.json"
	d=$(j "$TMP/full.json" process.0.recorder.dropped_events)
	[ "${d:-0}" -gt 0 ] && [ "$(j "$TMP/full.json" process.0.complete)" = false ] && ok "$1: trace info counts $d dropped events" || notok "$1: trace info" "$(head -c 300 "$TMP/full.json")"
}
ALLOCAB_RECORD_FAULT_BLOCKS=5 full_tmpdir "ALLOCAB_RECORD_FAULT_BLOCKS=5 (writes fail with ENOSPC)"
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
	TMPDIR=$TMP/small full_tmpdir "a 64 KiB tmpfs as TMPDIR"
	umount "$TMP/small"
else
	skip "a 64 KiB tmpfs as TMPDIR" "mount is not permitted here"
fi

# --- a static program: not recordable, its exit status kept ----------------------------------------
if printf '#include <stdlib.h>\nint main(void) { free(malloc(10)); return 4; }\n' >"$TMP/st.c" && gcc -static -o "$TMP/st4" "$TMP/st.c" 2>/dev/null; then
	expect_status "record of a static program exiting 4 exits 4" 4 "$A" record -o "$TMP/st.trace" -- "$TMP/st4"
	expect_err "record of a static program: says no trace was written" "static or setuid program.*exited 4\): no trace written$"
	[ ! -e "$TMP/st.trace" ] && ok "no trace file" || notok "static program" "a trace was written"
else
	skip "static program" "gcc -static is not available"
fi
exit $t_fail
