#!/usr/bin/env bash
# e2e_numbers.sh - numbers allocab writes read back as the same values (docs/results-format.md,
# "Numbers as written"): a shuffle seed of 2^53 - 1 is recorded exactly, so --resume with it is
# refused as a seed the file holds; a driver's --seed likewise; a number near DBL_MAX read from a
# file is written back by bench --resume -o as one its readers accept.
. "$(dirname "$0")/lib.sh"
A=$BUILD/allocab
B=(--cmd a=true --cmd b=true --rounds 2 --warmup 0 -q)
S=9007199254740991

# (hostile-4 reproducer cjson-print-precision: seeds, then a number near DBL_MAX)
expect_status "numbers: bench with --shuffle-seed 2^53-1" 0 $A bench "${B[@]}" --shuffle-seed $S -o "$TMP/s.json"
if grep -q "\"shuffle_seed\":$S[,}]" "$TMP/s.json"; then ok "numbers: the shuffle seed is recorded exactly"; else notok "numbers: shuffle seed" "$(grep -o '"shuffle_seed":[^,]*' "$TMP/s.json")"; fi
expect_status "numbers: --resume with the same seed is refused" 2 $A bench "${B[@]}" --shuffle-seed $S --resume "$TMP/s.json"
expect_err "numbers: ... as the seed of a session it holds" "is the seed of a session it holds"

out=$($BUILD/allocab-system run feature_extract --scale small --reps 1 --seed $S 2>/dev/null)
case $out in *"\"seed\":"*"$S"[,$'\n']*) ok "numbers: a driver records --seed 2^53-1 exactly" ;; *) notok "numbers: driver seed" "$(printf '%s' "$out" | grep -o '"seed":[^,]*')" ;; esac

# a round with an unknown member near DBL_MAX, continued into another file
python3 - "$TMP/s.json" "$TMP/c.json" <<'PY'
import sys
L = open(sys.argv[1], 'rb').read().split(b'\n')
i = [k for k, l in enumerate(L) if l.startswith(b'{"index":0')][0]
L[i] = L[i][:-1] + b',"note":1.7976931348623157e308}'
open(sys.argv[2], 'wb').write(b'\n'.join(L))
PY
expect_status "numbers: bench --resume of a file holding DBL_MAX, -o another" 0 $A bench "${B[@]}" --resume "$TMP/c.json" -o "$TMP/d.json"
expect_status "numbers: compare reads the file it wrote" 0 $A compare "$TMP/d.json" -o /dev/null
if grep -q '"note":1.7976931348623157e+308' "$TMP/d.json"; then ok "numbers: DBL_MAX written back in 17 digits"; else notok "numbers: DBL_MAX" "$(grep -o '"note":[^,}]*' "$TMP/d.json")"; fi
exit $t_fail
