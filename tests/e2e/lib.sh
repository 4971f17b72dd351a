# lib.sh - shell side of the test protocol: sourced by tests/e2e/e2e_*.sh.
# Each check prints "ok - name" or "not ok - name: detail", and a check that cannot run here
# "SKIP - name: reason" (never "ok"); tests/run.sh counts the three kinds of lines.
# Variables: BUILD (build directory), TMP (a private scratch directory removed on exit).
set -u
BUILD=${BUILD:-build}
# compare's text formats fit $COLUMNS (docs/methodology.md, "Reading the output"); the tests that
# read whole lines of a table see them unsplit, and the layout tests set their own widths.
export COLUMNS=1000
TMP=$(mktemp -d "${TMPDIR:-/tmp}/allocab-test.XXXXXX")
export PYTHONPATH="$PWD/scripts:$PWD/tests${PYTHONPATH:+:$PYTHONPATH}"
trap 'rm -rf "$TMP"' EXIT
t_fail=0

ok() { printf 'ok - %s\n' "$1"; }
notok() { printf 'not ok - %s: %s\n' "$1" "$2"; t_fail=1; }
# skip NAME REASON: the check NAME did not run here, and why.
skip() { printf 'SKIP - %s: %s\n' "$1" "$2"; }

# expect_status NAME WANT CMD...: runs CMD, checks its exit status; stderr lands in $TMP/err.
expect_status() {
	local name=$1 want=$2 got
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$name"; else notok "$name" "exit $got, want $want; stderr: $(head -c 300 "$TMP/err")"; fi
}

# expect_err NAME PATTERN: the last command's stderr is one line matching the extended regex.
expect_err() {
	local lines
	lines=$(wc -l <"$TMP/err")
	if [ "$lines" -eq 1 ] && grep -Eq "$2" "$TMP/err"; then ok "$1"; else notok "$1" "stderr ($lines lines): $(head -c 300 "$TMP/err")"; fi
}

# jeq NAME FILE PATH WANT: the JSON value at PATH of FILE (tests/tools/jget.c) equals WANT.
jeq() {
	local got
	got=$("$BUILD/tests/jget" "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "$3 is '$got', want '$4'"; fi
}

# check NAME CMD...: ok when CMD exits 0.
check() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else notok "$name" "failed: $*"; fi
}

# mkbench FILE VAR=VALUE...: writes a bench document. Variables:
#   arms="system=1,mimalloc=0.8/0.01"  arm=time factor[/noise amplitude] against system's time
#   wls="parquet_load,pipeline" rounds=8 warmup=1 id=MACHINE_ID mode=drivers|commands (the
#   default id is the one the fields hash to; another id also names another CPU model, since the
#   reader recomputes machine.id from the fields)
#   fail=ARM:ROUND (crashed, SIGSEGV) sum=ARM (a different checksum) schema=... base=NS
#   spread=0.05 (how much the rounds differ from each other: paired ratios do not see it)
#   reps=4 (records with regimes: rep 0 cold, the last 3 steady, 64 KiB of RSS growth per rep)
#   colds="system=2,mimalloc=1" (cold rep time = steady time x this; default 1)
#   warmcold=F (the warm-up rounds' cold reps take F times longer still; default 1)
#   procs=N (every run carries a verified probe summary of N processes) calls=K (and K
#   malloc-family calls in it: K/2 malloc, K/2 free)
#   replay=NS (every record's workload ran on a recorded process: params.trace "rec.trace",
#   workload.input of pid 4242, /usr/bin/sort, NS ns while recorded)
#   unsettled=ARM (its records say regimes.settled false)
#   label=NAME (task.label: the machine's name in a fleet)  runnable=N (telemetry.runnable, 1)
#   phase=N (shifts the noise pattern by N rounds, so that machines differ)
mkbench() {
	local out=$1
	shift
	awk -v arms=system=1 -v wls=parquet_load,pipeline -v rounds=8 -v warmup=1 \
		-v id=b3ba6dfc23bab76e -v mode=drivers -v fail= -v sum= -v schema=allocab-bench/1 \
		-v base=100000000 -v spread=0.05 -v reps=1 -v colds= -v warmcold=1 -v procs= -v calls= -v replay= -v unsettled= -v label= -v runnable=1 \
		-v phase=0 "${@/#/-v}" 'BEGIN {
	na = split(arms, al, ","); nw = split(wls, wl, ",")
	nc = split(colds, cl, ",")
	for (i = 1; i <= nc; i++) { split(cl[i], kv, "="); coldf[kv[1]] = kv[2] }
	for (a = 1; a <= na; a++) {
		split(al[a], kv, "="); name[a] = kv[1]; split(kv[2], fa, "/")
		factor[a] = fa[1]; amp[a] = (fa[2] == "" ? 0.004 : fa[2])
	}
	if (mode == "commands") { nw = 1; wl[1] = "command" }
	printf "{\"schema\":\"%s\",\"tool\":{\"name\":\"allocab\",\"version\":\"0.1.0\"},", schema
	printf "\"status\":\"complete\",\"config\":{\"mode\":\"%s\",\"arms\":[", mode
	for (a = 1; a <= na; a++) printf "%s\"%s\"", (a > 1 ? "," : ""), name[a]
	printf "],\"workloads\":["
	for (w = 1; w <= nw; w++) printf "%s\"%s\"", (w > 1 ? "," : ""), wl[w]
	printf "],\"clock_ticks_per_s\":100},\"machine\":{\"cpu_model\":\"Test CPU%s\",\"online_cpus\":2,", (id == "b3ba6dfc23bab76e" ? "" : " " id)
	printf "\"kernel\":\"6.1.0\",\"id\":\"%s\",\"env\":{}},", id
	if (label != "") printf "\"task\":{\"label\":\"%s\",\"host\":\"%s\"},", label, label
	printf "\"rounds\":["
	for (r = 0; r < warmup + rounds; r++) {
		m = r - warmup
		printf "%s{\"index\":%d,\"warmup\":%s,\"runs\":[", (r ? "," : ""), r, (m < 0 ? "true" : "false")
		t0 = base * (1 + spread * ((r * 7) % 5))
		first = 1
		for (w = 1; w <= nw; w++) for (a = 1; a <= na; a++) {
			t = int(t0 * w * factor[a] * (1 + amp[a] * ((((m + phase) * 5 + a * 3 + w) % 7) / 6 - 0.5)))
			crashed = (fail == name[a] ":" m)
			printf "%s{\"arm\":\"%s\",\"workload\":\"%s\",\"pad_bytes\":7,", (first ? "" : ","), name[a], wl[w]
			first = 0
			if (crashed) {
				printf "\"status\":\"crashed\",\"exit_status\":null,\"signal\":\"SIGSEGV\","
				printf "\"stderr_tail\":\"boom\\nsegfault in arena\\n\",\"process\":{\"wall_ns\":%d}}", t
				continue
			}
			printf "\"status\":\"ok\",\"exit_status\":0,\"signal\":null,\"stderr_tail\":null,"
			printf "\"process\":{\"wall_ns\":%d,\"max_rss_kib\":%d,\"involuntary_ctx_switches\":2},", t, 1000 * factor[a]
			printf "\"telemetry\":{\"steal_ticks\":0,\"loadavg_1m\":0.5,\"runnable\":%d}", runnable
			if (procs != "") {
				printf ",\"probe\":{\"verified\":true,\"reason\":null,\"tracking\":\"ptrace\",\"process_count\":%d", procs
				if (calls != "") printf ",\"counts_total\":{\"malloc\":%d,\"free\":%d,\"bytes\":999}", calls / 2, calls - calls / 2
				printf ",\"processes\":[]}"
			}
			if (mode == "commands") { printf "}"; continue }
			printf ",\"record\":{\"schema\":\"allocab-run/1\",\"workload\":{\"name\":\"%s\",", wl[w]
			if (wl[w] == "pipeline") printf "\"flags\":[\"show_phases\"],"
			if (replay != "") {
				printf "\"scale\":\"small\",\"seed\":42,\"params\":{\"trace\":\"rec.trace\",\"pid\":0},"
				printf "\"input\":{\"index\":3,\"pid\":4242,\"threads\":1,\"events\":298,\"duration_ns\":%d,", replay
				printf "\"exe\":\"/usr/bin/sort\",\"command\":\"sort -n big.txt\",\"ended\":\"exit\"}},"
			} else
				printf "\"scale\":\"small\",\"seed\":42,\"params\":{\"rows\":100}},"
			printf "\"phases\":[\"total\"%s],", (wl[w] == "pipeline" ? ",\"read\"" : "")
			if (reps == 1) {
				printf "\"reps\":[{\"phases\":{\"total\":{\"wall_ns\":%d}", t
				if (wl[w] == "pipeline") printf ",\"read\":{\"wall_ns\":%d}", t / 3
				printf "}}],"
			} else {
				printf "\"reps\":["
				for (k = 0; k < reps; k++) {
					tk = k ? t : int(t * (name[a] in coldf ? coldf[name[a]] : 1) * (m < 0 ? warmcold : 1))
					printf "%s{\"regime\":\"%s\",\"rss_after_bytes\":%d,", (k ? "," : ""),
						(k == 0 ? "cold" : k >= reps - 3 ? "steady" : "warmup"), 1048576 + 65536 * k
					printf "\"phases\":{\"total\":{\"wall_ns\":%d}", tk
					if (wl[w] == "pipeline") printf ",\"read\":{\"wall_ns\":%d}", tk / 3
					printf "}}"
				}
				printf "],\"regimes\":{\"settled\":%s},", (unsettled == name[a] ? "false" : "true")
			}
			printf "\"checksum\":\"%s\",", (sum == name[a] ? "00000000000000bb" : "00000000000000aa")
			printf "\"rusage\":{\"max_rss_kib\":%d,\"involuntary_ctx_switches\":2},", 1000 * factor[a]
			printf "\"rss\":{\"retained_bytes\":1048576}}}"
		}
		printf "]}"
	}
	printf "]}\n"
}' >"$out"
}
