#!/usr/bin/env python3
"""verdict_check.py - reads one output of `allocab compare --format FORMAT` and checks that every
verdict it prints agrees with the interval it prints beside it (docs/methodology.md, "Reading the output"):
faster exactly when the speedup interval lies above 1x, slower exactly when it lies below,
equivalent within +-M% exactly when it lies inside [1/(1+M/100), 1+M/100]. Printed numbers have
three decimals, so a bound that rounds to the limit itself is allowed either way.

Usage: verdict_check.py FORMAT FILE   (table, markdown, json, csv, html, svg, gab)
Prints "ROWS rows agree" and exits 0, or one line per disagreement and exits 1."""
import csv
import html
import json
import re
import sys

VERDICT = (r"(faster(?:, within ±[0-9.]+%)?|slower(?:, within ±[0-9.]+%)?"
           r"|equivalent within ±[0-9.]+%|no detectable difference"
           r"|too few rounds for a verdict: need \d+|insufficient data)")
IV = r"\[([0-9.]+), ([0-9.]+)\]"
PROBLEMS = []  # disagreements found while reading, besides the rows'


def margin_of(text):
    m = re.search(r"within ±([0-9.]+)%", text)
    return float(m.group(1)) if m else None


def agree(lo, hi, verdict, m, tol):
    """Problems with one row: lo, hi are the speedup interval, m the report's margin (percent or
    None), tol the rounding of the printed numbers."""
    bad = []
    if verdict.startswith(("too few", "insufficient")):
        return bad
    faster, slower = verdict.startswith("faster"), verdict.startswith("slower")
    equiv = "within ±" in verdict
    if faster and lo < 1 - tol:
        bad.append("faster but the interval reaches below 1")
    if slower and hi > 1 + tol:
        bad.append("slower but the interval reaches above 1")
    if not faster and lo > 1 + tol:
        bad.append("the interval lies above 1 but the verdict is not faster")
    if not slower and hi < 1 - tol:
        bad.append("the interval lies below 1 but the verdict is not slower")
    if m is not None:
        e = 1 + m / 100
        inside = lo > 1 / e + tol and hi < e - tol
        outside = lo < 1 / e - tol or hi > e + tol
        if equiv and outside:
            bad.append("equivalent but the interval leaves ±%g%%" % m)
        if not equiv and inside:
            bad.append("the interval lies inside ±%g%% but no equivalence is said" % m)
    return bad


def rows_text(text, sep):
    """(lo, hi, verdict) from table, markdown or gab text: an interval followed, past an optional
    level and improvement, by a verdict."""
    pat = IV + r"(?: \([0-9.]+%\))?" + sep + r"(?:[+-][0-9.]+%" + sep + r")?" + VERDICT
    return [(float(a), float(b), v) for a, b, v in re.findall(pat, text)]


def read(fmt, text):
    if fmt == "table":
        m = re.search(r"equivalent within ±([0-9.]+)% when", text)
        return rows_text(text, r"\s+"), float(m.group(1)) if m else None, 0.0005
    if fmt == "markdown":
        m = re.search(r"equivalent within ±([0-9.]+)% when", text)
        return rows_text(text, r"\s*\|\s*"), float(m.group(1)) if m else None, 0.0005
    if fmt == "gab":
        out = []
        for e in json.loads(text):
            out += [(float(a), float(b), v) for a, b, v in
                    re.findall(IV + r" \([0-9.]+%\): " + VERDICT, e["extra"])]
        return out, None, 0.0005
    if fmt == "json":
        j = json.loads(text)
        out = [(c["ci"]["speedup_lo"], c["ci"]["speedup_hi"], c["verdict_text"])
               for c in j["comparisons"] if c["ci"]["speedup_lo"] is not None]
        return out, j["equivalence_pct"], 1e-12
    if fmt == "csv":
        out, m = [], None
        for r in csv.DictReader(text.splitlines()):
            if r["ci_lo"] == "":
                continue
            v = r["verdict"]
            if r["equivalence_pct"]:
                m = float(r["equivalence_pct"])
            if v == "equivalent" or (r["equivalent"] == "true" and v in ("faster", "slower")):
                v = ("equivalent" if v == "equivalent" else v + ",") + " within ±%g%%" % m
            out.append((float(r["ci_lo"]), float(r["ci_hi"]), v))
        return out, m, 1e-12
    if fmt in ("html", "svg"):
        text = html.unescape(text)
        m = re.search(r"equivalent within ±([0-9.]+)% when", text)
        rows = [(float(a), float(b), v) for a, b, v in re.findall(
            IV + r"(?: \([0-9.]+%\))?</td>(?:<td class=\"num\">[+-][0-9.]+%</td>)?"
            r"<td(?: class=\"[a-z]*\")?>" + VERDICT + "<", text)]
        forest = [(float(a), float(b), v) for a, b, v in re.findall(
            r": [0-9.]+x " + IV + r", [0-9.]+% interval, \d+ rounds, " + VERDICT + "<", text)]
        if fmt == "svg":  # the forest plot alone: its dots stand for the table's rows
            rows, forest = forest, []
        colours = re.findall(r"class=\"est-([a-z]+)\"><title>[^<]*?, " + VERDICT + "<", text)
        for cls, v in colours:
            want = ("faster" if v.startswith("faster") else "slower" if v.startswith("slower")
                    else "equivalent" if v.startswith("equivalent") else "none")
            if cls != want:
                PROBLEMS.append("html forest: a dot coloured %s for the verdict %s" % (cls, v))
        if (fmt == "html" and len(forest) != len(rows)) or len(colours) != len(rows):
            PROBLEMS.append("html: %d table rows, %d forest dots, %d coloured" %
                            (len(rows), len(forest), len(colours)))
        return rows + forest, float(m.group(1)) if m else None, 0.0005
    raise SystemExit("verdict_check.py: unknown format " + fmt)


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        rows, m, tol = read(fmt, f.read())
    bad = len(PROBLEMS)
    for p in PROBLEMS:
        print(p)
    for lo, hi, v in rows:
        for p in agree(lo, hi, v, m if m is not None else margin_of(v), tol):
            print("%s: [%.4f, %.4f] %s: %s" % (fmt, lo, hi, v, p))
            bad += 1
    if not rows:
        print("%s: no rows found" % fmt)
        bad += 1
    if bad:
        sys.exit(1)
    print("%d rows agree" % len(rows))


if __name__ == "__main__":
    main()
