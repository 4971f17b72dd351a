# e2e_install.sh - `make install DESTDIR=...`: the layout (programs, the drop-in script as
# allocab-benchmark-mimalloc, man page, docs with the CI workflow, bash completion), the
# installed script finding its allocab, the completion script sourcing cleanly and completing
# subcommands and options, and `make uninstall` removing it all.
. tests/e2e/lib.sh
root=$TMP/root
prefix=/usr
make -s --no-print-directory install DESTDIR="$root" PREFIX="$prefix" BUILD="$BUILD" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "make install DESTDIR exits 0" || notok "make install DESTDIR exits 0" "exit $rc: $(tail -3 "$TMP/out")"
p=$root$prefix
missing=""
for f in bin/allocab bin/allocab-system bin/allocab-mimalloc bin/allocab-benchmark-mimalloc \
	share/man/man1/allocab.1 share/doc/allocab/README.md share/doc/allocab/methodology.md \
	share/doc/allocab/ci.md share/doc/allocab/ci/allocab.yml share/bash-completion/completions/allocab \
	share/doc/allocab/fleet.md share/doc/allocab/fleet/allocab-fleet.yml \
	share/doc/allocab/fleet/allocab-array.sbatch share/doc/allocab/fleet/allocab-indexed-job.yaml; do
	[ -e "$p/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "install layout: programs, script, man page, docs, workflows, fleet launchers, completion" ||
	notok "install layout" "missing:$missing"
[ -x "$p/bin/allocab-benchmark-mimalloc" ] && ok "allocab-benchmark-mimalloc is executable" ||
	notok "allocab-benchmark-mimalloc is executable" "$(ls -l "$p/bin" 2>&1 | head -3)"
cmp -s docs/ci/allocab.yml "$p/share/doc/allocab/ci/allocab.yml" && ok "the workflow is installed as it is" ||
	notok "the workflow is installed as it is" "differs"

# The installed script finds the allocab next to it (nothing on PATH, no ALLOCAB_BUILD).
(cd "$TMP" && env -u ALLOCAB_BUILD PATH=/usr/bin:/bin "$p/bin/allocab-benchmark-mimalloc" \
	--cmd /bin/true --cmd-mimalloc 'LD_PRELOAD=libmimalloc.so.2 /bin/true' --rounds 2 --quiet \
	-o "$TMP/m.json") >"$TMP/m.out" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q '^Results: ' "$TMP/m.out" && ok "installed script runs with the allocab next to it" ||
	notok "installed script runs with the allocab next to it" "exit $rc: $(tail -3 "$TMP/m.out")"

comp=$p/share/bash-completion/completions/allocab
out=$(bash -c 'set -u; source "$1" && complete -p allocab' _ "$comp" 2>&1)
[ "$out" = "complete -F _allocab allocab" ] && ok "completion sources cleanly under set -u and registers _allocab" ||
	notok "completion sources cleanly" "$out"
# complete WORDS...: what the completion offers for the last word, space-separated.
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _allocab; echo "${COMPREPLY[*]}"' _ "$comp" "$@"
}
got=$(complete_words "$p/bin/allocab" "")
[ "$got" = "bench calibrate compare gate help --help --version" ] || [ -n "$(echo "$got" | grep -w bench | grep -w compare | grep -w gate | grep -w calibrate)" ] &&
	ok "completion: subcommands ($got)" || notok "completion: subcommands" "$got"
got=$(complete_words "$p/bin/allocab" ga)
[ "$got" = gate ] && ok "completion: 'ga' completes to gate" || notok "completion: 'ga' completes to gate" "$got"
got=$(complete_words "$p/bin/allocab" bench --bud)
[ "$got" = --budget ] && ok "completion: bench --bud completes to --budget" || notok "completion: bench --bud" "$got"
got=$(complete_words "$p/bin/allocab" gate r.json --on "")
[ "$got" = "each geomean pooled each-machine" ] && ok "completion: gate --on offers each geomean pooled each-machine" || notok "completion: gate --on" "$got"
got=$(complete_words "$p/bin/allocab" bench -a m)
[ "$got" = mimalloc ] && ok "completion: -a offers the installed drivers" || notok "completion: -a offers the installed drivers" "$got"

make -s --no-print-directory uninstall DESTDIR="$root" PREFIX="$prefix" BUILD="$BUILD" >"$TMP/out" 2>&1
left=$(find "$root" -type f | sed "s|^$root||")
[ -z "$left" ] && ok "make uninstall removes every installed file" || notok "make uninstall removes every installed file" "$left"
exit $t_fail
