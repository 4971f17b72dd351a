#!/usr/bin/env bash
# check_layers.sh - the structure of the tree (docs/architecture.md, "Layout").
#
# Includes: every #include "..." of the C code under ROOT (default: the repository) must name its
# layer and point down or sideways, never up or across programs. The front end's modules
# (src/front/M/) follow one convention: a module's public header is front/M/M.h; every other
# header of its folder is private to it; a module includes its own folder, common/, and the
# public headers of the modules it uses (MODULES below), nothing else.
#
# Calls (with BUILD, the build directory of a `make build-all`): from the objects' symbols, no
# front-end file calls into a module it does not use, and the files of one module do not call
# each other in a circle.
#
# Prints each offending FILE:LINE (or FILE: for calls) and exits 1; exits 0 when all hold.
# Usage: scripts/check_layers.sh [ROOT [BUILD]]
#        scripts/check_layers.sh --layout   (the layout table of docs/architecture.md, "Layout", from
#        LAYOUT, MODULES and RULES below; scripts/layout_doc.sh puts it into the file)
set -u
print_layout=0
if [ "${1:-}" = --layout ]; then
	print_layout=1
	shift
fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
build=${2:-}
cd "$root" || exit 2

# The front end's modules and the modules each may use; the order is bottom to top.
modules=(
	"proc|"
	"arms|proc marks"
	"stats|"
	"results|stats marks arms"
	"compare|stats results"
	"fleet|stats results compare"
	"claims|stats results compare"
	"calib|stats results compare"
	"gate|stats results compare calib fleet"
	"draw|stats results compare fleet"
	"export|stats results compare claims fleet draw"
	"engine|stats results compare gate arms proc marks"
	"plan|stats results gate arms proc engine"
	"cmd|stats results compare fleet claims calib gate export arms engine plan trace"
)

# The modules both programs link, below the front end's and above common/ (src/M/, public header
# M/M.h); a front-end module names those it uses in MODULES like any other.
shared=(marks trace)

# What the other folders may include, by path prefix of the included file. The first rule whose
# folder is a prefix of the file's path applies; a C file under no rule is an error.
rules=(
	"src/common/|common/"
	"src/marks/|common/ marks/ trace/trace_format.h"
	"src/trace/session.c|common/ trace/ marks/marks.h front/proc/proc.h"
	"src/trace/|common/ trace/ marks/marks.h"
	"src/driver/|common/ driver/"
	"workloads/|common/ driver/ workloads/ trace/trace.h"
	"allocators/|driver/backend.h common/hugetlb.h"
	"src/preload/|trace/trace_format.h common/allocknown.h common/hugetlb.h preload/"
	"src/front/allocab.c|common/ front/cmd/commands.h"
)

# The tree's folders as docs/architecture.md's table shows them: path|program|what|may include.
# The last field is given only for folders under no rule; a module's or a rule's folder takes it
# from MODULES or RULES. Every module and every rule needs a row here (--layout refuses otherwise).
layout=(
	"src/common/|both|base: PRNG, machine fingerprint, atomic writes, error lines (\`errmsg\`), number parsing, the one option parser (\`opt.h\`) and what \`--help\` and the man page say of options (\`optdoc.h\`), exit statuses (\`status.h\`), the modes of process tracking a results file records (\`trackmode.h\`), name indexes (\`nameidx.h\`), the one u64 map (\`u64map.h\`), the one finder of the project's preload libraries (\`ownlib.h\`), strict JSON reading over cJSON (\`jsonload.h\`, \`jsonstream.h\`, \`jsonstrict.h\`), UTF-8 (\`utf8.h\`)|"
	"src/marks/|both|the phase marks module (\`marks.h\`): what a mark is and its bounds, the marks file a program writes (\`phasemark.c\`), the marks block of a trace (\`block.c\`), the spans of a recorded command given to its process images (\`attrib.c\`)|"
	"src/trace/|both (its reader, \`trace.c\`, \`payload.c\` and \`load.c\`); the rest the front end|the trace module (\`trace.h\`; docs/trace-format.md): the format (\`trace_format.h\`, which the recorder shares), the reader (\`trace.c\`, its blocks' payloads decoded in \`payload.c\`) and loader of whole processes (\`load.c\`), the bundler of raw streams (\`bundle.c\`) with its k-way merge of a process's threads (\`merge.c\`), what \`trace info\` says (\`stat.c\`, its marked phases \`statmarks.c\`), the recording session of \`allocab record\` (\`session.c\`, next row)|"
	"src/trace/session.c|front end|the recording session of \`allocab record\`, the one file of the trace module that runs a process: it runs COMMAND with the front end's one process supervisor, proc's runner (\`front/proc/proc.h\`), which uses no other module and nothing of the trace, so the edge points down to the bottom of the front end and closes no circle; the drivers' part of the trace (\`trace.c\`, \`payload.c\`, \`load.c\`) keeps to the row above|"
	"src/driver/|drivers \`allocab-<backend>\`|main (\`driver.c\`, with the option rows of \`list\`, \`info\` and \`env\`), \`run\` options (\`params.c\`), the timed loop of the reps (\`measure.c\`), \`list\`/\`info\` documents (\`describe.c\`), allocator proof, allocator configurations (\`config.c\`, docs/tuning.md, with the \`--config\` row of \`run\` and \`env\`), run record and its writing (\`runrec.c\`; the phases an input marks, \`runmarks.c\`), workload registry; the interfaces \`backend.h\` and \`workload.h\`|"
	"workloads/|drivers|one file per workload, each a \`const struct workload\` table (docs/workloads.md)|"
	"workloads/lib/|drivers|code shared by workloads: phase timing, checksums, the Parquet-like file and its column readers (\`parquet_read.c\`), the checkpoint's state dict and safetensors header (\`ckpt_format.c\`), feature_extract's features of a tick (\`features.c\`), the replay's loader (\`replay_load.c\`, its marked phases in \`replay_marks.c\`, what a replay costs in \`replay_cost.c\`)|"
	"allocators/|drivers|one file per backend, a \`const struct backend_ops\` table (docs/allocators.md); linked last; \`common/hugetlb.h\` is header-only|"
	"src/front/proc/|front end|running the processes a bench measures and proving what ran in them (\`proc.h\`): the process runner (\`runner.c\`, its start \`runspawn.c\` and its wait \`runwait.c\`), the one process supervisor, which with its flags also runs \`allocab record\`'s COMMAND in the foreground and waits for what it leaves in the background (\`orphans.c\`), telemetry (\`telemetry.c\`), duet runs (\`duet.c\`, their helpers \`duethelper.c\`, whose reports are read in \`duetread.c\` and checked against the kernel in \`duetcheck.c\`), the tracer and its helpers kept from being dumpable (\`dumpable.c\`), allocator libraries (\`preload.c\`), probe records read (\`probelog.c\`), judged in one place (\`probejudge.c\`, over the records grouped by image in \`probeimg.c\` and paired with what the tracker and the connector saw in \`probematch.c\`) and summarised (\`probesum.c\`), process tracking with ptrace (\`ptrack.c\`, what it keeps \`ptrackrec.c\`), containment of a run in a cgroup with the proc connector (\`contain.c\`, the connector \`containnl.c\`, its cgroup directories \`cgtree.c\`), nothing left behind (the bench's guard \`guard.c\`, what dead benches left \`sweep.c\`), executable facts (\`elfscan.c\`) and identity (\`exeid.c\`), the machine's facts measured at a bench's start and end (\`facts.c\`)|"
	"src/front/arms/|front end|the kinds of arm a bench runs (\`arms.h\`), each a const \`struct arm_kind_ops\` with capability flags, in the manner of fio's ioengines: its argv, its fold of a finished run's evidence (the CPU time of every process), what config records of it, the hooks that prepare a run's probe and marks files and judge them after the run (the probe's records by proc's judgement, the spans of the marks), and its arm's private data (what the arm runs: a driver's path and settings, \`struct arm_driver_data\`; a command and its proof, \`struct arm_shell_data\`), made by the kind's constructor, read through its hooks and freed by it; one file per family: \`driver.c\` (driver, configured), \`command.c\` (command, program), the probed kinds' data and probe \`probe.c\`, the runs' phase marks \`marks.c\`, the table \`arms.c\`; each family's mode (\`struct arm_mode\`: config.mode and what the reading side makes of its runs), which results reads instead of a table of its own. Below results, so that the reading side and the engine read one table; above proc and marks, whose probe and marks files the hooks use|"
	"src/front/stats/|front end \`allocab\`|statistics (\`stats.h\`): medians, Hodges–Lehmann estimates and their intervals, rank tests, multiplicity, sequential intervals (\`seqci.c\`), planning (\`design.c\`), distributions, log ratios of integer times|"
	"src/front/results/|front end|reading and validating results files into per-round tables (\`results.h\`), a program's marked phases (\`rfmarks.c\`), what the arms' kind makes of the runs, the mode config.mode names found in the arms' table (\`rfkind.c\`), a document's rounds of one placement, solo or shared (\`rfview.c\`)|"
	"src/front/compare/|front end|comparisons (\`compare.h\`): paired and two-sample rows, verdicts, the primary and secondary families, geometric means, what a difference is made of (\`attrib.c\`), a shared-CPU bench checked against its solo rounds (\`cmpsolo.c\`), noise flags, warnings|"
	"src/front/fleet/|front end|a fleet of machines (\`fleet.h\`): one paired comparison per file, pooled per comparison by random effects, odd machines, gaps with their reasons, busy machines|"
	"src/front/claims/|front end|quoted speedups checked against a comparison (\`claims.h\`)|"
	"src/front/calib/|front end|the noise floor (\`calib.h\`): A/A analysis, the calibration file and its report, compare's noise-floor column|"
	"src/front/gate/|front end|the gate's judging (\`gate.h\`), of one file and of a fleet (\`gatefleet.c\`)|"
	"src/front/draw/|front end|the drawing (\`draw.h\`): SVG written by the project's own code, its primitives and one stylesheet (\`svgdraw.c\`); the charts the html and svg formats draw: the forest plot and speed against memory (\`charts.c\`), the measured times and the rounds in run order (\`chartsamples.c\`), what each difference is made of (\`attribchart.c\`), a fleet's forest plot (\`fleetchart.c\`); the raw samples behind them, which the history formats read too (\`series.c\`)|"
	"src/front/export/|front end|every output format of \`compare --format\` and \`merge --format\`, one file per format named after it, behind one registry (\`export.h\`, \`export.c\`), the text table included (\`table.c\`); and what the formats share (\`exportint.h\`): both text tables (\`markup.c\`, their cells \`cells.c\`), text that fits a width (\`grid.c\`), what the formats say besides their tables (\`prose.c\`, \`fmt.c\`), what a fleet adds (\`fleettext.c\`), what each difference is made of (\`attribfmt.c\`), what the replays say (\`replayfmt.c\`), the claims (\`claimsfmt.c\`), the history services' benchmarks (\`history.c\`); the charts it draws are \`draw/\`'s|"
	"src/front/engine/|front end|the bench engine (\`engine.h\`): its loop (\`benchrun.c\`), a round's plan, runs and evidence (\`benchround.c\`), the runs of a pair (\`benchpair.c\`), the solo anchor rounds of a shared-CPU bench and the threads its runs started (\`benchsolo.c\`), what it judges between rounds and what it decides (\`benchjudge.c\`), adaptive allocation (\`benchalloc.c\`), the writes of its file (\`benchwrite.c\`), its end (\`benchend.c\`), what it says of its arms at its end (\`benchreport.c\`), a bench continued from the rounds of its file (\`benchresume.c\`), the document's head (\`benchdoc.c\`) and its runs (\`benchdocrun.c\`), its progress line (\`benchprogress.c\`, shown as \`progress.c\` says); a run whose phase marks fail made invalid (\`phaserun.c\`), the arms' kinds as the engine asks them (\`benchkind.c\`)|"
	"src/front/plan/|front end|what a bench runs, built before the engine runs it (\`plan.h\`; docs/architecture.md, \"The plan\"): its steps (\`build.c\`), the arms (\`arms.c\`), drivers (\`drivers.c\`), workload lists (\`workloads.c\`), --duet's rule (\`duet.c\`), the rounds rule (\`rules.c\`), outputs and the machine lock (\`outputs.c\`), signals, seed and output directories (\`setup.c\`), a task of a job array (\`task.c\`), a bench continued from its file (\`resume.c\`), the names and comma lists a command line gives and the drivers' directory (\`names.c\`), configured arms (\`armspec.c\`), program arms, --expect and their proof (\`program.c\`)|"
	"src/front/cmd/|front end|one file per subcommand, named after it (\`bench.c\` with its options in \`benchopt.c\`, their table in \`benchoptab.c\` and what it says after its rounds in \`benchtell.c\`, \`compare.c\`, \`merge.c\`, \`gate.c\`, \`calibrate.c\`, \`record.c\`, \`trace.c\`), and all argv parsing (the gate's options, shared by \`gate\` and \`bench --gate\`: \`gateopt.c\`; the option rows compare, merge and gate share, and bench's and compare's \`--time\`: \`cmdopt.c\`); a report written whole (\`report.c\`); what completion offers (\`help.c\`); \`commands.h\`|"
	"src/front/allocab.c|front end|main: the \`commands[]\` table (name, function, usage and option table, one-line help)|"
	"src/preload/|\`liballocab-NAME.so\`, one per \`NAME.c\` (+ \`NAME_*.c\`)|LD_PRELOAD libraries: \`record.c\` + \`record_*.c\` (\`record.h\` names their roles) behind \`allocab record\` (docs/trace-format.md); \`probe.c\` + \`probe_exec.c\`, which object serves malloc in every process of a \`--program\`/\`--expect\` run; \`count.c\`, \`--count-calls\` (docs/programs.md); the \`common/\` headers they include are header-only|"
	"phase/|your programs|the helpers a program marks its phases with: \`allocab_phase.h\` (C, header only) and \`allocab_phase.py\` (docs/programs.md)|libc only"
	"examples/||training jobs for \`make bench-models\` (docs/models.md): \`models/\` (Python, Debian's PyTorch), \`rust-train/\` (cargo, no crates); \`programs/\`, a program nobody tuned to (docs/programs.md): \`tabular.py\`, Debian's pandas and scikit-learn, and \`churn.py\`, standard library only, the job docs/ci.md measures the workflow's budget with|\`phase/\`"
	"tests/||run by \`tests/run.sh\` (docs/HACKING.md, \"Tests\"): unit tests in \`unit/<module>/\` (\`test_*.c\`, also run under ASan+UBSan; their shared headers in \`unit/\`), end-to-end tests in \`e2e/\` (\`e2e_*.sh\`, \`lib.sh\`), the programs and helpers tests and \`make validate\` build or call in \`tools/\`, inputs in \`fixtures/\`, the readers' fuzz targets and corpus in \`fuzz/\`|anything"
	"scripts/||\`deps.sh\`, \`bench.sh\`, \`bench_models.sh\` (with \`models_table.py\`), \`benchmark_mimalloc.sh\`, \`validate.sh\` (and its parts \`validate_seq.sh\`, \`validate_fleet.sh\`, \`validate_variance.sh\`, \`validate_sessions.sh\`, \`validate_family.sh\`, \`validate_solo.sh\`), \`check_layers.sh\` (this table, \`--layout\`) and \`layout_doc.sh\`, the convention checks (docs/HACKING.md), \`manopts.sh\` (the man page's option entries, \`make man\`), \`completion/allocab.bash\` (bash completion, which asks \`allocab help --complete\`)|"
	"docs/||methodology (the guide), statistics (the reference), validation (what was measured), usage (every command by example), results format, allocators, workloads, calibration, CI (\`ci.md\` and the workflow \`ci/allocab.yml\` it quotes), fleets (\`fleet.md\` and the launchers \`fleet/\` it quotes), claims, traces, training models (\`models.md\`), conventions (\`HACKING.md\`), the man page \`allocab.1\`|"
	"results/||bench output (git-ignored)|"
)

# The markdown table of LAYOUT; 1 (and what is missing) when a module or rule has no row.
layout_table() {
	local row path prog what inc m r u missing=0
	declare -A seen=()
	for row in "${layout[@]}"; do seen[${row%%|*}]=1; done
	for m in "${modules[@]}"; do
		[ -n "${seen[src/front/${m%%|*}/]+x}" ] || { echo "check_layers.sh: module ${m%%|*} has no LAYOUT row" >&2; missing=1; }
	done
	for r in "${rules[@]}"; do
		[ -n "${seen[${r%%|*}]+x}" ] || { echo "check_layers.sh: rule ${r%%|*} has no LAYOUT row" >&2; missing=1; }
	done
	for row in "${layout[@]}"; do
		path=${row%%|*}
		[ -e "$path" ] || { echo "check_layers.sh: LAYOUT names $path, which does not exist" >&2; missing=1; }
	done
	[ $missing -eq 0 ] || return 1
	echo "| path | program | layer: what | may include |"
	echo "|---|---|---|---|"
	for row in "${layout[@]}"; do
		IFS='|' read -r path prog what inc <<<"$row"
		if [[ $path == src/front/*/ ]]; then
			m=${path#src/front/}
			m=${m%/}
			inc="\`common/\`"
			for u in $(uses_of "$m"); do inc+=", $u"; done
			[ "$m" = cmd ] && inc="\`common/\`, every module"
		elif [ -z "$inc" ]; then
			inc=""
			for u in $(allowed_for "$path"); do inc+="${inc:+, }\`$u\`"; done
		fi
		echo "| \`$path\` | $prog | $what | $inc |"
	done
}

uses_of() {
	local m
	for m in "${modules[@]}"; do
		[ "${m%%|*}" = "$1" ] && { echo "${m#*|}"; return 0; }
	done
	return 1
}

allowed_for() {
	local file=$1 r mod uses u
	if [[ $file == src/front/*/* ]]; then
		mod=${file#src/front/}
		mod=${mod%%/*}
		uses=$(uses_of "$mod") || return 1
		echo -n "common/ front/$mod/"
		for u in $uses; do
			if [[ " ${shared[*]} " == *" $u "* ]]; then echo -n " $u/$u.h"; else echo -n " front/$u/$u.h"; fi
		done
		echo
		return 0
	fi
	for r in "${rules[@]}"; do
		if [[ $file == "${r%%|*}"* ]]; then
			echo "${r#*|}"
			return 0
		fi
	done
	return 1
}

if [ $print_layout -eq 1 ]; then
	layout_table
	exit
fi

bad=0
while IFS= read -r file; do
	if ! allowed=$(allowed_for "$file"); then
		echo "$file:1: no layer rule for this folder (scripts/check_layers.sh)"
		bad=1
		continue
	fi
	while IFS=: read -r line inc; do
		ok=0
		for a in $allowed; do
			if [[ $a == */ ]]; then [[ $inc == "$a"* ]] && ok=1; else [[ $inc == "$a" ]] && ok=1; fi
		done
		if [[ $inc != */* ]]; then
			echo "$file:$line: #include \"$inc\" does not name its layer (e.g. \"common/prng.h\")"
			bad=1
		elif [ $ok -eq 0 ]; then
			echo "$file:$line: #include \"$inc\" crosses layers: ${file%/*}/ may include only $allowed"
			bad=1
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
		sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
done < <(find src workloads allocators -name '*.[ch]' 2>/dev/null | sort)

# Calls between the front end's files, from the symbols of their objects.
if [ -n "$build" ]; then
	declare -A owner uses_map
	for m in "${modules[@]}"; do uses_map[${m%%|*}]=${m#*|}; done
	srcs=$(find src/front -mindepth 2 -name '*.c' | sort)
	objs=()
	for c in $srcs; do
		o=$build/${c%.c}.o
		if [ ! -f "$o" ]; then
			echo "$c: no object $o (run make build-all first)"
			bad=1
			continue
		fi
		objs+=("$o")
	done
	# One nm per kind over every object: "OBJ:ADDR TYPE SYMBOL" defined, "OBJ: U SYMBOL" used;
	# an edge "FROM TO" for every symbol FROM uses that another file defines.
	edges=$(if [ ${#objs[@]} -gt 0 ]; then
		{
			nm -A --defined-only -g "${objs[@]}" | sed 's/^/D /'
			nm -A -u "${objs[@]}" | sed 's/^/U /'
		} | awk -v build="$build/" '
			function src(f) { sub(/:[^:]*$/, "", f); f = substr(f, length(build) + 1); sub(/\.o$/, ".c", f); return f }
			$1 == "D" && $(NF - 1) ~ /^[TDBR]$/ { owner[$NF] = src($2); next }
			$1 == "U" { c = src($2); t = owner[$NF]; if (t != "" && t != c) print c, t }'
	fi | sort -u)
	while read -r from to; do
		[ -n "$from" ] || continue
		fm=${from#src/front/}; fm=${fm%%/*}
		tm=${to#src/front/}; tm=${tm%%/*}
		[ "$fm" = "$tm" ] && continue
		if ! [[ " ${uses_map[$fm]:-} " == *" $tm "* ]]; then
			echo "$from: calls into $to: module $fm does not use $tm"
			bad=1
		fi
	done <<<"$edges"
	# Circles among the files of one module: tsort reports them.
	cyc=$(awk '{split($1, a, "/"); split($2, b, "/"); if (a[3] == b[3]) print $1, $2}' <<<"$edges" |
		tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //')
	if [ -n "$cyc" ]; then
		echo "calls run in a circle among: $(echo $cyc | tr '\n' ' ')"
		bad=1
	fi
fi
exit $bad
