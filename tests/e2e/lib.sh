# lib.sh - shell side of the test protocol: sourced by tests/e2e/e2e_*.sh.
# Each check prints "ok - name" or "not ok - name: detail", and a check that cannot run here
# "SKIP - name: reason" (never "ok"); tests/run.sh counts the three kinds of lines.
# Variables: BUILD (build directory), TMP (a private scratch directory removed on exit; TMPDIR is
# TMP/tmp).
set -u
BUILD=${BUILD:-build}
# compare's text formats fit $COLUMNS (docs/methodology.md, "Reading the output"); the tests that
# read whole lines of a table see them unsplit, and the layout tests set their own widths.
export COLUMNS=1000
TMP=$(mktemp -d "${TMPDIR:-/tmp}/allocab-test.XXXXXX")
export PYTHONPATH="$PWD/scripts:$PWD/tests${PYTHONPATH:+:$PYTHONPATH}"
trap 'rm -rf "$TMP"' EXIT
# What a command under test leaves in TMPDIR goes with the scratch directory.
export TMPDIR=$TMP/tmp
mkdir -p "$TMPDIR"
# Debian's python3 before a version manager's shim (pyenv's costs 0.7 s of CPU a start).
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir -p "$TMP/bin" && ln -s /usr/bin/python3 "$TMP/bin/python3" && export PATH="$TMP/bin:$PATH"
fi
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

# run_of FILE ARM: the path of ARM's run in round 0 of FILE (for jeq and jget).
run_of() {
	local n k
	n=$("$BUILD/tests/jget" "$1" rounds.0.runs.#)
	for ((k = 0; k < n; k++)); do
		[ "$("$BUILD/tests/jget" "$1" "rounds.0.runs.$k.arm")" = "$2" ] && { echo "rounds.0.runs.$k"; return; }
	done
}

# check NAME CMD...: ok when CMD exits 0.
check() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else notok "$name" "failed: $*"; fi
}

# mkbench FILE VAR=VALUE...: writes a bench file with the production writer: the real engine with
# a fake runner (tests/tools/mkbench.c, its fake in tests/unit/fakebench.h; formula=cycle: each
# run's time from its round, arm and workload). Variables:
#   arms="system=1,mimalloc=0.8/0.01"  arm=time factor[/noise amplitude] against system's time
#   wls="parquet_load,pipeline" rounds=8 warmup=1 mode=drivers|commands id=NAME (another machine:
#   this one with " NAME" after its CPU model)
#   fail=ARM:ROUND (its runs of measured round ROUND, from 0, crash: SIGSEGV) sum=ARM (a different
#   checksum) schema=... (the file is its header line alone, naming that schema) base=NS
#   spread=0.05 (how much the rounds differ from each other: paired ratios do not see it)
#   reps=4 (records with regimes: rep 0 cold, the last 3 steady, 64 KiB of RSS growth per rep)
#   colds="system=2,mimalloc=1" (cold rep time = steady time x this; default 1)
#   warmcold=F (the warm-up rounds' cold reps take F times longer still; default 1)
#   procs=N (every run carries a verified probe summary of N processes) calls=K (and K
#   malloc-family calls in it: K/2 malloc, K/2 free); the engine's probe needs real processes,
#   so this summary is added to the written runs, the one member not from the production writer
#   replay=NS (every record's workload ran on a recorded process: params.trace "rec.trace",
#   workload.input of pid 4242, /usr/bin/sort, NS ns while recorded)
#   unsettled=ARM (its records say regimes.settled false)
#   label=NAME (task.label: the machine's name in a fleet)  runnable=N (telemetry.runnable, 1)
#   phase=N (shifts the noise pattern by N rounds, so that machines differ)
mkbench() {
	local out=$1 a schema= procs= calls= shm args=(mode=drivers)
	shift
	for a in "$@"; do
		case $a in
		fail=*) args+=("crash=${a#fail=}") ;;
		schema=*) schema=${a#schema=} ;;
		procs=*) procs=${a#procs=} ;;
		calls=*) calls=${a#calls=} ;;
		*) args+=("$a") ;;
		esac
	done
	# the engine syncs the file after every round: in a tmpfs when there is one (ten times faster)
	if [ -d /dev/shm ] && [ -w /dev/shm ] && shm=$(mktemp -d /dev/shm/allocab-mkbench.XXXXXX); then
		"$BUILD/tests/mkbench" "$shm/f.json" formula=cycle "${args[@]}" && mv -f "$shm/f.json" "$out"
		a=$?
		rm -rf "$shm"
		[ "$a" = 0 ] || return 1
	else
		"$BUILD/tests/mkbench" "$out" formula=cycle "${args[@]}" || return 1
	fi
	if [ -n "$schema" ]; then
		sed -i "1s|\"schema\":\"allocab-bench/2\"|\"schema\":\"$schema\"|; 1q" "$out" || return 1
	fi
	if [ -n "$procs" ]; then
		PROCS=$procs CALLS=$calls perl -i -pe '
			my $p = "\"probe\":{\"verified\":true,\"reason\":null,\"tracking\":\"ptrace\",\"process_count\":$ENV{PROCS}";
			$p .= sprintf(",\"counts_total\":{\"malloc\":%d,\"free\":%d,\"bytes\":999}", int($ENV{CALLS} / 2), $ENV{CALLS} - int($ENV{CALLS} / 2)) if $ENV{CALLS} ne "";
			$p .= ",\"processes\":[]}";
			s/("telemetry":\{[^{}]*\})/$1,$p/g if $. > 1;' "$out" || return 1
	fi
}

# onedoc IN OUT [TIMES]: the bench file IN (either schema; another stays as it is) as one
# compact allocab-bench/1 document on one line, by the rule of docs/results-format.md ("allocab-bench/2",
# scripts/benchfile.py), its rounds TIMES times over (default once): the form the
# allocab-bench/1 reader is tested on.
onedoc() {
	python3 -c 'import json, benchfile, sys
d = benchfile.load(sys.argv[1])
if d.get("schema") == "allocab-bench/2":
    d["schema"] = "allocab-bench/1"
if "rounds" in d:
    d["rounds"] = d["rounds"] * int(sys.argv[3])
print(json.dumps(d, separators=(",", ":")), file=open(sys.argv[2], "w"))' "$1" "$2" "${3:-1}"
}

# onedocs DIR: every DIR/NAME.jsonl as its allocab-bench/1 document DIR/NAME.json, as onedoc
# writes it, the .jsonl removed, in one Python for all (a start of python3 took 0.45 s on the
# 2-vCPU VM make test was timed on).
onedocs() {
	python3 -c 'import glob, json, os, sys, benchfile
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    d = benchfile.load(p)
    if d.get("schema") == "allocab-bench/2":
        d["schema"] = "allocab-bench/1"
    print(json.dumps(d, separators=(",", ":")), file=open(p[:-1], "w"))
    os.unlink(p)' "$1"
}
