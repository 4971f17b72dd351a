#!/usr/bin/env bash
# validate_sessions.sh - the sessions part of `make validate` (scripts/validate.sh; alone:
# VALIDATE_ONLY=sessions make validate): how well sessions of one machine agree. It runs
# `make bench`-like sessions one after the other on this machine, each beside another number of
# CPU hogs (so at other loads and times), merges them (`allocab merge`: the files are sessions of
# one machine, pooled as such), and reports the share of comparisons whose intervals are disjoint
# between two sessions, with the trial counts, and the between-session spread (tau) per
# comparison. Prints the markdown section on stdout, progress on stderr. docs/fleet.md, "Sessions
# of one machine", quotes a run.
# Knobs (environment): VALIDATE_SESSIONS (3), VALIDATE_SESSION_BUDGET (270 s per session, make
# bench's default), VALIDATE_SESSION_ARGS (more bench options, e.g. "-w checkpoint_write,pipeline
# --scale small"; default none: every allocator on every workload, as make bench),
# VALIDATE_SESSION_HOGS ("0 1 2": CPU hogs beside each session in turn), VALIDATE_SESSION_GAP (0 s
# of pause between sessions).
set -u
BUILD=${BUILD:-build}
S=${VALIDATE_SESSIONS:-3}
BUDGET=${VALIDATE_SESSION_BUDGET:-270}
ARGS=${VALIDATE_SESSION_ARGS:-}
HOGS=(${VALIDATE_SESSION_HOGS:-0 1 2})
GAP=${VALIDATE_SESSION_GAP:-0}
A=$BUILD/allocab
PY=/usr/bin/python3

[ -x "$A" ] || { echo "validate: $A is missing (make all first)" >&2; exit 1; }
[ -x "$PY" ] || { echo "validate: sessions: python3 is missing (make deps installs it)" >&2; exit 1; }
[ "$S" -ge 2 ] 2>/dev/null || { echo "validate: VALIDATE_SESSIONS must be 2 or more" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-validate-sessions.XXXXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT
t_start=$(date +%s)
log() { printf '[validate sessions %4ds] %s\n' $(($(date +%s) - t_start)) "$*" >&2; }

for i in $(seq 1 "$S"); do
	h=${HOGS[$(((i - 1) % ${#HOGS[@]}))]}
	pids=()
	for _ in $(seq 1 "$h"); do
		yes >/dev/null &
		pids+=($!)
	done
	load=$(cut -d' ' -f1 /proc/loadavg)
	log "session $i of $S: budget $BUDGET s beside $h CPU hog(s), load $load"
	t0=$(date +%s)
	# shellcheck disable=SC2086 # ARGS is a list of options
	"$A" bench --budget "$BUDGET" --label "s$i" --quiet -o "$W/s$i.json" $ARGS 2>"$W/s$i.err" ||
		log "session $i: bench exited $? ($(tail -1 "$W/s$i.err"))"
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pids=()
	printf '%s\t%s\t%s\t%s\t%s\n' "s$i" "$h" "$load" "$(($(date +%s) - t0))" "$(date -u +%H:%M:%SZ)" >>"$W/sessions.tsv"
	[ "$i" -lt "$S" ] && sleep "$GAP"
done
"$A" merge "$W"/s*.json --format json -o "$W/m.json" 2>"$W/merge.err" ||
	{ echo "validate: sessions: merge failed: $(cat "$W/merge.err")" >&2; exit 1; }

"$PY" - "$W/m.json" "$W/sessions.tsv" "$BUDGET" "$ARGS" <<'PY'
import itertools, json, math, sys

m = json.load(open(sys.argv[1]))
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
budget, args = sys.argv[3], sys.argv[4]
rounds = {x["label"]: x["input"].get("rounds") for x in m["machines"]}

def wilson(k, n):
    if n == 0:
        return "-"
    z = 1.959964; p = k / n; d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d; h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return "%d/%d (%.1f-%.1f%%)" % (k, n, 100 * max(0, c - h), 100 * min(1, c + h))

pairs = disjoint = comps = 0
taus, odd = [], []
for c in m["comparisons"]:
    cells = [x for x in c["machines"] if x.get("ci")]
    if len(cells) < 2:
        continue
    comps += 1
    name = "%s/%s %s %s" % (c.get("workload") or "geomean", c["phase"], c["regime"], c["candidate"])
    for a, b in itertools.combinations(cells, 2):
        pairs += 1
        if a["ci"]["log_hi"] < b["ci"]["log_lo"] or b["ci"]["log_hi"] < a["ci"]["log_lo"]:
            disjoint += 1
            odd.append("%s: %s %.3fx [%.3f, %.3f] vs %s %.3fx [%.3f, %.3f]" % (
                name, a["machine"], a["speedup"], a["ci"]["speedup_lo"], a["ci"]["speedup_hi"],
                b["machine"], b["speedup"], b["ci"]["speedup_lo"], b["ci"]["speedup_hi"]))
    if c.get("pooled"):
        taus.append(c["pooled"]["tau"])
taus.sort()
print("## (g) Sessions of one machine: how well %d sessions agree" % len(rows))
print()
print("%d `make bench`-like sessions one after the other on this machine (`allocab bench --budget %s%s`),"
      % (len(rows), budget, (" " + args) if args else ""))
print("each beside the CPU hogs of its row; `allocab merge` of the files (sessions of one machine, one boot id).")
print()
print("| session | CPU hogs beside it | load average at start | wall time | ended (UTC) | measured rounds |")
print("|---|---|---|---|---|---|")
for s, h, load, secs, end in rows:
    print("| %s | %s | %s | %s s | %s | %s |" % (s, h, load, secs, end, rounds.get(s, "-")))
print()
print("- comparisons with an interval in at least two sessions: %d; pairs of sessions x comparisons: %d" % (comps, pairs))
print("- **pairs whose intervals (each session's, at compare's family level) are disjoint: %s**" % wilson(disjoint, pairs))
if taus:
    print("- between-session spread tau of the log ratio, per comparison: median %.3g, max %.3g (%d comparisons pooled across sessions)"
          % (taus[len(taus) // 2], taus[-1], len(taus)))
print()
if odd:
    print("<details><summary>disjoint pairs</summary>")
    print()
    for o in odd:
        print("- " + o)
    print()
    print("</details>")
    print()
PY
log "done"
