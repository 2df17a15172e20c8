# Minimal TAP producer for shell tests run by prove.
# Usage: . "$(dirname "$0")/../lib/tap.sh"; plan N; ok COND "desc"; ...
_tap_n=0
_tap_fail=0
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-$TOP/build}
[ -d "$B" ] || B=$TOP/$B

_tap_planned=
plan() { echo "1..$1"; _tap_planned=1; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { printf '# %s\n' "$@" >&2; }

# ok STATUS DESC: STATUS is an exit code (0 = pass).
ok() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_fail=$((_tap_fail + 1))
	fi
}
# t DESC CMD...: run CMD, pass if it exits 0.
t() { _d=$1; shift; "$@" >/dev/null 2>&1; ok $? "$_d"; }
# tfail DESC CMD...: pass if CMD exits non-zero.
tfail() { _d=$1; shift; if "$@" >/dev/null 2>&1; then ok 1 "$_d"; else ok 0 "$_d"; fi; }
# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'" "want: '$2'"; fi
}
# like GOT REGEX DESC
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'" "want match: '$2'"; fi
}
# done_testing: prints the plan if none was given, exits 1 on any failure.
done_testing() {
	[ -n "$_tap_planned" ] || echo "1..$_tap_n"
	exit $((_tap_fail > 0))
}
