#!/usr/bin/env python3
"""render_check.py - judges the chart of measured times of an allocab HTML report as headless
Chromium laid it out (tests/tools/render_probe.js appended it to the page; the page is Chromium's
--dump-dom output), against the results file it was made from. Prints one "ok - ..." or
"not ok - ...: detail" line per check (tests/e2e/lib.sh) and exits 1 when one failed.
Usage: render_check.py RESULTS.json DOM.html
Checks: every tooltip of the chart states a time the file holds (steady dots: each measured run's
steady time; rings: its cold repetition; crosses: the warm-up rounds' steady times), each once;
every mark sits where the axis ticks put its tooltip's value; each panel's axis covers what it
draws and not much more. Standard library only."""
import benchfile
import html
import json
import re
import statistics
import sys

failed = False


def check(name, good, detail=""):
    global failed
    if good:
        print(f"ok - render: {name}")
    else:
        failed = True
        print(f"not ok - render: {name}: {detail}")


def run_times(run):
    """The total phase's cold time and steady time (median of the steady reps) in ms, or None."""
    rec = run.get("record") or {}
    reps = rec.get("reps") or []
    cold = [r["phases"]["total"]["wall_ns"] for r in reps if r.get("regime") == "cold"]
    steady = [r["phases"]["total"]["wall_ns"] for r in reps if r.get("regime") == "steady"]
    return (cold[0] * 1e-6 if cold else None,
            statistics.median(steady) * 1e-6 if steady else None)


def expected_tips(doc):
    """Every tooltip the chart should hold, as a sorted list."""
    tips = []
    for rnd in doc["rounds"]:
        for run in rnd["runs"]:
            if run.get("status") != "ok":
                continue
            cold, steady = run_times(run)
            arm = run["arm"]
            if rnd.get("warmup"):
                if steady is not None:
                    tips.append(f"{arm}, warm-up round (not compared): {steady:.3f} ms")
                continue
            if steady is not None:
                tips.append(f"{arm}: {steady:.3f} ms")
            if cold is not None:
                tips.append(f"{arm}, cold first repetition: {cold:.3f} ms")
    return sorted(tips)


def axis_map(ticks):
    """value = a + b x from the outermost ticks."""
    ticks = sorted(ticks, key=lambda t: t["x"])
    lo, hi = ticks[0], ticks[-1]
    b = (hi["value"] - lo["value"]) / (hi["x"] - lo["x"])
    return lambda x: lo["value"] + b * (x - lo["x"])


def main():
    doc = benchfile.load(sys.argv[1])
    dom = open(sys.argv[2], encoding="utf-8").read()
    found = re.findall(r'<pre id="render-probe">([^<]*)</pre>', dom)
    check("the probe ran in the page", bool(found), "no render-probe element in the DOM")
    if not found:
        return
    probe = json.loads(html.unescape(found[-1]))
    check("the chart of measured times is there", "error" not in probe, probe.get("error", ""))
    if "error" in probe:
        return
    panels = [p for p in probe["panels"] if p["marks"]]
    wls = doc["config"]["workloads"]
    check(f"one panel per workload ({len(wls)})", len(panels) == len(wls),
          f"{len(panels)} panels with marks")
    tips = sorted(mk["tip"] for p in panels for mk in p["marks"])
    want = expected_tips(doc)
    extra = sorted(set(tips) - set(want))[:3]
    missing = sorted(set(want) - set(tips))[:3]
    check(f"every tooltip states a time the file holds ({len(want)} times)", tips == want,
          f"{len(tips)} tooltips, {len(want)} times; not in the file: {extra}; not drawn: {missing}")
    for i, p in enumerate(panels):
        name = f"panel {i + 1}"
        if len(p["ticks"]) < 2 or not p["axis"]:
            check(f"{name}: axis with ticks", False, f"{len(p['ticks'])} ticks, axis {p['axis']}")
            continue
        value = axis_map(p["ticks"])
        a0, a1 = value(p["axis"]["x0"]), value(p["axis"]["x1"])
        span = a1 - a0
        worst = max(abs(value(mk["x"]) - mk["value"]) / span for mk in p["marks"])
        check(f"{name}: every mark sits at its tooltip's value on the axis", worst < 0.01,
              f"off by {100 * worst:.1f}% of the axis")
        lo = min(mk["value"] for mk in p["marks"])
        hi = max(mk["value"] for mk in p["marks"])
        check(f"{name}: the axis [{a0:.1f}, {a1:.1f}] ms holds every mark [{lo:.1f}, {hi:.1f}]",
              a0 <= lo and hi <= a1, "a mark outside the axis")
        check(f"{name}: what is drawn fills the axis (not squashed by an undrawn point)",
              (hi - lo) >= 0.8 * span, f"data {hi - lo:.1f} ms of an axis of {span:.1f} ms")


main()
sys.exit(1 if failed else 0)
