"""benchfile.py - a bench file of either schema as one document.

load(f) takes a path or an open file. An allocab-bench/2 file (JSON Lines) becomes the
equivalent allocab-bench/1-shaped document by the rule of docs/results-format.md
("allocab-bench/2"): the header line, each update line merged over it (config and facts member
by member, every other member replaced), the round lines (first member "index") as "rounds"; a
torn last line (no newline at its end) is left out. Anything else is read with json.load.
"""
import json

HEAD = '{"schema":"allocab-bench/2"'


def _pairs(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("member %r appears twice in one object" % k)
        d[k] = v
    return d


def loads(text):
    if not text.startswith(HEAD):
        return json.loads(text)
    lines = text.split("\n")
    lines.pop()  # after the last newline: "" or a torn line
    doc = json.loads(lines[0], object_pairs_hook=_pairs)
    rounds = []
    for line in lines[1:]:
        v = json.loads(line, object_pairs_hook=_pairs)
        if next(iter(v), None) == "index":
            rounds.append(v)
            continue
        for k, x in v.items():
            if k in ("config", "facts") and isinstance(doc.get(k), dict) and isinstance(x, dict):
                doc[k].update(x)
            else:
                doc[k] = x
    doc["rounds"] = rounds
    return doc


def load(f, **kw):
    if isinstance(f, str):
        with open(f, **kw) as g:
            return loads(g.read())
    return loads(f.read())
