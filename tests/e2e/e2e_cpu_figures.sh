#!/usr/bin/env bash
# e2e_cpu_figures.sh - the CPU figures and counts a reader takes from a file (docs/results-format.md,
# "Reading files"; docs/programs.md, "Which time"): a warm-up run without CPU time does not switch a
# file to wall time; a measured one does, and the compared line says why; a CPU time or probe count
# that is fractional, negative or beyond its bound is refused like any bad count; an arm named
# after one allocator and proven to run another (tests/fixtures/data/hostile4/mislabel6.json) is
# refused.
. "$(dirname "$0")/lib.sh"
A=$BUILD/allocab

"$A" bench --program 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done' -a system,mimalloc --rounds 6 --warmup 1 \
	--allocation none -q -o "$TMP/w.json" 2>"$TMP/bench.err" || notok "cpu figures: the bench runs" "$(head -c 300 "$TMP/bench.err")"
# edit N FIELD: a copy of w.json with one run edited: warm (the warm-up round's first run) or
# meas (the first measured round's), by a Python statement on `r`
edit() {
	/usr/bin/python3 - "$TMP/w.json" "$TMP/$1.json" "$2" "$3" <<'PY'
import json, sys
src, out, which, stmt = sys.argv[1:5]
lines, done = [], False
for l in open(src).read().rstrip('\n').split('\n'):
    d = json.loads(l)
    if not done and d.get('warmup') is (which == 'warm'):
        done = True
        r = d['runs'][0]
        exec(stmt)
    lines.append(json.dumps(d, separators=(',', ':')))
open(out, 'w').write('\n'.join(lines) + '\n')
PY
}
ZERO='c = r.get("containment") or {}
if isinstance(c.get("cgroup_cpu"), dict): c["cgroup_cpu"] = {"user_ns": 0, "sys_ns": 0}
r["process"]["user_ns"] = 0; r["process"]["sys_ns"] = 0'
edit warm0 warm "$ZERO"
edit meas0 meas "$ZERO"
"$A" compare "$TMP/w.json" >"$TMP/out" 2>&1
grep -q "compared: CPU time" "$TMP/out" && ok "cpu figures: the file is compared on CPU time" || notok "cpu figures: CPU time" "$(grep -o 'compared: [^;]*' "$TMP/out")"
"$A" compare "$TMP/warm0.json" >"$TMP/out" 2>&1
grep -q "compared: CPU time" "$TMP/out" && ok "cpu figures: a warm-up run with CPU 0 does not switch the file to wall time" || notok "cpu figures: warm-up CPU 0" "$(grep -o 'compared: [^;]*' "$TMP/out")"
"$A" compare "$TMP/meas0.json" >"$TMP/out" 2>&1
tr -s ' \n' ' ' <"$TMP/out" | grep -q "compared: wall time (wall time for total of command: its runs have no CPU time: a CPU figure missing or 0" &&
	ok "cpu figures: a measured run with CPU 0: wall time, and the line says why" || notok "cpu figures: measured CPU 0" "$(grep -A1 'compared: ' "$TMP/out")"

bad() { # NAME STATEMENT PATTERN
	edit "$1" meas "$2"
	expect_status "cpu figures: $1 refused (exit 2)" 2 "$A" compare "$TMP/$1.json"
	expect_err "cpu figures: $1: one line naming the field" "$3"
}
bad cpu_frac 'c = r.get("containment") or {}
if isinstance(c.get("cgroup_cpu"), dict): c["cgroup_cpu"]["user_ns"] = 123.5
else: r["process"]["user_ns"] = 123.5' '(containment.cgroup_cpu|process).user_ns is not an integer of nanoseconds'
bad cgroup_frac 'c = r.get("containment") or {}
c["cgroup_cpu"] = {"user_ns": 123.5, "sys_ns": 1000}
r["containment"] = c' 'containment.cgroup_cpu.user_ns is not an integer of nanoseconds'
bad rusage_neg 'r["probe"]["rusage_total"]["user_ns"] = -5' 'probe.rusage_total.user_ns is not an integer in 0..1e\+18'
bad rusage_huge 'r["probe"]["rusage_total"]["minflt"] = 1e300' 'probe.rusage_total.minflt is not an integer'
bad rusage_frac 'r["probe"]["rusage_total"]["nvcsw"] = 1.5' 'probe.rusage_total.nvcsw is not an integer'
bad procs_frac 'r["probe"]["process_count"] = 1.5' 'probe.process_count is not an integer'

expect_status "mislabel: an arm named jemalloc proven to run mimalloc is refused (exit 2; was 0)" 2 \
	"$A" compare tests/fixtures/data/hostile4/mislabel6.json
expect_err "mislabel: one line saying so" "config.proof.jemalloc: the arm named jemalloc was proven to run mimalloc, not jemalloc: a mislabelled arm"
exit $t_fail
