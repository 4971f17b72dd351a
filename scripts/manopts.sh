#!/usr/bin/env bash
# manopts.sh - merges the option entries generated from the option tables (common/opt.h) into the
# man page, and prints the result on stdout; `make man` writes it back, tests/e2e/e2e_usage.sh fails
# when it differs from the committed page.
#
# In the page, a section of generated entries starts with a line
#   .\" BEGIN OPTIONS PROGRAM ARGS...   (e.g. `allocab help --man bench`)
# and ends with `.\" END OPTIONS`. BUILD/PROGRAM ARGS prints the entries: blocks from `.\" {KEY` to
# `.\" }` (common/optdoc.h). Within the section each block is replaced by the generated one of
# the same KEY, in the generator's order; the text after a block (up to the next block or the
# end) is the hand-written rest of that entry and moves with it. An entry the generator no
# longer prints is dropped with a warning on stderr; a new one arrives without text after it.
#
# Usage: scripts/manopts.sh BUILD [PAGE]     (PAGE: docs/allocab.1)
set -u
build=${1:?usage: scripts/manopts.sh BUILD [PAGE]}
page=${2:-docs/allocab.1}
[ -r "$page" ] || { echo "manopts: cannot read $page" >&2; exit 2; }
exec awk -v build="$build" -v page="$page" '
function reset() { split("", gen); split("", order); split("", text); n = 0; key = ""; skip = 0 }
function generate(cmd,   line, k, rc) {
	while ((rc = (cmd | getline line)) > 0) {
		if (substr(line, 1, 5) == ".\\\" {") {
			k = substr(line, 6)
			order[++n] = k
			gen[k] = ""
		}
		gen[k] = gen[k] line "\n"
	}
	if (close(cmd) != 0 || rc < 0 || n == 0) {
		print "manopts: " cmd " printed no entries" > "/dev/stderr"
		failed = 1
		exit 1
	}
}
function flush(   i, k) {
	for (i = 1; i <= n; i++)
		printf "%s%s", gen[order[i]], text[order[i]]
	for (k in text)
		if (!(k in gen))
			print "manopts: " page ": " k " is no longer an option; its text is dropped" > "/dev/stderr"
}
BEGIN { reset() }
substr($0, 1, 18) == ".\\\" BEGIN OPTIONS " {
	print
	reset()
	generate(build "/" substr($0, 19))
	within = 1
	next
}
within && $0 == ".\\\" END OPTIONS" { flush(); within = 0; print; next }
within && substr($0, 1, 5) == ".\\\" {" { key = substr($0, 6); text[key] = ""; skip = 1; next }
within && skip { if ($0 == ".\\\" }") skip = 0; next }
within && key == "" { print; next }
within { text[key] = text[key] $0 "\n"; next }
{ print }
END {
	if (failed)
		exit 1
	if (within) { print "manopts: " page ": BEGIN OPTIONS without END OPTIONS" > "/dev/stderr"; exit 2 }
}
' "$page"
