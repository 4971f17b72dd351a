#!/usr/bin/env bash
# e2e_writes.sh - what an output path names (src/common/atomicio.h; docs/results-format.md,
# "Writing files"): a symbolic link at the path is replaced by the new file and never written
# through, a dangling one likewise; a FIFO, /dev/null or a terminal is written in place, a link to
# standard output or error is that descriptor, other devices are refused, and nothing is created in
# /dev; a bench file removed or replaced mid-bench stops the bench.
. "$(dirname "$0")/lib.sh"
A=$BUILD/allocab

mkbench "$TMP/r.json" arms=system=1,mimalloc=0.9
mkdir -p "$TMP/res"
printf 'precious\n' >"$TMP/precious.txt"

# compare -o through a link to a file outside
ln -s ../precious.txt "$TMP/res/out.md"
expect_status "writes: compare -o onto a symbolic link succeeds" 0 \
	$A compare "$TMP/r.json" --format markdown -o "$TMP/res/out.md"
if [ "$(cat "$TMP/precious.txt")" = precious ]; then ok "writes: compare -o leaves the link's target untouched"; else notok "writes: compare -o link target" "$(head -c 100 "$TMP/precious.txt")"; fi
if [ -f "$TMP/res/out.md" ] && [ ! -L "$TMP/res/out.md" ] && grep -q "allocab compare" "$TMP/res/out.md"; then
	ok "writes: the link itself is replaced by the report"
else
	notok "writes: the link is replaced" "$(ls -l "$TMP/res/out.md")"
fi

# a dangling link: replaced by the file, nothing created where it pointed
ln -s "$TMP/nowhere/x.json" "$TMP/res/dangling.json"
expect_status "writes: compare -o onto a dangling link succeeds" 0 \
	$A compare "$TMP/r.json" --format json -o "$TMP/res/dangling.json"
if [ -f "$TMP/res/dangling.json" ] && [ ! -L "$TMP/res/dangling.json" ] && [ ! -e "$TMP/nowhere" ]; then
	ok "writes: a dangling link is replaced, its target is not created"
else
	notok "writes: dangling link" "$(ls -l "$TMP/res" "$TMP/nowhere" 2>&1)"
fi

# bench: results/latest.json and -o as links to a file outside
ln -s ../precious.txt "$TMP/res/latest.json"
expect_status "writes: bench into a results directory whose latest.json is a link" 0 \
	$A bench --cmd a=true --cmd b=true --rounds 2 --warmup 0 --results-dir "$TMP/res"
if [ "$(cat "$TMP/precious.txt")" = precious ] && [ ! -L "$TMP/res/latest.json" ] &&
	grep -q '"allocab-bench/2"' "$TMP/res/latest.json"; then
	ok "writes: bench replaces the latest.json link and leaves its target untouched"
else
	notok "writes: bench latest.json link" "$(head -c 100 "$TMP/precious.txt"); $(ls -l "$TMP/res/latest.json")"
fi
ln -s ../precious.txt "$TMP/res/o.json"
expect_status "writes: bench -o onto a link" 0 \
	$A bench --cmd a=true --cmd b=true --rounds 2 --warmup 0 -o "$TMP/res/o.json"
if [ "$(cat "$TMP/precious.txt")" = precious ] && [ ! -L "$TMP/res/o.json" ]; then
	ok "writes: bench -o replaces the link, not its target"
else
	notok "writes: bench -o link" "$(head -c 100 "$TMP/precious.txt")"
fi

# devices: written in place, never replaced (also through a link to one)
expect_status "writes: compare -o /dev/null" 0 $A compare "$TMP/r.json" -o /dev/null
if [ -c /dev/null ]; then ok "writes: /dev/null is still a character device"; else notok "writes: /dev/null" "$(ls -l /dev/null)"; fi
ln -s /dev/null "$TMP/res/null"
expect_status "writes: compare -o onto a link to /dev/null" 0 $A compare "$TMP/r.json" -o "$TMP/res/null"
if [ -L "$TMP/res/null" ] && [ -c /dev/null ]; then ok "writes: a link to a device is written through, kept as a link"; else notok "writes: link to a device" "$(ls -l "$TMP/res/null")"; fi
out=$($A compare "$TMP/r.json" --format csv -o /dev/stdout 2>/dev/null | head -1)
case $out in workload,phase,*) ok "writes: -o /dev/stdout writes to stdout" ;; *) notok "writes: -o /dev/stdout" "$out" ;; esac

# (hostile-4 reproducer dev-stdout-replaced)
# -o /dev/stdout with stdout redirected to a file: the descriptor is written, /dev/stdout stays a
# link. Run in a private mount namespace on a throw-away /dev, never on the machine's.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	unshare -m sh -c '
		mount -t tmpfs tmpfs /dev || exit 9
		mknod -m 666 /dev/null c 1 3; ln -s /proc/self/fd /dev/fd
		ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
		"$1" bench --cmd a=true --cmd b=true --rounds 2 --warmup 0 -q -o /dev/stdout >"$2/so.json" 2>"$2/so.err"
		echo "bench $?" >"$2/so.st"; ls -l /dev/stdout >>"$2/so.st"
		"$1" compare "$2/r.json" --format csv -o /dev/stdout >"$2/cmp.csv" 2>/dev/null
		echo "compare $?" >>"$2/so.st"; ls -l /dev/stdout >>"$2/so.st"; ls -a /dev >>"$2/so.st"
	' sh "$A" "$TMP"
	st=$(cat "$TMP/so.st" 2>/dev/null)
	case $st in
	"bench 0"*"/dev/stdout -> /proc/self/fd/1"*"compare 0"*"/dev/stdout -> /proc/self/fd/1"*)
		ok "writes: -o /dev/stdout into a file keeps /dev/stdout a link (bench, compare)" ;;
	*) notok "writes: -o /dev/stdout keeps the link" "$st $(head -c 200 "$TMP/so.err" 2>/dev/null)" ;;
	esac
	if grep -q allocab-tmp "$TMP/so.st"; then notok "writes: nothing created in /dev" "$st"; else ok "writes: nothing created in /dev"; fi
	if head -1 "$TMP/so.json" | grep -q '"allocab-bench/2"' && head -1 "$TMP/cmp.csv" | grep -q '^workload,phase,'; then
		ok "writes: -o /dev/stdout writes the file stdout was redirected to"
	else
		notok "writes: -o /dev/stdout into a file" "$(head -c 100 "$TMP/so.json"); $(head -c 100 "$TMP/cmp.csv")"
	fi
else
	skip "writes: -o /dev/stdout into a file keeps /dev/stdout a link" "needs root and unshare -m"
fi

# a link to a link to standard output / error: written to the descriptor, both links kept
ln -s /dev/stdout "$TMP/res/so"
$A compare "$TMP/r.json" --format csv -o "$TMP/res/so" >"$TMP/so2.csv" 2>"$TMP/err"
if [ -L "$TMP/res/so" ] && head -1 "$TMP/so2.csv" | grep -q '^workload,phase,'; then
	ok "writes: a link to /dev/stdout writes stdout's file and stays a link"
else
	notok "writes: link to /dev/stdout" "$(ls -l "$TMP/res/so"); $(head -c 200 "$TMP/err")"
fi
$A compare "$TMP/r.json" --format csv -o /dev/fd/2 2>"$TMP/fd2.csv" >/dev/null
if grep -q '^workload,phase,' "$TMP/fd2.csv"; then ok "writes: -o /dev/fd/2 writes standard error"; else notok "writes: -o /dev/fd/2" "$(head -c 200 "$TMP/fd2.csv")"; fi
expect_status "writes: -o another process's descriptor is refused" 1 $A compare "$TMP/r.json" -o /proc/1/fd/1
expect_err "writes: ... with one line" "/proc/1/fd/1: a descriptor of another process"
expect_status "writes: -o a new file in /dev is refused" 1 $A compare "$TMP/r.json" -o /dev/allocab-test-$$.md
expect_err "writes: ... with one line" "creates and replaces no file in /dev"
ln -s /dev "$TMP/res/devdir"
expect_status "writes: -o through a directory link into /dev is refused" 1 $A compare "$TMP/r.json" -o "$TMP/res/devdir/allocab-test-$$.md"
if [ -e /dev/allocab-test-$$.md ]; then rm -f /dev/allocab-test-$$.md; notok "writes: nothing made in /dev" "made"; else ok "writes: nothing made in /dev"; fi

# devices other than /dev/null and terminals: refused, never opened (numbers no driver serves)
if [ "$(id -u)" = 0 ] && mknod "$TMP/res/blk" b 7 251 2>/dev/null && mknod "$TMP/res/chr" c 250 250 2>/dev/null; then
	ln -s "$TMP/res/blk" "$TMP/res/toblk"
	expect_status "writes: bench -o a block device is refused" 1 \
		$A bench --cmd a=true --cmd b=true --rounds 6 --warmup 0 -q -o "$TMP/res/blk"
	expect_err "writes: ... with one line, before any run" "blk: a block device: -o writes a file"
	expect_status "writes: compare -o a link to a block device is refused" 1 $A compare "$TMP/r.json" -o "$TMP/res/toblk"
	expect_status "writes: compare -o another character device is refused" 1 $A compare "$TMP/r.json" -o "$TMP/res/chr"
	expect_err "writes: ... with one line" "chr: a device: -o writes a file"
	if [ -b "$TMP/res/blk" ] && [ -L "$TMP/res/toblk" ] && [ -c "$TMP/res/chr" ]; then ok "writes: the devices and the link are left as they were"; else notok "writes: devices kept" "$(ls -l "$TMP/res")"; fi
else
	skip "writes: -o a block or character device is refused" "needs root (mknod)"
fi

# (hostile-4 reproducer results-file-unlinked)
# a bench file removed, replaced by rename, or replaced by a hard link to another file mid-bench:
# the bench stops with the reason (exit 1), never "results in FILE", and the other file is intact
B=(--cmd b=true --rounds 5 --warmup 0 -q)
expect_status "writes: a bench whose file is removed mid-bench fails" 1 \
	$A bench --cmd "a=rm -f $TMP/gone.json" "${B[@]}" -o "$TMP/gone.json"
expect_err "writes: ... with one line naming the file" "gone.json: removed while allocab was appending to it"
cp "$TMP/r.json" "$TMP/forged.json"
expect_status "writes: a bench whose file is replaced mid-bench fails" 1 \
	$A bench --cmd "a=cp $TMP/forged.json $TMP/x.tmp && mv $TMP/x.tmp $TMP/rep.json" "${B[@]}" -o "$TMP/rep.json"
expect_err "writes: ... with one line naming the file" "rep.json: replaced by another file while allocab"
printf 'unrelated\n' >"$TMP/other.txt"
expect_status "writes: a bench whose file becomes a hard link to another file fails" 1 \
	$A bench --cmd "a=ln -f $TMP/other.txt $TMP/hl.json" "${B[@]}" -o "$TMP/hl.json"
expect_err "writes: ... with one line naming the file" "hl.json: replaced by another file while allocab"
if [ "$(cat "$TMP/other.txt")" = unrelated ]; then ok "writes: the other file is left as it was"; else notok "writes: other file" "$(head -c 100 "$TMP/other.txt")"; fi
# the results file written in place by another writer mid-bench (same inode: truncated, or
# appended to): the bench stops with the reason (exit 1), never "results in FILE"
expect_status "writes: a bench whose file is truncated mid-bench fails" 1 \
	$A bench --cmd "a=: > $TMP/trunc.json" "${B[@]}" -o "$TMP/trunc.json"
expect_err "writes: ... with one line naming the file" "trunc.json: written by another writer while allocab was appending to it \(0 bytes"
grep -q "results in" "$TMP/err" && notok "writes: no 'results in'" "$(cat "$TMP/err")" || ok "writes: no 'results in' for the truncated file"
expect_status "writes: a bench whose file another writer appends to mid-bench fails" 1 \
	$A bench --cmd "a=echo junk >> $TMP/junk.json" "${B[@]}" -o "$TMP/junk.json"
expect_err "writes: ... with one line naming the file" "junk.json: written by another writer while allocab"
[ "$(tail -n 1 "$TMP/junk.json")" = junk ] && ok "writes: allocab wrote nothing after the other writer's line" ||
	notok "writes: nothing after the other writer" "$(tail -c 200 "$TMP/junk.json")"
# the results file's directory renamed away and a new one made in its place mid-bench: the path
# names nothing, the bench stops (exit 1), and no file is made in the new directory
mkdir -p "$TMP/d1"
expect_status "writes: a bench whose directory is swapped mid-bench fails" 1 \
	$A bench --cmd "a=[ ! -f $TMP/d1/r.json ] || [ -d $TMP/d1.old ] || { mv $TMP/d1 $TMP/d1.old && mkdir $TMP/d1; }" "${B[@]}" -o "$TMP/d1/r.json"
expect_err "writes: ... with one line naming the file" "d1/r.json: removed while allocab was appending to it"
[ ! -e "$TMP/d1/r.json" ] && ok "writes: nothing made in the new directory" || notok "writes: new directory" "$(ls -l "$TMP/d1")"
exit $t_fail
