#!/usr/bin/env python3
"""check_cites.py - every citation in the code and the docs resolves (docs/HACKING.md,
"Conventions"): a cited doc (a file of docs/ or README.md followed by a quoted "Section") must
exist and have a heading of that text or beginning with it (up to a word boundary), and a cited header path (common/status.h, front/engine/engine.h,
tests/unit/check.h, ...) must exist, in the tree or under src/. Citations may wrap across comment lines
and C string literals. Prints each unresolved one as FILE:LINE: ... and exits 1; exits 0 when all
resolve. The existing unresolved ones may be listed in scripts/allow/cites.txt ("FILE CITED"
lines and a count line): listed ones are allowed, a new one fails.
Usage: scripts/check_cites.py [ROOT] [--update]
"""
import os
import re
import sys

args = [a for a in sys.argv[1:] if a != "--update"]
update = "--update" in sys.argv[1:]
root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
os.chdir(root)
ALLOW = "scripts/allow/cites.txt"

CODE_EXT = (".c", ".h", ".sh", ".py", ".js", ".rs", ".yml", ".yaml", ".1")
DIRS = ["src", "workloads", "allocators", "phase", "tests", "scripts", "examples", "docs"]
TOP = ["README.md", "Makefile"]
SKIP = ("tests/fuzz/corpus/", "tests/fixtures/hostile/", "scripts/allow/")


def files():
    out = [f for f in TOP if os.path.isfile(f)]
    for d in DIRS:
        for dp, dn, fn in os.walk(d):
            dn.sort()
            for f in sorted(fn):
                p = os.path.join(dp, f)
                if p.startswith(SKIP):
                    continue
                if p.endswith(CODE_EXT) or p.endswith(".md"):
                    out.append(p)
    return out


_heads = {}


def headings(path):
    if path not in _heads:
        hs = set()
        with open(path, encoding="utf-8", errors="replace") as f:
            fence = False
            for line in f:
                if line.startswith("```"):
                    fence = not fence
                if not fence and re.match(r"#{1,6} ", line):
                    hs.add(line.lstrip("#").strip())
        _heads[path] = hs
    return _heads[path]


# A section is cited by its heading's text, or by the heading's beginning up to a word boundary
# ("Reading files" for "Reading files: what compare, gate and calibrate accept"); backticks and
# case do not count.
def cited_heading(path, sect):
    c = plain(sect).lower()
    for h in headings(path):
        h = plain(h).lower()
        if h == c or (h.startswith(c) and not h[len(c)].isalnum()):
            return True
    return False


def plain(s):
    return re.sub(r"\s+", " ", s.replace("`", "")).strip()


# Joins what a citation may wrap across: a newline with the next line's comment leader, and the
# seam between two C string literals; keeps, per character of the joined text, its line.
def joined(text, is_c):
    out, lines, line = [], [], 1
    i, n = 0, len(text)
    while i < n:
        if is_c and text[i] == '"':
            m = re.match(r'"[ \t]*\n[ \t]*"', text[i:])
            if m:
                line += 1
                i += m.end()
                continue
        if text[i] == "\n":
            m = re.match(r"\n[ \t]*(?:\*(?!/)|//|#(?![#!]))?[ \t]*", text[i:])
            out.append(" ")
            lines.append(line)
            line += 1
            i += m.end()
            continue
        if is_c and text.startswith('\\"', i):
            out.append('"')
            lines.append(line)
            i += 2
            continue
        out.append(text[i])
        lines.append(line)
        i += 1
    return "".join(out), lines


DOC = re.compile(r'(?<![\w./$-])((?:[\w.-]+/)*[\w.-]+\.md)(?:\s*[,:]\s*|\s+)(?:section\s+)?"([^"]{1,200})"')
DOCFILE = re.compile(r"(?<![\w./-])(docs/[\w/.-]*[\w-]\.md)(?![\w.-]*\s*[,:]?\s*\")")
HDR = re.compile(r"(?<![\w/.<-])((?:src/)?(?:common|driver|preload|front/[a-z_]+|workloads(?:/lib)?|allocators|phase|tests(?:/unit)?)/[\w-]+\.h)(?![\w.])")


def resolve_doc(cited, src):
    for p in (cited, os.path.join(os.path.dirname(src), cited)):
        if os.path.isfile(p):
            return os.path.normpath(p)
    return None


problems = []
for f in files():
    with open(f, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    is_c = f.endswith((".c", ".h"))
    j, lines = joined(text, is_c)
    for m in DOC.finditer(j):
        cited, sect = m.group(1), m.group(2).strip()
        ln = lines[m.start()] if m.start() < len(lines) else 0
        p = resolve_doc(cited, f)
        if not p:
            problems.append((f, ln, cited, f'{cited}: no such file'))
            continue
        if sect.startswith("$"):
            continue
        if cited_heading(p, sect):
            continue
        problems.append((f, ln, f'{cited} "{sect}"', f'{cited} has no heading "{sect}"'))
    for m in DOCFILE.finditer(j):
        if not resolve_doc(m.group(1), f):
            ln = lines[m.start()] if m.start() < len(lines) else 0
            problems.append((f, ln, m.group(1), f"{m.group(1)}: no such file"))
    for m in HDR.finditer(j):
        h = m.group(1)
        if os.path.isfile(h) or os.path.isfile(os.path.join("src", h)):
            continue
        ln = lines[m.start()] if m.start() < len(lines) else 0
        problems.append((f, ln, h, f"{h}: no such header"))

found = sorted({(f, key) for f, _, key, _ in problems})
if update:
    with open(ALLOW + ".tmp", "w") as out:
        out.write("# Citations that do not resolve (scripts/check_cites.py), allowed until fixed; a new\n")
        out.write("# one fails make test. FILE<TAB>CITED.\n")
        out.write(f"# count: {len(found)}\n")
        for f, key in found:
            out.write(f"{f}\t{key}\n")
    os.replace(ALLOW + ".tmp", ALLOW)
    print(f"check_cites.py: {ALLOW}: {len(found)} citations")
    sys.exit(0)

allowed, count, bad = set(), None, 0
if os.path.isfile(ALLOW):
    for line in open(ALLOW, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"# count: (\d+)$", line)
        if m:
            count = int(m.group(1))
        elif line and not line.startswith("#"):
            f, _, key = line.partition("\t")
            allowed.add((f, key))
    if count != len(allowed):
        print(f"{ALLOW}: its count line says {count}, it lists {len(allowed)} citations")
        bad = 1
for f, ln, key, why in problems:
    if (f, key) not in allowed:
        print(f"{f}:{ln}: {why}")
        bad = 1
for f, key in sorted(allowed - set(found)):
    print(f"# note: {f}: {key} resolves now: remove it from {ALLOW} (and lower its count)")
sys.exit(bad)
