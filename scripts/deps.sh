#!/bin/sh
# deps.sh - `make deps`: makes sure the Debian packages allocab builds against are installed.
# Silent and fast when nothing is missing (make, make test and make bench run it every time).
# `deps.sh --runtime` (installed by `make install` as PREFIX/lib/allocab/deps.sh): only the
# libraries an installed allocab runs with, for a fresh machine that restored a built allocab from
# a cache (docs/ci.md).
# Missing packages: installs them with apt-get as root, or through sudo when it works without a
# password; otherwise prints the exact command and fails. Not Debian (no dpkg-query): succeeds
# only if a test program using every library compiles and links, else says what to install.
set -u

# python3-yaml: the tests parse the CI workflow docs/ci/allocab.yml (tests/e2e/e2e_ci.sh) and the fleet
# launchers of docs/fleet/ (tests/e2e/e2e_fleet.sh).
# Optional targets install their own tools, never needed by make test: make fuzz (clang), make
# test-fleet (slurm-wlm and munge for a one-node Slurm, python3-kubernetes for the Kubernetes API
# models; tests/e2e/fleet_slurm.sh), make bench-models (python3-torch and cargo) and make test-render
# (chromium, for the HTML report's render check tests/e2e/e2e_render.sh, which make test skips
# without it), the last two through `deps.sh --also PKG...`: these packages too.
pkgs="gcc make libc6-dev libmimalloc-dev libjemalloc-dev libgoogle-perftools-dev libcjson-dev libzstd-dev python3-yaml"
runtime=0
case "${1:-}" in
--runtime)
	runtime=1
	pkgs="libmimalloc2.0 libjemalloc2 libtcmalloc-minimal4 libcjson1 libzstd1"
	;;
--also)
	shift
	pkgs="$pkgs $*"
	;;
"") ;;
*)
	echo "allocab: deps.sh: unknown argument '$1' (usage: deps.sh [--runtime | --also PKG...])" >&2
	exit 2
	;;
esac

not_debian() {
	if command -v "${CC:-cc}" >/dev/null 2>&1 && command -v make >/dev/null 2>&1 &&
		printf '%s\n' '#include <mimalloc.h>' '#include <jemalloc/jemalloc.h>' \
			'#include <gperftools/tcmalloc.h>' '#include <cjson/cJSON.h>' '#include <zstd.h>' \
			'int main(void) { return 0; }' |
		"${CC:-cc}" -x c -o /dev/null - -lmimalloc -ljemalloc -ltcmalloc_minimal -lcjson -lzstd \
			>/dev/null 2>&1; then
		exit 0
	fi
	echo "allocab: not a Debian system and the build libraries were not found: install a C compiler," \
		"make, and the development files of mimalloc, jemalloc, gperftools (tcmalloc_minimal)," \
		"cJSON and zstd" >&2
	exit 1
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	[ "$runtime" -eq 0 ] || { echo "allocab: deps.sh --runtime: not a Debian system" >&2; exit 1; }
	not_debian
fi

# shellcheck disable=SC2086 # word splitting of the package list is intended
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null | awk '$NF == "installed" { print $1 }')
missing=""
for p in $pkgs; do
	printf '%s\n' "$installed" | grep -qx "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
	as_root="sudo -n"
else
	echo "allocab: missing packages:$missing; run: sudo apt-get install -y$missing" >&2
	exit 1
fi

apt() {
	# shellcheck disable=SC2086
	$as_root env DEBIAN_FRONTEND=noninteractive apt-get -q "$@"
}

echo "allocab: installing missing packages:$missing" >&2
# Fresh images often ship without package lists; otherwise update only if the install fails.
if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
	apt update >&2 || exit 1
fi
# shellcheck disable=SC2086
if ! apt install -y $missing >&2; then
	# shellcheck disable=SC2086
	if ! apt update >&2 || ! apt install -y $missing >&2; then
		echo "allocab: apt-get install failed for:$missing" >&2
		exit 1
	fi
fi
