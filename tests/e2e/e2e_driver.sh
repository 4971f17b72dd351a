#!/usr/bin/env bash
# e2e_driver.sh - every build/allocab-<backend> end to end at small scale: it proves its own
# allocator, every workload runs and writes a valid allocab-run/1 record, all drivers agree on each
# workload's checksum for one seed (and change it for another), LD_PRELOAD of another allocator is
# refused with exit 4, and every bad input exits with its documented status and one-line message.
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
JGET=$BUILD/tests/jget

drivers=()
for d in "$BUILD"/allocab-*; do
	[ -x "$d" ] && [ -f "$d" ] && drivers+=("$d")
done
if [ ${#drivers[@]} -eq 0 ] || [ ! -x "$JGET" ]; then
	notok "drivers and jget exist" "no $BUILD/allocab-* or $JGET"
	exit 1
fi

expected_lib() {
	case $1 in
	system) echo libc.so. ;;
	mimalloc) echo libmimalloc.so. ;;
	jemalloc) echo libjemalloc.so. ;;
	tcmalloc) echo libtcmalloc_minimal.so. ;;
	*) echo "" ;;
	esac
}

# --- identity and proof ------------------------------------------------------------------------
declare -A lib
for d in "${drivers[@]}"; do
	b=${d##*/allocab-}
	f=$TMP/info.$b.json
	expect_status "$b: info --json exits 0" 0 "$d" info --json
	cp "$TMP/out" "$f"
	lib[$b]=$("$JGET" "$f" allocator.library)
	want=$(expected_lib "$b")
	if [ "$("$JGET" "$f" allocator.verified)" = true ] && [ "$("$JGET" "$f" allocator.name)" = "$b" ] &&
		[ -n "${lib[$b]}" ] && { [ -z "$want" ] || [[ "$(basename "${lib[$b]}")" == "$want"* ]]; }; then
		ok "$b: verified, malloc served by $(basename "${lib[$b]}")"
	else
		notok "$b: verified by its expected library" "$(head -c 400 "$f")"
	fi
	check "$b: info (text) exits 0" "$d" info
done

d0=${drivers[0]}
b0=${d0##*/allocab-}

# --- same code addresses: the backend comes last, so shared functions do not move -------------
# text_symbols DRIVER: "name address" of every function whose name is unique in the executable.
text_symbols() {
	nm --defined-only "$1" | awk '$2 ~ /^[Tt]$/ { print $3, $1 }' | sort |
		awk '{ n[$1]++; a[$1] = $2 } END { for (s in n) if (n[s] == 1) print s, a[s] }' | sort
}
if command -v nm >/dev/null 2>&1; then
	text_symbols "$d0" >"$TMP/nm.0"
	for d in "${drivers[@]:1}"; do
		b=${d##*/allocab-}
		text_symbols "$d" >"$TMP/nm.1"
		# Functions from the first one only $b0 has (its backend) onwards may move: libgcc, _fini.
		cut=$(join -v1 "$TMP/nm.0" "$TMP/nm.1" | awk '{ print $2 }' | sort | head -1)
		# compared as strings: an address such as 00000000000128e0 would read as the number 128
		join "$TMP/nm.0" "$TMP/nm.1" | awk -v cut="${cut:-g}" '($2 "") < (cut "")' >"$TMP/nm.common"
		shared=$(wc -l <"$TMP/nm.common")
		wl=$(grep -c '^wl_' "$TMP/nm.common")
		moved=$(awk '$2 != $3' "$TMP/nm.common" | head -3 | tr '\n' ' ')
		if [ -z "$moved" ] && [ "$shared" -gt 20 ] && [ "$wl" -gt 0 ]; then
			ok "$b: the $shared functions before the backend ($wl wl_*) are at $b0's addresses"
		else
			notok "$b: functions before the backend at $b0's addresses" "$shared compared, moved: $moved"
		fi
	done
else
	skip "same code addresses" "nm not available"
fi

# --- workloads: records, checksums across drivers and seeds ---------------------------------
expect_status "list --json exits 0" 0 "$d0" list --json
cp "$TMP/out" "$TMP/list.json"
nw=$("$JGET" "$TMP/list.json" workloads.# 2>/dev/null || echo 0)
workloads=()
for ((i = 0; i < nw; i++)); do
	workloads+=("$("$JGET" "$TMP/list.json" "workloads.$i.name")")
done
if [ "$nw" -gt 0 ] && [ "$("$JGET" "$TMP/list.json" schema)" = allocab-list/1 ]; then
	ok "list --json names $nw workloads: ${workloads[*]}"
else
	notok "list --json names workloads" "$(head -c 300 "$TMP/list.json")"
fi
"$d0" list >"$TMP/list.txt" 2>&1
missing=""
for w in "${workloads[@]}"; do grep -q "^$w: " "$TMP/list.txt" || missing+=" $w"; done
if [ -z "$missing" ]; then ok "list (text) shows every workload"; else notok "list (text)" "missing:$missing"; fi

# record_problems FILE BACKEND WORKLOAD SEED NPHASES: prints what is wrong with a run record.
record_problems() {
	local f=$1 b=$2 w=$3 seed=$4 nph=$5 p="" i name
	[ "$("$JGET" "$f" schema)" = allocab-run/1 ] || p+=" schema"
	[ "$("$JGET" "$f" allocator.verified)" = true ] || p+=" verified"
	[ "$("$JGET" "$f" allocator.name)" = "$b" ] || p+=" allocator.name"
	[ "$("$JGET" "$f" allocator.library)" = "${lib[$b]}" ] || p+=" allocator.library"
	[ "$("$JGET" "$f" workload.name)" = "$w" ] || p+=" workload.name"
	[ "$("$JGET" "$f" workload.scale)" = small ] || p+=" workload.scale"
	[ "$("$JGET" "$f" workload.seed)" = "$seed" ] || p+=" workload.seed"
	[ "$("$JGET" "$f" reps.#)" = 2 ] || p+=" reps.#"
	[ "$("$JGET" "$f" reps.0.checksum)" = "$("$JGET" "$f" checksum)" ] || p+=" reps.0.checksum"
	[ "$("$JGET" "$f" reps.1.checksum)" = "$("$JGET" "$f" checksum)" ] || p+=" reps.1.checksum"
	[[ "$("$JGET" "$f" checksum)" =~ ^[0-9a-f]{16}$ ]] || p+=" checksum-format"
	[ "$("$JGET" "$f" phases.0)" = total ] || p+=" phases.0"
	[ "$("$JGET" "$f" phases.#)" = "$nph" ] || p+=" phases.#"
	for ((i = 0; i < nph; i++)); do
		name=$("$JGET" "$f" "phases.$i")
		"$JGET" "$f" "reps.1.phases.$name.wall_ns" >/dev/null || p+=" reps.1.phases.$name"
		"$JGET" "$f" "reps.1.phases.$name.cpu_ns" >/dev/null || p+=" reps.1.phases.$name.cpu"
	done
	"$JGET" "$f" rusage.max_rss_kib >/dev/null || p+=" rusage"
	"$JGET" "$f" rss.retained_bytes >/dev/null || p+=" rss"
	"$JGET" "$f" counters >/dev/null || p+=" counters"
	"$JGET" "$f" machine.id >/dev/null || p+=" machine.id"
	echo "$p"
}

for ((i = 0; i < nw; i++)); do
	w=${workloads[$i]}
	# a workload that needs an input (replay: a trace) is run by its own test (e2e_record.sh)
	"$JGET" "$TMP/list.json" "workloads.$i.flags" | grep -q '"needs_input"' && continue
	nph=$("$JGET" "$TMP/list.json" "workloads.$i.phases.#")
	sums=()
	for d in "${drivers[@]}"; do
		b=${d##*/allocab-}
		f=$TMP/run.$b.$w.json
		expect_status "$b: run $w --scale small --seed 1 --reps 2" 0 \
			"$d" run "$w" --scale small --seed 1 --reps 2 --out "$f"
		[ -s "$f" ] || continue
		p=$(record_problems "$f" "$b" "$w" 1 "$nph")
		if [ -z "$p" ]; then ok "$b: $w record is complete and verified"; else notok "$b: $w record" "bad:$p"; fi
		sums+=("$("$JGET" "$f" checksum)")
	done
	uniq=$(printf '%s\n' "${sums[@]}" | sort -u)
	if [ ${#sums[@]} -eq ${#drivers[@]} ] && [ "$(echo "$uniq" | wc -l)" -eq 1 ]; then
		ok "$w: all ${#drivers[@]} drivers agree on checksum $uniq for seed 1"
	else
		notok "$w: drivers agree on the checksum" "$(echo "$uniq" | tr '\n' ' ')"
	fi
	expect_status "$b0: run $w --seed 2 to stdout" 0 "$d0" run "$w" --scale small --seed 2
	s2=$("$JGET" "$TMP/out" checksum 2>/dev/null)
	if [ -n "$s2" ] && [ "$s2" != "${sums[0]:-}" ]; then
		ok "$w: seed 2 gives another checksum ($s2)"
	else
		notok "$w: seed 2 gives another checksum" "seed 1 ${sums[0]:-none}, seed 2 ${s2:-none}"
	fi
done

# --- regimes: a cold rep, then reps until steady; a run that cannot settle says so -----------
f=$TMP/regimes.json
expect_status "$b0: run batch_prep --scale small (reps auto) exits 0" 0 \
	"$d0" run batch_prep --scale small --out "$f"
n=$("$JGET" "$f" reps.#)
p=""
[ "$n" -ge 4 ] && [ "$n" -le 20 ] || p+=" reps.#=$n"
[ "$("$JGET" "$f" reps.0.regime)" = cold ] || p+=" reps.0.regime"
for k in $((n - 3)) $((n - 2)) $((n - 1)); do
	[ "$("$JGET" "$f" "reps.$k.regime")" = steady ] || p+=" reps.$k.regime"
	"$JGET" "$f" "reps.$k.rss_after_bytes" >/dev/null || p+=" reps.$k.rss_after_bytes"
done
[ "$("$JGET" "$f" regimes.mode)" = auto ] || p+=" regimes.mode"
[ "$("$JGET" "$f" regimes.steady_reps)" = 3 ] || p+=" regimes.steady_reps"
[ "$("$JGET" "$f" regimes.warmup_reps)" = $((n - 4)) ] || p+=" regimes.warmup_reps"
[ "$("$JGET" "$f" regimes.cold_ns)" = "$("$JGET" "$f" reps.0.phases.total.wall_ns)" ] || p+=" regimes.cold_ns"
"$JGET" "$f" regimes.steady_ns >/dev/null || p+=" regimes.steady_ns"
"$JGET" "$f" rss.growth_bytes >/dev/null || p+=" rss.growth_bytes"
settled=$("$JGET" "$f" regimes.settled)
{ [ "$settled" = true ] || { [ "$settled" = false ] && [ "$n" = 20 ]; }; } || p+=" regimes.settled=$settled"
if [ -z "$p" ]; then ok "$b0: reps auto: cold, $((n - 4)) warm-up, 3 steady, settled $settled"; else notok "$b0: reps auto record" "$p"; fi
# the defaults of the rows of run's options (--seed 42, --max-reps 20, --steady-tol 5%, wall)
if [ "$("$JGET" "$f" workload.seed)" = 42 ] && [ "$("$JGET" "$f" regimes.rule.max_reps)" = 20 ] &&
	awk -v t="$("$JGET" "$f" regimes.rule.tolerance)" 'BEGIN { exit !(t == 0.05) }' && [ "$("$JGET" "$f" regimes.rule.time)" = wall ]; then
	ok "$b0: the rows' defaults are applied: seed 42, max_reps 20, tolerance 0.05, wall"
else
	notok "$b0: the rows' defaults are applied" "$(head -c 300 "$f")"
fi
# tolerance 0: three distinct times never agree, and 4 reps are too few for two windows
expect_status "$b0: run --max-reps 4 --steady-tol 0 exits 0" 0 \
	"$d0" run checkpoint_write --scale small --max-reps 4 --steady-tol 0 --out "$f"
if [ "$("$JGET" "$f" reps.#)" = 4 ] && [ "$("$JGET" "$f" regimes.settled)" = false ] &&
	[ "$("$JGET" "$f" regimes.rule.max_reps)" = 4 ] && [ "$("$JGET" "$f" reps.3.regime)" = steady ]; then
	ok "$b0: a run that hits --max-reps without settling is flagged settled: false"
else
	notok "$b0: unsettled run flagged" "$(head -c 300 "$f")"
fi
expect_status "$b0: run --reps 1 exits 0" 0 "$d0" run checkpoint_write --scale small --reps 1 --out "$f"
if [ "$("$JGET" "$f" reps.#)" = 1 ] && [ "$("$JGET" "$f" regimes.settled)" = null ] &&
	[ "$("$JGET" "$f" regimes.steady_ns)" = null ] && [ "$("$JGET" "$f" regimes.mode)" = fixed ]; then
	ok "$b0: --reps 1 measures the cold regime only"
else
	notok "$b0: --reps 1 is cold only" "$(head -c 300 "$f")"
fi

# --- LD_PRELOAD of another allocator is refused ------------------------------------------------
w0=${workloads[0]:-none}
for d in "${drivers[@]}"; do
	b=${d##*/allocab-}
	other=""
	for o in "${!lib[@]}"; do
		case $(basename "${lib[$o]}") in libc.so.* | allocab-*) continue ;; esac
		[ "${lib[$o]}" != "${lib[$b]}" ] && other=${lib[$o]} && break
	done
	if [ -z "$other" ] || [ "${lib[$b]}" = "$(realpath "$d")" ]; then
		# A driver whose executable defines malloc keeps it under LD_PRELOAD.
		skip "$b: LD_PRELOAD refusal" "not applicable"
		continue
	fi
	expect_status "$b: refuses to run with LD_PRELOAD=$(basename "$other") (exit 4)" 4 \
		env LD_PRELOAD="$other" "$d" run "$w0" --scale small --out "$TMP/preload.json"
	expect_err "$b: refusal is one line naming the library found" \
		"^allocab-$b: allocator: malloc is served by .*$(basename "$other"), not .+$"
	if [ ! -e "$TMP/preload.json" ]; then ok "$b: refused run wrote no file"; else notok "$b: refused run wrote no file" "$TMP/preload.json exists"; fi
	expect_status "$b: info refuses with LD_PRELOAD too (exit 4)" 4 env LD_PRELOAD="$other" "$d" info --json
done

# --- bad input: one line on stderr, nothing on stdout, documented status ----------------------
# bad NAME STATUS REGEX ARGS...: runs the first driver with ARGS.
bad() {
	local name=$1 want=$2 re=$3
	shift 3
	expect_status "$name: exit $want" "$want" "$d0" "$@"
	expect_err "$name: message" "^allocab-$b0: $re"
	if [ ! -s "$TMP/out" ]; then ok "$name: nothing on stdout"; else notok "$name: nothing on stdout" "$(head -c 200 "$TMP/out")"; fi
}

bad "no command" 2 "missing command .*\(see --help\)$"
bad "unknown command" 2 "unknown command 'frobnicate'" frobnicate
bad "run without workload" 2 "run: missing WORKLOAD" run
bad "unknown workload" 2 "run: unknown workload 'nope' \(known: .*$w0" run nope
bad "unknown option" 2 "run: unknown option '--fast'" run "$w0" --fast
bad "unknown scale" 2 "--scale: 'huge' is not one of small, default, large \\(see --help\\)$" run "$w0" --scale huge
bad "unknown parameter" 2 "--param: $w0 has no parameter 'nope' \(known: " run "$w0" --param nope=1
bad "parameter without =" 2 "--param: 'rows' is not KEY=VALUE" run "$w0" --param rows
bad "non-numeric seed" 2 "--seed: 'abc' is not a whole number" run "$w0" --seed abc
bad "negative seed" 2 "--seed: '-1' is not a whole number" run "$w0" --seed -1
bad "seed out of range" 2 "--seed: 9007199254740992 is out of range \\[0, 9007199254740991\\]" run "$w0" --seed 9007199254740992
bad "missing value" 2 "run: --seed needs a value" run "$w0" --seed
bad "zero reps" 2 "--reps: 0 is out of range \\[1, 1000\\]" run "$w0" --reps 0
bad "non-numeric reps" 2 "--reps: '2x' is not a whole number" run "$w0" --reps 2x
bad "steady-tol out of range" 2 "--steady-tol: 101 is out of range \\[0%, 100%\\]" run "$w0" --steady-tol 101
bad "steady-time not a word of its row" 2 "--steady-time: 'gpu' is not one of wall, cpu" run "$w0" --steady-time gpu
bad "--max-reps with --reps N" 2 "--max-reps cannot be combined with --reps 2: it caps --reps auto" run "$w0" --reps 2 --max-reps 5
bad "list with junk" 2 "list: unexpected argument 'x'" list x
bad "list: the bad argument is named, not --json" 2 "list: unexpected argument 'x'" list x --json
bad "info: the bad argument is named after --json" 2 "info: unexpected argument 'y'" info --json y
# list, info and env read their arguments by their option rows (src/driver/driver.c), with the
# parser's one message form (src/common/opt.h) and exit 2.
bad "list: unknown option" 2 "list: unknown option '--bogus' \(see --help\)$" list --bogus
bad "list: a flag given a value" 2 "list: --json takes no value \(see --help\)$" list --json=1
bad "info: unknown option" 2 "info: unknown option '-x' \(see --help\)$" info -x
bad "info: --json twice" 2 "info: --json is given twice \(see --help\)$" info --json --json
bad "env: unknown option" 2 "env: unknown option '--bogus' \(see --help\)$" env --bogus
bad "env: --config without its value" 2 "env: --config needs a value \(see --help\)$" env --config
bad "env: an extra operand" 2 "env: unexpected argument 'x' \(see --help\)$" env --probe x
bad "env: --probe twice" 2 "env: --probe is given twice \(see --help\)$" env --probe --probe
bad "env: an unknown --config key, config_add's message through the row" 2 \
	"--config: $b0 has no option 'nope' \(known: .*\) \(see --help\)$" env --config nope=1
bad "run: --config without its value" 2 "run: --config needs a value \(see --help\)$" run "$w0" --config
bad "run: an extra operand" 2 "run: unexpected argument 'x' after workload '$w0'" run "$w0" x
bad "help: an extra operand" 2 "help: unexpected argument 'x' \(see --help\)$" help x
bad "help: unknown option" 2 "help: unknown option '--mann' \(see --help\)$" help --mann
bad "--version with a value is no option" 2 "unknown command '--version=2'" --version=2
bad "run: --help as an option's value is that value" 2 "--seed: '--help' is not a whole number" run "$w0" --seed --help

# The first parameter of the first workload that has one, for value errors.
pw="" pn="" pmin="" pmax=""
for ((i = 0; i < nw; i++)); do
	if [ "$("$JGET" "$TMP/list.json" "workloads.$i.params.#")" -gt 0 ]; then
		pw=${workloads[$i]}
		pn=$("$JGET" "$TMP/list.json" "workloads.$i.params.0.name")
		pmin=$("$JGET" "$TMP/list.json" "workloads.$i.params.0.min")
		pmax=$("$JGET" "$TMP/list.json" "workloads.$i.params.0.max")
		break
	fi
done
if [ -n "$pw" ]; then
	bad "non-numeric parameter" 2 "--param $pn: 'abc' is not a " run "$pw" --param "$pn=abc"
	bad "parameter with junk" 2 "--param $pn: '12x' is not a " run "$pw" --param "$pn=12x"
	bad "empty parameter" 2 "--param $pn: empty value" run "$pw" --param "$pn="
	bad "parameter above range" 2 "--param $pn: $((pmax + 1)) is out of range \\[$pmin, $pmax\\]" \
		run "$pw" --param "$pn=$((pmax + 1))"
	bad "parameter overflow" 2 "--param $pn: 99999999999999999999999 is out of range " \
		run "$pw" --param "$pn=99999999999999999999999"
	bad "parameter twice" 2 "--param $pn is given twice" run "$pw" --param "$pn=$pmin" --param "$pn=$pmin"
	if [ "$pmin" -gt 0 ]; then
		bad "zero parameter" 2 "--param $pn: 0 is out of range \\[$pmin, $pmax\\]" run "$pw" --param "$pn=0"
	fi
else
	notok "a workload parameter to test values on" "no workload has parameters"
fi

# Too large for physical memory: the largest model checkpoint_write accepts (tens of TB).
if printf '%s\n' "${workloads[@]}" | grep -qx checkpoint_write; then
	bad "footprint above physical memory" 2 \
		"checkpoint_write: these parameters need up to [0-9]+ bytes \(.*\), more than 1/2 of the [0-9]+ bytes \(.*\) of physical memory$" \
		run checkpoint_write --param layers=999 --param hidden=16384 --param vocab=1048576
else
	skip "footprint above physical memory" "no checkpoint_write workload"
fi

# An allocation failure inside a workload: a 300 MB address-space limit against checkpoint_write's
# default model (about 850 MB): exit 1, reported as out of memory, no record.
if printf '%s\n' "${workloads[@]}" | grep -qx checkpoint_write; then
	for d in "${drivers[@]}"; do
		b=${d##*/allocab-}
		expect_status "$b: allocation failure in a workload exits 1" 1 \
			bash -c 'ulimit -v 300000 && exec "$@"' _ "$d" run checkpoint_write --scale default \
			--out "$TMP/oom.json"
		expect_err "$b: allocation failure is reported as such" "^allocab-$b: checkpoint_write: out of memory"
		if [ ! -e "$TMP/oom.json" ]; then ok "$b: failed run wrote no record"; else notok "$b: failed run wrote no record" "$TMP/oom.json exists"; fi
	done
fi

# Unwritable --out: exit 1 before running, one line, no file and no temporary left.
mkdir -p "$TMP/outdir"
: >"$TMP/outdir/regular"
bad "--out in a missing directory" 1 "--out $TMP/outdir/missing/r.json: No such file or directory$" \
	run "$w0" --scale small --out "$TMP/outdir/missing/r.json"
bad "--out under a regular file" 1 "--out $TMP/outdir/regular/r.json: Not a directory$" \
	run "$w0" --scale small --out "$TMP/outdir/regular/r.json"
bad "--out is a directory" 1 "--out $TMP/outdir: Is a directory$" run "$w0" --scale small --out "$TMP/outdir"
left=$(find "$TMP/outdir" -mindepth 1 ! -name regular | head -3)
if [ -z "$left" ]; then ok "failed --out left no file behind"; else notok "failed --out left no file behind" "$left"; fi

# A bare file name lands in the working directory; /dev/null stays a device.
d0_abs=$(realpath "$d0")
(cd "$TMP/outdir" && "$d0_abs" run "$w0" --scale small --out bare.json) >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 0 ] && [ "$("$BUILD/tests/jget" "$TMP/outdir/bare.json" schema)" = allocab-run/1 ]; then
	ok "--out with a bare file name writes it in the working directory"
else
	notok "--out with a bare file name writes it in the working directory" "$(head -c 300 "$TMP/err")"
fi
rm -f "$TMP/outdir/bare.json"
expect_status "--out /dev/null exits 0" 0 "$d0" run "$w0" --scale small --out /dev/null
if [ -c /dev/null ]; then ok "--out /dev/null leaves the device in place"; else notok "--out /dev/null leaves the device in place" "/dev/null is no longer a character device"; fi

# --help and --version: stdout, exit 0.
expect_status "--help exits 0" 0 "$d0" --help
if grep -q "^usage: allocab-$b0 run WORKLOAD" "$TMP/out" && [ ! -s "$TMP/err" ]; then ok "--help prints usage on stdout"; else notok "--help prints usage on stdout" "$(head -c 200 "$TMP/out")"; fi
expect_status "run --help exits 0" 0 "$d0" run --help
# The usage's options come from the rows of every command: list's and info's --json and env's
# --probe under their headings, with their rows' help.
"$d0" --help >"$TMP/help"
if grep -q '^Options of list and info:$' "$TMP/help" && grep -Eq '^  --json +print one JSON document' "$TMP/help" &&
	grep -q '^Options of env:$' "$TMP/help" && grep -Eq '^  --probe +also print the preload probe' "$TMP/help" &&
	grep -Eq '^  --config KEY=VALUE +set an allocator option' "$TMP/help"; then
	ok "--help lists list's, info's and env's options from their rows"
else
	notok "--help lists list's, info's and env's options from their rows" "$(grep -A2 'Options of' "$TMP/help" | head -c 400)"
fi
for a in "list --help" "info --bogus --help" "env x -h" "list --json --help"; do
	# shellcheck disable=SC2086
	expect_status "$a: the usage, exit 0" 0 "$d0" $a
	if cmp -s "$TMP/out" "$TMP/help" && [ ! -s "$TMP/err" ]; then ok "$a: the same usage on stdout"; else notok "$a: the same usage on stdout" "$(head -c 200 "$TMP/out") $(head -c 200 "$TMP/err")"; fi
done
# env reads --probe and --config in any order.
ds=$BUILD/allocab-system
if [ ! -x "$ds" ]; then
	skip "env: --probe and --config in any order" "no $ds"
else
	o1=$("$ds" env --probe --config mmap_threshold=1M 2>&1)
	o2=$("$ds" env --config=mmap_threshold=1M --probe 2>&1)
	if [ "$o1" = "$o2" ] && printf '%s\n' "$o1" | grep -q '^ALLOCAB_PROBE_CONFIG=mmap_threshold='; then
		ok "env: --probe and --config in any order"
	else
		notok "env: --probe and --config in any order" "$o1 / $o2"
	fi
fi
expect_status "--version exits 0" 0 "$d0" --version
if grep -Eq "^allocab-$b0 [0-9]+\.[0-9]+" "$TMP/out"; then ok "--version prints the version"; else notok "--version prints the version" "$(cat "$TMP/out")"; fi

exit "$t_fail"
