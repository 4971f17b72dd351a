#!/usr/bin/env bash
# e2e_writes.sh - what an output path names (src/common/atomicio.h; docs/results-format.md,
# "Writing files"): a symbolic link at the path is replaced by the new file and never written
# through, a dangling one likewise, devices are written in place and never replaced.
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
exit $t_fail
