#!/bin/sh
# shim_chain.sh - a pyenv-like shim: starts many short processes, then execs through a chain of
# shells into /usr/bin/python3, which does the work (tests/e2e_proof.sh: the summary must list
# python3 and attribute its calls to it, not to the shells before it).
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 \
	31 32 33 34 35 36 37 38 39 40; do
	v=$(/bin/echo "$i")
done
exec /bin/bash -c 'x=$(/usr/bin/env true); exec /bin/sh -c "exec /usr/bin/python3 -c \"$1\"" sh "$0"' \
	'import json; d = [{"k": i, "v": [str(i)] * 3} for i in range(30000)]; assert len(json.loads(json.dumps(d))) == 30000'
