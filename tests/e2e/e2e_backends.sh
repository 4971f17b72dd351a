#!/usr/bin/env bash
# e2e_backends.sh - commands choose arms by what a backend declares (src/driver/backend.h, enum
# backend_flags; `list --json` "allocator"."flags"), never by its name: the baseline comes first
# and is what compare and gate judge against by default (config.baseline), a calibration backend
# is run only when named. A driver directory where the baseline backend goes by another name shows
# it; old files without config.baseline keep their default.
. "$(dirname "$0")/lib.sh"
A=$BUILD/allocab
J=$BUILD/tests/jget

flags() {
	"$BUILD/allocab-$1" list --json >"$TMP/list.json" && "$J" "$TMP/list.json" allocator.flags | tr -d ' \n'
}
[ "$(flags system)" = '["baseline"]' ] && ok "backends: system declares itself the baseline" ||
	notok "backends: system's flags" "$(flags system)"
[ "$(flags system_slow)" = '["calibration"]' ] && ok "backends: system_slow declares itself a calibration backend" ||
	notok "backends: system_slow's flags" "$(flags system_slow)"
[ "$(flags mimalloc)" = '[]' ] && ok "backends: mimalloc declares nothing" || notok "backends: mimalloc's flags" "$(flags mimalloc)"
"$BUILD/allocab-system" info --json >"$TMP/info.json"
"$J" "$TMP/info.json" allocator.flags.0 | grep -qx baseline &&
	ok "backends: info --json carries the flags too" || notok "backends: info --json flags" "missing"

# The same drivers under other names: the baseline is found by its flag.
mkdir -p "$TMP/drv"
cp "$BUILD/allocab-system" "$TMP/drv/allocab-glibc"
cp "$BUILD/allocab-mimalloc" "$TMP/drv/allocab-mimalloc"
cp "$BUILD/allocab-system_slow" "$TMP/drv/allocab-aaa_slow"
O=(--driver-dir "$TMP/drv" -w batch_prep --scale small --reps 1 --rounds 2 --warmup 0 --quiet)
expect_status "backends: a default bench in a directory whose baseline is called glibc" 0 \
	$A bench "${O[@]}" -o "$TMP/d.json"
arms=$("$J" "$TMP/d.json" config.arms | tr -d ' \n')
[ "$arms" = '["glibc","mimalloc"]' ] &&
	ok "backends: the baseline first, the calibration backend left out ($arms)" ||
	notok "backends: default arms" "$arms"
[ "$("$J" "$TMP/d.json" config.baseline)" = glibc ] && ok "backends: config.baseline names it" ||
	notok "backends: config.baseline" "$("$J" "$TMP/d.json" config.baseline)"
"$A" compare "$TMP/d.json" --format csv 2>/dev/null | awk -F, 'NR == 2 { print $5 }' | grep -qx glibc &&
	ok "backends: compare judges against it without --baseline" ||
	notok "backends: compare's default baseline" "$("$A" compare "$TMP/d.json" --format csv 2>&1 | head -3)"
expect_status "backends: -a names the calibration backend" 0 \
	$A bench "${O[@]}" -a glibc,aaa_slow -o "$TMP/s.json"
[ "$("$J" "$TMP/s.json" config.baseline)" = glibc ] && ok "backends: -a order keeps the flagged baseline" ||
	notok "backends: -a baseline" "$("$J" "$TMP/s.json" config.baseline)"
expect_status "backends: calibrate's default backend is the flagged one" 0 \
	$A calibrate --driver-dir "$TMP/drv" -w batch_prep --scale small --reps 1 --rounds 6 --warmup 0 \
	--quiet -o "$TMP/cal.json"
"$J" "$TMP/cal-runs.json" config.arms.0 | grep -qx glibc.A && ok "backends: calibrate ran glibc against itself" ||
	notok "backends: calibrate's arms" "$("$J" "$TMP/cal-runs.json" config.arms)"

# A configured arm of the baseline backend is not the baseline: the first arm is (the README's
# example `-a mimalloc --arm glibc-tuned=system:...` followed by a plain compare).
expect_status "backends: -a mimalloc with a configured system arm" 0 \
	$A bench -a mimalloc --arm glibc-tuned=system:mmap_threshold=32M -w batch_prep --scale small \
	--reps 1 --rounds 2 --warmup 0 --quiet -o "$TMP/c.json"
[ "$("$J" "$TMP/c.json" config.baseline)" = mimalloc ] && ok "backends: the first arm is the baseline then" ||
	notok "backends: configured arm baseline" "$("$J" "$TMP/c.json" config.baseline)"
expect_status "backends: plain compare of that file" 0 $A compare "$TMP/c.json"

# Files: a baseline that is not an arm is refused; files without one keep system (or, for
# commands, the first arm).
mkbench "$TMP/old.json" arms=mimalloc=0.9,system=1
"$A" compare "$TMP/old.json" --format csv 2>/dev/null | awk -F, 'NR == 2 { print $5 }' | grep -qx system &&
	ok "backends: a file without config.baseline still compares against system" ||
	notok "backends: old file's baseline" "$("$A" compare "$TMP/old.json" --format csv 2>&1 | head -2)"
sed 's/"baseline":"system"/"baseline":"nope"/' "$TMP/old.json" >"$TMP/bad.json"
expect_status "backends: config.baseline that is no arm is refused" 2 $A compare "$TMP/bad.json"
expect_err "backends: and says why" "config.baseline 'nope' is not an arm"
exit $t_fail
