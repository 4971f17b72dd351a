"""mkleft.py IN OUT FROM ARM: the bench document IN with ARM's runs removed from the measured rounds
from index FROM on and listed under `left` instead, as adaptive allocation writes them
(docs/results-format.md, "allocab-bench/1"), and config.allocation "sequential"."""
import json, sys
d = json.load(open(sys.argv[1]))
start, arm = int(sys.argv[3]), sys.argv[4]
d['config']['allocation'] = 'sequential'
for r in d['rounds']:
    if r.get('warmup') or r['index'] < start:
        continue
    gone = [x for x in r['runs'] if x['arm'] == arm]
    r['runs'] = [x for x in r['runs'] if x['arm'] != arm]
    r['left'] = [{'arm': arm, 'workload': x['workload']} for x in gone]
json.dump(d, open(sys.argv[2], 'w'))
