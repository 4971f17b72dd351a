# lib.sh - shell side of the test protocol: sourced by tests/e2e_*.sh.
# Each check prints "ok - name" or "not ok - name: detail"; tests/run.sh counts the lines.
# Variables: BUILD (build directory), TMP (a private scratch directory removed on exit).
set -u
BUILD=${BUILD:-build}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/allocab-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
t_fail=0

ok() { printf 'ok - %s\n' "$1"; }
notok() { printf 'not ok - %s: %s\n' "$1" "$2"; t_fail=1; }

# expect_status NAME WANT CMD...: runs CMD, checks its exit status; stderr lands in $TMP/err.
expect_status() {
	local name=$1 want=$2 got
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$name"; else notok "$name" "exit $got, want $want; stderr: $(head -c 300 "$TMP/err")"; fi
}

# expect_err NAME PATTERN: the last command's stderr is one line matching the extended regex.
expect_err() {
	local lines
	lines=$(wc -l <"$TMP/err")
	if [ "$lines" -eq 1 ] && grep -Eq "$2" "$TMP/err"; then ok "$1"; else notok "$1" "stderr ($lines lines): $(head -c 300 "$TMP/err")"; fi
}

# check NAME CMD...: ok when CMD exits 0.
check() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else notok "$name" "failed: $*"; fi
}
