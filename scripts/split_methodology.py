#!/usr/bin/env python3
"""split_methodology.py - splits docs/methodology.md into the guide it keeps (how to read and run
a bench), a statistics reference (docs/statistics.md, written whole) and the measurements
(into docs/validation.md, between its BEGIN and END "moved from docs/methodology.md" lines), and
rewrites every citation of a moved section across the code and the docs to its new file.

Sections move verbatim, each with its subsections, by their heading (MOVES below); a subsection
listed on its own goes where it is listed, whatever its parent does. A moved ### section whose
parent stays gets a ## heading above it in its new file: "PARENT (from the guide)". The split is
mechanical so that it can be redone on a methodology.md edited since: it refuses (exit 1) when a
heading of MOVES is missing, naming it, and changes nothing then. Run scripts/check_cites.py
afterwards. Usage: scripts/split_methodology.py [ROOT]
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
os.chdir(root)
SRC = "docs/methodology.md"
STATS = "docs/statistics.md"
VALID = "docs/validation.md"

# heading (without its #s) -> destination; everything else stays in the guide
MOVES = {
    "Statistics": STATS,
    "Measured here: the regime changes the answer": VALID,
    "The decomposition": VALID,
    "The levers, measured at equal budget": VALID,
    "The default, measured at the default budget": VALID,
    "The candidates, simulated": STATS,
    "What it assumes, and how the code guards it": STATS,
    "Planning for it": STATS,
    "Measured here: `make validate`, part (d)": VALID,
    "Validation on this machine": VALID,
    "Each machine's estimate and its standard error": STATS,
    "Pooling: DerSimonian–Laird and Hartung–Knapp–Sidik–Jonkman": STATS,
    "Which machines are odd": STATS,
    "Gaps are never pooled": STATS,
    "Validation: coverage on synthetic fleets (`make validate`, part (e))": VALID,
    "References (fleet)": STATS,
}
STATS_HEAD = """# allocab statistics reference

The formulas and the evidence for them: the estimator, its intervals, p-values, equivalence,
sequential decisions and the pooling of a fleet, with their references. How to run a bench and
read its output is in docs/methodology.md; what was measured on this machine in
docs/validation.md. Sections moved here verbatim from docs/methodology.md
(scripts/split_methodology.py).

"""
V_BEGIN = "<!-- BEGIN moved from docs/methodology.md by scripts/split_methodology.py -->"
V_END = "<!-- END moved from docs/methodology.md -->"


def sections(text):
    """(level, title, lines) blocks: the text before the first heading has level 0."""
    out, cur, fence = [], [0, "", []], False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"(#{1,6}) (.*?)\s*$", line)
        if m:
            out.append(cur)
            cur = [len(m.group(1)), m.group(2), []]
        cur[2].append(line)
    out.append(cur)
    return out


def plain(s):
    return re.sub(r"\s+", " ", s.replace("`", "")).strip().lower()


text = open(SRC, encoding="utf-8").read()
blocks = sections(text)
titles = {b[1] for b in blocks}
missing = [t for t in MOVES if t not in titles]
if missing:
    print("split_methodology.py: %s has no heading %s: nothing changed" % (SRC, "; ".join('"%s"' % t for t in missing)),
          file=sys.stderr)
    sys.exit(1)

# destination of each block: its own entry, else its nearest enclosing heading's, else the guide
dest, stack = [], []  # stack of (level, title, destination)
for lvl, title, _ in blocks:
    while stack and stack[-1][0] >= lvl and lvl > 0:
        stack.pop()
    d = MOVES.get(title, stack[-1][2] if stack else SRC) if lvl > 0 else SRC
    if lvl > 0:
        stack.append((lvl, title, d))
    dest.append(d)

out = {SRC: [], STATS: [], VALID: []}
owner = {}  # heading title -> the file it ends up in
last_top = {}  # file -> the ## heading its moved text last sat under
stack = []  # (level, title, destination) of the enclosing headings
for (lvl, title, lines), d in zip(blocks, dest):
    while stack and stack[-1][0] >= lvl and lvl > 0:
        stack.pop()
    tops = [x for x in stack if x[0] == 2]
    if lvl > 0:
        owner[title] = d
    if lvl == 2:
        last_top[d] = title
    elif lvl > 2 and d != SRC and tops and tops[0][2] != d and last_top.get(d) != tops[0][1]:
        out[d].append("## %s (from the guide)\n\n" % tops[0][1])
        last_top[d] = tops[0][1]
    if lvl > 0:
        stack.append((lvl, title, d))
    out[d].extend(lines)

GUIDE_NOTE = ("How to run a bench and read what it says. The statistics behind it are in docs/statistics.md,\n"
              "what was measured on this machine in docs/validation.md.\n\n")
if out[SRC] and out[SRC][0].startswith("# ") and GUIDE_NOTE not in "".join(out[SRC][:4]):
    if out[SRC][1:2] == ["\n"]:
        out[SRC][2:2] = [GUIDE_NOTE]
    else:
        out[SRC][1:1] = ["\n", GUIDE_NOTE]
guide = "".join(out[SRC])
if not guide.endswith("\n"):
    guide += "\n"
stats = STATS_HEAD + "".join(out[STATS])
moved = "".join(out[VALID]).rstrip("\n") + "\n"

vtext = open(VALID, encoding="utf-8").read()
if V_BEGIN in vtext and V_END in vtext:
    a, b = vtext.index(V_BEGIN), vtext.index(V_END)
    vtext = vtext[:a] + V_BEGIN + "\n\n" + moved + "\n" + vtext[b:]
else:
    anchor = vtext.find("## The last `make validate`")
    block = V_BEGIN + "\n\n" + moved + "\n" + V_END + "\n\n"
    vtext = vtext[:anchor] + block + vtext[anchor:] if anchor >= 0 else vtext + "\n" + block

# Citations of a section of docs/methodology.md that moved: to its new file. A section is
# cited by its heading or the heading's beginning (scripts/check_cites.py's rule).
moved_titles = [(plain(t), f) for t, f in owner.items() if f != SRC]
kept_titles = [plain(t) for t, f in owner.items() if f == SRC]


def new_file(cited):
    c = plain(re.sub(r"\s*\n\s*(?:\*(?!/)|//|#)?\s*", " ", cited))
    def hit(h):
        return h == c or (h.startswith(c) and not h[len(c)].isalnum())
    if any(hit(h) for h in kept_titles):
        return None
    for h, f in moved_titles:
        if hit(h):
            return f
    return None


CITE = re.compile(r'((?:docs/)?methodology\.md)(\s*[,:]?\s*\\?")([^"\\]{1,200})(?=\\?")')


def fix(path, s):
    def rep(m):
        f = new_file(m.group(3))
        if not f:
            return m.group(0)
        name = f if m.group(1).startswith("docs/") or not path.startswith("docs/") else os.path.basename(f)
        return name + m.group(2) + m.group(3)
    return CITE.sub(rep, s)


writes = {SRC: guide, STATS: stats, VALID: vtext}
for k in list(writes):
    writes[k] = fix(k, writes[k])
for dp, dn, fn in os.walk("."):
    dn[:] = sorted(d for d in dn if d not in (".git", "build", "results") and not (dp == "./tests" and d == "fuzz"))
    for f in sorted(fn):
        p = os.path.normpath(os.path.join(dp, f))
        if p in writes or not (p.endswith((".c", ".h", ".sh", ".py", ".md", ".yml", ".1", ".js")) or f == "Makefile"):
            continue
        if p == "scripts/split_methodology.py":
            continue
        s = open(p, encoding="utf-8", errors="surrogateescape").read()
        t = fix(p, s)
        if t != s:
            writes[p] = t
for p, s in writes.items():
    with open(p + ".tmp", "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(s)
    os.replace(p + ".tmp", p)
print("split_methodology.py: %s %d lines, %s %d, %s %d; citations rewritten in %d other files" % (
    SRC, guide.count("\n"), STATS, stats.count("\n"), VALID, vtext.count("\n"), len(writes) - 3))
