# e2e_resume_rules.sh - which files `allocab bench --resume` continues (docs/methodology.md,
# "Resuming a bench"): --param in another order is the same bench; an aborted file only after a
# write that failed (a full disk: its rounds are whole, the line that resumes it is printed, and
# neither its status nor its session says running); a running file only when no live bench holds
# its lock; a machine.id that does not match its fields is refused; a rebuilt program is refused
# with one line naming its executable (the hostile-3 case resume-rebuilt-program, its two
# programs in tests/fixtures/data/resume/). Asserts behaviour only, never speed.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget

edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, benchfile, sys
d = benchfile.load(sys.argv[1])
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent="\t")
PY
}
refuse() { # refuse NAME PATTERN ARGS...
	local name=$1 pat=$2
	shift 2
	expect_status "refused: $name (exit 2)" 2 "$A" bench "$@"
	expect_err "refused: $name (one line)" "$pat"
}
C=(--cmd a=true --cmd b=true --warmup 0 --allocation none -q)

# (hostile-3 reproducer full-disk-round-lost)
# ---- a full disk after two rounds: "done" only for written rounds, then the resume line ----
ALLOCAB_FAULT_WRITES=2 "$A" bench --cmd a=true --cmd b=true --warmup 0 --allocation none \
	--rounds 6 -o "$TMP/full.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] && ok "full disk: exit 1" || notok "full disk: exit 1" "exit $rc"
done_lines=$(grep -c '^allocab: round [0-9]*/6 done' "$TMP/err")
[ "$done_lines" = 2 ] && ok "full disk: 'done' printed for the 2 rounds the file keeps only" ||
	notok "full disk: 'done' printed for the 2 rounds the file keeps only" "$done_lines: $(cat "$TMP/err")"
grep -q '^allocab: round 3/6 done' "$TMP/err" && notok "full disk: round 3 not announced" "$(cat "$TMP/err")" ||
	ok "full disk: round 3, lost, is not announced"
grep -q "^allocab: bench: stopped: $TMP/full.json keeps 2 measured rounds and 0 warm-up rounds$" "$TMP/err" &&
	ok "full disk: says how many rounds the file keeps" || notok "full disk: says how many rounds the file keeps" "$(cat "$TMP/err")"
hint=$(grep '^allocab: bench: to add rounds: ' "$TMP/err" | sed 's/^allocab: bench: to add rounds: allocab //')
case $hint in
*" --resume $TMP/full.json") ok "full disk: prints the command that resumes it" ;;
*) notok "full disk: prints the command that resumes it" "$(cat "$TMP/err")" ;;
esac
jeq "full disk: status aborted" "$TMP/full.json" status aborted
jeq "full disk: the file keeps 2 rounds" "$TMP/full.json" 'rounds.#' 2
eval "set -- $hint"
expect_status "full disk: the printed command resumes it (exit 0)" 0 "$A" "$@"
jeq "full disk: resumed, 2 + 6 rounds" "$TMP/full.json" 'rounds.#' 8
jeq "full disk: the first session says aborted" "$TMP/full.json" sessions.0.status aborted

# the disk fills during a resumed session: its session entry must not say running
ALLOCAB_FAULT_WRITES=1 "$A" bench "${C[@]}" --rounds 4 --resume "$TMP/full.json" >"$TMP/out" 2>"$TMP/err"
jeq "full disk in a resumed session: status aborted" "$TMP/full.json" status aborted
jeq "full disk in a resumed session: its session says aborted, not running" "$TMP/full.json" sessions.2.status aborted
grep -q "^allocab: bench: stopped: $TMP/full.json keeps 1 measured round and 0 warm-up rounds (9 measured rounds in all)$" "$TMP/err" &&
	ok "full disk in a resumed session: the rounds kept, this session's and all" || notok "full disk in a resumed session: the rounds kept" "$(cat "$TMP/err")"
expect_status "full disk in a resumed session: resumed again (exit 0)" 0 "$A" bench "${C[@]}" --rounds 1 --resume "$TMP/full.json"

# ---- aborted for another reason, or running ----
"$A" bench "${C[@]}" --rounds 6 -o "$TMP/f.json" 2>/dev/null
edit "$TMP/f.json" "$TMP/ab.json" 'd["status"] = "aborted"; d["status_reason"] = "error"'
refuse "aborted by an error" "^allocab: bench: $TMP/ab.json: status aborted \(error\): the bench itself failed" "${C[@]}" --rounds 1 --resume "$TMP/ab.json"
edit "$TMP/f.json" "$TMP/ap.json" 'd["status"] = "aborted"; d["status_reason"] = "proof"'
refuse "aborted by proofs" "status aborted \(proof\): its first round showed proofs" "${C[@]}" --rounds 1 --resume "$TMP/ap.json"
edit "$TMP/f.json" "$TMP/aw.json" 'd["status"] = "aborted"; d["status_reason"] = "write"'
expect_status "aborted by a write: resumed (exit 0)" 0 "$A" bench "${C[@]}" --rounds 1 --resume "$TMP/aw.json"
lock="$TMP/held.lock"
edit "$TMP/f.json" "$TMP/run.json" "d['status'] = 'running'; d['task']['lock'] = '$lock'"
: >"$lock"
(
	exec 9>"$lock"
	flock 9
	exec sleep 30
) &
holder=$!
for _ in $(seq 50); do flock -n "$lock" true 2>/dev/null || break; sleep 0.1; done
refuse "running, its lock held by a live bench" "^allocab: bench: $TMP/run.json: status running, and its bench still runs" "${C[@]}" --rounds 1 --resume "$TMP/run.json"
kill "$holder"
wait "$holder" 2>/dev/null
expect_status "running, its lock free (the bench was killed): resumed (exit 0)" 0 "$A" bench "${C[@]}" --rounds 1 --resume "$TMP/run.json"

# ---- machine.id and params ----
edit "$TMP/f.json" "$TMP/id.json" 'd["machine"]["id"] = "0000000000000000"'
refuse "a machine.id that does not match its fields" "^allocab: bench: $TMP/id.json: its machine.id does not match its machine's fields" "${C[@]}" --rounds 1 --resume "$TMP/id.json"
if [ -x "$BUILD/allocab-system" ] && [ -x "$BUILD/allocab-mimalloc" ]; then
	P=(-a system,mimalloc -w parquet_load --scale small --allocation none --warmup 0 -q)
	expect_status "params: a bench of 1 round" 0 "$A" bench "${P[@]}" --rounds 1 --param row_groups=1 --param page_rows=500 -o "$TMP/p.json"
	expect_status "params: resumed with its --param in another order (exit 0)" 0 "$A" bench "${P[@]}" --rounds 1 --param page_rows=500 --param row_groups=1 --resume "$TMP/p.json"
	refuse "params: another value" "config.params differs" "${P[@]}" --rounds 1 --param page_rows=400 --param row_groups=1 --resume "$TMP/p.json"
else
	skip "params" "allocab-system or allocab-mimalloc not built"
fi

# ---- resume-rebuilt-program: the executable, not only the command string ----
mkdir "$TMP/prog"
A=$(realpath "$BUILD")/allocab
gcc -O1 -o "$TMP/prog/work" tests/fixtures/data/resume/work.c
B=(--program './work 5000' -a system,mimalloc --rounds 2 --warmup 0 --allocation none -q)
(cd "$TMP/prog" && "$A" bench "${B[@]}" -o r.json >/dev/null 2>&1)
jeq "rebuilt: the file records the executable" "$TMP/prog/r.json" config.executables.system.path "$TMP/prog/work"
(cd "$TMP/prog" && "$A" bench "${B[@]}" --resume r.json >/dev/null 2>&1) && ok "rebuilt: the same program resumes" || notok "rebuilt: the same program resumes" "refused"
touch "$TMP/prog/work"
(cd "$TMP/prog" && "$A" bench "${B[@]}" --resume r.json >/dev/null 2>&1) && ok "rebuilt: a new time alone is the same program" || notok "rebuilt: a new time alone" "refused"
gcc -O1 -o "$TMP/prog/work" tests/fixtures/data/resume/rebuilt.c
sum=$(sha256sum <"$TMP/prog/r.json")
(cd "$TMP/prog" && "$A" bench "${B[@]}" --resume r.json >"$TMP/out" 2>"$TMP/err")
rc=$?
[ "$rc" = 2 ] && ok "rebuilt: refused (exit 2)" || notok "rebuilt: refused (exit 2)" "exit $rc"
expect_err_file() { if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -Eq "$2" "$TMP/err"; then ok "$1"; else notok "$1" "$(head -c 300 "$TMP/err")"; fi; }
expect_err_file "rebuilt: one line naming the executable" "^allocab: bench: r.json: arm system: the executable changed since the file was written: $TMP/prog/work: (size|content)"
[ "$(sha256sum <"$TMP/prog/r.json")" = "$sum" ] && ok "rebuilt: the file is untouched" || notok "rebuilt: the file is untouched" "changed"
# ---- resume-unidentified-exe: a command whose first word names no file (exec, cd ... &&, a quote)
# is identified by the images its runs exec'd (config.images, from the probe); one that nothing
# identifies is not continued ----
for cmd in "exec ./work 5000" "cd . && ./work 5000" "'./work' 5000"; do
	gcc -O1 -o "$TMP/prog/work" tests/fixtures/data/resume/work.c
	rm -f "$TMP/prog/u.json"
	U=(--program "$cmd" -a system,mimalloc --rounds 2 --warmup 0 --allocation none -q)
	(cd "$TMP/prog" && "$A" bench "${U[@]}" -o u.json >/dev/null 2>&1)
	got=$(/usr/bin/python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["config"]["images"][sys.argv[2]]["path"])' "$TMP/prog/u.json" "$TMP/prog/work" 2>&1)
	[ "$got" = "$TMP/prog/work" ] && ok "unidentified ($cmd): the file lists the image its runs exec'd" || notok "unidentified ($cmd): config.images" "$got"
	(cd "$TMP/prog" && "$A" bench "${U[@]}" --resume u.json >/dev/null 2>&1) && ok "unidentified ($cmd): the same program resumes" || notok "unidentified ($cmd): the same program resumes" "refused"
	gcc -O1 -o "$TMP/prog/work" tests/fixtures/data/resume/rebuilt.c
	(cd "$TMP/prog" && "$A" bench "${U[@]}" --resume u.json >"$TMP/out" 2>"$TMP/err")
	rc=$?
	[ "$rc" = 2 ] && ok "unidentified ($cmd): a rebuilt program is refused (exit 2; was 0)" || notok "unidentified ($cmd): rebuilt refused" "exit $rc"
	expect_err_file "unidentified ($cmd): one line naming the image" "^allocab: bench: u.json: (an image its runs exec'd|arm system: the executable) changed since the file was written: $TMP/prog/work: (size|content)"
done
(cd "$TMP/prog" && "$A" bench --cmd "a=cd . && ./work 100" --cmd b=true --rounds 2 --warmup 0 -q -o c.json >/dev/null 2>&1)
(cd "$TMP/prog" && "$A" bench --cmd "a=cd . && ./work 100" --cmd b=true --rounds 2 --warmup 0 -q --resume c.json >"$TMP/out" 2>"$TMP/err")
rc=$?
[ "$rc" = 2 ] && ok "unidentified, unprobed --cmd: not continued (exit 2)" || notok "unidentified, unprobed --cmd: not continued" "exit $rc"
expect_err_file "unidentified, unprobed --cmd: one line saying why" "^allocab: bench: c.json: arm a: no executable identified: .*a rebuilt program would go unnoticed"
exit $t_fail
