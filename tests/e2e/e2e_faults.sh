# e2e_faults.sh - a bench whose disk fills mid-way leaves a file marked "aborted" (not "running",
# which means killed), one whose file system turns read-only says on stderr that its file was
# left "running", and the temporary file of a writer killed between write and rename is
# removed by the next write into that directory (docs/results-format.md, "Faults"). The disk is
# filled for real on a small tmpfs when this runs as root, and through the test-only fault hook
# ALLOCAB_FAULT_WRITES otherwise.
. tests/e2e/lib.sh

A=$BUILD/allocab
J=$BUILD/tests/jget
bench() { "$A" bench --cmd a=true --cmd b=true --warmup 0 --quiet "$@"; }

# The hook: two writes succeed (after rounds 1 and 2), the third finds the disk full.
ALLOCAB_FAULT_WRITES=2 expect_status "disk full after 2 writes: exit 1" 1 bench --rounds 5 -o "$TMP/full.json"
grep -q 'full.json: No space left on device' "$TMP/err" && ok "the reason on stderr" || notok "the reason on stderr" "$(cat "$TMP/err")"
[ "$("$J" "$TMP/full.json" status)" = aborted ] && ok "status aborted, not running" ||
	notok "status aborted, not running" "status $("$J" "$TMP/full.json" status)"
[ "$("$J" "$TMP/full.json" 'rounds.#')" = 2 ] && ok "the two rounds written are kept" ||
	notok "the two rounds written are kept" "$("$J" "$TMP/full.json" 'rounds.#')"
expect_status "compare reads the aborted file" 0 "$A" compare "$TMP/full.json" --baseline a
ls -a "$TMP" | grep -q '^\.allocab-tmp' && notok "no temporary file left" "$(ls -a "$TMP")" || ok "no temporary file left"

# The file system turns read-only after two writes: nothing can change the file, which keeps
# "running" and the two rounds; the one line on stderr says so, so that "running" is not read as
# a killed bench.
ALLOCAB_FAULT_WRITES=ro:2 expect_status "read-only after 2 writes: exit 1" 1 bench --rounds 5 -o "$TMP/ro.json"
head -1 "$TMP/err" | grep -Eq "ro.json: Read-only file system; .*ro.json still says status 'running': nothing could be written to it" &&
	ok "read-only: one line naming the file left running" || notok "read-only: one line naming the file left running" "$(cat "$TMP/err")"
grep -q "^allocab: bench: stopped: .*ro.json keeps 2 measured rounds" "$TMP/err" && grep -q "^allocab: bench: to add rounds: .* --resume .*ro.json$" "$TMP/err" &&
	ok "read-only: then the rounds it keeps and the command that resumes it" || notok "read-only: then the rounds it keeps and the command that resumes it" "$(cat "$TMP/err")"
[ "$("$J" "$TMP/ro.json" status)" = running ] && [ "$("$J" "$TMP/ro.json" 'rounds.#')" = 2 ] &&
	ok "read-only: the file keeps running and its two rounds" ||
	notok "read-only: the file keeps running and its two rounds" "status $("$J" "$TMP/ro.json" status)"

# A real full disk: a 16 KiB tmpfs holds a few rounds, then no new temporary file fits.
mkdir "$TMP/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=16k allocab-test "$TMP/small" 2>/dev/null; then
	"$A" bench --cmd a=true --cmd b=true --warmup 0 --rounds 200 -o "$TMP/small/r.json" >"$TMP/out" 2>"$TMP/err"
	[ $? = 1 ] && ok "tmpfs fills: exit 1" || notok "tmpfs fills: exit 1" "$(tail -3 "$TMP/err")"
	kept=$("$J" "$TMP/small/r.json" 'rounds.#')
	[ "$(grep -c '^allocab: round [0-9]*/200 done' "$TMP/err")" = "$kept" ] &&
		grep -Eq "^allocab: bench: stopped: .*r.json keeps $kept measured rounds? " "$TMP/err" &&
		grep -q '^allocab: bench: to add rounds: .* --resume ' "$TMP/err" &&
		ok "tmpfs full: as many rounds announced done as the file keeps ($kept), then the resume line" ||
		notok "tmpfs full: rounds announced done = rounds kept" "kept $kept: $(grep -c done "$TMP/err") done; $(tail -2 "$TMP/err")"
	[ "$("$J" "$TMP/small/r.json" status)" = aborted ] && [ "$("$J" "$TMP/small/r.json" 'rounds.#')" -ge 1 ] &&
		ok "tmpfs full: status aborted, rounds kept" ||
		notok "tmpfs full: status aborted, rounds kept" "status $("$J" "$TMP/small/r.json" status)"
	umount "$TMP/small"
else
	skip "real full disk" "mounting a tmpfs needs root (the fault hook above covers it)"
fi

# A writer killed between its temporary file and the rename leaves .allocab-tmp.PID.XXXXXX.
printf '{"x":1}' >"$TMP/doc.json"
mkdir "$TMP/wd"
sh -c 'exit 0' &
dead=$!
wait $dead
ALLOCAB_FAULT_WRITES=kill:0 expect_status "killed mid-write" 137 "$A" compare "$TMP/full.json" --baseline a -o "$TMP/wd/c.txt"
left=$(ls -a "$TMP/wd" | grep -c '^\.allocab-tmp\.[0-9]*\.')
[ "$left" = 1 ] && ok "the killed writer left its temporary file" || notok "the killed writer left its temporary file" "$(ls -a "$TMP/wd")"
touch -d '2 minutes ago' "$TMP"/wd/.allocab-tmp.*
: >"$TMP/wd/.allocab-tmp.$dead.fresh-1"
touch -d '2 minutes ago' "$TMP/wd/.allocab-tmp.$$.alive-1"
expect_status "the next write into the directory" 0 "$A" compare "$TMP/full.json" --baseline a -o "$TMP/wd/c.txt"
ls -a "$TMP/wd" | grep -Eq "^\.allocab-tmp\.[0-9]+\.[A-Za-z0-9]{6}$" &&
	notok "the dead writer's old temporary file is removed" "$(ls -a "$TMP/wd")" ||
	ok "the dead writer's old temporary file is removed"
[ -e "$TMP/wd/.allocab-tmp.$dead.fresh-1" ] && ok "a recent one is kept (its writer may be elsewhere)" ||
	notok "a recent one is kept" "removed"
[ -e "$TMP/wd/.allocab-tmp.$$.alive-1" ] && ok "a live process's temporary file is kept" ||
	notok "a live process's temporary file is kept" "removed"
[ -s "$TMP/wd/c.txt" ] && ok "the write itself succeeded" || notok "the write itself succeeded" "empty"
exit $t_fail
